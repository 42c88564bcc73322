/* poll and ppoll as Linux x86-64 provides them: a static program that
 * prints KTAP. It runs on nohzk (scenarios "poll", "poll-glibc") and,
 * unchanged, on the Linux host (tests/run's host-poll.*), so what it
 * checks is Linux's behaviour.
 *
 * Readiness of pipes (data, room, a closed other end), regular files
 * (always ready), bad descriptors; waiting until a write, a timeout or a
 * signal. Times are only ever lower bounds: a poll never returns before
 * its timeout, and one woken by a write has the data. (nohzk's first poll
 * reported every descriptor ready and never waited.) */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ktap.h"
#include "testlib.h"
#include "../../user/lib/clock.h"

static int empty_pipe_is_not_readable(void)
{
    int ends[2];
    CHECK(pipe(ends) == 0);
    struct pollfd fds[2] = {{ends[0], POLLIN, 0}, {ends[1], POLLOUT, 0}};
    CHECK(poll(fds, 1, 0) == 0 && fds[0].revents == 0);
    CHECK(poll(&fds[1], 1, 0) == 1 && fds[1].revents == POLLOUT);   /* room to write */
    CHECK(write(ends[1], "x", 1) == 1);
    CHECK(poll(fds, 2, 0) == 2 && fds[0].revents == POLLIN && fds[1].revents == POLLOUT);
    close(ends[0]);
    close(ends[1]);
    return 1;
}

static int full_pipe_is_not_writable(void)
{
    int ends[2];
    CHECK(pipe2(ends, O_NONBLOCK) == 0);
    char block[512];
    memset(block, 'x', sizeof(block));
    while (write(ends[1], block, sizeof(block)) > 0)
        ;
    CHECK(errno == EAGAIN);
    struct pollfd out = {ends[1], POLLOUT, 0};
    CHECK(poll(&out, 1, 0) == 0 && out.revents == 0);
    char sink[sizeof(block)];
    while (read(ends[0], sink, sizeof(sink)) > 0)
        ;
    CHECK(poll(&out, 1, 0) == 1 && out.revents == POLLOUT);
    close(ends[0]);
    close(ends[1]);
    return 1;
}

/* POLLHUP and POLLERR come whether they were asked for or not. */
static int closed_other_end_hangs_up(void)
{
    int ends[2];
    CHECK(pipe(ends) == 0);
    close(ends[1]);
    struct pollfd in = {ends[0], POLLIN, 0};
    CHECK(poll(&in, 1, 0) == 1 && (in.revents & POLLHUP) && !(in.revents & POLLIN));
    close(ends[0]);
    CHECK(pipe(ends) == 0);
    close(ends[0]);
    struct pollfd out = {ends[1], 0, 0};
    CHECK(poll(&out, 1, 0) == 1 && out.revents == POLLERR);
    close(ends[1]);
    return 1;
}

static int bad_and_negative_descriptors(void)
{
    struct pollfd fds[3] = {{-1, POLLIN, 0}, {1000, POLLIN, 0}, {-5, POLLOUT, 0}};
    CHECK(poll(fds, 3, 0) == 1);
    CHECK(fds[0].revents == 0 && fds[1].revents == POLLNVAL && fds[2].revents == 0);
    struct pollfd *volatile unmapped = (struct pollfd *)16;    /* volatile: the compiler must not know */
    CHECK(poll(unmapped, 1, 0) == -1 && errno == EFAULT);
    CHECK(poll(NULL, 0, 0) == 0);
    return 1;
}

static int regular_file_is_always_ready(void)
{
    int fd = open("/proc/self/status", O_RDONLY);
    CHECK(fd >= 0);
    struct pollfd file = {fd, POLLIN | POLLOUT, 0};
    CHECK(poll(&file, 1, -1) == 1 && file.revents == (POLLIN | POLLOUT));
    close(fd);
    return 1;
}

static int timeout_is_never_early(void)
{
    int ends[2];
    CHECK(pipe(ends) == 0);
    struct pollfd in = {ends[0], POLLIN, 0};
    int64_t start = now_ns();
    CHECK(poll(&in, 1, 30) == 0 && in.revents == 0);
    CHECK(now_ns() - start >= 30000000ll);
    struct timespec timeout = {0, 20000000};
    start = now_ns();
    CHECK(ppoll(&in, 1, &timeout, NULL) == 0);
    CHECK(now_ns() - start >= 20000000ll);
    timeout.tv_nsec = 1000000000;
    CHECK(ppoll(&in, 1, &timeout, NULL) == -1 && errno == EINVAL);
    close(ends[0]);
    close(ends[1]);
    return 1;
}

