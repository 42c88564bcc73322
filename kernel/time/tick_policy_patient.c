/* An example tick policy, the one docs/tick-policy.md writes step by step:
 * like `task`, but a nohz task must first have run for PATIENCE_MS since
 * it was last switched in before its tick stops. A task that runs alone
 * only briefly (it sleeps and wakes often) keeps its tick, and is spared
 * the cost of stopping and restarting it.
 *
 * Left out: a real "alone since" clock. ran_ns counts from the last
 * switch-in, so a competitor that came and went without a switch does not
 * make it wait again. */
#include "kernel/time/tick_policy.h"

#define PATIENCE_MS 50
#define NS_PER_MS 1000000ul

static bool nohz_task_ran_long_enough(const struct tick_policy_view *view)
{
    return view->task.is_nohz && view->task.ran_ns >= PATIENCE_MS * NS_PER_MS;
}

static bool current_is_nohz_task(const struct tick_policy_view *view)
{
    return view->task.is_nohz;
}

TICK_POLICY(patient,
    .summary = "like task, once the nohz task has run 50 ms",
    .rank = 50,
    .stop_when_idle = true,
    .busy_may_stop = nohz_task_ran_long_enough,
    .isolates = current_is_nohz_task);
