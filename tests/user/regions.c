/* regions: the memory regions of an address space (Linux's VMAs) as a
 * program sees them: /proc/self/maps, the splits and merges of mprotect,
 * munmap and MAP_FIXED, the faults a region decides (PROT_NONE is
 * SEGV_ACCERR, outside every region SEGV_MAPERR), mprotect's ENOMEM over
 * a hole, fork's copy, and the races of a sibling thread. Runs on the
 * Linux host (host-regions.*) and on nohzk (scenarios regions,
 * regions-glibc); see docs/memory.md, section 6. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktap.h"
#include "testlib.h"

#define PAGE 4096ul
#define FUTEX_WAIT 0
#define FUTEX_WAKE 1
#define FUTEX_WAKE_PRIVATE (FUTEX_WAKE | 128)
#define ANONYMOUS (MAP_PRIVATE | MAP_ANONYMOUS)

static char maps[65536];

static int read_maps(void)
{
    int fd = open("/proc/self/maps", O_RDONLY);
    if (fd < 0)
        return 0;
    size_t used = 0;
    long got;
    while (used < sizeof(maps) - 1 && (got = read(fd, maps + used, sizeof(maps) - 1 - used)) > 0)
        used += (size_t)got;
    maps[used] = '\0';
    close(fd);
    return used > 0;
}

/* The line of maps holding address: its range and rights ("rw-p"). */
static int region_of(const void *address, unsigned long *start, unsigned long *end, char perms[5])
{
    if (!read_maps())
        return 0;
    for (char *line = maps; *line;) {
        unsigned long s, e;
        char p[5] = "";
        if (sscanf(line, "%lx-%lx %4s", &s, &e, p) == 3 && s <= (unsigned long)address &&
            (unsigned long)address < e) {
            *start = s, *end = e;
            memcpy(perms, p, 5);
            return 1;
        }
        char *next = strchr(line, '\n');
        if (!next)
            break;
        line = next + 1;
    }
    return 0;
}

/* Every line well formed, sorted, none overlapping. */
static int maps_well_formed(void)
{
    if (!read_maps())
        return 0;
    unsigned long last_end = 0;
    for (char *line = maps; *line;) {
        unsigned long s, e;
        char p[5] = "";
        if (sscanf(line, "%lx-%lx %4s", &s, &e, p) != 3 || s >= e || s < last_end || s % PAGE || e % PAGE ||
            strlen(p) != 4)
            return 0;
        last_end = e;
        char *next = strchr(line, '\n');
        if (!next)
            break;
        line = next + 1;
    }
    return 1;
}

#define EXPECT_REGION(address, want_start, want_end, want_perms)                                   \
    do {                                                                                           \
        unsigned long s_ = 0, e_ = 0;                                                              \
        char p_[5] = "";                                                                           \
        EXPECT(region_of((address), &s_, &e_, p_));                                                \
        EXPECT_VALUE(s_, (unsigned long)(want_start));                                            \
        EXPECT_VALUE(e_, (unsigned long)(want_end));                                              \
        EXPECT(strcmp(p_, (want_perms)) == 0);                                                     \
    } while (0)

#define EXPECT(condition) CHECK(condition)
#define EXPECT_VALUE(got, want)                                                                    \
    do {                                                                                           \
        long got_ = (long)(got), want_ = (long)(want);                                             \
        if (got_ != want_) {                                                                       \
            printf("# %s:%d: %s is %ld (%#lx), want %ld (%#lx)\n", __FILE__, __LINE__, #got, got_, \
                   got_, want_, want_);                                                           \
            return 0;                                                                              \
        }                                                                                          \
    } while (0)
#define EXPECT_ERROR(call, want_errno)                                                             \
    do {                                                                                           \
        long r_ = (long)(call);                                                                    \
        int e_ = errno;                                                                            \
        if (r_ != -1 || e_ != (want_errno)) {                                                      \
            printf("# %s:%d: %s gave %ld errno %d, want -1 errno %d\n", __FILE__, __LINE__, #call, \
                   r_, e_, (want_errno));                                                          \
            return 0;                                                                              \
        }                                                                                          \
    } while (0)

/* pages of prot between two r-x guard pages: Linux merges a mapping
 * with a neighbour that matches, and the cases check exact boundaries. */
static char *map_pages(unsigned long pages, int prot)
{
    char *address = mmap(NULL, (pages + 2) * PAGE, PROT_READ | PROT_EXEC, ANONYMOUS, -1, 0);
    if (address == MAP_FAILED || mprotect(address + PAGE, pages * PAGE, prot))
        return NULL;
    return address + PAGE;
}

/* ---- faults: the child touches a page and exits 10 + si_code ---- */

static volatile char *touch_address;
static int touch_write;

static void segv_code_exit(int signal, siginfo_t *info, void *context)
{
    (void)signal, (void)context;
    _exit(10 + info->si_code);
}

static void touch(void)
{
    set_siginfo_handler(SIGSEGV, segv_code_exit, 0);
    if (touch_write)
        *touch_address = 1;
    else
        (void)*touch_address;
}

