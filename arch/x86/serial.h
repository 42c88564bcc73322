/* The COM1 serial port: the console (115200 8N1). Output is polled;
 * input comes by the receive interrupt (ISA IRQ 4) or, without an IOAPIC,
 * by polling. kernel/console/console.c is the terminal on top of it. */
#ifndef ARCH_X86_SERIAL_H
#define ARCH_X86_SERIAL_H

#include <stddef.h>

void serial_init(void);
void serial_write(const char *text, size_t length);

#define SERIAL_ISA_IRQ 4 /* COM1's line on the ISA bus */

void serial_enable_receive_interrupt(void);
int serial_read_byte(void); /* the next received byte, or -1 if none waits */

#endif
