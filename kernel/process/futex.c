/* Futexes, as Linux 6.1's kernel/futex/ (docs/futex.md).
 *
 * A waiter is a struct futex_waiter on its kernel stack, queued on one of
 * FUTEX_BUCKETS wait queues (sched/wait.h) chosen by a hash of its key; the
 * queue's lock is the bucket lock. A key is (address space, address,
 * shared or not): a private futex's, and a shared one's on private memory
 * (a parent and a child that share a page copy-on-write after fork are
 * not joined, a vfork child and its parent are). A shared futex on
 * MAP_SHARED memory is keyed by the page behind it and the offset (no
 * address space): the processes that map it meet there. The page is held
 * by its mappings, not by the waiter: one unmapped by all while waited on
 * leaves a key no wake can reach but a reuse of that page.
 *
 * The order that loses no wakeup, as Linux's: the waiter takes the bucket
 * lock, reads the word, and queues itself only if it still holds the
 * value expected; the waker changes the word in user space first, then
 * takes the bucket lock. The word is read under the lock without faulting
 * (interrupts are off), through the direct map and without the address
 * space's lock (kernel/mm/uaccess.h); a page not there yet is faulted in
 * outside it, and the step tried again.
 *
 * A woken waiter has been taken off its queue by the waker, whose last
 * touch of it is `done`: the waiter returns only after seeing it, as its
 * futex_waiter lives on its stack.
 *
 * The PI operations keep Linux's ownership protocol (owner TID in the
 * word, FUTEX_WAITERS, a hand-over at unlock to the waiter of highest
 * priority, the oldest among equals), and the owner inherits the highest
 * priority of the waiters queued for it, along a chain of at most
 * PI_CHAIN_MAX owners that wait in turn (pi_update; docs/realtime.md).
 * Left out: WAIT_REQUEUE_PI and CMP_REQUEUE_PI (ENOSYS), futex_waitv. */
#include "kernel/process/futex.h"

#include "arch/x86/clock.h"
#include "arch/x86/cpu.h"
#include "kernel/base/printk.h"
#include "kernel/base/spinlock.h"
#include "kernel/entry/syscall.h"
#include "kernel/lib/errno.h"
#include "kernel/mm/address_space.h"
#include "kernel/lib/linux_abi.h"
#include "kernel/mm/uaccess.h"
#include "kernel/process/process.h"
#include "kernel/process/signal.h"
#include "kernel/time/timers.h"
#include "sched/task.h"
#include "sched/wait.h"

#define FUTEX_BUCKETS 256
/* Linux's TASK_SIZE_MAX: its last page is never user memory. */
#define FUTEX_ADDRESS_END (USER_SPACE_END - 4096)

/* internal flags */
#define FLAG_SHARED      1u     /* no FUTEX_PRIVATE_FLAG */
#define FLAG_REALTIME    2u     /* FUTEX_CLOCK_REALTIME */
#define FLAG_HAS_TIMEOUT 4u     /* for the restart of a wait */

/* shared: no FUTEX_PRIVATE_FLAG. Linux keys a shared futex on private
 * memory by the same address space and address, but marks it
 * (FUT_OFF_MMSHARED): a private wake does not find a shared waiter. */
struct futex_key {
    const struct address_space *space;
    uint64_t address;
    bool shared;
};

struct futex_waiter {
    struct wait_entry entry;        /* first: a queue's entry is its waiter */
    struct futex_key key;
    uint32_t bitset;
    struct wait_queue *bucket;      /* queued there; NULL once a waker took it off (atomic) */
    volatile bool done;             /* the waker no longer touches it */
    bool pi;                        /* in LOCK_PI: woken by a hand-over only */
    int tid;                        /* a PI waiter's TID, and the owner it waits for */
    int owner_tid;
};

static struct wait_queue buckets[FUTEX_BUCKETS] = {
    [0 ... FUTEX_BUCKETS - 1] = { .lock = SPINLOCK_INIT("futex_bucket"), .head = 0 },
};
static int pi_waiters;          /* queued in LOCK_PI anywhere: an exit looks for owners only if any */
/* Serializes pi_update(): the last to run saw the queues as they ended. */
static struct spinlock pi_lock = SPINLOCK_INIT("futex_pi");
#define PI_CHAIN_MAX 8

/* The thread identity in a PI word and a robust list. */
static int current_tid(void)
{
    return current_thread()->tid;
}

/* The owner a PI waiter names, as Linux's futex_state: alive, releasing
 * its futexes (futex_exit_robust_list() marks it first), or dead. Asked
 * with no bucket lock held: process_tree_lock nests under nothing here. */
enum owner_state { OWNER_ALIVE, OWNER_EXITING, OWNER_DEAD };

static enum owner_state owner_state(int tid)
{
    spin_lock(&process_tree_lock);
    struct thread *owner = thread_find_locked(tid);
    enum owner_state state = !owner || owner->exited ? OWNER_DEAD
                             : owner->futex_exiting  ? OWNER_EXITING
                                                     : OWNER_ALIVE;
    spin_unlock(&process_tree_lock);
    return state;
}

