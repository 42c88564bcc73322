/* Reading and writing: read, write, readv, writev, pread64, pwrite64,
 * lseek. The work
 * itself is done by the VFS (kernel/fs/vfs.h) on kernel buffers.
 *
 * Data moves between user memory and files through a bounce buffer of at
 * most IO_CHUNK bytes: copy_to_user may fault, and it must not do so with
 * vfs_lock held (that lock disables interrupts). A read loops only while
 * each piece comes back whole, so a terminal or pipe read that returns
 * what is there now does not block a second time. A process with a fatal
 * signal pending stops after the piece in hand (it dies on the way out):
 * a gigabyte from /dev/urandom takes minutes under QEMU, and SIGKILL must
 * not wait for it. As on Linux, the whole user range is checked first
 * (EFAULT past the user half), and a read or write moves only the bytes
 * before the first page that cannot take them (user_accessible_prefix),
 * so the file position never runs ahead of what was copied.
 *
 * Left out: preadv, pwritev and their flags. */
#include "kernel/entry/syscall.h"
#include "kernel/fs/fs_syscalls.h"

#include <stdbool.h>

#include "kernel/console/console.h"
#include "kernel/lib/errno.h"
#include "kernel/mm/heap.h"
#include "kernel/process/process.h"
#include "kernel/process/signal.h"
#include "kernel/mm/uaccess.h"
#include "kernel/fs/vfs.h"

#define IO_COUNT_MAX     0x7ffff000ul /* Linux's MAX_RW_COUNT: longer I/O is shortened */
#define IOV_MAX          1024

/* Access mode 3 (Linux's "ioctl only") allows neither. */
static bool can_read(const struct file *file)
{
    unsigned access = file->flags & O_ACCMODE;
    return access == O_RDONLY || access == O_RDWR;
}

static bool can_write(const struct file *file)
{
    unsigned access = file->flags & O_ACCMODE;
    return access == O_WRONLY || access == O_RDWR;
}

/* A read into memory that cannot take a single byte: as on Linux, 0 at the
 * end of a regular file (nothing to copy), else EFAULT with nothing
 * consumed. A /proc or /sys file's size is 0 whatever its text: EFAULT,
 * as Linux answers while text is left (past the end of the text Linux
 * says 0; that case is left out). */
static long read_nothing_fits(struct file *file)
{
    if (vfs_is_generated(file))
        return -EFAULT;
    long size = vfs_file_size(file);
    return size >= 0 && file->position >= (uint64_t)size ? 0 : -EFAULT;
}

/* Linux's order: the fd's mode, then the whole range (access_ok), then
 * the count shortened to MAX_RW_COUNT and to the bytes that can be
 * written before the first bad page (a short read ends there, and the
 * file position says how far it got). */
static long read_to_user(struct file *file, char *user_buffer, size_t count)
{
    if (!can_read(file))
        return -EBADF;
    if (!user_range_ok(user_buffer, count))
        return -EFAULT;
    if (count > IO_COUNT_MAX)
        count = IO_COUNT_MAX;
    size_t room = user_accessible_prefix(user_buffer, count, true);
    if (count > 0 && room == 0)
        return read_nothing_fits(file);
    count = room;
    char *buffer = kmalloc(count < IO_CHUNK ? (count ? count : 1) : IO_CHUNK);
    if (!buffer)
        return -ENOMEM;
    size_t done = 0;
    long result = 0;
    while (done < count && !(done && signal_fatal_pending())) {
        size_t chunk = count - done < IO_CHUNK ? count - done : IO_CHUNK;
        long got = vfs_read(file, buffer, chunk);
        if (got < 0) {
            result = got;
            break;
        }
        if (copy_to_user(user_buffer + done, buffer, (size_t)got) < 0) {
            result = -EFAULT;
            break;
        }
        done += (size_t)got;
        if ((size_t)got < chunk)
            break;
    }
    if (count == 0)
        result = vfs_read(file, buffer, 0); /* a directory is still EISDIR */
    kfree(buffer);
    return done > 0 ? (long)done : result;
}

/* A file that takes a write whole (file_ops.whole_write_max): one copy,
 * one call, or an error and nothing written. */
static long write_whole(struct file *file, const char *user_buffer, size_t count)
{
    if (count == 0 || count > file->ops->whole_write_max)
        return -EINVAL;         /* no value, or more than any value */
    char *buffer = kmalloc(count);
    if (!buffer)
        return -ENOMEM;
    long result = copy_from_user(buffer, user_buffer, count) < 0 ? -EFAULT : vfs_write(file, buffer, count);
    kfree(buffer);
    return result;
}

