/* The system call table and the one path every system call takes.
 *
 * syscall_entry (arch/x86/syscall_entry.asm) saves the user registers as a
 * struct trap_frame and calls syscall_dispatch(), which leaves user context
 * (enter_from_user_mode), enables interrupts, arms fault injection if the
 * process asked (kernel/mm/fault_inject.h), runs the handler with Linux's
 * argument registers (rdi, rsi, rdx, r10, r8, r9), stores the result in rax,
 * and goes back through exit_to_user_mode() (kernel/entry/entry.c). A
 * number nohzk does not implement returns -ENOSYS; with strace=1 on the
 * kernel command line every call is logged with its name, arguments and
 * result, so a missing one shows at once. */
#include <stdbool.h>

#include "kernel/entry/syscall.h"
#include "kernel/entry/entry.h"

#include "arch/x86/cpu.h"
#include "arch/x86/trap.h"
#include "kernel/lib/errno.h"
#include "kernel/base/panic.h"
#include "kernel/base/percpu.h"
#include "kernel/console/console.h"
#include "kernel/base/printk.h"
#include "kernel/fs/fs_syscalls.h"
#include "kernel/process/process.h"
#include "kernel/fs/poll.h"
#include "kernel/process/poweroff.h"
#include "kernel/process/process_syscalls.h"
#include "kernel/process/signal.h"
#include "kernel/process/resource_syscalls.h"
#include "kernel/process/sleep_syscalls.h"
#include "kernel/lib/string.h"
#include "kernel/mm/uaccess.h"
#include "kernel/fs/vfs.h"
#include "sched/task.h"

bool syscall_trace;

typedef long (*syscall_fn)(uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5);

struct syscall_entry {
    const char *name;
    syscall_fn handler;
};

/* Adapters from the six raw registers to each handler's own types. */
/* A clockid_t is an int: the upper half of the register is dropped, and a
 * negative id (a CPU clock of a pid, left out) stays out of range. */
#define CLOCK_ID(a) ((uint64_t)(int64_t)(int)(a))
#define WRAP(name, call)                                                                          \
    static long wrap_##name(uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5) \
    {                                                                                             \
        (void)a0, (void)a1, (void)a2, (void)a3, (void)a4, (void)a5;                               \
        return call;                                                                              \
    }

WRAP(read, sys_read((int)a0, (void *)a1, a2))
WRAP(write, current_process()->files ? sys_write((int)a0, (const void *)a1, a2)
                                      : sys_write_console(a0, (const char *)a1, a2))
