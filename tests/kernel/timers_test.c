/* ktest=timers: timers fire on the CPU they belong to and never before
 * their deadline; unpinned ones only on housekeeping CPUs; a sleep never
 * ends early. Orderings and counts, not durations. */
#include "arch/x86/cpu.h"
#include "arch/x86/timer.h"
#include "kernel/time/housekeeping.h"
#include "kernel/debug/ktest.h"
#include "kernel/base/percpu.h"
#include "kernel/time/timers.h"
#include "sched/task.h"

#define US 1000ul
#define MS 1000000ul
#define TIMERS_PER_CPU 20

struct probe {
    struct timer timer;
    volatile bool fired;
    volatile unsigned fired_on;
    volatile uint64_t fired_at;
};

static void record_firing(struct timer *timer)
{
    struct probe *probe = timer->data;
    probe->fired_at = clock_now();
    probe->fired_on = this_cpu_id();
    __atomic_store_n(&probe->fired, true, __ATOMIC_RELEASE);
}

struct batch {
    struct probe probes[TIMERS_PER_CPU];
    bool pinned;
    unsigned started_on;
    unsigned placed_on[TIMERS_PER_CPU];
};

/* Runs on the CPU under test: start the timers from there. */
static void start_batch(void *arg)
{
    struct batch *batch = arg;
    uint64_t now = clock_now();
    batch->started_on = this_cpu_id();
    for (int i = 0; i < TIMERS_PER_CPU; i++) {
        timer_init(&batch->probes[i].timer, record_firing, &batch->probes[i]);
        /* deadlines out of order, some within the same tick period */
        uint64_t deadline = now + ((i * 7) % TIMERS_PER_CPU) * 150 * US + 200 * US;
        batch->placed_on[i] = timer_start(&batch->probes[i].timer, deadline, batch->pinned);
    }
}

static bool wait_all_fired(struct batch *batch)
{
    uint64_t start = clock_now();
    for (int i = 0; i < TIMERS_PER_CPU; i++) {
        while (!__atomic_load_n(&batch->probes[i].fired, __ATOMIC_ACQUIRE)) {
            if (clock_now() - start > 2000 * MS)
                return false;
            sleep_ns(MS);
        }
    }
    return true;
}

static void run_batch_on(unsigned cpu, struct batch *batch)
{
    struct cpumask there = cpumask_of(cpu);
    struct task *starter = kthread_create("timer-start", start_batch, batch, &there);
    kthread_join(starter);
}

static void pinned_timers_fire_on_their_cpu_never_early(struct ktest *test)
{
    static struct batch batch;
    unsigned cpu, total = 0;

    for_each_online_cpu(cpu) {
        batch = (struct batch){ .pinned = true };
        run_batch_on(cpu, &batch);
        KTEST_EXPECT(test, wait_all_fired(&batch), "cpu %u: timers did not all fire", cpu);
        for (int i = 0; i < TIMERS_PER_CPU; i++) {
            const struct probe *probe = &batch.probes[i];
            KTEST_EXPECT(test, batch.placed_on[i] == cpu && probe->fired_on == cpu,
                         "pinned timer from cpu %u placed on %u fired on %u", cpu, batch.placed_on[i],
                         probe->fired_on);
            KTEST_EXPECT(test, probe->fired_at >= probe->timer.deadline, "cpu %u timer %d fired %lu ns early", cpu,
                         i, probe->timer.deadline - probe->fired_at);
            total++;
        }
    }
    ktest_log(test, "%u pinned timers checked", total);
}

static void unpinned_timers_only_on_housekeeping_cpus(struct ktest *test)
{
    static struct batch batch;
    struct cpumask saved = housekeeping_mask, only_first = cpumask_of(0);
    unsigned cpu, total = 0;

    if (cpu_count > 2)
        cpumask_set(&only_first, 1);
    KTEST_EXPECT(test, housekeeping_set(&only_first) == 0, "could not restrict housekeeping");
    for_each_online_cpu(cpu) {
        batch = (struct batch){ .pinned = false };
        run_batch_on(cpu, &batch);
        KTEST_EXPECT(test, wait_all_fired(&batch), "from cpu %u: timers did not all fire", cpu);
        for (int i = 0; i < TIMERS_PER_CPU; i++) {
            const struct probe *probe = &batch.probes[i];
            KTEST_EXPECT(test, cpumask_test(&only_first, probe->fired_on),
                         "unpinned timer from cpu %u fired on non-housekeeping cpu %u", cpu, probe->fired_on);
            KTEST_EXPECT(test, probe->fired_at >= probe->timer.deadline, "fired %lu ns early",
                         probe->timer.deadline - probe->fired_at);
            total++;
        }
    }
    housekeeping_set(&saved);
    ktest_log(test, "%u unpinned timers checked", total);
    struct cpumask empty = { 0 };
    KTEST_EXPECT(test, housekeeping_set(&empty) < 0, "an empty housekeeping set was accepted");
    KTEST_EXPECT(test, cpumask_equal(&housekeeping_mask, &saved), "a refused change altered the set");
}

static void cancelled_timer_never_fires(struct ktest *test)
{
    static struct probe probe;
    timer_init(&probe.timer, record_firing, &probe);
    timer_start(&probe.timer, clock_now() + 5 * MS, true);
    KTEST_EXPECT(test, timer_cancel(&probe.timer), "a pending timer was not cancelled");
    KTEST_EXPECT(test, !timer_cancel(&probe.timer), "cancelled twice");
    sleep_ns(10 * MS);
    KTEST_EXPECT(test, !probe.fired, "a cancelled timer fired");
}

static void sleep_never_ends_early(struct ktest *test)
{
    static const uint64_t durations[] = { 1, 100 * US, 999 * US, 1 * MS, 2500 * US, 7 * MS };
    unsigned early = 0;

    for (int round = 0; round < 10; round++) {
        for (unsigned i = 0; i < sizeof(durations) / sizeof(durations[0]); i++) {
            uint64_t start = clock_now();
            sleep_ns(durations[i]);
            if (clock_now() - start < durations[i])
                early++;
        }
    }
    KTEST_EXPECT(test, early == 0, "%u sleeps ended before their time", early);
}

KTEST_SUITE(timers,
            KTEST_CASE(pinned_timers_fire_on_their_cpu_never_early),
            KTEST_CASE(unpinned_timers_only_on_housekeeping_cpus),
            KTEST_CASE(cancelled_timer_never_fires),
            KTEST_CASE(sleep_never_ends_early));
