/* Unit tests of the ELF64 parser (kernel/process/elf.c).
 *
 * Three kinds of input: small static musl programs committed under
 * data/elf/ (build.sh rebuilds them; .incbin puts them in this test, so it
 * finds them from any directory); Debian's busybox-static, if the variable
 * NOHZK_BUSYBOX names it (it is 2 MB, so it is not committed: the test is
 * skipped without it); and headers built here field by field, to reach
 * every error path. The parser always gets a malloc'd copy of exactly the
 * bytes it may read, placed at the end of its allocation, so that
 * AddressSanitizer catches a read past the end.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "kernel/process/elf.h"
#include "kernel/lib/errno.h"

/* ---- fixtures ---- */

/* The Makefile compiles this file from tests/host, where these paths lead. */
#define FIXTURE(name, path)                                                                                  \
    __asm__(".section .rodata\n.balign 16\n" #name ":\n.incbin \"" path "\"\n" #name "_end:\n.previous\n");  \
    extern const uint8_t name[], name##_end[]

FIXTURE(hello_static, "data/elf/hello-static");
FIXTURE(hello_static_pie, "data/elf/hello-static-pie");
FIXTURE(hello_dynamic, "data/elf/hello-dynamic");

struct file {
    uint8_t *bytes;
    size_t length;
};

static struct file file_copy(const uint8_t *bytes, size_t length)
{
    struct file f = {malloc(length ? length : 1), length};
    assert_non_null(f.bytes);
    memcpy(f.bytes, bytes, length);
    return f;
}

#define FIXTURE_COPY(name) file_copy(name, (size_t)(name##_end - name))

/* Debian's busybox-static, from $NOHZK_BUSYBOX; length 0 if unset. */
static struct file busybox_read(void)
{
    struct file f = {0};
    const char *path = getenv("NOHZK_BUSYBOX");
    if (!path || !*path)
        return f;
    FILE *stream = fopen(path, "rb");
    assert_non_null(stream);
    assert_int_equal(fseek(stream, 0, SEEK_END), 0);
    f.length = (size_t)ftell(stream);
    rewind(stream);
    f.bytes = malloc(f.length);
    assert_non_null(f.bytes);
    assert_int_equal(fread(f.bytes, 1, f.length, stream), f.length);
    fclose(stream);
    return f;
}

/* ---- invariants every successful parse must satisfy ---- */

static void check_info(const struct elf_info *info, size_t length)
{
    assert_true(info->type == ET_EXEC || info->type == ET_DYN);
    assert_true(info->segment_count >= 1 && info->segment_count <= ELF_MAX_LOAD_SEGMENTS);
    bool entry_found = false;
    for (unsigned int i = 0; i < info->segment_count; i++) {
        const struct elf_segment *s = &info->segments[i];
        assert_int_equal(s->start % ELF_PAGE_SIZE, 0);
        assert_int_equal(s->end % ELF_PAGE_SIZE, 0);
        assert_true(s->start >= ELF_USER_MIN && s->end <= ELF_USER_END && s->start < s->end);
        assert_true(s->vaddr >= s->start && s->vaddr + s->memory_size <= s->end);
        assert_true(s->file_size <= s->memory_size);
        assert_true(s->file_offset <= length && s->file_size <= length - s->file_offset);
        assert_int_equal(s->vaddr % ELF_PAGE_SIZE, s->file_offset % ELF_PAGE_SIZE);
        assert_int_equal(s->flags & ~(uint32_t)(PF_R | PF_W | PF_X), 0);
        if (i > 0)
            assert_true(s->start >= info->segments[i - 1].end);
        if ((s->flags & PF_X) && info->entry >= s->vaddr && info->entry < s->vaddr + s->memory_size)
            entry_found = true;
    }
    assert_true(entry_found);
    assert_int_equal(info->phentsize, sizeof(struct elf64_program_header));
    assert_int_equal(info->load_bias % ELF_PAGE_SIZE, 0);
    if (info->type == ET_EXEC)
        assert_int_equal(info->load_bias, 0);
}

/* Checks what the program headers of the file say, read independently of
 * the parser: AT_PHDR holds the very bytes of the header table. */
static void check_phdr_in_memory(const struct elf_info *info, const struct file *f)
{
    struct elf64_header h;
    memcpy(&h, f->bytes, sizeof(h));
    assert_int_equal(info->phnum, h.e_phnum);
    assert_int_not_equal(info->phdr, 0);
    for (unsigned int i = 0; i < info->segment_count; i++) {
        const struct elf_segment *s = &info->segments[i];
        if (info->phdr >= s->vaddr && info->phdr < s->vaddr + s->file_size) {
            uint64_t offset = s->file_offset + (info->phdr - s->vaddr);
            assert_int_equal(offset, h.e_phoff);
            return;
        }
    }
    fail_msg("AT_PHDR %#llx is not in a segment's file bytes", (unsigned long long)info->phdr);
}

/* The end of the bytes the parser must see: the ELF header, the program
 * header table, and the file bytes of every PT_LOAD and PT_TLS. */
static size_t bytes_needed(const struct file *f)
{
    struct elf64_header h;
    memcpy(&h, f->bytes, sizeof(h));
    size_t needed = h.e_phoff + (size_t)h.e_phnum * h.e_phentsize;
    for (unsigned int i = 0; i < h.e_phnum; i++) {
        struct elf64_program_header ph;
        memcpy(&ph, f->bytes + h.e_phoff + i * sizeof(ph), sizeof(ph));
        if ((ph.p_type == PT_LOAD || ph.p_type == PT_TLS) && ph.p_offset + ph.p_filesz > needed)
            needed = ph.p_offset + ph.p_filesz;
    }
    return needed;
}

/* Parses the first `length` bytes, placed at the end of a `scratch` buffer of
 * f->length bytes so that any read past them is past the allocation. */
static int parse_prefix(const struct file *f, uint8_t *scratch, size_t length, struct elf_info *info)
{
    uint8_t *start = scratch + f->length - length;
    memcpy(start, f->bytes, length);
    return elf_parse(start, length, info);
}

/* Every prefix in [0, limit) and then every `step`th: each is refused with
 * the right error exactly when it lacks bytes the parser needs. */
static void check_prefixes(const struct file *f, size_t limit, size_t step)
{
    uint8_t *scratch = malloc(f->length);
    assert_non_null(scratch);
    size_t needed = bytes_needed(f);
    struct elf_info info;
    unsigned int accepted = 0;

    for (size_t length = 0; length <= f->length; length += length < limit ? 1 : step) {
        int err = parse_prefix(f, scratch, length, &info);
        if (length >= needed) {
            assert_int_equal(err, 0);
            check_info(&info, length);
            accepted++;
        } else {
            assert_int_equal(err, length < 4 ? -ENOEXEC : -EINVAL);
        }
    }
    /* And the prefixes that stop one byte short of each boundary. */
    for (size_t length = needed - 1; length <= needed; length++)
        assert_int_equal(parse_prefix(f, scratch, length, &info), length < needed ? -EINVAL : 0);
    assert_true(accepted > 0 || needed == f->length);
    free(scratch);
}

/* ---- the real programs ---- */

static void test_static_exec(void **state)
{
    (void)state;
    struct file f = FIXTURE_COPY(hello_static);
    struct elf_info info;
    assert_int_equal(elf_parse(f.bytes, f.length, &info), 0);
    check_info(&info, f.length);
    check_phdr_in_memory(&info, &f);

    struct elf64_header h;
    memcpy(&h, f.bytes, sizeof(h));
    assert_int_equal(info.type, ET_EXEC);
    assert_int_equal(info.load_bias, 0);
    assert_int_equal(info.entry, h.e_entry);
    assert_int_equal(info.segments[0].start, 0x400000);
    assert_int_equal(info.phdr, 0x400000 + h.e_phoff); /* no PT_PHDR: from the first PT_LOAD */
    /* GNU ld's layout with separate code: headers R, text R+X, rodata R, data R+W. */
    assert_int_equal(info.segment_count, 4);
    assert_int_equal(info.segments[0].flags, PF_R);
    assert_int_equal(info.segments[1].flags, PF_R | PF_X);
    assert_int_equal(info.segments[2].flags, PF_R);
    assert_int_equal(info.segments[3].flags, PF_R | PF_W);
    assert_true(info.segments[3].memory_size > info.segments[3].file_size); /* .bss */
    assert_true(info.has_tls);
    assert_int_equal(info.tls_memory_size, 4); /* hello.c's one __thread int */
    assert_true(info.tls_vaddr >= info.segments[3].vaddr &&
                info.tls_vaddr < info.segments[3].vaddr + info.segments[3].file_size);
    assert_true(info.has_gnu_stack);
    assert_int_equal(info.stack_flags, PF_R | PF_W);
    free(f.bytes);
}

/* execve's way: only the first bytes, the file's size apart. The same
 * answer as elf_parse for the whole file from the headers alone; a head
 * that stops inside the program headers, a size that cuts a segment, or
 * a head longer than the file is refused. */
static void test_headers_only(void **state)
{
    (void)state;
    struct file f = FIXTURE_COPY(hello_static);
    struct elf64_header h;
    memcpy(&h, f.bytes, sizeof(h));
    size_t table_end = h.e_phoff + (size_t)h.e_phnum * h.e_phentsize;
    struct elf_info whole, headers;
    assert_int_equal(elf_parse(f.bytes, f.length, &whole), 0);
    assert_int_equal(elf_parse_headers(f.bytes, table_end, f.length, &headers), 0);
    assert_memory_equal(&whole, &headers, sizeof(whole));
    assert_int_equal(elf_parse_headers(f.bytes, table_end - 1, f.length, &headers), -EINVAL);
    assert_int_equal(elf_parse_headers(f.bytes, table_end, bytes_needed(&f) - 1, &headers), -EINVAL);
    assert_int_equal(elf_parse_headers(f.bytes, table_end, bytes_needed(&f), &headers), 0);
    assert_int_equal(elf_parse_headers(f.bytes, table_end, table_end - 1, &headers), -EINVAL);
    assert_int_equal(elf_parse_headers(f.bytes, 0, 0, &headers), -ENOEXEC);
    free(f.bytes);
}

static void test_static_pie(void **state)
{
    (void)state;
    struct file f = FIXTURE_COPY(hello_static_pie);
    struct elf_info info;
    assert_int_equal(elf_parse(f.bytes, f.length, &info), 0);
    check_info(&info, f.length);
    check_phdr_in_memory(&info, &f);

    struct elf64_header h;
    memcpy(&h, f.bytes, sizeof(h));
    assert_int_equal(h.e_type, ET_DYN);
    assert_int_equal(info.type, ET_DYN);
    assert_int_equal(info.load_bias, ELF_PIE_BASE); /* linked at 0 */
    assert_int_equal(info.segments[0].start, ELF_PIE_BASE);
    assert_int_equal(info.entry, h.e_entry + ELF_PIE_BASE);
    assert_int_equal(info.phdr, ELF_PIE_BASE + h.e_phoff);
    assert_true(info.has_tls);
    assert_true(info.tls_vaddr > ELF_PIE_BASE);

    /* Placed elsewhere, as exec.c places an interpreter or a dynamic PIE;
     * a base past the user half is refused. */
    struct elf_info at;
    assert_int_equal(elf_parse_headers_at(f.bytes, f.length, f.length, 0x7ef000000000ull, &at), 0);
    assert_int_equal(at.load_bias, 0x7ef000000000ull);
    assert_int_equal(at.entry, h.e_entry + 0x7ef000000000ull);
    assert_int_equal(at.phdr, 0x7ef000000000ull + h.e_phoff);
    assert_int_equal(elf_parse_headers_at(f.bytes, f.length, f.length, ELF_USER_END - 4096, &at), -EINVAL);
    assert_int_equal(elf_parse_headers_at(f.bytes, f.length, f.length, UINT64_MAX - 4095, &at), -EINVAL);
    free(f.bytes);
}

/* A dynamic program parses; its PT_INTERP names musl's loader. */
static void test_dynamic_names_its_interpreter(void **state)
{
    (void)state;
    struct file f = FIXTURE_COPY(hello_dynamic);
    struct elf_info info;
    assert_int_equal(elf_parse(f.bytes, f.length, &info), 0);
    assert_true(info.has_interp);
    assert_true(info.interp_offset + info.interp_size <= f.length);
    const char *path = (const char *)f.bytes + info.interp_offset;
    assert_int_equal(path[info.interp_size - 1], '\0');
    assert_int_equal(strncmp(path, "/lib/ld-musl-x86_64.so.1", info.interp_size), 0);
    free(f.bytes);
}


static void test_fixture_prefixes(void **state)
{
    (void)state;
    struct file files[] = {FIXTURE_COPY(hello_static), FIXTURE_COPY(hello_static_pie)};
    for (size_t i = 0; i < 2; i++) {
        check_prefixes(&files[i], files[i].length, 1); /* every single prefix */
        free(files[i].bytes);
    }
}

static void test_busybox(void **state)
{
    (void)state;
    struct file f = busybox_read();
    if (f.length == 0)
        skip(); /* set NOHZK_BUSYBOX=/path/to/busybox (Debian's busybox-static) */
    struct elf_info info;
    assert_int_equal(elf_parse(f.bytes, f.length, &info), 0);
    check_info(&info, f.length);
    check_phdr_in_memory(&info, &f);
    assert_int_equal(info.type, ET_EXEC);
    assert_int_equal(info.segments[0].start, 0x400000);
    assert_true(info.has_tls); /* glibc's start-up sets up TLS from AT_PHDR */
    assert_true(info.has_gnu_stack);
    assert_int_equal(info.stack_flags & PF_X, 0);
    /* Every prefix up to 64 KiB, then one in every 4093 bytes (a prime,
     * so the cuts fall at every offset within a page). */
    check_prefixes(&f, 65536, 4093);
    free(f.bytes);
}

/* Random corruption of the headers of a real program: the parser must
 * never crash or read outside the file, and whatever it accepts must still
 * satisfy every invariant. */
static void test_corrupted_headers(void **state)
{
    (void)state;
    struct file f = FIXTURE_COPY(hello_static);
    struct elf64_header h;
    memcpy(&h, f.bytes, sizeof(h));
    size_t header_bytes = h.e_phoff + (size_t)h.e_phnum * h.e_phentsize;
    uint8_t *original = malloc(header_bytes);
    assert_non_null(original);
    memcpy(original, f.bytes, header_bytes);
    unsigned int accepted = 0, seed = 12345;

    for (int round = 0; round < 50000; round++) {
        int flips = 1 + round % 4;
        for (int i = 0; i < flips; i++) {
            seed = seed * 1103515245 + 12345;
            size_t at = (seed >> 8) % header_bytes;
            seed = seed * 1103515245 + 12345;
            f.bytes[at] =
                (round & 1) ? (uint8_t)(seed >> 16) : f.bytes[at] ^ (uint8_t)(1 << ((seed >> 16) % 8));
        }
        struct elf_info info;
        if (elf_parse(f.bytes, f.length, &info) == 0) {
            check_info(&info, f.length);
            accepted++;
        }
        memcpy(f.bytes, original, header_bytes);
    }
    assert_true(accepted > 0); /* some flips hit fields that do not matter */
    free(original);
    free(f.bytes);
}

/* ---- hand-built files, one field wrong at a time ---- */

#define MAX_HEADERS 20
#define BASE        0x400000ULL

/* A minimal valid ET_EXEC of 8 KiB: its headers, then two R+X pages at
 * 0x400000 holding the whole file. Tests edit h, ph and length, then
 * synthetic_parse(). */
struct synthetic {
    struct elf64_header h;
    struct elf64_program_header ph[MAX_HEADERS];
    size_t length;
    uint8_t bytes[16384];
};

static void synthetic_init(struct synthetic *s)
{
    memset(s, 0, sizeof(*s));
    memcpy(s->h.e_ident, ELF_MAGIC, 4);
    s->h.e_ident[EI_CLASS] = ELFCLASS64;
    s->h.e_ident[EI_DATA] = ELFDATA2LSB;
    s->h.e_ident[EI_VERSION] = EV_CURRENT;
    s->h.e_type = ET_EXEC;
    s->h.e_machine = EM_X86_64;
    s->h.e_version = EV_CURRENT;
    s->h.e_entry = BASE + 0x1000;
    s->h.e_phoff = sizeof(struct elf64_header);
    s->h.e_ehsize = sizeof(struct elf64_header);
    s->h.e_phentsize = sizeof(struct elf64_program_header);
    s->h.e_phnum = 1;
    s->ph[0] = (struct elf64_program_header){
        .p_type = PT_LOAD,
        .p_flags = PF_R | PF_X,
        .p_offset = 0,
        .p_vaddr = BASE,
        .p_filesz = 8192,
        .p_memsz = 8192,
        .p_align = 0x1000,
    };
    s->length = 8192;
}

/* Lays the headers into the bytes and parses them. */
static int synthetic_parse(struct synthetic *s, struct elf_info *info)
{
    memset(s->bytes, 0, sizeof(s->bytes));
    memcpy(s->bytes, &s->h, sizeof(s->h));
    size_t table = sizeof(s->ph[0]) * (s->h.e_phnum < MAX_HEADERS ? s->h.e_phnum : MAX_HEADERS);
    if (s->h.e_phoff == sizeof(s->h))
        memcpy(s->bytes + sizeof(s->h), s->ph, table);
    struct file f = file_copy(s->bytes, s->length); /* exact size, for ASan */
    int err = elf_parse(f.bytes, f.length, info);
    if (err == 0)
        check_info(info, f.length);
    free(f.bytes);
    return err;
}

static int synthetic_result(void (*edit)(struct synthetic *))
{
    struct synthetic s;
    struct elf_info info;
    synthetic_init(&s);
    edit(&s);
    return synthetic_parse(&s, &info);
}

static void test_synthetic_valid(void **state)
{
    (void)state;
    struct synthetic s;
    struct elf_info info;
    synthetic_init(&s);
    assert_int_equal(synthetic_parse(&s, &info), 0);
    assert_int_equal(info.entry, BASE + 0x1000);
    assert_int_equal(info.segment_count, 1);
    assert_int_equal(info.segments[0].start, BASE);
    assert_int_equal(info.segments[0].end, BASE + 0x2000);
    assert_int_equal(info.phdr, BASE + 64);
    assert_int_equal(info.phnum, 1);
    assert_false(info.has_tls);
    assert_false(info.has_gnu_stack);
}

/* Each edit gives one error; the table keeps the cases side by side. */
#define EDIT(name, ...)                                                                                      \
    static void name(struct synthetic *s)                                                                    \
    {                                                                                                        \
        __VA_ARGS__;                                                                                         \
    }

EDIT(bad_magic, s->h.e_ident[1] = 'X')
EDIT(class32, s->h.e_ident[EI_CLASS] = 1)
EDIT(big_endian, s->h.e_ident[EI_DATA] = 2)
EDIT(ident_version, s->h.e_ident[EI_VERSION] = 0)
EDIT(header_version, s->h.e_version = 2)
EDIT(machine_i386, s->h.e_machine = 3)
EDIT(machine_aarch64, s->h.e_machine = 183)
EDIT(relocatable, s->h.e_type = 1)
EDIT(core_file, s->h.e_type = 4)
EDIT(small_ehsize, s->h.e_ehsize = 52)
EDIT(phentsize_32bit, s->h.e_phentsize = 32)
EDIT(no_program_headers, s->h.e_phnum = 0)
EDIT(pn_xnum, s->h.e_phnum = 0xffff)
EDIT(most_headers, s->h.e_phnum = ELF_MAX_PROGRAM_HEADERS)         /* the rest are PT_NULL */
EDIT(too_many_headers, s->h.e_phnum = ELF_MAX_PROGRAM_HEADERS + 1) /* though the file holds them */
EDIT(table_past_end, s->h.e_phoff = s->length - 8)
EDIT(table_offset_wraps, s->h.e_phoff = UINT64_MAX - 8)
EDIT(filesz_over_memsz, s->ph[0].p_filesz = s->ph[0].p_memsz + 1)
EDIT(segment_past_file, s->ph[0].p_memsz = s->ph[0].p_filesz = s->length + 1)
EDIT(segment_offset_wraps, s->ph[0].p_offset = UINT64_MAX - 0xfff; s->ph[0].p_vaddr = BASE - 0x1000)
EDIT(vaddr_wraps, s->ph[0].p_vaddr = UINT64_MAX & ~0xfffULL)
EDIT(memsz_wraps, s->ph[0].p_memsz = UINT64_MAX - 0x1000)
EDIT(kernel_half, s->ph[0].p_vaddr = 0xffffffff80000000ULL; s->h.e_entry = s->ph[0].p_vaddr)
EDIT(crosses_user_end, s->ph[0].p_vaddr = ELF_USER_END - 0x1000; s->h.e_entry = s->ph[0].p_vaddr)
EDIT(ends_at_user_end, s->ph[0].p_vaddr = ELF_USER_END - 0x2000; s->h.e_entry = s->ph[0].p_vaddr)
/* The last page below 2^47 is never user memory (Linux's TASK_SIZE_MAX):
 * a `syscall` in its last bytes would return to a non-canonical RIP. */
EDIT(in_last_page, s->ph[0].p_vaddr = 0x7ffffffff000ULL; s->ph[0].p_filesz = s->ph[0].p_memsz = 0x1000;
     s->h.e_entry = s->ph[0].p_vaddr + 0x100)
EDIT(into_last_page, s->ph[0].p_vaddr = 0x7fffffffe000ULL; s->h.e_entry = s->ph[0].p_vaddr)
EDIT(bss_into_last_page, s->ph[0].p_vaddr = 0x7fffffffe000ULL; s->ph[0].p_filesz = 0x1000;
     s->h.e_entry = s->ph[0].p_vaddr)
EDIT(below_last_page, s->ph[0].p_vaddr = 0x7fffffffd000ULL; s->h.e_entry = s->ph[0].p_vaddr)
EDIT(null_page, s->ph[0].p_vaddr = 0; s->h.e_entry = 0x100)
EDIT(align_not_power_of_two, s->ph[0].p_align = 0x3000)
EDIT(align_huge, s->ph[0].p_align = 1ULL << 40)
EDIT(align_zero, s->ph[0].p_align = 0)
EDIT(vaddr_offset_disagree, s->ph[0].p_vaddr = BASE + 0x10; s->h.e_entry = BASE + 0x1000)
EDIT(interp, s->ph[1] = (struct elf64_program_header){.p_type = PT_INTERP, .p_offset = 0x200, .p_filesz = 8};
     s->h.e_phnum = 2)
EDIT(interp_one_byte, interp(s); s->ph[1].p_filesz = 1)
EDIT(interp_too_long, interp(s); s->ph[1].p_filesz = ELF_INTERP_MAX + 1)
EDIT(interp_past_file, interp(s); s->ph[1].p_offset = s->length - 4)
EDIT(interp_twice, interp(s); s->ph[2] = s->ph[1]; s->ph[2].p_filesz = 1; s->h.e_phnum = 3)
EDIT(no_load, s->ph[0].p_type = PT_NOTE)
EDIT(empty_load_only, s->ph[0].p_memsz = s->ph[0].p_filesz = 0)
EDIT(entry_outside, s->h.e_entry = BASE + 0x2000)
EDIT(entry_not_executable, s->ph[0].p_flags = PF_R | PF_W)

/* A second segment, for the ordering rules: [vaddr, vaddr + 0x1000) from
 * file offset 0x1000. */
static void add_segment(struct synthetic *s, uint64_t vaddr)
{
    s->ph[0].p_filesz = s->ph[0].p_memsz = 0x1000;
    s->ph[1] = (struct elf64_program_header){
        .p_type = PT_LOAD,
        .p_flags = PF_R | PF_W,
        .p_offset = 0x1000,
        .p_vaddr = vaddr,
        .p_filesz = 0x1000,
        .p_memsz = 0x1000,
        .p_align = 0x1000,
    };
    s->h.e_phnum = 2;
    s->h.e_entry = BASE + 0x10;
}

EDIT(two_segments, add_segment(s, BASE + 0x1000))
EDIT(segments_share_page, add_segment(s, BASE + 0x1000); s->ph[0].p_memsz = 0x1001)
EDIT(segments_overlap, add_segment(s, BASE))
EDIT(segments_descending, add_segment(s, BASE - 0x1000))
EDIT(pt_phdr_valid, s->ph[1] = (struct elf64_program_header){.p_type = PT_PHDR,
                                                             .p_vaddr = BASE + 64,
                                                             .p_offset = 64,
                                                             .p_filesz = 112};
     s->h.e_phnum = 2)
EDIT(pt_phdr_outside, s->ph[1] = (struct elf64_program_header){.p_type = PT_PHDR, .p_vaddr = BASE + 0x5000};
     s->h.e_phnum = 2)
EDIT(pt_phdr_twice,
     s->ph[1] = s->ph[2] = (struct elf64_program_header){.p_type = PT_PHDR, .p_vaddr = BASE + 64};
     s->h.e_phnum = 3)
EDIT(tls_valid, s->ph[1] = (struct elf64_program_header){.p_type = PT_TLS,
                                                         .p_vaddr = BASE + 0x1800,
                                                         .p_offset = 0x1800,
                                                         .p_filesz = 8,
                                                         .p_memsz = 64,
                                                         .p_align = 16};
     s->h.e_phnum = 2)
EDIT(tls_twice, tls_valid(s); s->ph[2] = s->ph[1]; s->h.e_phnum = 3)
EDIT(tls_filesz_over_memsz, tls_valid(s); s->ph[1].p_filesz = 65)
EDIT(tls_past_file, tls_valid(s); s->ph[1].p_offset = s->length - 4)
EDIT(tls_bad_align, tls_valid(s); s->ph[1].p_align = 24)
EDIT(interp_in_static_pie, s->h.e_type = ET_DYN; interp(s))

static void test_interp_records_the_first(void **state)
{
    (void)state;
    struct synthetic s;
    struct elf_info info;
    synthetic_init(&s);
    interp_twice(&s);
    assert_int_equal(synthetic_parse(&s, &info), 0);
    assert_true(info.has_interp);
    assert_int_equal(info.interp_offset, 0x200);
    assert_int_equal(info.interp_size, 8);
}

static void test_synthetic_errors(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        void (*edit)(struct synthetic *);
        int expected;
    } cases[] = {
#define CASE(edit, expected) {#edit, edit, expected}
        CASE(bad_magic, -ENOEXEC),
        CASE(class32, -ENOEXEC),
        CASE(big_endian, -ENOEXEC),
        CASE(ident_version, -ENOEXEC),
        CASE(header_version, -ENOEXEC),
        CASE(machine_i386, -ENOEXEC),
        CASE(machine_aarch64, -ENOEXEC),
        CASE(relocatable, -ENOEXEC),
        CASE(core_file, -ENOEXEC),
        CASE(small_ehsize, -EINVAL),
        CASE(phentsize_32bit, -EINVAL),
        CASE(no_program_headers, -EINVAL),
        CASE(pn_xnum, -EINVAL),
        CASE(most_headers, 0),
        CASE(too_many_headers, -EINVAL),
        CASE(table_past_end, -EINVAL),
        CASE(table_offset_wraps, -EINVAL),
        CASE(filesz_over_memsz, -EINVAL),
        CASE(segment_past_file, -EINVAL),
        CASE(segment_offset_wraps, -EINVAL),
        CASE(vaddr_wraps, -EINVAL),
        CASE(memsz_wraps, -EINVAL),
        CASE(kernel_half, -EINVAL),
        CASE(crosses_user_end, -EINVAL),
        CASE(ends_at_user_end, 0),
        CASE(in_last_page, -EINVAL),
        CASE(into_last_page, -EINVAL),
        CASE(bss_into_last_page, -EINVAL),
        CASE(below_last_page, 0),
        CASE(null_page, -EINVAL),
        CASE(align_not_power_of_two, -EINVAL),
        CASE(align_huge, -EINVAL),
        CASE(align_zero, 0),
        CASE(vaddr_offset_disagree, -EINVAL),
        CASE(interp, 0),                /* recorded: exec.c looks the interpreter up */
        CASE(interp_in_static_pie, 0),
        CASE(interp_one_byte, -ENOEXEC),
        CASE(interp_too_long, -ENOEXEC),
        CASE(interp_past_file, -ENOEXEC),
        CASE(interp_twice, 0),          /* only the first counts, as on Linux */
        CASE(no_load, -ENOEXEC),
        CASE(empty_load_only, -ENOEXEC),
        CASE(entry_outside, -EINVAL),
        CASE(entry_not_executable, -EINVAL),
        CASE(two_segments, 0),
        CASE(segments_share_page, -EINVAL),
        CASE(segments_overlap, -EINVAL),
        CASE(segments_descending, -EINVAL),
        CASE(pt_phdr_valid, 0),
        CASE(pt_phdr_outside, -EINVAL),
        CASE(pt_phdr_twice, -EINVAL),
        CASE(tls_valid, 0),
        CASE(tls_twice, -EINVAL),
        CASE(tls_filesz_over_memsz, -EINVAL),
        CASE(tls_past_file, -EINVAL),
        CASE(tls_bad_align, -EINVAL),
#undef CASE
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        int err = synthetic_result(cases[i].edit);
        if (err != cases[i].expected)
            fail_msg("%s: got %d, expected %d", cases[i].name, err, cases[i].expected);
    }
}

