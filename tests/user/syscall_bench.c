/* syscall_bench: the costs of the user/kernel boundary, for make bench
 * (tools/measure/bench). Runs the same on Linux and nohzk.
 *   getpid   TSC cycles of one syscall(SYS_getpid) round trip, median of
 *            ROUNDS batches of BATCH calls (rdtsc works in user mode)
 *   getppid  the same for getppid (which glibc never caches)
 *   spawn    nanoseconds of fork + execve(/bin/true) + wait4, median of
 *            SPAWNS runs (clock_gettime)
 * Output: "bench: getpid cycles_median=N batches=N per_batch=N" (and
 * getppid) and "bench: fork_exec_wait ns_median=N runs=N", the format
 * tools/measure/bench reads. Usage: syscall_bench [--syscalls-only] [TRUE_PATH];
 * --syscalls-only skips the spawns (run it under taskset to pick a CPU).
 *
 * syscall_bench --getppid CPU [--nohz]: only the getppid round trip, pinned
 * to CPU, after a one-second warm-up loop (a nohz CPU's tick stops
 * meanwhile); with --nohz it first writes 1 to /proc/self/nohz where that
 * file exists (not on Linux). Output, for tools/measure/noise-bench:
 * "bench: getppid_cpuN cycles_median=N cycles_min=N batches=N per_batch=N nohz=0|1".
 * Status 1 if it cannot pin or the kernel refuses nohz.
 *
 * syscall_bench --probes [--rounds N] [--cpus LIST] [TRUE_PATH]: the probes
 * tools/measure/bench holds against Linux, in nanoseconds (CLOCK_MONOTONIC per
 * round, so both kernels use one unit), each the median of N rounds
 * (default 11) with the least and the most. For each CPU of LIST (default
 * 3,0), in a child pinned there: pipe_cpuC, one byte there and back
 * between it and a grandchild pinned to the same CPU; then getppid_cpuC
 * after a one-second warm-up, as a nohz task on any CPU but 0 where the
 * kernel has /proc/self/nohz. Then spawn: fork + execve(TRUE_PATH) + wait4,
 * and clock_gettime: CLOCK_MONOTONIC through the C library (the vDSO).
 * One line per probe, "probe: NAME ns_median=N ns_min=N ns_max=N rounds=N
 * per_round=N" (getppid adds nohz=0|1); status 1 if a probe failed (its
 * line is then missing). After spawn, two thread probes: thread, one
 * pthread_create + pthread_join, unpinned; futex_cpu0_cpu1, one round trip
 * of a futex word between two threads pinned to CPUs 0 and 1, each
 * sleeping in FUTEX_WAIT until the other flips the word and wakes it. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
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
#define PROBE_ROUNDS 11
#define PIPE_TRIPS 100
#define CLOCK_READS 1000
#define PROBE_MAX_ROUNDS 1000
#define PROBE_MAX_CPUS 16
#define THREAD_SPAWNS 20        /* pthread_create + pthread_join per round */
#define FUTEX_TRIPS 100         /* futex round trips per round */
#define FUTEX_WAIT 0            /* linux/futex.h, which musl's headers lack */
#define FUTEX_WAKE 1
#define FUTEX_PRIVATE_FLAG 128

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


/* The probe line of one probe: ns per operation over rounds samples of
 * per_round operations each (samples: the total ns of each round). */
static void print_probe(const char *name, uint64_t *samples, int rounds, int per_round, const char *extra)
{
    uint64_t middle = median(samples, rounds);
    printf("probe: %s ns_median=%llu ns_min=%llu ns_max=%llu rounds=%d per_round=%d%s\n", name,
           (unsigned long long)(middle / per_round), (unsigned long long)(samples[0] / per_round),
           (unsigned long long)(samples[rounds - 1] / per_round), rounds, per_round, extra);
}

static int probe_getppid(int cpu, int rounds)
{
    uint64_t samples[PROBE_MAX_ROUNDS];
    int is_nohz = cpu != 0 && become_nohz();
    for (int64_t start = now_ns(); now_ns() - start < WARMUP_NS;)
        for (volatile int i = 0; i < 100000; i++)
            ;
    for (int round = 0; round < rounds; round++) {
        int64_t start = now_ns();
        for (int i = 0; i < BATCH; i++)
            syscall(SYS_getppid);
        samples[round] = now_ns() - start;
    }
    char name[32], extra[16];
    snprintf(name, sizeof(name), "getppid_cpu%d", cpu);
    snprintf(extra, sizeof(extra), " nohz=%d", is_nohz);
    print_probe(name, samples, rounds, BATCH, extra);
    return 0;
}

/* The grandchild's side: every byte read from in goes back on out. */
static void echo_bytes(int in, int out)
{
    char byte;
    while (read(in, &byte, 1) == 1)
        if (write(out, &byte, 1) != 1)
            _exit(1);
    _exit(0);
}

