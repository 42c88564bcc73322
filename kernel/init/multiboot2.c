/* A defensive parser of the multiboot2 boot information. It walks the tags
 * once, checks every size against what is left before reading, and copies
 * what the kernel needs into a struct boot_info. */
#include "kernel/init/multiboot2.h"
#include "kernel/lib/errno.h"
#include "kernel/lib/string.h"

/* Fields are read with __builtin_memcpy, not through a cast pointer: no
 * alignment is assumed (the host tests and UBSan hold us to that), and gcc
 * turns a small constant-size copy into a single load even in a
 * freestanding build. The machine is little-endian, as is multiboot2. */
static uint32_t read_u32(const uint8_t *bytes)
{
    uint32_t value;

    __builtin_memcpy(&value, bytes, sizeof(value));
    return value;
}

static uint64_t read_u64(const uint8_t *bytes)
{
    uint64_t value;

    __builtin_memcpy(&value, bytes, sizeof(value));
    return value;
}

/* Copies the string at text, which must end within room bytes (one with no
 * NUL ends at the tag's end), into dst, cut to fit. Returns false if cut. */
static bool copy_string(char *dst, size_t dst_size, const uint8_t *text, size_t room)
{
    size_t length = strnlen((const char *)text, room);
    bool fits = length < dst_size;

    if (!fits)
        length = dst_size - 1;
    memcpy(dst, text, length);
    dst[length] = '\0';
    return fits;
}

/* Each tag parser gets the tag (header included) and its size, which the
 * walker has already checked is >= 8 and lies inside the structure. */

static int parse_cmdline(const uint8_t *tag, uint32_t size, struct boot_info *out)
{
    out->has_cmdline = true;
    out->cmdline_truncated = !copy_string(out->cmdline, sizeof(out->cmdline), tag + MB2_TAG_HEADER_SIZE,
                                          size - MB2_TAG_HEADER_SIZE);
    return 0;
}

static int parse_boot_loader_name(const uint8_t *tag, uint32_t size, struct boot_info *out)
{
    copy_string(out->boot_loader_name, sizeof(out->boot_loader_name), tag + MB2_TAG_HEADER_SIZE,
                size - MB2_TAG_HEADER_SIZE);
    return 0;
}

/* u32 type, u32 size, u32 mod_start, u32 mod_end, string. */
static int parse_module(const uint8_t *tag, uint32_t size, struct boot_info *out)
{
    const size_t fixed_size = MB2_TAG_HEADER_SIZE + 8;
    struct mb2_module *module;

    if (size < fixed_size)
        return -EINVAL;
    if (read_u32(tag + 12) < read_u32(tag + 8))
        return -EINVAL;
    if (out->module_count == MB2_MAX_MODULES) {
        out->modules_truncated = true;
        return 0;
    }
    module = &out->modules[out->module_count++];
    module->start = read_u32(tag + 8);
    module->end = read_u32(tag + 12);
    copy_string(module->name, sizeof(module->name), tag + fixed_size, size - fixed_size);
    return 0;
}

/* u32 type, u32 size, u32 entry_size, u32 entry_version, then entries of
 * entry_size bytes, each starting u64 base, u64 length, u32 type. A larger
 * entry_size leaves room for future fields, which we skip. */
static int parse_memory_map(const uint8_t *tag, uint32_t size, struct boot_info *out)
{
    const size_t fixed_size = MB2_TAG_HEADER_SIZE + 8;
    uint32_t entry_size;
    size_t entry_count;

    if (size < fixed_size)
        return -EINVAL;
    entry_size = read_u32(tag + 8);
    if (entry_size < MB2_MMAP_MIN_ENTRY_SIZE || entry_size % 8 != 0)
        return -EINVAL;
    if ((size - fixed_size) % entry_size != 0)
        return -EINVAL;
    entry_count = (size - fixed_size) / entry_size;

    out->has_memory_map = true;
    out->memory_map_truncated = entry_count > MB2_MAX_MMAP;
    if (entry_count > MB2_MAX_MMAP)
        entry_count = MB2_MAX_MMAP;
    out->memory_map_count = entry_count;
    for (size_t i = 0; i < entry_count; i++) {
        const uint8_t *entry = tag + fixed_size + i * entry_size;

        out->memory_map[i].base = read_u64(entry);
        out->memory_map[i].length = read_u64(entry + 8);
        out->memory_map[i].type = read_u32(entry + 16);
    }
    return 0;
}

/* The tag holds a copy of the RSDP itself: 20 bytes for ACPI 1.0, 36 for
 * 2.0 and later (which adds the XSDT address). */
