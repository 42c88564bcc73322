/* ktest=sched: kernel threads share a CPU fairly, never run outside their
 * mask, are woken from any CPU, lose no wakeup, and are reaped cleanly.
 * Counts and orderings only. */
#include "arch/x86/cpu.h"
#include "arch/x86/timer.h"
#include "kernel/irq/ipi.h"
#include "kernel/debug/ktest.h"
#include "kernel/mm/page_alloc.h"
#include "kernel/base/percpu.h"
#include "sched/runqueue.h"
#include "kernel/time/timers.h"
#include "sched/task.h"

#define MS 1000000ul
#define STALL_LIMIT_NS (5000ul * MS)

static unsigned last_cpu(void)
{
    return cpu_count - 1;
}

/* Sleep-wait until *counter reaches target, failing if it stops moving. */
static bool wait_for_progress(volatile uint64_t *counter, uint64_t target)
{
    uint64_t last = *counter, last_change = clock_now();
    while (*counter < target) {
        sleep_ns(10 * MS);
        if (*counter != last) {
            last = *counter;
            last_change = clock_now();
        } else if (clock_now() - last_change > STALL_LIMIT_NS) {
            return false;
        }
    }
    return true;
}

/* --- fairness ----------------------------------------------------------- */

#define FAIR_THREADS 4
#define FAIR_WINDOW_NS (1500 * MS)
/* ktest=sched_quick: the spinners stop once they have had QUICK_SLICES
 * between them (10 each, 0.4 s on an idle host), a count that a host too
 * busy to run the vCPU at every tick still reaches, only later; the
 * window is then a bound, for a kernel that never preempts. */
#define QUICK_SLICES 40
#define QUICK_FAIR_BOUND_NS (4000 * MS)

struct spinner {
    volatile uint64_t *start_at;
    uint64_t end_at;
    uint64_t slices;
    uint64_t runtime;                   /* accounted while spinning */
    uint64_t clock_start, clock_end;    /* when it started and stopped counting */
    struct task *task;
    uint64_t *total_slices, target;     /* stop once all spinners had target slices (0: at end_at) */
};

static void spin_until_end(void *arg)
{
    struct spinner *spinner = arg;
    struct task *self = current_task();
    while (clock_now() < *spinner->start_at)
        cpu_relax();
    /* The span opens before the run time is first read and closes after it
     * is last read, so every accounted nanosecond lies inside the span. */
    irq_disable();
    spinner->clock_start = clock_now();
    uint64_t slices_at_start = self->slices, runtime_at_start = task_runtime_ns(self);
    irq_enable();
    uint64_t seen = slices_at_start;
    while (clock_now() < spinner->end_at) {
        uint64_t now_slices = __atomic_load_n(&self->slices, __ATOMIC_RELAXED);
        if (now_slices != seen) {
            __atomic_add_fetch(spinner->total_slices, now_slices - seen, __ATOMIC_SEQ_CST);
            seen = now_slices;
        }
        if (spinner->target && __atomic_load_n(spinner->total_slices, __ATOMIC_SEQ_CST) >= spinner->target)
            break;
        cpu_relax();
    }
    irq_disable();
    spinner->slices = self->slices - slices_at_start;
    spinner->runtime = task_runtime_ns(self) - runtime_at_start;
    spinner->clock_end = clock_now();
    irq_enable();
}