static void mark_exiting(bool exiting)
{
    spin_lock(&process_tree_lock);
    current_thread()->futex_exiting = exiting;
    spin_unlock(&process_tree_lock);
}

static struct wait_queue *bucket_of(const struct futex_key *key)
{
    uint64_t mixed = ((uint64_t)key->space >> 4) ^ (key->address >> 2);
    return &buckets[(mixed * 0x9e3779b97f4a7c15ul) >> 56];
}

static bool key_equal(const struct futex_key *a, const struct futex_key *b)
{
    return a->space == b->space && a->address == b->address && a->shared == b->shared;
}

static struct futex_waiter *waiter_of(struct wait_entry *entry)
{
    return (struct futex_waiter *)entry;
}

/* Linux's get_futex_key(): EINVAL unaligned, EFAULT outside the user
 * half; a shared futex's page must be mapped (for writing if asked). */
static long key_get(uint64_t address, unsigned flags, bool for_write, struct futex_key *key)
{
    if (address % sizeof(uint32_t))
        return -EINVAL;
    if (address > FUTEX_ADDRESS_END - sizeof(uint32_t))
        return -EFAULT;
    if (flags & FLAG_SHARED) {
        uint32_t value;
        if (for_write ? user_fault_in_writable((void *)address, sizeof(value)) < 0
                      : copy_from_user(&value, (const void *)address, sizeof(value)) < 0)
            return -EFAULT;
    }
    *key = (struct futex_key){ current_process()->memory, address, flags & FLAG_SHARED };
    uint64_t physical = key->shared ? address_space_shared_address(current_process()->memory, address) : 0;
    if (physical)   /* MAP_SHARED memory: the page and offset, whoever maps it where */
        *key = (struct futex_key){ 0, physical, true };
    return 0;
}

/* The word at address, read with bucket's lock held (-EFAULT: not mapped
 * now; fault it in outside the lock and try again). A waiter's check of
 * the value must be made here: read before the lock, a waker's store and
 * wake can both come between the read and the queueing, and the wakeup is
 * lost. The race is too narrow to be seen under QEMU, so the lock is
 * checked instead, every time. */
static int read_word_locked(struct wait_queue *bucket, uint64_t address, uint32_t *value)
{
    spin_assert_held(&bucket->lock);
    return user_read_u32_nofault((const uint32_t *)address, value);
}

static void lock_two(struct wait_queue *a, struct wait_queue *b)
{
    if (a > b) {
        struct wait_queue *t = a;
        a = b;
        b = t;
    }
    spin_lock(&a->lock);
    if (b != a)
        spin_lock(&b->lock);
}

static void unlock_two(struct wait_queue *a, struct wait_queue *b)
{
    if (b != a)
        spin_unlock(&b->lock);
    spin_unlock(&a->lock);
}

/* Take waiter off bucket (held) and wake it; it may be gone once `done`. */
static void wake_waiter(struct wait_queue *bucket, struct futex_waiter *waiter)
{
    struct task *task = waiter->entry.task;
    wait_remove_locked(bucket, &waiter->entry);
    if (waiter->pi)
        __atomic_sub_fetch(&pi_waiters, 1, __ATOMIC_RELAXED);
    __atomic_store_n(&waiter->bucket, (struct wait_queue *)0, __ATOMIC_RELEASE);
    wake_up_task(task);
    __atomic_store_n(&waiter->done, true, __ATOMIC_RELEASE);
}

static void enqueue_locked(struct wait_queue *bucket, struct futex_waiter *waiter)
{
    waiter->entry.task = current_task();
    waiter->done = false;
    __atomic_store_n(&waiter->bucket, bucket, __ATOMIC_RELAXED);
    wait_add_tail_locked(bucket, &waiter->entry);
    if (waiter->pi)
        __atomic_add_fetch(&pi_waiters, 1, __ATOMIC_RELAXED);
}

/* Take ourselves off our queue (a requeue may have moved us): true if we
 * were still on it, false if a waker had taken us off (woken). */
static bool unqueue(struct futex_waiter *waiter)
{
    for (;;) {
        struct wait_queue *bucket = __atomic_load_n(&waiter->bucket, __ATOMIC_ACQUIRE);
        if (!bucket)
            break;
        spin_lock(&bucket->lock);
        if (bucket == waiter->bucket) {
            wait_remove_locked(bucket, &waiter->entry);
            if (waiter->pi)
                __atomic_sub_fetch(&pi_waiters, 1, __ATOMIC_RELAXED);
            waiter->bucket = 0;
            spin_unlock(&bucket->lock);
            return true;
        }
        spin_unlock(&bucket->lock);
    }
    while (!__atomic_load_n(&waiter->done, __ATOMIC_ACQUIRE))
        cpu_relax();
    return false;
}

/* --- timeouts ----------------------------------------------------------- */

struct futex_timeout {
    struct timer timer;
    struct task *task;
    volatile bool expired;
};

