/* The local APIC in xAPIC mode (QEMU's TCG has no x2APIC): registers at a
 * physical page (0xfee00000 unless ACPI says otherwise), one per CPU at the
 * same address. The timer runs in one-shot mode only: the tick code in
 * kernel/time/tick.c decides when the next interrupt comes, if any. */
#include "arch/x86/lapic.h"

#include "arch/x86/clock.h"
#include "arch/x86/cpu.h"
#include "arch/x86/paging.h"
#include "arch/x86/vectors.h"
#include "kernel/base/panic.h"
#include "kernel/base/printk.h"

#define LAPIC_ID               0x020
#define LAPIC_TASK_PRIORITY    0x080
#define LAPIC_EOI              0x0b0
#define LAPIC_SPURIOUS         0x0f0
#define LAPIC_ERROR_STATUS     0x280
#define LAPIC_ICR_LOW          0x300
#define LAPIC_ICR_HIGH         0x310
#define LAPIC_LVT_TIMER        0x320
#define LAPIC_LVT_LINT0        0x350
#define LAPIC_LVT_ERROR        0x370
#define LAPIC_TIMER_INITIAL    0x380
#define LAPIC_TIMER_CURRENT    0x390
#define LAPIC_TIMER_DIVIDE     0x3e0

#define SPURIOUS_APIC_ENABLE   (1u << 8)
#define LVT_MASKED             (1u << 16)
#define ICR_DELIVERY_PENDING   (1u << 12)
#define ICR_LEVEL_ASSERT       (1u << 14)
#define ICR_MODE_NMI           (4u << 8)
#define ICR_MODE_INIT          (5u << 8)
#define ICR_MODE_STARTUP       (6u << 8)
#define TIMER_DIVIDE_BY_16     0x3
#define APIC_BASE_ENABLE       (1ul << 11)

#define CALIBRATION_NS         20000000ul     /* 20 ms */

static volatile uint32_t *registers;
static uint64_t timer_frequency;            /* LAPIC timer counts per second */
static uint64_t counts_per_ns_scaled;       /* timer_frequency / 1e9, << 32 */

static uint32_t lapic_read(uint32_t offset) { return registers[offset / 4]; }
static void lapic_write(uint32_t offset, uint32_t value) { registers[offset / 4] = value; }

bool lapic_is_ready(void) { return registers != 0; }

void lapic_init_boot_cpu(uint64_t phys_address)
{
    registers = ioremap(phys_address, PAGE_SIZE);
    lapic_init_this_cpu();
}

uint32_t lapic_read_error(void)
{
    lapic_write(LAPIC_ERROR_STATUS, 0);     /* latch the errors into the register */
    return lapic_read(LAPIC_ERROR_STATUS);
}

void lapic_init_this_cpu(void)
{
    wrmsr(MSR_APIC_BASE, rdmsr(MSR_APIC_BASE) | APIC_BASE_ENABLE);
    lapic_write(LAPIC_TASK_PRIORITY, 0);
    lapic_write(LAPIC_LVT_LINT0, LVT_MASKED);
    lapic_write(LAPIC_LVT_ERROR, VECTOR_APIC_ERROR);
    lapic_write(LAPIC_ERROR_STATUS, 0);
    lapic_write(LAPIC_LVT_TIMER, LVT_MASKED | VECTOR_LOCAL_TIMER);
    lapic_write(LAPIC_TIMER_DIVIDE, TIMER_DIVIDE_BY_16);
    lapic_write(LAPIC_SPURIOUS, SPURIOUS_APIC_ENABLE | VECTOR_SPURIOUS);
    lapic_eoi();
}

uint32_t lapic_id(void)
{
    return lapic_read(LAPIC_ID) >> 24;
}

void lapic_eoi(void)
{
    lapic_write(LAPIC_EOI, 0);
}

static void send_command(uint32_t apic_id, uint32_t command)
{
    uint64_t flags = irq_save();
    while (lapic_read(LAPIC_ICR_LOW) & ICR_DELIVERY_PENDING)
        cpu_relax();
    lapic_write(LAPIC_ICR_HIGH, apic_id << 24);
    lapic_write(LAPIC_ICR_LOW, command);
    irq_restore(flags);
}

void lapic_send_ipi(uint32_t apic_id, uint8_t vector)
{
    send_command(apic_id, ICR_LEVEL_ASSERT | vector);
}

void lapic_send_init(uint32_t apic_id)
{
    send_command(apic_id, ICR_LEVEL_ASSERT | ICR_MODE_INIT);
}

void lapic_send_startup(uint32_t apic_id, uint8_t page_number)
{
    send_command(apic_id, ICR_MODE_STARTUP | page_number);
}

void lapic_send_nmi(uint32_t apic_id)
{
    send_command(apic_id, ICR_LEVEL_ASSERT | ICR_MODE_NMI);
}

/* Count down from the maximum for a while measured on the clocksource.
 * The APIC timer runs at the same rate on every CPU (the bus clock), so the
 * boot CPU measures once for all. */
void lapic_timer_calibrate(void)
{
    lapic_write(LAPIC_LVT_TIMER, LVT_MASKED | VECTOR_LOCAL_TIMER);
    lapic_write(LAPIC_TIMER_DIVIDE, TIMER_DIVIDE_BY_16);
    uint64_t start = clock_now();
    lapic_write(LAPIC_TIMER_INITIAL, 0xffffffff);
    while (clock_now() - start < CALIBRATION_NS)
        cpu_relax();
    uint32_t remaining = lapic_read(LAPIC_TIMER_CURRENT);
    uint64_t elapsed = clock_now() - start;
    lapic_write(LAPIC_TIMER_INITIAL, 0);

    timer_frequency = (uint64_t)(0xffffffffu - remaining) * 1000000000ul / elapsed;
    if (!timer_frequency)
        panic("lapic: timer did not count during calibration");
    counts_per_ns_scaled = (timer_frequency << 32) / 1000000000ul;
    printk("lapic: timer at %lu kHz (divide by 16), one-shot\n", timer_frequency / 1000);
}

uint64_t lapic_timer_frequency(void)
{
    return timer_frequency;
}

void lapic_timer_arm_ns(uint64_t delta_ns)
{
    uint64_t count = (uint64_t)(((unsigned __int128)delta_ns * counts_per_ns_scaled) >> 32);

    if (count == 0)
        count = 1;
    if (count > 0xffffffffu)
        count = 0xffffffffu;    /* fires early; kernel/time/tick.c re-arms */
    lapic_write(LAPIC_LVT_TIMER, VECTOR_LOCAL_TIMER);
    lapic_write(LAPIC_TIMER_INITIAL, (uint32_t)count);
}

void lapic_timer_disarm(void)
{
    lapic_write(LAPIC_LVT_TIMER, LVT_MASKED | VECTOR_LOCAL_TIMER);
    lapic_write(LAPIC_TIMER_INITIAL, 0);
}
