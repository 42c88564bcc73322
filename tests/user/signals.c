/* Signals as Linux x86-64 delivers them: a static program (musl or glibc)
 * that prints a KTAP document. It runs on nohzk (scenario "signals") and,
 * unchanged, on the Linux host (tests/run's "host-signals"), so what it
 * checks is Linux's behaviour, not ours. */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "ktap.h"
#include "testlib.h"

/* --- a handler runs, sees siginfo, and the interrupted code resumes ---- */

static volatile sig_atomic_t handled;
static volatile int seen_signal, seen_code, seen_pid;
static volatile int blocked_inside;

static void record(int signal, siginfo_t *info, void *context)
{
    (void)context;
    sigset_t now;
    handled++;
    seen_signal = info->si_signo;
    seen_code = info->si_code;
    seen_pid = info->si_pid;
    sigprocmask(SIG_BLOCK, 0, &now);
    blocked_inside = sigismember(&now, signal);
}

static int handler_runs(void)
{
    handled = 0;
    set_siginfo_handler(SIGUSR1, record, 0);
    CHECK(kill(getpid(), SIGUSR1) == 0);
    CHECK(handled == 1);
    CHECK(seen_signal == SIGUSR1 && seen_code == SI_USER && seen_pid == getpid());
    CHECK(blocked_inside == 1);        /* the signal is blocked while its handler runs */
    sigset_t after;
    sigprocmask(SIG_BLOCK, 0, &after);
    CHECK(!sigismember(&after, SIGUSR1)); /* and unblocked again by rt_sigreturn */
    return 1;
}

/* The handler scribbles on xmm0 and on callee-saved registers; the code it
 * interrupted must find them intact. */
static void clobber(int signal, siginfo_t *info, void *context)
{
    (void)signal, (void)info, (void)context;
    __asm__ volatile("pcmpeqb %%xmm0, %%xmm0\n\tmov $0x5a5a, %%rbx\n\tmov $0x5a5a, %%r12" ::: "xmm0", "rbx", "r12");
    handled++;
}

static int registers_survive(void)
{
    uint64_t in[2] = { 0x1122334455667788, 0x99aabbccddeeff00 }, out[2];
    uint64_t rbx_after, r12_after;
    long pid = getpid();
    handled = 0;
    set_siginfo_handler(SIGUSR2, clobber, 0);
    __asm__ volatile("movdqu %[in], %%xmm0\n\t"
                     "mov $0x1234, %%rbx\n\t"
                     "mov $0x5678, %%r12\n\t"
                     "mov %[nr], %%eax\n\t"
                     "mov %[pid], %%rdi\n\t"
                     "mov %[sig], %%esi\n\t"
                     "syscall\n\t"
                     "movdqu %%xmm0, %[out]\n\t"
                     "mov %%rbx, %[rbx]\n\t"
                     "mov %%r12, %[r12]"
                     : [out] "=m"(out), [rbx] "=r"(rbx_after), [r12] "=r"(r12_after)
                     : [in] "m"(in), [nr] "i"(SYS_kill), [pid] "r"(pid), [sig] "i"(SIGUSR2)
                     : "rax", "rdi", "rsi", "rcx", "r11", "rbx", "r12", "xmm0", "memory");
    CHECK(handled == 1);
    CHECK(out[0] == in[0] && out[1] == in[1]);
    CHECK(rbx_after == 0x1234 && r12_after == 0x5678);
    return 1;
}

/* --- exceptions become signals ------------------------------------------ */

static sigjmp_buf escape;
static volatile uintptr_t fault_address;

static void jump_out(int signal, siginfo_t *info, void *context)
{
    (void)context;
    fault_address = (uintptr_t)info->si_addr;
    siglongjmp(escape, signal);
}

static int raise_by_fault(int kind)
{
    int result = 0;
    switch (kind) {
    case SIGSEGV:
        __asm__ volatile("mov 0x10, %0" : "=r"(result));
        break;
    case SIGILL:
        __asm__ volatile("ud2");
        break;
    case SIGTRAP:
        __asm__ volatile("int3");
        break;
    case SIGFPE:
        __asm__ volatile("xor %%ecx, %%ecx\n\tmov $1, %%eax\n\tcltd\n\tidiv %%ecx" : "=a"(result) : : "rcx", "rdx");
        break;
    }
    return result;
}

