/* clone and clone3 (kernel/process/clone.c). */
#ifndef KERNEL_PROCESS_CLONE_H
#define KERNEL_PROCESS_CLONE_H

#include <stdint.h>

struct clone_request {
    uint64_t flags;
    uint64_t stack;             /* the new stack pointer, 0: the caller's */
    uint64_t parent_tid, child_tid, tls;
};

/* Checks the flags (Linux's errno) and makes the thread or process: its
 * tid or pid, or a negative errno. */
long clone_run(const struct clone_request *request);

#endif
