/* Unit tests of the ACPI table parser (arch/x86/acpi_tables.c).
 *
 * Two kinds of input: tables built here byte by byte (helpers fix the
 * checksums), to reach every error path; and tables captured from QEMU's
 * firmware (SeaBIOS and OVMF) by data/acpi/capture.sh, to check that the
 * parser reads what nohzk will really boot on. Physical memory is faked by
 * a list of regions; each is a malloc'd copy of exactly its bytes, so that
 * AddressSanitizer catches any read past what the parser mapped.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "arch/x86/acpi_tables.h"
#include "kernel/lib/errno.h"
#include "data/acpi/qemu_tables.h"

/* ---- fake physical memory ---- */

#define MAX_REGIONS 16

struct phys_region {
    uint64_t address;
    size_t length;
    uint8_t *bytes;
};

struct phys_memory {
    struct phys_region regions[MAX_REGIONS];
    unsigned int count;
    unsigned int failed_maps;
};

static void phys_add(struct phys_memory *mem, uint64_t address,
                     const void *bytes, size_t length)
{
    assert_true(mem->count < MAX_REGIONS);
    struct phys_region *r = &mem->regions[mem->count++];
    r->address = address;
    r->length = length;
    r->bytes = malloc(length);
    assert_non_null(r->bytes);
    memcpy(r->bytes, bytes, length);
}

/* The bytes at `address` as placed in memory, to corrupt them. */
static uint8_t *phys_bytes(struct phys_memory *mem, uint64_t address)
{
    for (unsigned int i = 0; i < mem->count; i++)
        if (mem->regions[i].address == address)
            return mem->regions[i].bytes;
    fail_msg("no region at %#llx", (unsigned long long)address);
    return NULL;
}

static void phys_free(struct phys_memory *mem)
{
    for (unsigned int i = 0; i < mem->count; i++)
        free(mem->regions[i].bytes);
    mem->count = 0;
}

/* The acpi_map_fn: succeeds only inside one region. */
static const void *phys_map(uint64_t phys, size_t length, void *ctx)
{
    struct phys_memory *mem = ctx;

    for (unsigned int i = 0; i < mem->count; i++) {
        struct phys_region *r = &mem->regions[i];
        if (phys >= r->address && length <= r->length &&
            phys - r->address <= r->length - length)
            return r->bytes + (phys - r->address);
    }
    mem->failed_maps++;
    return NULL;
}

static const void *map_nothing(uint64_t phys, size_t length, void *ctx)
{
    (void)phys, (void)length, (void)ctx;
    return NULL;
}

/* ---- table builders ---- */

static void fix_checksum(uint8_t *bytes, size_t length, size_t checksum_at)
{
    uint8_t sum = 0;

    bytes[checksum_at] = 0;
    for (size_t i = 0; i < length; i++)
        sum += bytes[i];
    bytes[checksum_at] = (uint8_t)-sum;
}

struct table {
    uint8_t bytes[4096];
    size_t length;
};

static void put(struct table *t, const void *data, size_t n)
{
    assert_true(t->length + n <= sizeof(t->bytes));
    memcpy(t->bytes + t->length, data, n);
    t->length += n;
}

/* The host is little-endian, like the firmware's x86. */
static void put8(struct table *t, uint8_t v)   { put(t, &v, 1); }
static void put16(struct table *t, uint16_t v) { put(t, &v, 2); }
static void put32(struct table *t, uint32_t v) { put(t, &v, 4); }
static void put64(struct table *t, uint64_t v) { put(t, &v, 8); }

static void table_begin(struct table *t, const char *signature)
{
    memset(t, 0, sizeof(*t));
    memcpy(t->bytes, signature, 4);
    t->bytes[8] = 1;                /* revision */
    memcpy(t->bytes + 10, "NOHZKT", 6);     /* OEM id */
    memcpy(t->bytes + 16, "TESTTABL", 8);       /* OEM table id */
    t->length = ACPI_TABLE_HEADER_SIZE;
}

/* Writes the length field and the checksum. */
static void table_end(struct table *t)
{
    uint32_t length = (uint32_t)t->length;
    memcpy(t->bytes + 4, &length, 4);
    fix_checksum(t->bytes, t->length, 9);
}

static void madt_begin(struct table *t, uint32_t lapic_address, uint32_t flags)
{
    table_begin(t, "APIC");
    put32(t, lapic_address);
    put32(t, flags);
}

static void madt_lapic(struct table *t, uint8_t uid, uint8_t apic_id,
                       uint32_t flags)
{
    put8(t, ACPI_MADT_LOCAL_APIC); put8(t, 8);
    put8(t, uid); put8(t, apic_id); put32(t, flags);
}

static void madt_x2apic(struct table *t, uint32_t apic_id, uint32_t flags,
                        uint32_t uid)
{
    put8(t, ACPI_MADT_LOCAL_X2APIC); put8(t, 16); put16(t, 0);
    put32(t, apic_id); put32(t, flags); put32(t, uid);
}

static void madt_ioapic(struct table *t, uint8_t id, uint32_t address,
                        uint32_t gsi_base)
{
    put8(t, ACPI_MADT_IOAPIC); put8(t, 12);
    put8(t, id); put8(t, 0); put32(t, address); put32(t, gsi_base);
}

static void madt_override(struct table *t, uint8_t bus, uint8_t irq,
                          uint32_t gsi, uint16_t flags)
{
    put8(t, ACPI_MADT_INTERRUPT_OVERRIDE); put8(t, 10);
    put8(t, bus); put8(t, irq); put32(t, gsi); put16(t, flags);
}

static void madt_lapic_nmi(struct table *t, uint8_t uid, uint16_t flags,
                           uint8_t lint)
{
    put8(t, ACPI_MADT_LOCAL_APIC_NMI); put8(t, 6);
    put8(t, uid); put16(t, flags); put8(t, lint);
}

static void madt_x2apic_nmi(struct table *t, uint32_t uid, uint16_t flags,
                            uint8_t lint)
{
    put8(t, ACPI_MADT_LOCAL_X2APIC_NMI); put8(t, 12);
    put16(t, flags); put32(t, uid); put8(t, lint);
    put8(t, 0); put16(t, 0);
}

static void madt_lapic_address_override(struct table *t, uint64_t address)
{
    put8(t, ACPI_MADT_LOCAL_APIC_ADDRESS_OVERRIDE); put8(t, 12);
    put16(t, 0); put64(t, address);
}

