/* clone and clone3: a new thread of this process (CLONE_THREAD, what
 * pthread_create asks), or a new process (a fork, or a vfork's
 * CLONE_VM|CLONE_VFORK). The flag checks are Linux 6.1's
 * (kernel/fork.c: copy_process, clone3_args_valid), in its order and
 * with its errno. Left out: namespaces, pidfds, CLONE_PARENT, a thread
 * with files or a working directory of its own (CLONE_THREAD without
 * CLONE_FILES or CLONE_FS), and CLONE_VM without CLONE_THREAD or
 * CLONE_VFORK: each is ENOSYS. */
#include "kernel/process/clone.h"

#include "kernel/entry/syscall.h"
#include "arch/x86/cpu.h"
#include "arch/x86/trap.h"
#include "arch/x86/user_mode.h"
#include "arch/x86/paging.h"
#include "kernel/lib/errno.h"
#include "kernel/mm/heap.h"
#include "kernel/mm/uaccess.h"
#include "kernel/process/process.h"
#include "sched/task.h"

#define CSIGNAL              0x000000ff
#define CLONE_VM             0x00000100
#define CLONE_FS             0x00000200
#define CLONE_FILES          0x00000400
#define CLONE_SIGHAND        0x00000800
#define CLONE_PIDFD          0x00001000
#define CLONE_PTRACE         0x00002000
#define CLONE_VFORK          0x00004000
#define CLONE_PARENT         0x00008000
#define CLONE_THREAD         0x00010000
#define CLONE_NEWNS          0x00020000
#define CLONE_SYSVSEM        0x00040000
#define CLONE_SETTLS         0x00080000
#define CLONE_PARENT_SETTID  0x00100000
#define CLONE_CHILD_CLEARTID 0x00200000
#define CLONE_DETACHED       0x00400000
#define CLONE_UNTRACED       0x00800000
#define CLONE_CHILD_SETTID   0x01000000
#define CLONE_NEWCGROUP      0x02000000
#define CLONE_NEWUTS         0x04000000
#define CLONE_NEWIPC         0x08000000
#define CLONE_NEWUSER        0x10000000
#define CLONE_NEWPID         0x20000000
#define CLONE_NEWNET         0x40000000
#define CLONE_IO             0x80000000ul
#define CLONE_NEWTIME        0x00000080
#define CLONE_CLEAR_SIGHAND  0x100000000ul
#define CLONE_INTO_CGROUP    0x200000000ul
#define CLONE_NAMESPACES (CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC | CLONE_NEWUSER | \
                          CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWTIME)

/* copy_process's checks, in its order. */
static long check_flags(uint64_t flags)
{
    if ((flags & (CLONE_NEWNS | CLONE_FS)) == (CLONE_NEWNS | CLONE_FS))
        return -EINVAL;
    if ((flags & (CLONE_NEWUSER | CLONE_FS)) == (CLONE_NEWUSER | CLONE_FS))
        return -EINVAL;
    if ((flags & CLONE_THREAD) && !(flags & CLONE_SIGHAND))
        return -EINVAL;     /* thread groups must share signals */
    if ((flags & CLONE_SIGHAND) && !(flags & CLONE_VM))
        return -EINVAL;     /* shared signal handlers imply a shared VM */
    if ((flags & CLONE_THREAD) && (flags & (CLONE_NEWUSER | CLONE_NEWPID)))
        return -EINVAL;
    if ((flags & CLONE_PIDFD) && (flags & (CLONE_DETACHED | CLONE_THREAD)))
        return -EINVAL;
    return 0;
}

/* What nohzk does not do, past Linux's checks. */
static bool supported(uint64_t flags)
{
    if (flags & (CLONE_NAMESPACES | CLONE_PIDFD | CLONE_PARENT | CLONE_INTO_CGROUP))
        return false;
    if (flags & CLONE_THREAD)
        return (flags & (CLONE_FS | CLONE_FILES)) == (CLONE_FS | CLONE_FILES);
    return !(flags & (CLONE_SIGHAND | CLONE_FS | CLONE_FILES)) && (!(flags & CLONE_VM) || (flags & CLONE_VFORK));
}

