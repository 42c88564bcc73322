/* ACPI table parser: RSDP -> RSDT/XSDT -> MADT, HPET. See acpi_tables.h.
 *
 * Firmware tables are packed and often misaligned (XSDT entries sit on
 * 4-byte boundaries, MADT entries anywhere), so every field is read byte
 * by byte instead of through a struct pointer. Offsets come from the ACPI
 * 6.5 specification, chapter 5.2.
 */
#include "arch/x86/acpi_tables.h"
#include "kernel/lib/errno.h"
#include "kernel/lib/string.h"

/* Offsets in the RSDP. */
#define RSDP_CHECKSUM_LENGTH  20  /* the 1.0 checksum covers these bytes */
#define RSDP_OEM_ID            9
#define RSDP_REVISION         15
#define RSDP_RSDT_ADDRESS     16
#define RSDP_LENGTH           20
#define RSDP_XSDT_ADDRESS     24

/* Offsets in every table's header. */
#define TABLE_LENGTH           4

/* Offsets in the MADT, after the header. */
#define MADT_LAPIC_ADDRESS    36
#define MADT_FLAGS            40
#define MADT_ENTRIES          44

/* Offsets in the HPET table: a generic address structure at 40. */
#define HPET_ADDRESS_SPACE    40
#define HPET_ADDRESS          44
#define HPET_TABLE_LENGTH     56
#define GAS_SYSTEM_MEMORY      0

/* Local APIC id 0xFF is the xAPIC broadcast id: the specification gives
 * CPUs with ids from 255 up x2APIC entries, and nohzk cannot reach them. */
#define XAPIC_MAX_ID         254

static uint16_t read16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t read32(const uint8_t *p)
{
    return (uint32_t)read16(p) | (uint32_t)read16(p + 2) << 16;
}

static uint64_t read64(const uint8_t *p)
{
    return (uint64_t)read32(p) | (uint64_t)read32(p + 4) << 32;
}

/* ACPI checksums make all the covered bytes sum to 0 modulo 256. */
static uint8_t byte_sum(const uint8_t *p, size_t length)
{
    uint8_t sum = 0;

    for (size_t i = 0; i < length; i++)
        sum += p[i];
    return sum;
}

int acpi_rsdp_validate(const void *rsdp, size_t length)
{
    const uint8_t *p = rsdp;

    if (p == NULL || length < ACPI_RSDP_V1_SIZE)
        return -EINVAL;
    if (memcmp(p, "RSD PTR ", 8) != 0)
        return -EINVAL;
    if (byte_sum(p, RSDP_CHECKSUM_LENGTH) != 0)
        return -EINVAL;
    if (p[RSDP_REVISION] < 2)
        return 0;

    /* 2.0+: a second checksum over the whole structure, whose length
     * we must have been given in full to verify it. */
    if (length < ACPI_RSDP_V2_SIZE)
        return -EINVAL;
    uint32_t full_length = read32(p + RSDP_LENGTH);
    if (full_length < ACPI_RSDP_V2_SIZE || full_length > length)
        return -EINVAL;
    if (byte_sum(p, full_length) != 0)
        return -EINVAL;
    return 0;
}

const void *acpi_rsdp_scan(const void *area, size_t length)
{
    const uint8_t *p = area;

    for (size_t offset = 0; offset + ACPI_RSDP_V1_SIZE <= length;
         offset += 16) {
        if (acpi_rsdp_validate(p + offset, length - offset) == 0)
            return p + offset;
    }
    return NULL;
}

int acpi_table_validate(const void *table, size_t length)
{
    const uint8_t *p = table;

    if (p == NULL || length < ACPI_TABLE_HEADER_SIZE)
        return -EINVAL;
    uint32_t table_length = read32(p + TABLE_LENGTH);
    if (table_length < ACPI_TABLE_HEADER_SIZE ||
        table_length >= ACPI_TABLE_MAX_LENGTH || table_length > length)
        return -EINVAL;
    if (byte_sum(p, table_length) != 0)
        return -EINVAL;
    return 0;
}

/* Maps a whole table in two steps (the header says how long it is) and
 * validates it; NULL if it cannot be used. */
static const uint8_t *map_table(uint64_t phys, acpi_map_fn map, void *ctx)
{
    if (phys == 0)
        return NULL;
    const uint8_t *header = map(phys, ACPI_TABLE_HEADER_SIZE, ctx);
    if (header == NULL)
        return NULL;
    uint32_t length = read32(header + TABLE_LENGTH);
    if (length < ACPI_TABLE_HEADER_SIZE || length >= ACPI_TABLE_MAX_LENGTH)
        return NULL;
    const uint8_t *table = map(phys, length, ctx);
    if (table == NULL || acpi_table_validate(table, length) != 0)
        return NULL;
    return table;
}

/* ---- MADT ---- */

/* The smallest length of each entry type we read; longer entries (newer
 * ACPI revisions append fields) are fine. */
