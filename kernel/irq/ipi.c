/* Named IPIs and remote function calls.
 *
 * smp_call_function_single() queues a request on the target CPU and sends
 * it the call-function IPI; the target runs every queued request from its
 * interrupt handler. With wait=false the caller does not wait, so it may
 * call with interrupts disabled: only waiting with interrupts off can
 * deadlock, when two CPUs wait for each other
 * (docs/nohz-task.md#patch-08-an-asynchronous-function-call-with-interrupts-off).
 * The request is then allocated here and freed by the target.
 *
 * One IPI is sent per request. The local APIC still merges an IPI with one
 * of the same vector that is pending and not yet taken, so the CAL count
 * equals the number of calls only when each is taken before the next is
 * sent (as in tests/kernel/ipi_test.c); the queue never loses a call.
 *
 * Every send names its reason, kept for the target until its handler takes
 * it (ipi_take_cause): the interrupt is accounted to the oldest send
 * waiting, the others are counted as merged into it. A send recorded just
 * before a running handler took the list still brings its own interrupt,
 * which then finds nothing: it is accounted to the last send counted as
 * merged, its own or one like it. The merged count only grows with each
 * take (a take that finds one send keeps it as it is: an interrupt whose
 * own send an earlier take counted may find the next send's record), so
 * no interrupt of a recorded send finds nothing to be accounted to. */
#include "kernel/irq/ipi.h"

#include "arch/x86/cpu.h"
#include "arch/x86/lapic.h"
#include "arch/x86/vectors.h"
#include "kernel/lib/errno.h"
#include "kernel/mm/heap.h"
#include "kernel/mm/tlb.h"
#include "kernel/irq/irq.h"
#include "kernel/irq/irq_cause.h"
#include "kernel/base/ksyms.h"
#include "kernel/base/panic.h"
#include "kernel/base/percpu.h"
#include "kernel/trace/trace.h"

/* The calls waiting for each CPU. */
static DEFINE_PER_CPU_SHARED_ALIGNED(struct call_queue, call_queues) = { .lock = SPINLOCK_INIT("call_queue") };

static const uint8_t ipi_vectors[] = {
    [IPI_RESCHEDULE] = VECTOR_RESCHEDULE,
    [IPI_CALL_FUNCTION] = VECTOR_CALL_FUNCTION,
    [IPI_NOHZ_KICK] = VECTOR_NOHZ_KICK,
    [IPI_TLB_SHOOTDOWN] = VECTOR_TLB_SHOOTDOWN,
};

static const enum irq_source ipi_sources[] = {
    [IPI_RESCHEDULE] = IRQ_SOURCE_RESCHEDULE,
    [IPI_CALL_FUNCTION] = IRQ_SOURCE_CALL_FUNCTION,
    [IPI_NOHZ_KICK] = IRQ_SOURCE_NOHZ_KICK,
    [IPI_TLB_SHOOTDOWN] = IRQ_SOURCE_TLB_SHOOTDOWN,
};

/* Sends not yet taken by the target's handler, by reason; the last slot
 * also takes what does not fit. */
#define PENDING_SENDS 8

struct pending_send {
    const char *why;
    unsigned sender;
    unsigned count;
};

struct pending_causes {
    struct spinlock lock;
    struct pending_send send[IPI_TYPE_COUNT][PENDING_SENDS];
    unsigned used[IPI_TYPE_COUNT];
    struct pending_send merged[IPI_TYPE_COUNT];     /* the last take's extra sends */
};

static DEFINE_PER_CPU(struct pending_causes, pending_causes) = { .lock = SPINLOCK_INIT("ipi_causes") };

static void note_send(unsigned cpu, enum ipi_type type, const char *why)
{
    struct pending_causes *pending = per_cpu_ptr(pending_causes, cpu);
    unsigned sender = this_cpu_id(), i;
    uint64_t flags = irq_save();
    spin_lock(&pending->lock);
    struct pending_send *sends = pending->send[type];
    for (i = 0; i < pending->used[type]; i++) {
        if (sends[i].why == why && sends[i].sender == sender)
            break;
    }
    if (i == pending->used[type] && i < PENDING_SENDS)
        sends[pending->used[type]++] = (struct pending_send){ .why = why, .sender = sender };
    sends[i < PENDING_SENDS ? i : PENDING_SENDS - 1].count++;
    spin_unlock(&pending->lock);
    irq_restore(flags);
}

void ipi_send(unsigned cpu, enum ipi_type type, const char *why)
{
    ASSERT(cpu < MAX_CPUS && cpus[cpu] && type < IPI_TYPE_COUNT);
    trace_ipi_send(type, cpu, why);
    note_send(cpu, type, why);
    lapic_send_ipi(cpus[cpu]->apic_id, ipi_vectors[type]);
}