/* A small machine: 2 CPUs, one IOAPIC, IRQ0 on GSI 2, IRQ 9 level/low. */
static void madt_small(struct table *t)
{
    madt_begin(t, 0xfee00000, ACPI_MADT_PCAT_COMPAT);
    madt_lapic(t, 0, 0, ACPI_CPU_ENABLED);
    madt_lapic(t, 1, 1, ACPI_CPU_ENABLED);
    madt_ioapic(t, 2, 0xfec00000, 0);
    madt_override(t, 0, 0, 2, 0);
    madt_override(t, 0, 9, 9, ACPI_INTI_TRIGGER_LEVEL | ACPI_INTI_POLARITY_LOW);
    table_end(t);
}

static void hpet_build(struct table *t, uint8_t address_space, uint64_t address)
{
    table_begin(t, "HPET");
    put32(t, 0x8086a201);               /* event timer block id */
    put8(t, address_space); put8(t, 64); put8(t, 0); put8(t, 0);
    put64(t, address);
    put8(t, 0); put16(t, 0x80); put8(t, 0); /* number, min tick, protection */
    table_end(t);
}

/* An RSDT (4-byte entries) or XSDT (8-byte entries). */
static void root_build(struct table *t, const char *signature,
                       const uint64_t *tables, size_t count)
{
    table_begin(t, signature);
    for (size_t i = 0; i < count; i++) {
        if (memcmp(signature, "XSDT", 4) == 0)
            put64(t, tables[i]);
        else
            put32(t, (uint32_t)tables[i]);
    }
    table_end(t);
}

static void rsdp_build(uint8_t rsdp[ACPI_RSDP_V2_SIZE], uint8_t revision,
                       uint32_t rsdt, uint64_t xsdt)
{
    uint32_t length = ACPI_RSDP_V2_SIZE;

    memset(rsdp, 0, ACPI_RSDP_V2_SIZE);
    memcpy(rsdp, "RSD PTR ", 8);
    memcpy(rsdp + 9, "NOHZKR", 6);
    rsdp[15] = revision;
    memcpy(rsdp + 16, &rsdt, 4);
    fix_checksum(rsdp, ACPI_RSDP_V1_SIZE, 8);
    if (revision >= 2) {
        memcpy(rsdp + 20, &length, 4);
        memcpy(rsdp + 24, &xsdt, 8);
        fix_checksum(rsdp, ACPI_RSDP_V2_SIZE, 32);
    }
}

static void phys_add_table(struct phys_memory *mem, uint64_t address,
                           const struct table *t)
{
    phys_add(mem, address, t->bytes, t->length);
}

/* Addresses of the synthetic machines' tables. */
#define MADT_AT   0x1000
#define HPET_AT   0x2000
#define RSDT_AT   0x3000
#define XSDT_AT   0x100004000ull        /* above 4 GiB: only the XSDT reaches it */
#define OTHER_AT  0x5000

/* ---- RSDP ---- */

static void test_rsdp_v1_valid(void **state)
{
    (void)state;
    uint8_t rsdp[ACPI_RSDP_V2_SIZE];

    rsdp_build(rsdp, 0, RSDT_AT, 0);
    assert_int_equal(acpi_rsdp_validate(rsdp, ACPI_RSDP_V1_SIZE), 0);
    assert_int_equal(acpi_rsdp_validate(rsdp, ACPI_RSDP_V1_SIZE - 1), -EINVAL);
    assert_int_equal(acpi_rsdp_validate(NULL, ACPI_RSDP_V1_SIZE), -EINVAL);
}

static void test_rsdp_bad_signature_or_checksum(void **state)
{
    (void)state;
    uint8_t rsdp[ACPI_RSDP_V2_SIZE];

    rsdp_build(rsdp, 0, RSDT_AT, 0);
    rsdp[19] ^= 1;
    assert_int_equal(acpi_rsdp_validate(rsdp, ACPI_RSDP_V1_SIZE), -EINVAL);

    rsdp_build(rsdp, 0, RSDT_AT, 0);
    rsdp[0] = 'r';
    fix_checksum(rsdp, ACPI_RSDP_V1_SIZE, 8);
    assert_int_equal(acpi_rsdp_validate(rsdp, ACPI_RSDP_V1_SIZE), -EINVAL);
}

static void test_rsdp_v2_extended_checksum(void **state)
{
    (void)state;
    uint8_t rsdp[ACPI_RSDP_V2_SIZE];
    uint32_t length;

    rsdp_build(rsdp, 2, RSDT_AT, XSDT_AT);
    assert_int_equal(acpi_rsdp_validate(rsdp, ACPI_RSDP_V2_SIZE), 0);
    /* A 2.0 RSDP cut to the 1.0 size cannot be verified. */
    assert_int_equal(acpi_rsdp_validate(rsdp, ACPI_RSDP_V1_SIZE), -EINVAL);

    /* Byte 33 is outside the 1.0 checksum, inside the extended one. */
    rsdp[33] = 0x55;
    assert_int_equal(acpi_rsdp_validate(rsdp, ACPI_RSDP_V2_SIZE), -EINVAL);

    /* A length field longer than what we were given. */
    rsdp_build(rsdp, 2, RSDT_AT, XSDT_AT);
    length = 40;
    memcpy(rsdp + 20, &length, 4);
    fix_checksum(rsdp, ACPI_RSDP_V2_SIZE, 32);
    assert_int_equal(acpi_rsdp_validate(rsdp, ACPI_RSDP_V2_SIZE), -EINVAL);

    /* A length field shorter than a 2.0 RSDP, with checksums that
     * would be right for that length. */
    length = 35;
    memcpy(rsdp + 20, &length, 4);
    fix_checksum(rsdp, 35, 32);
    assert_int_equal(acpi_rsdp_validate(rsdp, ACPI_RSDP_V2_SIZE), -EINVAL);
}

static void test_rsdp_scan(void **state)
{
    (void)state;
    uint8_t area[0x114] = { 0 };
    uint8_t rsdp[ACPI_RSDP_V2_SIZE];

    rsdp_build(rsdp, 0, RSDT_AT, 0);
    memcpy(area + 0x10, rsdp, ACPI_RSDP_V1_SIZE);
    area[0x10 + 16] ^= 0xff;        /* bad checksum: skipped */
    memcpy(area + 0x28, rsdp, ACPI_RSDP_V1_SIZE);   /* not on 16 bytes */
    memcpy(area + 0x40, rsdp, ACPI_RSDP_V1_SIZE);
    assert_ptr_equal(acpi_rsdp_scan(area, sizeof(area)), area + 0x40);

    area[0x40] = 0;
    assert_null(acpi_rsdp_scan(area, sizeof(area)));

    /* The last 20 bytes of the area are searched too, not past them. */
    memcpy(area + 0x100, rsdp, ACPI_RSDP_V1_SIZE);
    assert_ptr_equal(acpi_rsdp_scan(area, sizeof(area)), area + 0x100);
    assert_null(acpi_rsdp_scan(area, sizeof(area) - 1));
}

