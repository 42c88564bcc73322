/* The vDSO's data page: see kernel/time/vdso_clock.h.
 *
 * The conversion starts as the TSC's calibration (arch/x86/clock.c) and is
 * rewritten only by the timekeeper's tick, every STEER_INTERVAL_NS: the
 * new base is the old conversion's reading at the new base TSC, so the
 * clock never steps; only the rate (mult) changes, by at most
 * STEER_MAX_PPM, so that the offset from the clocksource measured now is
 * gone by the next update (the proportional part) and the rate's own
 * error is learned (rate_mult, the integral part). A nohz CPU never
 * writes the page and needs nothing written: the conversion holds for as
 * long as the TSC does. Once the TSC watchdog marks it unstable,
 * use_syscall sends the vDSO to the system call, which then reads the
 * clocksource, never below the last TSC reading (no step back) unless
 * that was more than a millisecond ahead. Left out:
 * NTP (adjtimex) and a wall clock: REALTIME is MONOTONIC here. */
#include "kernel/time/vdso_clock.h"

#include "arch/x86/clock.h"
#include "arch/x86/paging.h"
#include "arch/x86/vdso/vdso_data.h"
#include "kernel/base/panic.h"
#include "kernel/base/spinlock.h"
#include "kernel/mm/page_alloc.h"
#include "kernel/time/tick.h"
#include "kernel/time/tsc_watchdog.h"

#define NS_PER_SECOND       1000000000ul
#define STEER_INTERVAL_NS   (NS_PER_SECOND / 2)
#define STEER_MAX_PPM       500
#define STEER_MAX_SKEW_NS   20000ul     /* the clocksource reads around the TSC this close, or no steering */
#define CONVERSION_SHIFT    32
#define FALLBACK_MAX_AHEAD_NS 1000000ul     /* 1 ms: far more than steering leaves */

static uint64_t data_page;
static struct vdso_data *data;
static struct spinlock data_lock;       /* the timekeeper and a CPU marking the TSC unstable */
static int64_t rate_mult;               /* the steered rate, without this interval's offset correction */
static uint64_t last_steer_ns;          /* clocksource time of the last steering */
static volatile uint64_t fallback_floor_ns;     /* the clock when the vDSO gave up the TSC */

void vdso_clock_init(void)
{
    data_page = page_alloc();
    if (!data_page)
        panic("vdso: no memory for the data page");
    data = phys_to_virt(data_page);
    spin_lock_init(&data_lock, "vdso_data");
    data->shift = CONVERSION_SHIFT;
    data->coarse_ns = NS_PER_SECOND / tick_hz;
    data->base_tsc = tsc_clock.tsc;
    data->base_ns = tsc_clock.ns;
    data->mult = rate_mult = (int64_t)tsc_clock.ns_per_cycle_scaled;
    data->use_syscall = !clock_tsc_calibrated() || !tsc_is_stable();
    last_steer_ns = tsc_clock.ns;
}

uint64_t vdso_clock_data_page(void)
{
    return data_page;
}

uint64_t vdso_clock_ns(bool coarse)
{
    uint64_t ns;
    if (data && vdso_data_read(data, coarse, &ns))
        return ns;
    ns = clock_now();
    uint64_t floor = fallback_floor_ns;
    if (ns < floor)
        ns = floor;
    if (coarse)
        ns -= ns % (NS_PER_SECOND / tick_hz);
    return ns;
}

static int64_t clamp(int64_t value, int64_t bound)
{
    return value > bound ? bound : value < -bound ? -bound : value;
}

/* mult changed by part/whole of itself, |part| <= whole * STEER_MAX_PPM
 * (in parts per billion, so that no product leaves 64 bits). */
static int64_t scaled(int64_t mult, int64_t part, uint64_t whole)
{
    while (whole > 10000 * NS_PER_SECOND) {      /* a timekeeper idle for hours */
        whole >>= 1;
        part /= 2;
    }
    int64_t ppb = part * 1000000000l / (int64_t)whole;
    return mult + mult / 1000000000l * ppb + mult % 1000000000l * ppb / 1000000000l;
}

/* The offset from the clocksource at reading, corrected over the next
 * interval; a quarter of it, per interval elapsed, goes into the rate. */
static void steer(const struct tsc_reading *reading)
{
    uint64_t reference = reading->ns_before + (reading->ns_after - reading->ns_before) / 2;
    uint64_t elapsed = reference - last_steer_ns;
    int64_t offset = (int64_t)(reference - vdso_data_ns_at(data, reading->tsc));    /* > 0: the TSC clock is behind */
    last_steer_ns = reference;
    if (!elapsed)
        return;
    int64_t bound = (int64_t)(elapsed / 1000000 * STEER_MAX_PPM);
    rate_mult = scaled(rate_mult, clamp(offset / 4, bound), elapsed);
    int64_t correction = clamp(offset, (int64_t)(STEER_INTERVAL_NS / 1000000 * STEER_MAX_PPM));
    data->mult = (uint64_t)scaled(rate_mult, correction, STEER_INTERVAL_NS);
}

/* The floor under the clocksource once the TSC is given up: the TSC
 * clock's last reading, unless that is further ahead than the steering
 * could ever leave it (the TSC that was just found unstable may have
 * jumped): then the clocksource, and the clock steps back. */
static uint64_t fallback_floor(uint64_t tsc_now)
{
    uint64_t source = clock_now();
    return tsc_now > source && tsc_now - source <= FALLBACK_MAX_AHEAD_NS ? tsc_now : source;
}

/* Odd seq while writing: the reads of the vDSO and the system calls retry.
 * The new base TSC is read after seq went odd, so no reader finished with
 * the old conversion at a later TSC. */
static void write_data(const struct tsc_reading *reading, bool stop_tsc)
{
    spin_lock(&data_lock);
    __atomic_store_n(&data->seq, data->seq + 1, __ATOMIC_RELEASE);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    uint64_t tsc = vdso_rdtsc_ordered();
    uint64_t now = vdso_data_ns_at(data, tsc);
    if (stop_tsc) {
        fallback_floor_ns = fallback_floor(now);
        data->use_syscall = 1;
    } else {
        steer(reading);
        data->base_tsc = tsc;
        data->base_ns = now;
    }
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    __atomic_store_n(&data->seq, data->seq + 1, __ATOMIC_RELEASE);
    spin_unlock(&data_lock);
}

void vdso_clock_update(uint64_t now)
{
    if (!data || data->use_syscall)
        return;
    if (!tsc_is_stable()) {
        write_data(0, true);
        return;
    }
    if (now - last_steer_ns < STEER_INTERVAL_NS)
        return;
    struct tsc_reading reading;
    reading.ns_before = clock_now();
    reading.tsc = rdtsc();
    reading.ns_after = clock_now();
    if (reading.ns_after < reading.ns_before || reading.ns_after - reading.ns_before > STEER_MAX_SKEW_NS)
        return;     /* the vCPU stopped in between: try at the next tick */
    write_data(&reading, false);
}
