/* The tick policies (docs/tick-policy.md). Each answers one question: may
 * this CPU, running a task, stop its tick? (Idle is a flag.) Everything
 * else that keeps a tick (a second task, RCU, timekeeping, a timer due
 * soon) is checked by kernel/time/tick_stop.c for every policy alike, so
 * a policy cannot stop a tick that something needs. To add one, write its
 * question, a struct tick_policy, and list it below; tick= and
 * /proc/sys/kernel/tick_policy find it by name. */
#include "kernel/time/nohz_task.h"
#include "kernel/cpu/percpu.h"
#include "kernel/time/tick.h"
#include "sched/task.h"

static bool never(struct cpu *cpu, uint64_t now)
{
    (void)cpu, (void)now;
    return false;
}

/* The 2010 rule
 * (docs/nohz-task.md#patches-03-and-04-stop-the-tick-when-the-nohz-task-runs-alone):
 * only a task that asked, through /proc/self/nohz. */
static bool current_is_nohz_task(struct cpu *cpu, uint64_t now)
{
    (void)now;
    return task_is_nohz(cpu->rq.current);
}

/* Linux's NO_HZ_FULL: any task on a CPU of nohz_full=, no marking at all
 * (the reviewers' objection in the article). */
static bool cpu_is_nohz_full(struct cpu *cpu, uint64_t now)
{
    (void)now;
    return cpumask_test_atomic(&nohz_full_mask, cpu->id);
}

const struct tick_policy tick_policy_periodic = {
    .name = "periodic",
    .summary = "every CPU ticks, always",
    .stop_when_idle = false,
    .busy_may_stop = never,
};
const struct tick_policy tick_policy_idle = {
    .name = "idle",
    .summary = "idle CPUs stop their tick",
    .stop_when_idle = true,
    .busy_may_stop = never,
};
const struct tick_policy tick_policy_task = {
    .name = "task",
    .summary = "idle CPUs, and a nohz task running alone (/proc/self/nohz)",
    .stop_when_idle = true,
    .busy_may_stop = current_is_nohz_task,
};
const struct tick_policy tick_policy_full = {
    .name = "full",
    .summary = "idle CPUs, and any task running alone on a nohz_full= CPU",
    .stop_when_idle = true,
    .busy_may_stop = cpu_is_nohz_full,
    .uses_nohz_full = true,
};

const struct tick_policy *const tick_policies[] = {
    &tick_policy_periodic, &tick_policy_idle, &tick_policy_task, &tick_policy_full, &tick_policy_patient, 0,
};
