/* Which tick policy is in force: chosen by name with tick= at boot, and
 * switched at run time through /proc/sys/kernel/tick_policy
 * (docs/tick-policy.md). The policies themselves are in
 * kernel/time/tick_policies.c. */
#include "kernel/time/tick.h"

#include "kernel/cpu/percpu.h"
#include "kernel/lib/errno.h"
#include "kernel/lib/string.h"

const struct tick_policy *tick_policy = &tick_policy_task;

static const struct tick_policy *find_policy(const char *name)
{
    for (const struct tick_policy *const *policy = tick_policies; *policy; policy++) {
        if (!strcmp((*policy)->name, name))
            return *policy;
    }
    return 0;
}

int tick_policy_select(const char *name)
{
    const struct tick_policy *policy = find_policy(name);
    if (!policy)
        return -EINVAL;
    tick_policy = policy;
    return 0;
}

/* The policy is one pointer, read under each CPU's runqueue lock at every
 * check: a CPU sees the old policy or the new one, never a mix. A CPU
 * whose tick the old policy stopped is kicked, so that it asks again. */
int tick_policy_switch(const char *name)
{
    const struct tick_policy *policy = find_policy(name);
    unsigned cpu;
    if (!policy)
        return -EINVAL;
    __atomic_store_n(&tick_policy, policy, __ATOMIC_SEQ_CST);
    for_each_online_cpu(cpu) {
        if (!__atomic_load_n(&cpus[cpu]->tick.running, __ATOMIC_ACQUIRE))
            tick_nohz_kick(cpu);
    }
    return 0;
}