/* ---- table headers ---- */

static void test_table_validate(void **state)
{
    (void)state;
    struct table t;
    uint32_t length;

    hpet_build(&t, 0, 0xfed00000);
    assert_int_equal(acpi_table_validate(t.bytes, t.length), 0);
    assert_int_equal(acpi_table_validate(t.bytes, t.length - 1), -EINVAL);
    assert_int_equal(acpi_table_validate(t.bytes, 35), -EINVAL);
    assert_int_equal(acpi_table_validate(NULL, t.length), -EINVAL);
    t.bytes[50] ^= 1;
    assert_int_equal(acpi_table_validate(t.bytes, t.length), -EINVAL);

    /* 1 MiB and more is refused even when that much is readable. */
    uint8_t *big = calloc(1, ACPI_TABLE_MAX_LENGTH);
    assert_non_null(big);
    memcpy(big, "SSDT", 4);
    length = ACPI_TABLE_MAX_LENGTH - 1;
    memcpy(big + 4, &length, 4);
    fix_checksum(big, length, 9);
    assert_int_equal(acpi_table_validate(big, ACPI_TABLE_MAX_LENGTH), 0);
    length = ACPI_TABLE_MAX_LENGTH;
    memcpy(big + 4, &length, 4);
    fix_checksum(big, length, 9);
    assert_int_equal(acpi_table_validate(big, ACPI_TABLE_MAX_LENGTH), -EINVAL);
    free(big);
}

/* ---- acpi_parse on synthetic tables ---- */

static void test_parse_rsdt(void **state)
{
    (void)state;
    struct phys_memory mem = { 0 };
    struct table t;
    uint8_t rsdp[ACPI_RSDP_V2_SIZE];
    uint64_t tables[] = { MADT_AT, HPET_AT };
    static struct acpi_info info;

    madt_small(&t);
    phys_add_table(&mem, MADT_AT, &t);
    hpet_build(&t, 0, 0xfed00000);
    phys_add_table(&mem, HPET_AT, &t);
    root_build(&t, "RSDT", tables, 2);
    phys_add_table(&mem, RSDT_AT, &t);
    rsdp_build(rsdp, 0, RSDT_AT, 0);

    assert_int_equal(acpi_parse(rsdp, ACPI_RSDP_V1_SIZE, phys_map, &mem, &info), 0);
    assert_int_equal(info.revision, 0);
    assert_string_equal(info.oem_id, "NOHZKR");
    assert_false(info.root_is_xsdt);
    assert_int_equal(info.bad_tables, 0);
    assert_true(info.has_hpet);
    assert_int_equal(info.hpet_address, 0xfed00000);
    assert_true(info.has_madt);
    assert_int_equal(info.madt.lapic_address, 0xfee00000);
    assert_true(info.madt.has_legacy_pics);
    assert_int_equal(info.madt.cpu_count, 2);
    assert_int_equal(info.madt.cpus[1].apic_id, 1);
    assert_int_equal(info.madt.ioapic_count, 1);
    assert_int_equal(info.madt.ioapics[0].id, 2);
    assert_int_equal(info.madt.override_count, 2);
    assert_int_equal(mem.failed_maps, 0);
    phys_free(&mem);
}

/* Both roots present and different: the XSDT's tables must be used. */
static void test_parse_prefers_xsdt(void **state)
{
    (void)state;
    struct phys_memory mem = { 0 };
    struct table t;
    uint8_t rsdp[ACPI_RSDP_V2_SIZE];
    uint64_t rsdt_tables[] = { HPET_AT };
    uint64_t xsdt_tables[] = { MADT_AT, OTHER_AT };
    static struct acpi_info info;

    madt_small(&t);
    phys_add_table(&mem, MADT_AT, &t);
    hpet_build(&t, 0, 0xfed00000);
    phys_add_table(&mem, HPET_AT, &t);
    hpet_build(&t, 0, 0xfed80000);
    phys_add_table(&mem, OTHER_AT, &t);
    root_build(&t, "RSDT", rsdt_tables, 1);
    phys_add_table(&mem, RSDT_AT, &t);
    root_build(&t, "XSDT", xsdt_tables, 2);
    phys_add_table(&mem, XSDT_AT, &t);
    rsdp_build(rsdp, 2, RSDT_AT, XSDT_AT);

    assert_int_equal(acpi_parse(rsdp, sizeof(rsdp), phys_map, &mem, &info), 0);
    assert_int_equal(info.revision, 2);
    assert_true(info.root_is_xsdt);
    assert_int_equal(info.bad_tables, 0);
    assert_true(info.has_madt);
    assert_int_equal(info.hpet_address, 0xfed80000);

    /* Revision 2 with no XSDT address: the RSDT. */
    rsdp_build(rsdp, 2, RSDT_AT, 0);
    assert_int_equal(acpi_parse(rsdp, sizeof(rsdp), phys_map, &mem, &info), 0);
    assert_false(info.root_is_xsdt);
    assert_false(info.has_madt);
    assert_int_equal(info.hpet_address, 0xfed00000);
    assert_int_equal(info.bad_tables, 0);

    /* A broken XSDT: counted, and the RSDT is used instead. */
    rsdp_build(rsdp, 2, RSDT_AT, XSDT_AT);
    phys_bytes(&mem, XSDT_AT)[40] ^= 1;
    assert_int_equal(acpi_parse(rsdp, sizeof(rsdp), phys_map, &mem, &info), 0);
    assert_false(info.root_is_xsdt);
    assert_int_equal(info.bad_tables, 1);
    assert_int_equal(info.hpet_address, 0xfed00000);

    /* A revision-0 RSDP has no XSDT fields, whatever follows it. */
    rsdp_build(rsdp, 0, RSDT_AT, 0);
    assert_int_equal(acpi_parse(rsdp, ACPI_RSDP_V1_SIZE, phys_map, &mem, &info), 0);
    assert_false(info.root_is_xsdt);
    phys_free(&mem);
}

/* A table with a bad checksum is skipped and counted; the next MADT is
 * used, and the tables around it still are. */
