/* ktest=alloc: the page allocator and the heap hand out every byte once,
 * and take all of it back. */
#include "arch/x86/paging.h"
#include "kernel/mm/heap.h"
#include "kernel/debug/ktest.h"
#include "kernel/mm/page_alloc.h"
#include "kernel/lib/string.h"

/* Allocate every free page, chaining them through the pages themselves
 * (each holds the address of the page allocated before it). A page handed
 * out twice would be zeroed and relinked by its second allocation, which
 * cuts the chain short: walking it must visit exactly as many pages as
 * were allocated. Then free them all. */
static void every_page_once_and_back(struct ktest *test)
{
    size_t free_before = page_free_count();
    uint64_t chain = 0;
    size_t count = 0, walked = 0;

    for (uint64_t page; (page = page_alloc()) != 0; count++) {
        *(uint64_t *)phys_to_virt(page) = chain;
        chain = page;
    }
    KTEST_EXPECT(test, count == free_before, "allocated %zu pages, %zu were free", count, free_before);
    KTEST_EXPECT(test, page_free_count() == 0, "%zu pages still free after exhaustion", page_free_count());

    for (uint64_t page = chain; page && walked <= count; walked++)
        page = *(uint64_t *)phys_to_virt(page);
    KTEST_EXPECT(test, walked == count, "the chain has %zu pages, %zu were allocated", walked, count);

    for (uint64_t page = chain; page;) {
        uint64_t next = *(uint64_t *)phys_to_virt(page);
        page_free(page);
        page = next;
    }
    KTEST_EXPECT(test, page_free_count() == free_before, "free pages %zu, before %zu", page_free_count(),
                 free_before);
    ktest_log(test, "%zu pages allocated and freed", count);
}

static void contiguous_runs_do_not_overlap(struct ktest *test)
{
    size_t free_before = page_free_count();
    uint64_t runs[16];

    for (int i = 0; i < 16; i++) {
        runs[i] = page_alloc_contiguous((size_t)i + 1);
        KTEST_EXPECT(test, runs[i] != 0, "run of %d pages failed", i + 1);
        memset(phys_to_virt(runs[i]), i + 1, (size_t)(i + 1) * PAGE_SIZE);
    }
    for (int i = 0; i < 16; i++) {
        const uint8_t *bytes = phys_to_virt(runs[i]);
        size_t wrong = 0;
        for (size_t j = 0; j < (size_t)(i + 1) * PAGE_SIZE; j++)
            wrong += bytes[j] != i + 1;
        KTEST_EXPECT(test, wrong == 0, "run %d: %zu bytes overwritten", i, wrong);
    }
    for (int i = 0; i < 16; i++)
        page_free_contiguous(runs[i], (size_t)i + 1);
    KTEST_EXPECT(test, page_free_count() == free_before, "leaked %zu pages", free_before - page_free_count());
}

#define HEAP_OBJECTS 3000

/* Objects of many sizes, each filled with its own pattern: no overlap, all
 * aligned, and freeing them returns every page the heap took. */
static void heap_objects_do_not_overlap_and_all_come_back(struct ktest *test)
{
    static void *objects[HEAP_OBJECTS];
    static const size_t sizes[] = { 1, 8, 16, 17, 40, 64, 100, 128, 255, 512, 700, 1024, 1025, 3000, 5000, 9000 };
    size_t free_before = page_free_count();
    size_t overlaps = 0, misaligned = 0;

    for (int i = 0; i < HEAP_OBJECTS; i++) {
        size_t size = sizes[i % 16];
        objects[i] = kmalloc(size);
        KTEST_EXPECT(test, objects[i] != 0, "kmalloc(%zu) failed", size);
        if (!objects[i])
            return;
        misaligned += ((uintptr_t)objects[i] & 15) != 0;
        memset(objects[i], i & 0xff, size);
    }
    for (int i = 0; i < HEAP_OBJECTS; i++) {
        const uint8_t *bytes = objects[i];
        for (size_t j = 0; j < sizes[i % 16]; j++) {
            if (bytes[j] != (i & 0xff)) {
                overlaps++;
                break;
            }
        }
    }
    /* Free in an order unlike allocation, to mix slabs' free lists. */
    for (int i = 0; i < HEAP_OBJECTS; i += 2)
        kfree(objects[i]);
    for (int i = 1; i < HEAP_OBJECTS; i += 2)
        kfree(objects[i]);
    KTEST_EXPECT(test, overlaps == 0, "%zu objects were overwritten by others", overlaps);
    KTEST_EXPECT(test, misaligned == 0, "%zu objects not 16-byte aligned", misaligned);
    KTEST_EXPECT(test, page_free_count() == free_before, "heap kept %ld pages",
                 (long)free_before - (long)page_free_count());
}

static void zero_size_and_huge_requests_fail_cleanly(struct ktest *test)
{
    size_t free_before = page_free_count();
    KTEST_EXPECT(test, kmalloc(0) == 0, "kmalloc(0) returned memory");
    KTEST_EXPECT(test, kmalloc((size_t)1 << 40) == 0, "kmalloc(1 TiB) returned memory");
    KTEST_EXPECT(test, page_alloc_contiguous(page_free_count() + 1) == 0, "more pages than free were granted");
    KTEST_EXPECT(test, page_free_count() == free_before, "failed requests changed the free count");
    kfree(0);
}

KTEST_SUITE(alloc,
            KTEST_CASE(every_page_once_and_back),
            KTEST_CASE(contiguous_runs_do_not_overlap),
            KTEST_CASE(heap_objects_do_not_overlap_and_all_come_back),
            KTEST_CASE(zero_size_and_huge_requests_fail_cleanly));
