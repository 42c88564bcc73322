/* The kernel's own symbol table (function names), for backtraces. The build
 * links the kernel twice: the second link adds the table that tools/build/ksyms.sh
 * made from the first (see linker.ld). */
#ifndef KERNEL_KSYMS_H
#define KERNEL_KSYMS_H

#include <stdint.h>

/* The name of the function containing address, and the offset into it;
 * NULL when the address is outside the kernel's text. */
const char *ksyms_lookup(uint64_t address, uint64_t *offset);

#endif
