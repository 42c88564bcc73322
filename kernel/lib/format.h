/* A small vsnprintf for the kernel: %d %i %u %x %X %o %p %s %c %%, with the
 * flags '-', '0' and '#' (0x prefix), a width and a precision for %s (number or '*'), and the
 * length modifiers l, ll, z. No floating point (the kernel has none). */
#ifndef KERNEL_FORMAT_H
#define KERNEL_FORMAT_H

#include <stdarg.h>
#include <stddef.h>

int vsnprintf(char *buf, size_t size, const char *format, va_list args);
int snprintf(char *buf, size_t size, const char *format, ...) __attribute__((format(printf, 3, 4)));

#endif
