/* The file tree: inodes in memory, path lookup, open files.
 *
 * Every inode lives in exactly one directory (there are no hard links), so
 * the tree is made of the inodes themselves: a directory points to its
 * first child, children to their next sibling (kept sorted by name, so a
 * listing comes out in a stable order), and each to its parent, which is
 * what ".." and getcwd() follow. A regular file's content is one kmalloc'd
 * buffer that grows by doubling; a symlink's target is a NUL-terminated
 * string in the same place. Devices and generated files carry a file_ops
 * table of their own, which open files use instead of the ramfs ones.
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
 * must not happen with vfs_lock held.
 *
 * Lifetime: an inode is freed when it is no longer in a directory and no
 * open file or working directory holds it (`references`), as on Unix: an
 * unlinked file stays readable through the descriptors open on it.
 *
 * Left out: hard links (a newc hard-link group becomes separate files, the
 * earlier ones empty; link() answers EPERM), owners and permission checks (everything
 * runs as root), timestamps other than the archive's mtime, device numbers
 * and device nodes from the archive (drivers create theirs with
 * vfs_create_device), and any limit on memory use but kmalloc failing. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/fs/vfs.h"
#include "arch/x86/cpu.h"
#include "kernel/fs/cpio.h"
#include "kernel/lib/errno.h"
#include "kernel/mm/heap.h"
#include "kernel/process/process.h"
#include "kernel/locking/spinlock.h"
#include "kernel/lib/string.h"

#define COPY_CHUNK    65536
#define FILE_SIZE_MAX (1ul << 30) /* a write past 1 GiB fails with -ENOSPC */

#define X_OK 1

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
    char *data; /* file content, or symlink target + NUL */
    size_t size, capacity;
    const struct file_ops *ops; /* devices and generated files; else NULL */
    void *private;
    char *name; /* NUL-terminated, kmalloc'd: rename() replaces it */
    bool sealed; /* names under it are the kernel's (vfs_seal): /proc */
};

static struct spinlock vfs_lock = SPINLOCK_INIT("vfs");
static struct inode *root;
static uint64_t next_inode_number = 1;

static const struct file_ops ramfs_file_ops;
static const struct file_ops ramfs_directory_ops;

static bool is_type(const struct inode *inode, uint32_t type)
{
    return (inode->mode & S_IFMT) == type;
}

static bool is_directory(const struct inode *inode)
{
    return is_type(inode, S_IFDIR);
}

static bool is_dot_or_dotdot(const char *name, size_t length)
{
    return (length == 1 && name[0] == '.') || (length == 2 && name[0] == '.' && name[1] == '.');
}

/* ---- Inodes and the tree (vfs_lock held) ---- */

static char *copy_name(const char *name, size_t length)
{
    char *copy = kmalloc(length + 1);
    if (copy) {
        memcpy(copy, name, length);
        copy[length] = '\0';
    }
    return copy;
}

static struct inode *inode_new(const char *name, size_t name_length, uint32_t mode)
{
    struct inode *inode = kzalloc(sizeof(*inode));
    if (!inode)
        return NULL;
    inode->name = copy_name(name, name_length);
    if (!inode->name) {
        kfree(inode);
        return NULL;
    }
    inode->mode = mode;
    inode->number = next_inode_number++;
    return inode;
}

static void inode_free_if_unused(struct inode *inode)
{
    if (inode->linked || inode->references > 0)
        return;
    kfree(inode->data);
    kfree(inode->name);
    kfree(inode);
}

/* Every name in the tree is also in a hash table of (directory, name), so
 * that finding one costs the same in a directory of a million names as in
 * one of ten: a lookup may take 84,000 steps (see "Path lookup"), and
 * with a search of the sorted list each, 10,000 names in a directory held
 * vfs_lock for 15 s under QEMU. The seed, taken at boot, keeps a program
 * from choosing names that all fall in one bucket. */
#define NAME_BUCKETS 16384

static struct inode *name_buckets[NAME_BUCKETS];
static uint64_t name_seed;

static struct inode **bucket_of(const struct inode *directory, const char *name, size_t length)
{
    uint64_t hash = name_seed ^ (uint64_t)(uintptr_t)directory; /* FNV-1a */
    for (size_t i = 0; i < length; i++)
        hash = (hash ^ (uint8_t)name[i]) * 0x100000001b3ul;
    hash ^= hash >> 32;
    return &name_buckets[hash % NAME_BUCKETS];
}

static struct inode *find_child(const struct inode *directory, const char *name, size_t length)
{
    for (struct inode *child = *bucket_of(directory, name, length); child; child = child->hash_next) {
        if (child->parent == directory && strncmp(child->name, name, length) == 0 && child->name[length] == '\0')
            return child;
    }
    return NULL;
}

static void link_child(struct inode *directory, struct inode *child)
{
    struct inode **link = &directory->first_child;
    while (*link && strcmp((*link)->name, child->name) < 0)
        link = &(*link)->next_sibling;
    child->next_sibling = *link;
    *link = child;
    child->parent = directory;
    child->linked = true;
    struct inode **bucket = bucket_of(directory, child->name, strlen(child->name));
    child->hash_next = *bucket;
    *bucket = child;
}

