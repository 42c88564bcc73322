/* The thread group's own system call: exit_group, which ends every
 * thread of the process (process_exit(), docs/threads.md). exit(2), one
 * thread's end, is thread_exit(); gettid and set_tid_address name the
 * calling thread (kernel/process/process_syscalls.c). */
#include "kernel/entry/syscall.h"
#include "kernel/process/process.h"

SYSCALL_DEFINE1(exit_group, int, code)
{
    process_exit(WAIT_STATUS_EXITED(code));
}
