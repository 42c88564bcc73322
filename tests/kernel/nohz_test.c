/* ktest=nohz: the rules of the nohz task model that live inside the
 * kernel, one case per patch of the 2010 series (docs/nohz-task.md), with a kernel
 * thread as the nohz task on the last CPU. The user-space side (the
 * /proc/self/nohz rules, zero interrupts while a user task spins, grace
 * periods without IPIs) is in tests/user/nohz.c and the nohz-* scenarios.
 * Counts and orderings only; the waits have generous limits so that a
 * broken rule fails instead of hanging. */
#include "arch/x86/clock.h"
#include "arch/x86/cpu.h"
#include "kernel/lib/errno.h"
#include "kernel/irq/ipi.h"
#include "kernel/debug/ktest.h"
#include "kernel/time/nohz_task.h"
#include "kernel/time/tick.h"
#include "kernel/base/percpu.h"
#include "kernel/time/timers.h"
#include "rcu/rcu.h"
#include "sched/task.h"

#define MS 1000000ul
#define WAIT_LIMIT_NS (3000 * MS)

/* A kernel thread that makes itself the nohz task of its CPU and spins
 * there (in kernel mode: not an extended quiescent state) until told to
 * stop, doing `action` once when asked. */
struct worker {
    struct task *task;
    unsigned cpu;
    volatile int set_result;
    volatile bool ready, stop, action_requested, action_done;
    void (*action)(struct worker *worker);
    void *data;
};

static void worker_main(void *arg)
{
    struct worker *worker = arg;
    worker->set_result = nohz_task_set(current_task());
    __atomic_store_n(&worker->ready, true, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&worker->stop, __ATOMIC_ACQUIRE)) {
        if (worker->action_requested && !worker->action_done) {
            worker->action(worker);
            __atomic_store_n(&worker->action_done, true, __ATOMIC_RELEASE);
        }
        cpu_relax();
    }
}

static bool wait_for(volatile bool *flag)
{
    uint64_t limit = clock_now() + WAIT_LIMIT_NS;
    while (!__atomic_load_n(flag, __ATOMIC_ACQUIRE) && clock_now() < limit)
        sleep_ns(MS);
    return *flag;
}

static bool wait_tick_stopped(unsigned cpu)
{
    uint64_t limit = clock_now() + WAIT_LIMIT_NS;
    while (__atomic_load_n(&tick_state_of(cpu)->running, __ATOMIC_ACQUIRE) && clock_now() < limit)
        sleep_ns(MS);
    return !tick_state_of(cpu)->running;
}

static bool start_worker(struct ktest *test, struct worker *worker)
{
    worker->cpu = cpu_count - 1;
    struct cpumask only = cpumask_of(worker->cpu);
    worker->task = kthread_create("nohz-worker", worker_main, worker, &only);
    KTEST_EXPECT(test, worker->task, "no memory for the worker");
    if (!worker->task || !wait_for(&worker->ready))
        return false;
    KTEST_EXPECT(test, worker->set_result == 0, "nohz_task_set gave %d", worker->set_result);
    return worker->set_result == 0;
}

static void run_action(struct worker *worker, void (*action)(struct worker *), void *data)
{
    worker->action = action;
    worker->data = data;
    worker->action_done = false;
    __atomic_store_n(&worker->action_requested, true, __ATOMIC_RELEASE);
    wait_for(&worker->action_done);
    worker->action_requested = false;
}

/* The exit clears the attribute and the mask
 * (docs/nohz-task.md#patch-14-exit-clears-the-attribute). */
static void stop_worker(struct ktest *test, struct worker *worker)
{
    __atomic_store_n(&worker->stop, true, __ATOMIC_RELEASE);
    kthread_join(worker->task);
    KTEST_EXPECT(test, !cpu_has_nohz(worker->cpu) && !cpu_nohz_task(worker->cpu),
                 "cpu %u still has a nohz task after it exited", worker->cpu);
}

static bool need_cpus(struct ktest *test)
{
    if (cpu_count < 2)
        ktest_skip(test, "needs 2 CPUs");
    return cpu_count >= 2;
}

static uint64_t local_timer_interrupts(unsigned cpu)
{
    return __atomic_load_n(&cpus[cpu]->irq_counts[IRQ_SOURCE_LOCAL_TIMER], __ATOMIC_RELAXED);
}

/* The mask follows the task
 * (docs/nohz-task.md#patch-01-a-mask-of-cpus-that-have-a-nohz-task); alone,
 * its tick stops
 * (docs/nohz-task.md#patches-03-and-04-stop-the-tick-when-the-nohz-task-runs-alone), and
 * the CPU takes (almost) no timer interrupts; at exit the mask is clear
 * and the CPU ticks again or idles. */
