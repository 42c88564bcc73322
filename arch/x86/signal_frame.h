/* The x86-64 signal frame: what Linux pushes on the user stack before it
 * enters a handler, so that glibc's and musl's sa_restorer (a
 * rt_sigreturn system call) and their ucontext readers work unchanged. */
#ifndef ARCH_X86_SIGNAL_FRAME_H
#define ARCH_X86_SIGNAL_FRAME_H

#include <stdint.h>

struct trap_frame;
struct signal_action;
struct signal_origin;

/* Save the interrupted state and blocked mask on the user stack and point
 * frame at the handler. 0, or -EFAULT if the stack cannot take it. */
int signal_frame_push(struct trap_frame *frame, int signal, const struct signal_action *action,
                      const struct signal_origin *origin, uint64_t blocked_to_restore);
/* rt_sigreturn: put back what signal_frame_push saved (registers checked:
 * user segments, canonical addresses, user flags only). 0 or -EFAULT. */
int signal_frame_pop(struct trap_frame *frame, uint64_t *blocked);

#endif
