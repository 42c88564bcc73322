/* The way into and out of the kernel from ring 3 (kernel/entry/entry.c):
 * what arch/x86's trap, interrupt and system call paths call. See
 * docs/user-space.md, section 4. */
#ifndef KERNEL_ENTRY_H
#define KERNEL_ENTRY_H

struct trap_frame;

/* The way back to ring 3, with interrupts off: reschedule and deliver
 * signals until neither is needed, then leave the kernel (context
 * tracking). Every return to user mode ends here. */
void exit_to_user_mode(struct trap_frame *frame);

#endif