WRAP(open, sys_open((const char *)a0, (int)a1, (uint32_t)a2))
WRAP(close, sys_close((int)a0))
WRAP(stat, sys_stat((const char *)a0, (struct linux_stat *)a1))
WRAP(fstat, sys_fstat((int)a0, (struct linux_stat *)a1))
WRAP(statfs, sys_statfs((const char *)a0, (struct linux_statfs *)a1))
WRAP(fstatfs, sys_fstatfs((int)a0, (struct linux_statfs *)a1))
WRAP(lstat, sys_lstat((const char *)a0, (struct linux_stat *)a1))
WRAP(lseek, sys_lseek((int)a0, (int64_t)a1, (int)a2))
WRAP(mmap, sys_mmap(a0, a1, a2, a3, (int64_t)a4, a5))
WRAP(mprotect, sys_mprotect(a0, a1, a2))
WRAP(munmap, sys_munmap(a0, a1))
WRAP(brk, sys_brk(a0))
WRAP(mlockall, sys_mlockall((int)a0))             /* an int: the upper half is dropped */
WRAP(munlockall, sys_munlockall())
WRAP(rt_sigaction, sys_rt_sigaction((int)a0, (const void *)a1, (void *)a2, a3))
WRAP(rt_sigprocmask, sys_rt_sigprocmask((int)a0, (const uint64_t *)a1, (uint64_t *)a2, a3))
WRAP(rt_sigpending, sys_rt_sigpending((uint64_t *)a0, a1))
WRAP(rt_sigsuspend, sys_rt_sigsuspend((const uint64_t *)a0, a1))
WRAP(rt_sigreturn, sys_rt_sigreturn())
WRAP(sigaltstack, sys_sigaltstack((const void *)a0, (void *)a1))
WRAP(pause, sys_pause())
WRAP(getrandom, sys_getrandom((void *)a0, a1, (unsigned)a2))
WRAP(clock_nanosleep, sys_clock_nanosleep(CLOCK_ID(a0), a1, (const void *)a2, (void *)a3))
WRAP(tkill, sys_tkill((int)a0, (int)a1))
WRAP(tgkill, (int)a0 <= 0 ? -EINVAL : sys_tgkill((int)a0, (int)a1, (int)a2))     /* -1 is tkill's, inside */
WRAP(ioctl, sys_ioctl((int)a0, a1, a2))
WRAP(readv, sys_readv((int)a0, (const struct linux_iovec *)a1, (int)a2))
WRAP(writev, sys_writev((int)a0, (const struct linux_iovec *)a1, (int)a2))
WRAP(access, sys_access((const char *)a0, (int)a1))
WRAP(dup, sys_dup((int)a0))
WRAP(dup2, sys_dup2((int)a0, (int)a1))
WRAP(nanosleep, sys_nanosleep((const void *)a0, (void *)a1))
WRAP(fork, sys_fork())
WRAP(vfork, sys_vfork())
WRAP(execve, sys_execve((const char *)a0, (const char *const *)a1, (const char *const *)a2))
WRAP(wait4, sys_wait4((int64_t)a0, (int *)a1, a2, (void *)a3))
WRAP(fcntl, sys_fcntl((int)a0, (int)a1, a2))
WRAP(getcwd, sys_getcwd((char *)a0, a1))
WRAP(chdir, sys_chdir((const char *)a0))
WRAP(mkdir, sys_mkdir((const char *)a0, (uint32_t)a1))
WRAP(rmdir, sys_rmdir((const char *)a0))
WRAP(unlink, sys_unlink((const char *)a0))
WRAP(readlink, sys_readlink((const char *)a0, (char *)a1, (int)a2))
WRAP(umask, sys_umask((uint32_t)a0))
WRAP(getuid, sys_get_id_root())
WRAP(setuid, (uint32_t)a0 == (uint32_t)-1 ? -EINVAL : sys_set_id_ignored())     /* -1 is no uid */
WRAP(getpgrp, sys_getpgrp())
WRAP(setpgid, sys_setpgid((int)a0, (int)a1))     /* pid_t: 32 bits */
WRAP(setsid, sys_setsid())
WRAP(getpgid, sys_getpgid((int64_t)(int)a0))
WRAP(getsid, sys_getsid((int64_t)(int)a0))
WRAP(sched_setaffinity, sys_sched_setaffinity((int64_t)a0, a1, (const void *)a2))
WRAP(sched_getaffinity, sys_sched_getaffinity((int64_t)a0, a1, (void *)a2))
WRAP(getdents64, sys_getdents64((int)a0, (void *)a1, (uint32_t)a2))     /* unsigned int count */
WRAP(openat, sys_openat((int)a0, (const char *)a1, (int)a2, (uint32_t)a3))
WRAP(mkdirat, sys_mkdirat((int)a0, (const char *)a1, (uint32_t)a2))
WRAP(newfstatat, sys_newfstatat((int)a0, (const char *)a1, (struct linux_stat *)a2, (int)a3))
WRAP(unlinkat, sys_unlinkat((int)a0, (const char *)a1, (int)a2))
WRAP(readlinkat, sys_readlinkat((int)a0, (const char *)a1, (char *)a2, (int)a3))
WRAP(faccessat, sys_faccessat((int)a0, (const char *)a1, (int)a2))
WRAP(dup3, sys_dup3((int)a0, (int)a1, (int)a2))
WRAP(poll, sys_poll((void *)a0, a1, (int)a2))
WRAP(pipe, sys_pipe((int *)a0))
WRAP(pipe2, sys_pipe2((int *)a0, (int)a1))
WRAP(ppoll, sys_ppoll((void *)a0, a1, (struct linux_timespec *)a2, (const uint64_t *)a3, a4))
WRAP(select, sys_select((int)a0, (uint64_t *)a1, (uint64_t *)a2, (uint64_t *)a3, (void *)a4))     /* int nfds */
WRAP(pselect6, sys_pselect6((int)a0, (uint64_t *)a1, (uint64_t *)a2, (uint64_t *)a3, (struct linux_timespec *)a4,
                            (const void *)a5))
