/* The scheduler: per-CPU runqueues ordered by priority. Real-time tasks
 * (SCHED_FIFO, SCHED_RR: priorities 1-99, sched/rt.c) come before normal
 * ones (priority 0), which share the CPU round robin with a time slice; a
 * waking task of higher priority than the running one preempts it at
 * once, on any CPU. FIFO runs until it blocks or yields, RR rotates among
 * equals every SCHED_RR_SLICE_NS (docs/realtime.md).
 *
 * Locking. Each runqueue has a lock that protects its FIFO, current and
 * nr_running; each task has a lock that serializes wakeups, affinity
 * changes and migration, and is taken before a runqueue lock. task->cpu
 * changes only with the task's lock held.
 *
 * A switch happens with the runqueue lock held; the next task releases it
 * in finish_switch(). A task can be put on another CPU's runqueue while its
 * registers are still live here (it is switching out): the CPU that picks
 * it waits until on_cpu is false before switching to it.
 *
 * Preemption: the tick sets need_resched when the current task has used its
 * slice and another waits; interrupts that end with need_resched set, in a
 * context that holds no lock and had interrupts on, call schedule()
 * (sched_preempt_on_irq_exit). */
#include "sched/task.h"

#include <stddef.h>

#include "kernel/entry/syscall.h"
#include "arch/x86/cpu.h"
#include "arch/x86/timer.h"
#include "kernel/irq/ipi.h"
#include "kernel/time/nohz_task.h"
#include "kernel/base/panic.h"
#include "kernel/base/percpu.h"
#include "sched/runqueue.h"
#include "kernel/time/tick.h"
#include "kernel/process/process.h"
#include "kernel/time/context_tracking.h"
#include "kernel/trace/trace.h"
#include "rcu/rcu.h"
#include "sched/loadavg.h"
#include "sched/idle_poll.h"

void context_switch(uint64_t *save_rsp, uint64_t new_rsp);

DEFINE_PER_CPU_SHARED_ALIGNED(struct runqueue, runqueues) = { .lock = SPINLOCK_INIT("runqueue") };

/* Behind the tasks of higher priority, and behind its equals too unless
 * ahead_of_equals (a preempted real-time task keeps its place, as on Linux). */
static void queue_insert(struct runqueue *rq, struct task *task, bool ahead_of_equals)
{
    if (!rq->tail || (rq->tail->prio >= task->prio && !(ahead_of_equals && rq->tail->prio == task->prio))) {
        task->run_next = 0;
        if (rq->tail)
            rq->tail->run_next = task;
        else
            rq->head = task;
        rq->tail = task;
        return;
    }
    struct task **link = &rq->head;
    while (*link && ((*link)->prio > task->prio || (!ahead_of_equals && (*link)->prio == task->prio)))
        link = &(*link)->run_next;
    task->run_next = *link;
    *link = task;
    if (!task->run_next)
        rq->tail = task;
}

static void queue_append(struct runqueue *rq, struct task *task)
{
    queue_insert(rq, task, false);
}

/* Count task in (+1) or out (-1) of rq's numbers. */
static void rq_count(struct runqueue *rq, const struct task *task, int delta)
{
    rq->nr_running += delta;
    if (task->prio) {
        rq->rt_nr_running += delta;
        if (task->policy == SCHED_RR)
            rq->rr_nr_running += delta;
    }
}

/* Linux 6.1's sched_can_stop_tick(), negated: RR tasks need the tick to
 * rotate when there are two or more of them; otherwise real-time tasks
 * (FIFO) need none, whatever normal tasks wait beneath them; normal tasks
 * need it when more than one is runnable. */
bool rq_tasks_need_tick(const struct runqueue *rq)
{
    if (rq->rr_nr_running)
        return rq->rr_nr_running > 1;
    if (rq->rt_nr_running)
        return false;
    return rq->nr_running > 1;
}

