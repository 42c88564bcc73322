/* Context tracking: the one pair of hooks every crossing between user and
 * kernel mode goes through (system calls, exceptions and interrupts from
 * ring 3). They count crossings and remember which side each CPU is
 * on; the nohz model hooks RCU's extended quiescent state and tick-less
 * time accounting here (docs/architecture.md, section 3). */
#ifndef KERNEL_CONTEXT_TRACKING_H
#define KERNEL_CONTEXT_TRACKING_H

#include <stdbool.h>
#include <stdint.h>

void context_user_exit(void);       /* entered the kernel from ring 3 */
void context_user_enter(void);      /* about to return to ring 3 */
bool context_cpu_in_user(unsigned cpu);
uint64_t context_user_exits(unsigned cpu);
uint64_t context_user_ns(unsigned cpu);     /* cpu's time in user mode, closed stretches */

/* The clock of user and system time: the TSC in ns, calibrated at boot
 * against the clocksource (context_tracking.c). Stretches are measured
 * with context_clock_since(), which never goes below 0. */
void context_clock_calibrate(void);
uint64_t context_clock_ns(void);
bool context_clock_is_tsc(void);    /* false: context_clock_ns() is clock_now() */
uint64_t context_clock_since(uint64_t now, uint64_t since);

#endif
