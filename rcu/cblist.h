/* A CPU's RCU callbacks, in one singly linked list cut into three
 * segments, oldest first:
 *
 *   DONE  their grace period has ended: ready to invoke
 *   WAIT  waiting for the GP whose end is wait_gp_seq (rcu/gp_seq.h)
 *   NEXT  queued since; no GP chosen yet
 *
 * tails[s] points at the `next` field of the last callback of segment s
 * (or, if s is empty, at the end of the segment before it; &head for the
 * first). So appending, and moving a whole segment into the one before
 * it, are O(1) pointer moves, and callbacks keep the order they were
 * queued in (rcu_barrier relies on that).
 *
 * Linux's rcu_segcblist has a fourth segment (NEXT_READY) so that two GP
 * numbers can be waited for at once; with three, callbacks queued while
 * WAIT waits for an earlier GP stay in NEXT until that GP ends, unless
 * they need the same GP (accelerate merges them). It costs at most one
 * extra GP of latency.
 *
 * Pure logic, no locks: the caller serializes (rcu/callbacks.c holds the
 * CPU's cblist lock). */
#ifndef RCU_CBLIST_H
#define RCU_CBLIST_H

#include <stdbool.h>
#include <stdint.h>

struct rcu_head {
    struct rcu_head *next;
    void (*func)(struct rcu_head *head);
};

enum rcu_segment { RCU_DONE, RCU_WAIT, RCU_NEXT, RCU_SEGMENTS };

struct rcu_cblist {
    struct rcu_head *head;
    struct rcu_head **tails[RCU_SEGMENTS];
    unsigned long wait_gp_seq;          /* meaningful while WAIT is not empty */
    unsigned long counts[RCU_SEGMENTS];
};

void rcu_cblist_init(struct rcu_cblist *list);
bool rcu_cblist_segment_empty(const struct rcu_cblist *list, enum rcu_segment segment);
bool rcu_cblist_empty(const struct rcu_cblist *list);
unsigned long rcu_cblist_count(const struct rcu_cblist *list);
void rcu_cblist_enqueue(struct rcu_cblist *list, struct rcu_head *head);

/* WAIT becomes DONE if gp_seq says its GP has ended. True if it moved. */
bool rcu_cblist_advance(struct rcu_cblist *list, unsigned long gp_seq);

/* Give NEXT a GP: snap (rcu_seq_snap of the current gp_seq, read after the
 * callbacks were queued). Moves NEXT into WAIT if WAIT is empty or waits
 * for that same GP. True if WAIT now waits for snap and needs a GP. */
bool rcu_cblist_accelerate(struct rcu_cblist *list, unsigned long snap);

/* Take the DONE segment out, in order; NULL-terminated. *count gets its length. */
struct rcu_head *rcu_cblist_take_done(struct rcu_cblist *list, unsigned long *count);

#endif
