/* Extended quiescent states ("dynticks"): a CPU that is idle (or, for a
 * nohz task, in user space) runs no RCU reader for as long as it stays
 * there, so it is quiescent for every grace period without having to say
 * so. The grace-period kthread learns it by reading one per-CPU counter:
 *
 *   dynticks even  = the CPU is in an extended QS
 *   dynticks odd   = it is not
 *
 * Each transition adds 1 with a fully ordered atomic (lock xadd), so the
 * CPU's accesses before entering cannot move after the increment, nor its
 * accesses after leaving before it. A snapshot that is even, or a later
 * value that differs from the snapshot, proves a QS since the snapshot.
 * This is Linux's single-counter design; docs/rcu.md says why we chose it
 * over the series' three fields, nohz, irq_nest and qs_seq
 * (docs/nohz-task.md#patch-09-extended-quiescent-states-entered-from-interrupts).
 *
 * Interrupts may arrive in the EQS: the outermost rcu_irq_enter leaves it
 * (the handler may use RCU) and the matching rcu_irq_exit enters it again.
 * eqs_nesting says whether the task level is in the EQS (0) or not (1);
 * irq_nesting counts interrupts taken since the task level entered it.
 *
 * All of these run on their own CPU with interrupts off. Left out: NMIs
 * (only the panic path uses them) and CPU hotplug. */
#include "arch/x86/cpu.h"
#include "kernel/base/panic.h"
#include "kernel/base/percpu.h"
#include "kernel/time/tick.h"
#include "kernel/trace/trace.h"
#include "rcu/internal.h"

static struct rcu_data *this_rcu_data(void)
{
    ASSERT(!irqs_enabled());
    return rcu_data_of(this_cpu_id());
}

static unsigned long dynticks_increment(struct rcu_data *rdp)
{
    return __atomic_add_fetch(&rdp->dynticks, 1, __ATOMIC_SEQ_CST);
}

static void eqs_enter(enum trace_eqs_kind kind)
{
    struct rcu_data *rdp = this_rcu_data();

    trace_rcu_eqs_enter(kind);
    ASSERT(rdp->eqs_nesting == 1 && rdp->irq_nesting == 0);
    ASSERT(rdp->read_nesting == 0);         /* no reader may span an EQS */
    rdp->eqs_nesting = 0;
    unsigned long value = dynticks_increment(rdp);
    ASSERT(rcu_dynticks_in_eqs(value));
    /* The GP kthread reports for a CPU in an EQS: RCU no longer needs its
     * tick (a prod that came too late would otherwise hold it until the
     * end of the grace period, or of the next one if it is set while the
     * CPU idles). */
    tick_dep_clear_cpu(rdp->cpu, TICK_KEEP_RCU);
}

static void eqs_exit(enum trace_eqs_kind kind)
{
    struct rcu_data *rdp = this_rcu_data();

    trace_rcu_eqs_exit(kind);
    ASSERT(rdp->eqs_nesting == 0 && rdp->irq_nesting == 0);
    unsigned long value = dynticks_increment(rdp);
    ASSERT(!rcu_dynticks_in_eqs(value));
    rdp->eqs_nesting = 1;
}

void rcu_idle_enter(void) { eqs_enter(TRACE_EQS_IDLE); }
void rcu_idle_exit(void) { eqs_exit(TRACE_EQS_IDLE); }
void rcu_user_enter(void) { eqs_enter(TRACE_EQS_USER); }
void rcu_user_exit(void) { eqs_exit(TRACE_EQS_USER); }

void rcu_irq_enter(void)
{
    struct rcu_data *rdp = this_rcu_data();

    if (rdp->eqs_nesting == 0 && rdp->irq_nesting == 0) {
        unsigned long value = dynticks_increment(rdp);
        ASSERT(!rcu_dynticks_in_eqs(value));
    }
    rdp->irq_nesting++;
}

void rcu_irq_exit(void)
{
    struct rcu_data *rdp = this_rcu_data();

    ASSERT(rdp->irq_nesting > 0);
    rdp->irq_nesting--;
    if (rdp->eqs_nesting == 0 && rdp->irq_nesting == 0) {
        ASSERT(rdp->read_nesting == 0);     /* a handler left a reader open */
        unsigned long value = dynticks_increment(rdp);
        ASSERT(rcu_dynticks_in_eqs(value));
    }
}

/* The counter, read with a full barrier (adding 0 with lock xadd): the
 * GP kthread's reads of RCU-protected state cannot pass it. */
unsigned long rcu_dynticks_snapshot(unsigned cpu)
{
    return __atomic_fetch_add(&rcu_data_of(cpu)->dynticks, 0, __ATOMIC_SEQ_CST);
}

bool rcu_dynticks_in_eqs(unsigned long snapshot)
{
    return (snapshot & 1) == 0;
}

/* Did the interrupt being handled arrive straight from an extended QS
 * (not from another interrupt handler that interrupted it)? */
bool rcu_irq_interrupted_eqs(void)
{
    struct rcu_data *rdp = this_rcu_data();
    return rdp->eqs_nesting == 0 && rdp->irq_nesting == 1;
}
