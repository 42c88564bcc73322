/* ELF64 parser for x86-64 executables and their interpreters (see elf.h
 * for what is left out). The rules are Linux's binfmt_elf where they matter to a program,
 * plus a few it does not make (segments in ascending order that do not
 * share a page, the entry point in an executable segment), because a
 * teaching loader is simpler when it can trust them and no real linker
 * output breaks them.
 *
 * The image is a byte array of any alignment: headers are copied out with
 * memcpy before their fields are read.
 */
#include "kernel/process/elf.h"
#include "kernel/lib/errno.h"
#include "kernel/lib/string.h"

static uint64_t page_round_down(uint64_t address)
{
    return address & ~(ELF_PAGE_SIZE - 1);
}

static uint64_t page_round_up(uint64_t address)
{
    return page_round_down(address + ELF_PAGE_SIZE - 1);
}

static bool is_power_of_two(uint64_t x)
{
    return x != 0 && (x & (x - 1)) == 0;
}

/* Do bytes [offset, offset + size) lie inside [0, limit)?
 * Written so that nothing can overflow. */
static bool range_fits(uint64_t offset, uint64_t size, uint64_t limit)
{
    return offset <= limit && size <= limit - offset;
}

/* The ELF header: is it an x86-64 executable we can run at all? */
static int check_header(const struct elf64_header *h)
{
    if (h->e_ident[EI_CLASS] != ELFCLASS64 || h->e_ident[EI_DATA] != ELFDATA2LSB)
        return -ENOEXEC;
    if (h->e_ident[EI_VERSION] != EV_CURRENT || h->e_version != EV_CURRENT)
        return -ENOEXEC;
    if (h->e_machine != EM_X86_64)
        return -ENOEXEC;
    if (h->e_type != ET_EXEC && h->e_type != ET_DYN)
        return -ENOEXEC; /* relocatable objects, core files */
    if (h->e_ehsize < sizeof(struct elf64_header))
        return -EINVAL;
    if (h->e_phentsize != sizeof(struct elf64_program_header))
        return -EINVAL;
    if (h->e_phnum == 0 || h->e_phnum > ELF_MAX_PROGRAM_HEADERS)
        return -EINVAL;
    return 0;
}

/* The checks on one PT_LOAD that need no other segment. */
static int check_load(const struct elf64_program_header *ph, size_t length)
{
    if (ph->p_filesz > ph->p_memsz)
        return -EINVAL;
    if (!range_fits(ph->p_offset, ph->p_filesz, length))
        return -EINVAL;
    /* 0 and 1 mean "no alignment"; otherwise a power of two that vaddr and
     * offset agree modulo (the spec's rule, which mapping pages needs). */
    if (ph->p_align > 1 && (!is_power_of_two(ph->p_align) || ph->p_align > ELF_MAX_ALIGN))
        return -EINVAL;
    if (ph->p_align > 1 && (ph->p_vaddr - ph->p_offset) % ph->p_align != 0)
        return -EINVAL;
    /* Pages are filled from the file page by page, so within a page the
     * file and memory offsets must agree even when p_align does not say so. */
    if ((ph->p_vaddr - ph->p_offset) % ELF_PAGE_SIZE != 0)
        return -EINVAL;
    /* Unbiased bounds; the biased ones are checked once the bias is known. */
    if (ph->p_vaddr >= ELF_USER_END || ph->p_memsz > ELF_USER_END - ph->p_vaddr)
        return -EINVAL;
    return 0;
}

static void record_load(struct elf_info *out, const struct elf64_program_header *ph)
{
    struct elf_segment *s = &out->segments[out->segment_count++];
    s->start = page_round_down(ph->p_vaddr);
    s->end = page_round_up(ph->p_vaddr + ph->p_memsz);
    s->vaddr = ph->p_vaddr;
    s->memory_size = ph->p_memsz;
    s->file_offset = ph->p_offset;
    s->file_size = ph->p_filesz;
    s->flags = ph->p_flags & (PF_R | PF_W | PF_X);
}

