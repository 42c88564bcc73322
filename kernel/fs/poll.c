/* poll and ppoll: wait until one of several files is ready, a timeout
 * passes, or a signal comes (docs/user-space.md, "poll").
 *
 * A file says how ready it is through file_ops.poll (POLLIN, POLLOUT,
 * POLLHUP, POLLERR); a file without one (regular files, /proc, /dev/null)
 * is always ready to read and write, as on Linux. The waiting is one
 * global wait queue: whatever changes what a poll could see (a pipe read,
 * write or close, console input) calls poll_notify(), and every poller
 * looks again. Linux keeps a queue per file and registers each poller on
 * the queues of the files it polls; with a handful of processes, one queue
 * is simpler and the extra wakeups cost nothing anyone measures here. A
 * file that cannot notify (the console without its receive interrupt)
 * returns POLL_RECHECK, and the poller looks again every millisecond.
 *
 * select and pselect6 (kernel/fs/select.c) are the same wait over bitmaps.
 * A wait that a signal without a handler ends (a stop) is restarted; ppoll
 * and select go on with the time left, written back; poll starts its
 * timeout again (Linux keeps the deadline in a restart block). */
#include "kernel/entry/syscall.h"
#include "kernel/fs/poll.h"

#include "kernel/lib/errno.h"
#include "kernel/mm/heap.h"
#include "kernel/lib/linux_abi.h"
#include "kernel/process/process.h"
#include "kernel/process/signal.h"
#include "kernel/time/timers.h"
#include "kernel/mm/uaccess.h"
#include "kernel/fs/fs_syscalls.h"
#include "kernel/fs/vfs.h"
#include "arch/x86/clock.h"
#include "sched/task.h"
#include "sched/wait.h"

#define RECHECK_NS 1000000ul        /* for files that cannot notify */
#define NS_PER_MS 1000000ul

static struct wait_queue poll_queue = { SPINLOCK_INIT("poll"), 0 };

void poll_notify(void)
{
    wake_up_all(&poll_queue);
}

/* One pass over the descriptors: revents filled, the number ready
 * returned; *recheck set if a file cannot notify. A closed descriptor is
 * POLLNVAL; the bits in always_reported count whether asked for or not. */
static long poll_scan(struct linux_pollfd *fds, uint64_t count, unsigned always_reported, bool *recheck)
{
    long ready = 0;
    for (uint64_t i = 0; i < count; i++) {
        fds[i].revents = 0;
        if (fds[i].fd < 0)
            continue;       /* ignored, as Linux does */
        unsigned mask = POLLNVAL;
        struct file *file = fd_get(current_process()->files, fds[i].fd);
        if (file) {
            mask = file->ops->poll ? file->ops->poll(file) : POLLIN | POLLOUT;
            vfs_close(file);
        }
        if (mask & POLL_RECHECK)
            *recheck = true;
        fds[i].revents = (int16_t)(mask & ((uint16_t)fds[i].events | always_reported) & ~POLL_RECHECK);
        ready += fds[i].revents != 0;
    }
    return ready;
}

uint64_t poll_time_left(uint64_t started, uint64_t timeout_ns)
{
    uint64_t spent = clock_now() - started;
    return spent < timeout_ns ? timeout_ns - spent : 0;
}

/* The timer of a poll with a timeout: it wakes the poller. */
struct poll_deadline {
    struct task *task;
    bool expired;
};

static void poll_deadline_passed(struct timer *timer)
{
    struct poll_deadline *deadline = timer->data;
    __atomic_store_n(&deadline->expired, true, __ATOMIC_SEQ_CST);
    wake_up_task(deadline->task);
}

