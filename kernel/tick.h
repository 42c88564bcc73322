/* The per-CPU periodic tick, made of one-shot timer interrupts. */
#ifndef KERNEL_TICK_H
#define KERNEL_TICK_H

#include <stdbool.h>
#include <stdint.h>

struct tick_state {
    bool running;               /* a tick deadline is programmed */
    uint64_t next_deadline;     /* clock_now() time of the next tick, ns */
    uint64_t ticks;             /* tick handler runs that did tick work */
    uint64_t missed;            /* periods skipped because we ran late */
    uint64_t early;             /* interrupts before the tick's deadline (timers, range) */
};

extern unsigned tick_hz;              /* hz= */
extern uint64_t tick_period_ns;
extern volatile uint64_t jiffies;     /* advanced by the timekeeper CPU */
extern volatile unsigned timekeeper_cpu;

void tick_init(void);                 /* once, on the boot CPU */
void tick_start_this_cpu(void);       /* each CPU, when it comes online */
void tick_program_hardware(void);     /* next interrupt: tick or timer, whichever is first */

#endif