/* 0: the touch worked; 10 + si_code: SIGSEGV with that code. */
static int touch_result(volatile char *address, int write)
{
    touch_address = address, touch_write = write;
    int status = status_of_child(touch);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

#define TOUCH_OK 0
#define TOUCH_MAPERR (10 + SEGV_MAPERR)
#define TOUCH_ACCERR (10 + SEGV_ACCERR)

/* ---- cases ---- */

static int a_mapping_is_one_line_of_maps(void)
{
    char *pages = map_pages(3, PROT_READ | PROT_WRITE);
    EXPECT(pages);
    EXPECT_REGION(pages + PAGE, pages, pages + 3 * PAGE, "rw-p");
    EXPECT(maps_well_formed());
    EXPECT(strstr(maps, "[stack]"));
    munmap(pages, 3 * PAGE);
    return 1;
}

static int mprotect_in_the_middle_splits_and_back_merges(void)
{
    char *pages = map_pages(3, PROT_READ | PROT_WRITE);
    EXPECT(pages);
    pages[0] = 1, pages[PAGE] = 2, pages[2 * PAGE] = 3;
    EXPECT_VALUE(mprotect(pages + PAGE, PAGE, PROT_READ), 0);
    EXPECT_REGION(pages, pages, pages + PAGE, "rw-p");
    EXPECT_REGION(pages + PAGE, pages + PAGE, pages + 2 * PAGE, "r--p");
    EXPECT_REGION(pages + 2 * PAGE, pages + 2 * PAGE, pages + 3 * PAGE, "rw-p");
    EXPECT_VALUE(touch_result(pages + PAGE, 1), TOUCH_ACCERR);
    EXPECT_VALUE(mprotect(pages + PAGE, PAGE, PROT_READ | PROT_WRITE), 0);
    EXPECT_REGION(pages + PAGE, pages, pages + 3 * PAGE, "rw-p");
    EXPECT_VALUE(pages[0] + pages[PAGE] + pages[2 * PAGE], 6);
    munmap(pages, 3 * PAGE);
    return 1;
}

static int munmap_of_the_middle_leaves_two(void)
{
    char *pages = map_pages(3, PROT_READ | PROT_WRITE);
    EXPECT(pages);
    pages[0] = 1, pages[2 * PAGE] = 3;
    EXPECT_VALUE(munmap(pages + PAGE, PAGE), 0);
    EXPECT_REGION(pages, pages, pages + PAGE, "rw-p");
    EXPECT_REGION(pages + 2 * PAGE, pages + 2 * PAGE, pages + 3 * PAGE, "rw-p");
    unsigned long s, e;
    char p[5];
    EXPECT(!region_of(pages + PAGE, &s, &e, p));
    EXPECT_VALUE(touch_result(pages + PAGE, 0), TOUCH_MAPERR);
    EXPECT_VALUE(pages[0] + pages[2 * PAGE], 4);
    munmap(pages, 3 * PAGE);
    return 1;
}

static int prot_none_faults_with_accerr(void)
{
    char *pages = map_pages(2, PROT_NONE);
    EXPECT(pages);
    EXPECT_REGION(pages, pages, pages + 2 * PAGE, "---p");
    EXPECT_VALUE(touch_result(pages, 0), TOUCH_ACCERR);
    EXPECT_VALUE(touch_result(pages + PAGE, 1), TOUCH_ACCERR);
    EXPECT_VALUE(mprotect(pages, 2 * PAGE, PROT_READ | PROT_WRITE), 0);
    EXPECT_VALUE(pages[PAGE + 7], 0);
    pages[PAGE + 7] = 9;
    EXPECT_VALUE(pages[PAGE + 7], 9);
    munmap(pages, 2 * PAGE);
    return 1;
}

/* A page written, closed with PROT_NONE, opened again: contents kept. */
static int mprotect_none_keeps_the_contents(void)
{
    char *pages = map_pages(1, PROT_READ | PROT_WRITE);
    EXPECT(pages);
    pages[5] = 42;
    EXPECT_VALUE(mprotect(pages, PAGE, PROT_NONE), 0);
    EXPECT_VALUE(touch_result(pages + 5, 0), TOUCH_ACCERR);
    EXPECT_VALUE(touch_result(pages + 5, 1), TOUCH_ACCERR);
    /* the kernel refuses to copy from it too */
    int fds[2];
    EXPECT_VALUE(pipe(fds), 0);
    EXPECT_ERROR(write(fds[1], pages, 8), EFAULT);
    close(fds[0]), close(fds[1]);
    EXPECT_VALUE(mprotect(pages, PAGE, PROT_READ), 0);
    EXPECT_VALUE(pages[5], 42);
    munmap(pages, PAGE);
    return 1;
}

/* Linux: a start outside every region is ENOMEM with nothing changed; a
 * hole later is ENOMEM after the regions before it changed. */
static int mprotect_over_a_hole_is_enomem(void)
{
    char *pages = map_pages(3, PROT_READ | PROT_WRITE);
    EXPECT(pages);
    EXPECT_VALUE(munmap(pages + PAGE, PAGE), 0);
    EXPECT_ERROR(mprotect(pages, 3 * PAGE, PROT_READ), ENOMEM);
    EXPECT_REGION(pages, pages, pages + PAGE, "r--p");
    EXPECT_REGION(pages + 2 * PAGE, pages + 2 * PAGE, pages + 3 * PAGE, "rw-p");
    EXPECT_ERROR(mprotect(pages + PAGE, 2 * PAGE, PROT_READ), ENOMEM);
    EXPECT_REGION(pages + 2 * PAGE, pages + 2 * PAGE, pages + 3 * PAGE, "rw-p");
    munmap(pages, 3 * PAGE);
    return 1;
}

static int map_fixed_over_part_of_a_mapping(void)
{
    char *pages = map_pages(4, PROT_READ | PROT_WRITE);
    EXPECT(pages);
    memset(pages, 7, 4 * PAGE);
    char *fixed = mmap(pages + PAGE, 2 * PAGE, PROT_READ, ANONYMOUS | MAP_FIXED, -1, 0);
    EXPECT(fixed == pages + PAGE);
    EXPECT_REGION(pages, pages, pages + PAGE, "rw-p");
    EXPECT_REGION(pages + PAGE, pages + PAGE, pages + 3 * PAGE, "r--p");
    EXPECT_REGION(pages + 3 * PAGE, pages + 3 * PAGE, pages + 4 * PAGE, "rw-p");
    EXPECT_VALUE(pages[0], 7);
    EXPECT_VALUE(pages[PAGE], 0);
    EXPECT_VALUE(pages[3 * PAGE], 7);
    EXPECT_VALUE(touch_result(pages + 2 * PAGE, 1), TOUCH_ACCERR);
    munmap(pages, 4 * PAGE);
    return 1;
}

/* A hint inside a mapping is not taken: the new one goes elsewhere, and
 * the old one is untouched. */
static int a_busy_hint_is_not_taken(void)
{
    char *pages = map_pages(2, PROT_READ | PROT_WRITE);
    EXPECT(pages);
    pages[PAGE] = 3;
    char *other = mmap(pages + PAGE, PAGE, PROT_READ | PROT_WRITE, ANONYMOUS, -1, 0);
    EXPECT(other != MAP_FAILED);
    EXPECT(other + PAGE <= pages || other >= pages + 2 * PAGE);
    EXPECT_VALUE(pages[PAGE], 3);
    munmap(other, PAGE);
    munmap(pages, 2 * PAGE);
    return 1;
}

/* Bad arguments change nothing. */
static int bad_ranges_are_refused(void)
{
    char *pages = map_pages(1, PROT_READ | PROT_WRITE);
    EXPECT(pages);
    EXPECT_VALUE(syscall(SYS_mprotect, pages, 0, PROT_NONE), 0);
    EXPECT_ERROR(syscall(SYS_mprotect, pages + 1, PAGE, PROT_NONE), EINVAL);
    EXPECT_ERROR(syscall(SYS_mprotect, pages, -PAGE, PROT_NONE), ENOMEM);
    EXPECT_ERROR(syscall(SYS_mprotect, (void *)0xffff800000000000ul, PAGE, PROT_NONE), ENOMEM);
    EXPECT_ERROR(syscall(SYS_mprotect, (void *)0x0000900000000000ul, PAGE, PROT_NONE), ENOMEM);
    EXPECT_ERROR(syscall(SYS_munmap, pages + 1, PAGE), EINVAL);
    EXPECT_ERROR(syscall(SYS_munmap, pages, 0), EINVAL);
    EXPECT_ERROR(syscall(SYS_munmap, (void *)0xffff800000000000ul, PAGE), EINVAL);
    EXPECT_ERROR(syscall(SYS_mmap, (void *)0x0000900000000000ul, PAGE, PROT_READ, ANONYMOUS | MAP_FIXED, -1, 0),
                 ENOMEM);
    EXPECT_ERROR(syscall(SYS_mmap, NULL, (1ul << 47) + PAGE, PROT_READ, ANONYMOUS, -1, 0), ENOMEM);
    EXPECT_REGION(pages, pages, pages + PAGE, "rw-p");
    pages[0] = 1;
    munmap(pages, PAGE);
    return 1;
}

/* MAP_FIXED over the stack's own unused part is allowed (the program
 * asked for it) and leaves the rest of the stack working; over the top of
 * the break, and a shrink of the break takes that mapping with it. */
static void fixed_over_the_stack_below(void)
{
    char here;
    char *below = (char *)(((unsigned long)&here & ~(PAGE - 1)) - 64 * PAGE);
    if (mmap(below, PAGE, PROT_READ | PROT_WRITE, ANONYMOUS | MAP_FIXED, -1, 0) != below)
        _exit(1);
    below[0] = 5;
    volatile char stack_use[2048];
    memset((char *)stack_use, 1, sizeof(stack_use));
    _exit(below[0] == 5 && stack_use[100] == 1 ? 0 : 2);
}

static int map_fixed_over_the_stack_and_heap(void)
{
    EXPECT(exited_with(status_of_child(fixed_over_the_stack_below), 0));
    /* the heap: grow, map over its top, shrink over the mapping */
    char *base = (char *)syscall(SYS_brk, 0);   /* raw: musl's brk() always fails */
    char *top = (char *)(((unsigned long)base + 3 * PAGE) & ~(PAGE - 1));
    EXPECT(syscall(SYS_brk, top) == (long)top);
    char *fixed = mmap(top - PAGE, PAGE, PROT_READ, ANONYMOUS | MAP_FIXED, -1, 0);
    EXPECT(fixed == top - PAGE);
    EXPECT_VALUE(touch_result(top - PAGE, 1), TOUCH_ACCERR);
    EXPECT(syscall(SYS_brk, base) == (long)base);  /* the shrink takes the range, the mapping with it */
    unsigned long s, e;
    char p[5];
    EXPECT(!region_of(top - PAGE, &s, &e, p));
    return 1;
}

static void fork_child_sees_the_same_regions(void)
{
    char *pages = (char *)touch_address;
    unsigned long s, e;
    char p[5];
    if (!region_of(pages + PAGE, &s, &e, p) || s != (unsigned long)pages + PAGE || strcmp(p, "---p"))
        _exit(1);
    if (!region_of(pages, &s, &e, p) || strcmp(p, "rw-p") || pages[0] != 4)
        _exit(2);
    _exit(0);
}

static int fork_copies_the_regions(void)
{
    char *pages = map_pages(2, PROT_READ | PROT_WRITE);
    EXPECT(pages);
    pages[0] = 4;
    EXPECT_VALUE(mprotect(pages + PAGE, PAGE, PROT_NONE), 0);
    touch_address = pages;
    EXPECT(exited_with(status_of_child(fork_child_sees_the_same_regions), 0));
    EXPECT_VALUE(touch_result(pages + PAGE, 0), TOUCH_ACCERR);     /* in a forked child too */
    munmap(pages, 2 * PAGE);
    return 1;
}

/* The glibc loader's way with a library: a PROT_READ reservation of the
 * whole file, MAP_FIXED pieces at their file offsets over it, an
 * mprotect of part, a PROT_NONE gap. Each piece is its own line with its
 * offset and the file's path; the bytes are the file's. */
static int loader_pattern_over_a_file(void)
{
    char path[256];
    long length = readlink("/proc/self/exe", path, sizeof(path) - 1);
    EXPECT(length > 0);
    path[length] = '\0';
    int fd = open(path, O_RDONLY);
    EXPECT(fd >= 0);
    char *base = mmap(NULL, 4 * PAGE, PROT_READ, MAP_PRIVATE, fd, 0);
    EXPECT(base != MAP_FAILED);
    char *piece = mmap(base + PAGE, 2 * PAGE, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED, fd, PAGE);
    EXPECT(piece == base + PAGE);
    EXPECT_VALUE(mprotect(base + 2 * PAGE, PAGE, PROT_READ | PROT_WRITE), 0);
    EXPECT_VALUE(mprotect(base + 3 * PAGE, PAGE, PROT_NONE), 0);
    char expected[16];
    EXPECT_VALUE(pread(fd, expected, sizeof(expected), 2 * PAGE + 100), (long)sizeof(expected));
    EXPECT(memcmp(base + 2 * PAGE + 100, expected, sizeof(expected)) == 0);
    EXPECT_REGION(base, base, base + PAGE, "r--p");
    EXPECT_REGION(base + PAGE, base + PAGE, base + 2 * PAGE, "r-xp");
    EXPECT_REGION(base + 2 * PAGE, base + 2 * PAGE, base + 3 * PAGE, "rw-p");
    EXPECT_REGION(base + 3 * PAGE, base + 3 * PAGE, base + 4 * PAGE, "---p");
    char line_start[64];
    snprintf(line_start, sizeof(line_start), "%08lx-%08lx r-xp 00001000 ", (unsigned long)(base + PAGE),
             (unsigned long)(base + 2 * PAGE));
    char *line = strstr(maps, line_start);
    EXPECT(line);
    char *end = strchr(line, '\n');
    EXPECT(end && end - line > (long)strlen(path) && strncmp(end - strlen(path), path, strlen(path)) == 0);
    EXPECT_VALUE(touch_result(base + 3 * PAGE, 0), TOUCH_ACCERR);
    base[2 * PAGE] = 1;     /* a private copy */
    close(fd);
    munmap(base, 4 * PAGE);
    return 1;
}

/* ---- MAP_SHARED anonymous memory ---- */

static volatile char *shared_page;

static void write_shared(void)
{
    shared_page[0] = 42;
    shared_page[PAGE] = 43;
}

/* Shared with a child: its writes show in the parent and the parent's
 * later writes in it, never copied; written both ways. */
static int shared_anonymous_is_shared_across_fork(void)
{
    shared_page = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    EXPECT(shared_page != MAP_FAILED);
    EXPECT_REGION((char *)shared_page, (char *)shared_page, (char *)shared_page + 2 * PAGE, "rw-s");
    shared_page[PAGE] = 1;      /* written before the fork too */
    EXPECT(exited_with(status_of_child(write_shared), 0));
    EXPECT_VALUE(shared_page[0], 42);
    EXPECT_VALUE(shared_page[PAGE], 43);
    EXPECT(exited_with(status_of_child(write_shared), 0));     /* and again, after a write of ours */
    munmap((void *)shared_page, 2 * PAGE);
    return 1;
}

static void open_and_write_shared(void)
{
    if (mprotect((void *)shared_page, PAGE, PROT_READ | PROT_WRITE))
        _exit(1);
    shared_page[0] = 7;
    _exit(0);
}

/* Read-only or PROT_NONE for a while, then opened again: still the same
 * pages, in a child that opens it too. */
static int shared_anonymous_survives_mprotect(void)
{
    shared_page = mmap(NULL, PAGE, PROT_NONE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    EXPECT(shared_page != MAP_FAILED);
    EXPECT_VALUE(touch_result(shared_page, 0), TOUCH_ACCERR);
    EXPECT(exited_with(status_of_child(open_and_write_shared), 0));
    EXPECT_VALUE(mprotect((void *)shared_page, PAGE, PROT_READ), 0);
    EXPECT_VALUE(shared_page[0], 7);
    EXPECT_VALUE(touch_result(shared_page, 1), TOUCH_ACCERR);
    munmap((void *)shared_page, PAGE);
    return 1;
}

static void unmap_then_write_shared(void)
{
    shared_page[1] = 5;
    munmap((void *)shared_page, PAGE);
    _exit(0);
}

/* /dev/zero shared is shared anonymous memory; the parent's pages stay
 * when the child unmaps its copy (freed only by the last holder). */
static int shared_dev_zero_is_shared(void)
{
    int fd = open("/dev/zero", O_RDWR);
    EXPECT(fd >= 0);
    shared_page = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    EXPECT(shared_page != MAP_FAILED);
    EXPECT_VALUE(shared_page[1], 0);
    EXPECT(exited_with(status_of_child(unmap_then_write_shared), 0));
    EXPECT_VALUE(shared_page[1], 5);
    munmap((void *)shared_page, PAGE);
    return 1;
}

/* A futex in shared memory joins two processes: the child waits (no
 * FUTEX_PRIVATE_FLAG), the parent wakes it; a private wake finds no one. */
static volatile uint32_t *shared_word;

static void wait_on_shared_word(void)
{
    shared_word[1] = 1;     /* about to wait */
    while (shared_word[0] == 0)
        syscall(SYS_futex, shared_word, FUTEX_WAIT, 0, NULL, NULL, 0);
    _exit(0);
}

/* The child waits on shared_word, the parent wakes it (a private wake
 * first, which must find no one). */
static int futex_joins_a_child(void)
{
    fflush(stdout);
    pid_t child = fork();
    if (child == 0)
        wait_on_shared_word();
    EXPECT(child > 0);
    while (!shared_word[1])
        sched_yield();
    for (int i = 0; i < 50; i++)
        sched_yield();      /* let it reach FUTEX_WAIT; a later wake is caught by the loop anyway */
    EXPECT_VALUE(syscall(SYS_futex, shared_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0), 0);
    shared_word[0] = 1;
    long woken = 0;
    for (int i = 0; i < 1000 && !woken; i++) {
        woken = syscall(SYS_futex, shared_word, FUTEX_WAKE, 1, NULL, NULL, 0);
        if (!woken)
            sched_yield();
        if (waitpid(child, NULL, WNOHANG) == child) {
            woken = -1;     /* it saw the word change before it slept */
            break;
        }
    }
    if (!woken)
        kill_and_reap(child);   /* asleep where no wake reaches */
    EXPECT(woken != 0);
    if (woken > 0)
        EXPECT(exited_with(wait_status(child), 0));
    return 1;
}

static int shared_futex_across_processes(void)
{
    shared_word = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    EXPECT(shared_word != MAP_FAILED);
    int result = futex_joins_a_child();
    munmap((void *)shared_word, PAGE);
    return result;
}

/* ---- MAP_SHARED files: the mapping is the file's own pages ---- */

static char shm_name[64];

/* A fresh shm_open() object of size bytes, read and write. */
static int shm_file(size_t size)
{
    snprintf(shm_name, sizeof(shm_name), "/regions-%d", (int)getpid());
    shm_unlink(shm_name);
    int fd = shm_open(shm_name, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd >= 0 && ftruncate(fd, (off_t)size) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* write() and the mapping see each other's bytes, a child's writes
 * through its inherited mapping reach the file, and a second mapping
 * finds them. */
static int shared_file_mapping_is_the_file(void)
{
    int fd = shm_file(2 * PAGE);
    EXPECT(fd >= 0);
    shared_page = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    EXPECT(shared_page != MAP_FAILED);
    EXPECT_REGION((char *)shared_page, (char *)shared_page, (char *)shared_page + 2 * PAGE, "rw-s");
    shared_page[5] = 'm';
    char byte = 0;
    EXPECT_VALUE(pread(fd, &byte, 1, 5), 1);
    EXPECT_VALUE(byte, 'm');
    EXPECT_VALUE(pwrite(fd, "w", 1, PAGE + 7), 1);
    EXPECT_VALUE(shared_page[PAGE + 7], 'w');
    EXPECT(exited_with(status_of_child(write_shared), 0));
    EXPECT_VALUE(pread(fd, &byte, 1, PAGE), 1);
    EXPECT_VALUE(byte, 43);
    munmap((void *)shared_page, 2 * PAGE);
    char *again = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, 0);
    EXPECT(again != MAP_FAILED);
    EXPECT_VALUE(again[0], 42);
    munmap(again, PAGE);
    close(fd);
    EXPECT_VALUE(shm_unlink(shm_name), 0);
    return 1;
}

/* Two processes meet on a futex in a shm_open() object. */
static int shared_futex_in_a_shm_object(void)
{
    int fd = shm_file(PAGE);
    EXPECT(fd >= 0);
    shared_word = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    shm_unlink(shm_name);
    EXPECT(shared_word != MAP_FAILED);
    int result = futex_joins_a_child();
    munmap((void *)shared_word, PAGE);
    return result;
}

/* Linux's refusals: a write right the descriptor lacks, a write-only
 * descriptor, an unknown MAP_SHARED_VALIDATE flag; a private writable
 * mapping of a read-only descriptor, and a shared writable one of an
 * O_APPEND descriptor (only an append-only inode is refused), are fine. */
static int shared_file_refusals(void)
{
    int fd = shm_file(PAGE);
    EXPECT(fd >= 0);
    close(fd);
    char path[96];
    snprintf(path, sizeof(path), "/dev/shm%s", shm_name);
    int read_only = open(path, O_RDONLY), write_only = open(path, O_WRONLY), append = open(path, O_RDWR | O_APPEND);
    shm_unlink(shm_name);
    EXPECT(read_only >= 0 && write_only >= 0 && append >= 0);
    EXPECT(mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, read_only, 0) == MAP_FAILED && errno == EACCES);
    EXPECT(mmap(NULL, PAGE, PROT_READ, MAP_SHARED, write_only, 0) == MAP_FAILED && errno == EACCES);
    EXPECT(mmap(NULL, PAGE, PROT_READ, MAP_SHARED_VALIDATE | 0x200000, append, 0) == MAP_FAILED &&
           errno == EOPNOTSUPP);
    char *readable = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, read_only, 0);
    char *private = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, read_only, 0);
    char *appended = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, append, 0);
    EXPECT(readable != MAP_FAILED && private != MAP_FAILED && appended != MAP_FAILED);
    private[0] = 1;
    EXPECT_VALUE(readable[0], 0);
    appended[1] = 2;
    EXPECT_VALUE(readable[1], 2);
    munmap(readable, PAGE);
    munmap(private, PAGE);
    munmap(appended, PAGE);
    close(read_only), close(write_only), close(append);
    return 1;
}

