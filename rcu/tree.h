/* The rcu_node tree: leaves hold CPUs, each inner node holds up to fanout
 * children, the root holds everything. At the start of a grace period
 * every node's qsmask gets one bit per child; a CPU's quiescent state
 * clears its bit in its leaf, and a node whose mask becomes empty clears
 * its own bit in its parent. The grace period may end when the root's
 * mask is empty. The point of the tree: CPUs mostly contend on their own
 * leaf's lock, not on one global lock (docs/rcu.md).
 *
 * Pure logic (no scheduler, no per-CPU data): the host tests build trees
 * of any shape with it. Locks are the kernel's spinlocks; the host tests
 * provide their own. */
#ifndef RCU_TREE_H
#define RCU_TREE_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/lib/cpumask.h"
#include "kernel/base/spinlock.h"

#define RCU_FANOUT_MIN 2
#define RCU_FANOUT_MAX 64                   /* qsmask has 64 bits */
#define RCU_MAX_LEVELS 8                    /* fanout 2: 2^8 = 256 > MAX_CPUS leaves */
#define RCU_MAX_NODES (2 * MAX_CPUS)        /* sum of ceil(n/2^k) < 2n */

_Static_assert((1u << RCU_MAX_LEVELS) >= MAX_CPUS, "a fanout-2 tree of MAX_CPUS fits");

struct rcu_node {
    struct spinlock lock;
    uint64_t qsmask;            /* children still to report in this GP */
    uint64_t qsmask_init;       /* every child: what qsmask becomes at GP start */
    uint64_t grpmask;           /* this node's bit in its parent's qsmask */
    unsigned long gp_seq;       /* the GP this node last started or ended */
    unsigned grplo, grphi;      /* CPUs under this node, inclusive */
    unsigned level;             /* 0 = root */
    struct rcu_node *parent;    /* NULL at the root */
};

struct rcu_tree {
    unsigned cpu_count, fanout, levels;
    unsigned node_count;
    unsigned level_first[RCU_MAX_LEVELS];   /* index of each level's first node */
    unsigned level_width[RCU_MAX_LEVELS];   /* nodes on each level */
    struct rcu_node nodes[RCU_MAX_NODES];   /* breadth first: the root is nodes[0] */
    struct rcu_node *leaf_of_cpu[MAX_CPUS];
};

/* Lay out a tree for CPUs 0..cpu_count-1; -1 if the arguments are out of
 * range (fanout outside RCU_FANOUT_MIN..MAX, no CPUs or too many). */
int rcu_tree_build(struct rcu_tree *tree, unsigned cpu_count, unsigned fanout);

/* Levels a tree of cpu_count CPUs with this fanout has. */
unsigned rcu_tree_levels_for(unsigned cpu_count, unsigned fanout);

static inline struct rcu_node *rcu_tree_root(struct rcu_tree *tree)
{
    return &tree->nodes[0];
}

/* The bit of cpu in its leaf's qsmask. */
static inline uint64_t rcu_tree_cpu_mask(const struct rcu_tree *tree, unsigned cpu)
{
    return 1ull << (cpu - tree->leaf_of_cpu[cpu]->grplo);
}

static inline bool rcu_node_is_leaf(const struct rcu_tree *tree, const struct rcu_node *node)
{
    return node->level == tree->levels - 1;
}

/* Start (gp_seq in progress) or end (gp_seq idle) a GP on every node, root
 * first, each under its lock. Starting fills every qsmask. */
void rcu_tree_start_gp(struct rcu_tree *tree, unsigned long gp_seq);
void rcu_tree_end_gp(struct rcu_tree *tree, unsigned long gp_seq);

/* Report quiescent states for the children in mask of node, for the GP
 * gp_seq, and carry emptied masks up to the root. A report for another GP,
 * or for bits already clear, changes nothing. Returns true if this report
 * emptied the root: the GP may end. */
bool rcu_tree_report(struct rcu_node *node, uint64_t mask, unsigned long gp_seq);

#endif
