/* ktest=tick_policy: the registered tick policies (kernel/time/tick_policy.c)
 * and their rules, asked through made-up views: counts and a clock the
 * test sets, never a measured time. */
#include "kernel/debug/ktest.h"
#include "kernel/lib/errno.h"
#include "kernel/lib/string.h"
#include "kernel/time/tick.h"

#define NAME_SIZE 16    /* /proc/sys/kernel/tick_policy's buffer (kernel/time/tick_proc.c) */

/* The section TICK_POLICY fills (linker.ld): every policy there, whatever
 * its name, is checked below; no list of names is kept here. */
extern const struct tick_policy *const __tick_policies_start[], *const __tick_policies_end[];

static unsigned order_of(const struct tick_policy *policy)
{
    return policy->rank ? policy->rank : ~0u;
}

/* Ranked first, by rank; then the unranked; names break ties. */
static bool comes_before(const struct tick_policy *a, const struct tick_policy *b)
{
    return order_of(a) != order_of(b) ? order_of(a) < order_of(b) : strcmp(a->name, b->name) < 0;
}

static void policies_are_listed_in_a_stable_order(struct ktest *test)
{
    const struct tick_policy *policy, *other, *previous = 0;
    unsigned count = 0, registered = (unsigned)(__tick_policies_end - __tick_policies_start);
    for_each_tick_policy(policy) {
        KTEST_EXPECT(test, !previous || comes_before(previous, policy), "%s listed after %s", policy->name,
                     previous ? previous->name : "");
        KTEST_EXPECT(test, strlen(policy->name) < NAME_SIZE, "%s: name too long to be written", policy->name);
        KTEST_EXPECT(test, policy->summary && policy->summary[0], "%s: no summary", policy->name);
        KTEST_EXPECT(test, tick_policy_find(policy->name) == policy, "%s: found as another", policy->name);
        unsigned same = 0;
        for_each_tick_policy(other)
            same += !strcmp(other->name, policy->name);
        KTEST_EXPECT(test, same == 1, "%s: registered %u times", policy->name, same);
        previous = policy;
        count++;
    }
    KTEST_EXPECT(test, count == registered, "%u policies listed, %u registered", count, registered);
    KTEST_EXPECT(test, tick_policy_find(TICK_POLICY_DEFAULT), "the default, %s, is not registered",
                 TICK_POLICY_DEFAULT);
}

static void unknown_names_change_nothing(struct ktest *test)
{
    const struct tick_policy *before = tick_policy, *policy;
    KTEST_EXPECT(test, tick_policy_select("no-such-policy") == -EINVAL, "an unknown policy was selected");
    KTEST_EXPECT(test, tick_policy_select("") == -EINVAL, "an empty name was selected");
    KTEST_EXPECT(test, tick_policy == before, "a refused name changed the policy");
    char names[256], expected[256];
    size_t length = 0;
    tick_policy_names(names, sizeof(names));
    for_each_tick_policy(policy) {
        if (length)
            expected[length++] = ' ';
        memcpy(expected + length, policy->name, strlen(policy->name));
        length += strlen(policy->name);
    }
    expected[length] = 0;
    KTEST_EXPECT(test, !strcmp(names, expected), "names listed as '%s', want '%s'", names, expected);
}

static bool asks_isolates(const struct tick_policy *policy, bool is_nohz, bool nohz_full)
{
    uint64_t state[TICK_POLICY_STATE_WORDS] = { 0 };
    struct tick_policy_view view = { .cpu = 1, .cpu_is_nohz_full = nohz_full, .state = state };
    view.task.is_nohz = is_nohz;
    return policy->isolates && policy->isolates(&view);
}

/* Which CPUs each registered policy isolates, the rule that
 * context_tracking.c and the decision on the way to user mode follow: a
 * policy that stops busy ticks isolates the CPUs it stops them on, the
 * nohz_full= ones if it answers from that list, else a nohz task's; one
 * that stops none isolates nothing; and none isolates an ordinary CPU. */
