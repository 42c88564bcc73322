/* The real-time policies' system calls: SCHED_FIFO and SCHED_RR with
 * priorities 1-99 above SCHED_OTHER (docs/realtime.md). The scheduling
 * itself is sched/sched.c's (runqueues ordered by priority); this file
 * checks arguments as Linux 6.1 does, in its order, and changes one
 * thread (a tid) at a time.
 *
 * Every program runs as root here, so no call is refused for permission
 * (Linux: EPERM without CAP_SYS_NICE beyond RLIMIT_RTPRIO). SCHED_BATCH
 * and SCHED_IDLE are accepted, reported back, and scheduled as
 * SCHED_OTHER. Left out: SCHED_DEADLINE (EINVAL), nice values (sched_attr's
 * is ignored and read back as 0), utilization clamps (EOPNOTSUPP, as
 * Linux without CONFIG_UCLAMP_TASK), real-time throttling
 * (kernel.sched_rt_runtime_us: none; a FIFO spinner owns its CPU). */
#include "kernel/entry/syscall.h"

#include "kernel/lib/errno.h"
#include "kernel/lib/linux_abi.h"
#include "kernel/mm/uaccess.h"
#include "kernel/process/process.h"
#include "sched/task.h"

#define SCHED_DEADLINE 6
#define KEEP_POLICY (-1)                /* sched_setparam: Linux's SETPARAM_POLICY */

#define SCHED_FLAG_RESET_ON_FORK 0x01
#define SCHED_FLAG_KEEP_POLICY 0x08
#define SCHED_FLAG_UTIL_CLAMP 0x60
#define SCHED_FLAG_ALL 0x7f
#define SCHED_ATTR_SIZE_VER0 48
#define ATTR_SIZE_MAX 4096u             /* Linux: PAGE_SIZE */

struct sched_param {
    int sched_priority;
};

struct sched_attr {
    uint32_t size, sched_policy;
    uint64_t sched_flags;
    int32_t sched_nice;
    uint32_t sched_priority;
    uint64_t sched_runtime, sched_deadline, sched_period;
    uint32_t sched_util_min, sched_util_max;
};

static bool rt_policy(long policy)
{
    return policy == SCHED_FIFO || policy == SCHED_RR;
}

static bool valid_policy(long policy)
{
    return policy == SCHED_OTHER || policy == SCHED_BATCH || policy == SCHED_IDLE || rt_policy(policy) ||
           policy == SCHED_DEADLINE;
}

/* Linux's __sched_setscheduler() checks, then the change. policy
 * KEEP_POLICY keeps the thread's policy and its reset-on-fork flag. */
static long set_scheduler(struct task *task, long policy, uint32_t priority, uint64_t flags)
{
    bool reset_on_fork = flags & SCHED_FLAG_RESET_ON_FORK;
    if (policy == KEEP_POLICY) {
        policy = __atomic_load_n(&task->policy, __ATOMIC_RELAXED);
        reset_on_fork = task->reset_on_fork;
    } else if (!valid_policy(policy)) {
        return -EINVAL;
    }
    if (flags & ~(uint64_t)SCHED_FLAG_ALL)
        return -EINVAL;
    if (priority > SCHED_RT_PRIO_MAX || rt_policy(policy) != (priority != 0))
        return -EINVAL;
    if (policy == SCHED_DEADLINE)
        return -EINVAL;         /* not implemented: Linux would check and accept the parameters */
    if (flags & SCHED_FLAG_UTIL_CLAMP)
        return -EOPNOTSUPP;
    spin_lock(&task->lock);
    task->reset_on_fork = reset_on_fork;
    sched_set_priority(task, (unsigned)policy, priority, task->pi_priority);
    spin_unlock(&task->lock);
    return 0;
}

static long set_scheduler_of(int64_t pid, long policy, uint32_t priority, uint64_t flags)
{
    struct thread *thread = sched_find_thread(pid);
    if (!thread)
        return -ESRCH;
    long result = set_scheduler(thread->task, policy, priority, flags);
    process_put(thread->process);
    return result;
}

/* Linux's do_sched_setscheduler(): the pointer and pid, then the copy, then the thread. */
static long setscheduler_call(int64_t pid, long policy, const struct sched_param *user_param)
{
    struct sched_param param;
    if (!user_param || pid < 0)
        return -EINVAL;
    if (copy_from_user(&param, user_param, sizeof(param)) < 0)
        return -EFAULT;
    uint64_t flags = 0;
    if (policy != KEEP_POLICY && (policy & SCHED_RESET_ON_FORK)) {
        flags = SCHED_FLAG_RESET_ON_FORK;
        policy &= ~(long)SCHED_RESET_ON_FORK;
    }
    return set_scheduler_of(pid, policy, (uint32_t)param.sched_priority, flags);
}

SYSCALL_DEFINE3(sched_setscheduler, int, pid, int, policy, const struct sched_param *, param)
{
    if (policy < 0)
        return -EINVAL;
    return setscheduler_call(pid, policy, param);
}

SYSCALL_DEFINE2(sched_setparam, int, pid, const struct sched_param *, param)
{
    return setscheduler_call(pid, KEEP_POLICY, param);
}

