/* Signals: sending, blocking, and delivery on the way back to user mode.
 * See docs/signals.md for the walk-through.
 *
 * A signal is one bit in a pending mask: the process's (kill: any of its
 * threads that does not block it takes it) or one thread's (tgkill, a
 * fault, the group's end). Sending sets the bit and makes sure a thread
 * that can take it soon passes through exit_to_user_mode()
 * (kernel/entry/entry.c): a sleeping target is woken (its system call
 * returns -ERESTARTSYS), one running on another CPU gets a reschedule
 * IPI. On the way out, signal_deliver_one() takes the lowest pending,
 * unblocked signal and does what its action says: die, ignore, or run the
 * handler on an rt_sigframe (arch/x86/signal_frame.c) that rt_sigreturn
 * later takes apart.
 *
 * Stop signals and SIGCONT are job control's (kernel/process/job_control.c):
 * a stop stops every thread of the process. SIGKILL, and any signal that
 * kills, ends every thread (process_exit, kernel/process/thread.c).
 *
 * A handler with SA_ONSTACK runs on the alternate stack that sigaltstack
 * set, Linux's rules (docs/signals.md, "The alternate stack").
 *
 * Left out on purpose: queued real-time signals (a second instance of a pending signal merges with the first,
 * as for standard signals), and core files (so no wait
 * status says "core dumped", as on Linux with a core size limit of 0). */
#include "kernel/entry/syscall.h"
#include "kernel/process/signal.h"

#include "arch/x86/signal_frame.h"
#include "arch/x86/trap.h"
#include "arch/x86/user_mode.h"
#include "kernel/lib/errno.h"
#include "kernel/irq/ipi.h"
#include "kernel/base/panic.h"
#include "kernel/base/percpu.h"
#include "kernel/base/printk.h"
#include "kernel/process/poweroff.h"
#include "kernel/process/process.h"
#include "kernel/process/thread.h"
#include "kernel/lib/linux_abi.h"
#include "kernel/mm/uaccess.h"
#include "kernel/time/timers.h"
#include "sched/task.h"

#define SYSCALL_INSTRUCTION_SIZE 2
#define UNBLOCKABLE (signal_bit(SIGKILL) | signal_bit(SIGSTOP))

enum default_action { TERMINATE, CORE, IGNORE, STOP, CONTINUE };

#define STOP_SIGNALS (signal_bit(SIGSTOP) | signal_bit(SIGTSTP) | signal_bit(SIGTTIN) | signal_bit(SIGTTOU))

/* What a signal does with SIG_DFL (signal(7)). */
static enum default_action default_action(int signal)
{
    switch (signal) {
    case SIGQUIT: case SIGILL: case SIGTRAP: case SIGABRT: case SIGBUS: case SIGFPE: case SIGSEGV:
    case 24 /* SIGXCPU */: case 25 /* SIGXFSZ */: case 31 /* SIGSYS */:
        return CORE;
    case SIGCHLD: case SIGURG: case SIGWINCH:
        return IGNORE;
    case SIGSTOP: case SIGTSTP: case SIGTTIN: case SIGTTOU:
        return STOP;
    case SIGCONT:
        return CONTINUE;    /* done when sent (job_continue()); nothing more on delivery */
    default:
        return TERMINATE;
    }
}

static bool is_ignored(const struct signal_shared *shared, int signal)
{
    uint64_t handler = shared->actions[signal].handler;
    enum default_action action = default_action(signal);
    return handler == SIG_IGN || (handler == SIG_DFL && (action == IGNORE || action == CONTINUE));
}

/* Make the thread look at its pending signals soon: wake it if it sleeps,
 * interrupt it if it runs in user mode on another CPU. Not again for a
 * signal that was already pending: its first send notified the thread
 * (or found it blocked, and unblocking looks), so a second reschedule IPI
 * would cost the CPU an interrupt for nothing (Linux drops such a send:
 * legacy_queue). Except for a process signal with several threads: the
 * one notified may have blocked it since, and nohzk does not hand it to
 * another then (Linux's retarget_shared_pending), so the next send does. */
static void notify(struct thread *thread)
{
    struct task *task = thread->task;
    if (wake_up_task(task))
        return;
    unsigned cpu = __atomic_load_n(&task->cpu, __ATOMIC_RELAXED);
    if (__atomic_load_n(&task->on_cpu, __ATOMIC_ACQUIRE) && cpu != this_cpu_id())
        ipi_send(cpu, IPI_RESCHEDULE);
}

