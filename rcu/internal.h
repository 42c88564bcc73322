/* RCU's state, shared by the files of rcu/ (and read by its tests and
 * /proc/rcu). Everyone else includes rcu/rcu.h only. */
#ifndef RCU_INTERNAL_H
#define RCU_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/lib/cpumask.h"
#include "kernel/base/percpu.h"
#include "kernel/base/spinlock.h"
#include "rcu/cblist.h"
#include "rcu/gp_seq.h"
#include "rcu/rcu.h"
#include "rcu/tree.h"
#include "sched/wait.h"

struct task;

/* One CPU's RCU state. Fields marked "own CPU" are only touched by that
 * CPU with interrupts off; the dynticks counter is read by the GP kthread. */
struct rcu_data {
    unsigned cpu;
    struct rcu_node *leaf;
    uint64_t grpmask;               /* this CPU's bit in leaf->qsmask */

    /* readers (own CPU) */
    unsigned read_nesting;
    bool report_at_unlock;          /* kicked inside a reader: report at the outermost unlock */

    /* quiescent states (own CPU) */
    unsigned long gp_seq;           /* the GP this CPU last noticed */
    bool qs_pending;                /* that GP still needs this CPU's QS */
    bool passed_qs;                 /* a QS happened since it noticed */

    /* extended quiescent states (rcu/dynticks.c) */
    unsigned long dynticks;         /* even: in an extended QS; odd: not. Atomic. */
    unsigned long eqs_nesting;      /* 0 in idle/user EQS, 1 otherwise (own CPU) */
    unsigned irq_nesting;           /* interrupts taken since leaving the EQS (own CPU) */
    unsigned long dynticks_snap;    /* the GP kthread's snapshot at GP start */
    unsigned long dynticks_changes; /* made by dynticks_increment() (own CPU) */
    bool check_in_eqs;              /* rcu_check=1: the callers' own view (own CPU) */
    int check_irq_depth;

    /* callbacks (rcu/callbacks.c) */
    struct spinlock cblist_lock;
    struct rcu_cblist cblist;
    struct task *rcuc;              /* invokes this CPU's done callbacks: rcuc/N, or rcuo/N if offloaded */
    struct wait_queue rcuc_wait;
    unsigned long callbacks_being_invoked;  /* taken out of DONE, not all invoked yet (cblist lock) */
    bool offloaded;                 /* rcu_nocbs=: rcuo/N does the work (rcu/nocb.c); fixed at rcu_init */

    /* counters, for /proc/rcu and the tests */
    uint64_t callbacks_queued;
    uint64_t callbacks_invoked;
    uint64_t callbacks_invoked_badly;   /* in interrupt context, or not where they belong: must stay 0 */
    uint64_t nocb_queued;           /* of those, queued and invoked while offloaded */
    uint64_t nocb_invoked;
    uint64_t kicks;                 /* rcu_kick_holdout_cpu() aimed here */
    uint64_t qs_reported;           /* by this CPU itself */
    uint64_t qs_reported_for_eqs;   /* by the GP kthread, from dynticks */
};

struct rcu_state {
    struct rcu_tree tree;
    volatile unsigned long gp_seq;      /* the global GP sequence (rcu/gp_seq.h) */
    unsigned long gp_seq_needed;        /* the furthest GP end anyone asked for */
    struct spinlock request_lock;       /* gp_seq_needed */
    struct wait_queue gp_wait;          /* the GP kthread sleeps here */
    volatile bool gp_kthread_wake;      /* set by whoever wakes it */
    struct task *gp_kthread;
    unsigned gp_kthread_cpu;
    volatile bool running;              /* rcu_init() finished */

    uint64_t gp_start_ns;
    uint64_t gps_completed;
    uint64_t fqs_scans;
    uint64_t stalls;
    bool stall_reported;                /* for the GP in progress */
    uint64_t last_stall_holdouts;       /* CPUs (bits) of the last stall */
};

/* A start near the wrap-around, as Linux does, so that every comparison
 * of sequence numbers is tested modulo 2^64 within the first GPs. */
#define RCU_GP_SEQ_FIRST ((0ul - 300ul) << RCU_SEQ_STATE_SHIFT)

/* The number of a grace period for people: 1 for the first since boot. */
static inline unsigned long rcu_gp_number(unsigned long seq)
{
    return rcu_seq_count(seq - RCU_GP_SEQ_FIRST) + rcu_seq_in_progress(seq);
}

extern struct rcu_state rcu_state;
DECLARE_PER_CPU(struct rcu_data, rcu_data);

static inline struct rcu_data *rcu_data_of(unsigned cpu)
{
    return per_cpu_ptr(rcu_data, cpu);
}

/* rcu/dynticks.c */
unsigned long rcu_dynticks_snapshot(unsigned cpu);     /* fully ordered read */
bool rcu_dynticks_in_eqs(unsigned long snapshot);
bool rcu_irq_interrupted_eqs(void);                    /* from an interrupt handler */

/* rcu/qs.c */
void rcu_note_gp_changes(struct rcu_data *rdp);
void rcu_report_qs_if_passed(struct rcu_data *rdp);
void rcu_report_qs_for_cpus(struct rcu_node *leaf, uint64_t mask, unsigned long gp_seq);

/* rcu/callbacks.c */
void rcu_callbacks_init_cpu(unsigned cpu);
void rcu_callbacks_advance(struct rcu_data *rdp);
bool rcu_callbacks_have_work(const struct rcu_data *rdp);
bool rcu_cblist_has_work(const struct rcu_data *rdp);
bool rcu_cblist_move_along(struct rcu_data *rdp);
void rcu_invoke_done_callbacks(struct rcu_data *rdp);
void rcu_barrier_reset_for_test(void);

/* rcu/gp.c */
void rcu_request_gp(unsigned long snap);
void rcu_gp_kthread_wake(void);
void rcu_gp_init_kthread(void);

/* rcu/nocb.c */
void rcu_nocb_setup(void);
unsigned rcu_nocb_kthread_cpu(void);
void rcu_nocb_gp_ended(void);
struct task *rcu_nocb_create_kthread(struct rcu_data *rdp);

/* rcu/stall.c */
void rcu_check_stall(uint64_t now);

/* Counters read by tests. */
static inline uint64_t rcu_gps_completed(void)
{
    return __atomic_load_n(&rcu_state.gps_completed, __ATOMIC_ACQUIRE);
}

static inline uint64_t rcu_stall_count(void)
{
    return __atomic_load_n(&rcu_state.stalls, __ATOMIC_ACQUIRE);
}

#endif
