/* The path walk: from a path to its inode, following symbolic links, and
 * the operations that only look a path up (stat, readlink, access, chmod,
 * chdir's directory, getcwd's way back). Names are added and removed by
 * kernel/fs/directory.c; opening is kernel/fs/file.c's.
 *
 * Left out: permission checks (everything runs as root: access() fails
 * only for X_OK on a file without an x bit), mount points, and O_PATH. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/fs/vfs_internal.h"
#include "kernel/lib/errno.h"
#include "kernel/lib/string.h"

#define X_OK 1

/* ---- Path lookup (vfs_lock held) ----
 *
 * One lookup follows at most SYMLINK_MAX links in all, as Linux's
 * MAXSYMLINKS: in a row, nested in each other's targets, or in different
 * components, they count the same, and the next one is -ELOOP. Each path
 * is at most PATH_MAX bytes, so a lookup walks at most (SYMLINK_MAX + 1)
 * * PATH_MAX / 2 components, however the links are made, all of it with
 * vfs_lock held (docs/user-space.md, section 1, says why the bound is on
 * the total). The walk is a loop with the paths that links interrupted on
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
    if (inode->ops && inode->ops->link_target)
        return inode->ops->link_target(inode->private, scratch, GENERATED_LINK_MAX, length);
    *length = inode->size;
    return inode->target;
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

int walk_path(struct inode *start, const char *path, bool follow_last, struct inode **out)
{
    size_t length = strnlen(path, PATH_MAX);
    if (length == PATH_MAX)
        return -ENAMETOOLONG;
    struct lookup lookup = { .links = 0 };
    return walk(&lookup, start, path, length, follow_last, out);
}

int walk_parent(struct inode *start, const char *path, struct last_name *out)
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
int follow_last_link(const struct last_name *last, struct inode *link, struct inode **out)
{
    struct lookup lookup = { .links = last->links };
    int error = count_link(&lookup);
    if (error)
        return error;
    char scratch[GENERATED_LINK_MAX];
    size_t target_length;
    const char *target = link_target(link, scratch, &target_length);
    if (target_length == 0)
        return -ENOENT;     /* a generated link with no target for this caller */
    return walk(&lookup, last->directory, target, target_length, true, out);
}

/* Walk a path from the root, creating missing directories (mode 0755), and
 * leave its last component in *out. For the archive and for devices. */
int make_parents(const char *path, struct last_name *out)
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

/* ---- Lookups by path ---- */

void vfs_seal(const char *path)
{
    struct inode *inode;
    spin_lock(&vfs_lock);
    if (walk_path(root, path, true, &inode) == 0 && is_directory(inode))
        inode->sealed = true;
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

int vfs_statfs_at(struct inode *start, const char *path, struct linux_statfs *out)
{
    struct inode *inode;
    spin_lock(&vfs_lock);
    int error = walk_path(start, path, true, &inode);
    if (!error)
        statfs_locked(inode, out);
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
        result = target_length == 0 ? -ENOENT : (long)(target_length < size ? target_length : size);
        if (result > 0)
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
    return vfs_inode_path(cwd, buffer, size);
}

long vfs_file_path(struct file *file, char *buffer, size_t size)
{
    return vfs_inode_path(file->inode, buffer, size);
}

long vfs_inode_path(struct inode *target, char *buffer, size_t size)
{
    spin_lock(&vfs_lock);
    struct inode *directory = target ? target : root;
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
