/* The stall detector, run by the GP kthread after each FQS scan: a grace
 * period older than rcu_stall_timeout= seconds is reported once, with
 * each CPU that still holds it up and what RCU knows about that CPU.
 * Linux repeats the report at growing intervals and dumps stacks; here one
 * report per GP, and the count in /proc/rcu. */
#include "kernel/base/percpu.h"
#include "kernel/base/printk.h"
#include "rcu/internal.h"

#define NS_PER_SECOND 1000000000ul

static void print_holdout(unsigned cpu)
{
    struct rcu_data *rdp = rcu_data_of(cpu);
    unsigned long dynticks = rcu_dynticks_snapshot(cpu);

    printk("rcu: stall: cpu %u holds up the grace period: dynticks %lu (%s), irq nesting %u, "
           "read nesting %u, kicks %lu\n",
           cpu, dynticks, rcu_dynticks_in_eqs(dynticks) ? "idle" : "not idle", rdp->irq_nesting,
           rdp->read_nesting, rdp->kicks);
}

void rcu_check_stall(uint64_t now)
{
    struct rcu_tree *tree = &rcu_state.tree;
    unsigned first_leaf = tree->level_first[tree->levels - 1];
    uint64_t holdouts = 0;

    if (rcu_state.stall_reported || now - rcu_state.gp_start_ns < rcu_stall_timeout_param * NS_PER_SECOND)
        return;
    rcu_state.stall_reported = true;
    printk("rcu: stall: grace period %lu has run for %lu ms\n", rcu_gp_number(rcu_state.gp_seq),
           (now - rcu_state.gp_start_ns) / 1000000);
    for (unsigned i = 0; i < tree->level_width[tree->levels - 1]; i++) {
        struct rcu_node *leaf = &tree->nodes[first_leaf + i];
        uint64_t mask = __atomic_load_n(&leaf->qsmask, __ATOMIC_ACQUIRE);
        for (unsigned bit = 0; bit < 64; bit++) {
            if (mask & (1ull << bit)) {
                holdouts |= 1ull << (leaf->grplo + bit);
                print_holdout(leaf->grplo + bit);
            }
        }
    }
    rcu_state.last_stall_holdouts = holdouts;
    __atomic_add_fetch(&rcu_state.stalls, 1, __ATOMIC_RELEASE);
}
