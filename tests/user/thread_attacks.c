/* thread_attacks: paths through threads that thread_races.c, thread_edges.c
 * and futex_threads.c do not take: /proc/PID/task/TID files (nohz too)
 * read by another process while the threads end, affinity moves of a
 * futex waiter and of a nohz thread, a nohz write racing a move, tgkill of
 * a reaped tid, a process-directed signal with one thread not blocking it,
 * vfork and fork from a thread, a group stop over futex waiters, robust
 * lists and clear_child_tid words at bad addresses, CLONE_SETTLS edge
 * values, and threads made until memory runs out. A static program (musl
 * or glibc) printing KTAP; each case runs in a child. It passes on the
 * Linux host (host-thread_attacks) and on nohzk (scenarios thread-attacks,
 * thread-attacks-glibc); the nohz cases are nohzk's only. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktap.h"
#include "testlib.h"

/* linux/futex.h's, which musl-gcc cannot include */
#define FUTEX_WAIT_PRIVATE 128
#define FUTEX_WAKE_PRIVATE 129
#define FUTEX_WAITERS 0x80000000u
#define FUTEX_OWNER_DIED 0x40000000u

#define KERNEL_ADDRESS ((void *)0xffffffff80100000ul)
#define NONCANONICAL ((void *)0x0000800000000000ul)

static long futex(atomic_int *word, int op, int value, const struct timespec *timeout)
{
    return syscall(SYS_futex, word, op, value, timeout, 0, 0);
}

static pid_t gettid_(void)
{
    return (pid_t)syscall(SYS_gettid);
}

/* Threads in this process, counted in /proc/self/task. */
static int task_count(void)
{
    DIR *dir = opendir("/proc/self/task");
    int count = 0;
    struct dirent *entry;
    if (!dir)
        return -1;
    errno = 0;
    while ((entry = readdir(dir)))
        count += entry->d_name[0] != '.';
    int failed = errno != 0;            /* getdents64 found no memory: unknown */
    closedir(dir);
    return failed ? -1 : count;
}

/* ---- /proc/PID/task/TID/{stat,status,nohz} read while threads end ---- */

static void *return_at_once(void *arg)
{
    return arg;
}

static void churn_threads_forever(void)
{
    for (;;) {
        pthread_t thread;
        if (pthread_create(&thread, 0, return_at_once, 0) == 0)
            pthread_join(thread, 0);
    }
}

static int task_files_read_while_threads_end(void)
{
    fflush(stdout);
    pid_t child = fork();
    if (child == 0)
        churn_threads_forever();
    CHECK(child > 0);
    static const char *const names[] = { "stat", "status", "nohz" };
    int reads = 0, opened = 0;
    for (int i = 0; i < 200; i++) {
        char path[384], buffer[1024];
        snprintf(path, sizeof(path), "/proc/%d/task", child);
        DIR *dir = opendir(path);
        if (!dir)
            continue;
        struct dirent *entry;
        while ((entry = readdir(dir))) {
            if (entry->d_name[0] == '.')
                continue;
            for (int n = 0; n < 3; n++) {
                snprintf(path, sizeof(path), "/proc/%d/task/%s/%s", child, entry->d_name, names[n]);
                int fd = open(path, O_RDONLY);
                if (fd < 0) {
                    CHECK(errno == ENOENT || errno == ESRCH || (errno == ENOENT && n == 2));
                    continue;
                }
                opened++;
                sched_yield();      /* let the thread end between open and read */
                ssize_t length = read(fd, buffer, sizeof(buffer));
                CHECK(length >= 0 || errno == ESRCH);
                reads += length > 0;
                close(fd);
            }
        }
        closedir(dir);
    }
    kill_and_reap(child);
    printf("# %d opened, %d read\n", opened, reads);
    CHECK(reads > 0);
    return 1;
}

/* ---- Affinity of a futex waiter ---- */

static atomic_int wait_word;
static atomic_long wait_result = -2;

static void *wait_on_word(void *arg)
{
    (void)arg;
    long r;
    do
        r = futex(&wait_word, FUTEX_WAIT_PRIVATE, 0, 0);
    while (r == -1 && errno == EINTR);
    wait_result = r == 0 ? 0 : -errno;
    return 0;
}

/* Waits until tid sleeps (state S), at most 10 s. */
static int sleeping_soon(pid_t tid)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
    for (int tries = 0; tries < 1000; tries++) {
        if (state_in_stat_file(path) == 'S')
            return 1;
        sleep_ms(10);
    }
    return 0;
}

static atomic_int waiter_tid;

static void *wait_on_word_tid(void *arg)
{
    waiter_tid = gettid_();
    return wait_on_word(arg);
}

/* A thread asleep in FUTEX_WAIT is moved from CPU to CPU 100 times; the
 * wake still reaches it, once, and its wait returns 0. */
static int affinity_moves_a_futex_waiter(void)
{
    int cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (cpus < 2) {
        ktap_skip_reason = "one CPU";
        return 1;
    }
    pthread_t thread;
    CHECK(pthread_create(&thread, 0, wait_on_word_tid, 0) == 0);
    while (!waiter_tid)
        sched_yield();
    CHECK(sleeping_soon(waiter_tid));
    for (int i = 0; i < 100; i++) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(i % cpus, &set);
        CHECK(sched_setaffinity(waiter_tid, sizeof(set), &set) == 0);
    }
    CHECK(wait_result == -2);           /* moves do not wake it */
    wait_word = 1;
    while (futex(&wait_word, FUTEX_WAKE_PRIVATE, 1, 0) == 0 && wait_result == -2)
        sched_yield();
    CHECK(pthread_join(thread, 0) == 0);
    CHECK(wait_result == 0);
    return 1;
}

