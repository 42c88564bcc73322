/* What a tick policy's author includes, and nothing more
 * (docs/tick-policy.md): the reasons a tick is kept, the view a policy
 * answers from, its questions and events, and TICK_POLICY, which
 * registers it. A policy is one file, kernel/time/tick_policy_NAME.c,
 * that ends with TICK_POLICY(NAME, ...): tick=,
 * /proc/sys/kernel/tick_policy and /proc/sys/kernel/tick_policies find it
 * with no other edit. How the tick uses the answers is kernel/time/tick.h's
 * business. */
#ifndef KERNEL_TICK_POLICY_H
#define KERNEL_TICK_POLICY_H

#include <stdbool.h>
#include <stdint.h>

/* Why a CPU keeps its tick, counted by name in /proc/tick. Each reason
 * but the policy's belongs to the subsystem that sets it or answers for
 * it (docs/tick-dependencies.md): the scheduler (tasks), RCU (rcu), the
 * timers (timer), the timekeeper (timekeeping, clock), the CPU-time
 * timers (cputimer). A policy cannot stop a tick that one of them needs. */
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

#define TICK_DEP(reason) (1u << (reason))    /* a reason as a bit of a mask */

/* What a policy sees of one CPU: always that CPU itself, interrupts off. */
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
    /* The other reasons that hold the tick now, as TICK_DEP() bits: the
     * tick runs while any is set, whatever the policy answers. Filled for
     * busy_may_stop and tick_restarted; 0 for the other calls. */
    uint32_t needs;
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
     * asked again only when something changes. */
    bool (*busy_may_stop)(const struct tick_policy_view *view);
    /* Does this CPU run user code without a tick? Then RCU treats its
     * user mode as an extended quiescent state, and the tick is decided
     * on the way to user mode too. Asked on every system call's way out:
     * answer without time. NULL: nothing is isolated. */
    bool (*isolates)(const struct tick_policy_view *view);
    /* The events, each optional: the policy became current on this CPU
     * (its state was just zeroed), the tick stopped, the tick restarted,
     * a task was switched in. */
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

#endif
