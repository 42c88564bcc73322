/* Directories: making and removing names (mkdir, unlink, rmdir, symlink,
 * rename, device nodes, whole subtrees) and listing them (getdents). The
 * tree itself is kernel/fs/inode.c's; paths are resolved by
 * kernel/fs/namei.c.
 *
 * Left out: hard links (link() answers EPERM, kernel/fs/names.c)
 * and device numbers: a device node is made by its driver, with its
 * file_ops (vfs_create_device). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/fs/vfs_internal.h"
#include "kernel/lib/errno.h"
#include "kernel/mm/heap.h"
#include "kernel/lib/string.h"

/* ---- Making and removing names ---- */

int vfs_mkdir_at(struct inode *start, const char *path, uint32_t mode)
{
    struct last_name last;
    spin_lock(&vfs_lock);
    int error = walk_parent(start, path, &last);
    if (!error && (last.length == 0 || is_dot_or_dotdot(last.name, last.length) ||
                   find_child(last.directory, last.name, last.length)))
        error = -EEXIST;
    if (!error)
        error = new_name_refused(last.directory, false);
    if (!error && !create_child(last.directory, last.name, last.length, S_IFDIR | (mode & 07777)))
        error = -ENOMEM;
    spin_unlock(&vfs_lock);
    return error;
}

static int unlink_locked(struct inode *start, const char *path, bool directory)
{
    struct last_name last;
    int error = walk_parent(start, path, &last);
    if (error)
        return error;
    if (last.length == 0)
        return directory ? -EBUSY : -EISDIR;
    if (is_dot_or_dotdot(last.name, last.length))
        return !directory ? -EISDIR : last.length == 1 ? -EINVAL : -ENOTEMPTY;
    struct inode *inode = find_child(last.directory, last.name, last.length);
    if (!inode)
        return -ENOENT;
    if (directory && !is_directory(inode))
        return -ENOTDIR;
    if (!directory && is_directory(inode))
        return -EISDIR;
    if (!directory && last.trailing_slash)
        return -ENOTDIR;
    if (inode->sealed)
        return -EBUSY;      /* /proc itself: a mount point on Linux */
    if (sealed(last.directory))
        return -EPERM;
    if (inode->first_child)
        return -ENOTEMPTY;
    unlink_child(inode);
    return 0;
}

int vfs_unlink_at(struct inode *start, const char *path, bool directory)
{
    spin_lock(&vfs_lock);
    int error = unlink_locked(start, path, directory);
    spin_unlock(&vfs_lock);
    return error;
}

/* The parent of a new name: it must exist, be linked, and not hold it. */
static int walk_new_name(struct inode *start, const char *path, struct last_name *last)
{
    int error = walk_parent(start, path, last);
    if (error)
        return error;
    if (last->length == 0 || is_dot_or_dotdot(last->name, last->length) ||
        find_child(last->directory, last->name, last->length))
        return -EEXIST;
    return new_name_refused(last->directory, false);
}

int vfs_symlink_at(struct inode *start, const char *path, const char *target)
{
    size_t target_length = strnlen(target, PATH_MAX);
    if (target_length == 0)
        return -ENOENT;
    if (target_length == PATH_MAX)
        return -ENAMETOOLONG;
    char *data = copy_name(target, target_length);      /* allocated before the lock */
    if (!data)
        return -ENOMEM;
    struct last_name last;
    spin_lock(&vfs_lock);
    int error = walk_new_name(start, path, &last);
    struct inode *inode = error ? NULL : create_child(last.directory, last.name, last.length, S_IFLNK | 0777);
    if (!error && !inode)
        error = -ENOMEM;
    if (inode) {
        inode->target = data;
        inode->size = target_length;
    }
    spin_unlock(&vfs_lock);
    if (!inode)
        kfree(data);
    return error;
}

static bool is_ancestor(const struct inode *ancestor, const struct inode *inode)
{
    for (; inode; inode = inode->parent) {
        if (inode == ancestor)
            return true;
    }
    return false;
}