SYSCALL_DEFINE1(sched_getscheduler, int, pid)
{
    if (pid < 0)
        return -EINVAL;
    struct thread *thread = sched_find_thread(pid);
    if (!thread)
        return -ESRCH;
    struct task *task = thread->task;
    long policy = __atomic_load_n(&task->policy, __ATOMIC_RELAXED) | (task->reset_on_fork ? SCHED_RESET_ON_FORK : 0);
    process_put(thread->process);
    return policy;
}

/* Its own priority, not one lent by a PI futex (as Linux). */
static uint32_t own_priority(const struct task *task)
{
    return rt_policy(task->policy) ? task->rt_priority : 0;
}

SYSCALL_DEFINE2(sched_getparam, int, pid, struct sched_param *, user_param)
{
    if (!user_param || pid < 0)
        return -EINVAL;
    struct thread *thread = sched_find_thread(pid);
    if (!thread)
        return -ESRCH;
    struct sched_param param = { .sched_priority = (int)own_priority(thread->task) };
    process_put(thread->process);
    if (copy_to_user(user_param, &param, sizeof(param)) < 0)
        return -EFAULT;
    return 0;
}

SYSCALL_DEFINE1(sched_get_priority_max, int, policy)
{
    if (rt_policy(policy))
        return SCHED_RT_PRIO_MAX;
    return valid_policy(policy) ? 0 : -EINVAL;
}

SYSCALL_DEFINE1(sched_get_priority_min, int, policy)
{
    if (rt_policy(policy))
        return 1;
    return valid_policy(policy) ? 0 : -EINVAL;
}

/* RR: its slice; FIFO: 0 (no slice); the others: the normal slice
 * (Linux answers the fair class's current slice, which varies). */
SYSCALL_DEFINE2(sched_rr_get_interval, int, pid, struct linux_timespec *, user_interval)
{
    if (pid < 0)
        return -EINVAL;
    struct thread *thread = sched_find_thread(pid);
    if (!thread)
        return -ESRCH;
    unsigned policy = thread->task->policy;
    process_put(thread->process);
    uint64_t ns = policy == SCHED_RR ? SCHED_RR_SLICE_NS : policy == SCHED_FIFO ? 0 : SCHED_SLICE_NS;
    struct linux_timespec interval = { (int64_t)(ns / 1000000000ul), (int64_t)(ns % 1000000000ul) };
    if (copy_to_user(user_interval, &interval, sizeof(interval)) < 0)
        return -EFAULT;
    return 0;
}

/* Linux's sched_copy_attr(): a size of 0 means the first version; a
 * size it does not know is E2BIG, with its own size written back; bytes
 * past what it knows must be zero. */
static long copy_attr(const struct sched_attr *user_attr, struct sched_attr *attr)
{
    uint32_t size;
    *attr = (struct sched_attr){ 0 };
    if (copy_from_user(&size, &user_attr->size, sizeof(size)) < 0)
        return -EFAULT;
    if (!size)
        size = SCHED_ATTR_SIZE_VER0;
    if (size < SCHED_ATTR_SIZE_VER0 || size > ATTR_SIZE_MAX)
        goto too_big;
    if (copy_from_user(attr, user_attr, size < sizeof(*attr) ? size : sizeof(*attr)) < 0)
        return -EFAULT;
    for (uint32_t offset = sizeof(*attr); offset < size; offset++) {
        unsigned char byte;
        if (copy_from_user(&byte, (const char *)user_attr + offset, 1) < 0)
            return -EFAULT;
        if (byte)
            goto too_big;
    }
    if ((attr->sched_flags & SCHED_FLAG_UTIL_CLAMP) && size < sizeof(*attr))
        return -EINVAL;
    return 0;
too_big:;
    uint32_t ours = sizeof(*attr);
    (void)copy_to_user((void *)&user_attr->size, &ours, sizeof(ours));
    return -E2BIG;
}

SYSCALL_DEFINE3(sched_setattr, int, pid, const struct sched_attr *, user_attr, unsigned, flags)
{
    struct sched_attr attr;
    if (!user_attr || pid < 0 || flags)
        return -EINVAL;
    long error = copy_attr(user_attr, &attr);
    if (error)
        return error;
    if ((int32_t)attr.sched_policy < 0)
        return -EINVAL;
    long policy = attr.sched_flags & SCHED_FLAG_KEEP_POLICY ? KEEP_POLICY : (long)attr.sched_policy;
    return set_scheduler_of(pid, policy, attr.sched_priority, attr.sched_flags);
}

SYSCALL_DEFINE4(sched_getattr, int, pid, struct sched_attr *, user_attr, unsigned, size, unsigned, flags)
{
    if (!user_attr || pid < 0 || size > ATTR_SIZE_MAX || size < SCHED_ATTR_SIZE_VER0 || flags)
        return -EINVAL;
    struct thread *thread = sched_find_thread(pid);
    if (!thread)
        return -ESRCH;
    struct task *task = thread->task;
    struct sched_attr attr = {
        .size = size < sizeof(attr) ? size : (uint32_t)sizeof(attr),
        .sched_policy = task->policy,
        .sched_flags = task->reset_on_fork ? SCHED_FLAG_RESET_ON_FORK : 0,
        .sched_priority = own_priority(task),
    };
    process_put(thread->process);
    if (copy_to_user(user_attr, &attr, attr.size) < 0)
        return -EFAULT;
    return 0;
}
