/* POSIX threads as the C libraries make them (clone with CLONE_THREAD,
 * docs/threads.md): a static program (musl or glibc) that prints a KTAP
 * document. It runs on nohzk (scenarios "pthreads" and
 * "pthreads-glibc") and, unchanged, on the Linux host (tests/run's
 * "host-pthreads"), so what it checks is Linux's behaviour. Each case
 * runs in a child process of its own: a case that kills its process
 * fails alone. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktap.h"
#include "testlib.h"
#include "../../user/lib/pin.h"

static pid_t tid(void)
{
    return (pid_t)syscall(SYS_gettid);
}

/* --- create and join --------------------------------------------------- */

static void *return_argument_plus_one(void *arg)
{
    return (void *)((uintptr_t)arg + 1);
}

static int create_join(void)
{
    pthread_t threads[8];
    for (uintptr_t i = 0; i < 8; i++)
        CHECK(pthread_create(&threads[i], 0, return_argument_plus_one, (void *)(i * 10)) == 0);
    for (uintptr_t i = 0; i < 8; i++) {
        void *result = 0;
        CHECK(pthread_join(threads[i], &result) == 0);
        CHECK((uintptr_t)result == i * 10 + 1);
    }
    return 1;
}

/* --- identity: one pid, a tid each ------------------------------------- */

static pid_t seen_pid, seen_tid;

static void *identity(void *arg)
{
    (void)arg;
    seen_pid = getpid();
    seen_tid = tid();
    return 0;
}

static int pid_and_tid(void)
{
    pthread_t thread;
    CHECK(tid() == getpid());          /* the leader's tid is the pid */
    CHECK(pthread_create(&thread, 0, identity, 0) == 0);
    CHECK(pthread_join(thread, 0) == 0);
    CHECK(seen_pid == getpid());
    CHECK(seen_tid > 0 && seen_tid != getpid());
    /* The joined thread leaves the count soon after pthread_join (the
     * kernel clears its tid before it is released, on Linux too). */
    int threads = 0;
    for (int tries = 0; tries < 1000 && threads != 1; tries++) {
        char path[64], line[256];
        snprintf(path, sizeof(path), "/proc/%d/status", getpid());
        FILE *status = fopen(path, "r");
        CHECK(status);
        while (fgets(line, sizeof(line), status))
            sscanf(line, "Threads: %d", &threads);
        fclose(status);
        sched_yield();
    }
    CHECK(threads == 1);
    return 1;
}

/* --- thread-local storage ---------------------------------------------- */

static __thread int local_value = 5;

static void *bump_local(void *arg)
{
    local_value += (int)(uintptr_t)arg;
    return (void *)(uintptr_t)local_value;
}

static int tls(void)
{
    pthread_t a, b;
    void *ra, *rb;
    local_value = 100;
    CHECK(pthread_create(&a, 0, bump_local, (void *)1) == 0);
    CHECK(pthread_create(&b, 0, bump_local, (void *)2) == 0);
    CHECK(pthread_join(a, &ra) == 0 && pthread_join(b, &rb) == 0);
    CHECK((uintptr_t)ra == 6 && (uintptr_t)rb == 7);    /* each started from the initial 5 */
    CHECK(local_value == 100);
    return 1;
}

/* --- mutexes, condition variables, barriers ---------------------------- */

#define WORKERS 4
#define ROUNDS 20000

static pthread_mutex_t counter_lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;

static void *count_up(void *arg)
{
    (void)arg;
    for (int i = 0; i < ROUNDS; i++) {
        pthread_mutex_lock(&counter_lock);
        counter++;
        pthread_mutex_unlock(&counter_lock);
    }
    return 0;
}

static int mutex(void)
{
    pthread_t threads[WORKERS];
    counter = 0;
    for (int i = 0; i < WORKERS; i++)
        CHECK(pthread_create(&threads[i], 0, count_up, 0) == 0);
    for (int i = 0; i < WORKERS; i++)
        CHECK(pthread_join(threads[i], 0) == 0);
    CHECK(counter == (long)WORKERS * ROUNDS);
    return 1;
}

static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t queue_changed = PTHREAD_COND_INITIALIZER;
static int queue[16], queue_length, consumed_sum;

