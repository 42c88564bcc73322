/* futex(2), set_robust_list and get_robust_list, as Linux gives them: the
 * errors of each operation (EINVAL, EFAULT, EAGAIN, ETIMEDOUT, ENOSYS),
 * timeouts relative and absolute and their clocks, a signal during a wait
 * (EINTR, and the restarts Linux makes), keys (a parent and a child
 * sharing a page copy-on-write are not joined), WAKE_OP's operations on
 * the word, the PI protocol in the word (owner TID, FUTEX_WAITERS,
 * EDEADLK, EPERM, ESRCH), and the robust-list walk at exit and exec with
 * its bound. A vfork child shares our memory: it is the other owner
 * whose death the robust list reports. Wakeups between two tasks of one
 * address space need threads (docs/futex.md). A static program that
 * prints KTAP; it runs on nohzk (scenarios "futex", "futex-glibc") and,
 * unchanged, on Linux (tests/run's host-futex.*, linux-futex.*), so what
 * it checks is Linux's behaviour. Nothing measures a time: a timeout is
 * checked to end the wait with ETIMEDOUT, never early, and signals are
 * sent once the waiter is seen asleep in /proc/PID/stat. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ktap.h"
#include "testlib.h"

/* Linux's values (musl has no <linux/futex.h>) */
#define FUTEX_WAIT            0
#define FUTEX_WAKE            1
#define FUTEX_REQUEUE         3
#define FUTEX_CMP_REQUEUE     4
#define FUTEX_WAKE_OP         5
#define FUTEX_LOCK_PI         6
#define FUTEX_UNLOCK_PI       7
#define FUTEX_TRYLOCK_PI      8
#define FUTEX_WAIT_BITSET     9
#define FUTEX_WAKE_BITSET     10
#define FUTEX_LOCK_PI2        13
#define FUTEX_PRIVATE_FLAG    128
#define FUTEX_CLOCK_REALTIME  256
#define FUTEX_WAIT_PRIVATE        (FUTEX_WAIT | FUTEX_PRIVATE_FLAG)
#define FUTEX_WAKE_PRIVATE        (FUTEX_WAKE | FUTEX_PRIVATE_FLAG)
#define FUTEX_REQUEUE_PRIVATE     (FUTEX_REQUEUE | FUTEX_PRIVATE_FLAG)
#define FUTEX_CMP_REQUEUE_PRIVATE (FUTEX_CMP_REQUEUE | FUTEX_PRIVATE_FLAG)
#define FUTEX_WAKE_OP_PRIVATE     (FUTEX_WAKE_OP | FUTEX_PRIVATE_FLAG)
#define FUTEX_LOCK_PI_PRIVATE     (FUTEX_LOCK_PI | FUTEX_PRIVATE_FLAG)
#define FUTEX_UNLOCK_PI_PRIVATE   (FUTEX_UNLOCK_PI | FUTEX_PRIVATE_FLAG)
#define FUTEX_TRYLOCK_PI_PRIVATE  (FUTEX_TRYLOCK_PI | FUTEX_PRIVATE_FLAG)
#define FUTEX_WAIT_BITSET_PRIVATE (FUTEX_WAIT_BITSET | FUTEX_PRIVATE_FLAG)
#define FUTEX_WAKE_BITSET_PRIVATE (FUTEX_WAKE_BITSET | FUTEX_PRIVATE_FLAG)
#define FUTEX_BITSET_MATCH_ANY 0xffffffffu
#define FUTEX_WAITERS    0x80000000u
#define FUTEX_OWNER_DIED 0x40000000u
#define FUTEX_OP_SET  0
#define FUTEX_OP_ADD  1
#define FUTEX_OP_OR   2
#define FUTEX_OP_ANDN 3
#define FUTEX_OP_XOR  4
#define FUTEX_OP_OPARG_SHIFT 8
#define FUTEX_OP_CMP_EQ 0
#define FUTEX_OP_CMP_NE 1
#define FUTEX_OP_CMP_LT 2
#define FUTEX_OP_CMP_LE 3
#define FUTEX_OP_CMP_GT 4
#define FUTEX_OP_CMP_GE 5
#define FUTEX_OP(op, oparg, cmp, cmparg) \
    ((int)((((op) & 0xfu) << 28) | (((cmp) & 0xfu) << 24) | (((oparg) & 0xfffu) << 12) | ((cmparg) & 0xfffu)))

static long futex(volatile uint32_t *word, int op, uint32_t value, const void *timeout_or_count,
                  volatile uint32_t *word2, uint32_t value3)
{
    return syscall(SYS_futex, word, op, value, timeout_or_count, word2, value3);
}

/* The call failed with error (-1 and errno). */
#define FAILS(call, error) ((call) == -1 && errno == (error))

static pid_t tid(void)
{
    return (pid_t)syscall(SYS_gettid);
}

static uint32_t word, word2;

static struct timespec after_ms(clockid_t clock, long ms)
{
    struct timespec now;
    clock_gettime(clock, &now);
    now.tv_nsec += ms % 1000 * 1000000;
    now.tv_sec += ms / 1000 + now.tv_nsec / 1000000000;
    now.tv_nsec %= 1000000000;
    return now;
}

static int not_before(clockid_t clock, const struct timespec *deadline)
{
    struct timespec now;
    clock_gettime(clock, &now);
    return now.tv_sec > deadline->tv_sec || (now.tv_sec == deadline->tv_sec && now.tv_nsec >= deadline->tv_nsec);
}