/* A thread list is walked under process_tree_lock; senders in interrupt
 * context or from a process's own calls may not hold it yet. */
static bool lock_threads(void)
{
    if (spin_is_held_by_me(&process_tree_lock))
        return false;
    spin_lock(&process_tree_lock);
    return true;
}

void signal_notify_all(struct process *process)
{
    bool locked = lock_threads();
    for_each_thread(process, thread) {
        if (!thread->exited)
            notify(thread);
    }
    if (locked)
        spin_unlock(&process_tree_lock);
}

/* Job control acts when a signal is sent, whatever its action: a SIGCONT
 * continues and discards stops; a stop discards a SIGCONT. Then: is it
 * dropped at once? An ignored signal is, unless blocked (the handler may
 * change before it is unblocked), and pid 1 only gets what it has a
 * handler for, as on Linux. */
static bool send_prepare(struct process *process, int signal, uint64_t blocked)
{
    struct signal_shared *shared = &process->signals;

    if (signal == 0 || process->exited)
        return false;
    if (signal == SIGCONT) {
        __atomic_and_fetch(&shared->pending, ~STOP_SIGNALS, __ATOMIC_SEQ_CST);
        for_each_thread(process, thread)
            __atomic_and_fetch(&thread->signals.pending, ~STOP_SIGNALS, __ATOMIC_SEQ_CST);
        job_continue(process);
    } else if (STOP_SIGNALS & signal_bit(signal)) {
        __atomic_and_fetch(&shared->pending, ~signal_bit(SIGCONT), __ATOMIC_SEQ_CST);
        for_each_thread(process, thread)
            __atomic_and_fetch(&thread->signals.pending, ~signal_bit(SIGCONT), __ATOMIC_SEQ_CST);
    }
    if (signal != SIGKILL && !(blocked & signal_bit(signal)) && is_ignored(shared, signal))
        return false;
    if (process->pid == 1 && shared->actions[signal].handler == SIG_DFL)
        return false;
    return true;
}

/* SIGKILL to a process ends the group at once, as Linux's
 * complete_signal: every thread gets it, and the status is set now (an
 * exec waiting for its siblings gives up). */
static void kill_group_locked(struct process *process, const struct signal_origin *origin)
{
    if (!process->group_exit) {
        process->group_exit = true;
        process->exit_status = WAIT_STATUS_SIGNALED(SIGKILL);
    }
    for_each_thread(process, thread) {
        if (thread->exited)
            continue;
        thread->signals.origin[SIGKILL] = *origin;
        __atomic_or_fetch(&thread->signals.pending, signal_bit(SIGKILL), __ATOMIC_SEQ_CST);
        notify(thread);
    }
    wake_up_all(&process->thread_exited);
}

/* The thread that should take a process-directed signal: the first that
 * does not block it, else the leader (it stays pending). */
static struct thread *taker(struct process *process, int signal)
{
    for_each_thread(process, thread) {
        if (!thread->exited && !(thread->signals.blocked & signal_bit(signal)))
            return thread;
    }
    return 0;
}

void signal_send(struct process *process, int signal, const struct signal_origin *origin)
{
    bool locked = lock_threads();
    const struct signal_state *leader = &process->leader.signals;
    if (!send_prepare(process, signal, leader->blocked | leader->real_blocked))
        goto out;
    if (signal == SIGKILL) {
        kill_group_locked(process, origin);
        goto out;
    }
    struct signal_shared *shared = &process->signals;
    shared->origin[signal] = *origin;
    uint64_t before = __atomic_fetch_or(&shared->pending, signal_bit(signal), __ATOMIC_SEQ_CST);
    struct thread *thread = taker(process, signal);
    if (thread && !(before & signal_bit(signal) && process->live_threads == 1))
        notify(thread);
out:
    if (locked)
        spin_unlock(&process_tree_lock);
}

void signal_send_thread(struct thread *thread, int signal, const struct signal_origin *origin)
{
    struct process *process = thread->process;
    bool locked = lock_threads();
    if (thread->exited || !send_prepare(process, signal, thread->signals.blocked | thread->signals.real_blocked))
        goto out;
    thread->signals.origin[signal] = *origin;
    uint64_t before = __atomic_fetch_or(&thread->signals.pending, signal_bit(signal), __ATOMIC_SEQ_CST);
    if (!(before & signal_bit(signal)))
        notify(thread);
out:
    if (locked)
        spin_unlock(&process_tree_lock);
}