/* A page of a shared file mapping wholly past the end of the file: SIGBUS
 * at a touch; the rest of the last page of the file is there. */
static int shared_file_past_its_end_is_sigbus(void)
{
    int fd = shm_file(100);
    EXPECT(fd >= 0);
    shared_page = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    shm_unlink(shm_name);
    EXPECT(shared_page != MAP_FAILED);
    shared_page[200] = 1;
    touch_address = shared_page + PAGE, touch_write = 0;
    int status = status_of_child(touch);
    munmap((void *)shared_page, 2 * PAGE);
    EXPECT(killed_by(status, SIGBUS));
    return 1;
}

/* ---- mlock ---- */

static long rss_kb(void)
{
    char text[4096];
    int fd = open("/proc/self/status", O_RDONLY);
    long got = fd < 0 ? -1 : read(fd, text, sizeof(text) - 1);
    close(fd);
    if (got <= 0)
        return -1;
    text[got] = 0;
    char *line = strstr(text, "VmRSS:");
    return line ? strtol(line + 6, NULL, 10) : -1;
}

/* mlock makes a fresh private range resident at once (the process's RSS
 * grows by it before any touch); mlock2's only flag is MLOCK_ONFAULT; a
 * range with a hole is ENOMEM, and so is one that cannot be made present
 * (PROT_NONE). */