/* A page mapped, then unmapped: an address nothing is at. */
static uint32_t *unmapped_word(void)
{
    void *page = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED)
        return 0;
    munmap(page, 4096);
    return page;
}

/* ---- WAIT and WAKE alone ---- */

static int wait_on_other_value_is_eagain(void)
{
    word = 1;
    CHECK(FAILS(futex(&word, FUTEX_WAIT, 0, 0, 0, 0), EAGAIN));
    CHECK(FAILS(futex(&word, FUTEX_WAIT_PRIVATE, 0, 0, 0, 0), EAGAIN));
    CHECK(FAILS(futex(&word, FUTEX_WAIT_BITSET, 0, 0, 0, FUTEX_BITSET_MATCH_ANY), EAGAIN));
    return 1;
}

static int wait_relative_timeout(void)
{
    word = 0;
    struct timespec zero = { 0, 0 }, short_time = { 0, 20 * 1000000 };
    CHECK(FAILS(futex(&word, FUTEX_WAIT_PRIVATE, 0, &zero, 0, 0), ETIMEDOUT));
    struct timespec deadline = after_ms(CLOCK_MONOTONIC, 20);
    CHECK(FAILS(futex(&word, FUTEX_WAIT, 0, &short_time, 0, 0), ETIMEDOUT));
    CHECK(not_before(CLOCK_MONOTONIC, &deadline));      /* never early */
    /* the value is checked before the time */
    word = 3;
    CHECK(FAILS(futex(&word, FUTEX_WAIT, 0, &zero, 0, 0), EAGAIN));
    return 1;
}

static int wait_bitset_absolute_timeout(void)
{
    word = 0;
    struct timespec past = { 0, 0 };
    CHECK(FAILS(futex(&word, FUTEX_WAIT_BITSET_PRIVATE, 0, &past, 0, FUTEX_BITSET_MATCH_ANY), ETIMEDOUT));
    CHECK(FAILS(futex(&word, FUTEX_WAIT_BITSET | FUTEX_CLOCK_REALTIME, 0, &past, 0, 1), ETIMEDOUT));
    struct timespec deadline = after_ms(CLOCK_MONOTONIC, 20);
    CHECK(FAILS(futex(&word, FUTEX_WAIT_BITSET, 0, &deadline, 0, 1), ETIMEDOUT));
    CHECK(not_before(CLOCK_MONOTONIC, &deadline));
    deadline = after_ms(CLOCK_REALTIME, 20);
    CHECK(FAILS(futex(&word, FUTEX_WAIT_BITSET_PRIVATE | FUTEX_CLOCK_REALTIME, 0, &deadline, 0, 1), ETIMEDOUT));
    CHECK(not_before(CLOCK_REALTIME, &deadline));
    return 1;
}

static int bad_timeouts_are_einval(void)
{
    word = 0;
    struct timespec bad[] = { { 0, -1 }, { 0, 1000000000 }, { -1, 0 }, { 1, LONG_MAX } };
    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        CHECK(FAILS(futex(&word, FUTEX_WAIT, 0, &bad[i], 0, 0), EINVAL));
        CHECK(FAILS(futex(&word, FUTEX_WAIT_BITSET_PRIVATE, 0, &bad[i], 0, 1), EINVAL));
        CHECK(FAILS(futex(&word, FUTEX_LOCK_PI_PRIVATE, 0, &bad[i], 0, 0), EINVAL));
        /* checked before the value is: EINVAL, not EAGAIN */
        CHECK(FAILS(futex(&word, FUTEX_WAIT, 1, &bad[i], 0, 0), EINVAL));
    }
    /* the timeout is read first: EFAULT before anything else */
    CHECK(FAILS(futex(&word, FUTEX_WAIT, 1, unmapped_word(), 0, 0), EFAULT));
    return 1;
}

static volatile sig_atomic_t alarms;
static void count_alarm(int signal)
{
    (void)signal;
    alarms++;
}

/* A huge timeout is a wait for ever (cut to a century on nohzk): a
 * signal ends it. */
static int huge_timeout_waits_until_a_signal(void)
{
    struct timespec huge = { LONG_MAX, 999999999 };
    struct itimerval once = { { 0, 0 }, { 0, 50000 } };
    CHECK(set_handler(SIGALRM, count_alarm, 0) == 0);
    for (int op = FUTEX_WAIT; op <= FUTEX_WAIT_BITSET; op += FUTEX_WAIT_BITSET - FUTEX_WAIT) {
        word = 0;
        alarms = 0;
        CHECK(setitimer(ITIMER_REAL, &once, 0) == 0);
        CHECK(FAILS(futex(&word, op, 0, &huge, 0, FUTEX_BITSET_MATCH_ANY), EINTR));
        CHECK(alarms == 1);
    }
    return 1;
}

static int clock_realtime_only_where_linux_takes_it(void)
{
    word = 0;
    struct timespec past = { 0, 0 };
    CHECK(FAILS(futex(&word, FUTEX_WAIT | FUTEX_CLOCK_REALTIME, 0, &past, 0, 0), ENOSYS));
    CHECK(FAILS(futex(&word, FUTEX_WAKE | FUTEX_CLOCK_REALTIME, 1, 0, 0, 0), ENOSYS));
    CHECK(FAILS(futex(&word, FUTEX_LOCK_PI | FUTEX_CLOCK_REALTIME, 0, &past, 0, 0), ENOSYS));
    CHECK(FAILS(futex(&word, FUTEX_REQUEUE | FUTEX_CLOCK_REALTIME, 1, 0, &word2, 0), ENOSYS));
    /* a bad timeout is found before the clock is refused */
    struct timespec bad = { 0, -1 };
    CHECK(FAILS(futex(&word, FUTEX_WAIT | FUTEX_CLOCK_REALTIME, 0, &bad, 0, 0), EINVAL));
    return 1;
}

