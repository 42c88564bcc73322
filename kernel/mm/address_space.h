/* A process's user address space: the lower half of its page tables, which
 * arch/x86/paging.c walks. Flags are PTE_WRITE and PTE_NX
 * (arch/x86/paging.h); every mapped page is user-accessible. */
#ifndef KERNEL_MM_ADDRESS_SPACE_H
#define KERNEL_MM_ADDRESS_SPACE_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/lib/cpumask.h"
#include "kernel/mm/region.h"
#include "sched/sleep_lock.h"

struct address_space {
    uint64_t root_phys;         /* the PML4 */
    /* The CPUs whose CR3 holds it: they may cache its translations, and
     * a change that removes or weakens one is shot down on them
     * (kernel/mm/tlb.c). Set before the CR3 load, cleared after the load
     * of another. */
    struct cpumask cpus;
    /* The threads of a process change its tables at once: every change
     * holds this (interrupts off; its spin answers shootdowns). Never
     * taken inside another lock: its holder may wait for a CPU that
     * spins there with interrupts off. */
    uint32_t lock;
    /* The pages mapped, and those of them that are the zero page (mapped,
     * not resident): /proc/PID's VmSize and VmRSS. Changed by the owner
     * only, read by anyone without a lock (a moment old). */
    unsigned long mapped_pages, zero_pages;
    /* What is mapped where (kernel/mm/region.c); the threads share it
     * with the tables, a fork copies it. */
    struct region_list regions;
    /* The memory calls of its threads (mmap, munmap, mprotect, madvise,
     * brk, mlock) and a fork take turns on this: each changes the regions
     * and then the tables, and a sibling's call must see both before or
     * both after. A fault takes no turn (it only fills a region). */
    struct sleep_lock changing;
};

struct address_space *address_space_create(void);     /* empty; NULL if out of memory */
/* Fork: a new space with from's pages shared, copy-on-write. */
struct address_space *address_space_clone(struct address_space *from);
/* Not the current one; waits for CPUs still switching away from it. */
void address_space_destroy(struct address_space *space);
/* Map a zeroed page at address: -EINVAL outside the user half or not
 * page-aligned, -EEXIST if a page is there, -ENOMEM. */
int address_space_map(struct address_space *space, uint64_t address, uint64_t flags);
/* Map the shared zero page at address (docs/fork.md, "Lazy zeroing"):
 * read-only, and PTE_COW if flags ask for PTE_WRITE, so the first write
 * gets a zeroed page of its own and a read never allocates. Errors as
 * address_space_map; -ENOMEM only for a page table. */
int address_space_map_zero(struct address_space *space, uint64_t address, uint64_t flags);

/* Map page, whose holder the caller gives (page_get), at address: shared
 * with its other holders (a file's page, mapped by execve), so a write
 * right becomes copy-on-write. Errors as address_space_map's. */
int address_space_map_shared(struct address_space *space, uint64_t address, uint64_t page, uint64_t flags);
/* Map page, whose holder the caller gives, at address with flags as they
 * are (PTE_SHARED: a MAP_SHARED file's page, written in place). */
int address_space_map_page(struct address_space *space, uint64_t address, uint64_t page, uint64_t flags);
/* The entry mapping address, checked for user access (and for writing if
 * asked: a copy-on-write page is not writable yet); 0 if there is none. */
uint64_t address_space_lookup(struct address_space *space, uint64_t address, bool for_write);
/* A write to address (a page fault, or the kernel about to write there):
 * a copy-on-write page gets its own copy, the zero page a zeroed page
 * (counted as zero_page_faults, not cow_faults). 0 if the page can be written
 * now, -EFAULT if it is not mapped writable, -ENOMEM. */
int address_space_write_fault(struct address_space *space, uint64_t address);
/* Unmap and free the pages of [start, end), or change their rights; see
 * user_tables_unmap_range() and user_tables_protect_range(). */
void address_space_unmap_range(struct address_space *space, uint64_t start, uint64_t end);
int address_space_protect_range(struct address_space *space, uint64_t start, uint64_t end, uint64_t flags);
/* The physical address behind address if its page is MAP_SHARED memory
 * (PTE_SHARED), else 0: a shared futex's key there (kernel/process/futex.c). */
uint64_t address_space_shared_address(struct address_space *space, uint64_t address);
/* The first page at or above from that is copy-on-write (shared, or the
 * zero page), UINT64_MAX if none: what a write would still copy. */
uint64_t address_space_next_cow(struct address_space *space, uint64_t from);
void address_space_switch(struct address_space *space);    /* NULL: the kernel's own tables */

#endif
