/* Listing a directory: getdents64 (kernel/fs/directory.c lists). */
#include "kernel/entry/syscall.h"
#include "kernel/fs/fs_syscalls.h"

#include "kernel/lib/errno.h"
#include "kernel/mm/heap.h"
#include "kernel/mm/uaccess.h"
#include "kernel/fs/vfs.h"

/* Only as many records as the user buffer can take before its first bad
 * page are listed, so that a bad buffer does not move the listing on (a
 * buffer that cannot take one is EFAULT, as on Linux). */
SYSCALL_DEFINE3(getdents64, int, fd, void *, user_buffer, unsigned int, size)
{
    struct file *file = file_of(fd);
    if (!file)
        return -EBADF;
    if (!user_range_ok(user_buffer, size)) {
        vfs_close(file);
        return -EFAULT;
    }
    size_t room = size < IO_CHUNK ? size : IO_CHUNK;
    size_t writable = user_accessible_prefix(user_buffer, room, true);
    char *buffer = kmalloc(room ? room : 1);
    long result = buffer ? vfs_getdents(file, buffer, writable) : -ENOMEM;
    if (result == -EINVAL && writable < room)
        result = -EFAULT;
    if (result > 0 && copy_to_user(user_buffer, buffer, (size_t)result) < 0)
        result = -EFAULT;
    kfree(buffer);
    vfs_close(file);
    return result;
}
