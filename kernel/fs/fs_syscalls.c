/* What the file system calls share: the current process's descriptors
 * and working directory, a descriptor's open file, a new descriptor below
 * the process's RLIMIT_NOFILE, a path copied from user memory and the
 * directory an *at() path starts from. The calls are in read_write.c,
 * open.c, fcntl.c, stat.c, readdir.c, names.c and pipe.c. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/fs/fs_syscalls.h"
#include "kernel/lib/errno.h"
#include "kernel/mm/fault_inject.h"
#include "kernel/mm/heap.h"
#include "kernel/process/process.h"
#include "kernel/lib/string.h"
#include "kernel/mm/uaccess.h"
#include "kernel/fs/vfs.h"

struct fd_table *current_files(void)
{
    struct process *process = current_process();
    return process ? process->files : NULL;
}


struct file *file_of(int fd)
{
    return fd_get(current_files(), fd);
}

#define RLIMIT_NOFILE 7

/* The first fd number a process may not use: its RLIMIT_NOFILE, at most
 * the table's size. */
int descriptor_limit(void)
{
    struct process *process = current_process();
    uint64_t limit = process ? process->rlimits[RLIMIT_NOFILE].current : FD_MAX;
    return limit < FD_MAX ? (int)limit : FD_MAX;
}

/* The lowest free fd >= lowest, below the limit, or -EMFILE (the caller
 * keeps its reference to file then). */
int install_below_limit(struct fd_table *table, int lowest, struct file *file, bool close_on_exec)
{
    if (fault_inject_should_fail())
        return -EMFILE;         /* as if it were full */
    return fd_install_below(table, lowest, descriptor_limit(), file, close_on_exec);
}

long install_pair(struct fd_table *table, struct file *ends[2], bool close_on_exec, int *user_fds)
{
    int fds[2] = { install_below_limit(table, 0, ends[0], close_on_exec), -1 };
    if (fds[0] >= 0)
        fds[1] = install_below_limit(table, 0, ends[1], close_on_exec);
    long result = fds[0] < 0 ? fds[0] : fds[1] < 0 ? fds[1] : 0;
    if (!result && copy_to_user(user_fds, fds, sizeof(fds)) < 0)
        result = -EFAULT;
    if (result) {
        /* Undo: the fds were never reported, so nobody can have used them. */
        if (fds[0] >= 0)
            fd_detach(table, fds[0]);
        if (fds[1] >= 0)
            fd_detach(table, fds[1]);
        vfs_close(ends[0]);
        vfs_close(ends[1]);
    }
    return result;
}

/* A path from user memory, in a kmalloc'd PATH_MAX buffer (kernel stacks
 * are small), or NULL with *error set. */
char *path_from_user(const char *user_path, long *error)
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
long start_directory(int dirfd, const char *path, struct file **holder, struct inode **start)
{
    *holder = NULL;
    *start = NULL;
    if (path[0] == '/' || dirfd == AT_FDCWD) {
        *start = vfs_cwd_get(current_process());
        return 0;
    }
    *holder = file_of(dirfd);
    if (!*holder)
        return -EBADF;
    *start = (*holder)->inode;
    return 0;
}

void start_directory_put(struct file *holder, struct inode *start)
{
    if (holder)
        vfs_close(holder);
    else if (start)
        inode_put(start);
}

void at_path_put(struct at_path *at)
{
    start_directory_put(at->holder, at->start);
    kfree(at->path);
}

/* 0 with *at ready (release it with at_path_put), or an error and nothing held. */
long at_path_get(int dirfd, const char *user_path, struct at_path *at)
{
    long error;
    at->holder = NULL;
    at->start = NULL;
    at->path = path_from_user(user_path, &error);
    if (!at->path)
        return error;
    error = start_directory(dirfd, at->path, &at->holder, &at->start);
    if (error)
        at_path_put(at);
    return error;
}

