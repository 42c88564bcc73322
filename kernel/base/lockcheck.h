/* The lock check: a spinlock wait or an interrupts-off section that lasts
 * far too long is reported on the console instead of freezing the machine
 * silently (docs/reliability.md, section 4).
 *
 * - A CPU that waits for a lock longer than LOCKCHECK_REPORT_CYCLES prints
 *   the lock, its own backtrace, the owner CPU and where the owner took
 *   the lock, and asks the owner for its backtrace with an NMI. It keeps
 *   waiting; past LOCKCHECK_PANIC_CYCLES it panics. One report per lock.
 * - A lock that turned interrupts off and, at its release, had kept them
 *   off longer than LOCKCHECK_REPORT_CYCLES is reported with the place it
 *   was taken and a backtrace of its release. One report per CPU.
 *
 * Bounds are in cycles of the local TSC: they measure a wait on one CPU,
 * and count the time a vCPU's thread is not run by the host, so they are
 * far above anything a loaded host causes. Once the clocksource watchdog
 * has marked the TSC unstable (kernel/time/tsc_watchdog.h, which sits above:
 * kernel/init registers the question with lockcheck_set_tsc_trusted()), a wait counts
 * LOCKCHECK_CYCLES_PER_SPIN per spin instead, and interrupts-off sections
 * are not measured. Reports are written with printk_unlocked(): the lock
 * that is stuck may be the console's. */
#ifndef KERNEL_LOCKCHECK_H
#define KERNEL_LOCKCHECK_H

#include <stdbool.h>
#include <stdint.h>

struct spinlock;
struct trap_frame;

#define LOCKCHECK_REPORT_CYCLES (1ul << 34)     /* 8 s at 2 GHz */
#define LOCKCHECK_PANIC_CYCLES (1ul << 36)      /* 34 s at 2 GHz */
#define LOCKCHECK_CYCLES_PER_SPIN 64            /* less than one spin takes: a later report, never an early one */
#define LOCKCHECK_SPINS_PER_CHECK 64            /* a wait reads the TSC this often */

struct lock_wait {
    uint64_t start;             /* TSC when the wait began */
    uint64_t spins;
    bool reported;
};

struct lockcheck_counts {
    uint64_t wait_reports;      /* waits reported */
    uint64_t irqs_off_reports;  /* interrupts-off sections reported */
    uint64_t nmi_backtraces;    /* backtraces printed by an owner at a lockcheck NMI */
};

void lockcheck_wait_begin(struct lock_wait *wait);
void lockcheck_wait_check(struct lock_wait *wait, struct spinlock *lock);

/* Called by every spin of a waiter; checks the time now and then. */
static inline void lockcheck_wait_spin(struct lock_wait *wait, struct spinlock *lock)
{
    if (++wait->spins % LOCKCHECK_SPINS_PER_CHECK == 0)
        lockcheck_wait_check(wait, lock);
}

/* A lock turned interrupts off (since: the TSC when it did) / is about to
 * turn them back on. Called with interrupts off. */
void lockcheck_irqs_off(const struct spinlock *lock, uint64_t since);
void lockcheck_irqs_on(const struct spinlock *lock);

/* The NMI handler's question: was this NMI a request for a backtrace?
 * If so, the backtrace is printed and the answer is true. */
bool lockcheck_answer_nmi(const struct trap_frame *frame);

void lockcheck_read_counts(struct lockcheck_counts *out);

/* Whether TSC cycles still measure time; until set, they do. */
void lockcheck_set_tsc_trusted(bool (*trusted)(void));

/* The bounds in force (LOCKCHECK_REPORT_CYCLES and LOCKCHECK_PANIC_CYCLES
 * unless set). A test sets shorter ones to see a report in a fraction of a
 * second (ktest=lockcheck_quick), then 0, 0 for the defaults again. */
void lockcheck_set_bounds(uint64_t report, uint64_t panic);
uint64_t lockcheck_report_cycles(void);
uint64_t lockcheck_panic_cycles(void);

#endif
