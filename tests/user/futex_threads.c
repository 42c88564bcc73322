/* Futexes between threads: waits woken by a sibling, in order and by
 * count, bitsets, requeues and WAKE_OP with waiters queued, a wake racing
 * the wait, a ping-pong across two CPUs, a signal to a waiting thread, an
 * affinity change during a wait, a word unmapped under its waiter, the PI
 * hand-over at unlock and at the owner's death, robust mutexes whose owner
 * died, PI mutexes under contention, condition variables, joins (the
 * CLONE_CHILD_CLEARTID wake), and exit_group and execve with threads still
 * waiting. What futex.c checks alone needs no thread;
 * this is the rest (docs/futex.md). A static program that prints KTAP, run
 * on nohzk (scenarios futex-threads, futex-threads-glibc) and, unchanged,
 * on Linux (tests/run's host-futex_threads.*, linux-futex_threads.*).
 * Nothing measures a time: a thread is known to wait once /proc says it
 * sleeps, and every wait that should end has a generous timeout, so that a
 * lost wakeup fails its case instead of hanging the program. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "ktap.h"
#include "testlib.h"

#define FUTEX_WAIT            0
#define FUTEX_WAKE            1
#define FUTEX_CMP_REQUEUE     4
#define FUTEX_WAKE_OP         5
#define FUTEX_LOCK_PI         6
#define FUTEX_UNLOCK_PI       7
#define FUTEX_WAIT_BITSET     9
#define FUTEX_WAKE_BITSET     10
#define FUTEX_PRIVATE_FLAG    128
#define FUTEX_WAITERS    0x80000000u
#define FUTEX_TID_MASK   0x3fffffffu
#define FUTEX_OP_SET 0
#define FUTEX_OP_CMP_EQ 0
#define FUTEX_OP(op, oparg, cmp, cmparg) \
    ((int)((((op) & 0xfu) << 28) | (((cmp) & 0xfu) << 24) | (((oparg) & 0xfffu) << 12) | ((cmparg) & 0xfffu)))

#define GUARD_SECONDS 10    /* a wait that should end does, long before this */

static long futex(volatile uint32_t *word, int op, uint32_t value, const void *timeout_or_count,
                  volatile uint32_t *word2, uint32_t value3)
{
    return syscall(SYS_futex, word, op, value, timeout_or_count, word2, value3);
}

#define FAILS(call, error) ((call) == -1 && errno == (error))

static pid_t tid(void)
{
    return (pid_t)syscall(SYS_gettid);
}

/* tid's state letter in /proc/self/task/TID/stat, '?' if unreadable. */
static char thread_state(pid_t thread)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)thread);
    return state_in_stat_file(path);
}

/* 1 once the thread sleeps (looked at every 5 ms), 0 if not within 10 s. */
static int sleeping_soon(pid_t thread)
{
    for (int tries = 0; tries < 2000; tries++) {
        if (thread_state(thread) == 'S')
            return 1;
        sleep_ms(5);
    }
    return 0;
}

/* ---- A waiter thread ---- */

struct waiter {
    pthread_t thread;
    volatile uint32_t *word;
    uint32_t expected, bitset;
    int shared;                 /* no FUTEX_PRIVATE_FLAG */
    volatile pid_t tid;
    volatile int done;
    long result;
    int error;
    volatile int *order;        /* where it writes its rank once woken */
    int rank;
};

static volatile int woken_count;

static void *waiter_body(void *arg)
{
    struct waiter *w = arg;
    struct timespec guard = { GUARD_SECONDS, 0 };
    w->tid = tid();
    struct timespec absolute;
    clock_gettime(CLOCK_MONOTONIC, &absolute);
    absolute.tv_sec += guard.tv_sec;
    w->result = futex(w->word, FUTEX_WAIT_BITSET | (w->shared ? 0 : FUTEX_PRIVATE_FLAG), w->expected, &absolute, 0,
                      w->bitset ? w->bitset : 0xffffffffu);
    w->error = w->result < 0 ? errno : 0;
    if (w->order)
        w->order[__atomic_fetch_add(&woken_count, 1, __ATOMIC_SEQ_CST)] = w->rank;
    __atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
    return 0;
}