/* ---- Affinity of a nohz thread, and a nohz write racing a move ---- */

static atomic_int nohz_stage, nohz_tid, nohz_cpu, nohz_error;

static void pin_self(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    sched_setaffinity(0, sizeof(set), &set);
}

static int write_thread_nohz(const char *value)
{
    int fd = open("/proc/thread-self/nohz", O_WRONLY);
    if (fd < 0)
        return -errno;
    int r = write(fd, value, 1) == 1 ? 0 : -errno;
    close(fd);
    return r;
}

static void *become_nohz(void *arg)
{
    (void)arg;
    nohz_tid = gettid_();
    pin_self(nohz_cpu);
    sched_yield();
    nohz_error = write_thread_nohz("1");
    nohz_stage = 1;
    while (nohz_stage != 2)
        ;                           /* spins alone on its CPU */
    nohz_error = write_thread_nohz("0");
    nohz_stage = 3;
    while (nohz_stage != 4)
        sched_yield();              /* alive while it is moved */
    return 0;
}

/* A sibling cannot move a nohz thread (EBUSY, as a nohz task in the 2010
 * series: docs/nohz-task.md#patch-13-a-nohz-tasks-affinity-cannot-change);
 * once it writes 0, it can. nohzk only. */
static int affinity_of_a_nohz_thread(void)
{
    if (!on_nohzk() || sysconf(_SC_NPROCESSORS_ONLN) < 3) {
        ktap_skip_reason = "needs nohzk's /proc/thread-self/nohz and 3 CPUs";
        return 1;
    }
    pin_self(0);
    nohz_cpu = 1;
    pthread_t thread;
    CHECK(pthread_create(&thread, 0, become_nohz, 0) == 0);
    while (nohz_stage != 1)
        sched_yield();
    CHECK(nohz_error == 0);
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(2, &set);
    CHECK(sched_setaffinity(nohz_tid, sizeof(set), &set) == -1 && errno == EBUSY);
    cpu_set_t now;
    CHECK(sched_getaffinity(nohz_tid, sizeof(now), &now) == 0);
    CHECK(CPU_COUNT(&now) == 1 && CPU_ISSET(1, &now));
    nohz_stage = 2;
    while (nohz_stage != 3)
        sched_yield();
    CHECK(nohz_error == 0);
    CHECK(sched_setaffinity(nohz_tid, sizeof(set), &set) == 0);
    nohz_stage = 4;
    CHECK(pthread_join(thread, 0) == 0);
    return 1;
}

static atomic_int race_stop, race_bad, race_set;

static void *flip_nohz(void *arg)
{
    (void)arg;
    nohz_tid = gettid_();
    while (!race_stop) {
        if (write_thread_nohz("1") == 0) {
            race_set++;
            cpu_set_t mine;
            sched_getaffinity(0, sizeof(mine), &mine);
            /* set: pinned to one CPU, and running on it */
            if (CPU_COUNT(&mine) != 1 || !CPU_ISSET(sched_getcpu(), &mine))
                race_bad++;
            write_thread_nohz("0");
        }
        usleep(200);                    /* a window for the mover while the mark is clear */
    }
    return 0;
}

/* A thread writes 1 and 0 to /proc/thread-self/nohz while a sibling moves
 * it: whenever the write succeeds, the thread is pinned to the CPU it
 * runs on. nohzk only. */
static int nohz_write_racing_affinity(void)
{
    if (!on_nohzk() || sysconf(_SC_NPROCESSORS_ONLN) < 3) {
        ktap_skip_reason = "needs nohzk's /proc/thread-self/nohz and 3 CPUs";
        return 1;
    }
    pin_self(1);                        /* the flipper starts on CPU 1 */
    pthread_t thread;
    CHECK(pthread_create(&thread, 0, flip_nohz, 0) == 0);
    pin_self(3);                        /* the mover never shares a CPU with it */
    while (!nohz_tid)
        sched_yield();
    int moved = 0, busy = 0;
    for (int i = 0; i < 3000; i++) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(1 + i % 2, &set);
        if (i % 7 == 0)
            CPU_SET(2 - i % 2, &set);   /* sometimes CPUs 1 and 2: no nohz */
        if (sched_setaffinity(nohz_tid, sizeof(set), &set) == 0)
            moved++;
        else if (errno == EBUSY)
            busy++;
        else
            CHECK(0);
    }
    race_stop = 1;
    CHECK(pthread_join(thread, 0) == 0);
    printf("# %d moves, %d EBUSY, nohz set %d times, %d set off its CPU\n", moved, busy, (int)race_set,
           (int)race_bad);
    CHECK(race_bad == 0);
    CHECK(moved > 0);
    return 1;
}

static atomic_int nohz_results[2];

static void *nohz_and_end(void *arg)
{
    long which = (long)arg;
    pin_self(1);
    sched_yield();
    nohz_results[which] = write_thread_nohz("1") == 0 ? 1 : -1;
    return 0;                           /* ends with the mark set */
}