static void alone_on_its_cpu_the_tick_stops(struct ktest *test)
{
    struct worker worker = { 0 };
    if (!need_cpus(test) || !start_worker(test, &worker))
        return;
    KTEST_EXPECT(test, cpu_has_nohz(worker.cpu) && cpu_nohz_task(worker.cpu) == worker.task, "mask not set");
    KTEST_EXPECT(test, wait_tick_stopped(worker.cpu), "cpu %u still ticks: %s", worker.cpu,
                 tick_keep_reason_names[tick_state_of(worker.cpu)->reason]);
    uint64_t before = local_timer_interrupts(worker.cpu);
    sleep_ns(300 * MS);
    uint64_t taken = local_timer_interrupts(worker.cpu) - before;
    ktest_log(test, "cpu %u: %lu timer interrupts in 300 ms with its tick stopped", worker.cpu, taken);
    KTEST_EXPECT(test, taken <= 2, "%lu timer interrupts (a tick would give 300)", taken);
    stop_worker(test, &worker);
    sleep_ns(10 * MS);
    const struct cpu *cpu = cpus[worker.cpu];
    KTEST_EXPECT(test, tick_state_of(cpu->id)->running || cpu->rq.current->is_idle, "cpu %u neither ticks nor idles", worker.cpu);
}

/* docs/nohz-task.md#patch-02-unpinned-timers-avoid-nohz-cpus:
 * an unpinned timer started on the nohz CPU goes elsewhere. */
struct placement {
    struct timer timers[16];
    unsigned placed_on[16];
};

static void ignore_timer(struct timer *timer)
{
    (void)timer;
}

static void start_unpinned_timers(struct worker *worker)
{
    struct placement *placement = worker->data;
    for (unsigned i = 0; i < 16; i++) {
        timer_init(&placement->timers[i], ignore_timer, 0);
        placement->placed_on[i] = timer_start(&placement->timers[i], clock_now() + (i + 1) * MS, false);
    }
}

static void unpinned_timers_avoid_the_nohz_cpu(struct ktest *test)
{
    struct worker worker = { 0 };
    static struct placement placement;
    if (!need_cpus(test) || !start_worker(test, &worker))
        return;
    run_action(&worker, start_unpinned_timers, &placement);
    for (unsigned i = 0; i < 16; i++) {
        KTEST_EXPECT(test, placement.placed_on[i] != worker.cpu, "timer %u placed on the nohz cpu %u", i,
                     worker.cpu);
        timer_cancel(&placement.timers[i]);
    }
    stop_worker(test, &worker);
}

/* docs/nohz-task.md#patch-05-restart-the-tick-when-another-task-competes:
 * a second task on the CPU kicks the tick back (only because it
 * was stopped), and the newcomer runs within one tick period. */
struct newcomer {
    unsigned cpu;
    volatile uint64_t ticks_at_first_run;
    volatile bool ran;
};

static void newcomer_main(void *arg)
{
    struct newcomer *newcomer = arg;
    newcomer->ticks_at_first_run = tick_state_of(newcomer->cpu)->ticks;
    __atomic_store_n(&newcomer->ran, true, __ATOMIC_RELEASE);
}

static void a_second_task_kicks_the_tick_back(struct ktest *test)
{
    struct worker worker = { 0 };
    if (!need_cpus(test) || !start_worker(test, &worker))
        return;
    KTEST_EXPECT(test, wait_tick_stopped(worker.cpu), "the tick did not stop");
    struct tick_state *tick = tick_state_of(worker.cpu);
    uint64_t kicks = tick->kicks_received, wasted = tick->kicks_while_ticking, ticks = tick->ticks;
    struct newcomer newcomer = { .cpu = worker.cpu };
    struct cpumask only = cpumask_of(worker.cpu);
    struct task *task = kthread_create("newcomer", newcomer_main, &newcomer, &only);
    bool ran = task && wait_for(&newcomer.ran);
    KTEST_EXPECT(test, ran, "the newcomer never ran");
    if (!ran) {
        stop_worker(test, &worker);     /* the CPU is the newcomer's: it runs, and can be joined */
        if (task)
            kthread_join(task);
        return;
    }
    kthread_join(task);
    uint64_t waited = newcomer.ticks_at_first_run - ticks;
    ktest_log(test, "newcomer ran after %lu ticks; kicks %lu, wasted %lu", waited, tick->kicks_received - kicks,
              tick->kicks_while_ticking - wasted);
    KTEST_EXPECT(test, tick->kicks_received - kicks >= 1, "no nohz kick");
    KTEST_EXPECT(test, tick->kicks_while_ticking == wasted, "a kick found the tick already running");
    KTEST_EXPECT(test, waited <= 1, "the newcomer waited %lu ticks (back within one period)", waited);
    KTEST_EXPECT(test, wait_tick_stopped(worker.cpu), "alone again, the tick did not stop");
    stop_worker(test, &worker);
}

