/* The kernel heap: see kernel/mm/heap.h.
 *
 * Small objects (up to 1 KiB) come from slabs: one page holding a header and
 * objects of a single size class (16, 32, ..., 1024 bytes). A slab with free
 * objects sits on its class's list; a slab that becomes empty goes back to
 * the page allocator, so freeing everything returns every page. Each slab
 * keeps a bitmap of the objects in use: freeing an object twice, or a
 * pointer that is not the start of an object, is caught and panics. Freed
 * objects are filled with 0x6b, and kmalloc checks that the poison is still
 * there when it hands an object out again: a write after free panics (at
 * the next allocation of that object, not at the write itself).
 *
 * Larger objects get their own run of pages with a small header.
 *
 * kfree finds the header by rounding the pointer down to its page, which is
 * why objects never straddle a page (except large ones, whose header is in
 * their first page). */
#include "kernel/mm/heap.h"

#include <stdbool.h>
#include <stdint.h>

#include "arch/x86/paging.h"
#include "kernel/mm/fault_inject.h"
#include "kernel/mm/page_alloc.h"
#include "kernel/base/panic.h"
#include "kernel/base/spinlock.h"
#include "kernel/lib/string.h"

#define SLAB_MAGIC        0x51ab51abu
#define LARGE_MAGIC       0x1a26e001u
#define HEADER_SIZE       128
#define MIN_CLASS_SHIFT   4          /* 16 bytes */
#define MAX_CLASS_SHIFT   10         /* 1024 bytes */
#define CLASS_COUNT       (MAX_CLASS_SHIFT - MIN_CLASS_SHIFT + 1)
#define FREE_POISON       0x6b

struct free_object {
    struct free_object *next;
};

struct slab {
    uint32_t magic;
    uint16_t object_size;
    uint16_t in_use;
    uint16_t capacity;
    struct slab *next, *previous;       /* in the class's list of slabs with room */
    struct free_object *free_list;
    uint64_t used[4];                   /* one bit per object (at most 248) */
};

struct large_header {
    uint32_t magic;
    uint32_t page_count;
    size_t size;
};

_Static_assert(sizeof(struct slab) <= HEADER_SIZE, "slab header too big");

static struct slab *slabs_with_room[CLASS_COUNT];
static struct spinlock heap_lock = SPINLOCK_INIT("heap");

/* What is handed out, for /proc/meminfo and leak checks (user/fuzz.c):
 * objects and their rounded-up sizes. Atomics, because large objects are
 * allocated without heap_lock. */
static size_t heap_objects, heap_bytes;
static size_t objects_by_size[HEAP_SIZE_BUCKETS];     /* [log2(rounded size) - 4], the last: larger */

static void heap_account(long objects, long bytes)
{
    unsigned long size = (unsigned long)(bytes < 0 ? -bytes : bytes);
    unsigned bucket = 0;
    while (bucket + 1 < HEAP_SIZE_BUCKETS && (16ul << bucket) < size)
        bucket++;
    __atomic_add_fetch(&objects_by_size[bucket], (size_t)objects, __ATOMIC_RELAXED);
    __atomic_add_fetch(&heap_objects, (size_t)objects, __ATOMIC_RELAXED);
    __atomic_add_fetch(&heap_bytes, (size_t)bytes, __ATOMIC_RELAXED);
}

void heap_usage_by_size(size_t counts[HEAP_SIZE_BUCKETS])
{
    for (unsigned i = 0; i < HEAP_SIZE_BUCKETS; i++)
        counts[i] = __atomic_load_n(&objects_by_size[i], __ATOMIC_RELAXED);
}

void heap_usage(size_t *objects, size_t *bytes)
{
    *objects = __atomic_load_n(&heap_objects, __ATOMIC_RELAXED);
    *bytes = __atomic_load_n(&heap_bytes, __ATOMIC_RELAXED);
}

static unsigned size_class(size_t size)
{
    unsigned shift = MIN_CLASS_SHIFT;
    while (((size_t)1 << shift) < size)
        shift++;
    return shift - MIN_CLASS_SHIFT;
}

static void list_remove(unsigned class, struct slab *slab)
{
    if (slab->previous)
        slab->previous->next = slab->next;
    else
        slabs_with_room[class] = slab->next;
    if (slab->next)
        slab->next->previous = slab->previous;
    slab->next = slab->previous = 0;
}

static void list_add(unsigned class, struct slab *slab)
{
    slab->previous = 0;
    slab->next = slabs_with_room[class];
    if (slab->next)
        slab->next->previous = slab;
    slabs_with_room[class] = slab;
}

