/* Lazy zeroing (docs/fork.md, "Lazy zeroing: the zero page"): fresh
 * anonymous memory reads as zeros and each side of a fork, each right
 * given by mprotect and each kernel write sees what Linux shows. On
 * nohzk, /proc/vmstat also shows that a mapping zeroes no page until it
 * is written (pages_zeroed, zero_page_faults) and /proc/meminfo that
 * unmapping gives every page back. On Linux those counters are missing
 * and the counting cases skip; the behaviour checks run on both. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ktap.h"
#include "proc_counters.h"
#include "../../user/lib/nohz.h"
#include "../../user/lib/pin.h"

#define PAGE 4096l
#define PAGES 1000l

static long vmstat(const char *name) { return vmstat_value(name); }
static long mem_free_kib(void) { return proc_counter("/proc/meminfo", "MemFree", ':'); }

/* nohzk's counters are there (not on Linux): else the case skips. */
static int counters_here(void)
{
    vmstat("pages_zeroed");                 /* the first read: its stack and buffer pages */
    mem_free_kib();
    if (vmstat("pages_zeroed") >= 0)
        return 1;
    ktap_skip_reason = "no pages_zeroed in /proc/vmstat (not nohzk)";
    printf("# skipped: %s\n", ktap_skip_reason);
    return 0;
}

/* pages_zeroed is the whole machine's, and reading it zeroes pages too
 * (the kernel heap's pages for the open file and its text): the most
 * one read adds, measured, is allowed on top of each count. */
static long reading_noise(void)
{
    long most = 0;
    for (int i = 0; i < 3; i++) {
        long before = vmstat("pages_zeroed"), after = vmstat("pages_zeroed");
        if (after - before > most)
            most = after - before;
    }
    return most;
}