/* A child writes after 50 ms; poll with no timeout wakes with the data. */
static int write_wakes_the_poller(void)
{
    int ends[2];
    CHECK(pipe(ends) == 0);
    pid_t child = write_later(ends[1], 'w', 50);
    CHECK(child > 0);
    struct pollfd in = {ends[0], POLLIN, 0};
    CHECK(poll(&in, 1, -1) == 1 && in.revents == POLLIN);
    char c = 0;
    CHECK(read(ends[0], &c, 1) == 1 && c == 'w');
    CHECK(exit_status_of(child) == 0);
    /* ppoll without a timeout too, woken by the other end's close */
    child = fork();
    if (child == 0) {
        close(ends[1]);
        sleep_ms(20);
        _exit(0);
    }
    close(ends[1]);
    CHECK(ppoll(&in, 1, NULL, NULL) == 1 && (in.revents & POLLHUP));
    CHECK(waitpid(child, NULL, 0) == child);
    close(ends[0]);
    return 1;
}

/* A timeout too long to add to the clock is as good as none: the wait
 * ends with the write, not at once (a wrapped deadline would be past). */
static int huge_timeout_waits_for_the_write(void)
{
    int ends[2];
    CHECK(pipe(ends) == 0);
    pid_t child = write_later(ends[1], 'h', 20);
    CHECK(child > 0);
    struct pollfd in = {ends[0], POLLIN, 0};
    struct timespec forever = {18446744071ll, 999999999};    /* ns: 1.7 s short of 2^64 */
    CHECK(ppoll(&in, 1, &forever, NULL) == 1 && in.revents == POLLIN);
    CHECK(exit_status_of(child) == 0);
    close(ends[0]);
    close(ends[1]);
    return 1;
}

/* A handled signal ends the wait with EINTR, even with SA_RESTART. */
static int signal_interrupts_the_wait(void)
{
    int ends[2];
    CHECK(pipe(ends) == 0);
    CHECK(set_handler(SIGALRM, count_caught, SA_RESTART) == 0);
    struct itimerval once = {{0, 0}, {0, 30000}};
    CHECK(setitimer(ITIMER_REAL, &once, NULL) == 0);
    struct pollfd in = {ends[0], POLLIN, 0};
    int result = poll(&in, 1, 10000);
    int error = errno;
    signal(SIGALRM, SIG_DFL);
    close(ends[0]);
    close(ends[1]);
    errno = error;
    CHECK(result == -1 && error == EINTR && caught[SIGALRM] == 1);
    return 1;
}

/* ppoll's mask is in force only during the wait: a pending SIGUSR1,
 * blocked before, gets in (EINTR, the handler runs) and is blocked again
 * afterwards; a mask that keeps it blocked leaves it pending. A mask of
 * the wrong size is EINVAL. (nohzk ignored the mask: the first ppoll
 * below waited out its 10 s.) */
static int ppoll_mask_is_in_force_during_the_wait(void)
{
    CHECK(set_handler(SIGUSR1, count_caught, 0) == 0);
    sigset_t usr1 = signal_set(SIGUSR1), during, after;
    CHECK(sigprocmask(SIG_BLOCK, &usr1, NULL) == 0);
    CHECK(raise(SIGUSR1) == 0 && caught[SIGUSR1] == 0);

    int ends[2];
    CHECK(pipe(ends) == 0);
    struct pollfd out = {ends[1], POLLOUT, 0};
    CHECK(ppoll(&out, 1, NULL, &usr1) == 1 && caught[SIGUSR1] == 0);     /* still blocked */
    struct pollfd in = {ends[0], POLLIN, 0};
    struct timespec long_wait = {10, 0};
    sigemptyset(&during);
    errno = 0;
    CHECK(ppoll(&in, 1, &long_wait, &during) == -1 && errno == EINTR);
    CHECK(caught[SIGUSR1] == 1);
    CHECK(sigprocmask(SIG_BLOCK, NULL, &after) == 0 && sigismember(&after, SIGUSR1));
    uint64_t mask = 0;
    struct timespec zero = {0, 0};
    errno = 0;
    CHECK(syscall(SYS_ppoll, &out, 1, &zero, &mask, 4) == -1 && errno == EINVAL);
    close(ends[0]);
    close(ends[1]);
    return 1;
}

int main(void)
{
    static const struct ktap_case cases[] = {
        KTAP_CASE(empty_pipe_is_not_readable),
        KTAP_CASE(full_pipe_is_not_writable),
        KTAP_CASE(closed_other_end_hangs_up),
        KTAP_CASE(bad_and_negative_descriptors),
        KTAP_CASE(regular_file_is_always_ready),
        KTAP_CASE(timeout_is_never_early),
        KTAP_CASE(write_wakes_the_poller),
        KTAP_CASE(huge_timeout_waits_for_the_write),
        KTAP_CASE(signal_interrupts_the_wait),
        KTAP_CASE(ppoll_mask_is_in_force_during_the_wait),
    };
    return ktap_main_each_in_a_child(cases, KTAP_COUNT(cases));
}
