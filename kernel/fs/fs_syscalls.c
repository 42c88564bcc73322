/* The file system calls: argument checks, user memory, descriptors. The
 * work itself is done by the VFS (kernel/fs/vfs.h) on kernel buffers.
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
 * Left out: O_PATH, O_TMPFILE, faccessat2's flags, fchdir, chown, utimes,
 * pread/pwrite, truncate (open with O_TRUNC works), hard links. */
#include "kernel/entry/syscall.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/fs/fs_syscalls.h"
#include "kernel/console/console.h"
#include "kernel/lib/errno.h"
#include "kernel/mm/fault_inject.h"
#include "kernel/mm/heap.h"
#include "kernel/process/process.h"
#include "kernel/process/signal.h"
#include "kernel/lib/string.h"
#include "kernel/mm/uaccess.h"
#include "kernel/fs/vfs.h"

#define IO_CHUNK         4096
#define IO_COUNT_MAX     0x7ffff000ul /* Linux's MAX_RW_COUNT: longer I/O is shortened */
#define IOV_MAX          1024
#define AT_REMOVEDIR     0x200
#define ACCESS_MODE_BITS 7 /* R_OK | W_OK | X_OK */
#define MODE_STICKY      01000

static struct fd_table *current_files(void)
{
    struct process *process = current_process();
    return process ? process->files : NULL;
}

static struct inode *current_cwd(void)
{
    struct process *process = current_process();
    return process ? process->cwd : NULL;
}

static struct file *file_of(int fd)
{
    return fd_get(current_files(), fd);
}

#define RLIMIT_NOFILE 7

/* The first fd number a process may not use: its RLIMIT_NOFILE, at most
 * the table's size. */
static int descriptor_limit(void)
{
    struct process *process = current_process();
    uint64_t limit = process ? process->rlimits[RLIMIT_NOFILE].current : FD_MAX;
    return limit < FD_MAX ? (int)limit : FD_MAX;
}

/* The lowest free fd >= lowest, below the limit, or -EMFILE (the caller
 * keeps its reference to file then). */
static int install_below_limit(struct fd_table *table, int lowest, struct file *file, bool close_on_exec)
{
    if (fault_inject_should_fail())
        return -EMFILE;         /* a slot of a fixed table: as if it were full */
    int fd = fd_install_from(table, lowest, file, close_on_exec);
    if (fd >= descriptor_limit()) {
        fd_detach(table, fd);
        return -EMFILE;
    }
    return fd;
}

/* A path from user memory, in a kmalloc'd PATH_MAX buffer (kernel stacks
 * are small), or NULL with *error set. */
static char *path_from_user(const char *user_path, long *error)
{
    char *path = kmalloc(PATH_MAX);
    if (!path) {
        *error = -ENOMEM;
        return NULL;
    }
    long length = strncpy_from_user(path, user_path, PATH_MAX);
    if (length < 0) {
        kfree(path);
        *error = length;
        return NULL;
    }
    *error = 0;
    return path;
}

/* Where a relative path starts for an *at() call: the working directory,
 * or the directory open at dirfd (held through *holder while in use). An
 * absolute path ignores dirfd, even a bad one, as on Linux. */
static long start_directory(int dirfd, const char *path, struct file **holder, struct inode **start)
{
    *holder = NULL;
    *start = current_cwd();
    if (path[0] == '/' || dirfd == AT_FDCWD)
        return 0;
    *holder = file_of(dirfd);
    if (!*holder)
        return -EBADF;
    *start = (*holder)->inode;
    return 0;
}

/* The path of an *at() call, copied in, and the directory it starts from. */
struct at_path {
    char *path;
    struct file *holder;
    struct inode *start;
};

static void at_path_put(struct at_path *at)
{
    if (at->holder)
        vfs_close(at->holder);
    kfree(at->path);
}

/* 0 with *at ready (release it with at_path_put), or an error and nothing held. */
static long at_path_get(int dirfd, const char *user_path, struct at_path *at)
{
    long error;
    at->holder = NULL;
    at->path = path_from_user(user_path, &error);
    if (!at->path)
        return error;
    error = start_directory(dirfd, at->path, &at->holder, &at->start);
    if (error)
        at_path_put(at);
    return error;
}

/* ---- Reading and writing ---- */

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
 * consumed. */
