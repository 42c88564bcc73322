/* Interval timers (setitimer, getitimer, alarm), and the one tick
 * dependency that belongs to a task.
 *
 * ITIMER_REAL counts wall-clock time, so it is an ordinary kernel timer
 * (kernel/time/timers.h): unpinned, it fires on a housekeeping CPU and costs the
 * process's own CPU nothing until the signal arrives.
 *
 * ITIMER_VIRTUAL and ITIMER_PROF count the process's CPU time, which
 * advances only while it runs. Nothing but a periodic look can notice that
 * it crossed a value, and that look is the tick of the CPU the task runs
 * on (itimer_tick). So while one of them is armed, the task carries the
 * `cputimer` tick dependency (kernel/time/tick_dep.c): its CPU keeps ticking
 * even when the task runs alone there as a nohz task, and stops again once
 * the timers are disarmed or expire. This is Linux's
 * TICK_DEP_BIT_POSIX_TIMER. The expiry is seen at the first tick after it,
 * so a signal comes up to one tick period late, never early.
 *
 * The timers are the process's, but the CPU time VIRTUAL and PROF count,
 * and the tick dependency, are those of the thread that set them (Linux
 * counts every thread's). Fork does not inherit the timers; exec
 * keeps them (as Linux). Left out: timer_create and the POSIX CPU clocks. */
#include "kernel/entry/syscall.h"
#include "kernel/time/itimer.h"

#include "arch/x86/clock.h"
#include "arch/x86/cpu.h"
#include "kernel/lib/errno.h"
#include "kernel/lib/linux_abi.h"
#include "kernel/process/process.h"
#include "kernel/time/tick.h"
#include "kernel/mm/uaccess.h"
#include "sched/task.h"

#define NS_PER_SECOND 1000000000ul
#define NS_PER_MICROSECOND 1000ul
#define MAX_SECONDS (UINT64_MAX / NS_PER_SECOND / 4)    /* far beyond any run; no overflow */

static const int itimer_signals[ITIMER_COUNT] = { SIGALRM, SIGVTALRM, SIGPROF };

struct linux_itimerval {
    struct linux_timeval interval, value;
};

static void real_timer_fired(struct timer *timer);

void itimer_init(struct process *process)
{
    struct process_itimers *itimers = &process->itimers;
    *itimers = (struct process_itimers){ 0 };
    spin_lock_init(&itimers->lock, "itimers");
    timer_init(&itimers->real, real_timer_fired, process);
}

/* The function will not restart the timer once it is disarmed, so the
 * process may be freed after this. */
void itimer_exit(struct process *process)
{
    struct process_itimers *itimers = &process->itimers;
    spin_lock(&itimers->lock);
    for (int which = 0; which < ITIMER_COUNT; which++)
        itimers->timers[which] = (struct itimer){ 0 };
    spin_unlock(&itimers->lock);
    if (process->leader.task)
        tick_dep_clear_task(process->leader.task, TICK_KEEP_CPU_TIMER);
    timer_cancel_sync(&itimers->real);
}

/* ---- The CPU time a timer counts ---- */

static uint64_t cpu_time_of(struct task *task, int which)
{
    uint64_t user, system;
    task_times_ns(task, &user, &system);
    return which == ITIMER_VIRTUAL ? user : user + system;
}

static bool cpu_timers_armed(const struct process_itimers *itimers)
{
    return itimers->timers[ITIMER_VIRTUAL].expires || itimers->timers[ITIMER_PROF].expires;
}

/* The next expiry after now, for a timer that just expired. A reload
 * comes at least min_interval later: an ITIMER_REAL of 1 us would
 * otherwise keep a housekeeping CPU in its timer interrupt (Linux re-arms
 * it only when the signal is taken; we bound the rate instead). */
static void reload(struct itimer *itimer, uint64_t now, uint64_t min_interval)
{
    if (!itimer->interval) {
        itimer->expires = 0;
        return;
    }
    uint64_t interval = itimer->interval > min_interval ? itimer->interval : min_interval;
    itimer->expires += interval;
    if (itimer->expires <= now)         /* late by more than an interval: no burst of signals */
        itimer->expires = now + interval;
}

static void expire(struct process *process, int which)
{
    process->itimers.signals_sent[which]++;
    signal_send(process, itimer_signals[which], &(struct signal_origin){ .code = SI_KERNEL });
}

/* ---- ITIMER_REAL: a kernel timer ---- */

static void real_timer_fired(struct timer *timer)
{
    struct process *process = timer->data;
    struct process_itimers *itimers = &process->itimers;
    struct itimer *real = &itimers->timers[ITIMER_REAL];

    spin_lock(&itimers->lock);
    uint64_t now = clock_now();
    /* Disarmed meanwhile, or set again for later by a setitimer() that
     * held the lock while this function waited for it (that call started
     * the timer anew): nothing is due. */
    if (real->expires && real->expires <= now) {
        expire(process, ITIMER_REAL);
        reload(real, now, tick_period_ns);
        if (real->expires)
            timer_start(timer, real->expires, false);
    }
    spin_unlock(&itimers->lock);
}