struct thread_start {
    struct trap_frame frame;
};

/* The new thread's first code: back to user mode where its creator
 * returns from clone, with 0 and on its own stack. */
static void thread_start(void *arg)
{
    struct trap_frame frame = *(struct trap_frame *)arg;     /* a local: see user_mode_start() */

    kfree(arg);
    frame.rax = 0;
    irq_disable();
    user_mode_resume(&frame);
}

/* A thread of the current process; its tid, or -EAGAIN if the group is
 * ending or an exec is under way (as Linux refuses a fork with a fatal
 * signal pending), -ENOMEM. */
static long clone_thread(const struct clone_request *request)
{
    struct thread *self = current_thread();
    struct process *process = self->process;

    thread_sweep(process);
    struct trap_frame *frame = kmalloc(sizeof(*frame));
    struct thread *thread = kzalloc(sizeof(*thread));
    if (!frame || !thread) {
        kfree(frame);
        kfree(thread);
        return -ENOMEM;
    }
    *frame = *current_task()->syscall_frame;
    if (request->stack)
        frame->rsp = request->stack;
    thread->process = process;
    thread->fs_base = request->flags & CLONE_SETTLS ? request->tls : self->fs_base;
    thread->mempolicy = self->mempolicy;
    signal_thread_new(&thread->signals, &self->signals);
    thread->tid = process_allocate_pid();
    if (request->flags & CLONE_CHILD_CLEARTID)
        thread->clear_child_tid = request->child_tid;
    struct task *task = kthread_create_stopped(process->name, thread_start, frame, &current_task()->affinity);
    if (!task) {
        kfree(frame);
        kfree(thread);
        return -ENOMEM;
    }
    thread->task = task;
    task->process = process;
    task->thread = thread;
    sched_fork(task, current_task());
    fpu_save(&task->fpu);       /* our registers, as at the clone */
    int tid = thread->tid;
    /* Linux writes both before the thread runs. */
    if (request->flags & CLONE_PARENT_SETTID)
        (void)copy_to_user((void *)request->parent_tid, &tid, sizeof(tid));
    if (request->flags & CLONE_CHILD_SETTID)
        (void)copy_to_user((void *)request->child_tid, &tid, sizeof(tid));

    spin_lock(&process_tree_lock);
    bool refused = process->group_exit || process->exec_thread || signal_fatal_pending();
    if (!refused) {
        struct thread **link = &process->leader.next_in_group;
        while (*link)
            link = &(*link)->next_in_group;
        *link = thread;
        process->live_threads++;
    }
    spin_unlock(&process_tree_lock);
    if (refused) {
        kthread_free_unstarted(task);
        kfree(frame);
        kfree(thread);
        return -EAGAIN;
    }
    process_table_thread_added(process->pid, tid);
    wake_up_task(task);
    return tid;
}

long clone_run(const struct clone_request *request)
{
    long error = check_flags(request->flags);
    if (error)
        return error;
    if (!supported(request->flags))
        return -ENOSYS;
    if ((request->flags & CLONE_SETTLS) && request->tls >= USER_MAP_END)
        return -EPERM;      /* as arch_prctl: a non-canonical FS base would fault wrmsr at the switch */
    if (request->flags & CLONE_THREAD)
        return clone_thread(request);
    /* CLONE_VFORK without CLONE_VM (Linux's parent would wait, the child
     * having a copy) is run as a plain fork: nobody uses it. */
    struct fork_child_setup setup = {
        .set_tls = request->flags & CLONE_SETTLS,
        .tls = request->tls,
        .set_child_tid = request->flags & CLONE_CHILD_SETTID ? request->child_tid : 0,
        .clear_child_tid = request->flags & CLONE_CHILD_CLEARTID ? request->child_tid : 0,
    };
    long pid = fork_onto(request->stack, request->flags & CLONE_VM, &setup);
    if (pid > 0 && request->flags & CLONE_PARENT_SETTID)
        copy_to_user((void *)request->parent_tid, &pid, sizeof(int));
    return pid;
}

