/* Fuzz target: kernel/init/multiboot2.c and kernel/mm/memmap.c, the boot
 * information GRUB leaves in memory. The input is the structure (copied
 * to an 8-byte aligned buffer, as GRUB aligns it); its usable memory is
 * then added to a memory map, whose invariants are checked. */
#include <string.h>

#include "kernel/mm/memmap.h"
#include "kernel/init/multiboot2.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *info_bytes = malloc(size ? size : 1); /* malloc aligns to 16 */
    memcpy(info_bytes, data, size);
    static struct boot_info info;
    static struct memmap map;
    if (mb2_parse(info_bytes, size, &info) == 0) {
        FUZZ_CHECK(info.total_size <= size);
        FUZZ_CHECK(info.memory_map_count <= MB2_MAX_MMAP && info.module_count <= MB2_MAX_MODULES);
        FUZZ_CHECK(memchr(info.cmdline, '\0', sizeof(info.cmdline)) != NULL);
        FUZZ_CHECK(memchr(info.boot_loader_name, '\0', sizeof(info.boot_loader_name)) != NULL);
        for (size_t i = 0; i < info.module_count; i++)
            FUZZ_CHECK(memchr(info.modules[i].name, '\0', sizeof(info.modules[i].name)) != NULL);
        memmap_init(&map);
        if (mb2_add_usable_memory(&info, &map) == 0) {
            memmap_reserve(&map, 0, 4096);
            memmap_align_pages(&map, 4096);
            for (size_t i = 0; i < map.count; i++) {
                FUZZ_CHECK(map.regions[i].length > 0);
                FUZZ_CHECK(map.regions[i].base + map.regions[i].length - 1 >= map.regions[i].base);
                FUZZ_CHECK(i == 0 ||
                           map.regions[i - 1].base + map.regions[i - 1].length < map.regions[i].base);
            }
        }
    }
    free(info_bytes);
    return 0;
}
