/* /proc's mechanism (the files themselves live with their subsystems,
 * registered with PROC_FILE and PROC_PID_FILE: kernel/fs/procfs.h). Each
 * file is a node in the VFS tree (vfs_create_device) whose open generates
 * the whole text into a buffer held by that open file; reads come from
 * that snapshot, so a reader that reads in pieces sees one consistent
 * text, as with Linux's seq_file for small files. Generators read their
 * counters without locks: a number that is a moment old is fine here.
 *
 * Per process, /proc/PID holds the PROC_PID_FILE entries: procfs_init()
 * hooks into the process table (process_table_add_hook) to create and
 * remove each directory in the VFS tree, so getdents64 on /proc lists the
 * pids with no special case. A per-process file's inode carries its pid
 * and its entry's index packed in the `private` word, not a pointer:
 * nothing to free, nothing that can outlive the process. The process is
 * looked up by pid at open: if it is gone, the open fails with ESRCH.
 * /proc/self is a generated symlink whose target is the caller's pid
 * (file_ops.link_target); so is /proc/thread-self, PID/task/TID, where
 * the files of PROC_PID_TID_FILE are about one thread (fault injection's
 * fail-nth is there too), and
 * /proc/PID/exe, the program execve loaded, for its own process only
 * (busybox's sh runs a script without #! through /proc/self/exe).
 *
 * A write is handed to the file whole (file_ops.whole_write_max: at most
 * PROC_WRITE_MAX bytes, all readable, else nothing reaches it).
 *
 * Left out: lseek past the snapshot's size with SEEK_END (the inode's
 * size is 0, as on Linux). */
#include "kernel/fs/procfs.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/base/printk.h"
#include "kernel/base/panic.h"
#include "kernel/fs/vfs.h"
#include "kernel/lib/errno.h"
#include "kernel/lib/format.h"
#include "kernel/lib/string.h"
#include "kernel/mm/heap.h"
#include "kernel/process/process.h"

/* What an open file holds: the snapshot, and for a per-process file which
 * one it is (pid_file NULL otherwise). */
struct snapshot {
    const struct proc_file *file;
    int pid;
    const struct proc_pid_file *pid_file;
    size_t length;
    char data[];
};

/* The entries of PROC_FILE and PROC_PID_FILE, collected by linker.ld. */
extern const struct proc_file *const __proc_files_start[], *const __proc_files_end[];
extern const struct proc_pid_file *const __proc_pid_files_start[], *const __proc_pid_files_end[];

/* A /proc/PID file's private word: pid << 9 | its index in the table; a
 * /proc/PID/task/TID file's: tid << 9 | 1 << 8 | its index. */
#define PID_FILE_BITS 8
#define TID_FILE_FLAG (1u << PID_FILE_BITS)
#define ID_SHIFT (PID_FILE_BITS + 1)

/* ---- Building a text ---- */

void proc_printf(struct proc_text *text, const char *format, ...)
{
    size_t room = text->length < text->capacity ? text->capacity - text->length : 0;
    va_list args;
    va_start(args, format);
    int written = vsnprintf(room ? text->data + text->length : NULL, room, format, args);
    va_end(args);
    if (written > 0)
        text->length += (size_t)written;
}

void proc_write_bytes(struct proc_text *text, const void *bytes, size_t count)
{
    size_t room = text->length < text->capacity ? text->capacity - text->length : 0;
    if (count < room) {
        memcpy(text->data + text->length, bytes, count);
        text->data[text->length + count] = '\0';
    }
    text->length += count;
}

/* ---- Open files ---- */

typedef bool (*generate_fn)(struct proc_text *text, const void *what, int pid);

/* Build a snapshot, retrying with more room until the text fits. */
static struct snapshot *take_snapshot(generate_fn generate, const void *what, int pid, long *error)
{
    size_t capacity = 4096;
    for (;;) {
        struct snapshot *snapshot = kmalloc(sizeof(*snapshot) + capacity);
        if (!snapshot) {
            *error = -ENOMEM;
            return 0;
        }
        struct proc_text text = { snapshot->data, 0, capacity };
        if (!generate(&text, what, pid)) {
            kfree(snapshot);
            *error = -ESRCH;
            return 0;
        }
        if (text.length < capacity) {
            snapshot->file = 0;
            snapshot->length = text.length;
            snapshot->pid = pid;
            snapshot->pid_file = 0;
            return snapshot;
        }
        /* Did not fit: once more with room for what it needed, and some
         * more for a file that grows meanwhile (/proc/trace). */
        kfree(snapshot);
        capacity = text.length + text.length / 8 + 1;
    }
}

