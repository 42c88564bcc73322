/* Names in the tree: mkdirat and mkdir, unlinkat, unlink and rmdir,
 * renameat2, renameat and rename, linkat and link, symlinkat and symlink
 * (kernel/fs/directory.c makes and removes them).
 *
 * Left out: hard links (link() checks its arguments, then EPERM). */
#include "kernel/entry/syscall.h"
#include "kernel/fs/fs_syscalls.h"

#include "kernel/lib/errno.h"
#include "kernel/mm/heap.h"
#include "kernel/process/process.h"
#include "kernel/lib/string.h"
#include "kernel/fs/vfs.h"

#define AT_REMOVEDIR     0x200
#define MODE_STICKY      01000

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

/* Both names of a rename or a link, or neither (the first put back). */
static long at_path_get_pair(int old_dirfd, const char *user_old, struct at_path *from,
                             int new_dirfd, const char *user_new, struct at_path *to)
{
    long error = at_path_get(old_dirfd, user_old, from);
    if (error)
        return error;
    error = at_path_get(new_dirfd, user_new, to);
    if (error)
        at_path_put(from);
    return error;
}

#define RENAME_NOREPLACE 1
#define RENAME_EXCHANGE  2

SYSCALL_DEFINE5(renameat2, int, old_dirfd, const char *, user_old, int, new_dirfd, const char *, user_new,
               unsigned, flags)
{
    if (flags & ~(unsigned)RENAME_NOREPLACE)
        return -EINVAL;     /* RENAME_EXCHANGE and RENAME_WHITEOUT are left out */
    struct at_path from, to;
    long error = at_path_get_pair(old_dirfd, user_old, &from, new_dirfd, user_new, &to);
    if (error)
        return error;
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
    long error = at_path_get_pair(old_dirfd, user_old, &from, new_dirfd, user_new, &to);
    if (error)
        return error;
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