static size_t madt_entry_min_length(uint8_t type)
{
    switch (type) {
    case ACPI_MADT_LOCAL_APIC:                  return 8;
    case ACPI_MADT_IOAPIC:                      return 12;
    case ACPI_MADT_INTERRUPT_OVERRIDE:          return 10;
    case ACPI_MADT_LOCAL_APIC_NMI:              return 6;
    case ACPI_MADT_LOCAL_APIC_ADDRESS_OVERRIDE: return 12;
    case ACPI_MADT_LOCAL_X2APIC:                return 16;
    case ACPI_MADT_LOCAL_X2APIC_NMI:            return 12;
    default:                                    return 2;
    }
}

static bool cpu_already_listed(const struct acpi_madt_info *out,
                               uint32_t apic_id)
{
    for (unsigned int i = 0; i < out->cpu_count; i++)
        if (out->cpus[i].apic_id == apic_id)
            return true;
    return false;
}

static void add_cpu(struct acpi_madt_info *out, uint32_t apic_id,
                    uint32_t processor_uid, uint32_t flags)
{
    if (!(flags & (ACPI_CPU_ENABLED | ACPI_CPU_ONLINE_CAPABLE)))
        return; /* not there and never will be */
    if (apic_id > XAPIC_MAX_ID || out->cpu_count == ACPI_MAX_CPUS ||
        cpu_already_listed(out, apic_id)) {
        out->cpus_skipped++;
        return;
    }
    struct acpi_cpu *cpu = &out->cpus[out->cpu_count++];
    cpu->apic_id = apic_id;
    cpu->processor_uid = processor_uid;
    cpu->enabled = flags & ACPI_CPU_ENABLED;
}

static void add_ioapic(struct acpi_madt_info *out, const uint8_t *entry)
{
    if (out->ioapic_count == ACPI_MAX_IOAPICS) {
        out->entries_dropped++;
        return;
    }
    struct acpi_ioapic *ioapic = &out->ioapics[out->ioapic_count++];
    ioapic->id = entry[2];
    ioapic->address = read32(entry + 4);
    ioapic->gsi_base = read32(entry + 8);
}

static void add_override(struct acpi_madt_info *out, const uint8_t *entry)
{
    if (entry[2] != 0)
        return; /* bus 0 (ISA) is the only one the spec defines */
    if (out->override_count == ACPI_MAX_OVERRIDES) {
        out->entries_dropped++;
        return;
    }
    struct acpi_irq_override *o = &out->overrides[out->override_count++];
    o->isa_irq = entry[3];
    o->gsi = read32(entry + 4);
    o->flags = read16(entry + 8);
}

static void add_nmi(struct acpi_madt_info *out, uint32_t processor_uid,
                    uint16_t flags, uint8_t lint)
{
    if (out->nmi_count == ACPI_MAX_LAPIC_NMIS) {
        out->entries_dropped++;
        return;
    }
    struct acpi_lapic_nmi *nmi = &out->nmis[out->nmi_count++];
    nmi->processor_uid = processor_uid;
    nmi->flags = flags;
    nmi->lint = lint;
}

/* One entry, whose length has been checked against its type. */
static void madt_entry(struct acpi_madt_info *out, const uint8_t *entry)
{
    switch (entry[0]) {
    case ACPI_MADT_LOCAL_APIC:
        add_cpu(out, entry[3], entry[2], read32(entry + 4));
        break;
    case ACPI_MADT_LOCAL_X2APIC:
        add_cpu(out, read32(entry + 4), read32(entry + 12),
                read32(entry + 8));
        break;
    case ACPI_MADT_IOAPIC:
        add_ioapic(out, entry);
        break;
    case ACPI_MADT_INTERRUPT_OVERRIDE:
        add_override(out, entry);
        break;
    case ACPI_MADT_LOCAL_APIC_NMI:
        /* uid 0xFF means every processor in the 8-bit form. */
        add_nmi(out, entry[2] == 0xff ? ACPI_NMI_ALL_PROCESSORS : entry[2],
                read16(entry + 3), entry[5]);
        break;
    case ACPI_MADT_LOCAL_X2APIC_NMI:
        add_nmi(out, read32(entry + 4), read16(entry + 2), entry[8]);
        break;
    case ACPI_MADT_LOCAL_APIC_ADDRESS_OVERRIDE:
        out->lapic_address = read64(entry + 4);
        break;
    default:
        break;  /* NMI sources, GIC, ...: nothing nohzk uses */
    }
}

static int madt_walk_entries(const uint8_t *table, uint32_t table_length,
                             struct acpi_madt_info *out)
{
    uint32_t offset = MADT_ENTRIES;

    while (offset < table_length) {
        if (table_length - offset < 2)
            return -EINVAL; /* not even a type and a length */
        const uint8_t *entry = table + offset;
        uint8_t length = entry[1];
        /* The minimum is >= 2, so a zero length cannot loop. */
        if (length < madt_entry_min_length(entry[0]) ||
            length > table_length - offset)
            return -EINVAL;
        madt_entry(out, entry);
        offset += length;
    }
    return 0;
}