static void share_fairly(struct ktest *test, uint64_t window, uint64_t target)
{
    struct spinner spinners[FAIR_THREADS];
    struct cpumask one_cpu = cpumask_of(last_cpu());
    volatile uint64_t start_at = UINT64_MAX;
    static uint64_t total_slices;

    total_slices = 0;
    for (int i = 0; i < FAIR_THREADS; i++) {
        spinners[i] = (struct spinner){ .start_at = &start_at, .total_slices = &total_slices, .target = target };
        spinners[i].task = kthread_create("spinner", spin_until_end, &spinners[i], &one_cpu);
    }
    uint64_t start = clock_now() + 50 * MS;
    for (int i = 0; i < FAIR_THREADS; i++)
        spinners[i].end_at = start + window;
    start_at = start;

    /* Meanwhile, nr_running there must be exact: every spinner, no more. */
    struct runqueue *rq = cpu_rq(last_cpu());
    unsigned samples = 0, inexact = 0;
    while (clock_now() < start + window / 2 &&
           (!target || __atomic_load_n(&total_slices, __ATOMIC_SEQ_CST) < target / 2)) {   /* none has stopped */
        spin_lock(&rq->lock);
        unsigned queued = 0;
        for (struct task *t = rq->head; t; t = t->run_next)
            queued++;
        unsigned counted = queued + (cpus[last_cpu()]->current->is_idle ? 0 : 1);
        if (clock_now() > start && (rq->nr_running != FAIR_THREADS || counted != rq->nr_running))
            inexact++;
        spin_unlock(&rq->lock);
        samples++;
        sleep_ns(MS);
    }
    KTEST_EXPECT(test, inexact == 0, "nr_running was not %d (or disagreed with the queue) in %u of %u samples",
                 FAIR_THREADS, inexact, samples);

    uint64_t total = 0, least = UINT64_MAX, most = 0;
    uint64_t runtime = 0, first_start = UINT64_MAX, last_end = 0;
    for (int i = 0; i < FAIR_THREADS; i++) {
        kthread_join(spinners[i].task);
        total += spinners[i].slices;
        runtime += spinners[i].runtime;
        first_start = spinners[i].clock_start < first_start ? spinners[i].clock_start : first_start;
        last_end = spinners[i].clock_end > last_end ? spinners[i].clock_end : last_end;
        least = spinners[i].slices < least ? spinners[i].slices : least;
        most = spinners[i].slices > most ? spinners[i].slices : most;
    }
    uint64_t mean = total / FAIR_THREADS;
    ktest_log(test, "%d threads on cpu %u: slices per thread min %lu, max %lu, mean %lu", FAIR_THREADS,
              last_cpu(), least, most, mean);
    KTEST_EXPECT(test, mean >= 10, "only %lu slices each: the tick did not preempt", mean);
    KTEST_EXPECT(test, least * 100 >= mean * 80 && most * 100 <= mean * 120,
                 "slices min %lu max %lu are not within 20%% of %lu", least, most, mean);

    /* Accounting is taken from the clocksource at each switch, so the
     * threads' run times, which cannot overlap on one CPU, add up to the
     * span in which they ran (minus the switches between them). */
    uint64_t span = last_end - first_start;
    ktest_log(test, "accounted %lu us of run time in a span of %lu us", runtime / 1000, span / 1000);
    KTEST_EXPECT(test, runtime <= span, "accounted %lu ns in a span of %lu ns", runtime, span);
    KTEST_EXPECT(test, runtime >= span / 10 * 9, "accounted only %lu ns of a %lu ns span", runtime, span);
}

static void threads_on_one_cpu_share_it_fairly(struct ktest *test)
{
    share_fairly(test, FAIR_WINDOW_NS, 0);
}

static void threads_share_a_cpu_in_a_short_window(struct ktest *test)
{
    share_fairly(test, QUICK_FAIR_BOUND_NS, QUICK_SLICES);
}

/* --- affinity ----------------------------------------------------------- */

struct affinity_probe {
    struct cpumask committed, pending;  /* the mask in force, the one being set */
    volatile uint64_t generation;
    volatile bool stop;
    uint64_t checks, violations;
    struct cpumask seen;
};

/* Yields now and then: the thread that changes its mask shares CPU 0
 * with it in some rounds, and must not depend on the tick's preemption
 * (another case tests that) to get it back. */
static void check_own_cpu(void *arg)
{
    struct affinity_probe *probe = arg;
    for (unsigned spins = 1; !probe->stop; spins++) {
        if (spins % 256 == 0)
            yield();
        irq_disable();          /* no migration while we look */
        uint64_t before = __atomic_load_n(&probe->generation, __ATOMIC_ACQUIRE);
        struct cpumask allowed;
        cpumask_or(&allowed, &probe->committed, &probe->pending);
        unsigned cpu = this_cpu_id();
        uint64_t after = __atomic_load_n(&probe->generation, __ATOMIC_ACQUIRE);
        irq_enable();
        if (before != after)
            continue;
        probe->checks++;
        cpumask_set(&probe->seen, cpu);
        if (!cpumask_test(&allowed, cpu))
            probe->violations++;
    }
}

