/* Host unit tests of kernel/init/multiboot2.c. Each test builds a boot
 * information blob the way GRUB lays it out, then parses a copy placed in
 * a heap buffer of exactly the bytes the parser may read, so that
 * AddressSanitizer catches any read past them. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "kernel/lib/errno.h"
#include "kernel/init/multiboot2.h"

/* ---- Building blobs ---- */

struct blob {
    _Alignas(8) uint8_t bytes[16384];
    size_t length;
};

static void put_bytes(struct blob *blob, const void *bytes, size_t count)
{
    assert_true(blob->length + count <= sizeof(blob->bytes));
    memcpy(blob->bytes + blob->length, bytes, count);
    blob->length += count;
}

static void put_u32(struct blob *blob, uint32_t value)
{
    put_bytes(blob, &value, sizeof(value));
}

static void put_u64(struct blob *blob, uint64_t value)
{
    put_bytes(blob, &value, sizeof(value));
}

static void put_string(struct blob *blob, const char *text)
{
    put_bytes(blob, text, strlen(text) + 1);
}

static void set_u32(struct blob *blob, size_t offset, uint32_t value)
{
    memcpy(blob->bytes + offset, &value, sizeof(value));
}

static void blob_begin(struct blob *blob)
{
    memset(blob, 0, sizeof(*blob));
    blob->length = 8; /* total_size and reserved, set at the end */
}

/* Starts a tag; returns its offset for tag_end(). */
static size_t tag_begin(struct blob *blob, uint32_t type)
{
    size_t offset = blob->length;

    put_u32(blob, type);
    put_u32(blob, 0);
    return offset;
}

/* Sets the tag's size (padding excluded), then pads to 8 bytes. */
static void tag_end(struct blob *blob, size_t offset)
{
    set_u32(blob, offset + 4, (uint32_t)(blob->length - offset));
    while (blob->length % 8 != 0)
        blob->length++;
}

static void put_string_tag(struct blob *blob, uint32_t type, const char *text)
{
    size_t tag = tag_begin(blob, type);

    put_string(blob, text);
    tag_end(blob, tag);
}

static void put_module(struct blob *blob, uint32_t start, uint32_t end, const char *name)
{
    size_t tag = tag_begin(blob, MB2_TAG_MODULE);

    put_u32(blob, start);
    put_u32(blob, end);
    put_string(blob, name);
    tag_end(blob, tag);
}

/* Memory map entries: base, length, type triples. */
static void put_memory_map(struct blob *blob, uint32_t entry_size, size_t count, const uint64_t *entries)
{
    size_t tag = tag_begin(blob, MB2_TAG_MMAP);

    put_u32(blob, entry_size);
    put_u32(blob, 0); /* entry_version */
    for (size_t i = 0; i < count; i++) {
        size_t entry = blob->length;

        put_u64(blob, entries[3 * i]);
        put_u64(blob, entries[3 * i + 1]);
        put_u32(blob, (uint32_t)entries[3 * i + 2]);
        put_u32(blob, 0);
        while (blob->length < entry + entry_size)
            put_bytes(blob, "\xee", 1); /* future fields */
    }
    tag_end(blob, tag);
}

static void put_rsdp(struct blob *blob, uint32_t type, size_t length, uint8_t fill)
{
    size_t tag = tag_begin(blob, type);

    memcpy(blob->bytes + blob->length, "RSD PTR ", 8);
    memset(blob->bytes + blob->length + 8, fill, length - 8);
    blob->length += length;
    tag_end(blob, tag);
}

/* Adds the end tag and writes total_size. */
static void blob_finish(struct blob *blob)
{
    put_u32(blob, MB2_TAG_END);
    put_u32(blob, 8);
    set_u32(blob, 0, (uint32_t)blob->length);
}

/* ---- Parsing a heap copy ---- */

static struct boot_info info;

/* Parses the first `available` bytes of blob from an exact-size heap copy.
 * On failure, also checks that the result was wiped. */
