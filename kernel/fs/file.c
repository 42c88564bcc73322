/* Open files (struct file): opening by path or on an anonymous inode,
 * references shared by dup() and fork(), closing, and the read, write and
 * seek that go to the file's ops (kernel/fs/ramfs.c for a regular file, a
 * driver's for a device). Descriptors are kernel/fs/fd.c's.
 *
 * Left out: O_PATH, O_TMPFILE, and creating a file through a dangling
 * symlink. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/fs/vfs_internal.h"
#include "kernel/lib/errno.h"
#include "kernel/mm/heap.h"
#include "kernel/process/process.h"

/* ---- Opening ---- */

/* The inode an open with O_CREAT names: found, or created as an empty
 * regular file. */
static int open_or_create(struct inode *start, const char *path, int flags, uint32_t mode, struct inode **out)
{
    struct last_name last;
    int error = walk_parent(start, path, &last);
    if (error)
        return error;
    if (last.length == 0 || is_dot_or_dotdot(last.name, last.length))
        return walk_path(start, path, true, out);
    struct inode *inode = find_child(last.directory, last.name, last.length);
    if (inode && (flags & O_EXCL))
        return -EEXIST;
    if (!inode) {
        if (last.trailing_slash)
            return -EISDIR;
        int refused = new_name_refused(last.directory, true);
        if (refused)
            return refused; /* the directory was removed, or is /proc or /sys */
        inode = create_child(last.directory, last.name, last.length, S_IFREG | (mode & 07777));
        if (!inode)
            return -ENOMEM;
    } else if (is_type(inode, S_IFLNK)) {
        if (flags & O_NOFOLLOW)
            return -ELOOP;
        /* Creating through a dangling symlink is left out: -ENOENT. */
        error = follow_last_link(&last, inode, &inode);
        if (error)
            return error;
    }
    *out = inode;
    return 0;
}

/* An O_TRUNC open empties the file: its pages go to *dropped, for the
 * caller to put once vfs_lock is released. */
static int open_locked(struct inode *start, const char *path, int flags, uint32_t mode, struct inode **out,
                       struct file_pages *dropped)
{
    struct inode *inode;
    int error;
    if (flags & O_CREAT) {
        error = open_or_create(start, path, flags, mode, &inode);
    } else {
        error = walk_path(start, path, !(flags & O_NOFOLLOW), &inode);
        if (!error && is_type(inode, S_IFLNK))
            error = -ELOOP; /* only with O_NOFOLLOW; O_PATH is left out */
    }
    if (error)
        return error;
    int access = flags & O_ACCMODE;
    if ((flags & O_DIRECTORY) && !is_directory(inode))
        return -ENOTDIR;
    if (is_directory(inode) && (access != O_RDONLY || (flags & O_CREAT)))
        return -EISDIR;
    /* Even with O_RDONLY, as Linux (POSIX leaves it unspecified). */
    if ((flags & O_TRUNC) && is_type(inode, S_IFREG) && !inode->ops)
        *dropped = ramfs_take_pages(inode);
    inode->references++;
    *out = inode;
    return 0;
}

struct file *vfs_open_at(struct inode *start, const char *path, int flags, uint32_t mode, long *error)
{
    struct file *file = kzalloc(sizeof(*file));
    if (!file) {
        *error = -ENOMEM;
        return NULL;
    }
    struct inode *inode;
    struct file_pages dropped = { NULL, 0 };
    spin_lock(&vfs_lock);
    int result = open_locked(start, path, flags, mode, &inode, &dropped);
    spin_unlock(&vfs_lock);
    ramfs_put_pages(dropped);
    if (result) {
        kfree(file);
        *error = result;
        return NULL;
    }
    file->inode = inode;
    if (inode->ops)
        file->ops = inode->ops;
    else
        file->ops = is_directory(inode) ? &ramfs_directory_ops : &ramfs_file_ops;
    file->flags = (unsigned)flags & (O_ACCMODE | O_APPEND | O_NONBLOCK);
    file->references = 1;
    file->private = inode->private;
    if (file->ops->open) {
        result = file->ops->open(file);
        if (result) {
            inode_put(inode);
            kfree(file);
            *error = result;
            return NULL;
        }
    }
    *error = 0;
    return file;
}

