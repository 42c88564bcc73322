/* stack_limit: the stack a program gets is its RLIMIT_STACK soft limit,
 * as on Linux (docs/memory.md, section 5). A 1 MiB recursion lives; a
 * program can touch its stack down to the limit and dies of SIGSEGV one
 * byte below; a limit set before execve sizes the new program's stack,
 * small or not; a limit lowered later stops the growth there; mlockall
 * does not populate the reservation, and the stack still grows after it.
 *
 * Each case runs a fresh copy of this program (fork, setrlimit, execve
 * with "--recurse BYTES" or "--touch DEPTH"), so the stack it measures is
 * one execve made with the limit given. The top of the stack is found
 * from the argument and environment strings, which end just below it on
 * nohzk and under the file name (AT_EXECFN) on Linux: the page above the
 * end of the last one. Runs on the Linux host (tests/run: host-stack_limit.*)
 * and on nohzk (scenarios stack-limit, stack-limit-glibc). */
#define _GNU_SOURCE
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "ktap.h"
#include "proc_counters.h"
#include "testlib.h"

#define KIB 1024ul
#define MIB (1024 * KIB)
#define PAGE 4096ul
#define FRAME_BYTES 1024

static char self[PATH_MAX];
static char **initial_argv, **initial_envp;

/* ---- in the fresh copy ---- */

/* The page-aligned end of the stack: above the end of the highest
 * argument or environment string. */
static uintptr_t stack_top(void)
{
    uintptr_t end = 0;
    for (char **vector = initial_argv; *vector; vector++)
        if ((uintptr_t)*vector + strlen(*vector) + 1 > end)
            end = (uintptr_t)*vector + strlen(*vector) + 1;
    for (char **vector = initial_envp; *vector; vector++)
        if ((uintptr_t)*vector + strlen(*vector) + 1 > end)
            end = (uintptr_t)*vector + strlen(*vector) + 1;
    return (end + PAGE - 1) & ~(PAGE - 1);
}

/* depth frames of FRAME_BYTES each, every byte written. */
static int __attribute__((noinline)) recurse(long depth)
{
    volatile char frame[FRAME_BYTES];
    memset((char *)frame, (int)depth, sizeof(frame));
    if (depth <= 1)
        return frame[0];
    return recurse(depth - 1) + frame[FRAME_BYTES - 1];
}

/* The fresh copy's work; its exit code is 0 when it lived. */
static int run_mode(const char *mode, const char *value)
{
    unsigned long number = strtoul(value, NULL, 0);
    if (strcmp(mode, "--recurse") == 0) {
        recurse((long)(number / FRAME_BYTES));
        return 0;
    }
    if (strcmp(mode, "--touch") == 0) {
        *(volatile char *)(stack_top() - number) = 1;
        return 0;
    }
    if (strcmp(mode, "--write-from") == 0) {        /* a system call reads the stack number deep */
        int fds[2];
        if (pipe(fds) != 0)
            return 2;
        long wrote = write(fds[1], (const char *)(stack_top() - number), 1);
        return wrote == 1 ? 0 : wrote < 0 && errno == EFAULT ? 5 : 2;
    }
    if (strcmp(mode, "--count-touches") == 0) {     /* nohzk's counts; 0 where there are none */
        long before = vmstat_value("stack_pages_faulted");
        if (before < 0)
            return 0;
        volatile char *deep = (volatile char *)(stack_top() - number);
        for (int page = 0; page < 16; page++)
            deep[page * PAGE] = 1;                      /* a zeroed page each */
        char seen = deep[16 * PAGE];                    /* the zero page */
        long zeroed = vmstat_value("zero_page_faults");
        deep[16 * PAGE] = 1;                            /* now a zeroed page */
        long faulted = vmstat_value("stack_pages_faulted") - before;
        zeroed = vmstat_value("zero_page_faults") - zeroed;
        if (faulted != 17 || zeroed != 1 || seen != 0) {
            printf("# %ld stack pages faulted in, want 17; %ld zero-page faults, want 1\n", faulted, zeroed);
            return 4;
        }
        return 0;
    }
    if (strcmp(mode, "--none-at-2m-then-touch") == 0 || strcmp(mode, "--readable-at-4m-then-touch") == 0) {
        /* one page mapped MAP_FIXED inside the stack's reach: PROT_NONE
         * 2 MiB deep, or readable with its end 4 MiB deep */
        int none = mode[2] == 'n';
        char *page = (char *)(stack_top() - (none ? 2 * MIB : 4 * MIB + PAGE));
        if (mmap(page, PAGE, none ? PROT_NONE : PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != page)
            return 2;
        *(volatile char *)(stack_top() - number) = 1;
        return 0;
    }
    if (strcmp(mode, "--lower-then-touch") == 0) {      /* to 256 KiB, then touch number deep */
        struct rlimit limit;
        getrlimit(RLIMIT_STACK, &limit);
        limit.rlim_cur = 256 * KIB;
        if (setrlimit(RLIMIT_STACK, &limit) != 0)
            return 2;
        *(volatile char *)(stack_top() - number) = 1;
        return 0;
    }
    if (strcmp(mode, "--lock-then-recurse") == 0) {
        long before = vmstat_value("stack_pages_faulted");
        long zeroed = vmstat_value("zero_page_faults");
        if (mlockall(MCL_CURRENT) != 0)
            return errno == EPERM || errno == ENOMEM ? 3 : 2;  /* Linux without the right or the limit */
        /* nohzk's counts: the lock copies the first pages the zero page
         * stands for, not the whole reservation, and maps none below. */
        if (before >= 0 && (vmstat_value("stack_pages_faulted") != before ||
                            vmstat_value("zero_page_faults") - zeroed > 256)) {
            printf("# mlockall: %ld stack pages faulted in, %ld zero-page faults\n",
                   vmstat_value("stack_pages_faulted") - before, vmstat_value("zero_page_faults") - zeroed);
            return 4;
        }
        recurse((long)(number / FRAME_BYTES));
        return 0;
    }
    return 2;
}

/* ---- the cases ---- */

/* A fresh copy with soft limit `limit` (0: the one we have) running mode
 * value: its wait status. */
static int fresh_copy(unsigned long limit, const char *mode, unsigned long value)
{
    char number[32];
    snprintf(number, sizeof(number), "%lu", value);
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        struct rlimit no_core = { 0, 0 }, stack;
        setrlimit(RLIMIT_CORE, &no_core);
        getrlimit(RLIMIT_STACK, &stack);
        if (limit)
            stack.rlim_cur = limit;
        if (setrlimit(RLIMIT_STACK, &stack) != 0)
            _exit(100);
        char *argv[] = { self, (char *)mode, number, NULL };
        execve(self, argv, initial_envp);
        _exit(101);
    }
    return child < 0 ? -1 : wait_status(child);
}

