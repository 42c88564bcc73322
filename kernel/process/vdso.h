/* The vDSO in every process (docs/user-space.md, "The vDSO"): its data
 * page at VDSO_DATA_ADDRESS, read-only, and the image one page above,
 * read and execute, where AT_SYSINFO_EHDR points. Both are pages the
 * kernel holds for ever, shared by every process: a program may unmap
 * them or make them writable (a write then copies the page, as for any
 * shared page), never change the kernel's. */
#ifndef KERNEL_PROCESS_VDSO_H
#define KERNEL_PROCESS_VDSO_H

#include <stdint.h>

struct address_space;

/* Above the mmap area (kernel/mm/mmap.c's MMAP_END), far below the stack. */
#define VDSO_DATA_ADDRESS  0x7ff000000000ul
#define VDSO_IMAGE_ADDRESS (VDSO_DATA_ADDRESS + 4096)

/* At boot, after vdso_clock_init(): the image copied into pages. */
void vdso_init(void);
/* Map both into space (exec); fork copies them with the rest. 0 or
 * -ENOMEM; the address for AT_SYSINFO_EHDR is VDSO_IMAGE_ADDRESS. */
int vdso_map(struct address_space *space);

#endif