static void timeout_fired(struct timer *timer)
{
    struct futex_timeout *timeout = timer->data;
    __atomic_store_n(&timeout->expired, true, __ATOMIC_SEQ_CST);
    wake_up_task(timeout->task);
}

static void timeout_start(struct futex_timeout *timeout, uint64_t deadline)
{
    timeout->task = current_task();
    timeout->expired = false;
    timer_init(&timeout->timer, timeout_fired, timeout);
    if (deadline <= clock_now())
        timeout->expired = true;
    else
        timer_start(&timeout->timer, deadline, false);
}

static void timeout_stop(struct futex_timeout *timeout)
{
    timer_cancel_sync(&timeout->timer);
}

/* Sleep, queued (the state set under the bucket lock), until a waker takes
 * us off, the timeout passes, or a signal comes. */
static void sleep_queued(struct futex_waiter *waiter, struct futex_timeout *timeout)
{
    for (;;) {
        if (!__atomic_load_n(&waiter->bucket, __ATOMIC_ACQUIRE) || (timeout && timeout->expired) ||
            signal_pending())
            break;
        schedule();
        set_current_state(TASK_SLEEPING);
    }
    set_current_state(TASK_RUNNABLE);
}

/* --- WAIT and WAKE ------------------------------------------------------ */

/* Queue waiter if the word at address holds expected: 0 (queued, the
 * task marked sleeping), -EAGAIN, or -EFAULT. */
static long queue_if_value(struct futex_waiter *waiter, uint64_t address, uint32_t expected)
{
    struct wait_queue *bucket = bucket_of(&waiter->key);
    for (;;) {
        uint32_t value;
        spin_lock(&bucket->lock);
        if (read_word_locked(bucket, address, &value) == 0) {
            if (value != expected) {
                spin_unlock(&bucket->lock);
                return -EAGAIN;
            }
            enqueue_locked(bucket, waiter);
            set_current_state(TASK_SLEEPING);
            spin_unlock(&bucket->lock);
            return 0;
        }
        spin_unlock(&bucket->lock);
        if (copy_from_user(&value, (const void *)address, sizeof(value)) < 0)
            return -EFAULT;
    }
}

static long wait_resume(struct restart_block *block);

/* deadline: a clock_now() time, or NULL for none. */
static long futex_wait(uint64_t address, unsigned flags, uint32_t value, const uint64_t *deadline,
                       uint32_t bitset)
{
    struct futex_waiter waiter = { .bitset = bitset };
    struct futex_timeout timeout;
    long result;

    if (!bitset)
        return -EINVAL;
    result = key_get(address, flags, false, &waiter.key);
    if (result)
        return result;
    if (deadline)
        timeout_start(&timeout, *deadline);
    for (;;) {
        result = queue_if_value(&waiter, address, value);
        if (result)
            break;
        sleep_queued(&waiter, deadline ? &timeout : 0);
        result = 0;
        if (!unqueue(&waiter))
            break;                          /* woken: success, whatever else happened */
        result = -ETIMEDOUT;
        if (deadline && timeout.expired)
            break;
        if (!signal_pending())
            continue;                       /* a spurious wakeup */
        result = -ERESTARTSYS;
        if (!deadline)
            break;
        /* With a timeout, the restart goes on to the same deadline. */
        current_thread()->restart = (struct restart_block){
            .resume = wait_resume, .deadline_ns = *deadline, .futex_address = address,
            .futex_value = value, .futex_bitset = bitset, .futex_flags = flags | FLAG_HAS_TIMEOUT };
        result = -ERESTART_RESTARTBLOCK;
        break;
    }
    if (deadline)
        timeout_stop(&timeout);
    return result;
}

static long wait_resume(struct restart_block *block)
{
    uint64_t deadline = block->deadline_ns;
    return futex_wait(block->futex_address, block->futex_flags, block->futex_value,
                      block->futex_flags & FLAG_HAS_TIMEOUT ? &deadline : 0, block->futex_bitset);
}

/* Wake up to count of the waiters on key in bucket (held) whose bitset
 * meets bitset; a PI waiter there is -EINVAL (as Linux: woken only by
 * UNLOCK_PI). Adds the number woken to *woken. */
static long wake_locked(struct wait_queue *bucket, const struct futex_key *key, int count, uint32_t bitset,
                        long *woken)
{
    struct wait_entry *entry, *next;
    for (entry = bucket->head; entry; entry = next) {
        next = entry->next;
        struct futex_waiter *waiter = waiter_of(entry);
        if (!key_equal(&waiter->key, key))
            continue;
        if (waiter->pi)
            return -EINVAL;
        if (!(waiter->bitset & bitset))
            continue;
        wake_waiter(bucket, waiter);
        if (++*woken >= count)      /* a count of 0 or less wakes one, as Linux */
            break;
    }
    return 0;
}

