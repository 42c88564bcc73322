/* The calls of a process's life and identity: fork, vfork, execve, exit
 * and wait4; getpid, gettid, getppid,
 * set_tid_address, arch_prctl and the user and group ids. Linux's
 * semantics for the documented subset; see docs/user-space.md for what is
 * left out. Memory calls are in kernel/mm/mmap.c, signals in signal.c,
 * sessions and groups in job_control.c, limits and usage in
 * resource_syscalls.c, clone and clone3 in clone.c, exit_group in
 * thread_group.c. */
#include "kernel/entry/syscall.h"

#include "arch/x86/cpu.h"
#include "arch/x86/paging.h"
#include "arch/x86/trap.h"
#include "arch/x86/user_mode.h"
#include "kernel/lib/errno.h"
#include "kernel/mm/heap.h"
#include "kernel/mm/uaccess.h"
#include "kernel/process/exec_args.h"
#include "kernel/process/process.h"
#include "kernel/process/signal.h"
#include "kernel/fs/vfs.h"
#include "sched/task.h"
#include "sched/wait.h"

/* --- fork -------------------------------------------------------------- */

struct child_start {
    struct trap_frame frame;
    struct fork_child_setup setup;
};

static void return_to_user_as_child(void *arg)
{
    struct child_start start = *(struct child_start *)arg;     /* a local: see user_mode_start() */
    struct thread *self = current_thread();

    kfree(arg);
    if (start.setup.set_tls) {
        self->fs_base = start.setup.tls;
        wrmsr(MSR_FS_BASE, start.setup.tls);
    }
    self->clear_child_tid = start.setup.clear_child_tid;
    if (start.setup.set_child_tid) {
        int tid = self->tid;
        (void)copy_to_user((void *)start.setup.set_child_tid, &tid, sizeof(tid));  /* a bad address: Linux ignores it too */
    }
    start.frame.rax = 0;            /* fork returns 0 in the child */
    irq_disable();
    user_mode_resume(&start.frame);
}

/* A vfork parent's wait: until the child gives the memory back, or a
 * fatal signal comes (Linux's wait is killable too). Then we die at once,
 * leaving the memory to the child (process_exit), which may still be
 * running in it. Other signals wait, as on Linux. */
static void wait_for_memory_back(struct process *parent, struct process *child)
{
    struct wait_entry entry = { 0 };
    int fatal = 0;

    parent->lent_memory_to = child;
    for (;;) {
        wait_prepare(&parent->child_exited, &entry);
        if (!__atomic_load_n(&child->memory_borrowed, __ATOMIC_ACQUIRE) || (fatal = signal_fatal_pending()))
            break;
        schedule();
    }
    wait_finish(&parent->child_exited, &entry);
    if (fatal)
        process_exit(WAIT_STATUS_SIGNALED(fatal));
    parent->lent_memory_to = 0;
}

/* A child that returns from the system call as the parent does, but with
 * 0, and on child_stack if one is given (clone's stack argument). With
 * share_memory (vfork), the child runs in our memory and we sleep until
 * it has exec'd or exited, as Linux's vfork: a child writing into our
 * memory (glibc's posix_spawn reports a failed exec that way) is seen.
 * A vfork child's own vfork is a fork: it cannot lend what it borrows. */
long fork_onto(uint64_t child_stack, bool share_memory, const struct fork_child_setup *setup)
{
    struct process *parent = current_process();
    if (parent->memory_borrowed)
        share_memory = false;
    struct child_start *start = kzalloc(sizeof(*start));
    if (!start)
        return -ENOMEM;
    start->frame = *current_task()->syscall_frame;
    if (child_stack)
        start->frame.rsp = child_stack;
    if (setup)
        start->setup = *setup;
    struct process *child = process_fork(parent, return_to_user_as_child, start, share_memory);
    if (!child) {
        kfree(start);
        return -ENOMEM;
    }
    int pid = child->pid;   /* the child is ours to reap: it stays until our wait4 */
    if (share_memory)
        wait_for_memory_back(parent, child);
    return pid;
}

SYSCALL_DEFINE0(fork)
{
    return fork_onto(0, false, 0);
}

