/* sigaltstack: the alternate signal stack, as Linux x86-64 has it
 * (docs/signals.md, "The alternate stack"). Its answers (EINVAL, ENOMEM,
 * EPERM, EFAULT, the old stack), SA_ONSTACK handlers on it (nested ones
 * too, and never past its bottom), SS_AUTODISARM, fork, and what it is
 * for: a program that overflows its stack catches the SIGSEGV on it.
 * Bad stacks (kernel, non-canonical, unmapped addresses, a huge size)
 * are accepted by the call and kill at delivery with SIGSEGV. execve's
 * reset is conform_exec.c's. Runs on the Linux host (tests/run:
 * host-sigaltstack.*) and on nohzk (scenarios sigaltstack, sigaltstack-glibc). */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <ucontext.h>

#include "ktap.h"
#include "testlib.h"

#define KERNEL_ADDRESS    0xffff800000000000ul
#define NON_CANONICAL_LOW 0x0000800000000000ul
#define ALT_SIZE          (64 * 1024)
#define MIN_SIZE          2048          /* the kernel's MINSIGSTKSZ on x86-64 */
#define AUTODISARM        INT32_MIN     /* SS_AUTODISARM, 1 << 31, as ss_flags (an int) holds it */

static char alt_memory[ALT_SIZE] __attribute__((aligned(16)));

static long raw_sigaltstack(const void *new, void *old)
{
    return syscall(SYS_sigaltstack, new, old);
}

/* The kernel's answers, not the C library's (musl refuses SS_ONSTACK and
 * small sizes itself). */
static int set_alt(void *pointer, size_t size, int flags)
{
    stack_t stack = { .ss_sp = pointer, .ss_size = size, .ss_flags = flags };
    return (int)raw_sigaltstack(&stack, NULL);
}

static stack_t current_alt(void)
{
    stack_t stack;
    memset(&stack, 0x55, sizeof(stack));
    if (raw_sigaltstack(NULL, &stack) != 0)
        stack.ss_flags = -1;
    return stack;
}

static int inside(uintptr_t address, const void *pointer, size_t size)
{
    return address > (uintptr_t)pointer && address - (uintptr_t)pointer <= size;
}

/* raise(), then read what the handler wrote: the compiler may not keep
 * those statics in registers across the call. */
static int deliver(int signal)
{
    int result = raise(signal);
    __asm__ volatile("" ::: "memory");
    return result;
}

static int set_onstack_handler(int signal, void (*handler)(int, siginfo_t *, void *), int flags)
{
    return set_siginfo_handler(signal, handler, SA_ONSTACK | flags);
}

/* ---- the call ---- */

static int sigaltstack_disabled_at_start(void)
{
    stack_t stack = current_alt();
    CHECK(stack.ss_flags == SS_DISABLE);
    CHECK(stack.ss_size == 0 && stack.ss_sp == NULL);
    return 1;
}

static int sigaltstack_set_reports_the_old_one(void)
{
    CHECK(set_alt(alt_memory, ALT_SIZE, 0) == 0);
    stack_t stack = current_alt();
    CHECK(stack.ss_sp == alt_memory && stack.ss_size == ALT_SIZE && stack.ss_flags == 0);
    stack_t other = { .ss_sp = alt_memory + 4096, .ss_size = MIN_SIZE, .ss_flags = SS_ONSTACK }, old;
    CHECK(raw_sigaltstack(&other, &old) == 0);      /* SS_ONSTACK given: as 0 (old programs) */
    CHECK(old.ss_sp == alt_memory && old.ss_size == ALT_SIZE && old.ss_flags == 0);
    stack = current_alt();
    CHECK(stack.ss_sp == alt_memory + 4096 && stack.ss_size == MIN_SIZE && stack.ss_flags == 0);
    CHECK(set_alt(NULL, 0, SS_DISABLE) == 0);
    stack = current_alt();
    CHECK(stack.ss_flags == SS_DISABLE && stack.ss_size == 0 && stack.ss_sp == NULL);
    return 1;
}

