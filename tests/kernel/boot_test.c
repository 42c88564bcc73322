/* ktest=boot: every CPU came online as itself, and the boot left the
 * machine in the state the rest of the kernel relies on. */
#include "arch/x86/cpu.h"
#include "arch/x86/gdt.h"
#include "arch/x86/lapic.h"
#include "arch/x86/paging.h"
#include "kernel/debug/ktest.h"
#include "kernel/base/percpu.h"
#include "kernel/irq/ipi.h"

extern char __text_start[], __rodata_start[], __data_start[];

struct cpu_report {
    unsigned id_from_gs;
    uint32_t apic_id_from_hardware;
    bool interrupts_were_off;
};

static void report_identity(void *arg)
{
    struct cpu_report *report = arg;
    report->id_from_gs = this_cpu()->id;
    report->apic_id_from_hardware = lapic_id();
    report->interrupts_were_off = !irqs_enabled();
}

/* Each CPU, asked through an IPI, says who it is: GS base and APIC agree
 * with what the boot CPU recorded. */
static void each_cpu_knows_itself(struct ktest *test)
{
    unsigned cpu;
    for_each_online_cpu(cpu) {
        struct cpu_report report = { .id_from_gs = 999 };
        KTEST_EXPECT(test, smp_call_function_single(cpu, report_identity, &report, true) == 0, "cpu %u", cpu);
        KTEST_EXPECT(test, report.id_from_gs == cpu, "cpu %u says it is %u", cpu, report.id_from_gs);
        KTEST_EXPECT(test, report.apic_id_from_hardware == cpus[cpu]->apic_id, "cpu %u: APIC ID %u, recorded %u",
                     cpu, report.apic_id_from_hardware, cpus[cpu]->apic_id);
        KTEST_EXPECT(test, report.interrupts_were_off, "cpu %u ran the call with interrupts on", cpu);
    }
}

static void online_mask_matches_count(struct ktest *test)
{
    KTEST_EXPECT(test, cpumask_weight(&cpu_online_mask) == cpu_count, "mask has %u, count %u",
                 cpumask_weight(&cpu_online_mask), cpu_count);
    for (unsigned a = 0; a < cpu_count; a++)
        for (unsigned b = a + 1; b < cpu_count; b++)
            KTEST_EXPECT(test, cpus[a]->apic_id != cpus[b]->apic_id, "cpus %u and %u share APIC ID", a, b);
    ktest_log(test, "%u CPUs online", cpu_count);
}

/* W^X: text is executable and read-only, rodata and data are not executable. */
static void kernel_image_is_write_xor_execute(struct ktest *test)
{
    uint64_t text = paging_lookup((uint64_t)__text_start);
    uint64_t rodata = paging_lookup((uint64_t)__rodata_start);
    uint64_t data = paging_lookup((uint64_t)__data_start);

    KTEST_EXPECT(test, text && !(text & PTE_WRITE) && !(text & PTE_NX), "text entry %#lx", text);
    KTEST_EXPECT(test, rodata && !(rodata & PTE_WRITE) && (rodata & PTE_NX), "rodata entry %#lx", rodata);
    KTEST_EXPECT(test, data && (data & PTE_WRITE) && (data & PTE_NX), "data entry %#lx", data);
    KTEST_EXPECT(test, paging_lookup(0) == 0, "page 0 must not be mapped");
}

/* Every CPU has its own IST stacks, mapped, with an unmapped guard below. */
static void ist_stacks_are_mapped_with_guards(struct ktest *test)
{
    unsigned cpu;
    for_each_online_cpu(cpu) {
        for (int slot = 0; slot < IST_COUNT; slot++) {
            uint64_t top = cpus[cpu]->arch.tss.ist[slot];
            uint64_t bottom = top - IST_STACK_PAGES * PAGE_SIZE;
            KTEST_EXPECT(test, paging_is_kernel_mapped(top - 8), "cpu %u IST%d top", cpu, slot + 1);
            KTEST_EXPECT(test, paging_is_kernel_mapped(bottom), "cpu %u IST%d bottom", cpu, slot + 1);
            KTEST_EXPECT(test, !paging_is_kernel_mapped(bottom - 8), "cpu %u IST%d has no guard", cpu, slot + 1);
        }
    }
}

KTEST_SUITE(boot,
            KTEST_CASE(each_cpu_knows_itself),
            KTEST_CASE(online_mask_matches_count),
            KTEST_CASE(kernel_image_is_write_xor_execute),
            KTEST_CASE(ist_stacks_are_mapped_with_guards));
