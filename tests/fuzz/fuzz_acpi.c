/* Fuzz target: arch/x86/acpi_tables.c, RSDP -> RSDT/XSDT -> MADT, HPET.
 *
 * The input is a small picture of physical memory: its first 36 bytes are
 * the RSDP, the rest is a window in which physical address P is at offset
 * P mod 64 KiB (so the seeds, captured from QEMU with their real
 * addresses, work as they are, and small addresses the fuzzer invents work
 * too). Reads outside the window fail, as unmapped memory would.
 *
 * Checksums would stop the fuzzer at the first table, so the target fixes
 * them before the parser looks: the RSDP's here, each table's when the
 * parser maps it whole. The checksum checks themselves are tested in
 * tests/host/test_acpi.c. */
#include <string.h>

#include "arch/x86/acpi_tables.h"
#include "tests/fuzz/fuzz.h"

#define RSDP_AREA   ACPI_RSDP_V2_SIZE
#define WINDOW_MASK 0xffffu

struct memory {
    uint8_t *window;
    size_t size;
};

static void fix_checksum(uint8_t *bytes, size_t length, size_t checksum_offset)
{
    uint8_t sum = 0;
    bytes[checksum_offset] = 0;
    for (size_t i = 0; i < length; i++)
        sum += bytes[i];
    bytes[checksum_offset] = (uint8_t)-sum;
}

static uint32_t read32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static const void *map(uint64_t phys, size_t length, void *ctx)
{
    struct memory *memory = ctx;
    size_t offset = phys & WINDOW_MASK;
    if (offset > memory->size || length > memory->size - offset)
        return NULL;
    uint8_t *table = memory->window + offset;
    /* The second, whole-table mapping of map_table(): fix its checksum. */
    if (length > ACPI_TABLE_HEADER_SIZE && read32(table + 4) == length)
        fix_checksum(table, length, 9);
    return table;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < RSDP_AREA)
        return 0;
    uint8_t *copy = malloc(size);
    memcpy(copy, data, size);
    fix_checksum(copy, 20, 8);
    if (read32(copy + 20) == RSDP_AREA)
        fix_checksum(copy, RSDP_AREA, 32);

    struct memory memory = {copy + RSDP_AREA, size - RSDP_AREA};
    static struct acpi_info info;
    if (acpi_parse(copy, RSDP_AREA, map, &memory, &info) == 0 && info.has_madt) {
        const struct acpi_madt_info *madt = &info.madt;
        FUZZ_CHECK(madt->cpu_count <= ACPI_MAX_CPUS && madt->ioapic_count <= ACPI_MAX_IOAPICS);
        FUZZ_CHECK(madt->override_count <= ACPI_MAX_OVERRIDES && madt->nmi_count <= ACPI_MAX_LAPIC_NMIS);
        for (unsigned i = 0; i < madt->cpu_count; i++)
            FUZZ_CHECK(madt->cpus[i].apic_id <= 254);
        for (unsigned irq = 0; irq < 16; irq++)
            acpi_irq_to_gsi(madt, (uint8_t)irq, NULL);
    }
    free(copy);
    return 0;
}
