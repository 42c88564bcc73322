/* The real-time policies (docs/realtime.md): the system calls' checks and
 * errno, SCHED_FIFO and SCHED_RR ordering on one CPU, preemption of a
 * lower-priority task by a woken real-time one (on its CPU and from
 * another), inheritance by fork and threads and SCHED_RESET_ON_FORK, a
 * policy changed while its thread sleeps in a futex, a zombie's policy,
 * and /proc/PID/stat's priority and policy fields. Every call is a raw
 * system call (musl's wrappers say ENOSYS on purpose). Runs as root on the
 * Linux host (tests/run: host-sched_rt.*) and on nohzk (scenarios
 * sched-rt, sched-rt-glibc). Counts and orderings only: a spin is bounded
 * by iterations, never timed, and each case runs in a child that puts
 * itself back to SCHED_OTHER when it ends. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ktap.h"
#include "testlib.h"
#include "../../user/lib/pin.h"

#ifndef SCHED_RESET_ON_FORK
#define SCHED_RESET_ON_FORK 0x40000000
#endif
#define FUTEX_WAIT 0
#define FUTEX_WAKE 1
#define FUTEX_LOCK_PI 6
#define FUTEX_UNLOCK_PI 7
#define KERNEL_ADDRESS ((void *)0xffffffff81000000ul)
#define NON_CANONICAL ((void *)0x8000000000000000ul)
#define SPIN_BOUND 4000000000ul     /* iterations: seconds, only reached when a rule is broken */
#define MIDDLE_SPIN_BOUND 300000000ul   /* pi_mutex_lends_priority's M: its order, not its length, tells */

#define FAILS(call, error) ((call) == -1 && errno == (error))

struct param {
    int sched_priority;
};

static long set_scheduler(pid_t pid, int policy, int priority)
{
    struct param param = { priority };
    return syscall(SYS_sched_setscheduler, pid, policy, &param);
}

static long get_scheduler(pid_t pid)
{
    return syscall(SYS_sched_getscheduler, pid);
}

static int get_priority(pid_t pid)
{
    struct param param = { -7 };
    return syscall(SYS_sched_getparam, pid, &param) == 0 ? param.sched_priority : -1;
}

static pid_t tid(void)
{
    return (pid_t)syscall(SYS_gettid);
}

static long futex(volatile uint32_t *word, int op, uint32_t value)
{
    return syscall(SYS_futex, word, op, value, 0, 0, 0);
}

/* The CPU the cases share: 1 if there are two, so that 0 stays free.
 * Counted once, before any pinning: musl's sysconf counts the caller's
 * affinity mask. */
static long cpus_online;

static int test_cpu(void)
{
    return cpus_online >= 2 ? 1 : 0;
}

static int other_cpu(void)
{
    return test_cpu() == 1 ? 0 : -1;
}

/* Field n (1-based) of /proc/self/task/TID/stat, as a number; -999 if unreadable. */
static long stat_field(pid_t thread, int n)
{
    char path[64], text[1024];
    snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)thread);
    FILE *file = fopen(path, "r");
    if (!file)
        return -999;
    size_t length = fread(text, 1, sizeof(text) - 1, file);
    fclose(file);
    text[length] = 0;
    char *field = strrchr(text, ')');
    if (!field)
        return -999;
    field += 2;                 /* field 3, the state */
    for (int i = 3; i < n; i++) {
        field = strchr(field, ' ');
        if (!field)
            return -999;
        field++;
    }
    return strtol(field, 0, 10);
}

/* ---- The calls' checks ---- */

