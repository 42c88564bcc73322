/* The physical page allocator: see kernel/mm/page_alloc.h.
 *
 * A bitmap, one bit per page below the highest free address, 1 = in use.
 * Every page starts in use; the free regions of the memory map are then
 * cleared. Allocation is a first-fit scan from a moving hint. Freeing a page
 * that is already free is a kernel bug and panics (it would otherwise hand
 * the same page to two owners later). Beside the bitmap, a count per page
 * of its holders (address spaces sharing it after a fork), 1 while it is
 * in use by one.
 *
 * The zero page: one page of zeros, taken at boot, that every fresh
 * anonymous user page maps until it is written (docs/fork.md, "Lazy
 * zeroing"). The kernel holds it for ever, so its count is 1 plus its
 * mappings: page_holders() is never 1 on a mapped zero page, so
 * address_space_write_fault() never hands it over as a last holder's
 * page, and page_put() never frees it. A 32-bit count is enough: each
 * holder is a page-table entry, 512 to a table page.
 *
 * Left out: zones, NUMA, buddy lists. A bitmap is easy to check and fast
 * enough for the few thousand pages a QEMU guest has. */
#include "kernel/mm/page_alloc.h"

#include <stdbool.h>

#include "arch/x86/paging.h"
#include "kernel/mm/fault_inject.h"
#include "kernel/mm/memmap.h"
#include "kernel/base/panic.h"
#include "kernel/base/printk.h"
#include "kernel/base/spinlock.h"
#include "kernel/lib/string.h"

static uint64_t *bitmap;
static uint32_t *holders;       /* per page, after the bitmap */
static size_t page_count;       /* pages the bitmap covers */
static size_t free_pages;
static size_t usable_pages;     /* free at init, after the bitmap itself */
static size_t search_hint;
static uint64_t zero_page;
static struct spinlock page_lock = SPINLOCK_INIT("page_alloc");

static bool page_in_use(size_t page) { return bitmap[page / 64] & (1ull << (page % 64)); }
static void mark_used(size_t page) { bitmap[page / 64] |= 1ull << (page % 64); }
static void mark_free(size_t page) { bitmap[page / 64] &= ~(1ull << (page % 64)); }

/* Where to keep the bitmap: the first free region that holds it. */
static uint64_t find_bitmap_home(const struct memmap *free_memory, size_t bytes)
{
    for (size_t i = 0; i < free_memory->count; i++) {
        const struct mem_region *region = &free_memory->regions[i];
        if (region->base >= PAGE_SIZE && region->length >= bytes && region->base + bytes <= (4ull << 30))
            return region->base;
    }
    panic("page_alloc: no room for the page bitmap (%zu bytes)", bytes);
}

static size_t find_free_run(size_t count);

/* At boot, before any other allocation (so without the lock). */
static void take_zero_page(void)
{
    size_t page = find_free_run(1);
    if (!page)
        panic("page_alloc: no page for the zero page");
    mark_used(page);
    holders[page] = 1;              /* the kernel's hold, never dropped */
    free_pages--;
    zero_page = page * PAGE_SIZE;
    memset(phys_to_virt(zero_page), 0, PAGE_SIZE);
}

void page_alloc_init(const struct memmap *free_memory)
{
    ASSERT(free_memory->count > 0);
    const struct mem_region *last = &free_memory->regions[free_memory->count - 1];
    page_count = (last->base + last->length) / PAGE_SIZE;
    size_t bitmap_bytes = ((page_count + 63) / 64) * 8 + page_count * sizeof(*holders);
    uint64_t bitmap_phys = find_bitmap_home(free_memory, bitmap_bytes);

    bitmap = phys_to_virt(bitmap_phys);
    holders = (uint32_t *)(bitmap + (page_count + 63) / 64);
    memset(bitmap, 0xff, bitmap_bytes);
    memset(holders, 0, page_count * sizeof(*holders));
    for (size_t i = 0; i < free_memory->count; i++) {
        const struct mem_region *region = &free_memory->regions[i];
        for (uint64_t page = region->base / PAGE_SIZE; page < (region->base + region->length) / PAGE_SIZE; page++) {
            mark_free(page);
            free_pages++;
        }
    }
    size_t bitmap_pages = (bitmap_bytes + PAGE_SIZE - 1) / PAGE_SIZE;
    for (size_t page = bitmap_phys / PAGE_SIZE; page < bitmap_phys / PAGE_SIZE + bitmap_pages; page++) {
        mark_used(page);
        free_pages--;
    }
    take_zero_page();
    usable_pages = free_pages;
    printk("memory: %zu KiB free in %zu regions, page bitmap at %#lx\n", free_pages * 4, free_memory->count,
           bitmap_phys);
}