/* PIPE_TRIPS round trips of one byte; 0, or -1 if the echo broke. */
static int ping_pong(int out, int in)
{
    for (int i = 0; i < PIPE_TRIPS; i++) {
        char byte = 'p';
        if (write(out, &byte, 1) != 1 || read(in, &byte, 1) != 1)
            return -1;
    }
    return 0;
}

static int probe_pipe(int cpu, int rounds)
{
    uint64_t samples[PROBE_MAX_ROUNDS];
    int to_echo[2], from_echo[2];
    if (pipe(to_echo) || pipe(from_echo)) {
        perror("syscall_bench: pipe");
        return 1;
    }
    pid_t child = fork();
    if (child == 0) {
        close(to_echo[1]);
        close(from_echo[0]);
        if (pin_to_cpu(0, cpu) != 0)
            _exit(1);
        echo_bytes(to_echo[0], from_echo[1]);
    }
    close(to_echo[0]);
    close(from_echo[1]);
    int broken = child < 0 || ping_pong(to_echo[1], from_echo[0]);       /* one round to warm up */
    for (int round = 0; round < rounds && !broken; round++) {
        int64_t start = now_ns();
        broken = ping_pong(to_echo[1], from_echo[0]);
        samples[round] = now_ns() - start;
    }
    close(to_echo[1]);
    close(from_echo[0]);
    int status = 0;
    if (child > 0 && (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status)))
        broken = 1;
    if (broken) {
        fprintf(stderr, "syscall_bench: the pipe ping-pong on CPU %d broke\n", cpu);
        return 1;
    }
    char name[32];
    snprintf(name, sizeof(name), "pipe_cpu%d", cpu);
    print_probe(name, samples, rounds, PIPE_TRIPS, "");
    return 0;
}

/* The CPU's probes in a child pinned there, so that the caller stays
 * unpinned and not a nohz task. 0 if both printed their line. */
static int probes_on(int cpu, int rounds)
{
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        if (pin_to_cpu(0, cpu) != 0) {
            fprintf(stderr, "syscall_bench: cannot pin to CPU %d: %s\n", cpu, strerror(errno));
            _exit(1);
        }
        int failed = probe_pipe(cpu, rounds) || probe_getppid(cpu, rounds);
        fflush(stdout);
        _exit(failed);
    }
    int status;
    return child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status);
}

/* clock_gettime(CLOCK_MONOTONIC) through the C library: the vDSO where
 * the kernel maps one that serves it, else a system call. Unpinned. */
static int probe_clock_gettime(int rounds)
{
    uint64_t samples[PROBE_MAX_ROUNDS];
    struct timespec now;
    for (int round = 0; round < rounds; round++) {
        int64_t start = now_ns();
        for (int i = 0; i < CLOCK_READS; i++)
            clock_gettime(CLOCK_MONOTONIC, &now);
        samples[round] = now_ns() - start;
    }
    print_probe("clock_gettime", samples, rounds, CLOCK_READS, "");
    return 0;
}

