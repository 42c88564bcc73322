/* conform_fs: the calls on names (stat, lstat, fstat, newfstatat, access,
 * faccessat, mkdir, mkdirat, rmdir, unlink, unlinkat, readlink,
 * readlinkat, getdents64, symlink, rename, chmod) at the edges of their
 * arguments, each answer compared with Linux's (see conform.h). Runs on
 * the Linux host (tests/run: host-conform_fs.*) and on nohzk (scenarios
 * conform-fs, conform-fs-glibc). Everything happens in a scratch
 * directory under /tmp. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>

#include "ktap.h"
#include "conform.h"

#define AT_NO_AUTOMOUNT_FLAG 0x800

static char directory[64];

/* DIRECTORY/name in a static buffer (one of four, used in turn). */
static const char *at(const char *name)
{
    static char paths[4][128];
    static int next;
    char *path = paths[next++ % 4];
    snprintf(path, sizeof(paths[0]), "%s/%s", directory, name);
    return path;
}

static void make_file(const char *name, mode_t mode)
{
    int fd = open(at(name), O_CREAT | O_WRONLY | O_TRUNC, mode);
    if (fd >= 0) {
        write(fd, "12345", 5);
        close(fd);
    }
}

static char long_path[PATH_MAX + 2];

static const char *too_long(void)
{
    memset(long_path, 'p', sizeof(long_path) - 1);
    long_path[0] = '/';
    return long_path;
}

/* ---- open at the descriptor limit ---- */

/* open(O_CREAT) with no descriptor free below RLIMIT_NOFILE: EMFILE, and
 * no file is created (Linux takes the descriptor before the name). */
static int open_create_with_no_free_descriptor(void)
{
    struct rlimit saved, few;
    getrlimit(RLIMIT_NOFILE, &saved);
    int fd = open("/dev/null", O_RDONLY);
    EXPECT(fd >= 0);
    few.rlim_cur = (rlim_t)fd + 1;
    few.rlim_max = saved.rlim_max;
    EXPECT_VALUE(setrlimit(RLIMIT_NOFILE, &few), 0);      /* fd was the last one free */
    long result = syscall(SYS_open, at("created-at-limit"), O_CREAT | O_WRONLY, 0644);
    int saved_errno = errno;
    setrlimit(RLIMIT_NOFILE, &saved);
    close(fd);
    EXPECT_SAVED_ERROR(result, saved_errno, EMFILE);
    struct stat st;
    EXPECT_ERROR(stat(at("created-at-limit"), &st), ENOENT);
    return 1;
}

/* ---- stat, lstat, fstat, newfstatat ---- */

static int stat_bad_path(void)
{
    struct stat st;
    EXPECT_ERROR(syscall(SYS_stat, NULL, &st), EFAULT);
    EXPECT_ERROR(syscall(SYS_stat, KERNEL_ADDRESS, &st), EFAULT);
    EXPECT_ERROR(syscall(SYS_stat, NON_CANONICAL_HIGH, &st), EFAULT);
    EXPECT_ERROR(syscall(SYS_stat, "", &st), ENOENT);
    EXPECT_ERROR(syscall(SYS_stat, too_long(), &st), ENAMETOOLONG);
    return 1;
}

static int stat_bad_buffer(void)
{
    EXPECT_ERROR(syscall(SYS_stat, at("file"), NULL), EFAULT);
    EXPECT_ERROR(syscall(SYS_stat, at("file"), KERNEL_ADDRESS), EFAULT);
    EXPECT_ERROR(syscall(SYS_stat, at("file"), NON_CANONICAL_LOW), EFAULT);
    return 1;
}

static int stat_read_only_buffer(void)
{
    char *page = page_before_hole(PROT_READ);
    long result = syscall(SYS_stat, at("file"), page);
    int error = errno;
    hole_free(page);
    EXPECT_SAVED_ERROR(result, error, EFAULT);
    return 1;
}

static int stat_buffer_crossing_into_unmapped(void)
{
    char *page = page_before_hole(PROT_READ | PROT_WRITE);
    long result = syscall(SYS_stat, at("file"), page + PAGE - sizeof(struct stat) / 2);
    int error = errno;
    hole_free(page);
    EXPECT_SAVED_ERROR(result, error, EFAULT);
    return 1;
}

