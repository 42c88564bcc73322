/* The per-CPU tick, made of one-shot timer interrupts, and the policy that
 * stops it (docs/tick.md, docs/nohz-task.md). The files behind it:
 *   kernel/time/tick.c           the periodic tick and its interrupt;
 *   kernel/time/tick_stop.c      stopping and restarting it, the nohz kick;
 *   kernel/time/timekeeping.c    jiffies, the timekeeper, the clocksource watchdog;
 *   kernel/time/tick_policy.c    the registered policies, which is in force (tick=,
 *                                /proc/sys/kernel/tick_policy), the view they see;
 *   kernel/time/tick_policy_*.c  the policies, one file each;
 *   kernel/time/tick_dep.c       the tick dependencies. */
#ifndef KERNEL_TICK_H
#define KERNEL_TICK_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/base/percpu.h"
#include "kernel/time/tick_policy.h"

extern const char *const tick_keep_reason_names[TICK_KEEP_REASON_COUNT];   /* kernel/time/tick_stop.c */

struct cpu;

/* ---- Tick policies (docs/tick-policy.md) ----
 * A policy sees kernel/time/tick_policy.h only. Whatever else keeps a tick
 * (a second task, RCU, timekeeping, timers) is asked by tick_stop.c for
 * every policy alike, so a policy cannot stop a tick that something needs. */

/* Every registered policy in a stable order: by rank, then by name. */
const struct tick_policy *tick_policy_first(void);
const struct tick_policy *tick_policy_next(const struct tick_policy *policy);
#define for_each_tick_policy(policy) \
    for ((policy) = tick_policy_first(); (policy); (policy) = tick_policy_next(policy))
const struct tick_policy *tick_policy_find(const char *name);   /* or NULL */

/* One CPU's tick: a per-CPU variable (DEFINE_PER_CPU) of kernel/time/tick.c,
 * reached with this_tick() on the CPU itself, tick_state_of() elsewhere. */
struct tick_state {
    /* `running`: a tick deadline is programmed. Written by the CPU itself
     * with its runqueue lock held, so that a CPU enqueueing a task there
     * sees either a running tick or the need to kick (sched/sched.c). */
    bool running;
    uint64_t next_deadline;     /* clock_now() time of the next tick, ns */
    uint64_t ticks;             /* tick handler runs that did tick work */
    uint64_t missed;            /* periods skipped because we ran late */
    uint64_t early;             /* interrupts before the tick's deadline (timers, range) */
    enum tick_keep_reason reason;   /* why it ticks now (TICK_MAY_STOP while stopped) */
    uint64_t refusals[TICK_KEEP_REASON_COUNT];  /* checks that found it needed, by reason */
    uint64_t stops, restarts;
    uint64_t kicks_sent;        /* nohz kicks sent to this CPU (atomic: by other CPUs) */
    uint64_t kicks_received;
    uint64_t kicks_while_ticking;   /* received with the tick already back: wasted (goal 0) */
    uint32_t dep_mask;          /* this CPU's dependency bits (kernel/time/tick_dep.c), atomic */
    uint64_t dep_kicks;         /* kicks sent because a dependency mask became non-empty */
    uint64_t watchdog_checks;   /* clocksource watchdog checks of this CPU's TSC (timekeeping.c) */
    /* The decision (kernel/time/tick_stop.c tick_decide): how many times
     * it ran here, for /proc/tick. */
    uint64_t decisions;
    /* This interrupt did the tick's work (at `ticked_at`): its exit
     * decides. Set by tick.c, cleared at the interrupt's exit. */
    bool ticked;
    uint64_t ticked_at;
    /* context_user_exits() of the entry from user mode whose interrupt
     * decided at its exit: the way back from that same entry need not
     * decide again. A task switch, and the start, set it to none. */
    uint64_t decided_in_entry;
    /* A stopped busy tick is looked at again at the next decision point
     * (tick_want_recheck, any CPU; cleared by the decision). */
    bool recheck_wanted;
    /* tick_policy_isolates()'s last answer here, good while the global
     * isolation generation is this one (0: none; kernel/time/tick_policy.c). */
    bool isolated;
    uint64_t isolation_generation;
    /* Returns to user mode with the tick stopped: with nothing asked, so
     * no question and no clock read, or with a recheck (tick_stop.c). */
    uint64_t rechecks_skipped, rechecks_made;
    /* The policy's state here and the policy it belongs to
     * (kernel/time/tick_policy.c). */
    uint64_t policy_state[TICK_POLICY_STATE_WORDS];
    const struct tick_policy *policy_state_owner;
};

DECLARE_PER_CPU(struct tick_state, tick_state);
static inline struct tick_state *tick_state_of(unsigned cpu)
{
    return per_cpu_ptr(tick_state, cpu);
}
static inline struct tick_state *this_tick(void)
{
    return this_cpu_ptr(tick_state);
}

/* ---- The periodic tick (kernel/time/tick.c) ---- */
extern unsigned tick_hz;              /* hz= */
extern uint64_t tick_period_ns;
void tick_init(void);                 /* once, on the boot CPU */
void tick_start_this_cpu(void);       /* each CPU, when it comes online */
void tick_program_hardware(void);     /* next interrupt: tick or timer, whichever is first */
void tick_poll_timers(void);          /* a polling idle CPU's due timers, without an interrupt */

/* ---- The policy in force (kernel/time/tick_policy.c) ---- */
extern const struct tick_policy *tick_policy;
#define TICK_POLICY_DEFAULT "task"
int tick_policy_select(const char *name);   /* tick=, at boot: 0 or -EINVAL */
/* At run time: every CPU whose tick is stopped is kicked to look again
 * under the new policy. 0 or -EINVAL for an unknown name. */
