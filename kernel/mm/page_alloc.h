/* The physical page allocator: one bit per 4 KiB page of RAM, built from the
 * free memory that the boot information describes (kernel/mm/memmap.h). */
#ifndef KERNEL_PAGE_ALLOC_H
#define KERNEL_PAGE_ALLOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct memmap;

void page_alloc_init(const struct memmap *free_memory);
uint64_t page_alloc(void);                          /* zeroed page, 0 if none */
uint64_t page_alloc_contiguous(size_t count);       /* zeroed, 0 if none */
uint64_t page_alloc_unzeroed(void);                 /* for a page about to be copied over; 0 if none */
void page_free(uint64_t phys);                      /* a page no one else holds */
void page_free_contiguous(uint64_t phys, size_t count);
/* User pages are shared after a fork (copy-on-write): each page has a
 * count of its holders, 1 when allocated. page_get adds one, page_put
 * drops one and frees the page when none is left. */
void page_get(uint64_t phys);
void page_put(uint64_t phys);
/* page_put without the free: true if that was the last hold, and the
 * caller frees the page (page_free) when no CPU can reach it any more. */
bool page_put_last(uint64_t phys);
unsigned page_holders(uint64_t phys);
/* The zero page: a page of zeros the kernel holds for ever (see
 * page_alloc.c), mapped copy-on-write by fresh anonymous user pages
 * (address_space_map_zero). Never written, never freed. */
uint64_t page_zero(void);
size_t page_free_count(void);
size_t page_total_count(void);
uint64_t page_highest_address(void);

/* What the page operations did, for /proc/vmstat (kernel/mm/vmstat.c):
 * how many pages fork, copy-on-write faults, exec and file writes copied
 * or shared, and how many fresh pages were left to the zero page until
 * written. */
enum page_event {
    PAGES_ZEROED,               /* by page_alloc */
    FORK_TABLE_PAGES,           /* page-table pages a fork made */
    FORK_PAGES_COPIED,          /* user pages a fork copied */
    FORK_PAGES_SHARED,          /* user pages a fork shared */
    COW_FAULTS,                 /* writes to a shared page */
    COW_PAGES_COPIED,           /* ... that copied it */
    COW_PAGES_REUSED,           /* ... by its last sharer, which took it over */
    EXEC_PAGES_COPIED,          /* user pages exec filled */
    ZERO_PAGE_MAPPED,           /* user pages mapped to the zero page */
    ZERO_PAGE_FAULTS,           /* writes to it, each given a zeroed page */
    EXEC_PAGES_MAPPED,          /* file pages exec mapped, shared with the file */
    FILE_PAGES_COPIED,          /* file pages a write copied, a program holding them */
    STACK_PAGES_FAULTED,        /* stack pages mapped at their first touch */
    FAULTS_INJECTED,            /* allocations failed on purpose (kernel/mm/fault_inject.c) */
    PAGE_EVENT_COUNT
};
void page_event_add(enum page_event event, unsigned long count);
unsigned long page_event_read(enum page_event event);

#endif
