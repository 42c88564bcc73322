/* The clocksource watchdog's judgement of the TSC (docs/tick.md). The
 * kernel keeps time with the HPET or the PIT (arch/x86/clock.h); the TSC
 * measures intervals: the lock check's bounds (kernel/base/lockcheck.h),
 * the benchmarks' cycle counts, and user and system time
 * (kernel/time/context_tracking.c, which goes back to the clocksource
 * once the TSC is marked unstable).
 * kernel/time/timekeeping.c reads the clocks each watchdog round on each ticking CPU; this file,
 * free of hardware (tests/host/test_tsc_watchdog.c runs it on the host),
 * decides.
 *
 * A reading is the reference clock read on either side of the TSC. When
 * the two reference reads are more than TSC_WATCHDOG_MAX_SKEW_NS apart
 * (the vCPU was not run in between, or the HPET read waited), the
 * reading says nothing and is skipped. Between two good readings of one
 * CPU at least TSC_WATCHDOG_MIN_INTERVAL_NS apart, the TSC's rate is
 * measured; the first rate measured on any CPU is the reference, and a
 * rate more than TSC_WATCHDOG_TOLERANCE_PERCENT away from it marks the
 * TSC unstable, once, for good: the watchdog then stops reading it. */
#ifndef KERNEL_TSC_WATCHDOG_H
#define KERNEL_TSC_WATCHDOG_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/lib/cpumask.h"

#define TSC_WATCHDOG_TOLERANCE_PERCENT 10
#define TSC_WATCHDOG_MAX_SKEW_NS 1000000ul          /* 1 ms: 0.4% of the shortest interval */
#define TSC_WATCHDOG_MIN_INTERVAL_NS 250000000ul    /* 250 ms */

struct tsc_reading {
    uint64_t ns_before, tsc, ns_after;
};

struct tsc_watchdog_cpu {
    uint64_t tsc, ns;           /* the last good reading */
    bool valid;
};

struct tsc_watchdog {
    uint64_t reference_khz;     /* 0 until the first rate is measured */
    volatile bool unstable;
    unsigned unstable_cpu;      /* where, and at what rate, it was found */
    uint64_t unstable_khz;
    uint64_t skewed;            /* readings skipped */
    struct tsc_watchdog_cpu cpus[MAX_CPUS];
};

enum tsc_verdict {
    TSC_SKEWED,                 /* the reference reads were too far apart: ignored */
    TSC_FIRST_READING,          /* nothing to compare with yet */
    TSC_TOO_SOON,               /* too close to the last good reading: ignored */
    TSC_REFERENCE_SET,          /* the first rate: the reference from now on */
    TSC_IN_STEP,
    TSC_MARKED_UNSTABLE,        /* this reading drifted and marked the TSC: report it */
    TSC_UNSTABLE,               /* already marked: nothing more to judge */
};

/* Judge cpu's reading; *khz is the rate measured (0 if none). */
enum tsc_verdict tsc_watchdog_check(struct tsc_watchdog *watchdog, unsigned cpu, const struct tsc_reading *reading,
                                    uint64_t *khz);

/* Mark the TSC unstable (by the watchdog, or tsc=unstable on the command
 * line, as Linux's): true for the one caller that did it. */
bool tsc_watchdog_mark_unstable(struct tsc_watchdog *watchdog, unsigned cpu, uint64_t khz);

/* The kernel's own watchdog state (kernel/time/timekeeping.c feeds it). */
extern struct tsc_watchdog tsc_watchdog;

static inline bool tsc_is_stable(void)
{
    return !__atomic_load_n(&tsc_watchdog.unstable, __ATOMIC_ACQUIRE);
}

#endif
