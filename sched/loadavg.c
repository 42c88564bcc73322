/* The load average, as Linux keeps it: every 5 s, the number of runnable
 * tasks (the running ones included, idle tasks not) is folded into three
 * exponentially damped averages, with the decay that makes them 1-, 5-
 * and 15-minute averages, in fixed point with 11 bits of fraction. There
 * is no timer of its own (it would wake an idle CPU every 5 s): the first
 * tick of any CPU past the 5 s boundary takes the sample. If no CPU ticked
 * through some windows (every CPU idle, or running one task with its tick
 * stopped), those are folded at the next sample with the tasks on the
 * other CPUs, the ones that ran without a tick: this CPU was idle, or it
 * would have ticked. Left out: uninterruptible sleep (nohzk has no such
 * state, so Linux's "+ D tasks" adds nothing). docs/scheduling.md. */
#include "sched/loadavg.h"

#include "kernel/base/percpu.h"
#include "sched/runqueue.h"

#define SAMPLE_NS   5000000000ull
#define MAX_MISSED  1024    /* past this many windows (85 min) the averages have converged */

/* LOADAVG_ONE / e^(5 s / 1, 5, 15 min), rounded: the weight the old
 * average keeps at each sample. */
static const unsigned long decay[3] = { 1884, 2014, 2037 };

static unsigned long averages[3];
static uint64_t next_sample_ns = SAMPLE_NS;

/* One 5 s step of an average towards active (both fixed point); rounds
 * up while rising, so that a constant load is reached, not approached. */
static unsigned long damp(unsigned long average, unsigned long weight, unsigned long active)
{
    unsigned long next = average * weight + active * (LOADAVG_ONE - weight);
    if (active >= average)
        next += LOADAVG_ONE - 1;
    return next >> LOADAVG_SHIFT;
}

static void fold(unsigned long active, uint64_t windows)
{
    for (uint64_t i = 0; i < windows; i++)
        for (int k = 0; k < 3; k++)
            averages[k] = damp(averages[k], decay[k], active * LOADAVG_ONE);
}

/* Claim the windows that ended by now: one CPU takes a boundary, another
 * that sees the same one loses. The number claimed, 0 if none. */
static uint64_t claim_windows(uint64_t now)
{
    uint64_t due = __atomic_load_n(&next_sample_ns, __ATOMIC_ACQUIRE);
    if (now < due)
        return 0;
    uint64_t windows = (now - due) / SAMPLE_NS + 1;
    if (!__atomic_compare_exchange_n(&next_sample_ns, &due, due + windows * SAMPLE_NS, false, __ATOMIC_ACQ_REL,
                                     __ATOMIC_RELAXED))
        return 0;
    return windows;
}

void loadavg_update(uint64_t now, unsigned long here, unsigned long all)
{
    uint64_t windows = claim_windows(now);
    if (windows > 1)
        fold(all - here, windows - 1 < MAX_MISSED ? windows - 1 : MAX_MISSED);
    if (windows)
        fold(all, 1);
}

void loadavg_tick(uint64_t now)
{
    if (now < __atomic_load_n(&next_sample_ns, __ATOMIC_RELAXED))
        return;     /* the common case: no runqueue to read */
    unsigned long all = 0;
    unsigned cpu;
    for_each_online_cpu(cpu)
        all += __atomic_load_n(&cpu_rq(cpu)->nr_running, __ATOMIC_RELAXED);
    loadavg_update(now, this_rq()->nr_running, all);
}

void loadavg_get(unsigned long out[3])
{
    for (int k = 0; k < 3; k++)
        out[k] = __atomic_load_n(&averages[k], __ATOMIC_RELAXED);
}