/* The scheduler's tick dependency on cpu, set or cleared to match its
 * runqueue (lock held); true if it was set on a CPU whose tick is stopped. */
static bool rq_update_tick_dep(struct runqueue *rq, unsigned cpu)
{
    if (rq_tasks_need_tick(rq))
        return tick_dep_set_cpu_locked(cpu, TICK_KEEP_TASKS);
    tick_dep_clear_cpu(cpu, TICK_KEEP_TASKS);
    return false;
}

static struct task *queue_pop(struct runqueue *rq)
{
    struct task *task = rq->head;
    if (task) {
        rq->head = task->run_next;
        if (!rq->head)
            rq->tail = 0;
        task->run_next = 0;
    }
    return task;
}

bool queue_remove_task(struct runqueue *rq, struct task *task)
{
    struct task *previous = 0;
    for (struct task *t = rq->head; t; previous = t, t = t->run_next) {
        if (t != task)
            continue;
        if (previous)
            previous->run_next = t->run_next;
        else
            rq->head = t->run_next;
        if (rq->tail == t)
            rq->tail = previous;
        t->run_next = 0;
        return true;
    }
    return false;
}

/* Put a runnable task on cpu's runqueue; the caller holds that lock.
 * Returns the IPI the caller must send after unlocking: a reschedule if the
 * CPU is idle or runs a task of lower priority; the nohz kick if a task runs there with its tick stopped
 * (the tick must come back for time slices:
 * docs/nohz-task.md#patch-05-restart-the-tick-when-another-task-competes).
 * A runqueue that needs time slices (rq_tasks_need_tick) sets the CPU's
 * `tasks` tick dependency (kernel/time/tick_dep.c), which reads the tick's state under the lock
 * its owner changes it under, so the kick goes exactly to CPUs whose tick
 * is stopped, and is never missed. */
enum wakeup_ipi { WAKEUP_NO_IPI, WAKEUP_RESCHEDULE, WAKEUP_NOHZ_KICK };

/* cpu's need_resched was just set, its runqueue lock held: must an IPI
 * make it look? Not this CPU, and not an idle CPU that polls: its idle
 * task, current under this lock, reads need_resched before it could wait
 * for anything (sched/idle_poll.c; Linux's TIF_POLLING_NRFLAG). */
static bool resched_needs_ipi(unsigned cpu, const struct task *current)
{
    if (cpu == this_cpu_id())
        return false;
    return !(current->is_idle && idle_poll_cpu(cpu));
}

static enum wakeup_ipi enqueue_locked(unsigned cpu, struct task *task)
{
    struct runqueue *rq = cpu_rq(cpu);

    ASSERT(cpumask_test(&task->affinity, cpu));
    if (task->cpu != cpu) {
        task->migrations++;
        trace_sched_migrate(task->id, task->cpu, cpu);
    }
    task->cpu = cpu;
    task->on_runqueue = true;
    rq_count(rq, task, 1);
    queue_append(rq, task);
    bool kick = rq_update_tick_dep(rq, cpu);
    struct task *current = cpus[cpu]->current;
    if (current->is_idle || task->prio > current->prio) {
        cpus[cpu]->need_resched = true;
        return resched_needs_ipi(cpu, current) ? WAKEUP_RESCHEDULE : WAKEUP_NO_IPI;
    }
    return kick ? WAKEUP_NOHZ_KICK : WAKEUP_NO_IPI;     /* on this CPU, the kick is a direct recheck */
}

/* After the runqueue lock is dropped. */
static void send_wakeup_ipi(unsigned cpu, enum wakeup_ipi ipi)
{
    if (ipi == WAKEUP_RESCHEDULE)
        ipi_send(cpu, IPI_RESCHEDULE);
    else if (ipi == WAKEUP_NOHZ_KICK)
        tick_nohz_kick(cpu);
}

/* A task left cpu's runqueue (lock held): the tick may no longer be
 * needed for time slices, or be needed again (a FIFO task left two normal
 * ones behind). */