static int stat_trailing_slash_on_file(void)
{
    struct stat st;
    char path[160];
    snprintf(path, sizeof(path), "%s/", at("file"));
    EXPECT_ERROR(syscall(SYS_stat, path, &st), ENOTDIR);
    snprintf(path, sizeof(path), "%s/x", at("file"));
    EXPECT_ERROR(syscall(SYS_stat, path, &st), ENOTDIR);
    return 1;
}

static int stat_follows_lstat_does_not(void)
{
    struct stat st;
    EXPECT_VALUE(syscall(SYS_stat, at("link"), &st), 0);
    EXPECT(S_ISREG(st.st_mode) && st.st_size == 5);
    EXPECT_VALUE(syscall(SYS_lstat, at("link"), &st), 0);
    EXPECT(S_ISLNK(st.st_mode));
    EXPECT_ERROR(syscall(SYS_stat, at("dangling"), &st), ENOENT);
    EXPECT_VALUE(syscall(SYS_lstat, at("dangling"), &st), 0);
    return 1;
}

static int fstat_bad_arguments(void)
{
    struct stat st;
    int fd = open(at("file"), O_RDONLY);
    EXPECT_ERROR(syscall(SYS_fstat, -1, &st), EBADF);
    EXPECT_ERROR(syscall(SYS_fstat, 1 << 30, &st), EBADF);
    EXPECT_ERROR(syscall(SYS_fstat, fd, NULL), EFAULT);
    EXPECT_ERROR(syscall(SYS_fstat, fd, KERNEL_ADDRESS), EFAULT);
    close(fd);
    return 1;
}

/* statfs and fstatfs: the path's errors as stat's, a bad buffer EFAULT;
 * /proc is proc (PROC_SUPER_MAGIC, no blocks), and the directory the
 * cases work in is not. */
static int statfs_bad_arguments(void)
{
    struct statfs fs;
    EXPECT_ERROR(syscall(SYS_statfs, at("none"), &fs), ENOENT);
    EXPECT_ERROR(syscall(SYS_statfs, KERNEL_ADDRESS, &fs), EFAULT);
    EXPECT_ERROR(syscall(SYS_statfs, NULL, &fs), EFAULT);
    EXPECT_ERROR(syscall(SYS_statfs, at("file"), NULL), EFAULT);
    EXPECT_ERROR(syscall(SYS_statfs, at("file"), KERNEL_ADDRESS), EFAULT);
    EXPECT_ERROR(syscall(SYS_statfs, at("file/x"), &fs), ENOTDIR);
    return 1;
}

static int statfs_proc_is_proc(void)
{
    struct statfs fs, here;
    EXPECT_VALUE(syscall(SYS_statfs, "/proc", &fs), 0);
    EXPECT(fs.f_type == 0x9fa0 && fs.f_blocks == 0);
    EXPECT_VALUE(syscall(SYS_statfs, "/proc/self/stat", &fs), 0);
    EXPECT(fs.f_type == 0x9fa0);
    EXPECT_VALUE(syscall(SYS_statfs, at("file"), &here), 0);
    EXPECT(here.f_type != 0x9fa0 && here.f_bsize > 0);
    struct stat proc, dir;
    EXPECT_VALUE(stat("/proc/self/stat", &proc), 0);
    EXPECT_VALUE(stat(at("file"), &dir), 0);
    EXPECT(proc.st_dev != dir.st_dev);      /* df and find -xdev tell them apart so */
    return 1;
}

static int fstatfs_bad_arguments(void)
{
    struct statfs fs;
    int fd = open("/proc/self/stat", O_RDONLY);
    EXPECT_ERROR(syscall(SYS_fstatfs, -1, &fs), EBADF);
    EXPECT_ERROR(syscall(SYS_fstatfs, 1 << 30, &fs), EBADF);
    EXPECT_ERROR(syscall(SYS_fstatfs, fd, NULL), EFAULT);
    EXPECT_ERROR(syscall(SYS_fstatfs, fd, KERNEL_ADDRESS), EFAULT);
    EXPECT_VALUE(syscall(SYS_fstatfs, fd, &fs), 0);
    EXPECT(fs.f_type == 0x9fa0);
    close(fd);
    return 1;
}

/* A pipe's ends are on Linux's pipefs, not on the tree's file system. */
static int fstatfs_pipe(void)
{
    int fds[2];
    struct statfs fs;
    EXPECT_VALUE(pipe(fds), 0);
    EXPECT_VALUE(syscall(SYS_fstatfs, fds[0], &fs), 0);
    EXPECT(fs.f_type == 0x50495045);
    EXPECT_VALUE(syscall(SYS_fstatfs, fds[1], &fs), 0);
    EXPECT(fs.f_type == 0x50495045);
    close(fds[0]);
    close(fds[1]);
    return 1;
}