/* Out of its directory and the hash table, still allocated. */
static void detach_child(struct inode *child)
{
    struct inode **link = bucket_of(child->parent, child->name, strlen(child->name));
    while (*link != child)
        link = &(*link)->hash_next;
    *link = child->hash_next;
    link = &child->parent->first_child;
    while (*link != child)
        link = &(*link)->next_sibling;
    *link = child->next_sibling;
    child->next_sibling = child->hash_next = NULL;
    child->parent = NULL;
    child->linked = false;
}

static void unlink_child(struct inode *child)
{
    detach_child(child);
    inode_free_if_unused(child);
}

/* A new, empty inode in directory; the name must not be there yet. */
static struct inode *create_child(struct inode *directory, const char *name, size_t length, uint32_t mode)
{
    struct inode *child = inode_new(name, length, mode);
    if (child)
        link_child(directory, child);
    return child;
}

/* /proc's names are the kernel's: procfs_init() seals the directory, and
 * no system call adds, removes or moves a name anywhere under it, as on
 * Linux, whose procfs has no such operations (the errors below are the
 * ones Linux 6.18 gives). The kernel's own vfs_create_device() and
 * vfs_remove_tree() are not stopped. Found when fuzz workers, allowed to
 * chdir("/proc"), left their files there. */
static bool sealed(const struct inode *directory)
{
    for (; directory; directory = directory->parent)
        if (directory->sealed)
            return true;
    return false;
}

/* ---- Path lookup (vfs_lock held) ----
 *
 * One lookup follows at most SYMLINK_MAX links in all, as Linux's
 * MAXSYMLINKS: in a row, nested in each other's targets, or in different
 * components, they count the same, and the next one is -ELOOP. Each path
 * is at most PATH_MAX bytes, so a lookup walks at most (SYMLINK_MAX + 1)
 * * PATH_MAX / 2 components, however the links are made: bounding only
 * the nesting let targets such as "x/x/x/..." multiply the work by 2048
 * per level, all of it with vfs_lock held (docs/user-space.md, section
 * 1). The walk is a loop with the paths that links interrupted on
 * a stack of its own (struct lookup), not a recursion, since a kernel
 * stack is 16 KiB. */

#define GENERATED_LINK_MAX 32

struct lookup {
    unsigned links; /* followed so far */
    struct {
        const char *path;
        size_t length, position; /* where to go on once the link is resolved */
    } rest[SYMLINK_MAX];
    char generated[SYMLINK_MAX][GENERATED_LINK_MAX]; /* targets of /proc/self */
};

/* A symlink's target: its stored text, or for a generated one (/proc/self)
 * the text its ops write for the calling process into scratch. */
static const char *link_target(const struct inode *inode, char *scratch, size_t *length)
{
    if (inode->ops && inode->ops->link_target) {
        *length = inode->ops->link_target(scratch, GENERATED_LINK_MAX);
        return scratch;
    }
    *length = inode->size;
    return inode->data;
}

/* One more link followed in this lookup, or -ELOOP. */
static int count_link(struct lookup *lookup)
{
    return lookup->links++ < SYMLINK_MAX ? 0 : -ELOOP;
}

/* One component: name in directory, found but not followed. */
static int step(struct inode *directory, const char *name, size_t length, struct inode **out)
{
    if (!is_directory(directory))
        return -ENOTDIR;
    if (length > NAME_MAX)
        return -ENAMETOOLONG;
    if (length == 1 && name[0] == '.') {
        *out = directory;
        return 0;
    }
    if (length == 2 && name[0] == '.' && name[1] == '.') {
        if (directory == root) {
            *out = root;
            return 0;
        }
        if (!directory->parent)
            return -ENOENT; /* a removed directory has no parent any more */
        *out = directory->parent;
        return 0;
    }
    *out = find_child(directory, name, length);
    return *out ? 0 : -ENOENT;
}

static bool only_slashes(const char *path, size_t from, size_t length)
{
    for (size_t i = from; i < length; i++)
        if (path[i] != '/')
            return false;
    return true;
}

/* Resolve path[0..length): components separated by any number of
 * slashes, symlinks followed relative to the directory that holds them,
 * the last one only if follow_last. A trailing slash asks for a
 * directory, through a symlink if need be. */
static int walk(struct lookup *lookup, struct inode *start, const char *path, size_t length, bool follow_last,
                struct inode **out)
{
    if (length == 0)
        return -ENOENT;
    struct inode *current = path[0] == '/' || !start ? root : start;
    unsigned depth = 0; /* links whose target is being walked */
    size_t position = 0;
    for (;;) {
        while (position < length && path[position] == '/')
            position++;
        if (position == length) {
            if (path[length - 1] == '/' && !is_directory(current))
                return -ENOTDIR;
            if (depth == 0)
                break;
            depth--; /* that link's target is resolved: back to the path that named it */
            path = lookup->rest[depth].path;
            length = lookup->rest[depth].length;
            position = lookup->rest[depth].position;
            continue;
        }
        size_t end = position;
        while (end < length && path[end] != '/')
            end++;
        bool final = depth == 0 && only_slashes(path, end, length);
        struct inode *child;
        int error = step(current, path + position, end - position, &child);
        if (error)
            return error;
        if (!is_type(child, S_IFLNK) || (final && !follow_last && end == length)) {
            current = child;
            position = end;
            continue;
        }
        if ((error = count_link(lookup)))
            return error;
        lookup->rest[depth].path = path;
        lookup->rest[depth].length = length;
        lookup->rest[depth].position = end;
        path = link_target(child, lookup->generated[depth], &length);
        if (length == 0)
            return -ENOENT;
        depth++;
        position = 0;
        if (path[0] == '/')
            current = root;
    }
    *out = current;
    return 0;
}

