/* /sys: a small pseudo-file system of read-only files in Linux's formats
 * (the files live with their subsystems, registered with SYSFS_FILE and
 * SYSFS_CPU_FILE: kernel/fs/sysfs.h). As /proc's, each file is a node of
 * the VFS tree whose open prints the whole text into a buffer held by the
 * open file, and reads come from that snapshot. Linux's sysfs gives a
 * show() one page; so does this one. /sys is sealed (vfs_seal): no
 * system call adds, removes or moves a name under it; an open for
 * writing is EACCES, as Linux answers for a file without store().
 *
 * Left out: every other sysfs file and directory (devices, classes,
 * kobjects, uevents), writable attributes (CPU hotplug through
 * cpuN/online), poll notification. */
#include "kernel/fs/sysfs.h"

#include <stdint.h>

#include "kernel/base/percpu.h"
#include "kernel/base/printk.h"
#include "kernel/fs/vfs.h"
#include "kernel/lib/errno.h"
#include "kernel/lib/format.h"
#include "kernel/lib/string.h"
#include "kernel/mm/heap.h"

#define SYSFS_SHOW_MAX 4096     /* Linux's PAGE_SIZE for one show() */

extern const struct sysfs_file *const __sysfs_files_start[], *const __sysfs_files_end[];
extern const struct sysfs_cpu_file *const __sysfs_cpu_files_start[], *const __sysfs_cpu_files_end[];

/* A cpuN file's private word: cpu << 8 | its index in the table. */
#define CPU_FILE_BITS 8

struct sysfs_snapshot {
    size_t length;
    char data[SYSFS_SHOW_MAX + 1];
};

/* The snapshot for file, printed by print(text, what, cpu); EACCES for a
 * write open, ENOMEM if no buffer. */
static int sysfs_snapshot(struct file *file, void (*print)(struct proc_text *, const void *, unsigned),
                          const void *what, unsigned cpu)
{
    if ((file->flags & O_ACCMODE) != O_RDONLY)
        return -EACCES;
    struct sysfs_snapshot *snapshot = kmalloc(sizeof(*snapshot));
    if (!snapshot)
        return -ENOMEM;
    struct proc_text text = { snapshot->data, 0, SYSFS_SHOW_MAX };
    print(&text, what, cpu);
    snapshot->length = text.length < SYSFS_SHOW_MAX ? text.length : SYSFS_SHOW_MAX;
    file->private = snapshot;
    return 0;
}

static void print_global(struct proc_text *text, const void *what, unsigned cpu)
{
    (void)cpu;
    ((const struct sysfs_file *)what)->show(text);
}

static void print_cpu(struct proc_text *text, const void *what, unsigned cpu)
{
    ((const struct sysfs_cpu_file *)what)->show(text, cpu);
}

static int sysfs_open(struct file *file)
{
    return sysfs_snapshot(file, print_global, file->private, 0);
}

static int sysfs_cpu_open(struct file *file)
{
    uintptr_t packed = (uintptr_t)file->private;
    const struct sysfs_cpu_file *entry = __sysfs_cpu_files_start[packed & ((1u << CPU_FILE_BITS) - 1)];
    return sysfs_snapshot(file, print_cpu, entry, (unsigned)(packed >> CPU_FILE_BITS));
}

static long sysfs_read(struct file *file, void *buffer, size_t count)
{
    struct sysfs_snapshot *snapshot = file->private;
    if (file->position >= snapshot->length)
        return 0;
    size_t left = snapshot->length - file->position;
    if (count > left)
        count = left;
    memcpy(buffer, snapshot->data + file->position, count);
    file->position += count;
    return (long)count;
}

static void sysfs_release(struct file *file)
{
    kfree(file->private);
}

static const struct file_ops sysfs_ops = {
    .open = sysfs_open,
    .read = sysfs_read,
    .release = sysfs_release,
};

static const struct file_ops sysfs_cpu_ops = {
    .open = sysfs_cpu_open,
    .read = sysfs_read,
    .release = sysfs_release,
};

static void create(const char *path, uint32_t mode, const struct file_ops *ops, void *private)
{
    int error = vfs_create_device(path, mode, ops, private);
    if (error)
        printk("sysfs: cannot create %s: %d\n", path, error);
}

/* cpuN for each online CPU, with its files. */
static void create_cpu_directories(void)
{
    unsigned cpu;
    for_each_online_cpu(cpu) {
        char path[64];
        snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u", cpu);
        create(path, S_IFDIR | 0755, 0, 0);
        for (const struct sysfs_cpu_file *const *entry = __sysfs_cpu_files_start; entry < __sysfs_cpu_files_end;
             entry++) {
            if (cpu < (*entry)->first_cpu)
                continue;
            snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%u/%s", cpu, (*entry)->name);
            uintptr_t packed = (uintptr_t)cpu << CPU_FILE_BITS | (uintptr_t)(entry - __sysfs_cpu_files_start);
            create(path, S_IFREG | 0444, &sysfs_cpu_ops, (void *)packed);
        }
    }
}

void sysfs_init(void)
{
    for (const struct sysfs_file *const *entry = __sysfs_files_start; entry < __sysfs_files_end; entry++)
        create((*entry)->path, S_IFREG | 0444, &sysfs_ops, (void *)*entry);
    create_cpu_directories();
    vfs_seal("/sys");      /* its names are ours, as /proc's */
}

/* ---- /sys/devices/system/cpu: the CPUs' lists ----
 * Every CPU nohzk finds is brought up and none goes down, so possible,
 * present and online are one list (Linux's "%*pbl": "0-3"). isolated is
 * what isolcpus= took from the scheduler's domains: nohzk has no
 * isolcpus=, so it is empty, as on Linux booted without it. kernel_max is
 * NR_CPUS - 1. nohz_full is the tick's (kernel/time/nohz_task.c). */

static void show_online_cpus(struct proc_text *text)
{
    char list[CPULIST_FORMAT_SIZE];
    cpulist_format(&cpu_online_mask, list, sizeof(list));
    proc_printf(text, "%s\n", list);
}

static void show_possible_cpus(struct proc_text *text)
{
    show_online_cpus(text);
}

static void show_present_cpus(struct proc_text *text)
{
    show_online_cpus(text);
}

static void show_isolated_cpus(struct proc_text *text)
{
    proc_printf(text, "\n");
}

static void show_kernel_max(struct proc_text *text)
{
    proc_printf(text, "%d\n", MAX_CPUS - 1);
}

/* cpuN/online: 1, as every CPU stays up (the boot CPU has none, as on x86 Linux). */
static void show_cpu_online(struct proc_text *text, unsigned cpu)
{
    (void)cpu;
    proc_printf(text, "1\n");
}

SYSFS_FILE("/sys/devices/system/cpu/online", show_online_cpus);
SYSFS_FILE("/sys/devices/system/cpu/possible", show_possible_cpus);
SYSFS_FILE("/sys/devices/system/cpu/present", show_present_cpus);
SYSFS_FILE("/sys/devices/system/cpu/isolated", show_isolated_cpus);
SYSFS_FILE("/sys/devices/system/cpu/kernel_max", show_kernel_max);
SYSFS_CPU_FILE("online", show_cpu_online, 1);