/* A thread that ends while it is a nohz task gives its CPU back: a
 * second thread can then be the nohz task of that CPU; so can a thread
 * of the next process after the first one's group ended. nohzk only. */
static void nohz_group_end_body(void)
{
    pthread_t thread;
    pthread_create(&thread, 0, nohz_and_end, (void *)0);
    pthread_join(thread, 0);
    _exit(nohz_results[0] == 1 ? 0 : 1);
}

static int nohz_thread_ends_and_frees_its_cpu(void)
{
    if (!on_nohzk() || sysconf(_SC_NPROCESSORS_ONLN) < 3) {
        ktap_skip_reason = "needs nohzk's /proc/thread-self/nohz and 3 CPUs";
        return 1;
    }
    pin_self(0);
    for (long round = 0; round < 2; round++) {
        pthread_t thread;
        nohz_results[round] = 0;
        CHECK(pthread_create(&thread, 0, nohz_and_end, (void *)round) == 0);
        CHECK(pthread_join(thread, 0) == 0);
        CHECK(nohz_results[round] == 1);
    }
    for (int round = 0; round < 2; round++)
        CHECK(exited_with(status_of_child(nohz_group_end_body), 0));
    return 1;
}

/* ---- tgkill of a tid that has gone ---- */

static atomic_int gone_tid;

static void *note_tid(void *arg)
{
    gone_tid = gettid_();
    return arg;
}

/* A joined thread's tid is ESRCH for tgkill and tkill; a live tid with
 * another tgid is ESRCH too; a negative or zero tid EINVAL. */
static int tgkill_of_a_gone_tid(void)
{
    pthread_t thread;
    CHECK(pthread_create(&thread, 0, note_tid, 0) == 0);
    CHECK(pthread_join(thread, 0) == 0);
    /* the tid is clear before the join returns, but the kernel may still
     * be ending it: wait until /proc no longer lists it */
    char path[64];
    snprintf(path, sizeof(path), "/proc/self/task/%d", (int)gone_tid);
    for (int tries = 0; tries < 1000 && access(path, F_OK) == 0; tries++)
        sleep_ms(10);
    CHECK(syscall(SYS_tgkill, getpid(), gone_tid, 0) == -1 && errno == ESRCH);
    CHECK(syscall(SYS_tgkill, getpid(), gone_tid, SIGKILL) == -1 && errno == ESRCH);
    CHECK(syscall(SYS_tkill, gone_tid, SIGKILL) == -1 && errno == ESRCH);
    pid_t parent = getppid();
    CHECK(syscall(SYS_tgkill, parent, gettid_(), 0) == -1 && errno == ESRCH);
    CHECK(syscall(SYS_tgkill, getpid(), parent, 0) == -1 && errno == ESRCH);
    CHECK(syscall(SYS_tgkill, getpid(), 0, 0) == -1 && errno == EINVAL);
    CHECK(syscall(SYS_tgkill, getpid(), -1, 0) == -1 && errno == EINVAL);
    CHECK(syscall(SYS_tgkill, 0, gettid_(), 0) == -1 && errno == EINVAL);
    CHECK(syscall(SYS_tgkill, getpid(), gettid_(), 65) == -1 && errno == EINVAL);
    return 1;
}

/* ---- A process signal when only one thread takes it ---- */

#define BLOCKERS 3
static atomic_int taker_tid, wrong_takers, taken, taker_stop;

static void note_taker(int signal)
{
    (void)signal;
    if (gettid_() != taker_tid)
        wrong_takers++;
    taken++;
}

static void *block_usr1_and_spin(void *arg)
{
    (void)arg;
    sigset_t set = signal_set(SIGUSR1);
    pthread_sigmask(SIG_BLOCK, &set, 0);
    while (!taker_stop)
        sched_yield();
    return 0;
}

static void *take_usr1(void *arg)
{
    (void)arg;
    sigset_t set = signal_set(SIGUSR1);
    pthread_sigmask(SIG_UNBLOCK, &set, 0);
    taker_tid = gettid_();              /* only now may a kill() come */
    while (!taker_stop)
        sched_yield();
    return 0;
}

/* Every thread but one blocks SIGUSR1, the main thread too; 50 kill()s
 * are each taken by that one thread, none lost beyond merging. */
static int process_signal_to_the_one_taker(void)
{
    CHECK(set_handler(SIGUSR1, note_taker, SA_RESTART) == 0);
    sigset_t set = signal_set(SIGUSR1);
    CHECK(pthread_sigmask(SIG_BLOCK, &set, 0) == 0);
    pthread_t threads[BLOCKERS + 1];
    for (int i = 0; i < BLOCKERS; i++)
        CHECK(pthread_create(&threads[i], 0, block_usr1_and_spin, 0) == 0);
    CHECK(pthread_create(&threads[BLOCKERS], 0, take_usr1, 0) == 0);
    while (!taker_tid)
        sched_yield();
    for (int i = 0; i < 50; i++) {
        int before = taken;
        CHECK(kill(getpid(), SIGUSR1) == 0);
        for (int tries = 0; tries < 10000 && taken == before; tries++)
            sleep_ms(1);
        CHECK(taken == before + 1);
    }
    taker_stop = 1;
    for (int i = 0; i <= BLOCKERS; i++)
        CHECK(pthread_join(threads[i], 0) == 0);
    CHECK(wrong_takers == 0);
    return 1;
}