static int fstat_pipe(void)
{
    int fds[2];
    struct stat st;
    EXPECT_VALUE(pipe(fds), 0);
    EXPECT_VALUE(syscall(SYS_fstat, fds[0], &st), 0);
    EXPECT(S_ISFIFO(st.st_mode));
    close(fds[0]);
    close(fds[1]);
    return 1;
}

static int newfstatat_unknown_flags(void)
{
    struct stat st;
    EXPECT_ERROR(syscall(SYS_newfstatat, AT_FDCWD, at("file"), &st, 0x1), EINVAL);
    EXPECT_ERROR(syscall(SYS_newfstatat, AT_FDCWD, at("file"), &st, 0x40000000), EINVAL);
    return 1;
}

/* AT_NO_AUTOMOUNT is a flag newfstatat knows (and nothing here mounts). */
static int newfstatat_no_automount(void)
{
    struct stat st;
    EXPECT_VALUE(syscall(SYS_newfstatat, AT_FDCWD, at("file"), &st, AT_NO_AUTOMOUNT_FLAG), 0);
    return 1;
}

static int newfstatat_empty_path(void)
{
    struct stat st;
    int fd = open(at("file"), O_RDONLY);
    EXPECT_ERROR(syscall(SYS_newfstatat, fd, "", &st, 0), ENOENT);
    EXPECT_VALUE(syscall(SYS_newfstatat, fd, "", &st, AT_EMPTY_PATH), 0);
    EXPECT(S_ISREG(st.st_mode) && st.st_size == 5);
    EXPECT_ERROR(syscall(SYS_newfstatat, -1, "", &st, AT_EMPTY_PATH), EBADF);
    close(fd);
    return 1;
}

/* Since Linux 6.11 a NULL path with AT_EMPTY_PATH is the empty path;
 * before, it is EFAULT (Debian's 6.1). Linux may give either; nohzk
 * gives the newer answer. */
static int newfstatat_empty_path_null(void)
{
    struct stat st;
    int fd = open(at("file"), O_RDONLY);
    errno = 0;
    long result = syscall(SYS_newfstatat, fd, NULL, &st, AT_EMPTY_PATH);
    if (!on_nohzk() && result == -1 && errno == EFAULT)
        result = 0;     /* Linux before 6.11 */
    EXPECT_VALUE(result, 0);
    close(fd);
    return 1;
}

static int newfstatat_bad_dirfd(void)
{
    struct stat st;
    int fd = open(at("file"), O_RDONLY);
    EXPECT_ERROR(syscall(SYS_newfstatat, -1, "file", &st, 0), EBADF);
    EXPECT_ERROR(syscall(SYS_newfstatat, fd, "file", &st, 0), ENOTDIR);
    EXPECT_VALUE(syscall(SYS_newfstatat, -1, at("file"), &st, 0), 0);     /* absolute: dirfd unused */
    close(fd);
    return 1;
}

/* ---- access, faccessat ---- */

static int access_bad_mode(void)
{
    EXPECT_ERROR(syscall(SYS_access, at("file"), 8), EINVAL);
    EXPECT_ERROR(syscall(SYS_access, at("file"), -1), EINVAL);
    return 1;
}

static int access_bad_path(void)
{
    EXPECT_ERROR(syscall(SYS_access, NULL, F_OK), EFAULT);
    EXPECT_ERROR(syscall(SYS_access, KERNEL_ADDRESS, F_OK), EFAULT);
    EXPECT_ERROR(syscall(SYS_access, "", F_OK), ENOENT);
    EXPECT_ERROR(syscall(SYS_access, at("none"), F_OK), ENOENT);
    EXPECT_ERROR(syscall(SYS_access, too_long(), F_OK), ENAMETOOLONG);
    return 1;
}

/* Root may read and write anything, but execute only what has an x bit. */
static int access_execute_needs_a_bit(void)
{
    make_file("plain", 0644);
    EXPECT_VALUE(syscall(SYS_access, at("plain"), R_OK | W_OK), 0);
    EXPECT_ERROR(syscall(SYS_access, at("plain"), X_OK), EACCES);
    chmod(at("plain"), 0100);
    EXPECT_VALUE(syscall(SYS_access, at("plain"), X_OK | R_OK), 0);
    unlink(at("plain"));
    return 1;
}