static int exceptions_reach_handlers(void)
{
    static const int kinds[] = { SIGSEGV, SIGILL, SIGTRAP, SIGFPE };
    for (unsigned i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
        set_siginfo_handler(kinds[i], jump_out, SA_NODEFER);
        int caught = sigsetjmp(escape, 1);
        if (caught == 0) {
            raise_by_fault(kinds[i]);
            CHECK(!"no signal");
        }
        CHECK(caught == kinds[i]);
        if (kinds[i] == SIGSEGV)
            CHECK(fault_address == 0x10);
        set_handler(kinds[i], SIG_DFL, 0);
    }
    return 1;
}

/* A handler may change the interrupted context: skip the ud2. */
static void skip_instruction(int signal, siginfo_t *info, void *context)
{
    (void)signal, (void)info;
    ucontext_t *uc = context;
    uc->uc_mcontext.gregs[REG_RIP] += 2;
    handled++;
}

static int context_can_be_changed(void)
{
    handled = 0;
    set_siginfo_handler(SIGILL, skip_instruction, 0);
    __asm__ volatile("ud2");
    set_handler(SIGILL, SIG_DFL, 0);
    CHECK(handled == 1);
    return 1;
}

/* --- blocking, pending, sigsuspend -------------------------------------- */

static int blocked_signals_wait(void)
{
    sigset_t block = signal_set(SIGUSR1), pending;
    handled = 0;
    set_siginfo_handler(SIGUSR1, record, 0);
    sigprocmask(SIG_BLOCK, &block, 0);
    kill(getpid(), SIGUSR1);
    CHECK(handled == 0);
    sigpending(&pending);
    CHECK(sigismember(&pending, SIGUSR1));
    sigprocmask(SIG_UNBLOCK, &block, 0); /* delivered before this returns */
    CHECK(handled == 1);
    sigpending(&pending);
    CHECK(!sigismember(&pending, SIGUSR1));
    return 1;
}

static int sigsuspend_waits_for_child(void)
{
    sigset_t block = signal_set(SIGCHLD), empty, after;
    handled = 0;
    set_siginfo_handler(SIGCHLD, record, 0);
    sigprocmask(SIG_BLOCK, &block, 0);
    pid_t pid = fork();
    if (pid == 0) {
        sleep_ms(20);
        _exit(5);
    }
    sigemptyset(&empty);
    while (!handled)
        CHECK(sigsuspend(&empty) == -1 && errno == EINTR);
    CHECK(seen_signal == SIGCHLD && seen_pid == pid && seen_code == CLD_EXITED);
    sigprocmask(SIG_BLOCK, 0, &after);
    CHECK(sigismember(&after, SIGCHLD)); /* sigsuspend's mask is gone again */
    CHECK(exit_status_of(pid) == 5);
    sigprocmask(SIG_UNBLOCK, &block, 0);
    set_handler(SIGCHLD, SIG_DFL, 0);
    return 1;
}

/* --- default actions and deaths ----------------------------------------- */

static void die_by_term(void) { kill(getpid(), SIGTERM); pause(); }
static void die_by_segv(void) { raise_by_fault(SIGSEGV); }
static void die_by_pipe(void)
{
    int fds[2];
    pipe(fds);
    close(fds[0]);
    write(fds[1], "x", 1);
}
static void survive_pipe_ignored(void)
{
    int fds[2];
    set_handler(SIGPIPE, SIG_IGN, 0);
    pipe(fds);
    close(fds[0]);
    _exit(write(fds[1], "x", 1) == -1 && errno == EPIPE ? 7 : 1);
}
static void die_after_resethand(void)
{
    set_siginfo_handler(SIGUSR1, record, SA_RESETHAND);
    kill(getpid(), SIGUSR1);   /* handled, and the action reset */
    kill(getpid(), SIGUSR1);   /* default: terminate */
    _exit(1);
}
static void ignore_and_go_on(void)
{
    set_handler(SIGUSR2, SIG_IGN, 0);
    kill(getpid(), SIGUSR2);
    _exit(9);
}

static int default_actions(void)
{
    int status = status_of_child(die_by_term);
    CHECK(killed_by(status, SIGTERM) && !WCOREDUMP(status));
    status = status_of_child(die_by_segv);
    CHECK(killed_by(status, SIGSEGV));
    status = status_of_child(die_by_pipe);
    CHECK(killed_by(status, SIGPIPE));
    status = status_of_child(survive_pipe_ignored);
    CHECK(exited_with(status, 7));
    status = status_of_child(die_after_resethand);
    CHECK(killed_by(status, SIGUSR1));
    status = status_of_child(ignore_and_go_on);
    CHECK(exited_with(status, 9));
    return 1;
}

/* --- interrupted system calls: EINTR, or restarted with SA_RESTART ------ */

static void noop(int signal, siginfo_t *info, void *context) { (void)signal, (void)info, (void)context; handled++; }

