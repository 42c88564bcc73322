/* TLB shootdown: when a translation of an address space is removed or
 * weakened, every other CPU that may cache it flushes before the call
 * returns and before the page or table behind it is freed
 * (kernel/mm/tlb.c, docs/threads.md "The shootdown"). */
#ifndef KERNEL_MM_TLB_H
#define KERNEL_MM_TLB_H

#include "kernel/lib/cpumask.h"

/* Each CPU of targets but this one flushes its user translations; back
 * when all have. Callable with interrupts off: while it waits it answers
 * the requests others send it. */
void tlb_shootdown(const struct cpumask *targets, const char *why);    /* why: ipi_send's */
/* Answer a request sent to this CPU, if any: the IPI's handler, and every
 * wait that must not stop this CPU from answering. */
void tlb_answer(void);
uint64_t tlb_shootdowns_sent(void);     /* IPIs, since boot */

#endif