/* ---- vfork and fork from a thread ---- */

static atomic_long sibling_spins;
static atomic_int sibling_stop;

static void *spin_counting(void *arg)
{
    (void)arg;
    while (!sibling_stop)
        sibling_spins++;
    return 0;
}

static atomic_int vfork_status = -1;

static void *vfork_and_wait(void *arg)
{
    (void)arg;
    pid_t child = vfork();
    if (child == 0)
        _exit(7);
    vfork_status = child > 0 ? exit_status_of(child) : -errno - 1000;
    return 0;
}

/* A non-leader vforks while a sibling spins: the child exits 7, the
 * parent thread resumes and reaps it, the sibling was never stopped for
 * good. */
static int vfork_from_a_thread(void)
{
    pthread_t spinner, vforker;
    CHECK(pthread_create(&spinner, 0, spin_counting, 0) == 0);
    for (int round = 0; round < 20; round++) {
        vfork_status = -1;
        CHECK(pthread_create(&vforker, 0, vfork_and_wait, 0) == 0);
        CHECK(pthread_join(vforker, 0) == 0);
        CHECK(vfork_status == 7);
    }
    long before = sibling_spins;
    while (sibling_spins == before)
        sched_yield();
    sibling_stop = 1;
    CHECK(pthread_join(spinner, 0) == 0);
    return 1;
}

static pthread_mutex_t held[2] = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER };
static atomic_int holders_ready, holders_release;

static void *hold_mutex(void *arg)
{
    pthread_mutex_t *mutex = arg;
    pthread_mutex_lock(mutex);
    holders_ready++;
    while (!holders_release)
        futex(&holders_release, FUTEX_WAIT_PRIVATE, 0, 0);
    pthread_mutex_unlock(mutex);
    return 0;
}

static atomic_int fork_status = -1;

static void *fork_and_check(void *arg)
{
    (void)arg;
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        /* one thread, which is the leader, and the copied futex words
         * still say "held": a trylock fails without waiting */
        int code = 0;
        if (task_count() != 1)
            code |= 1;
        if (gettid_() != getpid())
            code |= 2;
        if (pthread_mutex_trylock(&held[0]) != EBUSY)
            code |= 4;
        if (futex(&holders_release, FUTEX_WAKE_PRIVATE, INT_MAX, 0) != 0)
            code |= 8;          /* no waiter in the child's space */
        _exit(code);
    }
    fork_status = child > 0 ? exit_status_of(child) : -1;
    return 0;
}

/* A thread forks while two siblings hold mutexes and one waits on a
 * futex: the child has one thread, the parent's threads go on. */
static int fork_from_a_thread_while_siblings_hold_futexes(void)
{
    pthread_t holders[2], forker;
    for (int i = 0; i < 2; i++)
        CHECK(pthread_create(&holders[i], 0, hold_mutex, &held[i]) == 0);
    while (holders_ready != 2)
        sched_yield();
    for (int round = 0; round < 10; round++) {
        fork_status = -1;
        CHECK(pthread_create(&forker, 0, fork_and_check, 0) == 0);
        CHECK(pthread_join(forker, 0) == 0);
        if (fork_status != 0)
            printf("# child exited %d\n", (int)fork_status);
        CHECK(fork_status == 0);
    }
    for (int tries = 0; tries < 1000 && task_count() != 3; tries++)
        sleep_ms(10);                   /* a joined thread may be listed a little longer (Linux) */
    CHECK(task_count() == 3);
    holders_release = 1;
    futex(&holders_release, FUTEX_WAKE_PRIVATE, INT_MAX, 0);
    for (int i = 0; i < 2; i++)
        CHECK(pthread_join(holders[i], 0) == 0);
    return 1;
}

/* exit_group from one thread while another waits in vfork: the group
 * ends (status 4) at once, and the vfork child, which still runs in the
 * memory it borrowed, goes on and writes its byte to the pipe. */
static int vfork_pipe[2];

static void *vfork_slow_child(void *arg)
{
    (void)arg;
    pid_t child = vfork();
    if (child == 0) {
        struct timespec pause = { 0, 200 * 1000000 };
        syscall(SYS_nanosleep, &pause, 0);
        syscall(SYS_write, vfork_pipe[1], "k", 1);
        syscall(SYS_exit, 0);
    }
    return 0;
}

static void exit_group_during_vfork_body(void)
{
    pthread_t thread;
    pthread_create(&thread, 0, vfork_slow_child, 0);
    sleep_ms(50);
    syscall(SYS_exit_group, 4);
}

static int exit_group_while_a_thread_waits_in_vfork(void)
{
    CHECK(pipe(vfork_pipe) == 0);
    int status = status_of_child(exit_group_during_vfork_body);
    close(vfork_pipe[1]);
    CHECK(exited_with(status, 4));
    char byte = 0;
    CHECK(read(vfork_pipe[0], &byte, 1) == 1 && byte == 'k');
    return 1;
}

/* The leader ends (pthread_exit) and another thread goes on: the process
 * still takes a process-directed signal, on the live thread, and its
 * exit status is that thread's. */
static atomic_int leader_gone_caught;

static void leader_gone_handler(int signal)
{
    (void)signal;
    leader_gone_caught = gettid_();
}