static long futex_wake(uint64_t address, unsigned flags, int count, uint32_t bitset)
{
    struct futex_key key;
    long woken = 0;

    if (!bitset)
        return -EINVAL;
    long error = key_get(address, flags, false, &key);
    if (error)
        return error;
    struct wait_queue *bucket = bucket_of(&key);
    spin_lock(&bucket->lock);
    error = wake_locked(bucket, &key, count, bitset, &woken);
    spin_unlock(&bucket->lock);
    return error ? error : woken;
}

/* --- REQUEUE, CMP_REQUEUE ----------------------------------------------- */

static long futex_requeue(uint64_t address, unsigned flags, uint64_t address2, int wake_count,
                          int requeue_count, const uint32_t *expected)
{
    struct futex_key key, key2;
    long error;

    if (wake_count < 0 || requeue_count < 0)
        return -EINVAL;
    if ((error = key_get(address, flags, false, &key)) || (error = key_get(address2, flags, false, &key2)))
        return error;
    struct wait_queue *bucket = bucket_of(&key), *bucket2 = bucket_of(&key2);
    for (;;) {
        lock_two(bucket, bucket2);
        if (!expected)
            break;
        uint32_t value;
        if (read_word_locked(bucket, address, &value) == 0) {
            if (value == *expected)
                break;
            unlock_two(bucket, bucket2);
            return -EAGAIN;
        }
        unlock_two(bucket, bucket2);
        if (copy_from_user(&value, (const void *)address, sizeof(value)) < 0)
            return -EFAULT;
    }
    long moved = 0;     /* woken, then requeued */
    struct wait_entry **link = &bucket->head;
    while (*link && moved - wake_count < requeue_count) {
        struct wait_entry *entry = *link;
        struct futex_waiter *waiter = waiter_of(entry);
        if (!key_equal(&waiter->key, &key)) {
            link = &entry->next;
            continue;
        }
        if (waiter->pi) {
            error = -EINVAL;
            break;
        }
        if (++moved <= wake_count) {
            wake_waiter(bucket, waiter);            /* *link is the next one now */
        } else if (bucket2 == bucket) {
            waiter->key = key2;                     /* stays in place, as Linux's */
            link = &entry->next;
        } else {
            wait_remove_locked(bucket, entry);
            waiter->key = key2;
            wait_add_tail_locked(bucket2, entry);
            __atomic_store_n(&waiter->bucket, bucket2, __ATOMIC_RELEASE);
        }
    }
    unlock_two(bucket, bucket2);
    return error ? error : moved;
}

/* --- WAKE_OP ------------------------------------------------------------ */

#define FUTEX_OP_SET  0
#define FUTEX_OP_ADD  1
#define FUTEX_OP_OR   2
#define FUTEX_OP_ANDN 3
#define FUTEX_OP_XOR  4
#define FUTEX_OP_OPARG_SHIFT 8

static int32_t sign_extend12(uint32_t value)
{
    return (int32_t)(value << 20) >> 20;
}

/* The operation of an encoded op on the word (faulting nothing in): its
 * comparison of the old value (1 or 0), -EFAULT, or -ENOSYS for an
 * unknown operation (nothing written) or comparison (written: Linux
 * compares after the operation). */
static long atomic_op_nofault(uint32_t encoded, uint32_t *word)
{
    unsigned op = (encoded >> 28) & 7, compare = (encoded >> 24) & 15;
    int32_t argument = sign_extend12((encoded >> 12) & 0xfff), compare_to = sign_extend12(encoded & 0xfff);
    uint32_t old, found;

    if (encoded & (FUTEX_OP_OPARG_SHIFT << 28)) {
        if (argument < 0 || argument > 31)
            argument &= 31;         /* Linux warns and does the same */
        argument = (int32_t)(1u << argument);
    }
    if (op > FUTEX_OP_XOR)
        return -ENOSYS;
    if (user_read_u32_nofault(word, &old) < 0)
        return -EFAULT;
    for (;;) {
        uint32_t new = op == FUTEX_OP_SET    ? (uint32_t)argument
                       : op == FUTEX_OP_ADD  ? old + (uint32_t)argument
                       : op == FUTEX_OP_OR   ? old | (uint32_t)argument
                       : op == FUTEX_OP_ANDN ? old & ~(uint32_t)argument
                                             : old ^ (uint32_t)argument;
        if (user_cmpxchg_u32_nofault(word, old, new, &found) < 0)
            return -EFAULT;
        if (found == old)
            break;
        old = found;
    }
    int32_t value = (int32_t)old;
    switch (compare) {
    case 0: return value == compare_to;
    case 1: return value != compare_to;
    case 2: return value < compare_to;
    case 3: return value >= compare_to;
    case 4: return value <= compare_to;
    case 5: return value > compare_to;
    default: return -ENOSYS;
    }
}