static int unknown_operations_are_enosys(void)
{
    word = 0;
    CHECK(FAILS(futex(&word, 2, 0, 0, 0, 0), ENOSYS));       /* FUTEX_FD, gone since 2.6.26 */
    CHECK(FAILS(futex(&word, 14, 0, 0, 0, 0), ENOSYS));
    CHECK(FAILS(futex(&word, 127, 0, 0, 0, 0), ENOSYS));
    CHECK(FAILS(futex(&word, -1, 0, 0, 0, 0), ENOSYS));
    return 1;
}

static int zero_bitset_is_einval(void)
{
    word = 0;
    CHECK(FAILS(futex(&word, FUTEX_WAIT_BITSET, 0, 0, 0, 0), EINVAL));
    CHECK(FAILS(futex(&word, FUTEX_WAKE_BITSET, 1, 0, 0, 0), EINVAL));
    return 1;
}

static int unaligned_is_einval(void)
{
    char *base = (char *)&word;
    volatile uint32_t *odd = (volatile uint32_t *)(base + 1);
    CHECK(FAILS(futex(odd, FUTEX_WAIT, 0, 0, 0, 0), EINVAL));
    CHECK(FAILS(futex(odd, FUTEX_WAKE, 1, 0, 0, 0), EINVAL));
    CHECK(FAILS(futex(odd, FUTEX_WAKE_PRIVATE, 1, 0, 0, 0), EINVAL));
    CHECK(FAILS(futex(&word, FUTEX_REQUEUE_PRIVATE, 1, 0, odd, 0), EINVAL));
    CHECK(FAILS(futex(odd, FUTEX_LOCK_PI, 0, 0, 0, 0), EINVAL));
    CHECK(FAILS(futex(odd, FUTEX_TRYLOCK_PI, 0, 0, 0, 0), EINVAL));
    return 1;
}

/* Kernel, non-canonical, the last page of the lower half (never user
 * memory on Linux), unmapped, NULL. */
static int bad_addresses_are_efault(void)
{
    volatile uint32_t *bad[] = { (uint32_t *)0xffffffff80000000ul, (uint32_t *)0x0000800000000000ul,
                                 (uint32_t *)0x7ffffffff000ul, (uint32_t *)0x8000000000000000ul };
    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        CHECK(FAILS(futex(bad[i], FUTEX_WAIT, 0, 0, 0, 0), EFAULT));
        CHECK(FAILS(futex(bad[i], FUTEX_WAKE, 1, 0, 0, 0), EFAULT));
        /* (the last page is access_ok() on Linux 6.18, not 6.1) */
        CHECK(i == 2 || FAILS(futex(bad[i], FUTEX_WAKE_PRIVATE, 1, 0, 0, 0), EFAULT));
        CHECK(FAILS(futex(bad[i], FUTEX_LOCK_PI, 0, 0, 0, 0), EFAULT));
        CHECK(FAILS(futex(bad[i], FUTEX_UNLOCK_PI, 0, 0, 0, 0), EFAULT));
    }
    uint32_t *gone = unmapped_word();
    CHECK(gone);
    CHECK(FAILS(futex(gone, FUTEX_WAIT_PRIVATE, 0, 0, 0, 0), EFAULT));
    CHECK(FAILS(futex(gone, FUTEX_WAIT, 0, 0, 0, 0), EFAULT));
    CHECK(FAILS(futex((uint32_t *)0, FUTEX_WAIT_PRIVATE, 0, 0, 0, 0), EFAULT));
    /* a shared key needs the page; a private one is the address alone */
    CHECK(FAILS(futex(gone, FUTEX_WAKE, 1, 0, 0, 0), EFAULT));
    CHECK(futex(gone, FUTEX_WAKE_PRIVATE, 1, 0, 0, 0) == 0);
    CHECK(futex((uint32_t *)0, FUTEX_WAKE_PRIVATE, 1, 0, 0, 0) == 0);
    CHECK(FAILS(futex(gone, FUTEX_TRYLOCK_PI_PRIVATE, 0, 0, 0, 0), EFAULT));
    CHECK(FAILS(futex(gone, FUTEX_UNLOCK_PI_PRIVATE, 0, 0, 0, 0), EFAULT));
    return 1;
}

static int wake_without_waiters_is_zero(void)
{
    word = 0;
    CHECK(futex(&word, FUTEX_WAKE, 1, 0, 0, 0) == 0);
    CHECK(futex(&word, FUTEX_WAKE_PRIVATE, INT_MAX, 0, 0, 0) == 0);
    CHECK(futex(&word, FUTEX_WAKE_PRIVATE, 0, 0, 0, 0) == 0);
    CHECK(futex(&word, FUTEX_WAKE_PRIVATE, (uint32_t)-1, 0, 0, 0) == 0);
    CHECK(futex(&word, FUTEX_WAKE_BITSET_PRIVATE, INT_MAX, 0, 0, 0x10) == 0);
    return 1;
}

/* ---- REQUEUE and CMP_REQUEUE alone ---- */

