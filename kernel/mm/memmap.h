/* The set of free physical memory, as a short sorted list of regions.
 *
 * At boot the kernel adds what the firmware calls available (the multiboot2
 * memory map), then reserves what is already in use: page 0, the kernel
 * image, the boot modules, the ACPI tables, the AP trampoline page. What is
 * left, aligned to whole pages, feeds the page allocator.
 *
 * Invariant: regions[0..count) are sorted by base, none is empty, and no
 * two overlap or touch (touching ones are merged). A region never wraps
 * past the top of the address space: a range whose end would overflow is
 * clamped to end at UINT64_MAX (that last byte is never usable).
 *
 * Left out on purpose: memory types other than "free" (Linux's e820 keeps
 * them all), and allocation itself. */
#ifndef NOHZK_MEMMAP_H
#define NOHZK_MEMMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MEMMAP_MAX_REGIONS 128

struct mem_region {
    uint64_t base;
    uint64_t length;
};

struct memmap {
    struct mem_region regions[MEMMAP_MAX_REGIONS];
    size_t count;
};

/* Empties the map. */
void memmap_init(struct memmap *map);

/* Adds [base, base + length) as free memory, merging it with the regions
 * it overlaps or touches. Returns 0, or -ENOSPC if it needs a new slot and
 * the map is full (the map is then unchanged). Length 0 adds nothing. */
int memmap_add(struct memmap *map, uint64_t base, uint64_t length);

/* Removes [base, base + length) from every region, splitting the one
 * region it may fall strictly inside. Returns 0, or -ENOSPC if that split
 * needs a slot and the map is full (the map is then unchanged). */
int memmap_reserve(struct memmap *map, uint64_t base, uint64_t length);

/* Shrinks every region inward to whole pages of page_size bytes (any
 * non-zero size; in practice 4096) and drops those with no whole page. */
void memmap_align_pages(struct memmap *map, uint64_t page_size);

/* Sum of the region lengths. */
uint64_t memmap_total_bytes(const struct memmap *map);

/* Whether [base, base + length) is free: all of it inside one region.
 * False for length 0 and for a range that wraps past the top. */
bool memmap_contains(const struct memmap *map, uint64_t base, uint64_t length);

#endif
