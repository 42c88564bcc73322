/* The three file systems a program can tell apart, and what statfs says of
 * them. nohzk has one file tree and no mount(2), but Linux's programs look
 * for these mounts: the root, nohzk's in-memory tree, which behaves as a
 * tmpfs (its pages come from free memory, so statfs reports the machine's
 * pages as its size), /proc (vfs_seal'd: kernel/fs/procfs.c) and /sys
 * (kernel/fs/sysfs.c), which have no blocks. /proc/mounts lists them in Linux's format, so busybox
 * mount and df work. The root is named tmpfs, not Linux's "rootfs", which
 * df leaves out. Left out: mount(2), umount(2), /dev as a file system of
 * its own (it is part of the root here). */
#include <stdbool.h>

#include "kernel/fs/procfs.h"
#include "kernel/fs/vfs_internal.h"
#include "kernel/lib/string.h"
#include "kernel/mm/page_alloc.h"

#define TMPFS_MAGIC      0x01021994
#define PROC_SUPER_MAGIC 0x9fa0
#define PIPEFS_MAGIC     0x50495045
#define SYSFS_MAGIC      0x62656572
/* statfs f_flags (Linux's ST_*) */
#define ST_NOSUID   0x0002
#define ST_NODEV    0x0004
#define ST_NOEXEC   0x0008
#define ST_VALID    0x0020
#define ST_RELATIME 0x0400

/* pipe(2)'s ends: vfs_open_anonymous's inodes, which never had a name
 * (Linux's pipefs, not the tree's file system). */
static bool anonymous_pipe(const struct inode *inode)
{
    return is_type(inode, S_IFIFO) && inode->name && !inode->name[0];
}

void statfs_locked(const struct inode *inode, struct linux_statfs *out)
{
    memset(out, 0, sizeof(*out));
    out->f_bsize = out->f_frsize = 4096;
    out->f_namelen = 255;
    if (anonymous_pipe(inode)) {
        out->f_type = PIPEFS_MAGIC;
        out->f_flags = ST_VALID;
        return;
    }
    if (in_sysfs(inode)) {
        out->f_type = SYSFS_MAGIC;
        out->f_flags = ST_VALID | ST_NOSUID | ST_NODEV | ST_NOEXEC | ST_RELATIME;
        return;
    }
    if (sealed(inode)) {        /* /proc or a name in it */
        out->f_type = PROC_SUPER_MAGIC;
        out->f_flags = ST_VALID | ST_NOSUID | ST_NODEV | ST_NOEXEC | ST_RELATIME;
        return;
    }
    out->f_type = TMPFS_MAGIC;
    out->f_flags = ST_VALID | ST_RELATIME;
    out->f_blocks = page_total_count();
    out->f_bfree = out->f_bavail = page_free_count();
}

static void generate_mounts(struct proc_text *text)
{
    proc_printf(text, "tmpfs / tmpfs rw,relatime 0 0\n");
    proc_printf(text, "proc /proc proc rw,nosuid,nodev,noexec,relatime 0 0\n");
    proc_printf(text, "sysfs /sys sysfs rw,nosuid,nodev,noexec,relatime 0 0\n");
}

PROC_FILE("/proc/mounts", generate_mounts, NULL);
