/* Job control: stopping and continuing a process, and telling its parent
 * (kernel/process/job_control.c, docs/signals.md "Job control"). */
#ifndef KERNEL_JOB_CONTROL_H
#define KERNEL_JOB_CONTROL_H

#include <stdbool.h>
#include <stdint.h>

/* One process's job-control state; every field atomic. */
struct job_control {
    uint32_t state;             /* JOB_* bits */
    int stop_signal;            /* what stopped it, for wait4 */
    uint32_t continues;         /* SIGCONTs sent so far */
};

#define JOB_STOPPED         0x1 /* asleep in job_stop() until SIGCONT or SIGKILL */
#define JOB_STOP_UNREPORTED 0x2 /* for wait4(WUNTRACED) */
#define JOB_CONT_UNREPORTED 0x4 /* for wait4(WCONTINUED) */

struct process;

/* The stopping process itself, on its way to user mode, having taken a
 * stop signal when job.continues was continues_before: stop, tell the
 * parent, and sleep until SIGCONT or SIGKILL. */
void job_stop(struct process *process, int signal, uint32_t continues_before);
/* A stop of the process this thread has not joined; join it: sleep
 * until SIGCONT (false) or SIGKILL (true). */
bool job_stop_pending(const struct process *process);
bool job_stop_join(struct process *process);
/* From signal_send(), for SIGCONT: the process runs again (safe from
 * interrupt context and under process_tree_lock). */
void job_continue(struct process *process);
/* For wait4: a stop or continue not yet reported, cleared as it is taken,
 * and its wait status word. */
bool job_take_report(struct process *child, bool stopped, bool continued, int *status);
/* 'T' in /proc/PID/stat? */
bool job_is_stopped(const struct process *process);

#endif
