/* ktest=rcu: the tree's shape, readers nest, grace periods advance, idle
 * CPUs are never interrupted by the grace-period machinery, a CPU in an
 * extended QS (user, here entered by hand with interrupts off) is reported
 * for without an IPI, callbacks run in a task on the CPU that queued them,
 * rcu_barrier waits for all of them.
 * ktest=rcu_stall: a reader held past rcu_stall_timeout= is reported (run
 * with rcu_stall_timeout=1; skipped otherwise).
 * ktest=rcutorture: the torture test (rcu/torture.c) for a few seconds.
 * ktest=panic_rcu_unlock, panic_rcu_sleep: the read-side assertions.
 * Counts and orderings only, never times. */
#include "arch/x86/clock.h"
#include "arch/x86/cpu.h"
#include "kernel/irq/irq.h"
#include "kernel/debug/ktest.h"
#include "kernel/fs/procfs.h"
#include "kernel/base/percpu.h"
#include "kernel/time/tick.h"
#include "kernel/time/timers.h"
#include "rcu/internal.h"
#include "rcu/torture.h"
#include "sched/task.h"

#define NS_PER_SECOND 1000000000ul

static void tree_has_the_levels_fanout_asks_for(struct ktest *test)
{
    unsigned expected = rcu_tree_levels_for(cpu_count, (unsigned)rcu_fanout_param);
    struct rcu_tree *tree = &rcu_state.tree;

    ktest_log(test, "rcu: %u CPUs, fanout %u: %u levels, %u nodes", cpu_count, tree->fanout, tree->levels,
              tree->node_count);
    KTEST_EXPECT(test, tree->levels == expected, "levels %u, expected %u", tree->levels, expected);
    KTEST_EXPECT(test, tree->fanout == rcu_fanout_param, "fanout %u", tree->fanout);
    KTEST_EXPECT(test, tree->nodes[0].grplo == 0 && tree->nodes[0].grphi == cpu_count - 1, "root spans %u-%u",
                 tree->nodes[0].grplo, tree->nodes[0].grphi);
}

static void read_side_critical_sections_nest(struct ktest *test)
{
    KTEST_EXPECT(test, !rcu_read_lock_held(), "held before");
    rcu_read_lock();
    rcu_read_lock();
    KTEST_EXPECT(test, this_cpu()->preempt_disabled >= 2, "preemption is off inside");
    rcu_read_unlock();
    KTEST_EXPECT(test, rcu_read_lock_held(), "still held after the inner unlock");
    rcu_read_unlock();
    KTEST_EXPECT(test, !rcu_read_lock_held(), "held after");
}

static void grace_periods_advance(struct ktest *test)
{
    uint64_t before = rcu_gps_completed();
    for (int i = 0; i < 10; i++)
        synchronize_rcu();
    uint64_t completed = rcu_gps_completed() - before;
    ktest_log(test, "10 synchronize_rcu: %lu grace periods", completed);
    KTEST_EXPECT(test, completed >= 10, "each synchronize_rcu waits for a GP of its own: %lu", completed);
}

/* The IPIs a CPU has taken: reschedule, call function, nohz kick. */
static uint64_t ipis_taken(unsigned cpu)
{
    return irq_count(cpu, IRQ_SOURCE_RESCHEDULE) + irq_count(cpu, IRQ_SOURCE_CALL_FUNCTION) +
           irq_count(cpu, IRQ_SOURCE_NOHZ_KICK);
}

static void idle_cpus_are_never_interrupted(struct ktest *test)
{
    static uint64_t ipis[MAX_CPUS], kicks[MAX_CPUS], eqs_reports[MAX_CPUS];     /* 6 KiB: not on the stack */
    unsigned me = this_cpu_id(), cpu;

    synchronize_rcu();          /* let what earlier cases left settle */
    for_each_online_cpu(cpu) {
        ipis[cpu] = ipis_taken(cpu);
        kicks[cpu] = rcu_data_of(cpu)->kicks;
        eqs_reports[cpu] = rcu_data_of(cpu)->qs_reported_for_eqs;
    }
    uint64_t before = rcu_gps_completed();
    for (int i = 0; i < 20; i++)
        synchronize_rcu();
    KTEST_EXPECT(test, rcu_gps_completed() - before >= 20, "GPs %lu", rcu_gps_completed() - before);
    for_each_online_cpu(cpu) {
        if (cpu == me || cpu == rcu_state.gp_kthread_cpu)
            continue;       /* not idle: they run this test and the GP kthread */
        uint64_t taken = ipis_taken(cpu) - ipis[cpu], kicked = rcu_data_of(cpu)->kicks - kicks[cpu];
        ktest_log(test, "idle cpu %u: %lu IPIs, %lu kicks, %lu QSes reported for it from dynticks", cpu, taken,
                  kicked, rcu_data_of(cpu)->qs_reported_for_eqs - eqs_reports[cpu]);
        KTEST_EXPECT(test, taken == 0, "cpu %u took %lu IPIs", cpu, taken);
        KTEST_EXPECT(test, kicked == 0, "cpu %u was kicked %lu times", cpu, kicked);
    }
}

