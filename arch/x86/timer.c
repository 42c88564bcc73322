/* See arch/x86/timer.h: this CPU's LAPIC timer behind three functions. */
#include "arch/x86/timer.h"

#include "arch/x86/lapic.h"

void timer_set_deadline(uint64_t deadline_ns)
{
    uint64_t now = clock_now();
    lapic_timer_arm_ns(deadline_ns > now ? deadline_ns - now : 0);
}

void timer_stop(void)
{
    lapic_timer_disarm();
}