static int walk_path(struct inode *start, const char *path, bool follow_last, struct inode **out)
{
    size_t length = strnlen(path, PATH_MAX);
    if (length == PATH_MAX)
        return -ENAMETOOLONG;
    struct lookup lookup = { .links = 0 };
    return walk(&lookup, start, path, length, follow_last, out);
}

/* The last component of a path and the directory it is in. */
struct last_name {
    struct inode *directory;
    const char *name;
    size_t length; /* 0 for "/" (and "//"...): no last component */
    bool trailing_slash;
    unsigned links; /* followed on the way to directory */
};

static int walk_parent(struct inode *start, const char *path, struct last_name *out)
{
    size_t length = strnlen(path, PATH_MAX);
    if (length == PATH_MAX)
        return -ENAMETOOLONG;
    if (length == 0)
        return -ENOENT;
    size_t end = length;
    while (end > 0 && path[end - 1] == '/')
        end--;
    size_t begin = end;
    while (begin > 0 && path[begin - 1] != '/')
        begin--;
    out->name = path + begin;
    out->length = end - begin;
    out->trailing_slash = end < length;
    out->links = 0;
    if (out->length > NAME_MAX)
        return -ENAMETOOLONG;
    if (begin == 0) {
        out->directory = path[0] == '/' || !start ? root : start;
        return is_directory(out->directory) ? 0 : -ENOTDIR;
    }
    struct lookup lookup = { .links = 0 };
    int error = walk(&lookup, start, path, begin, true, &out->directory);
    out->links = lookup.links;
    if (error)
        return error;
    return is_directory(out->directory) ? 0 : -ENOTDIR;
}

/* Follow the symlink `link` found as last->name, counting it and its
 * target's links after those of the way there. */
static int follow_last_link(const struct last_name *last, struct inode *link, struct inode **out)
{
    struct lookup lookup = { .links = last->links };
    int error = count_link(&lookup);
    if (error)
        return error;
    char scratch[GENERATED_LINK_MAX];
    size_t target_length;
    const char *target = link_target(link, scratch, &target_length);
    return walk(&lookup, last->directory, target, target_length, true, out);
}

/* ---- Setup ---- */

void vfs_init(void)
{
    spin_lock(&vfs_lock);
    if (!root) {
        name_seed = rdtsc() * 0x9e3779b97f4a7c15ul;
        root = inode_new("", 0, S_IFDIR | 0755);
        if (root) /* the heap cannot fail this early; the root is never freed */
            root->linked = true;
    }
    spin_unlock(&vfs_lock);
}

void vfs_seal(const char *path)
{
    struct inode *inode;
    spin_lock(&vfs_lock);
    if (walk_path(root, path, true, &inode) == 0 && is_directory(inode))
        inode->sealed = true;
    spin_unlock(&vfs_lock);
}

struct inode *vfs_root(void)
{
    return root;
}

void inode_get(struct inode *inode)
{
    spin_lock(&vfs_lock);
    inode->references++;
    spin_unlock(&vfs_lock);
}

void inode_put(struct inode *inode)
{
    spin_lock(&vfs_lock);
    inode->references--;
    inode_free_if_unused(inode);
    spin_unlock(&vfs_lock);
}

/* Walk a path from the root, creating missing directories (mode 0755), and
 * leave its last component in *out. For the archive and for devices. */
static int make_parents(const char *path, struct last_name *out)
{
    size_t length = strnlen(path, PATH_MAX);
    if (length == PATH_MAX)
        return -ENAMETOOLONG;
    struct inode *current = root;
    struct lookup lookup = { .links = 0 }; /* one count for the whole path */
    size_t position = 0;
    for (;;) {
        while (position < length && path[position] == '/')
            position++;
        size_t end = position;
        while (end < length && path[end] != '/')
            end++;
        size_t next = end;
        while (next < length && path[next] == '/')
            next++;
        if (next == length) {
            *out = (struct last_name){current, path + position, end - position, end < length, lookup.links};
            return end - position > NAME_MAX ? -ENAMETOOLONG : 0;
        }
        const char *name = path + position;
        size_t name_length = end - position;
        if (name_length > NAME_MAX)
            return -ENAMETOOLONG;
        if (is_directory(current) && !is_dot_or_dotdot(name, name_length) &&
            !find_child(current, name, name_length)) {
            current = create_child(current, name, name_length, S_IFDIR | 0755);
            if (!current)
                return -ENOMEM;
        } else {
            int error = walk(&lookup, current, name, name_length, true, &current);
            if (error)
                return error;
        }
        if (!is_directory(current))
            return -ENOTDIR;
        position = next;
    }
}

/* Put an inode for one archive entry in place. `data` is the content,
 * already copied (regular file) or the target + NUL (symlink); it is
 * consumed. An existing non-directory of that name is replaced. */
static int unpack_locked(const struct cpio_entry *entry, char *data)
{
    struct last_name last;
    int error = make_parents(entry->name, &last);
    if (error)
        return error;
    if (last.length == 0 || is_dot_or_dotdot(last.name, last.length))
        return (entry->mode & S_IFMT) == S_IFDIR ? 0 : -EINVAL; /* "." is the root */
    struct inode *existing = find_child(last.directory, last.name, last.length);
    bool want_directory = (entry->mode & S_IFMT) == S_IFDIR;
    if (existing && is_directory(existing)) {
        if (!want_directory)
            return -EINVAL;
        existing->mode = entry->mode;
        existing->mtime = entry->mtime;
        return 0;
    }
    if (existing)
        unlink_child(existing);
    struct inode *inode = create_child(last.directory, last.name, last.length, entry->mode);
    if (!inode)
        return -ENOMEM;
    inode->mtime = entry->mtime;
    inode->data = data;
    inode->size = entry->size;
    inode->capacity = data ? entry->size + 1 : 0;
    return 0;
}

