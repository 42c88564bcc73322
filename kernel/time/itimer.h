/* Interval timers: setitimer, getitimer, alarm (kernel/time/itimer.c,
 * docs/tick-dependencies.md). */
#ifndef KERNEL_ITIMER_H
#define KERNEL_ITIMER_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/base/spinlock.h"
#include "kernel/time/timers.h"

#define ITIMER_REAL    0        /* wall-clock time: SIGALRM */
#define ITIMER_VIRTUAL 1        /* the process's user CPU time: SIGVTALRM */
#define ITIMER_PROF    2        /* its user and system CPU time: SIGPROF */
#define ITIMER_COUNT   3

/* One timer: when it expires (clock_now() time for REAL, CPU time in ns
 * for the others; 0 = disarmed) and its reload interval (0 = one shot). */
struct itimer {
    uint64_t expires, interval;
};

struct process_itimers {
    struct spinlock lock;       /* REAL: the syscall against the timer function */
    struct itimer timers[ITIMER_COUNT];
    struct timer real;          /* kernel/time/timers.h, fires ITIMER_REAL */
    uint64_t signals_sent[ITIMER_COUNT];
};

struct process;
void itimer_init(struct process *process);    /* a new process: fork does not inherit them */
void itimer_exit(struct process *process);    /* before the process is freed */
/* From the tick of the CPU the task runs on: expire its CPU-time timers. */
void itimer_tick(void);


#endif
