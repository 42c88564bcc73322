/* The multiboot2 boot information GRUB leaves us: command line, boot
 * loader name, memory map, modules (the initrd) and the ACPI RSDP, copied
 * out into a struct boot_info so that nothing later depends on the memory
 * GRUB used, which the kernel will reuse.
 *
 * Layout (multiboot2 specification, section 3.6): u32 total_size, u32
 * reserved, then tags, each starting 8-byte aligned with u32 type and u32
 * size (header included, padding excluded), up to an end tag of type 0
 * and size 8.
 *
 * The parser trusts nothing: it never reads past total_size or past the
 * bytes the caller says it may read, and it rejects a structure that does
 * not add up rather than guess.
 *
 * Left out on purpose: the framebuffer, ELF sections, APM, EFI tags, the
 * basic memory info tag (4) and the BIOS boot device; unknown tags are
 * skipped. */
#ifndef NOHZK_MULTIBOOT2_H
#define NOHZK_MULTIBOOT2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/mm/memmap.h"

/* What the boot loader puts in %eax when it enters the kernel. */
#define MB2_BOOTLOADER_MAGIC 0x36d76289u

#define MB2_TAG_END              0
#define MB2_TAG_CMDLINE          1
#define MB2_TAG_BOOT_LOADER_NAME 2
#define MB2_TAG_MODULE           3
#define MB2_TAG_BASIC_MEMINFO    4
#define MB2_TAG_BOOT_DEVICE      5
#define MB2_TAG_MMAP             6
#define MB2_TAG_FRAMEBUFFER      8
#define MB2_TAG_ELF_SECTIONS     9
#define MB2_TAG_ACPI_OLD         14 /* a copy of the ACPI 1.0 RSDP */
#define MB2_TAG_ACPI_NEW         15 /* a copy of the ACPI 2.0+ RSDP */

#define MB2_TAG_ALIGN        8
#define MB2_TAG_HEADER_SIZE  8 /* u32 type, u32 size */
#define MB2_INFO_HEADER_SIZE 8 /* u32 total_size, u32 reserved */

/* Memory map entry types. */
#define MB2_MEMORY_AVAILABLE        1
#define MB2_MEMORY_RESERVED         2
#define MB2_MEMORY_ACPI_RECLAIMABLE 3
#define MB2_MEMORY_NVS              4
#define MB2_MEMORY_BADRAM           5

#define MB2_MMAP_MIN_ENTRY_SIZE 24 /* u64 base, u64 length, u32 type, u32 */
#define MB2_RSDP_OLD_SIZE       20
#define MB2_RSDP_NEW_SIZE       36

#define MB2_CMDLINE_SIZE          512
#define MB2_BOOT_LOADER_NAME_SIZE 64
#define MB2_MAX_MMAP              128
#define MB2_MAX_MODULES           16
#define MB2_MODULE_NAME_SIZE      64

struct mb2_memory_entry {
    uint64_t base;
    uint64_t length;
    uint32_t type; /* MB2_MEMORY_* */
};

struct mb2_module {
    uint32_t start;                  /* physical, first byte */
    uint32_t end;                    /* physical, one past the last byte */
    char name[MB2_MODULE_NAME_SIZE]; /* GRUB's module2 argument, cut */
};

struct boot_info {
    uint32_t total_size; /* of the whole structure, in bytes */

    bool has_cmdline;
    bool cmdline_truncated; /* longer than MB2_CMDLINE_SIZE - 1 */
    char cmdline[MB2_CMDLINE_SIZE];

    char boot_loader_name[MB2_BOOT_LOADER_NAME_SIZE]; /* cut if long */

    bool has_memory_map;
    bool memory_map_truncated; /* more than MB2_MAX_MMAP entries */
    size_t memory_map_count;
    struct mb2_memory_entry memory_map[MB2_MAX_MMAP];

    bool modules_truncated; /* more than MB2_MAX_MODULES */
    size_t module_count;
    struct mb2_module modules[MB2_MAX_MODULES];

    int rsdp_version;   /* 0 none, 1 (tag 14) or 2 (tag 15) */
    size_t rsdp_length; /* 20 or 36 bytes */
    uint8_t rsdp[MB2_RSDP_NEW_SIZE];
};

/* Parses the boot information at info, of which `available` bytes may be
 * read (the caller passes min(total_size, what it mapped)). Fills *out and
 * returns 0, or returns -EINVAL for a malformed structure: total_size
 * below 16 or above available, a tag smaller than 8 bytes or crossing the
 * end, no end tag, a memory map whose entry size is below 24, not a
 * multiple of 8 or does not divide its tag, a module ending before it
 * starts, an RSDP tag too short. On error *out is all zeroes. When a tag
 * appears twice the last one wins, except that modules accumulate and an
 * ACPI 2.0 RSDP is kept over a 1.0 one. */
int mb2_parse(const void *info, size_t available, struct boot_info *out);

/* Appends text (length bytes, no NUL among them) to the command line,
 * after a space if the line is not empty: the items a boot passes besides
 * the boot loader's line (kernel/init/fw_cfg_items.c). Returns 0, -EINVAL
 * for a NUL in text, or -E2BIG if the whole would not fit
 * MB2_CMDLINE_SIZE - 1 bytes; on error the line is unchanged. */
int mb2_append_cmdline(struct boot_info *info, const char *text, size_t length);

/* Adds a module [start, end) named name, after the boot loader's. Returns
 * 0, -EINVAL (end before start, a name of MB2_MODULE_NAME_SIZE bytes or
 * more) or -ENOSPC (MB2_MAX_MODULES already). */
int mb2_add_module(struct boot_info *info, uint32_t start, uint32_t end, const char *name);

/* Adds every available (type 1) memory map entry to map. Returns 0,
 * -ENOENT if the boot loader gave no memory map, or memmap_add's error. */
int mb2_add_usable_memory(const struct boot_info *info, struct memmap *map);

#endif
