/* A defensive parser for the ELF64 executables nohzk runs: x86-64 Linux
 * programs, either ET_EXEC (linked at a fixed address, like Debian's
 * busybox-static at 0x400000) or ET_DYN (a static or dynamic PIE, or an
 * interpreter such as Debian's ld-linux-x86-64.so.2), placed at a base
 * the caller chooses. A dynamically linked program's PT_INTERP is
 * recorded here; exec.c loads the interpreter it names.
 *
 * The parser is pure: it reads the file image and says what to map where,
 * and maps nothing itself. Every field is checked before it is used, so a
 * truncated or hostile file is refused with an error, never read past its
 * end. Left out on purpose: section headers (a loader never needs them), 32-bit and big-endian files,
 * and more than 0xfffe program headers (the PN_XNUM extension).
 */
#ifndef NOHZK_ELF_H
#define NOHZK_ELF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- the file format (the subset we read; names from the ELF spec) ---- */

#define ELF_MAGIC   "\177ELF"
#define ELFCLASS64  2
#define ELFDATA2LSB 1
#define EV_CURRENT  1
#define ET_EXEC     2
#define ET_DYN      3
#define EM_X86_64   62

#define PT_NULL      0
#define PT_LOAD      1
#define PT_DYNAMIC   2
#define PT_INTERP    3
#define PT_NOTE      4
#define PT_PHDR      6
#define PT_TLS       7
#define PT_GNU_STACK 0x6474e551

#define PF_X 1
#define PF_W 2
#define PF_R 4

struct elf64_header {
    uint8_t e_ident[16]; /* magic, class, data, version, OS ABI, padding */
    uint16_t e_type;
    uint16_t e_machine;
    uint32_t e_version;
    uint64_t e_entry;
    uint64_t e_phoff;
    uint64_t e_shoff;
    uint32_t e_flags;
    uint16_t e_ehsize;
    uint16_t e_phentsize;
    uint16_t e_phnum;
    uint16_t e_shentsize;
    uint16_t e_shnum;
    uint16_t e_shstrndx;
};

struct elf64_program_header {
    uint32_t p_type;
    uint32_t p_flags;
    uint64_t p_offset;
    uint64_t p_vaddr;
    uint64_t p_paddr;
    uint64_t p_filesz;
    uint64_t p_memsz;
    uint64_t p_align;
};

#define EI_CLASS   4
#define EI_DATA    5
#define EI_VERSION 6

/* ---- what the parser gives the loader ---- */

#define ELF_MAX_LOAD_SEGMENTS   16
#define ELF_MAX_PROGRAM_HEADERS 128
#define ELF_PAGE_SIZE           4096ULL
/* Mappings stay between the unmapped first 64 KiB (so that a NULL pointer
 * faults, Linux's mmap_min_addr) and the last page below 2^47, which is
 * never mapped (Linux's TASK_SIZE_MAX): a `syscall` in its last bytes
 * would return to the non-canonical 2^47. */
#define ELF_USER_MIN 0x10000ULL
#define ELF_USER_END 0x00007ffffffff000ULL
/* Where a static PIE is placed (its lowest page), as for ET_EXEC binaries;
 * no address-space randomisation. */
#define ELF_PIE_BASE 0x400000ULL
/* Larger alignments than this are refused as nonsense. */
#define ELF_MAX_ALIGN 0x40000000ULL
/* An interpreter's path with its NUL: Linux's PATH_MAX bound. */
#define ELF_INTERP_MAX 4096

/* One PT_LOAD segment. All addresses already include the load bias. */
struct elf_segment {
    uint64_t start;       /* first byte of the first page */
    uint64_t end;         /* end of the last page (exclusive) */
    uint64_t vaddr;       /* where the file bytes go (not page aligned) */
    uint64_t memory_size; /* bytes from vaddr; past file_size they are zero */
    uint64_t file_offset; /* where the bytes are in the file */
    uint64_t file_size;   /* how many: file_size <= memory_size */
    uint32_t flags;       /* PF_R | PF_W | PF_X */
};

struct elf_info {
    uint16_t type;      /* ET_EXEC or ET_DYN (PIE or interpreter) */
    uint64_t load_bias; /* added to every p_vaddr: 0 for ET_EXEC */
    uint64_t entry;     /* e_entry + load_bias */
    uint64_t phdr;      /* AT_PHDR: program headers in memory, 0 if not loaded */
    uint16_t phnum;     /* AT_PHNUM */
    uint16_t phentsize; /* AT_PHENT */
    unsigned int segment_count;
    struct elf_segment segments[ELF_MAX_LOAD_SEGMENTS]; /* by ascending address */
    bool has_tls; /* PT_TLS: the template the C library copies per thread */
    uint64_t tls_vaddr, tls_file_size, tls_memory_size, tls_align;
    bool has_gnu_stack;   /* PT_GNU_STACK present: stack_flags are its flags */
    uint32_t stack_flags; /* PF_X here asks for an executable stack */
    bool has_interp;      /* PT_INTERP: the file bytes of the interpreter's path */
    uint64_t interp_offset, interp_size;
};

/* Parses the executable in image[0, length). Returns 0 and fills *out, or
 * -ENOEXEC (not an ELF file, wrong class/endianness/machine, a PT_INTERP
 * of a bad size, or a kind of file we do not run) or -EINVAL (malformed). */
int elf_parse(const void *image, size_t length, struct elf_info *out);
/* The same from the file's first head_length bytes only (execve reads no
 * more): the program headers must lie in them, and the segments in the
 * file's file_size bytes. */
int elf_parse_headers(const void *head, size_t head_length, uint64_t file_size, struct elf_info *out);
/* The same, an ET_DYN file placed at base (rounded up to its alignment)
 * instead of ELF_PIE_BASE. */
int elf_parse_headers_at(const void *head, size_t head_length, uint64_t file_size, uint64_t base,
                         struct elf_info *out);

#endif
