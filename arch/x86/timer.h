/* The whole interface between the tick code (kernel/time/tick.c) and the timer
 * hardware, in the spirit of seL4's timer HAL: read the clock, ask for one
 * interrupt at an absolute time, or for none. The interrupt itself arrives
 * on VECTOR_LOCAL_TIMER and is acknowledged by the interrupt path. */
#ifndef ARCH_X86_TIMER_H
#define ARCH_X86_TIMER_H

#include <stdint.h>

#include "arch/x86/clock.h"     /* clock_now() */

void timer_set_deadline(uint64_t deadline_ns);
void timer_stop(void);

#endif
