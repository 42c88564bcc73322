/* Per-CPU software timers: see kernel/time/timers.h.
 *
 * A sorted singly linked list per CPU: simple, and the number of pending
 * timers in this kernel is small. (Linux uses a timer wheel and hrtimer
 * red-black trees; both were left out.) When a timer becomes the earliest
 * on another CPU, that CPU is asked, with an asynchronous function call, to
 * reprogram its timer interrupt. */
#include "kernel/time/timers.h"

#include "arch/x86/cpu.h"
#include "arch/x86/timer.h"
#include "kernel/time/housekeeping.h"
#include "kernel/irq/ipi.h"
#include "kernel/base/panic.h"
#include "kernel/base/percpu.h"
#include "kernel/irq/irq.h"
#include "kernel/time/tick.h"
#include "sched/task.h"

/* Each CPU's timers, beside the code that runs them. */
struct timer_base {
    struct spinlock lock;
    struct timer *head;         /* sorted by deadline */
    /* head's deadline, or UINT64_MAX: written under the lock, read
     * without it (timers_next_deadline) */
    uint64_t next_deadline;
    uint64_t fired;
    struct timer *running;      /* whose function runs now (timer_cancel_sync) */
    /* The CPU idles and polls (sched/idle_poll.c): it reads the clock for
     * these timers itself, so they arm no timer interrupt and a remote
     * start sends no IPI to reprogram one. Written by the CPU itself. */
    bool polled;
};

static DEFINE_PER_CPU(struct timer_base, timer_bases);

void timer_init(struct timer *timer, timer_fn function, void *data)
{
    *timer = (struct timer){ .function = function, .data = data };
}

void timers_init_this_cpu(void)
{
    spin_lock_init(&this_cpu_ptr(timer_bases)->lock, "timers");
    this_cpu_ptr(timer_bases)->next_deadline = UINT64_MAX;
}

/* After the list's head changed; the caller holds the lock. */
static void head_changed(struct timer_base *base)
{
    __atomic_store_n(&base->next_deadline, base->head ? base->head->deadline : UINT64_MAX, __ATOMIC_RELEASE);
}

/* Remove timer from its CPU's list; the caller holds that lock. */
static bool unlink_timer(struct timer_base *base, struct timer *timer)
{
    for (struct timer **link = &base->head; *link; link = &(*link)->next) {
        if (*link == timer) {
            *link = timer->next;
            timer->pending = false;
            head_changed(base);
            return true;
        }
    }
    return false;
}

bool timer_cancel(struct timer *timer)
{
    for (;;) {
        unsigned cpu = __atomic_load_n(&timer->cpu, __ATOMIC_ACQUIRE);
        struct timer_base *base = per_cpu_ptr(timer_bases, cpu);
        spin_lock(&base->lock);
        if (timer->cpu != cpu) {        /* restarted elsewhere meanwhile */
            spin_unlock(&base->lock);
            continue;
        }
        bool was_pending = timer->pending && unlink_timer(base, timer);
        spin_unlock(&base->lock);
        return was_pending;
    }
}

/* Its function runs on some CPU now. (Not only timer->cpu: the function
 * may have restarted the timer on another CPU.) */
static bool timer_running_anywhere(const struct timer *timer)
{
    unsigned cpu;
    for_each_online_cpu(cpu) {
        if (__atomic_load_n(&per_cpu_ptr(timer_bases, cpu)->running, __ATOMIC_SEQ_CST) == timer)
            return true;
    }
    return false;
}

/* `running` is set under the base lock as the timer leaves the list, so
 * once the timer is cancelled, it is either gone or seen running. */
void timer_cancel_sync(struct timer *timer)
{
    timer_cancel(timer);
    while (timer_running_anywhere(timer))
        cpu_relax();
}

static void reprogram_this_cpu(void *unused)
{
    (void)unused;
    tick_program_hardware();
}

