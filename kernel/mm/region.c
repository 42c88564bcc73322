/* Memory regions: see kernel/mm/region.h and docs/memory.md, section 6.
 *
 * A sorted singly linked list: a process has tens of regions, and a walk
 * is cheaper to read than a tree. Every change allocates what its splits
 * may need before it takes the lock, so an allocation that fails changes
 * nothing (fail-nth); a region freed by a merge or a removal goes under
 * the lock (kfree takes no lock of ours). */
#include "kernel/mm/region.h"

#include "arch/x86/paging.h"
#include "kernel/lib/errno.h"
#include "kernel/lib/string.h"
#include "kernel/mm/address_space.h"
#include "kernel/mm/heap.h"
#include "kernel/mm/stack_limit.h"
#include "kernel/process/process.h"

static bool spares_get(struct region_spares *spares, unsigned count)
{
    spares->count = 0;
    for (unsigned i = 0; i < count; i++) {
        struct region *region = kmalloc(sizeof(*region));
        if (!region) {
            for (unsigned j = 0; j < spares->count; j++)
                kfree(spares->region[j]);
            spares->count = 0;
            return false;
        }
        spares->region[spares->count++] = region;
    }
    return true;
}

static struct region *spare_take(struct region_spares *spares)
{
    return spares->region[--spares->count];
}

static void spares_put(struct region_spares *spares)
{
    while (spares->count)
        kfree(spare_take(spares));
}

static void name_get(struct region_name *name)
{
    if (name)
        __atomic_add_fetch(&name->holders, 1, __ATOMIC_RELAXED);
}

void region_name_put(struct region_name *name)
{
    if (name && __atomic_sub_fetch(&name->holders, 1, __ATOMIC_ACQ_REL) == 0)
        kfree(name);
}

struct region_name *region_name_make(const char *path, uint64_t device, uint64_t inode)
{
    size_t length = strlen(path);
    struct region_name *name = kmalloc(sizeof(*name) + length + 1);
    if (!name)
        return 0;
    name->holders = 1;
    name->device = device;
    name->inode = inode;
    memcpy(name->path, path, length + 1);
    return name;
}

static void region_free(struct region *region)
{
    region_name_put(region->name);
    kfree(region);
}

void regions_init(struct region_list *list)
{
    list->first = 0;
    list->next_fit = 0;
    spin_lock_init(&list->lock, "regions");
}

void regions_free(struct region_list *list)
{
    spin_lock(&list->lock);
    struct region *region = list->first;
    list->first = 0;
    spin_unlock(&list->lock);
    while (region) {
        struct region *next = region->next;
        region_free(region);
        region = next;
    }
}

int regions_copy(struct region_list *to, struct region_list *from)
{
    struct region **tail = &to->first;
    int error = 0;
    spin_lock(&from->lock);
    to->next_fit = from->next_fit;
    for (struct region *region = from->first; region; region = region->next) {
        struct region *copy = kmalloc(sizeof(*copy));
        if (!copy) {
            error = -ENOMEM;
            break;
        }
        *copy = *region;
        copy->next = 0;
        name_get(copy->name);
        *tail = copy;
        tail = &copy->next;
    }
    spin_unlock(&from->lock);
    return error;   /* what was copied is the caller's to free (regions_free) */
}

bool region_find(struct region_list *list, uint64_t address, struct region *out)
{
    bool found = false;
    spin_lock(&list->lock);
    for (struct region *region = list->first; region && region->start <= address; region = region->next) {
        if (address < region->end) {
            *out = *region;
            out->next = 0;
            found = !(region->kind & REGION_UNMAPPING);
            break;
        }
    }
    spin_unlock(&list->lock);
    return found;
}

bool region_next(struct region_list *list, uint64_t address, struct region *out)
{
    bool found = false;
    spin_lock(&list->lock);
    for (struct region *region = list->first; region; region = region->next) {
        if (region->end > address && !(region->kind & REGION_UNMAPPING)) {
            *out = *region;
            out->next = 0;
            found = true;
            break;
        }
    }
    spin_unlock(&list->lock);
    return found;
}

static bool range_free_locked(struct region_list *list, uint64_t start, uint64_t end)
{
    for (struct region *region = list->first; region && region->start < end; region = region->next) {
        if (region->end > start)
            return false;
    }
    return true;
}

bool regions_range_free(struct region_list *list, uint64_t start, uint64_t end)
{
    spin_lock(&list->lock);
    bool free = range_free_locked(list, start, end);
    spin_unlock(&list->lock);
    return free;
}

/* The region holding address inside it (not at its start) becomes two,
 * the second from a spare. */
