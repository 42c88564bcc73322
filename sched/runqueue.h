/* One runqueue per CPU, a per-CPU variable of sched/sched.c: cpu_rq(id),
 * this_rq(). The running task is not here but in struct cpu (current_task()
 * must read it in one %gs-relative load). */
#ifndef SCHED_RUNQUEUE_H
#define SCHED_RUNQUEUE_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/base/percpu.h"
#include "kernel/base/spinlock.h"

struct task;

struct runqueue {
    struct spinlock lock;
    struct task *head, *tail;       /* runnable here, waiting for the CPU: by priority, FIFO among equals */
    struct task *idle;
    unsigned nr_running;            /* runnable tasks here, the current one included, idle not */
    unsigned rt_nr_running;         /* of them, real-time (priority above 0: FIFO, RR, PI-boosted) */
    unsigned rr_nr_running;         /* of those, SCHED_RR */
    int curr_prio;                  /* the running task's priority, -1 when idle: a hint for select_cpu */
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

/* A task left cpu's runqueue; its lock is held (sched/sched.c). True if
 * cpu's stopped tick is now needed: the caller kicks it after unlocking. */
bool rq_task_left(struct runqueue *rq, unsigned cpu, struct task *task);

/* Does this runqueue need the tick for time slices? Linux 6.1's
 * sched_can_stop_tick() rules (docs/realtime.md); the lock is held. */
bool rq_tasks_need_tick(const struct runqueue *rq);

#endif
