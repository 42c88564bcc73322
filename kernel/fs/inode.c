/* Inodes and the tree of names they form: allocating and freeing inodes,
 * adding a name to a directory and taking it out, finding a name in a
 * directory, and the root. Paths are kernel/fs/namei.c's; what a file
 * holds is kernel/fs/ramfs.c's.
 *
 * Every inode lives in exactly one directory (there are no hard links), so
 * the tree is made of the inodes themselves: a directory points to its
 * first child, children to their next sibling (kept sorted by name, so a
 * listing comes out in a stable order), and each to its parent, which is
 * what ".." and getcwd() follow.
 *
 * Lifetime: an inode is freed when it is no longer in a directory and no
 * open file or working directory holds it (`references`), as on Unix: an
 * unlinked file stays readable through the descriptors open on it.
 *
 * Left out: hard links, owners (everything runs as root), timestamps other
 * than the archive's mtime, and any limit on memory use but kmalloc
 * failing. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/fs/vfs_internal.h"
#include "arch/x86/cpu.h"
#include "kernel/mm/heap.h"
#include "kernel/lib/errno.h"
#include "kernel/lib/string.h"
#include "kernel/process/process.h"

struct spinlock vfs_lock = SPINLOCK_INIT("vfs");
struct inode *root;
static uint64_t next_inode_number = 1;

char *copy_name(const char *name, size_t length)
{
    char *copy = kmalloc(length + 1);
    if (copy) {
        memcpy(copy, name, length);
        copy[length] = '\0';
    }
    return copy;
}

struct inode *inode_new(const char *name, size_t name_length, uint32_t mode)
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
    ramfs_put_pages(ramfs_take_pages(inode));
    kfree(inode->target);
    kfree(inode->name);
    kfree(inode);
}

/* Every name in the tree is also in a hash table of (directory, name), so
 * that finding one costs the same in a directory of a million names as in
 * one of ten: one lookup may take 84,000 steps, all with vfs_lock held
 * (kernel/fs/namei.c; docs/user-space.md, section 1). The seed, taken at
 * boot, keeps a program from choosing names that all fall in one bucket. */
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

struct inode *find_child(const struct inode *directory, const char *name, size_t length)
{
    for (struct inode *child = *bucket_of(directory, name, length); child; child = child->hash_next) {
        if (child->parent == directory && strncmp(child->name, name, length) == 0 && child->name[length] == '\0')
            return child;
    }
    return NULL;
}

void link_child(struct inode *directory, struct inode *child)
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
void detach_child(struct inode *child)
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

void unlink_child(struct inode *child)
{
    detach_child(child);
    inode_free_if_unused(child);
}

/* A new, empty inode in directory; the name must not be there yet. */
struct inode *create_child(struct inode *directory, const char *name, size_t length, uint32_t mode)
{
    struct inode *child = inode_new(name, length, mode);
    if (child)
        link_child(directory, child);
    return child;
}

/* /proc's and /sys's names are the kernel's: procfs_init() and sysfs_init()
 * seal the directories, and
 * no system call adds, removes or moves a name anywhere under it, as on
 * Linux, whose procfs has no such operations (kernel/fs/directory.c and
 * kernel/fs/file.c give the errors Linux 6.18 gives). The kernel's own
 * vfs_create_device() and vfs_remove_tree() are not stopped. */
const struct inode *sealed_root(const struct inode *directory)
{
    for (; directory; directory = directory->parent)
        if (directory->sealed)
            return directory;
    return 0;
}

bool sealed(const struct inode *directory)
{
    return sealed_root(directory) != 0;
}

bool in_sysfs(const struct inode *inode)
{
    const struct inode *root = sealed_root(inode);
    return root && root->name && strcmp(root->name, "sys") == 0;
}

/* Why no new name may go in directory: 0 if one may. Linux's procfs has
 * no create operation (ENOENT); its sysfs refuses open's O_CREAT with
 * EACCES and mkdir, symlink, link and mknod with EPERM, root included. */
int new_name_refused(const struct inode *directory, bool by_open)
{
    if (!directory->linked)
        return -ENOENT;
    if (in_sysfs(directory))
        return by_open ? -EACCES : -EPERM;
    return sealed(directory) ? -ENOENT : 0;
}

/* ---- The root, and inodes held by processes ---- */

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

struct inode *vfs_cwd_get(struct process *process)
{
    spin_lock(&vfs_lock);
    struct inode *cwd = process ? process->cwd : 0;
    if (cwd)
        cwd->references++;
    spin_unlock(&vfs_lock);
    return cwd;
}

void vfs_cwd_set(struct process *process, struct inode *directory)
{
    spin_lock(&vfs_lock);
    struct inode *old = process->cwd;
    process->cwd = directory;
    spin_unlock(&vfs_lock);
    if (old)
        inode_put(old);
}

void stat_locked(const struct inode *inode, struct linux_stat *out)
{
    memset(out, 0, sizeof(*out));
    out->st_dev = in_sysfs(inode) ? 3 : sealed(inode) ? 2 : 1;  /* /proc and /sys are file systems of their own (mounts.c) */
    out->st_ino = inode->number;
    out->st_nlink = is_directory(inode) ? 2 : 1;
    out->st_mode = inode->mode;
    if (is_type(inode, S_IFREG) || is_type(inode, S_IFLNK))
        out->st_size = (int64_t)inode->size;
    out->st_blksize = 4096;
    out->st_blocks = (out->st_size + 511) / 512;
    out->st_atime_sec = out->st_mtime_sec = out->st_ctime_sec = inode->mtime;
}