static int record_tls(struct elf_info *out, const struct elf64_program_header *ph, size_t length)
{
    if (out->has_tls)
        return -EINVAL;
    if (ph->p_filesz > ph->p_memsz || !range_fits(ph->p_offset, ph->p_filesz, length))
        return -EINVAL;
    if (ph->p_align > 1 && (!is_power_of_two(ph->p_align) || ph->p_align > ELF_MAX_ALIGN))
        return -EINVAL;
    out->has_tls = true;
    out->tls_vaddr = ph->p_vaddr;
    out->tls_file_size = ph->p_filesz;
    out->tls_memory_size = ph->p_memsz;
    out->tls_align = ph->p_align;
    return 0;
}

/* A dynamically linked program: where the interpreter's path is in the
 * file (exec.c reads and looks it up). Linux's bounds, and only the
 * first PT_INTERP counts, as there. */
static int record_interpreter(struct elf_info *out, const struct elf64_program_header *ph, uint64_t file_size)
{
    if (out->has_interp)
        return 0;
    if (ph->p_filesz < 2 || ph->p_filesz > ELF_INTERP_MAX || !range_fits(ph->p_offset, ph->p_filesz, file_size))
        return -ENOEXEC;
    out->has_interp = true;
    out->interp_offset = ph->p_offset;
    out->interp_size = ph->p_filesz;
    return 0;
}

/* What the pass over the program headers learns besides *out. */
struct scan {
    bool have_pt_phdr;
    uint64_t pt_phdr_vaddr;
    uint64_t max_align; /* of the PT_LOADs, at least a page */
};

/* One pass over the program headers: validate each, record what the
 * loader needs, refuse what we do not run. */
static int read_program_headers(const uint8_t *image, uint64_t file_size, const struct elf64_header *h,
                                struct elf_info *out, struct scan *scan)
{
    for (unsigned int i = 0; i < h->e_phnum; i++) {
        struct elf64_program_header ph;
        memcpy(&ph, image + h->e_phoff + (uint64_t)i * sizeof(ph), sizeof(ph));
        int err = 0;

        switch (ph.p_type) {
        case PT_INTERP:
            err = record_interpreter(out, &ph, file_size);
            break;
        case PT_LOAD:
            err = check_load(&ph, file_size);
            if (err)
                return err;
            if (ph.p_memsz == 0)
                break; /* maps nothing; Linux skips these too */
            if (out->segment_count == ELF_MAX_LOAD_SEGMENTS)
                return -ENOEXEC;
            record_load(out, &ph);
            if (ph.p_align > scan->max_align)
                scan->max_align = ph.p_align;
            break;
        case PT_PHDR:
            if (scan->have_pt_phdr)
                return -EINVAL;
            scan->have_pt_phdr = true;
            scan->pt_phdr_vaddr = ph.p_vaddr;
            break;
        case PT_TLS:
            err = record_tls(out, &ph, file_size);
            break;
        case PT_GNU_STACK:
            out->has_gnu_stack = true;
            out->stack_flags = ph.p_flags & (PF_R | PF_W | PF_X);
            break;
        default:
            break; /* PT_DYNAMIC, PT_NOTE, PT_GNU_RELRO...: not the kernel's business */
        }
        if (err)
            return err;
    }
    return out->segment_count == 0 ? -ENOEXEC : 0;
}

/* Segments must come in ascending order and not share a page: then the
 * loader can map each one with its own permissions. */
static int check_segments_disjoint(const struct elf_info *out)
{
    for (unsigned int i = 1; i < out->segment_count; i++)
        if (out->segments[i].start < out->segments[i - 1].end)
            return -EINVAL;
    return 0;
}

/* Where the program headers are in memory, before the bias: from PT_PHDR if
 * present (it must lie in the file-backed part of a loaded segment), else
 * from the PT_LOAD whose file bytes hold them, else 0 (not loaded: the C
 * library gets no AT_PHDR, and a static glibc or musl program cannot set up
 * its TLS without it; the loader decides). */