/* ---- VIRTUAL and PROF: the tick ---- */

void itimer_tick(void)
{
    struct task *task = current_task();
    if (!(__atomic_load_n(&task->tick_dep_mask, __ATOMIC_ACQUIRE) & TICK_DEP(TICK_KEEP_CPU_TIMER)) ||
        !task->process)
        return;                 /* (a kernel thread has no interval timers, whatever its bits say) */
    struct process_itimers *itimers = &task->process->itimers;
    for (int which = ITIMER_VIRTUAL; which <= ITIMER_PROF; which++) {
        struct itimer *itimer = &itimers->timers[which];
        if (!itimer->expires)
            continue;
        uint64_t now = cpu_time_of(task, which);
        if (now >= itimer->expires) {
            expire(task->process, which);
            reload(itimer, now, 0);     /* the tick bounds the rate */
        }
    }
    if (!cpu_timers_armed(itimers))
        tick_dep_clear_task(task, TICK_KEEP_CPU_TIMER);
}

/* ---- The system calls ---- */

static uint64_t ns_of(const struct linux_timeval *time)
{
    return (uint64_t)time->seconds * NS_PER_SECOND + (uint64_t)time->microseconds * NS_PER_MICROSECOND;
}

static bool timeval_valid(const struct linux_timeval *time)
{
    return time->seconds >= 0 && (uint64_t)time->seconds <= MAX_SECONDS && time->microseconds >= 0 &&
           time->microseconds < 1000000;
}

/* What is left of a timer, for getitimer. An armed timer never reads as 0
 * (that would mean disarmed): what is under a microsecond rounds up. */
static struct linux_itimerval value_of(const struct itimer *itimer, uint64_t now)
{
    struct linux_itimerval value = { timeval_of(itimer->interval), { 0, 0 } };
    if (itimer->expires) {
        uint64_t left = itimer->expires > now ? itimer->expires - now : 0;
        value.value = timeval_of(left + NS_PER_MICROSECOND - 1);
    }
    return value;
}

static uint64_t now_for(struct task *task, int which)
{
    return which == ITIMER_REAL ? clock_now() : cpu_time_of(task, which);
}

/* Read and optionally replace one timer of the calling process. Interrupts
 * are off for the CPU-time timers (only this CPU's tick touches them), and
 * the lock is held for REAL (its function may run on any CPU). */
static void exchange(int which, const struct linux_itimerval *new, struct linux_itimerval *old)
{
    struct task *task = current_task();
    struct process_itimers *itimers = &task->process->itimers;
    struct itimer *itimer = &itimers->timers[which];

    spin_lock(&itimers->lock);
    uint64_t now = now_for(task, which);
    *old = value_of(itimer, now);
    if (new) {
        uint64_t value = ns_of(&new->value);
        *itimer = (struct itimer){ value ? now + value : 0, value ? ns_of(&new->interval) : 0 };
        if (which == ITIMER_REAL && itimer->expires)
            timer_start(&itimers->real, itimer->expires, false);
        else if (which == ITIMER_REAL)
            timer_cancel(&itimers->real);
        else if (cpu_timers_armed(itimers))
            tick_dep_set_task(task, TICK_KEEP_CPU_TIMER);     /* this CPU: rechecked on the way out */
        else
            tick_dep_clear_task(task, TICK_KEEP_CPU_TIMER);
    }
    spin_unlock(&itimers->lock);
}

SYSCALL_DEFINE3(setitimer, int, which, const void *, user_new, void *, user_old)
{
    struct linux_itimerval new = { 0 }, old;
    if (which < 0 || which >= ITIMER_COUNT)
        return -EINVAL;
    if (user_new && copy_from_user(&new, user_new, sizeof(new)) < 0)
        return -EFAULT;
    if (!timeval_valid(&new.value) || !timeval_valid(&new.interval))
        return -EINVAL;
    /* Check the old value's buffer before changing anything. */
    if (user_old && copy_to_user(user_old, &new, sizeof(new)) < 0)
        return -EFAULT;
    exchange((int)which, &new, &old);       /* Linux: a NULL new value disarms */
    if (user_old && copy_to_user(user_old, &old, sizeof(old)) < 0)
        return -EFAULT;
    return 0;
}

SYSCALL_DEFINE2(getitimer, int, which, void *, user_value)
{
    struct linux_itimerval value;
    if (which < 0 || which >= ITIMER_COUNT)
        return -EINVAL;
    exchange((int)which, 0, &value);
    return copy_to_user(user_value, &value, sizeof(value)) < 0 ? -EFAULT : 0;
}

/* alarm(2): seconds left of the previous alarm, rounded to the nearest
 * second but never 0 for one still pending (as Linux). */
SYSCALL_DEFINE1(alarm, unsigned int, seconds)     /* at most 2^32 - 1, below MAX_SECONDS */
{
    struct linux_itimerval new = { { 0, 0 }, { (int64_t)seconds, 0 } }, old;
    exchange(ITIMER_REAL, &new, &old);
    uint64_t left = (uint64_t)old.value.seconds + (old.value.microseconds >= 500000);
    return left == 0 && old.value.microseconds ? 1 : (long)left;
}
