/* Kernel messages on the console. A message is written whole under one lock,
 * so lines from different CPUs never interleave. */
#ifndef KERNEL_PRINTK_H
#define KERNEL_PRINTK_H

#include <stdarg.h>
#include <stddef.h>

void printk(const char *format, ...) __attribute__((format(printf, 1, 2)));
void vprintk(const char *format, va_list args);
/* For the panic path: never waits for the console lock. */
void printk_unlocked(const char *format, ...) __attribute__((format(printf, 1, 2)));

/* Output of user programs (the console device): under printk's lock, one
 * line (at most 256 bytes) at a time. */
void console_output(const char *text, size_t length);

/* The console registers the function that writes; what was printed
 * before is written then. */
void printk_set_writer(void (*write)(const char *text, size_t length));

#endif