static void never_outside_mask_while_it_changes(struct ktest *test)
{
    static struct affinity_probe probe;
    struct cpumask masks[8];
    unsigned mask_count = 0;

    if (cpu_count < 2) {
        ktest_skip(test, "needs two CPUs");
        return;
    }
    for (unsigned cpu = 0; cpu < cpu_count && mask_count < 8; cpu++) {
        masks[mask_count++] = cpumask_of(cpu);
        if (cpu + 1 < cpu_count && mask_count < 8) {
            masks[mask_count] = cpumask_of(cpu);
            cpumask_set(&masks[mask_count++], cpu + 1);
        }
    }
    probe = (struct affinity_probe){ .committed = cpu_online_mask, .pending = cpu_online_mask };
    struct task *worker = kthread_create("affinity", check_own_cpu, &probe, 0);

    unsigned changes = 0, running_outside = 0, refused = 0;
    for (unsigned round = 0; round < 300; round++) {
        const struct cpumask *next = &masks[(round * 5 + round / 7) % mask_count];
        probe.pending = *next;
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        refused += set_affinity(worker, next) != 0;
        /* The promise itself, looked at the moment the call returns: on_cpu
         * first, then cpu (set before on_cpu on any later switch-in). */
        if (__atomic_load_n(&worker->on_cpu, __ATOMIC_ACQUIRE) &&
            !cpumask_test(next, __atomic_load_n(&worker->cpu, __ATOMIC_ACQUIRE)))
            running_outside++;
        probe.committed = *next;
        __atomic_add_fetch(&probe.generation, 1, __ATOMIC_SEQ_CST);
        changes++;
        if (round % 16 == 0)
            sleep_ns(MS);
    }
    probe.stop = true;
    kthread_join(worker);
    ktest_log(test, "%u mask changes, %lu checks, visited %u CPUs", changes, probe.checks,
              cpumask_weight(&probe.seen));
    KTEST_EXPECT(test, refused == 0, "set_affinity failed in %u of 300 rounds", refused);
    KTEST_EXPECT(test, probe.violations == 0, "%lu times on a CPU outside the mask", probe.violations);
    KTEST_EXPECT(test, running_outside == 0, "%u times still running outside the new mask when set_affinity returned",
                 running_outside);
    KTEST_EXPECT(test, cpumask_weight(&probe.seen) >= 2, "the worker never moved");

    struct cpumask empty = { 0 };
    KTEST_EXPECT(test, set_affinity(current_task(), &empty) < 0, "an empty mask was accepted");
    struct cpumask offline = cpumask_of(cpu_count);
    KTEST_EXPECT(test, set_affinity(current_task(), &offline) < 0, "an offline CPU was accepted");
}

/* --- wakeups from every CPU ---------------------------------------------- */

struct sleeper_state {
    struct wait_queue queue;
    volatile bool go;
    volatile unsigned woke_on;
};

static void sleep_until_go(void *arg)
{
    struct sleeper_state *state = arg;
    wait_event(&state->queue, state->go);
    state->woke_on = this_cpu_id();
}

static void set_go_and_wake(void *arg)
{
    struct sleeper_state *state = arg;
    state->go = true;
    wake_up_all(&state->queue);
}

static bool is_asleep(struct task *task)
{
    return task->state == TASK_SLEEPING && !task->on_cpu;
}

static void sleeper_is_woken_from_each_other_cpu(struct ktest *test)
{
    unsigned sleeper_cpu = last_cpu();
    struct cpumask there = cpumask_of(sleeper_cpu);
    unsigned woken = 0;

    for (unsigned waker = 0; waker < cpu_count; waker++) {
        if (waker == sleeper_cpu)
            continue;
        struct sleeper_state state = { .woke_on = MAX_CPUS };
        wait_queue_init(&state.queue);
        struct task *sleeper = kthread_create("sleeper", sleep_until_go, &state, &there);
        while (!is_asleep(sleeper))
            sleep_ns(MS);
        smp_call_function_single(waker, set_go_and_wake, &state, true);
        kthread_join(sleeper);
        KTEST_EXPECT(test, state.woke_on == sleeper_cpu, "woken by cpu %u, ran on %u, pinned to %u", waker,
                     state.woke_on, sleeper_cpu);
        woken++;
    }
    ktest_log(test, "woken from %u other CPUs", woken);
}