WRAP(getrusage, sys_getrusage((int)a0, (void *)a1))     /* int who */
WRAP(setitimer, sys_setitimer((int)a0, (const void *)a1, (void *)a2))     /* int which: 32 bits */
WRAP(getitimer, sys_getitimer((int)a0, (void *)a1))
WRAP(alarm, sys_alarm((unsigned)a0))     /* unsigned int seconds */
WRAP(times, sys_times((void *)a0))
WRAP(sysinfo, sys_sysinfo((void *)a0))
WRAP(prlimit64, sys_prlimit64((int)a0, (uint32_t)a1, (const void *)a2, (void *)a3))     /* pid_t, unsigned int */
WRAP(getrlimit, sys_getrlimit((uint32_t)a0, (void *)a1))
WRAP(setrlimit, sys_setrlimit((uint32_t)a0, (const void *)a1))
WRAP(getcpu, sys_getcpu((unsigned *)a0, (unsigned *)a1, (void *)a2))
WRAP(restart_syscall, sys_restart_syscall())
WRAP(rename, sys_rename((const char *)a0, (const char *)a1))
WRAP(renameat, sys_renameat2((int)a0, (const char *)a1, (int)a2, (const char *)a3, 0))
WRAP(renameat2, sys_renameat2((int)a0, (const char *)a1, (int)a2, (const char *)a3, (unsigned)a4))
WRAP(link, sys_link((const char *)a0, (const char *)a1))
WRAP(linkat, sys_linkat((int)a0, (const char *)a1, (int)a2, (const char *)a3, (int)a4))
WRAP(symlink, sys_symlink((const char *)a0, (const char *)a1))
WRAP(symlinkat, sys_symlinkat((const char *)a0, (int)a1, (const char *)a2))
WRAP(chmod, sys_chmod((const char *)a0, (uint32_t)a1))
WRAP(fchmod, sys_fchmod((int)a0, (uint32_t)a1))
WRAP(fchmodat, sys_fchmodat((int)a0, (const char *)a1, (uint32_t)a2, 0))
WRAP(exit, sys_exit((int)a0))
WRAP(arch_prctl, sys_arch_prctl(a0, a1))
WRAP(set_tid_address, sys_set_tid_address(a0))

WRAP(kill, sys_kill((int)a0, (int)a1))           /* pid_t and int: 32 bits */
WRAP(reboot, sys_reboot(a0, a1, a2))

#define W(number, name) [number] = { #name, wrap_##name }