/* Find count free pages in a row, starting the scan at the hint. */
static size_t find_free_run(size_t count)
{
    for (size_t pass = 0; pass < 2; pass++) {
        size_t start = pass == 0 ? search_hint : 1;
        size_t end = pass == 0 ? page_count : search_hint + count;
        if (end > page_count)
            end = page_count;
        size_t run = 0;
        for (size_t page = start; page < end; page++) {
            run = page_in_use(page) ? 0 : run + 1;
            if (run == count)
                return page + 1 - count;
        }
    }
    return 0;
}

static uint64_t take_pages(size_t count)
{
    if (fault_inject_should_fail())
        return 0;
    spin_lock(&page_lock);
    size_t first = count ? find_free_run(count) : 0;
    if (first) {
        for (size_t page = first; page < first + count; page++) {
            mark_used(page);
            holders[page] = 1;
        }
        free_pages -= count;
        search_hint = first + count;
    }
    spin_unlock(&page_lock);
    return first * PAGE_SIZE;
}

uint64_t page_alloc_contiguous(size_t count)
{
    uint64_t phys = take_pages(count);
    if (!phys)
        return 0;
    memset(phys_to_virt(phys), 0, count * PAGE_SIZE);
    page_event_add(PAGES_ZEROED, count);
    return phys;
}

uint64_t page_alloc(void)
{
    return page_alloc_contiguous(1);
}

uint64_t page_alloc_unzeroed(void)
{
    return take_pages(1);
}

void page_free_contiguous(uint64_t phys, size_t count)
{
    size_t first = phys / PAGE_SIZE;

    if (phys % PAGE_SIZE || first == 0 || first + count > page_count)
        panic("page_free: bad address %#lx (%zu pages)", phys, count);
    spin_lock(&page_lock);
    for (size_t page = first; page < first + count; page++) {
        if (!page_in_use(page))
            panic("page_free: page %#lx is already free (double free)", page * PAGE_SIZE);
        if (page * PAGE_SIZE == zero_page)
            panic("page_free: the zero page %#lx", zero_page);
        if (holders[page] > 1)
            panic("page_free: page %#lx is shared (%u holders)", page * PAGE_SIZE, holders[page]);
        holders[page] = 0;
        mark_free(page);
    }
    free_pages += count;
    spin_unlock(&page_lock);
}

void page_free(uint64_t phys)
{
    page_free_contiguous(phys, 1);
}

static size_t checked_frame(uint64_t phys)
{
    size_t page = phys / PAGE_SIZE;
    if (phys % PAGE_SIZE || page == 0 || page >= page_count || !page_in_use(page))
        panic("page holders: bad page %#lx", phys);
    return page;
}

void page_get(uint64_t phys)
{
    __atomic_fetch_add(&holders[checked_frame(phys)], 1, __ATOMIC_RELAXED);
}

/* The last holder frees the page: the others dropped theirs before, so
 * no one can take a new hold on it meanwhile. The zero page keeps the
 * kernel's hold: its count stays at 1 or more. */
void page_put(uint64_t phys)
{
    size_t page = checked_frame(phys);
    uint32_t left = __atomic_sub_fetch(&holders[page], 1, __ATOMIC_ACQ_REL);
    if (phys == zero_page && (left == 0 || left == UINT32_MAX)) {
        panic("page_put: the zero page lost the kernel's hold");
    } else if (left == 0) {
        page_free(phys);
    } else if (left == UINT32_MAX) {
        panic("page_put: page %#lx had no holder", phys);
    }
}

bool page_put_last(uint64_t phys)
{
    size_t page = checked_frame(phys);
    uint32_t left = __atomic_sub_fetch(&holders[page], 1, __ATOMIC_ACQ_REL);
    if (phys == zero_page && (left == 0 || left == UINT32_MAX))
        panic("page_put_last: the zero page lost the kernel's hold");
    if (left == UINT32_MAX)
        panic("page_put_last: page %#lx had no holder", phys);
    return left == 0;
}

unsigned page_holders(uint64_t phys)
{
    return __atomic_load_n(&holders[checked_frame(phys)], __ATOMIC_ACQUIRE);
}

uint64_t page_zero(void) { return zero_page; }
size_t page_free_count(void) { return free_pages; }
size_t page_total_count(void) { return usable_pages; }
uint64_t page_highest_address(void) { return page_count * PAGE_SIZE; }
