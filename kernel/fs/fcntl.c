/* Descriptors: dup, dup2, dup3, fcntl, and ioctl's requests for every
 * file before the file's own (kernel/fs/fd.c keeps the table). */
#include "kernel/entry/syscall.h"
#include "kernel/fs/fs_syscalls.h"

#include "kernel/lib/errno.h"
#include "kernel/mm/uaccess.h"
#include "kernel/fs/vfs.h"

SYSCALL_DEFINE1(dup, int, fd)
{
    struct file *file = file_of(fd);
    if (!file)
        return -EBADF;
    int new_fd = install_below_limit(current_files(), 0, file, false);
    if (new_fd < 0)
        vfs_close(file);
    return new_fd;
}

SYSCALL_DEFINE3(dup3, int, old_fd, int, new_fd, int, flags)
{
    if ((flags & ~O_CLOEXEC) || old_fd == new_fd)
        return -EINVAL;
    if (new_fd < 0 || new_fd >= descriptor_limit())
        return -EBADF;
    struct file *file = file_of(old_fd);
    if (!file)
        return -EBADF;
    struct file *replaced;
    int error = fd_install_at(current_files(), new_fd, file, flags & O_CLOEXEC, &replaced);
    if (error)
        vfs_close(file);
    if (replaced)
        vfs_close(replaced);
    return error ? error : new_fd;
}

SYSCALL_DEFINE2(dup2, int, old_fd, int, new_fd)
{
    if (old_fd == new_fd) {
        struct file *file = file_of(old_fd);
        if (!file)
            return -EBADF;
        vfs_close(file);
        return new_fd;
    }
    return sys_dup3(old_fd, new_fd, 0);
}

SYSCALL_DEFINE3(fcntl, int, fd, int, command, unsigned long, argument)
{
    struct fd_table *table = current_files();
    struct file *file = fd_get(table, fd);
    if (!file)
        return -EBADF;
    long result;
    switch (command) {
    case F_DUPFD:
    case F_DUPFD_CLOEXEC:
        if (argument >= (unsigned long)descriptor_limit()) {
            result = -EINVAL;
            break;
        }
        result = install_below_limit(table, (int)argument, vfs_file_get(file), command == F_DUPFD_CLOEXEC);
        if (result < 0)
            vfs_close(file);
        break;
    case F_GETFD:
        result = fd_close_on_exec(table, fd) ? FD_CLOEXEC : 0;
        break;
    case F_SETFD:
        result = fd_set_close_on_exec(table, fd, argument & FD_CLOEXEC);
        break;
    case F_GETFL:
        result = file->flags;
        break;
    case F_SETFL:
        /* Only these two may change after open, as on Linux. */
        file->flags = (file->flags & ~(unsigned)(O_APPEND | O_NONBLOCK)) |
                      ((unsigned)argument & (O_APPEND | O_NONBLOCK));
        result = 0;
        break;
    default:
        result = -EINVAL;
    }
    vfs_close(file);
    return result;
}

#define FIONREAD 0x541b
#define FIONBIO  0x5421
#define FIONCLEX 0x5450
#define FIOCLEX  0x5451

/* The requests Linux answers for every file before its driver sees them
 * (do_vfs_ioctl): close-on-exec, O_NONBLOCK, and a regular file's bytes
 * left. -ENOIOCTLCMD: the file's own ioctl decides. */
static long generic_ioctl(int fd, struct file *file, unsigned long request, unsigned long argument)
{
    int value;
    long size;
    switch (request) {
    case FIOCLEX:
    case FIONCLEX:
        return fd_set_close_on_exec(current_files(), fd, request == FIOCLEX);
    case FIONBIO:
        if (copy_from_user(&value, (const void *)argument, sizeof(value)) < 0)
            return -EFAULT;
        file->flags = value ? file->flags | O_NONBLOCK : file->flags & ~(unsigned)O_NONBLOCK;
        return 0;
    case FIONREAD:
        size = vfs_file_size(file);
        if (size < 0)
            return -ENOIOCTLCMD;
        value = (int)(size - (long)file->position);
        return copy_to_user((void *)argument, &value, sizeof(value)) < 0 ? -EFAULT : 0;
    default:
        return -ENOIOCTLCMD;
    }
}

SYSCALL_DEFINE3(ioctl, int, fd, unsigned long, request, unsigned long, argument)
{
    struct file *file = file_of(fd);
    if (!file)
        return -EBADF;
    long result = generic_ioctl(fd, file, request, argument);
    if (result == -ENOIOCTLCMD)
        result = file->ops->ioctl ? file->ops->ioctl(file, request, argument) : -ENOTTY;
    vfs_close(file);
    return result;
}