static int requeue_checks_counts_and_value(void)
{
    word = 5;
    CHECK(FAILS(futex(&word, FUTEX_REQUEUE_PRIVATE, (uint32_t)-1, (void *)1, &word2, 0), EINVAL));
    CHECK(FAILS(futex(&word, FUTEX_REQUEUE_PRIVATE, 1, (void *)0xffffffffl, &word2, 0), EINVAL));
    CHECK(FAILS(futex(&word, FUTEX_CMP_REQUEUE_PRIVATE, 1, (void *)1, &word2, 4), EAGAIN));
    CHECK(futex(&word, FUTEX_CMP_REQUEUE_PRIVATE, 1, (void *)INT_MAX, &word2, 5) == 0);
    CHECK(futex(&word, FUTEX_CMP_REQUEUE, INT_MAX, (void *)INT_MAX, &word, 5) == 0);     /* onto itself */
    CHECK(futex(&word, FUTEX_REQUEUE_PRIVATE, 0, 0, &word, 0) == 0);
    uint32_t *gone = unmapped_word();
    CHECK(FAILS(futex(gone, FUTEX_CMP_REQUEUE_PRIVATE, 1, (void *)1, &word2, 0), EFAULT));
    CHECK(FAILS(futex(&word, FUTEX_CMP_REQUEUE, 1, (void *)1, gone, 5), EFAULT));
    CHECK(futex(&word, FUTEX_CMP_REQUEUE_PRIVATE, 1, (void *)1, gone, 5) == 0);
    return 1;
}

/* ---- WAKE_OP: the operation on the second word ---- */

#define OP(op, oparg, cmp, cmparg) FUTEX_OP(op, oparg, cmp, cmparg)

static int wake_op_changes_the_second_word(void)
{
    struct {
        uint32_t before;
        int encoded;
        uint32_t after;
        long result;
    } cases[] = {
        { 5, OP(FUTEX_OP_SET, 7, FUTEX_OP_CMP_EQ, 5), 7, 0 },
        { 5, OP(FUTEX_OP_ADD, 3, FUTEX_OP_CMP_NE, 5), 8, 0 },
        { 5, OP(FUTEX_OP_ADD, -1 & 0xfff, FUTEX_OP_CMP_LT, 6), 4, 0 },
        { 4, OP(FUTEX_OP_OR, 3, FUTEX_OP_CMP_GE, 4), 7, 0 },
        { 7, OP(FUTEX_OP_ANDN, 2, FUTEX_OP_CMP_LE, 6), 5, 0 },
        { 6, OP(FUTEX_OP_XOR, 5, FUTEX_OP_CMP_GT, 5), 3, 0 },
        { 0, OP((FUTEX_OP_OR | FUTEX_OP_OPARG_SHIFT), 4, FUTEX_OP_CMP_EQ, 0), 16, 0 },
        { 1, OP((FUTEX_OP_SET | FUTEX_OP_OPARG_SHIFT), 31, FUTEX_OP_CMP_EQ, 0), 0x80000000u, 0 },
    };
    for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        word = 0;
        word2 = cases[i].before;
        long result = futex(&word, FUTEX_WAKE_OP_PRIVATE, 1, (void *)1, &word2, (uint32_t)cases[i].encoded);
        if (result != cases[i].result || word2 != cases[i].after)
            printf("# case %u: result %ld, word2 %#x\n", i, result, word2);
        CHECK(result == cases[i].result && word2 == cases[i].after);
    }
    /* an unknown operation changes nothing; an unknown comparison comes
     * after the operation */
    word2 = 9;
    CHECK(FAILS(futex(&word, FUTEX_WAKE_OP, 1, (void *)1, &word2, OP(5, 1, FUTEX_OP_CMP_EQ, 0)), ENOSYS));
    CHECK(word2 == 9);
    CHECK(FAILS(futex(&word, FUTEX_WAKE_OP, 1, (void *)1, &word2, OP(FUTEX_OP_SET, 1, 6, 0)), ENOSYS));
    CHECK(word2 == 1);
    return 1;
}

