/* Host unit tests of the rcu_node tree (rcu/tree.c): its shape for any CPU
 * count and fanout, and quiescent-state reports climbing to the root; and
 * of the gp_seq arithmetic (rcu/gp_seq.h), wrap-around included. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "rcu/gp_seq.h"
#include "rcu/tree.h"

static struct rcu_tree tree;

/* ---- Shape ---- */

static void levels_follow_cpus_and_fanout(void **state)
{
    (void)state;
    assert_int_equal(rcu_tree_levels_for(1, 16), 1);
    assert_int_equal(rcu_tree_levels_for(4, 16), 1);
    assert_int_equal(rcu_tree_levels_for(16, 16), 1);
    assert_int_equal(rcu_tree_levels_for(17, 16), 2);
    assert_int_equal(rcu_tree_levels_for(8, 2), 3);
    assert_int_equal(rcu_tree_levels_for(4, 2), 2);
    assert_int_equal(rcu_tree_levels_for(64, 2), 6);
    assert_int_equal(rcu_tree_levels_for(64, 64), 1);
    assert_int_equal(rcu_tree_levels_for(5, 2), 3);
    assert_int_equal(rcu_tree_levels_for(255, 2), 8);
    assert_int_equal(rcu_tree_levels_for(255, 16), 2);
    assert_int_equal(rcu_tree_levels_for(255, 64), 2);
}

static void bad_arguments_are_refused(void **state)
{
    (void)state;
    assert_int_equal(rcu_tree_build(&tree, 4, 1), -1);
    assert_int_equal(rcu_tree_build(&tree, 4, 65), -1);
    assert_int_equal(rcu_tree_build(&tree, 0, 16), -1);
    assert_int_equal(rcu_tree_build(&tree, MAX_CPUS + 1, 16), -1);
}

/* Every CPU lies in exactly one leaf, at its bit; every node's span is the
 * union of its children's; grpmasks are distinct within a parent. */
static void check_shape(unsigned cpus, unsigned fanout)
{
    assert_int_equal(rcu_tree_build(&tree, cpus, fanout), 0);
    assert_int_equal(tree.levels, rcu_tree_levels_for(cpus, fanout));
    struct rcu_node *root = rcu_tree_root(&tree);
    assert_null(root->parent);
    assert_int_equal(root->grplo, 0);
    assert_int_equal(root->grphi, cpus - 1);
    for (unsigned cpu = 0; cpu < cpus; cpu++) {
        struct rcu_node *leaf = tree.leaf_of_cpu[cpu];
        assert_true(rcu_node_is_leaf(&tree, leaf));
        assert_true(cpu >= leaf->grplo && cpu <= leaf->grphi);
        assert_true(leaf->qsmask_init & rcu_tree_cpu_mask(&tree, cpu));
    }
    for (unsigned i = 1; i < tree.node_count; i++) {
        struct rcu_node *node = &tree.nodes[i], *parent = node->parent;
        assert_non_null(parent);
        assert_int_equal(parent->level + 1, node->level);
        assert_true(parent->qsmask_init & node->grpmask);
        assert_true(node->grplo >= parent->grplo && node->grphi <= parent->grphi);
    }
}

static void shapes_are_consistent(void **state)
{
    (void)state;
    for (unsigned fanout = 2; fanout <= 9; fanout++) {
        for (unsigned cpus = 1; cpus <= 40; cpus++)
            check_shape(cpus, fanout);
    }
    check_shape(64, 64);
    check_shape(64, 2);
    check_shape(255, 2);        /* the most CPUs: 8 levels */
    assert_int_equal(tree.levels, 8);
    assert_int_equal(tree.node_count, 255);
    check_shape(255, 16);
    check_shape(255, 64);
    assert_int_equal(rcu_tree_root(&tree)->qsmask_init, 0xf);
    check_shape(8, 2);
    assert_int_equal(tree.levels, 3);
    assert_int_equal(tree.node_count, 7);
}

/* ---- Reports ---- */

static unsigned long started(void)
{
    unsigned long seq = rcu_seq_started(0);
    rcu_tree_start_gp(&tree, seq);
    return seq;
}