static int unpack_entry(const struct cpio_entry *entry)
{
    uint32_t type = entry->mode & S_IFMT;
    if (type != S_IFDIR && type != S_IFREG && type != S_IFLNK)
        return 0; /* device nodes, FIFOs and sockets: see the top */
    if (type == S_IFLNK &&
        (entry->size == 0 || entry->size >= PATH_MAX || strnlen(entry->data, entry->size) != entry->size))
        return -EINVAL;
    char *data = NULL;
    if (type != S_IFDIR && entry->size > 0) {
        /* Filled before taking the lock: busybox is two megabytes. */
        data = kmalloc(entry->size + 1);
        if (!data)
            return -ENOMEM;
        memcpy(data, entry->data, entry->size);
        data[entry->size] = '\0';
    }
    spin_lock(&vfs_lock);
    int error = unpack_locked(entry, data);
    spin_unlock(&vfs_lock);
    if (error)
        kfree(data);
    return error;
}

int initramfs_unpack(const void *archive, size_t length)
{
    size_t offset = 0;
    struct cpio_entry entry;
    int result;
    while ((result = cpio_next(archive, length, &offset, &entry)) == 1) {
        int error = unpack_entry(&entry);
        if (error)
            return error;
    }
    return result;
}

int vfs_create_device(const char *path, uint32_t mode, const struct file_ops *ops, void *private)
{
    if (!ops)
        return -EINVAL;
    if ((mode & S_IFMT) == 0)
        mode |= S_IFCHR;
    spin_lock(&vfs_lock);
    struct last_name last;
    int error = make_parents(path, &last);
    if (!error && (last.length == 0 || is_dot_or_dotdot(last.name, last.length)))
        error = -EEXIST;
    if (!error && find_child(last.directory, last.name, last.length))
        error = -EEXIST;
    if (!error) {
        struct inode *inode = create_child(last.directory, last.name, last.length, mode);
        if (inode) {
            inode->ops = ops;
            inode->private = private;
        } else {
            error = -ENOMEM;
        }
    }
    spin_unlock(&vfs_lock);
    return error;
}

/* ---- Opening ---- */

/* The inode an open with O_CREAT names: found, or created as an empty
 * regular file. */
static int open_or_create(struct inode *start, const char *path, int flags, uint32_t mode, struct inode **out)
{
    struct last_name last;
    int error = walk_parent(start, path, &last);
    if (error)
        return error;
    if (last.length == 0 || is_dot_or_dotdot(last.name, last.length))
        return walk_path(start, path, true, out);
    struct inode *inode = find_child(last.directory, last.name, last.length);
    if (inode && (flags & O_EXCL))
        return -EEXIST;
    if (!inode) {
        if (last.trailing_slash)
            return -EISDIR;
        if (!last.directory->linked || sealed(last.directory))
            return -ENOENT; /* the directory was removed, or is /proc */
        inode = create_child(last.directory, last.name, last.length, S_IFREG | (mode & 07777));
        if (!inode)
            return -ENOMEM;
    } else if (is_type(inode, S_IFLNK)) {
        if (flags & O_NOFOLLOW)
            return -ELOOP;
        /* Creating through a dangling symlink is left out: -ENOENT. */
        error = follow_last_link(&last, inode, &inode);
        if (error)
            return error;
    }
    *out = inode;
    return 0;
}

static int open_locked(struct inode *start, const char *path, int flags, uint32_t mode, struct inode **out)
{
    struct inode *inode;
    int error;
    if (flags & O_CREAT) {
        error = open_or_create(start, path, flags, mode, &inode);
    } else {
        error = walk_path(start, path, !(flags & O_NOFOLLOW), &inode);
        if (!error && is_type(inode, S_IFLNK))
            error = -ELOOP; /* only with O_NOFOLLOW; O_PATH is left out */
    }
    if (error)
        return error;
    int access = flags & O_ACCMODE;
    if ((flags & O_DIRECTORY) && !is_directory(inode))
        return -ENOTDIR;
    if (is_directory(inode) && (access != O_RDONLY || (flags & O_CREAT)))
        return -EISDIR;
    /* Even with O_RDONLY, as Linux (POSIX leaves it unspecified). */
    if ((flags & O_TRUNC) && is_type(inode, S_IFREG) && !inode->ops)
        inode->size = 0;
    inode->references++;
    *out = inode;
    return 0;
}

struct file *vfs_open_at(struct inode *start, const char *path, int flags, uint32_t mode, long *error)
{
    struct file *file = kzalloc(sizeof(*file));
    if (!file) {
        *error = -ENOMEM;
        return NULL;
    }
    struct inode *inode;
    spin_lock(&vfs_lock);
    int result = open_locked(start, path, flags, mode, &inode);
    spin_unlock(&vfs_lock);
    if (result) {
        kfree(file);
        *error = result;
        return NULL;
    }
    file->inode = inode;
    if (inode->ops)
        file->ops = inode->ops;
    else
        file->ops = is_directory(inode) ? &ramfs_directory_ops : &ramfs_file_ops;
    file->flags = (unsigned)flags & (O_ACCMODE | O_APPEND | O_NONBLOCK);
    file->references = 1;
    file->private = inode->private;
    if (file->ops->open) {
        result = file->ops->open(file);
        if (result) {
            inode_put(inode);
            kfree(file);
            *error = result;
            return NULL;
        }
    }
    *error = 0;
    return file;
}

