/* Stopping and restarting the tick: one decision, tick_decide(), and the
 * points where it runs (docs/tick.md, docs/nohz-task.md,
 * docs/tick-dependencies.md), as Linux's tick-sched.c decides at
 * interrupt exit from its dependency bits.
 *
 * The decision asks the policy, then the reasons each subsystem owns:
 * the dependency bits they set (the scheduler's tasks, RCU's prod, the
 * CPU-time timers: kernel/time/tick_dep.c) and one question each for
 * what only this CPU's state says (RCU's callbacks, the timers, the
 * timekeeper). A running tick stops when nothing needs it; a stopped
 * one restarts when something does.
 *
 * Where it runs, once per event (kernel/time/tick.h lists them): the exit
 * of an interrupt that did the tick's work or found the tick stopped;
 * the way to user mode of an isolated CPU, unless the interrupt it
 * returns from decided; a task switch; idle entry; and at once for the
 * nohz kick on this CPU. Leaving idle restarts the tick for the task.
 *
 * The decision and `running` are changed under this CPU's runqueue lock,
 * and a CPU that queues a task here reads `running` under the same lock:
 * either it sees the tick stopped and kicks, or we see the second task
 * and keep the tick. No kick is lost, and none is sent to a CPU that
 * still ticks (sched/sched.c enqueue_locked). */
#include "kernel/time/tick.h"

#include "arch/x86/clock.h"
#include "arch/x86/cpu.h"
#include "kernel/irq/ipi.h"
#include "kernel/base/percpu.h"
#include "sched/runqueue.h"
#include "kernel/base/spinlock.h"
#include "kernel/time/context_tracking.h"
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
 * meanwhile, and no race test sees a window that small). The reasons are
 * the subsystems': the dependency bits they set (an idle CPU ignores
 * them, as on Linux), the lowest shown first; then their questions, in
 * this order (rcu_pending() counts only for a busy CPU whose tick runs,
 * rcu_needs_tick). The policy sees them all in its view, and is obeyed
 * first. */
static enum tick_keep_reason keep_reason(struct cpu *cpu, uint64_t now)
{
    struct runqueue *rq = cpu_rq(cpu->id);
    spin_assert_held(&rq->lock);
    bool idle = cpu_is_idle(cpu);
    uint32_t deps = idle ? 0 : tick_dep_mask_of(cpu->id);
    const enum tick_keep_reason asked[] = {
        rcu_needs_tick(cpu->id, !idle && this_tick()->running) ? TICK_KEEP_RCU : TICK_MAY_STOP,
        timekeeping_needs_tick(cpu->id),        /* timekeeping, or the PIT's clock */
        timers_need_tick(now) ? TICK_KEEP_TIMER : TICK_MAY_STOP,
    };
    uint32_t needs = deps;
    enum tick_keep_reason first = deps ? (enum tick_keep_reason)__builtin_ctz(deps) : TICK_MAY_STOP;
    for (unsigned i = 0; i < sizeof(asked) / sizeof(asked[0]); i++) {
        if (asked[i] != TICK_MAY_STOP && first == TICK_MAY_STOP)
            first = asked[i];
        needs |= asked[i] != TICK_MAY_STOP ? TICK_DEP(asked[i]) : 0;
    }
    const struct tick_policy *policy = __atomic_load_n(&tick_policy, __ATOMIC_ACQUIRE);
    if (idle ? !policy->stop_when_idle : !tick_policy_busy_may_stop(policy, cpu, now, needs))
        return TICK_KEEP_POLICY;
    return first;
}

static void stop_locked(struct cpu *cpu, uint64_t now)
{
    struct tick_state *tick = this_tick();
    spin_assert_held(&cpu_rq(cpu->id)->lock);
    trace_tick_stop(cpu_is_idle(cpu) ? "idle" : "alone");
    tick->running = false;
    tick->reason = TICK_MAY_STOP;
    tick->stops++;
    if (cpu->id == timekeeper_cpu && !isolated_cpus_exist())
        __atomic_store_n(&timekeeper_cpu, TIMEKEEPER_NONE, __ATOMIC_SEQ_CST);   /* whoever ticks next */
    tick_policy_notify(cpu, now, TICK_EVENT_STOPPED);
}