static long futex_wake_op(uint64_t address, unsigned flags, uint64_t address2, int count, int count2,
                          uint32_t encoded)
{
    struct futex_key key, key2;
    long error, woken = 0, op_result;

    if ((error = key_get(address, flags, false, &key)) || (error = key_get(address2, flags, true, &key2)))
        return error;
    struct wait_queue *bucket = bucket_of(&key), *bucket2 = bucket_of(&key2);
    for (;;) {
        lock_two(bucket, bucket2);
        op_result = atomic_op_nofault(encoded, (uint32_t *)address2);
        if (op_result >= 0)
            break;
        unlock_two(bucket, bucket2);
        if (op_result != -EFAULT)
            return op_result;
        if (user_fault_in_writable((void *)address2, sizeof(uint32_t)) < 0)
            return -EFAULT;
    }
    error = wake_locked(bucket, &key, count, FUTEX_BITSET_MATCH_ANY, &woken);
    if (!error && op_result > 0) {
        long woken2 = 0;
        error = wake_locked(bucket2, &key2, count2, FUTEX_BITSET_MATCH_ANY, &woken2);
        woken += woken2;
    }
    unlock_two(bucket, bucket2);
    return error ? error : woken;
}

/* --- PI: LOCK_PI, TRYLOCK_PI, UNLOCK_PI --------------------------------- */

static struct futex_waiter *first_pi_waiter(struct wait_queue *bucket, const struct futex_key *key)
{
    for (struct wait_entry *entry = bucket->head; entry; entry = entry->next) {
        struct futex_waiter *waiter = waiter_of(entry);
        if (waiter->pi && key_equal(&waiter->key, key))
            return waiter;
    }
    return 0;
}

/* The one a PI futex goes to: the highest priority, the oldest among equals. */
static struct futex_waiter *top_pi_waiter(struct wait_queue *bucket, const struct futex_key *key)
{
    struct futex_waiter *top = 0;
    for (struct wait_entry *entry = bucket->head; entry; entry = entry->next) {
        struct futex_waiter *waiter = waiter_of(entry);
        if (waiter->pi && key_equal(&waiter->key, key) && (!top || entry->task->prio > top->entry.task->prio))
            top = waiter;
    }
    return top;
}

/* The priority tid's PI waiters lend it: the highest of theirs, their
 * own lent ones included. */
static unsigned pi_owed(int tid)
{
    unsigned owed = 0;
    for (int i = 0; i < FUTEX_BUCKETS; i++) {
        struct wait_queue *bucket = &buckets[i];
        spin_lock(&bucket->lock);
        for (struct wait_entry *entry = bucket->head; entry; entry = entry->next) {
            struct futex_waiter *waiter = waiter_of(entry);
            if (waiter->pi && waiter->owner_tid == tid && entry->task->prio > owed)
                owed = entry->task->prio;
        }
        spin_unlock(&bucket->lock);
    }
    return owed;
}

/* Give the thread tid the priority its PI waiters lend it now (none: its
 * own again), then, if that changed, the owner it waits for in LOCK_PI,
 * and so on for PI_CHAIN_MAX owners. Called after each change of the
 * queues that matters (a real-time waiter queued or gone, a hand-over by
 * a boosted owner), with no lock held; runs one at a time, so the last
 * call saw the final queues. A walk of every bucket: only real-time
 * waiters and boosted owners pay it. */
static void pi_update(int tid)
{
    spin_lock(&pi_lock);
    for (int link = 0; tid && link < PI_CHAIN_MAX; link++) {
        unsigned owed = pi_owed(tid);
        int next = 0;
        spin_lock(&process_tree_lock);
        struct thread *owner = thread_find_locked(tid);
        if (owner && !owner->exited) {
            struct task *task = owner->task;
            spin_lock(&task->lock);
            if (task->pi_priority != owed) {
                sched_set_priority(task, task->policy, task->rt_priority, owed);
                next = __atomic_load_n(&owner->pi_blocked_on, __ATOMIC_RELAXED);
            }
            spin_unlock(&task->lock);
        }
        spin_unlock(&process_tree_lock);
        tid = next;
    }
    spin_unlock(&pi_lock);
}

/* Give a PI futex whose word holds seen to its first waiter (bucket
 * held): the word gets its TID, FUTEX_WAITERS (kept while there may be
 * waiters) and keep_bits of seen; the other waiters now wait for it.
 * 0, -EAGAIN if the word changed meanwhile, -EFAULT. */
static long hand_over_locked(struct wait_queue *bucket, struct futex_waiter *next_owner, uint64_t address,
                             uint32_t seen, uint32_t keep_bits)
{
    uint32_t found;
    uint32_t new = (seen & keep_bits) | FUTEX_WAITERS | (uint32_t)next_owner->tid;
    if (user_cmpxchg_u32_nofault((uint32_t *)address, seen, new, &found) < 0)
        return -EFAULT;
    if (found != seen)
        return -EAGAIN;
    struct futex_key key = next_owner->key;
    wake_waiter(bucket, next_owner);
    for (struct wait_entry *entry = bucket->head; entry; entry = entry->next) {
        struct futex_waiter *waiter = waiter_of(entry);
        if (waiter->pi && key_equal(&waiter->key, &key))
            waiter->owner_tid = (int)(new & FUTEX_TID_MASK);
    }
    return 0;
}

