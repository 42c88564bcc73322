/* A sleeping lock: its holder may sleep, allocate and wait for other
 * CPUs (a TLB shootdown), which a spinlock's holder may not; a task that
 * finds it held sleeps on its wait queue. Taken in process context only,
 * never inside a spinlock or with interrupts off, never twice by one
 * task. The waker wakes one waiter, the newest (sched/wait.h): fairness
 * between waiters was left out. */
#ifndef SCHED_SLEEP_LOCK_H
#define SCHED_SLEEP_LOCK_H

#include <stdbool.h>

#include "sched/wait.h"

struct sleep_lock {
    struct wait_queue waiters;
    struct task *holder;        /* 0 when free; set and cleared atomically */
    const char *name;
};

void sleep_lock_init(struct sleep_lock *lock, const char *name);
void sleep_lock_take(struct sleep_lock *lock);
void sleep_lock_give(struct sleep_lock *lock);
bool sleep_lock_held(const struct sleep_lock *lock);   /* by the current task */

#endif
