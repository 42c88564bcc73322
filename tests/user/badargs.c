/* badargs: many system calls given out-of-range or bad
 * arguments must return an error, and the state it would have changed
 * must be the same afterwards. Prints one KTAP line per check and a plan,
 * so the scenario can judge it like the in-kernel suites; exit status is
 * the number of failures. Runs on Linux too (same results expected). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define BAD_POINTER ((void *)0x10)     /* never mapped */
#define KERNEL_POINTER ((void *)0xffffffff80000000ul)

static int number, failures;

static void check(const char *what, int ok)
{
    number++;
    failures += !ok;
    printf("    %sok %d %s\n", ok ? "" : "not ", number, what);
}

/* syscall() with the raw result: -errno on failure. */
static long raw(long n, long a, long b, long c, long d, long e)
{
    long result = syscall(n, a, b, c, d, e);
    return result == -1 ? -errno : result;
}

static mode_t mode_of(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 ? st.st_mode : 0;
}

static void resources(void)
{
    struct { unsigned long current, maximum; } before, after, bad = { 10, 5 };
    syscall(SYS_prlimit64, 0, 7, NULL, &before);
    check("prlimit64 resource 99 EINVAL", raw(SYS_prlimit64, 0, 99, 0, (long)&after, 0) == -EINVAL);
    check("prlimit64 cur > max EINVAL", raw(SYS_prlimit64, 0, 7, (long)&bad, 0, 0) == -EINVAL);
    check("prlimit64 bad new pointer EFAULT", raw(SYS_prlimit64, 0, 7, (long)BAD_POINTER, 0, 0) == -EFAULT);
    check("prlimit64 no such pid ESRCH", raw(SYS_prlimit64, 999999, 7, 0, (long)&after, 0) == -ESRCH);
    syscall(SYS_prlimit64, 0, 7, NULL, &after);
    check("nofile limit unchanged", !memcmp(&before, &after, sizeof(before)));
    check("getrlimit resource 99 EINVAL", raw(SYS_getrlimit, 99, (long)&after, 0, 0, 0) == -EINVAL);
    check("getrlimit bad pointer EFAULT", raw(SYS_getrlimit, 7, (long)KERNEL_POINTER, 0, 0, 0) == -EFAULT);
    check("setrlimit resource 99 EINVAL", raw(SYS_setrlimit, 99, (long)&before, 0, 0, 0) == -EINVAL);
    check("getrusage who 7 EINVAL", raw(SYS_getrusage, 7, (long)&after, 0, 0, 0) == -EINVAL);
    check("getrusage bad pointer EFAULT", raw(SYS_getrusage, 0, (long)BAD_POINTER, 0, 0, 0) == -EFAULT);
    check("times bad pointer EFAULT", raw(SYS_times, (long)BAD_POINTER, 0, 0, 0, 0) == -EFAULT);
    check("sysinfo bad pointer EFAULT", raw(SYS_sysinfo, (long)KERNEL_POINTER, 0, 0, 0, 0) == -EFAULT);
    check("getcpu bad pointer EFAULT", raw(SYS_getcpu, (long)BAD_POINTER, 0, 0, 0, 0) == -EFAULT);
    check("clock_getres clock 99 EINVAL", raw(SYS_clock_getres, 99, (long)&after, 0, 0, 0) == -EINVAL);
    struct { long seconds, nanoseconds; } bad_time = { 0, 1000000000 };
    check("clock_nanosleep clock 99 EINVAL", raw(SYS_clock_nanosleep, 99, 0, (long)&bad_time, 0, 0) == -EINVAL);
    check("clock_nanosleep nsec 1e9 EINVAL", raw(SYS_clock_nanosleep, 1, 1, (long)&bad_time, 0, 0) == -EINVAL);
    check("gettimeofday bad pointer EFAULT", raw(SYS_gettimeofday, (long)BAD_POINTER, 0, 0, 0, 0) == -EFAULT);
    char random_bytes[16];
    check("getrandom 16 bytes", raw(SYS_getrandom, (long)random_bytes, 16, 0, 0, 0) == 16);
    check("getrandom bad pointer EFAULT", raw(SYS_getrandom, (long)KERNEL_POINTER, 16, 0, 0, 0) == -EFAULT);
    check("getrandom flags 0x100 EINVAL", raw(SYS_getrandom, (long)random_bytes, 16, 0x100, 0, 0) == -EINVAL);
    check("sched_setaffinity no such pid ESRCH",
          raw(SYS_sched_setaffinity, 999999, 8, (long)&before, 0, 0) == -ESRCH);
    check("sched_getaffinity size 3 EINVAL", raw(SYS_sched_getaffinity, 0, 3, (long)&after, 0, 0) == -EINVAL);
    /* pid_t is 32 bits: a group negative as an int is EINVAL whatever the
     * upper half of the register holds. */
    long group = getpgrp();
    check("setpgid group 0x80000001 EINVAL", raw(SYS_setpgid, 0, 0x80000001l, 0, 0, 0) == -EINVAL);
    check("process group unchanged", getpgrp() == group);
}