/* docs/nohz-task.md#patch-06-keep-the-tick-if-rcu-needs-it:
 * queued callbacks keep the tick until they have run. */
struct callback_probe {
    struct rcu_head head;
    volatile bool invoked;
};

static void probe_invoked(struct rcu_head *head)
{
    struct callback_probe *probe = (struct callback_probe *)head;
    __atomic_store_n(&probe->invoked, true, __ATOMIC_RELEASE);
}

static void queue_callback(struct worker *worker)
{
    call_rcu(&((struct callback_probe *)worker->data)->head, probe_invoked);
}

static void queued_callbacks_keep_the_tick(struct ktest *test)
{
    struct worker worker = { 0 };
    static struct callback_probe probe;     /* not on the stack: it may run after a failed case returns */
    probe = (struct callback_probe){ 0 };
    if (need_cpus(test) && rcu_cpu_offloaded(cpu_count - 1)) {
        ktest_skip(test, "the last CPU is offloaded (rcu_nocbs=): see offloaded_callbacks_leave_the_tick_stopped");
        return;
    }
    if (!need_cpus(test) || !start_worker(test, &worker))
        return;
    KTEST_EXPECT(test, wait_tick_stopped(worker.cpu), "the tick did not stop");
    struct tick_state *tick = tick_state_of(worker.cpu);
    uint64_t kept_for_rcu = tick->refusals[TICK_KEEP_RCU], restarts = tick->restarts;
    run_action(&worker, queue_callback, &probe);
    KTEST_EXPECT(test, tick->running || probe.invoked, "callbacks queued, tick stopped");
    KTEST_EXPECT(test, wait_for(&probe.invoked), "the callback never ran");
    KTEST_EXPECT(test, tick->restarts > restarts, "the tick did not restart for the callback");
    KTEST_EXPECT(test, tick->refusals[TICK_KEEP_RCU] > kept_for_rcu, "no tick kept for RCU");
    KTEST_EXPECT(test, wait_tick_stopped(worker.cpu), "callbacks done, the tick did not stop again");
    stop_worker(test, &worker);
}

/* rcu_nocbs=: the nohz CPU is offloaded, so the callbacks it
 * queues never need its tick. The worker queues them, then enters an
 * extended QS by hand with interrupts on (as a nohz task in user mode
 * would be: the GP kthread reports for it and never prods it), and sits
 * there while this CPU's rcu_barrier() waits for the callbacks. Nothing
 * reaches the nohz CPU: no tick restart, no tick kept for RCU, no kick. */
#define NOCB_PROBES 32

struct nocb_probes {
    struct callback_probe probes[NOCB_PROBES];
    volatile bool in_eqs, leave_eqs;
};

static void queue_callbacks_then_sit_in_eqs(struct worker *worker)
{
    struct nocb_probes *nocb = worker->data;
    for (unsigned i = 0; i < NOCB_PROBES; i++)
        call_rcu(&nocb->probes[i].head, probe_invoked);
    preempt_disable();
    irq_disable();
    rcu_user_enter();
    irq_enable();
    __atomic_store_n(&nocb->in_eqs, true, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&nocb->leave_eqs, __ATOMIC_ACQUIRE))
        cpu_relax();
    irq_disable();
    rcu_user_exit();
    irq_enable();
    preempt_enable();
}