static void split_at(struct region_list *list, uint64_t address, struct region_spares *spares)
{
    for (struct region *region = list->first; region && region->start < address; region = region->next) {
        if (address < region->end) {
            if (!spares->count)
                return;     /* regions_forget: see there */
            struct region *second = spare_take(spares);
            *second = *region;
            second->start = address;
            if (region->kind & REGION_FILE)
                second->offset += address - region->start;
            name_get(second->name);
            region->end = address;
            region->next = second;
            return;
        }
    }
}

static bool mergeable(const struct region *a, const struct region *b)
{
    return a->end == b->start && a->prot == b->prot && a->kind == b->kind && a->name == b->name &&
           !(a->kind & REGION_UNMAPPING) &&
           (!(a->kind & REGION_FILE) || a->offset + (a->end - a->start) == b->offset);
}

static void merge_all(struct region_list *list)
{
    for (struct region *region = list->first; region && region->next;) {
        struct region *next = region->next;
        if (mergeable(region, next)) {
            region->end = next->end;
            region->next = next->next;
            region_free(next);
        } else {
            region = next;
        }
    }
}

/* Take [start, end) out of the list: the regions there are whole after
 * the two splits. */
static void remove_locked(struct region_list *list, uint64_t start, uint64_t end, struct region_spares *spares)
{
    split_at(list, start, spares);
    split_at(list, end, spares);
    struct region **link = &list->first;
    while (*link && (*link)->start < end) {
        struct region *region = *link;
        if (region->start >= start) {
            *link = region->next;
            region_free(region);
        } else {
            link = &region->next;
        }
    }
}

static void insert_locked(struct region_list *list, struct region *fresh)
{
    struct region **link = &list->first;
    while (*link && (*link)->start < fresh->start)
        link = &(*link)->next;
    fresh->next = *link;
    *link = fresh;
}

void regions_merge(struct region_list *list)
{
    spin_lock(&list->lock);
    merge_all(list);
    spin_unlock(&list->lock);
}

static void region_fill(struct region *region, uint64_t start, uint64_t end, uint32_t prot, uint32_t kind,
                        uint64_t offset, struct region_name *name)
{
    region->start = start;
    region->end = end;
    region->prot = prot;
    region->kind = kind;
    region->offset = offset;
    region->name = name;
    name_get(name);
}

int regions_insert(struct region_list *list, uint64_t start, uint64_t end, uint32_t prot, uint32_t kind,
                   uint64_t offset, struct region_name *name)
{
    struct region_spares spares;
    if (!spares_get(&spares, 3))
        return -ENOMEM;
    struct region *fresh = spare_take(&spares);
    region_fill(fresh, start, end, prot, kind, offset, name);
    spin_lock(&list->lock);
    remove_locked(list, start, end, &spares);
    insert_locked(list, fresh);
    spin_unlock(&list->lock);
    spares_put(&spares);
    return 0;
}

/* The lowest free range of length in [low, high), or 0. */
static uint64_t lowest_gap(struct region_list *list, uint64_t length, uint64_t low, uint64_t high)
{
    uint64_t candidate = low;
    for (struct region *region = list->first; region; region = region->next) {
        if (region->end <= candidate)
            continue;
        if (region->start >= candidate + length)
            break;
        candidate = region->end;
    }
    return candidate + length <= high && candidate + length > candidate ? candidate : 0;
}

long regions_insert_anywhere(struct region_list *list, uint64_t hint, uint64_t length, uint64_t low,
                             uint64_t high, uint32_t prot, uint32_t kind, uint64_t offset,
                             struct region_name *name)
{
    struct region_spares spares;
    if (!spares_get(&spares, 1))
        return -ENOMEM;
    struct region *fresh = spare_take(&spares);
    spin_lock(&list->lock);
    uint64_t from = list->next_fit > low && list->next_fit < high ? list->next_fit : low;
    uint64_t start = hint && range_free_locked(list, hint, hint + length) ? hint : lowest_gap(list, length, from, high);
    if (!start && from != low)
        start = lowest_gap(list, length, low, high);
    if (start && start != hint)
        list->next_fit = start + length;
    if (start) {
        region_fill(fresh, start, start + length, prot, kind, offset, name);
        insert_locked(list, fresh);
    }
    spin_unlock(&list->lock);
    if (!start) {
        kfree(fresh);
        return -ENOMEM;
    }
    return (long)start;
}

int regions_remove_prepare(struct region_spares *spares)
{
    return spares_get(spares, 2) ? 0 : -ENOMEM;
}

void regions_remove(struct region_list *list, uint64_t start, uint64_t end, struct region_spares *spares)
{
    spin_lock(&list->lock);
    split_at(list, start, spares);
    split_at(list, end, spares);
    for (struct region *region = list->first; region && region->start < end; region = region->next) {
        if (region->start >= start)
            region->kind |= REGION_UNMAPPING;
    }
    spin_unlock(&list->lock);
    spares_put(spares);
}