static int parse_bytes(const struct blob *blob, size_t available)
{
    void *copy = malloc(available ? available : 1);
    int error;

    assert_non_null(copy);
    memcpy(copy, blob->bytes, available);
    memset(&info, 0xa5, sizeof(info));
    error = mb2_parse(copy, available, &info);
    free(copy);
    if (error != 0) {
        static const struct boot_info zero;

        assert_memory_equal(&info, &zero, sizeof(info));
    }
    return error;
}

static int parse(const struct blob *blob)
{
    return parse_bytes(blob, blob->length);
}

/* ---- A realistic blob: what GRUB gives a QEMU guest with 128 MiB ---- */

static const uint64_t qemu_memory_map[] = {
    0x0,       0x9fc00, MB2_MEMORY_AVAILABLE, 0x9fc00,    0x400,     MB2_MEMORY_RESERVED,
    0xf0000,   0x10000, MB2_MEMORY_RESERVED,  0x100000,   0x7ee0000, MB2_MEMORY_AVAILABLE,
    0x7fe0000, 0x20000, MB2_MEMORY_RESERVED,  0xfffc0000, 0x40000,   MB2_MEMORY_RESERVED,
};

static void build_realistic(struct blob *blob)
{
    size_t tag;

    blob_begin(blob);
    put_string_tag(blob, MB2_TAG_CMDLINE, "hz=250 tick=full nohz_full=1-3");
    put_string_tag(blob, MB2_TAG_BOOT_LOADER_NAME, "GRUB 2.06-13+deb12u1");
    put_module(blob, 0x1b5000, 0x3c1000, "initrd");

    tag = tag_begin(blob, 21); /* load base address */
    put_u32(blob, 0x100000);
    tag_end(blob, tag);

    tag = tag_begin(blob, MB2_TAG_BASIC_MEMINFO);
    put_u32(blob, 639);
    put_u32(blob, 130944);
    tag_end(blob, tag);

    tag = tag_begin(blob, MB2_TAG_BOOT_DEVICE);
    put_u32(blob, 0xe0);
    put_u32(blob, 0xffffffff);
    put_u32(blob, 0xffffffff);
    tag_end(blob, tag);

    put_memory_map(blob, 24, 6, qemu_memory_map);

    tag = tag_begin(blob, MB2_TAG_FRAMEBUFFER); /* EGA text */
    put_u64(blob, 0xb8000);
    put_u32(blob, 160);
    put_u32(blob, 80);
    put_u32(blob, 25);
    put_bytes(blob, "\x10\x02\x00", 3);
    tag_end(blob, tag);

    tag = tag_begin(blob, MB2_TAG_ELF_SECTIONS);
    put_u32(blob, 0);
    put_u32(blob, 64);
    put_u32(blob, 0);
    tag_end(blob, tag);

    put_rsdp(blob, MB2_TAG_ACPI_OLD, MB2_RSDP_OLD_SIZE, 0x11);
    blob_finish(blob);
}

static void test_realistic_blob(void **state)
{
    static struct blob blob;

    (void)state;
    build_realistic(&blob);
    assert_int_equal(parse(&blob), 0);
    assert_int_equal(info.total_size, blob.length);

    assert_true(info.has_cmdline);
    assert_false(info.cmdline_truncated);
    assert_string_equal(info.cmdline, "hz=250 tick=full nohz_full=1-3");
    assert_string_equal(info.boot_loader_name, "GRUB 2.06-13+deb12u1");

    assert_int_equal(info.module_count, 1);
    assert_false(info.modules_truncated);
    assert_int_equal(info.modules[0].start, 0x1b5000);
    assert_int_equal(info.modules[0].end, 0x3c1000);
    assert_string_equal(info.modules[0].name, "initrd");

    assert_true(info.has_memory_map);
    assert_false(info.memory_map_truncated);
    assert_int_equal(info.memory_map_count, 6);
    for (size_t i = 0; i < 6; i++) {
        assert_int_equal(info.memory_map[i].base, qemu_memory_map[3 * i]);
        assert_int_equal(info.memory_map[i].length, qemu_memory_map[3 * i + 1]);
        assert_int_equal(info.memory_map[i].type, qemu_memory_map[3 * i + 2]);
    }

    assert_int_equal(info.rsdp_version, 1);
    assert_int_equal(info.rsdp_length, MB2_RSDP_OLD_SIZE);
    assert_memory_equal(info.rsdp, "RSD PTR \x11\x11", 10);
    assert_int_equal(info.rsdp[19], 0x11);
    assert_int_equal(info.rsdp[20], 0); /* nothing beyond 20 bytes */
}

