/* Callbacks: call_rcu queues on this CPU's segmented list (rcu/cblist.h);
 * the tick moves the list along as grace periods end
 * (rcu_callbacks_advance); and a per-CPU kthread, rcuc/N, invokes the
 * ones whose GP is over.
 *
 * Why a kthread and not the tick itself: callbacks may be long, may
 * allocate and wake tasks, and must never run in interrupt context (Linux
 * runs them in softirq, which nohzk does not have; its rcuc kthreads, used
 * with RCU_BOOST, are the model here). Why pinned: a callback runs on the
 * CPU that queued it, so per-CPU lists need no cross-CPU handoff, and the
 * wakeup comes from that CPU's own tick, so it costs no IPI. The CPUs of
 * rcu_nocbs= are the exception: an rcuo/N kthread on a housekeeping CPU
 * moves their lists along and invokes them, and their tick is never
 * needed for callbacks (rcu/nocb.c).
 *
 * Each list has a lock, taken with interrupts off: its own CPU queues and
 * advances, rcu_barrier() queues on every CPU, and rcuo/N advances and
 * takes the done callbacks of an offloaded CPU from another CPU. */
#include "arch/x86/cpu.h"
#include "kernel/lib/format.h"
#include "kernel/irq/irq.h"
#include "kernel/base/panic.h"
#include "kernel/base/percpu.h"
#include "kernel/time/tick.h"
#include "rcu/internal.h"
#include "sched/task.h"

static unsigned long gp_seq_now(void)
{
    return __atomic_load_n(&rcu_state.gp_seq, __ATOMIC_ACQUIRE);
}

/* Queue head on cpu's list and give it a GP. With only_if_busy, only if
 * the list already holds callbacks (rcu_barrier skips empty lists). */
static bool queue_on_cpu(unsigned cpu, struct rcu_head *head, bool only_if_busy)
{
    struct rcu_data *rdp = rcu_data_of(cpu);

    spin_lock(&rdp->cblist_lock);
    /* Callbacks taken out of DONE and being invoked count as busy: the
     * same kthread invokes the barrier's callback after them. */
    if (only_if_busy && rcu_cblist_empty(&rdp->cblist) && !rdp->callbacks_being_invoked) {
        spin_unlock(&rdp->cblist_lock);
        return false;
    }
    rcu_cblist_enqueue(&rdp->cblist, head);
    rdp->callbacks_queued++;
    if (rdp->offloaded)
        rdp->nocb_queued++;
    /* The updater's removal before the read of gp_seq: a GP that starts
     * after this read sees it. */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    unsigned long snap = rcu_seq_snap(gp_seq_now());
    bool need_gp = rcu_cblist_accelerate(&rdp->cblist, snap);
    spin_unlock(&rdp->cblist_lock);
    if (need_gp)
        rcu_request_gp(snap);
    return true;
}

void call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head))
{
    head->func = func;
    uint64_t flags = irq_save();
    unsigned cpu = this_cpu_id();
    queue_on_cpu(cpu, head, false);
    /* The callbacks need this CPU's tick, even if it was stopped
     * (docs/nohz-task.md#patch-06-keep-the-tick-if-rcu-needs-it); an
     * offloaded CPU's are rcuo's business, and its tick stays as it is. */
    if (!rcu_data_of(cpu)->offloaded)
        tick_nohz_kick(cpu, "rcu-callbacks");
    irq_restore(flags);
}

/* Something to do on this list now: invoke, advance, or give a GP to.
 * Read without the lock: a hint. */
bool rcu_cblist_has_work(const struct rcu_data *rdp)
{
    const struct rcu_cblist *list = &rdp->cblist;

    if (!rcu_cblist_segment_empty(list, RCU_DONE))
        return true;
    if (!rcu_cblist_segment_empty(list, RCU_WAIT))
        return rcu_seq_done(gp_seq_now(), list->wait_gp_seq);
    return !rcu_cblist_segment_empty(list, RCU_NEXT);
}

/* Work for this CPU's tick (rcu_pending): never for an offloaded CPU. */
bool rcu_callbacks_have_work(const struct rcu_data *rdp)
{
    return !rdp->offloaded && rcu_cblist_has_work(rdp);
}

bool rcu_needs_cpu(unsigned cpu)
{
    struct rcu_data *rdp = rcu_data_of(cpu);
    return !rdp->offloaded && !rcu_cblist_empty(&rdp->cblist);
}

/* Finished GPs move WAIT to DONE, NEXT gets a GP (asked for if needed).
 * True if DONE holds callbacks to invoke. */
bool rcu_cblist_move_along(struct rcu_data *rdp)
{
    struct rcu_cblist *list = &rdp->cblist;

    spin_lock(&rdp->cblist_lock);
    unsigned long seq = gp_seq_now();
    rcu_cblist_advance(list, seq);
    rcu_cblist_accelerate(list, rcu_seq_snap(seq));
    bool waiting = !rcu_cblist_segment_empty(list, RCU_WAIT);
    unsigned long wanted = list->wait_gp_seq;
    bool done = !rcu_cblist_segment_empty(list, RCU_DONE);
    spin_unlock(&rdp->cblist_lock);
    if (waiting)
        rcu_request_gp(wanted);     /* a no-op if already asked for */
    return done;
}

/* From the tick, own CPU, not offloaded: move the list along and wake
 * rcuc/N (locally, no IPI) if there is something to invoke. */
void rcu_callbacks_advance(struct rcu_data *rdp)
{
    if (rdp->offloaded || rcu_cblist_empty(&rdp->cblist))
        return;
    if (rcu_cblist_move_along(rdp))
        wake_up_all(&rdp->rcuc_wait);
}