static char *fresh(long pages, int prot)
{
    char *map = mmap(0, pages * PAGE, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return map == MAP_FAILED ? 0 : map;
}

static int all_zero(const char *start, long bytes)
{
    for (long i = 0; i < bytes; i++)
        if (start[i])
            return 0;
    return 1;
}

static int child_status(pid_t child)
{
    int status;
    return child > 0 && waitpid(child, &status, 0) == child ? status : -1;
}

static int child_ok(pid_t child)
{
    int status = child_status(child);
    return status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* A write to address in a child: its wait status. */
static int status_of_write(volatile char *address)
{
    pid_t child = fork();
    if (child == 0) {
        *address = 'w';
        _exit(0);
    }
    return child_status(child);
}

/* The mapping zeroes at most its page tables, a read none. */
static int mmap_and_reads_zero_no_page(void)
{
    if (!counters_here())
        return 1;
    long noise = reading_noise();
    long zeroed = vmstat("pages_zeroed");
    char *map = fresh(PAGES, PROT_READ | PROT_WRITE);
    CHECK(map);
    long after_map = vmstat("pages_zeroed"), free_pages = vmstat("nr_free_pages");
    long faults = vmstat("zero_page_faults"), before_read = vmstat("pages_zeroed");
    long sum = 0;
    for (long i = 0; i < PAGES * PAGE; i += PAGE / 4)
        sum += map[i];
    long after_read = vmstat("pages_zeroed"), free_now = vmstat("nr_free_pages");
    long faults_now = vmstat("zero_page_faults");
    printf("# mmap of %ld pages zeroed %ld, reading them %ld, a counter read %ld; free pages %ld -> %ld\n", PAGES,
           after_map - zeroed, after_read - before_read, noise, free_pages, free_now);
    CHECK(sum == 0);
    CHECK(after_map - zeroed <= 4 + noise);         /* page tables: 2 or 3 tables, a directory */
    CHECK(after_read - before_read <= noise);
    CHECK(faults >= 0 && faults_now == faults);
    CHECK(free_now >= free_pages - 2);
    CHECK(all_zero(map, PAGES * PAGE));
    return 1;
}

/* One write per page zeroes that page (and the counter counts it). */
static int ten_writes_zero_ten_pages(void)
{
    char *map = fresh(PAGES, PROT_READ | PROT_WRITE);
    CHECK(map);
    if (counters_here()) {
        long noise = reading_noise();
        long faults = vmstat("zero_page_faults"), zeroed = vmstat("pages_zeroed");   /* one read between */
        for (long i = 0; i < 10; i++)
            map[i * 37 * PAGE + i] = 'w';
        long zeroed_now = vmstat("pages_zeroed"), faults_now = vmstat("zero_page_faults");
        printf("# 10 writes: %ld pages zeroed, %ld zero-page faults; a counter read %ld\n", zeroed_now - zeroed,
               faults_now - faults, noise);
        CHECK(faults >= 0 && faults_now - faults == 10);
        CHECK(zeroed_now - zeroed >= 10 && zeroed_now - zeroed <= 10 + noise);
    } else {
        for (long i = 0; i < 10; i++)
            map[i * 37 * PAGE + i] = 'w';
    }
    for (long i = 0; i < 10; i++) {
        CHECK(map[i * 37 * PAGE + i] == 'w');
        map[i * 37 * PAGE + i] = 0;
    }
    CHECK(all_zero(map, PAGES * PAGE));
    return 1;
}

static int a_child_write_leaves_the_parent_zeros(void)
{
    char *map = fresh(64, PROT_READ | PROT_WRITE);
    CHECK(map);
    map[PAGE] = 'p';
    pid_t child = fork();
    if (child == 0) {
        memset(map, 'c', 64 * PAGE);
        _exit(map[0] == 'c' && map[63 * PAGE] == 'c' ? 0 : 1);
    }
    CHECK(child_ok(child));
    CHECK(map[PAGE] == 'p');
    map[PAGE] = 0;
    CHECK(all_zero(map, 64 * PAGE));
    return 1;
}

static int mprotect_read_only_then_back(void)
{
    char *map = fresh(8, PROT_READ | PROT_WRITE);
    CHECK(map);
    CHECK(mprotect(map, 8 * PAGE, PROT_READ) == 0);
    int status = status_of_write(map + 3 * PAGE);
    CHECK(status >= 0 && WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV);
    CHECK(all_zero(map, 8 * PAGE));
    CHECK(mprotect(map, 8 * PAGE, PROT_READ | PROT_WRITE) == 0);
    map[3 * PAGE] = 'w';
    CHECK(map[3 * PAGE] == 'w' && map[2 * PAGE] == 0 && map[4 * PAGE] == 0);
    return 1;
}

/* PROT_NONE takes no page; opened by mprotect, each page comes at its
 * first touch (the region's fault): a read sees zeros, a write its own
 * page, and a write where only reading was opened is SIGSEGV. */
static int prot_none_opened_later_faults_in(void)
{
    char *map = fresh(4, PROT_NONE);
    CHECK(map);
    CHECK(mprotect(map, 2 * PAGE, PROT_READ) == 0);
    CHECK(mprotect(map + 2 * PAGE, 2 * PAGE, PROT_READ | PROT_WRITE) == 0);
    CHECK(map[0] == 0 && map[PAGE + 9] == 0);
    int status = status_of_write(map + 5);
    CHECK(status >= 0 && WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV);
    CHECK(map[2 * PAGE] == 0);
    map[2 * PAGE] = 'r';
    map[3 * PAGE + 7] = 'w';
    CHECK(map[2 * PAGE] == 'r' && map[3 * PAGE + 7] == 'w' && map[3 * PAGE] == 0 && map[5] == 0);
    CHECK(munmap(map, 4 * PAGE) == 0);
    return 1;
}

/* Mapped, partly written, unmapped: MemFree comes back. */
static int munmap_gives_every_page_back(void)
{
    if (!counters_here())
        return 1;
    long before = mem_free_kib();
    char *map = fresh(PAGES, PROT_READ | PROT_WRITE);
    CHECK(map);
    for (long i = 0; i < PAGES; i += 2)
        map[i * PAGE] = 'w';
    long mapped = mem_free_kib();
    CHECK(munmap(map, PAGES * PAGE) == 0);
    long after = mem_free_kib();
    printf("# MemFree %ld kB, written half %ld kB, unmapped %ld kB\n", before, mapped, after);
    CHECK(before - mapped >= PAGES / 2 * 4);
    CHECK(before - mapped <= (PAGES / 2 + 16) * 4);   /* not the unwritten half */
    CHECK(after >= before - 16);                      /* a kernel heap page or so */
    return 1;
}

static int brk_growth_is_lazy(void)
{
    int counting = counters_here();
    long noise = counting ? reading_noise() : 0;
    long start = syscall(SYS_brk, 0);
    long zeroed = counting ? vmstat("pages_zeroed") : 0;
    long end = syscall(SYS_brk, start + PAGES * PAGE);
    long zeroed_now = counting ? vmstat("pages_zeroed") : 0;
    CHECK(end == start + PAGES * PAGE);
    char *heap = (char *)start;
    long sum = 0;
    for (long i = 0; i < PAGES * PAGE; i += PAGE)
        sum += heap[i];
    CHECK(sum == 0);
    heap[5 * PAGE] = 'h';
    CHECK(heap[5 * PAGE] == 'h' && heap[6 * PAGE] == 0);
    CHECK(syscall(SYS_brk, start) == start);
    if (counting) {
        printf("# brk by %ld pages zeroed %ld; a counter read %ld\n", PAGES, zeroed_now - zeroed, noise);
        CHECK(zeroed_now - zeroed <= 4 + noise);
    }
    return 1;
}

/* read(2) into a buffer no one wrote: the kernel's write lands. */
static int read_from_a_pipe_into_a_fresh_buffer(void)
{
    char *map = fresh(4, PROT_READ | PROT_WRITE);
    int pipe_fds[2];
    CHECK(map && pipe(pipe_fds) == 0);
    long faults = counters_here() ? vmstat("zero_page_faults") : -1;
    CHECK(write(pipe_fds[1], "kernel-data", 11) == 11);
    CHECK(read(pipe_fds[0], map + PAGE - 5, 11) == 11);
    CHECK(memcmp(map + PAGE - 5, "kernel-data", 11) == 0);
    memset(map + PAGE - 5, 0, 11);
    CHECK(all_zero(map, 4 * PAGE));
    if (faults >= 0)
        CHECK(vmstat("zero_page_faults") - faults == 2);   /* the two pages it spans */
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    return 1;
}

/* More than memory holds: refused, nothing mapped. Linux refuses 128 TiB
 * too (more than the user half); nohzk refuses more than it has free. */
static int enormous_mappings_are_refused(void)
{
    errno = 0;
    CHECK(mmap(0, 1ul << 47, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED);
    CHECK(errno == ENOMEM);
    if (!counters_here())
        return 1;
    long noise = reading_noise();
    long free_pages = vmstat("nr_free_pages"), zeroed = vmstat("pages_zeroed");
    errno = 0;
    CHECK(mmap(0, (free_pages + 64) * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) ==
          MAP_FAILED);
    CHECK(errno == ENOMEM);
    long start = syscall(SYS_brk, 0);
    CHECK(syscall(SYS_brk, start + (free_pages + 64) * PAGE) == start);
    CHECK(vmstat("pages_zeroed") - zeroed <= noise);
    CHECK(vmstat("nr_free_pages") >= free_pages - 2);
    return 1;
}

/* MAP_FIXED over a lazily mapped range, partly written: zeros again. */
static int map_fixed_over_a_lazy_range(void)
{
    char *map = fresh(16, PROT_READ | PROT_WRITE);
    CHECK(map);
    memset(map + 4 * PAGE, 'x', 4 * PAGE);
    CHECK(mmap(map + 2 * PAGE, 8 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) ==
          map + 2 * PAGE);
    CHECK(all_zero(map, 16 * PAGE));
    map[5 * PAGE] = 'y';
    CHECK(map[5 * PAGE] == 'y');
    return 1;
}

/* mprotect over a hole: ENOMEM, the pages before the hole changed. */
static int mprotect_across_a_hole(void)
{
    char *map = fresh(3, PROT_READ | PROT_WRITE);
    CHECK(map);
    CHECK(munmap(map + PAGE, PAGE) == 0);
    errno = 0;
    CHECK(mprotect(map, 3 * PAGE, PROT_READ) == -1 && errno == ENOMEM);
    int status = status_of_write(map);
    CHECK(status >= 0 && WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV);
    map[2 * PAGE] = 'w';
    CHECK(map[2 * PAGE] == 'w' && map[0] == 0);
    return 1;
}

/* Forking children that map, write and exit: MemFree comes back. */
static int forks_of_lazy_mappings_leak_nothing(void)
{
    if (!counters_here())
        return 1;
    for (int round = 0; round < 2; round++) {       /* round 0 warms the kernel's heap up */
        long before = mem_free_kib();
        for (int i = 0; i < 8; i++) {
            pid_t child = fork();
            if (child == 0) {
                char *map = fresh(256, PROT_READ | PROT_WRITE);
                if (!map)
                    _exit(1);
                pid_t grandchild = fork();
                for (long p = 0; p < 256; p += 3)
                    map[p * PAGE] = 'c';
                if (grandchild == 0)
                    _exit(0);
                _exit(child_ok(grandchild) ? 0 : 1);
            }
            CHECK(child_ok(child));
        }
        long after = mem_free_kib();
        printf("# round %d: MemFree %ld kB before, %ld kB after\n", round, before, after);
        if (round == 1)
            CHECK(after >= before - 16);            /* a leak would be 8 x 170 pages */
    }
    return 1;
}

/* A nohz task (its tick stopped) writes 256 fresh pages: each is zeroed
 * in its fault, and the tick neither runs nor restarts meanwhile. */
static int a_nohz_task_zero_fills_without_its_tick(void)
{
    if (access("/proc/self/nohz", F_OK) != 0) {
        ktap_skip_reason = "no /proc/self/nohz (not nohzk)";
        printf("# skipped: %s\n", ktap_skip_reason);
        return 1;
    }
    int cpu = (int)sysconf(_SC_NPROCESSORS_ONLN) - 1;
    CHECK(cpu >= 1);
    char *map = fresh(256, PROT_READ | PROT_WRITE);
    CHECK(map);
    struct tick_row before, after;
    CHECK(pin_to_cpu(0, cpu) == 0 && write_nohz(0, "1") == 0);
    CHECK(spin_until_own_tick_stopped(cpu, &before));
    vmstat("zero_page_faults");
    long faults = vmstat("zero_page_faults");
    for (long i = 0; i < 256; i++)
        map[i * PAGE] = 'c';
    long zero_faults = vmstat("zero_page_faults") - faults;
    CHECK(tick_row_read(cpu, &after) == 1);
    printf("# nohz task on cpu %d: %ld zero-page faults; ticks %lu -> %lu, restarts %lu -> %lu, now %s\n", cpu,
           zero_faults, before.ticks, after.ticks, before.restarts, after.restarts, after.state);
    CHECK(zero_faults == 256);
    CHECK(after.ticks == before.ticks && after.restarts == before.restarts && !strcmp(after.state, "stopped"));
    return 1;
}

/* mlockall's flag rules are Linux's: none, an unknown bit, or
 * MCL_ONFAULT alone are EINVAL. */
static int mlockall_refuses_bad_flags(void)
{
    CHECK(mlockall(0) == -1 && errno == EINVAL);
    CHECK(mlockall(8) == -1 && errno == EINVAL);
    CHECK(mlockall(MCL_ONFAULT) == -1 && errno == EINVAL);
    CHECK(munlockall() == 0);
    return 1;
}

/* What a nohz task about to run alone asks for: after
 * mlockall(MCL_CURRENT | MCL_FUTURE) no write takes a zero-page fault,
 * not to its old memory nor to memory mapped later; after munlockall a
 * fresh mapping is lazy again; MCL_CURRENT alone gives the pages mapped
 * so far their own. */
#define LOCKED_PAGES 16
static int mlockall_leaves_no_fault_to_come(void)
{
    if (mlockall(MCL_CURRENT | MCL_FUTURE) != 0) {
        CHECK(errno == EPERM || errno == ENOMEM);    /* Linux without CAP_IPC_LOCK or the limit */
        ktap_skip_reason = "mlockall refused here (RLIMIT_MEMLOCK)";
        return 1;
    }
    int counting = counters_here();
    long faults = counting ? vmstat("zero_page_faults") : 0;
    char *locked = fresh(LOCKED_PAGES, PROT_READ | PROT_WRITE);
    CHECK(locked && all_zero(locked, LOCKED_PAGES * PAGE));
    for (int i = 0; i < LOCKED_PAGES; i++)
        locked[i * PAGE] = 1;
    if (counting)
        CHECK(vmstat("zero_page_faults") - faults == 0);
    CHECK(munlockall() == 0);

    faults = counting ? vmstat("zero_page_faults") : 0;
    char *lazy = fresh(LOCKED_PAGES, PROT_READ | PROT_WRITE);
    CHECK(lazy && all_zero(lazy, LOCKED_PAGES * PAGE));
    for (int i = 0; i < LOCKED_PAGES; i++)
        lazy[i * PAGE] = 1;
    if (counting)
        CHECK(vmstat("zero_page_faults") - faults == LOCKED_PAGES);

    char *read_so_far = fresh(LOCKED_PAGES, PROT_READ | PROT_WRITE);
    CHECK(read_so_far && all_zero(read_so_far, LOCKED_PAGES * PAGE));
    faults = counting ? vmstat("zero_page_faults") : 0;
    CHECK(mlockall(MCL_CURRENT) == 0);
    long after_lock = counting ? vmstat("zero_page_faults") : 0;
    if (counting)
        CHECK(after_lock - faults >= LOCKED_PAGES);
    for (int i = 0; i < LOCKED_PAGES; i++)
        read_so_far[i * PAGE] = 1;
    if (counting)
        CHECK(vmstat("zero_page_faults") - after_lock == 0);
    CHECK(all_zero(read_so_far + 1, PAGE - 1));
    return 1;
}

int main(void)
{
    static const struct ktap_case cases[] = {
        KTAP_CASE(mmap_and_reads_zero_no_page),
        KTAP_CASE(ten_writes_zero_ten_pages),
        KTAP_CASE(a_child_write_leaves_the_parent_zeros),
        KTAP_CASE(mprotect_read_only_then_back),
        KTAP_CASE(munmap_gives_every_page_back),
        KTAP_CASE(prot_none_opened_later_faults_in),
        KTAP_CASE(brk_growth_is_lazy),
        KTAP_CASE(read_from_a_pipe_into_a_fresh_buffer),
        KTAP_CASE(enormous_mappings_are_refused),
        KTAP_CASE(map_fixed_over_a_lazy_range),
        KTAP_CASE(mprotect_across_a_hole),
        KTAP_CASE(forks_of_lazy_mappings_leak_nothing),
        KTAP_CASE(a_nohz_task_zero_fills_without_its_tick),
        KTAP_CASE(mlockall_refuses_bad_flags),
        KTAP_CASE(mlockall_leaves_no_fault_to_come),
    };
    return ktap_main_each_in_a_child(cases, sizeof(cases) / sizeof(cases[0]));
}