static int mlock_makes_a_range_resident(void)
{
    char *pages = mmap(NULL, 64 * PAGE, PROT_READ | PROT_WRITE, ANONYMOUS, -1, 0);
    EXPECT(pages != MAP_FAILED);
    long before = rss_kb();
    EXPECT_VALUE(mlock(pages + 1, 64 * PAGE - 2), 0);
    long after = rss_kb();
    EXPECT(before > 0 && after >= before + 60 * (long)(PAGE / 1024));
    EXPECT_VALUE(munlock(pages, 64 * PAGE), 0);
    EXPECT_ERROR(syscall(SYS_mlock2, pages, PAGE, 2), EINVAL);
    EXPECT_VALUE(syscall(SYS_mlock2, pages, PAGE, 1), 0);
    EXPECT_VALUE(munmap(pages + PAGE, PAGE), 0);
    EXPECT_ERROR(syscall(SYS_mlock, pages, 3 * PAGE), ENOMEM);
    EXPECT_ERROR(syscall(SYS_munlock, pages, 3 * PAGE), ENOMEM);
    EXPECT_VALUE(mprotect(pages + 2 * PAGE, PAGE, PROT_NONE), 0);
    EXPECT_ERROR(syscall(SYS_mlock, pages + 2 * PAGE, PAGE), ENOMEM);   /* locked, but nothing to populate */
    EXPECT_VALUE(mlock(pages, 0), 0);
    munmap(pages, 64 * PAGE);
    return 1;
}

