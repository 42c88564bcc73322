/* ftruncate and truncate: a regular file's new size (kernel/fs/ramfs.c's
 * vfs_truncate), with Linux's checks. Left out: RLIMIT_FSIZE (no SIGXFSZ),
 * sizes past 1 GiB (EFBIG here; tmpfs takes them). */
#include "kernel/entry/syscall.h"

#include "kernel/fs/fs_syscalls.h"
#include "kernel/fs/vfs.h"
#include "kernel/lib/errno.h"
#include "kernel/lib/linux_abi.h"

SYSCALL_DEFINE2(ftruncate, int, fd, int64_t, length)
{
    if (length < 0)
        return -EINVAL;
    struct fd_table *table = current_files();
    struct file *file = table ? fd_get(table, fd) : NULL;
    if (!file)
        return -EBADF;
    long error = (file->flags & O_ACCMODE) == O_RDONLY ? -EINVAL : vfs_truncate(file, (uint64_t)length);
    vfs_close(file);
    return error;
}

/* By name: opened for writing (EACCES, EISDIR, ENOENT as open's, and
 * no descriptor taken), then as ftruncate. */
SYSCALL_DEFINE2(truncate, const char *, user_path, int64_t, length)
{
    if (length < 0)
        return -EINVAL;
    struct at_path at;
    long error = at_path_get(AT_FDCWD, user_path, &at);
    if (error)
        return error;
    struct file *file = vfs_open_at(at.start, at.path, O_WRONLY, 0, &error);
    at_path_put(&at);
    if (!file)
        return error;
    error = vfs_truncate(file, (uint64_t)length);
    vfs_close(file);
    return error;
}
