/* The process system calls: memory (brk, mmap, munmap, mprotect), life
 * (fork, vfork, clone, execve, exit, wait4), identity and the small ones
 * busybox and the C libraries ask at start-up. Linux's semantics for the
 * documented subset; see docs/user-space.md for what is left out. */
#include "kernel/process/process_syscalls.h"

#include "kernel/process/signal.h"
#include "kernel/process/exec_args.h"
#include "kernel/entry/syscall.h"

#include "arch/x86/cpu.h"
#include "arch/x86/paging.h"
#include "arch/x86/trap.h"
#include "arch/x86/user_mode.h"
#include "kernel/mm/address_space.h"
#include "kernel/lib/errno.h"
#include "kernel/mm/heap.h"
#include "kernel/lib/linux_abi.h"
#include "kernel/mm/page_alloc.h"
#include "kernel/base/percpu.h"
#include "kernel/process/process.h"
#include "kernel/lib/string.h"
#include "kernel/mm/uaccess.h"
#include "kernel/fs/vfs.h"
#include "sched/task.h"

#define PROT_WRITE 0x2
#define PROT_EXEC  0x4
#define MAP_SHARED    0x01
#define MAP_PRIVATE   0x02
#define MAP_FIXED     0x10
#define MAP_ANONYMOUS 0x20
#define MMAP_END      0x7ff000000000ul
#define MMAP_LENGTH_MAX (1ul << 32)
#define TASK_SIZE     USER_MAP_END   /* Linux's: the last page is never mapped */
#define PROT_READ     0x1
#define PROT_SEM      0x8
#define PROT_GROWSDOWN 0x01000000
#define PROT_GROWSUP  0x02000000

static uint64_t page_up(uint64_t value) { return (value + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1); }

static uint64_t protection_flags(uint64_t prot)
{
    return (prot & PROT_WRITE ? PTE_WRITE : 0) | (prot & PROT_EXEC ? 0 : PTE_NX);
}

/* Fresh pages over [start, end), zeroed now or (lazy) the zero page
 * until written, or none: -ENOMEM, or -EINTR if a fatal signal comes
 * first (a gigabyte takes seconds under QEMU; the process dies on the
 * way out, and SIGKILL must not wait). */
static long map_pages(struct address_space *space, uint64_t start, uint64_t end, bool lazy)
{
    for (uint64_t page = start; page < end; page += PAGE_SIZE) {
        long error = signal_fatal_pending() ? -EINTR
                     : lazy                 ? address_space_map_zero(space, page, PTE_WRITE | PTE_NX)
                                            : address_space_map(space, page, PTE_WRITE | PTE_NX);
        if (error < 0) {
            address_space_unmap_range(space, start, page);
            return error == -EINTR ? -EINTR : -ENOMEM;
        }
    }
    return 0;
}

/* Growth maps the zero page (docs/fork.md, "Lazy zeroing"), refused
 * as mmap refuses when it is more than the pages free now: no overcommit
 * promise, a check, not a reservation. */
/* mlockall: nohzk never pages out, so every page is locked already; what
 * a program asks for with it is that no page fault is left to come (a
 * real-time or nohz task about to run alone, docs/fork.md). MCL_CURRENT
 * copies every copy-on-write page now, MCL_FUTURE maps later anonymous
 * memory and brk growth populated, MCL_ONFAULT leaves both lazy; Linux's
 * flag rules. Out of memory midway: -ENOMEM, the pages done so far kept. */
#define MCL_CURRENT 1
#define MCL_FUTURE  2
#define MCL_ONFAULT 4

long sys_mlockall(int flags)
{
    struct process *process = current_process();
    if (!flags || (flags & ~(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT)) ||
        flags == MCL_ONFAULT)
        return -EINVAL;
    if (flags & MCL_FUTURE)
        process->lock_future = !(flags & MCL_ONFAULT);
    if (!(flags & MCL_CURRENT) || (flags & MCL_ONFAULT))
        return 0;
    for (uint64_t page = address_space_next_cow(process->memory, 0); page != UINT64_MAX;
         page = address_space_next_cow(process->memory, page + PAGE_SIZE)) {
        if (signal_fatal_pending())
            return -EINTR;
        if (address_space_write_fault(process->memory, page) < 0)
            return -ENOMEM;
    }
    return 0;
}

long sys_munlockall(void)
{
    current_process()->lock_future = false;
    return 0;
}

