/* The signals of the Linux x86-64 ABI: their numbers, sigaction as
 * rt_sigaction passes it, and the siginfo fields nohzk fills in. Shared by
 * kernel/process/signal.c, which sends and delivers them, and
 * arch/x86/signal_frame.c and arch/x86/traps.c, which need the layout and
 * the numbers. */
#ifndef KERNEL_LINUX_SIGNAL_H
#define KERNEL_LINUX_SIGNAL_H

#include <stdint.h>

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

/* Linux's struct sigaction as the rt_sigaction system call passes it. */
struct signal_action {
    uint64_t handler;
    uint64_t flags;
    uint64_t restorer;
    uint64_t mask;
};

/* sigaltstack's stack_t: the alternate signal stack, [pointer, pointer + size). */
struct signal_stack {
    uint64_t pointer;
    uint32_t flags;
    uint32_t padding;
    uint64_t size;
};

#define SS_ONSTACK    1u            /* reported: running on it; given: as 0, use it */
#define SS_DISABLE    2u
#define SS_AUTODISARM (1u << 31)    /* cleared while a handler runs, back at rt_sigreturn */
#define MINSIGSTKSZ   2048          /* Linux x86-64's: a smaller size is ENOMEM */

/* si_code values: sent by kill(), by the kernel (timers), by tkill() */
#define SI_USER 0
#define SI_KERNEL 0x80
#define SI_TKILL (-6)

/* Why a signal was sent: the siginfo fields nohzk fills in. */
struct signal_origin {
    int code;                   /* si_code: SI_USER, SEGV_MAPERR, CLD_EXITED, ... */
    int pid;                    /* sender, or the child for SIGCHLD */
    int status;                 /* SIGCHLD: exit code or signal */
    uint64_t address;           /* faults: si_addr */
};

#endif