static int priority_ranges(void)
{
    CHECK(syscall(SYS_sched_get_priority_min, SCHED_FIFO) == 1);
    CHECK(syscall(SYS_sched_get_priority_max, SCHED_FIFO) == 99);
    CHECK(syscall(SYS_sched_get_priority_min, SCHED_RR) == 1);
    CHECK(syscall(SYS_sched_get_priority_max, SCHED_RR) == 99);
    int normal[] = { SCHED_OTHER, SCHED_BATCH, SCHED_IDLE };
    for (unsigned i = 0; i < 3; i++) {
        CHECK(syscall(SYS_sched_get_priority_min, normal[i]) == 0);
        CHECK(syscall(SYS_sched_get_priority_max, normal[i]) == 0);
    }
    int bad[] = { -1, 4, 100, SCHED_FIFO | SCHED_RESET_ON_FORK };     /* 7 is SCHED_EXT since Linux 6.12 */
    for (unsigned i = 0; i < 4; i++) {
        CHECK(FAILS(syscall(SYS_sched_get_priority_min, bad[i]), EINVAL));
        CHECK(FAILS(syscall(SYS_sched_get_priority_max, bad[i]), EINVAL));
    }
    return 1;
}

/* Nothing changed: still SCHED_OTHER, priority 0. */
static int unchanged(void)
{
    return get_scheduler(0) == SCHED_OTHER && get_priority(0) == 0;
}

static int bad_arguments(void)
{
    struct param fifo = { 10 };
    int bad_policies[] = { -1, 4, 6, 7, 1000 };
    for (unsigned i = 0; i < 5; i++)
        CHECK(FAILS(set_scheduler(0, bad_policies[i], 10), EINVAL) && unchanged());
    int bad_fifo[] = { 0, 100, -1, 1000 };
    for (unsigned i = 0; i < 4; i++) {
        CHECK(FAILS(set_scheduler(0, SCHED_FIFO, bad_fifo[i]), EINVAL) && unchanged());
        CHECK(FAILS(set_scheduler(0, SCHED_RR, bad_fifo[i]), EINVAL) && unchanged());
    }
    CHECK(FAILS(set_scheduler(0, SCHED_OTHER, 1), EINVAL) && unchanged());
    CHECK(FAILS(set_scheduler(0, SCHED_BATCH, 5), EINVAL) && unchanged());
    CHECK(FAILS(syscall(SYS_sched_setscheduler, 0, SCHED_FIFO, NULL), EINVAL) && unchanged());
    CHECK(FAILS(syscall(SYS_sched_setscheduler, 0, SCHED_FIFO, KERNEL_ADDRESS), EFAULT) && unchanged());
    CHECK(FAILS(syscall(SYS_sched_setscheduler, 0, SCHED_FIFO, NON_CANONICAL), EFAULT) && unchanged());
    CHECK(FAILS(syscall(SYS_sched_setscheduler, -1, SCHED_FIFO, &fifo), EINVAL) && unchanged());
    CHECK(FAILS(syscall(SYS_sched_setparam, 0, NULL), EINVAL));
    CHECK(FAILS(syscall(SYS_sched_setparam, 0, KERNEL_ADDRESS), EFAULT));
    CHECK(FAILS(syscall(SYS_sched_setparam, -1, &fifo), EINVAL));
    CHECK(FAILS(syscall(SYS_sched_setparam, 0, &fifo), EINVAL) && unchanged());     /* 10 for SCHED_OTHER */
    CHECK(FAILS(syscall(SYS_sched_getparam, 0, NULL), EINVAL));
    CHECK(FAILS(syscall(SYS_sched_getparam, 0, KERNEL_ADDRESS), EFAULT));
    CHECK(FAILS(syscall(SYS_sched_getparam, -1, &fifo), EINVAL));
    CHECK(FAILS(syscall(SYS_sched_getscheduler, -1), EINVAL));
    CHECK(FAILS(syscall(SYS_sched_rr_get_interval, 0, NULL), EFAULT));
    CHECK(FAILS(syscall(SYS_sched_rr_get_interval, 0, KERNEL_ADDRESS), EFAULT));
    CHECK(FAILS(syscall(SYS_sched_rr_get_interval, -1, &fifo), EINVAL));

    /* A pid that names nothing: a child reaped. */
    pid_t gone = fork();
    if (gone == 0)
        _exit(0);
    CHECK(gone > 0 && wait_status(gone) == 0);
    struct timespec interval;
    CHECK(FAILS(set_scheduler(gone, SCHED_FIFO, 10), ESRCH));
    CHECK(FAILS(get_scheduler(gone), ESRCH));
    CHECK(FAILS(syscall(SYS_sched_getparam, gone, &fifo), ESRCH));
    CHECK(FAILS(syscall(SYS_sched_setparam, gone, &fifo), ESRCH));
    CHECK(FAILS(syscall(SYS_sched_rr_get_interval, gone, &interval), ESRCH));
    return 1;
}