static void test_parse_skips_bad_checksum(void **state)
{
    (void)state;
    struct phys_memory mem = { 0 };
    struct table t;
    uint8_t rsdp[ACPI_RSDP_V2_SIZE];
    uint64_t tables[] = { MADT_AT, HPET_AT, OTHER_AT };
    static struct acpi_info info;

    madt_small(&t);
    t.bytes[9] ^= 0x10;         /* checksum */
    phys_add_table(&mem, MADT_AT, &t);
    hpet_build(&t, 0, 0xfed00000);
    phys_add_table(&mem, HPET_AT, &t);
    madt_begin(&t, 0xfee00000, 0);
    madt_lapic(&t, 7, 3, ACPI_CPU_ENABLED);
    table_end(&t);
    phys_add_table(&mem, OTHER_AT, &t);
    root_build(&t, "RSDT", tables, 3);
    phys_add_table(&mem, RSDT_AT, &t);
    rsdp_build(rsdp, 0, RSDT_AT, 0);

    assert_int_equal(acpi_parse(rsdp, ACPI_RSDP_V1_SIZE, phys_map, &mem, &info), 0);
    assert_int_equal(info.bad_tables, 1);
    assert_true(info.has_hpet);
    assert_true(info.has_madt);
    assert_false(info.madt.has_legacy_pics);
    assert_int_equal(info.madt.cpu_count, 1);
    assert_int_equal(info.madt.cpus[0].apic_id, 3);
    assert_int_equal(info.madt.cpus[0].processor_uid, 7);

    /* Both MADTs valid: the first one wins. */
    phys_bytes(&mem, MADT_AT)[9] ^= 0x10;
    assert_int_equal(acpi_parse(rsdp, ACPI_RSDP_V1_SIZE, phys_map, &mem, &info), 0);
    assert_int_equal(info.bad_tables, 0);
    assert_int_equal(info.madt.cpu_count, 2);
    assert_true(info.madt.has_legacy_pics);
    phys_free(&mem);
}

/* Header lengths below 36 or of 1 MiB and more are refused before the
 * whole table is mapped. */
static void test_parse_skips_bad_lengths(void **state)
{
    (void)state;
    struct phys_memory mem = { 0 };
    struct table t;
    uint8_t rsdp[ACPI_RSDP_V2_SIZE];
    uint64_t tables[] = { MADT_AT, HPET_AT };
    static struct acpi_info info;
    uint32_t length;

    hpet_build(&t, 0, 0xfed00000);
    length = 20;
    memcpy(t.bytes + 4, &length, 4);
    fix_checksum(t.bytes, 20, 9);
    phys_add_table(&mem, MADT_AT, &t);
    hpet_build(&t, 0, 0xfed00000);
    length = ACPI_TABLE_MAX_LENGTH;
    memcpy(t.bytes + 4, &length, 4);
    phys_add_table(&mem, HPET_AT, &t);
    root_build(&t, "RSDT", tables, 2);
    phys_add_table(&mem, RSDT_AT, &t);
    rsdp_build(rsdp, 0, RSDT_AT, 0);

    assert_int_equal(acpi_parse(rsdp, ACPI_RSDP_V1_SIZE, phys_map, &mem, &info), 0);
    assert_int_equal(info.bad_tables, 2);
    assert_false(info.has_hpet);
    assert_int_equal(mem.failed_maps, 0);   /* refused, never asked for */
    phys_free(&mem);
}

/* Unmappable and null table addresses are counted, not followed. */
static void test_parse_map_returns_null(void **state)
{
    (void)state;
    struct phys_memory mem = { 0 };
    struct table t;
    uint8_t rsdp[ACPI_RSDP_V2_SIZE];
    uint64_t tables[] = { 0x9000, 0, MADT_AT };
    static struct acpi_info info;

    madt_small(&t);
    phys_add_table(&mem, MADT_AT, &t);
    /* Its header maps, its body (past the region) does not. */
    hpet_build(&t, 0, 0xfed00000);
    phys_add(&mem, 0x9000, t.bytes, 40);
    root_build(&t, "RSDT", tables, 3);
    phys_add_table(&mem, RSDT_AT, &t);
    rsdp_build(rsdp, 0, RSDT_AT, 0);

    assert_int_equal(acpi_parse(rsdp, ACPI_RSDP_V1_SIZE, phys_map, &mem, &info), 0);
    assert_int_equal(info.bad_tables, 2);
    assert_int_equal(mem.failed_maps, 1);
    assert_true(info.has_madt);
    assert_false(info.has_hpet);

    /* No root table at all. */
    assert_int_equal(acpi_parse(rsdp, ACPI_RSDP_V1_SIZE, map_nothing, NULL, &info),
                     -EFAULT);
    rsdp_build(rsdp, 2, 0, XSDT_AT);
    assert_int_equal(acpi_parse(rsdp, sizeof(rsdp), phys_map, &mem, &info), -EFAULT);
    assert_int_equal(info.bad_tables, 1);
    rsdp_build(rsdp, 0, 0, 0);
    assert_int_equal(acpi_parse(rsdp, ACPI_RSDP_V1_SIZE, phys_map, &mem, &info), -EINVAL);
    /* The RSDT address points at a valid table that is not an RSDT. */
    rsdp_build(rsdp, 0, MADT_AT, 0);
    assert_int_equal(acpi_parse(rsdp, ACPI_RSDP_V1_SIZE, phys_map, &mem, &info), -EINVAL);
    /* A bad RSDP. */
    rsdp[8] ^= 1;
    assert_int_equal(acpi_parse(rsdp, ACPI_RSDP_V1_SIZE, phys_map, &mem, &info), -EINVAL);
    phys_free(&mem);
}

/* A MADT with a good checksum but a malformed entry is counted as bad. */
static void test_parse_malformed_madt(void **state)
{
    (void)state;
    struct phys_memory mem = { 0 };
    struct table t;
    uint8_t rsdp[ACPI_RSDP_V2_SIZE];
    uint64_t tables[] = { MADT_AT };
    static struct acpi_info info;

    madt_begin(&t, 0xfee00000, 0);
    madt_lapic(&t, 0, 0, ACPI_CPU_ENABLED);
    put8(&t, ACPI_MADT_LOCAL_APIC); put8(&t, 0);
    table_end(&t);
    phys_add_table(&mem, MADT_AT, &t);
    root_build(&t, "RSDT", tables, 1);
    phys_add_table(&mem, RSDT_AT, &t);
    rsdp_build(rsdp, 0, RSDT_AT, 0);

    assert_int_equal(acpi_parse(rsdp, ACPI_RSDP_V1_SIZE, phys_map, &mem, &info), 0);
    assert_false(info.has_madt);
    assert_int_equal(info.madt.cpu_count, 0);
    assert_int_equal(info.bad_tables, 1);
    phys_free(&mem);
}

