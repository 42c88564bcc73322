/* The futex probe of syscall_bench counted instead of timed: ROUNDS
 * (default 200) round trips of a futex word between two threads pinned to
 * CPUs 0 and 1, and around them, for the two CPUs, the reschedule (RES) and
 * function-call (CAL: Linux wakes a remote CPU with it) IPIs and the local
 * timer interrupts from /proc/interrupts, and each thread's voluntary
 * switches (/proc/self/task/TID/status). One line; the time per round trip
 * is printed beside the counts but is only the host's mood under TCG.
 * Runs the same on nohzk and Linux (docs/performance.md, "Why the futex
 * round trip costs milliseconds"). Not a KTAP test: it asserts nothing. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../../user/lib/pin.h"

#define FUTEX_WAIT 0
#define FUTEX_WAKE 1
#define FUTEX_PRIVATE_FLAG 128

static _Atomic int word;
static int rounds = 200;
static long other_switches;

static long futex_call(_Atomic int *w, int op, int value)
{
    return syscall(SYS_futex, w, op | FUTEX_PRIVATE_FLAG, value, NULL, NULL, 0);
}

static void flip(int value)
{
    atomic_store(&word, value);
    futex_call(&word, FUTEX_WAKE, 1);
}

static void wait_while(int value)
{
    while (atomic_load(&word) == value)
        futex_call(&word, FUTEX_WAIT, value);
}

static long voluntary(int tid);

static void *answer(void *arg)
{
    (void)arg;
    if (pin_to_cpu(0, 1) != 0) {
        fprintf(stderr, "futex_pingpong: cannot pin to CPU 1\n");
        exit(1);
    }
    int self = (int)syscall(SYS_gettid);
    wait_while(0);
    long before = voluntary(self);
    flip(0);
    for (int i = 0; i < rounds; i++) {
        wait_while(0);
        if (i == rounds - 1)
            other_switches = voluntary(self) - before;
        flip(0);
    }
    return NULL;
}

/* The counts of the line starting with label, for CPUs 0 and 1. */
static void interrupts(const char *label, long counts[2])
{
    char line[1024];
    FILE *file = fopen("/proc/interrupts", "r");
    counts[0] = counts[1] = -1;
    while (file && fgets(line, sizeof(line), file)) {
        char *p = line;
        while (*p == ' ')
            p++;
        if (strncmp(p, label, strlen(label)))
            continue;
        p += strlen(label);
        counts[0] = strtol(p, &p, 10);
        counts[1] = strtol(p, &p, 10);
    }
    if (file)
        fclose(file);
}

static long voluntary(int tid)
{
    char path[64], line[256];
    long count = -1;
    snprintf(path, sizeof(path), "/proc/self/task/%d/status", tid);
    FILE *file = fopen(path, "r");
    while (file && fgets(line, sizeof(line), file))
        if (!strncmp(line, "voluntary_ctxt_switches:", 24))
            count = strtol(line + 24, NULL, 10);
    if (file)
        fclose(file);
    return count;
}

int main(int argc, char **argv)
{
    if (argc > 2 || (argc == 2 && (rounds = atoi(argv[1])) < 1)) {
        fprintf(stderr, "usage: futex_pingpong [ROUNDS >= 1]\n");
        return 2;
    }
    pthread_t other;
    if (pin_to_cpu(0, 0) != 0 || pthread_create(&other, NULL, answer, NULL) != 0) {
        fprintf(stderr, "futex_pingpong: cannot pin to CPU 0 or start the thread\n");
        return 1;
    }
    flip(1);                    /* one round trip to start the other side */
    wait_while(1);
    int self = (int)syscall(SYS_gettid);
    long res0[2], res1[2], loc0[2], loc1[2], cal0[2], cal1[2], vol0 = voluntary(self);
    struct timespec t0, t1;
    interrupts("RES:", res0);
    interrupts("LOC:", loc0);
    interrupts("CAL:", cal0);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < rounds; i++) {
        flip(1);
        wait_while(1);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    interrupts("RES:", res1);
    interrupts("LOC:", loc1);
    interrupts("CAL:", cal1);
    long vol1 = voluntary(self);
    pthread_join(other, NULL);
    long ns = (t1.tv_sec - t0.tv_sec) * 1000000000L + (t1.tv_nsec - t0.tv_nsec);
    printf("pingpong rounds=%d us_per_round=%ld res_cpu0=%ld res_cpu1=%ld cal_cpu0=%ld cal_cpu1=%ld "
           "loc_cpu0=%ld loc_cpu1=%ld vol_cpu0=%ld vol_cpu1=%ld\n", rounds, ns / rounds / 1000, res1[0] - res0[0],
           res1[1] - res0[1], cal1[0] - cal0[0], cal1[1] - cal0[1],
           loc1[0] - loc0[0], loc1[1] - loc0[1], vol1 - vol0, other_switches);
    return 0;
}
