/* select and pselect6: poll's wait (kernel/fs/poll.c) over three bitmaps of
 * descriptors, as Linux x86-64 provides them (docs/user-space.md, "poll").
 *
 * Each descriptor named in any of the sets becomes one pollfd; what the
 * wait reports is folded back into the sets as Linux's fs/select.c does:
 * readable is POLLIN, POLLHUP or POLLERR; writable is POLLOUT or POLLERR;
 * "exceptional" is POLLPRI. The result counts set bits, so a descriptor
 * both readable and writable counts twice. A descriptor that is not open
 * fails the whole call with EBADF before any waiting.
 *
 * The sets cover at most SELECT_MAX (FD_SETSIZE, 1024) descriptors: a
 * larger count is cut to it, where Linux cuts it to the size of the
 * process's descriptor table (left out: a descriptor above 1023 cannot be
 * selected; poll can). */
#include "kernel/entry/syscall.h"
#include "kernel/lib/errno.h"
#include "kernel/mm/heap.h"
#include "kernel/lib/linux_abi.h"
#include "kernel/fs/poll.h"
#include "kernel/process/process.h"
#include "kernel/process/signal.h"
#include "kernel/lib/string.h"
#include "kernel/mm/uaccess.h"
#include "kernel/fs/vfs.h"
#include "arch/x86/clock.h"

#define SELECT_MAX 1024             /* FD_SETSIZE: what the C libraries' fd_set holds */
#define SET_WORDS (SELECT_MAX / 64)

#define READABLE (POLLIN | POLLHUP | POLLERR)
#define WRITABLE (POLLOUT | POLLERR)
#define EXCEPTIONAL POLLPRI

enum { IN, OUT, EXCEPT, SETS };

struct fd_sets {
    uint64_t *user[SETS];           /* each may be NULL */
    uint64_t bits[SETS][SET_WORDS];
};

static bool is_set(const uint64_t *set, int fd)
{
    return set[fd / 64] >> (fd % 64) & 1;
}

static uint64_t set_bytes(int count)
{
    return (uint64_t)(count + 63) / 64 * sizeof(uint64_t);
}

/* Copy the sets in, keeping only the first count bits. */
static int sets_copy_in(struct fd_sets *sets, int count)
{
    memset(sets->bits, 0, sizeof(sets->bits));
    for (int set = 0; set < SETS; set++) {
        if (sets->user[set] && copy_from_user(sets->bits[set], sets->user[set], set_bytes(count)) < 0)
            return -EFAULT;
        if (count % 64)
            sets->bits[set][count / 64] &= (1ul << (count % 64)) - 1;
    }
    return 0;
}

/* One pollfd per descriptor named in a set; their number, or -EBADF. */
static long sets_to_pollfds(const struct fd_sets *sets, int count, struct linux_pollfd *fds)
{
    long used = 0;
    for (int fd = 0; fd < count; fd++) {
        short events = (short)((is_set(sets->bits[IN], fd) ? READABLE : 0) |
                               (is_set(sets->bits[OUT], fd) ? WRITABLE : 0) |
                               (is_set(sets->bits[EXCEPT], fd) ? EXCEPTIONAL : 0));
        if (!events)
            continue;
        struct file *file = fd_get(current_process()->files, fd);
        if (!file)
            return -EBADF;
        vfs_close(file);
        fds[used++] = (struct linux_pollfd){ .fd = fd, .events = events };
    }
    return used;
}

/* The sets become the ready descriptors; the number of bits set. */
static long sets_from_pollfds(struct fd_sets *sets, const struct linux_pollfd *fds, long used)
{
    static const unsigned wanted[SETS] = { [IN] = READABLE, [OUT] = WRITABLE, [EXCEPT] = EXCEPTIONAL };
    struct fd_sets asked = *sets;
    long ready = 0;

    memset(sets->bits, 0, sizeof(sets->bits));
    for (long i = 0; i < used; i++) {
        int fd = fds[i].fd;
        for (int set = 0; set < SETS; set++) {
            if (is_set(asked.bits[set], fd) && ((unsigned)(uint16_t)fds[i].revents & wanted[set])) {
                sets->bits[set][fd / 64] |= 1ul << (fd % 64);
                ready++;
            }
        }
    }
    return ready;
}

static int sets_copy_out(const struct fd_sets *sets, int count)
{
    for (int set = 0; set < SETS; set++)
        if (sets->user[set] && copy_to_user(sets->user[set], sets->bits[set], set_bytes(count)) < 0)
            return -EFAULT;
    return 0;
}