/* Start a waiter on word and return once it sleeps there. */
static int start_waiter(struct waiter *w, volatile uint32_t *word, uint32_t bitset)
{
    w->word = word;
    w->expected = *word;
    w->bitset = bitset;
    w->tid = 0;
    w->done = 0;
    if (pthread_create(&w->thread, 0, waiter_body, w) != 0)
        return 0;
    while (!__atomic_load_n(&w->tid, __ATOMIC_ACQUIRE))
        sched_yield();
    for (int tries = 0; tries < 2000; tries++) {    /* as sleeping_soon(), but a wait that ended fails at once */
        if (__atomic_load_n(&w->done, __ATOMIC_ACQUIRE)) {
            printf("# waiter %d: its wait ended before anyone woke it: result %ld errno %d\n", (int)w->tid,
                   w->result, w->error);
            return 0;
        }
        if (thread_state(w->tid) == 'S')
            return 1;
        sleep_ms(5);
    }
    return 0;
}

static int join_woken(struct waiter *w)
{
    pthread_join(w->thread, 0);
    if (w->result != 0)
        printf("# waiter %d: result %ld errno %d\n", (int)w->tid, w->result, w->error);
    return w->result == 0;
}

static uint32_t word, word2;

/* ---- WAKE by count, in order ---- */

static int wake_counts_and_order(void)
{
    struct waiter w[3] = { 0 };
    volatile int order[3] = { -1, -1, -1 };
    word = 0;
    woken_count = 0;
    for (int i = 0; i < 3; i++) {
        w[i].order = order;
        w[i].rank = i;
        CHECK(start_waiter(&w[i], &word, 0));
    }
    CHECK(futex(&word, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, 0, 0, 0) == 1);
    CHECK(join_woken(&w[0]));       /* the oldest first */
    CHECK(order[0] == 0);
    CHECK(futex(&word, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, INT_MAX, 0, 0, 0) == 2);
    CHECK(join_woken(&w[1]) && join_woken(&w[2]));
    CHECK(futex(&word, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, INT_MAX, 0, 0, 0) == 0);
    return 1;
}

/* A shared futex on private memory has the address space and address
 * of a private one, but a key of its own: each wake finds only its kind. */
static int private_and_shared_keys_differ(void)
{
    struct waiter shared = { .shared = 1 }, private = { 0 };
    word = 0;
    CHECK(start_waiter(&shared, &word, 0));
    CHECK(start_waiter(&private, &word, 0));
    CHECK(futex(&word, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, INT_MAX, 0, 0, 0) == 1);
    CHECK(join_woken(&private));
    CHECK(!shared.done);
    CHECK(futex(&word, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, INT_MAX, 0, 0, 0) == 0);
    CHECK(futex(&word, FUTEX_WAKE, INT_MAX, 0, 0, 0) == 1);
    CHECK(join_woken(&shared));
    return 1;
}

static int wake_bitset_picks_its_waiters(void)
{
    struct waiter a = { 0 }, b = { 0 };
    word = 0;
    CHECK(start_waiter(&a, &word, 0x1));
    CHECK(start_waiter(&b, &word, 0x6));
    CHECK(futex(&word, FUTEX_WAKE_BITSET | FUTEX_PRIVATE_FLAG, INT_MAX, 0, 0, 0x8) == 0);
    CHECK(futex(&word, FUTEX_WAKE_BITSET | FUTEX_PRIVATE_FLAG, INT_MAX, 0, 0, 0x2) == 1);
    CHECK(join_woken(&b));
    CHECK(!a.done);
    CHECK(futex(&word, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, INT_MAX, 0, 0, 0) == 1);     /* any bit */
    CHECK(join_woken(&a));
    return 1;
}

/* ---- REQUEUE and WAKE_OP with waiters ---- */