static int faccessat_bad_dirfd(void)
{
    int fd = open(at("file"), O_RDONLY);
    EXPECT_ERROR(syscall(SYS_faccessat, -1, "file", F_OK), EBADF);
    EXPECT_ERROR(syscall(SYS_faccessat, fd, "file", F_OK), ENOTDIR);
    EXPECT_ERROR(syscall(SYS_faccessat, AT_FDCWD, at("file"), 8), EINVAL);
    close(fd);
    return 1;
}

/* ---- mkdir, mkdirat ---- */

static int mkdir_bad_paths(void)
{
    char path[160];
    EXPECT_ERROR(syscall(SYS_mkdir, NULL, 0755), EFAULT);
    EXPECT_ERROR(syscall(SYS_mkdir, KERNEL_ADDRESS, 0755), EFAULT);
    EXPECT_ERROR(syscall(SYS_mkdir, "", 0755), ENOENT);
    EXPECT_ERROR(syscall(SYS_mkdir, at("file"), 0755), EEXIST);
    EXPECT_ERROR(syscall(SYS_mkdir, at("none/d"), 0755), ENOENT);
    snprintf(path, sizeof(path), "%s/d", at("file"));
    EXPECT_ERROR(syscall(SYS_mkdir, path, 0755), ENOTDIR);
    EXPECT_ERROR(syscall(SYS_mkdir, too_long(), 0755), ENAMETOOLONG);
    EXPECT_ERROR(syscall(SYS_mkdir, "/", 0755), EEXIST);
    return 1;
}

static int mkdir_trailing_slash(void)
{
    char path[160];
    snprintf(path, sizeof(path), "%s/", at("slashed"));
    EXPECT_VALUE(syscall(SYS_mkdir, path, 0755), 0);
    EXPECT_VALUE(rmdir(at("slashed")), 0);
    return 1;
}

/* The sticky bit stays; set-user-ID and set-group-ID do not. */
static int mkdir_mode_bits(void)
{
    struct stat st;
    mode_t old = umask(0);
    long made = syscall(SYS_mkdir, at("modes"), 07777);
    umask(old);
    EXPECT_VALUE(made, 0);
    EXPECT_VALUE(stat(at("modes"), &st), 0);
    rmdir(at("modes"));
    EXPECT_VALUE(st.st_mode & 07777, 01777);
    return 1;
}

static int mkdirat_bad_dirfd(void)
{
    int fd = open(at("file"), O_RDONLY);
    EXPECT_ERROR(syscall(SYS_mkdirat, -1, "d", 0755), EBADF);
    EXPECT_ERROR(syscall(SYS_mkdirat, fd, "d", 0755), ENOTDIR);
    close(fd);
    return 1;
}

/* ---- rmdir, unlink, unlinkat ---- */

static int rmdir_bad_targets(void)
{
    char path[160];
    mkdir(at("full"), 0755);
    make_file("full/inside", 0644);
    EXPECT_ERROR(syscall(SYS_rmdir, at("full"), 0), ENOTEMPTY);
    EXPECT_ERROR(syscall(SYS_rmdir, at("file")), ENOTDIR);
    EXPECT_ERROR(syscall(SYS_rmdir, at("none")), ENOENT);
    EXPECT_ERROR(syscall(SYS_rmdir, NULL), EFAULT);
    EXPECT_ERROR(syscall(SYS_rmdir, ""), ENOENT);
    snprintf(path, sizeof(path), "%s/.", at("full"));
    EXPECT_ERROR(syscall(SYS_rmdir, path), EINVAL);
    snprintf(path, sizeof(path), "%s/..", at("full"));
    EXPECT_ERROR(syscall(SYS_rmdir, path), ENOTEMPTY);
    EXPECT_ERROR(syscall(SYS_rmdir, "/"), EBUSY);
    unlink(at("full/inside"));
    EXPECT_VALUE(syscall(SYS_rmdir, at("full")), 0);
    return 1;
}