/* A mode other than 0, SS_ONSTACK or SS_DISABLE (SS_AUTODISARM aside) is
 * EINVAL, and changes nothing. */
static int sigaltstack_bad_flags(void)
{
    static const int bad[] = { SS_ONSTACK | SS_DISABLE, 4, 0x10, 1 << 30, AUTODISARM | 4 };
    CHECK(set_alt(alt_memory, ALT_SIZE, 0) == 0);
    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        errno = 0;
        CHECK(set_alt(alt_memory + 4096, MIN_SIZE, bad[i]) == -1 && errno == EINVAL);
    }
    stack_t stack = current_alt();
    CHECK(stack.ss_sp == alt_memory && stack.ss_size == ALT_SIZE && stack.ss_flags == 0);
    return 1;
}

/* Under MINSIGSTKSZ (2048) is ENOMEM; SS_DISABLE takes any size. */
static int sigaltstack_small_sizes(void)
{
    static const size_t small[] = { 0, 1, MIN_SIZE - 1 };
    for (unsigned i = 0; i < sizeof(small) / sizeof(small[0]); i++) {
        errno = 0;
        CHECK(set_alt(alt_memory, small[i], 0) == -1 && errno == ENOMEM);
    }
    CHECK(current_alt().ss_flags == SS_DISABLE);
    CHECK(set_alt(alt_memory, MIN_SIZE, 0) == 0);
    CHECK(set_alt(NULL, 0, SS_DISABLE) == 0);
    CHECK(set_alt(alt_memory, 1, SS_DISABLE) == 0);
    CHECK(current_alt().ss_flags == SS_DISABLE);
    return 1;
}

/* A stack_t at a kernel, non-canonical or unmapped address is EFAULT,
 * either side. On nohzk a bad old pointer also leaves the stack as it
 * was (Linux has set the new one by then). */
static int sigaltstack_bad_pointers(void)
{
    static const uintptr_t bad[] = { KERNEL_ADDRESS, NON_CANONICAL_LOW, 0x8000000000000000ul, 8 };
    stack_t stack = { .ss_sp = alt_memory, .ss_size = ALT_SIZE, .ss_flags = 0 };
    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        errno = 0;
        CHECK(raw_sigaltstack((void *)bad[i], NULL) == -1 && errno == EFAULT);
        errno = 0;
        CHECK(raw_sigaltstack(&stack, (void *)bad[i]) == -1 && errno == EFAULT);
        if (on_nohzk())
            CHECK(current_alt().ss_flags == SS_DISABLE);
    }
    CHECK(raw_sigaltstack(NULL, NULL) == 0);
    return 1;
}

/* ---- handlers on it ---- */

static volatile uintptr_t handler_local[3];
static volatile int handler_ran;
static stack_t handler_saw, uc_stack_seen;
static long handler_set_result;
static int handler_set_errno;

static void note_where(int signal, siginfo_t *info, void *context)
{
    (void)signal, (void)info;
    volatile char local;
    handler_local[0] = (uintptr_t)&local;
    uc_stack_seen = ((ucontext_t *)context)->uc_stack;
    handler_saw = current_alt();
    stack_t other = { .ss_sp = alt_memory, .ss_size = MIN_SIZE, .ss_flags = 0 };
    errno = 0;
    handler_set_result = raw_sigaltstack(&other, NULL);
    handler_set_errno = errno;
    handler_ran++;
}

/* An SA_ONSTACK handler runs on it, sees SS_ONSTACK, cannot change it
 * (EPERM); its uc_stack is the stack as set. One without SA_ONSTACK runs
 * on the ordinary stack and may change it. */