/* ---- A CPU in a user-mode extended QS, entered by hand ---- */

static volatile bool in_user_eqs, leave_user_eqs;
static volatile unsigned long parity_errors;

static void expect_dynticks(bool in_eqs)
{
    if (rcu_dynticks_in_eqs(rcu_dynticks_snapshot(this_cpu_id())) != in_eqs)
        parity_errors++;
}

static void sit_in_user_eqs(void *unused)
{
    (void)unused;
    irq_disable();
    expect_dynticks(false);
    rcu_user_enter();
    expect_dynticks(true);
    rcu_irq_enter();            /* an interrupt from user mode, and one nested in it */
    expect_dynticks(false);
    rcu_irq_enter();
    expect_dynticks(false);
    rcu_irq_exit();
    expect_dynticks(false);
    rcu_irq_exit();
    expect_dynticks(true);
    __atomic_store_n(&in_user_eqs, true, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&leave_user_eqs, __ATOMIC_ACQUIRE))
        cpu_relax();            /* interrupts off: no tick, no IPI can get in */
    rcu_user_exit();
    expect_dynticks(false);
    irq_enable();
}

static void user_eqs_is_reported_without_interrupting(struct ktest *test)
{
    unsigned cpu = cpu_count - 1;
    struct cpumask there = cpumask_of(cpu);

    if (cpu_count < 2 || cpu == rcu_state.gp_kthread_cpu) {
        ktest_skip(test, "needs a CPU besides the GP kthread's");
        return;
    }
    in_user_eqs = leave_user_eqs = false;
    parity_errors = 0;
    struct task *task = kthread_create("rcu_user_eqs", sit_in_user_eqs, 0, &there);
    while (!__atomic_load_n(&in_user_eqs, __ATOMIC_ACQUIRE))
        yield();
    uint64_t ipis = ipis_taken(cpu), kicks = rcu_data_of(cpu)->kicks;
    uint64_t reports = rcu_data_of(cpu)->qs_reported_for_eqs, before = rcu_gps_completed();
    for (int i = 0; i < 5; i++)
        synchronize_rcu();
    uint64_t gps = rcu_gps_completed() - before, reported = rcu_data_of(cpu)->qs_reported_for_eqs - reports;
    __atomic_store_n(&leave_user_eqs, true, __ATOMIC_RELEASE);
    kthread_join(task);
    ktest_log(test, "cpu %u in user EQS: %lu GPs, %lu reported for it, %lu IPIs, %lu kicks", cpu, gps, reported,
              ipis_taken(cpu) - ipis, rcu_data_of(cpu)->kicks - kicks);
    KTEST_EXPECT(test, parity_errors == 0, "%lu dynticks parity errors", parity_errors);
    KTEST_EXPECT(test, gps >= 5, "GPs %lu", gps);
    KTEST_EXPECT(test, reported >= 5, "the GP kthread reported for it %lu times", reported);
    KTEST_EXPECT(test, ipis_taken(cpu) == ipis, "IPIs %lu", ipis_taken(cpu) - ipis);
    KTEST_EXPECT(test, rcu_data_of(cpu)->kicks == kicks, "kicks %lu", rcu_data_of(cpu)->kicks - kicks);
}

/* ---- Callbacks ---- */

#define CALLBACKS_PER_CPU 64

struct recorded_callback {
    struct rcu_head head;
    unsigned queued_on, ran_on;
    bool ran, ran_in_interrupt;
};