static void offloaded_callbacks_leave_the_tick_stopped(struct ktest *test)
{
    struct worker worker = { 0 };
    static struct nocb_probes nocb;
    unsigned invoked = 0;

    if (!need_cpus(test))
        return;
    if (!rcu_cpu_offloaded(cpu_count - 1)) {
        ktest_skip(test, "needs rcu_nocbs= with the last CPU (queued_callbacks_keep_the_tick covers the rest)");
        return;
    }
    if (!start_worker(test, &worker))
        return;
    KTEST_EXPECT(test, wait_tick_stopped(worker.cpu), "the tick did not stop");
    struct tick_state *tick = tick_state_of(worker.cpu);
    uint64_t kept_for_rcu = tick->refusals[TICK_KEEP_RCU], restarts = tick->restarts, kicks = tick->kicks_sent;
    uint64_t timer_interrupts = local_timer_interrupts(worker.cpu);
    nocb = (struct nocb_probes){ 0 };
    worker.action = queue_callbacks_then_sit_in_eqs;
    worker.data = &nocb;
    __atomic_store_n(&worker.action_requested, true, __ATOMIC_RELEASE);
    KTEST_EXPECT(test, wait_for(&nocb.in_eqs), "the worker never entered its EQS");
    rcu_barrier();
    for (unsigned i = 0; i < NOCB_PROBES; i++)
        invoked += __atomic_load_n(&nocb.probes[i].invoked, __ATOMIC_ACQUIRE);
    uint64_t restarted = tick->restarts - restarts, kept = tick->refusals[TICK_KEEP_RCU] - kept_for_rcu;
    uint64_t kicked = tick->kicks_sent - kicks, interrupts = local_timer_interrupts(worker.cpu) - timer_interrupts;
    __atomic_store_n(&nocb.leave_eqs, true, __ATOMIC_RELEASE);
    wait_for(&worker.action_done);
    ktest_log(test, "nohz cpu %u queued %u offloaded callbacks: %u ran by rcu_barrier's return; its tick: "
              "%lu restarts, %lu kept for rcu, %lu kicks, %lu timer interrupts", worker.cpu, NOCB_PROBES, invoked,
              restarted, kept, kicked, interrupts);
    KTEST_EXPECT(test, invoked == NOCB_PROBES, "%u of %u callbacks ran", invoked, NOCB_PROBES);
    KTEST_EXPECT(test, restarted == 0, "the tick restarted %lu times", restarted);
    KTEST_EXPECT(test, kept == 0, "the tick was kept for rcu %lu times", kept);
    KTEST_EXPECT(test, kicked == 0, "%lu nohz kicks", kicked);
    KTEST_EXPECT(test, !tick->running, "the tick is running: %s", tick_keep_reason_names[tick->reason]);
    stop_worker(test, &worker);
}

/* docs/nohz-task.md#patch-07-rcus-prod-of-a-nohz-cpu-restarts-its-tick:
 * a grace period needs the nohz CPU (it spins in the kernel, not
 * in an extended QS, with its tick stopped): RCU's prod is the nohz kick,
 * sent because RCU's tick dependency was set on a CPU with a stopped tick.
 * Outside a reader, the kick itself proves the quiescent state, so the
 * grace period completes without a function call and the bit is clear. */
static void rcu_prod_kicks_a_stopped_tick(struct ktest *test)
{
    struct worker worker = { 0 };
    if (!need_cpus(test) || !start_worker(test, &worker))
        return;
    KTEST_EXPECT(test, wait_tick_stopped(worker.cpu), "the tick did not stop");
    struct tick_state *tick = tick_state_of(worker.cpu);
    uint64_t kicks = tick->kicks_received, dep_kicks = tick->dep_kicks, restarts = tick->restarts;
    uint64_t calls = cpus[worker.cpu]->irq_counts[IRQ_SOURCE_CALL_FUNCTION];
    synchronize_rcu();
    ktest_log(test, "grace period done: %lu nohz kicks (%lu for a dependency), %lu restarts, %lu function calls",
              tick->kicks_received - kicks, tick->dep_kicks - dep_kicks, tick->restarts - restarts,
              cpus[worker.cpu]->irq_counts[IRQ_SOURCE_CALL_FUNCTION] - calls);
    KTEST_EXPECT(test, tick->kicks_received > kicks, "no nohz kick for RCU");
    KTEST_EXPECT(test, tick->dep_kicks > dep_kicks, "the kick was not RCU's tick dependency");
    KTEST_EXPECT(test, cpus[worker.cpu]->irq_counts[IRQ_SOURCE_CALL_FUNCTION] == calls,
                 "RCU used a function call, not the nohz kick");
    KTEST_EXPECT(test, !(tick->dep_mask & TICK_DEP(TICK_KEEP_RCU)), "the grace period ended, rcu still set");
    KTEST_EXPECT(test, wait_tick_stopped(worker.cpu), "the tick did not stop again");
    stop_worker(test, &worker);
}

/* docs/nohz-task.md#patch-07-rcus-prod-of-a-nohz-cpu-restarts-its-tick,
 * the case where the tick must come back: the prod finds the nohz
 * CPU inside a reader, so it cannot report. RCU's dependency then holds its
 * tick until the outermost rcu_read_unlock() reports, which clears it. */