bool rq_task_left(struct runqueue *rq, unsigned cpu, struct task *task)
{
    rq_count(rq, task, -1);
    return rq_update_tick_dep(rq, cpu);
}

/* Where a waking or migrating task should run: its last CPU if that is
 * allowed and idle, else an allowed idle CPU, else the allowed CPU with the
 * fewest runnable tasks. A CPU whose nohz task asked to run alone is left
 * out while the task may run elsewhere (Linux leaves that to isolcpus=).
 * A normal task leaves out CPUs that run a real-time task, if it can.
 * A real-time task goes where the running task has the lowest priority
 * (Linux's find_lowest_rq), its last CPU first among equals.
 * Reads nr_running and curr_prio without locks: a hint. */
static unsigned select_rt_cpu(const struct task *task, const struct cpumask *allowed)
{
    unsigned cpu, best = MAX_CPUS;
    for_each_cpu_in(cpu, allowed) {
        int prio = __atomic_load_n(&cpu_rq(cpu)->curr_prio, __ATOMIC_RELAXED);
        int best_prio = best == MAX_CPUS ? 0 : __atomic_load_n(&cpu_rq(best)->curr_prio, __ATOMIC_RELAXED);
        if (best == MAX_CPUS || prio < best_prio || (prio == best_prio && cpu == task->cpu))
            best = cpu;
    }
    return best;
}

static unsigned select_cpu(const struct task *task)
{
    struct cpumask allowed, elsewhere;
    unsigned cpu, best = MAX_CPUS;

    cpumask_and(&allowed, &task->affinity, &cpu_online_mask);
    ASSERT(!cpumask_empty(&allowed));
    cpumask_andnot(&elsewhere, &allowed, &cpu_has_nohz_task);
    if (!task->nohz && !cpumask_empty(&elsewhere))
        allowed = elsewhere;
    if (task->prio)
        return select_rt_cpu(task, &allowed);
    struct cpumask not_rt = allowed;        /* a normal task would wait there behind a real-time one */
    for_each_cpu_in(cpu, &allowed) {
        if (__atomic_load_n(&cpu_rq(cpu)->curr_prio, __ATOMIC_RELAXED) > 0)
            cpumask_clear(&not_rt, cpu);
    }
    if (!cpumask_empty(&not_rt))
        allowed = not_rt;
    if (cpumask_test(&allowed, task->cpu) && cpu_rq(task->cpu)->nr_running == 0)
        return task->cpu;
    for_each_cpu_in(cpu, &allowed) {
        if (best == MAX_CPUS || cpu_rq(cpu)->nr_running < cpu_rq(best)->nr_running)
            best = cpu;
    }
    if (cpumask_test(&allowed, task->cpu) && cpu_rq(task->cpu)->nr_running <= cpu_rq(best)->nr_running)
        return task->cpu;
    return best;
}

/* Enqueue a runnable task that is on no runqueue; the caller holds its lock. */
static void place_task(struct task *task, bool is_wakeup)
{
    unsigned cpu = select_cpu(task);
    struct runqueue *rq = cpu_rq(cpu);

    spin_lock(&rq->lock);
    enum wakeup_ipi ipi = enqueue_locked(cpu, task);
    if (is_wakeup) {
        rq->wakeups++;
        trace_sched_wakeup(task->id, cpu);
    }
    spin_unlock(&rq->lock);
    send_wakeup_ipi(cpu, ipi);
}

void place_runnable_task(struct task *task)
{
    place_task(task, false);
}

static void account_switch(struct task *prev, struct task *next, uint64_t now)
{
    prev->runtime_ns += now - prev->switched_in_at;
    uint64_t account_now = context_clock_ns();
    prev->system_ns += context_clock_since(account_now, prev->mode_since);    /* a switch happens in kernel mode */
    next->switched_in_at = now;
    next->mode_since = account_now;
    next->slices++;
}