long sys_brk(uint64_t address)
{
    struct process *process = current_process();
    uint64_t old_end = page_up(process->brk), new_end = page_up(address);

    if (address < process->brk_start || address > process->brk_start + (1ul << 30))
        return (long)process->brk;
    if (new_end > old_end && (new_end - old_end) / PAGE_SIZE > page_free_count())
        return (long)process->brk;
    if (map_pages(process->memory, old_end, new_end, !process->lock_future) < 0)
        return (long)process->brk;
    if (new_end < old_end)
        address_space_unmap_range(process->memory, new_end, old_end);
    process->brk = address;
    return (long)address;
}

static long fill_from_file(struct process *process, uint64_t address, uint64_t length, int fd, uint64_t offset)
{
    struct file *file = fd_get(process->files, fd);
    if (!file)
        return -EBADF;
    char *buffer = kmalloc(PAGE_SIZE);
    long result = buffer ? vfs_seek(file, (int64_t)offset, SEEK_SET) : -ENOMEM;
    for (uint64_t done = 0; result >= 0 && done < length;) {
        if (done && signal_fatal_pending()) {
            result = -EINTR;
            break;
        }
        long got = vfs_read(file, buffer, length - done < PAGE_SIZE ? length - done : PAGE_SIZE);
        if (got <= 0) {
            result = got;
            break;
        }
        copy_into_space(process->memory, address + done, buffer, (size_t)got);
        done += (uint64_t)got;
    }
    kfree(buffer);
    vfs_close(file);
    return result < 0 ? result : 0;
}

long sys_mmap(uint64_t address, uint64_t length, uint64_t prot, uint64_t flags, int64_t fd, uint64_t offset)
{
    struct process *process = current_process();

    if (length == 0 || offset % PAGE_SIZE || !(flags & (MAP_PRIVATE | MAP_SHARED)))
        return -EINVAL;
    if (length > MMAP_LENGTH_MAX)
        return -ENOMEM;     /* more than memory could hold: see the check below */
    if (flags & MAP_SHARED)
        return -ENOSYS;     /* shared mappings were left out: fork copies every page */
    length = page_up(length);
    if (flags & MAP_FIXED) {
        if (address > TASK_SIZE - length)
            return -ENOMEM; /* Linux's order: the range, then its alignment */
        if (address % PAGE_SIZE)
            return -EINVAL;
        /* Refused before the old pages go, as Linux leaves them when it
         * refuses: a fuzz worker lost its malloc heap to a 4 GiB one. */
        if (length / PAGE_SIZE > page_free_count())
            return -ENOMEM;
        address_space_unmap_range(process->memory, address, address + length);
    } else {
        if (process->mmap_next + length > MMAP_END || length / PAGE_SIZE > page_free_count())
            return -ENOMEM;
        address = process->mmap_next;
        process->mmap_next += length + PAGE_SIZE;   /* a hole between mappings */
    }
    /* No overcommit: an anonymous mapping is the zero page until written
     * (docs/fork.md, "Lazy zeroing"), but one larger than the pages free
     * now is refused as if its pages were taken at once; a check, not a
     * reservation, and a write that later finds no page kills the writer.
     * A file's pages are taken at once and filled. (Checked above too,
     * before the address space is used up.) */
    if (length / PAGE_SIZE > page_free_count())
        return -ENOMEM;
    long error = map_pages(process->memory, address, address + length,
                           (flags & MAP_ANONYMOUS) && !current_process()->lock_future);
    if (error < 0)
        return error;
    if (!(flags & MAP_ANONYMOUS)) {
        error = fill_from_file(process, address, length, (int)fd, offset);
        if (error < 0) {
            address_space_unmap_range(process->memory, address, address + length);
            return error;
        }
    }
    address_space_protect_range(process->memory, address, address + length, protection_flags(prot));
    return (long)address;
}

/* Linux's checks, in Linux's order; then the pages there go, at a cost
 * that follows what is mapped (docs/memory.md, section 4). */
long sys_munmap(uint64_t address, uint64_t length)
{
    if (address % PAGE_SIZE || address > TASK_SIZE || length > TASK_SIZE - address)
        return -EINVAL;
    length = page_up(length);
    if (length == 0)
        return -EINVAL;
    address_space_unmap_range(current_process()->memory, address, address + length);
    return 0;
}

/* As Linux: nothing to do is no error, whatever prot says; a range that
 * wraps, or starts at a page not mapped, is ENOMEM; the pages before the
 * first hole change. PROT_GROWSDOWN and PROT_GROWSUP are accepted and
 * ignored (no mapping grows here), and PROT_NONE pages stay readable. */
