/* ktest=idle_poll, booted with idle=poll:N naming the last CPU only
 * (sched/idle_poll.c, docs/noise.md "Polling idle"): a CPU that polls in
 * idle runs its own timers by reading the clock and takes a wake-up from
 * the need_resched flag it watches, so neither costs it an interrupt; a
 * halting CPU still gets its reschedule IPI. The task on each CPU is a
 * kernel thread marked nohz, so that its tick stays stopped while it runs
 * (a ticking CPU would count timer interrupts that have nothing to do with
 * the rule). Counts only; each wait has a limit, so a broken rule fails
 * instead of hanging. */
#include "arch/x86/clock.h"
#include "arch/x86/cpu.h"
#include "kernel/base/percpu.h"
#include "kernel/debug/ktest.h"
#include "kernel/irq/irq.h"
#include "kernel/time/nohz_task.h"
#include "kernel/time/tick.h"
#include "kernel/time/timers.h"
#include "sched/idle_poll.h"
#include "sched/runqueue.h"
#include "sched/task.h"

#define MS 1000000ul
#define WAIT_LIMIT_NS (3000 * MS)
#define TIMER_ROUNDS 20
#define TIMER_DELAY_NS (20 * MS)     /* far beyond the few microseconds from arming to polling */
#define WAKE_ROUNDS 50

static uint64_t all_interrupts(unsigned cpu)
{
    uint64_t sum = 0;
    for (unsigned source = 0; source < IRQ_SOURCE_COUNT; source++)
        sum += irq_count(cpu, source);
    return sum;
}

/* A nohz kernel thread on one CPU. It sleeps and is woken `rounds`
 * times, by its own pinned timer (by_timer) or by the test's task. */
struct sleeper {
    struct task *task;
    unsigned cpu;
    bool by_timer;
    int set_result;
    volatile bool ready, stop, timer_done;
    volatile unsigned rounds_done;
    uint64_t irqs_before, irqs_after;   /* by_timer: counted by the thread itself */
    struct timer timer;
};

static void timer_woke(struct timer *timer)
{
    struct sleeper *sleeper = timer->data;
    __atomic_store_n(&sleeper->timer_done, true, __ATOMIC_SEQ_CST);
    wake_up_task(sleeper->task);
}

static bool wait_until(volatile bool *flag, uint64_t limit)
{
    while (!__atomic_load_n(flag, __ATOMIC_ACQUIRE)) {
        if (clock_now() > limit)
            return false;
        cpu_relax();
    }
    return true;
}

/* Sleep until *flag (or stop); a wake-up without it sleeps again. */
static void sleep_until_flag(struct sleeper *sleeper, volatile bool *flag)
{
    for (;;) {
        set_current_state(TASK_SLEEPING);
        if (__atomic_load_n(flag, __ATOMIC_ACQUIRE) || __atomic_load_n(&sleeper->stop, __ATOMIC_ACQUIRE))
            break;
        schedule();
    }
    set_current_state(TASK_RUNNABLE);
}

static void sleeper_main(void *arg)
{
    struct sleeper *sleeper = arg;
    sleeper->set_result = nohz_task_set(current_task());
    uint64_t limit = clock_now() + WAIT_LIMIT_NS;
    while (tick_state_of(sleeper->cpu)->running && clock_now() < limit)
        cpu_relax();                /* alone and nohz: the tick stops */
    timer_init(&sleeper->timer, timer_woke, sleeper);
    __atomic_store_n(&sleeper->ready, true, __ATOMIC_RELEASE);
    sleeper->irqs_before = all_interrupts(sleeper->cpu);
    while (!sleeper->stop && (!sleeper->by_timer || sleeper->rounds_done < TIMER_ROUNDS)) {
        if (sleeper->by_timer) {
            sleeper->timer_done = false;
            timer_start(&sleeper->timer, clock_now() + TIMER_DELAY_NS, true);
            sleep_until_flag(sleeper, &sleeper->timer_done);
        } else {
            set_current_state(TASK_SLEEPING);   /* until the test's wake-up, or stop */
            if (!__atomic_load_n(&sleeper->stop, __ATOMIC_ACQUIRE))
                schedule();
            set_current_state(TASK_RUNNABLE);
        }
        __atomic_add_fetch(&sleeper->rounds_done, 1, __ATOMIC_SEQ_CST);
    }
    sleeper->irqs_after = all_interrupts(sleeper->cpu);
    timer_cancel_sync(&sleeper->timer);
}

static bool start_sleeper(struct ktest *test, struct sleeper *sleeper, unsigned cpu, bool by_timer)
{
    struct cpumask only = cpumask_of(cpu);
    sleeper->cpu = cpu;
    sleeper->by_timer = by_timer;
    sleeper->task = kthread_create("idle-poll-sleeper", sleeper_main, sleeper, &only);
    KTEST_EXPECT(test, sleeper->task, "no memory for the sleeper");
    if (!sleeper->task)
        return false;
    bool ready = wait_until(&sleeper->ready, clock_now() + WAIT_LIMIT_NS);
    KTEST_EXPECT(test, ready && sleeper->set_result == 0, "sleeper on cpu %u: ready %d, nohz_task_set %d", cpu, ready,
                 sleeper->set_result);
    KTEST_EXPECT(test, !tick_state_of(cpu)->running, "cpu %u: the nohz sleeper's tick did not stop", cpu);
    return ready;
}