/* ---- madvise and msync ---- */

/* MADV_DONTNEED: private anonymous memory reads zeros at the next touch,
 * shared memory keeps its contents; the region stays. */
static int madvise_dontneed_zeroes_private_keeps_shared(void)
{
    char *private = map_pages(2, PROT_READ | PROT_WRITE);
    char *shared = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    EXPECT(private && shared != MAP_FAILED);
    private[0] = 1, private[PAGE] = 2, shared[0] = 3;
    EXPECT_VALUE(madvise(private, PAGE, MADV_DONTNEED), 0);
    EXPECT_VALUE(madvise(shared, PAGE, MADV_DONTNEED), 0);
    EXPECT_VALUE(private[0], 0);
    EXPECT_VALUE(private[PAGE], 2);
    EXPECT_VALUE(shared[0], 3);
    EXPECT_REGION(private, private, private + 2 * PAGE, "rw-p");
    private[0] = 4;     /* writable again */
    EXPECT_VALUE(private[0], 4);
    munmap(private, 2 * PAGE);
    munmap(shared, PAGE);
    return 1;
}

/* Linux's checks (raw calls: the wrappers may answer some themselves). */
static int madvise_and_msync_arguments(void)
{
    char *pages = map_pages(3, PROT_READ | PROT_WRITE);
    EXPECT(pages);
    pages[0] = 9;
    EXPECT_ERROR(syscall(SYS_madvise, pages, PAGE, 12345), EINVAL);
    EXPECT_ERROR(syscall(SYS_madvise, pages, PAGE, -1), EINVAL);
    EXPECT_ERROR(syscall(SYS_madvise, pages + 1, PAGE, MADV_NORMAL), EINVAL);
    EXPECT_ERROR(syscall(SYS_madvise, pages, -1ul, MADV_NORMAL), EINVAL);
    EXPECT_ERROR(syscall(SYS_madvise, pages, -PAGE, MADV_NORMAL), EINVAL);
    EXPECT_VALUE(syscall(SYS_madvise, pages, 0, MADV_DONTNEED), 0);
    EXPECT_VALUE(syscall(SYS_madvise, pages, 3 * PAGE, MADV_WILLNEED), 0);
    EXPECT_VALUE(syscall(SYS_madvise, pages, 3 * PAGE, MADV_SEQUENTIAL), 0);
    EXPECT_VALUE(pages[0], 9);
    EXPECT_VALUE(munmap(pages + PAGE, PAGE), 0);
    EXPECT_ERROR(syscall(SYS_madvise, pages, 3 * PAGE, MADV_DONTNEED), ENOMEM);
    EXPECT_VALUE(pages[0], 0);      /* the mapped part was done */
    EXPECT_ERROR(syscall(SYS_madvise, (void *)0xffff800000000000ul, PAGE, MADV_NORMAL), ENOMEM);
    EXPECT_ERROR(syscall(SYS_msync, pages, PAGE, 8), EINVAL);
    EXPECT_ERROR(syscall(SYS_msync, pages + 1, PAGE, MS_SYNC), EINVAL);
    EXPECT_ERROR(syscall(SYS_msync, pages, PAGE, MS_SYNC | MS_ASYNC), EINVAL);
    EXPECT_VALUE(syscall(SYS_msync, pages, 0, MS_SYNC), 0);
    EXPECT_VALUE(syscall(SYS_msync, pages, PAGE, MS_SYNC), 0);
    EXPECT_VALUE(syscall(SYS_msync, pages, PAGE, MS_ASYNC | MS_INVALIDATE), 0);
    EXPECT_ERROR(syscall(SYS_msync, pages, 3 * PAGE, MS_SYNC), ENOMEM);
    EXPECT_ERROR(syscall(SYS_msync, pages, 3 * PAGE, MS_ASYNC), ENOMEM);
    EXPECT_ERROR(syscall(SYS_msync, pages + PAGE, PAGE, MS_ASYNC), ENOMEM);
    EXPECT_ERROR(syscall(SYS_msync, pages, -PAGE, MS_ASYNC), ENOMEM);
    munmap(pages, 3 * PAGE);
    return 1;
}

