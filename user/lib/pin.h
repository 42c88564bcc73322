/* CPU sets sized for the CPU: musl's cpu_set_t holds 128 CPUs and glibc's
 * 1024, so a fixed cpu_set_t cannot name CPU 200 under musl (CPU_SET does
 * nothing and the affinity comes out empty). CPU_ALLOC sets hold any. */
#ifndef USER_LIB_PIN_H
#define USER_LIB_PIN_H

#include <errno.h>
#include <sched.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

/* The affinity of pid (0: the caller) becomes CPUs first..last. 0, or -1
 * with errno. */
static inline int set_affinity_range(pid_t pid, int first, int last)
{
    if (first < 0 || last < first) {
        errno = EINVAL;
        return -1;
    }
    cpu_set_t *set = CPU_ALLOC(last + 1);
    if (!set)
        return -1;
    size_t size = CPU_ALLOC_SIZE(last + 1);
    CPU_ZERO_S(size, set);
    for (int cpu = first; cpu <= last; cpu++)
        CPU_SET_S(cpu, size, set);
    int result = sched_setaffinity(pid, size, set), error = errno;
    CPU_FREE(set);
    errno = error;
    return result;
}

static inline int pin_to_cpu(pid_t pid, int cpu)
{
    return set_affinity_range(pid, cpu, cpu);
}

/* The CPU the caller runs on (getcpu), or -1. */
static inline int cpu_now(void)
{
    unsigned cpu = 0;
    return syscall(SYS_getcpu, &cpu, NULL, NULL) == 0 ? (int)cpu : -1;
}

/* The caller pinned to cpu and running there: 0; -1 (errno) if the pin
 * failed; -2 if it still runs elsewhere after one yield. */
static inline int move_to_cpu(int cpu)
{
    if (pin_to_cpu(0, cpu) != 0)
        return -1;
    if (cpu_now() != cpu)
        sched_yield();                  /* let the migration happen */
    return cpu_now() == cpu ? 0 : -2;
}

#endif