/* In a task: rcuc/N on CPU N, or for an offloaded CPU rcuo/N on a
 * housekeeping CPU. Anywhere else is counted as bad (the tests read it). */
static bool invoked_in_the_right_place(const struct rcu_data *rdp)
{
    unsigned here = this_cpu_id();
    if (in_interrupt())
        return false;
    return rdp->offloaded ? here != rdp->cpu && !rcu_cpu_offloaded(here) : here == rdp->cpu;
}

void rcu_invoke_done_callbacks(struct rcu_data *rdp)
{
    unsigned long count;

    spin_lock(&rdp->cblist_lock);
    struct rcu_head *head = rcu_cblist_take_done(&rdp->cblist, &count);
    rdp->callbacks_being_invoked = count;
    spin_unlock(&rdp->cblist_lock);
    while (head) {
        struct rcu_head *next = head->next;     /* func may free or requeue head */
        if (!invoked_in_the_right_place(rdp))
            rdp->callbacks_invoked_badly++;
        head->func(head);
        rdp->callbacks_invoked++;
        if (rdp->offloaded)
            rdp->nocb_invoked++;
        head = next;
    }
    spin_lock(&rdp->cblist_lock);
    rdp->callbacks_being_invoked = 0;
    spin_unlock(&rdp->cblist_lock);
}

static bool has_done_callbacks(struct rcu_data *rdp)
{
    return !rcu_cblist_segment_empty(&rdp->cblist, RCU_DONE);  /* a hint; rechecked under the lock */
}

static void rcuc_main(void *arg)
{
    struct rcu_data *rdp = arg;
    for (;;) {
        wait_event(&rdp->rcuc_wait, has_done_callbacks(rdp));
        rcu_invoke_done_callbacks(rdp);
    }
}

void rcu_callbacks_init_cpu(unsigned cpu)
{
    struct rcu_data *rdp = rcu_data_of(cpu);
    struct cpumask only_here = cpumask_of(cpu);
    char name[16];

    spin_lock_init(&rdp->cblist_lock, "rcu_cblist");
    rcu_cblist_init(&rdp->cblist);
    wait_queue_init(&rdp->rcuc_wait);
    snprintf(name, sizeof(name), rdp->offloaded ? "rcuo/%u" : "rcuc/%u", cpu);
    if (rdp->offloaded)
        rdp->rcuc = rcu_nocb_create_kthread(rdp);
    else
        rdp->rcuc = kthread_create(name, rcuc_main, rdp, &only_here);
    if (!rdp->rcuc)
        panic("rcu: cannot create %s", name);
}

/* ---- synchronize_rcu ---- */

/* The waiter lives on the sleeper's stack: the callback's last touch of it
 * is the store of done; the wait queue is global for that reason. */
struct synchronize_waiter {
    struct rcu_head head;
    volatile bool done;
};

static struct wait_queue synchronize_wait = { SPINLOCK_INIT("rcu_synchronize"), 0 };

static void synchronize_done(struct rcu_head *head)
{
    struct synchronize_waiter *waiter = (struct synchronize_waiter *)head;
    __atomic_store_n(&waiter->done, true, __ATOMIC_RELEASE);
    wake_up_all(&synchronize_wait);
}

void synchronize_rcu(void)
{
    struct synchronize_waiter waiter = { .done = false };

    ASSERT(!in_interrupt());
    ASSERT(!rcu_read_lock_held());
    ASSERT(rcu_state.running);
    call_rcu(&waiter.head, synchronize_done);
    wait_event(&synchronize_wait, __atomic_load_n(&waiter.done, __ATOMIC_ACQUIRE));
}

/* ---- rcu_barrier ---- */

static struct rcu_head barrier_heads[MAX_CPUS];
static unsigned long barrier_pending;
static bool barrier_busy;
static struct wait_queue barrier_wait = { SPINLOCK_INIT("rcu_barrier"), 0 };

static void barrier_callback(struct rcu_head *head)
{
    (void)head;
    if (__atomic_sub_fetch(&barrier_pending, 1, __ATOMIC_ACQ_REL) == 0)
        wake_up_all(&barrier_wait);
}

static bool barrier_claim(void)
{
    bool expected = false;
    return __atomic_compare_exchange_n(&barrier_busy, &expected, true, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

/* Queue one callback behind every CPU's callbacks (lists keep their order,
 * and a callback runs only after all those queued before it on its CPU)
 * and wait for all of them. Empty lists are skipped: idle CPUs without
 * callbacks are not disturbed. One barrier at a time. */
void rcu_barrier(void)
{
    unsigned cpu;

    ASSERT(!in_interrupt() && !rcu_read_lock_held());
    for (;;) {
        wait_event(&barrier_wait, !__atomic_load_n(&barrier_busy, __ATOMIC_ACQUIRE));
        if (barrier_claim())
            break;
    }
    __atomic_store_n(&barrier_pending, 1, __ATOMIC_RELEASE);     /* ours, until all are queued */
    for_each_online_cpu(cpu) {
        barrier_heads[cpu].func = barrier_callback;
        __atomic_add_fetch(&barrier_pending, 1, __ATOMIC_ACQ_REL);
        if (!queue_on_cpu(cpu, &barrier_heads[cpu], true))
            __atomic_sub_fetch(&barrier_pending, 1, __ATOMIC_ACQ_REL);
    }
    __atomic_sub_fetch(&barrier_pending, 1, __ATOMIC_ACQ_REL);
    wait_event(&barrier_wait, __atomic_load_n(&barrier_pending, __ATOMIC_ACQUIRE) == 0);
    __atomic_store_n(&barrier_busy, false, __ATOMIC_RELEASE);
    wake_up_all(&barrier_wait);
}