/* The sets in, the wait, the sets out. The sets are left as they were if
 * the wait fails (EBADF, EINTR), as on Linux. */
static long select_wait(int count, struct fd_sets *sets, uint64_t timeout_ns)
{
    if (count < 0)
        return -EINVAL;
    if (count > SELECT_MAX)
        count = SELECT_MAX;
    int error = sets_copy_in(sets, count);
    if (error)
        return error;
    struct linux_pollfd *fds = kmalloc(SELECT_MAX * sizeof(*fds));
    if (!fds)
        return -ENOMEM;
    long used = sets_to_pollfds(sets, count, fds);
    long result = used < 0 ? used : poll_wait(fds, (uint64_t)used, 0, timeout_ns);
    if (result >= 0) {
        result = sets_from_pollfds(sets, fds, used);
        if (sets_copy_out(sets, count) < 0)
            result = -EFAULT;
    }
    kfree(fds);
    return result;
}

/* Linux writes back the time not slept (for select, a documented Linux
 * habit; libcs hide it for pselect). A zero timeout is left alone, and a
 * timeout in read-only memory is no error. */
static void write_back_time_left(void *user_timeout, bool is_timeval, uint64_t started, uint64_t timeout_ns)
{
    if (!user_timeout || timeout_ns == 0)
        return;
    uint64_t left = poll_time_left(started, timeout_ns);
    if (is_timeval) {
        struct linux_timeval value = timeval_of(left);
        (void)copy_to_user(user_timeout, &value, sizeof(value));
    } else {
        struct linux_timespec value = timespec_of(left);
        (void)copy_to_user(user_timeout, &value, sizeof(value));
    }
}

SYSCALL_DEFINE5(select, int, count, uint64_t *, user_read, uint64_t *, user_write, uint64_t *, user_except,
               void *, user_timeval)
{
    struct fd_sets sets = { .user = { user_read, user_write, user_except } };
    uint64_t timeout_ns = UINT64_MAX;
    if (user_timeval) {
        struct linux_timeval timeout;
        if (copy_from_user(&timeout, user_timeval, sizeof(timeout)) < 0)
            return -EFAULT;
        /* microseconds past a second carry over, as on Linux */
        struct linux_timespec as_timespec = { timeout.seconds, timeout.microseconds % 1000000 * 1000 };
        if (__builtin_add_overflow(timeout.seconds, timeout.microseconds / 1000000, &as_timespec.seconds))
            as_timespec.seconds = INT64_MAX;
        int64_t ns = ns_of_timespec(&as_timespec);
        if (ns < 0)
            return -EINVAL;
        timeout_ns = (uint64_t)ns;
    }
    uint64_t started = clock_now();
    long result = select_wait(count, &sets, timeout_ns);
    write_back_time_left(user_timeval, true, started, timeout_ns);
    return result;
}

/* pselect6's sixth argument: where the mask is and its size. */
struct sigmask_and_size {
    const uint64_t *mask;
    uint64_t size;
};

SYSCALL_DEFINE6(pselect6, int, count, uint64_t *, user_read, uint64_t *, user_write, uint64_t *, user_except,
               struct linux_timespec *, user_timeout, const void *, user_sigmask_and_size)
{
    struct fd_sets sets = { .user = { user_read, user_write, user_except } };
    uint64_t timeout_ns = UINT64_MAX;
    if (user_timeout) {
        struct linux_timespec timeout;
        if (copy_from_user(&timeout, user_timeout, sizeof(timeout)) < 0)
            return -EFAULT;
        int64_t ns = ns_of_timespec(&timeout);
        if (ns < 0)
            return -EINVAL;
        timeout_ns = (uint64_t)ns;
    }
    struct sigmask_and_size sigmask = { 0 };
    if (user_sigmask_and_size && copy_from_user(&sigmask, user_sigmask_and_size, sizeof(sigmask)) < 0)
        return -EFAULT;
    if (sigmask.mask) {
        int error = signal_mask_for_wait(sigmask.mask, sigmask.size);
        if (error)
            return error;
    }
    uint64_t started = clock_now();
    long result = select_wait(count, &sets, timeout_ns);
    if (sigmask.mask)
        signal_mask_after_wait(result);
    write_back_time_left(user_timeout, false, started, timeout_ns);
    return result;
}