/* --- placement ---------------------------------------------------------- */

struct placement {
    struct wait_queue queue;
    volatile bool go, stop_spinning;
    volatile unsigned woke_on;
    struct cpumask widen_to;
};

static void widen_then_sleep(void *arg)
{
    struct placement *placement = arg;
    set_affinity(current_task(), &placement->widen_to);   /* still allowed here: stays */
    wait_event(&placement->queue, placement->go);
    placement->woke_on = this_cpu_id();
}

static void spin_until_stopped(void *arg)
{
    struct placement *placement = arg;
    while (!placement->stop_spinning)
        cpu_relax();
}

/* A task that slept on a CPU that is now busy wakes on an idle CPU it may use. */
static void wakeup_prefers_an_idle_allowed_cpu(struct ktest *test)
{
    static struct placement placement;
    if (cpu_count < 3) {
        ktest_skip(test, "needs three CPUs");
        return;
    }
    unsigned busy = last_cpu(), idle = last_cpu() - 1;
    placement = (struct placement){ .woke_on = MAX_CPUS };
    wait_queue_init(&placement.queue);
    placement.widen_to = cpumask_of(busy);
    cpumask_set(&placement.widen_to, idle);
    struct cpumask on_busy = cpumask_of(busy);

    struct task *sleeper = kthread_create("placed", widen_then_sleep, &placement, &on_busy);
    while (!is_asleep(sleeper))
        sleep_ns(MS);
    KTEST_EXPECT(test, sleeper->cpu == busy, "the sleeper last ran on cpu %u, not %u", sleeper->cpu, busy);
    struct task *spinner = kthread_create("busy", spin_until_stopped, &placement, &on_busy);
    while (cpus[busy]->current != spinner)
        sleep_ns(MS);
    placement.go = true;
    wake_up_all(&placement.queue);
    /* A bound, not a measure: a sleeper queued behind the spinner on a
     * kernel whose tick does not preempt would otherwise wait for ever. */
    uint64_t give_up = clock_now() + 2000 * MS;
    while (placement.woke_on == MAX_CPUS && clock_now() < give_up)
        sleep_ns(MS);
    placement.stop_spinning = true;
    kthread_join(sleeper);
    kthread_join(spinner);
    KTEST_EXPECT(test, placement.woke_on == idle, "woke on cpu %u; cpu %u was busy and cpu %u idle",
                 placement.woke_on, busy, idle);
}

/* --- no lost wakeups ---------------------------------------------------- */

#define ROUND_TRIPS 20000       /* each an IPI to a halted vCPU: slow under TCG on a loaded host */
#define QUICK_ROUND_TRIPS 2000

struct rally {
    int rounds;
    struct wait_queue ping_queue, pong_queue;
    volatile int turn;                  /* 0: ping's turn, 1: pong's */
    volatile uint64_t returned;
};

static void ping(void *arg)
{
    struct rally *rally = arg;
    for (int i = 0; i < rally->rounds; i++) {
        __atomic_store_n(&rally->turn, 1, __ATOMIC_SEQ_CST);
        wake_up_one(&rally->pong_queue);
        wait_event(&rally->ping_queue, rally->turn == 0);
        rally->returned++;
    }
}

static void pong(void *arg)
{
    struct rally *rally = arg;
    for (int i = 0; i < rally->rounds; i++) {
        wait_event(&rally->pong_queue, rally->turn == 1);
        __atomic_store_n(&rally->turn, 0, __ATOMIC_SEQ_CST);
        wake_up_one(&rally->ping_queue);
    }
}

static uint64_t total_wakeups(void)
{
    uint64_t total = 0;
    unsigned cpu;
    for_each_online_cpu(cpu) total += cpu_rq(cpu)->wakeups;
    return total;
}