static void *outlive_the_leader(void *arg)
{
    pid_t leader = (pid_t)(long)arg;
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", leader, leader);
    for (int tries = 0; tries < 1000 && state_in_stat_file(path) != 'Z'; tries++)
        sleep_ms(10);
    if (state_in_stat_file(path) != 'Z')
        exit(10);
    /* the zombie leader is still a thread of the group, as on Linux: a
     * signal 0 to it by tgkill is 0 */
    if (syscall(SYS_tgkill, getpid(), leader, 0) != 0) {
        printf("# tgkill of the zombie leader: errno %d\n", errno);
        fflush(stdout);
        exit(12);
    }
    kill(getpid(), SIGUSR1);
    for (int tries = 0; tries < 1000 && !leader_gone_caught; tries++)
        sleep_ms(1);
    exit(leader_gone_caught == gettid_() ? 3 : 11);
}

static void leader_exits_first_body(void)
{
    set_handler(SIGUSR1, leader_gone_handler, 0);
    pthread_t thread;
    pthread_create(&thread, 0, outlive_the_leader, (void *)(long)getpid());
    pthread_exit(0);
}

static int leader_exits_first(void)
{
    CHECK(exited_with(status_of_child(leader_exits_first_body), 3));
    return 1;
}

/* ---- SIGSTOP and SIGCONT over futex waiters ---- */

#define WAITERS 3
static atomic_int stop_word, woken, wait_errors;

static void *wait_for_word(void *arg)
{
    (void)arg;
    for (;;) {
        long r = futex(&stop_word, FUTEX_WAIT_PRIVATE, 0, 0);
        if (r == 0 && stop_word == 1)
            break;
        if (r == -1 && errno != EINTR && errno != EAGAIN)
            wait_errors++;
        if (stop_word == 1)
            break;
    }
    woken++;
    return 0;
}

/* The child: WAITERS threads wait; a byte on the pipe releases them. */
static int stop_pipe[2];

static void wait_then_release_body(void)
{
    pthread_t threads[WAITERS];
    for (int i = 0; i < WAITERS; i++)
        pthread_create(&threads[i], 0, wait_for_word, 0);
    char byte;
    while (read(stop_pipe[0], &byte, 1) != 1)
        ;
    stop_word = 1;
    futex(&stop_word, FUTEX_WAKE_PRIVATE, INT_MAX, 0);
    for (int i = 0; i < WAITERS; i++)
        pthread_join(threads[i], 0);
    _exit(woken == WAITERS && wait_errors == 0 ? 0 : 1);
}

/* All threads of /proc/PID/task in state, within 10 s. */
static int all_threads_in(pid_t pid, char state, int expected)
{
    for (int tries = 0; tries < 1000; tries++) {
        char path[384];
        snprintf(path, sizeof(path), "/proc/%d/task", pid);
        DIR *dir = opendir(path);
        int in_state = 0, count = 0;
        struct dirent *entry;
        while (dir && (entry = readdir(dir))) {
            if (entry->d_name[0] == '.')
                continue;
            snprintf(path, sizeof(path), "/proc/%d/task/%s/stat", pid, entry->d_name);
            count++;
            in_state += state_in_stat_file(path) == state;
        }
        if (dir)
            closedir(dir);
        if (count == expected && in_state == count)
            return 1;
        sleep_ms(10);
    }
    return 0;
}

/* SIGSTOP stops every thread of a group whose threads wait on a futex;
 * SIGCONT resumes them still waiting (no error, no early return that is
 * not EINTR); a wake then ends every wait. */
static int stop_and_continue_futex_waiters(void)
{
    CHECK(pipe(stop_pipe) == 0);
    fflush(stdout);
    pid_t child = fork();
    if (child == 0)
        wait_then_release_body();
    CHECK(child > 0);
    CHECK(all_threads_in(child, 'S', WAITERS + 1));
    for (int round = 0; round < 3; round++) {
        CHECK(kill(child, SIGSTOP) == 0);
        int status;
        CHECK(waitpid(child, &status, WUNTRACED) == child && WIFSTOPPED(status));
        CHECK(all_threads_in(child, 'T', WAITERS + 1));
        CHECK(kill(child, SIGCONT) == 0);
        CHECK(all_threads_in(child, 'S', WAITERS + 1));
    }
    CHECK(write(stop_pipe[1], "x", 1) == 1);
    CHECK(exited_with(wait_status(child), 0));
    return 1;
}

/* ---- Robust lists and clear_child_tid words at bad addresses ---- */

struct robust_entry {
    struct robust_entry *next;
    atomic_int word;            /* futex_offset 8 */
};

struct robust_head {
    struct robust_entry *next;
    long futex_offset;
    struct robust_entry *pending;
};

static struct robust_head heads[5];
static struct robust_entry ring[2], to_kernel;

static void *set_list_and_exit(void *arg)
{
    long which = (long)arg;
    struct robust_head *head = &heads[which];
    head->futex_offset = 8;
    switch (which) {
    case 0: head->next = KERNEL_ADDRESS; head->pending = KERNEL_ADDRESS; break;
    case 1: head->next = NONCANONICAL; head->pending = (void *)1; break;
    case 2: head->next = (void *)0x1000; head->futex_offset = LONG_MIN; break;
    case 3:     /* a ring of two entries that never comes back to head */
        ring[0].next = &ring[1];
        ring[1].next = &ring[0];
        ring[0].word = gettid_();
        ring[1].word = gettid_() | FUTEX_WAITERS;
        head->next = &ring[0];
        break;
    case 4:     /* an entry whose word is in the kernel's half */
        to_kernel.next = (struct robust_entry *)head;
        head->futex_offset = (long)KERNEL_ADDRESS - (long)&to_kernel;
        head->next = &to_kernel;
        break;
    }
    /* a robust list the walk at exit must survive; then the thread ends
     * by SYS_exit: the libc's own list is gone with this call */
    syscall(SYS_set_robust_list, head, sizeof(*head));
    return (void *)syscall(SYS_exit, 0);
}