static int sa_onstack_runs_on_it(void)
{
    CHECK(set_alt(alt_memory, ALT_SIZE, 0) == 0);
    CHECK(set_onstack_handler(SIGUSR1, note_where, 0) == 0);
    CHECK(deliver(SIGUSR1) == 0 && handler_ran == 1);
    CHECK(inside(handler_local[0], alt_memory, ALT_SIZE));
    CHECK(handler_saw.ss_flags == SS_ONSTACK && handler_saw.ss_sp == alt_memory);
    CHECK(handler_set_result == -1 && handler_set_errno == EPERM);
    CHECK(uc_stack_seen.ss_sp == alt_memory && uc_stack_seen.ss_size == ALT_SIZE && uc_stack_seen.ss_flags == 0);
    stack_t stack = current_alt();
    CHECK(stack.ss_sp == alt_memory && stack.ss_size == ALT_SIZE && stack.ss_flags == 0);

    CHECK(set_siginfo_handler(SIGUSR1, note_where, 0) == 0);
    CHECK(deliver(SIGUSR1) == 0 && handler_ran == 2);
    CHECK(!inside(handler_local[0], alt_memory, ALT_SIZE));
    CHECK(handler_saw.ss_flags == 0 && handler_set_result == 0);
    CHECK(current_alt().ss_size == ALT_SIZE);  /* rt_sigreturn put the frame's back */
    return 1;
}

static void inner(int signal, siginfo_t *info, void *context)
{
    (void)signal, (void)info, (void)context;
    volatile char local;
    handler_local[1] = (uintptr_t)&local;
}

static void outer(int signal, siginfo_t *info, void *context)
{
    (void)signal, (void)info, (void)context;
    volatile char local;
    handler_local[0] = (uintptr_t)&local;
    raise(SIGUSR2);
}

/* A signal taken on it is nested on it, below the first frame. */
static int nested_handlers_stay_on_it(void)
{
    CHECK(set_alt(alt_memory, ALT_SIZE, 0) == 0);
    CHECK(set_onstack_handler(SIGUSR1, outer, 0) == 0);
    CHECK(set_siginfo_handler(SIGUSR2, inner, 0) == 0);     /* no SA_ONSTACK: still on it */
    CHECK(deliver(SIGUSR1) == 0);
    CHECK(inside(handler_local[0], alt_memory, ALT_SIZE));
    CHECK(inside(handler_local[1], alt_memory, ALT_SIZE));
    CHECK(handler_local[1] < handler_local[0]);
    return 1;
}

/* ---- overflow ---- */

#define GUARD (64 * 1024)
#define SMALL_ALT (16 * 1024)
static char roomy[GUARD + SMALL_ALT] __attribute__((aligned(4096)));
static int report_fd;

static void dig(int signal, siginfo_t *info, void *context)
{
    (void)info, (void)context;
    volatile char local;
    uintptr_t address = (uintptr_t)&local;
    if (write(report_fd, &address, sizeof(address)) != sizeof(address))
        _exit(3);
    raise(signal);
}

/* On Linux the frame's size follows the CPU's XSAVE area, so the last
 * handler that fits may leave too little room for raise() itself, which
 * then runs below the bottom; the next signal, taken off the alternate
 * stack, starts again at its top, for ever. A page with no access just
 * below the bottom turns that into the SIGSEGV this case expects. nohzk's
 * frame size is fixed and the page stays writable there, so its own
 * refusal to write past the bottom is what is tested. */
static void guard_below_the_alt_stack(void)
{
    if (!on_nohzk() && mprotect(roomy + GUARD - 4096, 4096, PROT_NONE) != 0)
        _exit(5);
}

static void overflow_the_alt_stack(void)
{
    guard_below_the_alt_stack();
    if (set_alt(roomy + GUARD, SMALL_ALT, 0) != 0 || set_onstack_handler(SIGUSR1, dig, SA_NODEFER) != 0)
        _exit(2);
    raise(SIGUSR1);
    _exit(4);
}

/* Handlers that nest until it is full: the frame that does not fit is
 * not written, the program dies of SIGSEGV, and no handler ever ran
 * below its bottom, though the memory there is writable. */
