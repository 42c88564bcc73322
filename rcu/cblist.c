/* The segmented callback list: see rcu/cblist.h. */
#include "rcu/cblist.h"

#include <stddef.h>

#include "kernel/base/panic.h"
#include "rcu/gp_seq.h"

void rcu_cblist_init(struct rcu_cblist *list)
{
    list->head = NULL;
    for (int s = 0; s < RCU_SEGMENTS; s++) {
        list->tails[s] = &list->head;
        list->counts[s] = 0;
    }
    list->wait_gp_seq = 0;
}

bool rcu_cblist_segment_empty(const struct rcu_cblist *list, enum rcu_segment segment)
{
    struct rcu_head *const *start = segment == RCU_DONE ? &list->head : list->tails[segment - 1];
    return list->tails[segment] == start;
}

bool rcu_cblist_empty(const struct rcu_cblist *list)
{
    return list->head == NULL;
}

unsigned long rcu_cblist_count(const struct rcu_cblist *list)
{
    return list->counts[RCU_DONE] + list->counts[RCU_WAIT] + list->counts[RCU_NEXT];
}

void rcu_cblist_enqueue(struct rcu_cblist *list, struct rcu_head *head)
{
    head->next = NULL;
    *list->tails[RCU_NEXT] = head;
    list->tails[RCU_NEXT] = &head->next;
    list->counts[RCU_NEXT]++;
}

/* Segment `from` joins the end of the segment before it. */
static void merge_into_previous(struct rcu_cblist *list, enum rcu_segment from)
{
    ASSERT(from > RCU_DONE);
    list->tails[from - 1] = list->tails[from];
    list->counts[from - 1] += list->counts[from];
    list->counts[from] = 0;
}

bool rcu_cblist_advance(struct rcu_cblist *list, unsigned long gp_seq)
{
    if (rcu_cblist_segment_empty(list, RCU_WAIT) || !rcu_seq_done(gp_seq, list->wait_gp_seq))
        return false;
    merge_into_previous(list, RCU_WAIT);
    return true;
}

bool rcu_cblist_accelerate(struct rcu_cblist *list, unsigned long snap)
{
    bool wait_empty = rcu_cblist_segment_empty(list, RCU_WAIT);

    if (rcu_cblist_segment_empty(list, RCU_NEXT))
        return false;
    if (!wait_empty && list->wait_gp_seq != snap)
        return false;           /* WAIT needs an earlier GP: NEXT waits its turn */
    merge_into_previous(list, RCU_NEXT);
    list->wait_gp_seq = snap;
    return true;
}

struct rcu_head *rcu_cblist_take_done(struct rcu_cblist *list, unsigned long *count)
{
    *count = list->counts[RCU_DONE];
    if (rcu_cblist_segment_empty(list, RCU_DONE))
        return NULL;
    struct rcu_head *done = list->head;
    struct rcu_head **done_tail = list->tails[RCU_DONE];

    list->head = *done_tail;
    *done_tail = NULL;
    /* Every tail that pointed at DONE's end now points at the new head. */
    for (int s = 0; s < RCU_SEGMENTS; s++) {
        if (list->tails[s] == done_tail)
            list->tails[s] = &list->head;
    }
    list->counts[RCU_DONE] = 0;
    return done;
}