static struct recorded_callback recorded[MAX_CPUS][CALLBACKS_PER_CPU];
static unsigned long callbacks_ran;

static void record(struct rcu_head *head)
{
    struct recorded_callback *callback = (struct recorded_callback *)head;
    callback->ran_on = this_cpu_id();
    callback->ran_in_interrupt = in_interrupt();
    callback->ran = true;
    __atomic_add_fetch(&callbacks_ran, 1, __ATOMIC_RELEASE);
}

static void queue_callbacks_here(void *unused)
{
    (void)unused;
    unsigned cpu = this_cpu_id();
    for (unsigned i = 0; i < CALLBACKS_PER_CPU; i++) {
        recorded[cpu][i] = (struct recorded_callback){ .queued_on = cpu };
        call_rcu(&recorded[cpu][i].head, record);
        if (i % 16 == 0)
            yield();
    }
}

/* A pinned kthread on every CPU queues callbacks, then rcu_barrier(). */
static unsigned long queue_everywhere_then_barrier(void)
{
    static struct task *tasks[MAX_CPUS];
    unsigned cpu;

    __atomic_store_n(&callbacks_ran, 0, __ATOMIC_RELEASE);
    for_each_online_cpu(cpu) {
        struct cpumask there = cpumask_of(cpu);
        tasks[cpu] = kthread_create("rcu_queue", queue_callbacks_here, 0, &there);
    }
    for_each_online_cpu(cpu)
        kthread_join(tasks[cpu]);
    rcu_barrier();
    return __atomic_load_n(&callbacks_ran, __ATOMIC_ACQUIRE);
}

static void barrier_waits_for_every_callback(struct ktest *test)
{
    unsigned long ran = queue_everywhere_then_barrier();
    KTEST_EXPECT(test, ran == cpu_count * CALLBACKS_PER_CPU, "%lu of %u ran before rcu_barrier returned", ran,
                 cpu_count * CALLBACKS_PER_CPU);
}

/* Where a callback belongs: on the CPU that queued it, or, if that CPU is
 * offloaded (rcu_nocbs=), on a CPU that is not. */
static bool ran_where_it_belongs(const struct recorded_callback *callback)
{
    if (rcu_cpu_offloaded(callback->queued_on))
        return callback->ran_on != callback->queued_on && !rcu_cpu_offloaded(callback->ran_on);
    return callback->ran_on == callback->queued_on;
}

static void callbacks_run_in_a_task_on_their_cpu(struct ktest *test)
{
    unsigned cpu, wrong_cpu = 0, in_interrupt_count = 0, not_run = 0;

    queue_everywhere_then_barrier();
    for_each_online_cpu(cpu) {
        for (unsigned i = 0; i < CALLBACKS_PER_CPU; i++) {
            const struct recorded_callback *callback = &recorded[cpu][i];
            not_run += !callback->ran;
            wrong_cpu += callback->ran && !ran_where_it_belongs(callback);
            in_interrupt_count += callback->ran_in_interrupt;
        }
        KTEST_EXPECT(test, rcu_data_of(cpu)->callbacks_invoked_badly == 0, "cpu %u: %lu invoked badly", cpu,
                     rcu_data_of(cpu)->callbacks_invoked_badly);
    }
    KTEST_EXPECT(test, not_run == 0, "%u callbacks did not run", not_run);
    KTEST_EXPECT(test, wrong_cpu == 0, "%u ran on the wrong CPU", wrong_cpu);
    KTEST_EXPECT(test, in_interrupt_count == 0, "%u ran in interrupt context", in_interrupt_count);
}

KTEST_SUITE(rcu,
            KTEST_CASE(tree_has_the_levels_fanout_asks_for),
            KTEST_CASE(read_side_critical_sections_nest),
            KTEST_CASE(idle_cpus_are_never_interrupted),
            KTEST_CASE(grace_periods_advance),
            KTEST_CASE(user_eqs_is_reported_without_interrupting),
            KTEST_CASE(barrier_waits_for_every_callback),
            KTEST_CASE(callbacks_run_in_a_task_on_their_cpu));

/* ---- ktest=rcu_nocbs: callback offload (run with rcu_nocbs= naming the last CPU) ---- */

