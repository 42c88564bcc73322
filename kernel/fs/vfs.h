/* The virtual file system: one tree of inodes in memory (the initramfs is
 * unpacked into it at boot and it is writable, like Linux's rootfs), device
 * nodes and generated files (procfs) hanging from it, open files, and each
 * process's file descriptor table. File operations take kernel buffers: the
 * system calls (kernel/fs/fs_syscalls.h) copy to and from user memory.
 *
 * Inodes are opaque outside the VFS's own files (kernel/fs/vfs_internal.h
 * lists them): everything else names them by path, or holds one through an
 * open file or a working directory. */
#ifndef KERNEL_VFS_H
#define KERNEL_VFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/lib/linux_abi.h"

#define PATH_MAX          4096 /* NUL included */
#define NAME_MAX          255
#define SYMLINK_MAX       40 /* symlinks followed in one lookup, as Linux's MAXSYMLINKS */

struct inode;
struct file;

struct file_ops {
    /* Optional: called once when the file is opened (a generated file
     * builds its content here); a negative errno fails the open. */
    int (*open)(struct file *file);
    /* Both use and advance file->position (when the file is seekable). */
    long (*read)(struct file *file, void *buffer, size_t count);
    long (*write)(struct file *file, const void *buffer, size_t count);
    /* arg is passed through from the system call: a user pointer for most
     * requests, to be used with copy_from_user/copy_to_user. */
    long (*ioctl)(struct file *file, unsigned long request, unsigned long arg);
    void (*release)(struct file *file);
    /* Optional: POLLIN, POLLOUT, POLLHUP, POLLERR now (kernel/fs/poll.h);
     * without it, always ready for both. Must not sleep. */
    unsigned (*poll)(struct file *file);
    /* Only for a generated symlink (/proc/self, /proc/PID/exe): the target
     * for the calling process, given the inode's private word: written
     * into scratch (size bytes, no NUL needed), or a string that stays put
     * for the rest of the system call; its length in *length, 0 for none
     * (ENOENT). Called with the VFS lock held: must not sleep. */
    const char *(*link_target)(void *private, char *scratch, size_t size, size_t *length);
    /* Nonzero for a file that acts on a whole value (/proc): write(2)
     * hands .write all its bytes in one call, or refuses them all: EINVAL
     * for none or more than this many, EFAULT if any cannot be read;
     * writev's pieces make one such write. Else a write comes in pieces
     * (kernel/fs/read_write.c). */
    size_t whole_write_max;
};

struct file {
    struct inode *inode;
    const struct file_ops *ops;
    unsigned flags; /* O_ACCMODE bits, O_APPEND, O_NONBLOCK */
    uint64_t position;
    unsigned references; /* dup() and fork() share a struct file; atomic */
    void *private;       /* the device's, given to vfs_create_device */
    /* A directory's listing: the last name getdents gave and the position
     * after it, so that the next call resumes after that name. */
    char *listed_name;   /* NAME_MAX + 1 bytes, or NULL before the first */
    uint64_t listed_position;
};

/* The most descriptors a process can have, whatever its RLIMIT_NOFILE:
 * Linux's default hard limit (its nr_open, the ceiling, is far higher).
 * A table grows to it on demand (kernel/fs/fd.c). */
#define FD_MAX 4096
/* RLIMIT_NOFILE's default, soft and hard, as Linux 6.1 gives init. */
#define FD_LIMIT_DEFAULT 1024

/* Setup: the empty root, then the initramfs (a cpio "newc" archive). */
void vfs_init(void);
int initramfs_unpack(const void *archive, size_t length); /* 0, -EINVAL or -ENOMEM */

/* No system call may add, remove or move a name under this directory
 * (procfs_init() seals /proc). */
void vfs_seal(const char *path);

/* Device nodes and generated files, for drivers (e.g. /dev/console).
 * Missing parent directories are created; mode without type bits means
 * S_IFCHR; S_IFDIR makes an empty directory (ops NULL). */
int vfs_create_device(const char *path, uint32_t mode, const struct file_ops *ops, void *private);

/* An open file on an inode in no directory, gone with its last close. */
struct file *vfs_open_anonymous(uint32_t mode, const struct file_ops *ops, void *private, unsigned flags,
                                long *error);

/* Pipes (kernel/fs/pipe.c): two open files, O_RDONLY and O_WRONLY; flags may
 * hold O_NONBLOCK. 0 or -ENOMEM. */
int pipe_create(struct file **read_end, struct file **write_end, int flags);
/* Two connected byte-stream ends, each reading what the other writes
 * (socketpair); flags O_NONBLOCK or 0. 0 or -ENOMEM. */
int stream_pair_create(struct file **first, struct file **second, int flags);


/* Kernel-side access, for execve and init: open by path (relative to the
 * current process's working directory), read, close. */
struct file *vfs_open(const char *path, int flags, uint32_t mode, long *error);
long vfs_read(struct file *file, void *buffer, size_t count);
void vfs_close(struct file *file); /* drops one reference */
long vfs_file_size(struct file *file);
bool vfs_is_dev_zero(struct file *file);   /* its MAP_SHARED mapping is anonymous */
bool vfs_is_executable(struct file *file);
bool vfs_is_generated(struct file *file);   /* a device's or /proc's, /sys's: its ops make its text */
/* The physical page that holds bytes [index * 4096, + 4096) of a regular
 * file of the tree, with a holder taken for the caller (page_put), or 0
 * for a hole or past the end; -ENODEV for a device or generated file.
 * A later write to the file copies the page first: the caller's view of
 * it never changes (execve maps it; kernel/fs/ramfs.c). */
