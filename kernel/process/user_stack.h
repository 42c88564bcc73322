/* The initial stack of a new process, as the System V AMD64 ABI (and so
 * every Linux C library) expects it at the entry point. From rsp upwards:
 *
 *     argc
 *     argv[0] ... argv[argc - 1], NULL
 *     envp[0] ... NULL
 *     auxv: (type, value) pairs ..., (AT_NULL, 0)
 *     padding
 *     16 random bytes (AT_RANDOM), "x86_64" (AT_PLATFORM)
 *     the argument and environment strings
 *     the file name execve was given (AT_EXECFN)    <- stack_top
 *
 * with rsp 16-byte aligned. user_stack_build writes this image into a kernel
 * buffer whose last byte will sit just below stack_top in the new address
 * space; every pointer in it is already a user address. It maps and copies
 * nothing itself.
 */
#ifndef NOHZK_USER_STACK_H
#define NOHZK_USER_STACK_H

#include <stddef.h>
#include <stdint.h>

/* Auxiliary vector entry types (Linux's numbers). */
#define AT_NULL     0
#define AT_IGNORE   1
#define AT_EXECFD   2
#define AT_PHDR     3 /* program headers in memory (elf_info.phdr) */
#define AT_PHENT    4 /* size of one program header */
#define AT_PHNUM    5 /* number of program headers */
#define AT_PAGESZ   6
#define AT_BASE     7 /* where the interpreter (PT_INTERP) is loaded, or 0 */
#define AT_FLAGS    8
#define AT_ENTRY    9 /* the program's entry point */
#define AT_NOTELF   10
#define AT_UID      11
#define AT_EUID     12
#define AT_GID      13
#define AT_EGID     14
#define AT_PLATFORM 15 /* added by user_stack_build */
#define AT_HWCAP    16 /* CPUID.1:EDX */
#define AT_CLKTCK   17 /* times() ticks per second: 100 on Linux */
#define AT_SECURE   23
#define AT_RANDOM   25 /* added by user_stack_build */
#define AT_HWCAP2   26
#define AT_EXECFN   31
#define AT_SYSINFO_EHDR 33 /* the vDSO's ELF header (kernel/process/vdso.h) */

struct auxv_entry {
    uint64_t type;
    uint64_t value;
};

/* Builds the image in the top of buffer[0, buffer_size) for a stack whose
 * top (the user address just past the buffer's last byte) is stack_top,
 * which must be 16-byte aligned. argv and envp are NULL-terminated (a NULL
 * array counts as empty). auxv holds the caller's entries without AT_NULL,
 * AT_EXECFN,
 * AT_RANDOM and AT_PLATFORM, which are added here. On success, returns 0
 * and sets *user_rsp_out: the image is buffer[buffer_size - (stack_top -
 * *user_rsp_out), buffer_size). Returns -E2BIG if it does not fit, -EINVAL
 * on bad arguments. */
int user_stack_build(uint8_t *buffer, size_t buffer_size, uint64_t stack_top, const char *const *argv,
                     const char *const *envp, const struct auxv_entry *auxv, size_t auxv_count,
                     const uint8_t random16[16], uint64_t *user_rsp_out);
/* The same, with execfn (if not NULL) copied above the strings and named
 * by an AT_EXECFN entry, as Linux does. */
int user_stack_build_named(uint8_t *buffer, size_t buffer_size, uint64_t stack_top, const char *const *argv,
                           const char *const *envp, const char *execfn, const struct auxv_entry *auxv,
                           size_t auxv_count, const uint8_t random16[16], uint64_t *user_rsp_out);

#endif
