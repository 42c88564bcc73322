/* Inter-processor interrupts with names, and remote function calls. */
#ifndef KERNEL_IPI_H
#define KERNEL_IPI_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/base/spinlock.h"

enum ipi_type {
    IPI_RESCHEDULE,             /* "look at your runqueue" */
    IPI_CALL_FUNCTION,          /* run the queued function calls */
    IPI_NOHZ_KICK,              /* "restart your tick" */
    IPI_TLB_SHOOTDOWN,          /* "flush your TLB" (kernel/mm/tlb.c) */
    IPI_TYPE_COUNT,
};

typedef void (*call_function_fn)(void *arg);

struct call_request {
    call_function_fn function;
    void *arg;
    struct call_request *next;
    volatile bool done;
    bool free_when_done;        /* asynchronous: the target frees it */
};

/* One per CPU (a per-CPU variable of kernel/irq/ipi.c): the calls waiting for it. */
struct call_queue {
    struct call_request *head, *tail;
    struct spinlock lock;
};

void ipi_init(void);
/* why: the sender's reason in one word with static storage ("signal",
 * "wakeup", a tick dependency's name); the target's interrupt is
 * accounted to it (kernel/irq/irq_cause.h, /proc/interrupt_causes). */
void ipi_send(unsigned cpu, enum ipi_type type, const char *why);
/* From an IPI's handler (the tick's NHZ handler too): account this
 * interrupt to the sends that caused it. */
void ipi_take_cause(enum ipi_type type);
int smp_call_function_single(unsigned cpu, call_function_fn function, void *arg, bool wait);

#endif
