/* /sys's registration interface: the few read-only files of Linux's sysfs
 * that C libraries and libnuma read at start-up (how many CPUs, which
 * are online, isolated or nohz_full, the one memory node). Each part of
 * the kernel names its files with SYSFS_FILE beside the function that
 * prints them, as /proc's with PROC_FILE (kernel/fs/procfs.h), and may
 * use proc_printf() to print. linker.ld collects the entries and
 * sysfs_init() creates the files (kernel/fs/sysfs.c). */
#ifndef KERNEL_FS_SYSFS_H
#define KERNEL_FS_SYSFS_H

#include "kernel/fs/procfs.h"

/* A file at path. show prints its whole text, as Linux's show() into one
 * page: what goes past 4096 bytes is cut off. */
struct sysfs_file {
    const char *path;
    void (*show)(struct proc_text *text);
};

#define SYSFS_FILE(path, show)                                                                \
    static const struct sysfs_file show##_sysfs_file = { path, show };                        \
    static const struct sysfs_file *const show##_sysfs_file_entry                             \
        __attribute__((used, section(".sysfs_files"))) = &show##_sysfs_file

/* A file of every /sys/devices/system/cpu/cpuN directory from CPU first_cpu
 * on (1 for Linux's `online`, which the boot CPU does not have). */
struct sysfs_cpu_file {
    const char *name;
    void (*show)(struct proc_text *text, unsigned cpu);
    unsigned first_cpu;
};

#define SYSFS_CPU_FILE(name, show, first_cpu)                                                 \
    static const struct sysfs_cpu_file show##_sysfs_cpu_file = { name, show, first_cpu };     \
    static const struct sysfs_cpu_file *const show##_sysfs_cpu_file_entry                     \
        __attribute__((used, section(".sysfs_cpu_files"))) = &show##_sysfs_cpu_file

/* Create /sys, its registered files and a cpuN directory per online CPU;
 * after the CPUs are up and procfs_init(). */
void sysfs_init(void);

#endif
