/* Signals, as Linux x86-64 delivers them (docs/signals.md): numbers,
 * sigaction, the blocked mask, the rt_sigframe a handler is entered with
 * and rt_sigreturn that undoes it. One task per process, so "process" and
 * "thread" signals are the same thing here. */
#ifndef KERNEL_SIGNAL_H
#define KERNEL_SIGNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "sched/wait.h"

#define SIGHUP     1
#define SIGINT     2
#define SIGQUIT    3
#define SIGILL     4
#define SIGTRAP    5
#define SIGABRT    6
#define SIGBUS     7
#define SIGFPE     8
#define SIGKILL    9
#define SIGUSR1   10
#define SIGSEGV   11
#define SIGUSR2   12
#define SIGPIPE   13
#define SIGALRM   14
#define SIGTERM   15
#define SIGCHLD   17
#define SIGCONT   18
#define SIGSTOP   19
#define SIGTSTP   20
#define SIGTTIN   21
#define SIGTTOU   22
#define SIGURG    23
#define SIGVTALRM 26
#define SIGPROF   27
#define SIGWINCH  28
#define SIGNAL_MAX 64

#define SIG_DFL 0ul
#define SIG_IGN 1ul

/* sa_flags */
#define SA_NOCLDSTOP 0x00000001ul
#define SA_SIGINFO   0x00000004ul
#define SA_RESTORER  0x04000000ul
#define SA_ONSTACK   0x08000000ul
#define SA_RESTART   0x10000000ul
#define SA_NODEFER   0x40000000ul
#define SA_RESETHAND 0x80000000ul

/* A system call interrupted by a signal returns one of these inside the
 * kernel; on the way out (exit_to_user_mode) it becomes a restart or
 * -EINTR. User space never sees them. If no handler runs (the signal
 * stopped the process, say), each is a restart; if one runs:
 * ERESTARTSYS       restart with SA_RESTART, else EINTR (read, wait4);
 * ERESTARTNOHAND    EINTR (poll, select, sigsuspend, pause);
 * ERESTART_RESTARTBLOCK  EINTR; the restart is restart_syscall (219),
 *                   which runs the process's restart_block (nanosleep:
 *                   the rest of the sleep, to the same deadline). */
#define ERESTARTSYS 512
#define ERESTARTNOHAND 514
#define ERESTART_RESTARTBLOCK 516

/* How restart_syscall goes on with a call that returned
 * -ERESTART_RESTARTBLOCK. */
struct restart_block {
    long (*resume)(struct restart_block *block);    /* NULL: nothing to resume (EINTR) */
    uint64_t deadline_ns;                           /* clock_now() time */
    void *user_remaining;
};

/* Linux's struct sigaction as the rt_sigaction system call passes it. */
struct signal_action {
    uint64_t handler;
    uint64_t flags;
    uint64_t restorer;
    uint64_t mask;
};

/* Why a signal was sent: the siginfo fields we fill in. */
/* si_code values: sent by kill(), by the kernel (timers), by tkill() */
#define SI_USER 0
#define SI_KERNEL 0x80
#define SI_TKILL (-6)

struct signal_origin {
    int code;                   /* si_code: SI_USER, SEGV_MAPERR, CLD_EXITED, ... */
    int pid;                    /* sender, or the child for SIGCHLD */
    int status;                 /* SIGCHLD: exit code or signal */
    uint64_t address;           /* faults: si_addr */
};

struct signal_state {
    struct signal_action actions[SIGNAL_MAX + 1];
    uint64_t blocked;
    uint64_t pending;                   /* bit n-1 for signal n; atomic */
    struct signal_origin origin[SIGNAL_MAX + 1];
    uint64_t saved_blocked;             /* rt_sigsuspend's mask to put back */
    bool restore_blocked;
};

static inline uint64_t signal_bit(int signal)
{
    return 1ul << (signal - 1);
}

struct process;
struct trap_frame;

/* Send signal to process (0 only checks it exists). Safe from interrupt
 * context. The process must not be freed meanwhile: callers hold
 * process_tree_lock or are the process or its parent. */
void signal_send(struct process *process, int signal, const struct signal_origin *origin);
/* To every process of a group; returns how many got it. */
int signal_send_group(int process_group, int signal);
/* An exception in user mode: the handler runs if there is one and the
 * signal is not blocked, else the process dies with a message. */
void signal_fault(struct trap_frame *frame, int signal, const char *what, uint64_t address);
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
void signal_dispositions(const struct signal_state *state, uint64_t *ignored, uint64_t *caught);
void signal_fork(struct signal_state *child, const struct signal_state *parent);
void signal_exec(struct signal_state *state);   /* handlers back to SIG_DFL */

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

long sys_rt_sigaction(int signal, const struct signal_action *user_action, struct signal_action *user_old,
                      uint64_t size);
long sys_rt_sigprocmask(int how, const uint64_t *user_set, uint64_t *user_old, uint64_t size);
long sys_rt_sigpending(uint64_t *user_set, uint64_t size);
long sys_rt_sigsuspend(const uint64_t *user_mask, uint64_t size);
long sys_rt_sigreturn(void);
long sys_pause(void);
long sys_restart_syscall(void);
long sys_kill(int64_t pid, int64_t signal);
long sys_tkill(int64_t tid, int64_t signal);
long sys_tgkill(int64_t tgid, int64_t tid, int64_t signal);

#endif
