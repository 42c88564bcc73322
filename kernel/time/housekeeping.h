/* Housekeeping CPUs: the ones that do work on behalf of the whole system
 * (unpinned timers; RCU's grace-period and callback-offload kthreads run
 * on one). A CPU leaves the set when it is reserved for a task that wants no
 * interruptions (a nohz task, nohz_full=). At least one CPU always stays. */
#ifndef KERNEL_HOUSEKEEPING_H
#define KERNEL_HOUSEKEEPING_H

#include <stdbool.h>

#include "kernel/lib/cpumask.h"

extern struct cpumask housekeeping_mask;

void housekeeping_init(void);               /* all online CPUs */
bool housekeeping_cpu(unsigned cpu);
unsigned housekeeping_pick_cpu(void);       /* this CPU if it is one, else the first */
int housekeeping_set(const struct cpumask *mask);   /* -EINVAL if empty or offline CPUs */
/* A nohz task's CPU leaves the set and comes back (kernel/time/nohz_task.c,
 * which keeps at least one CPU in it). */
void housekeeping_remove(unsigned cpu);
void housekeeping_add(unsigned cpu);

#endif
