/* newc archives built in memory, for the host tests of the cpio reader
 * (test_cpio) and of the initramfs unpacker (test_vfs). */
#ifndef TESTS_HOST_CPIO_ARCHIVE_H
#define TESTS_HOST_CPIO_ARCHIVE_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "kernel/fs/cpio.h"

/* A growable byte buffer to build archives in; start with { 0 }. */
struct archive {
    unsigned char *bytes;
    size_t length;
};

static inline void archive_append(struct archive *archive, const void *bytes, size_t length)
{
    archive->bytes = realloc(archive->bytes, archive->length + length + 1);
    assert_non_null(archive->bytes);
    if (length > 0)
        memcpy(archive->bytes + archive->length, bytes, length);
    archive->length += length;
}

/* Zeroes up to the next multiple of 4 bytes, as newc wants after a name
 * and after the data. */
static inline void archive_pad(struct archive *archive)
{
    static const char zeroes[4];
    archive_append(archive, zeroes, (4 - archive->length % 4) % 4);
}

/* One entry: the header (one link, uid and gid 0), the name, the data
 * (NULL: none). The trailer is the entry named "TRAILER!!!". */
static inline void archive_add_entry(struct archive *archive, const char *name, uint32_t mode, const char *data,
                                     uint32_t ino, uint32_t mtime)
{
    char header[CPIO_HEADER_SIZE + 1];
    size_t data_size = data ? strlen(data) : 0;
    snprintf(header, sizeof(header), "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X", ino, mode,
             0, 0, 1, mtime, (unsigned)data_size, 0, 0, 0, 0, (unsigned)strlen(name) + 1, 0);
    archive_append(archive, header, CPIO_HEADER_SIZE);
    archive_append(archive, name, strlen(name) + 1);
    archive_pad(archive);
    archive_append(archive, data, data_size);
    archive_pad(archive);
}

#endif
