/* munmap, mprotect and mmap(MAP_FIXED) over ranges of any size, with
 * Linux x86-64's answers: zero, unaligned, enormous and wrapping lengths,
 * kernel and non-canonical addresses, the whole user half. A static
 * program that prints KTAP; it runs on nohzk (scenario "mm-ranges") and,
 * unchanged, on the Linux host (tests/run's host-mm_ranges.*), so what it
 * checks is Linux's behaviour.
 *
 * The cost of a range must follow what is mapped in it, not its length:
 * a kernel that looked at every page of munmap(2^44, 2^46) took about
 * 1,000 s, and of the whole user half about half an hour, and SIGKILL
 * waited for it. The scenario's timeout catches that; nothing here
 * measures a time. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktap.h"
#include "testlib.h"

#define PAGE 4096ul
#define KERNEL_ADDRESS 0xffff800000000000ul
#define NON_CANONICAL 0x8000000000000000ul
#define FAR 0x100000000000ul                 /* 2^44: nothing is mapped from here ... */
#define FAR_LENGTH 0x400000000000ul          /* ... for 2^46 bytes, on Linux or nohzk */
#define ANONYMOUS (MAP_PRIVATE | MAP_ANONYMOUS)

/* Linux's TASK_SIZE: the user half but its last page. With 5-level paging
 * (la57 in /proc/cpuinfo's flags) a Linux host's is 2^56 - 4096; nohzk
 * has 4 levels. */
static uint64_t task_size;

static uint64_t find_task_size(void)
{
    FILE *cpuinfo = fopen("/proc/cpuinfo", "r");
    char line[4096];
    int la57 = 0;
    while (cpuinfo && fgets(line, sizeof(line), cpuinfo))
        if (strncmp(line, "flags", 5) == 0 && strstr(line, " la57"))
            la57 = 1;
    if (cpuinfo)
        fclose(cpuinfo);
    return (la57 ? 1ul << 56 : 1ul << 47) - PAGE;
}

/* The raw calls: the C libraries' wrappers answer some lengths themselves. */
static long do_munmap(uint64_t address, uint64_t length)
{
    return syscall(SYS_munmap, address, length);
}

static long do_mprotect(uint64_t address, uint64_t length, long prot)
{
    return syscall(SYS_mprotect, address, length, prot);
}

static long do_mmap(uint64_t address, uint64_t length, long flags)
{
    return syscall(SYS_mmap, address, length, PROT_READ | PROT_WRITE, flags, -1, 0);
}

/* -1 with this errno, as the call's answer should be. */
#define FAILS_WITH(call, error) ((errno = 0, (call)) == -1 && errno == (error))

/* Two pages, then a hole: mmap three and give the third back. */
static char *two_pages(void)
{
    char *pages = (char *)do_mmap(0, 3 * PAGE, ANONYMOUS);
    if (pages == (char *)-1 || do_munmap((uint64_t)pages + 2 * PAGE, PAGE) != 0)
        return 0;
    memset(pages, 0x5a, 2 * PAGE);
    return pages;
}

static int still_there(const char *pages)
{
    for (unsigned long i = 0; i < 2 * PAGE; i++)
        if (pages[i] != 0x5a)
            return 0;
    return 1;
}

/* ---- munmap ---- */

/* Is the first of the pages mapped at all? (Linux's mincore: ENOMEM if not.) */
static int still_mapped(char *pages)
{
    unsigned char resident;
    return mincore(pages, PAGE, &resident) == 0;
}

static int munmap_refuses_bad_ranges(void)
{
    char *pages = two_pages();
    CHECK(pages);
    uint64_t at = (uint64_t)pages;
    CHECK(FAILS_WITH(do_munmap(at, 0), EINVAL));
    CHECK(FAILS_WITH(do_munmap(at + 1, PAGE), EINVAL));
    CHECK(FAILS_WITH(do_munmap(KERNEL_ADDRESS, PAGE), EINVAL));
    CHECK(FAILS_WITH(do_munmap(0xffffffffff600000ul, PAGE), EINVAL));     /* the vsyscall page */
    CHECK(FAILS_WITH(do_munmap(NON_CANONICAL, PAGE), EINVAL));
    CHECK(FAILS_WITH(do_munmap(task_size, PAGE), EINVAL));
    CHECK(FAILS_WITH(do_munmap(task_size - PAGE, 2 * PAGE), EINVAL));
    CHECK(FAILS_WITH(do_munmap(0, task_size + PAGE), EINVAL));           /* the whole half: too long */
    CHECK(FAILS_WITH(do_munmap(at, UINT64_MAX), EINVAL));
    CHECK(FAILS_WITH(do_munmap(0xfffffffffffff000ul, 2 * PAGE), EINVAL)); /* wraps around */
    CHECK(FAILS_WITH(do_munmap(PAGE, -PAGE), EINVAL));
    CHECK(still_there(pages));
    CHECK(do_munmap(at, 2 * PAGE) == 0);
    return 1;
}

