/* ACPI tables: just enough of them to find the CPUs, the IOAPICs, how ISA
 * IRQs are wired to them, and the HPET.
 *
 * The parser is pure: it never touches a physical address itself, but asks
 * the caller's map function for a readable pointer, and it trusts no byte
 * of the firmware's: every length is checked against what was mapped and
 * every table's checksum is verified. The same file is compiled into the
 * kernel and into the host unit tests (tests/host/test_acpi.c).
 *
 * Left out on purpose: AML (DSDT/SSDT), the FADT, SRAT/SLIT (NUMA), MCFG
 * (PCIe). nohzk uses the xAPIC, so CPUs whose APIC id needs x2APIC mode
 * are counted, not recorded.
 */
#ifndef NOHZK_ARCH_X86_ACPI_TABLES_H
#define NOHZK_ARCH_X86_ACPI_TABLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/lib/cpumask.h"

#define ACPI_MAX_CPUS       MAX_CPUS
#define ACPI_MAX_IOAPICS     8
#define ACPI_MAX_OVERRIDES  16
#define ACPI_MAX_LAPIC_NMIS  8

#define ACPI_RSDP_V1_SIZE       20  /* ACPI 1.0: up to the RSDT address */
#define ACPI_RSDP_V2_SIZE       36  /* ACPI 2.0+: adds length and XSDT address */
#define ACPI_TABLE_HEADER_SIZE  36
/* No table nohzk reads comes close: a bigger length is a corrupt header. */
#define ACPI_TABLE_MAX_LENGTH   (1u << 20)

/* MADT ("APIC" table) entry types. */
enum acpi_madt_entry_type {
    ACPI_MADT_LOCAL_APIC                 = 0,
    ACPI_MADT_IOAPIC                     = 1,
    ACPI_MADT_INTERRUPT_OVERRIDE         = 2,
    ACPI_MADT_NMI_SOURCE                 = 3,
    ACPI_MADT_LOCAL_APIC_NMI             = 4,
    ACPI_MADT_LOCAL_APIC_ADDRESS_OVERRIDE = 5,
    ACPI_MADT_LOCAL_X2APIC               = 9,
    ACPI_MADT_LOCAL_X2APIC_NMI           = 10,
};

/* MADT flags: the 8259 PICs are present and must be masked by the OS. */
#define ACPI_MADT_PCAT_COMPAT       (1u << 0)

/* Local APIC / x2APIC entry flags. */
#define ACPI_CPU_ENABLED            (1u << 0)
#define ACPI_CPU_ONLINE_CAPABLE     (1u << 1)  /* may be enabled at run time */

/* MPS INTI flags of interrupt source overrides and NMI entries. "Bus
 * default" (0) means, for the ISA bus: edge-triggered, active-high. */
#define ACPI_INTI_POLARITY_MASK     0x3u
#define ACPI_INTI_POLARITY_HIGH     0x1u
#define ACPI_INTI_POLARITY_LOW      0x3u
#define ACPI_INTI_TRIGGER_MASK      0xcu
#define ACPI_INTI_TRIGGER_EDGE      0x4u
#define ACPI_INTI_TRIGGER_LEVEL     0xcu

/* An NMI entry whose processor uid is this applies to every CPU. */
#define ACPI_NMI_ALL_PROCESSORS     0xffffffffu

static inline bool acpi_override_is_level(uint16_t flags)
{
    return (flags & ACPI_INTI_TRIGGER_MASK) == ACPI_INTI_TRIGGER_LEVEL;
}

static inline bool acpi_override_is_active_low(uint16_t flags)
{
    return (flags & ACPI_INTI_POLARITY_MASK) == ACPI_INTI_POLARITY_LOW;
}

struct acpi_cpu {
    uint32_t apic_id;
    uint32_t processor_uid;   /* ACPI's name for the CPU (NMI entries use it) */
    bool enabled;             /* false: only online-capable, not started yet */
};

