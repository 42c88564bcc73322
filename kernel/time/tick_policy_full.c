/* tick=full: Linux's NO_HZ_FULL. Any task on a CPU of nohz_full=, no
 * marking at all (the reviewers' objection in the article). */
#include "kernel/time/tick_policy.h"

static bool cpu_is_nohz_full(const struct tick_policy_view *view)
{
    return view->cpu_is_nohz_full;
}

TICK_POLICY(full,
    .summary = "idle CPUs, and any task running alone on a nohz_full= CPU",
    .rank = 40,
    .stop_when_idle = true,
    .busy_may_stop = cpu_is_nohz_full,
    .isolates = cpu_is_nohz_full,
    .uses_nohz_full = true);
