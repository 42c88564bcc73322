/* The system calls that read the clocks: clock_gettime, clock_getres,
 * gettimeofday. There is no wall clock: every clock counts from boot.
 * They read the clock the vDSO reads (kernel/time/vdso_clock.c), so the
 * two agree; a program usually gets its answer from the vDSO without a
 * system call. The interval timers are in kernel/time/itimer.c;
 * the sleeps, which signals end, in kernel/time/sleep.c. */
#include "kernel/entry/syscall.h"
#include "kernel/lib/errno.h"
#include "kernel/lib/linux_abi.h"
#include "kernel/mm/uaccess.h"
#include "kernel/time/vdso_clock.h"

#define CLOCK_ID_MAX 11     /* CLOCK_REALTIME .. CLOCK_TAI */
#define CLOCK_SGI_CYCLE 10  /* a number Linux keeps unused */
#define CLOCK_REALTIME_COARSE 5
#define CLOCK_MONOTONIC_COARSE 6
#define CLOCK_TAI 11        /* TAI: boot time too (no leap seconds to add) */

/* A clockid_t is an int: a negative id (a CPU clock of a pid, left out)
 * is out of range. */
SYSCALL_DEFINE2(clock_gettime, int, clock, void *, user_time)
{
    if ((clock < 0 || clock > 7) && clock != CLOCK_TAI)
        return -EINVAL;
    /* every clock is "since boot" here */
    uint64_t now = vdso_clock_ns(clock == CLOCK_REALTIME_COARSE || clock == CLOCK_MONOTONIC_COARSE);
    struct linux_timespec time = timespec_of(now);
    return copy_to_user(user_time, &time, sizeof(time));
}

SYSCALL_DEFINE2(clock_getres, int, clock, void *, user_resolution)
{
    struct linux_timespec resolution = { 0, 1 };
    if (clock < 0 || clock > CLOCK_ID_MAX || clock == CLOCK_SGI_CYCLE)
        return -EINVAL;
    if (user_resolution && copy_to_user(user_resolution, &resolution, sizeof(resolution)) < 0)
        return -EFAULT;
    return 0;
}

/* The time of day is the time since boot. */
SYSCALL_DEFINE2(gettimeofday, void *, user_time, void *, user_zone)
{
    struct linux_timeval now = timeval_of(vdso_clock_ns(false));
    int32_t zone[2] = { 0, 0 };
    if (user_time && copy_to_user(user_time, &now, sizeof(now)) < 0)
        return -EFAULT;
    if (user_zone && copy_to_user(user_zone, zone, sizeof(zone)) < 0)
        return -EFAULT;
    return 0;
}
