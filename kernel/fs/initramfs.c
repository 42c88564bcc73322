/* The initramfs: a cpio "newc" archive (read by kernel/fs/cpio.c) unpacked
 * into the tree at boot, each entry's directories made as needed.
 *
 * Left out: hard links (a newc hard-link group becomes separate files, the
 * earlier ones empty), owners, device nodes, FIFOs and sockets (drivers
 * create their devices with vfs_create_device), and the archive's device
 * numbers. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/fs/vfs_internal.h"
#include "kernel/fs/cpio.h"
#include "kernel/lib/errno.h"
#include "kernel/mm/heap.h"
#include "kernel/lib/string.h"

/* What an entry holds, made before vfs_lock is taken: busybox is two
 * megabytes. */
struct entry_content {
    struct file_pages pages; /* a regular file's */
    char *target;            /* a symlink's, + NUL */
};

/* Put an inode for one archive entry in place, with its content, which
 * it takes on success. An existing non-directory of that name is
 * replaced. */
static int unpack_locked(const struct cpio_entry *entry, struct entry_content *content)
{
    struct last_name last;
    int error = make_parents(entry->name, &last);
    if (error)
        return error;
    if (last.length == 0 || is_dot_or_dotdot(last.name, last.length))
        return (entry->mode & S_IFMT) == S_IFDIR ? 0 : -EINVAL; /* "." is the root */
    struct inode *existing = find_child(last.directory, last.name, last.length);
    bool want_directory = (entry->mode & S_IFMT) == S_IFDIR;
    if (existing && is_directory(existing)) {
        if (!want_directory)
            return -EINVAL;
        existing->mode = entry->mode;
        existing->mtime = entry->mtime;
        return 0;
    }
    if (existing)
        unlink_child(existing);
    struct inode *inode = create_child(last.directory, last.name, last.length, entry->mode);
    if (!inode)
        return -ENOMEM;
    inode->mtime = entry->mtime;
    inode->size = entry->size;
    inode->pages = content->pages.pages;
    inode->page_slots = content->pages.slots;
    inode->target = content->target;
    *content = (struct entry_content){ { NULL, 0 }, NULL };
    return 0;
}

static int unpack_entry(const struct cpio_entry *entry)
{
    uint32_t type = entry->mode & S_IFMT;
    if (type != S_IFDIR && type != S_IFREG && type != S_IFLNK)
        return 0; /* device nodes, FIFOs and sockets: see the top */
    if (type == S_IFLNK &&
        (entry->size == 0 || entry->size >= PATH_MAX || strnlen(entry->data, entry->size) != entry->size))
        return -EINVAL;
    struct entry_content content = { { NULL, 0 }, NULL };
    if (type == S_IFREG && ramfs_fill_pages(entry->data, entry->size, &content.pages))
        return -ENOMEM;
    if (type == S_IFLNK && !(content.target = copy_name(entry->data, entry->size)))
        return -ENOMEM;
    spin_lock(&vfs_lock);
    int error = unpack_locked(entry, &content);
    spin_unlock(&vfs_lock);
    ramfs_put_pages(content.pages); /* what unpack_locked did not take */
    kfree(content.target);
    return error;
}

int initramfs_unpack(const void *archive, size_t length)
{
    size_t offset = 0;
    struct cpio_entry entry;
    int result;
    while ((result = cpio_next(archive, length, &offset, &entry)) == 1) {
        int error = unpack_entry(&entry);
        if (error)
            return error;
    }
    return result;
}