static int lives(int status)
{
    return exited_with(status, 0);
}

/* The default limit, or skip if it is too small for the cases (a host
 * with `ulimit -s` under 2 MiB). */
static int default_limit_is_enough(void)
{
    struct rlimit limit;
    CHECK(getrlimit(RLIMIT_STACK, &limit) == 0);
    if (limit.rlim_cur < 2 * MIB)
        ktap_skip_reason = "RLIMIT_STACK under 2 MiB here";
    return ktap_skip_reason == NULL;
}

/* A 1 MiB recursion lives with the default limit (nohzk's stack was a
 * fixed 256 KiB: SIGSEGV). */
static int a_1_mib_recursion_lives(void)
{
    if (!default_limit_is_enough())
        return 1;
    CHECK(lives(fresh_copy(0, "--recurse", MIB)));
    return 1;
}

/* What getrlimit says is what the program can use: a touch at the
 * limit's last byte lives, one byte further is SIGSEGV. With the
 * default 8 MiB, and with 1 MiB, 64 KiB and 40 MiB set before execve. */
static int the_limit_is_usable_to_its_last_byte(void)
{
    static const unsigned long limits[] = { 8 * MIB, MIB, 64 * KIB, 40 * MIB };
    for (unsigned i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
        printf("# limit %lu KiB\n", limits[i] / KIB);
        CHECK(lives(fresh_copy(limits[i], "--touch", limits[i])));
        CHECK(killed_by(fresh_copy(limits[i], "--touch", limits[i] + 1), SIGSEGV));
    }
    return 1;
}

/* A system call's copy reaches as far as the program: write() from the
 * limit's last byte works, from one byte below it is EFAULT. */
static int a_system_call_reaches_the_limit_too(void)
{
    CHECK(lives(fresh_copy(MIB, "--write-from", MIB)));
    CHECK(exited_with(fresh_copy(MIB, "--write-from", MIB + 1), 5));
    return 1;
}

/* A lower limit, then execve: the new program's stack is that small. A
 * recursion within it lives, one past it dies of SIGSEGV. */
static int a_lower_limit_then_execve_shrinks_the_stack(void)
{
    CHECK(lives(fresh_copy(512 * KIB, "--recurse", 384 * KIB)));
    CHECK(killed_by(fresh_copy(512 * KIB, "--recurse", MIB), SIGSEGV));
    CHECK(lives(fresh_copy(128 * KIB, "--recurse", 64 * KIB)));
    CHECK(killed_by(fresh_copy(128 * KIB, "--recurse", 256 * KIB), SIGSEGV));
    return 1;
}

/* A higher limit, then execve: a 16 MiB recursion lives with 32 MiB. */
static int a_higher_limit_then_execve_grows_it(void)
{
    CHECK(lives(fresh_copy(32 * MIB, "--recurse", 16 * MIB)));
    CHECK(killed_by(fresh_copy(8 * MIB, "--recurse", 16 * MIB), SIGSEGV));
    return 1;
}

/* The stack never grows past another mapping, even a PROT_NONE one (a
 * touch below it is SIGSEGV), and keeps Linux's guard gap of 1 MiB above
 * one that can be accessed; a PROT_NONE one needs no gap. */
