/* Context tracking: see kernel/time/context_tracking.h. Called with interrupts
 * off, on the CPU concerned.
 *
 * Time accounting lives here: each crossing closes the stretch that began
 * at the last crossing or switch-in (task->mode_since) and adds it to the
 * side it was spent on, read from the clocksource. A task that never
 * leaves user mode still gets its time when it is switched out or read
 * (task_times_ns), so nothing depends on a tick sampling it. */
#include "kernel/time/context_tracking.h"

#include "arch/x86/clock.h"
#include "kernel/debug/panic.h"
#include "kernel/cpu/percpu.h"
#include "kernel/time/tick.h"
#include "kernel/trace/trace.h"
#include "rcu/rcu.h"
#include "sched/task.h"

static void account_mode_change(bool entering_user)
{
    struct task *task = current_task();
    uint64_t now = clock_now();
    if (task->in_user) {
        task->user_ns += now - task->mode_since;
        this_cpu()->user_ns += now - task->mode_since;
    } else
        task->system_ns += now - task->mode_since;
    __atomic_store_n(&task->mode_since, now, __ATOMIC_RELAXED);
    task->in_user = entering_user;
}

void context_user_exit(void)
{
    struct cpu *cpu = this_cpu();
    ASSERT(cpu->in_user);
    if (cpu->rcu_user_eqs) {
        cpu->rcu_user_eqs = false;
        rcu_user_exit();        /* first: the kernel may use RCU from here on */
    }
    cpu->in_user = false;
    cpu->user_exits++;
    account_mode_change(false);
    trace_user_exit();
}

/* User mode on a CPU the tick policy isolates (a nohz task under
 * tick=task, a nohz_full CPU under tick=full) is an extended quiescent
 * state (docs/nohz-task.md#patches-10-and-11-user-mode-is-an-extended-quiescent-state): RCU's grace-period thread reports for this CPU
 * from its dynticks counter and never interrupts it. Other CPUs leave it
 * to the tick. */
void context_user_enter(void)
{
    struct cpu *cpu = this_cpu();
    ASSERT(!cpu->in_user);
    tick_update();              /* the tick comes back if this syscall made it needed, or stops now */
    trace_user_enter();
    cpu->in_user = true;
    account_mode_change(true);
    if (tick_policy_isolates(cpu)) {
        cpu->rcu_user_eqs = true;
        rcu_user_enter();       /* last: no RCU use after this */
    }
}

bool context_cpu_in_user(unsigned cpu)
{
    return __atomic_load_n(&cpus[cpu]->in_user, __ATOMIC_ACQUIRE);
}

uint64_t context_user_exits(unsigned cpu)
{
    return __atomic_load_n(&cpus[cpu]->user_exits, __ATOMIC_RELAXED);
}
