/* Sessions and process groups as Linux x86-64 provides them: setsid,
 * getsid, setpgid, getpgid. A static program that prints KTAP; it runs on
 * nohzk (scenario "session") and, unchanged, on the Linux host (tests/run's
 * host-session.*). Each case runs in a child of its own, so that the
 * groups it makes do not outlive it. (nohzk's setsid returned the pid and
 * changed nothing; getpgid ignored its argument; setpgid took any group.) */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktap.h"
#include "testlib.h"

static int setsid_makes_a_session_and_a_group(void)
{
    /* 0 is a real answer: the session of a process that pid 1 started
     * without one, or whose leader is outside our PID namespace (how CI
     * and tests/run start this program on Linux) */
    pid_t parent_session = getsid(0);
    CHECK(parent_session >= 0);
    pid_t child = fork();
    if (child == 0) {
        /* a fork is in its parent's group, so it may start a session */
        int ok = setsid() == getpid() && getsid(0) == getpid() && getpgrp() == getpid() && getpgid(0) == getpid();
        _exit(ok ? 0 : 1);
    }
    CHECK(child > 0);
    CHECK(exit_status_of(child) == 0);
    CHECK(getsid(0) == parent_session);     /* ours is unchanged */
    return 1;
}

static int setsid_fails_for_a_group_leader(void)
{
    CHECK(setpgid(0, 0) == 0 && getpgrp() == getpid());
    pid_t session = getsid(0);
    errno = 0;
    CHECK(setsid() == -1 && errno == EPERM);
    CHECK(getsid(0) == session);
    return 1;
}

/* getpgid and getsid answer for any process, by pid. */
static int getpgid_and_getsid_of_another(void)
{
    int ready[2];
    CHECK(pipe(ready) == 0);
    pid_t child = fork();
    if (child == 0) {
        setpgid(0, 0);
        close(ready[0]);
        (void)!write(ready[1], "r", 1);
        pause();
        _exit(0);
    }
    CHECK(child > 0);
    close(ready[1]);
    char c;
    CHECK(read(ready[0], &c, 1) == 1);
    int group_ok = getpgid(child) == child && getpgid(0) == getpgrp();
    int session_ok = getsid(child) == getsid(0);
    kill_and_reap(child);
    CHECK(group_ok && session_ok);
    errno = 0;
    CHECK(getpgid(999999) == -1 && errno == ESRCH);
    errno = 0;
    CHECK(getsid(999999) == -1 && errno == ESRCH);
    return 1;
}

/* A group must exist in the caller's session; a session leader cannot
 * move; a negative group is EINVAL. */
static int setpgid_checks_the_group(void)
{
    pid_t group = getpgrp();
    errno = 0;
    CHECK(setpgid(0, 999999) == -1 && errno == EPERM);
    errno = 0;
    CHECK(setpgid(0, -1) == -1 && errno == EINVAL);
    CHECK(getpgrp() == group);
    pid_t child = fork();
    if (child == 0) {
        int ok = setsid() == getpid();
        errno = 0;
        ok = ok && setpgid(0, 0) == -1 && errno == EPERM;          /* a session leader stays */
        _exit(ok ? 0 : 1);
    }
    CHECK(child > 0);
    CHECK(exit_status_of(child) == 0);
    return 1;
}

/* A child left in the session we came from cannot be moved into a group:
 * fork, then setsid, then setpgid on the child is EPERM. */
static int setpgid_of_a_child_in_another_session_fails(void)
{
    pid_t child = fork();
    if (child == 0) {
        pause();
        _exit(0);
    }
    CHECK(child > 0);
    int left = setsid() == getpid();
    errno = 0;
    int refused = setpgid(child, child) == -1 && errno == EPERM;
    kill_and_reap(child);
    CHECK(left && refused);
    return 1;
}

/* A group whose only member has exited but is not yet reaped still exists
 * (a shell puts a pipeline's next member into the first one's group, which
 * may be done already). */
static int a_zombie_keeps_its_group(void)
{
    pid_t first = fork();
    if (first == 0) {
        setpgid(0, 0);
        _exit(0);
    }
    CHECK(first > 0);
    setpgid(first, first);      /* as a shell does, from both sides */
    CHECK(state_soon(first, 'Z'));     /* exited, not reaped */
    pid_t next = fork();
    if (next == 0) {
        pause();
        _exit(0);
    }
    CHECK(next > 0);
    int joined = setpgid(next, first) == 0 && getpgid(next) == first;
    kill_and_reap(next);
    waitpid(first, NULL, 0);
    CHECK(joined);
    return 1;
}

int main(void)
{
    static const struct ktap_case cases[] = {
        KTAP_CASE(setsid_makes_a_session_and_a_group),
        KTAP_CASE(setsid_fails_for_a_group_leader),
        KTAP_CASE(getpgid_and_getsid_of_another),
        KTAP_CASE(setpgid_checks_the_group),
        KTAP_CASE(setpgid_of_a_child_in_another_session_fails),
        KTAP_CASE(a_zombie_keeps_its_group),
    };
    return ktap_main_each_in_a_child(cases, KTAP_COUNT(cases));
}