static void *consume(void *arg)
{
    int count = (int)(uintptr_t)arg;
    for (int i = 0; i < count; i++) {
        pthread_mutex_lock(&queue_lock);
        while (queue_length == 0)
            pthread_cond_wait(&queue_changed, &queue_lock);
        consumed_sum += queue[--queue_length];
        pthread_cond_broadcast(&queue_changed);
        pthread_mutex_unlock(&queue_lock);
    }
    return 0;
}

static int condition_variable(void)
{
    pthread_t consumer;
    int expected = 0;
    queue_length = consumed_sum = 0;
    CHECK(pthread_create(&consumer, 0, consume, (void *)1000) == 0);
    for (int i = 1; i <= 1000; i++) {
        pthread_mutex_lock(&queue_lock);
        while (queue_length == 16)
            pthread_cond_wait(&queue_changed, &queue_lock);
        queue[queue_length++] = i;
        expected += i;
        pthread_cond_broadcast(&queue_changed);
        pthread_mutex_unlock(&queue_lock);
    }
    CHECK(pthread_join(consumer, 0) == 0);
    CHECK(consumed_sum == expected);
    return 1;
}

static pthread_barrier_t barrier;
static atomic_int phase_arrivals[3];
static atomic_int order_broken;

static void *three_phases(void *arg)
{
    (void)arg;
    for (int phase = 0; phase < 3; phase++) {
        atomic_fetch_add(&phase_arrivals[phase], 1);
        pthread_barrier_wait(&barrier);
        if (atomic_load(&phase_arrivals[phase]) != WORKERS)
            atomic_store(&order_broken, 1);     /* someone passed before all arrived */
        pthread_barrier_wait(&barrier);
    }
    return 0;
}

static int barriers(void)
{
    pthread_t threads[WORKERS];
    CHECK(pthread_barrier_init(&barrier, 0, WORKERS) == 0);
    for (int i = 0; i < WORKERS; i++)
        CHECK(pthread_create(&threads[i], 0, three_phases, 0) == 0);
    for (int i = 0; i < WORKERS; i++)
        CHECK(pthread_join(threads[i], 0) == 0);
    CHECK(!atomic_load(&order_broken));
    for (int phase = 0; phase < 3; phase++)
        CHECK(atomic_load(&phase_arrivals[phase]) == WORKERS);
    return 1;
}

static pthread_mutex_t pi_lock;

static void *count_up_pi(void *arg)
{
    (void)arg;
    for (int i = 0; i < ROUNDS / 4; i++) {
        pthread_mutex_lock(&pi_lock);
        counter++;
        pthread_mutex_unlock(&pi_lock);
    }
    return 0;
}

/* A priority-inheritance mutex (FUTEX_LOCK_PI and UNLOCK_PI when
 * contended): mutual exclusion still holds. */
static int pi_mutex(void)
{
    pthread_mutexattr_t attributes;
    pthread_t threads[WORKERS];
    CHECK(pthread_mutexattr_init(&attributes) == 0);
    CHECK(pthread_mutexattr_setprotocol(&attributes, PTHREAD_PRIO_INHERIT) == 0);
    CHECK(pthread_mutex_init(&pi_lock, &attributes) == 0);
    counter = 0;
    for (int i = 0; i < WORKERS; i++)
        CHECK(pthread_create(&threads[i], 0, count_up_pi, 0) == 0);
    for (int i = 0; i < WORKERS; i++)
        CHECK(pthread_join(threads[i], 0) == 0);
    CHECK(counter == (long)WORKERS * (ROUNDS / 4));
    CHECK(pthread_mutex_destroy(&pi_lock) == 0);
    return 1;
}

/* --- a futex ping-pong across CPUs -------------------------------------- */

#define PINGS 2000
#define FUTEX_WAIT_PRIVATE 128      /* FUTEX_WAIT | FUTEX_PRIVATE_FLAG (musl has no <linux/futex.h>) */
#define FUTEX_WAKE_PRIVATE 129

static atomic_int turn;     /* 0: the pinger's, 1: the ponger's */
static atomic_int pongs;

static void futex_wait_while(atomic_int *word, int value)
{
    while (atomic_load(word) == value)
        syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, value, 0, 0, 0);
}

