/* select and pselect as Linux x86-64 provides them: a static program that
 * prints KTAP. It runs on nohzk (scenarios "select", "select-glibc") and,
 * unchanged, on the Linux host (tests/run's host-select.*). musl's select
 * is the select system call, glibc's may be pselect6; the raw calls check
 * what libcs hide (the time written back).
 *
 * Sets in and out, bits counted per set, EBADF before any wait, the sets
 * left alone on an error, and pselect's signal mask. Times are only lower
 * bounds. (nohzk had neither call: ENOSYS.) */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ktap.h"
#include "testlib.h"
#include "../../user/lib/clock.h"

/* A pipe's write end is writable, its read end readable once written;
 * one descriptor in two sets counts twice. */
static int sets_come_back_with_what_is_ready(void)
{
    int ends[2];
    CHECK(pipe(ends) == 0);
    fd_set in, out;
    FD_ZERO(&in);
    FD_ZERO(&out);
    FD_SET(ends[0], &in);
    FD_SET(ends[1], &out);
    struct timeval zero = {0, 0};
    int count = (ends[0] > ends[1] ? ends[0] : ends[1]) + 1;
    CHECK(select(count, &in, &out, NULL, &zero) == 1);
    CHECK(!FD_ISSET(ends[0], &in) && FD_ISSET(ends[1], &out));
    CHECK(write(ends[1], "x", 1) == 1);
    FD_SET(ends[0], &in);
    FD_SET(ends[0], &out);      /* a read end is never writable */
    FD_SET(ends[1], &in);       /* nor a write end readable */
    CHECK(select(count, &in, &out, NULL, &zero) == 2);
    CHECK(FD_ISSET(ends[0], &in) && !FD_ISSET(ends[1], &in) && !FD_ISSET(ends[0], &out) && FD_ISSET(ends[1], &out));
    /* a regular file is ready for both, and counts twice */
    FD_ZERO(&in);
    FD_ZERO(&out);
    FD_SET(0, &in);
    FD_SET(0, &out);
    close(0);
    CHECK(open("/proc/self/status", O_RDONLY) == 0);     /* the lowest free descriptor */
    CHECK(select(1, &in, &out, NULL, &zero) == 2 && FD_ISSET(0, &in) && FD_ISSET(0, &out));
    close(ends[0]);
    close(ends[1]);
    return 1;
}

/* A closed writer makes the read end readable (end of file). */
static int hangup_is_readable(void)
{
    int ends[2];
    CHECK(pipe(ends) == 0);
    close(ends[1]);
    fd_set in, except;
    FD_ZERO(&in);
    FD_ZERO(&except);
    FD_SET(ends[0], &in);
    FD_SET(ends[0], &except);
    CHECK(select(ends[0] + 1, &in, NULL, &except, NULL) == 1);
    CHECK(FD_ISSET(ends[0], &in) && !FD_ISSET(ends[0], &except));
    close(ends[0]);
    return 1;
}

/* A descriptor that is not open fails the call at once; the sets are
 * left as they were. A descriptor past the count is not looked at. */
static int bad_descriptor_is_ebadf(void)
{
    int ends[2];
    CHECK(pipe(ends) == 0);
    int closed = dup(ends[1]);
    CHECK(closed >= 0 && close(closed) == 0);
    fd_set in;
    FD_ZERO(&in);
    FD_SET(ends[0], &in);
    FD_SET(closed, &in);
    fd_set before = in;
    errno = 0;
    CHECK(select(closed + 1, &in, NULL, NULL, NULL) == -1 && errno == EBADF);
    CHECK(memcmp(&before, &in, sizeof(in)) == 0);
    struct timeval zero = {0, 0};
    CHECK(select(closed, &in, NULL, NULL, &zero) == 0);    /* closed is past the count */
    CHECK(!FD_ISSET(ends[0], &in));
    close(ends[0]);
    close(ends[1]);
    return 1;
}

static int bad_arguments(void)
{
    struct timeval negative = {-1, 0}, negative_micro = {0, -1};
    errno = 0;
    CHECK(syscall(SYS_select, -1, NULL, NULL, NULL, NULL) == -1 && errno == EINVAL);
    errno = 0;
    CHECK(syscall(SYS_select, 0, NULL, NULL, NULL, &negative) == -1 && errno == EINVAL);
    errno = 0;
    CHECK(syscall(SYS_select, 0, NULL, NULL, NULL, &negative_micro) == -1 && errno == EINVAL);
    fd_set *volatile unmapped = (fd_set *)16;    /* volatile: the compiler must not know */
    errno = 0;
    CHECK(syscall(SYS_select, 1, unmapped, NULL, NULL, NULL) == -1 && errno == EFAULT);
    struct timespec bad_nanoseconds = {0, 1000000000};
    errno = 0;
    CHECK(syscall(SYS_pselect6, 0, NULL, NULL, NULL, &bad_nanoseconds, NULL) == -1 && errno == EINVAL);
    uint64_t mask = 0;
    struct { uint64_t *mask; size_t size; } short_mask = {&mask, 4};
    struct timespec zero = {0, 0};
    errno = 0;
    CHECK(syscall(SYS_pselect6, 0, NULL, NULL, NULL, &zero, &short_mask) == -1 && errno == EINVAL);
    /* microseconds past a second carry over */
    struct timeval carried = {0, 1000000};
    CHECK(syscall(SYS_select, 0, NULL, NULL, NULL, &carried) == 0);
    return 1;
}

