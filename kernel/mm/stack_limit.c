/* The user stack's size: see kernel/mm/stack_limit.h and
 * docs/memory.md, section 5. No mapping list records the stack: the
 * process keeps the bottom of its reserved range, and a missing page in
 * that range is the only page fault from ring 3 that maps memory.
 * Another mapping in the range (only MAP_FIXED puts one there) stops
 * the growth as Linux's does: never past it, never within the guard gap
 * above an accessible one. Left out: shrinking: pages once touched stay
 * until munmap or exit, as on Linux. */
#include "kernel/mm/stack_limit.h"

#include "arch/x86/paging.h"
#include "kernel/lib/errno.h"
#include "kernel/mm/address_space.h"
#include "kernel/mm/page_alloc.h"
#include "kernel/mm/region.h"
#include "kernel/process/process.h"

uint64_t stack_floor_for(uint64_t limit, uint64_t image_bottom)
{
    uint64_t reach = USER_STACK_TOP - USER_STACK_LOWEST;
    if (limit < reach)
        reach = limit & ~(PAGE_SIZE - 1);
    uint64_t floor = USER_STACK_TOP - reach;
    return floor < image_bottom ? floor : image_bottom;
}

/* Linux's stack_guard_gap: 256 pages (1 MiB). */
#define STACK_GUARD_GAP (256 * PAGE_SIZE)

/* Whether the stack may grow down to page: no other mapping between it
 * and the top, and none that can be accessed within the gap below it
 * (Linux's expand_downwards(), which ignores a PROT_NONE neighbour). */
static inline bool growth_is_clear(struct region_list *regions, uint64_t page)
{
    uint64_t from = page > STACK_GUARD_GAP ? page - STACK_GUARD_GAP : 0;
    struct region region;
    for (uint64_t cursor = from; cursor < USER_STACK_TOP && region_next(regions, cursor, &region) &&
                                 region.start < USER_STACK_TOP;
         cursor = region.end) {
        if (region.kind & REGION_STACK)
            continue;
        if (region.start > page)
            return false;       /* a mapping between the page and the stack */
        if (region.prot & (REGION_READ | REGION_WRITE | REGION_EXEC))
            return false;       /* an accessible mapping within the gap */
    }
    return true;
}

int stack_fault_in(struct process *process, uint64_t address, bool for_write)
{
    uint64_t page = address & ~(PAGE_SIZE - 1);
    /* Linux checks each growth against the limit of the moment, so a
     * limit lowered after execve stops the growth there too. */
    uint64_t limit = process->rlimits[RLIMIT_STACK].current;

    if (!process->stack_floor || page < process->stack_floor || page >= USER_STACK_TOP ||
        USER_STACK_TOP - page > limit)
        return -EFAULT;
    if (address_space_lookup(process->memory, page, false))
        return -EFAULT;         /* mapped: a protection fault is not ours */
    if (!growth_is_clear(&process->memory->regions, page))
        return -EFAULT;
    int error = for_write || process->lock_future
                    ? address_space_map(process->memory, page, PTE_WRITE | PTE_NX)
                    : address_space_map_zero(process->memory, page, PTE_WRITE | PTE_NX);
    if (error)
        return error == -ENOMEM ? -ENOMEM : -EFAULT;
    page_event_add(STACK_PAGES_FAULTED, 1);
    return 0;
}
