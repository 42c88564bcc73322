/* In-kernel micro-benchmarks, run with bench=NAME[,NAME] (or bench=all).
 * Each prints lines "bench: NAME KEY=VALUE ..." that tools/bench collects.
 * Numbers are TSC cycles measured on one CPU: they depend on the host. */
#ifndef KERNEL_BENCH_H
#define KERNEL_BENCH_H

#include <stdint.h>

/* Returns the number of benchmarks that could not run. */
unsigned bench_run(const char *names);
/* The median of count values (sorts them in place; count is small). */
uint64_t bench_median(uint64_t *values, unsigned count);

#endif
