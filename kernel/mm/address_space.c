/* User address spaces: see kernel/mm/address_space.h. This file owns the
 * object and the rules of a user mapping (where it may go, that it starts
 * zeroed or as the zero page, what access a lookup allows, when a shared
 * page is copied);
 * arch/x86/paging.c owns the table walks. See docs/fork.md.
 *
 * The threads of a process share its space, on several CPUs at once:
 * each change to the tables holds the space's lock, and a change that
 * removes a translation or takes a right away is flushed from every CPU
 * that may cache it (space->cpus) before the lock is dropped, and so
 * before the call returns and before the page or table is freed: the
 * shootdown (kernel/mm/tlb.c, docs/threads.md). Adding a translation or a
 * right needs none: a CPU caches no absent entry, and a stale read-only
 * one faults and finds the page writable. */
#include "kernel/mm/address_space.h"

#include "arch/x86/paging.h"
#include "kernel/lib/errno.h"
#include "kernel/mm/heap.h"
#include "arch/x86/cpu.h"
#include "kernel/base/panic.h"
#include "kernel/base/percpu.h"
#include "kernel/mm/page_alloc.h"
#include "kernel/mm/tlb.h"
#include "kernel/lib/string.h"

static struct address_space *loaded[MAX_CPUS];     /* each CPU's, NULL: the kernel's tables */

/* The lock disables interrupts as a spinlock does; its spin answers
 * shootdowns, since the holder may be waiting for this CPU's flush. */
static uint64_t space_lock(struct address_space *space)
{
    uint64_t flags = irq_save();
    while (__atomic_exchange_n(&space->lock, 1, __ATOMIC_ACQUIRE)) {
        tlb_answer();
        cpu_relax();
    }
    return flags;
}

static void space_unlock(struct address_space *space, uint64_t flags)
{
    __atomic_store_n(&space->lock, 0, __ATOMIC_RELEASE);
    irq_restore(flags);
}

/* The other CPUs that may cache the space's translations flush (this one
 * has flushed what it changed, page by page, in arch/x86/paging.c). */
static void flush_others(struct address_space *space)
{
    struct cpumask others = space->cpus;
    cpumask_clear(&others, this_cpu_id());
    if (!cpumask_empty(&others))
        tlb_shootdown(&others);
}

/* The gather's flush: then the pages and tables are nobody's. */
static void flush_then_free(struct page_gather *gather)
{
    struct address_space *space = gather->owner;
    if (gather->changed) {
        flush_others(space);
        if (cpumask_test_atomic(&space->cpus, this_cpu_id()))
            paging_flush_this_cpu();    /* a freed table may sit in the paging-structure caches */
    }
    for (unsigned i = 0; i < gather->count; i++)
        page_free(gather->pages[i]);
    gather->count = 0;
    gather->changed = false;
}

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
    regions_init(&space->regions);
    sleep_lock_init(&space->changing, "address_space");
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
    sleep_lock_take(&from->changing);   /* the tables and the regions of one moment */
    uint64_t irq = space_lock(from);
    int error = user_tables_share(space->root_phys, from->root_phys, &counts);
    if (counts.copy_on_write)
        flush_others(from);     /* its threads' CPUs may still write through a writable entry */
    space_unlock(from, irq);
    page_event_add(FORK_TABLE_PAGES, counts.tables);
    page_event_add(FORK_PAGES_SHARED, counts.pages);
    if (!error && page_free_count() >= counts.copy_on_write)
        error = regions_copy(&space->regions, &from->regions);
    else
        error = -1;
    sleep_lock_give(&from->changing);
    if (error) {
        address_space_destroy(space);
        return 0;
    }
    space->mapped_pages = from->mapped_pages;       /* every page is shared */
    space->zero_pages = from->zero_pages;
    return space;
}

