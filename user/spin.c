/* spin SECONDS [--nohz] [--syscall-every N] [--fault-every N]
 *
 * A pure user-space loop for SECONDS seconds: the task the nohz model is
 * about. It reads the clock (clock_gettime, a real system call here: there
 * is no vDSO) only every CLOCK_CHECK_EVERY iterations, so that without
 * options it stays in user mode almost all the time.
 *
 *   --nohz              write 1 to /proc/self/nohz first; fail (status 1)
 *                       with the reason if the kernel refuses
 *   --syscall-every N   make a getcpu() system call every N iterations
 *   --fault-every N     touch a new page every N iterations (a page fault
 *                       on Linux; on nohzk, which maps eagerly, a syscall)
 *
 * At the end it prints one line, e.g.
 *   spin: 1 s, 123456789 iterations, 10 syscalls, 0 faults, cpus 2:11
 * where "cpus" lists each CPU getcpu() reported and how many times: with
 * taskset -c 2 every sample is 2. Exit status 0, 1 on --nohz refusal,
 * 2 on bad arguments. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define CLOCK_CHECK_EVERY (1ul << 16)
#define CPU_MAX 64
#define FAULT_REGION_PAGES 1024

static unsigned long cpu_samples[CPU_MAX];

static void usage(void)
{
    fprintf(stderr, "usage: spin SECONDS [--nohz] [--syscall-every N] [--fault-every N]\n");
    exit(2);
}

static unsigned long parse_count(const char *text)
{
    char *end;
    unsigned long value = strtoul(text, &end, 10);
    if (!*text || *end || value == 0)
        usage();
    return value;
}

static unsigned long long now_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (unsigned long long)now.tv_sec * 1000000000ull + (unsigned long long)now.tv_nsec;
}

static void sample_cpu(void)
{
    unsigned cpu = 0;
    if (syscall(SYS_getcpu, &cpu, NULL, NULL) == 0 && cpu < CPU_MAX)
        cpu_samples[cpu]++;
}

static void become_nohz(void)
{
    int fd = open("/proc/self/nohz", O_WRONLY);
    if (fd < 0 || write(fd, "1", 1) != 1) {
        fprintf(stderr, "spin: --nohz: cannot write 1 to /proc/self/nohz: %s\n", strerror(errno));
        exit(1);
    }
    close(fd);
}

/* A fresh page each time, so that each touch is a first touch on a kernel
 * with demand paging. */
static void touch_new_page(void)
{
    static char *region;
    static unsigned long next;
    long page = sysconf(_SC_PAGESIZE);
    if (!region || next == FAULT_REGION_PAGES) {
        if (region)
            munmap(region, FAULT_REGION_PAGES * page);
        region = mmap(NULL, FAULT_REGION_PAGES * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (region == MAP_FAILED) {
            perror("spin: mmap");
            exit(1);
        }
        next = 0;
    }
    region[next++ * page] = 1;
}

int main(int argc, char **argv)
{
    unsigned long syscall_every = 0, fault_every = 0;
    unsigned long long iterations = 0, syscalls = 0, faults = 0;
    int nohz = 0;

    if (argc < 2)
        usage();
    unsigned long seconds = strtoul(argv[1], NULL, 10);
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--nohz"))
            nohz = 1;
        else if (!strcmp(argv[i], "--syscall-every") && i + 1 < argc)
            syscall_every = parse_count(argv[++i]);
        else if (!strcmp(argv[i], "--fault-every") && i + 1 < argc)
            fault_every = parse_count(argv[++i]);
        else
            usage();
    }
    if (nohz)
        become_nohz();
    sample_cpu();
    unsigned long long end = now_ns() + seconds * 1000000000ull;
    for (;;) {
        iterations++;
        if (syscall_every && iterations % syscall_every == 0) {
            sample_cpu();
            syscalls++;
        }
        if (fault_every && iterations % fault_every == 0) {
            touch_new_page();
            faults++;
        }
        if (iterations % CLOCK_CHECK_EVERY == 0) {
            if (now_ns() >= end)
                break;
            sample_cpu();
        }
        __asm__ volatile("" ::: "memory");     /* keep the loop a loop */
    }
    sample_cpu();
    printf("spin: %lu s, %llu iterations, %llu syscalls, %llu faults%s, cpus", seconds, iterations, syscalls,
           faults, nohz ? ", nohz" : "");
    for (int cpu = 0; cpu < CPU_MAX; cpu++) {
        if (cpu_samples[cpu])
            printf(" %d:%lu", cpu, cpu_samples[cpu]);
    }
    printf("\n");
    return 0;
}