int signal_send_group(int process_group, int signal)
{
    int count = 0;
    struct signal_origin origin = { .code = SI_KERNEL };

    spin_lock(&process_tree_lock);
    for_each_process(process) {
        if (process->process_group == process_group && !process->exited) {
            signal_send(process, signal, &origin);
            count++;
        }
    }
    spin_unlock(&process_tree_lock);
    return count;
}

/* What the thread may take now: its own and its process's, less what it blocks. */
static uint64_t deliverable(const struct thread *thread)
{
    uint64_t pending = __atomic_load_n(&thread->signals.pending, __ATOMIC_ACQUIRE) |
                       __atomic_load_n(&thread->process->signals.pending, __ATOMIC_ACQUIRE);
    return pending & ~(thread->signals.blocked & ~UNBLOCKABLE);
}

/* A group stop this thread has not joined yet counts as a signal: its
 * waits end and it stops on the way out (signal_deliver_one). */
bool signal_pending(void)
{
    struct thread *thread = current_thread();
    return thread && (deliverable(thread) != 0 || job_stop_pending(thread->process));
}

int signal_fatal_pending(void)
{
    struct thread *thread = current_thread();
    if (!thread)
        return 0;
    struct process *process = thread->process;
    uint64_t ready = deliverable(thread);
    if (ready & signal_bit(SIGKILL))
        return SIGKILL;
    for (int signal = 1; signal <= SIGNAL_MAX; signal++) {
        enum default_action action = default_action(signal);
        if ((ready & signal_bit(signal)) && process->signals.actions[signal].handler == SIG_DFL &&
            (action == TERMINATE || action == CORE))
            return signal;
    }
    return 0;
}

void signal_dispositions(const struct signal_shared *shared, uint64_t *ignored, uint64_t *caught)
{
    *ignored = *caught = 0;
    for (int signal = 1; signal <= SIGNAL_MAX; signal++) {
        uint64_t handler = shared->actions[signal].handler;
        if (handler == SIG_IGN)
            *ignored |= signal_bit(signal);
        else if (handler != SIG_DFL)
            *caught |= signal_bit(signal);
    }
}

void signal_fork(struct signal_shared *child_shared, const struct signal_shared *parent_shared,
                 struct signal_state *child, const struct signal_state *parent)
{
    *child_shared = *parent_shared;
    child_shared->pending = 0;
    *child = *parent;
    child->pending = 0;
    child->restore_blocked = false;
}

/* A new thread: its creator's mask, nothing pending, no altstack (Linux's
 * clone with CLONE_VM clears it). */
void signal_thread_new(struct signal_state *thread, const struct signal_state *creator)
{
    *thread = (struct signal_state){ .blocked = creator->blocked, .altstack = { .flags = SS_DISABLE } };
}

void signal_exec(struct signal_shared *shared, struct signal_state *state)
{
    state->altstack = (struct signal_stack){ .flags = SS_DISABLE };
    for (int signal = 1; signal <= SIGNAL_MAX; signal++) {
        struct signal_action *action = &shared->actions[signal];
        if (action->handler != SIG_IGN)
            *action = (struct signal_action){ 0 };
    }
}

void signal_force(struct trap_frame *frame, int signal, int code, uint64_t address, const char *what)
{
    struct process *process = current_process();
    struct signal_state *state;

    if (!process)
        panic_from_trap(frame, "%s in ring 3 without a process", what);
    state = &current_thread()->signals;
    uint64_t handler = process->signals.actions[signal].handler;
    if (handler != SIG_DFL && handler != SIG_IGN && !(state->blocked & signal_bit(signal))) {
        state->origin[signal] = (struct signal_origin){ .code = code, .address = address };
        __atomic_or_fetch(&state->pending, signal_bit(signal), __ATOMIC_SEQ_CST);
        return;
    }
    if (code == SI_KERNEL)
        printk("nohzk: pid %d (%s) killed by signal %d: %s, rip %#lx, rsp %#lx\n", process->pid, process->name,
               signal, what, frame->rip, frame->rsp);
    else
        printk("nohzk: pid %d (%s) killed by signal %d: %s at %#lx, rip %#lx\n", process->pid, process->name,
               signal, what, address, frame->rip);
    process_exit(WAIT_STATUS_SIGNALED(signal));
}