static int probe_spawn(const char *true_path, int rounds)
{
    uint64_t samples[PROBE_MAX_ROUNDS];
    for (int run = 0; run < rounds; run++) {
        int64_t start = now_ns();
        fflush(stdout);
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
    print_probe("spawn", samples, rounds, 1, "");
    return 0;
}

/* thread: THREAD_SPAWNS pthread_create + pthread_join a round, from the
 * unpinned caller; the thread does nothing. */
static void *do_nothing(void *arg)
{
    return arg;
}

static int probe_thread(int rounds)
{
    uint64_t samples[PROBE_MAX_ROUNDS];
    for (int round = 0; round < rounds; round++) {
        int64_t start = now_ns();
        for (int i = 0; i < THREAD_SPAWNS; i++) {
            pthread_t thread;
            void *result = NULL;
            if (pthread_create(&thread, NULL, do_nothing, &samples[0]) != 0 || pthread_join(thread, &result) != 0 ||
                result != &samples[0]) {
                fprintf(stderr, "syscall_bench: pthread_create or pthread_join failed\n");
                return 1;
            }
        }
        samples[round] = now_ns() - start;
    }
    print_probe("thread", samples, rounds, THREAD_SPAWNS, "");
    return 0;
}

/* futex_cpu0_cpu1: a word that the thread on CPU 0 sets to 1 and the one
 * on CPU 1 back to 0; each wakes the other after flipping it and sleeps
 * in FUTEX_WAIT while the word is its own value (EAGAIN: it has flipped
 * already). One round trip is two flips, two wakes. */
struct futex_pair {
    atomic_int word;            /* 0: CPU 0's turn, 1: CPU 1's */
    atomic_int failed;
    int trips;                  /* round trips the CPU 1 side answers */
};

static long futex_call(atomic_int *word, int op, int value)
{
    return syscall(SYS_futex, word, op | FUTEX_PRIVATE_FLAG, value, NULL, NULL, 0);
}

/* Wait while *word == value; 0, or -1 on an error other than EAGAIN/EINTR. */
static int futex_wait_while(atomic_int *word, int value)
{
    while (atomic_load(word) == value) {
        if (futex_call(word, FUTEX_WAIT, value) != 0 && errno != EAGAIN && errno != EINTR)
            return -1;
    }
    return 0;
}

static int futex_flip(atomic_int *word, int value)
{
    atomic_store(word, value);
    return futex_call(word, FUTEX_WAKE, 1) < 0 ? -1 : 0;
}

static void *futex_answer(void *arg)
{
    struct futex_pair *pair = arg;
    if (pin_to_cpu(0, 1) != 0) {
        atomic_store(&pair->failed, 1);
        futex_flip(&pair->word, 0);             /* let the other side see it */
        return NULL;
    }
    for (int i = 0; i < pair->trips; i++) {
        if (futex_wait_while(&pair->word, 0) != 0 || futex_flip(&pair->word, 0) != 0) {
            atomic_store(&pair->failed, 1);
            return NULL;
        }
    }
    return NULL;
}

/* FUTEX_TRIPS round trips from CPU 0; 0, or -1 if the other side failed. */
static int futex_trips(struct futex_pair *pair)
{
    for (int i = 0; i < FUTEX_TRIPS; i++) {
        if (futex_flip(&pair->word, 1) != 0 || futex_wait_while(&pair->word, 1) != 0 ||
            atomic_load(&pair->failed))
            return -1;
    }
    return 0;
}

/* In a child pinned to CPU 0, so that the caller stays unpinned. */
static int probe_futex(int rounds)
{
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        static struct futex_pair pair;
        uint64_t samples[PROBE_MAX_ROUNDS];
        pthread_t other;
        pair.trips = FUTEX_TRIPS * (rounds + 1);
        if (pin_to_cpu(0, 0) != 0 || pthread_create(&other, NULL, futex_answer, &pair) != 0) {
            fprintf(stderr, "syscall_bench: futex probe: cannot pin to CPU 0 or start the thread\n");
            _exit(1);
        }
        int broken = futex_trips(&pair);        /* one round to warm up */
        for (int round = 0; round < rounds && !broken; round++) {
            int64_t start = now_ns();
            broken = futex_trips(&pair);
            samples[round] = now_ns() - start;
        }
        pthread_join(other, NULL);
        if (broken || atomic_load(&pair.failed)) {
            fprintf(stderr, "syscall_bench: the futex ping-pong between CPUs 0 and 1 broke\n");
            _exit(1);
        }
        print_probe("futex_cpu0_cpu1", samples, rounds, FUTEX_TRIPS, "");
        fflush(stdout);
        _exit(0);
    }
    int status;
    return child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status);
}

/* A number in 1..limit, or -1. */
static int small_number(const char *text, int limit)
{
    char *end;
    long value = strtol(text, &end, 10);
    return *text && !*end && value >= 1 && value <= limit ? (int)value : -1;
}

/* "3,0" into cpus (each 0..4095); the count, or -1. */
static int parse_cpus(const char *text, int *cpus)
{
    int count = 0;
    char copy[128], *saveptr;
    snprintf(copy, sizeof(copy), "%s", text);
    for (char *word = strtok_r(copy, ",", &saveptr); word; word = strtok_r(NULL, ",", &saveptr)) {
        char *end;
        long cpu = strtol(word, &end, 10);
        if (*end || cpu < 0 || cpu > 4095 || count == PROBE_MAX_CPUS)
            return -1;
        cpus[count++] = (int)cpu;
    }
    return count ? count : -1;
}

static int probes(int argc, char **argv)
{
    int rounds = PROBE_ROUNDS, cpus[PROBE_MAX_CPUS] = {3, 0}, ncpus = 2;
    const char *true_path = "/bin/true";
    int i = 2;
    for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
        if (!strcmp(argv[i], "--rounds") && (rounds = small_number(argv[i + 1], PROBE_MAX_ROUNDS)) > 0)
            continue;
        if (!strcmp(argv[i], "--cpus") && (ncpus = parse_cpus(argv[i + 1], cpus)) > 0)
            continue;
        break;
    }
    if (i < argc && argv[i][0] != '-')
        true_path = argv[i++];
    if (i != argc) {
        fprintf(stderr, "usage: syscall_bench --probes [--rounds 1..%d] [--cpus CPU,CPU...] [TRUE_PATH]\n",
                PROBE_MAX_ROUNDS);
        return 2;
    }
    int failed = 0;
    for (int c = 0; c < ncpus; c++)
        failed |= probes_on(cpus[c], rounds);
    failed |= probe_spawn(true_path, rounds);
    failed |= probe_thread(rounds);
    failed |= probe_futex(rounds);
    failed |= probe_clock_gettime(rounds);
    return failed;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--probes"))
        return probes(argc, argv);
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