/* An open file on a new inode that no directory holds (a pipe end): it
 * goes away with its last open file. */
struct file *vfs_open_anonymous(uint32_t mode, const struct file_ops *ops, void *private, unsigned flags,
                                long *error)
{
    struct file *file = kzalloc(sizeof(*file));
    spin_lock(&vfs_lock);
    struct inode *inode = file ? inode_new("", 0, mode) : NULL;
    if (inode)
        inode->references = 1;
    spin_unlock(&vfs_lock);
    if (!inode) {
        kfree(file);
        *error = -ENOMEM;
        return NULL;
    }
    inode->ops = ops;
    inode->private = private;
    file->inode = inode;
    file->ops = ops;
    file->flags = flags & (O_ACCMODE | O_APPEND | O_NONBLOCK);
    file->references = 1;
    file->private = private;
    *error = 0;
    return file;
}

struct file *vfs_open(const char *path, int flags, uint32_t mode, long *error)
{
    struct process *process = current_process();
    return vfs_open_at(process ? process->cwd : NULL, path, flags, mode, error);
}

struct file *vfs_file_get(struct file *file)
{
    __atomic_add_fetch(&file->references, 1, __ATOMIC_RELAXED);
    return file;
}

void vfs_close(struct file *file)
{
    if (__atomic_sub_fetch(&file->references, 1, __ATOMIC_ACQ_REL) != 0)
        return;
    if (file->ops->release)
        file->ops->release(file);
    inode_put(file->inode);
    kfree(file->listed_name);
    kfree(file);
}

/* ---- Reading and writing ---- */

long vfs_read(struct file *file, void *buffer, size_t count)
{
    if ((file->flags & O_ACCMODE) == O_WRONLY)
        return -EBADF;
    if (!file->ops->read)
        return -EINVAL;
    return file->ops->read(file, buffer, count);
}

long vfs_write(struct file *file, const void *buffer, size_t count)
{
    if ((file->flags & O_ACCMODE) == O_RDONLY)
        return -EBADF;
    if (!file->ops->write)
        return -EINVAL;
    return file->ops->write(file, buffer, count);
}

static long ramfs_read(struct file *file, void *buffer, size_t count)
{
    struct inode *inode = file->inode;
    size_t done = 0;
    spin_lock(&vfs_lock);
    while (done < count && file->position < inode->size) {
        size_t chunk = count - done;
        if (chunk > inode->size - file->position)
            chunk = inode->size - file->position;
        if (chunk > COPY_CHUNK)
            chunk = COPY_CHUNK;
        memcpy((char *)buffer + done, inode->data + file->position, chunk);
        file->position += chunk;
        done += chunk;
        if (done < count) { /* let interrupts and other CPUs in */
            spin_unlock(&vfs_lock);
            spin_lock(&vfs_lock);
        }
    }
    spin_unlock(&vfs_lock);
    return (long)done;
}

/* Make room for `size` bytes, doubling so that appends cost O(1) each. */
static int ramfs_reserve(struct inode *inode, size_t size)
{
    if (size <= inode->capacity)
        return 0;
    size_t capacity = inode->capacity * 2 > 64 ? inode->capacity * 2 : 64;
    if (capacity < size)
        capacity = size;
    char *data = kmalloc(capacity);
    if (!data)
        return -ENOMEM;
    if (inode->size > 0)
        memcpy(data, inode->data, inode->size);
    kfree(inode->data);
    inode->data = data;
    inode->capacity = capacity;
    return 0;
}

static long ramfs_write_chunk(struct file *file, const char *buffer, size_t count)
{
    struct inode *inode = file->inode;
    if (file->flags & O_APPEND)
        file->position = inode->size;
    if (file->position > FILE_SIZE_MAX || count > FILE_SIZE_MAX - file->position)
        return -ENOSPC;
    size_t end = file->position + count;
    int error = ramfs_reserve(inode, end);
    if (error)
        return error;
    if (file->position > inode->size) /* a hole after a seek past the end */
        memset(inode->data + inode->size, 0, file->position - inode->size);
    memcpy(inode->data + file->position, buffer, count);
    if (end > inode->size)
        inode->size = end;
    file->position = end;
    return (long)count;
}

static long ramfs_write(struct file *file, const void *buffer, size_t count)
{
    size_t done = 0;
    while (done < count) {
        size_t chunk = count - done < COPY_CHUNK ? count - done : COPY_CHUNK;
        spin_lock(&vfs_lock);
        long written = ramfs_write_chunk(file, (const char *)buffer + done, chunk);
        spin_unlock(&vfs_lock);
        if (written < 0)
            return done ? (long)done : written;
        done += chunk;
    }
    return (long)done;
}

static long directory_read(struct file *file, void *buffer, size_t count)
{
    (void)file, (void)buffer, (void)count;
    return -EISDIR;
}

static const struct file_ops ramfs_file_ops = {
    .read = ramfs_read,
    .write = ramfs_write,
};

static const struct file_ops ramfs_directory_ops = {
    .read = directory_read,
};