static const struct syscall_entry table[] = {
    W(0, read), W(1, write), W(2, open), W(3, close), W(4, stat), W(5, fstat), W(6, lstat),
    W(8, lseek), W(9, mmap), W(10, mprotect), W(11, munmap), W(12, brk), W(13, rt_sigaction),
    W(14, rt_sigprocmask), W(16, ioctl), W(19, readv), W(20, writev), W(21, access), W(32, dup),
    W(33, dup2), W(35, nanosleep), W(57, fork), W(58, vfork),
    W(59, execve), W(61, wait4), W(72, fcntl), W(79, getcwd), W(80, chdir),
    W(83, mkdir), W(84, rmdir), W(87, unlink), W(89, readlink), W(95, umask), W(102, getuid),
    W(105, setuid), [104] = { "getgid", wrap_getuid }, [106] = { "setgid", wrap_setuid },
    [107] = { "geteuid", wrap_getuid }, [108] = { "getegid", wrap_getuid }, W(109, setpgid),
    W(111, getpgrp), W(112, setsid), W(121, getpgid), W(124, getsid), W(203, sched_setaffinity),
    W(204, sched_getaffinity), W(217, getdents64), W(257, openat),
    W(258, mkdirat), W(262, newfstatat), W(263, unlinkat), W(267, readlinkat), W(269, faccessat),
    W(292, dup3), W(169, reboot), W(62, kill), W(15, rt_sigreturn), W(131, sigaltstack), W(127, rt_sigpending), W(130, rt_sigsuspend),
    W(34, pause), W(219, restart_syscall), W(230, clock_nanosleep), W(318, getrandom), W(200, tkill), W(234, tgkill), W(7, poll), W(271, ppoll), W(23, select), W(270, pselect6), W(22, pipe),
    W(293, pipe2), W(98, getrusage), W(100, times), W(99, sysinfo), W(302, prlimit64), W(97, getrlimit),
    W(160, setrlimit), W(309, getcpu), W(82, rename), W(264, renameat),
    W(316, renameat2), W(86, link), W(265, linkat), W(88, symlink), W(266, symlinkat), W(90, chmod), W(91, fchmod),
    W(268, fchmodat), W(38, setitimer), W(36, getitimer), W(37, alarm),
    W(60, exit), W(158, arch_prctl),
    W(218, set_tid_address), W(151, mlockall), W(152, munlockall),
    W(137, statfs), W(138, fstatfs),
};

#define TABLE_SIZE (sizeof(table) / sizeof(table[0]))

/* The calls registered with SYSCALL_DEFINE (kernel/entry/syscall.h),
 * collected by linker.ld, filed by number at boot. */
extern const struct syscall *const __syscalls_start[], *const __syscalls_end[];
static const struct syscall *by_number[LINUX_SYSCALL_COUNT];

void syscall_table_init(void)
{
    for (const struct syscall *const *entry = __syscalls_start; entry < __syscalls_end; entry++)
        by_number[(*entry)->number] = *entry;
}

const char *syscall_name(uint64_t number)
{
    if (number < LINUX_SYSCALL_COUNT && by_number[number])
        return by_number[number]->name;
    return number < TABLE_SIZE ? table[number].name : 0;
}

static long call(struct trap_frame *frame)
{
    uint64_t number = frame->rax;
    if (number < LINUX_SYSCALL_COUNT && by_number[number])
        return by_number[number]->call(frame->rdi, frame->rsi, frame->rdx, frame->r10, frame->r8, frame->r9);
    if (number >= TABLE_SIZE || !table[number].handler)
        return -ENOSYS;
    return table[number].handler(frame->rdi, frame->rsi, frame->rdx, frame->r10, frame->r8, frame->r9);
}

/* A handler must give back every lock it took and leave interrupts as it
 * found them (on): otherwise the task goes back to user space holding a
 * lock, or with the tick off. Cheap enough for every call; the fuzzer
 * (user/fuzz.c) reaches the error paths where such slips hide. */
static void check_balanced(uint64_t number)
{
    const char *name = syscall_name(number);
    if (this_cpu()->locks_held)
        panic("syscall %s returned with %u spinlocks held", name ? name : "unknown", this_cpu()->locks_held);
    if (!irqs_enabled())
        panic("syscall %s returned with interrupts disabled", name ? name : "unknown");
}

void syscall_dispatch(struct trap_frame *frame)
{
    enter_from_user_mode();
    struct task *task = current_task();
    task->syscall_frame = frame;
    irq_enable();
    struct process *process = task->process;
    bool injecting = process && fault_inject_wanted(&process->fault) && fault_inject_syscall_begin(process);
    long result = call(frame);
    if (injecting)
        fault_inject_syscall_end(process);
    check_balanced(frame->rax);
    if (syscall_trace) {
        const char *name = syscall_name(frame->rax);
        printk("strace: pid %d: %s(%#lx, %#lx, %#lx, %#lx, %#lx, %#lx) = %ld\n", current_process()->pid,
               name ? name : "unknown", frame->rdi, frame->rsi, frame->rdx, frame->r10, frame->r8, frame->r9,
               result);
    }
    frame->rax = (uint64_t)result;
    irq_disable();
    exit_to_user_mode(frame);
}