/* The timeout is never early; a timed-out select empties the sets, and
 * the raw call writes back the time not slept: none. */
static int timeout_empties_the_sets(void)
{
    int ends[2];
    CHECK(pipe(ends) == 0);
    fd_set in;
    FD_ZERO(&in);
    FD_SET(ends[0], &in);
    struct timeval timeout = {0, 20000};
    int64_t start = now_ns();
    CHECK(syscall(SYS_select, ends[0] + 1, &in, NULL, NULL, &timeout) == 0);
    CHECK(now_ns() - start >= 20000000ll);
    CHECK(!FD_ISSET(ends[0], &in));
    CHECK(timeout.tv_sec == 0 && timeout.tv_usec == 0);
    struct timespec pselect_timeout = {0, 20000000};
    FD_SET(ends[0], &in);
    start = now_ns();
    CHECK(pselect(ends[0] + 1, &in, NULL, NULL, &pselect_timeout, NULL) == 0);
    CHECK(now_ns() - start >= 20000000ll);
    close(ends[0]);
    close(ends[1]);
    return 1;
}

/* Ready at once: the time written back is what was given, or a little
 * less, never more. */
static int time_left_is_written_back(void)
{
    int ends[2];
    CHECK(pipe(ends) == 0);
    fd_set out;
    FD_ZERO(&out);
    FD_SET(ends[1], &out);
    struct timeval timeout = {5, 0};
    CHECK(syscall(SYS_select, ends[1] + 1, NULL, &out, NULL, &timeout) == 1);
    CHECK(timeout.tv_sec * 1000000 + timeout.tv_usec <= 5000000 && timeout.tv_sec * 1000000 + timeout.tv_usec > 0);
    struct timespec timespec_timeout = {5, 0};
    CHECK(syscall(SYS_pselect6, ends[1] + 1, NULL, &out, NULL, &timespec_timeout, NULL) == 1);
    CHECK(timespec_timeout.tv_sec * 1000000000 + timespec_timeout.tv_nsec <= 5000000000 &&
          timespec_timeout.tv_sec * 1000000000 + timespec_timeout.tv_nsec > 0);
    close(ends[0]);
    close(ends[1]);
    return 1;
}

/* A child writes after 50 ms; select with no timeout wakes with the data. */
static int write_wakes_the_selector(void)
{
    int ends[2];
    CHECK(pipe(ends) == 0);
    pid_t child = write_later(ends[1], 'w', 50);
    CHECK(child > 0);
    fd_set in;
    FD_ZERO(&in);
    FD_SET(ends[0], &in);
    CHECK(select(ends[0] + 1, &in, NULL, NULL, NULL) == 1 && FD_ISSET(ends[0], &in));
    char c = 0;
    CHECK(read(ends[0], &c, 1) == 1 && c == 'w');
    CHECK(exit_status_of(child) == 0);
    close(ends[0]);
    close(ends[1]);
    return 1;
}

/* pselect's mask is in force only during the wait: a SIGUSR1 blocked
 * before, and pending, is let in by the mask (EINTR, its handler runs),
 * and is blocked again afterwards. With a mask that keeps it blocked, a
 * ready descriptor is reported and the signal stays pending. */
static int pselect_mask_is_in_force_during_the_wait(void)
{
    CHECK(set_handler(SIGUSR1, count_caught, 0) == 0);
    sigset_t usr1 = signal_set(SIGUSR1), during, after;
    CHECK(sigprocmask(SIG_BLOCK, &usr1, NULL) == 0);
    CHECK(raise(SIGUSR1) == 0 && caught[SIGUSR1] == 0);

    int ends[2];
    CHECK(pipe(ends) == 0);
    fd_set out;
    FD_ZERO(&out);
    FD_SET(ends[1], &out);
    CHECK(pselect(ends[1] + 1, NULL, &out, NULL, NULL, &usr1) == 1 && caught[SIGUSR1] == 0);   /* still blocked */

    fd_set in;
    FD_ZERO(&in);
    FD_SET(ends[0], &in);
    struct timespec long_wait = {10, 0};
    sigemptyset(&during);
    errno = 0;
    CHECK(pselect(ends[0] + 1, &in, NULL, NULL, &long_wait, &during) == -1 && errno == EINTR);
    CHECK(caught[SIGUSR1] == 1);
    CHECK(sigprocmask(SIG_BLOCK, NULL, &after) == 0 && sigismember(&after, SIGUSR1));
    close(ends[0]);
    close(ends[1]);
    return 1;
}

int main(void)
{
    static const struct ktap_case cases[] = {
        KTAP_CASE(sets_come_back_with_what_is_ready),
        KTAP_CASE(hangup_is_readable),
        KTAP_CASE(bad_descriptor_is_ebadf),
        KTAP_CASE(bad_arguments),
        KTAP_CASE(timeout_empties_the_sets),
        KTAP_CASE(time_left_is_written_back),
        KTAP_CASE(write_wakes_the_selector),
        KTAP_CASE(pselect_mask_is_in_force_during_the_wait),
    };
    return ktap_main_each_in_a_child(cases, KTAP_COUNT(cases));
}
