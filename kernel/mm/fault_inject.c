/* Fault injection: see kernel/mm/fault_inject.h and docs/reliability.md,
 * "Fault injection".
 *
 * The state is the process's (struct process's `fault`), changed by the
 * process itself during its system calls and by writes to its
 * /proc/PID/fail-nth: the count is read and written atomically, so a
 * write from elsewhere meets a running count cleanly (one of the two
 * wins). Interrupts never count: what they allocate is not the system
 * call's. Only system calls count, not the page faults of user mode,
 * whose failure kills the process instead of returning an error.
 *
 * fail_alloc's random numbers: a counter through a mixing function
 * (splitmix64), the same sequence at each boot, so a run with one CPU
 * can be repeated. Left out: Linux's per-kind knobs (failslab,
 * fail_page_alloc, their interval, times and space), and the stack
 * trace filter. */
#include "kernel/mm/fault_inject.h"

#include "arch/x86/clock.h"
#include "kernel/base/percpu.h"
#include "kernel/mm/page_alloc.h"
#include "kernel/process/process.h"

uint64_t fail_alloc_percent;
static bool in_use;             /* set by the first system call that arms anything */
static uint64_t random_counter;

static uint64_t next_random(void)
{
    uint64_t x = __atomic_add_fetch(&random_counter, 0x9e3779b97f4a7c15ull, __ATOMIC_RELAXED);
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* The Nth point fires once: the count goes from 1 to 0, and 0 stays. */
static bool nth_fires(struct fault_inject *state)
{
    uint32_t left = __atomic_load_n(&state->nth, __ATOMIC_RELAXED);
    while (left) {
        if (__atomic_compare_exchange_n(&state->nth, &left, left - 1, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            return left == 1;
    }
    return false;
}

bool fault_inject_should_fail(void)
{
    if (!__atomic_load_n(&in_use, __ATOMIC_RELAXED) || this_cpu()->irq_nesting)
        return false;
    struct process *process = current_process();
    if (!process || !process->fault.active)
        return false;
    bool fail = false;
    if (process->fault.active & FAULT_ACTIVE_NTH)
        fail = nth_fires(&process->fault);
    if (!fail && (process->fault.active & FAULT_ACTIVE_RANDOM))
        fail = next_random() % 100 < fail_alloc_percent;
    if (fail)
        page_event_add(FAULTS_INJECTED, 1);
    return fail;
}

uint8_t fault_inject_syscall_begin(struct process *process)
{
    uint8_t active = 0;
    if (__atomic_exchange_n(&process->fault.armed, false, __ATOMIC_RELAXED))
        active |= FAULT_ACTIVE_NTH;
    if (fail_alloc_percent && process->pid != 1)
        active |= FAULT_ACTIVE_RANDOM;      /* init's death would stop the machine */
    if (active)
        __atomic_store_n(&in_use, true, __ATOMIC_RELAXED);
    process->fault.active = active;
    return active;
}

void fault_inject_syscall_end(struct process *process)
{
    process->fault.active = 0;
}

void fault_inject_arm(struct fault_inject *state, uint32_t nth)
{
    __atomic_store_n(&state->nth, nth, __ATOMIC_RELAXED);
    __atomic_store_n(&state->armed, nth != 0, __ATOMIC_RELAXED);
}

uint32_t fault_inject_left(const struct fault_inject *state)
{
    return __atomic_load_n(&state->nth, __ATOMIC_RELAXED);
}

uint64_t mm_race_window_us;

void fault_inject_race_window(void)
{
    if (mm_race_window_us)
        clock_delay_ns(mm_race_window_us * 1000);
}
