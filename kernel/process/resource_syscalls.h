/* Resource system calls (kernel/process/resource_syscalls.c). */
#ifndef KERNEL_RESOURCE_SYSCALLS_H
#define KERNEL_RESOURCE_SYSCALLS_H

#include <stdint.h>

long sys_getrusage(int64_t who, void *user_usage);
long sys_times(void *user_buffer);
long sys_sysinfo(void *user_info);
long sys_prlimit64(int64_t pid, uint64_t resource, const void *user_new, void *user_old);
long sys_getrlimit(uint64_t resource, void *user_limit);
long sys_setrlimit(uint64_t resource, const void *user_limit);
long sys_getcpu(unsigned *user_cpu, unsigned *user_node, void *cache);

#endif