static int another_mapping_stops_the_growth(void)
{
    CHECK(lives(fresh_copy(8 * MIB, "--none-at-2m-then-touch", MIB)));
    CHECK(lives(fresh_copy(8 * MIB, "--none-at-2m-then-touch", 2 * MIB - 64 * KIB)));
    CHECK(killed_by(fresh_copy(8 * MIB, "--none-at-2m-then-touch", 5 * MIB), SIGSEGV));
    CHECK(lives(fresh_copy(8 * MIB, "--readable-at-4m-then-touch", 2 * MIB)));
    CHECK(killed_by(fresh_copy(8 * MIB, "--readable-at-4m-then-touch", 4 * MIB - 512 * KIB), SIGSEGV));
    CHECK(killed_by(fresh_copy(8 * MIB, "--readable-at-4m-then-touch", 6 * MIB), SIGSEGV));
    return 1;
}

/* Linux checks each growth against the limit of the moment: lowered to
 * 256 KiB after execve, a touch 1 MiB deep is SIGSEGV, 128 KiB deep lives. */
static int a_limit_lowered_later_stops_the_growth(void)
{
    CHECK(lives(fresh_copy(8 * MIB, "--lower-then-touch", 128 * KIB)));
    CHECK(killed_by(fresh_copy(8 * MIB, "--lower-then-touch", MIB), SIGSEGV));
    return 1;
}

/* mlockall(MCL_CURRENT) locks the stack as mapped so far (Linux: the
 * stack VMA, 132 KiB or so), not the whole limit; a 2 MiB recursion
 * after it still lives. nohzk also counts: no stack page faulted in by
 * the lock, at most 256 zero-page copies. */
static int mlockall_leaves_the_reservation_alone(void)
{
    if (!default_limit_is_enough())
        return 1;
    int status = fresh_copy(8 * MIB, "--lock-then-recurse", 2 * MIB);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 3) {
        ktap_skip_reason = "mlockall refused here (RLIMIT_MEMLOCK)";
        return 1;
    }
    CHECK(lives(status));
    return 1;
}

/* nohzk counts each first touch below the mapped pages once: 16 writes
 * to 16 pages 1 MiB deep, then a read and a write of a 17th page (the
 * zero page, then a zeroed page). */
static int each_first_touch_maps_one_page(void)
{
    if (!default_limit_is_enough())
        return 1;
    CHECK(lives(fresh_copy(8 * MIB, "--count-touches", MIB)));
    return 1;
}

/* In a fork of a grown stack, both sides keep their own pages. */
static int a_fork_shares_the_grown_stack(void)
{
    volatile char deep[256 * KIB];
    memset((char *)deep, 7, sizeof(deep));
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        memset((char *)deep, 9, sizeof(deep));
        recurse(MIB / FRAME_BYTES);
        _exit(deep[0] == 9 && deep[sizeof(deep) - 1] == 9 ? 0 : 1);
    }
    CHECK(lives(wait_status(child)));
    CHECK(deep[0] == 7 && deep[sizeof(deep) - 1] == 7);
    return 1;
}

/* A system call writes into stack pages never touched yet: read() into
 * a buffer 1 MiB deep, in a fresh copy through --recurse first. */
static int __attribute__((noinline)) read_deep(void)
{
    char buffer[2 * MIB];
    int fds[2];
    if (pipe(fds) != 0 || write(fds[1], "deep", 4) != 4)
        return 0;
    /* buffer[0] is 2 MiB below here: no page of it touched yet */
    long got = read(fds[0], buffer, 4);
    close(fds[0]);
    close(fds[1]);
    return got == 4 && memcmp(buffer, "deep", 4) == 0;
}

static int a_system_call_writes_to_untouched_stack_pages(void)
{
    if (!default_limit_is_enough())
        return 1;
    CHECK(read_deep());
    return 1;
}

int main(int argc, char **argv, char **envp)
{
    initial_argv = argv, initial_envp = envp;
    if (argc == 3)
        return run_mode(argv[1], argv[2]);
    static const struct ktap_case cases[] = {
        KTAP_CASE(a_1_mib_recursion_lives),
        KTAP_CASE(the_limit_is_usable_to_its_last_byte),
        KTAP_CASE(a_system_call_reaches_the_limit_too),
        KTAP_CASE(a_lower_limit_then_execve_shrinks_the_stack),
        KTAP_CASE(a_higher_limit_then_execve_grows_it),
        KTAP_CASE(a_limit_lowered_later_stops_the_growth),
        KTAP_CASE(another_mapping_stops_the_growth),
        KTAP_CASE(mlockall_leaves_the_reservation_alone),
        KTAP_CASE(each_first_touch_maps_one_page),
        KTAP_CASE(a_fork_shares_the_grown_stack),
        KTAP_CASE(a_system_call_writes_to_untouched_stack_pages),
    };
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 1 || !find_self(argv[0], self, sizeof(self))) {
        printf("# stack_limit: cannot find this program (argv[0] %s)\n", argc ? argv[0] : "none");
        return 1;
    }
    return ktap_main(cases, KTAP_COUNT(cases));
}