static void *pong(void *arg)
{
    (void)arg;
    if (pin_to_cpu(0, 1) != 0) {
        atomic_store(&pongs, -1);
        atomic_store(&turn, 0);
        return (void *)1;
    }
    for (int i = 0; i < PINGS; i++) {
        futex_wait_while(&turn, 0);
        atomic_fetch_add(&pongs, 1);
        atomic_store(&turn, 0);
        syscall(SYS_futex, &turn, FUTEX_WAKE_PRIVATE, 1, 0, 0, 0);
    }
    return 0;
}

/* Two threads on CPUs 0 and 1 hand a turn back and forth through a
 * futex, each sleeping in FUTEX_WAIT until the other's FUTEX_WAKE:
 * every round trip happens, in order. */
static int futex_ping_pong_across_cpus(void)
{
    pthread_t thread;
    void *result = 0;
    atomic_store(&turn, 0);
    atomic_store(&pongs, 0);
    CHECK(pin_to_cpu(0, 0) == 0);
    CHECK(pthread_create(&thread, 0, pong, 0) == 0);
    for (int i = 0; i < PINGS; i++) {
        CHECK(atomic_load(&pongs) == i);
        atomic_store(&turn, 1);
        syscall(SYS_futex, &turn, FUTEX_WAKE_PRIVATE, 1, 0, 0, 0);
        futex_wait_while(&turn, 1);
    }
    CHECK(pthread_join(thread, &result) == 0 && result == 0);
    CHECK(atomic_load(&pongs) == PINGS);
    return 1;
}

/* --- signals ----------------------------------------------------------- */

static volatile pid_t handler_tid;
static volatile int handler_runs;

static void note_tid(int signal)
{
    (void)signal;
    handler_tid = tid();
    handler_runs++;
}

static atomic_int worker_ready, worker_done;
static volatile pid_t worker_tid;

static void *wait_for_done(void *arg)
{
    (void)arg;
    worker_tid = tid();
    atomic_store(&worker_ready, 1);
    while (!atomic_load(&worker_done))
        sched_yield();
    return 0;
}

/* pthread_kill (tgkill): the handler runs on that thread. */
static int thread_directed_signal(void)
{
    pthread_t thread;
    signal(SIGUSR1, note_tid);
    CHECK(pthread_create(&thread, 0, wait_for_done, 0) == 0);
    while (!atomic_load(&worker_ready))
        sched_yield();
    CHECK(pthread_kill(thread, SIGUSR1) == 0);
    while (!handler_runs)
        sched_yield();
    CHECK(handler_tid == worker_tid);
    atomic_store(&worker_done, 1);
    CHECK(pthread_join(thread, 0) == 0);
    CHECK(handler_runs == 1);
    return 1;
}

/* kill (process-directed), blocked in the leader: the thread that does
 * not block it takes it. */
static int process_signal_to_unblocking_thread(void)
{
    pthread_t thread;
    sigset_t usr2;
    sigemptyset(&usr2);
    sigaddset(&usr2, SIGUSR2);
    signal(SIGUSR2, note_tid);
    CHECK(pthread_create(&thread, 0, wait_for_done, 0) == 0);  /* inherits the empty mask */
    while (!atomic_load(&worker_ready))
        sched_yield();
    CHECK(pthread_sigmask(SIG_BLOCK, &usr2, 0) == 0);
    CHECK(kill(getpid(), SIGUSR2) == 0);
    while (!handler_runs)
        sched_yield();
    CHECK(handler_tid == worker_tid);
    atomic_store(&worker_done, 1);
    CHECK(pthread_join(thread, 0) == 0);
    return 1;
}

/* kill() with a thread's tid reaches its process (Linux's find_vpid):
 * the signal is process-directed, taken by the thread that does not
 * block it. */