/* ---- a sibling thread at the same moment ---- */

static volatile int stop_sibling;
static char *race_pages;
static volatile long sibling_rounds;

/* Writes its own page while the main thread changes the rights of the
 * page next to it, in the same region: the split and merge must never
 * take its write right away. */
static void *write_own_page(void *arg)
{
    (void)arg;
    for (long i = 0; !stop_sibling; i++) {
        race_pages[0] = (char)i;
        sibling_rounds++;
    }
    return NULL;
}

static int mprotect_while_a_sibling_writes_next_door(void)
{
    race_pages = map_pages(2, PROT_READ | PROT_WRITE);
    EXPECT(race_pages);
    race_pages[PAGE] = 8;
    stop_sibling = 0;
    sibling_rounds = 0;
    pthread_t thread;
    EXPECT_VALUE(pthread_create(&thread, NULL, write_own_page, NULL), 0);
    while (!sibling_rounds)
        sched_yield();
    for (int i = 0; i < 200; i++) {
        if (mprotect(race_pages + PAGE, PAGE, i % 2 ? PROT_READ | PROT_WRITE : PROT_NONE))
            break;
    }
    stop_sibling = 1;
    pthread_join(thread, NULL);
    EXPECT(sibling_rounds > 0);
    EXPECT_REGION(race_pages, race_pages, race_pages + 2 * PAGE, "rw-p");
    EXPECT_VALUE(race_pages[PAGE], 8);
    munmap(race_pages, 2 * PAGE);
    return 1;
}

