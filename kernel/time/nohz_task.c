/* The nohz task attribute: see kernel/time/nohz_task.h and docs/nohz-task.md.
 *
 * Setting and clearing take nohz_lock (the rules look at every CPU), then
 * the task's lock (set_affinity reads the attribute under it: a nohz
 * task's affinity cannot change,
 * docs/nohz-task.md#patch-13-a-nohz-tasks-affinity-cannot-change), then a
 * runqueue's lock if needed: the one order, nohz_lock -> task->lock ->
 * rq->lock. The mask is checked and the attribute set under the task's
 * lock, so an affinity change by another process comes wholly before (the
 * check sees the new mask) or after (it gets EBUSY). The attribute lives
 * in the task, not the process: execve keeps the task, so it keeps the
 * attribute, and fork makes a new task, which starts without it (one nohz
 * task per CPU; the 2010 series let a child inherit it). */
#include "kernel/time/nohz_task.h"

#include "kernel/lib/errno.h"
#include "kernel/time/housekeeping.h"
#include "kernel/base/panic.h"
#include "kernel/base/percpu.h"
#include "kernel/base/printk.h"
#include "kernel/fs/proc_parse.h"
#include "kernel/fs/sysfs.h"
#include "kernel/lib/string.h"
#include "kernel/process/process.h"
#include "kernel/time/tick.h"
#include "kernel/trace/trace.h"
#include "sched/task.h"

struct cpumask cpu_has_nohz_task;
static struct spinlock nohz_lock = SPINLOCK_INIT("nohz");
/* Each CPU's nohz task, NULL if none: written under nohz_lock, read with
 * atomics (cpu_nohz_task()). */
static DEFINE_PER_CPU(struct task *, nohz_task);

struct task *cpu_nohz_task(unsigned cpu)
{
    return __atomic_load_n(per_cpu_ptr(nohz_task, cpu), __ATOMIC_ACQUIRE);
}

bool task_is_nohz(const struct task *task)
{
    return __atomic_load_n(&task->nohz, __ATOMIC_ACQUIRE);
}

bool cpu_has_nohz(unsigned cpu)
{
    return cpumask_test_atomic(&cpu_has_nohz_task, cpu);
}

struct cpumask nohz_full_mask;

bool cpu_is_isolated(unsigned cpu)
{
    return cpu_has_nohz(cpu) || cpumask_test_atomic(&nohz_full_mask, cpu);
}

bool isolated_cpus_exist(void)
{
    struct cpumask snapshot = cpu_has_nohz_task;
    return !cpumask_empty(&snapshot) || !cpumask_empty(&nohz_full_mask);
}

/* Parse and check nohz_full=: only online CPUs, and never all of them (the
 * boot CPU stays for housekeeping, as on Linux). Problems are reported and
 * change nothing, or only what they concern. */
void nohz_full_init(const char *list)
{
    struct cpumask mask;

    if (!*list) {
        if (tick_policy->uses_nohz_full)
            printk("nohz_full: tick=%s without nohz_full=: busy CPUs keep their tick\n", tick_policy->name);
        return;
    }
    if (cpulist_parse(list, strlen(list), &mask) < 0) {
        printk("nohz_full=%s: not a CPU list (e.g. 1-3): ignored\n", list);
        return;
    }
    struct cpumask offline;
    cpumask_andnot(&offline, &mask, &cpu_online_mask);
    if (!cpumask_empty(&offline)) {
        printk("nohz_full=%s: CPU %u is not online: ignored\n", list, cpumask_first(&offline));
        cpumask_and(&mask, &mask, &cpu_online_mask);
    }
    if (cpumask_test(&mask, 0)) {
        printk("nohz_full=%s: cpu 0 stays a housekeeping CPU\n", list);
        cpumask_clear(&mask, 0);
    }
    if (!tick_policy->uses_nohz_full)
        printk("nohz_full=%s: takes effect with tick=full (now tick=%s)\n", list, tick_policy->name);
    unsigned cpu;
    for_each_cpu_in(cpu, &mask) {
        cpumask_set_atomic(&nohz_full_mask, cpu);
        housekeeping_remove(cpu);
    }
    if (timekeeper_cpu != TIMEKEEPER_NONE && cpu_is_isolated(timekeeper_cpu))
        timekeeper_cpu = 0;
    char text[CPULIST_FORMAT_SIZE];
    cpulist_format(&nohz_full_mask, text, sizeof(text));
    printk("nohz_full: cpus %s\n", text[0] ? text : "none");
}

/* /sys/devices/system/cpu/nohz_full: the CPUs of nohz_full=, or "(null)"
 * without it, as Linux 6.1 prints its never-allocated mask ("%*pbl" of a
 * NULL cpumask with CONFIG_CPUMASK_OFFSTACK, which Debian's kernel has). */
