/* Context tracking: see kernel/time/context_tracking.h. Called with interrupts
 * off, on the CPU concerned.
 *
 * Time accounting lives here: each crossing closes the stretch that began
 * at the last crossing or switch-in (task->mode_since) and adds it to the
 * side it was spent on, read from the account clock (context_clock_ns). A
 * task that never leaves user mode still gets its time when it is switched
 * out or read (task_times_ns), so nothing depends on a tick sampling it.
 *
 * The account clock is the TSC in nanoseconds, its rate measured against
 * the clocksource at boot: two clocksource reads per system call (an HPET
 * read is an emulated MMIO access, the dearest thing on the path) become
 * two rdtsc. Once the TSC watchdog marks the TSC unstable, it is the
 * clocksource again; both count from the same origin, and a stretch that
 * would come out negative counts 0. */
#include "kernel/time/context_tracking.h"

#include "arch/x86/clock.h"
#include "kernel/base/printk.h"
#include "kernel/base/panic.h"
#include "kernel/base/percpu.h"
#include "kernel/time/tick.h"
#include "kernel/time/tsc_watchdog.h"
#include "kernel/trace/trace.h"
#include "rcu/rcu.h"
#include "sched/task.h"

/* Interrupts off, at boot: the TSC's rate (arch/x86/clock.c). Without it
 * the clocksource stays the account clock. */
void context_clock_calibrate(void)
{
    uint64_t khz = clock_tsc_calibrate();
    if (khz)
        printk("context tracking: user and system time from the TSC, %lu kHz\n", khz);
}

bool context_clock_is_tsc(void)
{
    return clock_tsc_calibrated() && tsc_is_stable();
}

uint64_t context_clock_ns(void)
{
    if (!context_clock_is_tsc())
        return clock_now();
    return clock_tsc_ns();
}

uint64_t context_clock_since(uint64_t now, uint64_t since)
{
    return now > since ? now - since : 0;
}

static void account_mode_change(bool entering_user)
{
    struct task *task = current_task();
    uint64_t now = context_clock_ns();
    uint64_t stretch = context_clock_since(now, task->mode_since);
    if (task->in_user) {
        task->user_ns += stretch;
        this_cpu()->user_ns += stretch;
    } else
        task->system_ns += stretch;
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
    bool isolated = tick_policy_isolates(cpu);
    tick_nohz_user_enter(isolated);     /* the tick comes back if this syscall made it needed, or stops now */
    trace_user_enter();
    cpu->in_user = true;
    account_mode_change(true);
    if (isolated) {
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