/* sched_setattr and sched_getattr: Linux's size protocol and checks. */
struct attr {
    uint32_t size, policy;
    uint64_t flags;
    int32_t nice;
    uint32_t priority;
    uint64_t runtime, deadline, period;
    uint32_t util_min, util_max;
    unsigned char beyond[8];    /* past Linux's 56 bytes */
};

static int sched_attr_calls(void)
{
    struct attr attr = { .size = 48, .policy = SCHED_FIFO, .priority = 7 };
    CHECK(syscall(SYS_sched_setattr, 0, &attr, 0) == 0);
    CHECK(get_scheduler(0) == SCHED_FIFO && get_priority(0) == 7);
    struct attr back;
    memset(&back, 0xff, sizeof(back));
    CHECK(syscall(SYS_sched_getattr, 0, &back, 48, 0) == 0);
    CHECK(back.size == 48 && back.policy == SCHED_FIFO && back.priority == 7 && back.flags == 0);
    CHECK(back.util_min == 0xffffffffu);        /* past the 48 bytes asked: not written */
    memset(&back, 0, sizeof(back));
    CHECK(syscall(SYS_sched_getattr, 0, &back, sizeof(back), 0) == 0 && back.size == 56);
    attr = (struct attr){ .size = 0, .policy = SCHED_RR, .priority = 9, .flags = 1 /* RESET_ON_FORK */ };
    CHECK(syscall(SYS_sched_setattr, 0, &attr, 0) == 0);    /* size 0: the first version */
    CHECK(get_scheduler(0) == (SCHED_RR | SCHED_RESET_ON_FORK) && get_priority(0) == 9);
    attr = (struct attr){ .size = 48, .flags = 0x08 /* KEEP_POLICY */, .priority = 11 };
    CHECK(syscall(SYS_sched_setattr, 0, &attr, 0) == 0);      /* the policy and its flag kept */
    CHECK(get_scheduler(0) == (SCHED_RR | SCHED_RESET_ON_FORK) && get_priority(0) == 11);
    attr = (struct attr){ .size = sizeof(attr), .policy = SCHED_OTHER };
    CHECK(syscall(SYS_sched_setattr, 0, &attr, 0) == 0 && unchanged());    /* zero bytes past 56: fine */

    attr = (struct attr){ .size = sizeof(attr), .policy = SCHED_FIFO, .priority = 5, .beyond = { 1 } };
    CHECK(FAILS(syscall(SYS_sched_setattr, 0, &attr, 0), E2BIG) && attr.size == 56 && unchanged());
    attr = (struct attr){ .size = 20, .policy = SCHED_FIFO, .priority = 5 };
    CHECK(FAILS(syscall(SYS_sched_setattr, 0, &attr, 0), E2BIG) && attr.size == 56 && unchanged());
    attr = (struct attr){ .size = 48, .policy = SCHED_FIFO, .priority = 5 };
    CHECK(FAILS(syscall(SYS_sched_setattr, 0, &attr, 1), EINVAL) && unchanged());
    CHECK(FAILS(syscall(SYS_sched_setattr, -1, &attr, 0), EINVAL) && unchanged());
    CHECK(FAILS(syscall(SYS_sched_setattr, 0, NULL, 0), EINVAL) && unchanged());
    CHECK(FAILS(syscall(SYS_sched_setattr, 0, KERNEL_ADDRESS, 0), EFAULT) && unchanged());
    attr = (struct attr){ .size = 48, .policy = SCHED_FIFO, .priority = 100 };
    CHECK(FAILS(syscall(SYS_sched_setattr, 0, &attr, 0), EINVAL) && unchanged());
    attr = (struct attr){ .size = 48, .policy = SCHED_OTHER, .flags = 0x80 };
    CHECK(FAILS(syscall(SYS_sched_setattr, 0, &attr, 0), EINVAL) && unchanged());
    attr = (struct attr){ .size = 48, .policy = SCHED_OTHER, .flags = 0x20 /* UTIL_CLAMP_MIN */ };
    CHECK(FAILS(syscall(SYS_sched_setattr, 0, &attr, 0), EINVAL) && unchanged());     /* needs 56 bytes */
    CHECK(FAILS(syscall(SYS_sched_getattr, 0, &back, 47, 0), EINVAL));
    CHECK(FAILS(syscall(SYS_sched_getattr, 0, &back, 4097, 0), EINVAL));
    CHECK(FAILS(syscall(SYS_sched_getattr, 0, &back, 48, 1), EINVAL));
    CHECK(FAILS(syscall(SYS_sched_getattr, 0, NULL, 48, 0), EINVAL));
    CHECK(FAILS(syscall(SYS_sched_getattr, -1, &back, 48, 0), EINVAL));
    CHECK(FAILS(syscall(SYS_sched_getattr, 0, KERNEL_ADDRESS, 48, 0), EFAULT));
    return 1;
}