static void show_nohz_full(struct proc_text *text)
{
    char list[CPULIST_FORMAT_SIZE];
    struct cpumask mask = nohz_full_mask;
    cpulist_format(&mask, list, sizeof(list));
    proc_printf(text, "%s\n", cpumask_empty(&mask) ? "(null)" : list);
}

SYSFS_FILE("/sys/devices/system/cpu/nohz_full", show_nohz_full);

/* Would one more nohz CPU leave no online CPU without a nohz task (or
 * nohz_full)? */
static bool takes_last_free_cpu(unsigned cpu)
{
    struct cpumask free;
    cpumask_andnot(&free, &cpu_online_mask, &cpu_has_nohz_task);
    cpumask_andnot(&free, &free, &nohz_full_mask);
    cpumask_clear(&free, cpu);
    return cpumask_empty(&free);
}

/* -EAGAIN: the mask is one CPU, but not this one. Another process has
 * just changed it, and this task has not moved yet. */
static int try_set(struct task *task)
{
    int error = 0;

    spin_lock(&nohz_lock);
    spin_lock(&task->lock);
    unsigned cpu = cpumask_first(&task->affinity);
    if (task->nohz)
        goto out;
    if (cpumask_weight(&task->affinity) != 1 || cpu_has_nohz(cpu) || takes_last_free_cpu(cpu)) {
        error = -EBUSY;
        goto out;
    }
    if (cpu != this_cpu_id()) {
        error = -EAGAIN;
        goto out;
    }
    __atomic_store_n(&task->nohz, true, __ATOMIC_RELEASE);
    tick_policy_isolation_changed();
    __atomic_store_n(per_cpu_ptr(nohz_task, cpu), task, __ATOMIC_RELEASE);
    cpumask_set_atomic(&cpu_has_nohz_task, cpu);
    /* No unpinned timers land here (docs/nohz-task.md#patch-02-unpinned-timers-avoid-nohz-cpus). */
    housekeeping_remove(cpu);
    trace_nohz_set(task->process ? task->process->pid : 0);
    tick_timekeeper_move_off(cpu);  /* timekeeping is never a nohz CPU's job */
out:
    spin_unlock(&task->lock);
    spin_unlock(&nohz_lock);
    return error;
}

#define MOVE_TRIES 3    /* a mask that keeps changing under us: EBUSY */

/* A task whose mask another process has just changed moves at its next
 * switch; we switch now (schedule() migrates a task off a CPU it may no
 * longer use) and check again. */
int nohz_task_set(struct task *task)
{
    ASSERT(task == current_task());
    for (int tries = 0; tries < MOVE_TRIES; tries++) {
        int error = try_set(task);
        if (error != -EAGAIN)
            return error;
        schedule();
    }
    return -EBUSY;
}

void nohz_task_clear(struct task *task)
{
    spin_lock(&nohz_lock);
    spin_lock(&task->lock);
    if (task->nohz) {
        unsigned cpu = cpumask_first(&task->affinity);
        ASSERT(cpu_nohz_task(cpu) == task);
        __atomic_store_n(per_cpu_ptr(nohz_task, cpu), 0, __ATOMIC_RELEASE);
        cpumask_clear_atomic(&cpu_has_nohz_task, cpu);
        housekeeping_add(cpu);
        __atomic_store_n(&task->nohz, false, __ATOMIC_RELEASE);
        tick_policy_isolation_changed();
        tick_want_recheck(cpu);
        trace_nohz_clear(task->process ? task->process->pid : 0);
    }
    spin_unlock(&task->lock);
    spin_unlock(&nohz_lock);
    /* The tick comes back by itself: the next check on that CPU (at the
     * switch away from this task, or the recheck asked for on the way
     * back to user mode) finds the policy no longer lets it stop
     * (kernel/time/tick_stop.c). */
}

void nohz_task_exit(struct task *task)
{
    nohz_task_clear(task);
}

long nohz_task_proc_write(int pid, const char *buffer, size_t count)
{
    struct thread *self = current_thread();

    /* pid: the tid of the file's thread (/proc/PID/nohz: the leader's) */
    if (!self || self->tid != pid)
        return -EPERM;      /* only a task itself decides (docs/nohz-task.md#patch-15-procselfnohz) */
    int value = proc_parse_nohz(buffer, count);    /* kernel/fs/proc_parse.c */
    if (value < 0)
        return value;
    if (value == 0) {
        nohz_task_clear(current_task());
        return (long)count;
    }
    int error = nohz_task_set(current_task());
    return error ? error : (long)count;
}
