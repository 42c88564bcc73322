/* The file system calls, with Linux's arguments, semantics and errno
 * values. They take user pointers, copy through kernel/mm/uaccess.h, and work
 * on the current process's descriptor table and working directory. Each
 * registers itself (SYSCALL_DEFINE, kernel/entry/syscall.h) in the file of
 * its concern; here is what they share (kernel/fs/fs_syscalls.c), and the
 * calls tests/host/test_vfs.c makes directly. */
#ifndef KERNEL_FS_SYSCALLS_H
#define KERNEL_FS_SYSCALLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/lib/linux_abi.h"

struct fd_table;
struct file;
struct inode;

/* Data moves between user memory and a file through a kernel buffer of
 * at most this many bytes. */
#define IO_CHUNK 4096

struct fd_table *current_files(void);
struct file *file_of(int fd);       /* a reference (vfs_close it), or NULL */
int descriptor_limit(void);
int install_below_limit(struct fd_table *table, int lowest, struct file *file, bool close_on_exec);
/* pipe2's and socketpair's ending: both files installed and their
 * descriptors copied to user_fds, or neither (both files closed). */
long install_pair(struct fd_table *table, struct file *ends[2], bool close_on_exec, int *user_fds);
char *path_from_user(const char *user_path, long *error);
long start_directory(int dirfd, const char *path, struct file **holder, struct inode **start);
void start_directory_put(struct file *holder, struct inode *start);   /* what start_directory took */

/* The path of an *at() call, copied in, and the directory it starts from. */
struct at_path {
    char *path;
    struct file *holder;
    struct inode *start;
};

long at_path_get(int dirfd, const char *user_path, struct at_path *at);
void at_path_put(struct at_path *at);

struct linux_iovec {
    uint64_t base; /* user pointer */
    uint64_t length;
};

long sys_read(int fd, void *user_buffer, size_t count);
long sys_write(int fd, const void *user_buffer, size_t count);
long sys_readv(int fd, const struct linux_iovec *user_iov, int count);
long sys_writev(int fd, const struct linux_iovec *user_iov, int count);
long sys_openat(int dirfd, const char *user_path, int flags, uint32_t mode);
long sys_open(const char *user_path, int flags, uint32_t mode);
long sys_close(int fd);
long sys_lseek(int fd, int64_t offset, int whence);
long sys_fstat(int fd, struct linux_stat *user_stat);
long sys_statfs(const char *user_path, struct linux_statfs *user_buffer);
long sys_fstatfs(int fd, struct linux_statfs *user_buffer);
long sys_newfstatat(int dirfd, const char *user_path, struct linux_stat *user_stat, int flags);
long sys_stat(const char *user_path, struct linux_stat *user_stat);
long sys_lstat(const char *user_path, struct linux_stat *user_stat);
long sys_getdents64(int fd, void *user_buffer, unsigned int size);
long sys_readlink(const char *user_path, char *user_buffer, int size);
long sys_dup(int fd);
long sys_dup2(int old_fd, int new_fd);
long sys_dup3(int old_fd, int new_fd, int flags);
long sys_fcntl(int fd, int command, unsigned long argument);
long sys_ioctl(int fd, unsigned long request, unsigned long argument);
long sys_getcwd(char *user_buffer, size_t size);
long sys_chdir(const char *user_path);
long sys_mkdirat(int dirfd, const char *user_path, uint32_t mode);
long sys_mkdir(const char *user_path, uint32_t mode);
long sys_unlinkat(int dirfd, const char *user_path, int flags);
long sys_unlink(const char *user_path);
long sys_rmdir(const char *user_path);
long sys_faccessat(int dirfd, const char *user_path, int mode);
long sys_access(const char *user_path, int mode);

#endif