static int find_phdr(const struct elf_info *out, const struct elf64_header *h, const struct scan *scan,
                     uint64_t *phdr)
{
    uint64_t table_size = (uint64_t)h->e_phnum * h->e_phentsize;

    for (unsigned int i = 0; i < out->segment_count; i++) {
        const struct elf_segment *s = &out->segments[i];
        if (scan->have_pt_phdr) {
            uint64_t address = scan->pt_phdr_vaddr;
            if (address >= s->vaddr && range_fits(address - s->vaddr, table_size, s->file_size)) {
                *phdr = address;
                return 0;
            }
        } else if (h->e_phoff >= s->file_offset &&
                   range_fits(h->e_phoff - s->file_offset, table_size, s->file_size)) {
            *phdr = s->vaddr + (h->e_phoff - s->file_offset);
            return 0;
        }
    }
    *phdr = 0;
    return scan->have_pt_phdr ? -EINVAL : 0;
}

/* The entry point must be inside an executable segment. */
static bool entry_is_executable(const struct elf_info *out, uint64_t entry)
{
    for (unsigned int i = 0; i < out->segment_count; i++) {
        const struct elf_segment *s = &out->segments[i];
        if ((s->flags & PF_X) && entry >= s->vaddr && entry - s->vaddr < s->memory_size)
            return true;
    }
    return false;
}

/* An ET_DYN file goes at base (ELF_PIE_BASE for a static PIE), rounded up
 * so that every segment keeps its alignment; ET_EXEC stays where it was
 * linked. Then every address is moved by the bias and checked against the
 * user half. */
static int apply_bias(struct elf_info *out, uint64_t max_align, uint64_t base)
{
    uint64_t lowest = out->segments[0].start;
    uint64_t bias = 0;

    if (out->type == ET_DYN && lowest < base) {
        if (base > ELF_USER_END)
            return -EINVAL;
        uint64_t aligned = (base + max_align - 1) & ~(max_align - 1);
        bias = aligned - (lowest & ~(max_align - 1));
    }
    uint64_t last_end = out->segments[out->segment_count - 1].end;
    if (lowest + bias < ELF_USER_MIN || last_end > ELF_USER_END - bias)
        return -EINVAL;

    out->load_bias = bias;
    out->entry += bias;
    if (out->phdr)
        out->phdr += bias;
    if (out->has_tls)
        out->tls_vaddr += bias;
    for (unsigned int i = 0; i < out->segment_count; i++) {
        out->segments[i].start += bias;
        out->segments[i].end += bias;
        out->segments[i].vaddr += bias;
    }
    return 0;
}

int elf_parse(const void *image, size_t length, struct elf_info *out)
{
    return elf_parse_headers(image, length, length, out);
}

int elf_parse_headers(const void *head, size_t head_length, uint64_t file_size, struct elf_info *out)
{
    return elf_parse_headers_at(head, head_length, file_size, ELF_PIE_BASE, out);
}

int elf_parse_headers_at(const void *head, size_t head_length, uint64_t file_size, uint64_t base,
                         struct elf_info *out)
{
    const uint8_t *bytes = head;
    size_t length = head_length;
    struct elf64_header h;
    int err;

    memset(out, 0, sizeof(*out));
    if (length < 4 || memcmp(bytes, ELF_MAGIC, 4) != 0)
        return -ENOEXEC;
    if (length < sizeof(h))
        return -EINVAL; /* an ELF file, cut short */
    memcpy(&h, bytes, sizeof(h));
    err = check_header(&h);
    if (err)
        return err;
    if (head_length > file_size || !range_fits(h.e_phoff, (uint64_t)h.e_phnum * h.e_phentsize, head_length))
        return -EINVAL;

    struct scan scan = {.max_align = ELF_PAGE_SIZE};
    uint64_t phdr = 0;
    err = read_program_headers(bytes, file_size, &h, out, &scan);
    if (!err)
        err = check_segments_disjoint(out);
    if (!err)
        err = find_phdr(out, &h, &scan, &phdr);
    if (!err && !entry_is_executable(out, h.e_entry))
        err = -EINVAL;
    if (err) {
        memset(out, 0, sizeof(*out));
        return err;
    }
    out->type = h.e_type;
    out->entry = h.e_entry;
    out->phdr = phdr;
    out->phnum = h.e_phnum;
    out->phentsize = h.e_phentsize;
    err = apply_bias(out, scan.max_align, base);
    if (err)
        memset(out, 0, sizeof(*out));
    return err;
}