static void stop_sleeper(struct sleeper *sleeper)
{
    __atomic_store_n(&sleeper->stop, true, __ATOMIC_SEQ_CST);
    wake_up_task(sleeper->task);
    kthread_join(sleeper->task);
}

/* The last CPU polls, and one other CPU but 0 halts: or the case skips. */
static bool need_poll_setup(struct ktest *test, unsigned *polling, unsigned *halting)
{
    *polling = cpu_count - 1;
    *halting = cpu_count - 2;
    bool ok = cpu_count >= 3 && idle_poll_cpu(*polling) && !idle_poll_cpu(*halting);
    if (!ok)
        ktest_skip(test, "needs 3 CPUs or more and idle=poll:N for the last CPU only");
    return ok;
}

/* Its own timer, 20 times: each runs in the poll (the thread wakes on its
 * CPU), and the CPU takes no interrupt at all, timer or other. */
static void a_polling_cpus_own_timer_needs_no_interrupt(struct ktest *test)
{
    unsigned polling, halting;
    struct sleeper sleeper = { 0 };
    if (!need_poll_setup(test, &polling, &halting) || !start_sleeper(test, &sleeper, polling, true))
        return;
    uint64_t limit = clock_now() + TIMER_ROUNDS * TIMER_DELAY_NS + WAIT_LIMIT_NS;
    while (sleeper.rounds_done < TIMER_ROUNDS && clock_now() < limit)
        sleep_ns(MS);
    KTEST_EXPECT(test, sleeper.rounds_done == TIMER_ROUNDS, "%u of %u timer rounds done", sleeper.rounds_done,
                 TIMER_ROUNDS);
    stop_sleeper(&sleeper);
    uint64_t taken = sleeper.irqs_after - sleeper.irqs_before;
    ktest_log(test, "cpu %u: %u timers of its own, %lu interrupts", polling, TIMER_ROUNDS, taken);
    KTEST_EXPECT(test, taken == 0, "cpu %u took %lu interrupts for %u timers of its own (want 0)", polling, taken,
                 TIMER_ROUNDS);
}

/* Wake the sleeper `rounds` times from this CPU, each time once it sleeps
 * and its CPU idles: returns
 * the reschedule IPIs its CPU took meanwhile and, in *all, every interrupt. */
static uint64_t wake_rounds(struct ktest *test, struct sleeper *sleeper, bool polls, uint64_t *all)
{
    unsigned cpu = sleeper->cpu;
    uint64_t res_before = irq_count(cpu, IRQ_SOURCE_RESCHEDULE), all_before = all_interrupts(cpu);
    uint64_t wakeups_before = cpu_rq(cpu)->wakeups;
    unsigned woken = 0;
    for (unsigned round = 0; round < WAKE_ROUNDS; round++) {
        uint64_t limit = clock_now() + WAIT_LIMIT_NS;
        while ((sleeper->task->on_cpu || !cpus[cpu]->current->is_idle) && clock_now() < limit)
            cpu_relax();
        woken += wake_up_task(sleeper->task);
        while (sleeper->rounds_done < round + 1 && clock_now() < limit)
            cpu_relax();
    }
    uint64_t res = irq_count(cpu, IRQ_SOURCE_RESCHEDULE) - res_before;
    *all = all_interrupts(cpu) - all_before;
    uint64_t wakeups = cpu_rq(cpu)->wakeups - wakeups_before;
    ktest_log(test, "cpu %u (%s): %u wake-ups, %lu on its runqueue, %lu RES, %lu interrupts in all", cpu,
              polls ? "polls" : "halts", woken, wakeups, res, *all);
    KTEST_EXPECT(test, woken == WAKE_ROUNDS && sleeper->rounds_done == WAKE_ROUNDS,
                 "cpu %u: %u wake-ups found the sleeper asleep, %u rounds done, of %u", cpu, woken,
                 sleeper->rounds_done, WAKE_ROUNDS);
    return res;
}

static void a_wakeup_to_a_polling_cpu_sends_no_ipi(struct ktest *test)
{
    unsigned polling, halting;
    struct sleeper sleeper = { 0 };
    if (!need_poll_setup(test, &polling, &halting) || !start_sleeper(test, &sleeper, polling, false))
        return;
    uint64_t all, res = wake_rounds(test, &sleeper, true, &all);
    stop_sleeper(&sleeper);
    KTEST_EXPECT(test, res == 0 && all == 0, "cpu %u polls, yet took %lu RES and %lu interrupts for %u wake-ups",
                 polling, res, all, WAKE_ROUNDS);
}

/* The control: the same wake-ups to a halting CPU each need the IPI
 * (other wake-ups may add some: at least one per round). */
static void a_halting_cpu_still_gets_its_ipi(struct ktest *test)
{
    unsigned polling, halting;
    struct sleeper sleeper = { 0 };
    if (!need_poll_setup(test, &polling, &halting) || !start_sleeper(test, &sleeper, halting, false))
        return;
    uint64_t all, res = wake_rounds(test, &sleeper, false, &all);
    stop_sleeper(&sleeper);
    KTEST_EXPECT(test, res >= WAKE_ROUNDS, "cpu %u halts, yet took %lu RES for %u wake-ups", halting, res,
                 WAKE_ROUNDS);
}

KTEST_SUITE(idle_poll, KTEST_CASE(a_polling_cpus_own_timer_needs_no_interrupt),
            KTEST_CASE(a_wakeup_to_a_polling_cpu_sends_no_ipi), KTEST_CASE(a_halting_cpu_still_gets_its_ipi));