int tick_policy_switch(const char *name);
/* Any CPU's isolation may have changed (a nohz attribute set or cleared):
 * tick_policy_isolates() asks the policy again everywhere. */
void tick_policy_isolation_changed(void);
/* The names, space-separated in list order, into buffer (for messages). */
void tick_policy_names(char *buffer, unsigned size);

/* The questions and events, for cpu == this CPU, interrupts off (the
 * runqueue lock held except for isolates). */
bool tick_policy_busy_may_stop(const struct tick_policy *policy, struct cpu *cpu, uint64_t now, uint32_t needs);
bool tick_policy_isolates(struct cpu *cpu);
enum tick_policy_event {
    TICK_EVENT_STOPPED, TICK_EVENT_RESTARTED, TICK_EVENT_TASK_SWITCHED_IN,
};
void tick_policy_tell(struct cpu *cpu, uint64_t now, enum tick_policy_event event);
/* Nothing to do, not even a call, when the policy has no such callback. */
static inline bool tick_policy_listens(enum tick_policy_event event)
{
    const struct tick_policy *policy = __atomic_load_n(&tick_policy, __ATOMIC_ACQUIRE);
    switch (event) {
    case TICK_EVENT_STOPPED: return policy->tick_stopped;
    case TICK_EVENT_RESTARTED: return policy->tick_restarted;
    case TICK_EVENT_TASK_SWITCHED_IN: return policy->task_switched_in;
    }
    return false;
}
#define tick_policy_notify(cpu, now, event)                 \
    do {                                                    \
        if (tick_policy_listens(event))                     \
            tick_policy_tell((cpu), (now), (event));        \
    } while (0)

/* ---- Stopping and restarting (kernel/time/tick_stop.c) ----
 * One function decides whether this CPU's tick runs (tick_decide); it
 * runs at the points where the answer can change, each on the CPU
 * concerned with interrupts off, and at most once per event:
 *   - the exit of an interrupt that did the tick's work on a busy CPU, or
 *     found the tick stopped (kernel/irq/irq.c); from_user: the
 *     interrupt came from user mode, so the way back needs no decision;
 *   - the way to user mode, on a CPU the policy isolates, unless the
 *     interrupt that brought it in decided (context_tracking.c);
 *   - a task switch (sched/sched.c);
 *   - idle entry (sched/sched.c idle_loop).
 * Leaving idle restarts the tick for the task, whatever it would say. */
void tick_nohz_irq_exit(bool from_user);
#define TICK_DECIDED_IN_NO_ENTRY UINT64_MAX     /* tick_state.decided_in_entry */
void tick_nohz_user_enter(bool isolated);
void tick_nohz_task_switch(void);
void tick_nohz_idle_enter(void);
void tick_nohz_idle_exit(void);
/* A change on cpu that may need its stopped tick back, without an
 * interrupt to bring it: the next decision point looks again. */
void tick_want_recheck(unsigned cpu);

/* Make cpu look at its stopped tick now: the nohz kick IPI, whose exit
 * decides (docs/nohz-task.md#patch-05-restart-the-tick-when-another-task-competes),
 * or the decision at once on this CPU. */
void tick_nohz_kick(unsigned cpu);
struct trap_frame;
void nohz_kick_interrupt(struct trap_frame *frame);     /* IPI_NOHZ_KICK's handler */

/* ---- Timekeeping (kernel/time/timekeeping.c) ---- */
extern volatile uint64_t jiffies;     /* advanced by the timekeeper CPU */
#define TIMEKEEPER_NONE (~0u)
extern volatile unsigned timekeeper_cpu;  /* TIMEKEEPER_NONE when every CPU's tick is stopped */
/* Each tick of cpu: take the timekeeping duty if it is free, keep time if
 * it is ours, and check this CPU's TSC once per watchdog round. */
void timekeeping_tick(struct cpu *cpu, uint64_t now);
/* Hand timekeeping to a CPU other than cpu (a nohz CPU never keeps time). */
void tick_timekeeper_move_off(unsigned cpu);
/* The timekeeper's question: TICK_KEEP_TIMEKEEPING or TICK_KEEP_CLOCK if
 * cpu's tick must run for timekeeping, else TICK_MAY_STOP. */
enum tick_keep_reason timekeeping_needs_tick(unsigned cpu);

/* ---- Tick dependencies (kernel/time/tick_dep.c, docs/tick-dependencies.md) ----
 * A CPU must tick while any bit is set in the global mask, in its own
 * mask, or in the mask of the task running on it. Setting a bit kicks the
 * CPU concerned only when that mask goes from empty to non-empty and its
 * tick is stopped: a non-empty mask means the tick is already running.
 * Clearing never kicks: the tick stops at its next check. */
struct task;
void tick_dep_set_global(enum tick_keep_reason reason);
void tick_dep_clear_global(enum tick_keep_reason reason);
bool tick_dep_set_cpu(unsigned cpu, enum tick_keep_reason reason);   /* true if it kicked */
void tick_dep_clear_cpu(unsigned cpu, enum tick_keep_reason reason);
void tick_dep_set_task(struct task *task, enum tick_keep_reason reason);
void tick_dep_clear_task(struct task *task, enum tick_keep_reason reason);
/* With cpu's runqueue lock held (the scheduler): true if the caller must
 * kick cpu once the lock is dropped. */
bool tick_dep_set_cpu_locked(unsigned cpu, enum tick_keep_reason reason);
/* The bits that hold cpu's tick now: global | cpu's | its running task's.
 * _of: cpu's runqueue lock held; _read takes it. */
uint32_t tick_dep_mask_of(unsigned cpu);
uint32_t tick_dep_mask_read(unsigned cpu);
extern uint32_t tick_dep_global_mask;

#endif