/* As read_to_user: the bytes before the first unreadable page are written. */
static long write_from_user(struct file *file, const char *user_buffer, size_t count)
{
    if (!can_write(file))
        return -EBADF;
    if (!user_range_ok(user_buffer, count))
        return -EFAULT;
    if (file->ops->whole_write_max)
        return write_whole(file, user_buffer, count);
    if (count > IO_COUNT_MAX)
        count = IO_COUNT_MAX;
    size_t room = user_accessible_prefix(user_buffer, count, false);
    if (count > 0 && room == 0)
        return -EFAULT;
    count = room;
    char *buffer = kmalloc(count < IO_CHUNK ? (count ? count : 1) : IO_CHUNK);
    if (!buffer)
        return -ENOMEM;
    size_t done = 0;
    long result = 0;
    do {
        size_t chunk = count - done < IO_CHUNK ? count - done : IO_CHUNK;
        if (copy_from_user(buffer, user_buffer + done, chunk) < 0) {
            result = -EFAULT;
            break;
        }
        long written = vfs_write(file, buffer, chunk);
        if (written < 0) {
            result = written;
            break;
        }
        done += (size_t)written;
        if ((size_t)written < chunk)
            break;
    } while (done < count && !signal_fatal_pending());
    kfree(buffer);
    return done > 0 ? (long)done : result;
}

SYSCALL_DEFINE3(read, int, fd, void *, user_buffer, size_t, count)
{
    struct file *file = file_of(fd);
    if (!file)
        return -EBADF;
    long result = read_to_user(file, user_buffer, count);
    vfs_close(file);
    return result;
}

/* A process without a descriptor table (the kernel's own test programs,
 * started before the file tree) writes to the console. */
SYSCALL_DEFINE3(write, int, fd, const void *, user_buffer, size_t, count)
{
    if (!current_process()->files)
        return sys_write_console((uint64_t)fd, user_buffer, count);
    struct file *file = file_of(fd);
    if (!file)
        return -EBADF;
    long result = write_from_user(file, user_buffer, count);
    vfs_close(file);
    return result;
}

/* Linux's checks of an iovec array (import_iovec), before any I/O: a
 * length negative as ssize_t is EINVAL, a piece that runs past the user
 * half EFAULT; the pieces are cut so that they add up to IO_COUNT_MAX at
 * most. */
static long check_iovecs(struct linux_iovec *iov, int count)
{
    for (int i = 0; i < count; i++)
        if (iov[i].length > INT64_MAX)
            return -EINVAL;
    uint64_t total = 0;
    for (int i = 0; i < count; i++) {
        if (!user_range_ok((const void *)(uintptr_t)iov[i].base, iov[i].length))
            return -EFAULT;
        if (iov[i].length > IO_COUNT_MAX - total)
            iov[i].length = IO_COUNT_MAX - total;
        total += iov[i].length;
    }
    return 0;
}

/* writev to a file that takes a write whole: the pieces gathered into one
 * write, as Linux's /proc/sys files take an iovec. */
static long writev_whole(struct file *file, const struct linux_iovec *iov, int count)
{
    uint64_t total = 0;
    for (int i = 0; i < count; i++)
        total += iov[i].length;         /* check_iovecs bounded the sum */
    if (total == 0 || total > file->ops->whole_write_max)
        return -EINVAL;
    char *buffer = kmalloc(total);
    if (!buffer)
        return -ENOMEM;
    long result = 0;
    for (size_t i = 0, done = 0; i < (size_t)count && !result; done += iov[i].length, i++)
        if (copy_from_user(buffer + done, (const void *)(uintptr_t)iov[i].base, iov[i].length) < 0)
            result = -EFAULT;
    if (!result)
        result = vfs_write(file, buffer, total);
    kfree(buffer);
    return result;
}