static int requeue_moves_waiters(void)
{
    struct waiter w[3] = { 0 };
    word = 5;
    word2 = 0;
    for (int i = 0; i < 3; i++)
        CHECK(start_waiter(&w[i], &word, 0));
    CHECK(FAILS(futex(&word, FUTEX_CMP_REQUEUE | FUTEX_PRIVATE_FLAG, 1, (void *)INT_MAX, &word2, 4), EAGAIN));
    /* one woken, two moved: 3 */
    CHECK(futex(&word, FUTEX_CMP_REQUEUE | FUTEX_PRIVATE_FLAG, 1, (void *)INT_MAX, &word2, 5) == 3);
    CHECK(join_woken(&w[0]));
    CHECK(futex(&word, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, INT_MAX, 0, 0, 0) == 0);
    /* onto the same word: counted, still there */
    CHECK(futex(&word2, FUTEX_CMP_REQUEUE | FUTEX_PRIVATE_FLAG, 0, (void *)INT_MAX, &word2, 0) == 2);
    CHECK(futex(&word2, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, INT_MAX, 0, 0, 0) == 2);
    CHECK(join_woken(&w[1]) && join_woken(&w[2]));
    return 1;
}

static int wake_op_wakes_both_words(void)
{
    struct waiter a = { 0 }, b = { 0 }, c = { 0 };
    word = 0;
    word2 = 1;
    CHECK(start_waiter(&a, &word, 0));
    CHECK(start_waiter(&b, &word2, 0));
    CHECK(start_waiter(&c, &word2, 0));
    /* word2 = 2 if it was 1 (it was): one on word, one on word2 */
    CHECK(futex(&word, FUTEX_WAKE_OP | FUTEX_PRIVATE_FLAG, 1, (void *)1, &word2,
                FUTEX_OP(FUTEX_OP_SET, 2, FUTEX_OP_CMP_EQ, 1)) == 2);
    CHECK(word2 == 2);
    CHECK(join_woken(&a) && join_woken(&b));
    /* the comparison fails now: only word's waiters (none) */
    CHECK(futex(&word, FUTEX_WAKE_OP | FUTEX_PRIVATE_FLAG, 1, (void *)1, &word2,
                FUTEX_OP(FUTEX_OP_SET, 3, FUTEX_OP_CMP_EQ, 1)) == 0);
    CHECK(word2 == 3 && !c.done);
    CHECK(futex(&word2, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, 0, 0, 0) == 1);
    CHECK(join_woken(&c));
    return 1;
}

/* ---- Races ---- */

struct race {
    uint32_t word;
    volatile int go;
};

static void *race_waker(void *arg)
{
    struct race *r = arg;
    while (!__atomic_load_n(&r->go, __ATOMIC_ACQUIRE))
        ;
    __atomic_store_n(&r->word, 1, __ATOMIC_SEQ_CST);
    futex(&r->word, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, 0, 0, 0);
    return 0;
}

/* The waker changes the word and wakes while the waiter is on its way in:
 * the wait returns (woken, or EAGAIN), never sleeps to its timeout. */
static int wake_racing_the_wait(void)
{
    int woken = 0, eagain = 0;
    for (int i = 0; i < 300; i++) {
        struct race r = { 0, 0 };
        pthread_t waker;
        CHECK(pthread_create(&waker, 0, race_waker, &r) == 0);
        struct timespec guard = { GUARD_SECONDS, 0 };
        __atomic_store_n(&r.go, 1, __ATOMIC_RELEASE);
        long result = futex(&r.word, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, 0, &guard, 0, 0);
        int error = errno;
        pthread_join(waker, 0);
        CHECK(result == 0 || error == EAGAIN);
        woken += result == 0;
        eagain += result != 0;
    }
    printf("# 300 races: %d woken, %d EAGAIN\n", woken, eagain);
    return 1;
}

/* Two threads on two CPUs hand a token back and forth through one word. */
#define ROUNDS 2000
static uint32_t token;

static int pin_to(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof(set), &set);
}

static int other_cpu = -1, first_cpu = -1;