static void round_trips(struct ktest *test, int rounds)
{
    static struct rally rally;
    unsigned a = cpu_count > 2 ? 1 : 0, b = last_cpu();

    if (a == b) {
        ktest_skip(test, "needs two CPUs");
        return;
    }
    rally = (struct rally){ .rounds = rounds, .turn = 0 };
    wait_queue_init(&rally.ping_queue);
    wait_queue_init(&rally.pong_queue);
    uint64_t wakeups_before = total_wakeups();
    struct cpumask on_a = cpumask_of(a), on_b = cpumask_of(b);
    struct task *pong_task = kthread_create("pong", pong, &rally, &on_b);
    struct task *ping_task = kthread_create("ping", ping, &rally, &on_a);

    bool finished = wait_for_progress(&rally.returned, (uint64_t)rounds);
    KTEST_EXPECT(test, finished, "stuck after %lu of %d round trips: a wakeup was lost", rally.returned, rounds);
    if (!finished)
        return;         /* the threads stay asleep forever; do not join them */
    kthread_join(ping_task);
    kthread_join(pong_task);
    uint64_t wakeups = total_wakeups() - wakeups_before;
    ktest_log(test, "%lu round trips between cpu %u and cpu %u, %lu wakeups", rally.returned, a, b, wakeups);
    KTEST_EXPECT(test, rally.returned == (uint64_t)rounds, "%lu round trips", rally.returned);
}

static void round_trips_between_two_cpus_lose_no_wakeup(struct ktest *test)
{
    round_trips(test, ROUND_TRIPS);
}

static void a_few_round_trips_lose_no_wakeup(struct ktest *test)
{
    round_trips(test, QUICK_ROUND_TRIPS);
}

/* --- exit and reap ------------------------------------------------------ */

static void exit_with_argument(void *arg)
{
    task_exit((int)(uintptr_t)arg);
}

static void threads_exit_and_are_reaped_without_leaks(struct ktest *test)
{
    struct task *tasks[64];
    unsigned wrong_codes = 0;

    /* Warm up once so that slabs and page tables exist before we count. */
    kthread_join(kthread_create("warmup", exit_with_argument, 0, 0));
    size_t free_before = page_free_count();
    for (int round = 0; round < 20; round++) {
        for (int i = 0; i < 64; i++)
            tasks[i] = kthread_create("exiter", exit_with_argument, (void *)(uintptr_t)(i + 1), 0);
        for (int i = 0; i < 64; i++)
            wrong_codes += kthread_join(tasks[i]) != i + 1;
    }
    size_t free_after = page_free_count();
    ktest_log(test, "1280 threads created and reaped; free pages %zu before, %zu after", free_before, free_after);
    KTEST_EXPECT(test, wrong_codes == 0, "%u exit codes were wrong", wrong_codes);
    /* Slack: slabs may keep a partly used page per size class, and stack
     * addresses are not reused, so ~1 page-table page per 100 stacks. */
    size_t slack = 8 + 1280 / 100 + 1;
    KTEST_EXPECT(test, free_after + slack >= free_before, "leaked %zu pages (slack %zu)", free_before - free_after,
                 slack);
}

KTEST_SUITE(sched,
            KTEST_CASE(threads_on_one_cpu_share_it_fairly),
            KTEST_CASE(never_outside_mask_while_it_changes),
            KTEST_CASE(sleeper_is_woken_from_each_other_cpu),
            KTEST_CASE(wakeup_prefers_an_idle_allowed_cpu),
            KTEST_CASE(round_trips_between_two_cpus_lose_no_wakeup),
            KTEST_CASE(threads_exit_and_are_reaped_without_leaks));

/* ktest=sched_quick: the cases above that take a second or two, with a
 * shorter window and fewer round trips (the scheduler lab's grade,
 * docs/labs/scheduler.md). */
KTEST_SUITE(sched_quick,
            KTEST_CASE(threads_share_a_cpu_in_a_short_window),
            KTEST_CASE(never_outside_mask_while_it_changes),
            KTEST_CASE(sleeper_is_woken_from_each_other_cpu),
            KTEST_CASE(wakeup_prefers_an_idle_allowed_cpu),
            KTEST_CASE(a_few_round_trips_lose_no_wakeup));