static int unlink_bad_targets(void)
{
    char path[160];
    mkdir(at("dir"), 0755);
    EXPECT_ERROR(syscall(SYS_unlink, at("dir")), EISDIR);
    EXPECT_ERROR(syscall(SYS_unlink, at("none")), ENOENT);
    EXPECT_ERROR(syscall(SYS_unlink, NULL), EFAULT);
    EXPECT_ERROR(syscall(SYS_unlink, KERNEL_ADDRESS), EFAULT);
    EXPECT_ERROR(syscall(SYS_unlink, ""), ENOENT);
    snprintf(path, sizeof(path), "%s/", at("file"));
    EXPECT_ERROR(syscall(SYS_unlink, path), ENOTDIR);
    rmdir(at("dir"));
    struct stat st;
    EXPECT_VALUE(stat(at("file"), &st), 0);     /* still there */
    return 1;
}

static int unlinkat_bad_arguments(void)
{
    int fd = open(at("file"), O_RDONLY);
    EXPECT_ERROR(syscall(SYS_unlinkat, AT_FDCWD, at("file"), 0x1), EINVAL);
    EXPECT_ERROR(syscall(SYS_unlinkat, AT_FDCWD, at("file"), 0x40000000), EINVAL);
    EXPECT_ERROR(syscall(SYS_unlinkat, AT_FDCWD, at("file"), AT_REMOVEDIR), ENOTDIR);
    EXPECT_ERROR(syscall(SYS_unlinkat, -1, "file", 0), EBADF);
    EXPECT_ERROR(syscall(SYS_unlinkat, fd, "file", 0), ENOTDIR);
    close(fd);
    return 1;
}

/* ---- readlink, readlinkat ---- */

static int readlink_bad_size(void)
{
    char buffer[64];
    EXPECT_ERROR(syscall(SYS_readlink, at("link"), buffer, 0), EINVAL);
    EXPECT_ERROR(syscall(SYS_readlink, at("link"), buffer, -1), EINVAL);
    return 1;
}

static int readlink_not_a_symlink(void)
{
    char buffer[64];
    EXPECT_ERROR(syscall(SYS_readlink, at("file"), buffer, sizeof(buffer)), EINVAL);
    EXPECT_ERROR(syscall(SYS_readlink, directory, buffer, sizeof(buffer)), EINVAL);
    EXPECT_ERROR(syscall(SYS_readlink, at("none"), buffer, sizeof(buffer)), ENOENT);
    return 1;
}

/* A short buffer gets the start of the target, with no NUL. */
static int readlink_truncates(void)
{
    char buffer[8];
    memset(buffer, 'x', sizeof(buffer));
    EXPECT_VALUE(syscall(SYS_readlink, at("link"), buffer, 3), 3);
    EXPECT(memcmp(buffer, directory, 3) == 0 && buffer[3] == 'x');
    return 1;
}

static int readlink_bad_buffer(void)
{
    EXPECT_ERROR(syscall(SYS_readlink, at("link"), NULL, 64), EFAULT);
    EXPECT_ERROR(syscall(SYS_readlink, at("link"), KERNEL_ADDRESS, 64), EFAULT);
    char *page = page_before_hole(PROT_READ);
    long result = syscall(SYS_readlink, at("link"), page, 64);
    int error = errno;
    hole_free(page);
    EXPECT_SAVED_ERROR(result, error, EFAULT);
    return 1;
}

/* The size is an int: the upper half of the register is dropped. */
static int readlink_size_upper_bits_ignored(void)
{
    char buffer[8];
    memset(buffer, 'x', sizeof(buffer));
    EXPECT_VALUE(syscall(SYS_readlink, at("link"), buffer, (1ul << 32) | 2), 2);
    EXPECT(buffer[2] == 'x');
    return 1;
}

static int readlinkat_bad_dirfd(void)
{
    char buffer[64];
    int fd = open(at("file"), O_RDONLY);
    EXPECT_ERROR(syscall(SYS_readlinkat, -1, "link", buffer, sizeof(buffer)), EBADF);
    EXPECT_ERROR(syscall(SYS_readlinkat, fd, "link", buffer, sizeof(buffer)), ENOTDIR);
    close(fd);
    return 1;
}

/* ---- getdents64 ---- */

static int getdents64_bad_fd(void)
{
    char buffer[256];
    int fd = open(at("file"), O_RDONLY);
    EXPECT_ERROR(syscall(SYS_getdents64, -1, buffer, sizeof(buffer)), EBADF);
    EXPECT_ERROR(syscall(SYS_getdents64, fd, buffer, sizeof(buffer)), ENOTDIR);
    close(fd);
    return 1;
}

/* The length of the first record of a fresh listing, and its name (the
 * order is the file system's: ext4's is by hash). */