#define OFFLOAD_TASK_CALLBACKS 256
#define OFFLOAD_IRQ_CALLBACKS 16
#define OFFLOAD_CALLBACKS (OFFLOAD_TASK_CALLBACKS + OFFLOAD_IRQ_CALLBACKS)

struct offload_run {
    unsigned cpu;
    struct recorded_callback callbacks[OFFLOAD_CALLBACKS];
    struct timer timers[OFFLOAD_IRQ_CALLBACKS];
    volatile unsigned timers_fired;
    volatile bool needs_cpu_while_queued;   /* rcu_needs_cpu() with the callbacks queued */
    uint64_t restarts, kept_for_rcu;        /* the CPU's tick counters when the queuer began */
};

static struct offload_run offload;

/* In interrupt context on the offloaded CPU: call_rcu from a timer. */
static void queue_from_timer(struct timer *timer)
{
    struct recorded_callback *callback = timer->data;
    callback->queued_on = this_cpu_id();
    call_rcu(&callback->head, record);
    __atomic_add_fetch(&offload.timers_fired, 1, __ATOMIC_RELEASE);
}

/* Pinned to the offloaded CPU: queue from a task and from interrupts,
 * then exit, leaving the CPU idle with its callbacks queued. */
static void queue_on_the_offloaded_cpu(void *unused)
{
    (void)unused;
    unsigned cpu = this_cpu_id();
    struct tick_state *tick = tick_state_of(cpu);

    offload.restarts = tick->restarts;
    offload.kept_for_rcu = tick->refusals[TICK_KEEP_RCU];
    for (unsigned i = 0; i < OFFLOAD_IRQ_CALLBACKS; i++) {
        struct recorded_callback *callback = &offload.callbacks[OFFLOAD_TASK_CALLBACKS + i];
        *callback = (struct recorded_callback){ .queued_on = cpu };
        timer_init(&offload.timers[i], queue_from_timer, callback);
        timer_start(&offload.timers[i], clock_now() + (i + 1) * 100000ul, true);
    }
    for (unsigned i = 0; i < OFFLOAD_TASK_CALLBACKS; i++) {
        offload.callbacks[i] = (struct recorded_callback){ .queued_on = cpu };
        call_rcu(&offload.callbacks[i].head, record);
    }
    while (__atomic_load_n(&offload.timers_fired, __ATOMIC_ACQUIRE) < OFFLOAD_IRQ_CALLBACKS)
        cpu_relax();
    offload.needs_cpu_while_queued = rcu_needs_cpu(cpu);
}

static bool last_cpu_offloaded(struct ktest *test)
{
    unsigned cpu = cpu_count - 1;
    if (cpu_count < 2 || !rcu_cpu_offloaded(cpu)) {
        ktest_skip(test, "needs rcu_nocbs= with the last CPU");
        return false;
    }
    return true;
}

