/* The files of the nohz model: /proc/PID/nohz (a task asks to run alone
 * on its CPU) and the per-CPU rows of /proc/tick. Shared by spin, osnoise
 * and the test programs (docs/nohz-task.md describes them). Linux
 * has neither: the answers are then ENOENT and -1. */
#ifndef USER_LIB_NOHZ_H
#define USER_LIB_NOHZ_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "clock.h"

/* Writes text to the file at path in one write(2): 0, or the errno of
 * the open or the write. */
static inline int write_nohz_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY);
    if (fd < 0)
        return errno;
    int result = write(fd, text, strlen(text)) == (ssize_t)strlen(text) ? 0 : errno;
    close(fd);
    return result;
}

/* Writes text to /proc/PID/nohz (pid 0: /proc/self/nohz): 0, or the errno. */
static inline int write_nohz(pid_t pid, const char *text)
{
    char path[64];
    if (pid)
        snprintf(path, sizeof(path), "/proc/%d/nohz", (int)pid);
    else
        snprintf(path, sizeof(path), "/proc/self/nohz");
    return write_nohz_file(path, text);
}

/* Writes text to /proc/thread-self/nohz, the calling thread's mark
 * (docs/threads.md): 0, or the errno. */
static inline int write_thread_nohz(const char *text)
{
    return write_nohz_file("/proc/thread-self/nohz", text);
}

/* One CPU's row of /proc/tick: the tick's state ("ticking" or "stopped"),
 * why it ticks ("-" when stopped), the pid of the CPU's nohz task ("-" for
 * none), and the first four counters. */
struct tick_row {
    char state[16], reason[16], nohz[16];
    unsigned long ticks, missed, stops, restarts;
};

/* 1 with cpu's row in *row, 0 if there is no such row, -1 (errno set) if
 * /proc/tick cannot be opened. */
static inline int tick_row_read(int cpu, struct tick_row *row)
{
    char *line = NULL;
    size_t size = 0;
    int found = 0;
    FILE *file = fopen("/proc/tick", "r");
    if (!file)
        return -1;
    while (!found && getline(&line, &size, file) > 0) {
        int row_cpu;
        found = sscanf(line, "%d %15s %15s %15s %lu %lu %lu %lu", &row_cpu, row->state, row->reason, row->nohz,
                       &row->ticks, &row->missed, &row->stops, &row->restarts) == 8 &&
                row_cpu == cpu && (!strcmp(row->state, "ticking") || !strcmp(row->state, "stopped"));
    }
    free(line);
    fclose(file);
    return found;
}

/* For a nohz task pinned to cpu: spin in user mode, looking at /proc/tick
 * now and then, until cpu's row says the tick is stopped with this
 * process as its nohz task, i.e. stopped while it runs (5 s at most).
 * 1 with that row in *row, or 0. */
static inline int spin_until_own_tick_stopped(int cpu, struct tick_row *row)
{
    char self[16];
    snprintf(self, sizeof(self), "%d", (int)getpid());
    for (int64_t limit = now_ns() + 5000000000ll; now_ns() < limit;) {
        for (volatile unsigned long i = 0; i < 2000000; i++)
            ;
        if (tick_row_read(cpu, row) == 1 && !strcmp(row->state, "stopped") && !strcmp(row->nohz, self))
            return 1;
    }
    return 0;
}

#endif
