/* Page tables: the kernel's, and the walks of user tables. See
 * arch/x86/paging.h.
 *
 * paging_init() replaces boot/multiboot2.asm's early tables (which map
 * everything read-write-execute) with tables that enforce W^X on the kernel
 * image and NX on all data. The early tables stay in memory: application
 * processors use them for the few instructions between the trampoline and
 * ap_entry64, which switches to kernel_page_table_phys.
 *
 * Left out: global pages, 1 GiB pages, freeing the kernel's page-table
 * pages. */
#include "arch/x86/paging.h"

#include "arch/x86/cpu.h"
#include "kernel/lib/errno.h"
#include "kernel/mm/page_alloc.h"
#include "kernel/base/panic.h"
#include "kernel/base/printk.h"
#include "kernel/base/spinlock.h"
#include "kernel/lib/string.h"

#define ENTRIES_PER_TABLE 512
#define HUGE_PAGE_SIZE    (2ul << 20)

extern char __text_start[], __text_end[], __rodata_start[], __rodata_end[];
extern char __data_start[], __data_end[];
extern char boot_stack_guard[];     /* boot/multiboot2.asm */

uint64_t kernel_page_table_phys;
static uint64_t *kernel_pml4;
static struct spinlock paging_lock = SPINLOCK_INIT("paging");
static uint64_t next_stack_address = KERNEL_STACKS_BASE;

static unsigned table_index(uint64_t address, int level)
{
    return (address >> (PAGE_SHIFT + 9 * (level - 1))) & (ENTRIES_PER_TABLE - 1);
}

static uint64_t *table_at(uint64_t entry)
{
    return phys_to_virt(entry & PTE_ADDRESS);
}

static uint64_t new_table(void)
{
    uint64_t page = page_alloc();
    if (!page)
        panic("paging: out of memory for page tables");
    return page;
}

/* Split a 2 MiB mapping into 512 4 KiB ones with the same attributes. */
static void split_huge_entry(uint64_t *entry)
{
    uint64_t table_phys = new_table();
    uint64_t *table = phys_to_virt(table_phys);
    uint64_t flags = *entry & ~PTE_ADDRESS & ~PTE_HUGE;
    uint64_t base = *entry & PTE_ADDRESS & ~(HUGE_PAGE_SIZE - 1);

    for (unsigned i = 0; i < ENTRIES_PER_TABLE; i++)
        table[i] = (base + i * PAGE_SIZE) | flags;
    *entry = table_phys | PTE_PRESENT | PTE_WRITE;
}

static size_t stack_table_pages;    /* page-table pages under KERNEL_STACKS_BASE: kept for ever */

/* The entry for address at the given level (1 = 4 KiB page table entry,
 * 2 = page directory entry), creating tables on the way down; NULL if a
 * table was needed and no page was free (the tables made so far stay). */

static uint64_t *entry_for_or_null(uint64_t *pml4, uint64_t address, int level)
{
    uint64_t *table = pml4;

    for (int current = 4; current > level; current--) {
        uint64_t *entry = &table[table_index(address, current)];
        if (*entry & PTE_PRESENT && *entry & PTE_HUGE)
            split_huge_entry(entry);
        if (!(*entry & PTE_PRESENT)) {
            uint64_t page = page_alloc();
            if (!page)
                return 0;
            *entry = page | PTE_PRESENT | PTE_WRITE;
            if (address >= KERNEL_STACKS_BASE)
                __atomic_add_fetch(&stack_table_pages, 1, __ATOMIC_RELAXED);
        }
        table = table_at(*entry);
    }
    return &table[table_index(address, level)];
}

/* The same where running out of memory cannot be survived: at boot. */
static uint64_t *entry_for(uint64_t *pml4, uint64_t address, int level)
{
    uint64_t *entry = entry_for_or_null(pml4, address, level);
    if (!entry)
        panic("paging: out of memory for page tables");
    return entry;
}

static void map_range(uint64_t virt, uint64_t phys, uint64_t length, uint64_t flags)
{
    for (uint64_t offset = 0; offset < length; offset += PAGE_SIZE)
        *entry_for(kernel_pml4, virt + offset, 1) = (phys + offset) | flags | PTE_PRESENT;
}