/* Each kind of bad robust list, set by a thread that then exits: the
 * process goes on; the ring's owned words are marked OWNER_DIED as Linux's
 * walk does (handle_futex_death()). The threads are raw-exited, so the
 * case runs in a process of its own. */
static void robust_lists_body(void)
{
    int code = 0;
    for (long which = 0; which < 5; which++) {
        pthread_t thread;
        if (pthread_create(&thread, 0, set_list_and_exit, (void *)which) != 0)
            _exit(10);
        pthread_detach(thread);
        for (int tries = 0; tries < 1000 && task_count() != 1; tries++)
            sleep_ms(10);
        if (task_count() != 1)
            code |= 1;
    }
    if ((unsigned)ring[0].word != FUTEX_OWNER_DIED || (unsigned)ring[1].word != (FUTEX_OWNER_DIED | FUTEX_WAITERS)) {
        printf("# ring words %#x %#x\n", (unsigned)ring[0].word, (unsigned)ring[1].word);
        code |= 2;
    }
    /* a length other than the head's is refused and changes nothing */
    if (!(syscall(SYS_set_robust_list, &heads[0], 1) == -1 && errno == EINVAL))
        code |= 4;
    fflush(stdout);
    _exit(code);
}

static int robust_lists_at_bad_addresses(void)
{
    CHECK(exited_with(status_of_child(robust_lists_body), 0));
    return 1;
}

static void *clear_tid_at(void *arg)
{
    syscall(SYS_set_tid_address, arg);
    return (void *)syscall(SYS_exit, 0);
}

/* A thread points its clear_child_tid word at the kernel, at a
 * non-canonical address, at an unmapped page and at read-only text, then
 * ends: its end writes nothing there and the process goes on. */
static void clear_tid_body(void)
{
    void *unmapped = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    munmap(unmapped, 4096);
    void *targets[] = { KERNEL_ADDRESS, NONCANONICAL, unmapped, (void *)clear_tid_body, (void *)3 };
    for (unsigned i = 0; i < sizeof(targets) / sizeof(targets[0]); i++) {
        pthread_t thread;
        if (pthread_create(&thread, 0, clear_tid_at, targets[i]) != 0)
            _exit(10);
        pthread_detach(thread);
        for (int tries = 0; tries < 1000 && task_count() != 1; tries++)
            sleep_ms(10);
        if (task_count() != 1)
            _exit(1);
    }
    /* the process's own, then exit_group: the same end */
    if (syscall(SYS_set_tid_address, KERNEL_ADDRESS) != getpid())
        _exit(2);
    _exit(0);
}

static int set_tid_address_at_bad_addresses(void)
{
    CHECK(exited_with(status_of_child(clear_tid_body), 0));
    return 1;
}

/* ---- A thread's end wakes the waiter on its clear_child_tid word ---- */

static atomic_int exit_word, exit_go;

static void *exit_on_go(void *arg)
{
    (void)arg;
    syscall(SYS_set_tid_address, &exit_word);
    exit_word = gettid_();
    while (!exit_go)
        sched_yield();
    return (void *)syscall(SYS_exit, 0);
}

/* 100 rounds: a thread names a word its clear_child_tid and puts its tid
 * there; a sibling FUTEX_WAITs on the word (shared key, as the exit's
 * wake) while it ends. The wait ends (0, or EAGAIN if the word was
 * already clear), never at its 5 s timeout: a wake lost there leaves
 * pthread_join waiting for ever. In a child: the threads end by SYS_exit
 * behind libc's back. */
static void exit_wake_body(void)
{
    int lost = 0, woken = 0;
    for (int round = 0; round < 100; round++) {
        exit_word = 0;
        exit_go = 0;
        pthread_t thread;
        if (pthread_create(&thread, 0, exit_on_go, 0) != 0)
            _exit(10);
        pthread_detach(thread);
        int tid;
        while (!(tid = exit_word))
            sched_yield();
        exit_go = 1;
        struct timespec timeout = { 5, 0 };
        long r = syscall(SYS_futex, &exit_word, 0, tid, &timeout, 0, 0);
        if (r == -1 && errno == ETIMEDOUT)
            lost++;
        else if (r == 0)
            woken++;
        if (exit_word != 0)
            lost += 100;
    }
    printf("# %d woken, %d lost\n", woken, lost);
    fflush(stdout);
    _exit(lost ? 1 : 0);
}

static int exit_wakes_the_tid_waiter(void)
{
    CHECK(exited_with(status_of_child(exit_wake_body), 0));
    return 1;
}

/* ---- CLONE_SETTLS edge values ---- */

struct clone_args_ {
    uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
};

