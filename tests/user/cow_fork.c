/* Copy-on-write fork: what each side sees after a fork, and, on nohzk,
 * what was copied (the counts of /proc/vmstat: fork_pages_copied,
 * cow_pages_copied, ...). On Linux those lines are missing and the
 * counting cases are skipped; the behaviour checks run on both. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktap.h"
#include "proc_counters.h"
#include "../../user/lib/nohz.h"
#include "../../user/lib/pin.h"

#define PAGE 4096l
#define BIG (16l * 1024 * 1024)      /* 4096 pages: the counts tell a copy, the size need not */
#define BIG_PAGES (BIG / PAGE)

/* nohzk's counters are there (not on Linux): else the case skips. */
static int counters_here(void)
{
    if (vmstat_value("cow_pages_copied") >= 0)
        return 1;
    ktap_skip_reason = "no copy-on-write counters in /proc/vmstat (not nohzk)";
    printf("# skipped: %s\n", ktap_skip_reason);      /* a case's child cannot tell ktap_run */
    return 0;
}

/* The counts are the whole machine's: a child measures once its parent
 * sleeps in waitpid, its own copies after the fork made. 0 after 5 s. */
static int wait_until_parent_sleeps(void)
{
    char path[64], text[512];
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)getppid());
    for (int tries = 0; tries < 500; tries++) {
        int fd = open(path, O_RDONLY);
        long got = fd < 0 ? -1 : read(fd, text, sizeof(text) - 1);
        if (fd >= 0)
            close(fd);
        if (got > 0) {
            text[got] = '\0';
            char *end = strrchr(text, ')');
            if (end && end[1] == ' ' && end[2] == 'S')
                return 1;
        }
        usleep(10000);
    }
    return 0;
}

static char *big_mapping(char fill)
{
    char *map = mmap(0, BIG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED)
        return 0;
    for (long i = 0; i < BIG; i += PAGE)
        map[i] = fill;
    return map;
}

