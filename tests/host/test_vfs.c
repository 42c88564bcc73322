/* Host unit tests of the file layer: the VFS (kernel/fs/inode.c, namei.c,
 * directory.c, ramfs.c, file.c, initramfs.c: the tree, lookup, open files,
 * the initramfs), kernel/fs/fd.c (descriptor tables) and
 * the system calls (kernel/fs/fs_syscalls.h), run against a pretend current
 * process. The kernel's services are replaced: the heap and spinlocks by
 * stubs.c's, the current process and user memory (plain memory) below. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "arch/x86/paging.h"
#include "kernel/fs/cpio.h"
#include "kernel/fs/procfs.h"
#include "kernel/lib/errno.h"
#include "kernel/fs/fs_syscalls.h"
#include "kernel/mm/page_alloc.h"
#include "kernel/process/process.h"
#include "kernel/mm/uaccess.h"
#include "kernel/fs/vfs.h"
#include "cpio_archive.h"

/* ---- The kernel services the file layer uses, beyond stubs.c's ---- */

static struct process test_process = { .rlimits[7] = { FD_MAX, FD_MAX } };     /* RLIMIT_NOFILE's default */

/* A fatal signal "pending" for the current process: set by a test. */
static int fatal_signal;

int signal_fatal_pending(void)
{
    return fatal_signal;
}

struct process *current_process(void)
{
    return &test_process;
}

/* write() of a process without a descriptor table: the test process has one. */
long sys_write_console(uint64_t fd, const char *user_buffer, uint64_t count)
{
    (void)fd, (void)user_buffer, (void)count;
    fail_msg("write went to the console");
    return -EBADF;
}

int copy_from_user(void *dst, const void *user_src, size_t length)
{
    if (!user_src && length)
        return -EFAULT;
    memcpy(dst, user_src, length);
    return 0;
}

int copy_to_user(void *user_dst, const void *src, size_t length)
{
    if (!user_dst && length)
        return -EFAULT;
    memcpy(user_dst, src, length);
    return 0;
}

long strncpy_from_user(char *dst, const char *user_src, size_t max)
{
    if (!user_src)
        return -EFAULT;
    size_t length = strnlen(user_src, max);
    if (length == max)
        return -ENAMETOOLONG;
    memcpy(dst, user_src, length + 1);
    return (long)length;
}

/* Host memory is all "user" memory; only NULL is bad, as above. */
bool user_range_ok(const void *user_start, size_t length)
{
    uint64_t start = (uint64_t)(uintptr_t)user_start, end = 0x0000800000000000ul;
    return start < end && length <= end - start;
}

size_t user_accessible_prefix(const void *user_start, size_t length, bool for_write)
{
    (void)for_write;
    return user_start ? length : 0;
}

/* File pages (kernel/fs/ramfs.c): malloc'd, named by the "physical"
 * address that phys_to_virt turns back into the pointer, each with its
 * count of holders in a list; pages_live counts those not freed. */
struct host_page {
    void *memory; /* a pointer, for the leak checker: files keep phys only */
    uint64_t phys;
    unsigned holders;
    struct host_page *next;
};
static struct host_page *host_pages;
static long pages_live;
static unsigned long page_events[PAGE_EVENT_COUNT];

static struct host_page *host_page(uint64_t phys)
{
    for (struct host_page *page = host_pages; page; page = page->next)
        if (page->phys == phys)
            return page;
    fail_msg("page %#lx was never allocated or is free", (unsigned long)phys);
    return NULL;
}

uint64_t page_alloc_unzeroed(void)
{
    struct host_page *page = malloc(sizeof(*page));
    void *memory = aligned_alloc(PAGE_SIZE, PAGE_SIZE);
    memset(memory, 0xa5, PAGE_SIZE); /* not zero: a reader of it would show */
    page->memory = memory;
    page->phys = (uint64_t)(uintptr_t)memory - DIRECT_MAP_BASE;
    page->holders = 1;
    page->next = host_pages;
    host_pages = page;
    pages_live++;
    return page->phys;
}

uint64_t page_alloc(void)
{
    uint64_t phys = page_alloc_unzeroed();
    memset(phys_to_virt(phys), 0, PAGE_SIZE);
    return phys;
}

void page_get(uint64_t phys)
{
    host_page(phys)->holders++;
}

unsigned page_holders(uint64_t phys)
{
    return host_page(phys)->holders;
}

void page_put(uint64_t phys)
{
    struct host_page *page = host_page(phys);
    if (--page->holders)
        return;
    struct host_page **link = &host_pages;
    while (*link != page)
        link = &(*link)->next;
    *link = page->next;
    free(page->memory);
    free(page);
    pages_live--;
}

/* The machine's pages, as statfs of the root reports them (mounts.c). */
size_t page_total_count(void)
{
    return 1000;
}

size_t page_free_count(void)
{
    return 600;
}

void proc_printf(struct proc_text *text, const char *format, ...)
{
    (void)text, (void)format;
}

void page_event_add(enum page_event event, unsigned long count)
{
    page_events[event] += count;
}

/* ---- Archives ---- */

/* Every entry has inode 0 and mtime 1234 (which stat then reports). */
static void add_entry(struct archive *archive, const char *name, uint32_t mode, const char *data)
{
    archive_add_entry(archive, name, mode, data, 0, 1234);
}

static int unpack(struct archive *archive)
{
    add_entry(archive, "TRAILER!!!", 0, NULL);
    int result = initramfs_unpack(archive->bytes, archive->length);
    free(archive->bytes);
    return result;
}

/* ---- Helpers ---- */

static int setup(void **state)
{
    (void)state;
    vfs_init();
    test_process.files = fd_table_create();
    test_process.cwd = NULL;
    test_process.umask = 022;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    fd_table_destroy(test_process.files);
    if (test_process.cwd)
        inode_put(test_process.cwd);
    test_process.cwd = NULL;
    return 0;
}

static void write_file(const char *path, const char *content)
{
    long fd = sys_open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(sys_write((int)fd, content, strlen(content)), strlen(content));
    assert_int_equal(sys_close((int)fd), 0);
}

/* The whole content of a file, or the open's error as text. */
static const char *read_file(const char *path)
{
    static char content[256];
    long fd = sys_open(path, O_RDONLY, 0);
    if (fd < 0) {
        snprintf(content, sizeof(content), "error %ld", fd);
        return content;
    }
    long length = sys_read((int)fd, content, sizeof(content) - 1);
    assert_true(length >= 0);
    content[length] = '\0';
    assert_int_equal(sys_close((int)fd), 0);
    return content;
}

static long stat_mode(const char *path, bool follow)
{
    struct linux_stat stat;
    long error = follow ? sys_stat(path, &stat) : sys_lstat(path, &stat);
    return error ? error : stat.st_mode;
}

/* ---- The initramfs ---- */