static int wake_op_on_bad_words(void)
{
    word = 0;
    uint32_t *gone = unmapped_word();
    CHECK(FAILS(futex(&word, FUTEX_WAKE_OP_PRIVATE, 1, (void *)1, gone, OP(FUTEX_OP_SET, 1, 0, 0)), EFAULT));
    CHECK(FAILS(futex(&word, FUTEX_WAKE_OP, 1, (void *)1, gone, OP(FUTEX_OP_SET, 1, 0, 0)), EFAULT));
    uint32_t *read_only = mmap(0, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(read_only != MAP_FAILED);
    CHECK(FAILS(futex(&word, FUTEX_WAKE_OP_PRIVATE, 1, (void *)1, read_only, OP(FUTEX_OP_SET, 1, 0, 0)), EFAULT));
    CHECK(*read_only == 0);
    munmap(read_only, 4096);
    char *base = (char *)&word2;
    CHECK(FAILS(futex(&word, FUTEX_WAKE_OP_PRIVATE, 1, (void *)1, (uint32_t *)(base + 2), 0), EINVAL));
    CHECK(FAILS(futex((uint32_t *)((char *)&word + 2), FUTEX_WAKE_OP, 1, (void *)1, gone, 0), EINVAL));
    return 1;
}

/* ---- Keys ---- */

/* After fork, parent and child share the page of word copy-on-write:
 * still two futexes, private or not. The child waits on its copy; the
 * parent's wakes find nobody, and the child's wait times out. */
static int keys_not_joined_after_fork(void)
{
    for (int op_private = 0; op_private <= FUTEX_PRIVATE_FLAG; op_private += FUTEX_PRIVATE_FLAG) {
        int ready[2];
        CHECK(pipe(ready) == 0);
        word = 0;
        fflush(stdout);
        pid_t child = fork();
        if (child == 0) {
            struct timespec time = { 1, 0 };
            close(ready[0]);
            if (write(ready[1], "r", 1) != 1)
                _exit(2);
            long result = futex(&word, FUTEX_WAIT | op_private, 0, &time, 0, 0);
            _exit(result == -1 && errno == ETIMEDOUT ? 0 : 1);
        }
        close(ready[1]);
        char byte;
        CHECK(read(ready[0], &byte, 1) == 1);
        close(ready[0]);
        CHECK(state_soon(child, 'S'));
        long woken = 0;
        for (int i = 0; i < 20; i++)
            woken += futex(&word, FUTEX_WAKE | op_private, INT_MAX, 0, 0, 0);
        CHECK(woken == 0);
        CHECK(exited_with(wait_status(child), 0));
    }
    return 1;
}

/* ---- Signals during a wait ---- */

static volatile sig_atomic_t usr1, usr2;
static void on_usr1(int signal)
{
    (void)signal;
    usr1++;
}
static void on_usr2(int signal)
{
    (void)signal;
    usr2++;
}

/* A child that waits on word with op (timeout_ms 0: none), SIGUSR1's
 * handler SA_RESTART and SIGUSR2's not. Its exit code: the errno its wait
 * ended with (0 if woken) + 64 * (SIGUSR1s + 2 * SIGUSR2s handled). */
static pid_t waiting_child(long timeout_ms, int op)
{
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        usr1 = usr2 = 0;
        set_handler(SIGUSR1, on_usr1, SA_RESTART);
        set_handler(SIGUSR2, on_usr2, 0);
        word = 0;
        struct timespec time = { timeout_ms / 1000, timeout_ms % 1000 * 1000000 };
        long result = futex(&word, op, 0, timeout_ms ? &time : 0, 0, FUTEX_BITSET_MATCH_ANY);
        int error = result == 0 ? 0 : errno;
        _exit(error + 64 * (usr1 + 2 * usr2));
    }
    return child;
}

/* Without a timeout, a handler with SA_RESTART restarts the wait; one
 * without ends it with EINTR. */
static int signal_without_timeout_restarts_or_eintr(void)
{
    pid_t child = waiting_child(0, FUTEX_WAIT_PRIVATE);
    CHECK(child > 0);
    CHECK(state_soon(child, 'S'));
    kill(child, SIGUSR1);
    sleep_ms(50);
    CHECK(state_soon(child, 'S'));      /* waiting again */
    kill(child, SIGUSR2);
    CHECK(exited_with(wait_status(child), EINTR + 64 * (1 + 2)));
    return 1;
}

/* With a timeout, any handler ends the wait with EINTR (Linux's
 * restart block is taken only when no handler runs). */
static int signal_with_timeout_is_eintr(void)
{
    pid_t child = waiting_child(60000, FUTEX_WAIT);
    CHECK(child > 0);
    CHECK(state_soon(child, 'S'));
    kill(child, SIGUSR1);
    CHECK(exited_with(wait_status(child), EINTR + 64 * 1));
    return 1;
}

/* A stop and a continue run no handler: the wait goes on, to the same
 * deadline when it has one (restart_syscall). */
static int stop_and_continue_resume_the_wait(void)
{
    pid_t child = waiting_child(0, FUTEX_WAIT_BITSET_PRIVATE);
    CHECK(child > 0);
    CHECK(state_soon(child, 'S'));
    kill(child, SIGSTOP);
    int status;
    CHECK(waitpid(child, &status, WUNTRACED) == child && WIFSTOPPED(status));
    kill(child, SIGCONT);
    CHECK(state_soon(child, 'S'));
    kill(child, SIGUSR2);
    CHECK(exited_with(wait_status(child), EINTR + 64 * 2));

    child = waiting_child(300, FUTEX_WAIT);
    CHECK(child > 0);
    CHECK(state_soon(child, 'S'));
    kill(child, SIGSTOP);
    CHECK(waitpid(child, &status, WUNTRACED) == child && WIFSTOPPED(status));
    kill(child, SIGCONT);
    CHECK(exited_with(wait_status(child), ETIMEDOUT));
    return 1;
}

/* SIGKILL ends a wait, and the queue keeps no trace of the waiter: the
 * same futex works afterwards. */
static int kill_during_wait(void)
{
    for (int i = 0; i < 3; i++) {
        pid_t child = waiting_child(0, FUTEX_WAIT);
        CHECK(child > 0);
        CHECK(state_soon(child, 'S'));
        kill(child, SIGKILL);
        CHECK(killed_by(wait_status(child), SIGKILL));
    }
    word = 0;
    CHECK(futex(&word, FUTEX_WAKE, INT_MAX, 0, 0, 0) == 0);
    struct timespec zero = { 0, 0 };
    CHECK(FAILS(futex(&word, FUTEX_WAIT, 0, &zero, 0, 0), ETIMEDOUT));
    return 1;
}

/* ---- PI, one task at a time ---- */