/* ---- Setting and reading back ---- */

static int set_and_read_back(void)
{
    pid_t self = tid();
    CHECK(stat_field(self, 18) == 20 && stat_field(self, 40) == 0 && stat_field(self, 41) == SCHED_OTHER);
    CHECK(set_scheduler(0, SCHED_FIFO, 10) == 0);
    CHECK(get_scheduler(0) == SCHED_FIFO && get_priority(0) == 10);
    CHECK(get_scheduler(self) == SCHED_FIFO && get_priority(self) == 10);
    CHECK(stat_field(self, 18) == -11 && stat_field(self, 40) == 10 && stat_field(self, 41) == SCHED_FIFO);
    struct param param = { 20 };
    CHECK(syscall(SYS_sched_setparam, 0, &param) == 0);
    CHECK(get_scheduler(0) == SCHED_FIFO && get_priority(0) == 20);
    struct timespec interval = { -1, -1 };
    CHECK(syscall(SYS_sched_rr_get_interval, 0, &interval) == 0);
    CHECK(interval.tv_sec == 0 && interval.tv_nsec == 0);      /* FIFO: no slice */
    CHECK(set_scheduler(0, SCHED_RR, 99) == 0);
    CHECK(get_scheduler(0) == SCHED_RR && get_priority(0) == 99 && stat_field(self, 18) == -100);
    CHECK(syscall(SYS_sched_rr_get_interval, 0, &interval) == 0);
    CHECK(interval.tv_sec == 0 && interval.tv_nsec == 100000000);      /* Linux's default */
    CHECK(set_scheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, 1) == 0);
    CHECK(get_scheduler(0) == (SCHED_FIFO | SCHED_RESET_ON_FORK) && get_priority(0) == 1);
    CHECK(stat_field(self, 41) == SCHED_FIFO);
    CHECK(syscall(SYS_sched_setparam, 0, &param) == 0);        /* setparam keeps the flag */
    CHECK(get_scheduler(0) == (SCHED_FIFO | SCHED_RESET_ON_FORK) && get_priority(0) == 20);
    CHECK(set_scheduler(0, SCHED_BATCH, 0) == 0 && get_scheduler(0) == SCHED_BATCH && get_priority(0) == 0);
    CHECK(set_scheduler(0, SCHED_IDLE, 0) == 0 && get_scheduler(0) == SCHED_IDLE);
    CHECK(set_scheduler(0, SCHED_OTHER, 0) == 0 && unchanged());
    CHECK(stat_field(self, 18) == 20 && stat_field(self, 40) == 0 && stat_field(self, 41) == SCHED_OTHER);
    return 1;
}

