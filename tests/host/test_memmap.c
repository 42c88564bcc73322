/* Host unit tests of kernel/mm/memmap.c: merging on add, splitting on reserve,
 * page alignment, overflow at the top of the address space, full maps, and
 * a randomized comparison against a byte-per-address model. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "kernel/lib/errno.h"
#include "kernel/mm/memmap.h"

/* The invariant the header promises, checked after every change. */
static void assert_well_formed(const struct memmap *map)
{
    assert_true(map->count <= MEMMAP_MAX_REGIONS);
    for (size_t i = 0; i < map->count; i++) {
        const struct mem_region *region = &map->regions[i];

        assert_true(region->length > 0);
        assert_true(region->length <= UINT64_MAX - region->base);
        if (i > 0) {
            const struct mem_region *previous = &map->regions[i - 1];

            /* sorted, and a gap of at least one byte */
            assert_true(previous->base + previous->length < region->base);
        }
    }
}

/* expected: pairs of base, length */
static void assert_regions(const struct memmap *map, size_t count, const uint64_t *expected)
{
    assert_well_formed(map);
    assert_int_equal(map->count, count);
    for (size_t i = 0; i < count; i++) {
        assert_int_equal(map->regions[i].base, expected[2 * i]);
        assert_int_equal(map->regions[i].length, expected[2 * i + 1]);
    }
}

#define ASSERT_REGIONS(map, ...)                                                                             \
    assert_regions((map), sizeof((uint64_t[]){__VA_ARGS__}) / (2 * sizeof(uint64_t)),                        \
                   (uint64_t[]){__VA_ARGS__})

static void test_add_keeps_sorted_and_separate(void **state)
{
    struct memmap map;

    (void)state;
    memmap_init(&map);
    assert_int_equal(map.count, 0);
    assert_int_equal(memmap_add(&map, 0x5000, 0x1000), 0);
    assert_int_equal(memmap_add(&map, 0x1000, 0x1000), 0);
    assert_int_equal(memmap_add(&map, 0x9000, 0x1000), 0);
    assert_int_equal(memmap_add(&map, 0x3000, 0x1000), 0);
    ASSERT_REGIONS(&map, 0x1000, 0x1000, 0x3000, 0x1000, 0x5000, 0x1000, 0x9000, 0x1000);
    /* a one-byte gap is still a gap */
    assert_int_equal(memmap_add(&map, 0x2001, 0xfff), 0);
    ASSERT_REGIONS(&map, 0x1000, 0x1000, 0x2001, 0x1fff, 0x5000, 0x1000, 0x9000, 0x1000);
    assert_int_equal(memmap_add(&map, 0x100, 0), 0); /* empty */
    assert_int_equal(map.count, 4);
}

static void test_add_merges(void **state)
{
    struct memmap map;

    (void)state;
    memmap_init(&map);
    assert_int_equal(memmap_add(&map, 0x1000, 0x1000), 0);
    assert_int_equal(memmap_add(&map, 0x2000, 0x1000), 0); /* touches */
    ASSERT_REGIONS(&map, 0x1000, 0x2000);
    assert_int_equal(memmap_add(&map, 0x800, 0x800), 0); /* touches below */
    ASSERT_REGIONS(&map, 0x800, 0x2800);
    assert_int_equal(memmap_add(&map, 0x2000, 0x2000), 0); /* overlaps */
    ASSERT_REGIONS(&map, 0x800, 0x3800);
    assert_int_equal(memmap_add(&map, 0x1000, 0x100), 0); /* inside */
    ASSERT_REGIONS(&map, 0x800, 0x3800);

    /* one range swallowing three regions and the gaps between them */
    assert_int_equal(memmap_add(&map, 0x10000, 0x1000), 0);
    assert_int_equal(memmap_add(&map, 0x20000, 0x1000), 0);
    assert_int_equal(memmap_add(&map, 0x40000, 0x1000), 0);
    assert_int_equal(memmap_add(&map, 0x10800, 0x20000), 0);
    ASSERT_REGIONS(&map, 0x800, 0x3800, 0x10000, 0x20800, 0x40000, 0x1000);
    /* a range filling the gap between two regions joins them */
    assert_int_equal(memmap_add(&map, 0x30800, 0xf800), 0);
    ASSERT_REGIONS(&map, 0x800, 0x3800, 0x10000, 0x31000);
}