long vfs_seek(struct file *file, int64_t offset, int whence)
{
    struct inode *inode = file->inode;
    if (!is_type(inode, S_IFREG) && !is_directory(inode))
        return -ESPIPE; /* devices, like Linux's ttys */
    spin_lock(&vfs_lock);
    int64_t base = -1;
    if (whence == SEEK_SET)
        base = 0;
    else if (whence == SEEK_CUR)
        base = (int64_t)file->position;
    else if (whence == SEEK_END && !is_directory(inode))
        base = (int64_t)inode->size;
    long result = -EINVAL;
    if (base >= 0 && !__builtin_add_overflow(base, offset, &base) && base >= 0) {
        file->position = (uint64_t)base;
        result = base;
    }
    spin_unlock(&vfs_lock);
    return result;
}

long vfs_file_size(struct file *file)
{
    spin_lock(&vfs_lock);
    long size = is_type(file->inode, S_IFREG) ? (long)file->inode->size : -EINVAL;
    spin_unlock(&vfs_lock);
    return size;
}

bool vfs_is_executable(struct file *file)
{
    return is_type(file->inode, S_IFREG) && (file->inode->mode & 0111);
}

/* ---- Metadata ---- */

static void stat_locked(const struct inode *inode, struct linux_stat *out)
{
    memset(out, 0, sizeof(*out));
    out->st_dev = 1;
    out->st_ino = inode->number;
    out->st_nlink = is_directory(inode) ? 2 : 1;
    out->st_mode = inode->mode;
    if (is_type(inode, S_IFREG) || is_type(inode, S_IFLNK))
        out->st_size = (int64_t)inode->size;
    out->st_blksize = 4096;
    out->st_blocks = (out->st_size + 511) / 512;
    out->st_atime_sec = out->st_mtime_sec = out->st_ctime_sec = inode->mtime;
}

void vfs_stat_file(struct file *file, struct linux_stat *out)
{
    spin_lock(&vfs_lock);
    stat_locked(file->inode, out);
    spin_unlock(&vfs_lock);
}

int vfs_stat_at(struct inode *start, const char *path, bool follow, struct linux_stat *out)
{
    struct inode *inode;
    spin_lock(&vfs_lock);
    int error = walk_path(start, path, follow, &inode);
    if (!error)
        stat_locked(inode, out);
    spin_unlock(&vfs_lock);
    return error;
}

long vfs_readlink_at(struct inode *start, const char *path, char *buffer, size_t size)
{
    struct inode *inode;
    spin_lock(&vfs_lock);
    long result = walk_path(start, path, false, &inode);
    if (!result && !is_type(inode, S_IFLNK))
        result = -EINVAL;
    if (!result) {
        char scratch[GENERATED_LINK_MAX];
        size_t target_length;
        const char *target = link_target(inode, scratch, &target_length);
        result = (long)(target_length < size ? target_length : size);
        memcpy(buffer, target, (size_t)result); /* no NUL, as Linux */
    }
    spin_unlock(&vfs_lock);
    return result;
}

int vfs_access_at(struct inode *start, const char *path, int mode)
{
    struct inode *inode;
    spin_lock(&vfs_lock);
    int error = walk_path(start, path, true, &inode);
    /* Root may read and write anything, and execute what has an x bit. */
    if (!error && (mode & X_OK) && !is_directory(inode) && !(inode->mode & 0111))
        error = -EACCES;
    spin_unlock(&vfs_lock);
    return error;
}

int vfs_lookup_directory(struct inode *start, const char *path, struct inode **out)
{
    struct inode *inode;
    spin_lock(&vfs_lock);
    int error = walk_path(start, path, true, &inode);
    if (!error && !is_directory(inode))
        error = -ENOTDIR;
    if (!error) {
        inode->references++;
        *out = inode;
    }
    spin_unlock(&vfs_lock);
    return error;
}

long vfs_getcwd(struct inode *cwd, char *buffer, size_t size)
{
    spin_lock(&vfs_lock);
    struct inode *directory = cwd ? cwd : root;
    long result = 0;
    size_t length = directory == root ? 1 : 0;
    if (!directory->linked)
        result = -ENOENT; /* Linux says "(unreachable)"; we refuse */
    for (struct inode *inode = directory; inode != root && !result; inode = inode->parent)
        length += 1 + strlen(inode->name);
    if (!result && length + 1 > size)
        result = -ERANGE;
    if (!result) {
        /* Written from the end backwards, one name at a time. */
        size_t end = length;
        buffer[end] = '\0';
        buffer[0] = '/';
        for (struct inode *inode = directory; inode != root; inode = inode->parent) {
            size_t name_length = strlen(inode->name);
            end -= name_length;
            memcpy(buffer + end, inode->name, name_length);
            buffer[--end] = '/';
        }
        result = (long)length + 1;
    }
    spin_unlock(&vfs_lock);
    return result;
}

/* ---- Directories ---- */

int vfs_mkdir_at(struct inode *start, const char *path, uint32_t mode)
{
    struct last_name last;
    spin_lock(&vfs_lock);
    int error = walk_parent(start, path, &last);
    if (!error && (last.length == 0 || is_dot_or_dotdot(last.name, last.length) ||
                   find_child(last.directory, last.name, last.length)))
        error = -EEXIST;
    if (!error && (!last.directory->linked || sealed(last.directory)))
        error = -ENOENT;
    if (!error && !create_child(last.directory, last.name, last.length, S_IFDIR | (mode & 07777)))
        error = -ENOMEM;
    spin_unlock(&vfs_lock);
    return error;
}

