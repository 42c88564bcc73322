/* syscall_bench: the costs of the user/kernel boundary, for make bench
 * (tools/bench). Runs the same on Linux and nohzk.
 *   getpid   TSC cycles of one syscall(SYS_getpid) round trip, median of
 *            ROUNDS batches of BATCH calls (rdtsc works in user mode)
 *   getppid  the same for getppid (which glibc never caches)
 *   spawn    nanoseconds of fork + execve(/bin/true) + wait4, median of
 *            SPAWNS runs (clock_gettime)
 * Output: "bench: getpid cycles_median=N batches=N per_batch=N" (and
 * getppid) and "bench: fork_exec_wait ns_median=N runs=N", the format
 * tools/bench reads. Usage: syscall_bench [--syscalls-only] [TRUE_PATH];
 * --syscalls-only skips the spawns (run it under taskset to pick a CPU). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../user/lib/clock.h"

#define ROUNDS 31
#define BATCH  200
#define SPAWNS 11

static uint64_t rdtsc(void)
{
    uint32_t low, high;
    __asm__ volatile("lfence; rdtsc" : "=a"(low), "=d"(high));
    return ((uint64_t)high << 32) | low;
}

static int compare(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint64_t median(uint64_t *values, int count)
{
    qsort(values, count, sizeof(values[0]), compare);
    return values[count / 2];
}

static void bench_syscall(const char *name, long number)
{
    uint64_t samples[ROUNDS];
    for (int round = 0; round < ROUNDS; round++) {
        uint64_t start = rdtsc();
        for (int i = 0; i < BATCH; i++)
            syscall(number);
        samples[round] = (rdtsc() - start) / BATCH;
    }
    printf("bench: %s cycles_median=%llu batches=%d per_batch=%d\n", name,
           (unsigned long long)median(samples, ROUNDS), ROUNDS, BATCH);
}

int main(int argc, char **argv)
{
    int syscalls_only = argc > 1 && strcmp(argv[1], "--syscalls-only") == 0;
    const char *true_path = argc > 1 + syscalls_only ? argv[1 + syscalls_only] : "/bin/true";
    uint64_t samples[SPAWNS];

    bench_syscall("getpid", SYS_getpid);
    bench_syscall("getppid", SYS_getppid);
    if (syscalls_only)
        return 0;

    for (int run = 0; run < SPAWNS; run++) {
        uint64_t start = now_ns();
        pid_t child = fork();
        if (child == 0) {
            execl(true_path, "true", (char *)NULL);
            _exit(127);
        }
        int status;
        if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status)) {
            fprintf(stderr, "syscall_bench: fork/exec of %s failed\n", true_path);
            return 1;
        }
        samples[run] = now_ns() - start;
    }
    printf("bench: fork_exec_wait ns_median=%llu runs=%d\n", (unsigned long long)median(samples, SPAWNS), SPAWNS);
    return 0;
}
