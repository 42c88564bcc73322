/* Thread groups: a thread's creation, its end, the group's end, and exec
 * from a thread (kernel/process/thread.h, docs/threads.md).
 *
 * The threads of a process are a list under process_tree_lock, the leader
 * first. A thread that ends is marked exited and stays on the list until
 * its task is dead and nobody has the process pinned; then a sibling's
 * clone, or the process's reaping, frees it (thread_sweep). The leader's
 * slot is the process's own: it is a zombie while others run, as in
 * Linux, and the process stays until its last thread ends.
 *
 * Ending the group (exit_group, a fatal signal) and exec from a thread
 * both send SIGKILL to every other thread; a thread takes it on its way
 * back to user mode (or out of an interruptible wait) and ends there
 * (kernel/process/signal.c). */
#include "kernel/process/thread.h"
#include "kernel/process/futex.h"

#include "arch/x86/cpu.h"
#include "kernel/base/panic.h"
#include "kernel/lib/errno.h"
#include "kernel/mm/heap.h"
#include "kernel/mm/uaccess.h"
#include "kernel/process/process.h"
#include "sched/task.h"
#include "sched/wait.h"

struct thread *thread_find_locked(int tid)
{
    spin_assert_held(&process_tree_lock);
    for_each_process(process) {
        for_each_thread(process, thread) {
            if (thread->tid == tid && !thread->exited)
                return thread;
        }
    }
    return 0;
}

int thread_count_locked(struct process *process)
{
    return process->live_threads;
}

void thread_kill_others_locked(struct process *process)
{
    struct thread *self = current_thread();
    struct signal_origin origin = { .code = SI_KERNEL };

    spin_assert_held(&process_tree_lock);
    for_each_thread(process, thread) {
        if (thread != self && !thread->exited)
            signal_send_thread(thread, SIGKILL, &origin);
    }
}

/* Zero the word at clear_child_tid and wake a waiter there, as Linux's
 * mm_release, so that pthread_join sees the thread gone. A bad address is
 * ignored, as Linux ignores it. */
static void clear_child_tid(struct thread *thread)
{
    uint64_t address = thread->clear_child_tid;

    thread->clear_child_tid = 0;
    if (address && thread->process->memory)
        futex_wake_at_exit(address);
}

void thread_exit(int wait_status)
{
    struct thread *self = current_thread();
    struct process *process = self->process;

    /* Robust futexes first, then the join word, as Linux's exit_mm_release() */
    if (self->process->memory)
        futex_exit_robust_list(self->robust_list, self->tid);
    self->robust_list = 0;
    clear_child_tid(self);
    spin_lock(&process_tree_lock);
    self->exited = true;
    bool last = --process->live_threads == 0;
    int status = process->group_exit ? process->exit_status : wait_status;
    wake_up_all(&process->thread_exited);   /* an exec waiting for the others */
    spin_unlock(&process_tree_lock);
    if (self != &process->leader)
        process_table_thread_removed(process->pid, self->tid);
    if (last)
        process_exit_last(process, status);
    task_exit(status);
}

/* Its task is dead: wait for its last switch to end, then take its times. */
static void collect_times(struct process *process, struct task *task)
{
    while (__atomic_load_n(&task->on_cpu, __ATOMIC_ACQUIRE))
        cpu_relax();
    uint64_t user, system;
    task_times_ns(task, &user, &system);
    spin_lock(&process_tree_lock);
    process->dead_user_ns += user;
    process->dead_system_ns += system;
    spin_unlock(&process_tree_lock);
}

static void thread_free(struct process *process, struct thread *thread)
{
    collect_times(process, thread->task);
    kthread_join(thread->task);
    kfree(thread);
}