static bool generate_global(struct proc_text *text, const void *what, int pid)
{
    (void)pid;
    ((const struct proc_file *)what)->generate(text);
    return true;
}

static bool generate_for_pid(struct proc_text *text, const void *what, int pid)
{
    spin_lock(&process_tree_lock);
    struct process *process = process_find_locked(pid);
    if (process)
        ((const struct proc_pid_file *)what)->generate(text, process);
    spin_unlock(&process_tree_lock);
    return process != 0;
}

/* A thread by tid; a zombie process's leader too (its task dir stays
 * until the process is reaped, as Linux's). */
static bool generate_for_tid(struct proc_text *text, const void *what, int tid)
{
    spin_lock(&process_tree_lock);
    struct thread *thread = thread_find_locked(tid);
    if (!thread) {
        struct process *process = process_find_locked(tid);
        thread = process ? &process->leader : 0;
    }
    if (thread)
        ((const struct proc_pid_file *)what)->generate_thread(text, thread);
    spin_unlock(&process_tree_lock);
    return thread != 0;
}

static int procfs_open(struct file *file)
{
    long error = 0;
    const struct proc_file *entry = file->private;
    if ((file->flags & O_ACCMODE) != O_RDONLY && !entry->write)
        return -EACCES;
    struct snapshot *snapshot = take_snapshot(generate_global, entry, 0, &error);
    if (!snapshot)
        return (int)error;
    snapshot->file = entry;
    file->private = snapshot;
    return 0;
}

static int procfs_pid_open(struct file *file)
{
    uintptr_t packed = (uintptr_t)file->private;
    const struct proc_pid_file *entry = __proc_pid_files_start[packed & ((1u << PID_FILE_BITS) - 1)];
    int pid = (int)(packed >> ID_SHIFT);
    if ((file->flags & O_ACCMODE) != O_RDONLY && !entry->write)
        return -EACCES;
    long error = 0;
    struct snapshot *snapshot =
        take_snapshot(packed & TID_FILE_FLAG ? generate_for_tid : generate_for_pid, entry, pid, &error);
    if (!snapshot)
        return (int)error;
    snapshot->pid_file = entry;
    file->private = snapshot;
    return 0;
}

static long procfs_read(struct file *file, void *buffer, size_t count)
{
    struct snapshot *snapshot = file->private;
    if (file->position >= snapshot->length)
        return 0;
    size_t left = snapshot->length - file->position;
    if (count > left)
        count = left;
    memcpy(buffer, snapshot->data + file->position, count);
    file->position += count;
    return (long)count;
}

static long procfs_write(struct file *file, const void *buffer, size_t count)
{
    struct snapshot *snapshot = file->private;
    return snapshot->file->write ? snapshot->file->write(buffer, count) : -EINVAL;
}

static long procfs_pid_write(struct file *file, const void *buffer, size_t count)
{
    struct snapshot *snapshot = file->private;
    return snapshot->pid_file->write(snapshot->pid, buffer, count);
}

static void procfs_release(struct file *file)
{
    kfree(file->private);
}

static const char *self_link_target(void *private, char *scratch, size_t size, size_t *length)
{
    (void)private;
    struct process *process = current_process();
    int written = snprintf(scratch, size, "%d", process ? process->pid : 0);
    *length = written > 0 ? (size_t)written : 0;
    return scratch;
}

/* /proc/thread-self: PID/task/TID of the caller. */
static const char *thread_self_link_target(void *private, char *scratch, size_t size, size_t *length)
{
    (void)private;
    struct thread *thread = current_thread();
    int written = snprintf(scratch, size, "%d/task/%d", thread ? thread->process->pid : 0, thread ? thread->tid : 0);
    *length = written > 0 ? (size_t)written : 0;
    return scratch;
}

/* /proc/PID/exe, private = PID: the program the caller runs, when PID is
 * the caller's own. Only the process itself replaces its exe_path
 * (execve), so the string stays put while it looks. Another process's
 * link is left out: reading its path would need process_tree_lock under
 * the VFS lock, an order nothing else takes. */
static const char *exe_link_target(void *private, char *scratch, size_t size, size_t *length)
{
    (void)scratch, (void)size;
    struct process *process = current_process();
    bool own = process && process->pid == (int)(uintptr_t)private && process->exe_path;
    *length = own ? strlen(process->exe_path) : 0;
    return own ? process->exe_path : "";
}

