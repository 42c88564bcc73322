/* Opening and closing: openat, open, close; faccessat and access; where
 * a process stands (getcwd, chdir); a file's mode (fchmodat, chmod,
 * fchmod).
 *
 * Left out: O_PATH, O_TMPFILE, faccessat2's flags, fchdir, chown, utimes,
 * truncate (open with O_TRUNC works). */
#include "kernel/entry/syscall.h"
#include "kernel/fs/fs_syscalls.h"

#include "kernel/lib/errno.h"
#include "kernel/mm/fault_inject.h"
#include "kernel/mm/heap.h"
#include "kernel/process/process.h"
#include "kernel/mm/uaccess.h"
#include "kernel/fs/vfs.h"

#define ACCESS_MODE_BITS 7 /* R_OK | W_OK | X_OK */

SYSCALL_DEFINE4(openat, int, dirfd, const char *, user_path, int, flags, uint32_t, mode)
{
    struct fd_table *table = current_files();
    if (!table)
        return -EBADF;
    /* The descriptor first, as Linux: a full table must not leave a new
     * file behind. One task per table, so the slot stays free. */
    if (fault_inject_should_fail() || fd_lowest_free(table) >= descriptor_limit())
        return -EMFILE;
    struct at_path at;
    long error = at_path_get(dirfd, user_path, &at);
    if (error)
        return error;
    struct file *file = vfs_open_at(at.start, at.path, flags, mode & ~current_process()->umask & 07777, &error);
    at_path_put(&at);
    if (!file)
        return error;
    int fd = fd_install_below(table, 0, descriptor_limit(), file, flags & O_CLOEXEC);
    if (fd < 0)
        vfs_close(file);
    return fd;
}

SYSCALL_DEFINE3(open, const char *, user_path, int, flags, uint32_t, mode)
{
    return sys_openat(AT_FDCWD, user_path, flags, mode);
}

SYSCALL_DEFINE1(close, int, fd)
{
    struct fd_table *table = current_files();
    struct file *file = table ? fd_detach(table, fd) : NULL;
    if (!file)
        return -EBADF;
    vfs_close(file);
    return 0;
}

SYSCALL_DEFINE3(faccessat, int, dirfd, const char *, user_path, int, mode)
{
    if (mode & ~ACCESS_MODE_BITS)
        return -EINVAL;
    struct at_path at;
    long error = at_path_get(dirfd, user_path, &at);
    if (error)
        return error;
    error = vfs_access_at(at.start, at.path, mode);
    at_path_put(&at);
    return error;
}

SYSCALL_DEFINE2(access, const char *, user_path, int, mode)
{
    return sys_faccessat(AT_FDCWD, user_path, mode);
}

SYSCALL_DEFINE2(getcwd, char *, user_buffer, size_t, size)
{
    size_t room = size < PATH_MAX ? size : PATH_MAX;
    char *buffer = kmalloc(room ? room : 1);
    if (!buffer)
        return -ENOMEM;
    struct inode *cwd = vfs_cwd_get(current_process());
    long result = vfs_getcwd(cwd, buffer, room);     /* NULL: the root */
    if (cwd)
        inode_put(cwd);
    if (result > 0 && copy_to_user(user_buffer, buffer, (size_t)result) < 0)
        result = -EFAULT;
    kfree(buffer);
    return result;
}

SYSCALL_DEFINE1(chdir, const char *, user_path)
{
    struct process *process = current_process();
    if (!process)
        return -EINVAL;
    long error;
    char *path = path_from_user(user_path, &error);
    if (!path)
        return error;
    struct inode *directory, *cwd = vfs_cwd_get(process);
    error = vfs_lookup_directory(cwd, path, &directory);
    kfree(path);
    if (cwd)
        inode_put(cwd);
    if (error)
        return error;
    vfs_cwd_set(process, directory);
    return 0;
}

static long chmod_at(int dirfd, const char *user_path, uint32_t mode, int flags)
{
    if (flags & ~AT_SYMLINK_NOFOLLOW)
        return -EINVAL;
    if (flags & AT_SYMLINK_NOFOLLOW)
        return -EOPNOTSUPP;     /* as Linux: a symlink's mode cannot change */
    struct at_path at;
    long error = at_path_get(dirfd, user_path, &at);
    if (error)
        return error;
    error = vfs_chmod_at(at.start, at.path, mode);
    at_path_put(&at);
    return error;
}

SYSCALL_DEFINE3(fchmodat, int, dirfd, const char *, user_path, uint32_t, mode)
{
    return chmod_at(dirfd, user_path, mode, 0);
}

SYSCALL_DEFINE2(chmod, const char *, user_path, uint32_t, mode)
{
    return chmod_at(AT_FDCWD, user_path, mode, 0);
}

SYSCALL_DEFINE2(fchmod, int, fd, uint32_t, mode)
{
    struct file *file = file_of(fd);
    if (!file)
        return -EBADF;
    vfs_chmod_file(file, mode);
    vfs_close(file);
    return 0;
}

/* The mask open and mkdir apply to a new file's mode. */
SYSCALL_DEFINE1(umask, uint32_t, mask)
{
    struct process *process = current_process();
    uint32_t old = process->umask;
    process->umask = mask & 0777;
    return old;
}