static void *pong(void *arg)
{
    (void)arg;
    if (other_cpu >= 0)
        pin_to(other_cpu);
    for (uint32_t i = 1; i < 2 * ROUNDS; i += 2) {
        struct timespec guard = { GUARD_SECONDS, 0 };
        while (__atomic_load_n(&token, __ATOMIC_ACQUIRE) != i)
            if (futex(&token, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, i - 1, &guard, 0, 0) < 0 && errno == ETIMEDOUT)
                return (void *)1;
        __atomic_store_n(&token, i + 1, __ATOMIC_RELEASE);
        futex(&token, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, 0, 0, 0);
    }
    return 0;
}

static int ping_pong_across_cpus(void)
{
    cpu_set_t set;
    CHECK(sched_getaffinity(0, sizeof(set), &set) == 0);
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (!CPU_ISSET(cpu, &set))
            continue;
        if (first_cpu < 0)
            first_cpu = cpu;
        else if (other_cpu < 0)
            other_cpu = cpu;
    }
    if (other_cpu < 0)
        printf("# one CPU only: both ends on it\n");
    else
        CHECK(pin_to(first_cpu) == 0);
    token = 0;
    pthread_t thread;
    CHECK(pthread_create(&thread, 0, pong, 0) == 0);
    int lost = 0;
    for (uint32_t i = 0; i < 2 * ROUNDS; i += 2) {
        struct timespec guard = { GUARD_SECONDS, 0 };
        while (__atomic_load_n(&token, __ATOMIC_ACQUIRE) != i)
            if (futex(&token, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, i - 1, &guard, 0, 0) < 0 && errno == ETIMEDOUT)
                lost = 1;
        if (lost)
            break;
        __atomic_store_n(&token, i + 1, __ATOMIC_RELEASE);
        futex(&token, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, 0, 0, 0);
    }
    void *pong_lost;
    pthread_join(thread, &pong_lost);
    sched_setaffinity(0, sizeof(set), &set);
    CHECK(!lost && !pong_lost);
    CHECK(token == 2 * ROUNDS);
    return 1;
}

/* ---- Signals, affinity, unmapping during a wait ---- */

static volatile sig_atomic_t usr1_seen;
static void on_usr1(int signal)
{
    (void)signal;
    usr1_seen++;
}

static int signal_to_a_waiting_thread(void)
{
    struct waiter w = { 0 };
    usr1_seen = 0;
    CHECK(set_handler(SIGUSR1, on_usr1, 0) == 0);
    word = 0;
    CHECK(start_waiter(&w, &word, 0));
    CHECK(syscall(SYS_tgkill, getpid(), w.tid, SIGUSR1) == 0);
    pthread_join(w.thread, 0);
    CHECK(w.result == -1 && w.error == EINTR);
    CHECK(usr1_seen == 1);
    /* nothing left queued */
    CHECK(futex(&word, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, INT_MAX, 0, 0, 0) == 0);
    return 1;
}

static int affinity_change_during_a_wait(void)
{
    cpu_set_t all, one;
    CHECK(sched_getaffinity(0, sizeof(all), &all) == 0);
    struct waiter w = { 0 };
    word = 0;
    CHECK(start_waiter(&w, &word, 0));
    for (int cpu = 0, moves = 0; cpu < CPU_SETSIZE && moves < 4; cpu++) {
        if (!CPU_ISSET(cpu, &all))
            continue;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        CHECK(sched_setaffinity(w.tid, sizeof(one), &one) == 0);
        CHECK(thread_state(w.tid) == 'S');
        moves++;
    }
    CHECK(futex(&word, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, 0, 0, 0) == 1);
    CHECK(join_woken(&w));
    return 1;
}

/* A private key is the address alone: unmapping the page does not end
 * the wait, and a private wake at the address, mapped or not, finds the
 * waiter (a shared one needs the page: EFAULT). */