static long read_nothing_fits(struct file *file)
{
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

/* ---- Opening and closing ---- */

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
    int fd = fd_install_from(table, 0, file, flags & O_CLOEXEC);
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
    struct file *replaced = fd_install_at(current_files(), new_fd, file, flags & O_CLOEXEC);
    if (replaced)
        vfs_close(replaced);
    return new_fd;
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

/* ---- Metadata ---- */

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
    if (holder)
        vfs_close(holder);
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
    if (holder)
        vfs_close(holder);
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
    struct inode *start;
    long result = target ? start_directory(dirfd, path, &holder, &start) : -ENOMEM;
    if (!result)
        result = vfs_readlink_at(start, path, target, room);
    if (result > 0 && copy_to_user(user_buffer, target, (size_t)result) < 0)
        result = -EFAULT;
    if (holder)
        vfs_close(holder);
    kfree(target);
    kfree(path);
    return result;
}

SYSCALL_DEFINE3(readlink, const char *, user_path, char *, user_buffer, int, size)
{
    return sys_readlinkat(AT_FDCWD, user_path, user_buffer, size);
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

/* ---- Directories ---- */

SYSCALL_DEFINE2(getcwd, char *, user_buffer, size_t, size)
{
    size_t room = size < PATH_MAX ? size : PATH_MAX;
    char *buffer = kmalloc(room ? room : 1);
    if (!buffer)
        return -ENOMEM;
    long result = vfs_getcwd(current_cwd(), buffer, room);
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
    struct inode *directory;
    error = vfs_lookup_directory(process->cwd, path, &directory);
    kfree(path);
    if (error)
        return error;
    struct inode *old = process->cwd;
    process->cwd = directory;
    if (old)
        inode_put(old);
    return 0;
}

SYSCALL_DEFINE3(mkdirat, int, dirfd, const char *, user_path, uint32_t, mode)
{
    struct at_path at;
    long error = at_path_get(dirfd, user_path, &at);
    if (error)
        return error;
    struct process *process = current_process();
    uint32_t umask = process ? process->umask : 0;
    error = vfs_mkdir_at(at.start, at.path, mode & ~umask & (0777 | MODE_STICKY));   /* no set-id bits, as Linux */
    at_path_put(&at);
    return error;
}

SYSCALL_DEFINE2(mkdir, const char *, user_path, uint32_t, mode)
{
    return sys_mkdirat(AT_FDCWD, user_path, mode);
}

SYSCALL_DEFINE3(unlinkat, int, dirfd, const char *, user_path, int, flags)
{
    if (flags & ~AT_REMOVEDIR)
        return -EINVAL;
    struct at_path at;
    long error = at_path_get(dirfd, user_path, &at);
    if (error)
        return error;
    error = vfs_unlink_at(at.start, at.path, flags & AT_REMOVEDIR);
    at_path_put(&at);
    return error;
}

SYSCALL_DEFINE1(unlink, const char *, user_path)
{
    return sys_unlinkat(AT_FDCWD, user_path, 0);
}

SYSCALL_DEFINE1(rmdir, const char *, user_path)
{
    return sys_unlinkat(AT_FDCWD, user_path, AT_REMOVEDIR);
}

/* ---- Pipes ---- */

SYSCALL_DEFINE2(pipe2, int *, user_fds, int, flags)
{
    if (flags & ~(O_CLOEXEC | O_NONBLOCK))
        return -EINVAL; /* O_DIRECT (packet mode) is left out */
    struct fd_table *table = current_files();
    if (!table)
        return -EBADF;
    struct file *read_end, *write_end;
    int error = pipe_create(&read_end, &write_end, flags & O_NONBLOCK);
    if (error)
        return error;
    bool close_on_exec = flags & O_CLOEXEC;
    int fds[2] = { install_below_limit(table, 0, read_end, close_on_exec), -1 };
    if (fds[0] >= 0)
        fds[1] = install_below_limit(table, 0, write_end, close_on_exec);
    long result = fds[0] < 0 ? fds[0] : fds[1] < 0 ? fds[1] : 0;
    if (!result && copy_to_user(user_fds, fds, sizeof(fds)) < 0)
        result = -EFAULT;
    if (result) {
        /* Undo: the fds were never reported, so nobody can have used them. */
        if (fds[0] >= 0)
            fd_detach(table, fds[0]);
        if (fds[1] >= 0)
            fd_detach(table, fds[1]);
        vfs_close(read_end);
        vfs_close(write_end);
    }
    return result;
}

SYSCALL_DEFINE1(pipe, int *, user_fds)
{
    return sys_pipe2(user_fds, 0);
}

/* ---- Names and modes: rename, link, symlink, chmod ---- */

#define RENAME_NOREPLACE 1
#define RENAME_EXCHANGE  2

SYSCALL_DEFINE5(renameat2, int, old_dirfd, const char *, user_old, int, new_dirfd, const char *, user_new,
               unsigned, flags)
{
    if (flags & ~(unsigned)RENAME_NOREPLACE)
        return -EINVAL;     /* RENAME_EXCHANGE and RENAME_WHITEOUT are left out */
    struct at_path from, to;
    long error = at_path_get(old_dirfd, user_old, &from);
    if (error)
        return error;
    error = at_path_get(new_dirfd, user_new, &to);
    if (error) {
        at_path_put(&from);
        return error;
    }
    struct linux_stat existing;
    if ((flags & RENAME_NOREPLACE) && vfs_stat_at(to.start, to.path, false, &existing) == 0)
        error = -EEXIST;
    else
        error = vfs_rename_at(from.start, from.path, to.start, to.path);
    at_path_put(&to);
    at_path_put(&from);
    return error;
}

SYSCALL_DEFINE2(rename, const char *, user_old, const char *, user_new)
{
    return sys_renameat2(AT_FDCWD, user_old, AT_FDCWD, user_new, 0);
}

SYSCALL_DEFINE4(renameat, int, old_dirfd, const char *, user_old, int, new_dirfd, const char *, user_new)
{
    return sys_renameat2(old_dirfd, user_old, new_dirfd, user_new, 0);
}

/* Could a name be made at path: is its directory there? 0, or the error
 * Linux gives for a new name (ENOENT, ENOTDIR, ENAMETOOLONG). */
static long new_name_possible(struct inode *start, const char *path)
{
    size_t length = strlen(path);
    if (length == 0)
        return -ENOENT;
    while (length > 1 && path[length - 1] == '/')
        length--;
    while (length > 0 && path[length - 1] != '/')
        length--;   /* the directory part, with its slash */
    char *directory = kmalloc(length + 2);
    if (!directory)
        return -ENOMEM;
    memcpy(directory, length ? path : ".", length ? length : 1);
    directory[length ? length : 1] = '\0';
    struct inode *inode;
    long error = vfs_lookup_directory(start, directory, &inode);
    if (!error)
        inode_put(inode);
    kfree(directory);
    return error;
}

/* The file tree has no hard links (an inode lives in one directory), so
 * link() checks its arguments as Linux does and then answers EPERM, the
 * error of a file system that does not support them. */
SYSCALL_DEFINE5(linkat, int, old_dirfd, const char *, user_old, int, new_dirfd, const char *, user_new, int, flags)
{
    if (flags & ~(AT_SYMLINK_FOLLOW | AT_EMPTY_PATH))
        return -EINVAL;
    struct at_path from, to;
    long error = at_path_get(old_dirfd, user_old, &from);
    if (error)
        return error;
    error = at_path_get(new_dirfd, user_new, &to);
    if (error) {
        at_path_put(&from);
        return error;
    }
    struct linux_stat old_stat, new_stat;
    error = vfs_stat_at(from.start, from.path, flags & AT_SYMLINK_FOLLOW, &old_stat);
    if (!error && (old_stat.st_mode & S_IFMT) == S_IFDIR)
        error = -EPERM;
    else if (!error && vfs_stat_at(to.start, to.path, false, &new_stat) == 0)
        error = -EEXIST;
    else if (!error)
        error = new_name_possible(to.start, to.path);
    if (!error)
        error = -EPERM;
    at_path_put(&to);
    at_path_put(&from);
    return error;
}

SYSCALL_DEFINE2(link, const char *, user_old, const char *, user_new)
{
    return sys_linkat(AT_FDCWD, user_old, AT_FDCWD, user_new, 0);
}

SYSCALL_DEFINE3(symlinkat, const char *, user_target, int, new_dirfd, const char *, user_path)
{
    long error;
    char *target = path_from_user(user_target, &error);
    if (!target)
        return error;
    struct at_path at;
    error = at_path_get(new_dirfd, user_path, &at);
    if (!error) {
        error = vfs_symlink_at(at.start, at.path, target);
        at_path_put(&at);
    }
    kfree(target);
    return error;
}

SYSCALL_DEFINE2(symlink, const char *, user_target, const char *, user_path)
{
    return sys_symlinkat(user_target, AT_FDCWD, user_path);
}

/* Linux's fchmodat takes no flags (fchmodat2 does, and is left out): the
 * system call passes 0. */
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
