/* tick=budget: like task, but each CPU may restart its busy tick at most
 * BUDGET times a second. A nohz task that keeps bringing its tick back
 * (it sleeps and wakes, or others come and go) pays for a stop and a
 * restart each time; past the budget its tick stays on for the rest of
 * the second, and the refusals are counted under `policy` in /proc/tick.
 *
 * State, per CPU: when the current second began, and the busy restarts
 * counted in it. A second starts at the first question or restart after
 * the previous one ended, so a quiet CPU does no work to keep it. */
#include "kernel/time/tick_policy.h"

#define BUDGET 10               /* busy tick restarts a second */
#define NS_PER_SECOND 1000000000ul

enum { SECOND_BEGAN, RESTARTS };        /* the policy's state words */

static void start_a_new_second_if_due(const struct tick_policy_view *view)
{
    uint64_t *state = view->state;
    if (view->now - state[SECOND_BEGAN] >= NS_PER_SECOND) {
        state[SECOND_BEGAN] = view->now;
        state[RESTARTS] = 0;
    }
}

static bool nohz_task_within_budget(const struct tick_policy_view *view)
{
    if (!view->task.is_nohz)
        return false;
    start_a_new_second_if_due(view);
    return view->state[RESTARTS] < BUDGET;
}

/* An idle CPU's tick comes back when it has work: not the policy's cost. */
static void count_busy_restart(const struct tick_policy_view *view)
{
    if (view->task.is_idle)
        return;
    start_a_new_second_if_due(view);
    view->state[RESTARTS]++;
}

static bool current_is_nohz_task(const struct tick_policy_view *view)
{
    return view->task.is_nohz;
}

TICK_POLICY(budget,
    .summary = "like task, but at most 10 busy tick restarts a second",
    .stop_when_idle = true,
    .busy_may_stop = nohz_task_within_budget,
    .isolates = current_is_nohz_task,
    .tick_restarted = count_busy_restart);
