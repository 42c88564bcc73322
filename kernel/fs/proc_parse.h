/* The text parsers behind the writable /proc files, apart from what the
 * writes then do: pure functions of the bytes written, so that the host
 * fuzz targets (tests/fuzz/fuzz_proc_write.c) run them as the kernel does.
 * Each takes exactly what write(2) handed the file, which need not be
 * NUL-terminated and may hold any byte. */
#ifndef KERNEL_PROC_PARSE_H
#define KERNEL_PROC_PARSE_H

#include <stddef.h>

/* /proc/PID/nohz: "0" or "1", spaces, tabs, CRs and LFs around it
 * ignored. 0 or 1, or -EINVAL. */
int proc_parse_nohz(const char *data, size_t count);

/* /proc/sys/kernel/tick_policy: one word, spaces, tabs and LFs around it
 * ignored, copied NUL-terminated into word (size bytes). Its length, or
 * -EINVAL if it is empty, holds a NUL byte, or does not fit. */
long proc_parse_word(const char *data, size_t count, char *word, size_t size);

/* /proc/rcustress: a number of seconds in decimal, from 1 to max, and at
 * most a final LF. The number, or -EINVAL. */
long proc_parse_seconds(const char *data, size_t count, unsigned long max);

/* The same from min to max (/proc/PID/fail-nth: 0 to INT_MAX). */
long proc_parse_number(const char *data, size_t count, unsigned long min, unsigned long max);

/* /proc/trace: "clear", or "classes LIST" (kernel/trace/trace_classes.c), with
 * or without a final LF. PROC_TRACE_CLEAR, PROC_TRACE_CLASSES with *mask
 * set, or -EINVAL. */
enum { PROC_TRACE_CLEAR = 1, PROC_TRACE_CLASSES = 2 };
int proc_parse_trace(const char *data, size_t count, unsigned *mask);

#endif
