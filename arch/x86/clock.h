/* The global clocksource: nanoseconds since boot, the same on every CPU.
 * The HPET main counter when there is one; otherwise the PIT (whose 16-bit
 * counter wraps every 55 ms, so something must read it more often than
 * that: the timekeeper's tick does). TSCs are not the clocksource: QEMU's
 * vCPUs need not keep them in step (clock_tsc_ns() below is for time
 * accounting only). */
#ifndef ARCH_X86_CLOCK_H
#define ARCH_X86_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/x86/cpu.h"

enum clock_source { CLOCK_SOURCE_NONE, CLOCK_SOURCE_HPET, CLOCK_SOURCE_PIT };

/* hpet_phys_address 0: no HPET; force_pit: use the PIT even with one. */
void clock_init(uint64_t hpet_phys_address, bool force_pit);
uint64_t clock_now(void);
enum clock_source clock_source(void);
const char *clock_source_name(void);
bool clock_needs_periodic_reads(void);           /* true for the PIT */
void clock_delay_ns(uint64_t ns);                /* busy wait */

/* This CPU's TSC in the clocksource's nanoseconds, at a rate measured once
 * at boot (clock_tsc_calibrate: the rate in kHz, 0 if no reading could be
 * trusted). Cheaper than clock_now() under QEMU, but only as good as the
 * TSCs' agreement, which the TSC watchdog (kernel/time/tsc_watchdog.c)
 * checks: the clocksource itself never uses it. */
uint64_t clock_tsc_calibrate(void);
uint64_t clock_tsc_khz(void);      /* the calibrated rate, 0 if none */

/* Inline: read twice on every system call (context tracking). */
struct tsc_clock {
    uint64_t tsc, ns;               /* one instant, on both clocks */
    uint64_t ns_per_cycle_scaled;   /* ns per TSC cycle << 32; 0 until calibrated */
};
extern struct tsc_clock tsc_clock;

static inline bool clock_tsc_calibrated(void)
{
    return tsc_clock.ns_per_cycle_scaled != 0;
}

static inline uint64_t clock_tsc_ns(void)
{
    uint64_t cycles = rdtsc() - tsc_clock.tsc;
    return tsc_clock.ns + (uint64_t)(((unsigned __int128)cycles * tsc_clock.ns_per_cycle_scaled) >> 32);
}

/* The two sources, for clock.c */
bool hpet_init(uint64_t phys_address);
uint64_t hpet_read_ns(void);
void pit_clock_init(void);
uint64_t pit_read_ns(void);

#endif