/* Maps and unmaps while the main thread forks: each child finds its
 * regions well formed and its own mapping intact. */
static void *map_and_unmap(void *arg)
{
    (void)arg;
    while (!stop_sibling) {
        char *pages = mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE, ANONYMOUS, -1, 0);
        if (pages != MAP_FAILED) {
            pages[PAGE] = 1;
            mprotect(pages + PAGE, PAGE, PROT_READ);
            munmap(pages, 3 * PAGE);
        }
        sibling_rounds++;
    }
    return NULL;
}

static void check_own_mapping(void)
{
    _exit(maps_well_formed() && race_pages[0] == 6 ? 0 : 1);
}

static int fork_while_a_sibling_maps(void)
{
    race_pages = map_pages(1, PROT_READ | PROT_WRITE);
    EXPECT(race_pages);
    race_pages[0] = 6;
    stop_sibling = 0;
    sibling_rounds = 0;
    pthread_t thread;
    EXPECT_VALUE(pthread_create(&thread, NULL, map_and_unmap, NULL), 0);
    int bad = 0;
    for (int i = 0; i < 10; i++)
        bad += !exited_with(status_of_child(check_own_mapping), 0);
    stop_sibling = 1;
    pthread_join(thread, NULL);
    EXPECT_VALUE(bad, 0);
    EXPECT(maps_well_formed());
    munmap(race_pages, PAGE);
    return 1;
}