static void restart_locked(struct cpu *cpu, uint64_t now, enum tick_keep_reason reason)
{
    struct tick_state *tick = this_tick();
    spin_assert_held(&cpu_rq(cpu->id)->lock);
    trace_tick_restart(tick_keep_reason_names[reason]);
    tick->running = true;
    tick->reason = reason;
    tick->restarts++;
    tick->next_deadline = now + tick_period_ns;
    tick_policy_notify(cpu, now, TICK_EVENT_RESTARTED);
}

/* The decision: a running tick stops if nothing needs it (else the
 * reason is counted, the "kept by" table of /proc/tick); a stopped one
 * restarts if something does. Interrupts off, on cpu itself. Not while
 * the idle task runs with a task woken here: the switch to it follows at
 * once and decides for it; a restart for the idle task would be stopped
 * again there, and the two could straddle a period under TCG and cost a
 * timer interrupt (seen with idle=poll, whose idle exit restarts
 * nothing). */
static void tick_decide(struct cpu *cpu, uint64_t now)
{
    struct tick_state *tick = this_tick();
    spin_lock(&cpu_rq(cpu->id)->lock);
    tick->decisions++;
    __atomic_store_n(&tick->recheck_wanted, false, __ATOMIC_RELAXED);
    bool was_running = tick->running;
    enum tick_keep_reason reason = keep_reason(cpu, now);
    bool switch_decides = cpu->current->is_idle && !cpu_is_idle(cpu);
    if (was_running && reason != TICK_MAY_STOP) {
        if (reason != tick->reason)
            trace_tick_keep(tick_keep_reason_names[reason]);    /* changes only: not one per tick */
        tick->reason = reason;
        tick->refusals[reason]++;
    } else if (was_running) {
        stop_locked(cpu, now);
    } else if (reason != TICK_MAY_STOP && !switch_decides) {
        restart_locked(cpu, now, reason);
    }
    bool changed = was_running != tick->running;
    spin_unlock(&cpu_rq(cpu->id)->lock);
    if (!changed)
        return;
    /* Restarted for a newcomer: the task ran alone, with no tick to count
     * its slice, so the newcomer gets the CPU on this interrupt's way out,
     * as a waking task preempts a CPU hog on Linux, instead of waiting up
     * to a whole slice. */
    if (reason == TICK_KEEP_TASKS && !cpu->current->is_idle)
        cpu->need_resched = true;
    tick_program_hardware();
}

/* ---- Where it runs ---- */

/* An interrupt's exit: after the tick's own work on a busy CPU (an idle
 * one decides in idle_loop), or with the tick stopped, since the
 * interrupt may have made it needed (a kick, a timer, a dependency bit).
 * A running tick that did no work here has nothing new to say. */
void tick_nohz_irq_exit(bool from_user)
{
    struct cpu *cpu = this_cpu();
    struct tick_state *tick = this_tick();
    bool ticked = tick->ticked;
    tick->ticked = false;
    if (tick->running && (!ticked || cpu_is_idle(cpu)))
        return;
    tick_decide(cpu, ticked ? tick->ticked_at : clock_now());
    if (from_user)
        tick->decided_in_entry = context_user_exits(cpu->id);
}

/* The way to user mode: stop a running tick at once, rather than at its
 * next period, when nothing needs it, so that a task that will run alone
 * does not take one more tick first (Linux: tick_nohz_user_enter_prepare()).
 * Only CPUs the policy isolates (tick_policy_isolates) look: the decision
 * costs a clocksource read on every system call's way out. (A policy that
 * stops busy ticks on CPUs it does not isolate does so at their next
 * tick.) Nothing is decided when the interrupt this returns from just
 * did, and a stopped tick is looked at only when a recheck was asked
 * for: time alone changes nothing, since a policy's "may stop" only grows
 * as time passes (docs/tick-policy.md) and a timer brings its own
 * interrupt. So a return to user mode with the tick stopped reads no
 * clock and asks nothing, as Linux's nohz_full does nothing for the tick
 * on the way out. Whatever may need a stopped tick back either
 * interrupts the CPU (its exit decides) or asks for a recheck:
 * tick_want_recheck() for a timer started here and the nohz attribute
 * cleared; a dependency bit and call_rcu() kick this CPU at once. */
