/* Callback offload (rcu_nocbs=): an offloaded CPU's callbacks are
 * moved along and invoked by a kthread on a housekeeping CPU, rcuo/N, so
 * they never need CPU N's tick (Linux's rcu_nocb_cpu, CONFIG_RCU_NOCB_CPU).
 *
 * The list stays where it was: CPU N's segmented list, rcu_data.cblist,
 * under its cblist lock (a spinlock, so interrupts are off while it is
 * held). call_rcu on CPU N, in a task or an interrupt handler, appends and
 * accelerates under that lock and asks for the grace period itself
 * (rcu/callbacks.c); rcuo/N, on another CPU, advances the list and takes
 * out its DONE segment under the same lock, and invokes the callbacks
 * with no lock held. A lock-free list (an atomic exchange of the head)
 * was left out: the segments need the same lock anyway to be advanced,
 * and the lock is held for a few pointer moves.
 *
 * Who wakes rcuo/N: the end of every grace period (rcu/gp.c calls
 * rcu_nocb_gp_ended), on the GP kthread's CPU. call_rcu need not wake it:
 * it has already asked for the GP its callback waits for, and nothing can
 * be invoked before that GP ends. So queueing a callback on CPU N sends
 * nothing anywhere but the GP kthread's wakeup, and CPU N's tick is never
 * needed: rcu_needs_cpu(N) and rcu_pending's callback part are false.
 *
 * Where rcuo/N runs: pinned, with the GP kthread, to one housekeeping CPU
 * that is not offloaded (rcu_nocb_kthread_cpu). One kthread per offloaded
 * CPU, as Linux's rcuo kthreads; Linux also groups them under rcuog
 * leaders that wait for GPs on behalf of several CPUs, and lets them run
 * on any housekeeping CPU. Left out: here one CPU, chosen at boot, does it
 * all (our scheduler would place a kthread allowed on several CPUs on a
 * nohz_full= CPU as readily as anywhere). Also left out: switching a CPU
 * between offloaded and not at run time (Linux's rcu_nocb_cpu_offload). */
#include "kernel/lib/format.h"
#include "kernel/time/housekeeping.h"
#include "kernel/base/panic.h"
#include "kernel/base/percpu.h"
#include "kernel/base/printk.h"
#include "rcu/internal.h"
#include "sched/task.h"

struct cpumask rcu_nocbs_param;                 /* rcu_nocbs= (kernel/init/params.c) */
static struct cpumask nocbs_added;              /* rcu_nocbs_add(): nohz_full= and others */
static struct cpumask nocbs_offloaded;          /* the final set, fixed by rcu_init */
static unsigned kthread_cpu;
static struct wait_queue gp_ended_wait = { SPINLOCK_INIT("rcu_nocb_wait"), 0 };

void rcu_nocbs_add(const struct cpumask *mask)
{
    ASSERT(!rcu_state.running);     /* the set is fixed when rcu_init creates the kthreads */
    cpumask_or(&nocbs_added, &nocbs_added, mask);
}

bool rcu_cpu_offloaded(unsigned cpu)
{
    return cpu < MAX_CPUS && cpus[cpu] && rcu_data_of(cpu)->offloaded;
}

static void report_ignored(const char *source, const struct cpumask *mask, const char *why)
{
    char list[CPULIST_FORMAT_SIZE];
    cpulist_format(mask, list, sizeof(list));
    printk("cmdline: %s=%s: %s; ignored\n", source, list, why);
}

/* Can mask be added to the set already chosen? Every CPU in it online,
 * and one online CPU left over for the kthreads. */
static bool acceptable(const char *source, const struct cpumask *mask, const struct cpumask *chosen)
{
    struct cpumask offline, left;

    cpumask_andnot(&offline, mask, &cpu_online_mask);
    if (!cpumask_empty(&offline)) {
        char list[CPULIST_FORMAT_SIZE];
        cpulist_format(&offline, list, sizeof(list));
        printk("cmdline: %s: CPU %s not online (%u CPUs online)\n", source, list, cpu_count);
        report_ignored(source, mask, "has CPUs that are not online");
        return false;
    }
    cpumask_andnot(&left, &cpu_online_mask, mask);
    cpumask_andnot(&left, &left, chosen);
    if (cpumask_empty(&left)) {
        report_ignored(source, mask, cpumask_empty(chosen) ? "would offload every CPU, leaving none to invoke callbacks"
                                                           : "with nohz_full=, would offload every CPU, leaving none "
                                                             "to invoke callbacks");
        return false;
    }
    return true;
}

