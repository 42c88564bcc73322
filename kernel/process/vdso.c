/* Mapping the vDSO: see kernel/process/vdso.h. The image is the shared
 * object arch/x86/vdso_image.asm holds; it needs no relocation, so the
 * same pages serve every process. */
#include "kernel/process/vdso.h"

#include "arch/x86/paging.h"
#include "kernel/base/panic.h"
#include "kernel/lib/errno.h"
#include "kernel/lib/string.h"
#include "kernel/mm/address_space.h"
#include "kernel/mm/page_alloc.h"
#include "kernel/mm/region.h"
#include "kernel/time/vdso_clock.h"

#define VDSO_IMAGE_PAGES_MAX 4

extern const char vdso_image[], vdso_image_end[];

static uint64_t image_pages[VDSO_IMAGE_PAGES_MAX];
static unsigned image_page_count;

void vdso_init(void)
{
    size_t size = (size_t)(vdso_image_end - vdso_image);
    image_page_count = (unsigned)((size + PAGE_SIZE - 1) / PAGE_SIZE);
    if (image_page_count > VDSO_IMAGE_PAGES_MAX)
        panic("vdso: image of %zu bytes, more than %u pages", size, VDSO_IMAGE_PAGES_MAX);
    for (unsigned i = 0; i < image_page_count; i++) {
        image_pages[i] = page_alloc();
        if (!image_pages[i])
            panic("vdso: no memory for the image");
        size_t offset = i * PAGE_SIZE, length = size - offset < PAGE_SIZE ? size - offset : PAGE_SIZE;
        memcpy(phys_to_virt(image_pages[i]), vdso_image + offset, length);
    }
}

/* One more holder for the space; the kernel's own hold stays. */
static int map_held_page(struct address_space *space, uint64_t address, uint64_t page, uint64_t flags)
{
    page_get(page);
    int error = address_space_map_shared(space, address, page, flags);
    if (error)
        page_put(page);
    return error;
}

/* The pages, then their regions, so that munmap, mprotect and
 * /proc/PID/maps see them as Linux's [vvar] and [vdso]. */
int vdso_map(struct address_space *space)
{
    uint64_t image_end = VDSO_IMAGE_ADDRESS + image_page_count * PAGE_SIZE;
    int error = map_held_page(space, VDSO_DATA_ADDRESS, vdso_clock_data_page(), PTE_NX);
    for (unsigned i = 0; i < image_page_count && !error; i++)
        error = map_held_page(space, VDSO_IMAGE_ADDRESS + i * PAGE_SIZE, image_pages[i], 0);
    if (!error)
        error = regions_insert(&space->regions, VDSO_DATA_ADDRESS, VDSO_IMAGE_ADDRESS, REGION_READ, REGION_VVAR, 0, 0);
    if (!error)
        error = regions_insert(&space->regions, VDSO_IMAGE_ADDRESS, image_end, REGION_READ | REGION_EXEC,
                               REGION_VDSO, 0, 0);
    return error;
}