static int unlink_locked(struct inode *start, const char *path, bool directory)
{
    struct last_name last;
    int error = walk_parent(start, path, &last);
    if (error)
        return error;
    if (last.length == 0)
        return directory ? -EBUSY : -EISDIR;
    if (is_dot_or_dotdot(last.name, last.length))
        return !directory ? -EISDIR : last.length == 1 ? -EINVAL : -ENOTEMPTY;
    struct inode *inode = find_child(last.directory, last.name, last.length);
    if (!inode)
        return -ENOENT;
    if (directory && !is_directory(inode))
        return -ENOTDIR;
    if (!directory && is_directory(inode))
        return -EISDIR;
    if (!directory && last.trailing_slash)
        return -ENOTDIR;
    if (inode->sealed)
        return -EBUSY;      /* /proc itself: a mount point on Linux */
    if (sealed(last.directory))
        return -EPERM;
    if (inode->first_child)
        return -ENOTEMPTY;
    unlink_child(inode);
    return 0;
}

int vfs_unlink_at(struct inode *start, const char *path, bool directory)
{
    spin_lock(&vfs_lock);
    int error = unlink_locked(start, path, directory);
    spin_unlock(&vfs_lock);
    return error;
}

/* The parent of a new name: it must exist, be linked, and not hold it. */
static int walk_new_name(struct inode *start, const char *path, struct last_name *last)
{
    int error = walk_parent(start, path, last);
    if (error)
        return error;
    if (last->length == 0 || is_dot_or_dotdot(last->name, last->length) ||
        find_child(last->directory, last->name, last->length))
        return -EEXIST;
    return last->directory->linked && !sealed(last->directory) ? 0 : -ENOENT;
}

int vfs_symlink_at(struct inode *start, const char *path, const char *target)
{
    size_t target_length = strnlen(target, PATH_MAX);
    if (target_length == 0)
        return -ENOENT;
    if (target_length == PATH_MAX)
        return -ENAMETOOLONG;
    char *data = copy_name(target, target_length);      /* allocated before the lock */
    if (!data)
        return -ENOMEM;
    struct last_name last;
    spin_lock(&vfs_lock);
    int error = walk_new_name(start, path, &last);
    struct inode *inode = error ? NULL : create_child(last.directory, last.name, last.length, S_IFLNK | 0777);
    if (!error && !inode)
        error = -ENOMEM;
    if (inode) {
        inode->data = data;
        inode->size = inode->capacity = target_length;
    }
    spin_unlock(&vfs_lock);
    if (!inode)
        kfree(data);
    return error;
}

static bool is_ancestor(const struct inode *ancestor, const struct inode *inode)
{
    for (; inode; inode = inode->parent) {
        if (inode == ancestor)
            return true;
    }
    return false;
}

/* May `moving` replace `target` (which exists) in rename()? */
static int check_replace(const struct inode *moving, const struct inode *target)
{
    if (is_directory(moving) && !is_directory(target))
        return -ENOTDIR;
    if (!is_directory(moving) && is_directory(target))
        return -EISDIR;
    if (target->first_child)
        return -ENOTEMPTY;
    if (target->ops || target == root)
        return -EBUSY;      /* a device or generated file stays where its driver put it */
    return 0;
}

static int rename_locked(struct inode *old_start, const char *old_path, struct inode *new_start,
                         const char *new_path, char **name)
{
    struct last_name from, to;
    int error = walk_parent(old_start, old_path, &from);
    if (!error)
        error = walk_parent(new_start, new_path, &to);
    if (error)
        return error;
    if (from.length == 0 || to.length == 0)
        return -EBUSY;
    if (is_dot_or_dotdot(from.name, from.length) || is_dot_or_dotdot(to.name, to.length))
        return -EINVAL;
    struct inode *moving = find_child(from.directory, from.name, from.length);
    if (!moving)
        return -ENOENT;
    if (moving->sealed)
        return -EBUSY;      /* /proc itself: a mount point on Linux */
    if (sealed(from.directory) != sealed(to.directory))
        return -EXDEV;      /* /proc is another file system on Linux */
    if (sealed(from.directory))
        return -ENOENT;
    if (moving->ops)
        return -EBUSY;
    if ((from.trailing_slash || to.trailing_slash) && !is_directory(moving))
        return -ENOTDIR;
    if (!to.directory->linked)
        return -ENOENT;
    if (is_ancestor(moving, to.directory))
        return -EINVAL;     /* into itself */
    struct inode *target = find_child(to.directory, to.name, to.length);
    if (target == moving)
        return 0;
    if (target && (error = check_replace(moving, target)))
        return error;
    if (target)
        unlink_child(target);
    detach_child(moving);
    kfree(moving->name);
    moving->name = *name;
    *name = NULL;
    link_child(to.directory, moving);
    return 0;
}

/* rename(2): atomic under the one VFS lock; the inode keeps its number and
 * its open files. */
int vfs_rename_at(struct inode *old_start, const char *old_path, struct inode *new_start, const char *new_path)
{
    /* The new name's copy is made before the lock: the last component. */
    size_t length = strnlen(new_path, PATH_MAX);
    while (length > 0 && new_path[length - 1] == '/')
        length--;
    size_t begin = length;
    while (begin > 0 && new_path[begin - 1] != '/')
        begin--;
    char *name = copy_name(new_path + begin, length - begin);
    if (!name)
        return -ENOMEM;
    spin_lock(&vfs_lock);
    int error = rename_locked(old_start, old_path, new_start, new_path, &name);
    spin_unlock(&vfs_lock);
    kfree(name);
    return error;
}