static int pi_lock_and_unlock(void)
{
    word = 0;
    CHECK(futex(&word, FUTEX_TRYLOCK_PI_PRIVATE, 0, 0, 0, 0) == 0);
    CHECK(word == (uint32_t)tid());
    CHECK(FAILS(futex(&word, FUTEX_LOCK_PI_PRIVATE, 0, 0, 0, 0), EDEADLK));
    CHECK(FAILS(futex(&word, FUTEX_TRYLOCK_PI, 0, 0, 0, 0), EDEADLK));
    CHECK(futex(&word, FUTEX_UNLOCK_PI_PRIVATE, 0, 0, 0, 0) == 0);
    CHECK(word == 0);
    CHECK(FAILS(futex(&word, FUTEX_UNLOCK_PI_PRIVATE, 0, 0, 0, 0), EPERM));
    CHECK(futex(&word, FUTEX_LOCK_PI, 0, 0, 0, 0) == 0);
    CHECK(word == (uint32_t)tid());
    /* FUTEX_WAITERS with nobody queued: the unlock clears the word */
    word |= FUTEX_WAITERS;
    CHECK(futex(&word, FUTEX_UNLOCK_PI, 0, 0, 0, 0) == 0);
    CHECK(word == 0);
    /* a dead owner's word (OWNER_DIED, TID 0) is taken with the bit kept */
    word = FUTEX_OWNER_DIED;
    CHECK(futex(&word, FUTEX_TRYLOCK_PI_PRIVATE, 0, 0, 0, 0) == 0);
    CHECK(word == (FUTEX_OWNER_DIED | (uint32_t)tid()));
    CHECK(futex(&word, FUTEX_UNLOCK_PI_PRIVATE, 0, 0, 0, 0) == 0);
    CHECK(word == 0);
    /* a wait or wake on a PI word with nobody queued is an ordinary one */
    CHECK(futex(&word, FUTEX_WAKE, 1, 0, 0, 0) == 0);
    return 1;
}

static int pi_unlock_of_another_owner_is_eperm(void)
{
    word = (uint32_t)tid() + 1;
    CHECK(FAILS(futex(&word, FUTEX_UNLOCK_PI, 0, 0, 0, 0), EPERM));
    CHECK(word == (uint32_t)tid() + 1);
    word = FUTEX_WAITERS;
    CHECK(FAILS(futex(&word, FUTEX_UNLOCK_PI_PRIVATE, 0, 0, 0, 0), EPERM));
    return 1;
}

/* The owner in the word is gone: ESRCH, FUTEX_WAITERS set on the way. */
static int pi_dead_owner_is_esrch(void)
{
    fflush(stdout);
    pid_t child = fork();
    if (child == 0)
        _exit(0);
    CHECK(child > 0 && exited_with(wait_status(child), 0));
    word = (uint32_t)child;
    CHECK(FAILS(futex(&word, FUTEX_LOCK_PI_PRIVATE, 0, 0, 0, 0), ESRCH));
    CHECK(word == ((uint32_t)child | FUTEX_WAITERS));
    CHECK(FAILS(futex(&word, FUTEX_TRYLOCK_PI, 0, 0, 0, 0), ESRCH));
    return 1;
}

/* The owner lives (in another process, so it never unlocks this word):
 * TRYLOCK_PI says EAGAIN, LOCK_PI waits until its deadline, absolute, on
 * CLOCK_REALTIME (LOCK_PI2: CLOCK_MONOTONIC, or REALTIME if asked). Not
 * private: Linux 6.18 refuses (EPERM) an owner of another process for a
 * private futex, where 6.1 takes it. */
static int pi_live_owner_checks(pid_t owner)
{
    word = (uint32_t)owner;
    CHECK(FAILS(futex(&word, FUTEX_TRYLOCK_PI, 0, 0, 0, 0), EAGAIN));
    CHECK(word == ((uint32_t)owner | FUTEX_WAITERS));
    struct timespec deadline = after_ms(CLOCK_REALTIME, 30);
    CHECK(FAILS(futex(&word, FUTEX_LOCK_PI, 0, &deadline, 0, 0), ETIMEDOUT));
    CHECK(not_before(CLOCK_REALTIME, &deadline));
    deadline = after_ms(CLOCK_MONOTONIC, 30);
    CHECK(FAILS(futex(&word, FUTEX_LOCK_PI2, 0, &deadline, 0, 0), ETIMEDOUT));
    CHECK(not_before(CLOCK_MONOTONIC, &deadline));
    deadline = after_ms(CLOCK_REALTIME, 30);
    CHECK(FAILS(futex(&word, FUTEX_LOCK_PI2 | FUTEX_CLOCK_REALTIME, 0, &deadline, 0, 0), ETIMEDOUT));
    CHECK(word == ((uint32_t)owner | FUTEX_WAITERS));
    /* only the owner may unlock */
    CHECK(FAILS(futex(&word, FUTEX_UNLOCK_PI, 0, 0, 0, 0), EPERM));
    return 1;
}

static int pi_live_owner_blocks_until_the_deadline(void)
{
    fflush(stdout);
    pid_t owner = fork();
    if (owner == 0) {
        pause();
        _exit(0);
    }
    CHECK(owner > 0);
    int ok = pi_live_owner_checks(owner);
    kill_and_reap(owner);
    CHECK(ok);
    /* now gone */
    CHECK(FAILS(futex(&word, FUTEX_LOCK_PI, 0, 0, 0, 0), ESRCH));
    return 1;
}

/* ---- robust lists ---- */

struct robust_entry {
    struct robust_entry *next;
    uint32_t futex;
};

struct robust_head {
    struct robust_entry *next;
    long futex_offset;
    struct robust_entry *pending;
};

#define MANY 2100       /* more than ROBUST_LIST_LIMIT (2048) */
static struct robust_head head;
static struct robust_entry entries[MANY];

static void robust_list_of(unsigned count)
{
    head.next = (struct robust_entry *)&head;
    head.futex_offset = offsetof(struct robust_entry, futex);
    head.pending = 0;
    for (unsigned i = count; i-- > 0;) {
        entries[i].next = head.next;
        head.next = &entries[i];
    }
}

