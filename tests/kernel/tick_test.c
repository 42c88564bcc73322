/* ktest=tick: every CPU takes its tick at hz, and the timekeeper advances
 * jiffies. Counts over a window measured on the clocksource, never times. */
#include "arch/x86/cpu.h"
#include "arch/x86/timer.h"
#include "kernel/irq.h"
#include "kernel/ktest.h"
#include "kernel/percpu.h"
#include "kernel/tick.h"

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
    uint64_t before[MAX_CPUS], ticks_before[MAX_CPUS];
    unsigned cpu;

    for_each_online_cpu(cpu) {
        before[cpu] = irq_count(cpu, IRQ_SOURCE_LOCAL_TIMER);
        ticks_before[cpu] = cpus[cpu]->tick.ticks;
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
        KTEST_EXPECT(test, within_tolerance(interrupts, expected), "cpu %u: %lu LOC, expected %lu +-%d%%", cpu,
                     interrupts, expected, TOLERANCE_PERCENT);
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

    KTEST_EXPECT(test, timekeeper_cpu == 0, "timekeeper is cpu %u", timekeeper_cpu);
    KTEST_EXPECT(test, within_tolerance(advanced, expected), "jiffies advanced %lu, expected %lu", advanced,
                 expected);
}

KTEST_SUITE(tick,
            KTEST_CASE(every_cpu_ticks_at_hz),
            KTEST_CASE(timekeeper_advances_jiffies));
