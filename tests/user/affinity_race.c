/* sched_setaffinity() on another process, while that process is busy in
 * system calls that look at the process table (getsid, kill, wait4, fork
 * and exit, opening /proc/PID/stat), and /proc/self/nohz written by a
 * process while another one changes its affinity. Every call completes
 * (a hang is the scenario's timeout), and every result is 0 or a
 * documented errno. Prints KTAP; runs on the Linux host (tests/run:
 * host-affinity_race.*), where the /proc/self/nohz case is skipped, and
 * on nohzk (scenarios "affinity-race", "affinity-race-glibc", -smp 4). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktap.h"
#include "testlib.h"
#include "../../user/lib/pin.h"

#define ROUNDS 600                  /* affinity changes per child */
#define NOHZ_ROUNDS 3000

/* What a looping child tells its parent when it is told to stop. */
struct report {
    long iterations, failures, busy, moved_while_set;
    int last_errno;
};

static volatile sig_atomic_t stop;

static void on_sigterm(int signal)
{
    (void)signal;
    stop = 1;
}

/* Two CPUs to move a child between: 1 and 2 if there are three, else 0
 * and 1. 0 if there are not two. */
static int pick_cpus(int cpu[2])
{
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    if (online < 2)
        return 0;
    cpu[0] = online >= 3 ? 1 : 0;
    cpu[1] = cpu[0] + 1;
    return 1;
}

/* The one CPU pid may run on, or -1 if its mask has more (or the call
 * fails). */
static int only_cpu(pid_t pid)
{
    cpu_set_t set;
    if (sched_getaffinity(pid, sizeof(set), &set) != 0 || CPU_COUNT(&set) != 1)
        return -1;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (CPU_ISSET(cpu, &set))
            return cpu;
    }
    return -1;
}

/* ---- children that loop in one system call ---- */

/* One iteration of a loop: 1 if the call gave what it should. */
typedef int (*iteration_fn)(pid_t parent);

static int call_getsid(pid_t parent)
{
    return getsid(parent) == getsid(0);     /* a fork is in its parent's session */
}

static int call_kill(pid_t parent)
{
    return kill(parent, 0) == 0;
}

static int call_wait4(pid_t parent)
{
    (void)parent;
    int status;
    return waitpid(-1, &status, WNOHANG) == -1 && errno == ECHILD;     /* it has no children */
}

static int call_fork_exit(pid_t parent)
{
    (void)parent;
    pid_t child = fork();
    if (child == 0)
        _exit(7);
    return child > 0 && exit_status_of(child) == 7;
}

static int call_open_proc_stat(pid_t parent)
{
    (void)parent;
    char path[64], text[512];
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)getpid());
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return 0;
    ssize_t got = read(fd, text, sizeof(text) - 1);
    close(fd);
    if (got <= 0)
        return 0;
    text[got] = 0;
    return atoi(text) == getpid();
}

struct loop {
    const char *name;
    iteration_fn iteration;
};

static const struct loop loops[] = {
    { "getsid", call_getsid },
    { "kill", call_kill },
    { "wait4", call_wait4 },
    { "fork+exit", call_fork_exit },
    { "open /proc/PID/stat", call_open_proc_stat },
};

#define LOOP_COUNT (int)(sizeof(loops) / sizeof(loops[0]))

/* Start a child that runs body until SIGTERM, then writes its report to
 * the pipe. SA_RESTART: the signal does not cut a wait4 short. */
static pid_t start_looper(int report_fd, void (*body)(struct report *report, const void *arg), const void *arg)
{
    fflush(stdout);
    pid_t child = fork();
    if (child != 0)
        return child;
    struct report report = { 0 };
    if (set_handler(SIGTERM, on_sigterm, SA_RESTART) != 0) {
        report.failures = 1;
        report.last_errno = errno;
    } else {
        body(&report, arg);
    }
    _exit(write(report_fd, &report, sizeof(report)) == sizeof(report) ? 0 : 1);
}

static void loop_body(struct report *report, const void *arg)
{
    iteration_fn iteration = ((const struct loop *)arg)->iteration;
    pid_t parent = getppid();
    while (!stop) {
        errno = 0;
        if (!iteration(parent)) {
            report->failures++;
            report->last_errno = errno;
        }
        report->iterations++;
    }
}

/* Stop a looper and collect its report: 1 if it exited cleanly. */
static int stop_looper(pid_t child, int report_fd, struct report *report)
{
    int status;
    memset(report, 0, sizeof(*report));
    if (kill(child, SIGTERM) != 0)
        return 0;
    ssize_t got = read(report_fd, report, sizeof(*report));
    return got == sizeof(*report) && waitpid(child, &status, 0) == child && WIFEXITED(status) &&
           WEXITSTATUS(status) == 0;
}