static void offloaded_callbacks_run_elsewhere_in_a_task(struct ktest *test)
{
    unsigned cpu = cpu_count - 1, not_run = 0, wrong_cpu = 0, in_interrupt_count = 0;
    struct cpumask there = cpumask_of(cpu);
    struct rcu_data *rdp;

    if (!last_cpu_offloaded(test))
        return;
    rdp = rcu_data_of(cpu);
    rcu_barrier();              /* what earlier cases left */
    offload.timers_fired = 0;
    __atomic_store_n(&callbacks_ran, 0, __ATOMIC_RELEASE);
    uint64_t queued = rdp->nocb_queued, invoked = rdp->nocb_invoked, badly = rdp->callbacks_invoked_badly;
    struct task *queuer = kthread_create("rcu_nocb_queue", queue_on_the_offloaded_cpu, 0, &there);
    kthread_join(queuer);
    rcu_barrier();
    unsigned long ran = __atomic_load_n(&callbacks_ran, __ATOMIC_ACQUIRE);
    const struct tick_state *tick = tick_state_of(cpu);
    uint64_t restarts = tick->restarts - offload.restarts, kept = tick->refusals[TICK_KEEP_RCU] - offload.kept_for_rcu;
    for (unsigned i = 0; i < OFFLOAD_CALLBACKS; i++) {
        const struct recorded_callback *callback = &offload.callbacks[i];
        not_run += !callback->ran;
        wrong_cpu += callback->ran && (callback->ran_on == cpu || rcu_cpu_offloaded(callback->ran_on));
        in_interrupt_count += callback->ran_in_interrupt;
    }
    ktest_log(test, "cpu %u offloaded: %u callbacks (%u from interrupts), %lu ran by rcu_barrier's return, "
              "on cpu %u; offloaded callbacks (rcu_barrier's included) queued %lu, invoked %lu; its tick: %lu restarts, %lu kept for rcu",
              cpu, OFFLOAD_CALLBACKS, OFFLOAD_IRQ_CALLBACKS, ran, offload.callbacks[0].ran_on,
              rdp->nocb_queued - queued, rdp->nocb_invoked - invoked, restarts, kept);
    KTEST_EXPECT(test, ran == OFFLOAD_CALLBACKS, "rcu_barrier returned with %lu of %u run", ran, OFFLOAD_CALLBACKS);
    KTEST_EXPECT(test, not_run == 0, "%u did not run", not_run);
    KTEST_EXPECT(test, wrong_cpu == 0, "%u ran on cpu %u or another offloaded CPU", wrong_cpu, cpu);
    KTEST_EXPECT(test, in_interrupt_count == 0, "%u ran in interrupt context", in_interrupt_count);
    KTEST_EXPECT(test, rdp->callbacks_invoked_badly == badly, "%lu invoked badly", rdp->callbacks_invoked_badly - badly);
    /* The counters also hold rcu_barrier's own callback, if it found the list busy. */
    KTEST_EXPECT(test, rdp->nocb_queued - queued - OFFLOAD_CALLBACKS <= 1, "nocb_queued grew by %lu",
                 rdp->nocb_queued - queued);
    KTEST_EXPECT(test, rdp->nocb_invoked - invoked == rdp->nocb_queued - queued, "nocb_invoked grew by %lu",
                 rdp->nocb_invoked - invoked);
    KTEST_EXPECT(test, !offload.needs_cpu_while_queued, "rcu_needs_cpu(%u) with offloaded callbacks queued", cpu);
    KTEST_EXPECT(test, kept == 0, "cpu %u kept its tick %lu times for rcu", cpu, kept);
    KTEST_EXPECT(test, restarts == 0, "cpu %u's tick restarted %lu times", cpu, restarts);
}

/* Every offloaded CPU has an rcuo kthread, none an rcuc one, and the
 * kthreads and rcu_gp run on a CPU that is not offloaded. */
static void offload_kthreads_stay_off_offloaded_cpus(struct ktest *test)
{
    unsigned cpu;

    if (!last_cpu_offloaded(test))
        return;
    KTEST_EXPECT(test, !rcu_cpu_offloaded(rcu_state.gp_kthread_cpu), "rcu_gp on offloaded cpu %u",
                 rcu_state.gp_kthread_cpu);
    for_each_online_cpu(cpu) {
        struct task *kthread = rcu_data_of(cpu)->rcuc;
        bool offloaded = rcu_cpu_offloaded(cpu);
        unsigned where = cpumask_first(&kthread->affinity);
        KTEST_EXPECT(test, kthread->name[3] == (offloaded ? 'o' : 'c'), "cpu %u: kthread %s", cpu, kthread->name);
        if (offloaded)
            KTEST_EXPECT(test, cpumask_weight(&kthread->affinity) == 1 && !rcu_cpu_offloaded(where),
                         "%s may run on cpu %u", kthread->name, where);
    }
}

KTEST_SUITE(rcu_nocbs,
            KTEST_CASE(offload_kthreads_stay_off_offloaded_cpus),
            KTEST_CASE(offloaded_callbacks_run_elsewhere_in_a_task));

/* ---- ktest=rcu_stall ---- */

static volatile bool holding, release_reader;

static void hold_a_reader(void *unused)
{
    (void)unused;
    rcu_read_lock();
    __atomic_store_n(&holding, true, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&release_reader, __ATOMIC_ACQUIRE))
        cpu_relax();
    rcu_read_unlock();
}

static void noop_callback(struct rcu_head *head)
{
    (void)head;
}

