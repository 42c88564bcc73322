/* Timekeeping: one ticking CPU, the timekeeper, advances jiffies and opens
 * the rounds of the clocksource watchdog; in each round every ticking CPU
 * without a nohz task checks its own TSC in its own tick (docs/tick.md,
 * "The timekeeper and jiffies" and "The clocksource watchdog and the
 * TSC"). A CPU with a nohz task never does either. */
#include "kernel/time/tick.h"

#include "arch/x86/clock.h"
#include "arch/x86/cpu.h"
#include "kernel/base/printk.h"
#include "kernel/base/percpu.h"
#include "kernel/time/nohz_task.h"
#include "kernel/time/tsc_watchdog.h"
#include "kernel/time/vdso_clock.h"

#define NS_PER_SECOND 1000000000ul
#define WATCHDOG_INTERVAL_NS (NS_PER_SECOND / 2)

volatile uint64_t jiffies;
volatile unsigned timekeeper_cpu;

static volatile uint64_t watchdog_round;     /* bumped by the timekeeper */
static uint64_t watchdog_last_run;

/* jiffies is a function of the clocksource, so a timekeeper that took
 * over after a pause catches up in one step. */
static void timekeeping_update(uint64_t now)
{
    __atomic_store_n(&jiffies, now / tick_period_ns, __ATOMIC_RELEASE);
    vdso_clock_update(now);
    if (now - watchdog_last_run >= WATCHDOG_INTERVAL_NS) {
        watchdog_last_run = now;
        __atomic_add_fetch(&watchdog_round, 1, __ATOMIC_RELEASE);
    }
}

/* The clocksource watchdog (docs/nohz-task.md#patch-12-the-clocksource-watchdog-skips-nohz-cpus):
 * each round, every ticking CPU that has no nohz task reads its own TSC
 * between two reads of the clocksource, in its own tick, so no CPU is
 * interrupted for it and a nohz CPU never does the work.
 * kernel/time/tsc_watchdog.c judges the readings; a TSC found drifting is
 * marked unstable once, with one console line, and is not read by the
 * watchdog again (Linux's watchdog is a timer that visits CPUs in turn,
 * skips nohz ones, and marks the TSC unstable the same way). */
#define WATCHDOG_READ_ATTEMPTS 3    /* readings tried per round while they come out skewed */

static uint64_t watchdog_round_seen[MAX_CPUS];

static void watchdog_read(struct tsc_reading *reading)
{
    reading->ns_before = clock_now();
    reading->tsc = rdtsc();
    reading->ns_after = clock_now();
}

static void watchdog_check_this_cpu(struct cpu *cpu)
{
    uint64_t round = __atomic_load_n(&watchdog_round, __ATOMIC_ACQUIRE);
    struct tsc_reading reading;
    enum tsc_verdict verdict = TSC_SKEWED;
    uint64_t khz;

    if (watchdog_round_seen[cpu->id] == round || cpu_is_isolated(cpu->id))
        return;
    watchdog_round_seen[cpu->id] = round;
    tick_state_of(cpu->id)->watchdog_checks++;
    if (!tsc_is_stable())
        return;             /* nothing left to watch */
    for (int attempt = 0; attempt < WATCHDOG_READ_ATTEMPTS && verdict == TSC_SKEWED; attempt++) {
        watchdog_read(&reading);
        verdict = tsc_watchdog_check(&tsc_watchdog, cpu->id, &reading, &khz);
    }
    if (verdict == TSC_MARKED_UNSTABLE) {
        vdso_clock_update(clock_now());     /* the vDSO makes system calls from now on */
        printk("clocksource: tsc marked unstable: cpu %u measured %lu kHz against the %s, reference %lu kHz; "
               "the watchdog stops reading it and lock waits count spins\n",
               cpu->id, khz, clock_source_name(), tsc_watchdog.reference_khz);
    }
}

/* A CPU that ticks takes timekeeping up when nobody has it, unless it has
 * a nohz task. */
static void timekeeping_take_if_free(unsigned cpu)
{
    unsigned none = TIMEKEEPER_NONE;
    if (timekeeper_cpu == TIMEKEEPER_NONE && !cpu_is_isolated(cpu))
        __atomic_compare_exchange_n(&timekeeper_cpu, &none, cpu, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
}

void timekeeping_tick(struct cpu *cpu, uint64_t now)
{
    timekeeping_take_if_free(cpu->id);
    if (cpu->id == timekeeper_cpu)
        timekeeping_update(now);
    watchdog_check_this_cpu(cpu);
}

void tick_timekeeper_move_off(unsigned cpu)
{
    unsigned current = timekeeper_cpu, target;
    if (current != cpu && current != TIMEKEEPER_NONE)
        return;
    struct cpumask candidates;
    cpumask_andnot(&candidates, &cpu_online_mask, &cpu_has_nohz_task);
    cpumask_andnot(&candidates, &candidates, &nohz_full_mask);
    cpumask_clear(&candidates, cpu);
    target = cpumask_first(&candidates);
    if (target >= MAX_CPUS)
        return;     /* cannot happen: a nohz task never takes the last free CPU */
    __atomic_store_n(&timekeeper_cpu, target, __ATOMIC_SEQ_CST);
    tick_nohz_kick(target, "timekeeper");     /* if its tick is stopped: it must tick now */
}

/* The timekeeper's tick runs while isolated CPUs exist (they keep no time
 * themselves), and always on the PIT, which wraps every 55 ms: someone
 * must read it more often than that (arch/x86/pit.c). */
enum tick_keep_reason timekeeping_needs_tick(unsigned cpu)
{
    if (cpu != timekeeper_cpu)
        return TICK_MAY_STOP;
    if (isolated_cpus_exist())
        return TICK_KEEP_TIMEKEEPING;
    return clock_needs_periodic_reads() ? TICK_KEEP_CLOCK : TICK_MAY_STOP;
}
