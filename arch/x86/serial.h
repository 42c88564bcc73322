/* The COM1 serial port: the console (115200 8N1). */
#ifndef ARCH_X86_SERIAL_H
#define ARCH_X86_SERIAL_H

#include <stddef.h>

void serial_init(void);
void serial_write(const char *text, size_t length);

#endif