static int kill_by_tid_reaches_the_process(void)
{
    pthread_t thread;
    sigset_t usr2;
    sigemptyset(&usr2);
    sigaddset(&usr2, SIGUSR2);
    signal(SIGUSR2, note_tid);
    CHECK(pthread_sigmask(SIG_BLOCK, &usr2, 0) == 0);          /* the worker blocks it too */
    CHECK(pthread_create(&thread, 0, wait_for_done, 0) == 0);
    while (!atomic_load(&worker_ready))
        sched_yield();
    CHECK(kill(worker_tid, SIGUSR2) == 0);
    sigset_t pending;
    CHECK(sigpending(&pending) == 0 && sigismember(&pending, SIGUSR2));
    CHECK(pthread_sigmask(SIG_UNBLOCK, &usr2, 0) == 0);         /* the leader takes it now */
    CHECK(handler_runs == 1 && handler_tid == getpid());
    atomic_store(&worker_done, 1);
    CHECK(pthread_join(thread, 0) == 0);
    return 1;
}

/* tgkill with another process's tgid: ESRCH. */
static int tgkill_wrong_group(void)
{
    CHECK(syscall(SYS_tgkill, getppid(), tid(), 0) == -1 && errno == ESRCH);
    CHECK(syscall(SYS_tgkill, getpid(), tid(), 0) == 0);
    CHECK(syscall(SYS_tgkill, 0, tid(), 0) == -1 && errno == EINVAL);
    return 1;
}

/* --- the group's end --------------------------------------------------- */

static void *exit_group_seven(void *arg)
{
    (void)arg;
    exit(7);
}

static void *sleep_long(void *arg)
{
    (void)arg;
    for (;;)
        pause();
    return 0;
}

static void exit_from_thread_body(void)
{
    pthread_t sleeper, exiter;
    pthread_create(&sleeper, 0, sleep_long, 0);
    pthread_create(&exiter, 0, exit_group_seven, 0);
    for (;;)
        pause();
}

/* exit() in a thread is exit_group: the sleeping siblings end too, and the
 * parent sees the process's status. */
static int exit_group_from_thread(void)
{
    int status = status_of_child(exit_from_thread_body);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 7);
    return 1;
}

static void *raise_kill(void *arg)
{
    (void)arg;
    raise(SIGTERM);
    return 0;
}

static void fatal_signal_body(void)
{
    pthread_t sleeper, killer;
    pthread_create(&sleeper, 0, sleep_long, 0);
    pthread_create(&killer, 0, raise_kill, 0);
    for (;;)
        pause();
}

/* A fatal signal taken by one thread ends them all. */
static int fatal_signal_ends_group(void)
{
    int status = status_of_child(fatal_signal_body);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
    return 1;
}

static void *leave_last(void *arg)
{
    (void)arg;
    usleep(100000);
    _exit(3);
}

static void leader_exits_first_body(void)
{
    pthread_t thread;
    pthread_create(&thread, 0, leave_last, 0);
    pthread_exit(0);    /* the leader stays a zombie until the last thread */
}

static int leader_exits_first(void)
{
    int status = status_of_child(leader_exits_first_body);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 3);
    return 1;
}

/* --- exec from a thread ------------------------------------------------ */

static char self_path[512];
static pid_t pid_before_exec;
static int exec_pipe[2];

static void *exec_self(void *arg)
{
    (void)arg;
    char pid_text[16], fd_text[16];
    snprintf(pid_text, sizeof(pid_text), "%d", pid_before_exec);
    snprintf(fd_text, sizeof(fd_text), "%d", exec_pipe[1]);
    execl(self_path, self_path, "--after-exec", pid_text, fd_text, (char *)0);
    _exit(99);
}

static void exec_from_thread_body(void)
{
    pthread_t sleeper, execer;
    pid_before_exec = getpid();
    pthread_create(&sleeper, 0, sleep_long, 0);
    pthread_create(&execer, 0, exec_self, 0);
    for (;;)
        pause();
}

/* The program run by exec: it is alone, with the old pid (the exec'ing
 * thread took the leader's). */
static int after_exec(const char *pid_text, const char *fd_text)
{
    int fd = atoi(fd_text);
    char line[64];
    int alone = tid() == getpid();
    int length = snprintf(line, sizeof(line), "%d %d\n", getpid() == atoi(pid_text), alone);
    if (write(fd, line, (size_t)length) != length)
        return 2;
    return 0;
}