/* Run by the task that a switch just resumed (or started), still holding
 * the runqueue lock that the task before it took in schedule(). */
static void finish_switch(void)
{
    struct runqueue *rq = this_rq();
    struct task *prev = rq->switched_from;
    struct task *migrating = rq->migrate_after_switch;

    rq->migrate_after_switch = 0;
    __atomic_store_n(&prev->on_cpu, false, __ATOMIC_RELEASE);
    spin_unlock(&rq->lock);
    if (migrating) {
        spin_lock(&migrating->lock);
        place_task(migrating, false);
        spin_unlock(&migrating->lock);
    }
}

/* Take prev off the CPU: back to the end of the queue if it is still
 * runnable here, out of the runqueue if it sleeps or died, or on its way
 * to another CPU if its affinity no longer includes this one. A preempted
 * task stays runnable whatever its state says: it was interrupted on its
 * way to sleep, before it could check its condition (Linux does the same). */
static void put_prev(struct runqueue *rq, struct task *prev, unsigned cpu, bool preempted)
{
    if (prev->is_idle)
        return;
    bool stays_runnable = prev->state == TASK_RUNNABLE || (preempted && prev->state == TASK_SLEEPING);
    bool behind_equals = !prev->prio || prev->requeue_tail;
    prev->requeue_tail = false;
    if (stays_runnable && cpumask_test(&prev->affinity, cpu)) {
        queue_insert(rq, prev, !behind_equals);
        return;
    }
    prev->on_runqueue = false;
    rq_task_left(rq, cpu, prev);    /* a stopped tick is decided after the switch */
    if (stays_runnable) {
        prev->state = TASK_RUNNABLE;
        rq->migrate_after_switch = prev;
    }
}

static void schedule_common(bool preempted)
{
    uint64_t flags = irq_save();
    struct cpu *cpu = this_cpu();
    struct runqueue *rq = cpu_rq(cpu->id);

    if (cpu->locks_held)
        panic("schedule: called with %u spinlocks held", cpu->locks_held);
    rcu_note_context_switch();
    spin_lock(&rq->lock);
    cpu->need_resched = false;
    struct task *prev = cpu->current;
    put_prev(rq, prev, cpu->id, preempted);
    struct task *next = queue_pop(rq);
    if (!next)
        next = rq->idle;
    rq->curr_prio = next->is_idle ? -1 : (int)next->prio;
    if (next == prev) {
        spin_unlock(&rq->lock);
        irq_restore(flags);
        return;
    }
    while (__atomic_load_n(&next->on_cpu, __ATOMIC_ACQUIRE))
        cpu_relax();    /* still switching out on another CPU */
    if (!next->is_idle && !cpumask_test(&next->affinity, cpu->id))
        panic("schedule: task %u (%s) is queued on cpu %u outside its affinity %#lx", next->id, next->name,
              cpu->id, next->affinity.bits[0]);

    trace_sched_switch(prev, next);
    account_switch(prev, next, clock_now());
    next->on_cpu = true;
    cpu->current = next;
    rq->switched_from = prev;
    tick_policy_notify(cpu, next->switched_in_at, TICK_EVENT_TASK_SWITCHED_IN);
    rq->context_switches++;
    cpu->arch.tss.rsp[0] = next->stack_top;      /* interrupts from ring 3 */
    cpu->syscall_stack_top = next->stack_top;    /* system calls */
    if (prev->process)
        fpu_save(&prev->fpu);
    if (next->process)
        fpu_restore(&next->fpu);
    process_switch_in(next);
    context_switch(&prev->saved_rsp, next->saved_rsp);
    finish_switch();
    tick_nohz_task_switch();    /* the task now running may need the tick, or let it stop */
    irq_restore(flags);
}

void schedule(void)
{
    schedule_common(false);
}

/* The first code a new task runs: context_switch "returns" here. */
void task_first_run(void)
{
    finish_switch();
    tick_nohz_task_switch();
    irq_enable();
    struct task *self = current_task();
    self->entry(self->arg);
    task_exit(0);
}