static int word_unmapped_under_its_waiter(void)
{
    uint32_t *page = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(page != MAP_FAILED);
    *page = 0;
    struct waiter w = { 0 };
    CHECK(start_waiter(&w, page, 0));
    CHECK(munmap(page, 4096) == 0);
    CHECK(thread_state(w.tid) == 'S');
    CHECK(FAILS(futex(page, FUTEX_WAKE, 1, 0, 0, 0), EFAULT));
    CHECK(futex(page, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, 0, 0, 0) == 1);
    CHECK(join_woken(&w));
    return 1;
}

/* ---- PI between threads ---- */

struct pi_locker {
    volatile uint32_t *word;
    volatile pid_t tid;
    long result;
    int error;
};

static void *pi_lock_body(void *arg)
{
    struct pi_locker *l = arg;
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += GUARD_SECONDS;
    l->tid = tid();
    l->result = futex(l->word, FUTEX_LOCK_PI | FUTEX_PRIVATE_FLAG, 0, &deadline, 0, 0);
    l->error = l->result < 0 ? errno : 0;
    return 0;
}

/* The owner unlocks: the waiter owns the word when it returns. A plain
 * wake on a word with a PI waiter is EINVAL. */
static int pi_hand_over_at_unlock(void)
{
    word = 0;
    CHECK(futex(&word, FUTEX_LOCK_PI | FUTEX_PRIVATE_FLAG, 0, 0, 0, 0) == 0);
    CHECK(word == (uint32_t)tid());
    struct pi_locker l = { &word, 0, 0, 0 };
    pthread_t thread;
    CHECK(pthread_create(&thread, 0, pi_lock_body, &l) == 0);
    while (!l.tid)
        sched_yield();
    CHECK(sleeping_soon(l.tid));
    CHECK(word == ((uint32_t)tid() | FUTEX_WAITERS));
    CHECK(FAILS(futex(&word, FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, 0, 0, 0), EINVAL));
    CHECK(futex(&word, FUTEX_UNLOCK_PI | FUTEX_PRIVATE_FLAG, 0, 0, 0, 0) == 0);
    pthread_join(thread, 0);
    CHECK(l.result == 0);
    CHECK((word & FUTEX_TID_MASK) == (uint32_t)l.tid);
    CHECK(FAILS(futex(&word, FUTEX_UNLOCK_PI | FUTEX_PRIVATE_FLAG, 0, 0, 0, 0), EPERM));     /* not ours */
    return 1;
}

static volatile uint32_t dying_word;
static volatile int dying_holds;

static void *lock_and_die(void *arg)
{
    (void)arg;
    futex(&dying_word, FUTEX_LOCK_PI | FUTEX_PRIVATE_FLAG, 0, 0, 0, 0);
    __atomic_store_n(&dying_holds, 1, __ATOMIC_RELEASE);
    while (__atomic_load_n(&dying_holds, __ATOMIC_ACQUIRE) == 1)
        sched_yield();
    syscall(SYS_exit, 0);       /* the thread alone, the lock held */
    return 0;
}

/* The owner dies holding the lock with a waiter queued: the waiter gets
 * it (Linux's exit_pi_state_list()). */
static int pi_owner_death_hands_over(void)
{
    dying_word = 0;
    dying_holds = 0;
    pthread_t owner;
    CHECK(pthread_create(&owner, 0, lock_and_die, 0) == 0);
    while (!__atomic_load_n(&dying_holds, __ATOMIC_ACQUIRE))
        sched_yield();
    uint32_t owner_tid = dying_word & FUTEX_TID_MASK;
    struct pi_locker l = { &dying_word, 0, 0, 0 };
    pthread_t waiter;
    CHECK(pthread_create(&waiter, 0, pi_lock_body, &l) == 0);
    while (!l.tid)
        sched_yield();
    CHECK(sleeping_soon(l.tid));
    __atomic_store_n(&dying_holds, 2, __ATOMIC_RELEASE);     /* die */
    pthread_join(waiter, 0);
    CHECK(l.result == 0);
    CHECK((dying_word & FUTEX_TID_MASK) == (uint32_t)l.tid);
    CHECK(owner_tid != (uint32_t)l.tid);
    return 1;
}