/* Fork and threads inherit; SCHED_RESET_ON_FORK gives a fork child
 * SCHED_OTHER, and the child does not keep the flag. */
static volatile long thread_policy, thread_priority;

static void *report_policy(void *unused)
{
    (void)unused;
    thread_policy = get_scheduler(0);
    thread_priority = get_priority(0);
    return 0;
}

static int child_policy_is(int policy, int priority)
{
    pid_t child = fork();
    if (child == 0)
        _exit(get_scheduler(0) == policy && get_priority(0) == priority ? 0 : 1);
    return child > 0 && wait_status(child) == 0;
}

static int inherited_by_fork_and_threads(void)
{
    CHECK(set_affinity_range(0, test_cpu(), test_cpu()) == 0);
    CHECK(set_scheduler(0, SCHED_RR, 7) == 0);
    CHECK(child_policy_is(SCHED_RR, 7));
    pthread_t thread;
    CHECK(pthread_create(&thread, 0, report_policy, 0) == 0 && pthread_join(thread, 0) == 0);
    CHECK(thread_policy == SCHED_RR && thread_priority == 7);
    CHECK(set_scheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, 7) == 0);
    CHECK(child_policy_is(SCHED_OTHER, 0));
    CHECK(get_scheduler(0) == (SCHED_FIFO | SCHED_RESET_ON_FORK));
    CHECK(set_scheduler(0, SCHED_BATCH | SCHED_RESET_ON_FORK, 0) == 0);
    CHECK(child_policy_is(SCHED_BATCH, 0));     /* only real-time policies are reset */
    CHECK(set_scheduler(0, SCHED_OTHER, 0) == 0);
    return 1;
}

/* ---- Ordering on one CPU ---- */

/* A woken real-time thread runs before its waker, a normal thread on the
 * same CPU, gets back from the wake: rounds in which it had not are counted. */
static volatile uint32_t wake_word;
static volatile long woken_runs;
static volatile int waiter_stop;

static void *rt_waiter(void *unused)
{
    (void)unused;
    if (set_scheduler(0, SCHED_FIFO, 50) != 0)
        return (void *)1;
    while (!waiter_stop) {
        futex(&wake_word, FUTEX_WAIT, 0);
        if (wake_word) {
            wake_word = 0;
            woken_runs++;
        }
    }
    return 0;
}

static int waits_in_futex(pid_t thread)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)thread);
    for (int tries = 0; tries < 2000; tries++) {
        if (state_in_stat_file(path) == 'S')
            return 1;
        sleep_ms(5);
    }
    return 0;
}

static volatile pid_t waiter_tid;

static void *rt_waiter_start(void *arg)
{
    waiter_tid = tid();
    return rt_waiter(arg);
}

static int woken_rt_preempts_its_waker(void)
{
    CHECK(set_affinity_range(0, test_cpu(), test_cpu()) == 0);
    pthread_t thread;
    CHECK(pthread_create(&thread, 0, rt_waiter_start, 0) == 0);
    while (!waiter_tid)
        sched_yield();
    CHECK(waits_in_futex(waiter_tid));
    int late = 0;
    for (long round = 1; round <= 200; round++) {
        wake_word = 1;
        futex(&wake_word, FUTEX_WAKE, 1);
        late += woken_runs != round;        /* it ran before the wake returned */
        while (woken_runs != round)
            sched_yield();
    }
    waiter_stop = 1;
    wake_word = 1;
    futex(&wake_word, FUTEX_WAKE, 1);
    CHECK(pthread_join(thread, 0) == 0);
    if (late)
        printf("# %d of 200 wakes returned before the real-time thread ran\n", late);
    CHECK(late == 0);
    return 1;
}

/* Two FIFO threads of one priority behind their creator, on its CPU: the
 * first runs its whole spin before the second starts (no slice), and a
 * normal thread there never runs meanwhile. */
static char order[8];
static volatile int order_length;
static volatile long normal_iterations;
static volatile int normal_stop;

static void note(char c)
{
    order[__atomic_fetch_add(&order_length, 1, __ATOMIC_SEQ_CST)] = c;
}

