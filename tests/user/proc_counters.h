/* One counter of a /proc file of "name value" or "name: value" lines
 * (/proc/vmstat, /proc/meminfo), for the memory tests (cow_fork.c,
 * exec_pages.c, lazy_zero.c). Raw reads into a static buffer: no stdio
 * buffer or malloc, so a read writes to no page but this one, already
 * the test's own after the first read. -1 if the file or the name is not
 * there (Linux has no nohzk counters). */
#ifndef TESTS_USER_PROC_COUNTERS_H
#define TESTS_USER_PROC_COUNTERS_H

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char proc_counters_text[8192];

static inline long proc_counter(const char *path, const char *name, char separator)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    long got = read(fd, proc_counters_text, sizeof(proc_counters_text) - 1);
    close(fd);
    if (got <= 0)
        return -1;
    proc_counters_text[got] = '\0';
    size_t length = strlen(name);
    for (char *line = proc_counters_text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : 0) {
        if (strncmp(line, name, length) == 0 && line[length] == separator)
            return strtol(line + length + 1, 0, 10);
    }
    return -1;
}

static inline long vmstat_value(const char *name)
{
    return proc_counter("/proc/vmstat", name, ' ');
}

#endif
