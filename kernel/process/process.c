/* Processes: creation, exit, and death by fault. See kernel/process/process.h.
 *
 * A process starts from a flat image of code (the in-kernel tests' ring-3
 * programs, process_spawn_flat) or from an ELF file (kernel/process/exec.c). The
 * layout of a flat process's memory:
 *   FLAT_IMAGE_BASE    the code, read-only and executable
 *   USER_STACK_TOP     the stack, below it, USER_STACK_PAGES pages, no-execute */
#include "kernel/process/process.h"

#include "arch/x86/paging.h"
#include "arch/x86/user_mode.h"
#include "arch/x86/cpu.h"
#include "arch/x86/fpu.h"
#include "kernel/mm/address_space.h"
#include "kernel/time/context_tracking.h"
#include "kernel/lib/format.h"
#include "kernel/lib/errno.h"
#include "kernel/mm/heap.h"
#include "kernel/mm/page_alloc.h"
#include "kernel/base/panic.h"
#include "kernel/base/percpu.h"
#include "kernel/base/printk.h"
#include "kernel/lib/string.h"
#include "kernel/fs/vfs.h"
#include "sched/task.h"

#define FLAT_IMAGE_BASE  0x400000ul
#define USER_STACK_PAGES 8              /* a flat image's stack: no reserved range */

#define RLIM_INFINITY (~0ul)
#define RLIMIT_CORE   4
#define RLIMIT_NOFILE 7

static int next_pid = 1;

int process_allocate_pid(void)
{
    return __atomic_fetch_add(&next_pid, 1, __ATOMIC_RELAXED);
}

int process_last_pid(void)
{
    return __atomic_load_n(&next_pid, __ATOMIC_RELAXED) - 1;
}
struct spinlock process_tree_lock = SPINLOCK_INIT("process_tree");

/* The first thread of a new process, on task: its tid is the pid. */
static void leader_init(struct process *process, struct task *task)
{
    process->leader.tid = process->pid;
    process->leader.process = process;
    process->leader.task = task;
    process->leader.next_in_group = 0;
    process->leader.exited = false;
    process->live_threads = 1;
    task->process = process;
    task->thread = &process->leader;
}

/* Copy size bytes into the user pages at address of a space (not the
 * current one), through the kernel's direct map of those pages: pages
 * just mapped, never ones a fork shares (the write would show in both)
 * nor the zero page (address_space_map_zero). */
void copy_into_space(struct address_space *space, uint64_t address, const void *data, size_t size)
{
    for (size_t done = 0; done < size;) {
        uint64_t page = (address + done) & ~(PAGE_SIZE - 1);
        uint64_t offset = (address + done) - page;
        size_t chunk = PAGE_SIZE - offset < size - done ? PAGE_SIZE - offset : size - done;
        uint64_t entry = address_space_lookup(space, page, false);
        ASSERT(entry && !(entry & PTE_COW) && (entry & PTE_ADDRESS) != page_zero());
        memcpy((char *)phys_to_virt(entry & PTE_ADDRESS) + offset, (const char *)data + done, chunk);
        done += chunk;
    }
}

static int map_pages(struct address_space *space, uint64_t start, size_t pages, uint64_t flags)
{
    for (size_t i = 0; i < pages; i++) {
        int error = address_space_map(space, start + i * PAGE_SIZE, flags);
        if (error)
            return error;
    }
    return 0;
}

/* Linux's defaults, for a process made from nothing (a fork copies its
 * parent's). RLIMIT_NOFILE is enforced (kernel/fs/fs_syscalls.c:
 * descriptor_limit, up to FD_MAX; soft 1024, hard 4096 as Linux's), RLIMIT_STACK
 * sizes the stack (kernel/mm/stack_limit.c); prlimit64 records and
 * reports the rest. */
static void rlimits_default(struct process *process)
{
    for (int i = 0; i < RLIMIT_COUNT; i++)
        process->rlimits[i] = (struct process_rlimit){ RLIM_INFINITY, RLIM_INFINITY };
    process->rlimits[RLIMIT_STACK].current = 8ul << 20;
    process->rlimits[RLIMIT_CORE].current = 0;
    process->rlimits[RLIMIT_NOFILE] = (struct process_rlimit){ FD_LIMIT_DEFAULT, FD_MAX };
}