static void unmap_far_ranges(void)
{
    char *pages = two_pages();
    char *inside = (char *)do_mmap(FAR + FAR_LENGTH / 2, PAGE, ANONYMOUS | MAP_FIXED);
    if (!pages || inside != (char *)(FAR + FAR_LENGTH / 2))
        _exit(2);
    inside[0] = 1;
    if (do_munmap(FAR, FAR_LENGTH) != 0 || do_munmap(FAR, FAR_LENGTH) != 0)
        _exit(3);
    if (!FAILS_WITH(do_mprotect((uint64_t)inside, PAGE, PROT_READ), ENOMEM))
        _exit(4);       /* gone */
    if (!still_there(pages))
        _exit(5);       /* outside the range */
    inside = (char *)do_mmap((uint64_t)inside, PAGE, ANONYMOUS | MAP_FIXED);
    if (inside != (char *)(FAR + FAR_LENGTH / 2) || inside[0] != 0)
        _exit(6);       /* a fresh page */
    _exit(0);
}

/* The cost follows what is mapped: 2^46 bytes with one page in them. */
static int munmap_of_huge_ranges_unmaps_what_is_there(void)
{
    int status = status_of_child(unmap_far_ranges);
    CHECK(exited_with(status, 0));
    return 1;
}

static void unmap_everything(void)
{
    syscall(SYS_munmap, 0ul, task_size);     /* returns to no code */
    _exit(1);
}

static int munmap_of_the_whole_user_half_kills_only_the_caller(void)
{
    int status = status_of_child(unmap_everything);
    CHECK(killed_by(status, SIGSEGV));
    return 1;
}

/* ---- mprotect ---- */

static int mprotect_refuses_bad_ranges(void)
{
    char *pages = two_pages();
    CHECK(pages);
    uint64_t at = (uint64_t)pages;
    CHECK(do_mprotect(at, 0, PROT_READ) == 0);
    CHECK(do_mprotect(FAR, 0, 0x10) == 0);                  /* nothing to do: prot unchecked */
    CHECK(FAILS_WITH(do_mprotect(at + 1, 0, PROT_READ), EINVAL));
    CHECK(FAILS_WITH(do_mprotect(at + 1, PAGE, PROT_READ), EINVAL));
    CHECK(FAILS_WITH(do_mprotect(KERNEL_ADDRESS, PAGE, PROT_READ), ENOMEM));
    CHECK(FAILS_WITH(do_mprotect(NON_CANONICAL, PAGE, PROT_READ), ENOMEM));
    CHECK(FAILS_WITH(do_mprotect(task_size, PAGE, PROT_READ), ENOMEM));
    CHECK(FAILS_WITH(do_mprotect(at, UINT64_MAX, PROT_READ), ENOMEM));         /* rounds to 0 */
    CHECK(FAILS_WITH(do_mprotect(0xfffffffffffff000ul, 2 * PAGE, PROT_READ), ENOMEM));
    CHECK(FAILS_WITH(do_mprotect(at, PAGE, 0x10), EINVAL));
    CHECK(FAILS_WITH(do_mprotect(at, PAGE, PROT_READ | PROT_GROWSDOWN | PROT_GROWSUP), EINVAL));
    CHECK(FAILS_WITH(do_mprotect(FAR, FAR_LENGTH, PROT_READ), ENOMEM));        /* a hole first */
    CHECK(FAILS_WITH(do_mprotect(0, task_size, PROT_READ), ENOMEM));           /* page 0 is a hole */
    CHECK(FAILS_WITH(do_mprotect(at + 2 * PAGE, FAR_LENGTH, PROT_READ), ENOMEM));
    pages[0] = 1, pages[2 * PAGE - 1] = 2;                 /* still writable */
    CHECK(do_munmap(at, 2 * PAGE) == 0);
    return 1;
}

static char *protected_pages;

static void write_protected(void)
{
    protected_pages[PAGE] = 1;
}

