/* Per-CPU software timers: call a function at a deadline (clock_now() time,
 * ns), on one CPU. Each CPU keeps its pending timers sorted by deadline;
 * the earliest one, with the next tick, decides when its timer interrupt
 * comes (kernel/time/tick.c). A timer never fires before its deadline.
 *
 * Pinned timers fire on the CPU that started them. Unpinned ones go to a
 * housekeeping CPU (kernel/time/housekeeping.h), so that CPUs reserved for
 * undisturbed work are not interrupted for someone else's timeout. */
#ifndef KERNEL_TIMERS_H
#define KERNEL_TIMERS_H

#include <stdbool.h>
#include <stdint.h>


struct timer;
typedef void (*timer_fn)(struct timer *timer);

struct timer {
    uint64_t deadline;
    timer_fn function;          /* runs in interrupt context on timer->cpu */
    void *data;
    struct timer *next;
    unsigned cpu;
    bool pending;
};

void timer_init(struct timer *timer, timer_fn function, void *data);
/* Start (or restart) the timer; returns the CPU it will fire on. */
unsigned timer_start(struct timer *timer, uint64_t deadline, bool pinned);
bool timer_cancel(struct timer *timer);      /* true if it was pending */
/* Cancel, and wait until its function is no longer running on any CPU,
 * so that what it uses may be freed. The caller has first made sure that
 * the function will not restart it. Never from the timer's own function. */
void timer_cancel_sync(struct timer *timer);
void timers_init_this_cpu(void);
void timers_run_expired(uint64_t now);       /* from the timer interrupt */
uint64_t timers_next_deadline(void);         /* this CPU's earliest, or UINT64_MAX */
/* The timers' question to this CPU's tick: one is due within a period, so
 * stopping the tick would save nothing. */
bool timers_need_tick(uint64_t now);

/* idle=poll (sched/idle_poll.c): while this CPU idles it reads the clock
 * for its own timers (kernel/time/tick.c: tick_poll_timers), and they arm
 * no timer interrupt; a CPU that starts one there sends no IPI. */
void timers_poll_begin(void);                /* interrupts off */
void timers_poll_end(void);                  /* interrupts off; the hardware takes over */
bool timers_polled_on(unsigned cpu);         /* after a full fence */
uint64_t timers_hardware_deadline(void);     /* this CPU's earliest, or UINT64_MAX while polled */

/* Sleep for at least ns (the calling task; not from interrupts). */
void sleep_ns(uint64_t ns);
/* The same, but also woken early when interrupted() (checked after each
 * wakeup) says so: returns the time left then, 0 if it slept it all. */
uint64_t sleep_ns_interruptible(uint64_t ns, bool (*interrupted)(void));

#endif