int vfs_file_page(struct file *file, uint64_t index, uint64_t *page);
/* The same for a MAP_SHARED mapping: a hole gets its page now, and from
 * then on writes to the file go into its pages in place, so the mapping
 * and the file stay one. */
int vfs_file_page_shared(struct file *file, uint64_t index, uint64_t *page);
/* ftruncate's: a regular file of the tree to length; -EINVAL for any
 * other, -EFBIG past the largest file, -ENOMEM with nothing changed. */
int vfs_truncate(struct file *file, uint64_t length);

/* Open files, for the system calls. */
struct file *vfs_file_get(struct file *file); /* one more reference */
long vfs_write(struct file *file, const void *buffer, size_t count);
long vfs_seek(struct file *file, int64_t offset, int whence);
void vfs_stat_file(struct file *file, struct linux_stat *out);
void vfs_statfs_file(struct file *file, struct linux_statfs *out);
long vfs_getdents(struct file *file, void *buffer, size_t size); /* linux_dirent64 records */

/* Inodes held by processes (their working directory). */
struct inode *vfs_root(void);
void inode_get(struct inode *inode);
void inode_put(struct inode *inode);
/* A process's working directory with a reference the caller puts
 * (inode_put): a sibling thread's chdir may drop the process's own at any
 * moment. NULL if it has none. */
struct process;
struct inode *vfs_cwd_get(struct process *process);
/* Makes directory (whose reference the process takes over) the working
 * directory and puts the old one. */
void vfs_cwd_set(struct process *process, struct inode *directory);

/* Operations by path. A relative path starts at `start`, a directory
 * (NULL means the root); an absolute one ignores it. `mode` is used as
 * given: the caller applies the umask. */
struct file *vfs_open_at(struct inode *start, const char *path, int flags, uint32_t mode, long *error);
int vfs_stat_at(struct inode *start, const char *path, bool follow, struct linux_stat *out);
int vfs_statfs_at(struct inode *start, const char *path, struct linux_statfs *out);
long vfs_readlink_at(struct inode *start, const char *path, char *buffer, size_t size);
int vfs_mkdir_at(struct inode *start, const char *path, uint32_t mode);
int vfs_unlink_at(struct inode *start, const char *path, bool directory); /* directory: rmdir */
int vfs_access_at(struct inode *start, const char *path, int mode);       /* F_OK, R_OK, W_OK, X_OK */
int vfs_symlink_at(struct inode *start, const char *path, const char *target);
int vfs_rename_at(struct inode *old_start, const char *old_path, struct inode *new_start, const char *new_path);
int vfs_chmod_at(struct inode *start, const char *path, uint32_t mode);   /* permission bits only */
void vfs_chmod_file(struct file *file, uint32_t mode);
/* Remove path and, if it is a directory, everything under it (procfs's
 * per-process directories). */
int vfs_remove_tree(const char *path);
int vfs_lookup_directory(struct inode *start, const char *path, struct inode **out); /* referenced */
long vfs_getcwd(struct inode *cwd, char *buffer, size_t size); /* length with the NUL, or -ERANGE */
/* The absolute path of any inode, as vfs_getcwd: -ENOENT once unlinked. */
long vfs_inode_path(struct inode *inode, char *buffer, size_t size);
long vfs_file_path(struct file *file, char *buffer, size_t size);   /* of an open file's inode, as above */

/* File descriptor tables. */
struct fd_table *fd_table_create(void);
struct fd_table *fd_table_clone(struct fd_table *table); /* fork */
void fd_table_close_on_exec(struct fd_table *table);     /* execve */
void fd_table_destroy(struct fd_table *table);           /* exit */
/* Lowest free fd; the table takes over the caller's reference. -EMFILE. */
int fd_install(struct fd_table *table, struct file *file, bool close_on_exec);
/* The file at fd with a reference the caller drops with vfs_close, or NULL. */
struct file *fd_get(struct fd_table *table, int fd);
/* For dup and fcntl: the lowest free fd >= lowest (-EMFILE); put a file
 * at fd, giving the one it replaces for the caller to close; take a file
 * out (NULL if none); the close-on-exec flag. */
int fd_install_from(struct fd_table *table, int lowest, struct file *file, bool close_on_exec);
/* The same below limit (at most FD_MAX): -EMFILE at the limit, -ENOMEM
 * if the table cannot grow. */
int fd_install_below(struct fd_table *table, int lowest, int limit, struct file *file, bool close_on_exec);
/* 0 (*replaced is the file that was at fd, or NULL), -EBADF beyond
 * FD_MAX, or -ENOMEM if the table cannot grow to fd. */
int fd_install_at(struct fd_table *table, int fd, struct file *file, bool close_on_exec, struct file **replaced);
struct file *fd_detach(struct fd_table *table, int fd);
int fd_lowest_free(struct fd_table *table);     /* the table's size if full (it can grow) */
bool fd_close_on_exec(struct fd_table *table, int fd);
int fd_set_close_on_exec(struct fd_table *table, int fd, bool close_on_exec); /* 0 or -EBADF */

#endif