static void test_realistic_free_memory(void **state)
{
    static struct blob blob;
    static struct memmap map;

    (void)state;
    build_realistic(&blob);
    assert_int_equal(parse(&blob), 0);
    memmap_init(&map);
    assert_int_equal(mb2_add_usable_memory(&info, &map), 0);
    assert_int_equal(map.count, 2);
    assert_int_equal(memmap_total_bytes(&map), 0x9fc00 + 0x7ee0000);

    /* what the kernel does next: page 0, its image, the initrd */
    assert_int_equal(memmap_reserve(&map, 0, 0x1000), 0);
    assert_int_equal(memmap_reserve(&map, 0x100000, 0xb5000), 0);
    assert_int_equal(memmap_reserve(&map, info.modules[0].start, info.modules[0].end - info.modules[0].start),
                     0);
    memmap_align_pages(&map, 4096);
    assert_int_equal(map.count, 2);
    assert_int_equal(map.regions[0].base, 0x1000);
    assert_int_equal(map.regions[0].length, 0x9e000);
    assert_int_equal(map.regions[1].base, 0x3c1000);
    assert_int_equal(map.regions[1].length, 0x7fe0000 - 0x3c1000);
    assert_true(memmap_contains(&map, 0x8000, 0x1000));    /* trampoline */
    assert_false(memmap_contains(&map, 0x200000, 0x1000)); /* initrd */
}

/* ---- Malformed structures ---- */

static void test_bad_header(void **state)
{
    static struct blob blob;

    (void)state;
    assert_int_equal(mb2_parse(NULL, 100, &info), -EINVAL);

    blob_begin(&blob);
    blob_finish(&blob); /* the smallest valid: 16 bytes */
    assert_int_equal(blob.length, 16);
    assert_int_equal(parse(&blob), 0);
    assert_false(info.has_cmdline);
    assert_false(info.has_memory_map);
    assert_int_equal(info.rsdp_version, 0);

    assert_int_equal(parse_bytes(&blob, 7), -EINVAL); /* no header */
    assert_int_equal(parse_bytes(&blob, 0), -EINVAL);
    assert_int_equal(parse_bytes(&blob, 15), -EINVAL); /* cut short */

    set_u32(&blob, 0, 8); /* total_size below 16 */
    assert_int_equal(parse(&blob), -EINVAL);
    set_u32(&blob, 0, 0);
    assert_int_equal(parse(&blob), -EINVAL);
    set_u32(&blob, 0, 0xffffffff); /* far beyond available */
    assert_int_equal(parse(&blob), -EINVAL);
}

static void test_total_size_beyond_available(void **state)
{
    static struct blob blob;

    (void)state;
    build_realistic(&blob);
    /* the caller could map only part of what total_size claims */
    assert_int_equal(parse_bytes(&blob, blob.length - 8), -EINVAL);
    assert_int_equal(parse_bytes(&blob, 64), -EINVAL);
    /* more available than total_size is fine: the rest is not read */
    assert_int_equal(parse_bytes(&blob, blob.length + 64), 0);
}

