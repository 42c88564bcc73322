/* The rcu_node tree: see rcu/tree.h. */
#include "rcu/tree.h"

#include "kernel/base/panic.h"
#include "kernel/lib/string.h"
#include "rcu/gp_seq.h"

static unsigned divide_round_up(unsigned a, unsigned b)
{
    return (a + b - 1) / b;
}

static uint64_t low_bits(unsigned count)
{
    return count >= 64 ? ~0ull : (1ull << count) - 1;
}

unsigned rcu_tree_levels_for(unsigned cpu_count, unsigned fanout)
{
    unsigned levels = 1;
    for (unsigned width = divide_round_up(cpu_count, fanout); width > 1; width = divide_round_up(width, fanout))
        levels++;
    return levels;
}

/* Node `index` of a level covers children index*fanout .. of the level
 * below (CPUs, for the leaves). */
static void link_level(struct rcu_tree *tree, unsigned level)
{
    bool leaves = level == tree->levels - 1;
    unsigned below = leaves ? tree->cpu_count : tree->level_width[level + 1];

    for (unsigned index = 0; index < tree->level_width[level]; index++) {
        struct rcu_node *node = &tree->nodes[tree->level_first[level] + index];
        unsigned first = index * tree->fanout;
        unsigned children = below - first < tree->fanout ? below - first : tree->fanout;

        node->level = level;
        node->qsmask_init = low_bits(children);
        for (unsigned child = 0; child < children; child++) {
            if (leaves) {
                tree->leaf_of_cpu[first + child] = node;
                continue;
            }
            struct rcu_node *lower = &tree->nodes[tree->level_first[level + 1] + first + child];
            lower->parent = node;
            lower->grpmask = 1ull << child;
        }
        if (leaves) {
            node->grplo = first;
            node->grphi = first + children - 1;
        } else {
            node->grplo = tree->nodes[tree->level_first[level + 1] + first].grplo;
            node->grphi = tree->nodes[tree->level_first[level + 1] + first + children - 1].grphi;
        }
    }
}

int rcu_tree_build(struct rcu_tree *tree, unsigned cpu_count, unsigned fanout)
{
    if (fanout < RCU_FANOUT_MIN || fanout > RCU_FANOUT_MAX || cpu_count == 0 || cpu_count > MAX_CPUS)
        return -1;
    memset(tree, 0, sizeof(*tree));
    tree->cpu_count = cpu_count;
    tree->fanout = fanout;
    tree->levels = rcu_tree_levels_for(cpu_count, fanout);
    ASSERT(tree->levels <= RCU_MAX_LEVELS);

    /* Widths bottom up, then each level's first index top down. */
    unsigned width = cpu_count;
    for (unsigned level = tree->levels; level-- > 0;) {
        width = divide_round_up(width, fanout);
        tree->level_width[level] = width;
    }
    ASSERT(tree->level_width[0] == 1);
    for (unsigned level = 0; level < tree->levels; level++) {
        tree->level_first[level] = tree->node_count;
        tree->node_count += tree->level_width[level];
    }
    ASSERT(tree->node_count <= RCU_MAX_NODES);
    for (unsigned i = 0; i < tree->node_count; i++)
        spin_lock_init(&tree->nodes[i].lock, "rcu_node");
    /* Bottom up: a node's span comes from its children's. */
    for (unsigned level = tree->levels; level-- > 0;)
        link_level(tree, level);
    return 0;
}

void rcu_tree_start_gp(struct rcu_tree *tree, unsigned long gp_seq)
{
    ASSERT(rcu_seq_in_progress(gp_seq));
    for (unsigned i = 0; i < tree->node_count; i++) {
        struct rcu_node *node = &tree->nodes[i];
        spin_lock(&node->lock);
        ASSERT(node->qsmask == 0);      /* the previous GP ended everywhere */
        node->qsmask = node->qsmask_init;
        __atomic_store_n(&node->gp_seq, gp_seq, __ATOMIC_RELEASE);
        spin_unlock(&node->lock);
    }
}

void rcu_tree_end_gp(struct rcu_tree *tree, unsigned long gp_seq)
{
    ASSERT(!rcu_seq_in_progress(gp_seq));
    for (unsigned i = 0; i < tree->node_count; i++) {
        struct rcu_node *node = &tree->nodes[i];
        spin_lock(&node->lock);
        ASSERT(node->qsmask == 0);
        __atomic_store_n(&node->gp_seq, gp_seq, __ATOMIC_RELEASE);
        spin_unlock(&node->lock);
    }
}

bool rcu_tree_report(struct rcu_node *node, uint64_t mask, unsigned long gp_seq)
{
    for (;;) {
        spin_lock(&node->lock);
        if (node->gp_seq != gp_seq || !(node->qsmask & mask)) {
            spin_unlock(&node->lock);   /* another GP, or already reported */
            return false;
        }
        ASSERT((mask & ~node->qsmask_init) == 0);
        node->qsmask &= ~mask;
        bool emptied = node->qsmask == 0;
        struct rcu_node *parent = node->parent;
        uint64_t parent_mask = node->grpmask;
        spin_unlock(&node->lock);
        if (!emptied)
            return false;
        if (!parent)
            return true;                /* the root: every CPU has reported */
        /* This node's bit in its parent cannot be cleared by anyone else:
         * only the report that empties a node climbs, and the GP cannot
         * end while the bit is set, so the parent still has this gp_seq. */
        node = parent;
        mask = parent_mask;
    }
}