int main(void)
{
    static const struct ktap_case cases[] = {
        KTAP_CASE(a_mapping_is_one_line_of_maps),
        KTAP_CASE(mprotect_in_the_middle_splits_and_back_merges),
        KTAP_CASE(munmap_of_the_middle_leaves_two),
        KTAP_CASE(prot_none_faults_with_accerr),
        KTAP_CASE(mprotect_none_keeps_the_contents),
        KTAP_CASE(mprotect_over_a_hole_is_enomem),
        KTAP_CASE(map_fixed_over_part_of_a_mapping),
        KTAP_CASE(a_busy_hint_is_not_taken),
        KTAP_CASE(bad_ranges_are_refused),
        KTAP_CASE(map_fixed_over_the_stack_and_heap),
        KTAP_CASE(fork_copies_the_regions),
        KTAP_CASE(loader_pattern_over_a_file),
        KTAP_CASE(shared_anonymous_is_shared_across_fork),
        KTAP_CASE(shared_anonymous_survives_mprotect),
        KTAP_CASE(shared_dev_zero_is_shared),
        KTAP_CASE(shared_futex_across_processes),
        KTAP_CASE(shared_file_mapping_is_the_file),
        KTAP_CASE(shared_futex_in_a_shm_object),
        KTAP_CASE(shared_file_refusals),
        KTAP_CASE(shared_file_past_its_end_is_sigbus),
        KTAP_CASE(mlock_makes_a_range_resident),
        KTAP_CASE(madvise_dontneed_zeroes_private_keeps_shared),
        KTAP_CASE(madvise_and_msync_arguments),
        KTAP_CASE(mprotect_while_a_sibling_writes_next_door),
        KTAP_CASE(fork_while_a_sibling_maps),
    };
    return ktap_main_each_in_a_child(cases, KTAP_COUNT(cases));
}