/* A real-time task goes behind its equals; a normal one behind everyone. */
void yield(void)
{
    current_task()->requeue_tail = true;
    schedule();
}

SYSCALL_DEFINE0(sched_yield)
{
    yield();
    return 0;
}

void set_current_state(enum task_state state)
{
    __atomic_store_n(&current_task()->state, state, __ATOMIC_SEQ_CST);
}

bool wake_up_task(struct task *task)
{
    spin_lock(&task->lock);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);    /* the waker's condition store before this load */
    if (task->state != TASK_SLEEPING) {
        spin_unlock(&task->lock);
        return false;
    }
    struct runqueue *rq = cpu_rq(task->cpu);
    spin_lock(&rq->lock);
    task->state = TASK_RUNNABLE;
    if (task->on_runqueue) {
        /* It has not switched out yet; schedule() will now keep it. */
        rq->wakeups++;
        trace_sched_wakeup(task->id, task->cpu);
        spin_unlock(&rq->lock);
        spin_unlock(&task->lock);
        return true;
    }
    spin_unlock(&rq->lock);
    place_task(task, true);
    spin_unlock(&task->lock);
    return true;
}

/* Run time so far, the current stretch included if it runs now (on any
 * CPU: a tick-less task must not look idle to whoever reads this). */
uint64_t task_runtime_ns(struct task *task)
{
    struct runqueue *rq = cpu_rq(task->cpu);
    spin_lock(&rq->lock);
    uint64_t runtime = task->runtime_ns;
    if (cpus[task->cpu]->current == task)
        runtime += clock_now() - task->switched_in_at;
    spin_unlock(&rq->lock);
    return runtime;
}

/* User and system time so far. The hooks update the running task's
 * counters on its own CPU without this lock, so a reader elsewhere may see
 * them a moment old: fine for /proc and getrusage. */
void task_times_ns(struct task *task, uint64_t *user, uint64_t *system)
{
    struct runqueue *rq = cpu_rq(task->cpu);
    spin_lock(&rq->lock);
    *user = task->user_ns;
    *system = task->system_ns;
    uint64_t now = context_clock_ns(), since = __atomic_load_n(&task->mode_since, __ATOMIC_RELAXED);
    if (cpus[task->cpu]->current == task)
        *(task->in_user ? user : system) += context_clock_since(now, since);
    spin_unlock(&rq->lock);
}

/* Has the running task had its turn, with head waiting? A FIFO task never
 * by time; an RR task after its slice, then behind its equals. */
static bool turn_over(struct task *current, const struct task *head, uint64_t now)
{
    uint64_t ran = now - current->switched_in_at;
    if (current->is_idle || head->prio != current->prio)
        return current->is_idle || head->prio > current->prio;
    if (!current->prio)
        return ran >= SCHED_SLICE_NS;
    if (current->policy != SCHED_RR || ran < SCHED_RR_SLICE_NS)
        return false;
    current->requeue_tail = true;
    return true;
}

void sched_tick(uint64_t now)
{
    struct cpu *cpu = this_cpu();
    struct runqueue *rq = cpu_rq(cpu->id);

    spin_lock(&rq->lock);
    if (rq->head && turn_over(cpu->current, rq->head, now))
        cpu->need_resched = true;
    spin_unlock(&rq->lock);
    loadavg_tick(now);
}

/* Single %gs-relative instructions, for the reason given at current_task(). */
void preempt_disable(void)
{
    __asm__ volatile("incl %%gs:%c0" : : "i"(offsetof(struct cpu, preempt_disabled)) : "memory");
}

void preempt_enable(void)
{
    ASSERT(this_cpu()->preempt_disabled > 0);   /* cannot move while it is > 0 */
    __asm__ volatile("decl %%gs:%c0" : : "i"(offsetof(struct cpu, preempt_disabled)) : "memory");
}