int vfs_chmod_at(struct inode *start, const char *path, uint32_t mode)
{
    struct inode *inode;
    spin_lock(&vfs_lock);
    int error = walk_path(start, path, true, &inode);
    if (!error)
        inode->mode = (inode->mode & S_IFMT) | (mode & 07777);
    spin_unlock(&vfs_lock);
    return error;
}

void vfs_chmod_file(struct file *file, uint32_t mode)
{
    spin_lock(&vfs_lock);
    file->inode->mode = (file->inode->mode & S_IFMT) | (mode & 07777);
    spin_unlock(&vfs_lock);
}

static void remove_subtree_locked(struct inode *inode)
{
    while (inode->first_child)
        remove_subtree_locked(inode->first_child);
    unlink_child(inode);
}

int vfs_remove_tree(const char *path)
{
    struct inode *inode;
    spin_lock(&vfs_lock);
    int error = walk_path(NULL, path, false, &inode);
    if (!error && inode == root)
        error = -EBUSY;
    if (!error)
        remove_subtree_locked(inode);
    spin_unlock(&vfs_lock);
    return error;
}

static uint8_t dirent_type(const struct inode *inode)
{
    switch (inode->mode & S_IFMT) {
    case S_IFDIR:
        return DT_DIR;
    case S_IFREG:
        return DT_REG;
    case S_IFLNK:
        return DT_LNK;
    case S_IFCHR:
        return DT_CHR;
    default:
        return DT_UNKNOWN;
    }
}

/* One record; false if it does not fit in the `room` bytes left. */
static bool put_dirent(char *buffer, size_t room, size_t *written, uint64_t number, int64_t next,
                       uint8_t type, const char *name)
{
    size_t name_length = strlen(name);
    size_t record = (offsetof(struct linux_dirent64, d_name) + name_length + 1 + 7) & ~(size_t)7;
    if (record > room)
        return false;
    struct linux_dirent64 *dirent = (struct linux_dirent64 *)(buffer + *written);
    dirent->d_ino = number;
    dirent->d_off = next;
    dirent->d_reclen = (uint16_t)record;
    dirent->d_type = type;
    memcpy(dirent->d_name, name, name_length + 1);
    memset(dirent->d_name + name_length + 1, 0,
           record - offsetof(struct linux_dirent64, d_name) - name_length - 1);
    *written += record;
    return true;
}

/* The position of a directory file counts entries: 0 is ".", 1 is "..",
 * then the children, which are kept sorted by name. A listing that goes on
 * where the last call stopped resumes after the last name given, not at
 * the index: a name removed or added before it in between moves nothing,
 * so every other name comes exactly once (POSIX's rule, which nftw(3) and
 * rm -r rely on when they remove each name as they read it). After a
 * seek, the position is an index again. */
static struct inode *first_to_list(const struct file *file, const struct inode *directory, uint64_t index)
{
    struct inode *child = directory->first_child;
    if (index > 2 && file->listed_name && file->listed_position == index) {
        while (child && strcmp(child->name, file->listed_name) <= 0)
            child = child->next_sibling;
        return child;
    }
    for (uint64_t skip = 2; child && skip < index; skip++)
        child = child->next_sibling;
    return child;
}

/* `buffer` must be 8-byte aligned (kmalloc's is). */
long vfs_getdents(struct file *file, void *buffer, size_t size)
{
    struct inode *directory = file->inode;
    if (!is_directory(directory))
        return -ENOTDIR;
    if (!file->listed_name) {
        /* Made once, outside the lock; without it, positions are indexes. */
        char *name = kzalloc(NAME_MAX + 1);
        char *none = NULL;
        if (name && !__atomic_compare_exchange_n(&file->listed_name, &none, name, false, __ATOMIC_ACQ_REL,
                                                 __ATOMIC_ACQUIRE))
            kfree(name);   /* a process sharing the file made it first */
    }
    size_t written = 0;
    bool fits = true;
    const struct inode *last_listed = NULL;
    spin_lock(&vfs_lock);
    uint64_t index = file->position;
    struct inode *child = first_to_list(file, directory, index);
    for (;; index++) {
        if (index == 0) {
            fits = put_dirent(buffer, size - written, &written, directory->number, 1, DT_DIR, ".");
        } else if (index == 1) {
            struct inode *parent = directory->parent ? directory->parent : directory;
            fits = put_dirent(buffer, size - written, &written, parent->number, 2, DT_DIR, "..");
        } else if (child) {
            fits = put_dirent(buffer, size - written, &written, child->number, (int64_t)index + 1,
                              dirent_type(child), child->name);
            if (fits) {
                last_listed = child;
                child = child->next_sibling;
            }
        } else {
            break;
        }
        if (!fits)
            break;
    }
    file->position = index;
    if (last_listed && file->listed_name) {
        memcpy(file->listed_name, last_listed->name, strlen(last_listed->name) + 1);   /* at most NAME_MAX */
        file->listed_position = index;
    }
    spin_unlock(&vfs_lock);
    if (!fits && written == 0)
        return -EINVAL; /* the buffer cannot hold even one record */
    return (long)written;
}