/* ---- Through the C library ---- */

static pthread_mutex_t robust;
static volatile int robust_held;

static void *hold_robust_and_exit(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&robust);
    __atomic_store_n(&robust_held, 1, __ATOMIC_RELEASE);
    while (__atomic_load_n(&robust_held, __ATOMIC_ACQUIRE) == 1)
        sched_yield();
    return 0;       /* ends holding it */
}

/* A robust mutex whose owner thread ended: EOWNERDEAD for the next
 * locker, waiting or not (the robust-list walk at thread death). */
static int robust_mutex_of_a_dead_thread(void)
{
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    CHECK(pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST) == 0);
    CHECK(pthread_mutex_init(&robust, &attr) == 0);
    robust_held = 0;
    pthread_t owner;
    CHECK(pthread_create(&owner, 0, hold_robust_and_exit, 0) == 0);
    while (!__atomic_load_n(&robust_held, __ATOMIC_ACQUIRE))
        sched_yield();
    __atomic_store_n(&robust_held, 2, __ATOMIC_RELEASE);
    int locked = pthread_mutex_lock(&robust);      /* waits for the owner's end */
    pthread_join(owner, 0);
    CHECK(locked == EOWNERDEAD);
    CHECK(pthread_mutex_consistent(&robust) == 0);
    CHECK(pthread_mutex_unlock(&robust) == 0);
    CHECK(pthread_mutex_lock(&robust) == 0);
    CHECK(pthread_mutex_unlock(&robust) == 0);
    return 1;
}

#define COUNT_EACH 3000
static pthread_mutex_t counted;
static long counter;

static void *count_under_lock(void *arg)
{
    (void)arg;
    for (int i = 0; i < COUNT_EACH; i++) {
        pthread_mutex_lock(&counted);
        long seen = counter;
        if (i % 64 == 0)
            sched_yield();      /* hold it a while: contention */
        counter = seen + 1;
        pthread_mutex_unlock(&counted);
    }
    return 0;
}

static int mutex_contention(int protocol)
{
    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    if (pthread_mutexattr_setprotocol(&attr, protocol) != 0) {
        ktap_skip_reason = "this C library has no such mutex protocol";
        return 1;
    }
    CHECK(pthread_mutex_init(&counted, &attr) == 0);
    counter = 0;
    pthread_t threads[3];
    for (int i = 0; i < 3; i++)
        CHECK(pthread_create(&threads[i], 0, count_under_lock, 0) == 0);
    for (int i = 0; i < 3; i++)
        pthread_join(threads[i], 0);
    CHECK(counter == 3 * COUNT_EACH);
    CHECK(pthread_mutex_destroy(&counted) == 0);
    return 1;
}

static int normal_mutex_contention(void)
{
    return mutex_contention(PTHREAD_PRIO_NONE);
}

static int pi_mutex_contention(void)
{
    return mutex_contention(PTHREAD_PRIO_INHERIT);
}

#define ITEMS 2000
static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t queue_changed = PTHREAD_COND_INITIALIZER;
static int queued, produced, consumed_sum;

static void *consume(void *arg)
{
    (void)arg;
    for (int taken = 0; taken < ITEMS / 2; taken++) {
        pthread_mutex_lock(&queue_lock);
        while (queued == 0)
            pthread_cond_wait(&queue_changed, &queue_lock);
        queued--;
        consumed_sum++;
        pthread_cond_broadcast(&queue_changed);
        pthread_mutex_unlock(&queue_lock);
    }
    return 0;
}

/* A bounded queue of 4 between one producer and two consumers. */
static int condition_variable_queue(void)
{
    pthread_t consumers[2];
    queued = produced = consumed_sum = 0;
    for (int i = 0; i < 2; i++)
        CHECK(pthread_create(&consumers[i], 0, consume, 0) == 0);
    for (int i = 0; i < ITEMS; i++) {
        pthread_mutex_lock(&queue_lock);
        while (queued == 4)
            pthread_cond_wait(&queue_changed, &queue_lock);
        queued++;
        produced++;
        pthread_cond_broadcast(&queue_changed);
        pthread_mutex_unlock(&queue_lock);
    }
    for (int i = 0; i < 2; i++)
        pthread_join(consumers[i], 0);
    CHECK(produced == ITEMS && consumed_sum == ITEMS && queued == 0);
    return 1;
}

