/* The registered tick policies, the one in force, and the view each sees
 * (docs/tick-policy.md). Policies register with TICK_POLICY (kernel/time/tick_policy.h)
 * in kernel/time/tick_policy_NAME.c; the linker gathers them in
 * .tick_policies, in no particular order, and the list is read in rank
 * order. The policy is chosen by name with tick= at boot, and switched at
 * run time through /proc/sys/kernel/tick_policy. */
#include "kernel/time/tick.h"

#include "kernel/base/percpu.h"
#include "kernel/lib/errno.h"
#include "kernel/lib/string.h"
#include "kernel/time/nohz_task.h"
#include "sched/task.h"

extern const struct tick_policy *const __tick_policies_start[], *const __tick_policies_end[];

const struct tick_policy *tick_policy;     /* set by tick_policy_select() at boot */

/* Unranked policies come after the ranked ones. */
static unsigned order_of(const struct tick_policy *policy)
{
    return policy->rank ? policy->rank : ~0u;
}

static bool comes_before(const struct tick_policy *a, const struct tick_policy *b)
{
    if (order_of(a) != order_of(b))
        return order_of(a) < order_of(b);
    return strcmp(a->name, b->name) < 0;
}

/* The first policy after `after` in list order (NULL: the very first). A
 * walk over the section each time: a handful of policies, read rarely. */
static const struct tick_policy *first_after(const struct tick_policy *after)
{
    const struct tick_policy *best = 0;
    for (const struct tick_policy *const *entry = __tick_policies_start; entry < __tick_policies_end; entry++) {
        if (after && !comes_before(after, *entry))
            continue;
        if (!best || comes_before(*entry, best))
            best = *entry;
    }
    return best;
}

const struct tick_policy *tick_policy_first(void)
{
    return first_after(0);
}

const struct tick_policy *tick_policy_next(const struct tick_policy *policy)
{
    return first_after(policy);
}

const struct tick_policy *tick_policy_find(const char *name)
{
    const struct tick_policy *policy;
    for_each_tick_policy(policy) {
        if (!strcmp(policy->name, name))
            return policy;
    }
    return 0;
}

void tick_policy_names(char *buffer, unsigned size)
{
    const struct tick_policy *policy;
    unsigned length = 0;
    if (!size)
        return;
    buffer[0] = 0;
    for_each_tick_policy(policy) {
        unsigned need = (unsigned)strlen(policy->name) + (length ? 1 : 0);
        if (length + need + 1 > size)
            return;
        if (length)
            buffer[length++] = ' ';
        memcpy(buffer + length, policy->name, strlen(policy->name) + 1);
        length += (unsigned)strlen(policy->name);
    }
}

int tick_policy_select(const char *name)
{
    const struct tick_policy *policy = tick_policy_find(name);
    if (!policy)
        return -EINVAL;
    tick_policy = policy;
    return 0;
}

/* The policy is one pointer, read under each CPU's runqueue lock at every
 * check: a CPU sees the old policy or the new one, never a mix. A CPU
 * whose tick the old policy stopped is kicked, so that it asks again; the
 * new policy's switched_to runs on each CPU at its first question there. */
int tick_policy_switch(const char *name)
{
    const struct tick_policy *policy = tick_policy_find(name);
    unsigned cpu;
    if (!policy)
        return -EINVAL;
    __atomic_store_n(&tick_policy, policy, __ATOMIC_SEQ_CST);
    tick_policy_isolation_changed();
    for_each_online_cpu(cpu) {
        if (!__atomic_load_n(&tick_state_of(cpu)->running, __ATOMIC_ACQUIRE))
            tick_nohz_kick(cpu, "policy-switch");
    }
    return 0;
}

/* ---- The view ---- */

/* What policy may see of cpu (this CPU, interrupts off). The state words
 * belong to one policy at a time: the first look by another zeroes them
 * and tells it switched_to. */
static void view_of(const struct tick_policy *policy, struct cpu *cpu, uint64_t now, uint32_t needs,
                    struct tick_policy_view *view)
{
    const struct task *task = cpu->current;
    view->cpu = cpu->id;
    view->cpu_is_nohz_full = cpumask_test_atomic(&nohz_full_mask, cpu->id);
    view->now = now;
    view->task.id = task->id;
    view->task.is_idle = task->is_idle;
    view->task.is_nohz = task_is_nohz(task);
    view->task.ran_ns = now && now > task->switched_in_at ? now - task->switched_in_at : 0;
    view->needs = needs;
    struct tick_state *tick = this_tick();
    view->state = tick->policy_state;
    if (tick->policy_state_owner != policy) {
        memset(tick->policy_state, 0, sizeof(tick->policy_state));
        tick->policy_state_owner = policy;
        if (policy->switched_to)
            policy->switched_to(view);
    }
}

bool tick_policy_busy_may_stop(const struct tick_policy *policy, struct cpu *cpu, uint64_t now, uint32_t needs)
{
    struct tick_policy_view view;
    if (!policy->busy_may_stop)
        return false;
    view_of(policy, cpu, now, needs, &view);
    return policy->busy_may_stop(&view);
}

/* The answer is asked on every return to user mode, and changes only when
 * its inputs do: the task (a context switch, tick_nohz_task_switch()), the policy's
 * state (its events, tick_policy_tell()), or, on any CPU, the policy in
 * force or a nohz attribute (the generation, bumped by
 * tick_policy_isolation_changed()). Read first, so that a bump during the
 * question leaves the answer stale and asked again. */
static uint64_t isolation_generation = 1;

void tick_policy_isolation_changed(void)
{
    __atomic_add_fetch(&isolation_generation, 1, __ATOMIC_SEQ_CST);
}

bool tick_policy_isolates(struct cpu *cpu)
{
    uint64_t generation = __atomic_load_n(&isolation_generation, __ATOMIC_ACQUIRE);
    struct tick_state *tick = this_tick();
    if (tick->isolation_generation == generation)
        return tick->isolated;
    const struct tick_policy *policy = __atomic_load_n(&tick_policy, __ATOMIC_ACQUIRE);
    struct tick_policy_view view;
    bool isolated = false;
    if (policy->isolates) {
        view_of(policy, cpu, 0, 0, &view);
        isolated = policy->isolates(&view);
    }
    tick->isolated = isolated;
    tick->isolation_generation = generation;
    return isolated;
}

void tick_policy_tell(struct cpu *cpu, uint64_t now, enum tick_policy_event event)
{
    const struct tick_policy *policy = __atomic_load_n(&tick_policy, __ATOMIC_ACQUIRE);
    void (*callback)(const struct tick_policy_view *) =
        event == TICK_EVENT_STOPPED ? policy->tick_stopped :
        event == TICK_EVENT_RESTARTED ? policy->tick_restarted : policy->task_switched_in;
    struct tick_policy_view view;
    if (!callback)
        return;
    struct tick_state *tick = this_tick();
    view_of(policy, cpu, now, event == TICK_EVENT_RESTARTED ? TICK_DEP(tick->reason) : 0, &view);
    callback(&view);
    tick->isolation_generation = 0;     /* the policy's state changed */
}
