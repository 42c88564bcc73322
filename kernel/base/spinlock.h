/* Spinlocks that disable interrupts while held and restore the interrupt
 * flag the holder had. Each lock knows its owner CPU, so taking a lock
 * twice on one CPU, or releasing a lock one does not hold, is caught and
 * reported as a panic instead of a silent deadlock. A wait that lasts too
 * long, and interrupts kept off too long by a lock, are reported by
 * kernel/base/lockcheck.c (docs/reliability.md, section 4). */
#ifndef KERNEL_SPINLOCK_H
#define KERNEL_SPINLOCK_H

#include <stdbool.h>
#include <stdint.h>

#define SPINLOCK_NO_OWNER (-1)

struct spinlock {
    volatile uint32_t locked;
    int owner_cpu;
    uint64_t saved_flags;               /* the owner's RFLAGS at spin_lock */
    const char *name;
    uint64_t taken_at;                  /* return address of the owner's spin_lock */
    volatile bool wait_reported;        /* lockcheck reports a lock once */
};

#define SPINLOCK_INIT(lock_name) { .locked = 0, .owner_cpu = SPINLOCK_NO_OWNER, .name = lock_name }

void spin_lock_init(struct spinlock *lock, const char *name);
void spin_lock(struct spinlock *lock);
bool spin_trylock(struct spinlock *lock);
void spin_unlock(struct spinlock *lock);
bool spin_is_held_by_me(const struct spinlock *lock);
/* For code whose comment says "the lock is held": panics, naming the lock,
 * the function and the owner, if this CPU does not hold it. A decision
 * taken a few instructions before the lock races only rarely; this makes
 * it fail every time. */
#define spin_assert_held(lock) spin_assert_held_in((lock), __func__)
void spin_assert_held_in(const struct spinlock *lock, const char *function);

#endif
