/* The way into and out of the kernel (kernel/entry/entry.c): what
 * arch/x86's trap, interrupt and system call paths call, and the only way
 * arch/x86 calls up into the kernel. See docs/user-space.md, section 4,
 * and docs/interrupts.md. */
#ifndef KERNEL_ENTRY_H
#define KERNEL_ENTRY_H

#include <stdbool.h>
#include <stdint.h>

struct trap_frame;

/* The first call of every entry from ring 3 (a system call, an exception
 * or an interrupt): leave user context (context tracking). */
void enter_from_user_mode(void);

/* The way back to ring 3, with interrupts off: reschedule and deliver
 * signals until neither is needed, then leave the kernel (context
 * tracking). Every return to user mode ends here. */
void exit_to_user_mode(struct trap_frame *frame);

/* An exception a user program raised: it gets signal (si_addr address),
 * whose handler runs on the way out; without one, the process dies with a
 * message naming what. */
void entry_user_fault(struct trap_frame *frame, int signal, const char *what, uint64_t address);
/* A page fault in user mode at address: true if the kernel resolved it
 * (a write to a copy-on-write page, now copied) and the program runs on;
 * false if it is the program's fault (entry_user_fault). */
bool entry_user_page_fault(struct trap_frame *frame, uint64_t address, uint64_t error_code);
/* A kernel copy to user memory faulted (arch/x86/user_copy.asm): true if
 * the fault is resolved (a copy-on-write page, now the writer's) and the
 * copy may go on; false, and it stops short. */
bool entry_user_copy_fault(uint64_t address, uint64_t error_code);
/* An interrupt, vector 32 and up, from either ring. */
void entry_interrupt(struct trap_frame *frame);
/* An NMI, which can come anywhere, even with interrupts off in the middle
 * of a context switch: it stops this CPU for a panic, or prints its
 * backtrace for the lock check; any other NMI is a panic. */
void entry_nmi(struct trap_frame *frame);

#endif