void ipi_take_cause(enum ipi_type type)
{
    struct pending_causes *pending = this_cpu_ptr(pending_causes);
    struct pending_send *merged = &pending->merged[type];
    int merged_change = 0;
    spin_lock(&pending->lock);          /* interrupts are off in a handler */
    unsigned used = pending->used[type], extra = 0;
    if (used) {
        const struct pending_send *first = &pending->send[type][0];
        irq_cause_set(first->sender, first->why);
        for (unsigned i = 0; i < used; i++)
            extra += pending->send[type][i].count;
        extra--;
        if (extra) {            /* added to what earlier takes left: their interrupts may still come */
            merged->why = pending->send[type][used - 1].why;
            merged->sender = pending->send[type][used - 1].sender;
            merged->count += extra;
        }
        pending->used[type] = 0;
        merged_change = (int)extra;
    } else if (merged->count) {
        irq_cause_set(merged->sender, merged->why);
        merged->count--;
        merged_change = -1;
    }
    spin_unlock(&pending->lock);
    if (merged_change)
        irq_cause_merged(ipi_sources[type], merged_change);
}

static void handle_reschedule(struct trap_frame *frame)
{
    (void)frame;        /* the scheduler will look at its runqueue on the way out */
    trace_ipi_receive(IPI_RESCHEDULE);
    ipi_take_cause(IPI_RESCHEDULE);
}

static void handle_call_function(struct trap_frame *frame)
{
    struct call_queue *queue = this_cpu_ptr(call_queues);

    (void)frame;
    trace_ipi_receive(IPI_CALL_FUNCTION);
    ipi_take_cause(IPI_CALL_FUNCTION);
    spin_lock(&queue->lock);
    struct call_request *request = queue->head;
    queue->head = queue->tail = 0;
    spin_unlock(&queue->lock);

    while (request) {
        struct call_request *next = request->next;
        request->function(request->arg);
        if (request->free_when_done)
            kfree(request);
        else
            __atomic_store_n(&request->done, true, __ATOMIC_RELEASE);
        request = next;
    }
}

static void handle_tlb_shootdown(struct trap_frame *frame)
{
    (void)frame;
    trace_ipi_receive(IPI_TLB_SHOOTDOWN);
    ipi_take_cause(IPI_TLB_SHOOTDOWN);
    tlb_answer();
}

void ipi_init(void)
{
    irq_register(VECTOR_TLB_SHOOTDOWN, IRQ_SOURCE_TLB_SHOOTDOWN, handle_tlb_shootdown);
    irq_register(VECTOR_RESCHEDULE, IRQ_SOURCE_RESCHEDULE, handle_reschedule);
    irq_register(VECTOR_CALL_FUNCTION, IRQ_SOURCE_CALL_FUNCTION, handle_call_function);
    /* IPI_NOHZ_KICK's handler belongs to the tick (kernel/time/tick_stop.c). */
}

static void enqueue(unsigned cpu, struct call_request *request)
{
    struct call_queue *queue = per_cpu_ptr(call_queues, cpu);
    /* why: the function's name; read now, as the target may free the request */
    uint64_t offset;
    const char *name = ksyms_lookup((uint64_t)(uintptr_t)request->function, &offset);

    request->next = 0;
    spin_lock(&queue->lock);
    if (queue->tail)
        queue->tail->next = request;
    else
        queue->head = request;
    queue->tail = request;
    spin_unlock(&queue->lock);
    ipi_send(cpu, IPI_CALL_FUNCTION, name ? name : "function");
}

int smp_call_function_single(unsigned cpu, call_function_fn function, void *arg, bool wait)
{
    if (cpu >= MAX_CPUS || !cpumask_test(&cpu_online_mask, cpu) || !function)
        return -EINVAL;
    if (wait && !irqs_enabled())
        panic("smp_call_function_single: waiting with interrupts disabled can deadlock");

    if (cpu == this_cpu_id()) {
        uint64_t flags = irq_save();
        function(arg);
        irq_restore(flags);
        return 0;
    }
    if (!wait) {
        struct call_request *request = kzalloc(sizeof(*request));
        if (!request)
            return -ENOMEM;
        *request = (struct call_request){ .function = function, .arg = arg, .free_when_done = true };
        enqueue(cpu, request);
        return 0;
    }
    struct call_request request = { .function = function, .arg = arg };
    enqueue(cpu, &request);
    while (!__atomic_load_n(&request.done, __ATOMIC_ACQUIRE))
        cpu_relax();
    return 0;
}