/* The first return to ring 3 of a new program, with interrupts off: the
 * context hooks see it like any other. */
static void __attribute__((noreturn)) start_in_user(uint64_t rip, uint64_t rsp)
{
    context_user_enter();
    user_mode_start(rip, rsp);
}

static void run_flat_image(void *arg)
{
    struct process *process = arg;
    struct task *self = current_task();

    irq_disable();
    address_space_switch(process->memory);
    this_cpu()->syscall_stack_top = self->stack_top;
    start_in_user(FLAT_IMAGE_BASE, USER_STACK_TOP);
}

struct process *process_spawn_flat(const char *name, const void *code, size_t size, int cpu)
{
    struct process *process = kzalloc(sizeof(*process));
    if (!process)
        return 0;
    itimer_init(process);
    rlimits_default(process);
    process->memory = address_space_create();
    size_t code_pages = (size + PAGE_SIZE - 1) / PAGE_SIZE;
    if (!process->memory || map_pages(process->memory, FLAT_IMAGE_BASE, code_pages, 0) < 0 ||
        map_pages(process->memory, USER_STACK_TOP - USER_STACK_PAGES * PAGE_SIZE, USER_STACK_PAGES,
                  PTE_WRITE | PTE_NX) < 0) {
        if (process->memory)
            address_space_destroy(process->memory);
        kfree(process);
        return 0;
    }
    copy_into_space(process->memory, FLAT_IMAGE_BASE, code, size);
    process->pid = process_allocate_pid();
    snprintf(process->name, sizeof(process->name), "%s", name);
    wait_queue_init(&process->child_exited);
    wait_queue_init(&process->thread_exited);

    struct cpumask where = cpu >= 0 ? cpumask_of((unsigned)cpu) : cpu_online_mask;
    struct task *task = kthread_create_stopped(name, run_flat_image, process, &where);
    if (!task) {
        address_space_destroy(process->memory);
        kfree(process);
        return 0;
    }
    leader_init(process, task);
    process_table_add(process);
    wake_up_task(task);
    return process;
}

/* At every switch: the next task's address space (the kernel's own for a
 * kernel thread, so that an exiting process's tables can be freed) and its
 * thread's TLS base. */
void process_switch_in(struct task *task)
{
    address_space_switch(task->process ? task->process->memory : 0);
    if (task->thread)
        wrmsr(MSR_FS_BASE, task->thread->fs_base);
}

static void link_child(struct process *parent, struct process *child)
{
    spin_lock(&process_tree_lock);
    child->parent = parent;
    __atomic_store_n(&child->parent_pid, parent->pid, __ATOMIC_RELAXED);
    child->next_sibling = parent->first_child;
    parent->first_child = child;
    spin_unlock(&process_tree_lock);
}

/* Children of an exiting process: those already dead (zombies nobody will
 * wait for now) are reaped here; the living are adopted by init (pid 1),
 * which reaps them when it waits, as on Unix. Without an init (in-kernel
 * tests, or init itself exiting) they lose their parent. */
static void orphan_children(struct process *process)
{
    struct process *zombies = 0;
    spin_lock(&process_tree_lock);
    struct process *init = process_init();
    if (init == process || (init && init->exited))
        init = 0;
    struct process *child = process->first_child, *next;
    process->first_child = 0;
    for (; child; child = next) {
        next = child->next_sibling;
        if (child->exited) {
            child->next_sibling = zombies;
            zombies = child;
        } else if (init) {
            child->parent = init;
            __atomic_store_n(&child->parent_pid, init->pid, __ATOMIC_RELAXED);
            child->next_sibling = init->first_child;
            init->first_child = child;
        } else {
            child->parent = 0;
            __atomic_store_n(&child->parent_pid, 0, __ATOMIC_RELAXED);
            child->next_sibling = 0;
        }
    }
    spin_unlock(&process_tree_lock);
    for (; zombies; zombies = next) {
        next = zombies->next_sibling;
        process_reap(zombies);
    }
}