static void test_tag_size_below_8(void **state)
{
    static struct blob blob;
    size_t tag;

    (void)state;
    for (uint32_t size = 0; size < 8; size++) {
        blob_begin(&blob);
        tag = tag_begin(&blob, 21);
        put_u64(&blob, 0);
        tag_end(&blob, tag);
        blob_finish(&blob);
        set_u32(&blob, tag + 4, size);
        assert_int_equal(parse(&blob), -EINVAL);
    }
    /* an end tag that is not exactly 8 bytes */
    blob_begin(&blob);
    blob_finish(&blob);
    set_u32(&blob, 12, 4);
    assert_int_equal(parse(&blob), -EINVAL);
    set_u32(&blob, 12, 16);
    assert_int_equal(parse(&blob), -EINVAL); /* crosses the end too */
    put_u64(&blob, 0);
    set_u32(&blob, 0, 24); /* now it does not */
    assert_int_equal(parse(&blob), -EINVAL);
    set_u32(&blob, 12, 8);
    assert_int_equal(parse(&blob), 0);
}

static void test_tag_crossing_the_end(void **state)
{
    static struct blob blob;
    size_t tag;

    (void)state;
    blob_begin(&blob);
    put_string_tag(&blob, MB2_TAG_CMDLINE, "hz=100");
    tag = tag_begin(&blob, MB2_TAG_BOOT_LOADER_NAME);
    put_string(&blob, "GRUB");
    tag_end(&blob, tag);
    blob_finish(&blob);
    assert_int_equal(parse(&blob), 0);

    /* the name tag claims the end tag and 1 byte more */
    set_u32(&blob, tag + 4, (uint32_t)(blob.length - tag + 1));
    assert_int_equal(parse(&blob), -EINVAL);
    set_u32(&blob, tag + 4, 0xfffffff8); /* would wrap a 32-bit sum */
    assert_int_equal(parse(&blob), -EINVAL);
    /* claiming exactly the rest leaves no room for the end tag */
    set_u32(&blob, tag + 4, (uint32_t)(blob.length - tag));
    assert_int_equal(parse(&blob), -EINVAL);
}

static void test_missing_end_tag(void **state)
{
    static struct blob blob;

    (void)state;
    blob_begin(&blob);
    put_string_tag(&blob, MB2_TAG_CMDLINE, "hz=100");
    set_u32(&blob, 0, (uint32_t)blob.length); /* no end tag */
    assert_int_equal(parse(&blob), -EINVAL);

    /* a last tag whose padding runs past total_size */
    blob_begin(&blob);
    put_string_tag(&blob, MB2_TAG_CMDLINE, "hz=100"); /* 15 bytes */
    set_u32(&blob, 0, 8 + 15);
    assert_int_equal(parse_bytes(&blob, 8 + 15), -EINVAL);

    /* bytes after the end tag, inside total_size, are ignored */
    blob_begin(&blob);
    blob_finish(&blob);
    put_u64(&blob, 0xdeadbeef);
    set_u32(&blob, 0, (uint32_t)blob.length);
    assert_int_equal(parse(&blob), 0);
}

