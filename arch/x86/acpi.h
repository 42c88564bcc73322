/* Finding the ACPI tables on this machine (the parsing is in acpi_tables.c). */
#ifndef ARCH_X86_ACPI_H
#define ARCH_X86_ACPI_H

#include <stddef.h>

#include "arch/x86/acpi_tables.h"

struct memmap;

/* rsdp_copy: the RSDP that the boot loader passed (multiboot2 tags 14/15),
 * or NULL to search the BIOS areas. Runs on the early page tables.
 * Returns the parsed information (has_madt false if nothing was found). */
const struct acpi_info *acpi_init(const void *rsdp_copy, size_t rsdp_length);

/* Keep the pages holding the tables we read out of the page allocator. */
void acpi_reserve_tables(struct memmap *map);
const struct acpi_info *acpi_info(void);     /* what acpi_init() found */

#endif