/* SIGCHLD's si_code and si_status for a wait status word. */
#define CLD_EXITED 1
#define CLD_KILLED 2

static int child_exit_code(int wait_status)
{
    return (wait_status & 0x7f) == 0 ? CLD_EXITED : CLD_KILLED;
}

static int child_exit_value(int wait_status)
{
    return (wait_status & 0x7f) == 0 ? (wait_status >> 8) & 0xff : wait_status & 0x7f;
}

/* A vfork loan ends once, by whichever side clears memory_borrowed
 * first: the child, done with the memory (the parent keeps it), or the
 * parent, dying while it waits (the child keeps it, and frees it). */
static bool end_loan(struct process *borrower)
{
    bool borrowed = true;
    return __atomic_compare_exchange_n(&borrower->memory_borrowed, &borrowed, false, false, __ATOMIC_ACQ_REL,
                                       __ATOMIC_ACQUIRE);
}

/* What the borrower's brk did to the memory goes back with it (its
 * mmaps are in the memory's regions):
 * on Linux they live in the shared mm. Before the loan ends, under the
 * lock: a parent that sees it ended must find them. The lender is the
 * parent that still holds the memory (it may not have marked the loan in
 * lent_memory_to yet; one that died holds none, and init holds its own). */
static void hand_back_layout(struct process *borrower, struct address_space *memory)
{
    spin_lock(&process_tree_lock);
    struct process *lender = borrower->parent;
    if (lender && lender->memory == memory) {
        lender->brk_start = borrower->brk_start;
        lender->brk = borrower->brk;
    }
    spin_unlock(&process_tree_lock);
}

void process_return_borrowed_memory(struct process *process, struct address_space *memory)
{
    hand_back_layout(process, memory);
    if (!end_loan(process)) {
        address_space_destroy(memory);      /* the parent died and left it to us */
        return;
    }
    spin_lock(&process_tree_lock);      /* the parent may be exiting: it is not freed under the lock */
    if (process->parent)
        wake_up_all(&process->parent->child_exited);
    spin_unlock(&process_tree_lock);
}

/* Exit of a vfork parent killed while it waits: its memory goes on as
 * the child's. */
static bool memory_given_to_borrower(struct process *process)
{
    struct process *borrower = process->lent_memory_to;
    process->lent_memory_to = 0;
    return borrower && end_loan(borrower);
}

/* exit_group: the first status wins; every other thread gets SIGKILL
 * and ends on its way out (thread_exit), the last one ends the process. */
void process_exit(int wait_status)
{
    struct process *process = current_process();

    ASSERT(process);
    spin_lock(&process_tree_lock);
    if (!process->group_exit) {
        process->group_exit = true;
        process->exit_status = wait_status;
        thread_kill_others_locked(process);
    }
    spin_unlock(&process_tree_lock);
    thread_exit(wait_status);
}

void process_exit_last(struct process *process, int wait_status)
{
    itimer_exit(process);       /* no SIGALRM after this */
    if (process->files)
        fd_table_destroy(process->files);
    process->files = 0;
    if (process->cwd)
        inode_put(process->cwd);
    process->cwd = 0;
    /* Memory before children: a vfork child we lend to is not reaped
     * (orphan_children) before memory_given_to_borrower() looks at it. */
    uint64_t flags = irq_save();
    address_space_switch(0);
    spin_lock(&process_tree_lock);      /* /proc/PID reads its sizes under the lock */
    struct address_space *memory = process->memory;
    process->memory = 0;
    spin_unlock(&process_tree_lock);
    if (process->memory_borrowed)
        process_return_borrowed_memory(process, memory);
    else if (!memory_given_to_borrower(process))
        address_space_destroy(memory);
    irq_restore(flags);
    orphan_children(process);
    irq_disable();
    spin_lock(&process_tree_lock);
    process->exit_status = wait_status;
    process->last_task = current_task();
    process->exited = true;
    struct process *parent = process->parent;
    if (parent) {
        signal_send(parent, SIGCHLD, &(struct signal_origin){ .code = child_exit_code(wait_status),
                                                             .pid = process->pid,
                                                             .status = child_exit_value(wait_status) });
        wake_up_all(&parent->child_exited);     /* under the lock: the parent stays while we hold it */
    }
    wake_up_all(&process->thread_exited);
    spin_unlock(&process_tree_lock);
}

