/* rcustress SECONDS
 *
 * Runs the kernel's RCU torture test (rcu/torture.c) for SECONDS seconds
 * by writing the number to /proc/rcustress: the write returns when the run
 * is over. Then prints the kernel's report, e.g.
 *
 *   rcutorture: reads 20004 (in interrupts 3096) writes 766 syncs 23 barriers 2
 *   rcutorture: grace periods 74, stalls 0, errors 0, cpus 4
 *   rcutorture: Reader Pipe: 18331 151 0 0 0 0 0 0 0 0 0
 *   rcutorture: SUCCESS
 *
 * The Reader Pipe histogram counts, for every read, how many grace periods
 * the object had seen since it was removed: anything past the second
 * column means a reader outlived a grace period. Exit status 0 on success,
 * 1 on any error or stall (the kernel's write fails with EIO), 2 on bad
 * arguments or if the kernel has no /proc/rcustress. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STRESS_FILE "/proc/rcustress"

static int print_report(void)
{
    char buffer[4096];
    int fd = open(STRESS_FILE, O_RDONLY);
    if (fd < 0) {
        fprintf(stderr, "rcustress: %s: %s\n", STRESS_FILE, strerror(errno));
        return -1;
    }
    ssize_t length;
    while ((length = read(fd, buffer, sizeof(buffer))) > 0)
        fwrite(buffer, 1, (size_t)length, stdout);
    close(fd);
    return 0;
}

int main(int argc, char **argv)
{
    char *end;
    unsigned long seconds = argc == 2 ? strtoul(argv[1], &end, 10) : 0;

    if (argc != 2 || !*argv[1] || *end || seconds == 0) {
        fprintf(stderr, "usage: rcustress SECONDS\n");
        return 2;
    }
    int fd = open(STRESS_FILE, O_WRONLY);
    if (fd < 0) {
        fprintf(stderr, "rcustress: %s: %s\n", STRESS_FILE, strerror(errno));
        return 2;
    }
    char text[32];
    int length = snprintf(text, sizeof(text), "%lu\n", seconds);
    ssize_t written = write(fd, text, (size_t)length);
    int saved_errno = errno;
    close(fd);
    if (print_report() < 0)
        return 2;
    if (written != length) {
        fprintf(stderr, "rcustress: the run failed: %s\n", strerror(saved_errno));
        return saved_errno == EIO ? 1 : 2;
    }
    return 0;
}
