/* System calls: Linux x86-64 numbers, registers and errno values. */
#ifndef KERNEL_SYSCALL_H
#define KERNEL_SYSCALL_H

#include <stdbool.h>
#include <stdint.h>

struct trap_frame;

void syscall_dispatch(struct trap_frame *frame);
const char *syscall_name(uint64_t number);      /* NULL if nohzk does not know it */
extern bool syscall_trace;                      /* strace=1 */

#endif
