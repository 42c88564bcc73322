/* Creating, ending and reaping tasks, and each CPU's idle task.
 *
 * A new task gets a kernel stack (with an unmapped guard page below it)
 * prepared so that the first context_switch() to it "returns" into
 * task_first_run() (sched/sched.c). A task that exits stays allocated, dead,
 * until kthread_join() reaps it: its stack cannot be freed while it still
 * runs on it. */
#include "arch/x86/cpu.h"
#include "arch/x86/paging.h"
#include "arch/x86/timer.h"
#include "kernel/lib/errno.h"
#include "kernel/lib/format.h"
#include "kernel/mm/heap.h"
#include "kernel/time/nohz_task.h"
#include "kernel/base/panic.h"
#include "kernel/base/percpu.h"
#include "sched/runqueue.h"
#include "kernel/lib/string.h"
#include "sched/task.h"

static unsigned next_task_id = 1;

static struct task *task_allocate(const char *name, const struct cpumask *affinity)
{
    struct task *task = kzalloc(sizeof(*task));
    if (!task)
        return 0;
    task->id = __atomic_fetch_add(&next_task_id, 1, __ATOMIC_RELAXED);
    snprintf(task->name, sizeof(task->name), "%s", name);
    spin_lock_init(&task->lock, "task");
    wait_queue_init(&task->exited);
    if (affinity)
        cpumask_copy(&task->affinity, affinity);
    else
        cpumask_copy(&task->affinity, &cpu_online_mask);
    return task;
}

/* The stack as context_switch() expects it: six callee-saved registers,
 * then the address to return to, then a zero return address that ends
 * backtraces (and keeps the ABI's 16-byte alignment at function entry). */
static void prepare_first_switch(struct task *task)
{
    uint64_t *stack = (uint64_t *)task->stack_top;
    *--stack = 0;
    *--stack = (uint64_t)task_first_run;
    for (int i = 0; i < 6; i++)
        *--stack = 0;
    task->saved_rsp = (uint64_t)stack;
}

struct task *kthread_create(const char *name, void (*entry)(void *arg), void *arg,
                            const struct cpumask *affinity)
{
    struct task *task = kthread_create_stopped(name, entry, arg, affinity);
    if (task)
        wake_up_task(task);
    return task;
}

/* The same, but it does not run until someone wakes it (wake_up_task):
 * the caller can finish setting it up first. */
struct task *kthread_create_stopped(const char *name, void (*entry)(void *arg), void *arg,
                                    const struct cpumask *affinity)
{
    struct cpumask allowed;

    if (affinity) {
        cpumask_and(&allowed, affinity, &cpu_online_mask);
        if (cpumask_empty(&allowed))
            return 0;
    }
    struct task *task = task_allocate(name, affinity ? &allowed : 0);
    if (!task)
        return 0;
    task->stack_top = (uint64_t)kernel_stack_allocate(KERNEL_STACK_PAGES);
    if (!task->stack_top) {
        kfree(task);
        return 0;               /* out of memory: fork says ENOMEM */
    }
    task->entry = entry;
    task->arg = arg;
    task->cpu = cpumask_first(&task->affinity);
    prepare_first_switch(task);
    fpu_state_init(&task->fpu);
    task->state = TASK_SLEEPING;
    return task;
}

void task_exit(int code)
{
    struct task *self = current_task();

    ASSERT(!self->is_idle);
    nohz_task_exit(self);   /* the CPU is free again for another nohz task */
    irq_disable();      /* no preemption between dying and the last schedule() */
    self->exit_code = code;
    spin_lock(&self->lock);
    set_current_state(TASK_DEAD);
    spin_unlock(&self->lock);
    wake_up_all(&self->exited);
    schedule();
    panic("task_exit: a dead task was scheduled again");
}

int kthread_join(struct task *task)
{
    if (task == current_task())
        return -EDEADLK;
    wait_event(&task->exited, task->state == TASK_DEAD);
    while (__atomic_load_n(&task->on_cpu, __ATOMIC_ACQUIRE))
        cpu_relax();    /* its last schedule() is still switching away */
    int code = task->exit_code;
    kernel_stack_free(task->stack_top, KERNEL_STACK_PAGES);
    kfree(task);
    return code;
}

void kthread_free_unstarted(struct task *task)
{
    ASSERT(task->state == TASK_SLEEPING && !task->on_runqueue && !task->on_cpu);
    kernel_stack_free(task->stack_top, KERNEL_STACK_PAGES);
    kfree(task);
}

/* What this CPU runs now (its boot stack) becomes its idle task. */
void sched_init_this_cpu(void)
{
    struct cpu *cpu = this_cpu();
    struct cpumask only_here = cpumask_of(cpu->id);
    struct task *idle = task_allocate("idle", &only_here);

    if (!idle)
        panic("sched: no memory for the idle task of cpu %u", cpu->id);
    snprintf(idle->name, sizeof(idle->name), "idle/%u", cpu->id);
    idle->is_idle = true;
    idle->cpu = cpu->id;
    idle->on_cpu = true;
    cpu_rq(cpu->id)->curr_prio = -1;
    idle->stack_top = cpu->kernel_stack_top;
    idle->switched_in_at = clock_now();
    spin_lock_init(&cpu_rq(cpu->id)->lock, "runqueue");
    cpu_rq(cpu->id)->idle = idle;
    cpu->current = idle;
}

/* kthread_create() at SCHED_FIFO above every user priority, for the few
 * kernel threads that a user FIFO spinner must not starve: RCU's
 * grace-period and offloaded-callback threads (docs/realtime.md). */
struct task *kthread_create_urgent(const char *name, void (*entry)(void *arg), void *arg,
                                   const struct cpumask *affinity)
{
    struct task *task = kthread_create_stopped(name, entry, arg, affinity);
    if (task) {
        spin_lock(&task->lock);
        sched_set_priority(task, SCHED_FIFO, SCHED_KERNEL_PRIO, 0);
        spin_unlock(&task->lock);
        wake_up_task(task);
    }
    return task;
}