/* clone3 without CLONE_VM and with CLONE_SETTLS: the child, on the copied
 * stack but with the new FS base (no libc: its thread pointer is gone),
 * reads its FS base with arch_prctl and exits 0 if it is tls, else 1.
 * The parent gets the pid or -errno. */
static long clone3_fs_probe(struct clone_args_ *args, uint64_t tls)
{
    long result;
    register uint64_t expected __asm__("r12") = tls;
    __asm__ volatile("syscall\n\t"
                     "test %%rax, %%rax\n\t"
                     "jnz 1f\n\t"
                     "sub $16, %%rsp\n\t"
                     "mov $158, %%eax\n\t"          /* arch_prctl(ARCH_GET_FS, rsp) */
                     "mov $0x1003, %%edi\n\t"
                     "mov %%rsp, %%rsi\n\t"
                     "syscall\n\t"
                     "xor %%edi, %%edi\n\t"
                     "cmp (%%rsp), %%r12\n\t"
                     "setne %%dil\n\t"
                     "mov $231, %%eax\n\t"          /* exit_group */
                     "syscall\n\t"
                     "hlt\n"
                     "1:"
                     : "=a"(result)
                     : "a"((long)SYS_clone3), "D"(args), "S"(sizeof(*args)), "r"(expected)
                     : "rcx", "r11", "rdx", "memory");
    return result;
}

/* TLS values at the edge of user space: up to TASK_SIZE_MAX - 1
 * (0x7fffffffefff) accepted and the child runs with it; TASK_SIZE_MAX and
 * above EPERM, with no child made. */
static int settls_edge_values(void)
{
    static const uint64_t good[] = { 0, 1, 0x7fffffffeffful, 0x7fffffffe000ul };
    static const uint64_t bad[] = { 0x7ffffffff000ul, 0x800000000000ul, 0xffff800000000000ul, ~0ul };
    for (unsigned i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        struct clone_args_ args = { .flags = CLONE_SETTLS, .exit_signal = SIGCHLD, .tls = good[i] };
        fflush(stdout);
        long child = clone3_fs_probe(&args, good[i]);
        CHECK(child > 0);
        int status = wait_status((pid_t)child);
        if (!exited_with(status, 0))
            printf("# tls %#lx: the child's FS base differs\n", (unsigned long)good[i]);
        CHECK(exited_with(status, 0));
    }
    /* CLONE_CHILD_SETTID in a fork-style clone (glibc's fork() uses it
     * for its thread's tid): the child finds its own tid in its copy */
    static atomic_int child_tid_word;
    struct clone_args_ settid = { .flags = CLONE_CHILD_SETTID, .exit_signal = SIGCHLD,
                                  .child_tid = (uint64_t)&child_tid_word };
    fflush(stdout);
    long child = syscall(SYS_clone3, &settid, sizeof(settid));
    if (child == 0)
        _exit(child_tid_word == gettid_() ? 0 : 1);
    CHECK(child > 0);
    CHECK(exited_with(wait_status((pid_t)child), 0));
    CHECK(child_tid_word == 0);         /* written in the child's memory only */
    int threads_before = task_count();
    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct clone_args_ args = { .flags = CLONE_SETTLS, .exit_signal = SIGCHLD, .tls = bad[i] };
        CHECK(clone3_fs_probe(&args, bad[i]) == -EPERM);
        CHECK(waitpid(-1, 0, WNOHANG) == -1 && errno == ECHILD);
    }
    CHECK(task_count() == threads_before);
    return 1;
}

/* ---- Threads until memory runs out ---- */

#define MAX_THREADS 1000
#define THREAD_FLAGS (CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM | \
                      CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID)
static int park_release;
static atomic_int parked_tids[MAX_THREADS];

/* A raw clone of a thread that needs no stack and no libc: it waits on
 * park_release in registers alone and ends by SYS_exit, which clears its
 * tid word and wakes a waiter. The tid, or -errno. */
static long clone_parked_thread(atomic_int *tid_word)
{
    register long r10 __asm__("r10") = (long)tid_word, r8 __asm__("r8") = 0;
    long result;
    __asm__ volatile("syscall\n\t"
                     "test %%rax, %%rax\n\t"
                     "jnz 3f\n"
                     "1:\n\t"
                     "cmpl $0, park_release(%%rip)\n\t"
                     "jne 2f\n\t"
                     "mov $202, %%eax\n\t"          /* futex(&park_release, WAIT_PRIVATE, 0, 0) */
                     "lea park_release(%%rip), %%rdi\n\t"
                     "mov $128, %%esi\n\t"
                     "xor %%edx, %%edx\n\t"
                     "xor %%r10d, %%r10d\n\t"
                     "syscall\n\t"
                     "jmp 1b\n"
                     "2:\n\t"
                     "mov $60, %%eax\n\t"           /* SYS_exit */
                     "xor %%edi, %%edi\n\t"
                     "syscall\n\t"
                     "ud2\n"
                     "3:"
                     : "=a"(result), "+r"(r10)
                     : "a"((long)SYS_clone), "D"((long)THREAD_FLAGS), "S"(0l), "d"(tid_word), "r"(r8)
                     : "rcx", "r11", "memory");
    return result;
}

/* On nohzk, takes every free page (pages are taken when first written: a
 * read() from /dev/zero fills each MiB, and a kernel write that finds no
 * page is a short read, not the writer's death), then gives back 4 MiB.
 * The chunks taken. */
static void *taken_chunks[8192];

