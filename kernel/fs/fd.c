/* File descriptor tables: for each process, fd number -> open file, plus
 * the close-on-exec flag of each fd. fork() copies the table and shares
 * the files (one more reference each), so parent and child share file
 * positions, as on Unix. A table has its own lock: its process uses it,
 * and fork and /proc may look at it from elsewhere. Files are closed after
 * the lock is dropped, since a device's release may sleep.
 *
 * RLIMIT_NOFILE is applied by the system calls (descriptor_limit in
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

struct fd_table {
    struct spinlock lock;
    struct file *files[FD_MAX];
    uint64_t close_on_exec[FD_MAX / 64]; /* one bit per fd */
};

struct fd_table *fd_table_create(void)
{
    struct fd_table *table = kzalloc(sizeof(*table));
    if (table)
        spin_lock_init(&table->lock, "fd_table");
    return table;
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
    return table->close_on_exec[fd / 64] >> (fd % 64) & 1;
}

struct fd_table *fd_table_clone(struct fd_table *table)
{
    struct fd_table *copy = fd_table_create();
    if (!copy)
        return NULL;
    spin_lock(&table->lock);
    for (int fd = 0; fd < FD_MAX; fd++) {
        if (table->files[fd])
            copy->files[fd] = vfs_file_get(table->files[fd]);
    }
    memcpy(copy->close_on_exec, table->close_on_exec, sizeof(copy->close_on_exec));
    spin_unlock(&table->lock);
    return copy;
}

/* Take fd out of the table: the caller now owns that reference. */
struct file *fd_detach(struct fd_table *table, int fd)
{
    if (fd < 0 || fd >= FD_MAX)
        return NULL;
    spin_lock(&table->lock);
    struct file *file = table->files[fd];
    table->files[fd] = NULL;
    set_close_on_exec(table, fd, false);
    spin_unlock(&table->lock);
    return file;
}

void fd_table_close_on_exec(struct fd_table *table)
{
    for (int fd = 0; fd < FD_MAX; fd++) {
        if (fd_close_on_exec(table, fd)) {
            struct file *file = fd_detach(table, fd);
            if (file)
                vfs_close(file);
        }
    }
}

void fd_table_destroy(struct fd_table *table)
{
    for (int fd = 0; fd < FD_MAX; fd++) {
        struct file *file = fd_detach(table, fd);
        if (file)
            vfs_close(file);
    }
    kfree(table);
}

int fd_install_from(struct fd_table *table, int lowest, struct file *file, bool close_on_exec)
{
    spin_lock(&table->lock);
    int fd = lowest < 0 ? 0 : lowest;
    while (fd < FD_MAX && table->files[fd])
        fd++;
    if (fd < FD_MAX) {
        table->files[fd] = file;
        set_close_on_exec(table, fd, close_on_exec);
    }
    spin_unlock(&table->lock);
    return fd < FD_MAX ? fd : -EMFILE;
}

int fd_lowest_free(struct fd_table *table)
{
    spin_lock(&table->lock);
    int fd = 0;
    while (fd < FD_MAX && table->files[fd])
        fd++;
    spin_unlock(&table->lock);
    return fd;
}

int fd_install(struct fd_table *table, struct file *file, bool close_on_exec)
{
    return fd_install_from(table, 0, file, close_on_exec);
}

struct file *fd_install_at(struct fd_table *table, int fd, struct file *file, bool close_on_exec)
{
    spin_lock(&table->lock);
    struct file *replaced = table->files[fd];
    table->files[fd] = file;
    set_close_on_exec(table, fd, close_on_exec);
    spin_unlock(&table->lock);
    return replaced;
}

struct file *fd_get(struct fd_table *table, int fd)
{
    if (!table || fd < 0 || fd >= FD_MAX)
        return NULL;
    spin_lock(&table->lock);
    struct file *file = table->files[fd];
    if (file)
        vfs_file_get(file);
    spin_unlock(&table->lock);
    return file;
}

int fd_set_close_on_exec(struct fd_table *table, int fd, bool close_on_exec)
{
    if (fd < 0 || fd >= FD_MAX)
        return -EBADF;
    spin_lock(&table->lock);
    int result = table->files[fd] ? 0 : -EBADF;
    if (!result)
        set_close_on_exec(table, fd, close_on_exec);
    spin_unlock(&table->lock);
    return result;
}
