/* Choosing the clocksource: see arch/x86/clock.h. */
#include "arch/x86/clock.h"

#include "arch/x86/cpu.h"
#include "kernel/base/printk.h"

static enum clock_source source = CLOCK_SOURCE_NONE;

void clock_init(uint64_t hpet_phys_address, bool force_pit)
{
    if (!force_pit && hpet_phys_address && hpet_init(hpet_phys_address)) {
        source = CLOCK_SOURCE_HPET;
        return;
    }
    pit_clock_init();
    source = CLOCK_SOURCE_PIT;
    if (force_pit)
        printk("clock: using the PIT (clocksource=pit; the timekeeper must keep ticking)\n");
    else
        printk("clock: no HPET, using the PIT (the timekeeper must keep ticking)\n");
}

uint64_t clock_now(void)
{
    if (source == CLOCK_SOURCE_HPET)
        return hpet_read_ns();
    if (source == CLOCK_SOURCE_PIT)
        return pit_read_ns();
    return 0;
}

enum clock_source clock_source(void) { return source; }

const char *clock_source_name(void)
{
    return source == CLOCK_SOURCE_HPET ? "hpet" : source == CLOCK_SOURCE_PIT ? "pit" : "none";
}

bool clock_needs_periodic_reads(void)
{
    return source == CLOCK_SOURCE_PIT;
}

void clock_delay_ns(uint64_t ns)
{
    uint64_t start = clock_now();
    while (clock_now() - start < ns)
        cpu_relax();
}

/* ---- The TSC, calibrated against the clocksource ---- */

#define CALIBRATION_NS 20000000ul    /* 20 ms between the two readings */
#define READING_MAX_SKEW_NS 5000ul    /* clocksource reads this close: the vCPU ran throughout */
#define READING_TRIES 100

struct tsc_clock tsc_clock;

/* The TSC between two clocksource reads close together: under TCG the
 * vCPU may be descheduled anywhere, and a reading with a gap in it would
 * put the gap into the rate. */
static bool read_both_clocks(uint64_t *tsc, uint64_t *ns)
{
    for (int try = 0; try < READING_TRIES; try++) {
        uint64_t before = clock_now();
        *tsc = rdtsc();
        uint64_t after = clock_now();
        if (after - before <= READING_MAX_SKEW_NS) {
            *ns = before + (after - before) / 2;
            return true;
        }
    }
    return false;
}

uint64_t clock_tsc_calibrate(void)
{
    uint64_t tsc, ns, tsc_end, ns_end;
    if (!read_both_clocks(&tsc, &ns))
        return 0;
    clock_delay_ns(CALIBRATION_NS);
    if (!read_both_clocks(&tsc_end, &ns_end))
        return 0;
    uint64_t tsc_delta = tsc_end - tsc, ns_delta = ns_end - ns;
    if (tsc_end <= tsc || ns_delta >> 32)
        return 0;
    tsc_clock.tsc = tsc;
    tsc_clock.ns = ns;
    tsc_clock.ns_per_cycle_scaled = (ns_delta << 32) / tsc_delta;
    return tsc_delta * 1000000 / ns_delta;
}


uint64_t clock_tsc_khz(void)
{
    if (!tsc_clock.ns_per_cycle_scaled)
        return 0;
    return (uint64_t)((1000000ull << 32) / tsc_clock.ns_per_cycle_scaled);
}

