/* Witness marks written to the UART at 0x3f8 by the program itself
 * (after ioperm), from the CPU it runs on: Linux sends a program's console
 * text from its serial interrupt, on whichever CPU takes it, so only bytes
 * written by the program itself are sure to come from its CPU and to land
 * in that vCPU's QEMU log (docs/noise.md, "Linux: whose vCPU is it?").
 * nohzk refuses ioperm (ENOSYS); its console writes on the writer's CPU.
 * Linux's ioperm is per thread, and a thread created afterwards inherits
 * it. Shared by osnoise and tests/user/nohz_threads.c. */
#ifndef USER_LIB_UART_MARK_H
#define USER_LIB_UART_MARK_H

#include <errno.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#define UART_PORT 0x3f8
#define UART_LINE_STATUS (UART_PORT + 5)
#define UART_TRANSMITTER_EMPTY 0x20
#define UART_WAIT_SPINS 1000000

static inline void uart_outb(uint8_t value, uint16_t port)
{
    __asm__ volatile("outb %0, %1" : : "a"(value), "Nd"(port));
}

static inline uint8_t uart_inb(uint16_t port)
{
    uint8_t value;
    __asm__ volatile("inb %1, %0" : "=a"(value) : "Nd"(port));
    return value;
}

static inline void uart_put(char c)
{
    for (int spins = 0; !(uart_inb(UART_LINE_STATUS) & UART_TRANSMITTER_EMPTY) && spins < UART_WAIT_SPINS; spins++)
        ;
    uart_outb((uint8_t)c, UART_PORT);
}

/* 0, or the errno of ioperm. */
static inline int uart_allow(void)
{
    return syscall(SYS_ioperm, UART_PORT, 8, 1) == 0 ? 0 : errno;
}

/* length bytes of text, each newline as CR LF. */
static inline void uart_write(const char *text, int length)
{
    for (int i = 0; i < length; i++) {
        if (text[i] == '\n')
            uart_put('\r');
        uart_put(text[i]);
    }
}

#endif
