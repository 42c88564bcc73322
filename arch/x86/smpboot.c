/* Starting application processors: see arch/x86/smpboot.h and
 * boot/trampoline.asm. The sequence is Intel's: INIT, wait 10 ms, STARTUP,
 * wait 200 us, a second STARTUP (ignored by an AP that already runs). Waits
 * are measured on the clocksource, never with calibrated loops. APs start
 * one at a time: they share the trampoline's parameter block, which is why
 * a CPU that does not arrive stops the bring-up (it might still wake later
 * and read the block). */
#include "arch/x86/smpboot.h"

#include "arch/x86/clock.h"
#include "arch/x86/cpu.h"
#include "arch/x86/lapic.h"
#include "arch/x86/paging.h"
#include "kernel/base/panic.h"
#include "kernel/base/percpu.h"
#include "kernel/base/printk.h"
#include "kernel/mm/heap.h"
#include "kernel/lib/string.h"

#define TRAMPOLINE_PARAMS_OFFSET 0xfc0
#define INIT_WAIT_NS     10000000ul     /* 10 ms */
#define STARTUP_WAIT_NS    200000ul     /* 200 us */
#define ARRIVAL_WAIT_NS 1000000000ul    /* 1 s, then give up on this CPU */

struct trampoline_params {
    uint64_t page_table_root;
    uint64_t entry;
    uint64_t cpu;
    uint64_t stack_top;
    volatile uint32_t started;
};

extern const char trampoline_image[], trampoline_image_end[];
extern char early_pml4[];
extern char ap_entry64[];

static bool wait_until(volatile uint32_t *flag, uint64_t timeout_ns)
{
    uint64_t start = clock_now();
    while (!__atomic_load_n(flag, __ATOMIC_ACQUIRE)) {
        if (clock_now() - start > timeout_ns)
            return false;
        cpu_relax();
    }
    return true;
}

static bool start_one(struct cpu *cpu, struct trampoline_params *params, uint8_t startup_page)
{
    params->cpu = (uint64_t)cpu;
    params->stack_top = cpu->kernel_stack_top;
    params->started = 0;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);

    lapic_send_init(cpu->apic_id);
    clock_delay_ns(INIT_WAIT_NS);
    lapic_send_startup(cpu->apic_id, startup_page);
    clock_delay_ns(STARTUP_WAIT_NS);
    lapic_send_startup(cpu->apic_id, startup_page);
    if (!wait_until(&params->started, ARRIVAL_WAIT_NS))
        return false;
    /* It runs 64-bit code; now wait for it to finish coming online. */
    uint64_t start = clock_now();
    while (!cpu->online) {
        if (clock_now() - start > ARRIVAL_WAIT_NS)
            return false;
        cpu_relax();
    }
    return true;
}

unsigned smp_boot_secondary_cpus(const uint32_t *apic_ids, unsigned count, uint64_t trampoline_phys)
{
    uint8_t *page = phys_to_virt(trampoline_phys);
    struct trampoline_params *params = (void *)(page + TRAMPOLINE_PARAMS_OFFSET);
    uint32_t my_apic_id = lapic_id();
    unsigned started = 0;

    memcpy(page, trampoline_image, (size_t)(trampoline_image_end - trampoline_image));
    params->page_table_root = virt_to_phys(early_pml4);
    params->entry = (uint64_t)ap_entry64;

    for (unsigned i = 0; i < count && cpu_count < MAX_CPUS; i++) {
        if (apic_ids[i] == my_apic_id)
            continue;
        void *area = kzalloc(percpu_area_size());
        if (!area)
            panic("smp: no memory for cpu %u", cpu_count);
        struct cpu *cpu = percpu_setup(area, cpu_count, apic_ids[i]);
        cpu->kernel_stack_top = (uint64_t)kernel_stack_allocate(AP_STACK_PAGES);
        if (!cpu->kernel_stack_top)
            panic("smp: no memory for the stack of cpu %u", cpu->id);
        if (!start_one(cpu, params, (uint8_t)(trampoline_phys >> 12))) {
            printk("smp: the CPU with APIC ID %u did not start; not starting the others\n", apic_ids[i]);
            cpus[cpu->id] = 0;   /* its memory stays: it may still wake up and use it */
            break;
        }
        started++;   /* ap_main() counted it in cpu_count */
    }
    return started;
}
