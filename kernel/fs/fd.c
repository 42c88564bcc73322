/* File descriptor tables: for each process, fd number -> open file, plus
 * the close-on-exec flag of each fd. fork() copies the table and shares
 * the files (one more reference each), so parent and child share file
 * positions, as on Unix. A table has its own lock: its process uses it,
 * and fork and /proc may look at it from elsewhere. Files are closed after
 * the lock is dropped, since a device's release may sleep.
 *
 * A table starts with FD_FIRST slots inside it and grows on demand, by
 * doubling, up to FD_MAX, as Linux's expand_files does: a process with
 * few files costs FD_FIRST * 8 bytes of slots, one that uses fd n about
 * 2n * 8 (docs/user-space.md, "Descriptor limits"). RLIMIT_NOFILE is
 * applied by the system calls (descriptor_limit in
 * kernel/fs/fs_syscalls.c), up to FD_MAX. The threads of a process share
 * its one table (CLONE_FILES); a thread with a table of its own is left
 * out (clone refuses it). */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/fs/vfs.h"
#include "kernel/lib/errno.h"
#include "kernel/mm/heap.h"
#include "kernel/base/spinlock.h"
#include "kernel/lib/string.h"

#define FD_FIRST 64

struct fd_table {
    struct spinlock lock;
    int size;                           /* slots in files: FD_FIRST, doubled up to FD_MAX */
    struct file **files;                /* first_files, or a kmalloc'd array */
    uint64_t *close_on_exec;            /* one bit per fd; first_close_on_exec or kmalloc'd */
    struct file *first_files[FD_FIRST];
    uint64_t first_close_on_exec[FD_FIRST / 64];
};

struct fd_table *fd_table_create(void)
{
    struct fd_table *table = kzalloc(sizeof(*table));
    if (table) {
        spin_lock_init(&table->lock, "fd_table");
        table->size = FD_FIRST;
        table->files = table->first_files;
        table->close_on_exec = table->first_close_on_exec;
    }
    return table;
}

static void free_slots(struct fd_table *table, struct file **files, uint64_t *close_on_exec)
{
    if (files != table->first_files) {
        kfree(files);
        kfree(close_on_exec);
    }
}

/* Make room for fd (< FD_MAX), with the lock held; it is dropped while
 * the new arrays are allocated. 0, or -ENOMEM. */
static int grow_locked(struct fd_table *table, int fd)
{
    while (fd >= table->size) {
        int size = table->size;
        while (size <= fd)
            size *= 2;
        spin_unlock(&table->lock);
        struct file **files = kzalloc((size_t)size * sizeof(*files));
        uint64_t *close_on_exec = kzalloc((size_t)size / 64 * sizeof(uint64_t));
        spin_lock(&table->lock);
        if (!files || !close_on_exec) {
            kfree(files);
            kfree(close_on_exec);
            return -ENOMEM;
        }
        if (size <= table->size) {      /* another thread grew it meanwhile */
            kfree(files);
            kfree(close_on_exec);
            continue;
        }
        memcpy(files, table->files, (size_t)table->size * sizeof(*files));
        memcpy(close_on_exec, table->close_on_exec, (size_t)table->size / 64 * sizeof(uint64_t));
        struct file **old_files = table->files;
        uint64_t *old_close_on_exec = table->close_on_exec;
        table->files = files;
        table->close_on_exec = close_on_exec;
        __atomic_store_n(&table->size, size, __ATOMIC_RELEASE);
        free_slots(table, old_files, old_close_on_exec);   /* kfree does not sleep */
    }
    return 0;
}

static void set_close_on_exec(struct fd_table *table, int fd, bool close_on_exec)
{
    uint64_t bit = 1ull << (fd % 64);
    if (close_on_exec)
        table->close_on_exec[fd / 64] |= bit;
    else
        table->close_on_exec[fd / 64] &= ~bit;
}

bool fd_close_on_exec(struct fd_table *table, int fd)
{
    spin_lock(&table->lock);
    bool set = fd >= 0 && fd < table->size && (table->close_on_exec[fd / 64] >> (fd % 64) & 1);
    spin_unlock(&table->lock);
    return set;
}