static int exec_from_thread(void)
{
    if (!self_path[0]) {
        ktap_skip_reason = "cannot find this program's path";
        return 1;
    }
    CHECK(pipe(exec_pipe) == 0);
    int status = status_of_child(exec_from_thread_body);
    close(exec_pipe[1]);
    char line[64] = { 0 };
    CHECK(read(exec_pipe[0], line, sizeof(line) - 1) > 0);
    close(exec_pipe[0]);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK(strcmp(line, "1 1\n") == 0);
    return 1;
}

/* --- many threads ------------------------------------------------------ */

static atomic_int ran;

static void *count_run(void *arg)
{
    (void)arg;
    atomic_fetch_add(&ran, 1);
    return 0;
}

static int thousand_threads(void)
{
    pthread_t threads[50];
    atomic_store(&ran, 0);
    for (int round = 0; round < 20; round++) {
        for (int i = 0; i < 50; i++)
            CHECK(pthread_create(&threads[i], 0, count_run, 0) == 0);
        for (int i = 0; i < 50; i++)
            CHECK(pthread_join(threads[i], 0) == 0);
    }
    CHECK(atomic_load(&ran) == 1000);
    return 1;
}

/* --- the shootdown: a sibling on another CPU sees a change at once ----- */

/* A sibling pinned to CPU 1 works on a page while we, on CPU 0, unmap it,
 * take its write right away, or break its copy-on-write. Without a flush
 * of CPU 1's TLB the sibling would go on through the old translation for
 * ever; with it, it faults (SIGSEGV, caught on its own thread) or sees the
 * new page. No time is asserted: we give it a count of our yields, far
 * more than a flush takes (it is the flush that the call waits for). */
static volatile char *shared_page;
static atomic_int sibling_started, sibling_faulted, sibling_saw_new;
static __thread sigjmp_buf fault_jump;
static int sibling_mode;    /* 0: read, 1: write, 2: read until the value is 2 */

static void jump_out(int signal)
{
    (void)signal;
    siglongjmp(fault_jump, 1);
}

static void *work_on_page(void *arg)
{
    (void)arg;
    if (pin_to_cpu(0, 1) != 0)
        return (void *)1;
    if (sigsetjmp(fault_jump, 1)) {
        atomic_store(&sibling_faulted, 1);
        return 0;
    }
    atomic_store(&sibling_started, 1);
    for (unsigned long i = 0;; i++) {
        if (sibling_mode == 1)
            shared_page[i % 4096] = 1;
        else if (shared_page[i % 4096] == 2 && sibling_mode == 2) {
            atomic_store(&sibling_saw_new, 1);
            return 0;
        }
    }
}

static long tlb_interrupts(void)
{
    FILE *file = fopen("/proc/interrupts", "r");
    char line[4096];
    long total = -1;
    while (file && fgets(line, sizeof(line), file)) {
        char *rest = line;
        while (*rest == ' ')
            rest++;
        if (strncmp(rest, "TLB:", 4) != 0)
            continue;
        total = 0;
        char *end;
        for (rest += 4;; rest = end) {
            long value = strtol(rest, &end, 10);
            if (end == rest)
                break;
            total += value;
        }
    }
    if (file)
        fclose(file);
    return total;
}

/* Until flag is set, at most a bounded count of yields: 1 if set. */
static int sibling_reports(atomic_int *flag)
{
    for (long i = 0; i < 2000000 && !atomic_load(flag); i++)
        sched_yield();
    return atomic_load(flag);
}

static int start_sibling(pthread_t *thread, int mode)
{
    shared_page = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (shared_page == MAP_FAILED)
        return 0;
    memset((void *)shared_page, 1, 4096);
    sibling_mode = mode;
    atomic_store(&sibling_started, 0);
    atomic_store(&sibling_faulted, 0);
    atomic_store(&sibling_saw_new, 0);
    signal(SIGSEGV, jump_out);
    if (pin_to_cpu(0, 0) != 0 || pthread_create(thread, 0, work_on_page, 0) != 0)
        return 0;
    while (!atomic_load(&sibling_started))
        sched_yield();
    return 1;
}

