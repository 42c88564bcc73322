/* /proc/PID files, and the calls that look a process up by pid (getsid,
 * kill, sched_getaffinity), aimed at processes that exit and are reaped
 * while they are read. Spawners fork short-lived children one after the
 * other and reap them; readers get each child's pid and read its
 * /proc/PID/{stat,status,cmdline,nohz} until it is gone. An open succeeds
 * or fails with ENOENT or ESRCH, a read succeeds (and names that pid) or
 * fails with ESRCH, the lookups succeed or fail with ESRCH. Prints KTAP;
 * runs on the Linux host (tests/run: host-proc_reap_race.*; Linux has no
 * /proc/PID/nohz: ENOENT) and on nohzk (scenarios "proc-reap-race",
 * "proc-reap-race-glibc", -smp 4). */
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

#define SPAWNERS 2
#define READERS 3
#define CHILDREN 150            /* per spawner */

static const char *const files[] = { "stat", "status", "cmdline", "nohz" };
#define FILE_COUNT (int)(sizeof(files) / sizeof(files[0]))

/* A reader's tally, written to its parent at the end. */
struct tally {
    long pids, opened, read_ok, gone, bad;
    char first_bad[96];
};

static void note_bad(struct tally *tally, const char *what, int pid, int error)
{
    if (!tally->bad++)
        snprintf(tally->first_bad, sizeof(tally->first_bad), "%s of pid %d: errno %d", what, pid, error);
}

/* Does text (of file, of pid) name pid? cmdline and nohz do not. */
static int names_pid(const char *file, const char *text, int pid)
{
    if (!strcmp(file, "stat"))
        return atoi(text) == pid;
    if (!strcmp(file, "status")) {
        const char *line = strstr(text, "\nPid:\t");
        return line && atoi(line + 6) == pid;
    }
    return 1;
}

/* One open and read of /proc/pid/file: 1 if it was there. */
static int read_proc_file(struct tally *tally, int pid, const char *file)
{
    char path[64], text[2048];
    snprintf(path, sizeof(path), "/proc/%d/%s", pid, file);
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        if (errno != ENOENT && errno != ESRCH)
            note_bad(tally, path, pid, errno);
        return 0;
    }
    tally->opened++;
    ssize_t got = read(fd, text, sizeof(text) - 1);
    int error = errno;
    close(fd);
    if (got < 0) {
        if (error != ESRCH)
            note_bad(tally, path, pid, error);
        return 0;
    }
    text[got] = 0;
    if (!names_pid(file, text, pid))
        note_bad(tally, path, pid, 0);
    tally->read_ok++;
    return 1;
}

/* The calls that find a process by pid: 1 if it was there. */
static int look_up(struct tally *tally, int pid)
{
    cpu_set_t set;
    int found = 0;
    errno = 0;
    if (getsid(pid) >= 0)
        found++;
    else if (errno != ESRCH)
        note_bad(tally, "getsid", pid, errno);
    if (kill(pid, 0) == 0)
        found++;
    else if (errno != ESRCH)
        note_bad(tally, "kill 0", pid, errno);
    if (sched_getaffinity(pid, sizeof(set), &set) == 0)
        found++;
    else if (errno != ESRCH)
        note_bad(tally, "sched_getaffinity", pid, errno);
    return found > 0;
}

/* Read pids from the pipe until it closes; each is read until every
 * file and lookup says it is gone. */
static void reader(int pids_fd, int tally_fd)
{
    struct tally tally = { 0 };
    int pid;
    while (read(pids_fd, &pid, sizeof(pid)) == sizeof(pid)) {
        tally.pids++;
        for (int there = 1; there;) {
            there = look_up(&tally, pid);
            for (int i = 0; i < FILE_COUNT; i++)
                there |= read_proc_file(&tally, pid, files[i]);
        }
        tally.gone++;
    }
    _exit(write(tally_fd, &tally, sizeof(tally)) == sizeof(tally) ? 0 : 1);
}

/* Fork CHILDREN children one at a time: each waits for a byte, then
 * exits; its pid goes to the readers (one of them), we read its stat
 * while it lives, let it go and reap it. Exit 0 if all went well. */
static void spawner(int pids_fd)
{
    int release[2];
    if (pipe(release) != 0)
        _exit(2);
    int failures = 0;
    for (int i = 0; i < CHILDREN; i++) {
        pid_t child = fork();
        if (child == 0) {
            char byte;
            _exit(read(release[0], &byte, 1) == 1 ? 0 : 1);
        }
        if (child < 0)
            _exit(3);
        struct tally mine = { 0 };
        int pid = (int)child;
        failures += write(pids_fd, &pid, sizeof(pid)) != sizeof(pid);
        failures += !read_proc_file(&mine, pid, "stat") || mine.bad;   /* it lives: there */
        failures += write(release[1], "x", 1) != 1;
        failures += exit_status_of(child) != 0;
    }
    _exit(failures ? 1 : 0);
}

static int proc_files_of_processes_being_reaped(void)
{
    int pids[2], tallies[2];
    CHECK(pipe(pids) == 0 && pipe(tallies) == 0);
    fflush(stdout);
    pid_t readers[READERS], spawners[SPAWNERS];
    for (int i = 0; i < READERS; i++) {
        readers[i] = fork();
        if (readers[i] == 0) {
            close(pids[1]);
            reader(pids[0], tallies[1]);
        }
        CHECK(readers[i] > 0);
    }
    for (int i = 0; i < SPAWNERS; i++) {
        spawners[i] = fork();
        if (spawners[i] == 0)
            spawner(pids[1]);
        CHECK(spawners[i] > 0);
    }
    close(pids[0]);
    close(pids[1]);
    int spawners_ok = 1;
    for (int i = 0; i < SPAWNERS; i++)
        spawners_ok &= exit_status_of(spawners[i]) == 0;
    struct tally total = { 0 };
    int readers_ok = 1;
    for (int i = 0; i < READERS; i++) {
        struct tally tally;
        readers_ok &= read(tallies[0], &tally, sizeof(tally)) == sizeof(tally);
        readers_ok &= exit_status_of(readers[i]) == 0;
        total.pids += tally.pids;
        total.opened += tally.opened;
        total.read_ok += tally.read_ok;
        total.gone += tally.gone;
        if (tally.bad && !total.bad++)
            memcpy(total.first_bad, tally.first_bad, sizeof(total.first_bad));
    }
    close(tallies[0]);
    close(tallies[1]);
    printf("# %ld pids read: %ld opens, %ld reads, %ld seen gone; %ld unexpected%s%s\n", total.pids,
           total.opened, total.read_ok, total.gone, total.bad, total.bad ? ": " : "", total.first_bad);
    CHECK(spawners_ok);
    CHECK(readers_ok);
    CHECK(total.pids == SPAWNERS * CHILDREN);      /* every child was looked at */
    CHECK(total.gone == total.pids);               /* and seen gone */
    CHECK(total.bad == 0);
    return 1;
}

static const struct ktap_case cases[] = {
    KTAP_CASE(proc_files_of_processes_being_reaped),
};

int main(void)
{
    return ktap_main(cases, KTAP_COUNT(cases));
}
