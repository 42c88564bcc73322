/* Free physical memory as a sorted list of regions: add, reserve, align.
 * The list is short (tens of entries), so plain loops and memmove are the
 * clearest choice; nothing here is on a hot path. */
#include "kernel/mm/memmap.h"
#include "kernel/lib/errno.h"
#include "kernel/lib/string.h"

/* One past the last byte of [base, base + length), clamped so that it
 * cannot wrap around zero. */
static uint64_t range_end(uint64_t base, uint64_t length)
{
    if (length > UINT64_MAX - base)
        return UINT64_MAX;
    return base + length;
}

static uint64_t region_end(const struct mem_region *region)
{
    return region->base + region->length; /* never wraps: see header */
}

/* Opens a gap at index (count must be below the maximum). */
static void insert_slot(struct memmap *map, size_t index)
{
    memmove(&map->regions[index + 1], &map->regions[index], (map->count - index) * sizeof(map->regions[0]));
    map->count++;
}

/* Removes regions[first..last). */
static void remove_slots(struct memmap *map, size_t first, size_t last)
{
    memmove(&map->regions[first], &map->regions[last], (map->count - last) * sizeof(map->regions[0]));
    map->count -= last - first;
}

void memmap_init(struct memmap *map)
{
    map->count = 0;
}

int memmap_add(struct memmap *map, uint64_t base, uint64_t length)
{
    uint64_t end = range_end(base, length);
    size_t first = 0;
    size_t last;

    if (end == base)
        return 0;
    /* Skip the regions that end before the new range (touching counts
     * as meeting, so that neighbours merge). */
    while (first < map->count && region_end(&map->regions[first]) < base)
        first++;
    /* regions[first..last) overlap or touch the new range: absorb them. */
    for (last = first; last < map->count; last++) {
        struct mem_region *region = &map->regions[last];

        if (region->base > end)
            break;
        if (region->base < base)
            base = region->base;
        if (region_end(region) > end)
            end = region_end(region);
    }
    if (last == first) {
        if (map->count == MEMMAP_MAX_REGIONS)
            return -ENOSPC;
        insert_slot(map, first);
    } else {
        remove_slots(map, first + 1, last);
    }
    map->regions[first].base = base;
    map->regions[first].length = end - base;
    return 0;
}

int memmap_reserve(struct memmap *map, uint64_t base, uint64_t length)
{
    uint64_t end = range_end(base, length);
    size_t i = 0;

    if (end == base)
        return 0;
    while (i < map->count) {
        struct mem_region *region = &map->regions[i];
        uint64_t start = region->base;
        uint64_t stop = region_end(region);

        if (stop <= base || start >= end) {
            i++; /* untouched */
        } else if (start < base && stop > end) {
            /* Strictly inside: this region alone is affected,
             * so failing here leaves the whole map unchanged. */
            if (map->count == MEMMAP_MAX_REGIONS)
                return -ENOSPC;
            insert_slot(map, i + 1);
            map->regions[i].length = base - start;
            map->regions[i + 1].base = end;
            map->regions[i + 1].length = stop - end;
            return 0;
        } else if (start < base) {
            region->length = base - start; /* keep the low part */
            i++;
        } else if (stop > end) {
            region->base = end; /* keep the high part */
            region->length = stop - end;
            i++;
        } else {
            remove_slots(map, i, i + 1); /* wholly reserved */
        }
    }
    return 0;
}

void memmap_align_pages(struct memmap *map, uint64_t page_size)
{
    size_t i = 0;

    if (page_size == 0)
        return;
    while (i < map->count) {
        struct mem_region *region = &map->regions[i];
        uint64_t start = region->base;
        uint64_t stop = region_end(region);
        uint64_t offset = start % page_size;

        if (offset != 0) {
            uint64_t rounded_up = start + (page_size - offset);

            /* Rounding up past the top: no page left here. */
            start = rounded_up < start ? stop : rounded_up;
        }
        stop -= stop % page_size;
        if (start < stop) {
            region->base = start;
            region->length = stop - start;
            i++;
        } else {
            remove_slots(map, i, i + 1);
        }
    }
}

uint64_t memmap_total_bytes(const struct memmap *map)
{
    uint64_t total = 0;

    for (size_t i = 0; i < map->count; i++)
        total += map->regions[i].length;
    return total;
}

bool memmap_contains(const struct memmap *map, uint64_t base, uint64_t length)
{
    if (length == 0 || length > UINT64_MAX - base)
        return false;
    for (size_t i = 0; i < map->count; i++) {
        const struct mem_region *region = &map->regions[i];

        if (base >= region->base && base + length <= region_end(region))
            return true;
    }
    return false;
}
