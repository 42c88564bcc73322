/* What a name or a descriptor says about its file: the stat family,
 * statfs and fstatfs (kernel/fs/mounts.c), readlinkat and readlink. */
#include "kernel/entry/syscall.h"
#include "kernel/fs/fs_syscalls.h"

#include <stdbool.h>

#include "kernel/lib/errno.h"
#include "kernel/mm/heap.h"
#include "kernel/lib/string.h"
#include "kernel/mm/uaccess.h"
#include "kernel/fs/vfs.h"

static long copy_stat_to_user(struct linux_stat *user_stat, const struct linux_stat *stat)
{
    return copy_to_user(user_stat, stat, sizeof(*stat)) < 0 ? -EFAULT : 0;
}

SYSCALL_DEFINE2(fstat, int, fd, struct linux_stat *, user_stat)
{
    struct file *file = file_of(fd);
    if (!file)
        return -EBADF;
    struct linux_stat stat;
    vfs_stat_file(file, &stat);
    vfs_close(file);
    return copy_stat_to_user(user_stat, &stat);
}

#define AT_NO_AUTOMOUNT 0x800      /* nothing here mounts: accepted, changes nothing */

SYSCALL_DEFINE4(newfstatat, int, dirfd, const char *, user_path, struct linux_stat *, user_stat, int, flags)
{
    if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH | AT_NO_AUTOMOUNT))
        return -EINVAL;
    long error = -ENOMEM;
    bool null_is_empty = !user_path && (flags & AT_EMPTY_PATH);     /* Linux 6.11 on */
    char *path = null_is_empty ? kzalloc(PATH_MAX) : path_from_user(user_path, &error);
    if (!path)
        return error;
    if (path[0] == '\0' && (flags & AT_EMPTY_PATH)) {
        if (dirfd != AT_FDCWD) {
            kfree(path);
            return sys_fstat(dirfd, user_stat);
        }
        memcpy(path, ".", 2); /* the working directory itself */
    }
    struct file *holder;
    struct inode *start;
    struct linux_stat stat;
    error = start_directory(dirfd, path, &holder, &start);
    if (!error)
        error = vfs_stat_at(start, path, !(flags & AT_SYMLINK_NOFOLLOW), &stat);
    start_directory_put(holder, start);
    kfree(path);
    return error ? error : copy_stat_to_user(user_stat, &stat);
}

SYSCALL_DEFINE2(stat, const char *, user_path, struct linux_stat *, user_stat)
{
    return sys_newfstatat(AT_FDCWD, user_path, user_stat, 0);
}

SYSCALL_DEFINE2(lstat, const char *, user_path, struct linux_stat *, user_stat)
{
    return sys_newfstatat(AT_FDCWD, user_path, user_stat, AT_SYMLINK_NOFOLLOW);
}

/* The file system a path or descriptor is on (kernel/fs/mounts.c). */
SYSCALL_DEFINE2(statfs, const char *, user_path, struct linux_statfs *, user_buffer)
{
    long error = -ENOMEM;
    char *path = path_from_user(user_path, &error);
    if (!path)
        return error;
    struct file *holder;
    struct inode *start;
    struct linux_statfs statfs;
    error = start_directory(AT_FDCWD, path, &holder, &start);
    if (!error)
        error = vfs_statfs_at(start, path, &statfs);
    start_directory_put(holder, start);
    kfree(path);
    if (error)
        return error;
    return copy_to_user(user_buffer, &statfs, sizeof(statfs)) < 0 ? -EFAULT : 0;
}

SYSCALL_DEFINE2(fstatfs, int, fd, struct linux_statfs *, user_buffer)
{
    struct file *file = file_of(fd);
    if (!file)
        return -EBADF;
    struct linux_statfs statfs;
    vfs_statfs_file(file, &statfs);
    vfs_close(file);
    return copy_to_user(user_buffer, &statfs, sizeof(statfs)) < 0 ? -EFAULT : 0;
}

SYSCALL_DEFINE4(readlinkat, int, dirfd, const char *, user_path, char *, user_buffer, int, size)
{
    if (size <= 0)
        return -EINVAL;
    long error;
    char *path = path_from_user(user_path, &error);
    if (!path)
        return error;
    size_t room = (size_t)size < PATH_MAX ? (size_t)size : PATH_MAX;
    char *target = kmalloc(room);
    struct file *holder = NULL;
    struct inode *start = NULL;
    long result = target ? start_directory(dirfd, path, &holder, &start) : -ENOMEM;
    if (!result)
        result = vfs_readlink_at(start, path, target, room);
    if (result > 0 && copy_to_user(user_buffer, target, (size_t)result) < 0)
        result = -EFAULT;
    start_directory_put(holder, start);
    kfree(target);
    kfree(path);
    return result;
}

SYSCALL_DEFINE3(readlink, const char *, user_path, char *, user_buffer, int, size)
{
    return sys_readlinkat(AT_FDCWD, user_path, user_buffer, size);
}
