/* entry_flags: RFLAGS bits a program sets with popf before a system call.
 * For each of TF, NT, AC, DF, IOPL (which ring 3 cannot set) and ID, the
 * bit is set just before getpid, write, nanosleep (1 ms) and an
 * rt_sigsuspend that a SIGALRM handler interrupts; the case checks that
 * every call did its work, which flags the program has after it, which the
 * SIGALRM handler ran with, and (TF) how many single-step traps came. The
 * program runs on the Linux host (tests/run: host-entry_flags.*) and on
 * nohzk (scenarios "entry-flags", "entry-flags-glibc"), so the expected
 * answers are Linux's. A kernel that keeps NT in ring 0 faults on its own
 * iretq back: that case then dies or hangs; one that drops the program's
 * NT fails nt_over_syscalls.
 *
 * Each system call sits in one asm block that sets the bit, reads the
 * flags, makes the call, reads them again and clears the bit: no C code
 * runs with the bit set (AC would make it fault on an unaligned access,
 * DF would break the string functions), and the number of instructions
 * stepped under TF is fixed. */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "ktap.h"
#include "testlib.h"

/* Instructions run with TF set after the popf that sets it: pushfq, popq,
 * syscall, pushfq, popq, pushfq, notq, andq, popfq. Each traps but the
 * syscall, whose trap the kernel's entry mask (TF) swallows. */
#define STEPPED_TRAPS 8

struct flagged {
    long result;
    uint64_t before;            /* the flags just before the system call */
    uint64_t after;             /* and just after it */
};

/* The system call nr(a0, a1, a2) with bit set. The stack pointer moves
 * past the red zone first: pushfq would overwrite it. */
static struct flagged flagged_syscall(uint64_t bit, long nr, long a0, long a1, long a2)
{
    struct flagged r;
    uint64_t mask = bit;
    __asm__ volatile("lea -128(%%rsp), %%rsp\n\t"
                     "pushfq; orq %[bit], (%%rsp); popfq\n\t"
                     "pushfq; popq %[before]\n\t"
                     "syscall\n\t"
                     "pushfq; popq %[after]\n\t"
                     "pushfq; notq %[bit]; andq %[bit], (%%rsp); popfq\n\t"
                     "lea 128(%%rsp), %%rsp"
                     : [before] "=&r"(r.before), [after] "=&r"(r.after), "=a"(r.result), [bit] "+r"(mask)
                     : "a"(nr), "D"(a0), "S"(a1), "d"(a2)
                     : "rcx", "r11", "memory", "cc");
    return r;
}

static volatile int alarms;
static volatile uint64_t handler_flags;

static void on_alarm(int signal)
{
    (void)signal;
    handler_flags = read_flags();
    alarms++;
}

struct expectation {
    uint64_t bit;
    int settable;               /* popf in ring 3 sets it */
    int kept;                   /* the program still has it after the call */
    int in_handler;             /* the SIGALRM handler runs with it */
};

/* The flags a call left: the bit as expected, and TF's traps counted. */
static int check_flags(const char *call, const struct expectation *e, const struct flagged *r, int traps_seen)
{
    int has_before = (r->before & e->bit) != 0, has_after = (r->after & e->bit) != 0;
    if (has_before != e->settable || has_after != e->kept) {
        printf("# %s: flags %#lx before, %#lx after; expected the bit %s before and %s after\n", call,
               (unsigned long)r->before, (unsigned long)r->after, e->settable ? "set" : "clear",
               e->kept ? "set" : "clear");
        return 0;
    }
    uint64_t never = RFLAGS_IOPL | (e->bit == RFLAGS_NT ? 0 : RFLAGS_NT);
    if (r->after & never) {
        printf("# %s: flags %#lx after: IOPL or NT set\n", call, (unsigned long)r->after);
        return 0;
    }
    int expected_traps = e->bit == RFLAGS_TF ? STEPPED_TRAPS : 0;
    if (traps_seen != expected_traps) {
        printf("# %s: %d single-step traps, expected %d\n", call, traps_seen, expected_traps);
        return 0;
    }
    return 1;
}

/* getpid, write, nanosleep and an interrupted rt_sigsuspend, each with the
 * bit set; then one more ordinary call to show the process is sound. */
