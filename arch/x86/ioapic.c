/* The IOAPIC: one redirection entry per global system interrupt (GSI).
 * All start masked; a driver routes the one it needs. Only the first IOAPIC
 * is used (QEMU has one); more were left out. */
#include "arch/x86/interrupt_controllers.h"

#include "arch/x86/paging.h"
#include "arch/x86/vectors.h"
#include "kernel/lib/errno.h"
#include "kernel/base/printk.h"
#include "kernel/base/spinlock.h"

#define IOAPIC_SELECT      0x00
#define IOAPIC_WINDOW      0x10
#define IOAPIC_VERSION     0x01
#define IOAPIC_REDIRECTION 0x10
#define ENTRY_MASKED       (1u << 16)
#define ENTRY_LEVEL        (1u << 15)
#define ENTRY_ACTIVE_LOW   (1u << 13)

static volatile uint32_t *ioapic;
static uint32_t first_gsi, entry_count;
static struct spinlock ioapic_lock = SPINLOCK_INIT("ioapic");

static uint32_t ioapic_read(uint32_t reg)
{
    ioapic[IOAPIC_SELECT / 4] = reg;
    return ioapic[IOAPIC_WINDOW / 4];
}

static void ioapic_write(uint32_t reg, uint32_t value)
{
    ioapic[IOAPIC_SELECT / 4] = reg;
    ioapic[IOAPIC_WINDOW / 4] = value;
}

void ioapic_init(uint64_t phys_address, uint32_t gsi_base)
{
    ioapic = ioremap(phys_address, PAGE_SIZE);
    first_gsi = gsi_base;
    entry_count = ((ioapic_read(IOAPIC_VERSION) >> 16) & 0xff) + 1;
    for (uint32_t i = 0; i < entry_count; i++) {
        ioapic_write(IOAPIC_REDIRECTION + 2 * i, ENTRY_MASKED);
        ioapic_write(IOAPIC_REDIRECTION + 2 * i + 1, 0);
    }
    printk("ioapic: at %#lx, GSIs %u-%u, all masked\n", phys_address, gsi_base, gsi_base + entry_count - 1);
}

bool ioapic_present(void)
{
    return ioapic != 0;
}

int ioapic_route(uint32_t gsi, uint32_t apic_id, bool level_triggered, bool active_low)
{
    if (!ioapic || gsi < first_gsi || gsi >= first_gsi + entry_count || gsi >= DEVICE_GSI_COUNT)
        return -EINVAL;
    uint32_t low = VECTOR_DEVICE_BASE + gsi;
    if (level_triggered)
        low |= ENTRY_LEVEL;
    if (active_low)
        low |= ENTRY_ACTIVE_LOW;
    uint32_t index = gsi - first_gsi;
    spin_lock(&ioapic_lock);
    ioapic_write(IOAPIC_REDIRECTION + 2 * index + 1, apic_id << 24);
    ioapic_write(IOAPIC_REDIRECTION + 2 * index, low);
    spin_unlock(&ioapic_lock);
    return 0;
}

void ioapic_mask(uint32_t gsi)
{
    if (!ioapic || gsi < first_gsi || gsi >= first_gsi + entry_count)
        return;
    spin_lock(&ioapic_lock);
    ioapic_write(IOAPIC_REDIRECTION + 2 * (gsi - first_gsi), ENTRY_MASKED);
    spin_unlock(&ioapic_lock);
}
