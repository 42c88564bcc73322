/* Per-CPU areas: see kernel/base/percpu.h. The boot CPU's is static, because it
 * is needed (spinlocks read this_cpu()) before there is any allocator. */
#include "kernel/base/percpu.h"

#include "arch/x86/cpu.h"
#include "kernel/mm/heap.h"
#include "kernel/base/panic.h"
#include "kernel/base/printk.h"
#include "kernel/lib/string.h"

struct cpu *cpus[MAX_CPUS];
unsigned cpu_count;
struct cpumask cpu_online_mask;

static struct cpu boot_cpu;
extern char boot_stack_top[];

static void percpu_fill(struct cpu *cpu, unsigned id, uint32_t apic_id)
{
    cpu->self = cpu;
    cpu->id = id;
    cpu->apic_id = apic_id;
    spin_lock_init(&cpu->calls.lock, "call_queue");
    cpus[id] = cpu;
}

/* Just enough for this_cpu() to work; arch_cpu_init() does the rest once
 * memory is set up. */
struct cpu *percpu_setup_boot_cpu(void)
{
    percpu_fill(&boot_cpu, 0, 0);
    boot_cpu.kernel_stack_top = (uint64_t)boot_stack_top;
    wrmsr(MSR_GS_BASE, (uint64_t)&boot_cpu);
    return &boot_cpu;
}

struct cpu *percpu_allocate(unsigned id, uint32_t apic_id)
{
    ASSERT(id < MAX_CPUS);
    struct cpu *cpu = kzalloc(sizeof(*cpu));
    if (!cpu)
        panic("percpu: out of memory for CPU %u", id);
    percpu_fill(cpu, id, apic_id);
    return cpu;
}

void percpu_mark_online(struct cpu *cpu)
{
    __atomic_add_fetch(&cpu_count, 1, __ATOMIC_SEQ_CST);
    cpumask_set_atomic(&cpu_online_mask, cpu->id);
    printk("cpu %u: online, APIC ID %u\n", cpu->id, cpu->apic_id);
    __atomic_store_n(&cpu->online, true, __ATOMIC_RELEASE);
}
