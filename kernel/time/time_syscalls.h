/* The system calls that read the clocks (kernel/time/time_syscalls.c). */
#ifndef KERNEL_TIME_SYSCALLS_H
#define KERNEL_TIME_SYSCALLS_H

#include <stdint.h>

long sys_clock_gettime(uint64_t clock, void *user_time);
long sys_clock_getres(uint64_t clock, void *user_resolution);
long sys_gettimeofday(void *user_time, void *user_zone);

#endif