static void names(void)
{
    const char *file = "/tmp/badargs.f", *dir = "/tmp/badargs.d";
    int fd = open(file, O_CREAT | O_WRONLY, 0644);
    close(fd);
    mkdir(dir, 0755);
    mode_t file_mode = mode_of(file), dir_mode = mode_of(dir);

    check("rename missing ENOENT", raw(SYS_rename, (long)"/tmp/badargs.none", (long)"/tmp/badargs.x", 0, 0, 0) == -ENOENT);
    check("rename bad pointer EFAULT", raw(SYS_rename, (long)BAD_POINTER, (long)"/tmp/badargs.x", 0, 0, 0) == -EFAULT);
    check("rename file onto dir EISDIR", raw(SYS_rename, (long)file, (long)dir, 0, 0, 0) == -EISDIR);
    check("rename dir onto file ENOTDIR", raw(SYS_rename, (long)dir, (long)file, 0, 0, 0) == -ENOTDIR);
    check("rename dir into itself EINVAL", raw(SYS_rename, (long)dir, (long)"/tmp/badargs.d/in", 0, 0, 0) == -EINVAL);
    check("renameat2 bad flags EINVAL", raw(SYS_renameat2, AT_FDCWD, (long)file, AT_FDCWD, (long)"/tmp/badargs.y", 0x100) == -EINVAL);
    check("renameat2 NOREPLACE onto existing EEXIST",
          raw(SYS_renameat2, AT_FDCWD, (long)file, AT_FDCWD, (long)dir, 1) == -EEXIST);
    check("renameat bad dirfd EBADF", raw(SYS_renameat, 999, (long)"rel", AT_FDCWD, (long)"/tmp/badargs.z", 0) == -EBADF);
    check("symlink onto existing EEXIST", raw(SYS_symlink, (long)"t", (long)file, 0, 0, 0) == -EEXIST);
    check("symlink empty target ENOENT", raw(SYS_symlink, (long)"", (long)"/tmp/badargs.l", 0, 0, 0) == -ENOENT);
    check("symlinkat bad dirfd EBADF", raw(SYS_symlinkat, (long)"t", 999, (long)"rel", 0, 0) == -EBADF);
    check("link onto existing EEXIST", raw(SYS_link, (long)file, (long)dir, 0, 0, 0) == -EEXIST);
    check("link missing ENOENT", raw(SYS_link, (long)"/tmp/badargs.none", (long)"/tmp/badargs.n", 0, 0, 0) == -ENOENT);
    check("linkat bad flags EINVAL", raw(SYS_linkat, AT_FDCWD, (long)file, AT_FDCWD, (long)"/tmp/badargs.n", 0x1) == -EINVAL);
    check("chmod missing ENOENT", raw(SYS_chmod, (long)"/tmp/badargs.none", 0777, 0, 0, 0) == -ENOENT);
    check("chmod bad pointer EFAULT", raw(SYS_chmod, (long)BAD_POINTER, 0777, 0, 0, 0) == -EFAULT);
    check("fchmod bad fd EBADF", raw(SYS_fchmod, 999, 0777, 0, 0, 0) == -EBADF);
    check("fchmodat bad dirfd EBADF", raw(SYS_fchmodat, 999, (long)"rel", 0777, 0, 0) == -EBADF);
    check("file unchanged", mode_of(file) == file_mode);
    check("directory unchanged", mode_of(dir) == dir_mode);
    check("no stray names", mode_of("/tmp/badargs.x") == 0 && mode_of("/tmp/badargs.y") == 0 && mode_of("/tmp/badargs.z") == 0 &&
                                mode_of("/tmp/badargs.n") == 0 && mode_of("/tmp/badargs.l") == 0);
    unlink(file);
    rmdir(dir);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("KTAP version 1\n1..1\n    KTAP version 1\n    # Subtest: badargs\n");
    resources();
    names();
    printf("    1..%d\n%sok 1 badargs\n", number, failures ? "not " : "");
    return failures;
}
