/* ktest=rt_tick: the scheduler's tick dependency with real-time tasks,
 * Linux 6.1's sched_can_stop_tick() rules (docs/realtime.md): FIFO tasks
 * at the top let the tick stop whatever normal tasks wait beneath them;
 * one RR task lets it stop, two or more need it; more than one normal
 * task needs it. Kernel threads spin on the last CPU with the policies
 * each case names; the case reads the `tasks` bit of that CPU's tick
 * dependencies, and, where the bit is clear and the CPU is in
 * nohz_full=, that its tick stops. The test itself runs on CPU 0. Counts
 * and states only; every wait has a limit. */
#include "arch/x86/clock.h"
#include "arch/x86/cpu.h"
#include "kernel/base/percpu.h"
#include "kernel/debug/ktest.h"
#include "kernel/time/nohz_task.h"
#include "kernel/time/tick.h"
#include "kernel/time/timers.h"
#include "sched/runqueue.h"
#include "sched/task.h"

#define MS 1000000ul
#define WAIT_LIMIT_NS (3000 * MS)
#define MAX_SPINNERS 4

struct spinner {
    struct task *task;
    volatile bool stop;
    volatile uint64_t iterations;
};

static void spinner_main(void *arg)
{
    struct spinner *spinner = arg;
    while (!__atomic_load_n(&spinner->stop, __ATOMIC_ACQUIRE)) {
        spinner->iterations++;
        cpu_relax();
    }
}

static unsigned last_cpu(void)
{
    return cpu_count - 1;
}

static bool start_spinner(struct ktest *test, struct spinner *spinner, unsigned policy, unsigned priority)
{
    struct cpumask only = cpumask_of(last_cpu());
    *spinner = (struct spinner){ 0 };
    spinner->task = kthread_create_stopped("rt-spinner", spinner_main, spinner, &only);
    KTEST_EXPECT(test, spinner->task, "no memory for a spinner");
    if (!spinner->task)
        return false;
    spin_lock(&spinner->task->lock);
    sched_set_priority(spinner->task, policy, priority, 0);
    spin_unlock(&spinner->task->lock);
    wake_up_task(spinner->task);
    return true;
}

static void stop_spinner(struct spinner *spinner)
{
    __atomic_store_n(&spinner->stop, true, __ATOMIC_RELEASE);
    kthread_join(spinner->task);
}

/* Until the last CPU's runqueue holds count tasks (the running one included). */
static bool wait_running(unsigned count)
{
    uint64_t limit = clock_now() + WAIT_LIMIT_NS;
    while (__atomic_load_n(&cpu_rq(last_cpu())->nr_running, __ATOMIC_ACQUIRE) != count && clock_now() < limit)
        sleep_ns(MS);
    return cpu_rq(last_cpu())->nr_running == count;
}

static bool tasks_bit(void)
{
    return __atomic_load_n(&tick_state_of(last_cpu())->dep_mask, __ATOMIC_ACQUIRE) & TICK_DEP(TICK_KEEP_TASKS);
}

/* A clear bit lets the tick of a nohz_full CPU stop: checked where it is one. */
static bool tick_stops_if_isolated(void)
{
    const struct tick_policy *policy = __atomic_load_n(&tick_policy, __ATOMIC_ACQUIRE);
    if (!policy->uses_nohz_full || !cpumask_test_atomic(&nohz_full_mask, last_cpu()))
        return true;
    uint64_t limit = clock_now() + WAIT_LIMIT_NS;
    while (__atomic_load_n(&tick_state_of(last_cpu())->running, __ATOMIC_ACQUIRE) && clock_now() < limit)
        sleep_ns(MS);
    return !tick_state_of(last_cpu())->running;
}

/* Start the spinners of one case, given as (policy, priority) pairs, and
 * wait until all are on the last CPU's runqueue. */
struct lineup {
    unsigned count;
    unsigned policy[MAX_SPINNERS], priority[MAX_SPINNERS];
    struct spinner spinners[MAX_SPINNERS];
};

static bool start_lineup(struct ktest *test, struct lineup *lineup)
{
    if (cpu_count < 2) {
        ktest_skip(test, "needs 2 CPUs");
        return false;
    }
    struct cpumask first = cpumask_of(0);
    set_affinity(current_task(), &first);   /* not starved by the spinners */
    for (unsigned i = 0; i < lineup->count; i++) {
        if (!start_spinner(test, &lineup->spinners[i], lineup->policy[i], lineup->priority[i])) {
            lineup->count = i;
            return false;
        }
    }
    bool all = wait_running(lineup->count);
    KTEST_EXPECT(test, all, "%u of %u spinners on cpu %u", cpu_rq(last_cpu())->nr_running, lineup->count,
                 last_cpu());
    return all;
}

/* All told first: a FIFO spinner that never got the CPU sees its stop
 * only once the one ahead of it has gone. */