static void stall_detector_names_the_holdout(struct ktest *test)
{
    static struct rcu_head head;
    unsigned cpu = cpu_count - 1;
    struct cpumask there = cpumask_of(cpu);

    if (rcu_stall_timeout_param > 3 || cpu_count < 2) {
        ktest_skip(test, "needs rcu_stall_timeout=1..3 and two CPUs");
        return;
    }
    holding = release_reader = false;
    uint64_t stalls = rcu_stall_count(), kicks = rcu_data_of(cpu)->kicks;
    struct task *reader = kthread_create("rcu_holdout", hold_a_reader, 0, &there);
    while (!__atomic_load_n(&holding, __ATOMIC_ACQUIRE))
        yield();
    call_rcu(&head, noop_callback);         /* a grace period that cpu will hold up */
    /* Wait for the report, with a bound far above the timeout so that a
     * broken detector fails instead of hanging the run. */
    uint64_t give_up = clock_now() + (rcu_stall_timeout_param + 60) * NS_PER_SECOND;
    while (rcu_stall_count() == stalls && clock_now() < give_up)
        sleep_ns(10000000);
    uint64_t holdouts = rcu_state.last_stall_holdouts;
    __atomic_store_n(&release_reader, true, __ATOMIC_RELEASE);
    kthread_join(reader);
    uint64_t before = rcu_gps_completed();
    synchronize_rcu();                      /* the GP ends once the reader is gone */
    ktest_log(test, "stalls %lu, holdouts %#lx, kicks to cpu %u: %lu", rcu_stall_count() - stalls, holdouts, cpu,
              rcu_data_of(cpu)->kicks - kicks);
    KTEST_EXPECT(test, rcu_stall_count() == stalls + 1, "stalls went from %lu to %lu", stalls, rcu_stall_count());
    KTEST_EXPECT(test, holdouts == 1ull << cpu, "holdouts %#lx, expected cpu %u alone", holdouts, cpu);
    KTEST_EXPECT(test, rcu_data_of(cpu)->kicks - kicks >= 1, "the holdout was kicked first");
    KTEST_EXPECT(test, rcu_gps_completed() > before, "GPs go on after the reader leaves");
}

KTEST_SUITE(rcu_stall, KTEST_CASE(stall_detector_names_the_holdout));

/* ---- ktest=rcutorture ---- */

#define TORTURE_SECONDS 3

static void torture_is_clean(struct ktest *test)
{
    static struct rcu_torture_result result;
    static char text[1024];
    unsigned cpu;

    int error = rcu_torture_run(TORTURE_SECONDS * NS_PER_SECOND, &result);
    KTEST_EXPECT(test, error == 0, "rcu_torture_run: %d", error);
    struct proc_text out = { text, 0, sizeof(text) };
    rcu_torture_format(&result, &out);
    for (char *line = text, *end; *line; line = end + 1) {
        end = line;
        while (*end && *end != '\n')
            end++;
        bool last = !*end;
        *end = '\0';
        ktest_log(test, "%s", line);
        if (last)
            break;
    }
    KTEST_EXPECT(test, result.errors == 0, "%lu errors", result.errors);
    KTEST_EXPECT(test, result.stalls == 0, "%lu stalls", result.stalls);
    KTEST_EXPECT(test, result.gps >= 3, "grace periods %lu", result.gps);
    KTEST_EXPECT(test, result.writes > 0 && result.irq_reads > 0, "writes %lu irq reads %lu", result.writes,
                 result.irq_reads);
    for_each_online_cpu(cpu)
        KTEST_EXPECT(test, result.reads_per_cpu[cpu] > 0, "cpu %u read nothing", cpu);
    for (unsigned i = 2; i <= RCU_TORTURE_PIPE_LEN; i++)
        KTEST_EXPECT(test, result.pipe[i] == 0, "a reader saw pipeline age %u (%lu times)", i, result.pipe[i]);
}

KTEST_SUITE(rcutorture, KTEST_CASE(tree_has_the_levels_fanout_asks_for), KTEST_CASE(torture_is_clean));

/* ---- The read-side assertions: each ends the run with a panic ---- */

static void ktest_panic_rcu_unlock_without_lock(struct ktest *test)
{
    (void)test;
    rcu_read_unlock();
}

static void ktest_panic_rcu_sleep_in_reader(struct ktest *test)
{
    (void)test;
    rcu_read_lock();
    schedule();
}

KTEST_SUITE(panic_rcu_unlock, KTEST_CASE(ktest_panic_rcu_unlock_without_lock));
KTEST_SUITE(panic_rcu_sleep, KTEST_CASE(ktest_panic_rcu_sleep_in_reader));
