/* The tick: a periodic interrupt on every CPU, built from one-shot timer
 * deadlines (arch/x86/timer.h), and the policy that stops it. Each tick
 * the CPU does its periodic work (the timekeeper advances jiffies and runs
 * the clocksource watchdog, the scheduler checks time slices, RCU notes
 * quiescent states); then the tick either goes on or, if the policy allows
 * and nothing needs it, stops (docs/tick.md, docs/nohz-task.md).
 *
 * Where the tick stops:
 *   - in the tick interrupt, when a nohz task runs alone (patches 03-04);
 *   - at once, without waiting for a period, after a context switch and
 *     on the way to user mode (tick_update);
 *   - on entering idle (tick_idle_enter).
 * Where it starts again:
 *   - leaving idle (tick_idle_exit);
 *   - tick_recheck(), on the way out of every interrupt and back to user
 *     mode: a second task was queued here (the nohz kick brought us in,
 *     patch 05), callbacks were queued, or the task is no longer a nohz task.
 *
 * The stop decision and `running` are changed under this CPU's runqueue
 * lock, and a CPU that queues a task here reads `running` under the same
 * lock: either it sees the tick stopped and kicks, or we see the second
 * task and keep the tick. No kick is lost, and none is sent to a CPU that
 * still ticks (sched/sched.c enqueue_locked).
 *
 * Deadlines are absolute and advance by exactly one period, so ticks do not
 * drift. If the CPU ran late (a vCPU not scheduled by the host for a while)
 * the periods it missed are counted in tick.missed rather than fired in a
 * burst. */
#include "kernel/time/tick.h"

#include "arch/x86/clock.h"
#include "arch/x86/cpu.h"
#include "arch/x86/timer.h"
#include "arch/x86/trap.h"
#include "arch/x86/vectors.h"
#include "kernel/lib/errno.h"
#include "kernel/irq/ipi.h"
#include "kernel/time/itimer.h"
#include "kernel/irq/irq.h"
#include "kernel/time/nohz_task.h"
#include "kernel/cpu/percpu.h"
#include "kernel/console/printk.h"
#include "kernel/lib/string.h"
#include "kernel/time/timers.h"
#include "kernel/trace/trace.h"
#include "kernel/time/tsc_watchdog.h"
#include "rcu/rcu.h"
#include "sched/task.h"

#define NS_PER_SECOND 1000000000ul
#define WATCHDOG_INTERVAL_NS (NS_PER_SECOND / 2)

unsigned tick_hz = 1000;
uint64_t tick_period_ns;
volatile uint64_t jiffies;
volatile unsigned timekeeper_cpu;

const char *const tick_keep_reason_names[TICK_KEEP_REASON_COUNT] = {
    [TICK_MAY_STOP] = "-",         [TICK_KEEP_POLICY] = "policy", [TICK_KEEP_TASKS] = "tasks",
    [TICK_KEEP_RCU] = "rcu",       [TICK_KEEP_TIMER] = "timer",   [TICK_KEEP_TIMEKEEPING] = "timekeeping",
    [TICK_KEEP_CLOCK] = "clock",   [TICK_KEEP_CPU_TIMER] = "cputimer",
};

const struct tick_policy *tick_policy = &tick_policy_task;

static const struct tick_policy *find_policy(const char *name)
{
    for (const struct tick_policy *const *policy = tick_policies; *policy; policy++) {
        if (!strcmp((*policy)->name, name))
            return *policy;
    }
    return 0;
}

int tick_policy_select(const char *name)
{
    const struct tick_policy *policy = find_policy(name);
    if (!policy)
        return -EINVAL;
    tick_policy = policy;
    return 0;
}

/* The policy is one pointer, read under each CPU's runqueue lock at every
 * check: a CPU sees the old policy or the new one, never a mix. A CPU
 * whose tick the old policy stopped is kicked, so that it asks again. */
int tick_policy_switch(const char *name)
{
    const struct tick_policy *policy = find_policy(name);
    unsigned cpu;
    if (!policy)
        return -EINVAL;
    __atomic_store_n(&tick_policy, policy, __ATOMIC_SEQ_CST);
    for_each_online_cpu(cpu) {
        if (!__atomic_load_n(&cpus[cpu]->tick.running, __ATOMIC_ACQUIRE))
            tick_nohz_kick(cpu);
    }
    return 0;
}

/* ---- Timekeeping and the clocksource watchdog ---- */

