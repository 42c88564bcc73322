/* The tick: a periodic interrupt on every CPU, built from one-shot timer
 * deadlines (arch/x86/timer.h). Each tick the CPU does its periodic work
 * (timekeeping and the clocksource watchdog, kernel/time/timekeeping.c;
 * the scheduler checks time slices; RCU notes quiescent states); the
 * interrupt's exit then decides whether the tick goes on
 * (kernel/time/tick_stop.c, docs/tick.md).
 *
 * Deadlines are absolute and advance by exactly one period, so ticks do not
 * drift. If the CPU ran late (a vCPU not scheduled by the host for a while)
 * the periods it missed are counted in tick.missed rather than fired in a
 * burst. */
#include "kernel/time/tick.h"

#include "arch/x86/clock.h"
#include "arch/x86/timer.h"
#include "arch/x86/trap.h"
#include "arch/x86/vectors.h"
#include "kernel/base/percpu.h"
#include "sched/runqueue.h"
#include "kernel/irq/irq.h"
#include "kernel/time/itimer.h"
#include "kernel/time/timers.h"
#include "kernel/trace/trace.h"
#include "rcu/rcu.h"
#include "sched/task.h"

#define NS_PER_SECOND 1000000000ul

DEFINE_PER_CPU(struct tick_state, tick_state);

unsigned tick_hz = 1000;
uint64_t tick_period_ns;

static void tick_do_periodic_work(struct cpu *cpu, uint64_t now, bool interrupted_user)
{
    struct tick_state *tick = this_tick();
    tick->ticks++;
    trace_tick_fire(tick->ticks);
    timekeeping_tick(cpu, now);
    sched_tick(now);
    itimer_tick();
    rcu_sched_clock_irq(interrupted_user);
}

/* The next tick: one period after the last deadline, skipping the periods
 * that are already in the past. */
static void tick_advance_deadline(struct tick_state *tick, uint64_t now)
{
    uint64_t next = tick->next_deadline + tick_period_ns;

    if (next <= now) {
        uint64_t behind = (now - tick->next_deadline) / tick_period_ns;
        tick->missed += behind;
        next = tick->next_deadline + (behind + 1) * tick_period_ns;
    }
    tick->next_deadline = next;
}

/* One timer interrupt serves both the tick and the software timers: ask
 * for the earlier of the two, or for none. Interrupts must be off. */
void tick_program_hardware(void)
{
    const struct tick_state *tick = this_tick();
    uint64_t deadline = timers_hardware_deadline();

    if (tick->running && tick->next_deadline < deadline)
        deadline = tick->next_deadline;
    if (deadline == UINT64_MAX)
        timer_stop();
    else
        timer_set_deadline(deadline);
}

static void tick_interrupt(struct trap_frame *frame)
{
    struct cpu *cpu = this_cpu();
    struct tick_state *tick = this_tick();
    uint64_t now = clock_now();

    timers_run_expired(now);
    if (tick->running && now >= tick->next_deadline) {
        tick_do_periodic_work(cpu, now, trap_from_user(frame));
        tick_advance_deadline(tick, now);
        tick->ticked = true;    /* the interrupt's exit decides (kernel/time/tick_stop.c) */
        tick->ticked_at = now;
    } else if (tick->running) {
        tick->early++;          /* for a timer, or the LAPIC's range ran out */
    }
    tick_program_hardware();
}

/* An idle CPU that polls (sched/idle_poll.c) runs its own due timers as
 * the timer interrupt would, without one: in interrupt context for RCU
 * and for the functions. Interrupts off. Nothing is decided here: a task
 * woken onto this CPU has the switch decide for it (restarting the tick
 * here, to stop it at the switch, could cost an interrupt), and an idle
 * CPU's tick is needed only by callbacks, which call_rcu() decides at
 * once (tick_nohz_kick on this CPU). */
void tick_poll_timers(void)
{
    struct cpu *cpu = this_cpu();
    uint64_t now = clock_now();
    if (timers_next_deadline() > now)
        return;
    rcu_irq_enter();
    cpu->irq_nesting++;
    timers_run_expired(now);
    cpu->irq_nesting--;
    rcu_irq_exit();
}

void tick_init(void)
{
    tick_period_ns = NS_PER_SECOND / tick_hz;
    irq_register(VECTOR_LOCAL_TIMER, IRQ_SOURCE_LOCAL_TIMER, tick_interrupt);
    irq_register(VECTOR_NOHZ_KICK, IRQ_SOURCE_NOHZ_KICK, nohz_kick_interrupt);
    irq_set_exit_hook(tick_nohz_irq_exit);
}

void tick_start_this_cpu(void)
{
    struct cpu *cpu = this_cpu();
    struct tick_state *tick = this_tick();

    spin_lock(&cpu_rq(cpu->id)->lock);
    tick->next_deadline = clock_now() + tick_period_ns;
    tick->running = true;
    tick->reason = TICK_KEEP_POLICY;
    tick->decided_in_entry = TICK_DECIDED_IN_NO_ENTRY;
    spin_unlock(&cpu_rq(cpu->id)->lock);
    tick_program_hardware();
}