static bool in_syscall(const struct trap_frame *frame)
{
    return frame->vector == SYSCALL_VECTOR && frame->error_code != (uint64_t)-1;
}

#define NR_RESTART_SYSCALL 219

/* The result first: on every return it is an ordinary one, and one range
 * check says so (docs/performance.md, "The path in instructions"). */
bool signal_wants_restart(const struct trap_frame *frame)
{
    int64_t result = (int64_t)frame->rax;
    if (result > -ERESTARTSYS || result < -ERESTART_RESTARTBLOCK)
        return false;
    return (result == -ERESTARTSYS || result == -ERESTARTNOINTR || result == -ERESTARTNOHAND ||
            result == -ERESTART_RESTARTBLOCK) &&
           in_syscall(frame);
}

/* Back to the number, or to restart_syscall's, in rax; rip back onto
 * `syscall`. */
void signal_restart_syscall(struct trap_frame *frame)
{
    bool by_block = (int64_t)frame->rax == -ERESTART_RESTARTBLOCK;
    frame->rax = by_block ? NR_RESTART_SYSCALL : frame->error_code;     /* the number, saved at entry */
    frame->rip -= SYSCALL_INSTRUCTION_SIZE;
}

SYSCALL_DEFINE0(restart_syscall)
{
    struct thread *thread = current_thread();
    struct restart_block block = thread->restart;
    thread->restart.resume = 0;        /* once */
    return block.resume ? block.resume(&block) : -EINTR;
}

/* The lowest deliverable signal, taken from the thread's own set if it
 * is there, else from the process's (another thread may take it first:
 * then 0); its origin in *origin. */
static int take_next_signal(struct thread *thread, struct signal_origin *origin)
{
    uint64_t ready = deliverable(thread);
    if (!ready)
        return 0;
    int signal = __builtin_ctzl(ready) + 1;
    uint64_t bit = signal_bit(signal);
    if (__atomic_fetch_and(&thread->signals.pending, ~bit, __ATOMIC_SEQ_CST) & bit) {
        *origin = thread->signals.origin[signal];
        return signal;
    }
    struct signal_shared *shared = &thread->process->signals;
    *origin = shared->origin[signal];
    if (__atomic_fetch_and(&shared->pending, ~bit, __ATOMIC_SEQ_CST) & bit)
        return signal;
    return 0;
}

/* --- the alternate stack (sigaltstack) --------------------------------- */

/* sp lies on the alternate stack: in (pointer, pointer + size], Linux's
 * test. With SS_AUTODISARM the program says it never is (the stack is
 * taken away while a handler runs on it). */
static bool on_altstack(const struct signal_state *state, uint64_t sp)
{
    const struct signal_stack *alt = &state->altstack;
    if (alt->flags & SS_AUTODISARM)
        return false;
    return sp > alt->pointer && sp - alt->pointer <= alt->size;
}

/* What sigaltstack reports for sp: SS_DISABLE, SS_ONSTACK or 0. */
static uint32_t altstack_mode(const struct signal_state *state, uint64_t sp)
{
    if (!state->altstack.size)
        return SS_DISABLE;
    return on_altstack(state, sp) ? SS_ONSTACK : 0;
}

/* sigaltstack's checks, in Linux's order: not while on it, a known mode
 * (0, SS_ONSTACK or SS_DISABLE, with or without SS_AUTODISARM), at least
 * MINSIGSTKSZ bytes unless disabled. The pointer is not checked: a bad
 * one is the frame's fault, at delivery. */
static int altstack_check(const struct signal_state *state, const struct signal_stack *new, uint64_t sp)
{
    uint32_t mode = new->flags & ~SS_AUTODISARM;
    if (on_altstack(state, sp))
        return -EPERM;
    if (mode != 0 && mode != SS_ONSTACK && mode != SS_DISABLE)
        return -EINVAL;
    if (mode != SS_DISABLE && new->size < MINSIGSTKSZ)
        return -ENOMEM;
    return 0;
}

static void altstack_set(struct signal_state *state, const struct signal_stack *new)
{
    bool disable = (new->flags & ~SS_AUTODISARM) == SS_DISABLE;
    state->altstack = (struct signal_stack){ .pointer = disable ? 0 : new->pointer, .flags = new->flags,
                                             .size = disable ? 0 : new->size };
}

/* Where the handler's frame goes (get_sigframe's rules): with SA_ONSTACK,
 * at the top of the alternate stack unless disabled or already on it; a
 * frame on it (entering, or nested) must fit in it. The frame's uc_stack
 * is the altstack as it is now. */