/* Linux's futex_lock_pi_atomic(), bucket held: 1 if we took the lock,
 * 0 if it is owned (FUTEX_WAITERS now set, *now the word so, *owner its
 * TID), or -EDEADLK, -EAGAIN (the word changed: try again), -EFAULT
 * (fault the page in and try again). Whether the owner lives is asked
 * after, without the bucket lock. */
static long lock_pi_atomic(struct wait_queue *bucket, const struct futex_key *key, uint64_t address, int tid,
                           int *owner, uint32_t *now)
{
    uint32_t *word = (uint32_t *)address, value, found;

    if (user_read_u32_nofault(word, &value) < 0)
        return -EFAULT;
    if ((value & FUTEX_TID_MASK) == (uint32_t)tid)
        return -EDEADLK;
    bool waiters = first_pi_waiter(bucket, key) != 0;
    if (!(value & FUTEX_TID_MASK)) {
        /* Free (or its owner died): ours, the owner-died bit kept. */
        uint32_t new = (value & FUTEX_OWNER_DIED) | (uint32_t)tid | (waiters ? FUTEX_WAITERS : 0);
        if (user_cmpxchg_u32_nofault(word, value, new, &found) < 0)
            return -EFAULT;
        return found == value ? 1 : -EAGAIN;
    }
    if (user_cmpxchg_u32_nofault(word, value, value | FUTEX_WAITERS, &found) < 0)
        return -EFAULT;
    if (found != value)
        return -EAGAIN;
    *owner = (int)(value & FUTEX_TID_MASK);
    *now = value | FUTEX_WAITERS;
    return 0;
}

static long futex_lock_pi(uint64_t address, unsigned flags, const uint64_t *deadline, bool trylock)
{
    struct futex_waiter waiter = { .bitset = FUTEX_BITSET_MATCH_ANY, .pi = true, .tid = current_tid() };
    struct futex_timeout timeout;
    long result = key_get(address, flags, true, &waiter.key);
    if (result)
        return result;
    struct wait_queue *bucket = bucket_of(&waiter.key);
    if (deadline)
        timeout_start(&timeout, *deadline);
    for (;;) {
        int owner = 0;
        uint32_t now = 0;
        spin_lock(&bucket->lock);
        result = lock_pi_atomic(bucket, &waiter.key, address, waiter.tid, &owner, &now);
        if (result == 0 && !trylock) {
            waiter.owner_tid = owner;
            enqueue_locked(bucket, &waiter);
            set_current_state(TASK_SLEEPING);
        }
        spin_unlock(&bucket->lock);
        if (result == -EAGAIN)
            continue;
        if (result == -EFAULT) {
            if (user_fault_in_writable((void *)address, sizeof(uint32_t)) < 0)
                break;
            continue;
        }
        if (result == 1) {
            result = 0;
            break;
        }
        if (result < 0)
            break;
        /* Owned. Queued first, then the owner looked at: an owner that
         * starts exiting after this look finds us in its walk. */
        enum owner_state state = owner_state(owner);
        if (state != OWNER_ALIVE) {
            set_current_state(TASK_RUNNABLE);
            if (!trylock && !unqueue(&waiter)) {
                result = 0;         /* handed over meanwhile: ours */
                break;
            }
            if (state == OWNER_EXITING) {
                yield();            /* until its walk is done */
                continue;
            }
            /* Linux's handle_exit_race(): the word unchanged since, the owner is gone */
            uint32_t seen;
            if (copy_from_user(&seen, (const void *)address, sizeof(seen)) < 0) {
                result = -EFAULT;
                break;
            }
            if (seen == now) {
                result = -ESRCH;
                break;
            }
            continue;
        }
        if (trylock) {
            result = -EAGAIN;       /* EWOULDBLOCK */
            break;
        }
        bool lends = current_task()->prio != 0;
        current_thread()->pi_blocked_on = owner;
        if (lends)
            pi_update(owner);
        sleep_queued(&waiter, deadline ? &timeout : 0);
        current_thread()->pi_blocked_on = 0;
        result = 0;
        bool handed_over = !unqueue(&waiter);
        if (lends && !handed_over)
            pi_update(waiter.owner_tid);    /* no longer lends it anything */
        if (handed_over)
            break;                  /* ours */
        result = -ETIMEDOUT;
        if (deadline && timeout.expired)
            break;
        result = -ERESTARTNOINTR;   /* the lock is still wanted after a handler */
        if (signal_pending())
            break;
    }
    if (deadline)
        timeout_stop(&timeout);
    return result;
}

