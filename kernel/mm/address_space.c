/* User address spaces: see kernel/mm/address_space.h. This file owns the
 * object and the rules of a user mapping (where it may go, that it starts
 * zeroed or as the zero page, what access a lookup allows, when a shared
 * page is copied);
 * arch/x86/paging.c owns the table walks. See docs/fork.md. */
#include "kernel/mm/address_space.h"

#include "arch/x86/paging.h"
#include "kernel/lib/errno.h"
#include "kernel/mm/heap.h"
#include "kernel/mm/page_alloc.h"
#include "kernel/lib/string.h"

/* The owner changes the counts; /proc reads them (relaxed: a moment old). */
static void count_pages(struct address_space *space, long mapped, long zero)
{
    __atomic_store_n(&space->mapped_pages, space->mapped_pages + (unsigned long)mapped, __ATOMIC_RELAXED);
    __atomic_store_n(&space->zero_pages, space->zero_pages + (unsigned long)zero, __ATOMIC_RELAXED);
}

struct address_space *address_space_create(void)
{
    struct address_space *space = kzalloc(sizeof(*space));
    if (!space)
        return 0;
    space->root_phys = user_tables_create();
    if (!space->root_phys) {
        kfree(space);
        return 0;
    }
    return space;
}

/* Refused (NULL) when the pages made copy-on-write could not all be
 * copied now, as a copying fork would have been: nohzk does not
 * overcommit (mmap takes its pages at once), and a write fault that finds
 * no page kills the writer. A check, not a reservation. */
struct address_space *address_space_clone(struct address_space *from)
{
    struct address_space *space = address_space_create();
    if (!space)
        return 0;
    struct user_tables_share_counts counts = { 0 };
    int error = user_tables_share(space->root_phys, from->root_phys, &counts);
    page_event_add(FORK_TABLE_PAGES, counts.tables);
    page_event_add(FORK_PAGES_SHARED, counts.pages);
    if (error || page_free_count() < counts.copy_on_write) {
        address_space_destroy(space);
        return 0;
    }
    space->mapped_pages = from->mapped_pages;       /* every page is shared */
    space->zero_pages = from->zero_pages;
    return space;
}

void address_space_destroy(struct address_space *space)
{
    user_tables_free(space->root_phys);
    kfree(space);
}

int address_space_map(struct address_space *space, uint64_t address, uint64_t flags)
{
    if (address >= USER_MAP_END || address % PAGE_SIZE)
        return -EINVAL;
    if (user_tables_entry(space->root_phys, address) & PTE_PRESENT)
        return -EEXIST;
    uint64_t page = page_alloc();
    if (!page)
        return -ENOMEM;
    int error = user_tables_map_page(space->root_phys, address, page, flags);
    if (error)
        page_free(page);
    else
        count_pages(space, 1, 0);
    return error;
}

/* The zero page, with one more holder; a write right becomes PTE_COW.
 * Nothing is reserved: the caller checked page_free_count() (no
 * overcommit promise), and a write that then finds no page kills the
 * writer (address_space_write_fault). */
int address_space_map_zero(struct address_space *space, uint64_t address, uint64_t flags)
{
    if (address >= USER_MAP_END || address % PAGE_SIZE)
        return -EINVAL;
    if (user_tables_entry(space->root_phys, address) & PTE_PRESENT)
        return -EEXIST;
    uint64_t zero = page_zero();
    page_get(zero);
    uint64_t rights = flags & PTE_WRITE ? (flags & ~PTE_WRITE) | PTE_COW : flags;
    int error = user_tables_map_page(space->root_phys, address, zero, rights);
    if (error) {
        page_put(zero);
    } else {
        page_event_add(ZERO_PAGE_MAPPED, 1);
        count_pages(space, 1, 1);
    }
    return error;
}

int address_space_map_shared(struct address_space *space, uint64_t address, uint64_t page, uint64_t flags)
{
    if (address >= USER_MAP_END || address % PAGE_SIZE)
        return -EINVAL;
    if (flags & PTE_WRITE)
        flags = (flags & ~PTE_WRITE) | PTE_COW;
    int error = user_tables_map_page(space->root_phys, address, page, flags);
    if (!error)
        count_pages(space, 1, 0);
    return error;
}

uint64_t address_space_lookup(struct address_space *space, uint64_t address, bool for_write)
{
    uint64_t entry = user_tables_entry(space->root_phys, address);
    if (!(entry & PTE_PRESENT) || !(entry & PTE_USER))
        return 0;
    if (for_write && !(entry & PTE_WRITE))
        return 0;
    return entry;
}

/* The zero page's writer gets a zeroed page of its own (nothing to copy). */
static int zero_page_write_fault(struct address_space *space, uint64_t page_address, uint64_t rights)
{
    uint64_t page = page_alloc();
    if (!page)
        return -ENOMEM;
    user_tables_replace(space->root_phys, page_address, page | rights);
    page_put(page_zero());
    page_event_add(ZERO_PAGE_FAULTS, 1);
    count_pages(space, 0, -1);
    return 0;
}

/* Its last holder takes a shared page over; anyone else copies it. The
 * zero page is never taken over: the kernel's hold keeps its count above
 * 1 (page_alloc.c). Runs with interrupts on or off, needs no tick and
 * sends no IPI: only this CPU has the space loaded (a process has one
 * thread). */
int address_space_write_fault(struct address_space *space, uint64_t address)
{
    uint64_t page_address = address & ~(PAGE_SIZE - 1);
    uint64_t entry = address_space_lookup(space, page_address, false);
    if (entry & PTE_WRITE)
        return 0;
    if (!(entry & PTE_COW))
        return -EFAULT;
    uint64_t old_page = entry & PTE_ADDRESS, rights = (entry & ~PTE_ADDRESS & ~PTE_COW) | PTE_WRITE;
    if (old_page == page_zero())
        return zero_page_write_fault(space, page_address, rights);
    page_event_add(COW_FAULTS, 1);
    if (page_holders(old_page) == 1) {
        user_tables_replace(space->root_phys, page_address, old_page | rights);
        page_event_add(COW_PAGES_REUSED, 1);
        return 0;
    }
    uint64_t copy = page_alloc_unzeroed();
    if (!copy)
        return -ENOMEM;
    memcpy(phys_to_virt(copy), phys_to_virt(old_page), PAGE_SIZE);
    user_tables_replace(space->root_phys, page_address, copy | rights);
    page_put(old_page);
    page_event_add(COW_PAGES_COPIED, 1);
    return 0;
}

uint64_t address_space_next_cow(struct address_space *space, uint64_t from)
{
    return user_tables_next_cow(space->root_phys, from);
}

void address_space_unmap_range(struct address_space *space, uint64_t start, uint64_t end)
{
    struct user_tables_unmap_counts counts = { 0, 0 };
    user_tables_unmap_range(space->root_phys, start, end, &counts);
    count_pages(space, -(long)counts.pages, -(long)counts.zero_pages);
}

int address_space_protect_range(struct address_space *space, uint64_t start, uint64_t end, uint64_t flags)
{
    return user_tables_protect_range(space->root_phys, start, end, flags);
}

void address_space_switch(struct address_space *space)
{
    paging_load(space ? space->root_phys : kernel_page_table_phys);
}
