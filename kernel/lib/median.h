/* The median of a handful of measurements (the benchmarks' batches). */
#ifndef KERNEL_LIB_MEDIAN_H
#define KERNEL_LIB_MEDIAN_H

#include <stdint.h>

/* The median of count values, count > 0; sorts them in place (insertion
 * sort: count is small). */
uint64_t median(uint64_t *values, unsigned count);

#endif
