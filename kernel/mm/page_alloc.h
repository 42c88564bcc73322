/* The physical page allocator: one bit per 4 KiB page of RAM, built from the
 * free memory that the boot information describes (kernel/mm/memmap.h). */
#ifndef KERNEL_PAGE_ALLOC_H
#define KERNEL_PAGE_ALLOC_H

#include <stddef.h>
#include <stdint.h>

struct memmap;

void page_alloc_init(const struct memmap *free_memory);
uint64_t page_alloc(void);                          /* zeroed page, 0 if none */
uint64_t page_alloc_contiguous(size_t count);       /* zeroed, 0 if none */
void page_free(uint64_t phys);
void page_free_contiguous(uint64_t phys, size_t count);
size_t page_free_count(void);
size_t page_total_count(void);
uint64_t page_highest_address(void);

#endif