struct fd_table *fd_table_clone(struct fd_table *table)
{
    struct fd_table *copy = fd_table_create();
    if (!copy)
        return NULL;
    spin_lock(&table->lock);
    int last = table->size - 1;
    while (last >= 0 && !table->files[last])
        last--;
    spin_unlock(&table->lock);
    /* Room for the highest open fd; the source may change meanwhile: its
     * fds beyond what was seen then are not copied (a racing open in a
     * sibling thread, as if it came after the fork). */
    spin_lock(&copy->lock);
    int error = last >= 0 ? grow_locked(copy, last) : 0;
    spin_unlock(&copy->lock);
    if (error) {
        fd_table_destroy(copy);
        return NULL;
    }
    spin_lock(&table->lock);
    int count = table->size < copy->size ? table->size : copy->size;
    for (int fd = 0; fd < count; fd++) {
        if (table->files[fd])
            copy->files[fd] = vfs_file_get(table->files[fd]);
    }
    memcpy(copy->close_on_exec, table->close_on_exec, (size_t)count / 64 * sizeof(uint64_t));
    spin_unlock(&table->lock);
    return copy;
}

/* Take fd out of the table: the caller now owns that reference. */
struct file *fd_detach(struct fd_table *table, int fd)
{
    if (fd < 0)
        return NULL;
    spin_lock(&table->lock);
    struct file *file = NULL;
    if (fd < table->size) {
        file = table->files[fd];
        table->files[fd] = NULL;
        set_close_on_exec(table, fd, false);
    }
    spin_unlock(&table->lock);
    return file;
}

static int table_size(struct fd_table *table)
{
    return __atomic_load_n(&table->size, __ATOMIC_ACQUIRE);
}

void fd_table_close_on_exec(struct fd_table *table)
{
    for (int fd = 0; fd < table_size(table); fd++) {
        if (fd_close_on_exec(table, fd)) {
            struct file *file = fd_detach(table, fd);
            if (file)
                vfs_close(file);
        }
    }
}

void fd_table_destroy(struct fd_table *table)
{
    for (int fd = 0; fd < table_size(table); fd++) {
        struct file *file = fd_detach(table, fd);
        if (file)
            vfs_close(file);
    }
    free_slots(table, table->files, table->close_on_exec);
    kfree(table);
}

/* The lowest free fd >= lowest with the lock held, growing the table if
 * it is full: below limit (at most FD_MAX), else -EMFILE; -ENOMEM if the
 * table cannot grow. */
static int lowest_free_locked(struct fd_table *table, int lowest, int limit)
{
    int fd = lowest < 0 ? 0 : lowest;
    for (;;) {
        while (fd < table->size && table->files[fd])
            fd++;
        if (fd >= limit)
            return -EMFILE;
        if (fd < table->size)
            return fd;
        int error = grow_locked(table, fd);
        if (error)
            return error;
    }
}

int fd_install_below(struct fd_table *table, int lowest, int limit, struct file *file, bool close_on_exec)
{
    spin_lock(&table->lock);
    int fd = lowest_free_locked(table, lowest, limit > FD_MAX ? FD_MAX : limit);
    if (fd >= 0) {
        table->files[fd] = file;
        set_close_on_exec(table, fd, close_on_exec);
    }
    spin_unlock(&table->lock);
    return fd;
}

int fd_install_from(struct fd_table *table, int lowest, struct file *file, bool close_on_exec)
{
    return fd_install_below(table, lowest, FD_MAX, file, close_on_exec);
}

int fd_lowest_free(struct fd_table *table)
{
    spin_lock(&table->lock);
    int fd = 0;
    while (fd < table->size && table->files[fd])
        fd++;
    spin_unlock(&table->lock);
    return fd;
}

int fd_install(struct fd_table *table, struct file *file, bool close_on_exec)
{
    return fd_install_from(table, 0, file, close_on_exec);
}

int fd_install_at(struct fd_table *table, int fd, struct file *file, bool close_on_exec, struct file **replaced)
{
    *replaced = NULL;
    if (fd < 0 || fd >= FD_MAX)
        return -EBADF;
    spin_lock(&table->lock);
    int error = fd < table->size ? 0 : grow_locked(table, fd);
    if (!error) {
        *replaced = table->files[fd];
        table->files[fd] = file;
        set_close_on_exec(table, fd, close_on_exec);
    }
    spin_unlock(&table->lock);
    return error;
}

struct file *fd_get(struct fd_table *table, int fd)
{
    if (!table || fd < 0)
        return NULL;
    spin_lock(&table->lock);
    struct file *file = fd < table->size ? table->files[fd] : NULL;
    if (file)
        vfs_file_get(file);
    spin_unlock(&table->lock);
    return file;
}

int fd_set_close_on_exec(struct fd_table *table, int fd, bool close_on_exec)
{
    if (fd < 0)
        return -EBADF;
    spin_lock(&table->lock);
    int result = fd < table->size && table->files[fd] ? 0 : -EBADF;
    if (!result)
        set_close_on_exec(table, fd, close_on_exec);
    spin_unlock(&table->lock);
    return result;
}