static void test_memory_map_entry_sizes(void **state)
{
    static struct blob blob;
    static const uint64_t entries[] = {
        0x0, 0x1000, MB2_MEMORY_AVAILABLE, 0x100000, 0x200000, MB2_MEMORY_ACPI_RECLAIMABLE,
    };
    size_t tag;

    (void)state;
    /* bigger entries (future fields) are stepped over correctly */
    blob_begin(&blob);
    put_memory_map(&blob, 40, 2, entries);
    blob_finish(&blob);
    assert_int_equal(parse(&blob), 0);
    assert_int_equal(info.memory_map_count, 2);
    assert_int_equal(info.memory_map[1].base, 0x100000);
    assert_int_equal(info.memory_map[1].length, 0x200000);
    assert_int_equal(info.memory_map[1].type, MB2_MEMORY_ACPI_RECLAIMABLE);

    /* entry_size below 24, or not a multiple of 8 */
    blob_begin(&blob);
    tag = blob.length;
    put_memory_map(&blob, 24, 2, entries);
    blob_finish(&blob);
    set_u32(&blob, tag + 8, 16);
    assert_int_equal(parse(&blob), -EINVAL);
    set_u32(&blob, tag + 8, 0); /* no division by 0 */
    assert_int_equal(parse(&blob), -EINVAL);
    set_u32(&blob, tag + 8, 24);
    assert_int_equal(parse(&blob), 0);

    /* entries of 28 bytes that do fill their tag, yet are misaligned */
    blob_begin(&blob);
    tag = blob.length;
    put_memory_map(&blob, 28, 2, entries);
    blob_finish(&blob);
    assert_int_equal(parse(&blob), -EINVAL);
    set_u32(&blob, tag + 8, 56); /* one 56-byte entry: fine */
    assert_int_equal(parse(&blob), 0);
    assert_int_equal(info.memory_map_count, 1);

    /* back to 24-byte entries */
    blob_begin(&blob);
    tag = blob.length;
    put_memory_map(&blob, 24, 2, entries);
    blob_finish(&blob);

    /* a partial entry at the end of the tag */
    set_u32(&blob, tag + 4, 16 + 24 + 8);
    assert_int_equal(parse(&blob), -EINVAL);
    /* a tag too short to hold entry_size and entry_version */
    set_u32(&blob, tag + 4, 12);
    assert_int_equal(parse(&blob), -EINVAL);
    /* a map with no entries is a map */
    blob_begin(&blob);
    put_memory_map(&blob, 24, 0, entries);
    blob_finish(&blob);
    assert_int_equal(parse(&blob), 0);
    assert_true(info.has_memory_map);
    assert_int_equal(info.memory_map_count, 0);
}

static void test_memory_map_truncated(void **state)
{
    static struct blob blob;
    static uint64_t entries[3 * (MB2_MAX_MMAP + 5)];

    (void)state;
    for (size_t i = 0; i < MB2_MAX_MMAP + 5; i++) {
        entries[3 * i] = i * 0x10000;
        entries[3 * i + 1] = 0x1000;
        entries[3 * i + 2] = MB2_MEMORY_AVAILABLE;
    }
    blob_begin(&blob);
    put_memory_map(&blob, 24, MB2_MAX_MMAP + 5, entries);
    blob_finish(&blob);
    assert_int_equal(parse(&blob), 0);
    assert_true(info.memory_map_truncated);
    assert_int_equal(info.memory_map_count, MB2_MAX_MMAP);
    assert_int_equal(info.memory_map[MB2_MAX_MMAP - 1].base, (MB2_MAX_MMAP - 1) * 0x10000);
}

static void test_add_usable_memory_errors(void **state)
{
    static struct blob blob;
    static struct memmap map;
    static uint64_t entries[3 * MB2_MAX_MMAP];

    (void)state;
    blob_begin(&blob);
    blob_finish(&blob);
    assert_int_equal(parse(&blob), 0);
    memmap_init(&map);
    assert_int_equal(mb2_add_usable_memory(&info, &map), -ENOENT);

    /* 128 separate available entries, plus one region already there */
    for (size_t i = 0; i < MB2_MAX_MMAP; i++) {
        entries[3 * i] = 0x100000 + i * 0x10000;
        entries[3 * i + 1] = 0x1000;
        entries[3 * i + 2] = i == 5 ? MB2_MEMORY_RESERVED : MB2_MEMORY_AVAILABLE;
    }
    blob_begin(&blob);
    put_memory_map(&blob, 24, MB2_MAX_MMAP, entries);
    blob_finish(&blob);
    assert_int_equal(parse(&blob), 0);
    memmap_init(&map);
    assert_int_equal(mb2_add_usable_memory(&info, &map), 0);
    assert_int_equal(map.count, MB2_MAX_MMAP - 1); /* not the reserved */
    assert_false(memmap_contains(&map, 0x100000 + 5 * 0x10000, 1));

    memmap_init(&map);
    assert_int_equal(memmap_add(&map, 0, 0x1000), 0);
    assert_int_equal(memmap_add(&map, 0x2000, 0x1000), 0);
    assert_int_equal(mb2_add_usable_memory(&info, &map), -ENOSPC);
}