static long first_record(char *name, size_t size)
{
    char buffer[512];
    int fd = open(directory, O_RDONLY | O_DIRECTORY);
    long length = syscall(SYS_getdents64, fd, buffer, sizeof(buffer));
    close(fd);
    if (length < 20)
        return -1;
    strncpy(name, buffer + 19, size - 1);
    name[size - 1] = '\0';
    return *(unsigned short *)(buffer + 16);
}

static int getdents64_buffer_too_small(void)
{
    char buffer[512], name[256];
    long length = first_record(name, sizeof(name));
    EXPECT(length > 0);
    int fd = open(directory, O_RDONLY | O_DIRECTORY);
    EXPECT_ERROR(syscall(SYS_getdents64, fd, buffer, 0), EINVAL);
    EXPECT_ERROR(syscall(SYS_getdents64, fd, buffer, length - 1), EINVAL);
    EXPECT_VALUE(syscall(SYS_getdents64, fd, buffer, length), length);
    close(fd);
    return 1;
}

/* A bad buffer is EFAULT, and the listing has not moved. */
static int getdents64_bad_buffer(void)
{
    char buffer[512], name[256];
    long length = first_record(name, sizeof(name));
    EXPECT(length > 0);
    int fd = open(directory, O_RDONLY | O_DIRECTORY);
    EXPECT_ERROR(syscall(SYS_getdents64, fd, KERNEL_ADDRESS, 256), EFAULT);
    EXPECT_ERROR(syscall(SYS_getdents64, fd, NULL, 256), EFAULT);
    char *page = page_before_hole(PROT_READ);
    long result = syscall(SYS_getdents64, fd, page, 256);
    int error = errno;
    hole_free(page);
    EXPECT_SAVED_ERROR(result, error, EFAULT);
    EXPECT_VALUE(syscall(SYS_getdents64, fd, buffer, length), length);
    EXPECT(strcmp(buffer + 19, name) == 0);     /* the first name is still first */
    close(fd);
    return 1;
}

/* The count is an unsigned int: the upper half of the register is dropped. */
static int getdents64_count_upper_bits_ignored(void)
{
    char buffer[512], name[256];
    long length = first_record(name, sizeof(name));
    EXPECT(length > 0);
    int fd = open(directory, O_RDONLY | O_DIRECTORY);
    EXPECT_VALUE(syscall(SYS_getdents64, fd, buffer, (1ul << 32) | (unsigned long)length), length);
    close(fd);
    return 1;
}

/* ---- symlink, rename, chmod ---- */

static int symlink_bad_arguments(void)
{
    EXPECT_ERROR(syscall(SYS_symlink, NULL, at("new")), EFAULT);
    EXPECT_ERROR(syscall(SYS_symlink, "x", NULL), EFAULT);
    EXPECT_ERROR(syscall(SYS_symlink, "x", ""), ENOENT);
    EXPECT_ERROR(syscall(SYS_symlink, too_long(), at("new")), ENAMETOOLONG);
    EXPECT_ERROR(syscall(SYS_symlink, "x", at("none/new")), ENOENT);
    return 1;
}

static int rename_bad_arguments(void)
{
    EXPECT_ERROR(syscall(SYS_rename, at("file"), NULL), EFAULT);
    EXPECT_ERROR(syscall(SYS_rename, at("file"), ""), ENOENT);
    EXPECT_ERROR(syscall(SYS_rename, "", at("new")), ENOENT);
    EXPECT_ERROR(syscall(SYS_rename, at("file"), at("none/new")), ENOENT);
    EXPECT_ERROR(syscall(SYS_rename, at("file"), too_long()), ENAMETOOLONG);
    struct stat st;
    EXPECT_VALUE(stat(at("file"), &st), 0);
    return 1;
}

/* Onto itself: nothing happens, and that is success. */
static int rename_onto_itself(void)
{
    struct stat st;
    EXPECT_VALUE(syscall(SYS_rename, at("file"), at("file")), 0);
    EXPECT_VALUE(stat(at("file"), &st), 0);
    return 1;
}

/* The last component may not be "." or "..". */
static int rename_dot(void)
{
    char path[160];
    mkdir(at("dotted"), 0755);
    snprintf(path, sizeof(path), "%s/.", at("dotted"));
    NOHZK_DIFFERS("nohzk differs: renaming \".\" is EINVAL");
    long result = syscall(SYS_rename, path, at("moved"));
    int error = errno;
    rmdir(at("moved"));
    rmdir(at("dotted"));
    EXPECT_SAVED_ERROR(result, error, EBUSY);
    return 1;
}

