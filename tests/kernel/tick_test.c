/* ktest=tick: with tick=periodic every CPU takes its tick at hz; with a
 * policy that stops idle ticks, idle CPUs take almost none; the timekeeper
 * advances jiffies either way. Counts over a window measured on the
 * clocksource, never times. */
#include "arch/x86/cpu.h"
#include "arch/x86/timer.h"
#include "kernel/irq/irq.h"
#include "kernel/debug/ktest.h"
#include "kernel/base/percpu.h"
#include "kernel/time/tick.h"
#include "kernel/time/timers.h"

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
        ticks_before[cpu] = tick_state_of(cpu)->ticks;
        missed_before[cpu] = tick_state_of(cpu)->missed;
    }
    uint64_t start = clock_now();
    wait_on_clock(WINDOW_NS);
    uint64_t elapsed = clock_now() - start;
    uint64_t expected = elapsed / tick_period_ns;

    for_each_online_cpu(cpu) {
        uint64_t interrupts = irq_count(cpu, IRQ_SOURCE_LOCAL_TIMER) - before[cpu];
        uint64_t ticks = tick_state_of(cpu)->ticks - ticks_before[cpu];
        ktest_log(test, "cpu %u: %lu LOC interrupts, %lu ticks, expected %lu (missed so far %lu)", cpu,
                  interrupts, ticks, expected, tick_state_of(cpu)->missed);
        /* A period the host did not run this vCPU in is counted as missed
         * (tick_advance_deadline): late, not lost. */
        uint64_t missed = tick_state_of(cpu)->missed - missed_before[cpu];
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

/* An idle CPU keeps its tick while a timer is due within one period
 * (keep_reason's "timer"): a call on an idle CPU starts a pinned timer
 * half a period away there, and returns to idle. The idle entry that
 * follows must refuse to stop for the timer, so the timer fires with the
 * tick running. Rounds, and /proc/tick's per-reason refusal count. */
#define TIMER_ROUNDS 20

struct due_timer {
    struct timer timer;
    volatile bool fired;
    volatile bool tick_was_running;
};

static void due_timer_fired(struct timer *timer)
{
    struct due_timer *due = timer->data;
    due->tick_was_running = this_tick()->running;
    __atomic_store_n(&due->fired, true, __ATOMIC_RELEASE);
}

static void start_due_timer(void *arg)
{
    struct due_timer *due = arg;
    timer_start(&due->timer, clock_now() + tick_period_ns / 2, true);
}

static unsigned quiet_other_cpu(void)
{
    for (unsigned cpu = cpu_count - 1; cpu > 0; cpu--) {
        if (cpu != this_cpu_id() && cpu != timekeeper_cpu)
            return cpu;
    }
    return this_cpu_id();
}

static void idle_cpu_keeps_its_tick_for_a_due_timer(struct ktest *test)
{
    static struct due_timer due;
    unsigned cpu = quiet_other_cpu(), stopped_when_fired = 0, fired = 0;

    if (!tick_policy->stop_when_idle || cpu == this_cpu_id()) {
        ktest_skip(test, "a policy that stops idle ticks, and a CPU that is neither ours nor the timekeeper");
        return;
    }
    const struct tick_state *tick = tick_state_of(cpu);
    uint64_t refusals = tick->refusals[TICK_KEEP_TIMER];
    for (unsigned round = 0; round < TIMER_ROUNDS; round++) {
        timer_init(&due.timer, due_timer_fired, &due);
        due.fired = false;
        if (smp_call_function_single(cpu, start_due_timer, &due, true) < 0)
            break;
        uint64_t limit = clock_now() + WINDOW_NS;
        while (!__atomic_load_n(&due.fired, __ATOMIC_ACQUIRE) && clock_now() < limit)
            cpu_relax();
        fired += due.fired;
        stopped_when_fired += due.fired && !due.tick_was_running;
        timer_cancel_sync(&due.timer);
    }
    refusals = tick->refusals[TICK_KEEP_TIMER] - refusals;
    ktest_log(test, "cpu %u: %u of %u timers fired, %u with the tick stopped; %lu refusals for the timer", cpu,
              fired, TIMER_ROUNDS, stopped_when_fired, refusals);
    KTEST_EXPECT(test, fired == TIMER_ROUNDS, "%u of %u timers fired", fired, TIMER_ROUNDS);
    KTEST_EXPECT(test, stopped_when_fired == 0, "%u timers due within a period found the idle tick stopped",
                 stopped_when_fired);
    KTEST_EXPECT(test, refusals >= 1, "idle cpu %u never kept its tick for a timer due", cpu);
}

KTEST_SUITE(tick,
            KTEST_CASE(every_cpu_ticks_at_hz),
            KTEST_CASE(idle_cpus_stop_their_tick),
            KTEST_CASE(idle_cpu_keeps_its_tick_for_a_due_timer),
            KTEST_CASE(timekeeper_advances_jiffies));