/* readv and writev: each piece in turn, stopping at the first short one. */
static long vector_io(int fd, const struct linux_iovec *user_iov, int count, bool write)
{
    struct file *file = file_of(fd);
    if (!file)
        return -EBADF;
    long result = (write ? can_write(file) : can_read(file)) ? 0 : -EBADF;
    if (!result && (count < 0 || count > IOV_MAX))
        result = -EINVAL;
    struct linux_iovec *iov = result ? NULL : kmalloc(sizeof(*iov) * (count ? (size_t)count : 1));
    if (!result && !iov)
        result = -ENOMEM;
    if (!result && copy_from_user(iov, user_iov, sizeof(*iov) * (size_t)count) < 0)
        result = -EFAULT;
    if (!result)
        result = check_iovecs(iov, count);
    if (!result && write && file->ops->whole_write_max) {
        result = writev_whole(file, iov, count);
        kfree(iov);
        vfs_close(file);
        return result;
    }
    size_t done = 0;
    for (int i = 0; i < count && !result && !(done && signal_fatal_pending()); i++) {
        char *base = (char *)(uintptr_t)iov[i].base;
        long moved =
            write ? write_from_user(file, base, iov[i].length) : read_to_user(file, base, iov[i].length);
        if (moved < 0) {
            result = done ? 0 : moved;
            break;
        }
        done += (size_t)moved;
        if ((uint64_t)moved < iov[i].length)
            break;
    }
    kfree(iov);
    vfs_close(file);
    return result < 0 ? result : (long)done;
}

SYSCALL_DEFINE3(readv, int, fd, const struct linux_iovec *, user_iov, int, count)
{
    return vector_io(fd, user_iov, count, false);
}

SYSCALL_DEFINE3(writev, int, fd, const struct linux_iovec *, user_iov, int, count)
{
    return vector_io(fd, user_iov, count, true);
}

/* pread64 and pwrite64: read and write at offset, through a copy of the
 * open file, so that the position that dup and fork share does not move.
 * Linux's order: a negative offset, the descriptor, a file without a
 * position (a pipe or a device: ESPIPE, as lseek), the access mode, then
 * a range that runs past the largest offset (EINVAL). With O_APPEND a
 * write appends, as on Linux. 0 with *file held (vfs_close it) and
 * *at_offset ready, or an error and nothing held. */
static long file_at(int fd, int64_t offset, const void *user_buffer, size_t count, bool write, struct file **file,
                    struct file *at_offset)
{
    if (offset < 0)
        return -EINVAL;
    *file = file_of(fd);
    if (!*file)
        return -EBADF;
    *at_offset = **file;
    long result = vfs_seek(at_offset, offset, SEEK_SET);
    if (result >= 0 && !(write ? can_write(*file) : can_read(*file)))
        result = -EBADF;
    else if (result >= 0 && user_range_ok(user_buffer, count) && count > (uint64_t)(INT64_MAX - offset))
        result = -EINVAL;
    if (result < 0) {
        vfs_close(*file);
        return result;
    }
    return 0;
}

SYSCALL_DEFINE4(pread64, int, fd, void *, user_buffer, size_t, count, int64_t, offset)
{
    struct file *file, at_offset;
    long result = file_at(fd, offset, user_buffer, count, false, &file, &at_offset);
    if (result)
        return result;
    result = read_to_user(&at_offset, user_buffer, count);
    vfs_close(file);
    return result;
}

SYSCALL_DEFINE4(pwrite64, int, fd, const void *, user_buffer, size_t, count, int64_t, offset)
{
    struct file *file, at_offset;
    long result = file_at(fd, offset, user_buffer, count, true, &file, &at_offset);
    if (result)
        return result;
    result = write_from_user(&at_offset, user_buffer, count);
    vfs_close(file);
    return result;
}

#define SEEK_DATA 3
#define SEEK_HOLE 4

/* SEEK_DATA and SEEK_HOLE: a ramfs file has no holes, so its data is
 * everything before its end and its only hole is the end. */
static long seek_data_or_hole(struct file *file, int64_t offset, int whence)
{
    long size = vfs_file_size(file);
    if (size < 0)
        return vfs_seek(file, offset, whence);  /* not a regular file: its own answer */
    if (offset < 0 || offset >= size)
        return -ENXIO;
    return vfs_seek(file, whence == SEEK_DATA ? offset : size, SEEK_SET);
}

SYSCALL_DEFINE3(lseek, int, fd, int64_t, offset, int, whence)
{
    struct file *file = file_of(fd);
    if (!file)
        return -EBADF;
    long result = whence == SEEK_DATA || whence == SEEK_HOLE ? seek_data_or_hole(file, offset, whence)
                                                             : vfs_seek(file, offset, whence);
    vfs_close(file);
    return result;
}