static struct signal_frame_stack frame_stack(const struct signal_state *state, const struct signal_action *action,
                                             uint64_t sp)
{
    const struct signal_stack *alt = &state->altstack;
    struct signal_frame_stack where = { .saved = *alt };

    if (!alt->size)
        where.saved.flags |= SS_DISABLE;
    if ((action->flags & SA_ONSTACK) && altstack_mode(state, sp) == 0) {
        where.switch_to_top = true;
        where.top = alt->pointer + alt->size;
    }
    if (where.switch_to_top || on_altstack(state, sp)) {
        where.bounded = true;
        where.low = alt->pointer;
        where.size = alt->size;
    }
    return where;
}

static void run_handler(struct process *process, struct trap_frame *frame, int signal,
                        const struct signal_origin *origin)
{
    struct signal_state *state = &current_thread()->signals;
    struct signal_action action = process->signals.actions[signal];
    uint64_t blocked = state->restore_blocked ? state->saved_blocked : state->blocked;
    struct signal_frame_stack where = frame_stack(state, &action, frame->rsp);

    if (signal_wants_restart(frame)) {
        int64_t result = (int64_t)frame->rax;
        if ((result == -ERESTARTSYS && (action.flags & SA_RESTART)) || result == -ERESTARTNOINTR)
            signal_restart_syscall(frame);
        else
            frame->rax = (uint64_t)-EINTR;
    }
    if (signal_frame_push(frame, signal, &action, origin, blocked, &where) < 0) {
        printk("nohzk: pid %d (%s) killed by signal %d: no room for a signal frame at %#lx\n", process->pid,
               process->name, SIGSEGV, where.switch_to_top ? where.top : frame->rsp);
        process_exit(WAIT_STATUS_SIGNALED(SIGSEGV));
    }
    if (state->altstack.flags & SS_AUTODISARM)     /* until rt_sigreturn puts it back */
        state->altstack = (struct signal_stack){ .flags = SS_DISABLE };
    state->restore_blocked = false;
    state->blocked |= action.mask & ~UNBLOCKABLE;
    if (!(action.flags & SA_NODEFER))
        state->blocked |= signal_bit(signal) & ~UNBLOCKABLE;
    if (action.flags & SA_RESETHAND)
        process->signals.actions[signal] = (struct signal_action){ 0 };
}

void signal_deliver_one(struct trap_frame *frame)
{
    struct thread *thread = current_thread();
    struct process *process = thread->process;
    uint32_t continues = __atomic_load_n(&process->job.continues, __ATOMIC_SEQ_CST);    /* before the taking */
    struct signal_origin origin;

    if (__atomic_load_n(&thread->signals.pending, __ATOMIC_ACQUIRE) & signal_bit(SIGKILL)) {
        /* the group ends (exit_group, a fatal signal), or an exec ends us */
        if (__atomic_load_n(&process->group_exit, __ATOMIC_ACQUIRE))
            process_exit(WAIT_STATUS_SIGNALED(SIGKILL));
        if (__atomic_load_n(&process->exec_thread, __ATOMIC_ACQUIRE))
            thread_exit(0);
    }
    if (job_stop_pending(process)) {
        job_stop_join(process);
        return;
    }
    int signal = take_next_signal(thread, &origin);
    if (!signal)
        return;
    uint64_t handler = process->signals.actions[signal].handler;
    if (signal == SIGKILL || handler == SIG_DFL) {
        switch (default_action(signal)) {
        case TERMINATE:
        case CORE:      /* no core file is written: the status says so, as Linux's with RLIMIT_CORE 0 */
            process_exit(WAIT_STATUS_SIGNALED(signal));
        case STOP:
            job_stop(process, signal, continues);
            return;
        case IGNORE:
        case CONTINUE:
            return;
        }
    }
    if (handler == SIG_IGN)
        return;
    run_handler(process, frame, signal, &origin);
}

void signal_restore_wait_mask(void)
{
    struct thread *thread = current_thread();

    if (thread && thread->signals.restore_blocked) {
        thread->signals.blocked = thread->signals.saved_blocked;
        thread->signals.restore_blocked = false;
    }
}

/* --- system calls ------------------------------------------------------ */