void sched_preempt_on_irq_exit(bool interrupted_with_irqs_on)
{
    struct cpu *cpu = this_cpu();

    if (cpu->need_resched && interrupted_with_irqs_on && cpu->irq_nesting == 0 && cpu->locks_held == 0 &&
        cpu->preempt_disabled == 0 && cpu_rq(cpu->id)->idle)
        schedule_common(true);
}

void idle_loop(void)
{
    for (;;) {
        irq_disable();
        if (this_cpu()->need_resched) {
            if (!idle_poll_cpu(this_cpu_id()))
                tick_nohz_idle_exit();      /* a polling CPU leaves it to the switch's decision */
            irq_enable();
            schedule();
        } else {
            /* Idle is an extended quiescent state for RCU. Preemption is
             * off so that an interrupt's exit cannot switch to a task
             * while RCU still counts this CPU as idle. The tick stops here
             * if the policy lets idle CPUs go without it. idle=poll
             * spins instead of halting (sched/idle_poll.c). */
            preempt_disable();
            bool polls = idle_poll_begin();
            tick_nohz_idle_enter();
            rcu_idle_enter();
            if (polls) {
                idle_poll_wait();
            } else {
                enable_irqs_and_halt();
                irq_disable();
            }
            rcu_idle_exit();
            if (polls)
                idle_poll_end();
            preempt_enable();
        }
    }
}

/* Give task a new policy and priorities (sched/rt.c; the futex PI code
 * lends pi_priority). The caller holds task's lock. A queued task moves
 * to its new place: behind its new equals when raised, ahead of them when
 * lowered (Linux's rule); the CPU reschedules if the order changed who
 * should run, and its tick is kicked if it is now needed. */
void sched_set_priority(struct task *task, unsigned policy, unsigned rt_priority, unsigned pi_priority)
{
    unsigned cpu = task->cpu;
    struct runqueue *rq = cpu_rq(cpu);

    spin_lock(&rq->lock);
    bool queued = task->on_runqueue, running = cpus[cpu]->current == task;
    unsigned old_prio = task->prio;
    if (queued) {
        rq_count(rq, task, -1);
        if (!running)
            queue_remove_task(rq, task);
    }
    task->policy = (unsigned char)policy;
    task->rt_priority = rt_priority;
    task->pi_priority = pi_priority;
    task->prio = rt_priority > pi_priority ? rt_priority : pi_priority;
    enum wakeup_ipi ipi = WAKEUP_NO_IPI;
    if (queued) {
        rq_count(rq, task, 1);
        if (running)
            rq->curr_prio = (int)task->prio;
        else
            queue_insert(rq, task, task->prio < old_prio);
        bool kick = rq_update_tick_dep(rq, cpu);
        struct task *current = cpus[cpu]->current;
        bool preempt = running ? rq->head && rq->head->prio > task->prio
                               : current->is_idle || task->prio > current->prio;
        if (preempt) {
            cpus[cpu]->need_resched = true;
            ipi = resched_needs_ipi(cpu, current) ? WAKEUP_RESCHEDULE : WAKEUP_NO_IPI;
        } else if (kick) {
            ipi = WAKEUP_NOHZ_KICK;
        }
    }
    spin_unlock(&rq->lock);
    send_wakeup_ipi(cpu, ipi);
}

/* A new task of fork or clone (not yet runnable) takes its creator's
 * policy, or SCHED_OTHER if the creator asked SCHED_RESET_ON_FORK
 * (which the child then does not keep). A lent priority is not inherited. */
void sched_fork(struct task *child, const struct task *parent)
{
    bool reset = parent->reset_on_fork;
    bool rt = parent->policy == SCHED_FIFO || parent->policy == SCHED_RR;
    child->policy = reset && rt ? SCHED_OTHER : parent->policy;
    child->rt_priority = reset ? 0 : parent->rt_priority;
    child->pi_priority = 0;
    child->prio = child->rt_priority;
    child->reset_on_fork = false;
}
