/* Futexes: Linux's futex(2), set_robust_list and get_robust_list (their
 * SYSCALL_DEFINEs are in futex.c), and what a thread's death or an exec
 * does to the futexes it holds (docs/futex.md). */
#ifndef KERNEL_FUTEX_H
#define KERNEL_FUTEX_H

#include <stdint.h>

/* futex(2)'s operations and flags, Linux's values */
#define FUTEX_WAIT            0
#define FUTEX_WAKE            1
#define FUTEX_REQUEUE         3
#define FUTEX_CMP_REQUEUE     4
#define FUTEX_WAKE_OP         5
#define FUTEX_LOCK_PI         6
#define FUTEX_UNLOCK_PI       7
#define FUTEX_TRYLOCK_PI      8
#define FUTEX_WAIT_BITSET     9
#define FUTEX_WAKE_BITSET     10
#define FUTEX_WAIT_REQUEUE_PI 11
#define FUTEX_CMP_REQUEUE_PI  12
#define FUTEX_LOCK_PI2        13
#define FUTEX_PRIVATE_FLAG    128
#define FUTEX_CLOCK_REALTIME  256

/* The word of a PI or robust futex: the owner's TID and two bits. */
#define FUTEX_WAITERS    0x80000000u
#define FUTEX_OWNER_DIED 0x40000000u
#define FUTEX_TID_MASK   0x3fffffffu

#define FUTEX_BITSET_MATCH_ANY 0xffffffffu
#define ROBUST_LIST_LIMIT 2048      /* entries a robust-list walk visits at most, as Linux */
#define ROBUST_LIST_HEAD_SIZE 24    /* sizeof(struct robust_list_head) */

/* A thread's exit with CLONE_CHILD_CLEARTID (Linux's mm_release): 0 is
 * written to the 32-bit word at address, in the current address space,
 * and one waiter on it is woken (pthread_join). A bad address is ignored,
 * as on Linux. Returns how many were woken: 0 or 1. */
long futex_wake_at_exit(uint64_t address);
/* A thread's death, or its exec (Linux's futex_cleanup), with its
 * memory still the current one: each futex on the robust list at head
 * (set_robust_list; 0: none) that tid owns gets FUTEX_OWNER_DIED and
 * wakes a waiter; the walk stops at a bad pointer, at the list's end, or
 * after ROBUST_LIST_LIMIT entries (a list that loops). Then each PI futex
 * tid still owns with waiters queued goes to its first waiter. */
void futex_exit_robust_list(uint64_t head, int tid);
/* The same at exec, after which the thread goes on (Linux's
 * futex_exec_release()). */
void futex_exec_release(uint64_t head, int tid);

#endif