static void map_kernel_section(const char *start, const char *end, uint64_t flags)
{
    uint64_t virt = (uint64_t)start & ~(PAGE_SIZE - 1);
    map_range(virt, virt - KERNEL_VMA, (uint64_t)end - virt, flags);
}

void paging_init(uint64_t highest_ram_address)
{
    kernel_page_table_phys = new_table();
    kernel_pml4 = phys_to_virt(kernel_page_table_phys);

    map_kernel_section(__text_start, __text_end, 0);
    map_kernel_section(__rodata_start, __rodata_end, PTE_NX);
    map_kernel_section(__data_start, __data_end, PTE_WRITE | PTE_NX);
    *entry_for(kernel_pml4, (uint64_t)boot_stack_guard, 1) = 0;    /* the boot stack's guard page */

    uint64_t direct_map_end = (highest_ram_address + HUGE_PAGE_SIZE - 1) & ~(HUGE_PAGE_SIZE - 1);
    for (uint64_t phys = 0; phys < direct_map_end; phys += HUGE_PAGE_SIZE)
        *entry_for(kernel_pml4, DIRECT_MAP_BASE + phys, 2) =
            phys | PTE_PRESENT | PTE_WRITE | PTE_HUGE | PTE_NX;

    write_cr3(kernel_page_table_phys);
    printk("paging: kernel text RX, rodata R, data RW+NX; direct map of %lu MiB\n", direct_map_end >> 20);
}

bool paging_early_is_active(void)
{
    return kernel_page_table_phys == 0;
}

void *ioremap(uint64_t phys, size_t size)
{
    uint64_t start = phys & ~(PAGE_SIZE - 1);
    uint64_t end = (phys + size + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1);

    ASSERT(!paging_early_is_active());
    spin_lock(&paging_lock);
    for (uint64_t page = start; page < end; page += PAGE_SIZE) {
        *entry_for(kernel_pml4, DIRECT_MAP_BASE + page, 1) =
            page | PTE_PRESENT | PTE_WRITE | PTE_NX | PTE_PCD | PTE_PWT;
        invlpg(DIRECT_MAP_BASE + page);
    }
    spin_unlock(&paging_lock);
    return phys_to_virt(phys);
}

size_t kernel_stack_table_pages(void)
{
    return __atomic_load_n(&stack_table_pages, __ATOMIC_RELAXED);
}

/* NULL when memory runs out (a user program's fork can get there): the
 * pages taken so far go back, and the addresses are skipped, as all freed
 * stack addresses are. */
void *kernel_stack_allocate(size_t pages)
{
    spin_lock(&paging_lock);
    uint64_t guard = next_stack_address;
    next_stack_address += (pages + 1) * PAGE_SIZE;
    for (size_t i = 0; i < pages; i++) {
        uint64_t frame = page_alloc();
        uint64_t *entry = frame ? entry_for_or_null(kernel_pml4, guard + (i + 1) * PAGE_SIZE, 1) : 0;
        if (!entry) {
            if (frame)
                page_free(frame);
            spin_unlock(&paging_lock);
            if (i)
                kernel_stack_free(guard + (i + 1) * PAGE_SIZE, i);
            return 0;
        }
        *entry = frame | PTE_PRESENT | PTE_WRITE | PTE_NX;
    }
    spin_unlock(&paging_lock);
    return (void *)(guard + (pages + 1) * PAGE_SIZE);
}

/* Unmap a kernel stack and give its pages back. The addresses are never
 * handed out again (kernel_stack_allocate only moves forward): other CPUs
 * may still cache translations for them, and flushing those would take an
 * IPI to every CPU, the kind of interruption nohz CPUs must not get. The
 * cost is a page-table page per ~100 stacks ever created (docs/memory.md). */
void kernel_stack_free(uint64_t stack_top, size_t pages)
{
    spin_lock(&paging_lock);
    for (size_t i = 1; i <= pages; i++) {
        uint64_t address = stack_top - i * PAGE_SIZE;
        uint64_t *entry = entry_for(kernel_pml4, address, 1);
        ASSERT(*entry & PTE_PRESENT);
        page_free(*entry & PTE_ADDRESS);
        *entry = 0;
        invlpg(address);
    }
    spin_unlock(&paging_lock);
}