static void test_parse_hpet(void **state)
{
    (void)state;
    struct phys_memory mem = { 0 };
    struct table t;
    uint8_t rsdp[ACPI_RSDP_V2_SIZE];
    uint64_t tables[] = { HPET_AT, OTHER_AT, MADT_AT };
    static struct acpi_info info;

    hpet_build(&t, 0, 0);               /* no address: unusable */
    phys_add_table(&mem, MADT_AT, &t);
    hpet_build(&t, 1, 0x1234);          /* in I/O space: unusable */
    phys_add_table(&mem, HPET_AT, &t);
    hpet_build(&t, 0, 0xfed00000);
    t.length = 44;                  /* too short for its address */
    table_end(&t);
    phys_add_table(&mem, OTHER_AT, &t);
    root_build(&t, "RSDT", tables, 3);
    phys_add_table(&mem, RSDT_AT, &t);
    rsdp_build(rsdp, 0, RSDT_AT, 0);

    assert_int_equal(acpi_parse(rsdp, ACPI_RSDP_V1_SIZE, phys_map, &mem, &info), 0);
    assert_false(info.has_hpet);
    assert_int_equal(info.hpet_address, 0);
    assert_int_equal(info.bad_tables, 1);
    phys_free(&mem);
}

/* ---- acpi_parse_madt ---- */

/* Parses a built MADT from an exact-size copy, so that ASan sees any read
 * past its end. */
static int parse_madt(const struct table *t, struct acpi_madt_info *madt)
{
    uint8_t *copy = malloc(t->length);
    assert_non_null(copy);
    memcpy(copy, t->bytes, t->length);
    int err = acpi_parse_madt(copy, t->length, madt);
    free(copy);
    return err;
}

static void test_madt_small(void **state)
{
    (void)state;
    struct table t;
    static struct acpi_madt_info madt;

    madt_small(&t);
    assert_int_equal(parse_madt(&t, &madt), 0);
    assert_int_equal(madt.lapic_address, 0xfee00000);
    assert_true(madt.has_legacy_pics);
    assert_int_equal(madt.cpu_count, 2);
    assert_int_equal(madt.cpus[0].apic_id, 0);
    assert_int_equal(madt.cpus[1].apic_id, 1);
    assert_int_equal(madt.cpus[1].processor_uid, 1);
    assert_true(madt.cpus[1].enabled);
    assert_int_equal(madt.cpus_skipped, 0);
    assert_int_equal(madt.ioapic_count, 1);
    assert_int_equal(madt.ioapics[0].id, 2);
    assert_int_equal(madt.ioapics[0].address, 0xfec00000);
    assert_int_equal(madt.ioapics[0].gsi_base, 0);
    assert_int_equal(madt.override_count, 2);
    assert_int_equal(madt.overrides[1].isa_irq, 9);
    assert_int_equal(madt.overrides[1].gsi, 9);
    assert_int_equal(madt.overrides[1].flags, 0xf);
    assert_int_equal(madt.nmi_count, 0);
    assert_int_equal(madt.entries_dropped, 0);
}

/* Fills *madt with garbage, to see that a failing parse zeroes it. */
static void scribble(struct acpi_madt_info *madt)
{
    memset(madt, 0xa5, sizeof(*madt));
}

static bool is_zeroed(const struct acpi_madt_info *madt)
{
    static const struct acpi_madt_info zero;
    return madt->cpu_count == 0 && madt->lapic_address == 0 &&
           memcmp(madt->cpus, zero.cpus, sizeof(zero.cpus)) == 0;
}

static void test_madt_truncated(void **state)
{
    (void)state;
    struct table t;
    static struct acpi_madt_info madt;

    madt_small(&t);
    uint8_t *copy = malloc(t.length - 1);   /* ASan: exact size */
    memcpy(copy, t.bytes, t.length - 1);
    scribble(&madt);
    assert_int_equal(acpi_parse_madt(copy, t.length - 1, &madt), -EINVAL);
    assert_true(is_zeroed(&madt));
    free(copy);

    /* A header whose length stops before the MADT's own fields. */
    madt_begin(&t, 0xfee00000, 0);
    t.length = 40;
    table_end(&t);
    assert_int_equal(parse_madt(&t, &madt), -EINVAL);

    /* Another table's signature. */
    madt_small(&t);
    memcpy(t.bytes, "APIX", 4);
    table_end(&t);
    assert_int_equal(parse_madt(&t, &madt), -EINVAL);

    /* No entries at all is well-formed (if useless). */
    madt_begin(&t, 0xfee00000, 0);
    table_end(&t);
    assert_int_equal(parse_madt(&t, &madt), 0);
    assert_int_equal(madt.cpu_count, 0);
}

/* Length 0 would loop forever on a naive walk; 1 is no better. */
static void test_madt_entry_length_zero_or_one(void **state)
{
    (void)state;
    struct table t;
    static struct acpi_madt_info madt;

    for (uint8_t length = 0; length < 2; length++) {
        madt_begin(&t, 0xfee00000, 0);
        madt_lapic(&t, 0, 0, ACPI_CPU_ENABLED);
        put8(&t, 0x7f); put8(&t, length);   /* unknown type */
        put16(&t, 0); put32(&t, 0);
        table_end(&t);
        scribble(&madt);
        assert_int_equal(parse_madt(&t, &madt), -EINVAL);
        assert_true(is_zeroed(&madt));
    }
}

static void test_madt_entry_crossing_end(void **state)
{
    (void)state;
    struct table t;
    static struct acpi_madt_info madt;

    madt_begin(&t, 0xfee00000, 0);
    madt_lapic(&t, 0, 0, ACPI_CPU_ENABLED);
    madt_ioapic(&t, 0, 0xfec00000, 0);
    t.length -= 4;              /* the IOAPIC entry says 12 */
    table_end(&t);
    assert_int_equal(parse_madt(&t, &madt), -EINVAL);

    /* A lone byte after the last entry: not even an entry header. */
    madt_begin(&t, 0xfee00000, 0);
    madt_lapic(&t, 0, 0, ACPI_CPU_ENABLED);
    put8(&t, ACPI_MADT_LOCAL_APIC);
    table_end(&t);
    assert_int_equal(parse_madt(&t, &madt), -EINVAL);
}

/* Each known type must be long enough for the fields we read. */
static void test_madt_entry_too_short_for_type(void **state)
{
    (void)state;
    struct table t;
    static struct acpi_madt_info madt;

    madt_begin(&t, 0xfee00000, 0);
    put8(&t, ACPI_MADT_IOAPIC); put8(&t, 8);
    put8(&t, 0); put8(&t, 0); put32(&t, 0xfec00000);
    table_end(&t);
    assert_int_equal(parse_madt(&t, &madt), -EINVAL);

    madt_begin(&t, 0xfee00000, 0);
    put8(&t, ACPI_MADT_LOCAL_X2APIC); put8(&t, 12);
    put16(&t, 0); put32(&t, 4); put32(&t, ACPI_CPU_ENABLED);
    table_end(&t);
    assert_int_equal(parse_madt(&t, &madt), -EINVAL);
}

