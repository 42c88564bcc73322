/* Stopping and restarting the tick: whether anything needs this CPU's
 * tick (keep_reason), and the points where that is asked
 * (docs/nohz-task.md, docs/tick-dependencies.md).
 *
 * Where the tick stops:
 *   - after the tick's own work, when a nohz task runs alone (try_stop);
 *   - at once, without waiting for a period, after a context switch and
 *     on the way to user mode (tick_update);
 *   - on entering idle (tick_idle_enter).
 * Where it starts again:
 *   - leaving idle (tick_idle_exit);
 *   - tick_recheck(), on the way out of every interrupt, and back to user
 *     mode when a recheck was asked for (tick_want_recheck): a second task
 *     was queued here (the nohz kick brought us in), callbacks were
 *     queued, or the task is no longer a nohz task.
 *
 * The stop decision and `running` are changed under this CPU's runqueue
 * lock, and a CPU that queues a task here reads `running` under the same
 * lock: either it sees the tick stopped and kicks, or we see the second
 * task and keep the tick. No kick is lost, and none is sent to a CPU that
 * still ticks (sched/sched.c enqueue_locked). */
#include "kernel/time/tick.h"

#include "arch/x86/clock.h"
#include "arch/x86/cpu.h"
#include "kernel/irq/ipi.h"
#include "kernel/base/percpu.h"
#include "sched/runqueue.h"
#include "kernel/base/spinlock.h"
#include "kernel/time/nohz_task.h"
#include "kernel/time/timers.h"
#include "kernel/trace/trace.h"
#include "rcu/rcu.h"
#include "sched/task.h"

const char *const tick_keep_reason_names[TICK_KEEP_REASON_COUNT] = {
    [TICK_MAY_STOP] = "-",         [TICK_KEEP_POLICY] = "policy", [TICK_KEEP_TASKS] = "tasks",
    [TICK_KEEP_RCU] = "rcu",       [TICK_KEEP_TIMER] = "timer",   [TICK_KEEP_TIMEKEEPING] = "timekeeping",
    [TICK_KEEP_CLOCK] = "clock",   [TICK_KEEP_CPU_TIMER] = "cputimer",
};

static bool cpu_is_idle(const struct cpu *cpu)
{
    return cpu->current->is_idle && cpu_rq(cpu->id)->nr_running == 0;
}

/* Why this CPU must keep ticking, or TICK_MAY_STOP. The runqueue lock is
 * held (asserted: an answer taken before the lock can miss a task queued
 * meanwhile, and no race test sees a window that small). First the policy's question; then the dependency bits that events
 * set (kernel/time/tick_dep.c); then the questions only this CPU can answer,
 * about its own state. at_tick: called right after the tick's own work,
 * when RCU's rcu_pending() is meaningful
 * (docs/nohz-task.md#patch-06-keep-the-tick-if-rcu-needs-it); elsewhere
 * only queued callbacks (rcu_needs_cpu) count, since a nohz task in user
 * mode is in an extended quiescent state and RCU does not need its tick
 * for that. */
static enum tick_keep_reason keep_reason(struct cpu *cpu, uint64_t now, bool at_tick)
{
    struct runqueue *rq = cpu_rq(cpu->id);
    spin_assert_held(&rq->lock);
    bool idle = cpu_is_idle(cpu);