static volatile uint64_t watchdog_round;     /* bumped by the timekeeper */
static uint64_t watchdog_last_run;

/* jiffies is a function of the clocksource, so a timekeeper that took
 * over after a pause catches up in one step. */
static void timekeeping_update(uint64_t now)
{
    __atomic_store_n(&jiffies, now / tick_period_ns, __ATOMIC_RELEASE);
    if (now - watchdog_last_run >= WATCHDOG_INTERVAL_NS) {
        watchdog_last_run = now;
        __atomic_add_fetch(&watchdog_round, 1, __ATOMIC_RELEASE);
    }
}

/* The clocksource watchdog (patch 12): each round, every ticking CPU that
 * has no nohz task reads its own TSC between two reads of the clocksource,
 * in its own tick, so no CPU is interrupted for it and a nohz CPU never
 * does the work. kernel/time/tsc_watchdog.c judges the readings; a TSC found
 * drifting is marked unstable once, with one console line, and is not
 * read by the watchdog again (Linux's watchdog is a timer that visits CPUs
 * in turn, skips nohz ones, and marks the TSC unstable the same way). */
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
    cpu->tick.watchdog_checks++;
    if (!tsc_is_stable())
        return;             /* nothing left to watch */
    for (int attempt = 0; attempt < WATCHDOG_READ_ATTEMPTS && verdict == TSC_SKEWED; attempt++) {
        watchdog_read(&reading);
        verdict = tsc_watchdog_check(&tsc_watchdog, cpu->id, &reading, &khz);
    }
    if (verdict == TSC_MARKED_UNSTABLE)
        printk("clocksource: tsc marked unstable: cpu %u measured %lu kHz against the %s, reference %lu kHz; "
               "the watchdog stops reading it and lock waits count spins\n",
               cpu->id, khz, clock_source_name(), tsc_watchdog.reference_khz);
}

/* A CPU that ticks takes timekeeping up when nobody has it, unless it has
 * a nohz task. */