static void test_modules(void **state)
{
    static struct blob blob;
    char long_name[200];
    size_t tag;

    (void)state;
    memset(long_name, 'n', sizeof(long_name) - 1);
    long_name[sizeof(long_name) - 1] = '\0';

    blob_begin(&blob);
    for (uint32_t i = 0; i < MB2_MAX_MODULES + 2; i++)
        put_module(&blob, i * 0x1000, i * 0x1000 + 0x800, i == 1 ? long_name : "m");
    tag = tag_begin(&blob, MB2_TAG_MODULE); /* no string at all */
    put_u32(&blob, 0x5000);
    put_u32(&blob, 0x5000); /* empty module: allowed */
    tag_end(&blob, tag);
    blob_finish(&blob);
    assert_int_equal(parse(&blob), 0);
    assert_int_equal(info.module_count, MB2_MAX_MODULES);
    assert_true(info.modules_truncated);
    assert_int_equal(info.modules[15].start, 15 * 0x1000);
    assert_int_equal(strlen(info.modules[1].name), MB2_MODULE_NAME_SIZE - 1);
    assert_string_equal(info.modules[2].name, "m");

    /* the string-less one, alone */
    blob_begin(&blob);
    tag = tag_begin(&blob, MB2_TAG_MODULE);
    put_u32(&blob, 0x5000);
    put_u32(&blob, 0x6000);
    tag_end(&blob, tag);
    blob_finish(&blob);
    assert_int_equal(parse(&blob), 0);
    assert_int_equal(info.module_count, 1);
    assert_string_equal(info.modules[0].name, "");

    /* ending before it starts */
    set_u32(&blob, tag + 12, 0x4fff);
    assert_int_equal(parse(&blob), -EINVAL);
    /* too short for mod_start and mod_end */
    set_u32(&blob, tag + 12, 0x6000);
    set_u32(&blob, tag + 4, 12);
    assert_int_equal(parse(&blob), -EINVAL);
}

static void test_strings(void **state)
{
    static struct blob blob;
    char long_line[MB2_CMDLINE_SIZE + 100];
    size_t tag;

    (void)state;
    memset(long_line, 'a', sizeof(long_line) - 1);
    long_line[sizeof(long_line) - 1] = '\0';
    blob_begin(&blob);
    put_string_tag(&blob, MB2_TAG_CMDLINE, long_line);
    blob_finish(&blob);
    assert_int_equal(parse(&blob), 0);
    assert_true(info.cmdline_truncated);
    assert_int_equal(strlen(info.cmdline), MB2_CMDLINE_SIZE - 1);

    /* exactly the longest that fits */
    long_line[MB2_CMDLINE_SIZE - 1] = '\0';
    blob_begin(&blob);
    put_string_tag(&blob, MB2_TAG_CMDLINE, long_line);
    blob_finish(&blob);
    assert_int_equal(parse(&blob), 0);
    assert_false(info.cmdline_truncated);
    assert_int_equal(strlen(info.cmdline), MB2_CMDLINE_SIZE - 1);

    /* a string with no NUL ends at its tag: nothing past it is read */
    blob_begin(&blob);
    tag = tag_begin(&blob, MB2_TAG_CMDLINE);
    put_bytes(&blob, "hz=100", 6);
    tag_end(&blob, tag);
    memset(blob.bytes + tag + 14, 'Z', 2); /* padding that is no NUL */
    put_string_tag(&blob, MB2_TAG_BOOT_LOADER_NAME, "X");
    blob_finish(&blob);
    assert_int_equal(parse(&blob), 0);
    assert_string_equal(info.cmdline, "hz=100");

    /* empty, and a second command line tag replacing the first */
    blob_begin(&blob);
    put_string_tag(&blob, MB2_TAG_CMDLINE, "first");
    tag = tag_begin(&blob, MB2_TAG_CMDLINE);
    tag_end(&blob, tag);
    blob_finish(&blob);
    assert_int_equal(parse(&blob), 0);
    assert_true(info.has_cmdline);
    assert_string_equal(info.cmdline, "");
}