struct reader {
    volatile bool inside, leave;
};

static void read_until_told(struct worker *worker)
{
    struct reader *reader = worker->data;
    rcu_read_lock();
    __atomic_store_n(&reader->inside, true, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&reader->leave, __ATOMIC_ACQUIRE))
        cpu_relax();
    rcu_read_unlock();
}

static bool wait_tick_running(unsigned cpu)
{
    uint64_t limit = clock_now() + WAIT_LIMIT_NS;
    while (!__atomic_load_n(&tick_state_of(cpu)->running, __ATOMIC_ACQUIRE) && clock_now() < limit)
        sleep_ns(MS);
    return tick_state_of(cpu)->running;
}

static void rcu_prod_of_a_reader_holds_the_tick(struct ktest *test)
{
    struct worker worker = { 0 };
    static struct reader reader;
    static struct callback_probe probe;
    if (!need_cpus(test) || !start_worker(test, &worker))
        return;
    KTEST_EXPECT(test, wait_tick_stopped(worker.cpu), "the tick did not stop");
    struct tick_state *tick = tick_state_of(worker.cpu);
    reader = (struct reader){ 0 };
    probe = (struct callback_probe){ 0 };
    worker.action = read_until_told;
    worker.data = &reader;
    __atomic_store_n(&worker.action_requested, true, __ATOMIC_RELEASE);
    KTEST_EXPECT(test, wait_for(&reader.inside), "the worker never entered its reader");
    call_rcu(&probe.head, probe_invoked);
    bool restarted = wait_tick_running(worker.cpu);
    enum tick_keep_reason reason = tick->reason;
    bool held = tick->dep_mask & TICK_DEP(TICK_KEEP_RCU), early = probe.invoked;
    __atomic_store_n(&reader.leave, true, __ATOMIC_RELEASE);
    wait_for(&worker.action_done);
    KTEST_EXPECT(test, restarted, "the prod did not restart the reader's tick");
    KTEST_EXPECT(test, held && reason == TICK_KEEP_RCU, "tick held by %s, rcu bit %s", tick_keep_reason_names[reason],
                 held ? "set" : "clear");
    KTEST_EXPECT(test, !early, "the grace period ended inside the reader");
    KTEST_EXPECT(test, wait_for(&probe.invoked), "the callback never ran after the reader left");
    KTEST_EXPECT(test, wait_tick_stopped(worker.cpu), "the reader reported, but the tick did not stop");
    stop_worker(test, &worker);
}

/* Dependency bits, global, per CPU and per task. Setting a bit
 * kicks the CPU only when its mask goes from empty to non-empty while the
 * tick is stopped; a second bit, or a bit of another mask while the
 * tick runs, sends nothing; clearing sends nothing and
 * the tick stops at its next check. (The reasons used here are only names:
 * no mechanism sets or clears them meanwhile on the worker's CPU.) */
