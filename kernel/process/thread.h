/* Threads: the tasks of one process (kernel/process/thread.c,
 * docs/threads.md). A process is a thread group: its address space,
 * files, working directory and signal handlers are shared; each thread has
 * its own task (so its own CPU, affinity, nohz mark and CPU time), its own
 * TLS base, signal mask, pending thread-directed signals, alternate
 * stack, restart block and clear_child_tid.
 *
 * The first thread, the leader, lives inside the process (its tid is the
 * pid) and stays, a zombie, until the last thread ends. The others are
 * allocated by clone(CLONE_THREAD) and freed after their task is dead. */
#ifndef KERNEL_PROCESS_THREAD_H
#define KERNEL_PROCESS_THREAD_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/mm/node.h"
#include "kernel/process/signal.h"
#include "sched/task.h"

struct task;
struct process;

struct thread {
    int tid;
    struct process *process;
    struct task *task;
    struct thread *next_in_group;       /* process->threads, guarded by process_tree_lock */
    bool exited;                        /* left the group; its task dies next (guarded as above) */
    uint64_t fs_base;                   /* arch_prctl(ARCH_SET_FS), CLONE_SETTLS */
    uint64_t clear_child_tid;           /* set_tid_address, CLONE_CHILD_CLEARTID: zeroed and woken at exit */
    uint64_t robust_list;               /* set_robust_list: the head, or 0 (kernel/process/futex.c) */
    bool futex_exiting;                 /* its futexes are being released: a PI waiter waits for the end */
    int pi_blocked_on;                  /* in LOCK_PI, the owner's TID: priority inheritance follows it */
    struct signal_state signals;        /* mask, thread-directed pending, altstack */
    struct restart_block restart;       /* for restart_syscall */
    struct mempolicy mempolicy;         /* set_mempolicy's: kept, changes nothing (kernel/process/mempolicy.c) */
};

/* NULL in a kernel thread. Inline: the way out of every system call asks. */
static inline struct thread *current_thread(void)
{
    struct task *task = current_task();
    return task ? task->thread : 0;
}

/* The thread with this tid, of any process, or NULL; under process_tree_lock. */
struct thread *thread_find_locked(int tid);
#define for_each_thread(process, t) \
    for (struct thread *t = &(process)->leader; t; t = t->next_in_group)

/* exit(2): this thread ends; the process ends with it if it was the last
 * (wait status of the process: the group's if exit_group or a fatal
 * signal came first, else wait_status). */
void thread_exit(int wait_status) __attribute__((noreturn));
/* Every other thread of the current process gets SIGKILL; under
 * process_tree_lock. */
void thread_kill_others_locked(struct process *process);
/* execve from a thread of a group: end the others and become the leader
 * (0), or -EAGAIN if the group is dying (the caller dies on its way out). */
long thread_exec_alone(void);
/* Free the threads that have exited and whose task is dead, if nobody has
 * the process pinned; process_free() frees the rest. */
void thread_sweep(struct process *process);
void thread_free_all(struct process *process);
/* Copy a thread's times, the dead ones' included, for the process's. */
void thread_group_times(struct process *process, uint64_t *user, uint64_t *system);
void thread_group_times_locked(struct process *process, uint64_t *user, uint64_t *system);
int thread_count_locked(struct process *process);

#endif
