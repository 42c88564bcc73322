/* Job control as Linux x86-64 provides it: stop signals, SIGCONT, and what
 * the parent hears (wait4's WUNTRACED and WCONTINUED, SIGCHLD's
 * CLD_STOPPED and CLD_CONTINUED, SA_NOCLDSTOP). A static program that
 * prints KTAP; it runs on nohzk (scenarios "jobs", "jobs-glibc") and,
 * unchanged, on the Linux host (tests/run's host-jobs.*).
 *
 * Stopped means stopped: a child that writes a byte to a pipe every
 * millisecond writes none while stopped. No time is asserted; the waits
 * are lower bounds. (nohzk ignored every stop signal: the first case's
 * waitpid(WUNTRACED) never returned.) */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ktap.h"
#include "testlib.h"

/* Each case ends within this, or dies of SIGALRM and fails: a kernel
 * without stops would leave waitpid(WUNTRACED) waiting for ever. */
#define GUARD_SECONDS 30

/* fork, with the child leading a process group of its own whose parent
 * (we) is in the same session, so the group is never orphaned: Linux
 * discards SIGTSTP, SIGTTIN and SIGTTOU sent to an orphaned group, and
 * ours is one when the test runner's parent has exited (as when CI was
 * started in the background). */
static pid_t fork_own_group(void)
{
    pid_t child = fork();
    if (child >= 0)
        setpgid(child, child);      /* in both: whichever of us comes first */
    return child;
}

/* A child writing a byte every millisecond into *ticks (non-blocking read end). */
static pid_t start_ticker(int *ticks)
{
    int ends[2];
    if (pipe2(ends, O_NONBLOCK) != 0)
        return -1;
    pid_t child = fork_own_group();
    if (child == 0) {
        close(ends[0]);
        for (;;) {
            if (write(ends[1], "t", 1) != 1 && errno != EAGAIN)
                _exit(1);
            sleep_ms(1);
        }
    }
    close(ends[1]);
    *ticks = ends[0];
    return child;
}

/* Bytes waiting in a non-blocking pipe, read and thrown away. */
static long drain(int fd)
{
    char buffer[256];
    long total = 0, got;
    while ((got = read(fd, buffer, sizeof(buffer))) > 0)
        total += got;
    return total;
}

static int sigstop_stops_and_sigcont_continues(void)
{
    alarm(GUARD_SECONDS);
    int ticks;
    pid_t child = start_ticker(&ticks);
    CHECK(child > 0);
    int status = 0;
    CHECK(kill(child, SIGSTOP) == 0);
    CHECK(waitpid(child, &status, WUNTRACED) == child);
    CHECK(WIFSTOPPED(status) && WSTOPSIG(status) == SIGSTOP);
    CHECK(waitpid(child, &status, WUNTRACED | WNOHANG) == 0);      /* told once */
    CHECK(proc_state_of(child) == 'T');
    drain(ticks);       /* written before the stop */
    sleep_ms(50);
    long while_stopped = drain(ticks);
    CHECK(kill(child, SIGCONT) == 0);
    CHECK(waitpid(child, &status, WCONTINUED) == child && WIFCONTINUED(status));
    sleep_ms(50);
    long after = drain(ticks);
    kill_and_reap(child);
    CHECK(while_stopped == 0);
    CHECK(after > 0);
    return 1;
}

/* Without WUNTRACED, a stop is not a reason to return; the report waits
 * for a wait that asks. Without WCONTINUED, neither is a continue. */