static void dependency_bits_kick_once(struct ktest *test)
{
    struct worker worker = { 0 };
    if (!need_cpus(test) || !start_worker(test, &worker))
        return;
    unsigned cpu = worker.cpu;
    struct tick_state *tick = tick_state_of(cpu);
    KTEST_EXPECT(test, wait_tick_stopped(cpu), "the tick did not stop");
    uint64_t dep_kicks = tick->dep_kicks, wasted = tick->kicks_while_ticking;

    KTEST_EXPECT(test, tick_dep_set_cpu(cpu, TICK_KEEP_CPU_TIMER), "empty to non-empty, stopped: no kick");
    KTEST_EXPECT(test, wait_tick_running(cpu) && tick->reason == TICK_KEEP_CPU_TIMER, "not ticking for cputimer");
    KTEST_EXPECT(test, !tick_dep_set_cpu(cpu, TICK_KEEP_CLOCK), "a second bit kicked again");
    tick_dep_set_task(worker.task, TICK_KEEP_CPU_TIMER);     /* another mask goes non-empty, the tick runs */
    tick_dep_clear_task(worker.task, TICK_KEEP_CPU_TIMER);
    KTEST_EXPECT(test, tick->dep_kicks - dep_kicks == 1, "%lu kicks for two bits and a task bit, the tick running",
                 tick->dep_kicks - dep_kicks);
    tick_dep_clear_cpu(cpu, TICK_KEEP_CPU_TIMER);
    sleep_ns(5 * MS);
    KTEST_EXPECT(test, tick->running, "one bit left, the tick stopped");
    tick_dep_clear_cpu(cpu, TICK_KEEP_CLOCK);
    KTEST_EXPECT(test, wait_tick_stopped(cpu), "per cpu: bits clear, the tick did not stop");

    tick_dep_set_global(TICK_KEEP_CLOCK);
    KTEST_EXPECT(test, wait_tick_running(cpu) && tick->reason == TICK_KEEP_CLOCK, "global: not ticking for clock");
    tick_dep_set_global(TICK_KEEP_CPU_TIMER);
    tick_dep_clear_global(TICK_KEEP_CLOCK);
    tick_dep_clear_global(TICK_KEEP_CPU_TIMER);
    KTEST_EXPECT(test, wait_tick_stopped(cpu), "global: bits clear, the tick did not stop");
    KTEST_EXPECT(test, tick->dep_kicks - dep_kicks == 2, "%lu kicks after the global bits", tick->dep_kicks - dep_kicks);

    tick_dep_set_task(worker.task, TICK_KEEP_CPU_TIMER);
    KTEST_EXPECT(test, wait_tick_running(cpu) && tick->reason == TICK_KEEP_CPU_TIMER, "task: not ticking");
    tick_dep_clear_task(worker.task, TICK_KEEP_CPU_TIMER);
    KTEST_EXPECT(test, wait_tick_stopped(cpu), "task: bit clear, the tick did not stop");
    ktest_log(test, "cpu %u: %lu dependency kicks, %lu wasted", cpu, tick->dep_kicks - dep_kicks,
              tick->kicks_while_ticking - wasted);
    KTEST_EXPECT(test, tick->dep_kicks - dep_kicks == 3, "%lu kicks for three empty-to-non-empty changes",
                 tick->dep_kicks - dep_kicks);
    KTEST_EXPECT(test, tick->kicks_while_ticking == wasted, "a kick found the tick already running");
    stop_worker(test, &worker);
}

/* docs/nohz-task.md#patch-08-an-asynchronous-function-call-with-interrupts-off:
 * an asynchronous function call may be sent with interrupts off. */
static void set_flag(void *arg)
{
    __atomic_store_n((volatile bool *)arg, true, __ATOMIC_RELEASE);
}

static void async_call_with_interrupts_off(struct ktest *test)
{
    static volatile bool called;
    if (!need_cpus(test))
        return;
    called = false;
    unsigned target = this_cpu_id() == 0 ? 1 : 0;
    uint64_t flags = irq_save();
    int error = smp_call_function_single(target, set_flag, (void *)&called, false);
    irq_restore(flags);
    KTEST_EXPECT(test, error == 0, "smp_call_function_single gave %d", error);
    KTEST_EXPECT(test, wait_for(&called), "the call never ran");
}

/* docs/nohz-task.md#patch-12-the-clocksource-watchdog-skips-nohz-cpus:
 * the clocksource watchdog does its checks on other CPUs, never
 * on the nohz CPU; and timekeeping moves off a CPU that gets a nohz task. */
static void watchdog_and_timekeeping_leave_the_nohz_cpu(struct ktest *test)
{
    struct worker worker = { 0 };
    if (!need_cpus(test))
        return;
    __atomic_store_n(&timekeeper_cpu, cpu_count - 1, __ATOMIC_SEQ_CST);    /* make it the timekeeper first */
    if (!start_worker(test, &worker))
        return;
    unsigned keeper = timekeeper_cpu;
    KTEST_EXPECT(test, keeper != worker.cpu && keeper != TIMEKEEPER_NONE, "timekeeper is %u", keeper);
    uint64_t nohz_checks = tick_state_of(worker.cpu)->watchdog_checks;
    uint64_t keeper_checks = keeper < cpu_count ? tick_state_of(keeper)->watchdog_checks : 0;
    uint64_t jiffies_before = jiffies;
    sleep_ns(1200 * MS);
    KTEST_EXPECT(test, tick_state_of(worker.cpu)->watchdog_checks == nohz_checks, "the watchdog ran on the nohz cpu");
    KTEST_EXPECT(test, keeper < cpu_count && tick_state_of(keeper)->watchdog_checks > keeper_checks,
                 "the watchdog never ran on the timekeeper %u", keeper);
    KTEST_EXPECT(test, jiffies > jiffies_before, "jiffies stood still");
    stop_worker(test, &worker);
}

/* The same handover to a CPU that idles with its tick stopped: the new
 * timekeeper is told with a nohz kick, for nothing else would wake it,
 * and its tick comes back and stays while a nohz CPU exists (time
 * advances). This thread leaves CPU 0, the CPU the duty goes to, so that
 * it idles; the new timekeeper of the case above is always busy. */