    const struct tick_policy *policy = __atomic_load_n(&tick_policy, __ATOMIC_ACQUIRE);
    if (idle ? !policy->stop_when_idle : !tick_policy_busy_may_stop(policy, cpu, now))
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


static void stop_locked(struct cpu *cpu, uint64_t now)
{
    struct tick_state *tick = &cpu->tick;
    spin_assert_held(&cpu_rq(cpu->id)->lock);
    trace_tick_stop(cpu_is_idle(cpu) ? "idle" : "alone");
    tick->running = false;
    tick->reason = TICK_MAY_STOP;
    tick->recheck_wanted = false;
    tick->stops++;
    if (cpu->id == timekeeper_cpu && !isolated_cpus_exist())
        __atomic_store_n(&timekeeper_cpu, TIMEKEEPER_NONE, __ATOMIC_SEQ_CST);   /* whoever ticks next */
    tick_policy_notify(cpu, now, TICK_EVENT_STOPPED);
}

static void restart_locked(struct cpu *cpu, uint64_t now, enum tick_keep_reason reason)
{
    struct tick_state *tick = &cpu->tick;
    spin_assert_held(&cpu_rq(cpu->id)->lock);
    trace_tick_restart(tick_keep_reason_names[reason]);
    tick->running = true;
    tick->reason = reason;
    tick->restarts++;
    tick->next_deadline = now + tick_period_ns;
    tick_policy_notify(cpu, now, TICK_EVENT_RESTARTED);
}

/* Stop the tick if nothing needs it; else count why not. Interrupts off. */
static void try_stop(struct cpu *cpu, uint64_t now, bool at_tick)
{
    spin_lock(&cpu_rq(cpu->id)->lock);
    if (cpu->tick.running) {
        enum tick_keep_reason reason = keep_reason(cpu, now, at_tick);
        if (reason != TICK_MAY_STOP && reason != cpu->tick.reason)
            trace_tick_keep(tick_keep_reason_names[reason]);    /* changes only: not one per tick */
        cpu->tick.reason = reason;
        if (reason == TICK_MAY_STOP)
            stop_locked(cpu, now);
        else
            cpu->tick.refusals[reason]++;
    }
    spin_unlock(&cpu_rq(cpu->id)->lock);
}

void tick_try_stop_after_tick(struct cpu *cpu, uint64_t now)
{
    if (!cpu_is_idle(cpu))
        try_stop(cpu, now, true);   /* idle CPUs stop in idle_loop */
}

/* ---- Rechecks of a stopped busy tick ----
 * Whatever may need a stopped tick back either interrupts the CPU or
 * asks for a recheck. Another CPU's change (a task woken here, a
 * dependency bit, a timer made the earliest here, the timekeeping handed
 * over, a policy switch) comes with an interrupt, on whose way out
 * tick_recheck() runs; on this CPU, a dependency bit and call_rcu()
 * recheck at once, and a timer started here, the nohz attribute cleared
 * and a context switch ask for one on the next return to user mode
 * (tick_want_recheck()). Time alone changes nothing: a policy's "may
 * stop" only grows as time passes (docs/tick-policy.md), and a timer
 * brings its own interrupt. So a return to user mode with the tick
 * stopped reads no clock and asks nothing unless a recheck was asked for,
 * as Linux's nohz_full does nothing for the tick on the way out. */
void tick_want_recheck(unsigned cpu)
{
    __atomic_store_n(&cpus[cpu]->tick.recheck_wanted, true, __ATOMIC_RELEASE);
}

void tick_recheck(void)
{
    struct cpu *cpu = this_cpu();
    __atomic_store_n(&cpu->tick.recheck_wanted, false, __ATOMIC_RELAXED);
    if (cpu->tick.running)
        return;
    uint64_t now = clock_now();
    spin_lock(&cpu_rq(cpu->id)->lock);
    enum tick_keep_reason reason = cpu->tick.running ? TICK_MAY_STOP : keep_reason(cpu, now, false);
    if (reason != TICK_MAY_STOP)
        restart_locked(cpu, now, reason);
    spin_unlock(&cpu_rq(cpu->id)->lock);
    if (reason == TICK_MAY_STOP)
        return;
    /* The task ran alone, with no tick to count its slice: a newcomer gets
     * the CPU on this interrupt's way out, as a waking task preempts a CPU
     * hog on Linux, instead of waiting up to a whole slice. */
    if (reason == TICK_KEEP_TASKS && !cpu->current->is_idle)
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
 * of the tick itself and of idle entry. Only CPUs the policy isolates
 * (tick_policy_isolates) look: the check costs a clocksource read on
 * every system call's way out. (A policy that stops busy ticks on CPUs it
 * does not isolate does so at their next tick.) A stopped tick is
 * rechecked only when that was asked for (above). Interrupts off. */
void tick_update_isolated(bool isolated)
{
    struct cpu *cpu = this_cpu();
    if (!cpu->tick.running) {
        if (__atomic_load_n(&cpu->tick.recheck_wanted, __ATOMIC_ACQUIRE)) {
            cpu->tick.rechecks_made++;
            tick_recheck();
        } else {
            cpu->tick.rechecks_skipped++;
        }
        return;
    }
    if (!isolated || cpu_is_idle(cpu))
        return;
    uint64_t now = clock_now();
    spin_lock(&cpu_rq(cpu->id)->lock);
    bool stop = cpu->tick.running && keep_reason(cpu, now, true) == TICK_MAY_STOP;
    if (stop)
        stop_locked(cpu, now);
    spin_unlock(&cpu_rq(cpu->id)->lock);
    if (stop)
        tick_program_hardware();
}

/* After a context switch: the task now running is asked about afresh. */
void tick_update(void)
{
    struct cpu *cpu = this_cpu();
    cpu->tick.isolation_generation = 0;     /* another task: ask the policy again */
    tick_want_recheck(cpu->id);
    tick_update_isolated(cpu->tick.running && !cpu_is_idle(cpu) && tick_policy_isolates(cpu));
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
    spin_lock(&cpu_rq(cpu->id)->lock);
    bool stopped = !cpu->tick.running;
    if (stopped)
        restart_locked(cpu, now, reason);
    spin_unlock(&cpu_rq(cpu->id)->lock);
    if (stopped)
        tick_program_hardware();
}

void tick_idle_exit(void)
{
    struct cpu *cpu = this_cpu();
    if (!cpu->tick.running)
        restart_for(cpu, TICK_KEEP_TASKS);
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
 * quiescent state the interrupt proves
 * (docs/nohz-task.md#patch-07-rcus-prod-of-a-nohz-cpu-restarts-its-tick). */
void nohz_kick_interrupt(struct trap_frame *frame)
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