/* share_memory (vfork): the child runs in the parent's address space, and
 * the caller must wait until it is given back. */
struct process *process_fork(struct process *parent, void (*child_entry)(void *), void *arg, bool share_memory)
{
    struct process *child = kzalloc(sizeof(*child));
    struct thread *forker = current_thread();
    if (!child)
        return 0;
    *child = *parent;
    child->leader = (struct thread){ .fs_base = forker->fs_base, .mempolicy = forker->mempolicy };
    child->group_exit = false;
    child->exec_thread = 0;
    child->last_task = 0;
    child->dead_user_ns = child->dead_system_ns = 0;
    wait_queue_init(&child->thread_exited);
    itimer_init(child);         /* not inherited */
    child->fault = (struct fault_inject){ 0 };
    child->lock_future = false; /* nor are memory locks */
    child->first_child = child->next_sibling = 0;
    child->next_in_table = 0;
    child->children_user_ns = child->children_system_ns = 0;
    bool names_copied = process_copy_program_names(child, parent);
    child->exited = false;
    wait_queue_init(&child->child_exited);
    signal_fork(&child->signals, &parent->signals, &child->leader.signals, &forker->signals);
    child->memory = share_memory ? parent->memory : address_space_clone(parent->memory);
    child->memory_borrowed = share_memory;
    child->lent_memory_to = 0;
    child->job = (struct job_control){ 0 };
    child->files = parent->files ? fd_table_clone(parent->files) : 0;
    if (!names_copied || !child->memory || (parent->files && !child->files)) {
        if (child->memory && !share_memory)
            address_space_destroy(child->memory);
        if (child->files)
            fd_table_destroy(child->files);
        process_program_names_free(child);
        kfree(child);
        return 0;
    }
    child->cwd = vfs_cwd_get(parent);    /* a sibling's chdir may be dropping the one copied */
    child->pid = process_allocate_pid();
    struct task *task = kthread_create_stopped(child->name, child_entry, arg, &forker->task->affinity);
    if (!task) {
        if (!share_memory)
            address_space_destroy(child->memory);
        if (child->files)
            fd_table_destroy(child->files);
        if (child->cwd)
            inode_put(child->cwd);
        process_program_names_free(child);
        kfree(child);
        return 0;
    }
    leader_init(child, task);
    sched_fork(task, forker->task);
    fpu_save(&task->fpu);        /* the parent's registers, as at the fork */
    link_child(parent, child);
    process_table_add(child);
    wake_up_task(task);
    return child;
}

/* wait4's pid: > 0 that child, -1 any, 0 any in our group, < -1 any in
 * group -pid. */
static bool wait_matches(const struct process *parent, const struct process *child, int pid)
{
    if (pid > 0)
        return child->pid == pid;
    if (pid == 0)
        return child->process_group == parent->process_group;
    return pid == -1 || child->process_group == -pid;
}

/* A child matching pid with something to tell: exited (unlinked, to be
 * reaped: *status untouched), or, if asked for, stopped or continued
 * (*status set; it stays). Also says whether any child matches. */
static struct process *take_waitable_child(struct process *parent, int pid, int options, bool *any, int *status)
{
    *any = false;
    for (struct process **link = &parent->first_child; *link; link = &(*link)->next_sibling) {
        struct process *child = *link;
        if (!wait_matches(parent, child, pid))
            continue;
        *any = true;
        if (child->exited) {
            *link = child->next_sibling;
            return child;
        }
        if (job_take_report(child, options & WAIT_UNTRACED, options & WAIT_CONTINUED, status))
            return child;
    }
    return 0;
}