int acpi_parse_madt(const void *table, size_t length,
                    struct acpi_madt_info *out)
{
    const uint8_t *p = table;

    memset(out, 0, sizeof(*out));
    if (acpi_table_validate(table, length) != 0 ||
        memcmp(p, "APIC", 4) != 0)
        return -EINVAL;
    uint32_t table_length = read32(p + TABLE_LENGTH);
    if (table_length < MADT_ENTRIES)
        return -EINVAL;

    out->lapic_address = read32(p + MADT_LAPIC_ADDRESS);
    out->has_legacy_pics = read32(p + MADT_FLAGS) & ACPI_MADT_PCAT_COMPAT;
    int err = madt_walk_entries(p, table_length, out);
    if (err) {
        memset(out, 0, sizeof(*out));
        return err;
    }
    return 0;
}

uint32_t acpi_irq_to_gsi(const struct acpi_madt_info *madt, uint8_t isa_irq,
                         uint16_t *flags_out)
{
    uint32_t gsi = isa_irq; /* identity-mapped unless overridden */
    uint16_t flags = 0;

    for (unsigned int i = 0; i < madt->override_count; i++) {
        if (madt->overrides[i].isa_irq == isa_irq) {
            gsi = madt->overrides[i].gsi;
            flags = madt->overrides[i].flags;
            break;
        }
    }
    if (flags_out)
        *flags_out = flags;
    return gsi;
}

/* ---- RSDP, root table, dispatch ---- */

static int parse_hpet(const uint8_t *table, struct acpi_info *out)
{
    if (read32(table + TABLE_LENGTH) < HPET_TABLE_LENGTH)
        return -EINVAL;
    /* An HPET in I/O space has never been seen: treat it as absent. */
    if (table[HPET_ADDRESS_SPACE] != GAS_SYSTEM_MEMORY)
        return 0;
    out->hpet_address = read64(table + HPET_ADDRESS);
    out->has_hpet = out->hpet_address != 0;
    return 0;
}

/* Uses one validated table if it is one we read; the first valid MADT
 * and HPET win. */
static void use_table(const uint8_t *table, struct acpi_info *out)
{
    int err = 0;

    if (memcmp(table, "APIC", 4) == 0 && !out->has_madt) {
        err = acpi_parse_madt(table, read32(table + TABLE_LENGTH),
                              &out->madt);
        out->has_madt = err == 0;
    } else if (memcmp(table, "HPET", 4) == 0 && !out->has_hpet) {
        err = parse_hpet(table, out);
    }
    if (err)
        out->bad_tables++;
}

/* Walks an RSDT (4-byte entries) or XSDT (8-byte entries). Fails only if
 * the root table itself is unusable; bad entries are counted. */
static int walk_root(uint64_t phys, const char *signature, size_t entry_size,
                     acpi_map_fn map, void *ctx, struct acpi_info *out)
{
    const uint8_t *root = map_table(phys, map, ctx);
    if (root == NULL)
        return -EFAULT;
    if (memcmp(root, signature, 4) != 0)
        return -EINVAL;

    /* The length is below 1 MiB: the count fits. */
    uint32_t count = (uint32_t)((read32(root + TABLE_LENGTH) -
                                 ACPI_TABLE_HEADER_SIZE) / entry_size);
    for (uint32_t i = 0; i < count; i++) {
        const uint8_t *entry = root + ACPI_TABLE_HEADER_SIZE + i * entry_size;
        uint64_t address = entry_size == 8 ? read64(entry) : read32(entry);
        const uint8_t *table = map_table(address, map, ctx);
        if (table == NULL)
            out->bad_tables++;
        else
            use_table(table, out);
    }
    return 0;
}

int acpi_parse(const void *rsdp, size_t rsdp_length, acpi_map_fn map,
               void *ctx, struct acpi_info *out)
{
    const uint8_t *p = rsdp;

    memset(out, 0, sizeof(*out));
    int err = acpi_rsdp_validate(rsdp, rsdp_length);
    if (err)
        return err;
    out->revision = p[RSDP_REVISION];
    memcpy(out->oem_id, p + RSDP_OEM_ID, 6);

    /* Prefer the XSDT; if it is broken, the RSDT may still be fine. */
    if (out->revision >= 2) {
        uint64_t xsdt = read64(p + RSDP_XSDT_ADDRESS);
        if (xsdt != 0) {
            err = walk_root(xsdt, "XSDT", 8, map, ctx, out);
            if (err == 0) {
                out->root_is_xsdt = true;
                return 0;
            }
            out->bad_tables++;
        }
    }
    uint32_t rsdt = read32(p + RSDP_RSDT_ADDRESS);
    if (rsdt == 0)
        return err ? err : -EINVAL;
    return walk_root(rsdt, "RSDT", 4, map, ctx, out);
}