static void *nothing(void *arg)
{
    return arg;
}

static void *sleep_a_little(void *arg)
{
    sleep_ms(1 + (int)(intptr_t)arg % 3);
    return arg;
}

/* pthread_join sleeps on the thread's CLONE_CHILD_CLEARTID word, which
 * its exit zeroes and wakes. */
static int joins_are_woken(void)
{
    for (int i = 0; i < 200; i++) {
        pthread_t thread;
        void *back = 0;
        CHECK(pthread_create(&thread, 0, i % 2 ? sleep_a_little : nothing, (void *)(intptr_t)(i + 1)) == 0);
        CHECK(pthread_join(thread, &back) == 0);
        CHECK(back == (void *)(intptr_t)(i + 1));
    }
    return 1;
}

/* exit_group while a thread waits: the process ends, the waiter with it. */
static void *wait_for_ever(void *arg)
{
    (void)arg;
    static uint32_t never = 0;
    for (;;)
        futex(&never, FUTEX_WAIT | FUTEX_PRIVATE_FLAG, 0, 0, 0, 0);
    return 0;
}

static void exit_with_a_waiter(void)
{
    pthread_t threads[3];
    for (int i = 0; i < 3; i++)
        pthread_create(&threads[i], 0, wait_for_ever, 0);
    sleep_ms(20);
    _exit(7);
}

static int exit_group_ends_waiting_threads(void)
{
    for (int i = 0; i < 3; i++)
        CHECK(exited_with(status_of_child(exit_with_a_waiter), 7));
    return 1;
}

/* execve from the main thread while siblings wait in futexes: they end
 * first (their waits left, their queues clean), and the new program runs. */
static char self_path[4096];

static void exec_with_waiters(void)
{
    pthread_t threads[3];
    for (int i = 0; i < 3; i++)
        pthread_create(&threads[i], 0, wait_for_ever, 0);
    sleep_ms(20);
    char *argv[] = { self_path, "--exit", 0 };
    execv(self_path, argv);
    _exit(99);
}

static int exec_ends_waiting_threads(void)
{
    CHECK(self_path[0]);
    for (int i = 0; i < 3; i++)
        CHECK(exited_with(status_of_child(exec_with_waiters), 0));
    return 1;
}

static const struct ktap_case cases[] = {
    KTAP_CASE(wake_counts_and_order),
    KTAP_CASE(private_and_shared_keys_differ),
    KTAP_CASE(wake_bitset_picks_its_waiters),
    KTAP_CASE(requeue_moves_waiters),
    KTAP_CASE(wake_op_wakes_both_words),
    KTAP_CASE(wake_racing_the_wait),
    KTAP_CASE(ping_pong_across_cpus),
    KTAP_CASE(signal_to_a_waiting_thread),
    KTAP_CASE(affinity_change_during_a_wait),
    KTAP_CASE(word_unmapped_under_its_waiter),
    KTAP_CASE(pi_hand_over_at_unlock),
    KTAP_CASE(pi_owner_death_hands_over),
    KTAP_CASE(robust_mutex_of_a_dead_thread),
    KTAP_CASE(normal_mutex_contention),
    KTAP_CASE(pi_mutex_contention),
    KTAP_CASE(condition_variable_queue),
    KTAP_CASE(joins_are_woken),
    KTAP_CASE(exit_group_ends_waiting_threads),
    KTAP_CASE(exec_ends_waiting_threads),
};

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--exit") == 0)
        return 0;
    if (!find_self(argv[0], self_path, sizeof(self_path)))
        self_path[0] = '\0';
    return ktap_main(cases, KTAP_COUNT(cases));
}
