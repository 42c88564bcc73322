/* A reader of cpio "newc" archives, the format of Linux initramfs images
 * and of our initrd (tools/lib/newc.py writes them). Pure and defensive:
 * the archive comes from outside the kernel, so every field is checked and
 * nothing is read past the given length. */
#ifndef KERNEL_CPIO_H
#define KERNEL_CPIO_H

#include <stddef.h>
#include <stdint.h>

#define CPIO_HEADER_SIZE 110
#define CPIO_NAME_MAX    4096 /* PATH_MAX, NUL included */

struct cpio_entry {
    const char *name;   /* points into the archive; name[name_length] is its NUL */
    size_t name_length; /* without the NUL */
    uint32_t mode;      /* Linux mode: type bits and permissions */
    uint32_t ino, nlink, uid, gid, mtime;
    uint32_t rdev_major, rdev_minor;
    const void *data; /* points into the archive; a symlink's data is its target */
    size_t size;
};

/* Read the entry at *offset and advance *offset past it. Returns 1 with
 * *out filled, 0 at the "TRAILER!!!" entry (the end), or -EINVAL if the
 * archive is malformed or ends before its trailer. */
int cpio_next(const void *archive, size_t length, size_t *offset, struct cpio_entry *out);

#endif
