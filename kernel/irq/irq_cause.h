/* Why each interrupt came (/proc/interrupt_causes, docs/noise.md
 * "Every interrupt has a cause").
 *
 * irq_dispatch() starts every interrupt with no cause and accounts it,
 * after its handler, to the cause the handler named with irq_cause_set():
 * the CPU that sent it (an IPI) and why, in a word the sender chose ("signal",
 * "wakeup", "tick", the name of a timer's or a remote call's function). So
 * the causes of a CPU add up to its /proc/interrupts counts: an interrupt
 * whose handler named nothing is accounted as "unattributed". */
#ifndef KERNEL_IRQ_CAUSE_H
#define KERNEL_IRQ_CAUSE_H

#include <stdint.h>

#include "kernel/irq/irq.h"

#define IRQ_CAUSE_NO_SENDER 0xffffu      /* not an IPI: a timer, a device */

/* From a handler, on the interrupted CPU: why this interrupt came.
 * why: a string with static storage. */
void irq_cause_set(unsigned sender, const char *why);
/* From a handler: count sends that this one interrupt answered besides its
 * own (an IPI the APIC merged with one still pending); negative when a
 * later interrupt turns out to be one of them after all. */
void irq_cause_merged(enum irq_source source, int count);

/* Interrupts cpu accounted to (source, sender, why) since boot; sends of
 * source merged into another send's interrupt there. */
uint64_t irq_cause_count(unsigned cpu, enum irq_source source, unsigned sender, const char *why);
int64_t irq_cause_merged_count(unsigned cpu, enum irq_source source);

/* irq_dispatch(): before the handler, and after it (interrupts off). */
void irq_cause_begin(void);
void irq_cause_account(enum irq_source source);

#endif
