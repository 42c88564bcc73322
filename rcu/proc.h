/* /proc/rcu and /proc/rcustress, for kernel/fs/procfs.c (see rcu/proc.c). */
#ifndef RCU_PROC_H
#define RCU_PROC_H

#include <stddef.h>

size_t rcu_proc_show(char *buffer, size_t size);
size_t rcu_stress_show(char *buffer, size_t size);
long rcu_stress_write(const char *data, size_t count);

#endif