static int munmap_reaches_sibling(void)
{
    pthread_t thread;
    void *result = 0;
    CHECK(start_sibling(&thread, 0));
    long before = tlb_interrupts();
    CHECK(munmap((void *)shared_page, 4096) == 0);
    CHECK(sibling_reports(&sibling_faulted));
    CHECK(pthread_join(thread, &result) == 0 && result == 0);
    /* CPU 1 took a TLB shootdown. Linux may skip a CPU that is not running
     * the process at that moment (lazy TLB; the sibling may be preempted
     * on a busy host): there only the fault is asserted. */
    CHECK(before >= 0 && (tlb_interrupts() > before || !on_nohzk()));
    return 1;
}

static int mprotect_reaches_sibling(void)
{
    pthread_t thread;
    void *result = 0;
    CHECK(start_sibling(&thread, 1));
    CHECK(mprotect((void *)shared_page, 4096, PROT_READ) == 0);
    CHECK(sibling_reports(&sibling_faulted));
    CHECK(pthread_join(thread, &result) == 0 && result == 0);
    munmap((void *)shared_page, 4096);
    return 1;
}

/* After a fork the page is copy-on-write; our write breaks it (a new page
 * for us), and the sibling must read the new page, not the old one the
 * child keeps. */
static int cow_break_reaches_sibling(void)
{
    pthread_t thread;
    void *result = 0;
    CHECK(start_sibling(&thread, 2));
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        _exit(shared_page[0] == 1 ? 0 : 1);
    }
    CHECK(child > 0);
    shared_page[0] = 2;
    CHECK(sibling_reports(&sibling_saw_new));
    CHECK(pthread_join(thread, &result) == 0 && result == 0);
    CHECK(exit_status_of(child) == 0);      /* the child kept the old page */
    munmap((void *)shared_page, 4096);
    return 1;
}

/* --- /proc/PID/task/TID and /proc/thread-self ------------------------ */

static char thread_stat[512], thread_self_link[64];
static pid_t stat_reader_tid;

static void *read_own_stat(void *arg)
{
    (void)arg;
    stat_reader_tid = tid();
    if (pin_to_cpu(0, 1) != 0)
        return (void *)1;
    int fd = open("/proc/thread-self/stat", O_RDONLY);
    ssize_t length = fd < 0 ? -1 : read(fd, thread_stat, sizeof(thread_stat) - 1);
    if (fd >= 0)
        close(fd);
    if (length <= 0)
        return (void *)2;
    thread_stat[length] = 0;
    length = readlink("/proc/thread-self", thread_self_link, sizeof(thread_self_link) - 1);
    if (length <= 0)
        return (void *)3;
    thread_self_link[length] = 0;
    return 0;
}

/* Field n (1-based, Linux's numbering in proc(5)) of a stat line. */
static long stat_field(const char *line, int n)
{
    const char *at = strrchr(line, ')');
    if (!at || n < 3)
        return -1;
    at += 2;                            /* field 3 */
    for (int field = 3; field < n; field++) {
        at = strchr(at, ' ');
        if (!at)
            return -1;
        at++;
    }
    return strtol(at, 0, 10);
}

/* A thread's own stat: its tid first, the process's thread count (20),
 * and the CPU it runs on (39, "processor"); /proc/thread-self is
 * PID/task/TID. */
static int task_stat_names_the_thread(void)
{
    pthread_t thread;
    void *result = 0;
    CHECK(pthread_create(&thread, 0, read_own_stat, 0) == 0);
    CHECK(pthread_join(thread, &result) == 0 && result == 0);
    CHECK(atoi(thread_stat) == stat_reader_tid);
    CHECK(stat_field(thread_stat, 20) == 2);
    CHECK(stat_field(thread_stat, 39) == 1);
    char expected[64];
    snprintf(expected, sizeof(expected), "%d/task/%d", getpid(), stat_reader_tid);
    CHECK(strcmp(thread_self_link, expected) == 0);
    return 1;
}

/* --- clone's flags, as Linux refuses them ------------------------------ */

#define CLONE_DETACHED_FLAG 0x00400000

struct clone_args_v0 {
    uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
};