/* Up to the first hole, as Linux: the pages before it change. */
static int mprotect_changes_pages_up_to_the_first_hole(void)
{
    protected_pages = two_pages();
    CHECK(protected_pages);
    uint64_t at = (uint64_t)protected_pages;
    CHECK(FAILS_WITH(do_mprotect(at, FAR_LENGTH, PROT_READ), ENOMEM));
    CHECK(still_there(protected_pages));
    int status = status_of_child(write_protected);
    CHECK(killed_by(status, SIGSEGV));
    CHECK(do_mprotect(at, 2 * PAGE, PROT_READ | PROT_WRITE) == 0);
    status = status_of_child(write_protected);
    CHECK(exited_with(status, 0));
    CHECK(do_munmap(at, 2 * PAGE) == 0);
    return 1;
}

/* ---- mmap(MAP_FIXED) ---- */

static int mmap_fixed_refuses_bad_ranges(void)
{
    long fixed = ANONYMOUS | MAP_FIXED;
    CHECK(FAILS_WITH(do_mmap(FAR, 0, fixed), EINVAL));
    CHECK(FAILS_WITH(do_mmap(FAR + 1, PAGE, fixed), EINVAL));
    CHECK(FAILS_WITH(do_mmap(KERNEL_ADDRESS, PAGE, fixed), ENOMEM));
    CHECK(FAILS_WITH(do_mmap(NON_CANONICAL, PAGE, fixed), ENOMEM));
    CHECK(FAILS_WITH(do_mmap(task_size - PAGE, 2 * PAGE, fixed), ENOMEM));
    CHECK(FAILS_WITH(do_mmap(0xfffffffffffff000ul, 2 * PAGE, fixed), ENOMEM));
    CHECK(FAILS_WITH(do_mmap(FAR, UINT64_MAX, fixed), ENOMEM));
    CHECK(FAILS_WITH(do_mmap(PAGE, task_size, fixed), ENOMEM));
    CHECK(FAILS_WITH(do_mmap(0, UINT64_MAX - PAGE, ANONYMOUS), ENOMEM));
    return 1;
}

/* A MAP_FIXED that cannot be made (more than memory: nohzk maps at once;
 * a host with room makes it) leaves what was there: the fuzzer's workers
 * lost their malloc heap to one. The pages are checked through a pipe, so
 * that a missing page is EFAULT, not a crash. */
static int a_fixed_mapping_that_fails_leaves_the_old_pages(void)
{
    char *pages = two_pages();
    int fds[2];
    CHECK(pages && pipe(fds) == 0);
    long result = do_mmap((uint64_t)pages, 1ul << 32, ANONYMOUS | MAP_FIXED);
    if (result != -1) {
        printf("# the 4 GiB mapping was made (the host had room)\n");
        do_munmap((uint64_t)pages, 1ul << 32);
    } else {
        CHECK(errno == ENOMEM);
        /* Linux before 6.12 unmapped the old range before it found the
         * memory short (Debian's 6.1 does); later Linux and nohzk keep it. */
        if (!on_nohzk() && !still_mapped(pages)) {
            printf("# the old pages went with the refused mapping (Linux before 6.12)\n");
            close(fds[0]);
            close(fds[1]);
            return 1;
        }
        static char copy[PAGE];
        for (int page = 0; page < 2; page++) {    /* a page at a time: the pipe may hold no more */
            CHECK(write(fds[1], pages + page * PAGE, PAGE) == (long)PAGE);
            CHECK(read(fds[0], copy, PAGE) == (long)PAGE);
        }
        CHECK(still_there(pages));
        do_munmap((uint64_t)pages, 2 * PAGE);
    }
    close(fds[0]);
    close(fds[1]);
    return 1;
}

int main(void)
{
    static const struct ktap_case cases[] = {
        KTAP_CASE(munmap_refuses_bad_ranges),
        KTAP_CASE(munmap_of_huge_ranges_unmaps_what_is_there),
        KTAP_CASE(munmap_of_the_whole_user_half_kills_only_the_caller),
        KTAP_CASE(mprotect_refuses_bad_ranges),
        KTAP_CASE(mprotect_changes_pages_up_to_the_first_hole),
        KTAP_CASE(mmap_fixed_refuses_bad_ranges),
        KTAP_CASE(a_fixed_mapping_that_fails_leaves_the_old_pages),
    };
    task_size = find_task_size();
    return ktap_main(cases, KTAP_COUNT(cases));
}