static void unpacks_an_archive(void **state)
{
    (void)state;
    struct archive archive = {0};
    add_entry(&archive, ".", S_IFDIR | 0755, NULL);
    add_entry(&archive, "unpack", S_IFDIR | 0755, NULL);
    add_entry(&archive, "unpack/bin", S_IFDIR | 0755, NULL);
    add_entry(&archive, "unpack/bin/busybox", S_IFREG | 0755, "#!busybox");
    add_entry(&archive, "unpack/bin/sh", S_IFLNK | 0777, "busybox");
    add_entry(&archive, "./unpack/etc/passwd", S_IFREG | 0644, "root:x:0:0::/:/bin/sh\n");
    add_entry(&archive, "/unpack/deep/a/b/empty", S_IFREG | 0600, NULL);
    add_entry(&archive, "unpack/dev/null", S_IFCHR | 0666, NULL);
    add_entry(&archive, "unpack/lib", S_IFLNK | 0777, "bin");
    add_entry(&archive, "unpack/lib/through_link", S_IFREG | 0644, "x");
    assert_int_equal(unpack(&archive), 0);

    assert_string_equal(read_file("/unpack/bin/busybox"), "#!busybox");
    assert_string_equal(read_file("/unpack/bin/sh"), "#!busybox");
    assert_string_equal(read_file("/unpack/etc/passwd"), "root:x:0:0::/:/bin/sh\n");
    assert_string_equal(read_file("/unpack/deep/a/b/empty"), "");
    assert_string_equal(read_file("/unpack/bin/through_link"), "x");
    assert_int_equal(stat_mode("/unpack/etc", true), S_IFDIR | 0755); /* created */
    assert_int_equal(stat_mode("/unpack/deep/a/b/empty", true), S_IFREG | 0600);
    assert_int_equal(stat_mode("/unpack/bin/sh", false), S_IFLNK | 0777);
    assert_int_equal(stat_mode("/unpack/dev/null", true), -ENOENT); /* skipped */

    struct linux_stat stat;
    assert_int_equal(sys_stat("/unpack/bin/busybox", &stat), 0);
    assert_int_equal(stat.st_size, 9);
    assert_int_equal(stat.st_mtime_sec, 1234);

    long error;
    struct file *file = vfs_open("/unpack/bin/sh", O_RDONLY, 0, &error);
    assert_non_null(file);
    assert_int_equal(error, 0);
    assert_true(vfs_is_executable(file));
    assert_int_equal(vfs_file_size(file), 9);
    char buffer[4];
    assert_int_equal(vfs_read(file, buffer, 4), 4);
    assert_memory_equal(buffer, "#!bu", 4);
    vfs_close(file);
    file = vfs_open("/unpack/etc/passwd", O_RDONLY, 0, &error);
    assert_false(vfs_is_executable(file));
    vfs_close(file);
    assert_null(vfs_open("/unpack/nothing", O_RDONLY, 0, &error));
    assert_int_equal(error, -ENOENT);
}

static void replaces_files_and_rejects_bad_archives(void **state)
{
    (void)state;
    struct archive archive = {0};
    add_entry(&archive, "again/file", S_IFREG | 0644, "first");
    add_entry(&archive, "again/file", S_IFREG | 0644, "second");
    assert_int_equal(unpack(&archive), 0);
    assert_string_equal(read_file("/again/file"), "second");

    memset(&archive, 0, sizeof(archive));
    add_entry(&archive, "again/empty_link", S_IFLNK | 0777, NULL);
    assert_int_equal(unpack(&archive), -EINVAL);

    memset(&archive, 0, sizeof(archive));
    add_entry(&archive, "again/file/below_a_file", S_IFREG | 0644, "x");
    assert_int_equal(unpack(&archive), -ENOTDIR);

    memset(&archive, 0, sizeof(archive));
    add_entry(&archive, "again/truncated", S_IFREG | 0644, "x");
    assert_int_equal(initramfs_unpack(archive.bytes, archive.length), -EINVAL); /* no trailer */
    free(archive.bytes);
}

/* ---- Lookup ---- */

/* statfs: /proc and what is in it are proc, the rest is the root's tmpfs
 * with the machine's pages as its size; a missing path is ENOENT. */
static void statfs_tells_proc_from_the_root(void **state)
{
    (void)state;
    struct linux_statfs out;
    assert_int_equal(sys_mkdir("/proc", 0555), 0);
    assert_int_equal(sys_mkdir("/proc/sys", 0555), 0);
    vfs_seal("/proc");
    assert_int_equal(sys_statfs("/proc", &out), 0);
    assert_int_equal(out.f_type, 0x9fa0);
    assert_int_equal(out.f_blocks, 0);
    assert_int_equal(sys_statfs("/proc/sys/", &out), 0);
    assert_int_equal(out.f_type, 0x9fa0);
    assert_int_equal(sys_statfs("/", &out), 0);
    assert_int_equal(out.f_type, 0x01021994);
    assert_int_equal(out.f_blocks, 1000);
    assert_int_equal(out.f_bfree, 600);
    assert_int_equal(out.f_bavail, 600);
    assert_int_equal(sys_statfs("/proc/none", &out), -ENOENT);
    long fd = sys_open("/proc", O_RDONLY, 0);
    assert_true(fd >= 0);
    assert_int_equal(sys_fstatfs((int)fd, &out), 0);
    assert_int_equal(out.f_type, 0x9fa0);
    sys_close((int)fd);
    assert_int_equal(sys_fstatfs(-1, &out), -EBADF);
}

static void looks_up_paths(void **state)
{
    (void)state;
    assert_int_equal(sys_mkdir("/look", 0755), 0);
    assert_int_equal(sys_mkdir("/look/dir", 0755), 0);
    write_file("/look/dir/file", "content");
    assert_string_equal(read_file("/look/dir/../dir/./file"), "content");
    assert_string_equal(read_file("//look///dir//file"), "content");
    assert_string_equal(read_file("/../../look/dir/file"), "content"); /* ".." of / is / */
    assert_int_equal(stat_mode("/look/dir/", true), S_IFDIR | 0755);
    assert_int_equal(stat_mode("/look/dir/file/", true), -ENOTDIR);
    assert_int_equal(stat_mode("/look/dir/file/x", true), -ENOTDIR);
    assert_int_equal(stat_mode("/look/none/x", true), -ENOENT);
    assert_int_equal(stat_mode("", true), -ENOENT);
    assert_int_equal(stat_mode("/", true), S_IFDIR | 0755);

    char long_name[300];
    memset(long_name, 'n', sizeof(long_name));
    long_name[0] = '/';
    long_name[257] = '\0'; /* 256 characters */
    assert_int_equal(stat_mode(long_name, true), -ENAMETOOLONG);
    long_name[256] = '\0'; /* 255: fine, just absent */
    assert_int_equal(stat_mode(long_name, true), -ENOENT);

    char *long_path = malloc(PATH_MAX + 1);
    for (int i = 0; i < PATH_MAX; i++)
        long_path[i] = i % 2 ? '.' : '/';
    long_path[PATH_MAX] = '\0';
    assert_int_equal(stat_mode(long_path, true), -ENAMETOOLONG);
    long_path[PATH_MAX - 1] = '\0'; /* 4095 characters: "/./././" is the root */
    assert_int_equal(stat_mode(long_path, true), S_IFDIR | 0755);
    free(long_path);
}