/* 16 PT_LOAD segments are accepted, 17 refused. */
static void test_segment_limit(void **state)
{
    (void)state;
    for (unsigned int count = 16; count <= 17; count++) {
        struct synthetic s;
        struct elf_info info;
        synthetic_init(&s);
        s.length = 0x1000 + count * 0x100;
        s.ph[0].p_filesz = s.ph[0].p_memsz = 0x1000;
        for (unsigned int i = 1; i < count; i++)
            s.ph[i] = (struct elf64_program_header){
                .p_type = PT_LOAD,
                .p_flags = PF_R,
                .p_offset = 0x1000 + i * 0x100,
                .p_vaddr = BASE + i * 0x10000 + i * 0x100,
                .p_filesz = 0x100,
                .p_memsz = 0x2000,
                .p_align = 0x1000,
            };
        s.h.e_phnum = count;
        s.h.e_entry = BASE + 0x800;
        int err = synthetic_parse(&s, &info);
        if (count == 16) {
            assert_int_equal(err, 0);
            assert_int_equal(info.segment_count, 16);
            assert_int_equal(info.segments[15].start, BASE + 15 * 0x10000);
            assert_int_equal(info.segments[15].vaddr, BASE + 15 * 0x10000 + 15 * 0x100);
            assert_int_equal(info.segments[15].end, BASE + 15 * 0x10000 + 0x3000);
        } else {
            assert_int_equal(err, -ENOEXEC);
        }
    }
}

