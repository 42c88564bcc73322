/* Page tables. The kernel's virtual layout (all in the upper half, shared
 * by every address space):
 *   DIRECT_MAP_BASE + phys   all RAM, read-write, no-execute; device memory
 *                            mapped on demand, uncached (ioremap)
 *   KERNEL_STACKS_BASE ...   kernel stacks, each with an unmapped guard page
 *   KERNEL_VMA + phys        the kernel image: text RX, rodata R, data RW */
#ifndef ARCH_X86_PAGING_H
#define ARCH_X86_PAGING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PAGE_SIZE          4096ul
#define PAGE_SHIFT         12
#define DIRECT_MAP_BASE    0xffff800000000000ul
#define KERNEL_STACKS_BASE 0xffffff0000000000ul
#define KERNEL_VMA         0xffffffff80000000ul

#define PTE_PRESENT  (1ul << 0)
#define PTE_WRITE    (1ul << 1)
#define PTE_USER     (1ul << 2)
#define PTE_PWT      (1ul << 3)
#define PTE_PCD      (1ul << 4)
#define PTE_HUGE     (1ul << 7)
#define PTE_GLOBAL   (1ul << 8)
#define PTE_COW      (1ul << 9)     /* ignored by the CPU: writable once copied (a fork shares it) */
#define PTE_SHARED   (1ul << 10)    /* ignored by the CPU: MAP_SHARED, a fork shares it writable, never copied */
#define PTE_NX       (1ul << 63)
#define PTE_ADDRESS  0x000ffffffffff000ul

static inline void *phys_to_virt(uint64_t phys) { return (void *)(phys + DIRECT_MAP_BASE); }

uint64_t virt_to_phys(const void *address);

extern uint64_t kernel_page_table_phys;

void paging_init(uint64_t highest_ram_address);
void *ioremap(uint64_t phys, size_t size);
void *kernel_stack_allocate(size_t pages);     /* returns the stack top */
void kernel_stack_free(uint64_t stack_top, size_t pages);
/* Page-table pages made for kernel stacks: stack addresses are never
 * reused, so these only grow (about one per 100 stacks ever made). Leak
 * checks count them apart (/proc/meminfo's KernelStackTables). */
size_t kernel_stack_table_pages(void);
bool paging_is_kernel_mapped(uint64_t address);
uint64_t paging_lookup(uint64_t address);      /* the mapping entry, 0 if none */
bool paging_early_is_active(void);

/* User page tables: a PML4 whose lower half is one process's and whose
 * upper half is the kernel's, named by the PML4's physical address (the
 * address-space object around it is kernel/mm/address_space.c). The
 * last page below USER_HALF_END is never mapped (Linux's TASK_SIZE_MAX):
 * code there could return from a system call to a non-canonical RIP. */
#define USER_HALF_END 0x0000800000000000ul
#define USER_MAP_END  (USER_HALF_END - 4096)
uint64_t user_tables_create(void);                         /* 0 if out of memory */
void user_tables_free(uint64_t root);                      /* with every user page; not the loaded tables */
/* Map page (physical) at address with flags PTE_WRITE, PTE_NX and PTE_COW; -ENOMEM
 * if a table is needed and none is free, -EEXIST if a page is there. */
int user_tables_map_page(uint64_t root, uint64_t address, uint64_t page, uint64_t flags);
uint64_t user_tables_entry(uint64_t root, uint64_t address);  /* the entry for a user address, 0 if none */
/* Unmap the user pages of [start, end) (page_put: a shared page stays
 * with its other holders), or change their write and execute rights (a
 * write right to a page still shared becomes PTE_COW) (page-aligned, end <= USER_HALF_END), at a cost that
 * follows what is mapped there, not the length. */
struct user_tables_unmap_counts {
    unsigned long pages, zero_pages;    /* unmapped: all, and those of the zero page */
};
/* The pages an unmap took the last hold of, and the tables it emptied,
 * kept until every CPU that may cache a translation through them has
 * flushed: "flush, then free" (kernel/mm/tlb.c). flush is called when it
 * is full (and by the caller at the end): it flushes, frees, empties. */
#define PAGE_GATHER_MAX 64
struct page_gather {
    uint64_t pages[PAGE_GATHER_MAX];
    unsigned count;
    bool changed;                       /* a present entry was cleared */
    void (*flush)(struct page_gather *gather);
    void *owner;                        /* the flush's */
};
void user_tables_unmap_range(uint64_t root, uint64_t start, uint64_t end, struct user_tables_unmap_counts *counts,
                             struct page_gather *gather);
/* *changed counts the entries whose rights changed. flags: PTE_WRITE,
 * PTE_NX, and PTE_USER (without it the page stays mapped but user access
 * faults: PROT_NONE). Entries not present are skipped. */
int user_tables_protect_range(uint64_t root, uint64_t start, uint64_t end, uint64_t flags, unsigned long *changed);
/* The first user page at or above from mapped PTE_COW; UINT64_MAX if none. */
uint64_t user_tables_next_cow(uint64_t root, uint64_t from);
/* Fork: copy from's tables into the empty to, sharing every user page
 * (page_get); a writable page becomes read-only with PTE_COW in both.
 * On -ENOMEM, what was made is in to, for user_tables_free(). Counts the
 * table pages made, the pages shared, and those made copy-on-write. */
struct user_tables_share_counts {
    unsigned long tables, pages, copy_on_write;
};
int user_tables_share(uint64_t to, uint64_t from, struct user_tables_share_counts *counts);
void paging_flush_this_cpu(void);                          /* every user translation this CPU caches */
/* Set the entry of a mapped user page (a copy-on-write break). */
void user_tables_replace(uint64_t root, uint64_t address, uint64_t entry);
void paging_load(uint64_t root);                           /* CR3, unless it holds root already */

#endif