static int child_status_ok(pid_t child)
{
    int status;
    return child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static int child_writes_do_not_show_in_the_parent(void)
{
    char *map = big_mapping('p');
    CHECK(map);
    pid_t child = fork();
    if (child == 0) {
        for (long i = 0; i < BIG; i += 16 * PAGE)
            map[i] = 'c';
        _exit(map[0] == 'c' && map[BIG - 16 * PAGE] == 'c' && map[PAGE] == 'p' ? 0 : 1);
    }
    CHECK(child_status_ok(child));
    for (long i = 0; i < BIG; i += PAGE)
        CHECK(map[i] == 'p');
    munmap(map, BIG);
    return 1;
}

static int parent_writes_after_fork_do_not_show_in_the_child(void)
{
    char *map = big_mapping('p');
    int go[2];
    CHECK(map && pipe(go) == 0);
    pid_t child = fork();
    if (child == 0) {
        char c;
        close(go[1]);
        if (read(go[0], &c, 1) != 1)
            _exit(2);
        for (long i = 0; i < BIG; i += PAGE)
            if (map[i] != 'p')
                _exit(1);
        _exit(0);
    }
    close(go[0]);
    for (long i = 0; i < BIG; i += 2 * PAGE)
        map[i] = 'P';
    CHECK(write(go[1], "x", 1) == 1);
    close(go[1]);
    CHECK(child_status_ok(child));
    CHECK(map[0] == 'P' && map[PAGE] == 'p');
    munmap(map, BIG);
    return 1;
}

/* The kernel writes into a shared page (read() into it): the copy is the
 * reader's alone. */
static int a_read_system_call_into_a_shared_buffer_is_private(void)
{
    char *map = big_mapping('p');
    int data[2];
    CHECK(map && pipe(data) == 0);
    memset(map + PAGE - 3, 'p', 6);
    CHECK(write(data[1], "kernel", 6) == 6);
    pid_t child = fork();
    if (child == 0)
        _exit(read(data[0], map + PAGE - 3, 6) == 6 && memcmp(map + PAGE - 3, "kernel", 6) == 0 ? 0 : 1);
    CHECK(child_status_ok(child));
    CHECK(map[PAGE - 3] == 'p' && map[PAGE + 2] == 'p');
    close(data[0]);
    close(data[1]);
    munmap(map, BIG);
    return 1;
}

/* The parent changes its mapping right after the fork: the child keeps
 * its own view (and the counts stay right: see the leak case). */
static int parent_mprotect_and_munmap_after_fork(void)
{
    char *map = big_mapping('p');
    int go[2];
    CHECK(map && pipe(go) == 0);
    pid_t child = fork();
    if (child == 0) {
        char c;
        close(go[1]);
        if (read(go[0], &c, 1) != 1)
            _exit(2);
        map[0] = 'c';
        _exit(map[BIG / 2] == 'p' && map[BIG - PAGE] == 'p' && map[0] == 'c' ? 0 : 1);
    }
    close(go[0]);
    CHECK(mprotect(map, BIG / 2, PROT_READ) == 0);
    CHECK(munmap(map + BIG / 2, BIG / 2) == 0);
    CHECK(mprotect(map, BIG / 2, PROT_READ | PROT_WRITE) == 0);
    map[0] = 'P';
    CHECK(write(go[1], "x", 1) == 1);
    close(go[1]);
    CHECK(child_status_ok(child));
    CHECK(map[0] == 'P' && map[PAGE] == 'p');
    munmap(map, BIG / 2);
    return 1;
}

/* The parent exits while its child still shares its pages. */
static int the_child_outlives_its_parent(void)
{
    char *map = big_mapping('p');
    int result[2];
    CHECK(map && pipe(result) == 0);
    pid_t middle = fork();
    if (middle == 0) {
        if (fork() == 0) {
            usleep(20000);
            map[0] = 'g';
            char ok = map[0] == 'g' && map[BIG - PAGE] == 'p' ? 'y' : 'n';
            _exit(write(result[1], &ok, 1) == 1 ? 0 : 1);
        }
        map[PAGE] = 'm';
        _exit(0);
    }
    close(result[1]);
    CHECK(child_status_ok(middle));
    char ok = 0;
    CHECK(read(result[0], &ok, 1) == 1 && ok == 'y');
    close(result[0]);
    CHECK(map[0] == 'p' && map[PAGE] == 'p');
    munmap(map, BIG);
    return 1;
}

static int vfork_then_exec(void)
{
    char *argv[] = { "true", 0 };
    pid_t child = vfork();
    if (child == 0) {
        execve("/bin/true", argv, environ);
        _exit(127);
    }
    CHECK(child_status_ok(child));
    return 1;
}

/* A fork copies the page tables, never the data. */
static int fork_copies_tables_not_data(void)
{
    char *map = big_mapping('p');
    CHECK(map);
    if (!counters_here())
        return 1;
    long copied = vmstat_value("fork_pages_copied"), tables = vmstat_value("fork_table_pages");
    long shared = vmstat_value("fork_pages_shared");
    pid_t child = fork();
    if (child == 0)
        _exit(0);
    CHECK(child_status_ok(child));
    long copied_now = vmstat_value("fork_pages_copied"), tables_now = vmstat_value("fork_table_pages");
    long shared_now = vmstat_value("fork_pages_shared");
    printf("# fork: %ld pages copied, %ld table pages, %ld shared\n", copied_now - copied, tables_now - tables,
           shared_now - shared);
    CHECK(copied_now == copied);
    CHECK(shared_now - shared >= BIG_PAGES);
    CHECK(tables_now - tables < BIG_PAGES / 100);   /* 16 MiB takes 8 page tables */
    munmap(map, BIG);
    return 1;
}

/* In a child: one write copies one page, a read copies none. */
static int one_write_copies_one_page_and_a_read_none(void)
{
    char *map = big_mapping('p');
    CHECK(map);
    if (!counters_here())
        return 1;
    pid_t child = fork();
    if (child == 0) {
        if (!wait_until_parent_sleeps())
            _exit(3);
        vmstat_value("cow_faults");                 /* its buffer and stack are the child's now */
        long faults = vmstat_value("cow_faults"), copied = vmstat_value("cow_pages_copied");
        long sum = 0;
        for (long i = 0; i < BIG; i += PAGE)
            sum += map[i];
        long read_faults = vmstat_value("cow_faults") - faults;
        long read_copies = vmstat_value("cow_pages_copied") - copied;
        faults = vmstat_value("cow_faults");
        copied = vmstat_value("cow_pages_copied");
        map[BIG / 2] = 'c';
        long write_faults = vmstat_value("cow_faults") - faults;
        long write_copies = vmstat_value("cow_pages_copied") - copied;
        printf("# child: read of %ld pages: %ld faults, %ld copies; one write: %ld faults, %ld copies\n",
               BIG_PAGES, read_faults, read_copies, write_faults, write_copies);
        fflush(stdout);
        _exit(sum == 'p' * BIG_PAGES && read_faults == 0 && read_copies == 0 && write_faults == 1 &&
                      write_copies == 1
                  ? 0
                  : 1);
    }
    CHECK(child_status_ok(child));
    CHECK(map[BIG / 2] == 'p');
    munmap(map, BIG);
    return 1;
}

/* Once the child is gone, the parent is the last sharer: its write takes
 * the page over, no copy. */
static int the_last_sharer_writes_without_copying(void)
{
    char *map = big_mapping('p');
    CHECK(map);
    if (!counters_here())
        return 1;
    pid_t child = fork();
    if (child == 0)
        _exit(0);
    CHECK(child_status_ok(child));
    vmstat_value("cow_pages_reused");               /* takes its own buffer over first */
    long copied = vmstat_value("cow_pages_copied"), reused = vmstat_value("cow_pages_reused");
    map[3 * PAGE] = 'P';
    CHECK(vmstat_value("cow_pages_copied") == copied);
    CHECK(vmstat_value("cow_pages_reused") == reused + 1);
    munmap(map, BIG);
    return 1;
}

/* Forks of a 16 MiB mapping whose children write and exit give every
 * page back. */
static int fork_loop_leaks_no_page(void)
{
    char *map = big_mapping('p');
    CHECK(map);
    if (!counters_here())
        return 1;
    for (int round = 0; round < 2; round++) {       /* round 0 warms the heap up */
        long before = vmstat_value("nr_free_pages");
        for (int i = 0; i < 10; i++) {
            pid_t child = fork();
            if (child == 0) {
                for (long j = 0; j < 8; j++)
                    map[j * 97 * PAGE] = 'c';
                _exit(0);
            }
            CHECK(child_status_ok(child));
        }
        long after = vmstat_value("nr_free_pages");
        printf("# round %d: %ld free pages before, %ld after\n", round, before, after);
        if (round == 1)
            CHECK(after >= before - 4);     /* a leak would be 80 pages */
    }
    munmap(map, BIG);
    return 1;
}

/* Sharers on different CPUs: two forking parents, each moving from CPU
 * to CPU, write their own tag into pages they share with children that
 * write theirs, change the rights of the shared pages, map fresh pages
 * over them (which unmaps them) or are killed. Each side must only ever read its own tag: a write reaching a
 * page still shared, or a stale translation on a CPU, would show. */
#define SHARED_PAGES 64
#define SHARED_FORKS 60

static void write_tag(volatile long *pages, long tag)
{
    for (long p = 0; p < SHARED_PAGES; p++)
        pages[p * (PAGE / 8)] = tag;
}

static int all_tagged(volatile long *pages, long tag)
{
    for (long p = 0; p < SHARED_PAGES; p++)
        if (pages[p * (PAGE / 8)] != tag)
            return 0;
    return 1;
}

static void child_games(volatile long *pages, int cpus)
{
    unsigned x = (unsigned)getpid() * 2654435761u;
    for (int round = 0; round < 20; round++) {
        x = x * 1103515245 + 12345;
        long first = (x >> 8) % SHARED_PAGES, count = 1 + (x >> 20) % 8;
        if (first + count > SHARED_PAGES)
            count = SHARED_PAGES - first;
        void *start = (void *)(pages + first * (PAGE / 8));
        switch ((x >> 16) % 4) {
        case 0: mprotect(start, count * PAGE, PROT_READ); break;
        case 1:
            if (mprotect(start, count * PAGE, PROT_READ | PROT_WRITE) == 0)
                pages[first * (PAGE / 8)] = -1;
            break;
        /* Fresh pages over old ones, not a munmap: a hole in the range
         * could be handed to the C library's malloc by a later mmap, and
         * the next round's mprotect would then make malloc's memory
         * read-only (Linux reuses holes; seen as SIGSEGVs in malloc). */
        case 2:
            mmap(start, count * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
            break;
        default: set_affinity_range(0, round % cpus, round % cpus);
        }
    }
}

static int fork_and_check(volatile long *pages, int cpus)
{
    long tag = getpid();
    write_tag(pages, tag);
    for (int i = 0; i < SHARED_FORKS; i++) {
        pid_t child = fork();
        if (child == 0) {
            if (i % 2)
                child_games(pages, cpus);
            long own = getpid();
            for (int round = 0; round < 8; round++) {
                set_affinity_range(0, round % cpus, round % cpus);
                if (i % 2 == 0 && round && !all_tagged(pages, own))
                    _exit(1);
                if (i % 2 == 0)
                    write_tag(pages, own);
            }
            _exit(0);
        }
        if (child < 0)
            return 0;
        if (i % 5 == 4)
            kill(child, SIGKILL);
        for (int round = 0; round < 8; round++) {
            set_affinity_range(0, (round + 1) % cpus, (round + 1) % cpus);
            if (!all_tagged(pages, tag))
                return 0;
            write_tag(pages, tag);
        }
        int status;
        if (waitpid(child, &status, 0) != child || (WIFEXITED(status) && WEXITSTATUS(status) != 0) ||
            (WIFSIGNALED(status) && WTERMSIG(status) != SIGKILL))
            return 0;
    }
    return all_tagged(pages, tag);
}

static int sharers_on_every_cpu_keep_their_own_data(void)
{
    int cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
    CHECK(cpus >= 1);
    volatile long *pages = mmap(0, SHARED_PAGES * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(pages != MAP_FAILED);
    pid_t other = fork();
    if (other == 0)
        _exit(fork_and_check(pages, cpus) ? 0 : 1);
    int here = fork_and_check(pages, cpus);
    CHECK(child_status_ok(other));
    CHECK(here);
    return 1;
}

/* A nohz task (its tick stopped) writes 256 shared pages: each is copied
 * in its fault, and the tick neither runs nor restarts meanwhile. */
static int a_nohz_task_copies_without_its_tick(void)
{
    if (access("/proc/self/nohz", F_OK) != 0) {
        ktap_skip_reason = "no /proc/self/nohz (not nohzk)";
        printf("# skipped: %s\n", ktap_skip_reason);
        return 1;
    }
    int cpu = (int)sysconf(_SC_NPROCESSORS_ONLN) - 1;
    CHECK(cpu >= 1);
    char *map = mmap(0, 256 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(map != MAP_FAILED);
    memset(map, 'p', 256 * PAGE);
    pid_t child = fork();
    if (child == 0) {
        struct tick_row before, after;
        if (pin_to_cpu(0, cpu) != 0 || write_nohz(0, "1") != 0)
            _exit(9);
        if (!spin_until_own_tick_stopped(cpu, &before))
            _exit(10);
        if (!wait_until_parent_sleeps())
            _exit(12);
        vmstat_value("cow_pages_copied");
        long copied = vmstat_value("cow_pages_copied");
        for (long i = 0; i < 256; i++)
            map[i * PAGE] = 'c';
        long copies = vmstat_value("cow_pages_copied") - copied;
        if (tick_row_read(cpu, &after) != 1)
            _exit(11);
        printf("# nohz task on cpu %d: %ld copies; ticks %lu -> %lu, restarts %lu -> %lu, now %s\n", cpu, copies,
               before.ticks, after.ticks, before.restarts, after.restarts, after.state);
        fflush(stdout);
        int quiet = after.ticks == before.ticks && after.restarts == before.restarts && !strcmp(after.state, "stopped");
        _exit(copies == 256 && quiet ? 0 : 1);
    }
    CHECK(child_status_ok(child));
    CHECK(map[0] == 'p' && map[255 * PAGE] == 'p');
    munmap(map, 256 * PAGE);
    return 1;
}

int main(void)
{
    static const struct ktap_case cases[] = {
        KTAP_CASE(child_writes_do_not_show_in_the_parent),
        KTAP_CASE(parent_writes_after_fork_do_not_show_in_the_child),
        KTAP_CASE(a_read_system_call_into_a_shared_buffer_is_private),
        KTAP_CASE(parent_mprotect_and_munmap_after_fork),
        KTAP_CASE(the_child_outlives_its_parent),
        KTAP_CASE(vfork_then_exec),
        KTAP_CASE(fork_copies_tables_not_data),
        KTAP_CASE(one_write_copies_one_page_and_a_read_none),
        KTAP_CASE(the_last_sharer_writes_without_copying),
        KTAP_CASE(fork_loop_leaks_no_page),
        KTAP_CASE(sharers_on_every_cpu_keep_their_own_data),
        KTAP_CASE(a_nohz_task_copies_without_its_tick),
    };
    return ktap_main_each_in_a_child(cases, sizeof(cases) / sizeof(cases[0]));
}
