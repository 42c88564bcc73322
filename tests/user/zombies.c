/* zombies: a child that has exited and is not yet reaped is still a
 * process, as on Linux: kill() finds it (signal 0 and SIGKILL succeed, and
 * change nothing), so do tgkill() and kill() of its process group, and
 * sched_getaffinity() and sched_setaffinity() work on it. Once reaped,
 * each of them fails with ESRCH. The parent knows the child is a zombie
 * from its SIGCHLD, sent after the exit. Prints KTAP; runs on the Linux
 * host (tests/run: host-zombies.*) and on nohzk (scenarios "zombies",
 * "zombies-glibc"). */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktap.h"
#include "testlib.h"

#define EXIT_CODE 7

static volatile sig_atomic_t child_exited;

static void on_sigchld(int signal)
{
    (void)signal;
    child_exited = 1;
}

/* A child that exits at once (in a group of its own if asked); returns
 * once it is a zombie, SIGCHLD blocked again. */
static pid_t make_zombie(int own_group)
{
    sigset_t chld = signal_set(SIGCHLD), old;
    if (set_handler(SIGCHLD, on_sigchld, 0) < 0 || sigprocmask(SIG_BLOCK, &chld, &old) < 0)
        return -1;
    child_exited = 0;
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        if (own_group)
            setpgid(0, 0);
        _exit(EXIT_CODE);
    }
    if (own_group && child > 0)
        setpgid(child, child);  /* either may come first; one of them does it */
    while (child > 0 && !child_exited)
        sigsuspend(&old);
    sigprocmask(SIG_SETMASK, &old, 0);
    return child;
}

static int reap(pid_t child)
{
    CHECK(exit_status_of(child) == EXIT_CODE);
    return 1;
}

static int kill_finds_a_zombie(void)
{
    pid_t child = make_zombie(0);
    CHECK(child > 0);
    CHECK(kill(child, 0) == 0);
    CHECK(kill(child, SIGKILL) == 0);   /* too late to change its status */
    CHECK(syscall(SYS_tgkill, child, child, 0) == 0);
    if (!reap(child))
        return 0;
    errno = 0;
    CHECK(kill(child, 0) == -1 && errno == ESRCH);
    errno = 0;
    CHECK(syscall(SYS_tgkill, child, child, 0) == -1 && errno == ESRCH);
    return 1;
}

static int kill_finds_a_group_of_zombies(void)
{
    pid_t child = make_zombie(1);
    CHECK(child > 0);
    CHECK(getpgid(child) == child);
    CHECK(kill(-child, 0) == 0);
    if (!reap(child))
        return 0;
    errno = 0;
    CHECK(kill(-child, 0) == -1 && errno == ESRCH);
    return 1;
}

static int affinity_of_a_zombie(void)
{
    cpu_set_t mine, its;
    CHECK(sched_getaffinity(0, sizeof(mine), &mine) == 0);
    pid_t child = make_zombie(0);
    CHECK(child > 0);
    CPU_ZERO(&its);
    CHECK(sched_getaffinity(child, sizeof(its), &its) == 0);
    CHECK(CPU_COUNT(&its) > 0);
    CHECK(sched_setaffinity(child, sizeof(mine), &mine) == 0);
    if (!reap(child))
        return 0;
    errno = 0;
    CHECK(sched_getaffinity(child, sizeof(its), &its) == -1 && errno == ESRCH);
    errno = 0;
    CHECK(sched_setaffinity(child, sizeof(mine), &mine) == -1 && errno == ESRCH);
    return 1;
}

static const struct ktap_case cases[] = {
    KTAP_CASE(kill_finds_a_zombie),
    KTAP_CASE(kill_finds_a_group_of_zombies),
    KTAP_CASE(affinity_of_a_zombie),
};

int main(void)
{
    return ktap_main(cases, KTAP_COUNT(cases));
}
