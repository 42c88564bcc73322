/* Host unit tests of the segmented callback list (rcu/cblist.c): order is
 * kept, segments move only when their GP has ended, accelerate merges
 * callbacks that need the same GP, counts stay exact. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "rcu/cblist.h"
#include "rcu/gp_seq.h"

static struct rcu_head heads[16];
static struct rcu_cblist list;

static unsigned index_of(const struct rcu_head *head)
{
    return (unsigned)(head - heads);
}

/* Take DONE and check it holds exactly heads[first..first+count-1], in order. */
static void expect_done(unsigned first, unsigned count)
{
    unsigned long taken;
    struct rcu_head *head = rcu_cblist_take_done(&list, &taken);
    assert_int_equal(taken, count);
    for (unsigned i = 0; i < count; i++, head = head->next) {
        assert_non_null(head);
        assert_int_equal(index_of(head), first + i);
    }
    assert_null(head);
}

static void empty_list(void **state)
{
    (void)state;
    rcu_cblist_init(&list);
    assert_true(rcu_cblist_empty(&list));
    for (int s = 0; s < RCU_SEGMENTS; s++)
        assert_true(rcu_cblist_segment_empty(&list, s));
    assert_false(rcu_cblist_accelerate(&list, 4));
    assert_false(rcu_cblist_advance(&list, 100));
    expect_done(0, 0);
}

static void callbacks_wait_for_their_grace_period(void **state)
{
    (void)state;
    unsigned long seq = 8;
    rcu_cblist_init(&list);
    rcu_cblist_enqueue(&list, &heads[0]);
    rcu_cblist_enqueue(&list, &heads[1]);
    assert_int_equal(list.counts[RCU_NEXT], 2);
    assert_true(rcu_cblist_accelerate(&list, rcu_seq_snap(seq)));     /* waits for GP ending at 12 */
    assert_int_equal(list.counts[RCU_WAIT], 2);
    assert_int_equal(list.wait_gp_seq, 12);
    seq = rcu_seq_started(seq);
    assert_false(rcu_cblist_advance(&list, seq));                     /* 9: still running */
    expect_done(0, 0);
    seq = rcu_seq_ended(seq);
    assert_true(rcu_cblist_advance(&list, seq));                      /* 12: over */
    assert_int_equal(rcu_cblist_count(&list), 2);
    expect_done(0, 2);
    assert_true(rcu_cblist_empty(&list));
}

/* Callbacks queued during GP n need GP n+1: they stay in NEXT while WAIT
 * waits for n, and follow once n is over. */
static void later_callbacks_wait_their_turn(void **state)
{
    (void)state;
    unsigned long seq = 8;
    rcu_cblist_init(&list);
    rcu_cblist_enqueue(&list, &heads[0]);
    rcu_cblist_accelerate(&list, rcu_seq_snap(seq));                  /* 12 */
    seq = rcu_seq_started(seq);                                       /* 9 */
    rcu_cblist_enqueue(&list, &heads[1]);
    rcu_cblist_enqueue(&list, &heads[2]);
    assert_false(rcu_cblist_accelerate(&list, rcu_seq_snap(seq)));    /* wants 16: cannot join */
    assert_int_equal(list.counts[RCU_NEXT], 2);
    seq = rcu_seq_ended(seq);                                         /* 12 */
    assert_true(rcu_cblist_advance(&list, seq));
    assert_true(rcu_cblist_accelerate(&list, rcu_seq_snap(seq)));     /* 16 */
    assert_int_equal(list.wait_gp_seq, 16);
    expect_done(0, 1);
    rcu_cblist_enqueue(&list, &heads[3]);
    assert_true(rcu_cblist_accelerate(&list, rcu_seq_snap(seq)));     /* also 16: merged */
    assert_int_equal(list.counts[RCU_WAIT], 3);
    seq = rcu_seq_ended(rcu_seq_started(seq));                        /* 16 */
    rcu_cblist_advance(&list, seq);
    expect_done(1, 3);
}

/* Order is kept across every segment move (rcu_barrier relies on it), and
 * taking DONE leaves the rest intact. */
static void order_is_kept(void **state)
{
    (void)state;
    unsigned long seq = 0;
    unsigned next = 0, expected_first = 0;
    rcu_cblist_init(&list);
    for (int round = 0; round < 5; round++) {
        for (int i = 0; i < 3; i++)
            rcu_cblist_enqueue(&list, &heads[next++]);
        rcu_cblist_accelerate(&list, rcu_seq_snap(seq));
        seq = rcu_seq_ended(rcu_seq_started(seq));
        rcu_cblist_advance(&list, seq);
        expect_done(expected_first, 3);
        expected_first += 3;
        assert_int_equal(rcu_cblist_count(&list), 0);
    }
}

static void take_done_keeps_waiting_callbacks(void **state)
{
    (void)state;
    unsigned long seq = 0;
    rcu_cblist_init(&list);
    rcu_cblist_enqueue(&list, &heads[0]);
    rcu_cblist_accelerate(&list, rcu_seq_snap(seq));
    seq = rcu_seq_ended(rcu_seq_started(seq));
    rcu_cblist_advance(&list, seq);
    rcu_cblist_enqueue(&list, &heads[1]);
    rcu_cblist_accelerate(&list, rcu_seq_snap(seq));
    rcu_cblist_enqueue(&list, &heads[2]);
    expect_done(0, 1);
    assert_int_equal(list.counts[RCU_WAIT], 1);
    assert_int_equal(list.counts[RCU_NEXT], 1);
    assert_ptr_equal(list.head, &heads[1]);
    rcu_cblist_enqueue(&list, &heads[3]);
    assert_ptr_equal(heads[2].next, &heads[3]);
    assert_int_equal(rcu_cblist_count(&list), 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(empty_list),
        cmocka_unit_test(callbacks_wait_for_their_grace_period),
        cmocka_unit_test(later_callbacks_wait_their_turn),
        cmocka_unit_test(order_is_kept),
        cmocka_unit_test(take_done_keeps_waiting_callbacks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
