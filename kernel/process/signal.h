/* Signals, as Linux x86-64 delivers them (docs/signals.md): sending,
 * the blocked mask, delivery on the way out, and the system calls. The
 * numbers, sigaction and siginfo's fields are kernel/lib/linux_signal.h;
 * the rt_sigframe a handler is entered with, arch/x86/signal_frame.h.
 * A signal is sent to a process (kill: any thread that does not block
 * it takes it) or to one thread (tgkill, a fault); the handlers are the
 * process's, the mask, the alternate stack and the thread-directed
 * pending set each thread's (kernel/process/thread.h). */
#ifndef KERNEL_SIGNAL_H
#define KERNEL_SIGNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/lib/linux_signal.h"
#include "sched/wait.h"

/* A system call interrupted by a signal returns one of these inside the
 * kernel; on the way out (exit_to_user_mode) it becomes a restart or
 * -EINTR. User space never sees them. If no handler runs (the signal
 * stopped the process, say), each is a restart; if one runs:
 * ERESTARTSYS       restart with SA_RESTART, else EINTR (read, wait4);
 * ERESTARTNOINTR    restart all the same (a PI futex lock: the lock is
 *                   still wanted after the handler);
 * ERESTARTNOHAND    EINTR (poll, select, sigsuspend, pause);
 * ERESTART_RESTARTBLOCK  EINTR; the restart is restart_syscall (219),
 *                   which runs the process's restart_block (nanosleep:
 *                   the rest of the sleep, to the same deadline). */
#define ERESTARTSYS 512
#define ERESTARTNOINTR 513
#define ERESTARTNOHAND 514
#define ERESTART_RESTARTBLOCK 516

/* How restart_syscall goes on with a call that returned
 * -ERESTART_RESTARTBLOCK. */
struct restart_block {
    long (*resume)(struct restart_block *block);    /* NULL: nothing to resume (EINTR) */
    uint64_t deadline_ns;                           /* clock_now() time */
    void *user_remaining;
    /* a futex wait with a timeout (kernel/process/futex.c) */
    uint64_t futex_address;
    uint32_t futex_value, futex_bitset;
    unsigned futex_flags;
};

/* A process's: its handlers and the signals sent to it as a whole. */
struct signal_shared {
    struct signal_action actions[SIGNAL_MAX + 1];
    uint64_t pending;                   /* bit n-1 for signal n; atomic */
    struct signal_origin origin[SIGNAL_MAX + 1];
};

/* A thread's. */
struct signal_state {
    uint64_t blocked;
    uint64_t pending;                   /* sent to this thread; atomic */
    struct signal_origin origin[SIGNAL_MAX + 1];
    uint64_t saved_blocked;             /* rt_sigsuspend's mask to put back */
    uint64_t real_blocked;              /* rt_sigtimedwait's mask while it waits, else 0 */
    bool restore_blocked;
    struct signal_stack altstack;       /* sigaltstack: size 0 if none; flags as given */
};

static inline uint64_t signal_bit(int signal)
{
    return 1ul << (signal - 1);
}

struct process;
struct thread;
struct trap_frame;

/* Send signal to process (0 only checks it exists): one of its threads
 * that does not block it takes it. Safe from interrupt context. The
 * process must not be freed meanwhile: callers hold process_tree_lock or
 * are the process or its parent. */
void signal_send(struct process *process, int signal, const struct signal_origin *origin);
/* To one thread (tgkill, tkill, the group's end); the same rules. */
void signal_send_thread(struct thread *thread, int signal, const struct signal_origin *origin);
/* Wake or interrupt every thread of process, to look at its signals. */
void signal_notify_all(struct process *process);
/* To every process of a group; returns how many got it. */
int signal_send_group(int process_group, int signal);
/* A signal the process cannot ignore or block (Linux's force_sig), with
 * si_code code: the handler runs if there is one and the signal is not
 * blocked; otherwise the process dies with a message naming what, rather
 * than loop on what caused it. */
void signal_force(struct trap_frame *frame, int signal, int code, uint64_t address, const char *what);

bool signal_pending(void);
/* A pending signal that kills when delivered (SIGKILL, or one whose
 * default action terminates and that has no handler), or 0: what ends a
 * killable wait, such as a vfork parent's. */
int signal_fatal_pending(void);
/* A wait with a mask of its own (sigsuspend, ppoll, pselect6): swap in the
 * user's mask (-EINVAL unless size is 8, -EFAULT); after the wait, the old
 * mask comes back at once, or, if a signal ended the wait, after the
 * handler has run with the wait's mask in force (as Linux does). */
int signal_mask_for_wait(const uint64_t *user_mask, uint64_t size);
void signal_mask_after_wait(long result);
/* For /proc/PID/status: the signals set to SIG_IGN and those with handlers. */
void signal_dispositions(const struct signal_shared *shared, uint64_t *ignored, uint64_t *caught);
/* fork: the handlers, and the forking thread's mask and altstack */
void signal_fork(struct signal_shared *child_shared, const struct signal_shared *parent_shared,
                 struct signal_state *child, const struct signal_state *parent);
void signal_thread_new(struct signal_state *thread, const struct signal_state *creator);  /* clone: the mask */
void signal_exec(struct signal_shared *shared, struct signal_state *state);   /* handlers back to SIG_DFL, no altstack */

/* The steps of exit_to_user_mode() (kernel/entry/entry.c) that are
 * signals'. The lowest deliverable signal of the current process: what
 * its action says (interrupts on). */
void signal_deliver_one(struct trap_frame *frame);
/* A system call a signal interrupted before it finished (one of the
 * ERESTART codes in rax): it runs again when we return, unless a handler
 * runs first and says otherwise. */
bool signal_wants_restart(const struct trap_frame *frame);
void signal_restart_syscall(struct trap_frame *frame);
/* Last on the way out: a wait's own mask (signal_mask_for_wait) that no
 * handler frame took along is replaced by the one from before. */
void signal_restore_wait_mask(void);

/* Sleep on queue until condition holds (0) or a signal is pending
 * (-ERESTARTSYS): the wait_event for system calls. */
#define wait_event_interruptible(queue, condition)                               \
    ({                                                                           \
        struct wait_entry wait_event_entry = { 0 };                              \
        long wait_event_result = 0;                                              \
        for (;;) {                                                               \
            wait_prepare((queue), &wait_event_entry);                            \
            if (condition)                                                       \
                break;                                                           \
            if (signal_pending()) {                                              \
                wait_event_result = -ERESTARTSYS;                                \
                break;                                                           \
            }                                                                    \
            schedule();                                                          \
        }                                                                        \
        wait_finish((queue), &wait_event_entry);                                 \
        wait_event_result;                                                       \
    })


#endif
