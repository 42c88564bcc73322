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
 * Left out: ppoll's signal mask (ignored), and select/pselect (ENOSYS;
 * musl and busybox use poll). */
#include "kernel/poll.h"

#include "kernel/errno.h"
#include "kernel/linux_abi.h"
#include "kernel/process.h"
#include "kernel/signal.h"
#include "kernel/timers.h"
#include "kernel/uaccess.h"
#include "kernel/vfs.h"
#include "arch/x86/clock.h"
#include "sched/task.h"
#include "sched/wait.h"

#define POLL_MAX 64                 /* descriptors in one call (Linux: RLIMIT_NOFILE) */
#define RECHECK_NS 1000000ul        /* for files that cannot notify */
#define NS_PER_MS 1000000ul

struct linux_pollfd {
    int fd;
    int16_t events, revents;
};

static struct wait_queue poll_queue = { SPINLOCK_INIT("poll"), 0 };

void poll_notify(void)
{
    wake_up_all(&poll_queue);
}

/* One pass over the descriptors: revents filled, the number ready
 * returned; *recheck set if a file cannot notify. POLLHUP, POLLERR and
 * POLLNVAL are reported whether asked for or not, as on Linux. */
static long poll_scan(struct linux_pollfd *fds, uint64_t count, bool *recheck)
{
    long ready = 0;
    for (uint64_t i = 0; i < count; i++) {
        fds[i].revents = 0;
        if (fds[i].fd < 0)
            continue;       /* ignored, as Linux does */
        struct file *file = fd_get(current_process()->files, fds[i].fd);
        if (!file) {
            fds[i].revents = POLLNVAL;
            ready++;
            continue;
        }
        unsigned mask = file->ops->poll ? file->ops->poll(file) : POLLIN | POLLOUT;
        vfs_close(file);
        if (mask & POLL_RECHECK)
            *recheck = true;
        fds[i].revents = (int16_t)(mask & ((unsigned)fds[i].events | POLLHUP | POLLERR) & ~POLL_RECHECK);
        ready += fds[i].revents != 0;
    }
    return ready;
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

/* timeout_ns: 0 looks once, UINT64_MAX waits for ever. */
static long do_poll(void *user_fds, uint64_t count, uint64_t timeout_ns)
{
    struct linux_pollfd fds[POLL_MAX];
    if (count > POLL_MAX)
        return -EINVAL;
    if (count && copy_from_user(fds, user_fds, count * sizeof(fds[0])) < 0)
        return -EFAULT;

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
        result = poll_scan(fds, count, &recheck);
        if (result || timeout_ns == 0 || __atomic_load_n(&deadline.expired, __ATOMIC_SEQ_CST)) {
            wait_finish(&poll_queue, &entry);
            break;
        }
        if (signal_pending()) {
            wait_finish(&poll_queue, &entry);
            result = -EINTR;    /* poll is never restarted after a handler (Linux) */
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
    if (result >= 0 && count && copy_to_user(user_fds, fds, count * sizeof(fds[0])) < 0)
        return -EFAULT;
    return result;
}

long sys_poll(void *user_fds, uint64_t count, int timeout_ms)
{
    uint64_t timeout_ns = timeout_ms < 0 ? UINT64_MAX : (uint64_t)timeout_ms * NS_PER_MS;
    return do_poll(user_fds, count, timeout_ns);
}

long sys_ppoll(void *user_fds, uint64_t count, const void *user_timeout, const void *user_sigmask)
{
    (void)user_sigmask;     /* left out: see the top */
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
    return do_poll(user_fds, count, timeout_ns);
}
