/* Interrupt dispatch and per-CPU interrupt counters.
 *
 * Every interrupt takes the same path: count it against its source on this
 * CPU, irq_enter(), run the handler, account it to the cause the handler
 * named (kernel/irq/irq_cause.c), acknowledge the local APIC, irq_exit().
 * irq_enter/irq_exit tell RCU (an interrupt may arrive in an extended
 * quiescent state), and the exit hook, the tick's tick_nohz_irq_exit(),
 * decides the tick once, after the tick's work or when the interrupt may
 * have made a stopped tick necessary. */
#include "kernel/irq/irq.h"
#include "kernel/irq/irq_cause.h"

#include "arch/x86/lapic.h"
#include "arch/x86/trap.h"
#include "kernel/base/panic.h"
#include "kernel/base/percpu.h"
#include "kernel/base/printk.h"
#include "kernel/trace/trace.h"
#include "rcu/rcu.h"
#include "sched/task.h"
#include "arch/x86/cpu.h"

/* Interrupts each CPU handled, by source (/proc/interrupts, irq_count()). */
struct irq_counts {
    uint64_t count[IRQ_SOURCE_COUNT];
};

static DEFINE_PER_CPU(struct irq_counts, irq_counts);

struct irq_action {
    irq_handler_fn handler;
    enum irq_source source;
};

static struct irq_action actions[VECTOR_COUNT];
static irq_exit_hook_fn exit_hook;

static const char *const source_names[IRQ_SOURCE_DEVICE_FIRST] = {
    [IRQ_SOURCE_LOCAL_TIMER] = "LOC",   [IRQ_SOURCE_RESCHEDULE] = "RES",
    [IRQ_SOURCE_CALL_FUNCTION] = "CAL", [IRQ_SOURCE_NOHZ_KICK] = "NHZ",
    [IRQ_SOURCE_TLB_SHOOTDOWN] = "TLB",
    [IRQ_SOURCE_SPURIOUS] = "SPU",      [IRQ_SOURCE_APIC_ERROR] = "ERR",
};

const char *irq_source_name(enum irq_source source)
{
    return source < IRQ_SOURCE_DEVICE_FIRST ? source_names[source] : "device";
}

static void handle_apic_error(struct trap_frame *frame)
{
    (void)frame;
    printk("irq: cpu %u: local APIC error %#x\n", this_cpu_id(), lapic_read_error());
}

void irq_init(void)
{
    irq_register(VECTOR_APIC_ERROR, IRQ_SOURCE_APIC_ERROR, handle_apic_error);
}

void irq_register(unsigned vector, enum irq_source source, irq_handler_fn handler)
{
    ASSERT(vector >= VECTOR_EXCEPTION_COUNT && vector < VECTOR_COUNT);
    ASSERT(source < IRQ_SOURCE_COUNT);
    actions[vector].source = source;
    actions[vector].handler = handler;
}

void irq_set_exit_hook(irq_exit_hook_fn hook)
{
    exit_hook = hook;
}

uint64_t irq_count(unsigned cpu, enum irq_source source)
{
    return __atomic_load_n(&per_cpu_ptr(irq_counts, cpu)->count[source], __ATOMIC_RELAXED);
}

bool in_interrupt(void)
{
    return this_cpu()->irq_nesting > 0;
}

static void irq_enter(struct cpu *cpu)
{
    rcu_irq_enter();        /* the handler may use RCU, even if the CPU was idle */
    cpu->irq_nesting++;
}

static void irq_exit(struct cpu *cpu)
{
    cpu->irq_nesting--;
    rcu_irq_exit();
}

/* Interrupts the APIC must not be acknowledged for: its own spurious
 * vector, and the masked 8259's spurious IRQ 7 and 15. */
static bool is_spurious(unsigned vector)
{
    return vector == VECTOR_SPURIOUS ||
           (vector >= VECTOR_LEGACY_PIC_BASE && vector < VECTOR_LEGACY_PIC_BASE + 16);
}

void irq_dispatch(struct trap_frame *frame)
{
    struct cpu *cpu = this_cpu();
    unsigned vector = (unsigned)frame->vector;
    const struct irq_action *action = &actions[vector];

    irq_cause_begin();
    if (is_spurious(vector) || !action->handler) {
        this_cpu_ptr(irq_counts)->count[IRQ_SOURCE_SPURIOUS]++;
        irq_cause_set(IRQ_CAUSE_NO_SENDER, "spurious");
        irq_cause_account(IRQ_SOURCE_SPURIOUS);
        if (!is_spurious(vector))
            lapic_eoi();
        return;
    }
    this_cpu_ptr(irq_counts)->count[action->source]++;
    irq_enter(cpu);
    trace_irq_enter(vector);
    action->handler(frame);     /* names the cause (irq_cause_set) */
    irq_cause_account(action->source);
    lapic_eoi();
    trace_irq_exit(vector);
    /* The tick is decided here: it stops after its work if nothing needs
     * it, and a stopped one restarts when something does
     * (docs/nohz-task.md#patch-05-restart-the-tick-when-another-task-competes). */
    if (exit_hook)
        exit_hook(trap_from_user(frame));
    irq_exit(cpu);
    sched_preempt_on_irq_exit(frame->rflags & RFLAGS_IF);
}