static void timekeeping_handed_to_an_idle_cpu_wakes_it(struct ktest *test)
{
    struct worker worker = { 0 };
    const unsigned target = 0;
    if (cpu_count < 3) {
        ktest_skip(test, "needs 3 CPUs: an idle one to take the duty, the nohz one, this one");
        return;
    }
    struct cpumask before = current_task()->affinity, elsewhere = cpumask_of(cpu_count - 2);
    KTEST_EXPECT(test, set_affinity(current_task(), &elsewhere) == 0, "cannot leave cpu %u", target);
    const struct tick_state *tick = tick_state_of(target);
    KTEST_EXPECT(test, wait_tick_stopped(target), "idle cpu %u still ticks: %s", target,
                 tick_keep_reason_names[tick->reason]);
    uint64_t kicks = tick->kicks_received, restarts = tick->restarts;
    __atomic_store_n(&timekeeper_cpu, cpu_count - 1, __ATOMIC_SEQ_CST);    /* the worker's CPU hands it over */
    if (!start_worker(test, &worker)) {
        set_affinity(current_task(), &before);
        return;
    }
    unsigned keeper = timekeeper_cpu;
    uint64_t limit = clock_now() + WAIT_LIMIT_NS;
    while (!__atomic_load_n(&tick->running, __ATOMIC_ACQUIRE) && clock_now() < limit)
        sleep_ns(MS);
    uint64_t jiffies_before = jiffies;
    sleep_ns(100 * MS);
    ktest_log(test, "timekeeper %u; cpu %u: %lu kicks, %lu restarts, tick %s (%s), jiffies +%lu", keeper, target,
              tick->kicks_received - kicks, tick->restarts - restarts, tick->running ? "running" : "stopped",
              tick_keep_reason_names[tick->reason], jiffies - jiffies_before);
    KTEST_EXPECT(test, keeper == target, "the duty went to cpu %u, not %u", keeper, target);
    KTEST_EXPECT(test, tick->kicks_received > kicks, "idle cpu %u got the duty without a nohz kick", target);
    KTEST_EXPECT(test, tick->running && tick->reason == TICK_KEEP_TIMEKEEPING,
                 "the new timekeeper's tick is %s (%s)", tick->running ? "running" : "stopped",
                 tick_keep_reason_names[tick->reason]);
    KTEST_EXPECT(test, jiffies > jiffies_before, "jiffies stood still");
    stop_worker(test, &worker);
    set_affinity(current_task(), &before);
}

/* Policies switch at run time: a CPU whose tick the old policy stopped
 * looks again under the new one (here: periodic brings its tick back). */
static void switching_policy_rechecks_stopped_ticks(struct ktest *test)
{
    struct worker worker = { 0 };
    const struct tick_policy *before = tick_policy;
    if (!need_cpus(test) || tick_policy_switch("task") < 0 || !start_worker(test, &worker))
        return;
    KTEST_EXPECT(test, wait_tick_stopped(worker.cpu), "the tick did not stop under task");
    KTEST_EXPECT(test, tick_policy_switch("periodic") == 0, "cannot switch to periodic");
    sleep_ns(20 * MS);
    KTEST_EXPECT(test, tick_state_of(worker.cpu)->running, "periodic, but the tick is still stopped");
    KTEST_EXPECT(test, tick_state_of(worker.cpu)->reason == TICK_KEEP_POLICY, "reason %s",
                 tick_keep_reason_names[tick_state_of(worker.cpu)->reason]);
    KTEST_EXPECT(test, tick_policy_switch("no-such-policy") == -EINVAL, "an unknown policy was accepted");
    KTEST_EXPECT(test, tick_policy_switch("task") == 0 && wait_tick_stopped(worker.cpu),
                 "back to task, the tick did not stop");
    stop_worker(test, &worker);
    tick_policy_switch(before->name);
}

/* The example policy of docs/tick-policy.md: the nohz task keeps its tick
 * for its first 50 ms, then stops it; under task it stops at once. */
static uint64_t ticks_until_stopped(struct ktest *test, const char *policy)
{
    struct worker worker = { 0 };
    const struct tick_state *tick = tick_state_of(cpu_count - 1);
    tick_policy_switch(policy);
    /* Periods, counted from before the worker exists: ticks taken, and
     * those the host did not run the vCPU for (missed). */
    uint64_t periods = tick->ticks + tick->missed;
    if (!start_worker(test, &worker))
        return 0;
    KTEST_EXPECT(test, wait_tick_stopped(worker.cpu), "%s: the tick did not stop", policy);
    periods = tick->ticks + tick->missed - periods;
    stop_worker(test, &worker);
    return periods;
}