void regions_removed(struct region_list *list, uint64_t start, uint64_t end)
{
    spin_lock(&list->lock);
    struct region **link = &list->first;
    while (*link && (*link)->start < end) {
        struct region *region = *link;
        if (region->start >= start && region->end <= end && region->kind & REGION_UNMAPPING) {
            *link = region->next;
            region_free(region);
        } else {
            link = &region->next;
        }
    }
    spin_unlock(&list->lock);
}

/* Undo a failed mmap or brk: its region was inserted whole, so nothing
 * needs a split, and nothing can fail. (A region a sibling thread's
 * change merged with it meanwhile keeps the range, without pages: an
 * anonymous one faults zeros in.) */
void regions_forget(struct region_list *list, uint64_t start, uint64_t end)
{
    struct region_spares none = { .count = 0 };
    spin_lock(&list->lock);
    remove_locked(list, start, end, &none);
    spin_unlock(&list->lock);
}

/* Where the regions that follow one another from start, without a hole,
 * end (at most at end); start if no region holds start. */
static uint64_t mapped_run_end(struct region_list *list, uint64_t start, uint64_t end)
{
    uint64_t reached = start;
    for (struct region *region = list->first; region && reached < end; region = region->next) {
        if (region->end <= reached)
            continue;
        if (region->start > reached || region->kind & REGION_UNMAPPING)
            break;
        reached = region->end;
    }
    return reached < end ? reached : end;
}

int regions_protect(struct region_list *list, uint64_t start, uint64_t end, uint32_t prot, uint64_t *changed_end)
{
    struct region_spares spares;
    *changed_end = start;
    if (!spares_get(&spares, 2))
        return -ENOMEM;
    spin_lock(&list->lock);
    uint64_t run_end = mapped_run_end(list, start, end);
    if (run_end > start) {
        split_at(list, start, &spares);
        split_at(list, run_end, &spares);
        for (struct region *region = list->first; region && region->start < run_end; region = region->next) {
            if (region->start >= start)
                region->prot = prot;
        }
        merge_all(list);
    }
    spin_unlock(&list->lock);
    spares_put(&spares);
    *changed_end = run_end;
    return run_end < end ? -ENOMEM : 0;
}

void regions_each(struct region_list *list, void (*show)(void *arg, const struct region *region), void *arg)
{
    spin_lock(&list->lock);
    for (struct region *region = list->first; region; region = region->next) {
        if (!(region->kind & REGION_UNMAPPING))
            show(arg, region);
    }
    spin_unlock(&list->lock);
}

/* --- faults ------------------------------------------------------------ */

/* x86 has no write-only or execute-only page: either right lets a read. */
static inline bool region_allows(const struct region *region, bool write, bool fetch)
{
    if (write)
        return region->prot & REGION_WRITE;
    if (fetch)
        return region->prot & REGION_EXEC;
    return region->prot & (REGION_READ | REGION_WRITE | REGION_EXEC);
}

uint64_t region_page_flags(uint32_t prot)
{
    if (!(prot & (REGION_READ | REGION_WRITE | REGION_EXEC)))
        return PTE_NX;  /* PROT_NONE: mapped, not the user's */
    return PTE_USER | (prot & REGION_WRITE ? PTE_WRITE : 0) | (prot & REGION_EXEC ? 0 : PTE_NX);
}

int region_fault_in(struct process *process, uint64_t address, bool write, bool fetch)
{
    struct address_space *space = process->memory;
    struct region region;
    uint64_t page = address & ~(PAGE_SIZE - 1);
    if (address >= USER_HALF_END || !region_find(&space->regions, address, &region))
        return -EFAULT;
    if (!region_allows(&region, write, fetch) || user_tables_entry(space->root_phys, page) & PTE_PRESENT)
        return -EACCES;
    if (region.kind & REGION_STACK)
        return stack_fault_in(process, address, write);
    if ((region.kind & (REGION_FILE | REGION_SHARED)) == (REGION_FILE | REGION_SHARED))
        return -ENXIO;      /* past the end of a shared file: SIGBUS, as Linux */
    if (region.kind & (REGION_FILE | REGION_SHARED))
        return -EACCES;     /* their pages are mapped at mmap and stay */
    uint64_t flags = region_page_flags(region.prot);
    int error = write || process->lock_future ? address_space_map(space, page, flags)
                                              : address_space_map_zero(space, page, flags);
    return error == -EEXIST ? 0 : error;    /* a sibling thread's fault got there first */
}