static void timekeeping_take_if_free(unsigned cpu)
{
    unsigned none = TIMEKEEPER_NONE;
    if (timekeeper_cpu == TIMEKEEPER_NONE && !cpu_is_isolated(cpu))
        __atomic_compare_exchange_n(&timekeeper_cpu, &none, cpu, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
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
    tick_nohz_kick(target);     /* if its tick is stopped: it must tick now */
}

/* ---- The tick ---- */

static void tick_do_periodic_work(struct cpu *cpu, uint64_t now, bool interrupted_user)
{
    cpu->tick.ticks++;
    timekeeping_take_if_free(cpu->id);
    trace_tick_fire(cpu->tick.ticks);
    if (cpu->id == timekeeper_cpu)
        timekeeping_update(now);
    watchdog_check_this_cpu(cpu);
    sched_tick(now);
    itimer_tick();
    rcu_sched_clock_irq(interrupted_user);
}

/* The next tick: one period after the last deadline, skipping the periods
 * that are already in the past. */
static void tick_advance_deadline(struct tick_state *tick, uint64_t now)
{
    uint64_t next = tick->next_deadline + tick_period_ns;

    if (next <= now) {
        uint64_t behind = (now - tick->next_deadline) / tick_period_ns;
        tick->missed += behind;
        next = tick->next_deadline + (behind + 1) * tick_period_ns;
    }
    tick->next_deadline = next;
}

/* One timer interrupt serves both the tick and the software timers: ask
 * for the earlier of the two, or for none. Interrupts must be off. */
void tick_program_hardware(void)
{
    const struct tick_state *tick = &this_cpu()->tick;
    uint64_t deadline = timers_next_deadline();

    if (tick->running && tick->next_deadline < deadline)
        deadline = tick->next_deadline;
    if (deadline == UINT64_MAX)
        timer_stop();
    else
        timer_set_deadline(deadline);
}

/* ---- Stopping and restarting ---- */

static bool cpu_is_idle(const struct runqueue *rq)
{
    return rq->current->is_idle && rq->nr_running == 0;
}

/* Why this CPU must keep ticking, or TICK_MAY_STOP. The runqueue lock is
 * held. First the policy's question; then the dependency bits that events
 * set (kernel/time/tick_dep.c); then the questions only this CPU can answer,
 * about its own state. at_tick: called right after the tick's own work,
 * when RCU's rcu_pending() is meaningful (patch 06); elsewhere only queued
 * callbacks (rcu_needs_cpu) count, since a nohz task in user mode is in an
 * extended quiescent state and RCU does not need its tick for that. */
static enum tick_keep_reason keep_reason(struct cpu *cpu, uint64_t now, bool at_tick)
{
    struct runqueue *rq = &cpu->rq;
    bool idle = cpu_is_idle(rq);

    const struct tick_policy *policy = __atomic_load_n(&tick_policy, __ATOMIC_ACQUIRE);
    if (idle ? !policy->stop_when_idle : !policy->busy_may_stop(cpu, now))
        return TICK_KEEP_POLICY;
    uint32_t deps = idle ? 0 : tick_dep_mask_of(cpu->id);   /* an idle CPU stops, as on Linux */
    if (deps)
        return (enum tick_keep_reason)__builtin_ctz(deps);     /* the lowest-numbered bit */
    if (rcu_needs_cpu(cpu->id) || (at_tick && !idle && rcu_pending(cpu->id)))
        return TICK_KEEP_RCU;
    if (cpu->id == timekeeper_cpu && isolated_cpus_exist())
        return TICK_KEEP_TIMEKEEPING;
    /* The PIT wraps every 55 ms: someone must read it more often than
     * that (arch/x86/pit.c), and that is the timekeeper's tick. */
    if (cpu->id == timekeeper_cpu && clock_needs_periodic_reads())
        return TICK_KEEP_CLOCK;
    if (timers_next_deadline() < now + tick_period_ns)
        return TICK_KEEP_TIMER;
    return TICK_MAY_STOP;
}

static void stop_locked(struct cpu *cpu)
{
    struct tick_state *tick = &cpu->tick;
    trace_tick_stop(cpu_is_idle(&cpu->rq) ? "idle" : "alone");
    tick->running = false;
    tick->reason = TICK_MAY_STOP;
    tick->stops++;
    if (cpu->id == timekeeper_cpu && !isolated_cpus_exist())
        __atomic_store_n(&timekeeper_cpu, TIMEKEEPER_NONE, __ATOMIC_SEQ_CST);   /* whoever ticks next */
}

static void restart_locked(struct cpu *cpu, uint64_t now, enum tick_keep_reason reason)
{
    struct tick_state *tick = &cpu->tick;
    trace_tick_restart(tick_keep_reason_names[reason]);
    tick->running = true;
    tick->reason = reason;
    tick->restarts++;
    tick->next_deadline = now + tick_period_ns;
}

/* Stop the tick if nothing needs it; else count why not. Interrupts off. */
static void try_stop(struct cpu *cpu, uint64_t now, bool at_tick)
{
    spin_lock(&cpu->rq.lock);
    if (cpu->tick.running) {
        enum tick_keep_reason reason = keep_reason(cpu, now, at_tick);
        if (reason != TICK_MAY_STOP && reason != cpu->tick.reason)
            trace_tick_keep(tick_keep_reason_names[reason]);    /* changes only: not one per tick */
        cpu->tick.reason = reason;
        if (reason == TICK_MAY_STOP)
            stop_locked(cpu);
        else
            cpu->tick.refusals[reason]++;
    }
    spin_unlock(&cpu->rq.lock);
}

void tick_recheck(void)
{
    struct cpu *cpu = this_cpu();
    if (cpu->tick.running)
        return;
    uint64_t now = clock_now();
    spin_lock(&cpu->rq.lock);
    enum tick_keep_reason reason = cpu->tick.running ? TICK_MAY_STOP : keep_reason(cpu, now, false);
    if (reason != TICK_MAY_STOP)
        restart_locked(cpu, now, reason);
    spin_unlock(&cpu->rq.lock);
    if (reason == TICK_MAY_STOP)
        return;
    /* The task ran alone, with no tick to count its slice: a newcomer gets
     * the CPU on this interrupt's way out, as a waking task preempts a CPU
     * hog on Linux, instead of waiting up to a whole slice. */
    if (reason == TICK_KEEP_TASKS && !cpu->rq.current->is_idle)
        cpu->need_resched = true;
    tick_program_hardware();
}

/* Stop a running tick at once, rather than at its next period, when
 * nothing needs it: called where the CPU's situation just changed for the
 * better, on the way to user mode and after a context switch, so that a
 * task that will run alone does not take one more tick first (Linux:
 * tick_nohz_user_enter_prepare(), tick_nohz_task_switch()). rcu_pending()
 * counts, as at a tick: RCU work waits for the tick that does it. These
 * checks are not counted in the "kept by" table, which counts the checks
 * of the tick itself and of idle entry. Only isolated CPUs (a nohz task
 * or nohz_full=) look: no policy in the tree stops a busy tick elsewhere,
 * and the check costs a clocksource read on every system call's way out.
 * (A new policy that stops other busy CPUs does so at their next tick.)
 * Interrupts off. */
void tick_update(void)
{
    struct cpu *cpu = this_cpu();
    if (!cpu->tick.running) {
        tick_recheck();
        return;
    }
    if (cpu_is_idle(&cpu->rq) || !cpu_is_isolated(cpu->id))
        return;
    uint64_t now = clock_now();
    spin_lock(&cpu->rq.lock);
    bool stop = cpu->tick.running && keep_reason(cpu, now, true) == TICK_MAY_STOP;
    if (stop)
        stop_locked(cpu);
    spin_unlock(&cpu->rq.lock);
    if (stop)
        tick_program_hardware();
}

void tick_idle_enter(void)
{
    struct cpu *cpu = this_cpu();
    if (!cpu->tick.running)
        return;
    try_stop(cpu, clock_now(), false);
    tick_program_hardware();
}

/* Restart this CPU's stopped tick for reason, whatever keep_reason() says. */
static void restart_for(struct cpu *cpu, enum tick_keep_reason reason)
{
    uint64_t now = clock_now();
    spin_lock(&cpu->rq.lock);
    bool stopped = !cpu->tick.running;
    if (stopped)
        restart_locked(cpu, now, reason);
    spin_unlock(&cpu->rq.lock);
    if (stopped)
        tick_program_hardware();
}

void tick_idle_exit(void)
{
    struct cpu *cpu = this_cpu();
    if (!cpu->tick.running)
        restart_for(cpu, TICK_KEEP_TASKS);
}

static void tick_interrupt(struct trap_frame *frame)
{
    struct cpu *cpu = this_cpu();
    struct tick_state *tick = &cpu->tick;
    uint64_t now = clock_now();

    timers_run_expired(now);
    if (tick->running && now >= tick->next_deadline) {
        tick_do_periodic_work(cpu, now, trap_from_user(frame));
        tick_advance_deadline(tick, now);
        if (!cpu_is_idle(&cpu->rq))
            try_stop(cpu, now, true);   /* idle CPUs stop in idle_loop */
    } else if (tick->running) {
        tick->early++;          /* for a timer, or the LAPIC's range ran out */
    }
    tick_program_hardware();
}

/* ---- The nohz kick ---- */

void tick_nohz_kick(unsigned cpu)
{
    struct tick_state *tick = &cpus[cpu]->tick;
    __atomic_add_fetch(&tick->kicks_sent, 1, __ATOMIC_RELAXED);
    if (cpu == this_cpu_id()) {
        uint64_t flags = irq_save();
        tick_recheck();
        irq_restore(flags);
    } else {
        ipi_send(cpu, IPI_NOHZ_KICK);
    }
}

/* The kick itself does little: tick_recheck() on the way out of this
 * interrupt (kernel/irq/irq.c) restarts the tick for whatever needs it. While
 * RCU's dependency is set, the kick is also RCU's prod: it reports the
 * quiescent state the interrupt proves (patch 07). */
static void nohz_kick_interrupt(struct trap_frame *frame)
{
    struct cpu *cpu = this_cpu();
    (void)frame;
    trace_ipi_receive(IPI_NOHZ_KICK);
    cpu->tick.kicks_received++;
    if (cpu->tick.running)
        cpu->tick.kicks_while_ticking++;
    if (__atomic_load_n(&cpu->tick.dep_mask, __ATOMIC_ACQUIRE) & TICK_DEP(TICK_KEEP_RCU))
        rcu_holdout_kicked();
}

void tick_init(void)
{
    tick_period_ns = NS_PER_SECOND / tick_hz;
    irq_register(VECTOR_LOCAL_TIMER, IRQ_SOURCE_LOCAL_TIMER, tick_interrupt);
    irq_register(VECTOR_NOHZ_KICK, IRQ_SOURCE_NOHZ_KICK, nohz_kick_interrupt);
}

void tick_start_this_cpu(void)
{
    struct cpu *cpu = this_cpu();
    struct tick_state *tick = &cpu->tick;

    spin_lock(&cpu->rq.lock);
    tick->next_deadline = clock_now() + tick_period_ns;
    tick->running = true;
    tick->reason = TICK_KEEP_POLICY;
    spin_unlock(&cpu->rq.lock);
    tick_program_hardware();
}
