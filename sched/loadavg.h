/* The load average (sched/loadavg.c): Linux's three damped averages of the
 * runnable tasks over 1, 5 and 15 minutes. */
#ifndef SCHED_LOADAVG_H
#define SCHED_LOADAVG_H

#include <stdint.h>

#define LOADAVG_SHIFT 11                    /* fixed point: 11 bits of fraction, as Linux's FSHIFT */
#define LOADAVG_ONE   (1ul << LOADAVG_SHIFT)

void loadavg_tick(uint64_t now);            /* from sched_tick(), on any ticking CPU */
/* The sample itself, given the runnable tasks on this CPU and on all
 * (what loadavg_tick() reads; the host test test_loadavg gives them). */
void loadavg_update(uint64_t now, unsigned long here, unsigned long all);
void loadavg_get(unsigned long averages[3]);    /* fixed point, LOADAVG_ONE = 1.0 */

#endif