static int clone_flag_errors(void)
{
    /* CLONE_THREAD without CLONE_SIGHAND, CLONE_SIGHAND without CLONE_VM */
    CHECK(syscall(SYS_clone, CLONE_THREAD | CLONE_VM, 0, 0, 0, 0) == -1 && errno == EINVAL);
    CHECK(syscall(SYS_clone, CLONE_SIGHAND, 0, 0, 0, 0) == -1 && errno == EINVAL);
    /* clone3 refuses CLONE_DETACHED and an exit signal with CLONE_THREAD */
    struct clone_args_v0 args = { .flags = CLONE_DETACHED_FLAG };
    CHECK(syscall(435, &args, sizeof(args)) == -1 && errno == EINVAL);
    args = (struct clone_args_v0){ .flags = CLONE_VM | CLONE_SIGHAND | CLONE_THREAD, .exit_signal = SIGCHLD };
    CHECK(syscall(435, &args, sizeof(args)) == -1 && errno == EINVAL);
    CHECK(syscall(435, &args, 32) == -1 && errno == EINVAL);       /* smaller than the first version */
    /* a stack without a size */
    args = (struct clone_args_v0){ .stack = 4096 };
    CHECK(syscall(435, &args, sizeof(args)) == -1 && errno == EINVAL);
    return 1;
}

/* --- sigwait across threads (rt_sigtimedwait) -------------------------- */

#define SIGWAIT_ROUNDS 100
static atomic_int sigwait_taken[2], sigwait_wrong;
static volatile pid_t sigwait_tids[2];     /* read in a loop while the threads start */

/* Takes SIGUSR1 until SIGUSR2 says stop, checking its siginfo. */
static void *take_signals(void *arg)
{
    int index = (int)(uintptr_t)arg;
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    sigaddset(&set, SIGUSR2);
    sigwait_tids[index] = tid();
    for (;;) {
        siginfo_t info;
        long signal = syscall(SYS_rt_sigtimedwait, &set, &info, 0, 8);
        if (signal == SIGUSR2)
            return 0;
        if (signal != SIGUSR1)
            continue;       /* EINTR */
        if (info.si_signo != SIGUSR1 || info.si_pid != getpid())
            atomic_fetch_add(&sigwait_wrong, 1);
        atomic_fetch_add(&sigwait_taken[index], 1);
    }
}

static int total_taken(void)
{
    return atomic_load(&sigwait_taken[0]) + atomic_load(&sigwait_taken[1]);
}

/* 1 once count signals were taken, 0 after 10 s. */
static int taken_soon(int count)
{
    for (int tries = 0; tries < 100000 && total_taken() < count; tries++) {
        if (tries > 1000)
            usleep(100);
        else
            sched_yield();
    }
    return total_taken() == count;
}

/* Two threads wait for the same signal; each process-directed one is
 * taken by exactly one of them, each thread-directed one by its target. */
static int sigwait_in_two_threads(void)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    sigaddset(&set, SIGUSR2);
    CHECK(pthread_sigmask(SIG_BLOCK, &set, 0) == 0);
    pthread_t threads[2];
    for (int i = 0; i < 2; i++)
        CHECK(pthread_create(&threads[i], 0, take_signals, (void *)(uintptr_t)i) == 0);
    for (int round = 0; round < SIGWAIT_ROUNDS; round++) {
        CHECK(kill(getpid(), SIGUSR1) == 0);
        CHECK(taken_soon(round + 1));
    }
    while (!sigwait_tids[0] || !sigwait_tids[1])
        sched_yield();
    int before = atomic_load(&sigwait_taken[1]);
    for (int round = 0; round < 10; round++) {
        CHECK(syscall(SYS_tgkill, getpid(), sigwait_tids[1], SIGUSR1) == 0);
        CHECK(taken_soon(SIGWAIT_ROUNDS + round + 1));
    }
    CHECK(atomic_load(&sigwait_taken[1]) == before + 10);
    for (int i = 0; i < 2; i++) {
        CHECK(syscall(SYS_tgkill, getpid(), sigwait_tids[i], SIGUSR2) == 0);
        CHECK(pthread_join(threads[i], 0) == 0);
    }
    CHECK(total_taken() == SIGWAIT_ROUNDS + 10 && atomic_load(&sigwait_wrong) == 0);
    return 1;
}