static void spin(unsigned long iterations)
{
    for (volatile unsigned long i = 0; i < iterations; i++)
        ;
}

static void *fifo_spinner(void *name)
{
    note(*(char *)name);
    long normal_before = normal_iterations;
    spin(100000000ul);      /* several 10 ms slices, even on Linux */
    note((char)(*(char *)name - 'a' + 'A'));
    return (void *)(long)(normal_iterations != normal_before);
}

static void *normal_spinner(void *unused)
{
    (void)unused;
    while (!normal_stop)
        normal_iterations++;
    return 0;
}

static int fifo_runs_until_done(void)
{
    CHECK(set_affinity_range(0, test_cpu(), test_cpu()) == 0);
    pthread_t normal, a, b;
    CHECK(pthread_create(&normal, 0, normal_spinner, 0) == 0);
    while (!normal_iterations)
        sched_yield();
    CHECK(set_scheduler(0, SCHED_FIFO, 10) == 0);
    CHECK(pthread_create(&a, 0, fifo_spinner, "a") == 0);   /* FIFO 10, queued behind us */
    CHECK(pthread_create(&b, 0, fifo_spinner, "b") == 0);
    CHECK(order_length == 0);       /* neither preempted its equal */
    void *a_saw_normal, *b_saw_normal;
    CHECK(pthread_join(a, &a_saw_normal) == 0 && pthread_join(b, &b_saw_normal) == 0);
    normal_stop = 1;
    CHECK(pthread_join(normal, 0) == 0);
    order[order_length] = 0;
    printf("# order %s\n", order);
    CHECK(strcmp(order, "aAbB") == 0);
    /* Linux lets normal tasks have 5% (sched_rt_runtime_us; since 6.12
     * its fair server): only nohzk, which has no throttling, must say 0. */
    CHECK(!on_nohzk() || (a_saw_normal == 0 && b_saw_normal == 0));
    return 1;
}

/* Two RR threads of one priority on one CPU take turns: each counts the
 * times it found the other had run since its own last look. */
static volatile int last_runner, turns;

static void *rr_spinner(void *name)
{
    int me = *(char *)name;
    for (unsigned long i = 0; i < SPIN_BOUND && turns < 6; i++) {
        if (last_runner != me) {
            last_runner = me;
            __atomic_fetch_add(&turns, 1, __ATOMIC_SEQ_CST);
        }
    }
    return 0;
}

static int rr_takes_turns(void)
{
    CHECK(set_affinity_range(0, test_cpu(), test_cpu()) == 0);
    CHECK(set_scheduler(0, SCHED_RR, 20) == 0);     /* above them while creating them */
    pthread_t a, b;
    CHECK(pthread_create(&a, 0, rr_spinner, "a") == 0);
    CHECK(pthread_create(&b, 0, rr_spinner, "b") == 0);
    CHECK(set_scheduler(0, SCHED_RR, 5) == 0);      /* below them: they run */
    CHECK(pthread_join(a, 0) == 0 && pthread_join(b, 0) == 0);
    printf("# %d turns\n", turns);
    CHECK(turns >= 6);
    return 1;
}

/* A higher-priority thread woken from another CPU preempts a lower
 * FIFO spinner at once: the spinner, which no slice would ever stop,
 * sees it run. */
static volatile uint32_t high_word;
static volatile int high_ran;
static volatile pid_t high_tid;

static void *high_waiter(void *unused)
{
    (void)unused;
    if (set_scheduler(0, SCHED_FIFO, 50) != 0)
        return (void *)-1;
    high_tid = tid();
    while (!high_word)
        futex(&high_word, FUTEX_WAIT, 0);
    high_ran = 1;
    return 0;
}

static volatile int low_ready;

static void *low_spinner(void *unused)
{
    (void)unused;
    if (set_affinity_range(0, test_cpu(), test_cpu()) != 0 || set_scheduler(0, SCHED_FIFO, 10) != 0)
        return (void *)-1;
    low_ready = 1;
    unsigned long i = 0;
    while (!high_ran && i < SPIN_BOUND)
        i++;
    return (void *)(long)high_ran;
}