static int take_memory(void)
{
    enum { CHUNK = 1 << 20 };
    int zero = open("/dev/zero", O_RDONLY), chunks = 0;
    if (zero < 0)
        return 0;
    while (chunks < 8192) {
        void *p = mmap(0, CHUNK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            break;
        taken_chunks[chunks++] = p;
        if (read(zero, p, CHUNK) != CHUNK)
            break;
    }
    close(zero);
    for (int i = 0; i < 4 && chunks > 0; i++)
        munmap(taken_chunks[--chunks], CHUNK);
    return chunks;
}

/* Threads made until clone fails (on nohzk, with memory nearly all
 * taken), up to MAX_THREADS: each clone works or fails with EAGAIN or
 * ENOMEM, and a failed one leaves no thread behind; all end and are
 * waited for; then, the memory given back, a thread can be made again.
 * On Linux, whose kernel memory is not ours to exhaust, all MAX_THREADS
 * are made. */
static int threads_until_memory_runs_out(void)
{
    for (int i = 0; i < MAX_THREADS; i++)
        parked_tids[i] = -1;            /* every page of it ours before memory runs out */
    int chunks = on_nohzk() ? take_memory() : 0;
    int count = 0;
    long error = 0;
    while (count < MAX_THREADS) {
        error = clone_parked_thread(&parked_tids[count]);
        if (error < 0)
            break;
        count++;
    }
    int tasks = task_count();           /* -1 if the open found no memory */
    __atomic_store_n(&park_release, 1, __ATOMIC_RELEASE);
    syscall(SYS_futex, &park_release, FUTEX_WAKE_PRIVATE, INT_MAX, 0, 0, 0);
    for (int i = 0; i < count; i++) {
        int tid;
        while ((tid = parked_tids[i]) != 0)
            syscall(SYS_futex, &parked_tids[i], 0 /* WAIT: CLEARTID's wake is shared */, tid, 0, 0, 0);
    }
    while (chunks > 0)
        munmap(taken_chunks[--chunks], 1 << 20);
    printf("# %d threads made, then %ld; /proc/self/task had %d\n", count, error < 0 ? error : 0l, tasks);
    if (tasks >= 0)
        CHECK(tasks == count + 1);      /* no half thread from the failed clone */
    if (on_nohzk())
        CHECK(count < MAX_THREADS && (error == -EAGAIN || error == -ENOMEM));
    else
        CHECK(count == MAX_THREADS || error == -EAGAIN || error == -ENOMEM);
    for (int tries = 0; tries < 1000 && task_count() != 1; tries++)
        sleep_ms(10);
    CHECK(task_count() == 1);
    park_release = 0;
    parked_tids[0] = -1;
    long again = clone_parked_thread(&parked_tids[0]);
    CHECK(again > 0);
    __atomic_store_n(&park_release, 1, __ATOMIC_RELEASE);
    syscall(SYS_futex, &park_release, FUTEX_WAKE_PRIVATE, INT_MAX, 0, 0, 0);
    while (parked_tids[0] != 0)
        syscall(SYS_futex, &parked_tids[0], 0, (int)again, 0, 0, 0);
    return 1;
}

/* A thousand threads made and joined, 100 at a time alive. */
static int a_thousand_threads(void)
{
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 16384);
    int joined = 0;
    for (int batch = 0; batch < 10; batch++) {
        pthread_t threads[100];
        for (int i = 0; i < 100; i++)
            CHECK(pthread_create(&threads[i], &attr, return_at_once, (void *)(long)i) == 0);
        for (int i = 0; i < 100; i++) {
            void *result;
            CHECK(pthread_join(threads[i], &result) == 0 && result == (void *)(long)i);
            joined++;
        }
    }
    CHECK(joined == 1000);
    /* Linux wakes the joiner (the tid futex) before it removes the thread
     * from /proc/self/task; nohzk removes it first. */
    if (!on_nohzk())
        for (int tries = 0; tries < 1000 && task_count() != 1; tries++)
            sleep_ms(10);
    CHECK(task_count() == 1);
    return 1;
}

static const struct ktap_case cases[] = {
    KTAP_CASE(task_files_read_while_threads_end),
    KTAP_CASE(affinity_moves_a_futex_waiter),
    KTAP_CASE(affinity_of_a_nohz_thread),
    KTAP_CASE(nohz_write_racing_affinity),
    KTAP_CASE(nohz_thread_ends_and_frees_its_cpu),
    KTAP_CASE(tgkill_of_a_gone_tid),
    KTAP_CASE(process_signal_to_the_one_taker),
    KTAP_CASE(vfork_from_a_thread),
    KTAP_CASE(fork_from_a_thread_while_siblings_hold_futexes),
    KTAP_CASE(exit_group_while_a_thread_waits_in_vfork),
    KTAP_CASE(leader_exits_first),
    KTAP_CASE(stop_and_continue_futex_waiters),
    KTAP_CASE(robust_lists_at_bad_addresses),
    KTAP_CASE(set_tid_address_at_bad_addresses),
    KTAP_CASE(exit_wakes_the_tid_waiter),
    KTAP_CASE(settls_edge_values),
    KTAP_CASE(threads_until_memory_runs_out),
    KTAP_CASE(a_thousand_threads),
};

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    return ktap_main_each_in_a_child(cases, KTAP_COUNT(cases));
}