static int robust_list_calls(void)
{
    struct robust_head *got = 0;
    size_t length = 0;
    CHECK(FAILS(syscall(SYS_set_robust_list, &head, sizeof(head) - 1), EINVAL));
    CHECK(FAILS(syscall(SYS_set_robust_list, &head, 0), EINVAL));
    CHECK(syscall(SYS_get_robust_list, 0, &got, &length) == 0);
    CHECK(length == sizeof(head));
    void *mine = got;
    CHECK(syscall(SYS_set_robust_list, &head, sizeof(head)) == 0);
    CHECK(syscall(SYS_get_robust_list, 0, &got, &length) == 0 && got == &head);
    CHECK(syscall(SYS_get_robust_list, getpid(), &got, &length) == 0 && got == &head);
    CHECK(FAILS(syscall(SYS_get_robust_list, 0, unmapped_word(), &length), EFAULT));
    CHECK(FAILS(syscall(SYS_get_robust_list, 0, &got, unmapped_word()), EFAULT));
    fflush(stdout);
    pid_t child = fork();
    if (child == 0)
        _exit(0);
    CHECK(child > 0 && exited_with(wait_status(child), 0));
    CHECK(FAILS(syscall(SYS_get_robust_list, child, &got, &length), ESRCH));
    CHECK(syscall(SYS_set_robust_list, mine, sizeof(head)) == 0);     /* the libc's back */
    return 1;
}

/* A vfork child runs in our memory: what its death does to the words of
 * a robust list there is what we see when vfork returns. The child runs
 * own_words(its TID), makes child_head its robust list (if set), and
 * ends by _exit or, with child_execs, by an exec of this program (which
 * exits at once with --exit). Called through this function only: the
 * child never returns into a caller's frame. */
static char self_path[4096];
static void (*own_words)(pid_t me);
static struct robust_head *child_head;
static int child_execs;
static void *child_unmaps;

static pid_t __attribute__((noinline)) vfork_child(void)
{
    fflush(stdout);
    pid_t child = vfork();
    if (child == 0) {
        if (own_words)
            own_words((pid_t)syscall(SYS_gettid));
        if (child_head)
            syscall(SYS_set_robust_list, child_head, sizeof(*child_head));
        if (child_unmaps)
            munmap(child_unmaps, 4096);
        if (child_execs) {
            char *argv[] = { self_path, "--exit", 0 };
            execv(self_path, argv);
        }
        _exit(0);
    }
    own_words = 0;
    child_head = 0;
    child_execs = 0;
    child_unmaps = 0;
    return child;
}

/* Entries 0 and 1 are the child's, 1 with waiters; 2 is someone else's;
 * 3 is free. */
static void own_two_of_four(pid_t me)
{
    entries[0].futex = (uint32_t)me;
    entries[1].futex = (uint32_t)me | FUTEX_WAITERS;
    entries[2].futex = (uint32_t)me + 1;
    entries[3].futex = 0;
}

static int robust_list_at_exit_and_exec(void)
{
    for (int by_exec = 0; by_exec <= 1; by_exec++) {
        CHECK(!by_exec || self_path[0]);
        robust_list_of(4);
        own_words = own_two_of_four;
        child_head = &head;
        child_execs = by_exec;
        pid_t child = vfork_child();
        CHECK(child > 0);
        CHECK(exited_with(wait_status(child), 0));
        CHECK(entries[0].futex == FUTEX_OWNER_DIED);
        CHECK(entries[1].futex == (FUTEX_OWNER_DIED | FUTEX_WAITERS));
        CHECK(entries[2].futex == (uint32_t)child + 1);
        CHECK(entries[3].futex == 0);
    }
    return 1;
}

static unsigned owned_count;
static void own_all(pid_t me)
{
    for (unsigned i = 0; i < owned_count; i++)
        entries[i].futex = (uint32_t)me;
}

/* Bit 0 of a pointer marks a PI futex: marked the same way. The pending
 * entry (list_op_pending) is handled once, after the list. */
static int robust_list_pi_and_pending(void)
{
    robust_list_of(2);
    entries[0].next = (struct robust_entry *)((uintptr_t)&entries[1] | 1);
    head.pending = &entries[0];
    owned_count = 2;
    own_words = own_all;
    child_head = &head;
    pid_t child = vfork_child();
    CHECK(child > 0 && exited_with(wait_status(child), 0));
    CHECK(entries[0].futex == FUTEX_OWNER_DIED);
    CHECK(entries[1].futex == FUTEX_OWNER_DIED);
    return 1;
}

/* The walk stops after ROBUST_LIST_LIMIT entries: a list that loops
 * ends, and of a longer one the rest stays as it is. */
static int robust_list_walk_is_bounded(void)
{
    robust_list_of(MANY);
    owned_count = MANY;
    own_words = own_all;
    child_head = &head;
    pid_t child = vfork_child();
    CHECK(child > 0 && exited_with(wait_status(child), 0));
    unsigned marked = 0;
    for (unsigned i = 0; i < MANY; i++)
        marked += entries[i].futex == FUTEX_OWNER_DIED;
    CHECK(marked == 2048);
    CHECK(entries[2047].futex & FUTEX_OWNER_DIED);
    CHECK(!(entries[2048].futex & FUTEX_OWNER_DIED));

    robust_list_of(1);
    entries[0].next = &entries[0];      /* loops on itself */
    owned_count = 1;
    own_words = own_all;
    child_head = &head;
    child = vfork_child();
    CHECK(child > 0 && exited_with(wait_status(child), 0));
    CHECK(entries[0].futex == FUTEX_OWNER_DIED);
    return 1;
}