static struct slab *slab_create(unsigned class)
{
    uint64_t page = page_alloc();
    if (!page)
        return 0;
    struct slab *slab = phys_to_virt(page);
    slab->magic = SLAB_MAGIC;
    slab->object_size = (uint16_t)(1u << (class + MIN_CLASS_SHIFT));
    slab->capacity = (uint16_t)((PAGE_SIZE - HEADER_SIZE) / slab->object_size);
    memset((char *)slab + HEADER_SIZE, FREE_POISON, PAGE_SIZE - HEADER_SIZE);
    for (int i = slab->capacity - 1; i >= 0; i--) {
        struct free_object *object = (void *)((char *)slab + HEADER_SIZE + (size_t)i * slab->object_size);
        object->next = slab->free_list;
        slab->free_list = object;
    }
    list_add(class, slab);
    return slab;
}

static unsigned object_index(const struct slab *slab, const void *object)
{
    uintptr_t offset = (uintptr_t)object - (uintptr_t)slab - HEADER_SIZE;
    if ((uintptr_t)object < (uintptr_t)slab + HEADER_SIZE || offset % slab->object_size ||
        offset / slab->object_size >= slab->capacity)
        panic("kfree: %p is not an object of its slab", object);
    return (unsigned)(offset / slab->object_size);
}

/* A free object is its free-list link, then poison to the end. */
static void check_poison(const struct slab *slab, const struct free_object *object)
{
    const unsigned char *bytes = (const unsigned char *)object;
    for (unsigned i = sizeof(struct free_object); i < slab->object_size; i++)
        if (bytes[i] != FREE_POISON)
            panic("kmalloc: use after free of %p: byte %u is %#x, not the poison %#x", (const void *)object, i,
                  bytes[i], FREE_POISON);
}

static void *slab_alloc(size_t size)
{
    unsigned class = size_class(size);

    spin_lock(&heap_lock);
    struct slab *slab = slabs_with_room[class];
    if (!slab)
        slab = slab_create(class);
    if (!slab) {
        spin_unlock(&heap_lock);
        return 0;
    }
    struct free_object *object = slab->free_list;
    check_poison(slab, object);
    slab->free_list = object->next;
    slab->in_use++;
    unsigned index = object_index(slab, object);
    slab->used[index / 64] |= 1ull << (index % 64);
    if (!slab->free_list)
        list_remove(class, slab);
    spin_unlock(&heap_lock);
    heap_account(1, slab->object_size);
    return object;
}

static void slab_free(struct slab *slab, void *object)
{
    unsigned class = size_class(slab->object_size);

    heap_account(-1, -(long)slab->object_size);
    spin_lock(&heap_lock);
    unsigned index = object_index(slab, object);
    if (!(slab->used[index / 64] & (1ull << (index % 64))))
        panic("kfree: double free of %p", object);
    slab->used[index / 64] &= ~(1ull << (index % 64));
    memset(object, FREE_POISON, slab->object_size);
    bool was_full = slab->free_list == 0;
    ((struct free_object *)object)->next = slab->free_list;
    slab->free_list = object;
    slab->in_use--;
    if (was_full)
        list_add(class, slab);
    if (slab->in_use == 0) {
        list_remove(class, slab);
        slab->magic = 0;
        spin_unlock(&heap_lock);
        page_free(virt_to_phys(slab));
        return;
    }
    spin_unlock(&heap_lock);
}

static void *large_alloc(size_t size)
{
    size_t pages = (size + HEADER_SIZE + PAGE_SIZE - 1) / PAGE_SIZE;
    uint64_t phys = page_alloc_contiguous(pages);
    if (!phys)
        return 0;
    struct large_header *header = phys_to_virt(phys);
    header->magic = LARGE_MAGIC;
    header->page_count = (uint32_t)pages;
    header->size = size;
    heap_account(1, (long)(pages * PAGE_SIZE));
    return (char *)header + HEADER_SIZE;
}

void *kmalloc(size_t size)
{
    if (size == 0 || size > (1ul << 30) || fault_inject_should_fail())
        return 0;
    if (size <= (1u << MAX_CLASS_SHIFT))
        return slab_alloc(size);
    return large_alloc(size);
}

void *kzalloc(size_t size)
{
    void *object = kmalloc(size);
    if (object)
        memset(object, 0, size);
    return object;
}

static void *page_of(const void *object)
{
    return (void *)((uintptr_t)object & ~(PAGE_SIZE - 1));
}

void kfree(void *object)
{
    if (!object)
        return;
    uint32_t magic = *(uint32_t *)page_of(object);
    if (magic == SLAB_MAGIC) {
        slab_free(page_of(object), object);
    } else if (magic == LARGE_MAGIC && (char *)object == (char *)page_of(object) + HEADER_SIZE) {
        struct large_header *header = page_of(object);
        size_t pages = header->page_count;
        header->magic = 0;
        heap_account(-1, -(long)(pages * PAGE_SIZE));
        page_free_contiguous(virt_to_phys(header), pages);
    } else {
        panic("kfree: %p was not allocated by kmalloc (or was freed already)", object);
    }
}

size_t kmalloc_usable_size(const void *object)
{
    const struct slab *slab = page_of(object);
    if (slab->magic == SLAB_MAGIC)
        return slab->object_size;
    return ((const struct large_header *)page_of(object))->size;
}