struct acpi_ioapic {
    uint8_t id;
    uint32_t address;         /* physical MMIO base */
    uint32_t gsi_base;        /* first global system interrupt it serves */
};

struct acpi_irq_override {
    uint8_t isa_irq;
    uint32_t gsi;
    uint16_t flags;           /* ACPI_INTI_* */
};

struct acpi_lapic_nmi {
    uint32_t processor_uid;   /* or ACPI_NMI_ALL_PROCESSORS */
    uint16_t flags;           /* ACPI_INTI_* */
    uint8_t lint;             /* LINT0 or LINT1 pin of the local APIC */
};

struct acpi_madt_info {
    uint64_t lapic_address;   /* physical, after any address override */
    bool has_legacy_pics;     /* ACPI_MADT_PCAT_COMPAT */

    unsigned int cpu_count;       /* in MADT order; the BSP is not always first */
    struct acpi_cpu cpus[ACPI_MAX_CPUS];
    /* Usable CPUs not recorded: past ACPI_MAX_CPUS, APIC id >= 255
     * (x2APIC only), or an APIC id already seen. */
    unsigned int cpus_skipped;

    unsigned int ioapic_count;
    struct acpi_ioapic ioapics[ACPI_MAX_IOAPICS];
    unsigned int override_count;
    struct acpi_irq_override overrides[ACPI_MAX_OVERRIDES];
    unsigned int nmi_count;
    struct acpi_lapic_nmi nmis[ACPI_MAX_LAPIC_NMIS];
    /* IOAPIC, override and NMI entries that did not fit their arrays. */
    unsigned int entries_dropped;
};

/* What acpi_parse found. About 1 KiB: keep it in static storage, not on
 * a kernel stack. */
struct acpi_info {
    uint8_t revision;         /* RSDP revision: 0 = ACPI 1.0, 2 = 2.0+ */
    char oem_id[7];           /* RSDP OEM id, NUL-terminated */
    bool root_is_xsdt;        /* tables came from the XSDT, not the RSDT */
    /* Tables (and a root table we fell back from) that could not be
     * mapped or failed validation, and were skipped. */
    unsigned int bad_tables;

    bool has_madt;
    struct acpi_madt_info madt;

    bool has_hpet;
    uint64_t hpet_address;    /* physical MMIO base of HPET block 0 */
};

/* Returns a readable pointer to `length` bytes of physical memory at
 * `phys`, or NULL if it cannot. */
typedef const void *(*acpi_map_fn)(uint64_t phys, size_t length, void *ctx);

/* 0 if `rsdp` (with `length` readable bytes) is a valid RSDP: signature,
 * ACPI 1.0 checksum, and for revision >= 2 the extended checksum. */
int acpi_rsdp_validate(const void *rsdp, size_t length);

/* The first valid RSDP on a 16-byte boundary of `area` (which must start
 * on one, like 0xE0000 and the EBDA do), or NULL. */
const void *acpi_rsdp_scan(const void *area, size_t length);

/* 0 if `table` (with `length` readable bytes) has a sane header length
 * that fits, and a correct checksum. */
int acpi_table_validate(const void *table, size_t length);

/* Reads RSDP -> XSDT (or RSDT) -> MADT and HPET into *out. Fails only if
 * the RSDP or every root table is unusable; a missing MADT is not an
 * error (check out->has_madt). */
int acpi_parse(const void *rsdp, size_t rsdp_length, acpi_map_fn map,
               void *ctx, struct acpi_info *out);

/* Parses a whole MADT. On error (a malformed table or entry) *out is
 * zeroed: half a CPU list is worse than falling back to one CPU. */
int acpi_parse_madt(const void *table, size_t length,
                    struct acpi_madt_info *out);

/* The GSI an ISA IRQ arrives on, with its INTI flags in *flags_out (0, the
 * ISA default, when not overridden); flags_out may be NULL. */
uint32_t acpi_irq_to_gsi(const struct acpi_madt_info *madt, uint8_t isa_irq,
                         uint16_t *flags_out);

#endif
