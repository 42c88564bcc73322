/* /proc/interrupts: each CPU's interrupt counts by source, in Linux's
 * layout (device IRQs by GSI, then the local sources). */
#include <stdint.h>

#include "kernel/base/percpu.h"
#include "kernel/fs/procfs.h"
#include "kernel/irq/irq.h"

static void generate_interrupts(struct proc_text *text)
{
    static const char *const descriptions[IRQ_SOURCE_DEVICE_FIRST] = {
        [IRQ_SOURCE_LOCAL_TIMER] = "Local timer interrupts",
        [IRQ_SOURCE_RESCHEDULE] = "Rescheduling interrupts",
        [IRQ_SOURCE_CALL_FUNCTION] = "Function call interrupts",
        [IRQ_SOURCE_NOHZ_KICK] = "Nohz kick interrupts",
        [IRQ_SOURCE_TLB_SHOOTDOWN] = "TLB shootdowns",
        [IRQ_SOURCE_SPURIOUS] = "Spurious interrupts",
        [IRQ_SOURCE_APIC_ERROR] = "APIC errors",
    };
    unsigned cpu;
    /* Linux's columns: 11 wide, the label "XXX: " then counts "%10u ". */
    proc_printf(text, "%11s", "");
    for_each_online_cpu(cpu)
        proc_printf(text, "CPU%-8u", cpu);
    proc_printf(text, "\n");
    /* Device IRQs first, by GSI, as Linux lists them; only those seen. */
    for (unsigned gsi = 0; gsi < DEVICE_GSI_COUNT; gsi++) {
        enum irq_source source = IRQ_SOURCE_DEVICE_FIRST + gsi;
        uint64_t total = 0;
        for_each_online_cpu(cpu)
            total += irq_count(cpu, source);
        if (total == 0)
            continue;
        proc_printf(text, "%3u: ", gsi);
        for_each_online_cpu(cpu)
            proc_printf(text, "%10llu ", (unsigned long long)irq_count(cpu, source));
        proc_printf(text, " IO-APIC  %u-edge\n", gsi); /* trigger mode not tracked */
    }
    for (unsigned source = 0; source < IRQ_SOURCE_DEVICE_FIRST; source++) {
        proc_printf(text, "%3s: ", irq_source_name(source));
        for_each_online_cpu(cpu)
            proc_printf(text, "%10llu ", (unsigned long long)irq_count(cpu, source));
        proc_printf(text, "  %s\n", descriptions[source]);
    }
}

PROC_FILE("/proc/interrupts", generate_interrupts, NULL);