static void test_rsdp(void **state)
{
    static struct blob blob;
    size_t tag;

    (void)state;
    /* new then old, and old then new: the ACPI 2.0 copy wins */
    for (int order = 0; order < 2; order++) {
        blob_begin(&blob);
        if (order == 0)
            put_rsdp(&blob, MB2_TAG_ACPI_NEW, MB2_RSDP_NEW_SIZE, 0x22);
        put_rsdp(&blob, MB2_TAG_ACPI_OLD, MB2_RSDP_OLD_SIZE, 0x11);
        if (order == 1)
            put_rsdp(&blob, MB2_TAG_ACPI_NEW, MB2_RSDP_NEW_SIZE, 0x22);
        blob_finish(&blob);
        assert_int_equal(parse(&blob), 0);
        assert_int_equal(info.rsdp_version, 2);
        assert_int_equal(info.rsdp_length, MB2_RSDP_NEW_SIZE);
        assert_memory_equal(info.rsdp, "RSD PTR ", 8);
        for (size_t i = 8; i < MB2_RSDP_NEW_SIZE; i++)
            assert_int_equal(info.rsdp[i], 0x22);
    }

    /* an RSDP tag too short for its version */
    blob_begin(&blob);
    tag = blob.length;
    put_rsdp(&blob, MB2_TAG_ACPI_NEW, MB2_RSDP_NEW_SIZE, 0x22);
    blob_finish(&blob);
    set_u32(&blob, tag + 4, 8 + MB2_RSDP_NEW_SIZE - 1);
    assert_int_equal(parse(&blob), -EINVAL);
    set_u32(&blob, tag, MB2_TAG_ACPI_OLD); /* but enough for 1.0 */
    assert_int_equal(parse(&blob), 0);
    assert_int_equal(info.rsdp_version, 1);
    assert_int_equal(info.rsdp_length, MB2_RSDP_OLD_SIZE);
}

static void test_unknown_tags_skipped(void **state)
{
    static struct blob blob;
    size_t tag;

    (void)state;
    blob_begin(&blob);
    tag = tag_begin(&blob, 0x1234); /* size 9: padded to 16 */
    put_bytes(&blob, "\x01", 1);
    tag_end(&blob, tag);
    tag = tag_begin(&blob, 0xffffffff); /* header only */
    tag_end(&blob, tag);
    put_string_tag(&blob, MB2_TAG_CMDLINE, "after");
    blob_finish(&blob);
    assert_int_equal(parse(&blob), 0);
    assert_string_equal(info.cmdline, "after");
}

/* Every prefix of a good blob, passed as both total_size and available,
 * must be refused without reading past it. */
static void test_every_truncation_refused(void **state)
{
    static struct blob blob, cut;

    (void)state;
    build_realistic(&blob);
    for (size_t length = 0; length < blob.length; length++) {
        cut = blob;
        set_u32(&cut, 0, (uint32_t)length);
        if (parse_bytes(&cut, length) != -EINVAL)
            fail_msg("a blob cut to %zu bytes was accepted", length);
    }
}

/* The items a boot passes besides the loader's line (fw_cfg) are appended
 * after a space, all or nothing. */
