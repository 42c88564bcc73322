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
#include "kernel/console/printk.h"
#include "kernel/debug/panic.h"
#include "kernel/cpu/percpu.h"
#include "arch/x86/cpu.h"
#include "kernel/time/tick.h"
#include "kernel/time/tsc_watchdog.h"
#include "kernel/trace/trace.h"
#include "rcu/rcu.h"
#include "sched/task.h"

#define CALIBRATION_NS 20000000ul    /* 20 ms between the two readings */
#define READING_MAX_SKEW_NS 5000ul    /* clocksource reads this close: the vCPU ran throughout */
#define READING_TRIES 100

static struct {
    uint64_t tsc, ns;               /* one instant, on both clocks */
    uint64_t ns_per_cycle_scaled;   /* ns per TSC cycle << 32; 0 until calibrated */
} account_clock;

/* The TSC between two clocksource reads close together: under TCG the
 * vCPU may be descheduled anywhere, and a reading with a gap in it would
 * put the gap into the rate (as the TSC watchdog's readings do). */
static bool read_both_clocks(uint64_t *tsc, uint64_t *ns)
{
    for (int try = 0; try < READING_TRIES; try++) {
        uint64_t before = clock_now();
        *tsc = rdtsc();
        uint64_t after = clock_now();
        if (after - before <= READING_MAX_SKEW_NS) {
            *ns = before + (after - before) / 2;
            return true;
        }
    }
    return false;
}

/* Interrupts off, at boot: the rate of the TSC in ns per cycle. Without a
 * good reading, or a TSC that stands still, the clocksource stays the
 * account clock. */
void context_clock_calibrate(void)
{
    uint64_t tsc, ns, tsc_end, ns_end;
    if (!read_both_clocks(&tsc, &ns))
        return;
    clock_delay_ns(CALIBRATION_NS);
    if (!read_both_clocks(&tsc_end, &ns_end))
        return;
    uint64_t tsc_delta = tsc_end - tsc, ns_delta = ns_end - ns;
    if (tsc_end <= tsc || ns_delta >> 32)
        return;
    account_clock.tsc = tsc;
    account_clock.ns = ns;
    account_clock.ns_per_cycle_scaled = (ns_delta << 32) / tsc_delta;
    printk("context tracking: user and system time from the TSC, %lu kHz\n", tsc_delta * 1000000 / ns_delta);
}

bool context_clock_is_tsc(void)
{
    return account_clock.ns_per_cycle_scaled != 0 && tsc_is_stable();
}

uint64_t context_clock_ns(void)
{
    if (!context_clock_is_tsc())
        return clock_now();
    uint64_t cycles = rdtsc() - account_clock.tsc;
    return account_clock.ns + (uint64_t)(((unsigned __int128)cycles * account_clock.ns_per_cycle_scaled) >> 32);
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