long process_wait_child(int pid, int options, int *status)
{
    struct process *parent = current_process();
    struct process *child = 0;
    bool any = false;

    for (;;) {
        struct wait_entry entry = { 0 };
        wait_prepare(&parent->child_exited, &entry);
        spin_lock(&process_tree_lock);
        child = take_waitable_child(parent, pid, options, &any, status);
        int child_pid = child ? child->pid : 0;
        bool to_reap = child && child->exited;
        spin_unlock(&process_tree_lock);
        if (child && !to_reap) {
            wait_finish(&parent->child_exited, &entry);
            return child_pid;       /* stopped or continued */
        }
        if (child || !any || (options & WAIT_NO_HANG)) {
            wait_finish(&parent->child_exited, &entry);
            break;
        }
        if (signal_pending()) {
            wait_finish(&parent->child_exited, &entry);
            return -ERESTARTSYS;
        }
        schedule();
        wait_finish(&parent->child_exited, &entry);
    }
    if (!child)
        return any ? 0 : -ECHILD;
    int child_pid = child->pid;
    *status = process_reap(child);
    return child_pid;
}

/* Wait for a process's last task to die, take the process out of the
 * table (no lookup finds it from then on), and drop the table's
 * reference: the process and its tasks are freed now, or by the last
 * process_put() of whoever pinned it. Its times, and its reaped
 * children's, go to its parent (getrusage(RUSAGE_CHILDREN), times()). */
int process_reap(struct process *process)
{
    wait_event(&process->thread_exited, __atomic_load_n(&process->exited, __ATOMIC_ACQUIRE));
    struct task *task = process->last_task;
    wait_event(&task->exited, task->state == TASK_DEAD);
    int status = process->exit_status;
    uint64_t user, system;
    thread_group_times(process, &user, &system);
    process_table_remove(process);
    spin_lock(&process_tree_lock);
    struct process *parent = process->parent;
    if (parent) {
        parent->children_user_ns += user + process->children_user_ns;
        parent->children_system_ns += system + process->children_system_ns;
    }
    spin_unlock(&process_tree_lock);
    process_put(process);
    return status;
}

struct exec_request {
    const char *path;
    const char *const *argv;
    const char *const *envp;
};

static void run_first_program(void *arg)
{
    struct exec_request *request = arg;
    struct exec_start start;
    long error = process_execve(request->path, request->argv, request->envp, &start);

    if (error) {
        printk("nohzk: cannot run %s: error %ld\n", request->path, error);
        kfree(request);
        process_exit(WAIT_STATUS_EXITED(127));
    }
    kfree(request);
    irq_disable();
    start_in_user(start.entry, start.stack_pointer);
}

static int open_console(struct process *process, const char *console)
{
    for (int fd = 0; fd < 3; fd++) {
        long error = 0;
        struct file *file = vfs_open(console, O_RDWR, 0, &error);
        if (!file)
            return (int)error;
        if (fd_install(process->files, file, false) != fd) {
            vfs_close(file);
            return -EBADF;
        }
    }
    return 0;
}

/* The first user process: no parent, fds 0-2 on the console, cwd "/". The
 * caller reaps it with process_reap(). The argv/envp strings must live
 * until it has run execve (the caller's statics). */
struct process *process_spawn_exec(const char *path, const char *const *argv, const char *const *envp,
                                   const char *console)
{
    struct process *process = kzalloc(sizeof(*process));
    struct exec_request *request = kzalloc(sizeof(*request));
    if (!process || !request)
        goto fail;
    *request = (struct exec_request){ path, argv, envp };
    itimer_init(process);
    rlimits_default(process);
    process->pid = process_allocate_pid();
    process->process_group = process->session = process->pid;     /* it leads both */
    process->umask = 022;
    snprintf(process->name, sizeof(process->name), "init");
    wait_queue_init(&process->child_exited);
    wait_queue_init(&process->thread_exited);
    process->files = fd_table_create();
    if (!process->files || open_console(process, console) < 0)
        goto fail;
    struct task *task = kthread_create_stopped("init", run_first_program, request, 0);
    if (!task)
        goto fail;
    leader_init(process, task);
    process_set_cmdline(process, argv);
    process_table_add(process);
    wake_up_task(task);
    return process;
fail:
    if (process && process->files)
        fd_table_destroy(process->files);
    kfree(process);
    kfree(request);
    return 0;
}
