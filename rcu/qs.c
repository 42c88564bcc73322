/* Readers and quiescent states: how a CPU notices a new grace period, when
 * it has passed a quiescent state (QS), and how it reports one up the
 * rcu_node tree.
 *
 * A CPU notices a GP by comparing its leaf's gp_seq with the one it saw
 * last (rcu_note_gp_changes); from then on, the first QS counts. QSes are
 * a context switch (rcu_note_context_switch), a tick that interrupted user
 * mode or an extended QS (rcu_sched_clock_irq), and a kick that finds no
 * reader running (rcu_kick_holdout_cpu). The report itself is made from
 * the tick or from the kick, never from the scheduler's hot path: a
 * context switch only sets a flag.
 *
 * Idle CPUs do not report for themselves: the GP kthread reports for them
 * from their dynticks counter (rcu/gp.c, rcu/dynticks.c). */
#include "arch/x86/cpu.h"
#include "kernel/irq/ipi.h"
#include "kernel/base/panic.h"
#include "kernel/base/percpu.h"
#include "kernel/time/tick.h"
#include "kernel/trace/trace.h"
#include "rcu/internal.h"
#include "sched/task.h"

/* Every CPU starts outside an extended QS (odd counter), as the boot code
 * runs; idle_loop enters one at its first halt. */
struct rcu_data rcu_data[MAX_CPUS] = { [0 ... MAX_CPUS - 1] = { .dynticks = 1, .eqs_nesting = 1 } };

static struct rcu_data *this_rcu_data(void)
{
    return rcu_data_of(this_cpu_id());
}

/* ---- Readers ---- */

void rcu_read_lock(void)
{
    preempt_disable();
    this_rcu_data()->read_nesting++;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);    /* the reader's loads stay inside */
}

static void report_deferred_qs(struct rcu_data *rdp)
{
    uint64_t flags = irq_save();
    if (rdp->read_nesting == 0 && rdp->report_at_unlock) {
        rdp->report_at_unlock = false;
        rdp->passed_qs = true;
        rcu_report_qs_if_passed(rdp);
    }
    irq_restore(flags);
}

void rcu_read_unlock(void)
{
    struct rcu_data *rdp = this_rcu_data();

    ASSERT(rdp->read_nesting > 0);      /* an unlock without its lock */
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (--rdp->read_nesting == 0 && rdp->report_at_unlock)
        report_deferred_qs(rdp);
    preempt_enable();
}

bool rcu_read_lock_held(void)
{
    return this_rcu_data()->read_nesting > 0;
}

/* ---- Noticing grace periods, reporting quiescent states ---- */

/* Own CPU, interrupts off. */
void rcu_note_gp_changes(struct rcu_data *rdp)
{
    struct rcu_node *leaf = rdp->leaf;

    if (__atomic_load_n(&leaf->gp_seq, __ATOMIC_ACQUIRE) == rdp->gp_seq)
        return;
    spin_lock(&leaf->lock);
    if (leaf->gp_seq != rdp->gp_seq) {
        rdp->gp_seq = leaf->gp_seq;
        rdp->qs_pending = rcu_seq_in_progress(leaf->gp_seq) && (leaf->qsmask & rdp->grpmask);
        rdp->passed_qs = false;     /* only a QS after noticing counts */
    }
    spin_unlock(&leaf->lock);
}

void rcu_report_qs_for_cpus(struct rcu_node *leaf, uint64_t mask, unsigned long gp_seq)
{
    trace_rcu_qs_report(gp_seq, mask << leaf->grplo);
    if (rcu_tree_report(leaf, mask, gp_seq))
        rcu_gp_kthread_wake();      /* the root is empty: the GP may end */
}