SYSCALL_DEFINE4(rt_sigaction, int, signal, const struct signal_action *, user_action,
               struct signal_action *, user_old, uint64_t, size)
{
    struct process *process = current_process();
    struct signal_shared *state = &process->signals;
    struct signal_action action;

    if (signal < 1 || signal > SIGNAL_MAX || size != sizeof(uint64_t))
        return -EINVAL;
    if (user_action && (signal == SIGKILL || signal == SIGSTOP))
        return -EINVAL;
    if (user_action && copy_from_user(&action, user_action, sizeof(action)) < 0)
        return -EFAULT;
    if (user_old && copy_to_user(user_old, &state->actions[signal], sizeof(action)) < 0)
        return -EFAULT;
    if (user_action) {
        action.mask &= ~UNBLOCKABLE;
        state->actions[signal] = action;
        if (is_ignored(state, signal)) {    /* POSIX: setting SIG_IGN discards a pending one */
            __atomic_and_fetch(&state->pending, ~signal_bit(signal), __ATOMIC_SEQ_CST);
            spin_lock(&process_tree_lock);
            for_each_thread(process, thread)
                __atomic_and_fetch(&thread->signals.pending, ~signal_bit(signal), __ATOMIC_SEQ_CST);
            spin_unlock(&process_tree_lock);
        }
    }
    return 0;
}

#define SIG_BLOCK 0
#define SIG_UNBLOCK 1
#define SIG_SETMASK 2

SYSCALL_DEFINE4(rt_sigprocmask, int, how, const uint64_t *, user_set, uint64_t *, user_old, uint64_t, size)
{
    struct signal_state *state = &current_thread()->signals;
    uint64_t set;

    if (size != sizeof(uint64_t) || (user_set && (how < SIG_BLOCK || how > SIG_SETMASK)))
        return -EINVAL;
    if (user_set && copy_from_user(&set, user_set, sizeof(set)) < 0)
        return -EFAULT;
    if (user_old && copy_to_user(user_old, &state->blocked, sizeof(uint64_t)) < 0)
        return -EFAULT;
    if (!user_set)
        return 0;
    if (how == SIG_BLOCK)
        state->blocked |= set;
    else if (how == SIG_UNBLOCK)
        state->blocked &= ~set;
    else
        state->blocked = set;
    state->blocked &= ~UNBLOCKABLE;
    return 0;
}

SYSCALL_DEFINE2(rt_sigpending, uint64_t *, user_set, uint64_t, size)
{
    struct signal_state *state = &current_thread()->signals;
    uint64_t pending = (__atomic_load_n(&state->pending, __ATOMIC_ACQUIRE) |
                        __atomic_load_n(&current_process()->signals.pending, __ATOMIC_ACQUIRE)) &
                       state->blocked;

    if (size != sizeof(uint64_t))
        return -EINVAL;
    return copy_to_user(user_set, &pending, sizeof(pending));
}

/* Sleep until a signal is pending; only a signal ends it. */
static long sleep_until_signal(void)
{
    for (;;) {
        set_current_state(TASK_SLEEPING);
        if (signal_pending())
            break;
        schedule();
    }
    set_current_state(TASK_RUNNABLE);
    return -ERESTARTNOHAND;     /* EINTR after a handler; a stop alone restarts the wait */
}

int signal_mask_for_wait(const uint64_t *user_mask, uint64_t size)
{
    struct signal_state *state = &current_thread()->signals;
    uint64_t mask;

    if (size != sizeof(uint64_t))
        return -EINVAL;
    if (copy_from_user(&mask, user_mask, sizeof(mask)) < 0)
        return -EFAULT;
    state->saved_blocked = state->blocked;
    state->restore_blocked = true;
    state->blocked = mask & ~UNBLOCKABLE;
    return 0;
}

void signal_mask_after_wait(long result)
{
    struct signal_state *state = &current_thread()->signals;

    if (result == -EINTR || result == -ERESTARTNOHAND)
        return;     /* exit_to_user_mode() puts it back, after the handler */
    state->blocked = state->saved_blocked;
    state->restore_blocked = false;
}

/* Swap in a mask and sleep, atomically: a signal sent between the two is
 * not lost (busybox ash's `wait` depends on it). The old mask comes back
 * after the handler, through the frame (run_handler). */
SYSCALL_DEFINE2(rt_sigsuspend, const uint64_t *, user_mask, uint64_t, size)
{
    int error = signal_mask_for_wait(user_mask, size);
    return error ? error : sleep_until_signal();
}