static int parse_rsdp(const uint8_t *tag, uint32_t size, int version, size_t rsdp_length,
                      struct boot_info *out)
{
    if (size - MB2_TAG_HEADER_SIZE < rsdp_length)
        return -EINVAL;
    if (version < out->rsdp_version)
        return 0; /* keep the newer one we already have */
    out->rsdp_version = version;
    out->rsdp_length = rsdp_length;
    memset(out->rsdp, 0, sizeof(out->rsdp));
    memcpy(out->rsdp, tag + MB2_TAG_HEADER_SIZE, rsdp_length);
    return 0;
}

static int parse_tag(const uint8_t *tag, uint32_t type, uint32_t size, struct boot_info *out)
{
    switch (type) {
    case MB2_TAG_CMDLINE:
        return parse_cmdline(tag, size, out);
    case MB2_TAG_BOOT_LOADER_NAME:
        return parse_boot_loader_name(tag, size, out);
    case MB2_TAG_MODULE:
        return parse_module(tag, size, out);
    case MB2_TAG_MMAP:
        return parse_memory_map(tag, size, out);
    case MB2_TAG_ACPI_OLD:
        return parse_rsdp(tag, size, 1, MB2_RSDP_OLD_SIZE, out);
    case MB2_TAG_ACPI_NEW:
        return parse_rsdp(tag, size, 2, MB2_RSDP_NEW_SIZE, out);
    default:
        return 0; /* framebuffer, ELF sections, ...: not ours */
    }
}

static size_t align_up_to_tag(size_t offset)
{
    return (offset + MB2_TAG_ALIGN - 1) & ~(size_t)(MB2_TAG_ALIGN - 1);
}

static int walk_tags(const uint8_t *info, size_t available, struct boot_info *out)
{
    uint32_t total_size;
    size_t offset = MB2_INFO_HEADER_SIZE;

    if (info == NULL || available < MB2_INFO_HEADER_SIZE)
        return -EINVAL;
    total_size = read_u32(info);
    if (total_size < MB2_INFO_HEADER_SIZE + MB2_TAG_HEADER_SIZE || total_size > available)
        return -EINVAL;
    out->total_size = total_size;

    for (;;) {
        const uint8_t *tag = info + offset;
        uint32_t type, size;
        int error;

        /* Running off the end means the end tag is missing. */
        if (offset > total_size || total_size - offset < MB2_TAG_HEADER_SIZE)
            return -EINVAL;
        type = read_u32(tag);
        size = read_u32(tag + 4);
        if (size < MB2_TAG_HEADER_SIZE || size > total_size - offset)
            return -EINVAL;
        if (type == MB2_TAG_END)
            return size == MB2_TAG_HEADER_SIZE ? 0 : -EINVAL;
        error = parse_tag(tag, type, size, out);
        if (error != 0)
            return error;
        offset = align_up_to_tag(offset + size);
    }
}

int mb2_parse(const void *info, size_t available, struct boot_info *out)
{
    int error;

    memset(out, 0, sizeof(*out));
    error = walk_tags(info, available, out);
    if (error != 0)
        memset(out, 0, sizeof(*out)); /* no half-parsed result */
    return error;
}

int mb2_add_usable_memory(const struct boot_info *info, struct memmap *map)
{
    if (!info->has_memory_map)
        return -ENOENT;
    for (size_t i = 0; i < info->memory_map_count; i++) {
        const struct mb2_memory_entry *entry = &info->memory_map[i];
        int error;

        if (entry->type != MB2_MEMORY_AVAILABLE)
            continue;
        error = memmap_add(map, entry->base, entry->length);
        if (error != 0)
            return error;
    }
    return 0;
}

int mb2_append_cmdline(struct boot_info *info, const char *text, size_t length)
{
    size_t used = strlen(info->cmdline);
    size_t gap = used && length ? 1 : 0;

    if (strnlen(text, length) != length)
        return -EINVAL; /* a NUL inside */
    if (used + gap + length > sizeof(info->cmdline) - 1)
        return -E2BIG;
    if (gap)
        info->cmdline[used++] = ' ';
    memcpy(info->cmdline + used, text, length);
    info->cmdline[used + length] = '\0';
    info->has_cmdline = true;
    return 0;
}

int mb2_add_module(struct boot_info *info, uint32_t start, uint32_t end, const char *name)
{
    struct mb2_module *module;
    size_t name_length = strlen(name);

    if (end < start || name_length >= sizeof(module->name))
        return -EINVAL;
    if (info->module_count == MB2_MAX_MODULES)
        return -ENOSPC;
    module = &info->modules[info->module_count++];
    module->start = start;
    module->end = end;
    memcpy(module->name, name, name_length + 1);
    return 0;
}
