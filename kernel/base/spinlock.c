/* Spinlocks: see kernel/base/spinlock.h. A test-and-test-and-set lock; the waiter
 * spins on a plain read with `pause` so that a vCPU sharing a host core with
 * the holder gives way (QEMU TCG runs several vCPUs per host core). A lock
 * records where its owner took it, for the lock check's reports
 * (kernel/base/lockcheck.h), which also hears of every wait and of every lock
 * that turns interrupts off and on again. */
#include "kernel/base/spinlock.h"

#include "arch/x86/cpu.h"
#include "kernel/base/lockcheck.h"
#include "kernel/base/panic.h"
#include "kernel/base/percpu.h"

void spin_lock_init(struct spinlock *lock, const char *name)
{
    lock->locked = 0;
    lock->owner_cpu = SPINLOCK_NO_OWNER;
    lock->saved_flags = 0;
    lock->name = name;
    lock->taken_at = 0;
    lock->wait_reported = false;
}

/* irqs_off_since: the TSC when this lock turned interrupts off, or 0 if
 * they were off already. */
static void take_ownership(struct spinlock *lock, uint64_t flags, uint64_t taken_at, uint64_t irqs_off_since)
{
    lock->owner_cpu = (int)this_cpu_id();
    lock->saved_flags = flags;
    lock->taken_at = taken_at;
    this_cpu()->locks_held++;
    if (irqs_off_since)
        lockcheck_irqs_off(lock, irqs_off_since);
}

static bool try_take(struct spinlock *lock)
{
    return !__atomic_exchange_n(&lock->locked, 1, __ATOMIC_ACQUIRE);
}

static void __attribute__((noinline)) wait_and_take(struct spinlock *lock)
{
    struct lock_wait wait;

    lockcheck_wait_begin(&wait);
    do {
        while (__atomic_load_n(&lock->locked, __ATOMIC_RELAXED)) {
            cpu_relax();
            lockcheck_wait_spin(&wait, lock);
        }
    } while (!try_take(lock));
}

void spin_lock(struct spinlock *lock)
{
    uint64_t flags = irq_save();
    uint64_t irqs_off_since = flags & RFLAGS_IF ? rdtsc() : 0;

    if (lock->owner_cpu == (int)this_cpu_id() && lock->locked)
        panic("spin_lock: lock '%s' already held by this CPU (deadlock)", lock->name);
    if (!try_take(lock))
        wait_and_take(lock);
    take_ownership(lock, flags, (uint64_t)__builtin_return_address(0) - 1, irqs_off_since);
}

bool spin_trylock(struct spinlock *lock)
{
    uint64_t flags = irq_save();

    if (!try_take(lock)) {
        irq_restore(flags);
        return false;
    }
    take_ownership(lock, flags, (uint64_t)__builtin_return_address(0) - 1, flags & RFLAGS_IF ? rdtsc() : 0);
    return true;
}

void spin_unlock(struct spinlock *lock)
{
    uint64_t flags = lock->saved_flags;

    if (!lock->locked || lock->owner_cpu != (int)this_cpu_id())
        panic("spin_unlock: lock '%s' not held by this CPU (owner %d)", lock->name, lock->owner_cpu);
    if (flags & RFLAGS_IF)
        lockcheck_irqs_on(lock);
    lock->owner_cpu = SPINLOCK_NO_OWNER;
    this_cpu()->locks_held--;
    __atomic_store_n(&lock->locked, 0, __ATOMIC_RELEASE);
    irq_restore(flags);
}

bool spin_is_held_by_me(const struct spinlock *lock)
{
    return lock->locked && lock->owner_cpu == (int)this_cpu_id();
}

void spin_assert_held_in(const struct spinlock *lock, const char *function)
{
    if (!spin_is_held_by_me(lock))
        panic("%s: lock '%s' not held by this CPU (owner %d)", function, lock->name, lock->owner_cpu);
}