/* Own CPU, interrupts off. */
void rcu_report_qs_if_passed(struct rcu_data *rdp)
{
    if (!rdp->qs_pending || !rdp->passed_qs)
        return;
    rdp->qs_pending = false;
    rdp->qs_reported++;
    /* Only a report for the grace period in progress ends RCU's need of
     * this CPU's tick; a deferred one for an older GP does not. */
    if (rdp->gp_seq == __atomic_load_n(&rdp->leaf->gp_seq, __ATOMIC_ACQUIRE))
        tick_dep_clear_cpu(rdp->cpu, TICK_KEEP_RCU);
    rcu_report_qs_for_cpus(rdp->leaf, rdp->grpmask, rdp->gp_seq);
}

/* ---- The hooks ---- */

void rcu_note_context_switch(void)
{
    struct rcu_data *rdp = this_rcu_data();

    ASSERT(!irqs_enabled());
    if (rdp->read_nesting)
        panic("rcu: schedule() inside an RCU read-side critical section (nesting %u)", rdp->read_nesting);
    rdp->passed_qs = true;
}

void rcu_sched_clock_irq(bool interrupted_user)
{
    if (!__atomic_load_n(&rcu_state.running, __ATOMIC_ACQUIRE))
        return;
    struct rcu_data *rdp = this_rcu_data();
    bool quiescent = interrupted_user || rcu_irq_interrupted_eqs();

    rcu_note_gp_changes(rdp);
    if (quiescent)
        rdp->passed_qs = true;
    if (!rcu_pending(rdp->cpu))
        return;
    rcu_report_qs_if_passed(rdp);
    rcu_callbacks_advance(rdp);
}

bool rcu_pending(unsigned cpu)
{
    struct rcu_data *rdp = rcu_data_of(cpu);

    if (__atomic_load_n(&rdp->leaf->gp_seq, __ATOMIC_ACQUIRE) != rdp->gp_seq)
        return true;                /* a GP to notice */
    if (rdp->qs_pending && rdp->passed_qs)
        return true;                /* a QS to report */
    return rcu_callbacks_have_work(rdp);
}

bool rcu_needs_tick(unsigned cpu, bool busy_and_ticking)
{
    return rcu_needs_cpu(cpu) || (busy_and_ticking && rcu_pending(cpu));
}

/* ---- Kicking a holdout ---- */

/* Runs on the holdout, in the call-function IPI or the nohz kick. The
 * interrupted code is quiescent unless it is inside a reader; if it is,
 * the outermost rcu_read_unlock reports instead. */
void rcu_holdout_kicked(void)
{
    struct rcu_data *rdp = this_rcu_data();

    rcu_note_gp_changes(rdp);
    if (rdp->read_nesting == 0)
        rdp->passed_qs = true;
    else if (rdp->qs_pending)
        rdp->report_at_unlock = true;
    rcu_report_qs_if_passed(rdp);
    if (!rdp->qs_pending)       /* a late prod: this CPU had reported already */
        tick_dep_clear_cpu(rdp->cpu, TICK_KEEP_RCU);
}

static void kicked(void *unused)
{
    (void)unused;
    rcu_holdout_kicked();
}

/* The holdout's tick must run until it reports
 * (docs/nohz-task.md#patch-07-rcus-prod-of-a-nohz-cpu-restarts-its-tick):
 * RCU's tick dependency. If its tick was stopped, setting the bit kicks
 * it, and the kick reports (kernel/time/tick_stop.c nohz_kick_interrupt);
 * a ticking CPU gets a function call instead. The bit is cleared by the
 * report, or when the grace period ends without one
 * (rcu_tick_dep_clear_all). */
void rcu_kick_holdout_cpu(unsigned cpu)
{
    __atomic_add_fetch(&rcu_data_of(cpu)->kicks, 1, __ATOMIC_RELAXED);
    if (!tick_dep_set_cpu(cpu, TICK_KEEP_RCU))
        smp_call_function_single(cpu, kicked, 0, false);
}

void rcu_tick_dep_clear_all(void)
{
    unsigned cpu;
    for_each_online_cpu(cpu)
        tick_dep_clear_cpu(cpu, TICK_KEEP_RCU);
}
