/* Fault injection: allocations that fail on purpose, so that every path
 * that handles a failed allocation can be taken (docs/reliability.md,
 * "Fault injection"). Two sources, both for user system calls only:
 * - fail-nth: writing N to /proc/PID/fail-nth makes the Nth fallible
 *   point of that process's next system call fail (Linux's fail-nth);
 * - fail_alloc=PERCENT on the command line: each fallible point of a
 *   system call of any process but init fails with that probability.
 * A fallible point is a call of fault_inject_should_fail(): the page
 * allocator, kmalloc, a slot of a fixed table. */
#ifndef KERNEL_MM_FAULT_INJECT_H
#define KERNEL_MM_FAULT_INJECT_H

#include <stdbool.h>
#include <stdint.h>

/* One per process (Linux's is per thread): its threads share the count. */
struct fault_inject {
    uint32_t nth;           /* fallible points left before the failure; 0: fired or off */
    bool armed;             /* written: the next system call counts */
    uint8_t active;         /* FAULT_ACTIVE_* during that system call */
};

#define FAULT_ACTIVE_NTH    1
#define FAULT_ACTIVE_RANDOM 2

extern uint64_t fail_alloc_percent;     /* fail_alloc=, 0..100 */
extern uint64_t mm_race_window_us;      /* mm_race_window_us=, 0..10000 */

/* mm_race_window_us=N, for tests: a busy wait of N us inside a memory
 * call, between its change of the regions and that of the tables, where
 * a sibling's call must not come in; it widens the race the address
 * space's lock closes, so that a scenario sees it if the lock goes. */
void fault_inject_race_window(void);

/* True if this fallible point must fail. Cheap when nothing is armed. */
bool fault_inject_should_fail(void);

/* Around each system call (kernel/entry/syscall.c): arms what applies. */
struct process;
uint8_t fault_inject_syscall_begin(struct process *process);
void fault_inject_syscall_end(struct process *process);

static inline bool fault_inject_wanted(const struct fault_inject *state)
{
    return __builtin_expect(state->armed || fail_alloc_percent, 0);
}

/* /proc/PID/fail-nth (kernel/process/proc_pid.c): a write arms the
 * next system call (0 disarms); a read gives the count left, 0 once the
 * failure was injected. */
void fault_inject_arm(struct fault_inject *state, uint32_t nth);
uint32_t fault_inject_left(const struct fault_inject *state);

#endif
