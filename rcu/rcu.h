/* Read-copy update: readers run without locks; an updater publishes a new
 * version, and frees the old one only after every reader that might see
 * it is done (a grace period). This is a small tree RCU, built to be read
 * next to Linux's kernel/rcu/tree.c; docs/rcu.md tells the whole story.
 *
 * Readers: rcu_read_lock()/rcu_read_unlock() around any use of a pointer
 * read with rcu_dereference(). Preemption is off inside, and a reader must
 * not sleep (schedule() inside one is a panic). They nest, and may be used
 * in interrupt handlers.
 *
 * Updaters: publish with rcu_assign_pointer(), then either call_rcu() (a
 * function called after a grace period, on the CPU that queued it, or on
 * a housekeeping CPU if that one is offloaded (rcu_nocbs=), in a task:
 * never in interrupt context) or synchronize_rcu() (sleep for one).
 * rcu_barrier() waits until every callback queued before it has run. */
#ifndef RCU_RCU_H
#define RCU_RCU_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/lib/cpumask.h"
#include "rcu/cblist.h"

#define rcu_dereference(pointer) __atomic_load_n(&(pointer), __ATOMIC_ACQUIRE)
#define rcu_assign_pointer(pointer, value) __atomic_store_n(&(pointer), (value), __ATOMIC_RELEASE)

void rcu_read_lock(void);
void rcu_read_unlock(void);
bool rcu_read_lock_held(void);              /* this CPU is inside a reader */

void call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head));
void synchronize_rcu(void);                 /* tasks only */
void rcu_barrier(void);                     /* tasks only */

/* Boot: after every CPU is online and housekeeping_init(); creates the
 * grace-period kthread and one callback kthread per CPU: rcuc/N, or rcuo/N
 * for an offloaded CPU. */
void rcu_init(void);

/* Callback offload (rcu/nocb.c, docs/rcu.md "Callback offload"): the
 * callbacks of these CPUs are invoked by rcuo/N kthreads on a housekeeping
 * CPU, and never keep their own CPU's tick.
 * rcu_nocbs_add: add CPUs to the set (nohz_full= implies rcu_nocbs=).
 *   Call it any time before rcu_init(), even from params_parse() before
 *   the other CPUs are up: rcu_init() checks the set against the online
 *   CPUs (offline CPUs, or a set that leaves no CPU to run the kthreads,
 *   are reported and the addition ignored) and fixes it for good. Calls
 *   add up, together with rcu_nocbs=. Panics if called after rcu_init().
 * rcu_cpu_offloaded: fixed from rcu_init() on; false before. */
void rcu_nocbs_add(const struct cpumask *mask);
bool rcu_cpu_offloaded(unsigned cpu);

/* ---- Hooks: who calls them, and where ----
 *
 * rcu_note_context_switch: sched/sched.c schedule_common(), interrupts off.
 *   A context switch is a quiescent state.
 * rcu_sched_clock_irq: kernel/time/tick.c, from each tick; interrupted_user says
 *   whether the tick interrupted ring 3. A tick that interrupted user mode
 *   or an extended QS (idle) is a quiescent state.
 * rcu_idle_enter/exit: sched/sched.c idle_loop(), around the halt, with
 *   interrupts off (and preemption off, so that no task runs in between).
 * rcu_irq_enter/exit: kernel/irq/irq.c irq_enter()/irq_exit().
 * rcu_user_enter/exit: kernel/time/context_tracking.c, with interrupts off, on
 *   the way to and from user mode of a nohz task or a nohz_full CPU.
 *   Everything in between is an extended QS. */
void rcu_note_context_switch(void);
void rcu_sched_clock_irq(bool interrupted_user);
void rcu_idle_enter(void);
void rcu_idle_exit(void);
void rcu_irq_enter(void);
void rcu_irq_exit(void);
void rcu_user_enter(void);
void rcu_user_exit(void);

/* For the tick policy (docs/nohz-task.md#patch-06-keep-the-tick-if-rcu-needs-it),
 * on cpu's own tick:
 * rcu_pending(cpu): RCU has work for this CPU's next tick: a new GP to
 *   notice, a quiescent state to report, or callbacks to move along.
 * rcu_needs_cpu(cpu): the CPU holds callbacks, so its tick must go on (it
 *   advances them as GPs end); a tick may stop only if this is false. */
bool rcu_pending(unsigned cpu);
bool rcu_needs_cpu(unsigned cpu);
/* RCU's one question to cpu's tick: callbacks are queued, or, on a busy
 * CPU whose tick runs, RCU has work for that tick. An idle CPU or a
 * stopped tick is not asked about rcu_pending(): a nohz task in user
 * mode is in an extended QS, and RCU does not need its tick for that. */
bool rcu_needs_tick(unsigned cpu, bool busy_and_ticking);

/* The one way the force-quiescent-state scan prods a CPU that holds up a
 * grace period and is not in an extended QS. Today a call-function IPI
 * whose handler reports a QS (or defers it to the outermost
 * rcu_read_unlock); a CPU whose tick is stopped gets the nohz kick
 * instead, which reports the same way and restarts its tick
 * (docs/nohz-task.md#patch-07-rcus-prod-of-a-nohz-cpu-restarts-its-tick). */
void rcu_kick_holdout_cpu(unsigned cpu);
/* At the end of a grace period: no CPU's tick is needed for it any more. */
void rcu_tick_dep_clear_all(void);
/* The kicked CPU's side, in interrupt context: report a quiescent state if
 * the interrupted code is outside any reader (else at its outermost
 * rcu_read_unlock). Called by the call-function IPI or the nohz kick. */
void rcu_holdout_kicked(void);

/* Kernel parameters (kernel/init/params.c): rcu_fanout= (2..64, default 16),
 * rcu_stall_timeout= (seconds, 1..300, default 21), rcu_nocbs= (a CPU
 * list, checked against the online CPUs by rcu_init). */
#define RCU_FANOUT_DEFAULT 16
#define RCU_STALL_TIMEOUT_DEFAULT 21
extern uint64_t rcu_fanout_param;
extern uint64_t rcu_stall_timeout_param;
extern bool rcu_check;      /* rcu_check=1: check the dynticks invariants (rcu/dynticks.c) */
extern struct cpumask rcu_nocbs_param;

#endif