static void test_add_clamps_overflow(void **state)
{
    struct memmap map;

    (void)state;
    memmap_init(&map);
    assert_int_equal(memmap_add(&map, UINT64_MAX - 0x10, 0x100), 0);
    ASSERT_REGIONS(&map, UINT64_MAX - 0x10, 0x10);
    assert_int_equal(memmap_add(&map, 0x1000, UINT64_MAX), 0);
    ASSERT_REGIONS(&map, 0x1000, UINT64_MAX - 0x1000);
    assert_int_equal(memmap_total_bytes(&map), UINT64_MAX - 0x1000);
    assert_true(memmap_contains(&map, UINT64_MAX - 0x1000, 0x1000));
    assert_false(memmap_contains(&map, UINT64_MAX - 0x1000, 0x1001));
}

static void fill_map(struct memmap *map)
{
    memmap_init(map);
    for (uint64_t i = 0; i < MEMMAP_MAX_REGIONS; i++)
        assert_int_equal(memmap_add(map, i * 0x10000, 0x1000), 0);
    assert_int_equal(map->count, MEMMAP_MAX_REGIONS);
}

static void test_add_when_full(void **state)
{
    static struct memmap map, before;

    (void)state;
    fill_map(&map);
    before = map;
    /* a new separate region does not fit, and changes nothing */
    assert_int_equal(memmap_add(&map, 0x10000 * MEMMAP_MAX_REGIONS, 1), -ENOSPC);
    assert_memory_equal(&map, &before, sizeof(map));
    assert_int_equal(memmap_add(&map, 0x5000, 0x100), -ENOSPC);
    assert_memory_equal(&map, &before, sizeof(map));
    /* but one that merges needs no slot */
    assert_int_equal(memmap_add(&map, 0x1000, 0x100), 0);
    assert_int_equal(map.regions[0].length, 0x1100);
    /* and one that joins two regions frees a slot */
    assert_int_equal(memmap_add(&map, 0x10000, 0x10000), 0);
    assert_int_equal(map.count, MEMMAP_MAX_REGIONS - 1);
    assert_well_formed(&map);
}

static void test_reserve_cases(void **state)
{
    struct memmap map;

    (void)state;
    memmap_init(&map);
    assert_int_equal(memmap_add(&map, 0x1000, 0x9000), 0); /* to 0xa000 */

    assert_int_equal(memmap_reserve(&map, 0x4000, 0x1000), 0); /* split */
    ASSERT_REGIONS(&map, 0x1000, 0x3000, 0x5000, 0x5000);
    assert_int_equal(memmap_reserve(&map, 0x0, 0x1800), 0); /* low end */
    ASSERT_REGIONS(&map, 0x1800, 0x2800, 0x5000, 0x5000);
    assert_int_equal(memmap_reserve(&map, 0x9000, 0x5000), 0); /* high end */
    ASSERT_REGIONS(&map, 0x1800, 0x2800, 0x5000, 0x4000);
    assert_int_equal(memmap_reserve(&map, 0x4000, 0x1000), 0); /* gap */
    ASSERT_REGIONS(&map, 0x1800, 0x2800, 0x5000, 0x4000);
    assert_int_equal(memmap_reserve(&map, 0x5000, 0x4000), 0); /* exact */
    ASSERT_REGIONS(&map, 0x1800, 0x2800);
    assert_int_equal(memmap_reserve(&map, 0x1800, 0), 0); /* empty */
    ASSERT_REGIONS(&map, 0x1800, 0x2800);
    assert_int_equal(memmap_reserve(&map, 0x1800, 1), 0); /* first byte */
    ASSERT_REGIONS(&map, 0x1801, 0x27ff);
    assert_int_equal(memmap_reserve(&map, 0x3fff, 1), 0); /* last byte */
    ASSERT_REGIONS(&map, 0x1801, 0x27fe);
}