static int woken_rt_preempts_across_cpus(void)
{
    if (other_cpu() < 0) {
        ktap_skip_reason = "one CPU";
        return 1;
    }
    CHECK(set_affinity_range(0, test_cpu(), test_cpu()) == 0);
    pthread_t high, low;
    CHECK(pthread_create(&high, 0, high_waiter, 0) == 0);   /* both stay on the test CPU */
    while (!high_tid)
        sched_yield();
    CHECK(waits_in_futex(high_tid));
    /* Off the test CPU before low exists: low moves itself there, and
     * spinning at FIFO 10 it would starve us if we were still there. */
    CHECK(set_affinity_range(0, other_cpu(), other_cpu()) == 0);
    CHECK(pthread_create(&low, 0, low_spinner, 0) == 0);
    while (!low_ready)
        sched_yield();
    high_word = 1;
    futex(&high_word, FUTEX_WAKE, 1);
    void *seen, *high_result;
    CHECK(pthread_join(low, &seen) == 0 && pthread_join(high, &high_result) == 0);
    CHECK(high_result == 0);
    CHECK(seen == (void *)1);
    return 1;
}

/* ---- Another thread's policy, a zombie's ---- */

static volatile uint32_t sleep_word;
static volatile long sleeper_policy, sleeper_priority;

static void *sleeper(void *unused)
{
    (void)unused;
    waiter_tid = tid();
    while (!sleep_word)
        futex(&sleep_word, FUTEX_WAIT, 0);
    sleeper_policy = get_scheduler(0);
    sleeper_priority = get_priority(0);
    return 0;
}

static int policy_of_a_thread_in_a_futex_wait(void)
{
    waiter_tid = 0;
    pthread_t thread;
    CHECK(pthread_create(&thread, 0, sleeper, 0) == 0);
    while (!waiter_tid)
        sched_yield();
    CHECK(waits_in_futex(waiter_tid));
    CHECK(set_scheduler(waiter_tid, SCHED_RR, 33) == 0);
    CHECK(get_scheduler(waiter_tid) == SCHED_RR && get_priority(waiter_tid) == 33);
    CHECK(get_scheduler(0) == SCHED_OTHER);     /* the caller's own is not changed */
    CHECK(set_scheduler(waiter_tid, SCHED_FIFO, 34) == 0);
    sleep_word = 1;
    futex(&sleep_word, FUTEX_WAKE, 1);
    CHECK(pthread_join(thread, 0) == 0);
    CHECK(sleeper_policy == SCHED_FIFO && sleeper_priority == 34);
    return 1;
}

/* A zombie is found until reaped, as for sched_getaffinity. */
static int zombie_policy(void)
{
    pid_t child = fork();
    if (child == 0) {
        set_scheduler(0, SCHED_RR, 3);
        _exit(0);
    }
    CHECK(child > 0);
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)child);
    int tries = 0;
    while (state_in_stat_file(path) != 'Z' && tries++ < 2000)
        sleep_ms(5);
    CHECK(state_in_stat_file(path) == 'Z');
    long policy = get_scheduler(child);
    int priority = get_priority(child);
    long set = set_scheduler(child, SCHED_FIFO, 4);
    int set_errno = errno;
    printf("# zombie: policy %ld priority %d, set %ld errno %d\n", policy, priority, set, set_errno);
    CHECK(wait_status(child) == 0);
    CHECK(policy == SCHED_RR && priority == 3);
    CHECK(set == 0);
    CHECK(FAILS(get_scheduler(child), ESRCH));
    return 1;
}

/* ---- Priority inheritance ---- */

/* The classic inversion on one CPU: L (FIFO 10) holds a
 * PTHREAD_PRIO_INHERIT mutex, M (FIFO 20) spins, H (FIFO 25) wants the
 * mutex. H lends L its priority, so L runs before M, unlocks, and H
 * finishes first: "HML". Without inheritance M spins until its bound
 * first: "MHL". L reads its own /proc priority while boosted and after. */
