/* Process system calls (kernel/process/process_syscalls.c). */
#ifndef KERNEL_PROCESS_SYSCALLS_H
#define KERNEL_PROCESS_SYSCALLS_H

#include <stdbool.h>
#include <stdint.h>

long sys_brk(uint64_t address);
long sys_mlockall(int flags);
long sys_munlockall(void);
long sys_mmap(uint64_t address, uint64_t length, uint64_t prot, uint64_t flags, int64_t fd, uint64_t offset);
long sys_munmap(uint64_t address, uint64_t length);
long sys_mprotect(uint64_t address, uint64_t length, uint64_t prot);
long sys_fork(void);
long sys_vfork(void);                    /* the parent sleeps until the child execs or exits */
/* A fork (or, share_memory, a vfork) returning on child_stack (0: ours):
 * the child's pid or -ENOMEM (kernel/process/clone.c uses it). */
long fork_onto(uint64_t child_stack, bool share_memory);
long sys_execve(const char *user_path, const char *const *user_argv, const char *const *user_envp);
long sys_exit(int code) __attribute__((noreturn));      /* this thread */
long sys_wait4(int64_t pid, int *user_status, uint64_t options, void *user_rusage);
long sys_set_tid_address(uint64_t address);
long sys_arch_prctl(uint64_t code, uint64_t address);
long sys_sched_getaffinity(int64_t pid, uint64_t size, void *user_mask);
long sys_sched_setaffinity(int64_t pid, uint64_t size, const void *user_mask);
long sys_umask(uint32_t mask);
long sys_setpgid(int64_t pid, int64_t group);
long sys_setsid(void);
long sys_getpgrp(void);
long sys_getpgid(int64_t pid);
long sys_getsid(int64_t pid);
long sys_set_id_ignored(void);
long sys_get_id_root(void);

#endif
