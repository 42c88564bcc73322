/* The nohz task attribute (docs/nohz-task.md, the whole series).
 *
 * A task asks for it by writing 1 to /proc/self/nohz. It must then be
 * bound to exactly one CPU, that CPU must have no other nohz task, and at
 * least one online CPU must stay without one (for timekeeping, unpinned
 * timers and RCU's grace-period thread). While it runs alone there, that
 * CPU's tick stops (kernel/time/tick_stop.c), and in user mode it is in an extended
 * quiescent state for RCU (kernel/time/context_tracking.c). */
#ifndef KERNEL_NOHZ_TASK_H
#define KERNEL_NOHZ_TASK_H

#include <stdbool.h>
#include <stddef.h>

#include "kernel/lib/cpumask.h"

struct task;

/* CPUs whose nohz task exists, running or not
 * (docs/nohz-task.md#patch-01-a-mask-of-cpus-that-have-a-nohz-task).
 * Changed under nohz_lock, read without it (atomic bits). */
extern struct cpumask cpu_has_nohz_task;

bool task_is_nohz(const struct task *task);
bool cpu_has_nohz(unsigned cpu);
struct task *cpu_nohz_task(unsigned cpu);      /* cpu's nohz task, or NULL */

/* nohz_full= (with tick=full): CPUs where any task running alone stops the
 * tick. Set once at boot by nohz_full_init(), after the CPUs are up and
 * before RCU starts: they leave the housekeeping set. */
extern struct cpumask nohz_full_mask;
void nohz_full_init(const char *list);

/* A CPU kept free of housekeeping work: it has a nohz task, or it is a
 * nohz_full CPU. Timekeeping, the clocksource watchdog and the RCU
 * torture load stay off it. */
bool cpu_is_isolated(unsigned cpu);
bool isolated_cpus_exist(void);

/* For the current task only. 0, or -EBUSY with nothing changed: not bound
 * to exactly one CPU, that CPU taken, or it would take the last CPU
 * without a nohz task (or its mask kept changing under it). It may
 * switch, to move onto the CPU another process has just bound it to:
 * call it holding no spinlock. Clearing an unset attribute is not an
 * error. */
int nohz_task_set(struct task *task);
void nohz_task_clear(struct task *task);
/* From task_exit: the attribute dies with the task
 * (docs/nohz-task.md#patch-14-exit-clears-the-attribute). */
void nohz_task_exit(struct task *task);

/* /proc/PID/nohz writes: "0" or "1" (whitespace around them ignored), by
 * the process itself only (-EPERM), else -EINVAL. */
long nohz_task_proc_write(int pid, const char *buffer, size_t count);

#endif