/* Unknown types are stepped over; longer known entries are accepted. */
static void test_madt_unknown_and_longer_entries(void **state)
{
    (void)state;
    struct table t;
    static struct acpi_madt_info madt;

    madt_begin(&t, 0xfee00000, 0);
    put8(&t, 0x7f); put8(&t, 5); put8(&t, 1); put8(&t, 2); put8(&t, 3);
    put8(&t, ACPI_MADT_NMI_SOURCE); put8(&t, 8);
    put16(&t, 0); put32(&t, 0);
    put8(&t, ACPI_MADT_LOCAL_APIC); put8(&t, 10);   /* 2 bytes of future */
    put8(&t, 4); put8(&t, 6); put32(&t, ACPI_CPU_ENABLED); put16(&t, 0xffff);
    madt_lapic(&t, 5, 7, ACPI_CPU_ENABLED);
    table_end(&t);
    assert_int_equal(parse_madt(&t, &madt), 0);
    assert_int_equal(madt.cpu_count, 2);
    assert_int_equal(madt.cpus[0].apic_id, 6);
    assert_int_equal(madt.cpus[0].processor_uid, 4);
    assert_int_equal(madt.cpus[1].apic_id, 7);
    assert_int_equal(madt.nmi_count, 0);
}

static void test_madt_cpu_flags(void **state)
{
    (void)state;
    struct table t;
    static struct acpi_madt_info madt;

    madt_begin(&t, 0xfee00000, 0);
    madt_lapic(&t, 0, 0, ACPI_CPU_ENABLED);
    madt_lapic(&t, 1, 1, 0);            /* disabled: absent */
    madt_lapic(&t, 2, 2, ACPI_CPU_ONLINE_CAPABLE);
    madt_lapic(&t, 3, 3, ACPI_CPU_ENABLED | ACPI_CPU_ONLINE_CAPABLE);
    madt_x2apic(&t, 9, 0, 9);           /* disabled: absent */
    madt_x2apic(&t, 10, ACPI_CPU_ONLINE_CAPABLE, 10);
    table_end(&t);
    assert_int_equal(parse_madt(&t, &madt), 0);
    assert_int_equal(madt.cpu_count, 4);
    assert_int_equal(madt.cpus_skipped, 0);
    assert_int_equal(madt.cpus[0].apic_id, 0);
    assert_true(madt.cpus[0].enabled);
    assert_int_equal(madt.cpus[1].apic_id, 2);
    assert_false(madt.cpus[1].enabled);
    assert_int_equal(madt.cpus[2].apic_id, 3);
    assert_true(madt.cpus[2].enabled);
    assert_int_equal(madt.cpus[3].apic_id, 10);
    assert_false(madt.cpus[3].enabled);
}

/* x2APIC entries with small ids are usable; ids from 255 up, and ids
 * already listed, are counted as skipped. */
static void test_madt_x2apic(void **state)
{
    (void)state;
    struct table t;
    static struct acpi_madt_info madt;

    madt_begin(&t, 0xfee00000, 0);
    madt_lapic(&t, 0, 0, ACPI_CPU_ENABLED);
    madt_x2apic(&t, 7, ACPI_CPU_ENABLED, 100);
    madt_x2apic(&t, 300, ACPI_CPU_ENABLED, 101);
    madt_x2apic(&t, 0, ACPI_CPU_ENABLED, 102);  /* duplicate of CPU 0 */
    madt_lapic(&t, 103, 0xff, ACPI_CPU_ENABLED);    /* broadcast id */
    madt_x2apic(&t, 400, 0, 104);           /* disabled: not counted */
    table_end(&t);
    assert_int_equal(parse_madt(&t, &madt), 0);
    assert_int_equal(madt.cpu_count, 2);
    assert_int_equal(madt.cpus[1].apic_id, 7);
    assert_int_equal(madt.cpus[1].processor_uid, 100);
    assert_int_equal(madt.cpus_skipped, 3);
}

static void test_madt_too_many_cpus(void **state)
{
    (void)state;
    struct table t;
    static struct acpi_madt_info madt;

    madt_begin(&t, 0xfee00000, 0);
    for (unsigned int i = 0; i < ACPI_MAX_CPUS + 6; i++)
        madt_lapic(&t, (uint8_t)(200 - i), (uint8_t)i, ACPI_CPU_ENABLED);
    table_end(&t);
    assert_int_equal(parse_madt(&t, &madt), 0);
    assert_int_equal(madt.cpu_count, ACPI_MAX_CPUS);
    assert_int_equal(madt.cpus_skipped, 6);
    assert_int_equal(madt.cpus[ACPI_MAX_CPUS - 1].apic_id, ACPI_MAX_CPUS - 1);
    assert_int_equal(madt.cpus[ACPI_MAX_CPUS - 1].processor_uid,
                     (uint8_t)(200 - (ACPI_MAX_CPUS - 1)));
}

/* QEMU's pc machine at -smp 255: APIC IDs 0..254, every one recorded;
 * ID 255 is the xAPIC broadcast and never a CPU. */
static void test_madt_255_cpus(void **state)
{
    (void)state;
    struct table t;
    static struct acpi_madt_info madt;

    madt_begin(&t, 0xfee00000, 0);
    for (unsigned int i = 0; i <= 255; i++)
        madt_lapic(&t, (uint8_t)i, (uint8_t)i, ACPI_CPU_ENABLED);
    table_end(&t);
    assert_int_equal(parse_madt(&t, &madt), 0);
    assert_int_equal(madt.cpu_count, 255);
    assert_int_equal(madt.cpus_skipped, 1);
    for (unsigned int i = 0; i < 255; i++)
        assert_int_equal(madt.cpus[i].apic_id, i);
}

static void test_madt_caps_other_arrays(void **state)
{
    (void)state;
    struct table t;
    static struct acpi_madt_info madt;

    madt_begin(&t, 0xfee00000, 0);
    for (unsigned int i = 0; i < ACPI_MAX_IOAPICS + 1; i++)
        madt_ioapic(&t, (uint8_t)i, 0xfec00000 + i * 0x1000, i * 24);
    for (unsigned int i = 0; i < ACPI_MAX_OVERRIDES + 2; i++)
        madt_override(&t, 0, (uint8_t)i, 100 + i, 0);
    for (unsigned int i = 0; i < ACPI_MAX_LAPIC_NMIS + 3; i++)
        madt_lapic_nmi(&t, (uint8_t)i, 0, 1);
    table_end(&t);
    assert_int_equal(parse_madt(&t, &madt), 0);
    assert_int_equal(madt.ioapic_count, ACPI_MAX_IOAPICS);
    assert_int_equal(madt.ioapics[7].address, 0xfec07000);
    assert_int_equal(madt.ioapics[7].gsi_base, 7 * 24);
    assert_int_equal(madt.override_count, ACPI_MAX_OVERRIDES);
    assert_int_equal(madt.nmi_count, ACPI_MAX_LAPIC_NMIS);
    assert_int_equal(madt.entries_dropped, 1 + 2 + 3);
}

