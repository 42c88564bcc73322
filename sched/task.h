/* Tasks: kernel threads, and the threads of user processes. A task is runnable
 * (queued or running), sleeping, or dead (waiting to be reaped). */
#ifndef SCHED_TASK_H
#define SCHED_TASK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/x86/fpu.h"
#include "kernel/base/percpu.h"
#include "kernel/lib/cpumask.h"
#include "kernel/base/spinlock.h"
#include "sched/wait.h"

enum task_state {
    TASK_RUNNABLE,
    TASK_SLEEPING,
    TASK_DEAD,
};

#define TASK_NAME_SIZE 16
#define KERNEL_STACK_PAGES 4
#define SCHED_SLICE_NS 10000000ul      /* 10 ms of running before the tick preempts */
#define SCHED_RR_SLICE_NS 100000000ul  /* SCHED_RR's time slice: Linux's default, 100 ms */

/* Scheduling policies, Linux's numbers (docs/realtime.md). */
#define SCHED_OTHER 0
#define SCHED_FIFO 1
#define SCHED_RR 2
#define SCHED_BATCH 3
#define SCHED_IDLE 5
#define SCHED_RESET_ON_FORK 0x40000000
#define SCHED_RT_PRIO_MAX 99
#define SCHED_KERNEL_PRIO 100         /* above every user priority: RCU's grace-period and offload kthreads */

struct process;
struct thread;
struct trap_frame;

struct task {
    uint64_t saved_rsp;             /* context_switch() keeps the stack pointer here */
    unsigned id;
    char name[TASK_NAME_SIZE];
    volatile enum task_state state;
    unsigned cpu;                   /* the runqueue it is on, or last ran on */
    volatile bool on_cpu;           /* its registers are live on a CPU (switching out included) */
    bool on_runqueue;               /* counted in its runqueue's nr_running */
    bool is_idle;
    bool nohz;                      /* the nohz task attribute (kernel/time/nohz_task.c) */
    uint32_t tick_dep_mask;         /* tick dependencies it carries to any CPU it runs on (kernel/time/tick_dep.c) */
    struct cpumask affinity;
    /* Real-time scheduling (sched/rt.c), changed under this task's lock
     * and its runqueue's: the policy and its own priority (1-99 for FIFO
     * and RR, else 0), a priority lent by a PI futex waiter, and the one
     * the runqueue orders by, the larger of the two (0: a normal task). */
    unsigned char policy;
    bool reset_on_fork;
    bool requeue_tail;              /* it yielded or its RR slice ran out: behind its equals */
    unsigned rt_priority;
    unsigned pi_priority;
    unsigned prio;
    struct task *run_next;          /* in the runqueue's FIFO */
    struct spinlock lock;           /* serializes wakeups, affinity changes, migration */

    uint64_t stack_top;
    void (*entry)(void *arg);
    void *arg;
    int exit_code;
    struct wait_queue exited;       /* kthread_join() waits here */
    struct process *process;        /* NULL for a kernel thread */
    struct thread *thread;          /* its thread of that process (kernel/process/thread.h) */
    struct trap_frame *syscall_frame;   /* the user registers of the system call in progress */
    struct fpu_state fpu;           /* x87/SSE registers of a user task, while it is switched out */

    /* accounting, from the clocksource at every switch (never sampled by the tick) */
    uint64_t runtime_ns;
    uint64_t switched_in_at;
    uint64_t slices;                /* times it was switched in */
    /* user/system split, from the clocksource at the context tracking hooks
     * and at every switch (kernel/time/context_tracking.c): tick-less by design */
    uint64_t user_ns, system_ns;
    uint64_t mode_since;            /* when it last entered or left user mode, or was switched in */
    bool in_user;
    uint64_t migrations;
};

/* The running task on this CPU: one %gs-relative load, inline (it is on
 * every system call's path several times). Reading this_cpu() and then
 * ->current would be two, and a task moved to another CPU in between
 * would get that CPU's old current task instead of itself. The asm names
 * no memory: the compiler does not order it after a store to
 * cpu->current in the same function (the two writers, schedule_common()
 * and the idle task's setup, call out before anyone reads it). */
static inline struct task *current_task(void)
{
    struct task *task;
    __asm__ volatile("movq %%gs:%c1, %0" : "=r"(task) : "i"(offsetof(struct cpu, current)));
    return task;
}

struct task *kthread_create(const char *name, void (*entry)(void *arg), void *arg,
                            const struct cpumask *affinity);
struct task *kthread_create_stopped(const char *name, void (*entry)(void *arg), void *arg,
                                    const struct cpumask *affinity);
struct task *kthread_create_urgent(const char *name, void (*entry)(void *arg), void *arg,
                                   const struct cpumask *affinity);     /* above every user priority */
int kthread_join(struct task *task);        /* waits for exit, frees, returns exit code */
void kthread_free_unstarted(struct task *task);  /* one made stopped and never woken */
void task_exit(int code) __attribute__((noreturn));

void schedule(void);
void yield(void);
bool wake_up_task(struct task *task);       /* true if it was sleeping */
void set_current_state(enum task_state state);
int set_affinity(struct task *task, const struct cpumask *mask);
void sched_set_priority(struct task *task, unsigned policy, unsigned rt_priority, unsigned pi_priority);
/* The thread pid names (a tid, 0: the caller; a zombie until reaped), its
 * process pinned: the caller puts it (process_put). NULL: none. */
struct thread *sched_find_thread(int64_t pid);
void sched_fork(struct task *child, const struct task *parent);   /* before the child first runs */
uint64_t task_runtime_ns(struct task *task);
void task_times_ns(struct task *task, uint64_t *user, uint64_t *system);   /* running part included */

void sched_init_this_cpu(void);             /* the running context becomes the idle task */
void sched_tick(uint64_t now);              /* from the tick: time slices */
void sched_preempt_on_irq_exit(bool interrupted_with_irqs_on);
void idle_loop(void) __attribute__((noreturn));

/* For sched/ only: runqueue operations shared by its files. */
struct runqueue;
bool queue_remove_task(struct runqueue *rq, struct task *task);
void place_runnable_task(struct task *task);     /* caller holds task->lock */
void preempt_disable(void);
void preempt_enable(void);

/* The first code a new task runs (sched/sched.c): sched/kthread.c puts its
 * address on a new task's stack, where context_switch() "returns" to it. */
void task_first_run(void);

#endif
