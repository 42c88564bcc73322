/* Job control: SIGSTOP, SIGTSTP, SIGTTIN and SIGTTOU stop a process,
 * SIGCONT continues it, and its parent hears of both, through SIGCHLD
 * (CLD_STOPPED, CLD_CONTINUED; not with SA_NOCLDSTOP) and wait4
 * (WUNTRACED, WCONTINUED). This is what a shell's Ctrl-Z, `fg` and `bg`
 * are made of (docs/signals.md, "Job control").
 *
 * A process stops itself: signal delivery (signal.c: signal_deliver_one()) finds
 * a stop signal at its default action and calls job_stop(), which sleeps
 * until SIGCONT clears JOB_STOPPED or SIGKILL is pending. Its other
 * threads see the stop as a pending signal (signal_pending()) and sleep
 * the same way on their way out (job_stop_join()). The parent hears of the
 * stop when the first thread stops, not, as on Linux, when the last does. Nothing else
 * ends a stop: on Linux, too, a SIGTERM to a stopped process waits for the
 * SIGCONT. Sending SIGCONT discards pending stops and a stop discards a
 * pending SIGCONT (signal_send()); a SIGCONT that comes between a stop
 * signal's taking and the stop is caught by job.continues.
 *
 * The state is atomic bits and not under a lock, because SIGCONT is sent
 * from places that hold process_tree_lock or run in an interrupt (the
 * console). For the same reason the continued process, not the sender,
 * tells its parent, once it runs (as Linux does).
 *
 * Left out: discarding SIGTSTP, SIGTTIN and SIGTTOU sent to an orphaned
 * process group, and SIGTTIN/SIGTTOU for a background read or write of
 * the terminal (the console does not send them). */
#include "kernel/process/job_control.h"
#include "kernel/entry/syscall.h"

#include "kernel/process/process.h"
#include "kernel/process/signal.h"
#include "kernel/process/thread.h"
#include "kernel/base/spinlock.h"
#include "kernel/lib/errno.h"
#include "sched/task.h"
#include "sched/wait.h"

/* si_code of SIGCHLD */
#define CLD_STOPPED 5
#define CLD_CONTINUED 6

/* SIGCHLD, unless the parent asked for none with SA_NOCLDSTOP, and a wake
 * for a parent sleeping in wait4. */
static void tell_parent(struct process *process, int code, int status)
{
    spin_lock(&process_tree_lock);      /* the parent stays while we hold it */
    struct process *parent = process->parent;
    if (parent) {
        if (!(parent->signals.actions[SIGCHLD].flags & SA_NOCLDSTOP))
            signal_send(parent, SIGCHLD, &(struct signal_origin){ .code = code, .pid = process->pid, .status = status });
        wake_up_all(&parent->child_exited);
    }
    spin_unlock(&process_tree_lock);
}

void job_stop(struct process *process, int signal, uint32_t continues_before)
{
    struct job_control *job = &process->job;

    __atomic_store_n(&job->stop_signal, signal, __ATOMIC_RELAXED);
    __atomic_and_fetch(&job->state, ~(uint32_t)JOB_CONT_UNREPORTED, __ATOMIC_SEQ_CST);
    __atomic_or_fetch(&job->state, JOB_STOPPED | JOB_STOP_UNREPORTED, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&job->continues, __ATOMIC_SEQ_CST) != continues_before) {
        /* a SIGCONT came after the stop signal was taken: it wins */
        __atomic_and_fetch(&job->state, ~(uint32_t)(JOB_STOPPED | JOB_STOP_UNREPORTED), __ATOMIC_SEQ_CST);
        return;
    }
    tell_parent(process, CLD_STOPPED, signal);
    signal_notify_all(process);         /* the other threads stop too */
    if (job_stop_join(process)) {
        __atomic_and_fetch(&job->state, ~(uint32_t)(JOB_STOPPED | JOB_STOP_UNREPORTED), __ATOMIC_SEQ_CST);
        return;     /* SIGKILL is delivered next; the exit tells the parent */
    }
    __atomic_or_fetch(&job->state, JOB_CONT_UNREPORTED, __ATOMIC_SEQ_CST);
    tell_parent(process, CLD_CONTINUED, SIGCONT);
}

bool job_stop_pending(const struct process *process)
{
    return job_is_stopped(process);
}

