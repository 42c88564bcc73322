/* nohz_threads [--mark-uart] SECONDS: one process, three spinning pthreads, each pinned
 * to its CPU (1, 2, 3) and each marked nohz through /proc/thread-self/nohz
 * (docs/threads.md, "Each thread a nohz task"). After a first second each
 * thread writes, from its own CPU,
 *   nohz_threads: witness open: cpu N
 * spins SECONDS more, reading the clock every CLOCK_EVERY iterations (in
 * user mode, through the vDSO; neither a system call nor an interrupt), then writes
 *   nohz_threads: witness close: cpu N
 * and QEMU's witness (tools/run/boot --witness, docs/noise.md) counts the
 * interrupts each CPU took in between. Memory is locked first (mlockall)
 * and nothing is mapped or unmapped until every window is closed, so that
 * neither a page fault nor a TLB shootdown lands in a window. The threads
 * wait for each other by spinning on an atomic, not on a futex.
 *
 * Without /proc/thread-self/nohz (Linux) the mark is skipped and said so:
 * on Linux run it with nohz_full=1-3, and with --mark-uart: each thread
 * writes its marks to the UART itself (user/lib/uart_mark.h), since
 * Linux's console may send a thread's text from another CPU
 * (tools/measure/threads-witness runs both kernels). Exit status 0; 1 if a thread could
 * not be pinned or marked; 2 on bad arguments. Built with musl and glibc. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../user/lib/clock.h"
#include "../../user/lib/pin.h"
#include "../../user/lib/uart_mark.h"

#define THREADS 3
#define CLOCK_EVERY 100000

static long seconds;
static int mark_uart;
static atomic_int marked, closed, failed;

static void say(const char *text)
{
    if (write(1, text, strlen(text)) < 0)
        atomic_store(&failed, 1);
}

/* 0, or the errno: ENOENT where there is no such file (Linux). */
static int mark_nohz(void)
{
    int fd = open("/proc/thread-self/nohz", O_WRONLY);
    if (fd < 0)
        return errno;
    int error = write(fd, "1", 1) == 1 ? 0 : errno;
    close(fd);
    return error;
}

static void spin_for(int64_t ns)
{
    int64_t end = now_ns() + ns;
    volatile unsigned long counter = 0;
    for (;;) {
        for (int i = 0; i < CLOCK_EVERY; i++)
            counter++;
        if (now_ns() >= end)
            return;
    }
}

static void mark(const char *which, int cpu)
{
    char line[64];
    int length = snprintf(line, sizeof(line), "nohz_threads: witness %s: cpu %d\n", which, cpu);
    if (mark_uart)
        uart_write(line, length);
    else
        say(line);
}

static void *worker(void *arg)
{
    int cpu = (int)(long)arg;
    char line[96];
    if (pin_to_cpu(0, cpu) != 0) {
        snprintf(line, sizeof(line), "nohz_threads: cpu %d: cannot pin: %s\n", cpu, strerror(errno));
        say(line);
        atomic_store(&failed, 1);
    }
    int error = mark_nohz();
    if (error == ENOENT) {
        snprintf(line, sizeof(line), "nohz_threads: cpu %d: no /proc/thread-self/nohz, not marked\n", cpu);
        say(line);
    } else if (error) {
        snprintf(line, sizeof(line), "nohz_threads: cpu %d: cannot mark nohz: %s\n", cpu, strerror(error));
        say(line);
        atomic_store(&failed, 1);
    }
    atomic_fetch_add(&marked, 1);
    while (atomic_load(&marked) < THREADS)
        ;
    spin_for(1000000000ll);
    mark("open", cpu);
    spin_for(seconds * 1000000000ll);
    mark("close", cpu);
    atomic_fetch_add(&closed, 1);
    while (atomic_load(&closed) < THREADS)
        ;
    return 0;
}

/* Threads: in /proc/self/status; 0 if it cannot be read. */
static int thread_count(void)
{
    char text[4096];
    int fd = open("/proc/self/status", O_RDONLY), count = 0;
    ssize_t length = fd < 0 ? -1 : read(fd, text, sizeof(text) - 1);
    if (fd >= 0)
        close(fd);
    if (length <= 0)
        return 0;
    text[length] = 0;
    char *line = strstr(text, "Threads:");
    if (line)
        count = atoi(line + strlen("Threads:"));
    return count;
}

int main(int argc, char **argv)
{
    char *end;
    mark_uart = argc == 3 && !strcmp(argv[1], "--mark-uart");
    seconds = argc == 2 + mark_uart ? strtol(argv[1 + mark_uart], &end, 10) : 0;
    if (argc != 2 + mark_uart || *end || seconds < 1) {
        fprintf(stderr, "usage: nohz_threads [--mark-uart] SECONDS\n");
        return 2;
    }
    int error = mark_uart ? uart_allow() : 0;
    if (error) {
        fprintf(stderr, "nohz_threads: --mark-uart: ioperm(0x%x): %s\n", UART_PORT, strerror(error));
        return 1;
    }
    pin_to_cpu(0, 0);      /* housekeeping: off the three CPUs */
    if (mlockall(MCL_CURRENT | MCL_FUTURE) != 0)
        fprintf(stderr, "nohz_threads: mlockall: %s (page faults may show in the windows)\n", strerror(errno));
    pthread_t threads[THREADS];
    for (int i = 0; i < THREADS; i++) {
        if (pthread_create(&threads[i], 0, worker, (void *)(long)(i + 1)) != 0) {
            fprintf(stderr, "nohz_threads: pthread_create failed\n");
            return 1;
        }
    }
    while (atomic_load(&closed) < THREADS)
        sched_yield();
    while (thread_count() > 1)     /* gone: a join then needs no futex wait */
        sched_yield();
    for (int i = 0; i < THREADS; i++)
        pthread_join(threads[i], 0);
    printf("nohz_threads: %d threads, %ld s, %s\n", THREADS, seconds, atomic_load(&failed) ? "failed" : "done");
    return atomic_load(&failed) ? 1 : 0;
}
