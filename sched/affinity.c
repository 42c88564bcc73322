/* Changing where a task may run. set_affinity() returns only once the task
 * is on a CPU of its new mask (or sleeping, or dead): a task is never seen
 * running outside its mask after the call returns.
 *
 *   sleeping: nothing to move; the wakeup will place it within the mask
 *   queued:   take it off its runqueue and place it on an allowed CPU
 *   running:  ask its CPU to reschedule; schedule() sees the CPU is no
 *             longer allowed and migrates it (put_prev, finish_switch)
 *
 * The running case waits for the task's CPU to switch it out. So the
 * caller holds no spinlock: the task may be spinning, interrupts off, on
 * that very lock, and would never switch (docs/scheduling.md, section 8).
 * The caller also keeps the task from being freed meanwhile (another
 * process's task: sys_sched_setaffinity pins its process).
 *
 * A nohz task's affinity cannot change (-EBUSY): it owns its CPU until it
 * clears the attribute or exits
 * (docs/nohz-task.md#patch-13-a-nohz-tasks-affinity-cannot-change). The
 * attribute is read under the task's lock, which try_set() in
 * kernel/time/nohz_task.c holds while it checks the mask and sets the
 * attribute: one happens wholly before the other. */
#include "kernel/entry/syscall.h"

#include "arch/x86/cpu.h"
#include "kernel/lib/errno.h"
#include "kernel/irq/ipi.h"
#include "kernel/base/panic.h"
#include "kernel/base/percpu.h"
#include "sched/runqueue.h"
#include "kernel/process/process.h"
#include "kernel/mm/uaccess.h"
#include "sched/task.h"
#include "kernel/time/tick.h"

/* Running outside its mask as it is now, not as we set it: if another
 * change came after ours, the task follows that one, and waiting for it
 * to leave a CPU that change allows would never end. */
static bool runs_outside_its_mask(struct task *task)
{
    unsigned cpu = __atomic_load_n(&task->cpu, __ATOMIC_ACQUIRE);
    return __atomic_load_n(&task->on_cpu, __ATOMIC_ACQUIRE) && !cpumask_test_atomic(&task->affinity, cpu);
}

static bool holds_a_spinlock(void)
{
    uint64_t flags = irq_save();    /* this_cpu() stays ours while we read it */
    bool holding = this_cpu()->locks_held != 0;
    irq_restore(flags);
    return holding;
}

int set_affinity(struct task *task, const struct cpumask *mask)
{
    struct cpumask allowed;

    cpumask_and(&allowed, mask, &cpu_online_mask);
    if (cpumask_empty(&allowed) || !cpumask_equal(&allowed, mask))
        return -EINVAL;
    if (task->is_idle)
        return -EINVAL;
    if (holds_a_spinlock())
        panic("set_affinity: called holding a spinlock; the task it waits for may spin on it");

    /* Both locks: a queued task is always allowed on its runqueue's CPU. */
    spin_lock(&task->lock);
    if (task->nohz) {
        spin_unlock(&task->lock);
        return -EBUSY;          /* a nohz task stays on its CPU */
    }
    unsigned cpu = task->cpu;
    struct runqueue *rq = cpu_rq(cpu);
    bool send_ipi = false;
    spin_lock(&rq->lock);
    cpumask_copy(&task->affinity, &allowed);
    if (task->on_runqueue && !cpumask_test(&allowed, cpu)) {
        if (cpus[cpu]->current == task) {
            cpus[cpu]->need_resched = true;
            send_ipi = cpu != this_cpu_id();
        } else if (queue_remove_task(rq, task)) {
            task->on_runqueue = false;
            bool kick = rq_task_left(rq, cpu, task);
            spin_unlock(&rq->lock);
            place_runnable_task(task);
            spin_unlock(&task->lock);
            if (kick)
                tick_nohz_kick(cpu, "affinity");
            return 0;
        } else {
            panic("set_affinity: task %u on_runqueue on cpu %u but neither current nor queued", task->id, cpu);
        }
    }
    spin_unlock(&rq->lock);
    spin_unlock(&task->lock);

    if (task == current_task()) {
        if (!cpumask_test(&allowed, this_cpu_id()))
            schedule();         /* migrates us */
        return 0;
    }
    if (send_ipi)
        ipi_send(cpu, IPI_RESCHEDULE, "affinity");
    while (runs_outside_its_mask(task))
        cpu_relax();            /* until its CPU has switched it out */
    return 0;
}

/* The thread pid (a tid; 0: the caller), its process pinned so that
 * its task stays after the lock is dropped; the caller puts the process
 * (process_put). A zombie is found until it is reaped, as on Linux: its
 * dead task's mask is still there to read or set. */
struct thread *sched_find_thread(int64_t pid)
{
    spin_lock(&process_tree_lock);
    struct thread *thread = pid == 0 ? current_thread() : pid > 0 ? thread_find_locked((int)pid) : 0;
    if (!thread && pid > 0) {
        struct process *zombie = process_find_locked((int)pid);
        thread = zombie ? &zombie->leader : 0;
    }
    if (thread)
        process_get_locked(thread->process);
    spin_unlock(&process_tree_lock);
    return thread;
}

/* Linux's sizes: the buffer must hold a bit per CPU in whole longs; the
 * answer is the kernel's mask (MAX_CPUS bits in longs) or the buffer,
 * whichever is smaller, and its length is returned. */
SYSCALL_DEFINE3(sched_getaffinity, int64_t, pid, uint64_t, size, void *, user_mask)
{
    if (size * 8 < cpu_count || size % sizeof(uint64_t))
        return -EINVAL;
    struct thread *thread = sched_find_thread(pid);
    if (!thread)
        return -ESRCH;
    struct cpumask mask;       /* word by word: no lock is held */
    for (size_t i = 0; i < CPUMASK_WORDS; i++)
        mask.bits[i] = __atomic_load_n(&thread->task->affinity.bits[i], __ATOMIC_RELAXED);
    process_put(thread->process);
    size_t length = size < sizeof(mask.bits) ? (size_t)size : sizeof(mask.bits);
    if (copy_to_user(user_mask, mask.bits, length) < 0)
        return -EFAULT;
    return (long)length;
}

/* set_affinity() may wait for the task to leave its CPU: with no lock
 * held, the thread's process pinned (it may exit meanwhile; it is not freed). A
 * shorter buffer than the kernel's mask leaves the CPUs past it out; a
 * longer one's extra bytes are not read (Linux's get_user_cpu_mask). */
SYSCALL_DEFINE3(sched_setaffinity, int64_t, pid, uint64_t, size, const void *, user_mask)
{
    struct cpumask mask = { 0 };
    if (size < sizeof(uint64_t))
        return -EINVAL;
    if (copy_from_user(mask.bits, user_mask, size < sizeof(mask.bits) ? (size_t)size : sizeof(mask.bits)) < 0)
        return -EFAULT;
    cpumask_and(&mask, &mask, &cpu_online_mask);
    struct thread *thread = sched_find_thread(pid);
    if (!thread)
        return -ESRCH;
    struct process *process = thread->process;
    long result = set_affinity(thread->task, &mask);
    process_put(process);
    return result;
}