static int interrupted_read(int flags)
{
    int fds[2];
    char byte = 0;
    CHECK(pipe(fds) == 0);
    handled = 0;
    set_siginfo_handler(SIGUSR1, noop, flags);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        sleep_ms(20);
        kill(parent, SIGUSR1);
        sleep_ms(20);
        write(fds[1], "z", 1);
        _exit(0);
    }
    ssize_t got = read(fds[0], &byte, 1);
    int saved = errno;
    waitpid(pid, 0, 0);
    close(fds[0]);
    close(fds[1]);
    CHECK(handled == 1);
    if (flags & SA_RESTART)
        CHECK(got == 1 && byte == 'z');
    else
        CHECK(got == -1 && saved == EINTR);
    return 1;
}

static int read_gets_eintr(void) { return interrupted_read(0); }
static int read_restarts(void) { return interrupted_read(SA_RESTART); }

static int nanosleep_reports_time_left(void)
{
    struct timespec request = { 5, 0 }, left = { 0, 0 };
    handled = 0;
    set_siginfo_handler(SIGUSR1, noop, 0);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        sleep_ms(20);
        kill(parent, SIGUSR1);
        _exit(0);
    }
    int result = nanosleep(&request, &left);
    int saved = errno;
    waitpid(pid, 0, 0);
    CHECK(result == -1 && saved == EINTR && handled == 1);
    CHECK(left.tv_sec > 0 && left.tv_sec <= 5);
    return 1;
}

/* --- rt_sigtimedwait (sigwait, sigwaitinfo, sigtimedwait) -------------
 * Called raw: musl's sigtimedwait retries on EINTR, which is checked here. */

static long timed_wait(const sigset_t *set, siginfo_t *info, const struct timespec *timeout)
{
    return syscall(SYS_rt_sigtimedwait, set, info, timeout, 8);
}

/* The sigtimedwait cases run in a child: this program may be pid 1 on
 * nohzk, which drops signals it has no handler for (and takes SIGUSR1,
 * SIGUSR2 and SIGTERM sent to it for a request to power off). */
static int in_a_child(int (*body)(void))
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        int passed = body();
        fflush(stdout);
        _exit(passed ? 0 : 1);
    }
    return exited_with(wait_status(pid), 0);
}

/* A child that sends signal to us once we sleep (in the wait). */
static pid_t signal_when_asleep(int signal)
{
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        if (state_soon(parent, 'S'))
            kill(parent, signal);
        _exit(0);
    }
    return pid;
}

/* Thread-directed before process-directed, then the lowest number; the
 * siginfo says who sent it and how. */
static int rt_sigtimedwait_takes_pending_in_order_body(void)
{
    sigset_t set = signal_set(SIGUSR1), old;
    sigaddset(&set, SIGUSR2);
    sigaddset(&set, SIGTERM);
    sigprocmask(SIG_BLOCK, &set, &old);
    struct timespec zero = { 0, 0 };
    siginfo_t info;
    CHECK(kill(getpid(), SIGUSR1) == 0);
    CHECK(syscall(SYS_tgkill, getpid(), syscall(SYS_gettid), SIGUSR2) == 0);
    CHECK(kill(getpid(), SIGTERM) == 0);
    memset(&info, 0xff, sizeof(info));
    CHECK(timed_wait(&set, &info, &zero) == SIGUSR2);
    CHECK(info.si_signo == SIGUSR2 && info.si_code == SI_TKILL && info.si_pid == getpid() &&
          info.si_uid == getuid());
    CHECK(timed_wait(&set, &info, &zero) == SIGUSR1);
    CHECK(info.si_signo == SIGUSR1 && info.si_code == SI_USER && info.si_pid == getpid());
    CHECK(timed_wait(&set, 0, 0) == SIGTERM);          /* NULL info; pending, so no wait */
    CHECK(timed_wait(&set, &info, &zero) == -1 && errno == EAGAIN);     /* a poll: nothing left */
    sigset_t pending;
    sigpending(&pending);
    CHECK(!sigismember(&pending, SIGUSR1) && !sigismember(&pending, SIGUSR2));
    sigprocmask(SIG_SETMASK, &old, 0);
    return 1;
}

