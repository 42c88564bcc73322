/* Tick dependencies: named bits that say "this CPU must tick", set and
 * cleared by the events that cause them, as Linux's tick_dep_set_*()
 * (docs/tick-dependencies.md). Three masks hold them:
 *   - global: every CPU must tick (nothing in nohzk sets one; Linux
 *     uses it for perf events and an unstable sched_clock);
 *   - per CPU: tasks (more than one runnable, sched/sched.c) and rcu (the
 *     grace period needs this CPU's quiescent state, rcu/qs.c);
 *   - per task: cputimer (a CPU-time timer, kernel/time/itimer.c), which holds
 *     the tick of whichever CPU the task runs on.
 * A busy CPU stops its tick only when all three are empty
 * (kernel/time/tick_stop.c tick_decide); an idle CPU ignores them, as on Linux. So a non-empty mask
 * means the tick already runs, or a kick is on its way: setting a bit
 * kicks only when its mask was empty, and clearing never kicks (the tick
 * notices at its next check).
 *
 * Bits are set and cleared with atomics; the kick decision reads
 * tick.running under the CPU's runqueue lock, the lock the tick stops
 * under, so a kick is never lost and never sent to a ticking CPU. */
#include "kernel/time/tick.h"

#include "kernel/base/panic.h"
#include "kernel/base/percpu.h"
#include "sched/runqueue.h"
#include "kernel/base/spinlock.h"
#include "kernel/trace/trace.h"
#include "sched/task.h"

uint32_t tick_dep_global_mask;

static uint32_t bit_set(uint32_t *mask, enum tick_keep_reason reason)
{
    ASSERT(reason > TICK_MAY_STOP && reason < TICK_KEEP_REASON_COUNT);  /* bit 0 would read as "may stop" */
    return __atomic_fetch_or(mask, TICK_DEP(reason), __ATOMIC_SEQ_CST);
}

/* A bit found clear is left alone: that is the clear ordered before any
 * set racing with it, and it saves a locked instruction on every entry
 * to an extended quiescent state (rcu/dynticks.c). */
static void bit_clear(uint32_t *mask, enum tick_keep_reason reason)
{
    if (__atomic_load_n(mask, __ATOMIC_RELAXED) & TICK_DEP(reason))
        __atomic_fetch_and(mask, ~TICK_DEP(reason), __ATOMIC_SEQ_CST);
}

uint32_t tick_dep_mask_of(unsigned cpu)
{
    struct cpu *c = cpus[cpu];
    struct task *current = __atomic_load_n(&c->current, __ATOMIC_ACQUIRE);
    uint32_t mask = __atomic_load_n(&tick_dep_global_mask, __ATOMIC_ACQUIRE);
    mask |= __atomic_load_n(&tick_state_of(cpu)->dep_mask, __ATOMIC_ACQUIRE);
    if (current)
        mask |= __atomic_load_n(&current->tick_dep_mask, __ATOMIC_ACQUIRE);
    return mask;
}

/* For readers elsewhere (/proc/tick): under the runqueue lock, so that the
 * running task cannot exit and be freed while its mask is read. */
uint32_t tick_dep_mask_read(unsigned cpu)
{
    struct runqueue *rq = cpu_rq(cpu);
    spin_lock(&rq->lock);
    uint32_t mask = tick_dep_mask_of(cpu);
    spin_unlock(&rq->lock);
    return mask;
}

/* The runqueue lock of cpu is held. A kick is needed iff the tick is
 * stopped while a task runs; task, if given, must be that task. An idle
 * CPU is not kicked: dependencies hold the tick of a busy CPU only (as on
 * Linux), and leaving idle restarts the tick anyway (tick_nohz_idle_exit). */
static bool kick_needed_locked(unsigned cpu, const struct task *task)
{
    struct cpu *c = cpus[cpu];
    spin_assert_held(&cpu_rq(c->id)->lock);
    if (c->current->is_idle)
        return false;
    if (task && c->current != task)
        return false;           /* it will be checked when the task is switched in */
    return !tick_state_of(cpu)->running;
}

static void kick(unsigned cpu, enum tick_keep_reason reason)
{
    __atomic_add_fetch(&tick_state_of(cpu)->dep_kicks, 1, __ATOMIC_RELAXED);
    trace_tick_dep_kick(cpu, tick_keep_reason_names[reason]);
    tick_nohz_kick(cpu, tick_keep_reason_names[reason]);
}

/* Kick cpu if its tick is stopped (and, for a task bit, task runs there). */
static bool kick_if_stopped(unsigned cpu, const struct task *task, enum tick_keep_reason reason)
{
    struct runqueue *rq = cpu_rq(cpu);
    spin_lock(&rq->lock);
    bool needed = kick_needed_locked(cpu, task);
    spin_unlock(&rq->lock);
    if (needed)
        kick(cpu, reason);
    return needed;
}

bool tick_dep_set_cpu_locked(unsigned cpu, enum tick_keep_reason reason)
{
    if (bit_set(&tick_state_of(cpu)->dep_mask, reason))
        return false;           /* was non-empty: the tick runs */
    if (!kick_needed_locked(cpu, 0))
        return false;
    __atomic_add_fetch(&tick_state_of(cpu)->dep_kicks, 1, __ATOMIC_RELAXED);
    trace_tick_dep_kick(cpu, tick_keep_reason_names[reason]);
    return true;
}

bool tick_dep_set_cpu(unsigned cpu, enum tick_keep_reason reason)
{
    return !bit_set(&tick_state_of(cpu)->dep_mask, reason) && kick_if_stopped(cpu, 0, reason);
}

void tick_dep_clear_cpu(unsigned cpu, enum tick_keep_reason reason)
{
    bit_clear(&tick_state_of(cpu)->dep_mask, reason);
}

/* The task may move between reading task->cpu and taking that CPU's lock;
 * then it is no longer running there, and its new CPU sees the bit when it
 * switches the task in (tick_nohz_task_switch decides after every switch). */
void tick_dep_set_task(struct task *task, enum tick_keep_reason reason)
{
    if (!bit_set(&task->tick_dep_mask, reason))
        kick_if_stopped(__atomic_load_n(&task->cpu, __ATOMIC_ACQUIRE), task, reason);
}

void tick_dep_clear_task(struct task *task, enum tick_keep_reason reason)
{
    bit_clear(&task->tick_dep_mask, reason);
}

void tick_dep_set_global(enum tick_keep_reason reason)
{
    unsigned cpu;
    if (bit_set(&tick_dep_global_mask, reason))
        return;
    for_each_online_cpu(cpu)
        kick_if_stopped(cpu, 0, reason);
}

void tick_dep_clear_global(enum tick_keep_reason reason)
{
    bit_clear(&tick_dep_global_mask, reason);
}