static void *wait_for_ever(void *arg)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR1);
    atomic_store((atomic_int *)arg, tid());
    syscall(SYS_rt_sigtimedwait, &set, 0, 0, 8);
    return 0;
}

/* The process exits while a thread waits: the wait ends with it. */
static int exit_while_a_thread_waits(void)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        static atomic_int waiter;
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, SIGUSR1);
        pthread_sigmask(SIG_BLOCK, &set, 0);
        pthread_t thread;
        pthread_create(&thread, 0, wait_for_ever, &waiter);
        while (!atomic_load(&waiter))
            sched_yield();
        char path[64];
        snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", getpid(), atomic_load(&waiter));
        for (int tries = 0; tries < 1000 && state_in_stat_file(path) != 'S'; tries++)
            usleep(10000);
        exit(state_in_stat_file(path) == 'S' ? 7 : 8);
    }
    CHECK(exited_with(wait_status(pid), 7));
    return 1;
}

/* --- the descriptor table grows while threads use it --------------------- */

#define DUPS_PER_THREAD 200
static int dup_results[4][DUPS_PER_THREAD];
static atomic_int dup_go;

static void *dup_many(void *arg)
{
    int *results = arg;
    while (!atomic_load(&dup_go))
        sched_yield();
    for (int i = 0; i < DUPS_PER_THREAD; i++)
        results[i] = dup(0);
    return 0;
}

/* Four threads dup at once from a fresh table of 64 slots up past 800:
 * each growth drops the table's lock to allocate, and no descriptor may be
 * lost or given twice. */
static int descriptors_grow_under_threads(void)
{
    pthread_t threads[4];
    for (int t = 0; t < 4; t++)
        CHECK(pthread_create(&threads[t], 0, dup_many, dup_results[t]) == 0);
    atomic_store(&dup_go, 1);
    for (int t = 0; t < 4; t++)
        CHECK(pthread_join(threads[t], 0) == 0);
    static char seen[4096];
    for (int t = 0; t < 4; t++) {
        for (int i = 0; i < DUPS_PER_THREAD; i++) {
            int fd = dup_results[t][i];
            CHECK(fd > 2 && fd < 4096 && !seen[fd]);
            seen[fd] = 1;
            CHECK(fcntl(fd, F_GETFD) == 0);
        }
    }
    for (int t = 0; t < 4; t++)
        for (int i = 0; i < DUPS_PER_THREAD; i++)
            CHECK(close(dup_results[t][i]) == 0);
    return 1;
}

static const struct ktap_case cases[] = {
    KTAP_CASE(create_join),
    KTAP_CASE(pid_and_tid),
    KTAP_CASE(tls),
    KTAP_CASE(mutex),
    KTAP_CASE(condition_variable),
    KTAP_CASE(barriers),
    KTAP_CASE(pi_mutex),
    KTAP_CASE(futex_ping_pong_across_cpus),
    KTAP_CASE(thread_directed_signal),
    KTAP_CASE(process_signal_to_unblocking_thread),
    KTAP_CASE(kill_by_tid_reaches_the_process),
    KTAP_CASE(tgkill_wrong_group),
    KTAP_CASE(sigwait_in_two_threads),
    KTAP_CASE(exit_while_a_thread_waits),
    /* before any case that a missing shootdown can hang (a stale TLB
     * entry in malloc's memory): mutant shootdown-skipped expects these
     * to fail, not the run to time out first */
    KTAP_CASE(munmap_reaches_sibling),
    KTAP_CASE(mprotect_reaches_sibling),
    KTAP_CASE(cow_break_reaches_sibling),
    KTAP_CASE(descriptors_grow_under_threads),
    KTAP_CASE(exit_group_from_thread),
    KTAP_CASE(fatal_signal_ends_group),
    KTAP_CASE(leader_exits_first),
    KTAP_CASE(exec_from_thread),
    KTAP_CASE(thousand_threads),
    KTAP_CASE(task_stat_names_the_thread),
    KTAP_CASE(clone_flag_errors),
};

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--after-exec") == 0)
        return after_exec(argv[2], argv[3]);
    if (!find_self(argv[0], self_path, sizeof(self_path)))
        self_path[0] = 0;
    return ktap_main_each_in_a_child(cases, KTAP_COUNT(cases));
}