static void test_madt_lapic_address_override_and_nmis(void **state)
{
    (void)state;
    struct table t;
    static struct acpi_madt_info madt;

    madt_begin(&t, 0xfee00000, 0);
    madt_lapic_nmi(&t, 0xff, 0, 1);
    madt_lapic_address_override(&t, 0x123456789000ull);
    madt_lapic_nmi(&t, 3, ACPI_INTI_POLARITY_LOW | ACPI_INTI_TRIGGER_LEVEL, 0);
    madt_x2apic_nmi(&t, ACPI_NMI_ALL_PROCESSORS, ACPI_INTI_TRIGGER_EDGE, 1);
    madt_override(&t, 1, 4, 20, 0);         /* not ISA: ignored */
    table_end(&t);
    assert_int_equal(parse_madt(&t, &madt), 0);
    assert_int_equal(madt.lapic_address, 0x123456789000ull);
    assert_int_equal(madt.nmi_count, 3);
    assert_int_equal(madt.nmis[0].processor_uid, ACPI_NMI_ALL_PROCESSORS);
    assert_int_equal(madt.nmis[0].lint, 1);
    assert_int_equal(madt.nmis[1].processor_uid, 3);
    assert_int_equal(madt.nmis[1].flags, 0xf);
    assert_int_equal(madt.nmis[1].lint, 0);
    assert_int_equal(madt.nmis[2].processor_uid, ACPI_NMI_ALL_PROCESSORS);
    assert_int_equal(madt.nmis[2].flags, ACPI_INTI_TRIGGER_EDGE);
    assert_int_equal(madt.override_count, 0);
}

static void test_irq_to_gsi(void **state)
{
    (void)state;
    struct table t;
    static struct acpi_madt_info madt;
    uint16_t flags = 0xffff;

    madt_small(&t);
    assert_int_equal(parse_madt(&t, &madt), 0);
    assert_int_equal(acpi_irq_to_gsi(&madt, 0, &flags), 2);
    assert_int_equal(flags, 0);
    assert_int_equal(acpi_irq_to_gsi(&madt, 9, &flags), 9);
    assert_int_equal(flags, 0xf);
    assert_true(acpi_override_is_level(flags));
    assert_true(acpi_override_is_active_low(flags));
    flags = 0xffff;
    assert_int_equal(acpi_irq_to_gsi(&madt, 4, &flags), 4);
    assert_int_equal(flags, 0);
    assert_int_equal(acpi_irq_to_gsi(&madt, 0, NULL), 2);

    /* Two overrides of one IRQ: the first one counts. */
    madt_begin(&t, 0xfee00000, 0);
    madt_override(&t, 0, 8, 20, ACPI_INTI_TRIGGER_EDGE);
    madt_override(&t, 0, 8, 21, ACPI_INTI_TRIGGER_LEVEL);
    table_end(&t);
    assert_int_equal(parse_madt(&t, &madt), 0);
    assert_int_equal(acpi_irq_to_gsi(&madt, 8, &flags), 20);
    assert_int_equal(flags, ACPI_INTI_TRIGGER_EDGE);
}

static void test_inti_flag_decoding(void **state)
{
    (void)state;
    /* 0: bus default, which for ISA is edge and active-high. */
    assert_false(acpi_override_is_level(0));
    assert_false(acpi_override_is_active_low(0));
    /* QEMU's PCI link IRQs: level, active-high. */
    assert_true(acpi_override_is_level(0xd));
    assert_false(acpi_override_is_active_low(0xd));
    assert_false(acpi_override_is_level(0x7));
    assert_true(acpi_override_is_active_low(0x7));
    assert_false(acpi_override_is_level(0x5));
    assert_false(acpi_override_is_active_low(0x5));
}

/* ---- tables captured from QEMU ---- */

/* Lays a captured machine out in fake memory; returns its RSDP piece. */
static const struct acpi_fixture_piece *
load_machine(struct phys_memory *mem, const struct acpi_fixture_piece *pieces)
{
    const struct acpi_fixture_piece *rsdp = NULL;

    for (const struct acpi_fixture_piece *p = pieces; p->bytes; p++) {
        if (strcmp(p->signature, "RSDP") == 0)
            rsdp = p;
        else
            phys_add(mem, p->address, p->bytes, p->length);
    }
    assert_non_null(rsdp);
    return rsdp;
}

/* What QEMU 7.2's MADT says for both machine types, whatever the firmware:
 * one LAPIC per possible CPU (ids = uids = 0..n-1), IOAPIC 0, IRQ0 on GSI
 * 2, the PCI link IRQs 5, 9, 10, 11 level-triggered active-high, and NMI on
 * LINT1 of every CPU. */
static void assert_qemu_madt(const struct acpi_madt_info *madt,
                             unsigned int enabled_cpus)
{
    static const struct acpi_irq_override overrides[] = {
        { 0, 2, 0 }, { 5, 5, 0xd }, { 9, 9, 0xd }, { 10, 10, 0xd },
        { 11, 11, 0xd },
    };

    assert_int_equal(madt->lapic_address, 0xfee00000);
    assert_true(madt->has_legacy_pics);
    assert_int_equal(madt->cpu_count, enabled_cpus);
    for (unsigned int i = 0; i < enabled_cpus; i++) {
        assert_int_equal(madt->cpus[i].apic_id, i);
        assert_int_equal(madt->cpus[i].processor_uid, i);
        assert_true(madt->cpus[i].enabled);
    }
    assert_int_equal(madt->cpus_skipped, 0);
    assert_int_equal(madt->ioapic_count, 1);
    assert_int_equal(madt->ioapics[0].id, 0);
    assert_int_equal(madt->ioapics[0].address, 0xfec00000);
    assert_int_equal(madt->ioapics[0].gsi_base, 0);
    assert_int_equal(madt->override_count, 5);
    for (unsigned int i = 0; i < 5; i++) {
        assert_int_equal(madt->overrides[i].isa_irq, overrides[i].isa_irq);
        assert_int_equal(madt->overrides[i].gsi, overrides[i].gsi);
        assert_int_equal(madt->overrides[i].flags, overrides[i].flags);
    }
    assert_int_equal(madt->nmi_count, 1);
    assert_int_equal(madt->nmis[0].processor_uid, ACPI_NMI_ALL_PROCESSORS);
    assert_int_equal(madt->nmis[0].flags, 0);
    assert_int_equal(madt->nmis[0].lint, 1);
    assert_int_equal(madt->entries_dropped, 0);
}