static pthread_mutex_t pi_mutex;
static volatile int l_locked, m_ready, h_trying, h_done;
static volatile long l_boosted_field, l_after_field;

static void *pi_low(void *unused)
{
    (void)unused;
    if (set_scheduler(0, SCHED_FIFO, 10) != 0 || pthread_mutex_lock(&pi_mutex) != 0)
        return (void *)-1;
    l_locked = 1;
    for (unsigned long i = 0; !h_trying && i < SPIN_BOUND; i++)
        ;
    l_boosted_field = stat_field(tid(), 18);
    pthread_mutex_unlock(&pi_mutex);
    l_after_field = stat_field(tid(), 18);
    note('L');
    return 0;
}

static void *pi_middle(void *unused)
{
    (void)unused;
    if (set_scheduler(0, SCHED_FIFO, 20) != 0)
        return (void *)-1;
    m_ready = 1;
    for (unsigned long i = 0; !h_done && i < MIDDLE_SPIN_BOUND; i++)
        ;
    note('M');
    return 0;
}

static void *pi_high(void *unused)
{
    (void)unused;
    if (set_scheduler(0, SCHED_FIFO, 25) != 0)
        return (void *)-1;
    h_trying = 1;
    if (pthread_mutex_lock(&pi_mutex) != 0)
        return (void *)-1;
    note('H');
    h_done = 1;
    pthread_mutex_unlock(&pi_mutex);
    return 0;
}

static int pi_mutex_lends_priority(void)
{
    pthread_mutexattr_t attr;
    CHECK(pthread_mutexattr_init(&attr) == 0);
    CHECK(pthread_mutexattr_setprotocol(&attr, PTHREAD_PRIO_INHERIT) == 0);
    CHECK(pthread_mutex_init(&pi_mutex, &attr) == 0);
    CHECK(set_affinity_range(0, test_cpu(), test_cpu()) == 0);
    CHECK(set_scheduler(0, SCHED_FIFO, 30) == 0);   /* above them all: each runs when we sleep */
    pthread_t low, middle, high;
    void *results[3];
    CHECK(pthread_create(&low, 0, pi_low, 0) == 0);
    while (!l_locked)
        sleep_ms(1);
    CHECK(pthread_create(&middle, 0, pi_middle, 0) == 0);
    while (!m_ready)
        sleep_ms(1);
    CHECK(pthread_create(&high, 0, pi_high, 0) == 0);
    CHECK(pthread_join(high, &results[0]) == 0 && pthread_join(middle, &results[1]) == 0 &&
          pthread_join(low, &results[2]) == 0);
    CHECK(results[0] == 0 && results[1] == 0 && results[2] == 0);
    order[order_length] = 0;
    printf("# order %s, low's priority field %ld while it held the mutex, %ld after\n", order, l_boosted_field,
           l_after_field);
    CHECK(strcmp(order, "HML") == 0);
    CHECK(l_boosted_field == -26 && l_after_field == -11);
    return 1;
}

static const struct ktap_case cases[] = {
    KTAP_CASE(priority_ranges),
    KTAP_CASE(bad_arguments),
    KTAP_CASE(set_and_read_back),
    KTAP_CASE(sched_attr_calls),
    KTAP_CASE(inherited_by_fork_and_threads),
    KTAP_CASE(woken_rt_preempts_its_waker),
    KTAP_CASE(fifo_runs_until_done),
    KTAP_CASE(rr_takes_turns),
    KTAP_CASE(woken_rt_preempts_across_cpus),
    KTAP_CASE(policy_of_a_thread_in_a_futex_wait),
    KTAP_CASE(zombie_policy),
    KTAP_CASE(pi_mutex_lends_priority),
};

int main(void)
{
    setvbuf(stdout, 0, _IONBF, 0);
    cpus_online = sysconf(_SC_NPROCESSORS_ONLN);
    return ktap_run(cases, KTAP_COUNT(cases), 1);
}