uint64_t virt_to_phys(const void *address)
{
    uint64_t virt = (uint64_t)address;

    if (virt >= KERNEL_VMA)
        return virt - KERNEL_VMA;
    ASSERT(virt >= DIRECT_MAP_BASE && virt < KERNEL_STACKS_BASE);
    return virt - DIRECT_MAP_BASE;
}

/* The entry that maps address in the current tables (4 KiB or 2 MiB), or 0. */
uint64_t paging_lookup(uint64_t address)
{
    uint64_t *table = phys_to_virt(read_cr3() & PTE_ADDRESS);

    if (address < DIRECT_MAP_BASE)
        return 0;
    for (int level = 4; level >= 1; level--) {
        uint64_t entry = table[table_index(address, level)];
        if (!(entry & PTE_PRESENT))
            return 0;
        if (level == 1 || entry & PTE_HUGE)
            return entry;
        table = table_at(entry);
    }
    return 0;
}

bool paging_is_kernel_mapped(uint64_t address)
{
    return paging_lookup(address) != 0;
}

/* --- user page tables ----------------------------------------------------
 * A process's PML4 shares the kernel half (entries 256-511) with the kernel
 * tables: those entries point to the same lower-level tables, which exist
 * before the first process (direct map, kernel stacks, kernel image), so a
 * kernel mapping added later shows in every address space. The user half
 * is the process's own; its tables and pages are freed with it. */

#define FIRST_KERNEL_ENTRY 256

uint64_t user_tables_create(void)
{
    uint64_t root_phys = page_alloc();
    if (!root_phys)
        return 0;
    uint64_t *root = phys_to_virt(root_phys);
    for (unsigned i = FIRST_KERNEL_ENTRY; i < ENTRIES_PER_TABLE; i++)
        root[i] = kernel_pml4[i];
    return root_phys;
}

/* The entry for a user page, creating user-accessible tables on the way. */
static uint64_t *user_entry_for(uint64_t root, uint64_t address, bool create)
{
    uint64_t *table = phys_to_virt(root);

    for (int level = 4; level > 1; level--) {
        uint64_t *entry = &table[table_index(address, level)];
        if (!(*entry & PTE_PRESENT)) {
            if (!create)
                return 0;
            uint64_t page = page_alloc();
            if (!page)
                return 0;
            *entry = page | PTE_PRESENT | PTE_WRITE | PTE_USER;
        }
        table = table_at(*entry);
    }
    return &table[table_index(address, 1)];
}

int user_tables_map_page(uint64_t root, uint64_t address, uint64_t page, uint64_t flags)
{
    ASSERT(address < USER_HALF_END && address % PAGE_SIZE == 0);
    uint64_t *entry = user_entry_for(root, address, true);
    if (!entry)
        return -ENOMEM;
    if (*entry & PTE_PRESENT)
        return -EEXIST;
    *entry = page | PTE_PRESENT | PTE_USER | (flags & (PTE_WRITE | PTE_NX | PTE_COW | PTE_SHARED));
    return 0;
}

uint64_t user_tables_entry(uint64_t root, uint64_t address)
{
    if (address >= USER_HALF_END)
        return 0;
    uint64_t *entry = user_entry_for(root, address, false);
    return entry ? *entry : 0;
}

/* --- user ranges: munmap, mprotect, mmap(MAP_FIXED) ----------------------
 * A range is walked table by table, and an entry that is not present
 * skips all it would map (512 GiB, 1 GiB or 2 MiB), so the cost follows
 * what is mapped, not the length: page by page, munmap of the whole user
 * half took half an hour. */

/* Bytes one entry of a table at this level maps: 4 KiB at level 1. */
static uint64_t entry_span(int level)
{
    return PAGE_SIZE << (9 * (level - 1));
}

static bool is_current(uint64_t root)
{
    return (read_cr3() & PTE_ADDRESS) == root;
}

static void gather_add(struct page_gather *gather, uint64_t page)
{
    if (gather->count == PAGE_GATHER_MAX)
        gather->flush(gather);
    gather->pages[gather->count++] = page;
}

