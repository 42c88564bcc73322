/* poll and ppoll (kernel/poll.c): what a file says of its readiness, and
 * the call that wakes pollers when it may have changed. */
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

long sys_poll(void *user_fds, uint64_t count, int timeout_ms);
long sys_ppoll(void *user_fds, uint64_t count, const void *user_timeout, const void *user_sigmask);

#endif