long sys_mprotect(uint64_t address, uint64_t length, uint64_t prot)
{
    uint64_t grows = prot & (PROT_GROWSDOWN | PROT_GROWSUP);
    prot &= ~grows;
    if (grows == (PROT_GROWSDOWN | PROT_GROWSUP) || address % PAGE_SIZE)
        return -EINVAL;
    if (length == 0)
        return 0;
    uint64_t end = address + page_up(length);
    if (end <= address)
        return -ENOMEM;
    if (prot & ~(uint64_t)(PROT_READ | PROT_WRITE | PROT_EXEC | PROT_SEM))
        return -EINVAL;
    if (address >= USER_HALF_END)
        return -ENOMEM;
    uint64_t mapped_end = end < USER_HALF_END ? end : USER_HALF_END;
    int error = address_space_protect_range(current_process()->memory, address, mapped_end, protection_flags(prot));
    return error ? error : end > mapped_end ? -ENOMEM : 0;
}

/* --- fork -------------------------------------------------------------- */

static void return_to_user_as_child(void *arg)
{
    struct trap_frame frame = *(struct trap_frame *)arg;     /* a local: see user_mode_start() */

    kfree(arg);
    frame.rax = 0;                  /* fork returns 0 in the child */
    irq_disable();
    user_mode_resume(&frame);
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
long fork_onto(uint64_t child_stack, bool share_memory)
{
    struct process *parent = current_process();
    if (parent->memory_borrowed)
        share_memory = false;
    struct trap_frame *frame = kmalloc(sizeof(*frame));
    if (!frame)
        return -ENOMEM;
    *frame = *current_task()->syscall_frame;
    if (child_stack)
        frame->rsp = child_stack;
    struct process *child = process_fork(parent, return_to_user_as_child, frame, share_memory);
    if (!child) {
        kfree(frame);
        return -ENOMEM;
    }
    int pid = child->pid;   /* the child is ours to reap: it stays until our wait4 */
    if (share_memory)
        wait_for_memory_back(parent, child);
    return pid;
}

long sys_fork(void)
{
    return fork_onto(0, false);
}

long sys_vfork(void)
{
    return fork_onto(0, true);
}

/* --- execve ------------------------------------------------------------ */

long sys_execve(const char *user_path, const char *const *user_argv, const char *const *user_envp)
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

long sys_exit(int code)
{
    thread_exit(WAIT_STATUS_EXITED(code));
}


#define WAIT_THREAD_FLAGS 0xe0000000u   /* __WNOTHREAD, __WALL, __WCLONE: threads are never waited for */

long sys_wait4(int64_t pid, int *user_status, uint64_t options, void *user_rusage)
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

struct linux_utsname {
    char sysname[65], nodename[65], release[65], version[65], machine[65], domainname[65];
};

SYSCALL_DEFINE1(uname, void *, user_buffer)
{
    static const struct linux_utsname name = {
        "Linux", "nohzk", "6.1.0-nohzk", "#1 SMP nohzk", "x86_64", "(none)",
    };
    return copy_to_user(user_buffer, &name, sizeof(name));
}

SYSCALL_DEFINE0(getpid)
{
    return current_process()->pid;
}

SYSCALL_DEFINE0(gettid)
{
    return current_thread()->tid;
}

/* Under the lock: an exiting parent hands us to init, and may be freed. */
/* Without process_tree_lock: the parent may exit and be freed at any
 * moment, its pid copied into the child may not (Linux reads it under
 * RCU for the same reason). */
SYSCALL_DEFINE0(getppid)
{
    return __atomic_load_n(&current_process()->parent_pid, __ATOMIC_RELAXED);
}

long sys_set_tid_address(uint64_t address)
{
    current_thread()->clear_child_tid = address;
    return current_thread()->tid;
}

#define ARCH_SET_FS 0x1002
#define ARCH_GET_FS 0x1003

long sys_arch_prctl(uint64_t code, uint64_t address)
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

/* The thread pid (a tid; 0: the caller), its process pinned so that
 * its task stays after the lock is dropped; the caller puts the process
 * (process_put). A zombie is found until it is reaped, as on Linux: its
 * dead task's mask is still there to read or set. */
static struct thread *affinity_target(int64_t pid)
{
    spin_lock(&process_tree_lock);
    struct thread *thread = pid == 0 ? current_thread() : pid > 0 ? thread_find_locked((int)pid) : 0;
    if (!thread && pid > 0) {
        struct process *zombie = process_find_locked((int)pid);
        thread = zombie ? &zombie->leader : 0;
    }
    if (thread)
        process_get_locked(thread->process);
    spin_unlock(&process_tree_lock);
    return thread;
}

SYSCALL_DEFINE0(sched_yield)
{
    yield();
    return 0;
}

/* Linux's sizes: the buffer must hold a bit per CPU in whole longs; the
 * answer is the kernel's mask (MAX_CPUS bits in longs) or the buffer,
 * whichever is smaller, and its length is returned. */
long sys_sched_getaffinity(int64_t pid, uint64_t size, void *user_mask)
{
    if (size * 8 < cpu_count || size % sizeof(uint64_t))
        return -EINVAL;
    struct thread *thread = affinity_target(pid);
    if (!thread)
        return -ESRCH;
    struct cpumask mask;       /* word by word: no lock is held */
    for (size_t i = 0; i < CPUMASK_WORDS; i++)
        mask.bits[i] = __atomic_load_n(&thread->task->affinity.bits[i], __ATOMIC_RELAXED);
    process_put(thread->process);
    size_t length = size < sizeof(mask.bits) ? (size_t)size : sizeof(mask.bits);
    if (copy_to_user(user_mask, mask.bits, length) < 0)
        return -EFAULT;
    return (long)length;
}

/* set_affinity() may wait for the task to leave its CPU: with no lock
 * held, the process pinned (it may exit meanwhile; it is not freed). A
 * shorter buffer than the kernel's mask leaves the CPUs past it out; a
 * longer one's extra bytes are not read (Linux's get_user_cpu_mask). */
long sys_sched_setaffinity(int64_t pid, uint64_t size, const void *user_mask)
{
    struct cpumask mask = { 0 };
    if (size < sizeof(uint64_t))
        return -EINVAL;
    if (copy_from_user(mask.bits, user_mask, size < sizeof(mask.bits) ? (size_t)size : sizeof(mask.bits)) < 0)
        return -EFAULT;
    cpumask_and(&mask, &mask, &cpu_online_mask);
    struct thread *thread = affinity_target(pid);
    if (!thread)
        return -ESRCH;
    struct process *process = thread->process;
    long result = set_affinity(thread->task, &mask);
    process_put(process);
    return result;
}

long sys_umask(uint32_t mask)
{
    struct process *process = current_process();
    uint32_t old = process->umask;
    process->umask = mask & 0777;
    return old;
}

/* Is there a process in group `group` of session `session`? A zombie
 * counts, as on Linux (a pipeline's first member may have exited before
 * the shell puts the next one in its group). The table is locked. */
static bool group_exists_locked(int group, int session)
{
    for_each_process(process)
        if (process->process_group == group && process->session == session)
            return true;
    return false;
}

/* setpgid: for ourselves or one of our children (job control in ash).
 * Linux's rules: the group must exist in the caller's session (or be the
 * target's own pid), and a session leader or a child in another session
 * cannot move. */
long sys_setpgid(int64_t pid, int64_t group)
{
    struct process *self = current_process(), *target = 0;

    if (group < 0)
        return -EINVAL;
    spin_lock(&process_tree_lock);
    if (pid == 0 || pid == self->pid) {
        target = self;
    } else {
        for (struct process *child = self->first_child; child; child = child->next_sibling) {
            if (child->pid == pid)
                target = child;
        }
    }
    long result = -ESRCH;
    if (target) {
        int new_group = group ? (int)group : target->pid;
        if (target->session == target->pid || target->session != self->session)
            result = -EPERM;    /* a session leader, or a child in another session */
        else if (new_group != target->pid && !group_exists_locked(new_group, self->session))
            result = -EPERM;    /* no such group in our session */
        else
            result = 0;
        if (!result)
            target->process_group = new_group;
    }
    spin_unlock(&process_tree_lock);
    return result;
}

/* setsid: a new session and a new group, both led by the caller, unless it
 * leads a group already (its members would be left in another session). */
long sys_setsid(void)
{
    struct process *self = current_process();
    spin_lock(&process_tree_lock);
    long result = self->process_group == self->pid ? -EPERM : self->pid;
    if (result > 0)
        self->process_group = self->session = self->pid;
    spin_unlock(&process_tree_lock);
    return result;
}

long sys_getpgrp(void)
{
    return current_process()->process_group;
}

/* getpgid, getsid: of any process; 0 is the caller. */
static long id_of(int64_t pid, bool session)
{
    struct process *self = current_process();
    spin_lock(&process_tree_lock);
    struct process *process = pid == 0 ? self : pid > 0 && pid <= INT32_MAX ? process_find_locked((int)pid) : 0;
    long result = !process ? -ESRCH : session ? process->session : process->process_group;
    spin_unlock(&process_tree_lock);
    return result;
}

long sys_getpgid(int64_t pid)
{
    return id_of(pid, false);
}

long sys_getsid(int64_t pid)
{
    return id_of(pid, true);
}

long sys_set_id_ignored(void) { return 0; }   /* everyone is root */
long sys_get_id_root(void) { return 0; }