/* Unmap [start, end) below one table; a table the range covers whole is
 * freed with its pages (into the gather). Returns whether a table was
 * freed. */
static bool unmap_in_table(uint64_t *table, int level, uint64_t start, uint64_t end, bool current,
                           struct user_tables_unmap_counts *counts, struct page_gather *gather)
{
    uint64_t span = entry_span(level);
    bool freed_table = false;
    for (uint64_t address = start; address < end;) {
        uint64_t next = (address | (span - 1)) + 1;
        if (next > end)
            next = end;
        uint64_t *entry = &table[table_index(address, level)];
        if (*entry & PTE_PRESENT && level == 1) {
            counts->pages++;
            counts->zero_pages += (*entry & PTE_ADDRESS) == page_zero();
            uint64_t page = *entry & PTE_ADDRESS;
            *entry = 0;
            gather->changed = true;
            if (current)
                invlpg(address);
            if (page_put_last(page))
                gather_add(gather, page);
        } else if (*entry & PTE_PRESENT) {
            freed_table |= unmap_in_table(table_at(*entry), level - 1, address, next, current, counts, gather);
            if (next - address == span) {      /* all of it: nothing left below */
                uint64_t below = *entry & PTE_ADDRESS;
                *entry = 0;
                gather->changed = true;
                gather_add(gather, below);
                freed_table = true;
            }
        }
        address = next;
    }
    return freed_table;
}

void user_tables_unmap_range(uint64_t root, uint64_t start, uint64_t end, struct user_tables_unmap_counts *counts,
                             struct page_gather *gather)
{
    ASSERT(start % PAGE_SIZE == 0 && end % PAGE_SIZE == 0 && end <= USER_HALF_END);
    bool current = is_current(root);
    /* The CPU may cache a table's entry even when the table maps no page
     * (and so had no invlpg): a freed table costs a full flush. */
    if (unmap_in_table(phys_to_virt(root), 4, start, end, current, counts, gather) && current)
        write_cr3(read_cr3());
}

void paging_flush_this_cpu(void)
{
    write_cr3(read_cr3());
}

/* The write and execute bits a page gets for flags: a write right to a
 * page that is (or was, at a fork) shared is PTE_COW until it is copied,
 * unless the mapping is MAP_SHARED (PTE_SHARED).
 * The zero page is always shared (the kernel holds it too). */
static uint64_t rights_for(uint64_t entry, uint64_t flags)
{
    if (flags & PTE_WRITE && !(entry & PTE_SHARED) && (entry & PTE_COW || page_holders(entry & PTE_ADDRESS) > 1))
        return (flags & ~PTE_WRITE) | PTE_COW;
    return flags;
}

static int protect_in_table(uint64_t *table, int level, uint64_t start, uint64_t end, uint64_t flags,
                            bool current, unsigned long *changed)
{
    uint64_t span = entry_span(level);
    for (uint64_t address = start; address < end;) {
        uint64_t next = (address | (span - 1)) + 1;
        if (next > end)
            next = end;
        uint64_t *entry = &table[table_index(address, level)];
        if (!(*entry & PTE_PRESENT)) {
            address = next;     /* not touched yet: the region's rights apply at the fault */
            continue;
        }
        if (level > 1) {
            int error = protect_in_table(table_at(*entry), level - 1, address, next, flags, current, changed);
            if (error)
                return error;
        } else {
            uint64_t old = *entry;
            *entry = (old & ~(PTE_WRITE | PTE_NX | PTE_COW | PTE_USER)) | rights_for(old, flags);
            *changed += *entry != old;
            if (current && *entry != old)
                invlpg(address);
        }
        address = next;
    }
    return 0;
}

int user_tables_protect_range(uint64_t root, uint64_t start, uint64_t end, uint64_t flags, unsigned long *changed)
{
    ASSERT(start % PAGE_SIZE == 0 && end % PAGE_SIZE == 0 && end <= USER_HALF_END);
    return protect_in_table(phys_to_virt(root), 4, start, end, flags & (PTE_WRITE | PTE_NX | PTE_USER), is_current(root),
                            changed);
}

/* The first page at or above from mapped PTE_COW below this table, or
 * UINT64_MAX; tables not present are skipped whole. */
