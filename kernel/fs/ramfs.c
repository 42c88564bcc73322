/* The content of a regular file in memory: one kmalloc'd buffer that grows
 * by doubling, read and written in pieces of at most COPY_CHUNK bytes so
 * that vfs_lock is never held long. (A symlink's target is kept in the
 * same place, as a NUL-terminated string.) Devices and generated files
 * carry a file_ops table of their own, which open files use instead.
 *
 * Left out: holes that take no memory (a write after a seek past the end
 * fills the gap with zeros) and files over FILE_SIZE_MAX. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/fs/vfs_internal.h"
#include "kernel/lib/errno.h"
#include "kernel/mm/heap.h"
#include "kernel/lib/string.h"

#define COPY_CHUNK    65536
#define FILE_SIZE_MAX (1ul << 30) /* a write past 1 GiB fails with -ENOSPC */

static long ramfs_read(struct file *file, void *buffer, size_t count)
{
    struct inode *inode = file->inode;
    size_t done = 0;
    spin_lock(&vfs_lock);
    while (done < count && file->position < inode->size) {
        size_t chunk = count - done;
        if (chunk > inode->size - file->position)
            chunk = inode->size - file->position;
        if (chunk > COPY_CHUNK)
            chunk = COPY_CHUNK;
        memcpy((char *)buffer + done, inode->data + file->position, chunk);
        file->position += chunk;
        done += chunk;
        if (done < count) { /* let interrupts and other CPUs in */
            spin_unlock(&vfs_lock);
            spin_lock(&vfs_lock);
        }
    }
    spin_unlock(&vfs_lock);
    return (long)done;
}

/* Make room for `size` bytes, doubling so that appends cost O(1) each. */
static int ramfs_reserve(struct inode *inode, size_t size)
{
    if (size <= inode->capacity)
        return 0;
    size_t capacity = inode->capacity * 2 > 64 ? inode->capacity * 2 : 64;
    if (capacity < size)
        capacity = size;
    char *data = kmalloc(capacity);
    if (!data)
        return -ENOMEM;
    if (inode->size > 0)
        memcpy(data, inode->data, inode->size);
    kfree(inode->data);
    inode->data = data;
    inode->capacity = capacity;
    return 0;
}

static long ramfs_write_chunk(struct file *file, const char *buffer, size_t count)
{
    struct inode *inode = file->inode;
    if (file->flags & O_APPEND)
        file->position = inode->size;
    if (file->position > FILE_SIZE_MAX || count > FILE_SIZE_MAX - file->position)
        return -ENOSPC;
    size_t end = file->position + count;
    int error = ramfs_reserve(inode, end);
    if (error)
        return error;
    if (file->position > inode->size) /* a hole after a seek past the end */
        memset(inode->data + inode->size, 0, file->position - inode->size);
    memcpy(inode->data + file->position, buffer, count);
    if (end > inode->size)
        inode->size = end;
    file->position = end;
    return (long)count;
}

static long ramfs_write(struct file *file, const void *buffer, size_t count)
{
    size_t done = 0;
    while (done < count) {
        size_t chunk = count - done < COPY_CHUNK ? count - done : COPY_CHUNK;
        spin_lock(&vfs_lock);
        long written = ramfs_write_chunk(file, (const char *)buffer + done, chunk);
        spin_unlock(&vfs_lock);
        if (written < 0)
            return done ? (long)done : written;
        done += chunk;
    }
    return (long)done;
}

const struct file_ops ramfs_file_ops = {
    .read = ramfs_read,
    .write = ramfs_write,
};