/* Each child loops in a call that takes the process table's lock, on one
 * of two CPUs, while we move it to the other one ROUNDS times; each move
 * returns 0 and is what sched_getaffinity then reads. */
static int setaffinity_on_children_in_system_calls(void)
{
    int cpu[2];
    if (!pick_cpus(cpu)) {
        ktap_skip_reason = "needs 2 CPUs";
        return 1;
    }
    pid_t children[LOOP_COUNT];
    int reports[LOOP_COUNT][2];
    for (int i = 0; i < LOOP_COUNT; i++) {
        CHECK(pipe(reports[i]) == 0);
        children[i] = start_looper(reports[i][1], loop_body, &loops[i]);
        CHECK(children[i] > 0);
    }
    int refused = 0, misread = 0;
    for (int round = 0; round < ROUNDS; round++) {
        for (int i = 0; i < LOOP_COUNT; i++) {
            int target = cpu[(round + i) % 2];
            if (pin_to_cpu(children[i], target) != 0) {
                printf("# round %d: sched_setaffinity(%s child) failed, errno %d\n", round, loops[i].name, errno);
                refused++;
            } else if (only_cpu(children[i]) != target) {
                misread++;
            }
        }
    }
    int ok = 1;
    for (int i = 0; i < LOOP_COUNT; i++) {
        struct report report;
        int exited = stop_looper(children[i], reports[i][0], &report);
        printf("# %s: %ld iterations, %ld failed (last errno %d)\n", loops[i].name, report.iterations,
               report.failures, report.last_errno);
        ok &= exited && report.iterations > 0 && report.failures == 0;
        close(reports[i][0]);
        close(reports[i][1]);
    }
    CHECK(refused == 0);
    CHECK(misread == 0);
    CHECK(ok);
    return 1;
}

/* ---- /proc/self/nohz against another process's affinity change ---- */

/* Set and clear the attribute until stopped. Setting gives 0 or EBUSY;
 * once set, the task runs on its mask's one CPU; clearing gives 0. */
static void nohz_body(struct report *report, const void *arg)
{
    const int *cpu = arg;
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/nohz", (int)getpid());
    int fd = pin_to_cpu(0, cpu[0]) == 0 ? open(path, O_WRONLY) : -1;
    if (fd < 0) {
        report->failures++;
        report->last_errno = errno;
        return;
    }
    while (!stop) {
        report->iterations++;
        if (write(fd, "1", 1) != 1) {
            if (errno == EBUSY) {
                report->busy++;
            } else {
                report->failures++;
                report->last_errno = errno;
            }
            continue;
        }
        int where = only_cpu(0);
        if (where < 0 || sched_getcpu() != where)
            report->moved_while_set++;
        if (write(fd, "0", 1) != 1) {
            report->failures++;
            report->last_errno = errno;
        }
    }
}

static int nohz_write_races_an_affinity_change(void)
{
    int cpu[2];
    if (access("/proc/self/nohz", F_OK) != 0) {
        ktap_skip_reason = "no /proc/self/nohz (Linux)";
        return 1;
    }
    if (!pick_cpus(cpu)) {
        ktap_skip_reason = "needs 2 CPUs";
        return 1;
    }
    int report_pipe[2];
    CHECK(pipe(report_pipe) == 0);
    pid_t child = start_looper(report_pipe[1], nohz_body, cpu);
    CHECK(child > 0);
    int moved = 0, busy = 0, other = 0, last_errno = 0;
    for (int round = 0; round < NOHZ_ROUNDS; round++) {
        if (pin_to_cpu(child, cpu[round % 2]) == 0) {
            moved++;
        } else if (errno == EBUSY) {
            busy++;             /* a nohz task's affinity cannot change */
        } else {
            other++;
            last_errno = errno;
        }
    }
    struct report report;
    int exited = stop_looper(child, report_pipe[0], &report);
    close(report_pipe[0]);
    close(report_pipe[1]);
    printf("# affinity changes: %d done, %d EBUSY, %d other (last errno %d)\n", moved, busy, other, last_errno);
    printf("# nohz writes: %ld, %ld EBUSY, %ld failed (last errno %d), %ld off their CPU\n", report.iterations,
           report.busy, report.failures, report.last_errno, report.moved_while_set);
    CHECK(exited);
    CHECK(other == 0);
    CHECK(report.iterations > 0);
    CHECK(report.failures == 0);
    CHECK(report.moved_while_set == 0);
    return 1;
}

static const struct ktap_case cases[] = {
    KTAP_CASE(setaffinity_on_children_in_system_calls),
    KTAP_CASE(nohz_write_races_an_affinity_change),
};

int main(void)
{
    return ktap_main(cases, KTAP_COUNT(cases));
}