static int rt_sigtimedwait_bad_arguments_body(void)
{
    sigset_t set = signal_set(SIGUSR1), old;
    sigprocmask(SIG_BLOCK, &set, &old);
    struct timespec zero = { 0, 0 }, bad_ns = { 0, 1000000000 }, negative = { -1, 0 };
    siginfo_t info;
    CHECK(syscall(SYS_rt_sigtimedwait, &set, &info, &zero, 4) == -1 && errno == EINVAL);
    CHECK(syscall(SYS_rt_sigtimedwait, &set, &info, &zero, 16) == -1 && errno == EINVAL);
    CHECK(timed_wait((sigset_t *)8, &info, &zero) == -1 && errno == EFAULT);
    CHECK(timed_wait((sigset_t *)0xffff800000000000ul, &info, &zero) == -1 && errno == EFAULT);
    CHECK(timed_wait(&set, &info, (struct timespec *)8) == -1 && errno == EFAULT);
    CHECK(timed_wait(&set, &info, &bad_ns) == -1 && errno == EINVAL);
    CHECK(timed_wait(&set, &info, &negative) == -1 && errno == EINVAL);
    CHECK(kill(getpid(), SIGUSR1) == 0);
    CHECK(timed_wait(&set, &info, &bad_ns) == -1 && errno == EINVAL);   /* checked before taking */
    CHECK(timed_wait(&set, (siginfo_t *)8, &zero) == -1 && errno == EFAULT);   /* taken, then lost */
    CHECK(timed_wait(&set, &info, &zero) == -1 && errno == EAGAIN);
    struct timespec short_wait = { 0, 20 * 1000000 };
    CHECK(timed_wait(&set, &info, &short_wait) == -1 && errno == EAGAIN);  /* the time passes */
    sigprocmask(SIG_SETMASK, &old, 0);
    return 1;
}

/* No timeout waits for ever: until the signal comes, even one the
 * caller did not block (it is taken, its handler does not run); another
 * signal with a handler ends it with EINTR. */
static int rt_sigtimedwait_waits_body(void)
{
    sigset_t set = signal_set(SIGUSR1), old;
    siginfo_t info;
    sigprocmask(SIG_BLOCK, &set, &old);
    pid_t pid = signal_when_asleep(SIGUSR1);
    CHECK(timed_wait(&set, &info, 0) == SIGUSR1);
    CHECK(info.si_code == SI_USER && info.si_pid == pid);
    waitpid(pid, 0, 0);
    sigprocmask(SIG_SETMASK, &old, 0);

    handled = 0;
    set_siginfo_handler(SIGUSR1, noop, 0);
    pid = signal_when_asleep(SIGUSR1);
    CHECK(timed_wait(&set, &info, 0) == SIGUSR1 && handled == 0);
    waitpid(pid, 0, 0);

    set_siginfo_handler(SIGUSR2, noop, 0);
    pid = signal_when_asleep(SIGUSR2);
    CHECK(timed_wait(&set, &info, 0) == -1 && errno == EINTR && handled == 1);
    waitpid(pid, 0, 0);
    set_handler(SIGUSR1, SIG_DFL, 0);
    set_handler(SIGUSR2, SIG_DFL, 0);
    return 1;
}

/* A signal whose default is to be ignored (SIGCHLD), blocked and waited
 * for: it is not dropped while the wait has it unblocked (Linux's
 * real_blocked). */
static int rt_sigtimedwait_ignored_by_default_body(void)
{
    sigset_t set = signal_set(SIGCHLD), old;
    sigprocmask(SIG_BLOCK, &set, &old);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0)
        _exit(state_soon(parent, 'S') ? 5 : 6);
    struct timespec ten = { 10, 0 };
    siginfo_t info;
    CHECK(timed_wait(&set, &info, &ten) == SIGCHLD);
    CHECK(info.si_code == CLD_EXITED && info.si_pid == pid && info.si_status == 5);
    CHECK(exited_with(wait_status(pid), 5));
    sigprocmask(SIG_SETMASK, &old, 0);
    return 1;
}

/* SIGKILL in the set is not waited for: it kills. */
static void wait_for_sigkill(void)
{
    sigset_t set = signal_set(SIGKILL);
    sigaddset(&set, SIGSTOP);
    pid_t pid = signal_when_asleep(SIGKILL);
    timed_wait(&set, 0, 0);
    (void)pid;
    _exit(1);
}

/* A stop and a continue during the wait: the wait ends (EINTR on Linux,
 * sigwait's loop goes on) and the signal still comes. */
static void wait_through_stop(void)
{
    sigset_t set = signal_set(SIGUSR1);
    sigprocmask(SIG_BLOCK, &set, 0);
    long result;
    do
        result = timed_wait(&set, 0, 0);
    while (result == -1 && errno == EINTR);
    _exit((int)result);
}

