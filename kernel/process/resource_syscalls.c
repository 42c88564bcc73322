/* The system calls that report on resources: the CPU time used
 * (getrusage, times), sysinfo, the resource limits (prlimit64, getrlimit,
 * setrlimit), getcpu. What busybox's ps, top, free, uptime and time, and
 * musl's start-up, ask. The clocks are read in kernel/time/time_syscalls.c.
 *
 * CPU times come from the context tracking hooks (task_times_ns), never
 * from tick samples. Resource limits are recorded and reported; only
 * RLIMIT_NOFILE (kernel/fs/fs_syscalls.c: descriptor_limit) and
 * RLIMIT_STACK (kernel/mm/stack_limit.c) are enforced.
 * A new process's limits are set in kernel/process/process.c. */
#include "kernel/entry/syscall.h"

#include "arch/x86/clock.h"
#include "kernel/lib/errno.h"
#include "kernel/lib/linux_abi.h"
#include "kernel/mm/page_alloc.h"
#include "kernel/base/percpu.h"
#include "kernel/process/process.h"
#include "kernel/lib/string.h"
#include "kernel/mm/uaccess.h"
#include "sched/task.h"
#include "sched/loadavg.h"

#define NS_PER_SECOND  1000000000ul

/* ---- getrusage, times ---- */

#define RUSAGE_SELF     0
#define RUSAGE_CHILDREN (-1)
#define RUSAGE_THREAD   1

struct linux_rusage {
    struct linux_timeval user_time, system_time;
    int64_t counters[14];       /* maxrss ... nivcsw: not tracked, 0 */
};

SYSCALL_DEFINE2(getrusage, int, who, void *, user_usage)
{
    struct process *process = current_process();
    uint64_t user, system;
    if (who == RUSAGE_SELF || who == RUSAGE_THREAD) {
        task_times_ns(current_task(), &user, &system);
    } else if (who == RUSAGE_CHILDREN) {
        spin_lock(&process_tree_lock);
        user = process->children_user_ns;
        system = process->children_system_ns;
        spin_unlock(&process_tree_lock);
    } else {
        return -EINVAL;
    }
    struct linux_rusage usage;
    memset(&usage, 0, sizeof(usage));
    usage.user_time = timeval_of(user);
    usage.system_time = timeval_of(system);
    return copy_to_user(user_usage, &usage, sizeof(usage));
}

struct linux_tms {
    int64_t user, system, children_user, children_system;   /* USER_HZ ticks */
};

/* times: the ticks since boot (Linux's arbitrary point in the past). */
SYSCALL_DEFINE1(times, void *, user_buffer)
{
    struct process *process = current_process();
    if (user_buffer) {
        uint64_t user, system;
        task_times_ns(current_task(), &user, &system);
        spin_lock(&process_tree_lock);
        struct linux_tms times = { (int64_t)user_hz_ticks(user), (int64_t)user_hz_ticks(system),
                                   (int64_t)user_hz_ticks(process->children_user_ns),
                                   (int64_t)user_hz_ticks(process->children_system_ns) };
        spin_unlock(&process_tree_lock);
        if (copy_to_user(user_buffer, &times, sizeof(times)) < 0)
            return -EFAULT;
    }
    return (long)user_hz_ticks(clock_now());
}

/* ---- sysinfo ---- */

struct linux_sysinfo {
    int64_t uptime;
    uint64_t loads[3];
    uint64_t total_ram, free_ram, shared_ram, buffer_ram, total_swap, free_swap;
    uint16_t processes, pad;
    uint32_t pad2;
    uint64_t total_high, free_high;
    uint32_t memory_unit;
    char reserved[4];
};
_Static_assert(sizeof(struct linux_sysinfo) == 112, "Linux's struct sysinfo");

SYSCALL_DEFINE1(sysinfo, void *, user_info)
{
    struct linux_sysinfo info;
    memset(&info, 0, sizeof(info));
    info.uptime = (int64_t)(clock_now() / NS_PER_SECOND);
    info.total_ram = page_total_count();
    info.free_ram = page_free_count();
    info.memory_unit = 4096;
    unsigned long averages[3];
    loadavg_get(averages);
    for (int k = 0; k < 3; k++)     /* Linux's SI_LOAD_SHIFT: 16 bits of fraction here */
        info.loads[k] = (uint64_t)averages[k] << (16 - LOADAVG_SHIFT);
    spin_lock(&process_tree_lock);
    for (struct process *process = process_table_first_locked(); process; process = process->next_in_table)
        info.processes++;
    spin_unlock(&process_tree_lock);
    return copy_to_user(user_info, &info, sizeof(info));
}

/* ---- resource limits ---- */

struct linux_rlimit {
    uint64_t current, maximum;
};

/* Checked in full before anything changes: a bad call changes nothing. */
SYSCALL_DEFINE4(prlimit64, int, pid, uint32_t, resource, const void *, user_new, void *, user_old)
{
    struct linux_rlimit new_limit;
    if (resource >= RLIMIT_COUNT)
        return -EINVAL;
    if (user_new && copy_from_user(&new_limit, user_new, sizeof(new_limit)) < 0)
        return -EFAULT;
    if (user_new && new_limit.current > new_limit.maximum)
        return -EINVAL;
    spin_lock(&process_tree_lock);
    struct process *target = pid == 0 ? current_process() : pid > 0 ? process_find_locked((int)pid) : 0;
    struct linux_rlimit old = { 0, 0 };
    if (target) {
        old = (struct linux_rlimit){ target->rlimits[resource].current, target->rlimits[resource].maximum };
        if (user_new)
            target->rlimits[resource] = (struct process_rlimit){ new_limit.current, new_limit.maximum };
    }
    spin_unlock(&process_tree_lock);
    if (!target)
        return -ESRCH;
    if (user_old && copy_to_user(user_old, &old, sizeof(old)) < 0)
        return -EFAULT;
    return 0;
}

SYSCALL_DEFINE2(getrlimit, uint32_t, resource, void *, user_limit)
{
    if (!user_limit)
        return -EFAULT;
    return sys_prlimit64(0, resource, 0, user_limit);
}

SYSCALL_DEFINE2(setrlimit, uint32_t, resource, const void *, user_limit)
{
    if (!user_limit)
        return -EFAULT;
    return sys_prlimit64(0, resource, user_limit, 0);
}

/* ---- the CPU ---- */

SYSCALL_DEFINE3(getcpu, unsigned *, user_cpu, unsigned *, user_node, void *, cache)
{
    (void)cache;        /* ignored since Linux 2.6.24 */
    unsigned cpu = this_cpu_id(), node = 0;
    if (user_cpu && copy_to_user(user_cpu, &cpu, sizeof(cpu)) < 0)
        return -EFAULT;
    if (user_node && copy_to_user(user_node, &node, sizeof(node)) < 0)
        return -EFAULT;
    return 0;
}