/* Only the permission bits and S_ISUID, S_ISGID, S_ISVTX change. */
static int chmod_high_bits(void)
{
    struct stat st;
    make_file("modes", 0600);
    EXPECT_VALUE(syscall(SYS_chmod, at("modes"), 0170755), 0);
    EXPECT_VALUE(stat(at("modes"), &st), 0);
    unlink(at("modes"));
    EXPECT(S_ISREG(st.st_mode));
    EXPECT_VALUE(st.st_mode & 07777, 0755);
    return 1;
}

static int chmod_bad_path(void)
{
    EXPECT_ERROR(syscall(SYS_chmod, KERNEL_ADDRESS, 0644), EFAULT);
    EXPECT_ERROR(syscall(SYS_chmod, "", 0644), ENOENT);
    EXPECT_ERROR(syscall(SYS_chmod, too_long(), 0644), ENAMETOOLONG);
    return 1;
}

/* The fchmodat system call has three arguments (the flags are
 * fchmodat2's, or the C library's): a fourth register is not looked at. */
static int fchmodat_fourth_argument_ignored(void)
{
    EXPECT_VALUE(syscall(SYS_fchmodat, AT_FDCWD, at("file"), 0644, 0x40000000), 0);
    EXPECT_ERROR(syscall(SYS_fchmodat, -1, "file", 0644, 0), EBADF);
    return 1;
}

static int fchmod_high_bits(void)
{
    struct stat st;
    make_file("modes", 0600);
    int fd = open(at("modes"), O_RDONLY);
    EXPECT_VALUE(syscall(SYS_fchmod, fd, 0170751), 0);
    EXPECT_VALUE(fstat(fd, &st), 0);
    close(fd);
    unlink(at("modes"));
    EXPECT(S_ISREG(st.st_mode));
    EXPECT_VALUE(st.st_mode & 07777, 0751);
    EXPECT_ERROR(syscall(SYS_fchmod, -1, 0644), EBADF);
    return 1;
}

/* link checks its names before anything (nohzk then says EPERM: no hard
 * links in its file tree). */
static int link_bad_paths(void)
{
    EXPECT_ERROR(syscall(SYS_link, NULL, at("new")), EFAULT);
    EXPECT_ERROR(syscall(SYS_link, at("file"), NULL), EFAULT);
    EXPECT_ERROR(syscall(SYS_link, "", at("new")), ENOENT);
    EXPECT_ERROR(syscall(SYS_link, at("file"), ""), ENOENT);
    EXPECT_ERROR(syscall(SYS_link, at("file"), at("none/new")), ENOENT);
    EXPECT_ERROR(syscall(SYS_link, at("file"), too_long()), ENAMETOOLONG);
    return 1;
}

/* An empty old path needs AT_EMPTY_PATH. */
static int linkat_empty_path(void)
{
    int fd = open(at("file"), O_RDONLY);
    EXPECT_ERROR(syscall(SYS_linkat, fd, "", AT_FDCWD, at("new"), 0), ENOENT);
    EXPECT_ERROR(syscall(SYS_linkat, -1, "file", AT_FDCWD, at("new"), 0), EBADF);
    close(fd);
    return 1;
}

static int renameat_relative_to_dirfds(void)
{
    int dir = open(directory, O_RDONLY | O_DIRECTORY), fd = open(at("file"), O_RDONLY);
    make_file("before", 0644);
    EXPECT_VALUE(syscall(SYS_renameat, dir, "before", dir, "after"), 0);
    EXPECT_ERROR(syscall(SYS_renameat, fd, "after", dir, "again"), ENOTDIR);
    EXPECT_ERROR(syscall(SYS_renameat, dir, "after", -1, "again"), EBADF);
    unlink(at("after"));
    close(fd);
    close(dir);
    return 1;
}

/* RENAME_EXCHANGE swaps two names; with RENAME_NOREPLACE it is EINVAL. */
static int renameat2_exchange(void)
{
    make_file("one", 0600);
    mkdir(at("two"), 0755);
    EXPECT_ERROR(syscall(SYS_renameat2, AT_FDCWD, at("one"), AT_FDCWD, at("two"), 3), EINVAL);
    long result = syscall(SYS_renameat2, AT_FDCWD, at("one"), AT_FDCWD, at("two"), 2);
    int error = errno;
    struct stat st;
    int swapped = result == 0 && stat(at("one"), &st) == 0 && S_ISDIR(st.st_mode);
    unlink(at(swapped ? "two" : "one"));
    rmdir(at(swapped ? "one" : "two"));
    NOHZK_DIFFERS("nohzk differs: RENAME_EXCHANGE is EINVAL");
    errno = error;
    EXPECT(result == 0 && swapped);
    return 1;
}