/* The first housekeeping CPU that is not offloaded, this one if it
 * qualifies: where rcu_gp and every rcuo kthread run. */
static unsigned pick_kthread_cpu(void)
{
    struct cpumask candidates, housekeeping = housekeeping_mask;

    if (!cpumask_test(&nocbs_offloaded, this_cpu_id()) && housekeeping_cpu(this_cpu_id()))
        return this_cpu_id();
    cpumask_andnot(&candidates, &housekeeping, &nocbs_offloaded);
    cpumask_and(&candidates, &candidates, &cpu_online_mask);
    if (cpumask_empty(&candidates))     /* every housekeeping CPU offloaded: any other one */
        cpumask_andnot(&candidates, &cpu_online_mask, &nocbs_offloaded);
    ASSERT(!cpumask_empty(&candidates));    /* acceptable() left one */
    return cpumask_first(&candidates);
}

/* From rcu_init, before any callback: fix the set and mark the CPUs. A bad
 * rcu_nocbs= changes nothing; so does a bad rcu_nocbs_add() set. */
void rcu_nocb_setup(void)
{
    struct cpumask wanted;
    unsigned cpu;

    /* nohz_full='s CPUs first: they need offload most, and were checked
     * by nohz_full_init already. */
    cpumask_clear_all(&wanted);
    if (!cpumask_empty(&nocbs_added) && acceptable("nohz_full (implies rcu_nocbs)", &nocbs_added, &wanted))
        cpumask_copy(&wanted, &nocbs_added);
    if (!cpumask_empty(&rcu_nocbs_param) && acceptable("rcu_nocbs", &rcu_nocbs_param, &wanted))
        cpumask_or(&wanted, &wanted, &rcu_nocbs_param);
    cpumask_copy(&nocbs_offloaded, &wanted);
    for_each_cpu_in(cpu, &nocbs_offloaded)
        rcu_data_of(cpu)->offloaded = true;
    kthread_cpu = pick_kthread_cpu();
    if (!cpumask_empty(&nocbs_offloaded)) {
        char list[CPULIST_FORMAT_SIZE];
        cpulist_format(&nocbs_offloaded, list, sizeof(list));
        printk("rcu: callbacks of CPUs %s offloaded to rcuo kthreads on cpu %u\n", list, kthread_cpu);
    }
}

unsigned rcu_nocb_kthread_cpu(void)
{
    return kthread_cpu;
}

/* From gp_end, on the GP kthread's CPU: WAIT segments may be done now. */
void rcu_nocb_gp_ended(void)
{
    if (!cpumask_empty(&nocbs_offloaded))
        wake_up_all(&gp_ended_wait);
}

/* A hint read without the lock; rechecked under it. It becomes true only
 * when a GP ends (the wakeup above): call_rcu accelerates what it queues
 * at once, so NEXT never stays alone without a GP asked for. */
static bool rcuo_has_work(struct rcu_data *rdp)
{
    return rcu_cblist_has_work(rdp);
}

static void rcuo_main(void *arg)
{
    struct rcu_data *rdp = arg;

    ASSERT(this_cpu_id() != rdp->cpu && !rcu_cpu_offloaded(this_cpu_id()));
    for (;;) {
        wait_event(&gp_ended_wait, rcuo_has_work(rdp));
        rcu_cblist_move_along(rdp);
        rcu_invoke_done_callbacks(rdp);
    }
}

struct task *rcu_nocb_create_kthread(struct rcu_data *rdp)
{
    struct cpumask there = cpumask_of(kthread_cpu);
    char name[16];

    ASSERT(rdp->offloaded);
    snprintf(name, sizeof(name), "rcuo/%u", rdp->cpu);
    return kthread_create_urgent(name, rcuo_main, rdp, &there);  /* not starved by a FIFO spinner */
}