static long futex_unlock_pi(uint64_t address, unsigned flags)
{
    struct futex_key key;
    int tid = current_tid();

    for (;;) {
        uint32_t value, found;
        if (copy_from_user(&value, (const void *)address, sizeof(value)) < 0)
            return -EFAULT;
        if ((value & FUTEX_TID_MASK) != (uint32_t)tid)
            return -EPERM;
        long error = key_get(address, flags, true, &key);
        if (error)
            return error;
        struct wait_queue *bucket = bucket_of(&key);
        spin_lock(&bucket->lock);
        struct futex_waiter *next_owner = top_pi_waiter(bucket, &key);
        int next_tid = next_owner ? next_owner->tid : 0;
        if (next_owner) {
            error = hand_over_locked(bucket, next_owner, address, value, 0);
        } else if (user_cmpxchg_u32_nofault((uint32_t *)address, value, 0, &found) < 0) {
            error = -EFAULT;
        } else if (found != value) {
            error = -EAGAIN;
        }
        spin_unlock(&bucket->lock);
        if (error == -EFAULT && user_fault_in_writable((void *)address, sizeof(uint32_t)) < 0)
            return -EFAULT;
        if (error)
            continue;
        if (current_task()->pi_priority)
            pi_update(tid);         /* what the waiters of the futexes we still own lend */
        if (next_tid && __atomic_load_n(&pi_waiters, __ATOMIC_RELAXED))
            pi_update(next_tid);    /* the waiters left now lend to the new owner */
        return 0;
    }
}

/* At a thread's death: its PI futexes with waiters queued (in its own
 * address space: a shared one needs MAP_SHARED) go to their first waiter,
 * the owner-died bit kept (Linux's exit_pi_state_list). */
static void exit_pi_futexes(int tid)
{
    if (!__atomic_load_n(&pi_waiters, __ATOMIC_RELAXED))
        return;
    const struct address_space *space = current_process()->memory;
    for (int i = 0; i < FUTEX_BUCKETS; i++) {
        struct wait_queue *bucket = &buckets[i];
        for (int tries = 0; tries < 4096; tries++) {     /* each try hands one over or sets one aside */
            spin_lock(&bucket->lock);
            struct futex_waiter *found = 0;
            for (struct wait_entry *entry = bucket->head; entry && !found; entry = entry->next) {
                struct futex_waiter *waiter = waiter_of(entry);
                if (waiter->pi && waiter->owner_tid == tid && waiter->key.space == space)
                    found = waiter;
            }
            uint32_t value;
            bool again = found != 0;
            if (found && (user_read_u32_nofault((const uint32_t *)found->key.address, &value) < 0 ||
                          (value & FUTEX_TID_MASK) != (uint32_t)tid ||
                          hand_over_locked(bucket, found, found->key.address, value, FUTEX_OWNER_DIED) == -EFAULT))
                found->owner_tid = 0;       /* not ours, or its page is gone: not looked at again */
            spin_unlock(&bucket->lock);
            if (!again)
                break;
        }
    }
}

/* --- robust lists ------------------------------------------------------- */

/* Linux's handle_futex_death(): false ends the walk. */
static bool futex_death(uint64_t address, int tid, bool pi, bool pending)
{
    uint32_t value, found;

    if (address % sizeof(uint32_t))
        return false;
    for (;;) {
        if (copy_from_user(&value, (const void *)address, sizeof(value)) < 0)
            return false;
        uint32_t owner = value & FUTEX_TID_MASK;
        if (pending && !pi && !owner) {
            /* Killed between unlocking and waking: wake for it. */
            futex_wake(address, FLAG_SHARED, 1, FUTEX_BITSET_MATCH_ANY);
            return true;
        }
        if (owner != (uint32_t)tid)
            return true;
        uint32_t new = (value & FUTEX_WAITERS) | FUTEX_OWNER_DIED;
        if (user_fault_in_writable((void *)address, sizeof(uint32_t)) < 0)
            return false;
        uint64_t flags = irq_save();    /* the nofault access wants them off */
        int error = user_cmpxchg_u32_nofault((uint32_t *)address, value, new, &found);
        irq_restore(flags);
        if (error < 0)
            continue;
        if (found != value)
            continue;
        if (!pi && (value & FUTEX_WAITERS))
            futex_wake(address, FLAG_SHARED, 1, FUTEX_BITSET_MATCH_ANY);
        return true;
    }
}

/* One pointer of the list: the entry, and bit 0, which marks a PI futex. */
static bool fetch_entry(uint64_t from, uint64_t *entry, bool *pi)
{
    uint64_t value;
    if (copy_from_user(&value, (const void *)from, sizeof(value)) < 0)
        return false;
    *entry = value & ~1ul;
    *pi = value & 1;
    return true;
}

/* struct robust_list_head: { next; long futex_offset; list_op_pending } */
static void walk_robust_list(uint64_t head, int tid)
{
    uint64_t entry, pending, next = 0;
    int64_t offset;
    bool pi, pending_pi, next_pi = false;
    unsigned limit = ROBUST_LIST_LIMIT;

    if (!fetch_entry(head, &entry, &pi) || copy_from_user(&offset, (const void *)(head + 8), sizeof(offset)) < 0 ||
        !fetch_entry(head + 16, &pending, &pending_pi))
        return;
    while (entry != head) {
        bool fetched = fetch_entry(entry, &next, &next_pi);
        if (entry != pending && !futex_death(entry + (uint64_t)offset, tid, pi, false))
            return;
        if (!fetched)
            return;
        entry = next;
        pi = next_pi;
        if (!--limit)
            break;
    }
    if (pending)
        futex_death(pending + (uint64_t)offset, tid, pending_pi, true);
}

