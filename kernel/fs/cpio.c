/* The cpio "newc" reader. One entry is
 *
 *     "070701" (or "070702", the same with a checksum we ignore), then 13
 *     fields of 8 ASCII hex digits: ino mode uid gid nlink mtime filesize
 *     devmajor devminor rdevmajor rdevminor namesize check
 *     the name, NUL included (namesize counts it), padded with zeroes so
 *     that header + name ends on a multiple of 4
 *     filesize bytes of data, padded to a multiple of 4
 *
 * and the archive ends with an entry named "TRAILER!!!". Every size is
 * compared with what is left of the archive before it is used, so an
 * archive of any content can be handed to cpio_next().
 *
 * Left out: the old binary and "odc" formats, checking the 070702
 * checksum, and the zero padding Linux accepts between concatenated
 * archives (ours are always one archive). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/fs/cpio.h"
#include "kernel/lib/errno.h"
#include "kernel/lib/string.h"

enum cpio_field {
    FIELD_INO,
    FIELD_MODE,
    FIELD_UID,
    FIELD_GID,
    FIELD_NLINK,
    FIELD_MTIME,
    FIELD_FILESIZE,
    FIELD_DEVMAJOR,
    FIELD_DEVMINOR,
    FIELD_RDEVMAJOR,
    FIELD_RDEVMINOR,
    FIELD_NAMESIZE,
    FIELD_CHECK,
    FIELD_COUNT
};

static const char trailer_name[] = "TRAILER!!!";

/* Eight hex digits, either case, nothing else (no sign, no spaces). */
static bool parse_hex_field(const char *text, uint32_t *value)
{
    uint32_t result = 0;
    for (int i = 0; i < 8; i++) {
        char c = text[i];
        uint32_t digit;
        if (c >= '0' && c <= '9')
            digit = (uint32_t)(c - '0');
        else if (c >= 'a' && c <= 'f')
            digit = (uint32_t)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            digit = (uint32_t)(c - 'A' + 10);
        else
            return false;
        result = result << 4 | digit;
    }
    *value = result;
    return true;
}

static size_t pad4(size_t n)
{
    return (4 - n % 4) % 4;
}

static bool parse_header(const char *header, uint32_t fields[FIELD_COUNT])
{
    if (memcmp(header, "070701", 6) != 0 && memcmp(header, "070702", 6) != 0)
        return false;
    for (int i = 0; i < FIELD_COUNT; i++) {
        if (!parse_hex_field(header + 6 + 8 * i, &fields[i]))
            return false;
    }
    return true;
}

int cpio_next(const void *archive, size_t length, size_t *offset, struct cpio_entry *out)
{
    const char *bytes = archive;
    size_t position = *offset;
    uint32_t fields[FIELD_COUNT];

    /* Every "left" below is what remains of the archive, so no sum can
     * overflow: each size is compared with it before it is added. */
    if (position > length || length - position < CPIO_HEADER_SIZE)
        return -EINVAL;
    if (!parse_header(bytes + position, fields))
        return -EINVAL;
    position += CPIO_HEADER_SIZE;

    size_t name_size = fields[FIELD_NAMESIZE];
    if (name_size == 0 || name_size > CPIO_NAME_MAX || name_size > length - position)
        return -EINVAL;
    const char *name = bytes + position;
    /* The NUL must be the name's last byte, and the only one. */
    if (name[name_size - 1] != '\0' || strnlen(name, name_size) != name_size - 1)
        return -EINVAL;
    position += name_size;
    /* Padding missing after the trailer is tolerated (some writers stop
     * right after its name); anywhere else it is truncation. */
    if (name_size == sizeof(trailer_name) && memcmp(name, trailer_name, name_size) == 0) {
        size_t rest = pad4(CPIO_HEADER_SIZE + name_size) + fields[FIELD_FILESIZE];
        *offset = position + (rest < length - position ? rest : length - position);
        return 0;
    }
    size_t name_padding = pad4(CPIO_HEADER_SIZE + name_size);
    if (name_padding > length - position)
        return -EINVAL;
    position += name_padding;

    size_t data_size = fields[FIELD_FILESIZE];
    if (data_size > length - position)
        return -EINVAL;
    const char *data = bytes + position;
    position += data_size;
    if (pad4(data_size) > length - position)
        return -EINVAL;
    position += pad4(data_size);

    *offset = position;
    *out = (struct cpio_entry){
        .name = name,
        .name_length = name_size - 1,
        .mode = fields[FIELD_MODE],
        .ino = fields[FIELD_INO],
        .nlink = fields[FIELD_NLINK],
        .uid = fields[FIELD_UID],
        .gid = fields[FIELD_GID],
        .mtime = fields[FIELD_MTIME],
        .rdev_major = fields[FIELD_RDEVMAJOR],
        .rdev_minor = fields[FIELD_RDEVMINOR],
        .data = data,
        .size = data_size,
    };
    return 1;
}
