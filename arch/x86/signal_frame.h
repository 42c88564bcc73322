/* The x86-64 signal frame: what Linux pushes on the user stack before it
 * enters a handler, so that glibc's and musl's sa_restorer (a
 * rt_sigreturn system call) and their ucontext readers work unchanged. */
#ifndef ARCH_X86_SIGNAL_FRAME_H
#define ARCH_X86_SIGNAL_FRAME_H

#include <stdint.h>

#include <stdbool.h>

#include "kernel/lib/linux_signal.h"

struct trap_frame;

/* Where the frame goes, as kernel/process/signal.c decides by
 * sigaltstack's rules: at the top of the alternate stack (switch), or
 * below the interrupted stack pointer and its red zone; when `bounded`,
 * the frame must lie in (low, low + size], the alternate stack, or it is
 * not written. `saved` is the frame's uc_stack, for rt_sigreturn. */
struct signal_frame_stack {
    bool switch_to_top;
    uint64_t top;
    bool bounded;
    uint64_t low, size;
    struct signal_stack saved;
};

/* Save the interrupted state and blocked mask on the user stack and point
 * frame at the handler. 0, or -EFAULT if the stack cannot take it. */
int signal_frame_push(struct trap_frame *frame, int signal, const struct signal_action *action,
                      const struct signal_origin *origin, uint64_t blocked_to_restore,
                      const struct signal_frame_stack *stack);
/* rt_sigtimedwait's siginfo: the frame's, written at user_info. 0 or
 * -EFAULT. */
int signal_info_to_user(void *user_info, int signal, const struct signal_origin *origin);
/* rt_sigreturn: put back what signal_frame_push saved (registers checked:
 * user segments, canonical addresses, user flags only), and give the
 * blocked mask and the uc_stack found there. 0 or -EFAULT. */
int signal_frame_pop(struct trap_frame *frame, uint64_t *blocked, struct signal_stack *altstack);

#endif