void futex_exit_robust_list(uint64_t head, int tid)
{
    mark_exiting(true);
    if (head)
        walk_robust_list(head, tid);
    exit_pi_futexes(tid);
}

void futex_exec_release(uint64_t head, int tid)
{
    futex_exit_robust_list(head, tid);
    mark_exiting(false);
}

long futex_wake_at_exit(uint64_t address)
{
    uint32_t zero = 0;
    if (copy_to_user((void *)address, &zero, sizeof(zero)) < 0)
        return 0;
    long woken = futex_wake(address, FLAG_SHARED, 1, FUTEX_BITSET_MATCH_ANY);
    return woken > 0 ? woken : 0;
}

/* --- the system calls --------------------------------------------------- */

static bool has_timeout(int command)
{
    return command == FUTEX_WAIT || command == FUTEX_LOCK_PI || command == FUTEX_LOCK_PI2 ||
           command == FUTEX_WAIT_BITSET || command == FUTEX_WAIT_REQUEUE_PI;
}

/* Linux's sys_futex() and do_futex(): the timeout is read (and checked)
 * first, then the clock flag, then the operation. Every clock counts from
 * boot here, so CLOCK_REALTIME and CLOCK_MONOTONIC deadlines are the same
 * numbers. */
SYSCALL_DEFINE6(futex, uint64_t, address, int, op, uint32_t, value, uint64_t, timeout_or_value2, uint64_t, address2,
                uint32_t, value3)
{
    int command = op & ~(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME);
    unsigned flags = (op & FUTEX_PRIVATE_FLAG ? 0 : FLAG_SHARED) | (op & FUTEX_CLOCK_REALTIME ? FLAG_REALTIME : 0);
    uint64_t deadline_ns, *deadline = 0;
    uint32_t value2 = (uint32_t)timeout_or_value2;

    if (timeout_or_value2 && has_timeout(command)) {
        struct linux_timespec time;
        if (copy_from_user(&time, (const void *)timeout_or_value2, sizeof(time)) < 0)
            return -EFAULT;
        int64_t ns = ns_of_timespec(&time);     /* cut to a century */
        if (ns < 0)
            return -EINVAL;
        deadline_ns = command == FUTEX_WAIT ? clock_now() + (uint64_t)ns : (uint64_t)ns;
        deadline = &deadline_ns;
    }
    if ((flags & FLAG_REALTIME) && command != FUTEX_WAIT_BITSET && command != FUTEX_WAIT_REQUEUE_PI &&
        command != FUTEX_LOCK_PI2)
        return -ENOSYS;
    switch (command) {
    case FUTEX_WAIT:
        return futex_wait(address, flags, value, deadline, FUTEX_BITSET_MATCH_ANY);
    case FUTEX_WAIT_BITSET:
        return futex_wait(address, flags, value, deadline, value3);
    case FUTEX_WAKE:
        return futex_wake(address, flags, (int)value, FUTEX_BITSET_MATCH_ANY);
    case FUTEX_WAKE_BITSET:
        return futex_wake(address, flags, (int)value, value3);
    case FUTEX_REQUEUE:
        return futex_requeue(address, flags, address2, (int)value, (int)value2, 0);
    case FUTEX_CMP_REQUEUE:
        return futex_requeue(address, flags, address2, (int)value, (int)value2, &value3);
    case FUTEX_WAKE_OP:
        return futex_wake_op(address, flags, address2, (int)value, (int)value2, value3);
    case FUTEX_LOCK_PI:
    case FUTEX_LOCK_PI2:
        return futex_lock_pi(address, flags, deadline, false);
    case FUTEX_TRYLOCK_PI:
        return futex_lock_pi(address, flags, 0, true);
    case FUTEX_UNLOCK_PI:
        return futex_unlock_pi(address, flags);
    }
    return -ENOSYS;
}

SYSCALL_DEFINE2(set_robust_list, uint64_t, head, uint64_t, length)
{
    if (length != ROBUST_LIST_HEAD_SIZE)
        return -EINVAL;
    current_thread()->robust_list = head;
    return 0;
}

SYSCALL_DEFINE3(get_robust_list, int, pid, uint64_t, user_head, uint64_t, user_length)
{
    uint64_t head, length = ROBUST_LIST_HEAD_SIZE;
    if (pid == 0) {
        head = current_thread()->robust_list;
    } else {
        spin_lock(&process_tree_lock);
        struct thread *thread = thread_find_locked(pid);     /* any thread's TID, as Linux */
        head = thread ? thread->robust_list : 0;
        spin_unlock(&process_tree_lock);
        if (!thread)
            return -ESRCH;
    }
    if (copy_to_user((void *)user_length, &length, sizeof(length)) < 0)
        return -EFAULT;
    return copy_to_user((void *)user_head, &head, sizeof(head)) < 0 ? -EFAULT : 0;
}
