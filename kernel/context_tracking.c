/* Context tracking: see kernel/context_tracking.h. Called with interrupts
 * off, on the CPU concerned. */
#include "kernel/context_tracking.h"

#include "kernel/panic.h"
#include "kernel/percpu.h"

void context_user_exit(void)
{
    struct cpu *cpu = this_cpu();
    ASSERT(cpu->in_user);
    cpu->in_user = false;
    cpu->user_exits++;
}

void context_user_enter(void)
{
    struct cpu *cpu = this_cpu();
    ASSERT(!cpu->in_user);
    cpu->in_user = true;
}

bool context_cpu_in_user(unsigned cpu)
{
    return __atomic_load_n(&cpus[cpu]->in_user, __ATOMIC_ACQUIRE);
}

uint64_t context_user_exits(unsigned cpu)
{
    return __atomic_load_n(&cpus[cpu]->user_exits, __ATOMIC_RELAXED);
}