static void test_reserve_spanning_several_regions(void **state)
{
    struct memmap map;

    (void)state;
    memmap_init(&map);
    assert_int_equal(memmap_add(&map, 0x0000, 0x1000), 0);
    assert_int_equal(memmap_add(&map, 0x2000, 0x1000), 0);
    assert_int_equal(memmap_add(&map, 0x4000, 0x1000), 0);
    assert_int_equal(memmap_add(&map, 0x6000, 0x1000), 0);
    assert_int_equal(memmap_add(&map, 0x8000, 0x1000), 0);
    /* cuts the top of the first, removes two, cuts the bottom of one */
    assert_int_equal(memmap_reserve(&map, 0x800, 0x6400), 0);
    ASSERT_REGIONS(&map, 0x0, 0x800, 0x6c00, 0x400, 0x8000, 0x1000);
    /* everything */
    assert_int_equal(memmap_reserve(&map, 0, UINT64_MAX), 0);
    assert_int_equal(map.count, 0);
    assert_int_equal(memmap_total_bytes(&map), 0);
}

static void test_reserve_clamps_overflow(void **state)
{
    struct memmap map;

    (void)state;
    memmap_init(&map);
    assert_int_equal(memmap_add(&map, 0x1000, 0x100000), 0);
    assert_int_equal(memmap_reserve(&map, 0x80000, UINT64_MAX), 0);
    ASSERT_REGIONS(&map, 0x1000, 0x7f000);
}

static void test_reserve_split_when_full(void **state)
{
    static struct memmap map, before;

    (void)state;
    fill_map(&map);
    before = map;
    assert_int_equal(memmap_reserve(&map, 0x100, 0x100), -ENOSPC);
    assert_memory_equal(&map, &before, sizeof(map));
    /* trimming and removing need no slot */
    assert_int_equal(memmap_reserve(&map, 0x0, 0x100), 0);
    assert_int_equal(memmap_reserve(&map, 0x10000, 0x1000), 0);
    assert_int_equal(map.count, MEMMAP_MAX_REGIONS - 1);
    /* and now a split fits */
    assert_int_equal(memmap_reserve(&map, 0x20100, 0x100), 0);
    assert_int_equal(map.count, MEMMAP_MAX_REGIONS);
    assert_well_formed(&map);
}

static void test_align_pages(void **state)
{
    struct memmap map;

    (void)state;
    memmap_init(&map);
    assert_int_equal(memmap_add(&map, 0x0, 0x9fc00), 0);     /* low memory */
    assert_int_equal(memmap_add(&map, 0x100001, 0x1fff), 0); /* < 2 pages */
    assert_int_equal(memmap_add(&map, 0x200800, 0x1000), 0); /* no page */
    assert_int_equal(memmap_add(&map, 0x300000, 0x4000), 0); /* aligned */
    /* ends at the clamped top, UINT64_MAX: one whole page below it */
    assert_int_equal(memmap_add(&map, UINT64_MAX - 0x2800, 0x2800), 0);
    memmap_align_pages(&map, 0x1000);
    ASSERT_REGIONS(&map, 0x0, 0x9f000, 0x101000, 0x1000, 0x300000, 0x4000, 0xffffffffffffe000, 0x1000);
    assert_int_equal(memmap_total_bytes(&map), 0x9f000 + 0x1000 + 0x4000 + 0x1000);

    memmap_init(&map);
    assert_int_equal(memmap_add(&map, UINT64_MAX - 0x800, 0x800), 0);
    memmap_align_pages(&map, 0x1000); /* rounding up would wrap */
    assert_int_equal(map.count, 0);

    memmap_init(&map);
    assert_int_equal(memmap_add(&map, 0x123, 0x456), 0);
    memmap_align_pages(&map, 0); /* no page size: unchanged */
    ASSERT_REGIONS(&map, 0x123, 0x456);
    memmap_align_pages(&map, 0x100); /* any size works */
    ASSERT_REGIONS(&map, 0x200, 0x300);
}

