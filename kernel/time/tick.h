/* The per-CPU tick, made of one-shot timer interrupts, and the policy that
 * stops it (docs/tick.md, docs/nohz-task.md). The files behind it:
 *   kernel/time/tick.c           the periodic tick and its interrupt;
 *   kernel/time/tick_stop.c      stopping and restarting it, the nohz kick;
 *   kernel/time/timekeeping.c    jiffies, the timekeeper, the clocksource watchdog;
 *   kernel/time/tick_policy.c    which policy is in force (tick=, /proc/sys/kernel/tick_policy);
 *   kernel/time/tick_policies.c  the policies (and tick_policy_patient.c, an example);
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
    TICK_KEEP_POLICY,           /* the policy: periodic, or not a nohz task (tick=task) */
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

/* A tick policy (docs/tick-policy.md): one question, asked with the CPU's
 * runqueue lock held and interrupts off, before the common reasons
 * (tasks, RCU, timekeeping, timers) are checked. Chosen with tick= and
 * switched at run time through /proc/sys/kernel/tick_policy. */
struct tick_policy {
    const char *name;
    const char *summary;            /* one line, for /proc/sys/kernel/tick_policies */
    bool stop_when_idle;            /* an idle CPU may stop its tick */
    /* May this CPU, running a task, stop its tick? now: clock_now(). */
    bool (*busy_may_stop)(struct cpu *cpu, uint64_t now);
    /* busy_may_stop answers from nohz_full=: without that list no busy
     * tick stops, and under a policy without this flag the list stops
     * none (nohz_full_init() says so at boot). */
    bool uses_nohz_full;
};

/* Every policy, NULL-terminated (kernel/time/tick_policies.c). */
extern const struct tick_policy *const tick_policies[];
extern const struct tick_policy tick_policy_periodic, tick_policy_idle, tick_policy_task, tick_policy_full;
extern const struct tick_policy tick_policy_patient;    /* the example: kernel/time/tick_policy_patient.c */

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
};

/* ---- The periodic tick (kernel/time/tick.c) ---- */
extern unsigned tick_hz;              /* hz= */
extern uint64_t tick_period_ns;
void tick_init(void);                 /* once, on the boot CPU */
void tick_start_this_cpu(void);       /* each CPU, when it comes online */
void tick_program_hardware(void);     /* next interrupt: tick or timer, whichever is first */

/* ---- The policy in force (kernel/time/tick_policy.c) ---- */
extern const struct tick_policy *tick_policy;
int tick_policy_select(const char *name);   /* tick=, at boot: 0 or -EINVAL */
/* At run time: every CPU whose tick is stopped is kicked to look again
 * under the new policy. 0 or -EINVAL for an unknown name. */
int tick_policy_switch(const char *name);

/* ---- Stopping and restarting (kernel/time/tick_stop.c) ----
 * The stop/restart points, all on the CPU concerned, interrupts off. */
void tick_idle_enter(void);           /* idle_loop, before halting: may stop */
void tick_idle_exit(void);            /* idle_loop, a task to run: restart */
void tick_recheck(void);              /* a stopped tick: restart it if something needs it now */
void tick_update(void);               /* the same, and stop a running tick at once if nothing needs it */
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