static int symlinkat_relative_to_dirfd(void)
{
    char target[64];
    int dir = open(directory, O_RDONLY | O_DIRECTORY);
    EXPECT_VALUE(syscall(SYS_symlinkat, "somewhere", dir, "relative"), 0);
    EXPECT_VALUE(readlink(at("relative"), target, sizeof(target)), 9);
    EXPECT_ERROR(syscall(SYS_symlinkat, "x", dir, "relative"), EEXIST);
    unlink(at("relative"));
    close(dir);
    return 1;
}

int main(void)
{
    static const struct ktap_case cases[] = {
        KTAP_CASE(stat_bad_path), KTAP_CASE(stat_bad_buffer), KTAP_CASE(stat_read_only_buffer),
        KTAP_CASE(stat_buffer_crossing_into_unmapped), KTAP_CASE(stat_trailing_slash_on_file),
        KTAP_CASE(stat_follows_lstat_does_not), KTAP_CASE(fstat_bad_arguments), KTAP_CASE(fstat_pipe),
        KTAP_CASE(statfs_bad_arguments), KTAP_CASE(statfs_proc_is_proc), KTAP_CASE(fstatfs_bad_arguments),
        KTAP_CASE(fstatfs_pipe),
        KTAP_CASE(newfstatat_unknown_flags), KTAP_CASE(newfstatat_no_automount), KTAP_CASE(newfstatat_empty_path),
        KTAP_CASE(newfstatat_empty_path_null), KTAP_CASE(newfstatat_bad_dirfd),
        KTAP_CASE(access_bad_mode), KTAP_CASE(access_bad_path), KTAP_CASE(access_execute_needs_a_bit),
        KTAP_CASE(faccessat_bad_dirfd),
        KTAP_CASE(mkdir_bad_paths), KTAP_CASE(mkdir_trailing_slash), KTAP_CASE(mkdir_mode_bits),
        KTAP_CASE(mkdirat_bad_dirfd),
        KTAP_CASE(rmdir_bad_targets), KTAP_CASE(unlink_bad_targets), KTAP_CASE(unlinkat_bad_arguments),
        KTAP_CASE(readlink_bad_size), KTAP_CASE(readlink_not_a_symlink), KTAP_CASE(readlink_truncates),
        KTAP_CASE(readlink_bad_buffer), KTAP_CASE(readlink_size_upper_bits_ignored), KTAP_CASE(readlinkat_bad_dirfd),
        KTAP_CASE(getdents64_bad_fd), KTAP_CASE(getdents64_buffer_too_small), KTAP_CASE(getdents64_bad_buffer),
        KTAP_CASE(getdents64_count_upper_bits_ignored),
        KTAP_CASE(symlink_bad_arguments), KTAP_CASE(rename_bad_arguments), KTAP_CASE(rename_onto_itself),
        KTAP_CASE(rename_dot), KTAP_CASE(chmod_high_bits), KTAP_CASE(chmod_bad_path),
        KTAP_CASE(fchmodat_fourth_argument_ignored), KTAP_CASE(fchmod_high_bits), KTAP_CASE(link_bad_paths),
        KTAP_CASE(linkat_empty_path), KTAP_CASE(renameat_relative_to_dirfds), KTAP_CASE(renameat2_exchange),
        KTAP_CASE(symlinkat_relative_to_dirfd), KTAP_CASE(open_create_with_no_free_descriptor),
    };
    strcpy(directory, "/tmp/conform_fs.XXXXXX");
    if (!mkdtemp(directory)) {
        printf("# conform_fs: cannot make the scratch directory (errno %d)\n", errno);
        return 1;
    }
    make_file("file", 0644);
    symlink(at("file"), at("link"));
    symlink(at("none"), at("dangling"));
    int status = conform_main(cases, KTAP_COUNT(cases));
    unlink(at("file"));
    unlink(at("link"));
    unlink(at("dangling"));
    if (rmdir(directory) != 0)
        printf("# conform_fs: %s left behind (errno %d)\n", directory, errno);
    return status;
}
