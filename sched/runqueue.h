/* One runqueue per CPU, a per-CPU variable of sched/sched.c: cpu_rq(id),
 * this_rq(). The running task is not here but in struct cpu (current_task()
 * must read it in one %gs-relative load). */
#ifndef SCHED_RUNQUEUE_H
#define SCHED_RUNQUEUE_H

#include <stdint.h>

#include "kernel/base/percpu.h"
#include "kernel/base/spinlock.h"

struct task;

struct runqueue {
    struct spinlock lock;
    struct task *head, *tail;       /* runnable here, waiting for the CPU (FIFO) */
    struct task *idle;
    unsigned nr_running;            /* runnable tasks here, the current one included, idle not */
    struct task *switched_from;     /* for finish_switch() */
    struct task *migrate_after_switch;
    uint64_t context_switches;
    uint64_t wakeups;               /* tasks woken onto this runqueue */
};

DECLARE_PER_CPU(struct runqueue, runqueues);

static inline struct runqueue *cpu_rq(unsigned cpu)
{
    return per_cpu_ptr(runqueues, cpu);
}

static inline struct runqueue *this_rq(void)
{
    return this_cpu_ptr(runqueues);
}

/* A task left cpu's runqueue; its lock is held (sched/sched.c). */
void rq_task_left(struct runqueue *rq, unsigned cpu);

#endif