static void test_append_cmdline(void **state)
{
    static struct boot_info info;
    char big[MB2_CMDLINE_SIZE + 8];

    (void)state;
    memset(&info, 0, sizeof(info));
    assert_int_equal(mb2_append_cmdline(&info, "hz=250", 6), 0);
    assert_string_equal(info.cmdline, "hz=250");
    assert_true(info.has_cmdline);
    assert_int_equal(mb2_append_cmdline(&info, "", 0), 0);
    assert_string_equal(info.cmdline, "hz=250");
    assert_int_equal(mb2_append_cmdline(&info, "tick=full x", 11), 0);
    assert_string_equal(info.cmdline, "hz=250 tick=full x");
    /* only the given bytes: the rest of the buffer is not read */
    assert_int_equal(mb2_append_cmdline(&info, "ab-not-this", 2), 0);
    assert_string_equal(info.cmdline, "hz=250 tick=full x ab");
    assert_int_equal(mb2_append_cmdline(&info, "a\0b", 3), -EINVAL);
    assert_string_equal(info.cmdline, "hz=250 tick=full x ab");

    /* exactly full fits; one byte more changes nothing */
    memset(&info, 0, sizeof(info));
    memcpy(info.cmdline, "x", 2);
    memset(big, 'y', sizeof(big));
    assert_int_equal(mb2_append_cmdline(&info, big, MB2_CMDLINE_SIZE - 2), -E2BIG);
    assert_string_equal(info.cmdline, "x");
    assert_int_equal(mb2_append_cmdline(&info, big, MB2_CMDLINE_SIZE - 3), 0);
    assert_int_equal(strlen(info.cmdline), MB2_CMDLINE_SIZE - 1);
    assert_int_equal(mb2_append_cmdline(&info, "z", 1), -E2BIG);
    assert_int_equal(strlen(info.cmdline), MB2_CMDLINE_SIZE - 1);
}

static void test_add_module(void **state)
{
    static struct boot_info info;
    char long_name[MB2_MODULE_NAME_SIZE + 1];

    (void)state;
    memset(&info, 0, sizeof(info));
    assert_int_equal(mb2_add_module(&info, 0x1000, 0x1000, "command"), 0);
    assert_int_equal(info.module_count, 1);
    assert_int_equal(info.modules[0].start, 0x1000);
    assert_int_equal(info.modules[0].end, 0x1000);
    assert_string_equal(info.modules[0].name, "command");
    assert_int_equal(mb2_add_module(&info, 0x2000, 0x1fff, "initrd"), -EINVAL);
    memset(long_name, 'n', sizeof(long_name) - 1);
    long_name[sizeof(long_name) - 1] = '\0';
    assert_int_equal(mb2_add_module(&info, 0, 1, long_name), -EINVAL);
    long_name[MB2_MODULE_NAME_SIZE - 1] = '\0';
    assert_int_equal(mb2_add_module(&info, 0, 1, long_name), 0);
    while (info.module_count < MB2_MAX_MODULES)
        assert_int_equal(mb2_add_module(&info, 0, 1, "initrd"), 0);
    assert_int_equal(mb2_add_module(&info, 0, 1, "initrd"), -ENOSPC);
    assert_int_equal(info.module_count, MB2_MAX_MODULES);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_realistic_blob),
        cmocka_unit_test(test_realistic_free_memory),
        cmocka_unit_test(test_bad_header),
        cmocka_unit_test(test_total_size_beyond_available),
        cmocka_unit_test(test_tag_size_below_8),
        cmocka_unit_test(test_tag_crossing_the_end),
        cmocka_unit_test(test_missing_end_tag),
        cmocka_unit_test(test_memory_map_entry_sizes),
        cmocka_unit_test(test_memory_map_truncated),
        cmocka_unit_test(test_add_usable_memory_errors),
        cmocka_unit_test(test_modules),
        cmocka_unit_test(test_strings),
        cmocka_unit_test(test_rsdp),
        cmocka_unit_test(test_unknown_tags_skipped),
        cmocka_unit_test(test_every_truncation_refused),
        cmocka_unit_test(test_append_cmdline),
        cmocka_unit_test(test_add_module),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
