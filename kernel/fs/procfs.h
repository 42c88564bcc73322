/* /proc's registration interface, for any folder: each part of the kernel
 * owns its /proc files by naming them with PROC_FILE (a global file) or
 * PROC_PID_FILE (a file of every /proc/PID) beside the functions that
 * generate their text. The linker collects the entries (linker.ld:
 * .proc_files, .proc_pid_files) and procfs_init() creates the files from
 * them (kernel/fs/procfs.c). A file's whole text is generated at open, with
 * proc_printf(); reads come from that snapshot. */
#ifndef KERNEL_FS_PROCFS_H
#define KERNEL_FS_PROCFS_H

#include <stddef.h>
#include <stdint.h>

/* Text being built, as snprintf builds it: what goes past the capacity is
 * counted in `length` but not stored, so the caller can tell it must
 * retry with more room. What fits ends with a NUL (not counted) once
 * anything was written. proc_write_bytes() is for text with NULs in it
 * (/proc/PID/cmdline). */
struct proc_text {
    char *data;
    size_t length, capacity;
};

void proc_printf(struct proc_text *text, const char *format, ...) __attribute__((format(printf, 2, 3)));
void proc_write_bytes(struct proc_text *text, const void *bytes, size_t count); /* NULs included */

/* A global file. With a write function it is writable (mode 0644, else
 * 0444): write gets a kernel copy of what was written and returns count
 * or a negative errno. It gets each write(2) whole, 1 to PROC_WRITE_MAX
 * bytes, all readable: an empty or longer one is EINVAL, a bad buffer
 * EFAULT, and neither reaches it (file_ops.whole_write_max). */
#define PROC_WRITE_MAX 4096
struct proc_file {
    const char *path;
    void (*generate)(struct proc_text *text);
    long (*write)(const char *data, size_t count);
};

#define PROC_FILE(path, generate, write)                                                      \
    static const struct proc_file generate##_proc_file = { path, generate, write };           \
    static const struct proc_file *const generate##_proc_file_entry                           \
        __attribute__((used, section(".proc_files"))) = &generate##_proc_file

/* A file of every /proc/PID, named `name` there. generate gets the
 * process, looked up by pid at open, under process_tree_lock (it must not
 * sleep); write gets the pid and a kernel copy of what was written. */
struct process;
struct thread;

struct proc_pid_file {
    const char *name;
    void (*generate)(struct proc_text *text, struct process *process);
    long (*write)(int pid, const char *data, size_t count);
    /* also in /proc/PID/task/TID, about that thread (write gets the tid) */
    void (*generate_thread)(struct proc_text *text, struct thread *thread);
};

#define PROC_PID_FILE(name, generate, write)                                                  \
    static const struct proc_pid_file generate##_proc_pid_file = { name, generate, write, 0 };\
    static const struct proc_pid_file *const generate##_proc_pid_file_entry                   \
        __attribute__((used, section(".proc_pid_files"))) = &generate##_proc_pid_file

/* A file of every /proc/PID and of every /proc/PID/task/TID. */
#define PROC_PID_TID_FILE(name, generate, generate_thread, write)                             \
    static const struct proc_pid_file generate##_proc_pid_file = { name, generate, write,    \
                                                                   generate_thread };         \
    static const struct proc_pid_file *const generate##_proc_pid_file_entry                   \
        __attribute__((used, section(".proc_pid_files"))) = &generate##_proc_pid_file

/* Create every registered file and /proc/self, and have each process's
 * /proc/PID created and removed with it; after vfs_init, before the first
 * process. */
void procfs_init(void);

#endif