static int plain_wait_ignores_stops(void)
{
    alarm(GUARD_SECONDS);
    int ticks;
    pid_t child = start_ticker(&ticks);
    CHECK(child > 0);
    int status = 0;
    CHECK(kill(child, SIGTSTP) == 0);
    CHECK(state_soon(child, 'T'));
    CHECK(waitpid(child, &status, WNOHANG) == 0);
    CHECK(waitpid(child, &status, WUNTRACED | WNOHANG) == child && WIFSTOPPED(status) && WSTOPSIG(status) == SIGTSTP);
    CHECK(kill(child, SIGCONT) == 0);
    CHECK(waitpid(child, &status, WNOHANG) == 0);
    CHECK(kill(child, SIGTERM) == 0);
    CHECK(waitpid(child, &status, 0) == child && WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
    return 1;
}

/* SIGTSTP caught or ignored does not stop (SIGSTOP cannot be either). */
static int caught_or_ignored_sigtstp_does_not_stop(void)
{
    alarm(GUARD_SECONDS);
    CHECK(set_handler(SIGTSTP, count_caught, 0) == 0);
    CHECK(raise(SIGTSTP) == 0 && caught[SIGTSTP] == 1);
    CHECK(signal(SIGTSTP, SIG_IGN) != SIG_ERR);
    CHECK(raise(SIGTSTP) == 0 && caught[SIGTSTP] == 1);
    errno = 0;
    CHECK(set_handler(SIGSTOP, count_caught, 0) == -1 && errno == EINVAL);
    return 1;
}

static volatile sig_atomic_t sigchld_codes[8], sigchld_statuses[8], sigchlds;

static void on_sigchld(int signal, siginfo_t *info, void *context)
{
    (void)signal, (void)context;
    if (sigchlds < 8) {
        sigchld_codes[sigchlds] = info->si_code;
        sigchld_statuses[sigchlds] = info->si_status;
    }
    sigchlds++;
}

static int watch_sigchld(int flags)
{
    sigchlds = 0;
    return set_siginfo_handler(SIGCHLD, on_sigchld, flags);
}

/* Wait (at most 10 s) until count SIGCHLDs have come. */
static int sigchlds_reach(int count)
{
    for (int tries = 0; tries < 1000 && sigchlds < count; tries++)
        sleep_ms(10);
    return sigchlds >= count;
}

static int sigchld_says_stopped_then_continued(void)
{
    alarm(GUARD_SECONDS);
    CHECK(watch_sigchld(0) == 0);
    int ticks, status;
    pid_t child = start_ticker(&ticks);
    CHECK(child > 0);
    CHECK(kill(child, SIGTSTP) == 0);
    CHECK(waitpid(child, &status, WUNTRACED) == child && WIFSTOPPED(status));
    CHECK(sigchlds_reach(1));
    CHECK(kill(child, SIGCONT) == 0);
    CHECK(waitpid(child, &status, WCONTINUED) == child && WIFCONTINUED(status));
    CHECK(sigchlds_reach(2));
    kill_and_reap(child);
    CHECK(sigchld_codes[0] == CLD_STOPPED && sigchld_statuses[0] == SIGTSTP);
    CHECK(sigchld_codes[1] == CLD_CONTINUED && sigchld_statuses[1] == SIGCONT);
    return 1;
}

/* SA_NOCLDSTOP: no SIGCHLD for stops and continues, one for the death. */
static int sa_nocldstop_keeps_only_the_exit(void)
{
    alarm(GUARD_SECONDS);
    CHECK(watch_sigchld(SA_NOCLDSTOP) == 0);
    int ticks, status;
    pid_t child = start_ticker(&ticks);
    CHECK(child > 0);
    CHECK(kill(child, SIGSTOP) == 0);
    CHECK(waitpid(child, &status, WUNTRACED) == child && WIFSTOPPED(status));
    CHECK(kill(child, SIGCONT) == 0);
    CHECK(waitpid(child, &status, WCONTINUED) == child && WIFCONTINUED(status));
    int before_exit = sigchlds;
    kill_and_reap(child);
    CHECK(sigchlds_reach(1));
    CHECK(before_exit == 0 && sigchlds == 1 && sigchld_codes[0] == CLD_KILLED);
    return 1;
}

/* A stopped process dies of SIGKILL at once; a SIGTERM waits for the
 * SIGCONT (as on Linux), then kills. */
static int only_sigkill_ends_a_stop(void)
{
    alarm(GUARD_SECONDS);
    int ticks, status;
    pid_t child = start_ticker(&ticks);
    CHECK(child > 0);
    CHECK(kill(child, SIGSTOP) == 0 && waitpid(child, &status, WUNTRACED) == child);
    CHECK(kill(child, SIGTERM) == 0);
    sleep_ms(50);
    int still_there = waitpid(child, &status, WNOHANG) == 0;
    CHECK(kill(child, SIGCONT) == 0);
    CHECK(waitpid(child, &status, 0) == child && WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
    CHECK(still_there);
    child = start_ticker(&ticks);
    CHECK(child > 0);
    CHECK(kill(child, SIGSTOP) == 0 && waitpid(child, &status, WUNTRACED) == child);
    CHECK(kill(child, SIGKILL) == 0);
    CHECK(waitpid(child, &status, 0) == child && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    return 1;
}

/* SIGCONT discards a pending stop: a child that blocks SIGTSTP, is sent
 * SIGTSTP then SIGCONT, finds nothing pending when it unblocks. */
static int sigcont_discards_a_pending_stop(void)
{
    alarm(GUARD_SECONDS);
    int to_us[2], to_child[2];
    CHECK(pipe(to_us) == 0 && pipe(to_child) == 0);
    pid_t child = fork_own_group();
    if (child == 0) {
        sigset_t tstp = signal_set(SIGTSTP), pending;
        sigprocmask(SIG_BLOCK, &tstp, NULL);
        char c = 'r';
        if (write(to_us[1], &c, 1) != 1 || read(to_child[0], &c, 1) != 1)
            _exit(2);
        sigpending(&pending);
        int was_pending = sigismember(&pending, SIGTSTP);
        sigprocmask(SIG_UNBLOCK, &tstp, NULL);
        _exit(was_pending ? 1 : 0);     /* not stopped: it would be, had SIGTSTP stayed */
    }
    CHECK(child > 0);
    char c;
    CHECK(read(to_us[0], &c, 1) == 1);
    CHECK(kill(child, SIGTSTP) == 0 && kill(child, SIGCONT) == 0);
    CHECK(write(to_child[1], "g", 1) == 1);
    int status;
    CHECK(waitpid(child, &status, WUNTRACED) == child);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    return 1;
}

enum waiting_call { IN_POLL, IN_SELECT, IN_NANOSLEEP, IN_SIGSUSPEND };

/* A stop and a continue, with no handler, are invisible to a waiting
 * call: Linux restarts it (poll, select and sigsuspend with
 * ERESTARTNOHAND; nanosleep through restart_syscall, for the time left).
 * The child says "r", enters the call, and exits 0 if the call ended the
 * normal way: poll and select on a byte we write after the continue, a
 * 2 s nanosleep with 0, sigsuspend with a SIGUSR1 we send. (nohzk's
 * calls returned EINTR.) */
static int stop_and_continue_are_invisible_to(enum waiting_call call)
{
    int ready[2], data[2];
    CHECK(pipe(ready) == 0 && pipe(data) == 0);
    pid_t child = fork();
    if (child == 0) {
        sigset_t usr1 = signal_set(SIGUSR1), old;
        set_handler(SIGUSR1, count_caught, 0);
        sigprocmask(SIG_BLOCK, &usr1, &old);
        fd_set in;
        FD_ZERO(&in);
        FD_SET(data[0], &in);
        struct pollfd poll_in = {data[0], POLLIN, 0};
        struct timespec nap = {2, 0};     /* long enough to be stopped in */
        if (write(ready[1], "r", 1) != 1)
            _exit(2);
        switch (call) {
        case IN_POLL: _exit(poll(&poll_in, 1, -1) == 1 ? 0 : 1);
        case IN_SELECT: _exit(select(data[0] + 1, &in, NULL, NULL, NULL) == 1 ? 0 : 1);
        case IN_NANOSLEEP: _exit(nanosleep(&nap, NULL) == 0 ? 0 : 1);
        case IN_SIGSUSPEND: _exit(sigsuspend(&old) == -1 && errno == EINTR && caught[SIGUSR1] == 1 ? 0 : 1);
        }
        _exit(3);
    }
    CHECK(child > 0);
    char byte;
    /* told "r", then asleep: in the call under test */
    CHECK(read(ready[0], &byte, 1) == 1 && state_soon(child, 'S'));
    int status;
    CHECK(kill(child, SIGSTOP) == 0 && waitpid(child, &status, WUNTRACED) == child && WIFSTOPPED(status));
    CHECK(kill(child, SIGCONT) == 0 && waitpid(child, &status, WCONTINUED) == child && WIFCONTINUED(status));
    if (call == IN_POLL || call == IN_SELECT)
        CHECK(write(data[1], "d", 1) == 1);
    if (call == IN_SIGSUSPEND) {
        CHECK(state_soon(child, 'S'));
        CHECK(kill(child, SIGUSR1) == 0);
    }
    CHECK(exit_status_of(child) == 0);
    return 1;
}

static int stop_and_continue_are_invisible_to_poll(void)
{
    alarm(GUARD_SECONDS);
    return stop_and_continue_are_invisible_to(IN_POLL);
}

static int stop_and_continue_are_invisible_to_select(void)
{
    alarm(GUARD_SECONDS);
    return stop_and_continue_are_invisible_to(IN_SELECT);
}

static int stop_and_continue_are_invisible_to_nanosleep(void)
{
    alarm(GUARD_SECONDS);
    return stop_and_continue_are_invisible_to(IN_NANOSLEEP);
}

static int stop_and_continue_are_invisible_to_sigsuspend(void)
{
    alarm(GUARD_SECONDS);
    return stop_and_continue_are_invisible_to(IN_SIGSUSPEND);
}

int main(void)
{
    static const struct ktap_case cases[] = {
        KTAP_CASE(sigstop_stops_and_sigcont_continues),
        KTAP_CASE(plain_wait_ignores_stops),
        KTAP_CASE(caught_or_ignored_sigtstp_does_not_stop),
        KTAP_CASE(sigchld_says_stopped_then_continued),
        KTAP_CASE(sa_nocldstop_keeps_only_the_exit),
        KTAP_CASE(only_sigkill_ends_a_stop),
        KTAP_CASE(sigcont_discards_a_pending_stop),
        KTAP_CASE(stop_and_continue_are_invisible_to_poll),
        KTAP_CASE(stop_and_continue_are_invisible_to_select),
        KTAP_CASE(stop_and_continue_are_invisible_to_nanosleep),
        KTAP_CASE(stop_and_continue_are_invisible_to_sigsuspend),
    };
    return ktap_main_each_in_a_child(cases, KTAP_COUNT(cases));
}