static int overflowing_it_is_sigsegv(void)
{
    int fds[2];
    CHECK(pipe(fds) == 0);
    report_fd = fds[1];
    int status = status_of_child(overflow_the_alt_stack);
    close(fds[1]);
    CHECK(killed_by(status, SIGSEGV));
    uintptr_t address;
    int handlers = 0;
    while (read(fds[0], &address, sizeof(address)) == sizeof(address)) {
        CHECK(inside(address, roomy + GUARD, SMALL_ALT));
        handlers++;
    }
    close(fds[0]);
    printf("# %d nested handlers fit in %d bytes\n", handlers, SMALL_ALT);
    CHECK(handlers >= 2);
    return 1;
}

static volatile long never = -1;

static long __attribute__((noinline)) recurse_forever(long depth)
{
    volatile char frame[1024];
    frame[0] = (char)depth;
    if (depth == never)
        return 0;
    return recurse_forever(depth + 1) + frame[0];     /* frame read after: not a tail call */
}

static void caught_overflow(int signal, siginfo_t *info, void *context)
{
    (void)context;
    volatile char local;
    int on_it = inside((uintptr_t)&local, alt_memory, ALT_SIZE);
    _exit(signal == SIGSEGV && info->si_signo == SIGSEGV && on_it ? 42 : 43);
}

static void limit_the_stack(void)
{
    struct rlimit limit;
    getrlimit(RLIMIT_STACK, &limit);
    limit.rlim_cur = 1024 * 1024;       /* growth stops there, here and on Linux */
    setrlimit(RLIMIT_STACK, &limit);
}

static void overflow_with_a_handler(void)
{
    limit_the_stack();
    if (set_alt(alt_memory, ALT_SIZE, 0) != 0 || set_onstack_handler(SIGSEGV, caught_overflow, 0) != 0)
        _exit(2);
    recurse_forever(0);
}

static void overflow_without_an_alt_stack(void)
{
    limit_the_stack();
    if (set_siginfo_handler(SIGSEGV, caught_overflow, 0) != 0)
        _exit(2);
    recurse_forever(0);
}

/* What it is for: a stack overflow's SIGSEGV caught on it, the program
 * exits cleanly (42). Without it, the handler has no room: SIGSEGV. */
static int a_stack_overflow_is_caught_on_it(void)
{
    CHECK(exited_with(status_of_child(overflow_with_a_handler), 42));
    CHECK(killed_by(status_of_child(overflow_without_an_alt_stack), SIGSEGV));
    return 1;
}

/* ---- bad stacks ---- */

static uintptr_t bad_pointer;
static size_t bad_size;

static void count_it(int signal, siginfo_t *info, void *context)
{
    (void)signal, (void)info, (void)context;
    handler_ran++;
}

static void deliver_on_the_bad_stack(void)
{
    stack_t stack = { .ss_sp = (void *)bad_pointer, .ss_size = bad_size, .ss_flags = 0 };
    if (raw_sigaltstack(&stack, NULL) != 0 || set_onstack_handler(SIGUSR1, count_it, 0) != 0)
        _exit(2);
    raise(SIGUSR1);
    _exit(3);
}

/* The call takes any address; delivery on a stack at a kernel,
 * non-canonical or unmapped address, or one whose top wraps past 2^64,
 * is SIGSEGV. */
static int bad_stacks_kill_at_delivery(void)
{
    static const struct {
        uintptr_t pointer;
        size_t size;
    } bad[] = {
        { KERNEL_ADDRESS, ALT_SIZE },        { NON_CANONICAL_LOW, ALT_SIZE },
        { NON_CANONICAL_LOW - MIN_SIZE, MIN_SIZE }, { 0x10000, ALT_SIZE },
        { KERNEL_ADDRESS, SIZE_MAX / 2 },   { 0, MIN_SIZE },
    };
    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        printf("# stack %#lx, %#zx bytes\n", (unsigned long)bad[i].pointer, bad[i].size);
        bad_pointer = bad[i].pointer, bad_size = bad[i].size;
        CHECK(killed_by(status_of_child(deliver_on_the_bad_stack), SIGSEGV));
    }
    return 1;
}

