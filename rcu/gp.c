/* The grace-period kthread, rcu_gp, pinned to a housekeeping CPU. It is the
 * only one that starts and ends grace periods:
 *
 *   1. sleep until someone needs a GP (rcu_request_gp: call_rcu asked for
 *      a gp_seq that has not been reached);
 *   2. start it: gp_seq becomes "in progress", every rcu_node's qsmask is
 *      filled (rcu_tree_start_gp);
 *   3. force quiescent states (FQS): right away, snapshot every holdout's
 *      dynticks counter and report for those in an extended QS; then every
 *      RCU_FQS_INTERVAL_NS, report for those whose counter moved since, kick
 *      (once per GP) those that did not, and check for a stall; wake early
 *      when the root's mask empties;
 *   4. end it: gp_seq moves to the next "idle" value on every node, then
 *      globally; each CPU's tick then moves its callbacks along.
 *
 * A CPU in an extended QS is reported for here and never interrupted.
 * Left out: Linux's expedited GPs, and its GP kthread's quick checks of
 * whether the previous GP's callbacks already need the next one (here the
 * next request simply arrives through call_rcu or the tick). */
#include "arch/x86/clock.h"
#include "kernel/time/housekeeping.h"
#include "kernel/base/panic.h"
#include "kernel/time/nohz_task.h"
#include "kernel/base/percpu.h"
#include "kernel/base/printk.h"
#include "kernel/time/timers.h"
#include "kernel/trace/trace.h"
#include "rcu/internal.h"
#include "sched/task.h"

#define RCU_FQS_INTERVAL_NS 3000000ul   /* 3 ms; Linux's jiffies_till_next_fqs is a few jiffies too */
/* Let the tick, context switches and extended QSs report first: about
 * 20 ms, of the order of Linux's delay before it prods a holdout. Sooner,
 * a nohz task's CPU is prodded whenever it spends a few milliseconds in
 * one system call (or its vCPU is not run by a busy host for that long). */
#define RCU_KICK_AFTER_SCANS 7
#define RCU_KICK_ISOLATED_AFTER_SCANS 34    /* about 100 ms */

uint64_t rcu_fanout_param = RCU_FANOUT_DEFAULT;
uint64_t rcu_stall_timeout_param = RCU_STALL_TIMEOUT_DEFAULT;

struct rcu_state rcu_state = {
    .gp_seq = RCU_GP_SEQ_FIRST,
    .gp_seq_needed = RCU_GP_SEQ_FIRST,
    .request_lock = SPINLOCK_INIT("rcu_request"),
    .gp_wait = { SPINLOCK_INIT("rcu_gp_wait"), 0 },
};

static struct timer fqs_timer;
static unsigned long kicked_in_gp[MAX_CPUS];   /* the gp_seq of each CPU's last kick */

void rcu_gp_kthread_wake(void)
{
    __atomic_store_n(&rcu_state.gp_kthread_wake, true, __ATOMIC_RELEASE);
    wake_up_all(&rcu_state.gp_wait);
}

/* Ask for the GP that ends at snap (an rcu_seq_snap value). */
void rcu_request_gp(unsigned long snap)
{
    if (rcu_seq_ge(__atomic_load_n(&rcu_state.gp_seq_needed, __ATOMIC_ACQUIRE), snap))
        return;
    spin_lock(&rcu_state.request_lock);
    bool further = !rcu_seq_ge(rcu_state.gp_seq_needed, snap);
    if (further)
        __atomic_store_n(&rcu_state.gp_seq_needed, snap, __ATOMIC_RELEASE);
    spin_unlock(&rcu_state.request_lock);
    if (further)
        rcu_gp_kthread_wake();
}

static bool gp_needed(void)
{
    return !rcu_seq_ge(__atomic_load_n(&rcu_state.gp_seq, __ATOMIC_ACQUIRE),
                       __atomic_load_n(&rcu_state.gp_seq_needed, __ATOMIC_ACQUIRE));
}

static bool root_reported(void)
{
    return __atomic_load_n(&rcu_tree_root(&rcu_state.tree)->qsmask, __ATOMIC_ACQUIRE) == 0;
}

static void gp_start(void)
{
    unsigned long seq = rcu_seq_started(rcu_state.gp_seq);

    rcu_state.gp_start_ns = clock_now();
    rcu_state.stall_reported = false;
    __atomic_store_n(&rcu_state.gp_seq, seq, __ATOMIC_SEQ_CST);
    rcu_tree_start_gp(&rcu_state.tree, seq);
    trace_rcu_gp_start(seq);
}

static void gp_end(void)
{
    unsigned long seq = rcu_seq_ended(rcu_state.gp_seq);

    rcu_tree_end_gp(&rcu_state.tree, seq);
    __atomic_store_n(&rcu_state.gp_seq, seq, __ATOMIC_SEQ_CST);
    __atomic_add_fetch(&rcu_state.gps_completed, 1, __ATOMIC_RELEASE);
    trace_rcu_gp_end(seq);
    rcu_nocb_gp_ended();        /* offloaded lists have no tick to move them along */
    rcu_tick_dep_clear_all();   /* holdouts reported for by FQS never cleared their own */
}

/* Is cpu quiescent as far as its dynticks counter tells? The first scan
 * takes the snapshot; later ones compare with it. */