static void stop_lineup(struct lineup *lineup)
{
    for (unsigned i = 0; i < lineup->count; i++)
        __atomic_store_n(&lineup->spinners[i].stop, true, __ATOMIC_RELEASE);
    for (unsigned i = 0; i < lineup->count; i++)
        kthread_join(lineup->spinners[i].task);
    set_affinity(current_task(), &cpu_online_mask);
}

static void one_normal_task_lets_the_tick_stop(struct ktest *test)
{
    struct lineup lineup = { .count = 1, .policy = { SCHED_OTHER }, .priority = { 0 } };
    if (start_lineup(test, &lineup)) {
        KTEST_EXPECT(test, !tasks_bit(), "one normal task, tasks bit set");
        KTEST_EXPECT(test, tick_stops_if_isolated(), "one normal task, the tick runs");
    }
    stop_lineup(&lineup);
}

static void two_normal_tasks_need_the_tick(struct ktest *test)
{
    struct lineup lineup = { .count = 2, .policy = { SCHED_OTHER, SCHED_OTHER }, .priority = { 0, 0 } };
    if (start_lineup(test, &lineup))
        KTEST_EXPECT(test, tasks_bit(), "two normal tasks, tasks bit clear");
    stop_lineup(&lineup);
}

/* And once the FIFO task leaves, the two normal ones need it again. */
static void fifo_on_top_of_normal_tasks_lets_it_stop(struct ktest *test)
{
    struct lineup lineup = { .count = 3, .policy = { SCHED_OTHER, SCHED_OTHER, SCHED_FIFO }, .priority = { 0, 0, 10 } };
    if (start_lineup(test, &lineup)) {
        KTEST_EXPECT(test, !tasks_bit(), "FIFO above two normal tasks, tasks bit set");
        KTEST_EXPECT(test, tick_stops_if_isolated(), "FIFO above two normal tasks, the tick runs");
        uint64_t before = lineup.spinners[0].iterations + lineup.spinners[1].iterations;
        sleep_ns(20 * MS);
        uint64_t after = lineup.spinners[0].iterations + lineup.spinners[1].iterations;
        KTEST_EXPECT(test, after == before, "the normal tasks ran %lu times under FIFO", after - before);
        stop_spinner(&lineup.spinners[2]);
        lineup.count = 2;
        KTEST_EXPECT(test, wait_running(2) && tasks_bit(), "FIFO gone, two normal tasks, tasks bit clear");
    }
    stop_lineup(&lineup);
}

static void two_fifo_tasks_let_it_stop(struct ktest *test)
{
    struct lineup lineup = { .count = 2, .policy = { SCHED_FIFO, SCHED_FIFO }, .priority = { 10, 10 } };
    if (start_lineup(test, &lineup)) {
        KTEST_EXPECT(test, !tasks_bit(), "two FIFO tasks, tasks bit set");
        KTEST_EXPECT(test, tick_stops_if_isolated(), "two FIFO tasks, the tick runs");
    }
    stop_lineup(&lineup);
}

static void one_rr_task_on_top_lets_it_stop(struct ktest *test)
{
    struct lineup lineup = { .count = 3, .policy = { SCHED_OTHER, SCHED_OTHER, SCHED_RR }, .priority = { 0, 0, 10 } };
    if (start_lineup(test, &lineup)) {
        KTEST_EXPECT(test, !tasks_bit(), "one RR task above normal ones, tasks bit set");
        KTEST_EXPECT(test, tick_stops_if_isolated(), "one RR task above normal ones, the tick runs");
    }
    stop_lineup(&lineup);
}

static void two_rr_tasks_need_the_tick(struct ktest *test)
{
    struct lineup lineup = { .count = 2, .policy = { SCHED_RR, SCHED_RR }, .priority = { 10, 10 } };
    if (start_lineup(test, &lineup))
        KTEST_EXPECT(test, tasks_bit(), "two RR tasks of one priority, tasks bit clear");
    stop_lineup(&lineup);
}

/* Linux counts every RR task of the runqueue, not those at the top only. */
static void two_rr_tasks_under_fifo_need_the_tick(struct ktest *test)
{
    struct lineup lineup = { .count = 3, .policy = { SCHED_RR, SCHED_RR, SCHED_FIFO }, .priority = { 10, 10, 50 } };
    if (start_lineup(test, &lineup))
        KTEST_EXPECT(test, tasks_bit(), "two RR tasks under FIFO, tasks bit clear");
    stop_lineup(&lineup);
}

KTEST_SUITE(rt_tick,
            KTEST_CASE(one_normal_task_lets_the_tick_stop),
            KTEST_CASE(two_normal_tasks_need_the_tick),
            KTEST_CASE(fifo_on_top_of_normal_tasks_lets_it_stop),
            KTEST_CASE(two_fifo_tasks_let_it_stop),
            KTEST_CASE(one_rr_task_on_top_lets_it_stop),
            KTEST_CASE(two_rr_tasks_need_the_tick),
            KTEST_CASE(two_rr_tasks_under_fifo_need_the_tick));