static void test_recorded_fields(void **state)
{
    (void)state;
    struct synthetic s;
    struct elf_info info;

    synthetic_init(&s);
    pt_phdr_valid(&s);
    s.ph[2] = (struct elf64_program_header){.p_type = PT_GNU_STACK, .p_flags = PF_R | PF_W | PF_X};
    s.h.e_phnum = 3;
    assert_int_equal(synthetic_parse(&s, &info), 0);
    assert_int_equal(info.phdr, BASE + 64);
    assert_true(info.has_gnu_stack);
    assert_int_equal(info.stack_flags, PF_R | PF_W | PF_X);

    /* Program headers outside every segment: AT_PHDR is 0, for the loader to decide. */
    synthetic_init(&s);
    s.ph[0].p_offset = 0x1000; /* a segment from file offset 0x1000 only */
    s.ph[0].p_vaddr = BASE + 0x1000;
    s.ph[0].p_filesz = s.ph[0].p_memsz = 0x1000;
    s.h.e_entry = BASE + 0x1000;
    assert_int_equal(synthetic_parse(&s, &info), 0);
    assert_int_equal(info.phdr, 0);

    synthetic_init(&s);
    tls_valid(&s);
    assert_int_equal(synthetic_parse(&s, &info), 0);
    assert_true(info.has_tls);
    assert_int_equal(info.tls_vaddr, BASE + 0x1800);
    assert_int_equal(info.tls_file_size, 8);
    assert_int_equal(info.tls_memory_size, 64);
    assert_int_equal(info.tls_align, 16);

    /* A zero-sized PT_LOAD next to a real one is skipped. */
    synthetic_init(&s);
    s.ph[1] = (struct elf64_program_header){.p_type = PT_LOAD, .p_vaddr = BASE, .p_align = 0x1000};
    s.h.e_phnum = 2;
    assert_int_equal(synthetic_parse(&s, &info), 0);
    assert_int_equal(info.segment_count, 1);
}

