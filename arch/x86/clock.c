/* Choosing the clocksource: see arch/x86/clock.h. */
#include "arch/x86/clock.h"

#include "arch/x86/cpu.h"
#include "kernel/console/printk.h"

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
