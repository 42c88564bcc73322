/* idle=poll: an idle CPU that polls instead of halting (sched/idle_poll.c,
 * docs/noise.md "Polling idle"). It watches need_resched, so a wake-up
 * onto it needs no reschedule IPI, and it expires its own timers by
 * reading the clock, so they need no timer interrupt. */
#ifndef SCHED_IDLE_POLL_H
#define SCHED_IDLE_POLL_H

#include <stdbool.h>

/* idle=: "halt" (the default), "poll" (every CPU) or "poll:LIST" (those
 * CPUs, e.g. poll:1-3); checked once the CPUs are up. */
void idle_poll_init(const char *value);
bool idle_poll_cpu(unsigned cpu);           /* idle=poll names this CPU */

/* This CPU's idle loop (sched/sched.c): begin before the idle decision
 * (true if it polls), wait with interrupts off on entry and exit, end
 * before it looks at need_resched again. */
bool idle_poll_begin(void);
void idle_poll_wait(void);
void idle_poll_end(void);

#endif