/* --- sigwait: rt_sigtimedwait ----------------------------------------- */

/* The lowest signal of `set` pending for the thread, its own first, then
 * its process's (Linux's dequeue_signal); 0 if none (or a sibling took
 * the process's first). */
static int take_signal_in(struct thread *thread, uint64_t set, struct signal_origin *origin)
{
    struct signal_shared *shared = &thread->process->signals;
    uint64_t own = __atomic_load_n(&thread->signals.pending, __ATOMIC_ACQUIRE) & set;
    while (own) {
        int signal = __builtin_ctzl(own) + 1;
        *origin = thread->signals.origin[signal];
        if (__atomic_fetch_and(&thread->signals.pending, ~signal_bit(signal), __ATOMIC_SEQ_CST) & signal_bit(signal))
            return signal;
        own &= ~signal_bit(signal);
    }
    uint64_t process_wide = __atomic_load_n(&shared->pending, __ATOMIC_ACQUIRE) & set;
    while (process_wide) {
        int signal = __builtin_ctzl(process_wide) + 1;
        *origin = shared->origin[signal];
        if (__atomic_fetch_and(&shared->pending, ~signal_bit(signal), __ATOMIC_SEQ_CST) & signal_bit(signal))
            return signal;
        process_wide &= ~signal_bit(signal);
    }
    return 0;
}

/* Sleep until a signal the thread does not block is pending, or ns have
 * passed (forever: no timeout); true if ended by a signal. */
static bool wait_for_signal(uint64_t ns, bool forever)
{
    if (!forever)
        return sleep_ns_interruptible(ns, signal_pending) != 0;
    for (;;) {
        set_current_state(TASK_SLEEPING);
        if (signal_pending())
            break;
        schedule();
    }
    set_current_state(TASK_RUNNABLE);
    return true;
}

/* Linux's order of checks: the set's size, the set, the timeout's
 * address, then its value. The signals waited for are unblocked while the
 * thread sleeps, so that a process-directed one picks it, but count as
 * blocked for a signal ignored by default (Linux's real_blocked: a
 * waited-for SIGCHLD is not dropped) (the caller
 * should have blocked them; if it did not, a handler may take one first,
 * as on Linux). A signal taken whose siginfo cannot be written is lost:
 * EFAULT, as on Linux. Ended by anything else (a handler's signal, a
 * stop, the group's end) it is EINTR, not a restart, as on Linux. */
SYSCALL_DEFINE4(rt_sigtimedwait, const uint64_t *, user_set, void *, user_info, const void *, user_timeout,
                uint64_t, size)
{
    struct thread *thread = current_thread();
    struct signal_origin origin;
    struct linux_timespec timeout;
    uint64_t set;
    int64_t ns = 0;

    if (size != sizeof(uint64_t))
        return -EINVAL;
    if (copy_from_user(&set, user_set, sizeof(set)) < 0)
        return -EFAULT;
    set &= ~UNBLOCKABLE;
    if (user_timeout) {
        if (copy_from_user(&timeout, user_timeout, sizeof(timeout)) < 0)
            return -EFAULT;
        ns = ns_of_timespec(&timeout);
        if (ns < 0)
            return -EINVAL;
    }
    int signal = take_signal_in(thread, set, &origin);
    bool interrupted = false;
    if (!signal && (!user_timeout || ns > 0)) {
        uint64_t blocked = thread->signals.blocked;
        thread->signals.real_blocked = blocked;     /* still blocked for send_prepare()'s "ignored?" */
        thread->signals.blocked = blocked & ~set;
        interrupted = wait_for_signal((uint64_t)ns, !user_timeout);
        thread->signals.blocked = blocked;
        thread->signals.real_blocked = 0;
        signal = take_signal_in(thread, set, &origin);
    }
    if (!signal)
        return interrupted ? -EINTR : -EAGAIN;
    if (user_info && signal_info_to_user(user_info, signal, &origin) < 0)
        return -EFAULT;
    return signal;
}

SYSCALL_DEFINE0(pause)
{
    return sleep_until_signal();
}

