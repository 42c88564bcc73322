/* tick=task, the default: the 2010 rule
 * (docs/nohz-task.md#patches-03-and-04-stop-the-tick-when-the-nohz-task-runs-alone).
 * Only a task that asked, through /proc/self/nohz, stops its CPU's tick,
 * and its user mode is an extended quiescent state for RCU
 * (docs/nohz-task.md#patches-10-and-11-user-mode-is-an-extended-quiescent-state). */
#include "kernel/time/tick_policy.h"

static bool current_is_nohz_task(const struct tick_policy_view *view)
{
    return view->task.is_nohz;
}

TICK_POLICY(task,
    .summary = "idle CPUs, and a nohz task running alone (/proc/self/nohz)",
    .rank = 30,
    .stop_when_idle = true,
    .busy_may_stop = current_is_nohz_task,
    .isolates = current_is_nohz_task);
