/* The sleeps (kernel/process/sleep_syscalls.c). */
#ifndef KERNEL_SLEEP_SYSCALLS_H
#define KERNEL_SLEEP_SYSCALLS_H

#include <stdint.h>

long sys_clock_nanosleep(uint64_t clock, uint64_t flags, const void *user_request, void *user_remaining);
long sys_nanosleep(const void *user_request, void *user_remaining);

#endif