void address_space_destroy(struct address_space *space)
{
    struct cpumask others;
    do {    /* a thread's task just dead may still be switching away from it */
        tlb_answer();
        cpu_relax();
        others = space->cpus;
        cpumask_clear(&others, this_cpu_id());
    } while (!cpumask_empty(&others));
    user_tables_free(space->root_phys);
    regions_free(&space->regions);
    kfree(space);
}

int address_space_map(struct address_space *space, uint64_t address, uint64_t flags)
{
    if (address >= USER_MAP_END || address % PAGE_SIZE)
        return -EINVAL;
    uint64_t page = page_alloc();
    if (!page)
        return -ENOMEM;
    int error = address_space_map_page(space, address, page, flags);
    if (error)
        page_free(page);
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
    uint64_t zero = page_zero();
    page_get(zero);
    uint64_t rights = flags & PTE_WRITE ? (flags & ~PTE_WRITE) | PTE_COW : flags;
    uint64_t irq = space_lock(space);
    int error = user_tables_entry(space->root_phys, address) & PTE_PRESENT
                    ? -EEXIST
                    : user_tables_map_page(space->root_phys, address, zero, rights);
    if (!error)
        count_pages(space, 1, 1);
    space_unlock(space, irq);
    if (error)
        page_put(zero);
    else
        page_event_add(ZERO_PAGE_MAPPED, 1);
    return error;
}

int address_space_map_shared(struct address_space *space, uint64_t address, uint64_t page, uint64_t flags)
{
    if (address >= USER_MAP_END || address % PAGE_SIZE)
        return -EINVAL;
    if (flags & PTE_WRITE)
        flags = (flags & ~PTE_WRITE) | PTE_COW;
    uint64_t irq = space_lock(space);
    int error = user_tables_map_page(space->root_phys, address, page, flags);
    if (!error)
        count_pages(space, 1, 0);
    space_unlock(space, irq);
    return error;
}

int address_space_map_page(struct address_space *space, uint64_t address, uint64_t page, uint64_t flags)
{
    if (address >= USER_MAP_END || address % PAGE_SIZE)
        return -EINVAL;
    uint64_t irq = space_lock(space);
    int error = user_tables_entry(space->root_phys, address) & PTE_PRESENT
                    ? -EEXIST
                    : user_tables_map_page(space->root_phys, address, page, flags);
    if (!error)
        count_pages(space, 1, 0);
    space_unlock(space, irq);
    return error;
}

/* Without the lock: callers hold other locks (a futex's bucket), and the
 * space lock is never taken inside one (its holder may wait for the
 * flush of a CPU spinning there). The walk runs with interrupts off
 * instead: a table an unmap frees is freed after the shootdown, which
 * this CPU (it has the space loaded) answers only when the walk is done,
 * as Linux's lockless walks rely on. */
uint64_t address_space_lookup(struct address_space *space, uint64_t address, bool for_write)
{
    uint64_t irq = irq_save();
    uint64_t entry = user_tables_entry(space->root_phys, address);
    irq_restore(irq);
    if (!(entry & PTE_PRESENT) || !(entry & PTE_USER))
        return 0;
    if (for_write && !(entry & PTE_WRITE))
        return 0;
    return entry;
}

/* The entry for a user address now, under the lock (no rights check). */
static inline uint64_t entry_locked(struct address_space *space, uint64_t address)
{
    uint64_t entry = user_tables_entry(space->root_phys, address);
    return (entry & PTE_PRESENT) && (entry & PTE_USER) ? entry : 0;
}

/* Its last holder takes a shared page over; anyone else copies it, and
 * the zero page's writer gets a zeroed page of its own (nothing to
 * copy). The zero page is never taken over: the kernel's hold keeps its
 * count above 1 (page_alloc.c). The copy is made before the lock, and
 * the entry checked again under it: another thread may have broken the
 * same page meanwhile. The old translation is shot down on the other
 * CPUs before the lock is dropped (a thread there would go on reading the
 * old page), and before our hold on the old page goes. */