static void check_qemu_machine(const struct acpi_fixture_piece *pieces,
                               uint8_t revision, bool xsdt,
                               unsigned int enabled_cpus)
{
    struct phys_memory mem = { 0 };
    static struct acpi_info info;

    const struct acpi_fixture_piece *rsdp = load_machine(&mem, pieces);
    assert_int_equal(acpi_parse(rsdp->bytes, rsdp->length, phys_map, &mem,
                                &info), 0);
    assert_int_equal(info.revision, revision);
    assert_int_equal(info.root_is_xsdt, xsdt);
    assert_string_equal(info.oem_id, "BOCHS ");
    assert_int_equal(info.bad_tables, 0);
    assert_int_equal(mem.failed_maps, 0);
    assert_true(info.has_hpet);
    assert_int_equal(info.hpet_address, 0xfed00000);
    assert_true(info.has_madt);
    assert_qemu_madt(&info.madt, enabled_cpus);
    phys_free(&mem);
}

static void test_qemu_pc_smp4(void **state)
{
    (void)state;
    check_qemu_machine(qemu_pc_smp4, 0, false, 4);
}

static void test_qemu_pc_smp8(void **state)
{
    (void)state;
    check_qemu_machine(qemu_pc_smp8, 0, false, 8);
}

/* -smp 2,maxcpus=4: CPUs 2 and 3 are listed with flags 0 (hot-pluggable
 * slots QEMU does not mark online-capable), so they must not appear. */
static void test_qemu_pc_smp2_max4(void **state)
{
    (void)state;
    check_qemu_machine(qemu_pc_smp2_max4, 0, false, 2);
}

static void test_qemu_q35_smp4(void **state)
{
    (void)state;
    check_qemu_machine(qemu_q35_smp4, 0, false, 4);
}

/* OVMF publishes a 2.0 RSDP and an XSDT (the kernel gets the RSDP from
 * the multiboot2 tag, not from a scan). */
static void test_qemu_q35_smp4_ovmf(void **state)
{
    (void)state;
    check_qemu_machine(qemu_q35_smp4_ovmf, 2, true, 4);
}

/* SeaBIOS puts its RSDP in the BIOS area that the kernel scans. */
static void test_qemu_pc_scan_bios_area(void **state)
{
    (void)state;
    const size_t bios_start = 0xe0000, bios_length = 0x20000;
    struct phys_memory mem = { 0 };
    static struct acpi_info info;

    const struct acpi_fixture_piece *rsdp = load_machine(&mem, qemu_pc_smp4);
    uint8_t *bios = calloc(1, bios_length);
    assert_non_null(bios);
    memcpy(bios + (rsdp->address - bios_start), rsdp->bytes, rsdp->length);
    const uint8_t *found = acpi_rsdp_scan(bios, bios_length);
    assert_ptr_equal(found, bios + (rsdp->address - bios_start));
    assert_int_equal(acpi_parse(found, bios + bios_length - found, phys_map,
                                &mem, &info), 0);
    assert_int_equal(info.madt.cpu_count, 4);
    free(bios);
    phys_free(&mem);
}

/* One flipped byte in a real MADT: skipped and counted, HPET still found;
 * and the real MADT cut short by one byte is refused. */
static void test_qemu_corrupt_madt(void **state)
{
    (void)state;
    struct phys_memory mem = { 0 };
    static struct acpi_info info;
    const struct acpi_fixture_piece *madt = NULL;

    const struct acpi_fixture_piece *rsdp = load_machine(&mem, qemu_pc_smp4);
    for (const struct acpi_fixture_piece *p = qemu_pc_smp4; p->bytes; p++)
        if (strcmp(p->signature, "APIC") == 0)
            madt = p;
    assert_non_null(madt);
    phys_bytes(&mem, madt->address)[0x30] ^= 0x01;  /* CPU 0's flags */
    assert_int_equal(acpi_parse(rsdp->bytes, rsdp->length, phys_map, &mem,
                                &info), 0);
    assert_false(info.has_madt);
    assert_int_equal(info.bad_tables, 1);
    assert_true(info.has_hpet);

    assert_int_equal(acpi_parse_madt(madt->bytes, madt->length - 1,
                                     &info.madt), -EINVAL);
    assert_int_equal(acpi_parse_madt(madt->bytes, madt->length,
                                     &info.madt), 0);
    phys_free(&mem);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rsdp_v1_valid),
        cmocka_unit_test(test_rsdp_bad_signature_or_checksum),
        cmocka_unit_test(test_rsdp_v2_extended_checksum),
        cmocka_unit_test(test_rsdp_scan),
        cmocka_unit_test(test_table_validate),
        cmocka_unit_test(test_parse_rsdt),
        cmocka_unit_test(test_parse_prefers_xsdt),
        cmocka_unit_test(test_parse_skips_bad_checksum),
        cmocka_unit_test(test_parse_skips_bad_lengths),
        cmocka_unit_test(test_parse_map_returns_null),
        cmocka_unit_test(test_parse_malformed_madt),
        cmocka_unit_test(test_parse_hpet),
        cmocka_unit_test(test_madt_small),
        cmocka_unit_test(test_madt_truncated),
        cmocka_unit_test(test_madt_entry_length_zero_or_one),
        cmocka_unit_test(test_madt_entry_crossing_end),
        cmocka_unit_test(test_madt_entry_too_short_for_type),
        cmocka_unit_test(test_madt_unknown_and_longer_entries),
        cmocka_unit_test(test_madt_cpu_flags),
        cmocka_unit_test(test_madt_x2apic),
        cmocka_unit_test(test_madt_too_many_cpus),
        cmocka_unit_test(test_madt_255_cpus),
        cmocka_unit_test(test_madt_caps_other_arrays),
        cmocka_unit_test(test_madt_lapic_address_override_and_nmis),
        cmocka_unit_test(test_irq_to_gsi),
        cmocka_unit_test(test_inti_flag_decoding),
        cmocka_unit_test(test_qemu_pc_smp4),
        cmocka_unit_test(test_qemu_pc_smp8),
        cmocka_unit_test(test_qemu_pc_smp2_max4),
        cmocka_unit_test(test_qemu_q35_smp4),
        cmocka_unit_test(test_qemu_q35_smp4_ovmf),
        cmocka_unit_test(test_qemu_pc_scan_bios_area),
        cmocka_unit_test(test_qemu_corrupt_madt),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
