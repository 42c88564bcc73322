/* poll and ppoll (kernel/fs/poll.c), select and pselect6 (kernel/fs/select.c):
 * what a file says of its readiness, the call that wakes waiters when it
 * may have changed, and the wait all four share. */
#ifndef KERNEL_POLL_H
#define KERNEL_POLL_H

#include <stdint.h>

#define POLLIN   0x001
#define POLLPRI  0x002
#define POLLOUT  0x004
#define POLLERR  0x008
#define POLLHUP  0x010
#define POLLNVAL 0x020
/* Not Linux's: from file_ops.poll, "I cannot notify: look again soon". */
#define POLL_RECHECK 0x8000

/* Whatever may have made a file readier (data written, read, an end
 * closed, input arrived): every sleeping poller looks again. */
void poll_notify(void);

struct linux_pollfd {
    int fd;
    int16_t events, revents;
};

/* The wait behind poll, ppoll, select and pselect6, over a kernel array:
 * until a descriptor is ready (revents & (events | always_reported)), the
 * timeout passes (0: look once; UINT64_MAX: for ever) or a signal is
 * pending (-EINTR). Returns the number ready, revents filled. */
long poll_wait(struct linux_pollfd *fds, uint64_t count, unsigned always_reported, uint64_t timeout_ns);
/* What is left of timeout_ns after a wait that began at clock_now() == started. */
uint64_t poll_time_left(uint64_t started, uint64_t timeout_ns);

struct linux_timespec;

#endif