static void patient_policy_waits_before_stopping(struct ktest *test)
{
    const struct tick_policy *before = tick_policy;
    if (!need_cpus(test))
        return;
    uint64_t task = ticks_until_stopped(test, "task");
    uint64_t patient = ticks_until_stopped(test, "patient");
    tick_policy_switch(before->name);
    uint64_t patience = 50 * tick_hz / 1000;
    ktest_log(test, "ticks before the stop: task %lu, patient %lu (patience %lu ticks)", task, patient, patience);
    KTEST_EXPECT(test, task * 2 < patience, "task took %lu ticks to stop", task);
    KTEST_EXPECT(test, patient + 1 >= patience, "patient stopped after %lu ticks", patient);
}

/* Seed 13, raced: another CPU binds a task to a CPU it does not run on,
 * and before it has moved (interrupts off: the reschedule IPI waits), the
 * task asks for the attribute. nohz_task_set() moves it there first, and
 * sets it: the CPU it runs on is its mask's one. */
struct moved_setter {
    unsigned from;
    volatile bool ready, done;
    volatile int result;
    volatile unsigned set_on;
};

static void set_after_being_rebound(void *arg)
{
    struct moved_setter *setter = arg;
    uint64_t limit = clock_now() + WAIT_LIMIT_NS;
    irq_disable();
    __atomic_store_n(&setter->ready, true, __ATOMIC_RELEASE);
    while (cpumask_test_atomic(&current_task()->affinity, setter->from) && clock_now() < limit)
        cpu_relax();
    setter->result = nohz_task_set(current_task());
    setter->set_on = this_cpu_id();
    irq_enable();
    __atomic_store_n(&setter->done, true, __ATOMIC_RELEASE);
    nohz_task_clear(current_task());
}

static void set_while_another_cpu_rebinds_it(struct ktest *test)
{
    if (cpu_count < 3) {
        ktest_skip(test, "needs 3 CPUs");
        return;
    }
    struct moved_setter setter = { .from = cpu_count - 2 };
    unsigned to = cpu_count - 1;
    struct cpumask here = cpumask_of(0), from = cpumask_of(setter.from), target = cpumask_of(to);
    struct cpumask before = current_task()->affinity;
    KTEST_EXPECT(test, set_affinity(current_task(), &here) == 0, "cannot move to cpu 0");
    struct task *task = kthread_create("nohz-rebound", set_after_being_rebound, &setter, &from);
    KTEST_EXPECT(test, task, "no memory for the task");
    if (!task)
        return;
    KTEST_EXPECT(test, wait_for(&setter.ready), "the task never ran");
    KTEST_EXPECT(test, set_affinity(task, &target) == 0, "set_affinity refused");
    KTEST_EXPECT(test, wait_for(&setter.done), "nohz_task_set never returned");
    KTEST_EXPECT(test, setter.result == 0, "nohz_task_set gave %d", setter.result);
    KTEST_EXPECT(test, setter.set_on == to, "set on cpu %u, bound to cpu %u", setter.set_on, to);
    kthread_join(task);
    KTEST_EXPECT(test, !cpu_has_nohz(to) && !cpu_nohz_task(to), "cpu %u still has a nohz task", to);
    set_affinity(current_task(), &before);
}

KTEST_SUITE(nohz,
            KTEST_CASE(alone_on_its_cpu_the_tick_stops),
            KTEST_CASE(unpinned_timers_avoid_the_nohz_cpu),
            KTEST_CASE(a_second_task_kicks_the_tick_back),
            KTEST_CASE(queued_callbacks_keep_the_tick),
            KTEST_CASE(offloaded_callbacks_leave_the_tick_stopped),
            KTEST_CASE(rcu_prod_kicks_a_stopped_tick),
            KTEST_CASE(rcu_prod_of_a_reader_holds_the_tick),
            KTEST_CASE(dependency_bits_kick_once),
            KTEST_CASE(async_call_with_interrupts_off),
            KTEST_CASE(watchdog_and_timekeeping_leave_the_nohz_cpu),
            KTEST_CASE(timekeeping_handed_to_an_idle_cpu_wakes_it),
            KTEST_CASE(switching_policy_rechecks_stopped_ticks),
            KTEST_CASE(patient_policy_waits_before_stopping),
            KTEST_CASE(set_while_another_cpu_rebinds_it));