/* Garbage in the list ends the walk, quietly: the process exits as usual. */
static int robust_list_garbage_is_harmless(void)
{
    void *garbage[] = { (void *)0xdead0000ul, (void *)0xffffffff80000000ul, (void *)0x0000800000000000ul,
                        (void *)0x7ffffffff000ul, (void *)1, unmapped_word() };
    for (unsigned i = 0; i < sizeof(garbage) / sizeof(garbage[0]); i++) {
        robust_list_of(2);
        entries[0].next = garbage[i];
        owned_count = 2;
        own_words = own_all;
        child_head = &head;
        pid_t child = vfork_child();
        CHECK(child > 0 && exited_with(wait_status(child), 0));
        /* the entry before the garbage was reached, the one after not */
        CHECK(entries[0].futex == FUTEX_OWNER_DIED);
        CHECK(entries[1].futex == (uint32_t)child);
    }
    /* a head that points nowhere */
    child_head = (struct robust_head *)0xdead0000ul;
    pid_t child = vfork_child();
    CHECK(child > 0 && exited_with(wait_status(child), 0));
    /* a futex offset that points nowhere, or at an unaligned word */
    long offsets[] = { 0x100000000000l, -0x7000000000l, 1 };
    for (unsigned i = 0; i < sizeof(offsets) / sizeof(offsets[0]); i++) {
        robust_list_of(1);
        head.futex_offset = offsets[i];
        child_head = &head;
        child = vfork_child();
        CHECK(child > 0 && exited_with(wait_status(child), 0));
    }
    return 1;
}

/* A fork child's robust list starts empty (Linux's copy_process). */
static int robust_list_empty_after_fork(void)
{
    struct robust_head *mine = 0;
    size_t length;
    CHECK(syscall(SYS_get_robust_list, 0, &mine, &length) == 0);
    CHECK(syscall(SYS_set_robust_list, &head, sizeof(head)) == 0);
    fflush(stdout);
    pid_t child = (pid_t)syscall(SYS_fork);     /* glibc's fork sets its own list again in the child */
    if (child == 0) {
        struct robust_head *got = &head;
        _exit(syscall(SYS_get_robust_list, 0, &got, &length) == 0 && got == 0 ? 0 : 1);
    }
    int ok = child > 0 && exited_with(wait_status(child), 0);
    syscall(SYS_set_robust_list, mine, sizeof(head));
    CHECK(ok);
    return 1;
}

/* A page a vfork child unmapped is gone for us too. */
static int wait_on_a_page_another_process_unmapped(void)
{
    uint32_t *page = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(page != MAP_FAILED);
    *page = 0;
    child_unmaps = page;
    pid_t child = vfork_child();
    CHECK(child > 0 && exited_with(wait_status(child), 0));
    CHECK(FAILS(futex(page, FUTEX_WAIT_PRIVATE, 0, 0, 0, 0), EFAULT));
    CHECK(FAILS(futex(page, FUTEX_WAKE, 1, 0, 0, 0), EFAULT));
    CHECK(FAILS(futex(page, FUTEX_TRYLOCK_PI, 0, 0, 0, 0), EFAULT));
    return 1;
}

static const struct ktap_case cases[] = {
    KTAP_CASE(wait_on_other_value_is_eagain),
    KTAP_CASE(wait_relative_timeout),
    KTAP_CASE(wait_bitset_absolute_timeout),
    KTAP_CASE(bad_timeouts_are_einval),
    KTAP_CASE(huge_timeout_waits_until_a_signal),
    KTAP_CASE(clock_realtime_only_where_linux_takes_it),
    KTAP_CASE(unknown_operations_are_enosys),
    KTAP_CASE(zero_bitset_is_einval),
    KTAP_CASE(unaligned_is_einval),
    KTAP_CASE(bad_addresses_are_efault),
    KTAP_CASE(wake_without_waiters_is_zero),
    KTAP_CASE(requeue_checks_counts_and_value),
    KTAP_CASE(wake_op_changes_the_second_word),
    KTAP_CASE(wake_op_on_bad_words),
    KTAP_CASE(keys_not_joined_after_fork),
    KTAP_CASE(signal_without_timeout_restarts_or_eintr),
    KTAP_CASE(signal_with_timeout_is_eintr),
    KTAP_CASE(stop_and_continue_resume_the_wait),
    KTAP_CASE(kill_during_wait),
    KTAP_CASE(pi_lock_and_unlock),
    KTAP_CASE(pi_unlock_of_another_owner_is_eperm),
    KTAP_CASE(pi_dead_owner_is_esrch),
    KTAP_CASE(pi_live_owner_blocks_until_the_deadline),
    KTAP_CASE(robust_list_calls),
    KTAP_CASE(robust_list_at_exit_and_exec),
    KTAP_CASE(robust_list_pi_and_pending),
    KTAP_CASE(robust_list_walk_is_bounded),
    KTAP_CASE(robust_list_garbage_is_harmless),
    KTAP_CASE(robust_list_empty_after_fork),
    KTAP_CASE(wait_on_a_page_another_process_unmapped),
};

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--exit") == 0)
        return 0;
    if (!find_self(argv[0], self_path, sizeof(self_path)))
        self_path[0] = '\0';
    return ktap_main(cases, KTAP_COUNT(cases));
}
