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
 * --syscalls-only skips the spawns (run it under taskset to pick a CPU).
 *
 * syscall_bench --getppid CPU [--nohz]: only the getppid round trip, pinned
 * to CPU, after a one-second warm-up loop (a nohz CPU's tick stops
 * meanwhile); with --nohz it first writes 1 to /proc/self/nohz where that
 * file exists (not on Linux). Output, for tools/noise-bench:
 * "bench: getppid_cpuN cycles_median=N cycles_min=N batches=N per_batch=N nohz=0|1".
 * Status 1 if it cannot pin or the kernel refuses nohz. */
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
#include "../../user/lib/nohz.h"
#include "../../user/lib/pin.h"

#define ROUNDS 31
#define BATCH  200
#define SPAWNS 11
#define WARMUP_NS 1000000000ll

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

/* ROUNDS batches of BATCH calls of system call nr: the median and the least. */
static void time_batches(long nr, uint64_t *median_cycles, uint64_t *min_cycles)
{
    uint64_t samples[ROUNDS];
    for (int round = 0; round < ROUNDS; round++) {
        uint64_t start = rdtsc();
        for (int i = 0; i < BATCH; i++)
            syscall(nr);
        samples[round] = (rdtsc() - start) / BATCH;
    }
    *median_cycles = median(samples, ROUNDS);
    *min_cycles = samples[0];          /* sorted by median() */
}

/* 1: a nohz task now; 0: this kernel has none (no /proc/self/nohz). */
static int become_nohz(void)
{
    int error = write_nohz(0, "1");
    if (error == ENOENT)
        return 0;
    if (error) {
        fprintf(stderr, "syscall_bench: cannot write 1 to /proc/self/nohz: %s\n", strerror(error));
        exit(1);
    }
    return 1;
}

static int getppid_on(const char *cpu_text, int nohz)
{
    char *end;
    long cpu = strtol(cpu_text, &end, 10);
    if (!*cpu_text || *end || cpu < 0 || cpu > 4095) {
        fprintf(stderr, "usage: syscall_bench [TRUE_PATH] | --getppid CPU [--nohz]\n");
        return 2;
    }
    if (pin_to_cpu(0, (int)cpu) != 0) {
        fprintf(stderr, "syscall_bench: cannot pin to CPU %ld: %s\n", cpu, strerror(errno));
        return 1;
    }
    int is_nohz = nohz && become_nohz();
    for (int64_t start = now_ns(); now_ns() - start < WARMUP_NS;)
        for (volatile int i = 0; i < 100000; i++)
            ;
    uint64_t median_cycles, min_cycles;
    time_batches(SYS_getppid, &median_cycles, &min_cycles);
    printf("bench: getppid_cpu%ld cycles_median=%llu cycles_min=%llu batches=%d per_batch=%d nohz=%d\n", cpu,
           (unsigned long long)median_cycles, (unsigned long long)min_cycles, ROUNDS, BATCH, is_nohz);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--getppid")) {
        if (argc == 3 || (argc == 4 && !strcmp(argv[3], "--nohz")))
            return getppid_on(argv[2], argc == 4);
        fprintf(stderr, "usage: syscall_bench [--syscalls-only] [TRUE_PATH] | --getppid CPU [--nohz]\n");
        return 2;
    }
    int syscalls_only = argc > 1 && strcmp(argv[1], "--syscalls-only") == 0;
    const char *true_path = argc > 1 + syscalls_only ? argv[1 + syscalls_only] : "/bin/true";
    uint64_t samples[ROUNDS > SPAWNS ? ROUNDS : SPAWNS];

    uint64_t median_cycles, min_cycles;
    time_batches(SYS_getpid, &median_cycles, &min_cycles);
    printf("bench: getpid cycles_median=%llu batches=%d per_batch=%d\n", (unsigned long long)median_cycles, ROUNDS,
           BATCH);
    time_batches(SYS_getppid, &median_cycles, &min_cycles);
    printf("bench: getppid cycles_median=%llu batches=%d per_batch=%d\n", (unsigned long long)median_cycles, ROUNDS,
           BATCH);
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