/* May `moving` replace `target` (which exists) in rename()? */
static int check_replace(const struct inode *moving, const struct inode *target)
{
    if (is_directory(moving) && !is_directory(target))
        return -ENOTDIR;
    if (!is_directory(moving) && is_directory(target))
        return -EISDIR;
    if (target->first_child)
        return -ENOTEMPTY;
    if (target->ops || target == root)
        return -EBUSY;      /* a device or generated file stays where its driver put it */
    return 0;
}

static int rename_locked(struct inode *old_start, const char *old_path, struct inode *new_start,
                         const char *new_path, char **name)
{
    struct last_name from, to;
    int error = walk_parent(old_start, old_path, &from);
    if (!error)
        error = walk_parent(new_start, new_path, &to);
    if (error)
        return error;
    if (from.length == 0 || to.length == 0)
        return -EBUSY;
    if (is_dot_or_dotdot(from.name, from.length) || is_dot_or_dotdot(to.name, to.length))
        return -EINVAL;
    struct inode *moving = find_child(from.directory, from.name, from.length);
    if (!moving)
        return -ENOENT;
    if (moving->sealed)
        return -EBUSY;      /* /proc itself: a mount point on Linux */
    if (sealed_root(from.directory) != sealed_root(to.directory))
        return -EXDEV;      /* /proc and /sys are other file systems on Linux */
    if (sealed(from.directory))
        return in_sysfs(from.directory) ? -EPERM : -ENOENT;
    if (moving->ops)
        return -EBUSY;
    if ((from.trailing_slash || to.trailing_slash) && !is_directory(moving))
        return -ENOTDIR;
    if (!to.directory->linked)
        return -ENOENT;
    if (is_ancestor(moving, to.directory))
        return -EINVAL;     /* into itself */
    struct inode *target = find_child(to.directory, to.name, to.length);
    if (target == moving)
        return 0;
    if (target && (error = check_replace(moving, target)))
        return error;
    if (target)
        unlink_child(target);
    detach_child(moving);
    kfree(moving->name);
    moving->name = *name;
    *name = NULL;
    link_child(to.directory, moving);
    return 0;
}

/* rename(2): atomic under the one VFS lock; the inode keeps its number and
 * its open files. */
int vfs_rename_at(struct inode *old_start, const char *old_path, struct inode *new_start, const char *new_path)
{
    /* The new name's copy is made before the lock: the last component. */
    size_t length = strnlen(new_path, PATH_MAX);
    while (length > 0 && new_path[length - 1] == '/')
        length--;
    size_t begin = length;
    while (begin > 0 && new_path[begin - 1] != '/')
        begin--;
    char *name = copy_name(new_path + begin, length - begin);
    if (!name)
        return -ENOMEM;
    spin_lock(&vfs_lock);
    int error = rename_locked(old_start, old_path, new_start, new_path, &name);
    spin_unlock(&vfs_lock);
    kfree(name);
    return error;
}

static void remove_subtree_locked(struct inode *inode)
{
    while (inode->first_child)
        remove_subtree_locked(inode->first_child);
    unlink_child(inode);
}

int vfs_remove_tree(const char *path)
{
    struct inode *inode;
    spin_lock(&vfs_lock);
    int error = walk_path(NULL, path, false, &inode);
    if (!error && inode == root)
        error = -EBUSY;
    if (!error)
        remove_subtree_locked(inode);
    spin_unlock(&vfs_lock);
    return error;
}

int vfs_create_device(const char *path, uint32_t mode, const struct file_ops *ops, void *private)
{
    if (!ops && (mode & S_IFMT) != S_IFDIR)
        return -EINVAL;
    if ((mode & S_IFMT) == 0)
        mode |= S_IFCHR;
    spin_lock(&vfs_lock);
    struct last_name last;
    int error = make_parents(path, &last);
    if (!error && (last.length == 0 || is_dot_or_dotdot(last.name, last.length)))
        error = -EEXIST;
    if (!error && find_child(last.directory, last.name, last.length))
        error = -EEXIST;
    if (!error) {
        struct inode *inode = create_child(last.directory, last.name, last.length, mode);
        if (inode && ops) {
            inode->ops = ops;
            inode->private = private;
        } else if (!inode) {
            error = -ENOMEM;
        }
    }
    spin_unlock(&vfs_lock);
    return error;
}

/* ---- An open directory: listing it ---- */

