/* The clocksource watchdog's verdict on the TSC: see kernel/time/tsc_watchdog.h.
 * Each CPU writes only its own entry of watchdog->cpus[]; the reference
 * rate and the mark are set once, by compare-and-swap, by whichever CPU
 * gets there first. */
#include "kernel/time/tsc_watchdog.h"

#define NS_PER_MS 1000000ul

struct tsc_watchdog tsc_watchdog;

/* TSC counts per millisecond over the interval. A CPU whose tick stopped
 * for hours gives a long interval: both sides are halved until the
 * product fits in 64 bits. */
static uint64_t rate_khz(uint64_t tsc_delta, uint64_t ns_delta)
{
    while (tsc_delta > UINT64_MAX / NS_PER_MS) {
        tsc_delta >>= 1;
        ns_delta >>= 1;
    }
    return tsc_delta * NS_PER_MS / ns_delta;
}

static bool drifts(uint64_t khz, uint64_t reference_khz)
{
    uint64_t off = khz > reference_khz ? khz - reference_khz : reference_khz - khz;
    return off > UINT64_MAX / 100 || off * 100 > reference_khz * TSC_WATCHDOG_TOLERANCE_PERCENT;
}

/* The reference rate: the first one measured, by any CPU. */
static uint64_t reference_rate(struct tsc_watchdog *watchdog, uint64_t khz, bool *set_now)
{
    uint64_t none = 0;
    *set_now = __atomic_compare_exchange_n(&watchdog->reference_khz, &none, khz, false, __ATOMIC_SEQ_CST,
                                           __ATOMIC_SEQ_CST);
    return *set_now ? khz : none;
}

/* True for the one caller that marks the TSC unstable. */
bool tsc_watchdog_mark_unstable(struct tsc_watchdog *watchdog, unsigned cpu, uint64_t khz)
{
    bool stable = false;
    if (!__atomic_compare_exchange_n(&watchdog->unstable, &stable, true, false, __ATOMIC_SEQ_CST,
                                     __ATOMIC_SEQ_CST))
        return false;
    watchdog->unstable_cpu = cpu;
    watchdog->unstable_khz = khz;
    return true;
}

enum tsc_verdict tsc_watchdog_check(struct tsc_watchdog *watchdog, unsigned cpu, const struct tsc_reading *reading,
                                    uint64_t *khz)
{
    struct tsc_watchdog_cpu *last = &watchdog->cpus[cpu];
    bool set_now;

    *khz = 0;
    if (__atomic_load_n(&watchdog->unstable, __ATOMIC_ACQUIRE))
        return TSC_UNSTABLE;
    if (reading->ns_after < reading->ns_before || reading->ns_after - reading->ns_before > TSC_WATCHDOG_MAX_SKEW_NS) {
        __atomic_add_fetch(&watchdog->skewed, 1, __ATOMIC_RELAXED);
        return TSC_SKEWED;
    }
    /* The TSC was read between the two: the middle is its moment. */
    uint64_t ns = reading->ns_before + (reading->ns_after - reading->ns_before) / 2;
    if (!last->valid || ns <= last->ns) {
        *last = (struct tsc_watchdog_cpu){ reading->tsc, ns, true };
        return TSC_FIRST_READING;
    }
    if (ns - last->ns < TSC_WATCHDOG_MIN_INTERVAL_NS)
        return TSC_TOO_SOON;
    if (reading->tsc <= last->tsc)      /* stood still or went back: rate 0 */
        return tsc_watchdog_mark_unstable(watchdog, cpu, 0) ? TSC_MARKED_UNSTABLE : TSC_UNSTABLE;
    *khz = rate_khz(reading->tsc - last->tsc, ns - last->ns);
    *last = (struct tsc_watchdog_cpu){ reading->tsc, ns, true };
    uint64_t reference = reference_rate(watchdog, *khz, &set_now);
    if (set_now)
        return TSC_REFERENCE_SET;
    if (!drifts(*khz, reference))
        return TSC_IN_STEP;
    return tsc_watchdog_mark_unstable(watchdog, cpu, *khz) ? TSC_MARKED_UNSTABLE : TSC_UNSTABLE;
}
