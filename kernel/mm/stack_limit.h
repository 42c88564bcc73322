/* The user stack's size: RLIMIT_STACK, as on Linux (docs/memory.md,
 * section 5). execve reserves the range [stack_floor, USER_STACK_TOP)
 * and maps only its top pages; a page below them is mapped on its first
 * touch, by a page fault or by a system call's user copy. */
#ifndef KERNEL_MM_STACK_LIMIT_H
#define KERNEL_MM_STACK_LIMIT_H

#include <stdbool.h>
#include <stdint.h>

struct process;

/* The pages execve maps at once, the zero page until written: what
 * mlockall(MCL_CURRENT) populates, as Linux's first stack VMA. */
#define STACK_INITIAL_PAGES 64  /* 256 KiB */

/* The lowest address of a stack with soft limit `limit` whose initial
 * image starts at image_bottom (page-aligned): the limit, rounded down
 * to pages and at most USER_STACK_TOP - USER_STACK_LOWEST, below
 * USER_STACK_TOP; never above image_bottom, so the image always fits. */
uint64_t stack_floor_for(uint64_t limit, uint64_t image_bottom);

/* A touch of address, whose page is not mapped (a fault from ring 3, or a
 * system call about to copy): inside the reserved range and within the
 * soft limit now, the page is mapped, the zero page for a read and a
 * zeroed page for a write (or for any touch after mlockall(MCL_FUTURE)):
 * 0. Not the stack's (or mapped already): -EFAULT. Out of memory: -ENOMEM. */
int stack_fault_in(struct process *process, uint64_t address, bool for_write);

#endif