static long directory_read(struct file *file, void *buffer, size_t count)
{
    (void)file, (void)buffer, (void)count;
    return -EISDIR;
}

const struct file_ops ramfs_directory_ops = {
    .read = directory_read,
};

static uint8_t dirent_type(const struct inode *inode)
{
    switch (inode->mode & S_IFMT) {
    case S_IFDIR:
        return DT_DIR;
    case S_IFREG:
        return DT_REG;
    case S_IFLNK:
        return DT_LNK;
    case S_IFCHR:
        return DT_CHR;
    default:
        return DT_UNKNOWN;
    }
}

/* One record; false if it does not fit in the `room` bytes left. */
static bool put_dirent(char *buffer, size_t room, size_t *written, uint64_t number, int64_t next,
                       uint8_t type, const char *name)
{
    size_t name_length = strlen(name);
    size_t record = (offsetof(struct linux_dirent64, d_name) + name_length + 1 + 7) & ~(size_t)7;
    if (record > room)
        return false;
    struct linux_dirent64 *dirent = (struct linux_dirent64 *)(buffer + *written);
    dirent->d_ino = number;
    dirent->d_off = next;
    dirent->d_reclen = (uint16_t)record;
    dirent->d_type = type;
    memcpy(dirent->d_name, name, name_length + 1);
    memset(dirent->d_name + name_length + 1, 0,
           record - offsetof(struct linux_dirent64, d_name) - name_length - 1);
    *written += record;
    return true;
}

/* The position of a directory file counts entries: 0 is ".", 1 is "..",
 * then the children, which are kept sorted by name. A listing that goes on
 * where the last call stopped resumes after the last name given, not at
 * the index: a name removed or added before it in between moves nothing,
 * so every other name comes exactly once (POSIX's rule, which nftw(3) and
 * rm -r rely on when they remove each name as they read it). After a
 * seek, the position is an index again. */
static struct inode *first_to_list(const struct file *file, const struct inode *directory, uint64_t index)
{
    struct inode *child = directory->first_child;
    if (index > 2 && file->listed_name && file->listed_position == index) {
        while (child && strcmp(child->name, file->listed_name) <= 0)
            child = child->next_sibling;
        return child;
    }
    for (uint64_t skip = 2; child && skip < index; skip++)
        child = child->next_sibling;
    return child;
}

/* `buffer` must be 8-byte aligned (kmalloc's is). */
long vfs_getdents(struct file *file, void *buffer, size_t size)
{
    struct inode *directory = file->inode;
    if (!is_directory(directory))
        return -ENOTDIR;
    if (!file->listed_name) {
        /* Made once, outside the lock; without it, positions are indexes. */
        char *name = kzalloc(NAME_MAX + 1);
        char *none = NULL;
        if (name && !__atomic_compare_exchange_n(&file->listed_name, &none, name, false, __ATOMIC_ACQ_REL,
                                                 __ATOMIC_ACQUIRE))
            kfree(name);   /* a process sharing the file made it first */
    }
    size_t written = 0;
    bool fits = true;
    const struct inode *last_listed = NULL;
    spin_lock(&vfs_lock);
    uint64_t index = file->position;
    struct inode *child = first_to_list(file, directory, index);
    for (;; index++) {
        if (index == 0) {
            fits = put_dirent(buffer, size - written, &written, directory->number, 1, DT_DIR, ".");
        } else if (index == 1) {
            struct inode *parent = directory->parent ? directory->parent : directory;
            fits = put_dirent(buffer, size - written, &written, parent->number, 2, DT_DIR, "..");
        } else if (child) {
            fits = put_dirent(buffer, size - written, &written, child->number, (int64_t)index + 1,
                              dirent_type(child), child->name);
            if (fits) {
                last_listed = child;
                child = child->next_sibling;
            }
        } else {
            break;
        }
        if (!fits)
            break;
    }
    file->position = index;
    if (last_listed && file->listed_name) {
        memcpy(file->listed_name, last_listed->name, strlen(last_listed->name) + 1);   /* at most NAME_MAX */
        file->listed_position = index;
    }
    spin_unlock(&vfs_lock);
    if (!fits && written == 0)
        return -EINVAL; /* the buffer cannot hold even one record */
    return (long)written;
}