long poll_wait(struct linux_pollfd *fds, uint64_t count, unsigned always_reported, uint64_t timeout_ns)
{
    struct poll_deadline deadline = { .task = current_task() };
    struct timer timer;
    timer_init(&timer, poll_deadline_passed, &deadline);
    bool timed = timeout_ns != 0 && timeout_ns != UINT64_MAX;
    if (timed)
        timer_start(&timer, clock_now() + timeout_ns, false);

    long result;
    for (;;) {
        struct wait_entry entry = { 0 };
        bool recheck = false;
        wait_prepare(&poll_queue, &entry);     /* before looking: a change after it wakes us */
        result = poll_scan(fds, count, always_reported, &recheck);
        if (result || timeout_ns == 0 || __atomic_load_n(&deadline.expired, __ATOMIC_SEQ_CST)) {
            wait_finish(&poll_queue, &entry);
            break;
        }
        if (signal_pending()) {
            wait_finish(&poll_queue, &entry);
            result = -ERESTARTNOHAND;   /* EINTR after a handler, even with SA_RESTART (Linux) */
            break;
        }
        if (recheck) {
            wait_finish(&poll_queue, &entry);
            sleep_ns_interruptible(RECHECK_NS, signal_pending);
        } else {
            schedule();
            wait_finish(&poll_queue, &entry);
        }
    }
    if (timed)
        timer_cancel_sync(&timer);     /* deadline lives on this stack */
    return result;
}

/* poll and ppoll: the user's array in and out, around poll_wait(). */
static long poll_user_array(void *user_fds, uint64_t count, uint64_t timeout_ns)
{
    if (count == 0) {
        long slept = poll_wait(0, 0, 0, timeout_ns);      /* a sleep */
        /* The empty array is still written back: outside the user half it
         * is EFAULT, as on Linux (NULL is fine). */
        return slept >= 0 && !user_range_ok(user_fds, 0) ? -EFAULT : slept;
    }
    if (count > (uint64_t)descriptor_limit())     /* Linux: RLIMIT_NOFILE; here at most FD_MAX */
        return -EINVAL;
    uint64_t size = count * sizeof(struct linux_pollfd);
    struct linux_pollfd *fds = kmalloc(size);
    if (!fds)
        return -ENOMEM;
    long result = -EFAULT;
    if (copy_from_user(fds, user_fds, size) == 0) {
        result = poll_wait(fds, count, POLLHUP | POLLERR | POLLNVAL, timeout_ns);
        if (result >= 0 && copy_to_user(user_fds, fds, size) < 0)
            result = -EFAULT;
    }
    kfree(fds);
    return result;
}

SYSCALL_DEFINE3(poll, void *, user_fds, uint64_t, count, int, timeout_ms)
{
    uint64_t timeout_ns = timeout_ms < 0 ? UINT64_MAX : (uint64_t)timeout_ms * NS_PER_MS;
    return poll_user_array(user_fds, count, timeout_ns);
}

/* As poll, with a timespec and a signal mask in force during the wait; the
 * time not slept is written back (Linux does; libcs pass a copy). */
SYSCALL_DEFINE5(ppoll, void *, user_fds, uint64_t, count, struct linux_timespec *, user_timeout,
               const uint64_t *, user_sigmask, uint64_t, sigmask_size)
{
    uint64_t timeout_ns = UINT64_MAX;
    if (user_timeout) {
        struct linux_timespec timeout;
        if (copy_from_user(&timeout, user_timeout, sizeof(timeout)) < 0)
            return -EFAULT;
        int64_t ns = ns_of_timespec(&timeout);     /* at most a century */
        if (ns < 0)
            return -EINVAL;
        timeout_ns = (uint64_t)ns;
    }
    if (user_sigmask) {
        int error = signal_mask_for_wait(user_sigmask, sigmask_size);
        if (error)
            return error;
    }
    uint64_t started = clock_now();
    long result = poll_user_array(user_fds, count, timeout_ns);
    if (user_sigmask)
        signal_mask_after_wait(result);
    if (user_timeout && timeout_ns) {
        struct linux_timespec left = timespec_of(poll_time_left(started, timeout_ns));
        (void)copy_to_user(user_timeout, &left, sizeof(left));     /* a read-only timeout is no error (Linux) */
    }
    return result;
}
