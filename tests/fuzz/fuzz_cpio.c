/* Fuzz target: kernel/fs/cpio.c, the initrd's newc reader. The input is the
 * archive; every entry is read until the trailer or an error, and every
 * name and data pointer returned must lie inside the archive. */
#include <string.h>

#include "kernel/fs/cpio.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *archive = malloc(size ? size : 1);
    memcpy(archive, data, size);
    size_t offset = 0;
    struct cpio_entry entry;
    int result;
    while ((result = cpio_next(archive, size, &offset, &entry)) == 1) {
        const uint8_t *name = (const uint8_t *)entry.name, *bytes = entry.data;
        FUZZ_CHECK(name >= archive && name + entry.name_length < archive + size);
        FUZZ_CHECK(entry.name[entry.name_length] == '\0');
        FUZZ_CHECK(entry.size == 0 || (bytes >= archive && entry.size <= (size_t)(archive + size - bytes)));
        FUZZ_CHECK(offset <= size);
    }
    FUZZ_CHECK(result == 0 || result < 0);
    free(archive);
    return 0;
}