int address_space_write_fault(struct address_space *space, uint64_t address)
{
    uint64_t page_address = address & ~(PAGE_SIZE - 1);
    uint64_t entry = address_space_lookup(space, page_address, false);
    if (entry & PTE_WRITE)
        return 0;
    if (!(entry & PTE_COW))
        return -EFAULT;
    uint64_t old_page = entry & PTE_ADDRESS;
    bool zero = old_page == page_zero();
    uint64_t copy = 0;
    if (zero || page_holders(old_page) > 1) {
        copy = zero ? page_alloc() : page_alloc_unzeroed();
        if (!copy)
            return -ENOMEM;
        if (!zero)
            memcpy(phys_to_virt(copy), phys_to_virt(old_page), PAGE_SIZE);
    }
    uint64_t irq = space_lock(space);
    if (entry_locked(space, page_address) != entry) {   /* another thread got there first */
        space_unlock(space, irq);
        if (copy)
            page_free(copy);
        return address_space_write_fault(space, address);
    }
    uint64_t rights = (entry & ~PTE_ADDRESS & ~PTE_COW) | PTE_WRITE;
    if (!copy && page_holders(old_page) > 1) {      /* shared again meanwhile (a fork): copy now */
        space_unlock(space, irq);
        return address_space_write_fault(space, address);
    }
    user_tables_replace(space->root_phys, page_address, (copy ? copy : old_page) | rights);
    if (copy) {
        flush_others(space);
        if (zero)
            count_pages(space, 0, -1);
    }
    space_unlock(space, irq);
    if (zero) {
        page_put(old_page);
        page_event_add(ZERO_PAGE_FAULTS, 1);
        return 0;
    }
    page_event_add(COW_FAULTS, 1);
    if (copy) {
        page_put(old_page);
        page_event_add(COW_PAGES_COPIED, 1);
    } else {
        page_event_add(COW_PAGES_REUSED, 1);
    }
    return 0;
}

uint64_t address_space_shared_address(struct address_space *space, uint64_t address)
{
    uint64_t entry = address_space_lookup(space, address, false);
    return entry & PTE_SHARED ? (entry & PTE_ADDRESS) | (address & (PAGE_SIZE - 1)) : 0;
}

uint64_t address_space_next_cow(struct address_space *space, uint64_t from)
{
    uint64_t irq = space_lock(space);
    uint64_t found = user_tables_next_cow(space->root_phys, from);
    space_unlock(space, irq);
    return found;
}

void address_space_unmap_range(struct address_space *space, uint64_t start, uint64_t end)
{
    struct user_tables_unmap_counts counts = { 0, 0 };
    struct page_gather gather = { .flush = flush_then_free, .owner = space };
    uint64_t irq = space_lock(space);
    user_tables_unmap_range(space->root_phys, start, end, &counts, &gather);
    flush_then_free(&gather);
    count_pages(space, -(long)counts.pages, -(long)counts.zero_pages);
    space_unlock(space, irq);
}

int address_space_protect_range(struct address_space *space, uint64_t start, uint64_t end, uint64_t flags)
{
    unsigned long changed = 0;
    uint64_t irq = space_lock(space);
    int error = user_tables_protect_range(space->root_phys, start, end, flags, &changed);
    if (changed)
        flush_others(space);
    space_unlock(space, irq);
    return error;
}

/* Interrupts are off (a switch): the mask changes around the CR3 load. */
void address_space_switch(struct address_space *space)
{
    unsigned cpu = this_cpu_id();
    ASSERT(cpu < MAX_CPUS);
    struct address_space *old = loaded[cpu];
    if (old == space) {
        paging_load(space ? space->root_phys : kernel_page_table_phys);
        return;
    }
    if (space)
        cpumask_set_atomic(&space->cpus, cpu);
    paging_load(space ? space->root_phys : kernel_page_table_phys);
    loaded[cpu] = space;
    if (old)
        cpumask_clear_atomic(&old->cpus, cpu);
}
