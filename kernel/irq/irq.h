/* Interrupt sources, their per-CPU counters (shown by /proc/interrupts),
 * and the one path every interrupt takes: irq_enter, handler, irq_exit. */
#ifndef KERNEL_IRQ_H
#define KERNEL_IRQ_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/x86/vectors.h"

enum irq_source {
    IRQ_SOURCE_LOCAL_TIMER,     /* LOC */
    IRQ_SOURCE_RESCHEDULE,      /* RES */
    IRQ_SOURCE_CALL_FUNCTION,   /* CAL */
    IRQ_SOURCE_NOHZ_KICK,       /* NHZ */
    IRQ_SOURCE_TLB_SHOOTDOWN,   /* TLB */
    IRQ_SOURCE_SPURIOUS,        /* SPU */
    IRQ_SOURCE_APIC_ERROR,      /* ERR */
    IRQ_SOURCE_DEVICE_FIRST,    /* device IRQs, by GSI */
    IRQ_SOURCE_COUNT = IRQ_SOURCE_DEVICE_FIRST + DEVICE_GSI_COUNT,
};

struct trap_frame;
typedef void (*irq_handler_fn)(struct trap_frame *frame);

void irq_init(void);            /* the handlers of the local APIC's own sources */
void irq_register(unsigned vector, enum irq_source source, irq_handler_fn handler);
/* Run on every interrupt's way out, after the EOI and before irq_exit():
 * the tick's decision, which kernel/time/tick.c registers at boot (the
 * tick sits above interrupts: the call goes down through this pointer).
 * from_user: the interrupt came from user mode. */
typedef void (*irq_exit_hook_fn)(bool from_user);
void irq_set_exit_hook(irq_exit_hook_fn hook);
void irq_dispatch(struct trap_frame *frame);
const char *irq_source_name(enum irq_source source);   /* "LOC", "RES", ... */
uint64_t irq_count(unsigned cpu, enum irq_source source);
bool in_interrupt(void);

#endif
