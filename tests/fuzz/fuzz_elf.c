/* Fuzz target: kernel/process/elf.c, the ELF loader's parser. The input is the
 * executable. On success the loader trusts what elf_parse returned, so
 * that is checked: file bytes inside the file, segments in the user half,
 * in order and disjoint, the entry point inside one of them. */
#include <string.h>

#include "kernel/process/elf.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* A copy of exactly `size` bytes, so that ASan sees any read past it. */
    uint8_t *image = malloc(size ? size : 1);
    memcpy(image, data, size);
    struct elf_info info;
    if (elf_parse(image, size, &info) == 0) {
        FUZZ_CHECK(info.segment_count >= 1 && info.segment_count <= ELF_MAX_LOAD_SEGMENTS);
        bool entry_found = false;
        for (unsigned i = 0; i < info.segment_count; i++) {
            const struct elf_segment *s = &info.segments[i];
            FUZZ_CHECK(s->start % ELF_PAGE_SIZE == 0 && s->end % ELF_PAGE_SIZE == 0);
            FUZZ_CHECK(s->start >= ELF_USER_MIN && s->start <= s->end && s->end <= ELF_USER_END);
            FUZZ_CHECK(s->vaddr >= s->start && s->memory_size <= s->end - s->vaddr);
            FUZZ_CHECK(s->file_size <= s->memory_size);
            FUZZ_CHECK(s->file_offset <= size && s->file_size <= size - s->file_offset);
            FUZZ_CHECK(i == 0 || info.segments[i - 1].end <= s->start);
            entry_found |= info.entry >= s->vaddr && info.entry < s->vaddr + s->memory_size;
        }
        FUZZ_CHECK(entry_found);
    }
    free(image);
    return 0;
}
