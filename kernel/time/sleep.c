/* The sleeps: nanosleep and clock_nanosleep. The wait is a kernel timer
 * (kernel/time/timers.h: sleep_ns_interruptible); a signal ends it, and
 * what follows is the process's: EINTR for a handler, or a restart to the
 * same deadline (docs/signals.md). Every clock counts from boot. */
#include "kernel/entry/syscall.h"

#include "kernel/process/signal.h"

#include "arch/x86/clock.h"
#include "kernel/lib/errno.h"
#include "kernel/lib/linux_abi.h"
#include "kernel/mm/uaccess.h"
#include "kernel/process/process.h"
#include "kernel/time/vdso_clock.h"
#include "kernel/time/timers.h"

#define TIMER_ABSTIME 1

static long resume_sleep(struct restart_block *block);

/* A relative sleep counts on the clocksource; an absolute deadline is a
 * time of the clock programs read (kernel/time/vdso_clock.c), steered
 * toward the clocksource but a few microseconds off: the sleep goes on
 * until that clock has passed it. */
static uint64_t clock_of_deadline(bool relative)
{
    return relative ? clock_now() : vdso_clock_ns(false);
}

/* Sleep until deadline (a clock_now() time, or for an absolute sleep one of
 * clock_of_deadline()). A signal ends it early. If a
 * handler runs, the call returns EINTR (and, for a relative sleep, the
 * time left), as on Linux. If none does (a stop, then a continue), the
 * sleep goes on to the same deadline: an absolute one by a plain restart,
 * a relative one through restart_syscall and resume_sleep(), so that the
 * time already slept, or spent stopped, counts. */
static long sleep_until(uint64_t deadline, bool relative, void *user_remaining)
{
    uint64_t left;
    do {
        uint64_t now = clock_of_deadline(relative);
        left = sleep_ns_interruptible(deadline > now ? deadline - now : 0, signal_pending);
    } while (!left && clock_of_deadline(relative) < deadline);
    if (!left)
        return 0;
    if (!relative)
        return -ERESTARTNOHAND;
    struct linux_timespec remaining = timespec_of(left);
    if (user_remaining && copy_to_user(user_remaining, &remaining, sizeof(remaining)) < 0)
        return -EFAULT;
    current_thread()->restart =
        (struct restart_block){ .resume = resume_sleep, .deadline_ns = deadline, .user_remaining = user_remaining };
    return -ERESTART_RESTARTBLOCK;
}

static long resume_sleep(struct restart_block *block)
{
    return sleep_until(block->deadline_ns, true, block->user_remaining);
}

/* Linux's clocks and whether one can be slept on (its k_clock's nsleep):
 * a number that names no clock is EINVAL (a negative id, a CPU clock of
 * a pid, is left out: EINVAL too), one that cannot be slept on EOPNOTSUPP:
 * the thread's CPU clock, MONOTONIC_RAW and the coarse clocks, and the
 * alarm clocks, which need an RTC alarm nohzk does not drive (Linux
 * without an RTC says the same). REALTIME, MONOTONIC, BOOTTIME and TAI
 * all count from boot here; PROCESS_CPUTIME_ID sleeps as they do (Linux
 * waits for the process's CPU time: left out). */
enum { CLOCK_SLEEPS, CLOCK_CANNOT_SLEEP, CLOCK_UNKNOWN };

static int clock_kind(int clock)
{
    switch (clock) {
    case 0: case 1: case 2: case 7: case 11:       /* REALTIME, MONOTONIC, PROCESS_CPUTIME, BOOTTIME, TAI */
        return CLOCK_SLEEPS;
    case 3: case 4: case 5: case 6: case 8: case 9:
        return CLOCK_CANNOT_SLEEP;
    default:
        return CLOCK_UNKNOWN;
    }
}

/* Flag bits other than TIMER_ABSTIME are ignored, as Linux ignores them. */
SYSCALL_DEFINE4(clock_nanosleep, int, clock, uint64_t, flags, const void *, user_request, void *, user_remaining)
{
    struct linux_timespec request;
    int kind = clock_kind(clock);
    if (kind != CLOCK_SLEEPS)
        return kind == CLOCK_UNKNOWN ? -EINVAL : -EOPNOTSUPP;
    if (copy_from_user(&request, user_request, sizeof(request)) < 0)
        return -EFAULT;
    int64_t requested = ns_of_timespec(&request);     /* at most a century */
    if (requested < 0)
        return -EINVAL;
    if (flags & TIMER_ABSTIME)
        return sleep_until((uint64_t)requested, false, 0);     /* every clock is "since boot" here */
    return sleep_until(clock_now() + (uint64_t)requested, true, user_remaining);
}

SYSCALL_DEFINE2(nanosleep, const void *, user_request, void *, user_remaining)
{
    return sys_clock_nanosleep(0, 0, user_request, user_remaining);
}
