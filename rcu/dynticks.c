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
#include "rcu/rcu.h"
#include "kernel/base/percpu.h"
#include "kernel/time/tick.h"
#include "kernel/trace/trace.h"
#include "rcu/internal.h"

static struct rcu_data *this_rcu_data(void)
{
    ASSERT(!irqs_enabled());
    return this_cpu_ptr(rcu_data);
}

/* Every change of the counter: a fully ordered atomic. Counted in
 * dynticks_changes, so that rcu_check=1 can tell that no change went
 * another way. (inline: the skeleton of the rcu-user-eqs lab calls it
 * nowhere, and must build.) */
static inline unsigned long dynticks_increment(struct rcu_data *rdp)
{
    rdp->dynticks_changes++;
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

/* The outermost interrupt taken in an EQS leaves it for its duration
 * (its handler may use RCU); nested ones change nothing. */
static void irq_leaves_eqs(void)
{
    struct rcu_data *rdp = this_rcu_data();

    if (rdp->eqs_nesting == 0 && rdp->irq_nesting == 0) {
        unsigned long value = dynticks_increment(rdp);
        ASSERT(!rcu_dynticks_in_eqs(value));
    }
    rdp->irq_nesting++;
}

static void irq_returns_to_eqs(void)
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

/* rcu_check=1: the invariants of the code above, checked from outside it
 * at every transition, with a state of its own (what the callers did,
 * not what the code above recorded): the counter is even exactly when
 * the CPU is in an EQS (idle or user mode, no interrupt being handled),
 * and every change was a dynticks_increment(). A missing barrier or a
 * non-atomic update shows no symptom under QEMU's TCG; this catches it
 * at once, with a panic that says which (the rcu-user-eqs lab's grader
 * boots with it; docs/labs/rcu-user-eqs.md). */
bool rcu_check;

static void check(struct rcu_data *rdp, const char *where)
{
    unsigned long value = __atomic_load_n(&rdp->dynticks, __ATOMIC_RELAXED);
    bool in_eqs = rdp->check_in_eqs && rdp->check_irq_depth == 0;
    if (rcu_dynticks_in_eqs(value) != in_eqs)
        panic("rcu_check: cpu %u: dynticks %lu is %s %s, where the CPU is %s an extended quiescent state",
              this_cpu_id(), value, value & 1 ? "odd" : "even", where, in_eqs ? "in" : "not in");
    if (value != 1 + rdp->dynticks_changes)
        panic("rcu_check: cpu %u: dynticks %lu %s, but only %lu changes were made by dynticks_increment(), "
              "the fully ordered atomic", this_cpu_id(), value, where, rdp->dynticks_changes);
}

static void checked(bool in_eqs, int irq_depth_change, const char *where)
{
    if (!rcu_check)
        return;
    struct rcu_data *rdp = this_rcu_data();
    if (irq_depth_change)
        rdp->check_irq_depth += irq_depth_change;
    else
        rdp->check_in_eqs = in_eqs;
    check(rdp, where);
}

void rcu_idle_enter(void) { eqs_enter(TRACE_EQS_IDLE); checked(true, 0, "after entering idle"); }
void rcu_idle_exit(void) { eqs_exit(TRACE_EQS_IDLE); checked(false, 0, "after leaving idle"); }
void rcu_user_enter(void) { eqs_enter(TRACE_EQS_USER); checked(true, 0, "on the way to user mode"); }
void rcu_user_exit(void) { eqs_exit(TRACE_EQS_USER); checked(false, 0, "on the way from user mode"); }
void rcu_irq_enter(void) { irq_leaves_eqs(); checked(false, 1, "in an interrupt handler"); }
void rcu_irq_exit(void) { irq_returns_to_eqs(); checked(false, -1, "after an interrupt"); }

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