static int run_calls(const struct expectation *e)
{
    set_handler(SIGTRAP, count_caught, 0);
    set_handler(SIGALRM, on_alarm, 0);     /* no SA_RESTART: rt_sigsuspend ends with EINTR */
    int pipe_fds[2];
    CHECK(pipe(pipe_fds) == 0);

    caught[SIGTRAP] = 0;
    struct flagged r = flagged_syscall(e->bit, SYS_getpid, 0, 0, 0);
    CHECK(r.result == getpid());
    CHECK(check_flags("getpid", e, &r, caught[SIGTRAP]));

    static const char message[8] __attribute__((aligned(8))) = "flagged";
    caught[SIGTRAP] = 0;
    r = flagged_syscall(e->bit, SYS_write, pipe_fds[1], (long)message, sizeof(message));
    CHECK(r.result == (long)sizeof(message));
    CHECK(check_flags("write", e, &r, caught[SIGTRAP]));
    char back[8];
    CHECK(read(pipe_fds[0], back, sizeof(back)) == (ssize_t)sizeof(back) && memcmp(back, message, 8) == 0);

    static const struct timespec one_ms = {0, 1000000};
    caught[SIGTRAP] = 0;
    r = flagged_syscall(e->bit, SYS_nanosleep, (long)&one_ms, 0, 0);
    CHECK(r.result == 0);
    CHECK(check_flags("nanosleep", e, &r, caught[SIGTRAP]));

    /* SIGALRM is blocked until rt_sigsuspend opens the mask: an alarm
     * that comes early waits for it, so the call always ends by it. */
    sigset_t alarm_only = signal_set(SIGALRM), none;
    sigemptyset(&none);
    CHECK(sigprocmask(SIG_BLOCK, &alarm_only, 0) == 0);
    struct itimerval one_shot = {{0, 0}, {0, 1000}};
    CHECK(setitimer(ITIMER_REAL, &one_shot, 0) == 0);
    alarms = 0;
    caught[SIGTRAP] = 0;
    r = flagged_syscall(e->bit, SYS_rt_sigsuspend, (long)&none, 8, 0);
    CHECK(r.result == -EINTR);
    CHECK(alarms == 1);
    CHECK(check_flags("rt_sigsuspend", e, &r, caught[SIGTRAP]));
    if (((handler_flags & e->bit) != 0) != e->in_handler) {
        printf("# the SIGALRM handler ran with flags %#lx; expected the bit %s\n", (unsigned long)handler_flags,
               e->in_handler ? "set" : "clear");
        return 0;
    }
    CHECK(sigprocmask(SIG_UNBLOCK, &alarm_only, 0) == 0);

    CHECK((read_flags() & (e->bit | RFLAGS_NT | RFLAGS_IOPL)) == 0);
    CHECK(getppid() > 0);
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    return 1;
}

/* Linux's answers (Debian's 6.1 under QEMU, 6.18 on hardware): TF, NT,
 * AC, DF and ID stay with the program; IOPL cannot be raised from ring 3.
 * A handler starts with TF and DF clear, and NT, AC and ID as they were. */
static int tf_over_syscalls(void)
{
    static const struct expectation e = {RFLAGS_TF, 1, 1, 0};
    return run_calls(&e);
}

static int nt_over_syscalls(void)
{
    static const struct expectation e = {RFLAGS_NT, 1, 1, 1};
    return run_calls(&e);
}

static int ac_over_syscalls(void)
{
    static const struct expectation e = {RFLAGS_AC, 1, 1, 1};
    return run_calls(&e);
}

static int df_over_syscalls(void)
{
    static const struct expectation e = {RFLAGS_DF, 1, 1, 0};
    return run_calls(&e);
}

static int iopl_over_syscalls(void)
{
    static const struct expectation e = {RFLAGS_IOPL, 0, 0, 0};
    return run_calls(&e);
}

static int id_over_syscalls(void)
{
    static const struct expectation e = {RFLAGS_ID, 1, 1, 1};
    return run_calls(&e);
}

/* Every flag at once but TF (whose traps would be counted twice over): the
 * same answers, bit by bit. */
static int all_but_tf_over_syscalls(void)
{
    set_handler(SIGALRM, on_alarm, 0);
    uint64_t bits = RFLAGS_NT | RFLAGS_AC | RFLAGS_DF | RFLAGS_IOPL | RFLAGS_ID;
    struct flagged r = flagged_syscall(bits, SYS_getpid, 0, 0, 0);
    CHECK(r.result == getpid());
    CHECK((r.before & bits) == (RFLAGS_NT | RFLAGS_AC | RFLAGS_DF | RFLAGS_ID));
    CHECK((r.after & bits) == (RFLAGS_NT | RFLAGS_AC | RFLAGS_DF | RFLAGS_ID));
    CHECK((read_flags() & bits) == 0);
    return 1;
}

static const struct ktap_case cases[] = {
    KTAP_CASE(tf_over_syscalls),   KTAP_CASE(nt_over_syscalls), KTAP_CASE(ac_over_syscalls),
    KTAP_CASE(df_over_syscalls),   KTAP_CASE(iopl_over_syscalls), KTAP_CASE(id_over_syscalls),
    KTAP_CASE(all_but_tf_over_syscalls),
};

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    return ktap_main_each_in_a_child(cases, KTAP_COUNT(cases));
}
