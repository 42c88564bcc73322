/* Wait queues: sleep until a condition holds, woken by whoever makes it
 * hold. The sleeper marks itself sleeping before it checks the condition,
 * and the waker makes the condition true before it wakes; so whichever
 * comes second sees the other, and no wakeup is lost (docs/scheduling.md).
 * Waiters are kept newest first: wake_up_one() wakes the latest sleeper
 * (fine for the one-waiter handoffs it serves; a fair FIFO was left out). */
#ifndef SCHED_WAIT_H
#define SCHED_WAIT_H

#include <stdbool.h>

#include "kernel/base/spinlock.h"

struct task;

struct wait_entry {
    struct task *task;
    struct wait_entry *next;
    bool queued;
};

struct wait_queue {
    struct spinlock lock;
    struct wait_entry *head;
};

void wait_queue_init(struct wait_queue *queue);
void wait_prepare(struct wait_queue *queue, struct wait_entry *entry);   /* queue + mark sleeping */
void wait_finish(struct wait_queue *queue, struct wait_entry *entry);    /* unqueue + mark runnable */
unsigned wake_up_all(struct wait_queue *queue);
unsigned wake_up_one(struct wait_queue *queue);
/* For a queue whose waiters each wait for something of their own (a
 * futex: kernel/process/futex.c), which picks whom to wake itself. The
 * caller holds queue->lock. The entry goes to the tail: the oldest waiter
 * is woken first. */
void wait_add_tail_locked(struct wait_queue *queue, struct wait_entry *entry);
void wait_remove_locked(struct wait_queue *queue, struct wait_entry *entry);

/* Sleep until condition is true. */
#define wait_event(queue, condition)                                             \
    do {                                                                         \
        struct wait_entry wait_event_entry = { 0 };                                      \
        for (;;) {                                                               \
            wait_prepare((queue), &wait_event_entry);                            \
            if (condition)                                                       \
                break;                                                           \
            schedule();                                                          \
        }                                                                        \
        wait_finish((queue), &wait_event_entry);                                 \
    } while (0)

#endif
