/* The monotonic clock in nanoseconds, for the programs of user/ and the
 * test programs of tests/user/ (which include "../../user/lib/clock.h").
 * Signed, so that a difference of two readings taken in the wrong order
 * comes out negative instead of wrapping. */
#ifndef USER_LIB_CLOCK_H
#define USER_LIB_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline int64_t now_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000000ll + now.tv_nsec;
}

#endif