static void each_policy_isolates_its_own_cpus(struct ktest *test)
{
    const struct tick_policy *policy;
    for_each_tick_policy(policy) {
        bool stops_busy = policy->busy_may_stop;
        bool by_task = stops_busy && !policy->uses_nohz_full, by_list = stops_busy && policy->uses_nohz_full;
        KTEST_EXPECT(test, asks_isolates(policy, true, false) == by_task, "%s: a nohz task's cpu", policy->name);
        KTEST_EXPECT(test, asks_isolates(policy, false, true) == by_list, "%s: a nohz_full cpu", policy->name);
        KTEST_EXPECT(test, !asks_isolates(policy, false, false), "%s: an ordinary cpu", policy->name);
    }
}

/* tick=budget (kernel/time/tick_policy_budget.c): BUDGET_RESTARTS busy tick
 * restarts a second, then the tick stays on until the second ends. */
#define BUDGET_RESTARTS 10
#define SECOND_NS 1000000000ul

struct made_up_cpu {
    uint64_t state[TICK_POLICY_STATE_WORDS];
    struct tick_policy_view view;
};

static void made_up_cpu_init(struct made_up_cpu *cpu, const struct tick_policy *policy, uint64_t now)
{
    memset(cpu, 0, sizeof(*cpu));
    cpu->view.cpu = 1;
    cpu->view.now = now;
    cpu->view.state = cpu->state;
    cpu->view.task.is_nohz = true;
    if (policy->switched_to)
        policy->switched_to(&cpu->view);
}

static void restart(const struct tick_policy *policy, struct made_up_cpu *cpu, bool idle)
{
    cpu->view.task.is_idle = idle;
    if (policy->tick_restarted)
        policy->tick_restarted(&cpu->view);
    cpu->view.task.is_idle = false;
}

static void budget_keeps_the_tick_once_spent(struct ktest *test)
{
    const struct tick_policy *budget = tick_policy_find("budget");
    struct made_up_cpu cpu;
    if (!budget) {
        KTEST_EXPECT(test, budget, "budget is not registered");
        return;
    }
    KTEST_EXPECT(test, budget->busy_may_stop && budget->tick_restarted, "budget lacks its question or event");
    if (!budget->busy_may_stop || !budget->tick_restarted)
        return;
    made_up_cpu_init(&cpu, budget, 5 * SECOND_NS);
    KTEST_EXPECT(test, budget->busy_may_stop(&cpu.view), "a fresh nohz task may not stop");
    unsigned allowed = 0;
    for (unsigned i = 0; i < 3 * BUDGET_RESTARTS; i++) {
        restart(budget, &cpu, true);        /* idle restarts cost nothing */
        cpu.view.now += 1000;
    }
    while (allowed <= BUDGET_RESTARTS && budget->busy_may_stop(&cpu.view)) {
        restart(budget, &cpu, false);
        cpu.view.now += 1000;
        allowed++;
    }
    KTEST_EXPECT(test, allowed == BUDGET_RESTARTS, "stopped again after %u busy restarts, want %u", allowed,
                 BUDGET_RESTARTS);
    cpu.view.now = 5 * SECOND_NS + SECOND_NS - 1;
    KTEST_EXPECT(test, !budget->busy_may_stop(&cpu.view), "the budget came back within the second");
    cpu.view.now = 6 * SECOND_NS;
    KTEST_EXPECT(test, budget->busy_may_stop(&cpu.view), "a new second gave no new budget");
    cpu.view.task.is_nohz = false;
    KTEST_EXPECT(test, !budget->busy_may_stop(&cpu.view), "a task that is not nohz may stop");
    KTEST_EXPECT(test, !asks_isolates(budget, false, true) && asks_isolates(budget, true, false),
                 "budget isolates other cpus than task");
}

KTEST_SUITE(tick_policy, KTEST_CASE(policies_are_listed_in_a_stable_order), KTEST_CASE(unknown_names_change_nothing),
            KTEST_CASE(each_policy_isolates_its_own_cpus), KTEST_CASE(budget_keeps_the_tick_once_spent));
