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

/* Each CPU's side of the crossing, and its counts. */
struct context_tracking {
    volatile bool in_user;      /* on the user side; read by other CPUs */
    bool rcu_user_eqs;          /* in RCU's extended QS for user mode */
    uint64_t user_exits;
    uint64_t user_ns;           /* time in user mode, closed stretches (/proc/stat) */
};

static DEFINE_PER_CPU(struct context_tracking, context_tracking);

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
        this_cpu_ptr(context_tracking)->user_ns += stretch;
    } else
        task->system_ns += stretch;
    __atomic_store_n(&task->mode_since, now, __ATOMIC_RELAXED);
    task->in_user = entering_user;
}

void context_user_exit(void)
{
    struct context_tracking *ct = this_cpu_ptr(context_tracking);
    ASSERT(ct->in_user);
    if (ct->rcu_user_eqs) {
        ct->rcu_user_eqs = false;
        rcu_user_exit();        /* first: the kernel may use RCU from here on */
    }
    ct->in_user = false;
    ct->user_exits++;
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
    struct context_tracking *ct = this_cpu_ptr(context_tracking);
    ASSERT(!ct->in_user);
    bool isolated = tick_policy_isolates(this_cpu());
    tick_nohz_user_enter(isolated);     /* the tick comes back if this syscall made it needed, or stops now */
    trace_user_enter();
    ct->in_user = true;
    account_mode_change(true);
    if (isolated) {
        ct->rcu_user_eqs = true;
        rcu_user_enter();       /* last: no RCU use after this */
    }
}

bool context_cpu_in_user(unsigned cpu)
{
    return __atomic_load_n(&per_cpu_ptr(context_tracking, cpu)->in_user, __ATOMIC_ACQUIRE);
}

uint64_t context_user_exits(unsigned cpu)
{
    return __atomic_load_n(&per_cpu_ptr(context_tracking, cpu)->user_exits, __ATOMIC_RELAXED);
}

uint64_t context_user_ns(unsigned cpu)
{
    return __atomic_load_n(&per_cpu_ptr(context_tracking, cpu)->user_ns, __ATOMIC_RELAXED);
}
