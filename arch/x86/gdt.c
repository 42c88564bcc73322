/* Per-CPU GDT and TSS: see arch/x86/gdt.h. In long mode segments are flat;
 * the GDT matters for the privilege level of code and for the TSS, which
 * holds the stacks the CPU switches to (rsp0 for entries from ring 3, the
 * IST stacks for double fault, NMI and machine check). */
#include "arch/x86/gdt.h"

#include "arch/x86/cpu.h"
#include "arch/x86/paging.h"
#include "arch/x86/trap.h"
#include "arch/x86/vdso/vdso_data.h"
#include "kernel/base/panic.h"
#include "kernel/base/percpu.h"
#include "kernel/lib/string.h"

#define DESCRIPTOR_KERNEL_CODE 0x00af9a000000fffful   /* present, ring 0, 64-bit code */
#define DESCRIPTOR_KERNEL_DATA 0x00cf92000000fffful
#define DESCRIPTOR_USER_DATA   0x00cff2000000fffful   /* ring 3 */
#define DESCRIPTOR_USER_CODE   0x00affa000000fffful
#define TSS_TYPE_AVAILABLE     0x89ul
#define DESCRIPTOR_USER_DATA_ACCESS 0xf2ul  /* present, ring 3, data, writable */

_Static_assert(VDSO_CPUNODE_GDT_INDEX < GDT_ENTRIES, "the vDSO's CPU-number entry is in the GDT");

/* The vDSO's getcpu reads this entry's limit with LSL (as Linux's does):
 * the CPU's number, node 0 above it. Never loaded into a segment register. */
static uint64_t cpunode_descriptor(unsigned cpu)
{
    uint64_t limit = cpu & ((1u << VDSO_CPUNODE_CPU_BITS) - 1);
    return (limit & 0xffff) | (DESCRIPTOR_USER_DATA_ACCESS << 40) | ((limit >> 16 & 0xf) << 48);
}

struct descriptor_pointer {
    uint16_t limit;
    uint64_t base;
} __attribute__((packed));

static void set_tss_descriptor(uint64_t *gdt, const struct tss *tss)
{
    uint64_t base = (uint64_t)tss;
    uint64_t limit = sizeof(*tss) - 1;

    gdt[5] = (limit & 0xffff) | ((base & 0xffffff) << 16) | (TSS_TYPE_AVAILABLE << 40) |
             ((limit >> 16 & 0xf) << 48) | ((base >> 24 & 0xff) << 56);
    gdt[6] = base >> 32;
}

static void load_gdt_and_tss(const uint64_t *gdt)
{
    struct descriptor_pointer pointer = { GDT_ENTRIES * 8 - 1, (uint64_t)gdt };

    __asm__ volatile(
        "lgdt %0\n\t"
        "pushq %1\n\t"
        "leaq 1f(%%rip), %%rax\n\t"
        "pushq %%rax\n\t"
        "lretq\n"                       /* reload CS */
        "1:\n\t"
        "movw %w2, %%ax\n\t"
        "movw %%ax, %%ds\n\t"
        "movw %%ax, %%es\n\t"
        "movw %%ax, %%ss\n\t"
        "xorl %%eax, %%eax\n\t"
        "movw %%ax, %%fs\n\t"           /* GS is left alone: its base (this_cpu()) */
        "ltr %w3"                       /* was set by arch_cpu_init() before this */
        :
        : "m"(pointer), "i"(SELECTOR_KERNEL_CODE), "r"(SELECTOR_KERNEL_DATA), "r"(SELECTOR_TSS)
        : "rax", "memory");
}

static void gdt_init_cpu(struct cpu *cpu)
{
    struct arch_cpu *arch = &cpu->arch;

    memset(arch, 0, sizeof(*arch));
    arch->gdt[1] = DESCRIPTOR_KERNEL_CODE;
    arch->gdt[2] = DESCRIPTOR_KERNEL_DATA;
    arch->gdt[3] = DESCRIPTOR_USER_DATA;
    arch->gdt[4] = DESCRIPTOR_USER_CODE;
    set_tss_descriptor(arch->gdt, &arch->tss);
    arch->gdt[VDSO_CPUNODE_GDT_INDEX] = cpunode_descriptor(cpu->id);
    for (int slot = 1; slot <= IST_COUNT; slot++) {
        arch->tss.ist[slot - 1] = (uint64_t)kernel_stack_allocate(IST_STACK_PAGES);
        if (!arch->tss.ist[slot - 1])
            panic("gdt: no memory for the IST stacks of cpu %u", cpu->id);
    }
    arch->tss.rsp[0] = cpu->kernel_stack_top;
    arch->tss.iomap_base = sizeof(struct tss);      /* no I/O bitmap: ring 3 gets no ports */
    load_gdt_and_tss(arch->gdt);
}

void arch_cpu_init(struct cpu *cpu)
{
    wrmsr(MSR_GS_BASE, (uint64_t)cpu);
    wrmsr(MSR_KERNEL_GS_BASE, 0);
    gdt_init_cpu(cpu);
    idt_load();
}