void thread_sweep(struct process *process)
{
    struct thread *dead = 0;

    spin_lock(&process_tree_lock);
    if (process->references == 1) {     /* the table's only: no pinned reader holds a thread */
        struct thread **link = &process->leader.next_in_group;
        while (*link) {
            struct thread *thread = *link;
            if (thread->exited && __atomic_load_n(&thread->task->state, __ATOMIC_ACQUIRE) == TASK_DEAD) {
                *link = thread->next_in_group;
                thread->next_in_group = dead;
                dead = thread;
            } else {
                link = &thread->next_in_group;
            }
        }
    }
    spin_unlock(&process_tree_lock);
    while (dead) {
        struct thread *next = dead->next_in_group;
        thread_free(process, dead);
        dead = next;
    }
}

/* From process_free(): every task is dead. */
void thread_free_all(struct process *process)
{
    struct thread *thread = process->leader.next_in_group;
    process->leader.next_in_group = 0;
    while (thread) {
        struct thread *next = thread->next_in_group;
        kthread_join(thread->task);
        kfree(thread);
        thread = next;
    }
    kthread_join(process->leader.task);
}

void thread_group_times(struct process *process, uint64_t *user, uint64_t *system)
{
    spin_lock(&process_tree_lock);
    thread_group_times_locked(process, user, system);
    spin_unlock(&process_tree_lock);
}

void thread_group_times_locked(struct process *process, uint64_t *user, uint64_t *system)
{
    *user = process->dead_user_ns;
    *system = process->dead_system_ns;
    for_each_thread(process, thread) {
        uint64_t thread_user, thread_system;
        task_times_ns(thread->task, &thread_user, &thread_system);
        *user += thread_user;
        *system += thread_system;
    }
}

/* Sleep until only we are left, or the group is ending (then false). */
static bool wait_for_others(struct process *process)
{
    struct wait_entry entry = { 0 };
    bool alone = false;
    for (;;) {
        wait_prepare(&process->thread_exited, &entry);
        spin_lock(&process_tree_lock);
        alone = process->live_threads == 1;
        bool ending = process->group_exit;
        spin_unlock(&process_tree_lock);
        if (alone || ending || signal_fatal_pending())
            break;
        schedule();
    }
    wait_finish(&process->thread_exited, &entry);
    return alone && !__atomic_load_n(&process->group_exit, __ATOMIC_ACQUIRE);
}

/* We take over the leader's slot (its tid is the pid): its task is dead,
 * and goes to our own slot, which a sweep frees (someone may have the
 * process pinned and hold our slot: not freed here). */
static void become_leader(struct process *process, struct thread *self)
{
    struct thread *leader = &process->leader;
    struct task *old = leader->task;

    wait_event(&old->exited, old->state == TASK_DEAD);
    spin_lock(&process_tree_lock);
    leader->task = current_task();
    leader->fs_base = self->fs_base;
    leader->mempolicy = self->mempolicy;
    leader->signals = self->signals;
    leader->restart = (struct restart_block){ 0 };
    leader->clear_child_tid = 0;
    leader->robust_list = self->robust_list;    /* exec walks it, as the exec'ing thread's */
    leader->futex_exiting = false;
    leader->exited = false;
    current_task()->thread = leader;
    self->task = old;       /* our old slot holds the dead task until a sweep frees both */
    self->exited = true;
    spin_unlock(&process_tree_lock);
    process_table_thread_removed(process->pid, self->tid);
}

long thread_exec_alone(void)
{
    struct thread *self = current_thread();
    struct process *process = self->process;

    spin_lock(&process_tree_lock);
    if (process->live_threads == 1 && self == &process->leader) {
        spin_unlock(&process_tree_lock);
        return 0;
    }
    if (process->group_exit || process->exec_thread) {
        spin_unlock(&process_tree_lock);
        return -EAGAIN;
    }
    process->exec_thread = self;
    thread_kill_others_locked(process);
    spin_unlock(&process_tree_lock);

    bool alone = wait_for_others(process);
    if (alone && self != &process->leader)
        become_leader(process, self);
    spin_lock(&process_tree_lock);
    process->exec_thread = 0;
    spin_unlock(&process_tree_lock);
    if (!alone)
        return -EAGAIN;     /* the group ends: SIGKILL is pending for us too */
    thread_sweep(process);
    return 0;
}