void tick_nohz_user_enter(bool isolated)
{
    struct cpu *cpu = this_cpu();
    struct tick_state *tick = this_tick();
    if (!tick->running) {
        if (!__atomic_load_n(&tick->recheck_wanted, __ATOMIC_ACQUIRE)) {
            tick->rechecks_skipped++;
            return;
        }
        tick->rechecks_made++;
        tick_decide(cpu, clock_now());
        return;
    }
    if (!isolated || cpu_is_idle(cpu))
        return;
    if (tick->decided_in_entry == context_user_exits(cpu->id))
        return;     /* the interrupt that brought us in decided, and nothing ran since */
    tick_decide(cpu, clock_now());
}

void tick_want_recheck(unsigned cpu)
{
    __atomic_store_n(&tick_state_of(cpu)->recheck_wanted, true, __ATOMIC_RELEASE);
}

/* After a context switch: the task now running is asked about afresh. A
 * stopped tick is always looked at; a running one on an isolated CPU
 * only, as on the way to user mode (Linux: tick_nohz_task_switch()). */
void tick_nohz_task_switch(void)
{
    struct cpu *cpu = this_cpu();
    struct tick_state *tick = this_tick();
    tick->isolation_generation = 0;     /* another task: ask the policy again */
    tick->decided_in_entry = TICK_DECIDED_IN_NO_ENTRY;  /* it returns from an entry of its own */
    if (tick->running && (cpu_is_idle(cpu) || !tick_policy_isolates(cpu)))
        return;
    tick_decide(cpu, clock_now());
}

void tick_nohz_idle_enter(void)
{
    struct cpu *cpu = this_cpu();
    if (this_tick()->running)
        tick_decide(cpu, clock_now());
}

/* Restart this CPU's stopped tick for reason, whatever tick_decide() would say. */
static void restart_for(struct cpu *cpu, enum tick_keep_reason reason)
{
    uint64_t now = clock_now();
    spin_lock(&cpu_rq(cpu->id)->lock);
    bool stopped = !this_tick()->running;
    if (stopped)
        restart_locked(cpu, now, reason);
    spin_unlock(&cpu_rq(cpu->id)->lock);
    if (stopped)
        tick_program_hardware();
}

void tick_nohz_idle_exit(void)
{
    struct cpu *cpu = this_cpu();
    if (!this_tick()->running)
        restart_for(cpu, TICK_KEEP_TASKS);
}

/* ---- The nohz kick ---- */

void tick_nohz_kick(unsigned cpu)
{
    struct tick_state *tick = tick_state_of(cpu);
    __atomic_add_fetch(&tick->kicks_sent, 1, __ATOMIC_RELAXED);
    if (cpu == this_cpu_id()) {
        uint64_t flags = irq_save();
        if (!tick->running)
            tick_decide(this_cpu(), clock_now());
        irq_restore(flags);
    } else {
        ipi_send(cpu, IPI_NOHZ_KICK);
    }
}

/* The kick itself does little: the decision on the way out of this
 * interrupt (tick_nohz_irq_exit) restarts the tick for whatever needs it. While
 * RCU's dependency is set, the kick is also RCU's prod: it reports the
 * quiescent state the interrupt proves
 * (docs/nohz-task.md#patch-07-rcus-prod-of-a-nohz-cpu-restarts-its-tick). */
void nohz_kick_interrupt(struct trap_frame *frame)
{
    struct tick_state *tick = this_tick();
    (void)frame;
    trace_ipi_receive(IPI_NOHZ_KICK);
    tick->kicks_received++;
    if (tick->running)
        tick->kicks_while_ticking++;
    if (__atomic_load_n(&tick->dep_mask, __ATOMIC_ACQUIRE) & TICK_DEP(TICK_KEEP_RCU))
        rcu_holdout_kicked();
}
