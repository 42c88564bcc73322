/* Per-CPU areas: see kernel/base/percpu.h. The boot CPU's struct cpu and its
 * copy of .data.percpu are static (the copy is reserved by linker.ld),
 * because they are needed (spinlocks read this_cpu()) before there is any
 * allocator. */
#include "kernel/base/percpu.h"

#include "arch/x86/cpu.h"
#include "kernel/mm/heap.h"
#include "kernel/base/panic.h"
#include "kernel/base/printk.h"
#include "kernel/lib/string.h"

struct cpu *cpus[MAX_CPUS];
unsigned cpu_count;
struct cpumask cpu_online_mask;

#define PERCPU_OFFSET_UNSET 0x8000000000000000ul
#define PERCPU_ALIGN 64

uintptr_t percpu_offsets[MAX_CPUS] = { [0 ... MAX_CPUS - 1] = PERCPU_OFFSET_UNSET };

static struct cpu boot_cpu;
extern char boot_stack_top[];
extern char __per_cpu_start[], __per_cpu_end[], __per_cpu_boot_copy[];

/* A fresh copy of the initial image for CPU id. */
static void percpu_copy_image(struct cpu *cpu, unsigned id, char *copy)
{
    memcpy(copy, __per_cpu_start, (size_t)(__per_cpu_end - __per_cpu_start));
    cpu->percpu_offset = (uintptr_t)copy - (uintptr_t)__per_cpu_start;
    percpu_offsets[id] = cpu->percpu_offset;
}

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
    percpu_copy_image(&boot_cpu, 0, __per_cpu_boot_copy);
    percpu_fill(&boot_cpu, 0, 0);
    boot_cpu.kernel_stack_top = (uint64_t)boot_stack_top;
    wrmsr(MSR_GS_BASE, (uint64_t)&boot_cpu);
    return &boot_cpu;
}

struct cpu *percpu_allocate(unsigned id, uint32_t apic_id)
{
    ASSERT(id < MAX_CPUS);
    struct cpu *cpu = kzalloc(sizeof(*cpu));
    char *copy = kmalloc((size_t)(__per_cpu_end - __per_cpu_start) + PERCPU_ALIGN);
    if (!cpu || !copy)
        panic("percpu: out of memory for CPU %u", id);
    percpu_copy_image(cpu, id, (char *)(((uintptr_t)copy + PERCPU_ALIGN - 1) & ~(uintptr_t)(PERCPU_ALIGN - 1)));
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
