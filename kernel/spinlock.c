/* Spinlocks: see kernel/spinlock.h. A test-and-test-and-set lock; the waiter
 * spins on a plain read with `pause` so that a vCPU sharing a host core with
 * the holder gives way (QEMU TCG runs several vCPUs per host core). */
#include "kernel/spinlock.h"

#include "arch/x86/cpu.h"
#include "kernel/panic.h"
#include "kernel/percpu.h"

void spin_lock_init(struct spinlock *lock, const char *name)
{
    lock->locked = 0;
    lock->owner_cpu = SPINLOCK_NO_OWNER;
    lock->saved_flags = 0;
    lock->name = name;
}

static void take_ownership(struct spinlock *lock, uint64_t flags)
{
    lock->owner_cpu = (int)this_cpu_id();
    lock->saved_flags = flags;
    this_cpu()->locks_held++;
}

void spin_lock(struct spinlock *lock)
{
    uint64_t flags = irq_save();

    if (lock->owner_cpu == (int)this_cpu_id() && lock->locked)
        panic("spin_lock: lock '%s' already held by this CPU (deadlock)", lock->name);
    while (__atomic_exchange_n(&lock->locked, 1, __ATOMIC_ACQUIRE)) {
        while (__atomic_load_n(&lock->locked, __ATOMIC_RELAXED))
            cpu_relax();
    }
    take_ownership(lock, flags);
}

bool spin_trylock(struct spinlock *lock)
{
    uint64_t flags = irq_save();

    if (__atomic_exchange_n(&lock->locked, 1, __ATOMIC_ACQUIRE)) {
        irq_restore(flags);
        return false;
    }
    take_ownership(lock, flags);
    return true;
}

void spin_unlock(struct spinlock *lock)
{
    uint64_t flags = lock->saved_flags;

    if (!lock->locked || lock->owner_cpu != (int)this_cpu_id())
        panic("spin_unlock: lock '%s' not held by this CPU (owner %d)", lock->name, lock->owner_cpu);
    lock->owner_cpu = SPINLOCK_NO_OWNER;
    this_cpu()->locks_held--;
    __atomic_store_n(&lock->locked, 0, __ATOMIC_RELEASE);
    irq_restore(flags);
}

bool spin_is_held_by_me(const struct spinlock *lock)
{
    return lock->locked && lock->owner_cpu == (int)this_cpu_id();
}
