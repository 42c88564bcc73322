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

/* Why a CPU keeps its tick. Every time the tick may not stop, the reason
 * is counted by name (/proc/tick), as Linux's tick-sched names its tick
 * dependencies. Some reasons are dependency bits, set and cleared by the
 * event that causes them (kernel/time/tick_dep.c: tasks, rcu, cputimer); the
 * others are questions asked each time the tick tries to stop (policy,
 * timer, timekeeping, clock, and queued RCU callbacks). */
enum tick_keep_reason {
    TICK_MAY_STOP,              /* nothing needs it */
    TICK_KEEP_POLICY,           /* the policy's busy_may_stop or stop_when_idle said no */
    TICK_KEEP_TASKS,            /* more than one runnable task: time slices */
    /* RCU needs this CPU: docs/nohz-task.md#patch-06-keep-the-tick-if-rcu-needs-it */
    TICK_KEEP_RCU,
    TICK_KEEP_TIMER,            /* a timer is due within a period anyway */
    TICK_KEEP_TIMEKEEPING,      /* the timekeeper, while isolated CPUs exist */
    TICK_KEEP_CLOCK,            /* the timekeeper, when the clocksource must be read often (PIT) */
    TICK_KEEP_CPU_TIMER,        /* the running task has a CPU-time timer (setitimer VIRTUAL/PROF) */
    TICK_KEEP_REASON_COUNT
};

extern const char *const tick_keep_reason_names[TICK_KEEP_REASON_COUNT];   /* kernel/time/tick_stop.c */

struct cpu;

/* ---- Tick policies (docs/tick-policy.md) ----
 * A policy is one file, kernel/time/tick_policy_NAME.c, that ends with
 * TICK_POLICY(NAME, ...): tick=, /proc/sys/kernel/tick_policy and
 * /proc/sys/kernel/tick_policies find it with no other edit. It answers
 * from a narrow view of one CPU, always that CPU itself with interrupts
 * off; everything else that keeps a tick (a second task, RCU,
 * timekeeping, timers) is checked by kernel/time/tick_stop.c for every
 * policy alike, so a policy cannot stop a tick that something needs. */
#define TICK_POLICY_STATE_WORDS 4

struct tick_policy_view {
    unsigned cpu;
    bool cpu_is_nohz_full;      /* listed in nohz_full= */
    uint64_t now;               /* clock_now(), ns; 0 when asked isolates() */
    struct {                    /* the task running on this CPU */
        unsigned id;            /* the scheduler's task id */
        bool is_idle;           /* the idle task: nothing to run */
        bool is_nohz;           /* a nohz task (/proc/self/nohz) */
        uint64_t ran_ns;        /* since it was switched in; 0 when now is 0 */
    } task;
    /* The policy's own words on this CPU: zero when the policy becomes
     * current here, then only the policy writes them. */
    uint64_t *state;
};

struct tick_policy {
    const char *name;               /* at most 15 characters */
    const char *summary;            /* one line, for /proc/sys/kernel/tick_policies */
    unsigned rank;                  /* place in the list; 0: after the ranked ones, by name */
    bool stop_when_idle;            /* an idle CPU may stop its tick */
    /* May this CPU, running a task, stop its tick? NULL: never. Once
     * yes for a task, it must stay yes as time passes: a stopped tick is
     * asked again only when something changes (tick_want_recheck). */
    bool (*busy_may_stop)(const struct tick_policy_view *view);
    /* Does this CPU run user code without a tick? Then RCU treats its
     * user mode as an extended quiescent state, and the tick is looked
     * at again on every return to user mode (kernel/time/context_tracking.c).
     * Asked on every system call's way out: answer without time. NULL:
     * nothing is isolated. */
    bool (*isolates)(const struct tick_policy_view *view);
    /* Events, each optional: the policy became current on this CPU (its
     * state was just zeroed), the tick stopped, the tick restarted, a task
     * was switched in. */
    void (*switched_to)(const struct tick_policy_view *view);
    void (*tick_stopped)(const struct tick_policy_view *view);
    void (*tick_restarted)(const struct tick_policy_view *view);
    void (*task_switched_in)(const struct tick_policy_view *view);
    /* busy_may_stop answers from nohz_full=: without that list no busy
     * tick stops, and under a policy without this flag the list stops
     * none (nohz_full_init() says so at boot). */
    bool uses_nohz_full;
};

/* Register a policy, collected at link time (section .tick_policies):
 *   TICK_POLICY(patient, .summary = "...", .stop_when_idle = true, ...); */
#define TICK_POLICY(policy_name, ...)                                                  \
    static const struct tick_policy policy_name##_tick_policy = {                      \
        .name = #policy_name, __VA_ARGS__                                              \
    };                                                                                 \
    static const struct tick_policy *const policy_name##_tick_policy_entry             \
        __attribute__((used, section(".tick_policies"))) = &policy_name##_tick_policy

/* Every registered policy in a stable order: by rank, then by name. */
const struct tick_policy *tick_policy_first(void);
const struct tick_policy *tick_policy_next(const struct tick_policy *policy);
#define for_each_tick_policy(policy) \
    for ((policy) = tick_policy_first(); (policy); (policy) = tick_policy_next(policy))
const struct tick_policy *tick_policy_find(const char *name);   /* or NULL */

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
    /* A stopped busy tick is looked at again on the next return to user
     * mode (tick_want_recheck, any CPU; cleared by tick_recheck). */
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

/* ---- The periodic tick (kernel/time/tick.c) ---- */
extern unsigned tick_hz;              /* hz= */
extern uint64_t tick_period_ns;
void tick_init(void);                 /* once, on the boot CPU */
void tick_start_this_cpu(void);       /* each CPU, when it comes online */
void tick_program_hardware(void);     /* next interrupt: tick or timer, whichever is first */

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
bool tick_policy_busy_may_stop(const struct tick_policy *policy, struct cpu *cpu, uint64_t now);
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
 * The stop/restart points, all on the CPU concerned, interrupts off. */
void tick_idle_enter(void);           /* idle_loop, before halting: may stop */
void tick_idle_exit(void);            /* idle_loop, a task to run: restart */
void tick_recheck(void);              /* a stopped tick: restart it if something needs it now */
void tick_update(void);               /* the same, and stop a running tick at once if nothing needs it */
void tick_update_isolated(bool isolated);  /* tick_update() for a caller that asked tick_policy_isolates() */
/* A change on cpu that may need its stopped tick back, without an
 * interrupt to bring it: the next return to user mode rechecks. */
void tick_want_recheck(unsigned cpu);
/* From the tick interrupt, after the tick's work: a busy CPU stops its
 * tick if nothing needs it (an idle one stops in tick_idle_enter). */
void tick_try_stop_after_tick(struct cpu *cpu, uint64_t now);

/* Make cpu look at its tick again: the nohz kick IPI
 * (docs/nohz-task.md#patch-05-restart-the-tick-when-another-task-competes),
 * or a direct recheck on this CPU. */
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

/* ---- Tick dependencies (kernel/time/tick_dep.c, docs/tick-dependencies.md) ----
 * A CPU must tick while any bit is set in the global mask, in its own
 * mask, or in the mask of the task running on it. Setting a bit kicks the
 * CPU concerned only when that mask goes from empty to non-empty and its
 * tick is stopped: a non-empty mask means the tick is already running.
 * Clearing never kicks: the tick stops at its next check. */
#define TICK_DEP(reason) (1u << (reason))

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
