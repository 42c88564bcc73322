/* Sleeping locks: see sched/sleep_lock.h. */
#include "sched/sleep_lock.h"

#include "kernel/base/panic.h"
#include "sched/task.h"

void sleep_lock_init(struct sleep_lock *lock, const char *name)
{
    wait_queue_init(&lock->waiters);
    lock->holder = 0;
    lock->name = name;
}

static bool try_take(struct sleep_lock *lock, struct task *self)
{
    struct task *free = 0;
    return __atomic_compare_exchange_n(&lock->holder, &free, self, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

void sleep_lock_take(struct sleep_lock *lock)
{
    struct task *self = current_task();
    if (__atomic_load_n(&lock->holder, __ATOMIC_RELAXED) == self)
        panic("sleep lock '%s' taken twice by one task", lock->name);
    if (try_take(lock, self))
        return;
    /* wait_event marks us sleeping before each try: a give between the
     * try and schedule() wakes us, so no wakeup is lost. */
    wait_event(&lock->waiters, try_take(lock, self));
}

void sleep_lock_give(struct sleep_lock *lock)
{
    if (__atomic_load_n(&lock->holder, __ATOMIC_RELAXED) != current_task())
        panic("sleep lock '%s' given by a task that does not hold it", lock->name);
    __atomic_store_n(&lock->holder, 0, __ATOMIC_RELEASE);
    wake_up_one(&lock->waiters);
}

bool sleep_lock_held(const struct sleep_lock *lock)
{
    return __atomic_load_n(&lock->holder, __ATOMIC_RELAXED) == current_task();
}