unsigned timer_start(struct timer *timer, uint64_t deadline, bool pinned)
{
    timer_cancel(timer);
    preempt_disable();          /* "this CPU" must stay this CPU */
    unsigned cpu = pinned ? this_cpu_id() : housekeeping_pick_cpu();
    struct timer_base *base = per_cpu_ptr(timer_bases, cpu);

    spin_lock(&base->lock);
    timer->deadline = deadline;
    timer->cpu = cpu;
    timer->pending = true;
    struct timer **link = &base->head;
    while (*link && (*link)->deadline <= deadline)
        link = &(*link)->next;
    timer->next = *link;
    *link = timer;
    bool earliest = base->head == timer;
    head_changed(base);
    spin_unlock(&base->lock);

    if (cpu == this_cpu_id())
        tick_want_recheck(cpu);     /* a timer within a period keeps a stopped tick */
    if (earliest && cpu != this_cpu_id() && timers_polled_on(cpu))
        earliest = false;           /* that CPU reads our deadline in its poll: no IPI */
    if (earliest) {
        if (cpu == this_cpu_id()) {
            uint64_t flags = irq_save();    /* an IPI must not reprogram in between */
            tick_program_hardware();
            irq_restore(flags);
        } else if (smp_call_function_single(cpu, reprogram_this_cpu, 0, false) < 0) {
            /* No memory for the request: the timer fires at that CPU's next
             * interrupt instead. Rare, and never early. */
        }
    }
    preempt_enable();
    return cpu;
}

void timers_run_expired(uint64_t now)
{
    struct timer_base *base = this_cpu_ptr(timer_bases);

    for (;;) {
        spin_lock(&base->lock);
        struct timer *timer = base->head;
        if (!timer || timer->deadline > now) {
            spin_unlock(&base->lock);
            return;
        }
        base->head = timer->next;
        timer->pending = false;
        head_changed(base);
        base->fired++;
        __atomic_store_n(&base->running, timer, __ATOMIC_SEQ_CST);
        spin_unlock(&base->lock);
        timer->function(timer);         /* may restart the timer */
        __atomic_store_n(&base->running, 0, __ATOMIC_SEQ_CST);
    }
}

/* Without the lock: it is read on every system call's way out of an
 * isolated CPU. Another CPU that makes one of our timers the earliest
 * also interrupts us (timer_start), and we look again then. */
uint64_t timers_next_deadline(void)
{
    return __atomic_load_n(&this_cpu_ptr(timer_bases)->next_deadline, __ATOMIC_ACQUIRE);
}

/* The deadline the timer interrupt must come at for our timers: none
 * while this CPU polls for them. */
uint64_t timers_hardware_deadline(void)
{
    return this_cpu_ptr(timer_bases)->polled ? UINT64_MAX : timers_next_deadline();
}

bool timers_need_tick(uint64_t now)
{
    return timers_hardware_deadline() < now + tick_period_ns;
}

/* The start and the end of a poll: interrupts off. The store of `polled`
 * and the look at the list are ordered against timer_start()'s store of
 * the list and look at `polled` (full fences on both sides): either the
 * starter sees us polling, or we see its timer when we program the
 * hardware at the end. */
void timers_poll_begin(void)
{
    __atomic_store_n(&this_cpu_ptr(timer_bases)->polled, true, __ATOMIC_SEQ_CST);
    tick_program_hardware();        /* drop a deadline armed for our timers */
}

void timers_poll_end(void)
{
    __atomic_store_n(&this_cpu_ptr(timer_bases)->polled, false, __ATOMIC_SEQ_CST);
    tick_program_hardware();
}

bool timers_polled_on(unsigned cpu)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return __atomic_load_n(&per_cpu_ptr(timer_bases, cpu)->polled, __ATOMIC_SEQ_CST);
}

struct sleeper {
    struct task *task;
    volatile bool done;         /* the deadline passed */
    volatile bool finished;     /* wake_sleeper() no longer touches the task */
};

static void wake_sleeper(struct timer *timer)
{
    struct sleeper *sleeper = timer->data;
    __atomic_store_n(&sleeper->done, true, __ATOMIC_SEQ_CST);
    wake_up_task(sleeper->task);
    __atomic_store_n(&sleeper->finished, true, __ATOMIC_RELEASE);
}

uint64_t sleep_ns_interruptible(uint64_t ns, bool (*interrupted)(void))
{
    struct sleeper sleeper = { .task = current_task() };
    struct timer timer;
    uint64_t deadline = clock_now() + ns;

    ASSERT(!in_interrupt());
    timer_init(&timer, wake_sleeper, &sleeper);
    timer_start(&timer, deadline, false);
    for (;;) {
        set_current_state(TASK_SLEEPING);
        if (sleeper.done || (interrupted && interrupted()))
            break;
        schedule();
    }
    set_current_state(TASK_RUNNABLE);
    if (timer_cancel(&timer)) {
        uint64_t now = clock_now();
        return now < deadline ? deadline - now : 1;     /* woken early: never "0 left" */
    }
    /* The sleeper lives on our stack, and the task may exit right after. */
    while (!__atomic_load_n(&sleeper.finished, __ATOMIC_ACQUIRE))
        cpu_relax();
    return 0;
}

void sleep_ns(uint64_t ns)
{
    sleep_ns_interruptible(ns, 0);
}
