/* What the files of the VFS share and nothing else may use: the inode,
 * the lock, and the operations each file offers the others. The files:
 *
 *   kernel/fs/inode.c      inodes and the tree of names they form
 *   kernel/fs/namei.c      the path walk, and the lookups made by path
 *   kernel/fs/directory.c  changing names (mkdir, unlink, rename, ...) and listing
 *   kernel/fs/ramfs.c      the content of regular files
 *   kernel/fs/file.c       open files: open, close, read/write/seek dispatch
 *   kernel/fs/initramfs.c  the archive unpacked into the tree at boot
 *
 * Locking: one spinlock, vfs_lock, guards the whole tree, every inode's
 * fields and content, and the position of open ramfs files. Nothing here
 * sleeps, and the file system is small and mostly read, so one lock is
 * simple and enough. Spinlocks disable interrupts, so holds are kept short:
 * file data is copied in pieces of at most COPY_CHUNK bytes with the lock
 * dropped in between, buffers from initramfs_unpack are filled before the
 * lock is taken, and device operations (which may sleep: the console waits
 * for input) are called without it. User memory is never touched here: the
 * system calls bounce data through kernel buffers, because a page fault
 * must not happen with vfs_lock held. */
#ifndef KERNEL_FS_VFS_INTERNAL_H
#define KERNEL_FS_VFS_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/fs/vfs.h"
#include "kernel/base/spinlock.h"

struct inode {
    uint64_t number;
    uint32_t mode; /* S_IFMT type bits and permissions */
    uint32_t mtime;
    unsigned references;       /* open files and working directories */
    bool linked;               /* in a directory (the root always is) */
    struct inode *parent;      /* NULL once unlinked */
    struct inode *first_child; /* directories */
    struct inode *next_sibling;
    struct inode *hash_next; /* in its bucket of name_buckets: linked inodes but the root */
    size_t size;        /* of the content, or of the symlink target */
    uint64_t *pages;    /* regular file: one physical page per 4 KiB of content, 0 a hole */
    size_t page_slots;  /* entries in pages */
    char *target;       /* symlink: the target + NUL */
    const struct file_ops *ops; /* devices and generated files; else NULL */
    void *private;
    char *name; /* NUL-terminated, kmalloc'd: rename() replaces it */
    bool sealed; /* names under it are the kernel's (vfs_seal): /proc */
    bool shared_mapped; /* a MAP_SHARED mapping took its pages: writes go in place */
};

extern struct spinlock vfs_lock;
extern struct inode *root;

static inline bool is_type(const struct inode *inode, uint32_t type)
{
    return (inode->mode & S_IFMT) == type;
}

static inline bool is_directory(const struct inode *inode)
{
    return is_type(inode, S_IFDIR);
}

static inline bool is_dot_or_dotdot(const char *name, size_t length)
{
    return (length == 1 && name[0] == '.') || (length == 2 && name[0] == '.' && name[1] == '.');
}

/* kernel/fs/inode.c; all with vfs_lock held, but copy_name. */
char *copy_name(const char *name, size_t length); /* kmalloc'd, NUL-terminated */
struct inode *inode_new(const char *name, size_t name_length, uint32_t mode);
struct inode *find_child(const struct inode *directory, const char *name, size_t length);
void link_child(struct inode *directory, struct inode *child);
void detach_child(struct inode *child);       /* out of the tree, still allocated */
void unlink_child(struct inode *child);       /* out of the tree, freed if unused */
struct inode *create_child(struct inode *directory, const char *name, size_t length, uint32_t mode);
bool sealed(const struct inode *directory);   /* under a vfs_seal'd directory */
const struct inode *sealed_root(const struct inode *directory); /* that directory, or NULL */
bool in_sysfs(const struct inode *inode);     /* /sys or a name under it */
int new_name_refused(const struct inode *directory, bool by_open); /* 0, or why no name may be added there */
void stat_locked(const struct inode *inode, struct linux_stat *out);
void statfs_locked(const struct inode *inode, struct linux_statfs *out);    /* kernel/fs/mounts.c */

/* The last component of a path and the directory it is in. */
struct last_name {
    struct inode *directory;
    const char *name;
    size_t length; /* 0 for "/" (and "//"...): no last component */
    bool trailing_slash;
    unsigned links; /* followed on the way to directory */
};

/* kernel/fs/namei.c; vfs_lock held. A NULL start is the root. */
int walk_path(struct inode *start, const char *path, bool follow_last, struct inode **out);
int walk_parent(struct inode *start, const char *path, struct last_name *out);
int follow_last_link(const struct last_name *last, struct inode *link, struct inode **out);
int make_parents(const char *path, struct last_name *out); /* creating missing directories */

/* kernel/fs/ramfs.c: a regular file's pages, taken out of the inode
 * with vfs_lock held and given back after (a long file's page_puts are
 * not done with the lock held). */
struct file_pages {
    uint64_t *pages;
    size_t slots;
};
struct file_pages ramfs_take_pages(struct inode *inode); /* the file is empty after */
void ramfs_put_pages(struct file_pages pages);
/* The pages of size bytes at content, filled before vfs_lock is taken
 * (initramfs_unpack); -ENOMEM. */
int ramfs_fill_pages(const char *content, size_t size, struct file_pages *out);

/* What an open file of the tree's own does: kernel/fs/ramfs.c for a
 * regular file, kernel/fs/directory.c for a directory. */
extern const struct file_ops ramfs_file_ops;
extern const struct file_ops ramfs_directory_ops;

#endif