static void follows_symlinks(void **state)
{
    (void)state;
    struct archive archive = {0};
    add_entry(&archive, "links/target", S_IFREG | 0644, "end");
    add_entry(&archive, "links/absolute", S_IFLNK | 0777, "/links/target");
    add_entry(&archive, "links/sub/up", S_IFLNK | 0777, "../target");
    add_entry(&archive, "links/to_sub", S_IFLNK | 0777, "sub");
    add_entry(&archive, "links/loop_a", S_IFLNK | 0777, "loop_b");
    add_entry(&archive, "links/loop_b", S_IFLNK | 0777, "loop_a");
    add_entry(&archive, "links/dangling", S_IFLNK | 0777, "nowhere");
    /* chain0 -> chain1 -> ... -> chain40 -> target */
    char name[32], target[32];
    for (int i = 0; i <= 40; i++) {
        snprintf(name, sizeof(name), "links/chain%d", i);
        snprintf(target, sizeof(target), i == 40 ? "target" : "chain%d", i + 1);
        add_entry(&archive, name, S_IFLNK | 0777, target);
    }
    assert_int_equal(unpack(&archive), 0);

    assert_string_equal(read_file("/links/absolute"), "end");
    assert_string_equal(read_file("/links/sub/up"), "end");
    assert_string_equal(read_file("/links/to_sub/up"), "end");
    assert_string_equal(read_file("/links/to_sub/../target"), "end"); /* ".." of sub */
    assert_int_equal(stat_mode("/links/to_sub/", true), S_IFDIR | 0755);
    assert_int_equal(stat_mode("/links/to_sub", false), S_IFLNK | 0777);
    assert_string_equal(read_file("/links/loop_a"), "error -40");
    assert_string_equal(read_file("/links/dangling"), "error -2");
    assert_int_equal(stat_mode("/links/dangling", false), S_IFLNK | 0777);
    assert_string_equal(read_file("/links/chain1"), "end");       /* 40 links */
    assert_string_equal(read_file("/links/chain0"), "error -40"); /* 41 links */

    assert_int_equal(sys_open("/links/absolute", O_RDONLY | O_NOFOLLOW, 0), -ELOOP);
    char buffer[32];
    assert_int_equal(sys_readlink("/links/absolute", buffer, sizeof(buffer)), 13);
    assert_memory_equal(buffer, "/links/target", 13);
    assert_int_equal(sys_readlink("/links/absolute", buffer, 3), 3);
    assert_memory_equal(buffer, "/li", 3);
    assert_int_equal(sys_readlink("/links/target", buffer, sizeof(buffer)), -EINVAL);
    assert_int_equal(sys_readlink("/links/absolute", buffer, 0), -EINVAL);
    assert_int_equal(sys_readlink("/links/none", buffer, sizeof(buffer)), -ENOENT);

    /* Creating through a symlink writes its target. */
    long fd = sys_open("/links/absolute", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(sys_write((int)fd, "new", 3), 3);
    assert_int_equal(sys_close((int)fd), 0);
    assert_string_equal(read_file("/links/target"), "new");
    assert_int_equal(sys_open("/links/absolute", O_WRONLY | O_CREAT | O_EXCL, 0644), -EEXIST);
}

/* "dot/" n times, then tail: dot is a link to its own directory. */
static char *through_dots(int count, const char *tail)
{
    static char path[512];
    size_t used = (size_t)snprintf(path, sizeof(path), "/bounded/");
    for (int i = 0; i < count; i++)
        used += (size_t)snprintf(path + used, sizeof(path) - used, "dot/");
    snprintf(path + used, sizeof(path) - used, "%s", tail);
    return path;
}

/* name -> "part/part/.../part", 4095 bytes: 2048 links when part is one. */
static void add_chain_link(struct archive *archive, const char *name, char part)
{
    char *target = malloc(PATH_MAX);
    for (int i = 0; i < PATH_MAX - 1; i++)
        target[i] = i % 2 ? '/' : part;
    target[PATH_MAX - 1] = '\0';
    add_entry(archive, name, S_IFLNK | 0777, target);
    free(target);
}

/* One lookup follows at most 40 links (Linux's MAXSYMLINKS), counted over
 * the whole walk: in a row, in different components, inside targets,
 * after the directory part of an O_CREAT open. Bounding only the nesting
 * let a link to "x/x/.../x" follow 2048 links, and one to "y/y/.../y" 2048
 * times that. */
static void bounds_the_links_of_a_lookup(void **state)
{
    (void)state;
    struct archive archive = {0};
    add_entry(&archive, "bounded/file", S_IFREG | 0644, "end");
    add_entry(&archive, "bounded/dot", S_IFLNK | 0777, ".");
    add_entry(&archive, "bounded/last", S_IFLNK | 0777, "file");
    add_entry(&archive, "bounded/deep40", S_IFLNK | 0777, "deep39/.");
    for (int i = 39; i >= 1; i--) {
        char name[32], target[32];
        snprintf(name, sizeof(name), "bounded/deep%d", i);
        snprintf(target, sizeof(target), i == 1 ? "." : "deep%d/.", i - 1);
        add_entry(&archive, name, S_IFLNK | 0777, target);
    }
    add_chain_link(&archive, "bounded/x", 'd');     /* 2048 times "d", a link to "." */
    add_chain_link(&archive, "bounded/y", 'x');
    add_entry(&archive, "bounded/d", S_IFLNK | 0777, ".");
    assert_int_equal(unpack(&archive), 0);

    assert_int_equal(stat_mode(through_dots(40, "file"), true), S_IFREG | 0644);
    assert_int_equal(stat_mode(through_dots(41, "file"), true), -ELOOP);
    assert_int_equal(stat_mode(through_dots(39, "last"), true), S_IFREG | 0644);
    assert_int_equal(stat_mode(through_dots(40, "last"), true), -ELOOP);
    assert_int_equal(stat_mode(through_dots(40, "last"), false), S_IFLNK | 0777);
    assert_int_equal(stat_mode("/bounded/deep40", true), S_IFDIR | 0755);   /* nested 40 deep */
    assert_int_equal(stat_mode("/bounded/dot/deep40", true), -ELOOP);
    assert_int_equal(stat_mode("/bounded/x", true), -ELOOP);
    assert_int_equal(stat_mode("/bounded/y", true), -ELOOP);
    assert_int_equal(stat_mode("/bounded/y", false), S_IFLNK | 0777);
    char buffer[8];
    assert_int_equal(sys_readlink(through_dots(41, "last"), buffer, sizeof(buffer)), -ELOOP);
    assert_int_equal(sys_readlink(through_dots(40, "last"), buffer, sizeof(buffer)), 4);

    /* O_CREAT: the directory part's links and the last one, together. */
    long fd = sys_open(through_dots(39, "last"), O_WRONLY | O_CREAT, 0644);
    assert_true(fd >= 0);
    assert_int_equal(sys_close((int)fd), 0);
    assert_int_equal(sys_open(through_dots(40, "last"), O_WRONLY | O_CREAT, 0644), -ELOOP);
    assert_int_equal(sys_mkdir(through_dots(41, "new"), 0755), -ELOOP);
    assert_int_equal(sys_mkdir(through_dots(40, "new"), 0755), 0);
}

/* ---- Files ---- */

static void reads_and_writes_files(void **state)
{
    (void)state;
    assert_int_equal(sys_mkdir("/files", 0777), 0);
    assert_int_equal(stat_mode("/files", true), S_IFDIR | 0755); /* umask 022 */
    long fd = sys_open("/files/a", O_CREAT | O_RDWR, 0666);
    assert_int_equal(fd, 0); /* lowest free */
    assert_int_equal(stat_mode("/files/a", true), S_IFREG | 0644);
    assert_int_equal(sys_write(0, "hello", 5), 5);
    char buffer[16] = {0};
    assert_int_equal(sys_read(0, buffer, sizeof(buffer)), 0); /* at the end */
    assert_int_equal(sys_lseek(0, 1, SEEK_SET), 1);
    assert_int_equal(sys_read(0, buffer, 3), 3);
    assert_memory_equal(buffer, "ell", 3);
    assert_int_equal(sys_lseek(0, -1, SEEK_END), 4);
    assert_int_equal(sys_lseek(0, 2, SEEK_CUR), 6);
    assert_int_equal(sys_lseek(0, -7, SEEK_CUR), -EINVAL);
    assert_int_equal(sys_lseek(0, 0, 5), -EINVAL);     /* 3 and 4 are SEEK_DATA and SEEK_HOLE */
    assert_int_equal(sys_write(0, "!", 1), 1); /* leaves a hole at 5 */
    struct linux_stat stat;
    assert_int_equal(sys_fstat(0, &stat), 0);
    assert_int_equal(stat.st_size, 7);
    assert_int_equal(sys_lseek(0, 0, SEEK_SET), 0);
    assert_int_equal(sys_read(0, buffer, sizeof(buffer)), 7);
    assert_memory_equal(buffer, "hello\0!", 7);
    assert_int_equal(sys_close(0), 0);
    assert_int_equal(sys_close(0), -EBADF);

    /* Access modes, O_APPEND, O_TRUNC, O_EXCL. */
    fd = sys_open("/files/a", O_RDONLY, 0);
    assert_int_equal(sys_write((int)fd, "x", 1), -EBADF);
    sys_close((int)fd);
    fd = sys_open("/files/a", O_WRONLY | O_APPEND, 0);
    assert_int_equal(sys_read((int)fd, buffer, 1), -EBADF);
    assert_int_equal(sys_write((int)fd, "?", 1), 1);
    sys_close((int)fd);
    assert_int_equal(strlen(read_file("/files/a")), 5); /* stops at the hole's NUL */
    assert_int_equal(sys_open("/files/a", O_CREAT | O_EXCL | O_WRONLY, 0644), -EEXIST);
    fd = sys_open("/files/a", O_WRONLY | O_TRUNC, 0);
    sys_close((int)fd);
    assert_string_equal(read_file("/files/a"), "");
    assert_int_equal(sys_open("/files/a", O_RDONLY | O_DIRECTORY, 0), -ENOTDIR);
    assert_int_equal(sys_open("/files", O_WRONLY, 0), -EISDIR);
    assert_int_equal(sys_open("/files/new/", O_CREAT | O_WRONLY, 0644), -EISDIR);
    assert_int_equal(sys_open("/files/none/a", O_CREAT | O_WRONLY, 0644), -ENOENT);
    assert_int_equal(sys_open(NULL, O_RDONLY, 0), -EFAULT);
    assert_int_equal(sys_read(-1, buffer, 1), -EBADF);
    assert_int_equal(sys_read(FD_MAX, buffer, 1), -EBADF);
    assert_int_equal(sys_write(7, buffer, 1), -EBADF);
}

static void moves_large_files_in_pieces(void **state)
{
    (void)state;
    size_t size = 300000; /* several IO_CHUNKs and COPY_CHUNKs */
    unsigned char *data = malloc(size), *back = malloc(size + 1);
    for (size_t i = 0; i < size; i++)
        data[i] = (unsigned char)(i * 7 + i / 251);
    long fd = sys_open("/large", O_CREAT | O_RDWR, 0644);
    assert_int_equal(sys_write((int)fd, data, size), size);
    assert_int_equal(sys_lseek((int)fd, 0, SEEK_SET), 0);
    assert_int_equal(sys_read((int)fd, back, size + 1), size);
    assert_memory_equal(data, back, size);
    sys_close((int)fd);

    long error;
    struct file *file = vfs_open("/large", O_RDONLY, 0, &error);
    assert_int_equal(vfs_file_size(file), size);
    memset(back, 0, size);
    assert_int_equal(vfs_read(file, back, size), size);
    assert_memory_equal(data, back, size);
    vfs_close(file);
    assert_int_equal(sys_unlink("/large"), 0);
    free(data);
    free(back);
}

/* A file's pages: holes take none and read as zeros; a page someone else
 * holds (vfs_file_page, as execve) is copied before a write, and the
 * holder keeps the old content; O_TRUNC and unlink give every page back. */
static void shares_pages_and_copies_them_before_a_write(void **state)
{
    (void)state;
    long live = pages_live;
    long fd = sys_open("/paged", O_CREAT | O_RDWR, 0644);
    char page_of_a[PAGE_SIZE];
    memset(page_of_a, 'a', sizeof(page_of_a));
    assert_int_equal(sys_write((int)fd, page_of_a, PAGE_SIZE), PAGE_SIZE);
    assert_int_equal(sys_lseek((int)fd, 3 * PAGE_SIZE + 10, SEEK_SET), 3 * PAGE_SIZE + 10);
    assert_int_equal(sys_write((int)fd, "end", 3), 3);
    assert_int_equal(pages_live, live + 2); /* pages 1 and 2 are a hole */
    char back[4 * PAGE_SIZE];
    assert_int_equal(sys_lseek((int)fd, 0, SEEK_SET), 0);
    assert_int_equal(sys_read((int)fd, back, sizeof(back)), 3 * PAGE_SIZE + 13);
    for (size_t i = PAGE_SIZE; i < 3 * PAGE_SIZE + 10; i++)
        assert_int_equal(back[i], 0);
    assert_memory_equal(back + 3 * PAGE_SIZE + 10, "end", 3);

    long error;
    struct file *file = vfs_open("/paged", O_RDONLY, 0, &error);
    uint64_t page = 0, hole = 1, past = 1;
    assert_int_equal(vfs_file_page(file, 0, &page), 0);
    assert_int_equal(vfs_file_page(file, 1, &hole), 0);
    assert_int_equal(vfs_file_page(file, 4, &past), 0);
    assert_true(page && !hole && !past);
    assert_int_equal(page_holders(page), 2);
    unsigned long copies = page_events[FILE_PAGES_COPIED];
    assert_int_equal(sys_lseek((int)fd, 100, SEEK_SET), 100);
    assert_int_equal(sys_write((int)fd, "new", 3), 3);
    assert_int_equal(page_events[FILE_PAGES_COPIED], copies + 1);
    assert_int_equal(page_holders(page), 1);       /* the file has its copy */
    assert_memory_equal((char *)phys_to_virt(page) + 100, "aaa", 3);
    assert_int_equal(sys_write((int)fd, "more", 4), 4); /* the copy is the file's alone now */
    assert_int_equal(page_events[FILE_PAGES_COPIED], copies + 1);
    assert_int_equal(sys_lseek((int)fd, 98, SEEK_SET), 98);
    assert_int_equal(sys_read((int)fd, back, 11), 11);
    assert_memory_equal(back, "aanewmoreaa", 11);
    page_put(page);

    assert_int_equal(vfs_file_page(file, 3, &page), 0);
    long fd2 = sys_open("/paged", O_WRONLY | O_TRUNC, 0);  /* the holder keeps its page */
    assert_int_equal(pages_live, live + 1);
    assert_memory_equal((char *)phys_to_virt(page) + 10, "end", 3);
    page_put(page);
    assert_int_equal(pages_live, live);
    assert_int_equal(sys_write((int)fd2, "x", 1), 1);
    sys_close((int)fd2);
    sys_close((int)fd);
    vfs_close(file);
    assert_int_equal(sys_unlink("/paged"), 0);
    assert_int_equal(pages_live, live);

    /* The last byte a file may hold, alone: one page and a list of them. */
    fd = sys_open("/sparse", O_CREAT | O_RDWR, 0644);
    assert_int_equal(sys_lseek((int)fd, (1l << 30) - 1, SEEK_SET), (1l << 30) - 1);
    assert_int_equal(sys_write((int)fd, "z", 1), 1);
    assert_int_equal(sys_write((int)fd, "z", 1), -ENOSPC);
    assert_int_equal(pages_live, live + 1);
    sys_close((int)fd);
    assert_int_equal(sys_unlink("/sparse"), 0);
    assert_int_equal(pages_live, live);
}

static void reads_and_writes_vectors(void **state)
{
    (void)state;
    long fd = sys_open("/vector", O_CREAT | O_RDWR, 0644);
    struct linux_iovec iov[3] = {
        {(uint64_t)(uintptr_t) "one ", 4}, {(uint64_t)(uintptr_t) "", 0}, {(uint64_t)(uintptr_t) "two", 3}};
    assert_int_equal(sys_writev((int)fd, iov, 3), 7);
    assert_int_equal(sys_lseek((int)fd, 0, SEEK_SET), 0);
    char first[2], second[16];
    struct linux_iovec in[2] = {{(uint64_t)(uintptr_t)first, 2}, {(uint64_t)(uintptr_t)second, 16}};
    assert_int_equal(sys_readv((int)fd, in, 2), 7);
    assert_memory_equal(first, "on", 2);
    assert_memory_equal(second, "e two", 5);
    assert_int_equal(sys_writev((int)fd, iov, -1), -EINVAL);
    assert_int_equal(sys_writev((int)fd, iov, 1025), -EINVAL);
    assert_int_equal(sys_writev((int)fd, NULL, 1), -EFAULT);
    assert_int_equal(sys_writev(99, iov, 1), -EBADF);
    struct linux_iovec huge[2] = {{(uint64_t)(uintptr_t)first, INT64_MAX}, {(uint64_t)(uintptr_t)first, 2}};
    assert_int_equal(sys_writev((int)fd, huge, 2), -EFAULT); /* past the user half, as Linux */
    huge[0].length = (uint64_t)INT64_MAX + 1;
    assert_int_equal(sys_writev((int)fd, huge, 2), -EINVAL); /* negative as ssize_t */
    sys_close((int)fd);
}

/* A device that takes every write whole, counting the bytes. */
static uint64_t swallowed;

static long swallow(struct file *file, const void *buffer, size_t count)
{
    (void)file, (void)buffer;
    swallowed += count;
    return (long)count;
}

static const struct file_ops swallow_ops = {.write = swallow};

/* One readv or writev moves at most MAX_RW_COUNT (0x7ffff000) bytes, as
 * on Linux: the pieces are cut, and those past the cap are not looked at.
 * 4 GiB asked: without the cap, the copy is twice as long, and 64 pieces
 * of 1 GiB would be 64 GiB. */
static void cuts_vectors_at_max_rw_count(void **state)
{
    (void)state;
    size_t size = 64ul << 20;
    char *data = calloc(1, size);
    assert_int_equal(vfs_create_device("/dev/swallow", 0666, &swallow_ops, NULL), 0);
    long fd = sys_open("/dev/swallow", O_WRONLY, 0);
    assert_true(fd >= 0);
    struct linux_iovec iov[65];
    for (int i = 0; i < 64; i++)
        iov[i] = (struct linux_iovec){(uint64_t)(uintptr_t)data, size};
    iov[64] = (struct linux_iovec){(uint64_t)(uintptr_t)data, 1}; /* past the cap: cut to nothing */
    swallowed = 0;
    assert_int_equal(sys_writev((int)fd, iov, 65), 0x7ffff000);
    assert_int_equal(swallowed, 0x7ffff000);
    sys_close((int)fd);
    free(data);
}

/* A process with a fatal signal pending stops copying after the piece in
 * hand: it dies on the way out, and a read or write of a gigabyte must
 * not make SIGKILL wait for it. */
static void stops_copying_for_a_fatal_signal(void **state)
{
    (void)state;
    size_t size = 65536; /* sixteen IO_CHUNKs */
    char *data = calloc(1, size);
    long fd = sys_open("/fatal", O_CREAT | O_RDWR, 0644);
    assert_int_equal(sys_write((int)fd, data, size), size);
    assert_int_equal(sys_lseek((int)fd, 0, SEEK_SET), 0);
    fatal_signal = 9;
    assert_int_equal(sys_read((int)fd, data, size), 4096);
    assert_int_equal(sys_write((int)fd, data, size), 4096);
    struct linux_iovec iov[2] = {{(uint64_t)(uintptr_t)data, 4096}, {(uint64_t)(uintptr_t)data, 4096}};
    assert_int_equal(sys_writev((int)fd, iov, 2), 4096);
    fatal_signal = 0;
    assert_int_equal(sys_lseek((int)fd, 0, SEEK_CUR), 4096 * 3); /* one piece each */
    sys_close((int)fd);
    assert_int_equal(sys_unlink("/fatal"), 0);
    free(data);
}

/* ---- Descriptors ---- */

static void duplicates_descriptors(void **state)
{
    (void)state;
    write_file("/dup", "abcdef");
    long fd = sys_open("/dup", O_RDONLY, 0);
    assert_int_equal(fd, 0);
    assert_int_equal(sys_dup(0), 1);
    char c;
    assert_int_equal(sys_read(1, &c, 1), 1);
    assert_int_equal(sys_read(0, &c, 1), 1);
    assert_int_equal(c, 'b'); /* shared position */
    assert_int_equal(sys_dup2(0, 5), 5);
    assert_int_equal(sys_dup2(5, 5), 5);
    assert_int_equal(sys_dup2(6, 6), -EBADF);
    assert_int_equal(sys_dup2(0, FD_MAX), -EBADF);
    assert_int_equal(sys_dup3(0, 0, 0), -EINVAL);
    assert_int_equal(sys_dup3(0, 3, 1), -EINVAL);
    assert_int_equal(sys_dup3(0, 3, O_CLOEXEC), 3);
    assert_int_equal(sys_fcntl(3, F_GETFD, 0), FD_CLOEXEC);
    assert_int_equal(sys_fcntl(5, F_GETFD, 0), 0);
    assert_int_equal(sys_fcntl(5, F_SETFD, FD_CLOEXEC), 0);
    assert_int_equal(sys_fcntl(5, F_GETFD, 0), FD_CLOEXEC);
    assert_int_equal(sys_fcntl(0, F_DUPFD, 4), 4);
    assert_int_equal(sys_fcntl(0, F_DUPFD_CLOEXEC, 4), 6);
    assert_int_equal(sys_fcntl(6, F_GETFD, 0), FD_CLOEXEC);
    assert_int_equal(sys_fcntl(0, F_DUPFD, FD_MAX), -EINVAL);
    assert_int_equal(sys_fcntl(0, F_GETFL, 0), O_RDONLY);
    assert_int_equal(sys_fcntl(0, F_SETFL, O_APPEND | O_NONBLOCK | O_WRONLY), 0);
    assert_int_equal(sys_fcntl(0, F_GETFL, 0), O_RDONLY | O_APPEND | O_NONBLOCK);
    assert_int_equal(sys_fcntl(0, 12345, 0), -EINVAL);
    assert_int_equal(sys_fcntl(99, F_GETFD, 0), -EBADF);
    assert_int_equal(sys_ioctl(0, TCGETS, 0), -ENOTTY);
    assert_int_equal(sys_ioctl(99, TCGETS, 0), -EBADF);

    /* dup2 onto an open fd closes it first. */
    long other = sys_open("/dup", O_RDONLY, 0);
    assert_int_equal(other, 2);
    assert_int_equal(sys_dup2(0, 2), 2);
    assert_int_equal(sys_read(2, &c, 1), 1);
    assert_int_equal(c, 'c');

    /* Fill the table. */
    int opened = 0;
    for (;;) {
        long next = sys_dup(0);
        if (next < 0) {
            assert_int_equal(next, -EMFILE);
            break;
        }
        opened++;
    }
    assert_int_equal(opened, FD_MAX - 7);
    assert_int_equal(sys_open("/dup", O_RDONLY, 0), -EMFILE);
    assert_int_equal(sys_close(100), 0);
    assert_int_equal(sys_open("/dup", O_RDONLY | O_CLOEXEC, 0), 100);
    assert_int_equal(sys_fcntl(100, F_GETFD, 0), FD_CLOEXEC);
}

/* A device that counts what is done to it. */
static int device_opens, device_releases;

static int device_open(struct file *file)
{
    assert_ptr_equal(file->private, &device_opens);
    device_opens++;
    return 0;
}

static long device_read(struct file *file, void *buffer, size_t count)
{
    (void)file;
    memset(buffer, 'z', count > 2 ? 2 : count); /* short reads, like a terminal */
    return count > 2 ? 2 : (long)count;
}

static long device_write(struct file *file, const void *buffer, size_t count)
{
    (void)file, (void)buffer;
    return (long)count;
}

static long device_ioctl(struct file *file, unsigned long request, unsigned long argument)
{
    (void)file, (void)argument;
    return request == TIOCGPGRP ? 42 : -ENOTTY;
}

static void device_release(struct file *file)
{
    (void)file;
    device_releases++;
}

static const struct file_ops device_ops = {
    .open = device_open,
    .read = device_read,
    .write = device_write,
    .ioctl = device_ioctl,
    .release = device_release,
};

static void forks_and_execs_tables(void **state)
{
    (void)state;
    assert_int_equal(vfs_create_device("/devices/test", 0666, &device_ops, &device_opens), 0);
    assert_int_equal(vfs_create_device("/devices/test", 0666, &device_ops, NULL), -EEXIST);
    assert_int_equal(vfs_create_device("/devices/bad", 0666, NULL, NULL), -EINVAL);
    assert_int_equal(stat_mode("/devices/test", true), S_IFCHR | 0666);
    device_opens = device_releases = 0;

    long fd = sys_open("/devices/test", O_RDWR, 0);
    assert_int_equal(fd, 0);
    assert_int_equal(device_opens, 1);
    char buffer[8];
    assert_int_equal(sys_read(0, buffer, sizeof(buffer)), 2); /* no second, blocking read */
    assert_int_equal(sys_write(0, "abc", 3), 3);
    assert_int_equal(sys_ioctl(0, TIOCGPGRP, 0), 42);
    assert_int_equal(sys_lseek(0, 0, SEEK_SET), -ESPIPE);
    assert_int_equal(sys_dup3(0, 1, O_CLOEXEC), 1);

    struct fd_table *parent = test_process.files;
    struct fd_table *child = fd_table_clone(parent);
    assert_non_null(child);
    fd_table_destroy(parent);
    assert_int_equal(device_releases, 0); /* the child still has it */
    test_process.files = child;
    assert_int_equal(sys_fcntl(1, F_GETFD, 0), FD_CLOEXEC);
    fd_table_close_on_exec(child);
    assert_int_equal(sys_fcntl(1, F_GETFD, 0), -EBADF);
    assert_int_equal(sys_ioctl(0, TIOCGPGRP, 0), 42);
    assert_int_equal(sys_close(0), 0);
    assert_int_equal(device_releases, 1);
    assert_int_equal(device_opens, 1);
}

/* ---- Directories ---- */

struct listing {
    char names[64][32];
    unsigned char types[64];
    int count;
};

static long list(int fd, size_t buffer_size, struct listing *listing)
{
    uint64_t buffer[512];
    long total = 0;
    for (;;) {
        long length = sys_getdents64(fd, buffer, buffer_size);
        if (length <= 0)
            return length < 0 ? length : total;
        for (long at = 0; at < length;) {
            struct linux_dirent64 *dirent = (struct linux_dirent64 *)((char *)buffer + at);
            assert_int_equal(dirent->d_reclen % 8, 0);
            assert_true(listing->count < 64);
            snprintf(listing->names[listing->count], 32, "%s", dirent->d_name);
            listing->types[listing->count++] = dirent->d_type;
            at += dirent->d_reclen;
            total++;
        }
    }
}

static void lists_directories(void **state)
{
    (void)state;
    assert_int_equal(sys_mkdir("/list", 0755), 0);
    write_file("/list/zeta", "");
    write_file("/list/alpha", "");
    assert_int_equal(sys_mkdir("/list/middle", 0755), 0);
    long fd = sys_open("/list", O_RDONLY | O_DIRECTORY, 0);
    struct listing listing = {0};
    assert_int_equal(list((int)fd, 4096, &listing), 5);
    assert_string_equal(listing.names[0], ".");
    assert_string_equal(listing.names[1], "..");
    assert_string_equal(listing.names[2], "alpha");
    assert_int_equal(listing.types[2], DT_REG);
    assert_string_equal(listing.names[3], "middle");
    assert_int_equal(listing.types[3], DT_DIR);
    assert_string_equal(listing.names[4], "zeta");

    /* One record per call, after a rewind. */
    assert_int_equal(sys_lseek((int)fd, 0, SEEK_SET), 0);
    assert_int_equal(sys_lseek((int)fd, 0, SEEK_END), -EINVAL);
    memset(&listing, 0, sizeof(listing));
    assert_int_equal(list((int)fd, 32, &listing), 5);
    assert_string_equal(listing.names[4], "zeta");
    assert_int_equal(sys_lseek((int)fd, 0, SEEK_SET), 0);
    uint64_t small[2];
    assert_int_equal(sys_getdents64((int)fd, small, 16), -EINVAL);
    char c;
    assert_int_equal(sys_read((int)fd, &c, 1), -EISDIR);
    sys_close((int)fd);

    fd = sys_open("/list/alpha", O_RDONLY, 0);
    assert_int_equal(sys_getdents64((int)fd, small, 16), -ENOTDIR);
    sys_close((int)fd);
    assert_int_equal(sys_getdents64(42, small, 16), -EBADF);
}

/* One record per call, each name removed once read (as nftw and rm -r
 * do): every name still comes, once. A position that counted entries
 * skipped every other one. A seek makes the position an index again. */
static void lists_while_names_go(void **state)
{
    (void)state;
    static const char *const names[] = {"a", "b", "c", "d", "e", "f"};
    char path[64];
    assert_int_equal(sys_mkdir("/going", 0755), 0);
    for (int i = 0; i < 6; i++) {
        snprintf(path, sizeof(path), "/going/%s", names[i]);
        write_file(path, "");
    }
    long fd = sys_open("/going", O_RDONLY | O_DIRECTORY, 0);
    uint64_t buffer[8];
    int seen = 0;
    long length;
    while ((length = sys_getdents64((int)fd, buffer, 32)) > 0) {
        struct linux_dirent64 *dirent = (struct linux_dirent64 *)buffer;
        assert_int_equal(length, dirent->d_reclen);
        if (dirent->d_name[0] == '.')
            continue;
        assert_true(seen < 6);
        assert_string_equal(dirent->d_name, names[seen]);
        snprintf(path, sizeof(path), "/going/%s", dirent->d_name);
        assert_int_equal(sys_unlink(path), 0);
        seen++;
    }
    assert_int_equal(length, 0);
    assert_int_equal(seen, 6);

    /* Position 3 after a seek is the second name, whatever was listed. */
    write_file("/going/x", "");
    write_file("/going/y", "");
    assert_int_equal(sys_lseek((int)fd, 3, SEEK_SET), 3);
    assert_true(sys_getdents64((int)fd, buffer, 32) > 0);
    assert_string_equal(((struct linux_dirent64 *)buffer)->d_name, "y");
    sys_close((int)fd);
}

static void changes_directories(void **state)
{
    (void)state;
    char cwd[64];
    assert_int_equal(sys_getcwd(cwd, sizeof(cwd)), 2);
    assert_string_equal(cwd, "/");
    assert_int_equal(sys_mkdir("/work", 0755), 0);
    assert_int_equal(sys_mkdir("/work/sub", 0755), 0);
    assert_int_equal(sys_chdir("/work/sub"), 0);
    assert_int_equal(sys_getcwd(cwd, sizeof(cwd)), 10);
    assert_string_equal(cwd, "/work/sub");
    assert_int_equal(sys_getcwd(cwd, 9), -ERANGE);
    write_file("relative", "here");
    assert_string_equal(read_file("/work/sub/relative"), "here");
    assert_string_equal(read_file("../sub/relative"), "here");
    assert_int_equal(sys_chdir(".."), 0);
    assert_int_equal(sys_getcwd(cwd, sizeof(cwd)), 6);
    assert_int_equal(sys_chdir("sub/relative"), -ENOTDIR);
    assert_int_equal(sys_chdir("none"), -ENOENT);

    /* *at() calls relative to a directory descriptor. */
    long dirfd = sys_open("/work/sub", O_RDONLY | O_DIRECTORY, 0);
    long fd = sys_openat((int)dirfd, "relative", O_RDONLY, 0);
    assert_true(fd >= 0);
    sys_close((int)fd);
    assert_int_equal(sys_mkdirat((int)dirfd, "made", 0700), 0);
    assert_int_equal(stat_mode("/work/sub/made", true), S_IFDIR | 0700);
    struct linux_stat stat;
    assert_int_equal(sys_newfstatat((int)dirfd, "relative", &stat, 0), 0);
    assert_int_equal(stat.st_size, 4);
    assert_int_equal(sys_newfstatat((int)dirfd, "", &stat, 0), -ENOENT);
    assert_int_equal(sys_newfstatat((int)dirfd, "", &stat, AT_EMPTY_PATH), 0);
    assert_int_equal(stat.st_mode, S_IFDIR | 0755);
    assert_int_equal(sys_newfstatat(AT_FDCWD, "", &stat, AT_EMPTY_PATH), 0);
    assert_int_equal(sys_newfstatat((int)dirfd, "relative", &stat, 0x8000), -EINVAL);
    assert_int_equal(sys_newfstatat((int)dirfd, "relative", NULL, 0), -EFAULT);
    assert_int_equal(sys_faccessat((int)dirfd, "relative", 4), 0);
    assert_int_equal(sys_faccessat((int)dirfd, "relative", 1), -EACCES);
    assert_int_equal(sys_faccessat((int)dirfd, "made", 1), 0);
    assert_int_equal(sys_faccessat((int)dirfd, "relative", 8), -EINVAL);
    assert_int_equal(sys_unlinkat((int)dirfd, "made", 0), -EISDIR);
    assert_int_equal(sys_unlinkat((int)dirfd, "made", 1), -EINVAL);
    assert_int_equal(sys_unlinkat((int)dirfd, "made", 0x200), 0);
    assert_int_equal(sys_openat(99, "relative", O_RDONLY, 0), -EBADF);
    fd = sys_openat(99, "/work/sub/relative", O_RDONLY, 0); /* absolute: dirfd unused */
    assert_true(fd >= 0);
    assert_int_equal(sys_openat((int)fd, "x", O_RDONLY, 0), -ENOTDIR);
    sys_close((int)fd);
    sys_close((int)dirfd);
}

static void removes_entries(void **state)
{
    (void)state;
    assert_int_equal(sys_mkdir("/gone", 0755), 0);
    assert_int_equal(sys_mkdir("/gone", 0755), -EEXIST);
    assert_int_equal(sys_mkdir("/", 0755), -EEXIST);
    assert_int_equal(sys_mkdir("/gone/.", 0755), -EEXIST);
    assert_int_equal(sys_mkdir("/gone/none/x", 0755), -ENOENT);
    write_file("/gone/file", "still here");
    assert_int_equal(sys_rmdir("/gone"), -ENOTEMPTY);
    assert_int_equal(sys_unlink("/gone"), -EISDIR);
    assert_int_equal(sys_rmdir("/gone/file"), -ENOTDIR);
    assert_int_equal(sys_unlink("/gone/file/"), -ENOTDIR);
    assert_int_equal(sys_rmdir("/"), -EBUSY);
    assert_int_equal(sys_rmdir("/gone/."), -EINVAL);
    assert_int_equal(sys_rmdir("/gone/.."), -ENOTEMPTY);
    assert_int_equal(sys_unlink("/gone/none"), -ENOENT);

    /* An unlinked file lives on while it is open. */
    long fd = sys_open("/gone/file", O_RDONLY, 0);
    assert_int_equal(sys_unlink("/gone/file"), 0);
    assert_int_equal(stat_mode("/gone/file", true), -ENOENT);
    char buffer[16] = {0};
    assert_int_equal(sys_read((int)fd, buffer, sizeof(buffer)), 10);
    assert_string_equal(buffer, "still here");
    sys_close((int)fd);

    /* A removed working directory: nothing can be made in it. */
    assert_int_equal(sys_chdir("/gone"), 0);
    assert_int_equal(sys_rmdir("/gone"), 0);
    char cwd[16];
    assert_int_equal(sys_getcwd(cwd, sizeof(cwd)), -ENOENT);
    assert_int_equal(sys_open("new", O_CREAT | O_WRONLY, 0644), -ENOENT);
    assert_int_equal(sys_mkdir("new", 0755), -ENOENT);
    assert_int_equal(stat_mode("..", true), -ENOENT);
    assert_int_equal(stat_mode(".", true), S_IFDIR | 0755);
    assert_int_equal(sys_chdir("/"), 0);
}

/* build/initrd.cpio from tools/build/mkinitrd, when it has been built: busybox
 * and its applet links come out whole. Looked for from the top of the
 * repository and from tests/host. */
static void unpacks_the_real_initrd(void **state)
{
    (void)state;
    FILE *file = fopen("build/initrd.cpio", "rb");
    if (!file)
        file = fopen("../../build/initrd.cpio", "rb");
    if (!file)
        skip();
    fseek(file, 0, SEEK_END);
    long length = ftell(file);
    fseek(file, 0, SEEK_SET);
    char *archive = malloc((size_t)length);
    assert_int_equal(fread(archive, 1, (size_t)length, file), length);
    fclose(file);
    assert_int_equal(initramfs_unpack(archive, (size_t)length), 0);

    long error;
    struct file *sh = vfs_open("/bin/sh", O_RDONLY, 0, &error);
    assert_non_null(sh);
    assert_true(vfs_is_executable(sh));
    char magic[4];
    assert_int_equal(vfs_read(sh, magic, 4), 4);
    assert_memory_equal(magic,
                        "\x7f"
                        "ELF",
                        4);
    struct linux_stat stat;
    assert_int_equal(sys_stat("/bin/busybox", &stat), 0);
    assert_int_equal(vfs_file_size(sh), stat.st_size);
    vfs_close(sh);
    assert_int_equal(stat_mode("/tmp", true), S_IFDIR | 01777);
    assert_int_equal(sys_access("/etc/passwd", 4), 0);
    free(archive);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(unpacks_an_archive, setup, teardown),
        cmocka_unit_test_setup_teardown(replaces_files_and_rejects_bad_archives, setup, teardown),
        cmocka_unit_test_setup_teardown(looks_up_paths, setup, teardown),
        cmocka_unit_test_setup_teardown(statfs_tells_proc_from_the_root, setup, teardown),
        cmocka_unit_test_setup_teardown(follows_symlinks, setup, teardown),
        cmocka_unit_test_setup_teardown(bounds_the_links_of_a_lookup, setup, teardown),
        cmocka_unit_test_setup_teardown(reads_and_writes_files, setup, teardown),
        cmocka_unit_test_setup_teardown(moves_large_files_in_pieces, setup, teardown),
        cmocka_unit_test_setup_teardown(shares_pages_and_copies_them_before_a_write, setup, teardown),
        cmocka_unit_test_setup_teardown(reads_and_writes_vectors, setup, teardown),
        cmocka_unit_test_setup_teardown(stops_copying_for_a_fatal_signal, setup, teardown),
        cmocka_unit_test_setup_teardown(cuts_vectors_at_max_rw_count, setup, teardown),
        cmocka_unit_test_setup_teardown(duplicates_descriptors, setup, teardown),
        cmocka_unit_test_setup_teardown(forks_and_execs_tables, setup, teardown),
        cmocka_unit_test_setup_teardown(lists_directories, setup, teardown),
        cmocka_unit_test_setup_teardown(lists_while_names_go, setup, teardown),
        cmocka_unit_test_setup_teardown(changes_directories, setup, teardown),
        cmocka_unit_test_setup_teardown(removes_entries, setup, teardown),
        cmocka_unit_test_setup_teardown(unpacks_the_real_initrd, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
