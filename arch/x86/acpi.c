/* Finding the ACPI tables: from the boot loader's copy of the RSDP (UEFI
 * machines have no RSDP in the BIOS area), else by scanning the EBDA and
 * 0xe0000-0xfffff as the ACPI specification describes for BIOS machines.
 * This runs before the page allocator exists, on the early page tables,
 * whose direct map covers the first 4 GiB, where firmware puts the tables.
 * Every range the parser reads is remembered, so that main.c can keep those
 * pages out of the page allocator. */
#include "arch/x86/acpi.h"

#include "arch/x86/paging.h"
#include "kernel/mm/memmap.h"
#include "kernel/base/printk.h"

#define EARLY_DIRECT_MAP_LIMIT (4ul << 30)
#define BIOS_AREA_START 0xe0000
#define BIOS_AREA_SIZE  0x20000
#define EBDA_POINTER    0x40e       /* segment of the EBDA, in the BIOS data area */
#define EBDA_SCAN_SIZE  1024
#define MAX_MAPPED_RANGES 64

static struct acpi_info info;
static struct mem_region mapped[MAX_MAPPED_RANGES];
static unsigned mapped_count;

static const void *map_early(uint64_t phys, size_t length, void *ctx)
{
    (void)ctx;
    if (phys + length > EARLY_DIRECT_MAP_LIMIT || phys + length < phys)
        return 0;
    if (mapped_count < MAX_MAPPED_RANGES)
        mapped[mapped_count++] = (struct mem_region){ phys, length };
    else if (mapped_count++ == MAX_MAPPED_RANGES)
        printk("acpi: more than %d table ranges; the rest are not kept from the page allocator\n",
               MAX_MAPPED_RANGES);
    return phys_to_virt(phys);
}

/* Search one area; *length gets the bytes readable from the RSDP on. */
static const void *scan_area(uint64_t start, size_t size, size_t *length)
{
    const char *area = phys_to_virt(start);
    const char *rsdp = acpi_rsdp_scan(area, size);
    if (rsdp)
        *length = (size_t)(area + size - rsdp);
    return rsdp;
}

static const void *scan_bios_areas(size_t *length)
{
    uint64_t ebda = (uint64_t)*(const uint16_t *)phys_to_virt(EBDA_POINTER) << 4;
    const void *rsdp = 0;

    if (ebda >= 0x80000 && ebda < 0xa0000)
        rsdp = scan_area(ebda, EBDA_SCAN_SIZE, length);
    if (!rsdp)
        rsdp = scan_area(BIOS_AREA_START, BIOS_AREA_SIZE, length);
    return rsdp;
}

const struct acpi_info *acpi_init(const void *rsdp_copy, size_t rsdp_length)
{
    const void *rsdp = rsdp_copy;

    if (!rsdp)
        rsdp = scan_bios_areas(&rsdp_length);
    if (!rsdp) {
        printk("acpi: no RSDP found\n");
    } else if (acpi_parse(rsdp, rsdp_length, map_early, 0, &info) < 0) {
        printk("acpi: the RSDP and its root table are unusable\n");
    } else {
        printk("acpi: revision %u, OEM '%s', %s, %u bad tables skipped\n", info.revision, info.oem_id,
               info.root_is_xsdt ? "XSDT" : "RSDT", info.bad_tables);
    }
    if (!info.has_madt)
        printk("acpi: no MADT: only the boot CPU will run, and no IOAPIC\n");
    return &info;
}

const struct acpi_info *acpi_info(void)
{
    return &info;
}

void acpi_reserve_tables(struct memmap *map)
{
    for (unsigned i = 0; i < mapped_count && i < MAX_MAPPED_RANGES; i++)
        memmap_reserve(map, mapped[i].base & ~(PAGE_SIZE - 1),
                       mapped[i].length + (mapped[i].base & (PAGE_SIZE - 1)));
}