/* clone(2) on x86-64: flags, stack, parent_tid, child_tid, tls. The
 * legacy call ignores CLONE_DETACHED (musl passes it). */
SYSCALL_DEFINE5(clone, uint64_t, flags, uint64_t, stack, uint64_t, parent_tid, uint64_t, child_tid, uint64_t, tls)
{
    struct clone_request request = { .flags = (flags & 0xffffffffu) & ~(uint64_t)CLONE_DETACHED,
                                     .stack = stack, .parent_tid = parent_tid, .child_tid = child_tid,
                                     .tls = tls };
    return clone_run(&request);
}

/* struct clone_args, Linux's: three sizes so far. */
struct clone_args {
    uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls, set_tid, set_tid_size,
        cgroup;
};
#define CLONE_ARGS_SIZE_VER0 64
#define MAX_PID_NS_LEVEL 32

/* copy_clone_args_from_user and clone3_args_valid, in their order: a
 * larger struct than ours must be zero past it (E2BIG otherwise). */
static long clone3_read(const void *user_args, uint64_t size, struct clone_args *args)
{
    if (size > PAGE_SIZE)
        return -E2BIG;
    if (size < CLONE_ARGS_SIZE_VER0)
        return -EINVAL;
    *args = (struct clone_args){ 0 };
    size_t known = size < sizeof(*args) ? (size_t)size : sizeof(*args);
    if (copy_from_user(args, user_args, known) < 0)
        return -EFAULT;
    for (uint64_t at = known; at < size; at++) {
        uint8_t byte;
        if (copy_from_user(&byte, (const char *)user_args + at, 1) < 0)
            return -EFAULT;
        if (byte)
            return -E2BIG;
    }
    if (args->set_tid_size > MAX_PID_NS_LEVEL || (!args->set_tid && args->set_tid_size) ||
        (args->set_tid && !args->set_tid_size))
        return -EINVAL;
    if ((args->exit_signal & ~(uint64_t)CSIGNAL) || args->exit_signal > SIGNAL_MAX)
        return -EINVAL;
    if (args->cgroup > INT32_MAX)
        return -EINVAL;
    if (args->flags & ~(0xffffffffull | CLONE_CLEAR_SIGHAND | CLONE_INTO_CGROUP))
        return -EINVAL;
    if (args->flags & (CLONE_DETACHED | (CSIGNAL & ~(uint64_t)CLONE_NEWTIME)))
        return -EINVAL;
    if ((args->flags & (CLONE_SIGHAND | CLONE_CLEAR_SIGHAND)) == (CLONE_SIGHAND | CLONE_CLEAR_SIGHAND))
        return -EINVAL;
    if ((args->flags & (CLONE_THREAD | CLONE_PARENT)) && args->exit_signal)
        return -EINVAL;
    if (args->stack ? !args->stack_size || !user_range_ok((void *)args->stack, args->stack_size)
                    : args->stack_size != 0)
        return -EINVAL;
    return 0;
}

SYSCALL_DEFINE2(clone3, const void *, user_args, uint64_t, size)
{
    struct clone_args args;
    long error = clone3_read(user_args, size, &args);
    if (error)
        return error;
    if (args.set_tid || (args.flags & CLONE_CLEAR_SIGHAND))
        return -ENOSYS;
    struct clone_request request = { .flags = args.flags, .stack = args.stack ? args.stack + args.stack_size : 0,
                                     .parent_tid = args.parent_tid, .child_tid = args.child_tid,
                                     .tls = args.tls };
    return clone_run(&request);
}
