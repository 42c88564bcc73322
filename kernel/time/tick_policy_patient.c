/* An example tick policy, the one docs/tick-policy.md writes step by step:
 * like `task`, but a nohz task must first have run for PATIENCE_MS since
 * it was last switched in before its tick stops. A task that runs alone
 * only briefly (it sleeps and wakes often) keeps its tick, and is spared
 * the cost of stopping and restarting it.
 *
 * Left out: a real "alone since" clock. switched_in_at is reset only when
 * the task is switched in, so a competitor that came and went without a
 * switch does not make it wait again. */
#include "kernel/time/nohz_task.h"
#include "kernel/cpu/percpu.h"
#include "kernel/time/tick.h"
#include "sched/task.h"

#define PATIENCE_MS 50
#define NS_PER_MS 1000000ul

static bool nohz_task_ran_long_enough(struct cpu *cpu, uint64_t now)
{
    struct task *current = cpu->rq.current;
    return task_is_nohz(current) && now - current->switched_in_at >= PATIENCE_MS * NS_PER_MS;
}

const struct tick_policy tick_policy_patient = {
    .name = "patient",
    .summary = "like task, once the nohz task has run 50 ms",
    .stop_when_idle = true,
    .busy_may_stop = nohz_task_ran_long_enough,
};