static int rt_sigtimedwait_kill_and_stop_body(void)
{
    CHECK(killed_by(status_of_child(wait_for_sigkill), SIGKILL));
    pid_t pid = fork();
    if (pid == 0)
        wait_through_stop();
    CHECK(state_soon(pid, 'S'));
    CHECK(kill(pid, SIGSTOP) == 0);
    CHECK(state_soon(pid, 'T'));
    CHECK(kill(pid, SIGCONT) == 0);
    CHECK(state_soon(pid, 'S'));
    CHECK(kill(pid, SIGUSR1) == 0);
    CHECK(exited_with(wait_status(pid), SIGUSR1));
    return 1;
}

static int rt_sigtimedwait_takes_pending_in_order(void) { return in_a_child(rt_sigtimedwait_takes_pending_in_order_body); }
static int rt_sigtimedwait_bad_arguments(void) { return in_a_child(rt_sigtimedwait_bad_arguments_body); }
static int rt_sigtimedwait_waits(void) { return in_a_child(rt_sigtimedwait_waits_body); }
static int rt_sigtimedwait_ignored_by_default(void) { return in_a_child(rt_sigtimedwait_ignored_by_default_body); }
static int rt_sigtimedwait_kill_and_stop(void) { return in_a_child(rt_sigtimedwait_kill_and_stop_body); }

/* --- bad input: errors, nothing changed, and only the process dies ------ */

static int bad_arguments_rejected(void)
{
    struct sigaction action, old;
    memset(&action, 0, sizeof(action));
    action.sa_handler = SIG_IGN;
    CHECK(syscall(SYS_rt_sigaction, 0, &action, 0, 8) == -1 && errno == EINVAL);
    CHECK(syscall(SYS_rt_sigaction, 65, &action, 0, 8) == -1 && errno == EINVAL);
    CHECK(syscall(SYS_rt_sigaction, SIGKILL, &action, 0, 8) == -1 && errno == EINVAL);
    CHECK(syscall(SYS_rt_sigaction, SIGUSR1, &action, 0, 4) == -1 && errno == EINVAL);
    CHECK(syscall(SYS_rt_sigaction, SIGUSR1, (void *)8, 0, 8) == -1 && errno == EFAULT);
    sigaction(SIGUSR1, 0, &old);
    CHECK(old.sa_handler == SIG_DFL || old.sa_flags != 0); /* unchanged by the failures */
    sigset_t set;
    sigemptyset(&set);
    CHECK(syscall(SYS_rt_sigprocmask, 7, &set, 0, 8) == -1 && errno == EINVAL);
    CHECK(syscall(SYS_rt_sigprocmask, SIG_BLOCK, &set, 0, 4) == -1 && errno == EINVAL);
    CHECK(syscall(SYS_rt_sigprocmask, SIG_BLOCK, (void *)8, 0, 8) == -1 && errno == EFAULT);
    CHECK(kill(getpid(), 65) == -1 && errno == EINVAL);
    CHECK(kill(999999, SIGUSR1) == -1 && errno == ESRCH);
    CHECK(kill(getpid(), 0) == 0);
    return 1;
}

static void bad_sigreturn(void)
{
    __asm__ volatile("mov $0x10, %%rsp\n\tmov %0, %%eax\n\tsyscall" : : "i"(SYS_rt_sigreturn));
}

static void no_stack_for_handler(void)
{
    set_siginfo_handler(SIGILL, noop, 0);
    __asm__ volatile("mov $0x10, %rsp\n\tud2");
}

static int broken_frames_kill_only_the_process(void)
{
    int status = status_of_child(bad_sigreturn);
    CHECK(killed_by(status, SIGSEGV));
    status = status_of_child(no_stack_for_handler);
    CHECK(killed_by(status, SIGSEGV));
    return 1;
}

int main(void)
{
    static const struct ktap_case cases[] = {
        KTAP_CASE(handler_runs),
        KTAP_CASE(registers_survive),
        KTAP_CASE(exceptions_reach_handlers),
        KTAP_CASE(context_can_be_changed),
        KTAP_CASE(blocked_signals_wait),
        KTAP_CASE(sigsuspend_waits_for_child),
        KTAP_CASE(default_actions),
        KTAP_CASE(read_gets_eintr),
        KTAP_CASE(read_restarts),
        KTAP_CASE(nanosleep_reports_time_left),
        KTAP_CASE(rt_sigtimedwait_takes_pending_in_order),
        KTAP_CASE(rt_sigtimedwait_bad_arguments),
        KTAP_CASE(rt_sigtimedwait_waits),
        KTAP_CASE(rt_sigtimedwait_ignored_by_default),
        KTAP_CASE(rt_sigtimedwait_kill_and_stop),
        KTAP_CASE(bad_arguments_rejected),
        KTAP_CASE(broken_frames_kill_only_the_process),
    };
    return ktap_main(cases, KTAP_COUNT(cases));
}