static void test_contains(void **state)
{
    struct memmap map;

    (void)state;
    memmap_init(&map);
    assert_false(memmap_contains(&map, 0, 1));
    assert_int_equal(memmap_add(&map, 0x1000, 0x7000), 0);
    assert_int_equal(memmap_add(&map, 0x9000, 0x1000), 0);
    assert_true(memmap_contains(&map, 0x1000, 0x7000));
    assert_true(memmap_contains(&map, 0x8000 - 1, 1));
    assert_true(memmap_contains(&map, 0x9000, 0x1000));
    assert_false(memmap_contains(&map, 0x8000, 1));          /* gap */
    assert_false(memmap_contains(&map, 0x1000, 0x9000));     /* over gap */
    assert_false(memmap_contains(&map, 0xfff, 2));           /* below */
    assert_false(memmap_contains(&map, 0x9fff, 2));          /* above */
    assert_false(memmap_contains(&map, 0x2000, 0));          /* empty */
    assert_false(memmap_contains(&map, 0x2000, UINT64_MAX)); /* wraps */

    /* the AP trampoline check: still free after reserving around it */
    assert_int_equal(memmap_reserve(&map, 0x1000, 0x1000), 0);
    assert_int_equal(memmap_reserve(&map, 0x3000, 0x1000), 0);
    assert_true(memmap_contains(&map, 0x2000, 0x1000));
    assert_false(memmap_contains(&map, 0x2000, 0x1001));
}

/* A small address space where the model keeps one bool per byte. */
#define MODEL_SIZE 512

static uint32_t random_state = 12345;

static uint32_t next_random(void)
{
    random_state = random_state * 1103515245u + 12345u;
    return random_state >> 8;
}

static void assert_matches_model(const struct memmap *map, const bool *free)
{
    uint64_t total = 0;

    assert_well_formed(map);
    for (uint64_t address = 0; address < MODEL_SIZE; address++) {
        if (memmap_contains(map, address, 1) != free[address])
            fail_msg("address %lu: map and model disagree", (unsigned long)address);
        total += free[address];
    }
    assert_int_equal(memmap_total_bytes(map), total);
}

static void test_random_against_model(void **state)
{
    static struct memmap map, before;
    bool free[MODEL_SIZE] = {false};

    (void)state;
    memmap_init(&map);
    for (int step = 0; step < 20000; step++) {
        uint64_t base = next_random() % MODEL_SIZE;
        uint64_t length = next_random() % 24;
        bool add = next_random() % 2 == 0;
        int error;

        if (base + length > MODEL_SIZE)
            length = MODEL_SIZE - base;
        before = map;
        error = add ? memmap_add(&map, base, length) : memmap_reserve(&map, base, length);
        if (error == -ENOSPC) { /* possible: 512 bytes can
                                 * make 256 regions */
            assert_int_equal(before.count, MEMMAP_MAX_REGIONS);
            assert_memory_equal(&map, &before, sizeof(map));
            continue;
        }
        assert_int_equal(error, 0);
        for (uint64_t i = base; i < base + length; i++)
            free[i] = add;
        if (step % 64 == 0)
            assert_matches_model(&map, free);
    }
    assert_matches_model(&map, free);

    memmap_align_pages(&map, 16);
    for (uint64_t page = 0; page < MODEL_SIZE; page += 16) {
        bool whole = true;

        for (uint64_t i = page; i < page + 16; i++)
            whole = whole && free[i];
        for (uint64_t i = page; i < page + 16; i++)
            free[i] = whole;
    }
    assert_matches_model(&map, free);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_add_keeps_sorted_and_separate),
        cmocka_unit_test(test_add_merges),
        cmocka_unit_test(test_add_clamps_overflow),
        cmocka_unit_test(test_add_when_full),
        cmocka_unit_test(test_reserve_cases),
        cmocka_unit_test(test_reserve_spanning_several_regions),
        cmocka_unit_test(test_reserve_clamps_overflow),
        cmocka_unit_test(test_reserve_split_when_full),
        cmocka_unit_test(test_align_pages),
        cmocka_unit_test(test_contains),
        cmocka_unit_test(test_random_against_model),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
