/* One runqueue per CPU (embedded in struct cpu, kernel/base/percpu.h). */
#ifndef SCHED_RUNQUEUE_H
#define SCHED_RUNQUEUE_H

#include <stdint.h>

#include "kernel/base/spinlock.h"

struct task;

struct runqueue {
    struct spinlock lock;
    struct task *head, *tail;       /* runnable here, waiting for the CPU (FIFO) */
    struct task *current;           /* running now (the idle task when none) */
    struct task *idle;
    unsigned nr_running;            /* runnable tasks here, the current one included, idle not */
    struct task *switched_from;     /* for finish_switch() */
    struct task *migrate_after_switch;
    uint64_t context_switches;
    uint64_t wakeups;               /* tasks woken onto this runqueue */
};

/* A task left cpu's runqueue; its lock is held (sched/sched.c). */
void rq_task_left(struct runqueue *rq, unsigned cpu);

#endif