static const struct file_ops procfs_ops = {
    .open = procfs_open,
    .read = procfs_read,
    .write = procfs_write,
    .release = procfs_release,
    .whole_write_max = PROC_WRITE_MAX,
};

static const struct file_ops procfs_pid_ops = {
    .open = procfs_pid_open,
    .read = procfs_read,
    .write = procfs_pid_write,
    .release = procfs_release,
    .whole_write_max = PROC_WRITE_MAX,
};

static const struct file_ops procfs_self_ops = {
    .link_target = self_link_target,
};

static const struct file_ops procfs_thread_self_ops = {
    .link_target = thread_self_link_target,
};

static const struct file_ops procfs_exe_ops = {
    .link_target = exe_link_target,
};

/* ---- Creating the files ---- */

/* The process table's hooks: a process entered the table, or left it. A
 * failure (no memory) leaves the process without some /proc files:
 * reported, not fatal. */
static void tid_directory_create(int pid, int tid)
{
    for (const struct proc_pid_file *const *entry = __proc_pid_files_start; entry < __proc_pid_files_end; entry++) {
        if (!(*entry)->generate_thread)
            continue;
        char path[64];
        snprintf(path, sizeof(path), "/proc/%d/task/%d/%s", pid, tid, (*entry)->name);
        uintptr_t packed = (uintptr_t)tid << ID_SHIFT | TID_FILE_FLAG | (uintptr_t)(entry - __proc_pid_files_start);
        uint32_t mode = S_IFREG | ((*entry)->write ? 0644 : 0444);
        int error = vfs_create_device(path, mode, &procfs_pid_ops, (void *)packed);
        if (error)
            printk("procfs: cannot create %s: %d\n", path, error);
    }
}

static void tid_directory_remove(int pid, int tid)
{
    char path[48];
    snprintf(path, sizeof(path), "/proc/%d/task/%d", pid, tid);
    vfs_remove_tree(path);
}

static void pid_directory_create(int pid)
{
    const struct proc_pid_file *const *entry;
    tid_directory_create(pid, pid);
    for (entry = __proc_pid_files_start; entry < __proc_pid_files_end; entry++) {
        char path[48];
        snprintf(path, sizeof(path), "/proc/%d/%s", pid, (*entry)->name);
        uintptr_t packed = (uintptr_t)pid << ID_SHIFT | (uintptr_t)(entry - __proc_pid_files_start);
        uint32_t mode = S_IFREG | ((*entry)->write ? 0644 : 0444);
        int error = vfs_create_device(path, mode, &procfs_pid_ops, (void *)packed);
        if (error)
            printk("procfs: cannot create %s: %d\n", path, error);
    }
    char path[48];
    snprintf(path, sizeof(path), "/proc/%d/exe", pid);
    int error = vfs_create_device(path, S_IFLNK | 0777, &procfs_exe_ops, (void *)(uintptr_t)pid);
    if (error)
        printk("procfs: cannot create %s: %d\n", path, error);
}

static void pid_directory_remove(int pid)
{
    char path[32];
    snprintf(path, sizeof(path), "/proc/%d", pid);
    vfs_remove_tree(path);
}

static struct process_table_hook pid_directories = { pid_directory_create, pid_directory_remove,
                                                     tid_directory_create, tid_directory_remove, 0 };

void procfs_init(void)
{
    ASSERT(__proc_pid_files_end - __proc_pid_files_start <= (1 << PID_FILE_BITS));
    for (const struct proc_file *const *entry = __proc_files_start; entry < __proc_files_end; entry++) {
        uint32_t mode = S_IFREG | ((*entry)->write ? 0644 : 0444);
        int error = vfs_create_device((*entry)->path, mode, &procfs_ops, (void *)*entry);
        if (error)
            printk("procfs: cannot create %s: %d\n", (*entry)->path, error);
    }
    int error = vfs_create_device("/proc/self", S_IFLNK | 0777, &procfs_self_ops, 0);
    if (error)
        printk("procfs: cannot create /proc/self: %d\n", error);
    error = vfs_create_device("/proc/thread-self", S_IFLNK | 0777, &procfs_thread_self_ops, 0);
    if (error)
        printk("procfs: cannot create /proc/thread-self: %d\n", error);
    vfs_seal("/proc");      /* its names are ours: no user program adds or removes one */
    process_table_add_hook(&pid_directories);
}