bool job_stop_join(struct process *process)
{
    struct thread *self = current_thread();
    bool killed = false;
    for (;;) {
        set_current_state(TASK_SLEEPING);
        killed = __atomic_load_n(&self->signals.pending, __ATOMIC_ACQUIRE) & signal_bit(SIGKILL);
        if (killed || !(__atomic_load_n(&process->job.state, __ATOMIC_ACQUIRE) & JOB_STOPPED))
            break;
        schedule();
    }
    set_current_state(TASK_RUNNABLE);
    return killed;
}

void job_continue(struct process *process)
{
    struct job_control *job = &process->job;

    __atomic_add_fetch(&job->continues, 1, __ATOMIC_SEQ_CST);
    uint32_t before = __atomic_fetch_and(&job->state, ~(uint32_t)(JOB_STOPPED | JOB_STOP_UNREPORTED), __ATOMIC_SEQ_CST);
    if (before & JOB_STOPPED)
        signal_notify_all(process);
}

/* Clear bit if set; was it? */
static bool take_bit(uint32_t *state, uint32_t bit)
{
    return __atomic_fetch_and(state, ~bit, __ATOMIC_SEQ_CST) & bit;
}

bool job_take_report(struct process *child, bool stopped, bool continued, int *status)
{
    struct job_control *job = &child->job;

    if (stopped && take_bit(&job->state, JOB_STOP_UNREPORTED)) {
        *status = (__atomic_load_n(&job->stop_signal, __ATOMIC_RELAXED) << 8) | 0x7f;
        return true;
    }
    if (continued && take_bit(&job->state, JOB_CONT_UNREPORTED)) {
        *status = 0xffff;
        return true;
    }
    return false;
}

bool job_is_stopped(const struct process *process)
{
    return __atomic_load_n(&process->job.state, __ATOMIC_ACQUIRE) & JOB_STOPPED;
}

/* --- sessions and process groups -------------------------------------- */

/* Is there a process in group `group` of session `session`? A zombie
 * counts, as on Linux (a pipeline's first member may have exited before
 * the shell puts the next one in its group). The table is locked. */
static bool group_exists_locked(int group, int session)
{
    for_each_process(process)
        if (process->process_group == group && process->session == session)
            return true;
    return false;
}

/* setpgid: for ourselves or one of our children (job control in ash).
 * Linux's rules: the group must exist in the caller's session (or be the
 * target's own pid), and a session leader or a child in another session
 * cannot move. */
SYSCALL_DEFINE2(setpgid, int, pid, int, group)
{
    struct process *self = current_process(), *target = 0;

    if (group < 0)
        return -EINVAL;
    spin_lock(&process_tree_lock);
    if (pid == 0 || pid == self->pid) {
        target = self;
    } else {
        for (struct process *child = self->first_child; child; child = child->next_sibling) {
            if (child->pid == pid)
                target = child;
        }
    }
    long result = -ESRCH;
    if (target) {
        int new_group = group ? (int)group : target->pid;
        if (target->session == target->pid || target->session != self->session)
            result = -EPERM;    /* a session leader, or a child in another session */
        else if (new_group != target->pid && !group_exists_locked(new_group, self->session))
            result = -EPERM;    /* no such group in our session */
        else
            result = 0;
        if (!result)
            target->process_group = new_group;
    }
    spin_unlock(&process_tree_lock);
    return result;
}

/* setsid: a new session and a new group, both led by the caller, unless it
 * leads a group already (its members would be left in another session). */
SYSCALL_DEFINE0(setsid)
{
    struct process *self = current_process();
    spin_lock(&process_tree_lock);
    long result = self->process_group == self->pid ? -EPERM : self->pid;
    if (result > 0)
        self->process_group = self->session = self->pid;
    spin_unlock(&process_tree_lock);
    return result;
}

SYSCALL_DEFINE0(getpgrp)
{
    return current_process()->process_group;
}

/* getpgid, getsid: of any process; 0 is the caller. */
static long id_of(int64_t pid, bool session)
{
    struct process *self = current_process();
    spin_lock(&process_tree_lock);
    struct process *process = pid == 0 ? self : pid > 0 && pid <= INT32_MAX ? process_find_locked((int)pid) : 0;
    long result = !process ? -ESRCH : session ? process->session : process->process_group;
    spin_unlock(&process_tree_lock);
    return result;
}

SYSCALL_DEFINE1(getpgid, int, pid)
{
    return id_of(pid, false);
}

SYSCALL_DEFINE1(getsid, int, pid)
{
    return id_of(pid, true);
}