/* An open file on a new inode that no directory holds (a pipe end): it
 * goes away with its last open file. */
struct file *vfs_open_anonymous(uint32_t mode, const struct file_ops *ops, void *private, unsigned flags,
                                long *error)
{
    struct file *file = kzalloc(sizeof(*file));
    spin_lock(&vfs_lock);
    struct inode *inode = file ? inode_new("", 0, mode) : NULL;
    if (inode)
        inode->references = 1;
    spin_unlock(&vfs_lock);
    if (!inode) {
        kfree(file);
        *error = -ENOMEM;
        return NULL;
    }
    inode->ops = ops;
    inode->private = private;
    file->inode = inode;
    file->ops = ops;
    file->flags = flags & (O_ACCMODE | O_APPEND | O_NONBLOCK);
    file->references = 1;
    file->private = private;
    *error = 0;
    return file;
}

struct file *vfs_open(const char *path, int flags, uint32_t mode, long *error)
{
    struct inode *cwd = vfs_cwd_get(current_process());
    struct file *file = vfs_open_at(cwd, path, flags, mode, error);
    if (cwd)
        inode_put(cwd);
    return file;
}

struct file *vfs_file_get(struct file *file)
{
    __atomic_add_fetch(&file->references, 1, __ATOMIC_RELAXED);
    return file;
}

void vfs_close(struct file *file)
{
    if (__atomic_sub_fetch(&file->references, 1, __ATOMIC_ACQ_REL) != 0)
        return;
    if (file->ops->release)
        file->ops->release(file);
    inode_put(file->inode);
    kfree(file->listed_name);
    kfree(file);
}

/* ---- Reading and writing ---- */

long vfs_read(struct file *file, void *buffer, size_t count)
{
    if ((file->flags & O_ACCMODE) == O_WRONLY)
        return -EBADF;
    if (!file->ops->read)
        return -EINVAL;
    return file->ops->read(file, buffer, count);
}

long vfs_write(struct file *file, const void *buffer, size_t count)
{
    if ((file->flags & O_ACCMODE) == O_RDONLY)
        return -EBADF;
    if (!file->ops->write)
        return -EINVAL;
    return file->ops->write(file, buffer, count);
}

long vfs_seek(struct file *file, int64_t offset, int whence)
{
    struct inode *inode = file->inode;
    if (!is_type(inode, S_IFREG) && !is_directory(inode))
        return -ESPIPE; /* devices, like Linux's ttys */
    spin_lock(&vfs_lock);
    int64_t base = -1;
    if (whence == SEEK_SET)
        base = 0;
    else if (whence == SEEK_CUR)
        base = (int64_t)file->position;
    else if (whence == SEEK_END && !is_directory(inode))
        base = (int64_t)inode->size;
    long result = -EINVAL;
    if (base >= 0 && !__builtin_add_overflow(base, offset, &base) && base >= 0) {
        file->position = (uint64_t)base;
        result = base;
    }
    spin_unlock(&vfs_lock);
    return result;
}

/* ---- Size and metadata ---- */

long vfs_file_size(struct file *file)
{
    spin_lock(&vfs_lock);
    long size = is_type(file->inode, S_IFREG) ? (long)file->inode->size : -EINVAL;
    spin_unlock(&vfs_lock);
    return size;
}

bool vfs_is_generated(struct file *file)
{
    return file->inode->ops != 0;
}

bool vfs_is_executable(struct file *file)
{
    return is_type(file->inode, S_IFREG) && (file->inode->mode & 0111);
}

void vfs_stat_file(struct file *file, struct linux_stat *out)
{
    spin_lock(&vfs_lock);
    stat_locked(file->inode, out);
    spin_unlock(&vfs_lock);
}

void vfs_statfs_file(struct file *file, struct linux_statfs *out)
{
    spin_lock(&vfs_lock);
    statfs_locked(file->inode, out);
    spin_unlock(&vfs_lock);
}

void vfs_chmod_file(struct file *file, uint32_t mode)
{
    spin_lock(&vfs_lock);
    file->inode->mode = (file->inode->mode & S_IFMT) | (mode & 07777);
    spin_unlock(&vfs_lock);
}