static uint64_t next_cow_in(uint64_t *table, int level, uint64_t base, uint64_t from)
{
    uint64_t span = entry_span(level);
    for (unsigned i = 0; i < ENTRIES_PER_TABLE; i++) {
        uint64_t start = base + i * span;
        if (start >= USER_HALF_END)
            break;
        if (start + span <= from || !(table[i] & PTE_PRESENT))
            continue;
        if (level == 1) {
            if (table[i] & PTE_COW)
                return start;
            continue;
        }
        uint64_t found = next_cow_in(table_at(table[i]), level - 1, start, from > start ? from : start);
        if (found != UINT64_MAX)
            return found;
    }
    return UINT64_MAX;
}

uint64_t user_tables_next_cow(uint64_t root, uint64_t from)
{
    return next_cow_in(phys_to_virt(root), 4, 0, from);
}

/* Fork: the tables are copied, the pages shared. A writable page loses
 * its write right in both tables (PTE_COW): the first write faults and
 * copies it (address_space_write_fault); a MAP_SHARED one (PTE_SHARED)
 * keeps it in both. */
static int share_table(uint64_t *to, uint64_t *from, int level, struct user_tables_share_counts *counts)
{
    for (unsigned i = 0; i < ENTRIES_PER_TABLE; i++) {
        if (!(from[i] & PTE_PRESENT))
            continue;
        if (level == 1) {
            if (from[i] & PTE_WRITE && !(from[i] & PTE_SHARED))
                from[i] = (from[i] & ~PTE_WRITE) | PTE_COW;
            counts->copy_on_write += (from[i] & PTE_COW) != 0;
            page_get(from[i] & PTE_ADDRESS);
            to[i] = from[i];
            counts->pages++;
            continue;
        }
        uint64_t page = page_alloc();
        if (!page)
            return -ENOMEM;
        counts->tables++;
        to[i] = page | (from[i] & ~PTE_ADDRESS);
        int error = share_table(phys_to_virt(page), table_at(from[i]), level - 1, counts);
        if (error)
            return error;
    }
    return 0;
}

/* The parent's entries lost their write right: this CPU's TLB must
 * forget them (the other CPUs running its threads are the caller's:
 * kernel/mm/address_space.c). */
int user_tables_share(uint64_t to, uint64_t from, struct user_tables_share_counts *counts)
{
    uint64_t *to_root = phys_to_virt(to), *from_root = phys_to_virt(from);
    int error = 0;
    for (unsigned i = 0; i < FIRST_KERNEL_ENTRY && !error; i++) {
        if (!(from_root[i] & PTE_PRESENT))
            continue;
        uint64_t page = page_alloc();
        if (!page) {
            error = -ENOMEM;
            break;
        }
        counts->tables++;
        to_root[i] = page | (from_root[i] & ~PTE_ADDRESS);
        error = share_table(phys_to_virt(page), table_at(from_root[i]), 3, counts);
    }
    if (is_current(from))
        write_cr3(read_cr3());
    return error;
}

void user_tables_replace(uint64_t root, uint64_t address, uint64_t entry)
{
    uint64_t *slot = user_entry_for(root, address, false);
    ASSERT(slot && *slot & PTE_PRESENT);
    *slot = entry;
    if (is_current(root))
        invlpg(address);
}

static void free_user_table(uint64_t table_phys, int level)
{
    uint64_t *table = phys_to_virt(table_phys);
    for (unsigned i = 0; i < ENTRIES_PER_TABLE; i++) {
        if (!(table[i] & PTE_PRESENT))
            continue;
        if (level > 1)
            free_user_table(table[i] & PTE_ADDRESS, level - 1);
        else
            page_put(table[i] & PTE_ADDRESS);
    }
    page_free(table_phys);
}

void user_tables_free(uint64_t root)
{
    uint64_t *table = phys_to_virt(root);

    ASSERT(!is_current(root));
    for (unsigned i = 0; i < FIRST_KERNEL_ENTRY; i++) {
        if (table[i] & PTE_PRESENT)
            free_user_table(table[i] & PTE_ADDRESS, 3);
    }
    page_free(root);
}

void paging_load(uint64_t root)
{
    if (!is_current(root))
        write_cr3(root);
}