/* A static PIE goes to ELF_PIE_BASE, rounded up to its largest alignment. */
static void test_pie_bias(void **state)
{
    (void)state;
    static const struct {
        uint64_t vaddr, align, bias;
    } cases[] = {
        {0, 0x1000, ELF_PIE_BASE},   {0x10000, 0x1000, ELF_PIE_BASE - 0x10000},
        {0, 0x200000, ELF_PIE_BASE}, {0x200000, 0x200000, ELF_PIE_BASE - 0x200000},
        {0, 0x40000000, 0x40000000}, {0x1000000, 0x1000, 0}, /* linked above the base already: left there */
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct synthetic s;
        struct elf_info info;
        synthetic_init(&s);
        s.h.e_type = ET_DYN;
        s.ph[0].p_vaddr = cases[i].vaddr;
        s.ph[0].p_align = cases[i].align;
        s.h.e_entry = cases[i].vaddr + 0x1000;
        assert_int_equal(synthetic_parse(&s, &info), 0);
        assert_int_equal(info.load_bias, cases[i].bias);
        assert_int_equal(info.load_bias % cases[i].align, 0);
        assert_int_equal(info.segments[0].start, cases[i].vaddr + cases[i].bias);
        assert_int_equal(info.entry, cases[i].vaddr + 0x1000 + cases[i].bias);
        assert_int_equal(info.phdr, cases[i].vaddr + cases[i].bias + 64);
    }
}

/* Header fields read from an odd address: the parser copies before reading. */
static void test_unaligned_image(void **state)
{
    (void)state;
    struct file f = FIXTURE_COPY(hello_static);
    uint8_t *odd = malloc(f.length + 1);
    assert_non_null(odd);
    memcpy(odd + 1, f.bytes, f.length);
    struct elf_info info;
    assert_int_equal(elf_parse(odd + 1, f.length, &info), 0);
    check_info(&info, f.length);
    free(odd);
    free(f.bytes);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_static_exec),
        cmocka_unit_test(test_static_pie),
        cmocka_unit_test(test_dynamic_names_its_interpreter),
        cmocka_unit_test(test_interp_records_the_first),
        cmocka_unit_test(test_fixture_prefixes),
        cmocka_unit_test(test_busybox),
        cmocka_unit_test(test_corrupted_headers),
        cmocka_unit_test(test_synthetic_valid),
        cmocka_unit_test(test_synthetic_errors),
        cmocka_unit_test(test_segment_limit),
        cmocka_unit_test(test_recorded_fields),
        cmocka_unit_test(test_pie_bias),
        cmocka_unit_test(test_unaligned_image),
        cmocka_unit_test(test_headers_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