static bool quiescent_by_dynticks(unsigned cpu, bool first_scan)
{
    struct rcu_data *rdp = rcu_data_of(cpu);
    unsigned long now = rcu_dynticks_snapshot(cpu);

    if (first_scan) {
        rdp->dynticks_snap = now;
        return rcu_dynticks_in_eqs(now);
    }
    return now != rdp->dynticks_snap;   /* it went through an EQS since */
}

/* One pass over the leaves: report for CPUs in (or through) an extended
 * QS, and kick the others if asked to. Kicks are sent with no lock held. */
/* A nohz task's or nohz_full CPU passes through an extended QS at every
 * return to user mode, so it is given longer before it is prodded: the
 * prod interrupts exactly the CPU that nohz is meant to leave alone. */
static unsigned kick_after_scans(unsigned cpu)
{
    return cpu_is_isolated(cpu) ? RCU_KICK_ISOLATED_AFTER_SCANS : RCU_KICK_AFTER_SCANS;
}

static void fqs_scan(bool first_scan, bool kick, unsigned scans)
{
    struct rcu_tree *tree = &rcu_state.tree;
    unsigned long seq = rcu_state.gp_seq;
    unsigned first_leaf = tree->level_first[tree->levels - 1];

    for (unsigned i = 0; i < tree->level_width[tree->levels - 1]; i++) {
        struct rcu_node *leaf = &tree->nodes[first_leaf + i];
        uint64_t holdouts = __atomic_load_n(&leaf->qsmask, __ATOMIC_ACQUIRE), quiescent = 0;

        for (unsigned bit = 0; bit < 64; bit++) {
            if (!(holdouts & (1ull << bit)))
                continue;
            unsigned cpu = leaf->grplo + bit;
            if (quiescent_by_dynticks(cpu, first_scan)) {
                quiescent |= 1ull << bit;
                rcu_data_of(cpu)->qs_reported_for_eqs++;
            } else if (kick && scans >= kick_after_scans(cpu) && kicked_in_gp[cpu] != seq) {
                kicked_in_gp[cpu] = seq;
                rcu_kick_holdout_cpu(cpu);
            }
        }
        if (quiescent)
            rcu_report_qs_for_cpus(leaf, quiescent, seq);
    }
    rcu_state.fqs_scans++;
}

static void fqs_timer_fired(struct timer *timer)
{
    (void)timer;
    rcu_gp_kthread_wake();
}

/* Sleep until the next scan is due, or the root has been reported. */
static void gp_sleep_until_next_scan(void)
{
    __atomic_store_n(&rcu_state.gp_kthread_wake, false, __ATOMIC_RELEASE);
    timer_start(&fqs_timer, clock_now() + RCU_FQS_INTERVAL_NS, true);
    wait_event(&rcu_state.gp_wait,
               __atomic_load_n(&rcu_state.gp_kthread_wake, __ATOMIC_ACQUIRE) || root_reported());
    timer_cancel(&fqs_timer);
}

static void gp_force_quiescent_states(void)
{
    unsigned scans = 0;

    fqs_scan(true, false, 0);
    while (!root_reported()) {
        gp_sleep_until_next_scan();
        if (root_reported())
            break;
        scans++;
        fqs_scan(false, true, scans);
        rcu_check_stall(clock_now());
    }
}

static void gp_kthread_main(void *unused)
{
    (void)unused;
    for (;;) {
        wait_event(&rcu_state.gp_wait, gp_needed());
        gp_start();
        gp_force_quiescent_states();
        gp_end();
    }
}

void rcu_init(void)
{
    unsigned cpu;

    if (rcu_tree_build(&rcu_state.tree, cpu_count, (unsigned)rcu_fanout_param) < 0)
        panic("rcu: cannot build a tree for %u CPUs with fanout %lu", cpu_count, rcu_fanout_param);
    rcu_tree_end_gp(&rcu_state.tree, rcu_state.gp_seq);
    printk("rcu: tree of %u levels (%u nodes) for %u CPUs, fanout %u; stall timeout %lu s\n",
           rcu_state.tree.levels, rcu_state.tree.node_count, cpu_count, rcu_state.tree.fanout,
           rcu_stall_timeout_param);
    rcu_nocb_setup();           /* before the callback kthreads: it says which kind each CPU gets */
    for_each_online_cpu(cpu) {
        struct rcu_data *rdp = rcu_data_of(cpu);
        rdp->cpu = cpu;
        rdp->leaf = rcu_state.tree.leaf_of_cpu[cpu];
        rdp->grpmask = rcu_tree_cpu_mask(&rcu_state.tree, cpu);
        rdp->gp_seq = rcu_state.gp_seq;
        rcu_callbacks_init_cpu(cpu);
    }
    timer_init(&fqs_timer, fqs_timer_fired, 0);
    rcu_state.gp_kthread_cpu = rcu_nocb_kthread_cpu();     /* housekeeping, not offloaded */
    struct cpumask gp_cpu = cpumask_of(rcu_state.gp_kthread_cpu);
    rcu_state.gp_kthread = kthread_create_urgent("rcu_gp", gp_kthread_main, 0, &gp_cpu);   /* above user FIFO */
    if (!rcu_state.gp_kthread)
        panic("rcu: cannot create the grace-period kthread");
    __atomic_store_n(&rcu_state.running, true, __ATOMIC_RELEASE);
}