static bool report_cpu(unsigned cpu, unsigned long seq)
{
    return rcu_tree_report(tree.leaf_of_cpu[cpu], rcu_tree_cpu_mask(&tree, cpu), seq);
}

/* The root empties with the last CPU's report, not before, in any order. */
static void last_report_empties_the_root(void **state)
{
    (void)state;
    unsigned orders[][8] = { { 0, 1, 2, 3, 4, 5, 6, 7 }, { 7, 6, 5, 4, 3, 2, 1, 0 }, { 3, 0, 6, 1, 7, 2, 5, 4 } };
    for (unsigned o = 0; o < 3; o++) {
        assert_int_equal(rcu_tree_build(&tree, 8, 2), 0);
        unsigned long seq = started();
        for (unsigned i = 0; i < 8; i++) {
            assert_int_equal(report_cpu(orders[o][i], seq), i == 7);
            assert_int_equal(rcu_tree_root(&tree)->qsmask == 0, i == 7);
        }
        rcu_tree_end_gp(&tree, rcu_seq_ended(seq));
    }
}

static void duplicate_and_stale_reports_change_nothing(void **state)
{
    (void)state;
    assert_int_equal(rcu_tree_build(&tree, 4, 2), 0);
    unsigned long seq = started();
    assert_false(report_cpu(0, seq));
    assert_false(report_cpu(0, seq));               /* again: no effect */
    assert_false(report_cpu(1, seq + 4));           /* for another GP: ignored */
    assert_int_equal(tree.leaf_of_cpu[1]->qsmask, 2);
    assert_false(report_cpu(1, seq));
    assert_false(report_cpu(2, seq));
    assert_true(report_cpu(3, seq));
    assert_false(report_cpu(3, seq));               /* after the root emptied */
}

/* The fqs scan reports several CPUs of one leaf at once. */
static void a_mask_reports_several_cpus(void **state)
{
    (void)state;
    assert_int_equal(rcu_tree_build(&tree, 6, 4), 0);   /* leaves 0-3 and 4-5 */
    unsigned long seq = started();
    assert_false(rcu_tree_report(tree.leaf_of_cpu[0], 0xf, seq));
    assert_true(rcu_tree_report(tree.leaf_of_cpu[5], 0x3, seq));
}

/* ---- gp_seq ---- */

static void gp_seq_states_and_snapshots(void **state)
{
    (void)state;
    unsigned long seq = 8;                          /* two GPs done, none running */
    assert_false(rcu_seq_in_progress(seq));
    assert_int_equal(rcu_seq_snap(seq), 12);        /* the next GP's end */
    seq = rcu_seq_started(seq);
    assert_int_equal(seq, 9);
    assert_true(rcu_seq_in_progress(seq));
    assert_int_equal(rcu_seq_snap(seq), 16);        /* it may have started before us: the one after */
    assert_false(rcu_seq_done(rcu_seq_ended(seq), 16));
    assert_true(rcu_seq_done(rcu_seq_ended(seq), 12));
    assert_int_equal(rcu_seq_ended(seq), 12);
}

static void gp_seq_wraps_around(void **state)
{
    (void)state;
    unsigned long seq = (0ul - 1ul) & ~RCU_SEQ_STATE_MASK;  /* the last idle value before 0 */
    unsigned long snap = rcu_seq_snap(seq);
    assert_int_equal(snap, 0);
    assert_false(rcu_seq_done(seq, snap));
    seq = rcu_seq_ended(rcu_seq_started(seq));
    assert_int_equal(seq, 0);
    assert_true(rcu_seq_done(seq, snap));
    assert_true(rcu_seq_ge(4, 0ul - 4));
    assert_false(rcu_seq_ge(0ul - 4, 4));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(levels_follow_cpus_and_fanout),
        cmocka_unit_test(bad_arguments_are_refused),
        cmocka_unit_test(shapes_are_consistent),
        cmocka_unit_test(last_report_empties_the_root),
        cmocka_unit_test(duplicate_and_stale_reports_change_nothing),
        cmocka_unit_test(a_mask_reports_several_cpus),
        cmocka_unit_test(gp_seq_states_and_snapshots),
        cmocka_unit_test(gp_seq_wraps_around),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