static void huge_below_us(void)
{
    stack_t stack = { .ss_sp = alt_memory, .ss_size = SIZE_MAX - (uintptr_t)alt_memory, .ss_flags = 0 };
    if (raw_sigaltstack(&stack, NULL) != 0 || set_onstack_handler(SIGUSR1, count_it, 0) != 0)
        _exit(2);
    deliver(SIGUSR1);
    if (handler_ran != 1 || current_alt().ss_flags != SS_ONSTACK)
        _exit(3);
    errno = 0;
    if (set_alt(NULL, 0, SS_DISABLE) != -1 || errno != EPERM)
        _exit(4);
    _exit(0);
}

/* A size that reaches past our stack pointer: we are "on" it, as Linux
 * reckons, so a handler stays where it is, and the stack can no longer
 * be changed (EPERM). */
static int a_huge_stack_below_us_is_where_we_are(void)
{
    CHECK(exited_with(status_of_child(huge_below_us), 0));
    return 1;
}

/* ---- SS_AUTODISARM, fork ---- */

static void disarmed(int signal, siginfo_t *info, void *context)
{
    (void)signal, (void)info;
    volatile char local;
    handler_local[0] = (uintptr_t)&local;
    uc_stack_seen = ((ucontext_t *)context)->uc_stack;
    handler_saw = current_alt();
    handler_set_result = set_alt(alt_memory, MIN_SIZE, 0);      /* allowed: nothing is armed */
}

/* SS_AUTODISARM: reported as set; while a handler runs on it, there is
 * none (and a new one may be set); rt_sigreturn puts the old one back. */
static int ss_autodisarm_until_sigreturn(void)
{
    CHECK(set_alt(alt_memory, ALT_SIZE, AUTODISARM) == 0);
    stack_t stack = current_alt();
    CHECK(stack.ss_flags == AUTODISARM && stack.ss_size == ALT_SIZE);
    CHECK(set_onstack_handler(SIGUSR1, disarmed, 0) == 0);
    CHECK(deliver(SIGUSR1) == 0);
    CHECK(inside(handler_local[0], alt_memory, ALT_SIZE));
    CHECK(handler_saw.ss_flags == SS_DISABLE && handler_saw.ss_size == 0);
    CHECK(handler_set_result == 0);
    CHECK(uc_stack_seen.ss_flags == AUTODISARM && uc_stack_seen.ss_size == ALT_SIZE);
    stack = current_alt();
    CHECK(stack.ss_sp == alt_memory && stack.ss_size == ALT_SIZE && stack.ss_flags == AUTODISARM);
    return 1;
}

static void check_inherited(void)
{
    stack_t stack = current_alt();
    _exit(stack.ss_sp == alt_memory && stack.ss_size == ALT_SIZE && stack.ss_flags == 0 ? 0 : 1);
}

static int a_fork_inherits_it(void)
{
    CHECK(set_alt(alt_memory, ALT_SIZE, 0) == 0);
    CHECK(exited_with(status_of_child(check_inherited), 0));
    return 1;
}

int main(void)
{
    static const struct ktap_case cases[] = {
        KTAP_CASE(sigaltstack_disabled_at_start),
        KTAP_CASE(sigaltstack_set_reports_the_old_one),
        KTAP_CASE(sigaltstack_bad_flags),
        KTAP_CASE(sigaltstack_small_sizes),
        KTAP_CASE(sigaltstack_bad_pointers),
        KTAP_CASE(sa_onstack_runs_on_it),
        KTAP_CASE(nested_handlers_stay_on_it),
        KTAP_CASE(overflowing_it_is_sigsegv),
        KTAP_CASE(a_stack_overflow_is_caught_on_it),
        KTAP_CASE(bad_stacks_kill_at_delivery),
        KTAP_CASE(a_huge_stack_below_us_is_where_we_are),
        KTAP_CASE(ss_autodisarm_until_sigreturn),
        KTAP_CASE(a_fork_inherits_it),
    };
    setvbuf(stdout, NULL, _IOLBF, 0);
    return ktap_main_each_in_a_child(cases, KTAP_COUNT(cases));
}
