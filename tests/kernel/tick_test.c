/* ktest=tick: with tick=periodic every CPU takes its tick at hz; with a
 * policy that stops idle ticks, idle CPUs take almost none; the timekeeper
 * advances jiffies either way. Counts over a window measured on the
 * clocksource, never times. */
#include "arch/x86/cpu.h"
#include "arch/x86/timer.h"
#include "kernel/irq/irq.h"
#include "kernel/debug/ktest.h"
#include "kernel/cpu/percpu.h"
#include "kernel/time/tick.h"

#define WINDOW_NS 1000000000ul
#define TOLERANCE_PERCENT 10

static void wait_on_clock(uint64_t ns)
{
    uint64_t start = clock_now();
    while (clock_now() - start < ns)
        enable_irqs_and_halt();
}

static bool within_tolerance(uint64_t count, uint64_t expected)
{
    uint64_t slack = expected * TOLERANCE_PERCENT / 100;
    return count + slack >= expected && count <= expected + slack;
}

static void every_cpu_ticks_at_hz(struct ktest *test)
{
    static uint64_t before[MAX_CPUS], ticks_before[MAX_CPUS], missed_before[MAX_CPUS];  /* 6 KiB: not on the stack */
    unsigned cpu;

    if (tick_policy->stop_when_idle) {
        ktest_skip(test, "tick=periodic only");
        return;
    }

    for_each_online_cpu(cpu) {
        before[cpu] = irq_count(cpu, IRQ_SOURCE_LOCAL_TIMER);
        ticks_before[cpu] = cpus[cpu]->tick.ticks;
        missed_before[cpu] = cpus[cpu]->tick.missed;
    }
    uint64_t start = clock_now();
    wait_on_clock(WINDOW_NS);
    uint64_t elapsed = clock_now() - start;
    uint64_t expected = elapsed / tick_period_ns;

    for_each_online_cpu(cpu) {
        uint64_t interrupts = irq_count(cpu, IRQ_SOURCE_LOCAL_TIMER) - before[cpu];
        uint64_t ticks = cpus[cpu]->tick.ticks - ticks_before[cpu];
        ktest_log(test, "cpu %u: %lu LOC interrupts, %lu ticks, expected %lu (missed so far %lu)", cpu,
                  interrupts, ticks, expected, cpus[cpu]->tick.missed);
        /* A period the host did not run this vCPU in is counted as missed
         * (tick_advance_deadline): late, not lost. */
        uint64_t missed = cpus[cpu]->tick.missed - missed_before[cpu];
        KTEST_EXPECT(test, within_tolerance(interrupts + missed, expected),
                     "cpu %u: %lu LOC + %lu missed, expected %lu +-%d%%", cpu, interrupts, missed, expected,
                     TOLERANCE_PERCENT);
        /* +1: the two counters are read one after the other, not at once */
        KTEST_EXPECT(test, ticks <= interrupts + 1, "cpu %u: more ticks (%lu) than interrupts (%lu)", cpu, ticks,
                     interrupts);
    }
}

static void timekeeper_advances_jiffies(struct ktest *test)
{
    uint64_t before = jiffies;
    uint64_t start = clock_now();
    wait_on_clock(WINDOW_NS / 4);
    uint64_t expected = (clock_now() - start) / tick_period_ns;
    uint64_t advanced = jiffies - before;

    if (!tick_policy->stop_when_idle)
        KTEST_EXPECT(test, timekeeper_cpu == 0, "timekeeper is cpu %u", timekeeper_cpu);
    KTEST_EXPECT(test, within_tolerance(advanced, expected), "jiffies advanced %lu, expected %lu", advanced,
                 expected);
}

/* The CPUs other than ours have nothing to run: with an idle-stopping
 * policy their ticks stop, and they take a few interrupts a second at
 * most (for timers), against hz with tick=periodic. */
static void idle_cpus_stop_their_tick(struct ktest *test)
{
    static uint64_t before[MAX_CPUS];
    unsigned cpu;

    if (!tick_policy->stop_when_idle || cpu_count < 2) {
        ktest_skip(test, "a policy that stops idle ticks, and 2 CPUs");
        return;
    }
    wait_on_clock(WINDOW_NS / 10);      /* let them settle into idle */
    for_each_online_cpu(cpu)
        before[cpu] = irq_count(cpu, IRQ_SOURCE_LOCAL_TIMER);
    wait_on_clock(WINDOW_NS);
    for_each_online_cpu(cpu) {
        if (cpu == this_cpu_id())
            continue;
        uint64_t interrupts = irq_count(cpu, IRQ_SOURCE_LOCAL_TIMER) - before[cpu];
        ktest_log(test, "cpu %u: %lu LOC interrupts in 1 s, idle (hz %u)", cpu, interrupts, tick_hz);
        KTEST_EXPECT(test, interrupts * 10 < tick_hz, "idle cpu %u took %lu timer interrupts in 1 s", cpu,
                     interrupts);
    }
}

KTEST_SUITE(tick,
            KTEST_CASE(every_cpu_ticks_at_hz),
            KTEST_CASE(idle_cpus_stop_their_tick),
            KTEST_CASE(timekeeper_advances_jiffies));