SYSCALL_DEFINE0(rt_sigreturn)
{
    struct thread *thread = current_thread();
    struct trap_frame *frame = current_task()->syscall_frame;
    uint64_t blocked;
    struct signal_stack altstack;

    if (signal_frame_pop(frame, &blocked, &altstack) < 0) {
        signal_force(frame, SIGSEGV, SI_KERNEL, 0, "bad signal frame");     /* Linux's, forced too */
        return (long)frame->rax;
    }
    thread->signals.blocked = blocked & ~UNBLOCKABLE;
    /* The frame's altstack comes back as if set by sigaltstack from the
     * restored stack pointer (SS_AUTODISARM's re-arming); refused
     * quietly, as on Linux. */
    if (altstack_check(&thread->signals, &altstack, frame->rsp) == 0)
        altstack_set(&thread->signals, &altstack);
    return (long)frame->rax;    /* syscall_dispatch stores the result in rax: keep it */
}

/* Checked whole before anything changes: a bad old pointer is EFAULT
 * with the altstack as it was (Linux has set the new one by then). */
SYSCALL_DEFINE2(sigaltstack, const struct signal_stack *, user_new, struct signal_stack *, user_old)
{
    struct signal_state *state = &current_thread()->signals;
    uint64_t sp = current_task()->syscall_frame->rsp;
    struct signal_stack new, old = state->altstack;

    old.flags = altstack_mode(state, sp) | (state->altstack.flags & SS_AUTODISARM);
    old.padding = 0;
    if (user_new && copy_from_user(&new, user_new, sizeof(new)) < 0)
        return -EFAULT;
    int error = user_new ? altstack_check(state, &new, sp) : 0;
    if (!error && user_old && copy_to_user(user_old, &old, sizeof(old)) < 0)
        error = -EFAULT;
    if (!error && user_new)
        altstack_set(state, &new);
    return error;
}

/* kill(2)'s targets: pid > 0 that process, 0 our group, -1 everyone but
 * pid 1 and ourselves, < -1 the group -pid. A zombie counts until it is
 * reaped, as on Linux (kill(pid, 0) says it exists); signal_send() drops
 * what is sent to it. */
static bool is_target(const struct process *target, const struct process *self, int64_t pid)
{
    if (pid > 0)
        return target->pid == pid;
    if (pid == 0)
        return target->process_group == self->process_group;
    if (pid == -1)
        return target->pid != 1 && target != self;
    return target->process_group == -pid;
}

SYSCALL_DEFINE2(kill, int, pid, int, signal)
{
    struct process *self = current_process();
    struct signal_origin origin = { .code = SI_USER, .pid = self->pid };
    int found = 0;

    if (signal < 0 || signal > SIGNAL_MAX || pid == INT32_MIN)
        return -EINVAL;
    poweroff_if_init_asked(pid, signal);
    spin_lock(&process_tree_lock);
    for_each_process(target) {
        if (is_target(target, self, pid)) {
            signal_send(target, (int)signal, &origin);
            found++;
        }
    }
    /* A thread's tid names its process, as on Linux (the signal is the
     * process's, not that thread's). */
    struct thread *thread = !found && pid > 0 ? thread_find_locked((int)pid) : 0;
    if (thread) {
        signal_send(thread->process, (int)signal, &origin);
        found++;
    }
    spin_unlock(&process_tree_lock);
    return found ? 0 : -ESRCH;
}

/* tgkill and tkill: one thread, by tid, of process tgid (-1: tkill's
 * "any process"). A zombie process's leader too, as kill(). */
static long thread_kill(int64_t tgid, int64_t tid, int64_t signal)
{
    struct process *self = current_process();
    struct signal_origin origin = { .code = SI_TKILL, .pid = self->pid };
    long result = -ESRCH;

    if (tid <= 0 || (tgid != -1 && tgid <= 0) || signal < 0 || signal > SIGNAL_MAX)
        return -EINVAL;
    spin_lock(&process_tree_lock);
    struct thread *target = thread_find_locked((int)tid);
    if (!target) {
        struct process *zombie = process_find_locked((int)tid);
        target = zombie ? &zombie->leader : 0;
    }
    if (target && (tgid == -1 || tgid == target->process->pid)) {
        if (signal == SIGKILL)
            signal_send(target->process, SIGKILL, &origin);    /* it kills the group */
        else
            signal_send_thread(target, (int)signal, &origin);
        result = 0;
    }
    spin_unlock(&process_tree_lock);
    return result;
}

SYSCALL_DEFINE3(tgkill, int, tgid, int, tid, int, signal)
{
    return tgid <= 0 ? -EINVAL : thread_kill(tgid, tid, signal);
}

SYSCALL_DEFINE2(tkill, int, tid, int, signal)
{
    return thread_kill(-1, tid, signal);
}