SYSCALL_DEFINE0(vfork)
{
    return fork_onto(0, true, 0);
}

/* --- execve ------------------------------------------------------------ */

SYSCALL_DEFINE3(execve, const char *, user_path, const char *const *, user_argv, const char *const *, user_envp)
{
    char path[PATH_MAX];
    struct exec_args args;
    struct exec_start start;

    long error = strncpy_from_user(path, user_path, sizeof(path));
    if (error < 0)
        return error;
    error = exec_args_copy(&args, path, user_argv, user_envp,
                           current_process()->rlimits[RLIMIT_STACK].current);
    if (error)
        return error;
    error = process_execve(path, args.argv, args.envp, &start);
    exec_args_free(&args);
    if (error)
        return error;
    struct trap_frame *frame = current_task()->syscall_frame;
    *frame = (struct trap_frame){ .rip = start.entry, .rsp = start.stack_pointer, .cs = frame->cs,
                                  .ss = frame->ss, .rflags = RFLAGS_IF, .vector = frame->vector };
    return 0;
}

/* --- exit and wait4 ---------------------------------------------------- */

/* One thread ends (thread_exit); exit_group is thread_group.c's. */
SYSCALL_DEFINE1(exit, int, code)
{
    thread_exit(WAIT_STATUS_EXITED(code));
}


#define WAIT_THREAD_FLAGS 0xe0000000u   /* __WNOTHREAD, __WALL, __WCLONE: threads are never waited for */

SYSCALL_DEFINE4(wait4, int64_t, pid, int *, user_status, uint64_t, options, void *, user_rusage)
{
    (void)user_rusage;
    if (options & ~(uint64_t)(WAIT_NO_HANG | WAIT_UNTRACED | WAIT_CONTINUED | WAIT_THREAD_FLAGS))
        return -EINVAL;
    int status = 0;
    long reaped = process_wait_child((int)pid, (int)options, &status);
    if (reaped > 0 && user_status && copy_to_user(user_status, &status, sizeof(status)) < 0)
        return -EFAULT;
    return reaped;
}

/* --- identity and small ones ------------------------------------------- */

SYSCALL_DEFINE0(getpid)
{
    return current_process()->pid;
}

/* One task per process: its thread id is the process id. */
SYSCALL_DEFINE0(gettid)
{
    return current_thread()->tid;
}

/* Without process_tree_lock: the parent may exit and be freed at any
 * moment, its pid copied into the child may not (Linux reads it under
 * RCU for the same reason). */
SYSCALL_DEFINE0(getppid)
{
    return __atomic_load_n(&current_process()->parent_pid, __ATOMIC_RELAXED);
}

SYSCALL_DEFINE1(set_tid_address, uint64_t, address)
{
    current_thread()->clear_child_tid = address;
    return current_thread()->tid;
}

#define ARCH_SET_FS 0x1002
#define ARCH_GET_FS 0x1003

SYSCALL_DEFINE2(arch_prctl, uint64_t, code, uint64_t, address)
{
    struct thread *thread = current_thread();

    if (code == ARCH_SET_FS) {
        if (address >= USER_MAP_END)
            return -EPERM;      /* Linux's TASK_SIZE_MAX: not even the last page below 2^47 */
        thread->fs_base = address;
        wrmsr(MSR_FS_BASE, address);
        return 0;
    }
    if (code == ARCH_GET_FS)
        return copy_to_user((void *)address, &thread->fs_base, sizeof(uint64_t));
    return -EINVAL;
}

/* Everyone is root: the ids are 0, and setting one to itself (or any
 * other) changes nothing; -1 is no id. */
SYSCALL_DEFINE0(getuid) { return 0; }
SYSCALL_DEFINE0(getgid) { return 0; }
SYSCALL_DEFINE0(geteuid) { return 0; }
SYSCALL_DEFINE0(getegid) { return 0; }
SYSCALL_DEFINE1(setuid, uint32_t, uid) { return uid == (uint32_t)-1 ? -EINVAL : 0; }
SYSCALL_DEFINE1(setgid, uint32_t, gid) { return gid == (uint32_t)-1 ? -EINVAL : 0; }
