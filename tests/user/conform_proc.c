/* conform_proc: the process, time, resource and signal calls at the edges
 * of their arguments (identity, uname, getcwd, chdir, umask, limits,
 * affinity, clocks, sleeps, wait4, kill, the rt_sig* calls, arch_prctl,
 * exit), each answer compared with Linux's (see conform.h). Runs on the
 * Linux host (tests/run: host-conform_proc.*) and on nohzk (scenarios
 * conform-proc, conform-proc-glibc). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/sysinfo.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/times.h>
#include <sys/wait.h>
#include <time.h>

#include "ktap.h"
#include "conform.h"
#include "proc_counters.h"

#define ARCH_SET_GS 0x1001
#define ARCH_SET_FS 0x1002
#define ARCH_GET_FS 0x1003
#define ARCH_GET_GS 0x1004
#define CLOCK_TAI_ID 11
#define SGI_CYCLE_ID 10

static char directory[64];

/* A child that exits at once with status; returns its pid. */
static pid_t child_exiting(int status)
{
    fflush(stdout);
    pid_t child = fork();
    if (child == 0)
        _exit(status);
    return child;
}

/* ---- identity ---- */

static int getpid_ignores_arguments(void)
{
    long pid = getpid();
    EXPECT_VALUE(syscall(SYS_getpid, -1l, KERNEL_ADDRESS, NON_CANONICAL_HIGH), pid);
    EXPECT_VALUE(syscall(SYS_gettid, -1l, KERNEL_ADDRESS), pid);
    return 1;
}

static int getppid_of_a_child(void)
{
    int fds[2];
    long parent = getpid(), seen = -1;
    EXPECT_VALUE(pipe(fds), 0);
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        long mine = syscall(SYS_getppid);
        write(fds[1], &mine, sizeof(mine));
        _exit(0);
    }
    EXPECT_VALUE(read(fds[0], &seen, sizeof(seen)), sizeof(seen));
    waitpid(child, NULL, 0);
    close(fds[0]);
    close(fds[1]);
    EXPECT_VALUE(seen, parent);
    return 1;
}

/* The id calls take no arguments: whatever the registers hold. */
static int getuid_ignores_arguments(void)
{
    EXPECT_VALUE(syscall(SYS_getuid, -1l, KERNEL_ADDRESS), getuid());
    EXPECT_VALUE(syscall(SYS_geteuid, -1l, KERNEL_ADDRESS), geteuid());
    EXPECT_VALUE(syscall(SYS_getgid, -1l, KERNEL_ADDRESS), getgid());
    EXPECT_VALUE(syscall(SYS_getegid, -1l, KERNEL_ADDRESS), getegid());
    return 1;
}

static int getpgrp_ignores_arguments(void)
{
    EXPECT_VALUE(syscall(SYS_getpgrp, -1l, KERNEL_ADDRESS), getpgid(0));
    return 1;
}

/* A uid_t of -1 means "unchanged" only for the setre*id calls. */
static int setuid_minus_one(void)
{
    EXPECT_ERROR(syscall(SYS_setuid, -1), EINVAL);
    EXPECT_VALUE(syscall(SYS_getuid), getuid());
    return 1;
}

static int setgid_minus_one(void)
{
    EXPECT_ERROR(syscall(SYS_setgid, -1), EINVAL);
    return 1;
}

static int setuid_to_itself(void)
{
    EXPECT_VALUE(syscall(SYS_setuid, getuid()), 0);
    EXPECT_VALUE(syscall(SYS_setgid, getgid()), 0);
    return 1;
}

static int getpgid_negative_pid(void)
{
    EXPECT_ERROR(syscall(SYS_getpgid, -1), ESRCH);
    EXPECT_ERROR(syscall(SYS_getpgid, INT_MIN), ESRCH);
    return 1;
}

static int getsid_negative_pid(void)
{
    EXPECT_ERROR(syscall(SYS_getsid, -1), ESRCH);
    return 1;
}

static int setpgid_negative_pid(void)
{
    long group = getpgrp();
    NOHZK_DIFFERS("nohzk differs: a negative pid is looked for among the children (ESRCH)");
    EXPECT_ERROR(syscall(SYS_setpgid, -1, 0), EINVAL);
    EXPECT_VALUE(getpgrp(), group);
    return 1;
}

/* ---- uname ---- */

static int uname_null(void)
{
    EXPECT_ERROR(syscall(SYS_uname, NULL), EFAULT);
    return 1;
}

static int uname_kernel_address(void)
{
    EXPECT_ERROR(syscall(SYS_uname, KERNEL_ADDRESS), EFAULT);
    EXPECT_ERROR(syscall(SYS_uname, NON_CANONICAL_LOW), EFAULT);
    EXPECT_ERROR(syscall(SYS_uname, NON_CANONICAL_HIGH), EFAULT);
    return 1;
}

static int uname_read_only_page(void)
{
    char *page = page_before_hole(PROT_READ);
    long result = syscall(SYS_uname, page);
    int error = errno;
    hole_free(page);
    EXPECT_SAVED_ERROR(result, error, EFAULT);
    return 1;
}

static int uname_crossing_into_unmapped(void)
{
    char *page = page_before_hole(PROT_READ | PROT_WRITE);
    long result = syscall(SYS_uname, page + PAGE - sizeof(struct utsname) / 2);
    int error = errno;
    hole_free(page);
    EXPECT_SAVED_ERROR(result, error, EFAULT);
    return 1;
}

static int uname_unaligned(void)
{
    static char bytes[sizeof(struct utsname) + 8];
    EXPECT_VALUE(syscall(SYS_uname, bytes + 1), 0);
    EXPECT(strcmp(bytes + 1, "Linux") == 0);
    EXPECT(strcmp(bytes + 1 + 4 * 65, "x86_64") == 0);
    return 1;
}

/* ---- getcwd, chdir ---- */

/* The raw call: the length with the NUL, or ERANGE (libc's wrapper says
 * EINVAL for size 0 itself). */
static int getcwd_size_zero(void)
{
    char buffer[8];
    EXPECT_ERROR(syscall(SYS_getcwd, buffer, 0), ERANGE);
    return 1;
}

static int getcwd_size_exact(void)
{
    char buffer[PATH_MAX];
    EXPECT_VALUE(chdir(directory), 0);
    long length = (long)strlen(directory) + 1;
    EXPECT_VALUE(syscall(SYS_getcwd, buffer, length), length);
    EXPECT(strcmp(buffer, directory) == 0);
    EXPECT_ERROR(syscall(SYS_getcwd, buffer, length - 1), ERANGE);
    return 1;
}

static int getcwd_null_buffer(void)
{
    EXPECT_ERROR(syscall(SYS_getcwd, NULL, 100), EFAULT);
    return 1;
}

static int getcwd_kernel_address(void)
{
    EXPECT_ERROR(syscall(SYS_getcwd, KERNEL_ADDRESS, 100), EFAULT);
    EXPECT_ERROR(syscall(SYS_getcwd, NON_CANONICAL_HIGH, 100), EFAULT);
    return 1;
}

static int getcwd_crossing_into_unmapped(void)
{
    EXPECT_VALUE(chdir(directory), 0);
    char *page = page_before_hole(PROT_READ | PROT_WRITE);
    long result = syscall(SYS_getcwd, page + PAGE - 4, 100);
    int error = errno;
    hole_free(page);
    EXPECT_SAVED_ERROR(result, error, EFAULT);
    return 1;
}

static int getcwd_huge_size(void)
{
    char buffer[PATH_MAX];
    EXPECT_VALUE(chdir("/"), 0);
    EXPECT_VALUE(syscall(SYS_getcwd, buffer, SIZE_MAX), 2);
    EXPECT(strcmp(buffer, "/") == 0);
    return 1;
}

/* The working directory was removed: there is no path to it. */
static int getcwd_directory_removed(void)
{
    char path[128], buffer[PATH_MAX];
    snprintf(path, sizeof(path), "%s/gone", directory);
    EXPECT_VALUE(mkdir(path, 0755), 0);
    EXPECT_VALUE(chdir(path), 0);
    EXPECT_VALUE(rmdir(path), 0);
    long result = syscall(SYS_getcwd, buffer, sizeof(buffer));
    int error = errno;
    chdir("/");
    EXPECT_SAVED_ERROR(result, error, ENOENT);
    return 1;
}

static int chdir_bad_paths(void)
{
    char path[128], buffer[PATH_MAX];
    EXPECT_VALUE(chdir(directory), 0);
    EXPECT_ERROR(syscall(SYS_chdir, NULL), EFAULT);
    EXPECT_ERROR(syscall(SYS_chdir, KERNEL_ADDRESS), EFAULT);
    EXPECT_ERROR(syscall(SYS_chdir, NON_CANONICAL_LOW), EFAULT);
    EXPECT_ERROR(syscall(SYS_chdir, ""), ENOENT);
    EXPECT_ERROR(syscall(SYS_chdir, "/no/such/directory"), ENOENT);
    snprintf(path, sizeof(path), "%s/file", directory);
    close(open(path, O_CREAT | O_WRONLY, 0600));
    EXPECT_ERROR(syscall(SYS_chdir, path), ENOTDIR);
    unlink(path);
    EXPECT(getcwd(buffer, sizeof(buffer)) && strcmp(buffer, directory) == 0);   /* unchanged */
    return 1;
}

static int chdir_path_too_long(void)
{
    static char path[PATH_MAX + 2];
    memset(path, 'd', sizeof(path) - 1);
    EXPECT_ERROR(syscall(SYS_chdir, path), ENAMETOOLONG);
    return 1;
}

/* ---- umask ---- */

static int umask_keeps_only_permission_bits(void)
{
    mode_t old = umask(022);
    EXPECT_VALUE(syscall(SYS_umask, 0177777), 022);
    EXPECT_VALUE(syscall(SYS_umask, 022), 0777);
    umask(old);
    return 1;
}

static int umask_applies_to_open_and_mkdir(void)
{
    char path[128];
    struct stat st;
    mode_t old = umask(027);
    snprintf(path, sizeof(path), "%s/masked", directory);
    int fd = open(path, O_CREAT | O_WRONLY, 0777);
    EXPECT(fd >= 0 && fstat(fd, &st) == 0);
    EXPECT_VALUE(st.st_mode & 07777, 0750);
    close(fd);
    unlink(path);
    EXPECT_VALUE(mkdir(path, 07777), 0);
    EXPECT(stat(path, &st) == 0);
    EXPECT_VALUE(st.st_mode & 0777, 0750);
    rmdir(path);
    umask(old);
    return 1;
}

/* ---- limits and usage ---- */

/* The resource is an unsigned int: the upper half of the register is dropped. */
static int getrlimit_resource_upper_bits_ignored(void)
{
    struct rlimit limit;
    EXPECT_VALUE(syscall(SYS_getrlimit, (1ul << 32) | RLIMIT_NOFILE, &limit), 0);
    EXPECT_VALUE(syscall(SYS_prlimit64, 0, (1ul << 32) | RLIMIT_NOFILE, NULL, &limit), 0);
    return 1;
}

static int getrlimit_crossing_into_unmapped(void)
{
    char *page = page_before_hole(PROT_READ | PROT_WRITE);
    long result = syscall(SYS_getrlimit, RLIMIT_NOFILE, page + PAGE - 8);
    int error = errno;
    hole_free(page);
    EXPECT_SAVED_ERROR(result, error, EFAULT);
    return 1;
}

static int setrlimit_current_above_maximum(void)
{
    struct rlimit before, after, bad = { 10, 5 };
    getrlimit(RLIMIT_CORE, &before);
    EXPECT_ERROR(syscall(SYS_setrlimit, RLIMIT_CORE, &bad), EINVAL);
    EXPECT_ERROR(syscall(SYS_setrlimit, RLIMIT_CORE, NULL), EFAULT);
    getrlimit(RLIMIT_CORE, &after);
    EXPECT(before.rlim_cur == after.rlim_cur && before.rlim_max == after.rlim_max);
    return 1;
}

static int prlimit64_negative_pid(void)
{
    struct rlimit limit;
    EXPECT_ERROR(syscall(SYS_prlimit64, -1, RLIMIT_NOFILE, NULL, &limit), ESRCH);
    return 1;
}

/* Both NULL: nothing asked, nothing done. */
static int prlimit64_nothing(void)
{
    EXPECT_VALUE(syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, NULL), 0);
    return 1;
}

/* Linux has RLIM_NLIMITS (16) limits: 15 (RLIMIT_RTTIME) is the last, 16
 * is EINVAL for each of the three calls. */
static int getrlimit_resource_past_the_last(void)
{
    struct rlimit limit;
    EXPECT_VALUE(syscall(SYS_getrlimit, 15, &limit), 0);
    EXPECT_ERROR(syscall(SYS_getrlimit, 16, &limit), EINVAL);
    EXPECT_ERROR(syscall(SYS_setrlimit, 16, &limit), EINVAL);
    EXPECT_ERROR(syscall(SYS_prlimit64, 0, 16, NULL, &limit), EINVAL);
    return 1;
}

/* Both pointers: the limit before the call comes back, the new one is in
 * force after it. Only the soft limit moves (a lowered hard limit could
 * not be raised again without privilege). */
static int prlimit64_sets_and_returns_the_old_limit(void)
{
    struct rlimit before, old = { 0, 0 }, after;
    EXPECT_VALUE(getrlimit(RLIMIT_NOFILE, &before), 0);
    struct rlimit lower = { before.rlim_cur == 1000 ? 999 : 1000, before.rlim_max };
    EXPECT_VALUE(syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, &lower, &old), 0);
    EXPECT_VALUE(getrlimit(RLIMIT_NOFILE, &after), 0);
    EXPECT_VALUE(syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, &before, NULL), 0);
    EXPECT(old.rlim_cur == before.rlim_cur && old.rlim_max == before.rlim_max);
    EXPECT(after.rlim_cur == lower.rlim_cur && after.rlim_max == lower.rlim_max);
    return 1;
}

/* A pid names another process: its limit is read and changed, not ours. */
static int prlimit64_of_a_child(void)
{
    struct rlimit mine, old = { 0, 0 }, after;
    EXPECT_VALUE(getrlimit(RLIMIT_NOFILE, &mine), 0);
    struct rlimit lower = { mine.rlim_cur == 1000 ? 999 : 1000, mine.rlim_max };
    int go[2];
    EXPECT_VALUE(pipe(go), 0);
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        char byte;
        close(go[1]);
        if (read(go[0], &byte, 1) != 1)
            _exit(1);
        struct rlimit seen;
        _exit(getrlimit(RLIMIT_NOFILE, &seen) == 0 && seen.rlim_cur == lower.rlim_cur ? 0 : 2);
    }
    close(go[0]);
    EXPECT(child > 0);
    long result = syscall(SYS_prlimit64, child, RLIMIT_NOFILE, &lower, &old);
    if (result != 0)
        printf("# prlimit64(child) = %ld (errno %d)\n", result, errno);
    EXPECT_VALUE(write(go[1], "g", 1), 1);
    close(go[1]);
    int status = 0;
    EXPECT_VALUE(waitpid(child, &status, 0), child);
    EXPECT(result == 0);
    EXPECT(old.rlim_cur == mine.rlim_cur && old.rlim_max == mine.rlim_max);
    EXPECT_VALUE(WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status), 0);
    EXPECT_VALUE(getrlimit(RLIMIT_NOFILE, &after), 0);
    EXPECT(after.rlim_cur == mine.rlim_cur);
    return 1;
}

/* A lower RLIMIT_NOFILE bounds the descriptors a process can have. */
static int setrlimit_nofile_enforced(void)
{
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        struct rlimit limit = { 16, 16 };
        if (setrlimit(RLIMIT_NOFILE, &limit) != 0)
            _exit(1);
        int fd;
        while ((fd = open("/", O_RDONLY)) >= 0 && fd < 64)
            ;
        if (fd != -1 || errno != EMFILE)
            _exit(2);
        if (dup2(0, 20) != -1 || errno != EBADF)
            _exit(3);
        if (fcntl(0, F_DUPFD, 20) != -1 || errno != EINVAL)
            _exit(4);
        _exit(0);
    }
    int status = 0;
    EXPECT_VALUE(waitpid(child, &status, 0), child);
    EXPECT_VALUE(WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status), 0);
    return 1;
}

/* A table of a thousand descriptors and more (hackbench's ten groups hold
 * about 400): RLIMIT_NOFILE's default (Linux's: soft 1024, hard 4096
 * unless the init system raises it; nohzk's exactly that), and the
 * limit's errors at 1000: open and dup EMFILE, dup2 EBADF, F_DUPFD
 * EINVAL beyond it; raised, the table grows; a fork copies it all. */
static int many_descriptors_up_to_the_limit(void)
{
    struct rlimit limit;
    EXPECT_VALUE(getrlimit(RLIMIT_NOFILE, &limit), 0);
    printf("# RLIMIT_NOFILE soft %llu hard %llu\n", (unsigned long long)limit.rlim_cur,
           (unsigned long long)limit.rlim_max);
    if (on_nohzk())
        EXPECT(limit.rlim_cur == 1024 && limit.rlim_max == 4096);
    EXPECT(limit.rlim_max >= 1024);
    int top = limit.rlim_max > 4096 ? 4095 : (int)limit.rlim_max - 1;
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        struct rlimit thousand = { 1000, limit.rlim_max };
        if (setrlimit(RLIMIT_NOFILE, &thousand) != 0)
            _exit(1);
        int fd, last = -1;
        while ((fd = dup(0)) >= 0)
            last = fd;
        if (errno != EMFILE || last != 999 || open("/", O_RDONLY) != -1 || errno != EMFILE)
            _exit(2);
        if (dup2(0, 1000) != -1 || errno != EBADF || dup2(0, 999) != 999)
            _exit(3);
        if (fcntl(0, F_DUPFD, 1000) != -1 || errno != EINVAL || fcntl(0, F_DUPFD, 500) != -1 || errno != EMFILE)
            _exit(4);
        close(600);
        if (fcntl(0, F_DUPFD_CLOEXEC, 500) != 600 || fcntl(600, F_GETFD) != FD_CLOEXEC)
            _exit(5);
        struct rlimit raised = { limit.rlim_max, limit.rlim_max };
        if (setrlimit(RLIMIT_NOFILE, &raised) != 0 || dup(0) != 1000 || dup2(0, top) != top)
            _exit(6);
        fflush(stdout);
        pid_t grandchild = fork();
        if (grandchild == 0)
            _exit(fcntl(top, F_GETFD) == 0 && fcntl(600, F_GETFD) == FD_CLOEXEC && fcntl(999, F_GETFD) == 0 ? 0 : 1);
        int status = 0;
        if (waitpid(grandchild, &status, 0) != grandchild || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
            _exit(7);
        _exit(0);
    }
    int status = 0;
    EXPECT_VALUE(waitpid(child, &status, 0), child);
    EXPECT_VALUE(WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status), 0);
    return 1;
}

/* who is an int: the upper half of the register is dropped. */
static int getrusage_who_upper_bits_ignored(void)
{
    struct rusage usage;
    EXPECT_VALUE(syscall(SYS_getrusage, (1ul << 32) | RUSAGE_SELF, &usage), 0);
    return 1;
}

static int getrusage_children_and_thread(void)
{
    struct rusage usage;
    EXPECT_VALUE(syscall(SYS_getrusage, RUSAGE_CHILDREN, &usage), 0);
    EXPECT_VALUE(syscall(SYS_getrusage, RUSAGE_THREAD, &usage), 0);
    EXPECT_ERROR(syscall(SYS_getrusage, -2, &usage), EINVAL);
    return 1;
}

static int times_null(void)
{
    errno = 0;
    long ticks = syscall(SYS_times, NULL);
    EXPECT(ticks != -1 || errno == 0);
    return 1;
}

static int sysinfo_null(void)
{
    EXPECT_ERROR(syscall(SYS_sysinfo, NULL), EFAULT);
    return 1;
}

/* The memory in units of mem_unit (Linux scales to 1 byte, nohzk says
 * pages) is /proc/meminfo's MemTotal, free at most that; a live child
 * counts among the processes (Linux counts threads: as many or more). */
static int sysinfo_reports_memory_and_processes(void)
{
    int go[2];
    EXPECT_VALUE(pipe(go), 0);
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        char byte;
        close(go[1]);
        _exit(read(go[0], &byte, 1) == 1 ? 0 : 1);
    }
    close(go[0]);
    struct sysinfo info;
    memset(&info, 0, sizeof(info));
    long result = syscall(SYS_sysinfo, &info);
    long total_kib = proc_counter("/proc/meminfo", "MemTotal", ':');
    EXPECT_VALUE(write(go[1], "g", 1), 1);
    close(go[1]);
    EXPECT_VALUE(waitpid(child, NULL, 0), child);
    EXPECT_VALUE(result, 0);
    printf("# sysinfo: totalram %lu freeram %lu unit %u procs %u; MemTotal %ld kB\n", (unsigned long)info.totalram,
           (unsigned long)info.freeram, info.mem_unit, info.procs, total_kib);
    EXPECT(info.mem_unit > 0 && total_kib > 0);
    EXPECT((unsigned long long)info.totalram * info.mem_unit == (unsigned long long)total_kib * 1024);
    EXPECT(info.freeram > 0 && info.freeram <= info.totalram);
    EXPECT(info.procs >= 2);
    return 1;
}

static int getcpu_null_pointers(void)
{
    EXPECT_VALUE(syscall(SYS_getcpu, NULL, NULL, NULL), 0);
    unsigned node = 99;
    EXPECT_VALUE(syscall(SYS_getcpu, NULL, &node, KERNEL_ADDRESS), 0);     /* the cache is ignored */
    EXPECT_VALUE(node, 0);
    return 1;
}

/* ---- affinity ---- */

static int sched_getaffinity_bad_sizes(void)
{
    uint64_t mask[8];
    EXPECT_ERROR(syscall(SYS_sched_getaffinity, 0, 0, mask), EINVAL);
    EXPECT_ERROR(syscall(SYS_sched_getaffinity, 0, 9, mask), EINVAL);
    EXPECT_ERROR(syscall(SYS_sched_getaffinity, 0, 12, mask), EINVAL);
    return 1;
}

/* A large buffer: the kernel writes its mask's size and no more. */
static int sched_getaffinity_writes_only_its_size(void)
{
    unsigned char mask[512];
    memset(mask, 0xa5, sizeof(mask));
    long size = syscall(SYS_sched_getaffinity, 0, sizeof(mask), mask);
    EXPECT(size >= 8 && size % 8 == 0 && size < (long)sizeof(mask));
    EXPECT(mask[size] == 0xa5 && mask[sizeof(mask) - 1] == 0xa5);
    EXPECT(mask[0] != 0xa5);
    return 1;
}

static int sched_getaffinity_bad_pointer(void)
{
    EXPECT_ERROR(syscall(SYS_sched_getaffinity, 0, 8, NULL), EFAULT);
    EXPECT_ERROR(syscall(SYS_sched_getaffinity, 0, 8, KERNEL_ADDRESS), EFAULT);
    return 1;
}

static int sched_getaffinity_bad_pid(void)
{
    uint64_t mask;
    EXPECT_ERROR(syscall(SYS_sched_getaffinity, -1, 8, &mask), ESRCH);
    EXPECT_ERROR(syscall(SYS_sched_getaffinity, INT_MAX, 8, &mask), ESRCH);
    return 1;
}

/* No online CPU in the mask. */
static int sched_setaffinity_empty_mask(void)
{
    uint64_t before, after, empty = 0, offline = 1ul << 63;
    syscall(SYS_sched_getaffinity, 0, 8, &before);
    EXPECT_ERROR(syscall(SYS_sched_setaffinity, 0, 8, &empty), EINVAL);
    EXPECT_ERROR(syscall(SYS_sched_setaffinity, 0, 8, &offline), EINVAL);
    EXPECT_ERROR(syscall(SYS_sched_setaffinity, 0, 0, &before), EINVAL);
    syscall(SYS_sched_getaffinity, 0, 8, &after);
    EXPECT_VALUE(after, before);
    return 1;
}

/* A size shorter than the kernel's mask: the rest counts as zeros. */
static int sched_setaffinity_short_size(void)
{
    uint64_t before;
    uint32_t cpu0 = 1;
    syscall(SYS_sched_getaffinity, 0, 8, &before);
    NOHZK_DIFFERS("nohzk differs: a mask shorter than 8 bytes is EINVAL");
    EXPECT_VALUE(syscall(SYS_sched_setaffinity, 0, 4, &cpu0), 0);
    syscall(SYS_sched_setaffinity, 0, 8, &before);
    return 1;
}

static int sched_setaffinity_bad_pointer(void)
{
    EXPECT_ERROR(syscall(SYS_sched_setaffinity, 0, 8, NULL), EFAULT);
    EXPECT_ERROR(syscall(SYS_sched_setaffinity, 0, 8, KERNEL_ADDRESS), EFAULT);
    return 1;
}

static int sched_yield_ignores_arguments(void)
{
    EXPECT_VALUE(syscall(SYS_sched_yield, -1l, KERNEL_ADDRESS), 0);
    return 1;
}

/* ---- clocks ---- */

static int clock_gettime_bad_clock(void)
{
    struct timespec time;
    EXPECT_ERROR(syscall(SYS_clock_gettime, 100, &time), EINVAL);
    EXPECT_ERROR(syscall(SYS_clock_gettime, SGI_CYCLE_ID, &time), EINVAL);
    EXPECT_ERROR(syscall(SYS_clock_gettime, INT_MAX, &time), EINVAL);
    return 1;
}

static int clock_gettime_bad_pointer(void)
{
    EXPECT_ERROR(syscall(SYS_clock_gettime, CLOCK_MONOTONIC, NULL), EFAULT);
    EXPECT_ERROR(syscall(SYS_clock_gettime, CLOCK_MONOTONIC, KERNEL_ADDRESS), EFAULT);
    EXPECT_ERROR(syscall(SYS_clock_gettime, CLOCK_MONOTONIC, NON_CANONICAL_LOW), EFAULT);
    return 1;
}

static int clock_gettime_read_only_page(void)
{
    char *page = page_before_hole(PROT_READ);
    long result = syscall(SYS_clock_gettime, CLOCK_MONOTONIC, page);
    int error = errno;
    hole_free(page);
    EXPECT_SAVED_ERROR(result, error, EFAULT);
    return 1;
}

/* clockid_t is an int: the upper half of the register is dropped. */
static int clock_gettime_clock_upper_bits_ignored(void)
{
    struct timespec time;
    EXPECT_VALUE(syscall(SYS_clock_gettime, (1ul << 32) | CLOCK_MONOTONIC, &time), 0);
    return 1;
}

static int clock_gettime_tai(void)
{
    struct timespec time;
    EXPECT_VALUE(syscall(SYS_clock_gettime, CLOCK_TAI_ID, &time), 0);
    return 1;
}

static int clock_getres_null(void)
{
    EXPECT_VALUE(syscall(SYS_clock_getres, CLOCK_MONOTONIC, NULL), 0);
    return 1;
}

static int clock_getres_bad_clock(void)
{
    struct timespec resolution;
    EXPECT_ERROR(syscall(SYS_clock_getres, SGI_CYCLE_ID, &resolution), EINVAL);
    EXPECT_ERROR(syscall(SYS_clock_getres, 12, &resolution), EINVAL);
    EXPECT_ERROR(syscall(SYS_clock_getres, CLOCK_MONOTONIC, KERNEL_ADDRESS), EFAULT);
    return 1;
}

static int gettimeofday_null(void)
{
    struct timezone zone;
    EXPECT_VALUE(syscall(SYS_gettimeofday, NULL, NULL), 0);
    EXPECT_VALUE(syscall(SYS_gettimeofday, NULL, &zone), 0);
    EXPECT_ERROR(syscall(SYS_gettimeofday, NULL, KERNEL_ADDRESS), EFAULT);
    return 1;
}

/* ---- sleeps ---- */

static int nanosleep_bad_timespec(void)
{
    struct timespec negative_seconds = { -1, 0 }, negative_nanoseconds = { 0, -1 }, second = { 0, 1000000000 };
    EXPECT_ERROR(syscall(SYS_nanosleep, &negative_seconds, NULL), EINVAL);
    EXPECT_ERROR(syscall(SYS_nanosleep, &negative_nanoseconds, NULL), EINVAL);
    EXPECT_ERROR(syscall(SYS_nanosleep, &second, NULL), EINVAL);
    return 1;
}

static int nanosleep_bad_pointer(void)
{
    EXPECT_ERROR(syscall(SYS_nanosleep, NULL, NULL), EFAULT);
    EXPECT_ERROR(syscall(SYS_nanosleep, KERNEL_ADDRESS, NULL), EFAULT);
    return 1;
}

/* The time left is written only when a signal ends the sleep. */
static int nanosleep_zero_with_bad_remaining(void)
{
    struct timespec zero = { 0, 0 };
    EXPECT_VALUE(syscall(SYS_nanosleep, &zero, KERNEL_ADDRESS), 0);
    return 1;
}

/* Only TIMER_ABSTIME is looked at: other flag bits are ignored. */
static int clock_nanosleep_unknown_flags_ignored(void)
{
    struct timespec zero = { 0, 0 };
    EXPECT_VALUE(syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 2, &zero, NULL), 0);
    EXPECT_VALUE(syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0x100, &zero, NULL), 0);
    return 1;
}

/* A thread's CPU clock cannot be slept on (the manual says EINVAL, the
 * kernel EOPNOTSUPP); a clock that does not exist is EINVAL. */
static int clock_nanosleep_thread_cputime(void)
{
    struct timespec zero = { 0, 0 };
    EXPECT_ERROR(syscall(SYS_clock_nanosleep, 100, 0, &zero, NULL), EINVAL);
    EXPECT_ERROR(syscall(SYS_clock_nanosleep, CLOCK_THREAD_CPUTIME_ID, 0, &zero, NULL), EOPNOTSUPP);
    return 1;
}

/* Each clock id with TIMER_ABSTIME at a deadline in the past: the clocks
 * that can be slept on return 0 at once (REALTIME, MONOTONIC,
 * PROCESS_CPUTIME_ID, BOOTTIME, TAI), the others EOPNOTSUPP
 * (THREAD_CPUTIME_ID, MONOTONIC_RAW, the coarse ones), the numbers that
 * name no clock EINVAL. The alarm clocks sleep on a Linux with an RTC
 * and are EOPNOTSUPP without one, as on nohzk. */
static int clock_nanosleep_each_clock(void)
{
    struct timespec past = { 0, 1 };
    static const int sleeps[] = { 0, 1, 2, 7, 11 }, cannot[] = { 3, 4, 5, 6 }, unknown[] = { -1, 10, 12, 100 };
    for (unsigned i = 0; i < sizeof(sleeps) / sizeof(sleeps[0]); i++)
        EXPECT_VALUE(syscall(SYS_clock_nanosleep, sleeps[i], TIMER_ABSTIME, &past, NULL), 0);
    for (unsigned i = 0; i < sizeof(cannot) / sizeof(cannot[0]); i++)
        EXPECT_ERROR(syscall(SYS_clock_nanosleep, cannot[i], TIMER_ABSTIME, &past, NULL), EOPNOTSUPP);
    for (unsigned i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++)
        EXPECT_ERROR(syscall(SYS_clock_nanosleep, unknown[i], TIMER_ABSTIME, &past, NULL), EINVAL);
    for (int alarm = 8; alarm <= 9; alarm++) {
        long result = syscall(SYS_clock_nanosleep, alarm, TIMER_ABSTIME, &past, NULL);
        EXPECT(on_nohzk() ? result == -1 && errno == EOPNOTSUPP : result == 0 || errno == EOPNOTSUPP);
    }
    /* the clock is checked before the request is read */
    EXPECT_ERROR(syscall(SYS_clock_nanosleep, 4, TIMER_ABSTIME, KERNEL_ADDRESS, NULL), EOPNOTSUPP);
    EXPECT_ERROR(syscall(SYS_clock_nanosleep, 11, TIMER_ABSTIME, KERNEL_ADDRESS, NULL), EFAULT);
    return 1;
}

/* An absolute sleep on CLOCK_TAI to a deadline read from CLOCK_TAI: it
 * ends, and the clock has passed the deadline. */
static int clock_nanosleep_tai_deadline(void)
{
    struct timespec now, after;
    EXPECT_VALUE(clock_gettime(CLOCK_TAI, &now), 0);
    now.tv_nsec += 2000000;
    if (now.tv_nsec >= 1000000000) {
        now.tv_sec++;
        now.tv_nsec -= 1000000000;
    }
    EXPECT_VALUE(syscall(SYS_clock_nanosleep, CLOCK_TAI, TIMER_ABSTIME, &now, NULL), 0);
    EXPECT_VALUE(clock_gettime(CLOCK_TAI, &after), 0);
    EXPECT(after.tv_sec > now.tv_sec || (after.tv_sec == now.tv_sec && after.tv_nsec >= now.tv_nsec));
    return 1;
}

static int clock_nanosleep_absolute_past(void)
{
    struct timespec past = { 0, 1 };
    EXPECT_VALUE(syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, TIMER_ABSTIME, &past, KERNEL_ADDRESS), 0);
    return 1;
}

/* ---- wait4 ---- */

static int wait4_bad_options(void)
{
    pid_t child = child_exiting(0);
    EXPECT_ERROR(syscall(SYS_wait4, -1, NULL, 0x1000, NULL), EINVAL);
    EXPECT_ERROR(syscall(SYS_wait4, -1, NULL, WEXITED, NULL), EINVAL);
    EXPECT_VALUE(waitpid(child, NULL, 0), child);     /* still there */
    return 1;
}

static int wait4_no_children(void)
{
    EXPECT_ERROR(syscall(SYS_wait4, -1, NULL, 0, NULL), ECHILD);
    EXPECT_ERROR(syscall(SYS_wait4, -1, NULL, WNOHANG, NULL), ECHILD);
    EXPECT_ERROR(syscall(SYS_wait4, 1, NULL, 0, NULL), ECHILD);
    return 1;
}

static int wait4_pid_int_min(void)
{
    NOHZK_DIFFERS("nohzk differs: wait4(INT_MIN) looks for the group INT_MIN (ECHILD)");
    EXPECT_ERROR(syscall(SYS_wait4, INT_MIN, NULL, WNOHANG, NULL), ESRCH);
    return 1;
}

static int wait4_nohang_running_child(void)
{
    int fds[2];
    EXPECT_VALUE(pipe(fds), 0);
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        char byte;
        close(fds[1]);
        read(fds[0], &byte, 1);
        _exit(0);
    }
    close(fds[0]);
    EXPECT_VALUE(syscall(SYS_wait4, child, NULL, WNOHANG, NULL), 0);
    close(fds[1]);
    EXPECT_VALUE(waitpid(child, NULL, 0), child);
    return 1;
}

static int wait4_bad_status_pointer(void)
{
    pid_t child = child_exiting(3);
    EXPECT_ERROR(syscall(SYS_wait4, child, KERNEL_ADDRESS, 0, NULL), EFAULT);
    waitpid(child, NULL, WNOHANG);
    return 1;
}

static int wait4_bad_rusage_pointer(void)
{
    pid_t child = child_exiting(3);
    NOHZK_DIFFERS("nohzk differs: wait4 does not fill the rusage");
    EXPECT_ERROR(syscall(SYS_wait4, child, NULL, 0, KERNEL_ADDRESS), EFAULT);
    waitpid(child, NULL, WNOHANG);
    return 1;
}

/* ---- exit ---- */

static int exit_status_keeps_low_byte(void)
{
    fflush(stdout);
    pid_t child = fork();
    if (child == 0)
        syscall(SYS_exit, 0x1ff);
    int status = 0;
    EXPECT_VALUE(waitpid(child, &status, 0), child);
    EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0xff);
    fflush(stdout);
    child = fork();
    if (child == 0)
        syscall(SYS_exit_group, 256);
    EXPECT_VALUE(waitpid(child, &status, 0), child);
    EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    return 1;
}

/* ---- kill, tkill, tgkill ---- */

static int kill_bad_signal(void)
{
    EXPECT_ERROR(syscall(SYS_kill, getpid(), -1), EINVAL);
    EXPECT_ERROR(syscall(SYS_kill, getpid(), 65), EINVAL);
    EXPECT_ERROR(syscall(SYS_kill, getpid(), INT_MAX), EINVAL);
    return 1;
}

static int kill_pid_int_min(void)
{
    NOHZK_DIFFERS("nohzk differs: kill(INT_MIN) is EINVAL");
    EXPECT_ERROR(syscall(SYS_kill, INT_MIN, 0), ESRCH);
    return 1;
}

static int kill_no_such_process(void)
{
    pid_t child = child_exiting(0);
    waitpid(child, NULL, 0);
    EXPECT_ERROR(syscall(SYS_kill, child, 0), ESRCH);
    EXPECT_ERROR(syscall(SYS_kill, INT_MAX, 0), ESRCH);
    return 1;
}

static int kill_signal_upper_bits_ignored(void)
{
    EXPECT_VALUE(syscall(SYS_kill, getpid(), 1ul << 32), 0);
    return 1;
}

static int tkill_bad_arguments(void)
{
    EXPECT_ERROR(syscall(SYS_tkill, 0, SIGUSR1), EINVAL);
    EXPECT_ERROR(syscall(SYS_tkill, -1, SIGUSR1), EINVAL);
    EXPECT_ERROR(syscall(SYS_tkill, getpid(), 65), EINVAL);
    EXPECT_VALUE(syscall(SYS_tkill, getpid(), 0), 0);
    return 1;
}

static int tgkill_bad_arguments(void)
{
    EXPECT_ERROR(syscall(SYS_tgkill, 0, getpid(), 0), EINVAL);
    EXPECT_ERROR(syscall(SYS_tgkill, -1, getpid(), 0), EINVAL);
    EXPECT_ERROR(syscall(SYS_tgkill, getpid(), 0, 0), EINVAL);
    EXPECT_ERROR(syscall(SYS_tgkill, getpid(), getpid(), -1), EINVAL);
    EXPECT_ERROR(syscall(SYS_tgkill, getpid() + 100000, getpid(), 0), ESRCH);
    EXPECT_VALUE(syscall(SYS_tgkill, getpid(), getpid(), 0), 0);
    return 1;
}

/* ---- rt_sigaction, rt_sigprocmask, rt_sigpending, rt_sigsuspend ---- */

/* SIGKILL's action can be read, not changed. */
static int rt_sigaction_query_sigkill(void)
{
    struct kernel_sigaction old;
    EXPECT_VALUE(syscall(SYS_rt_sigaction, SIGKILL, NULL, &old, 8), 0);
    EXPECT(old.handler == SIG_DFL);
    EXPECT_VALUE(syscall(SYS_rt_sigaction, SIGSTOP, NULL, &old, 8), 0);
    struct kernel_sigaction ignore = { SIG_IGN, 0, NULL, 0 };
    EXPECT_ERROR(syscall(SYS_rt_sigaction, SIGSTOP, &ignore, NULL, 8), EINVAL);
    return 1;
}

static int rt_sigaction_bad_old_pointer(void)
{
    EXPECT_ERROR(syscall(SYS_rt_sigaction, SIGUSR2, NULL, KERNEL_ADDRESS, 8), EFAULT);
    return 1;
}

static int rt_sigaction_bad_sizes(void)
{
    struct kernel_sigaction old;
    EXPECT_ERROR(syscall(SYS_rt_sigaction, SIGUSR2, NULL, &old, 0), EINVAL);
    EXPECT_ERROR(syscall(SYS_rt_sigaction, SIGUSR2, NULL, &old, 16), EINVAL);
    EXPECT_ERROR(syscall(SYS_rt_sigaction, SIGUSR2, NULL, &old, (1ul << 32) | 8), EINVAL);
    return 1;
}

/* Flag bits the kernel does not know are dropped, so that a program can
 * tell which it has (SA_UNSUPPORTED, 0x400). */
static int rt_sigaction_unknown_flags_dropped(void)
{
    struct kernel_sigaction action = { SIG_IGN, SA_RESTART | 0x400, NULL, 0 }, old;
    EXPECT_VALUE(syscall(SYS_rt_sigaction, SIGUSR2, &action, NULL, 8), 0);
    EXPECT_VALUE(syscall(SYS_rt_sigaction, SIGUSR2, NULL, &old, 8), 0);
    action.handler = SIG_DFL;
    action.flags = 0;
    syscall(SYS_rt_sigaction, SIGUSR2, &action, NULL, 8);
    EXPECT(old.flags & SA_RESTART);
    NOHZK_DIFFERS("nohzk differs: sa_flags bits it does not know are kept");
    EXPECT_VALUE(old.flags & 0x400, 0);
    return 1;
}

/* SIGKILL and SIGSTOP in sa_mask are dropped. */
static int rt_sigaction_mask_drops_sigkill(void)
{
    uint64_t kill_and_stop = (1ul << (SIGKILL - 1)) | (1ul << (SIGSTOP - 1));
    struct kernel_sigaction action = { SIG_IGN, 0, NULL, kill_and_stop | 1 }, old;
    EXPECT_VALUE(syscall(SYS_rt_sigaction, SIGUSR2, &action, NULL, 8), 0);
    EXPECT_VALUE(syscall(SYS_rt_sigaction, SIGUSR2, NULL, &old, 8), 0);
    action.handler = SIG_DFL;
    action.mask = 0;
    syscall(SYS_rt_sigaction, SIGUSR2, &action, NULL, 8);
    EXPECT_VALUE(old.mask, 1);
    return 1;
}

/* Without a new set, how is not looked at. */
static int rt_sigprocmask_query_ignores_how(void)
{
    uint64_t old;
    EXPECT_VALUE(syscall(SYS_rt_sigprocmask, 7, NULL, &old, 8), 0);
    EXPECT_VALUE(syscall(SYS_rt_sigprocmask, -1, NULL, NULL, 8), 0);
    return 1;
}

static int rt_sigprocmask_sigkill_never_blocked(void)
{
    uint64_t all = ~0ul, now, before;
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, NULL, &before, 8);
    EXPECT_VALUE(syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, NULL, 8), 0);
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, NULL, &now, 8);
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, &before, NULL, 8);
    EXPECT_VALUE(now & ((1ul << (SIGKILL - 1)) | (1ul << (SIGSTOP - 1))), 0);
    EXPECT_VALUE(now & (1ul << (SIGUSR1 - 1)), 1ul << (SIGUSR1 - 1));
    return 1;
}

static int rt_sigprocmask_bad_old_pointer(void)
{
    EXPECT_ERROR(syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, KERNEL_ADDRESS, 8), EFAULT);
    EXPECT_ERROR(syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, NULL, 16), EINVAL);
    return 1;
}

/* A size up to the kernel's set is fine for rt_sigpending. */
static int rt_sigpending_short_size(void)
{
    uint32_t half;
    NOHZK_DIFFERS("nohzk differs: rt_sigpending takes only size 8");
    EXPECT_VALUE(syscall(SYS_rt_sigpending, &half, 4), 0);
    EXPECT_VALUE(syscall(SYS_rt_sigpending, NULL, 0), 0);
    return 1;
}

static int rt_sigpending_bad_arguments(void)
{
    uint64_t set[2];
    EXPECT_ERROR(syscall(SYS_rt_sigpending, set, 16), EINVAL);
    EXPECT_ERROR(syscall(SYS_rt_sigpending, NULL, 8), EFAULT);
    EXPECT_ERROR(syscall(SYS_rt_sigpending, KERNEL_ADDRESS, 8), EFAULT);
    return 1;
}

static int rt_sigsuspend_bad_arguments(void)
{
    uint64_t mask = 0;
    EXPECT_ERROR(syscall(SYS_rt_sigsuspend, &mask, 4), EINVAL);
    EXPECT_ERROR(syscall(SYS_rt_sigsuspend, NULL, 8), EFAULT);
    EXPECT_ERROR(syscall(SYS_rt_sigsuspend, KERNEL_ADDRESS, 8), EFAULT);
    return 1;
}

static void on_alarm(int signal) { (void)signal; }

/* pause returns only when a handler has run: -1, EINTR. */
static int pause_interrupted_by_handler(void)
{
    struct sigaction action = { 0 }, old;
    action.sa_handler = on_alarm;
    action.sa_flags = SA_RESTART;     /* pause is never restarted */
    sigaction(SIGALRM, &action, &old);
    struct itimerval soon = { { 0, 0 }, { 0, 10000 } };
    setitimer(ITIMER_REAL, &soon, NULL);
    long result = syscall(SYS_pause);
    int error = errno;
    sigaction(SIGALRM, &old, NULL);
    EXPECT_SAVED_ERROR(result, error, EINTR);
    return 1;
}

/* restart_syscall with nothing to restart. */
static int restart_syscall_without_restart(void)
{
    EXPECT_ERROR(syscall(SYS_restart_syscall), EINTR);
    return 1;
}

/* ---- poll ---- */

static int poll_zero_fds(void)
{
    EXPECT_VALUE(syscall(SYS_poll, NULL, 0, 0), 0);
    EXPECT_ERROR(syscall(SYS_poll, KERNEL_ADDRESS, 0, 0), EFAULT);     /* checked even for none */
    return 1;
}

static int poll_bad_pointer(void)
{
    EXPECT_ERROR(syscall(SYS_poll, NULL, 1, 0), EFAULT);
    EXPECT_ERROR(syscall(SYS_poll, KERNEL_ADDRESS, 1, 0), EFAULT);
    return 1;
}

static int poll_nfds_over_limit(void)
{
    struct rlimit limit;
    getrlimit(RLIMIT_NOFILE, &limit);
    EXPECT_ERROR(syscall(SYS_poll, NULL, limit.rlim_cur + 1, 0), EINVAL);
    return 1;
}

static int ppoll_bad_arguments(void)
{
    struct timespec bad = { 0, 1000000000 }, zero = { 0, 0 };
    uint64_t mask = 0;
    EXPECT_ERROR(syscall(SYS_ppoll, NULL, 0, &bad, NULL, 8), EINVAL);
    EXPECT_ERROR(syscall(SYS_ppoll, NULL, 0, &zero, &mask, 4), EINVAL);
    EXPECT_ERROR(syscall(SYS_ppoll, NULL, 0, KERNEL_ADDRESS, NULL, 8), EFAULT);
    return 1;
}

/* ---- setitimer, getitimer, alarm ---- */

static int getitimer_bad_arguments(void)
{
    struct itimerval value;
    EXPECT_ERROR(syscall(SYS_getitimer, 3, &value), EINVAL);
    EXPECT_ERROR(syscall(SYS_getitimer, -1, &value), EINVAL);
    EXPECT_ERROR(syscall(SYS_getitimer, ITIMER_REAL, NULL), EFAULT);
    return 1;
}

/* A NULL new value disarms (Linux keeps it for old programs). */
static int setitimer_null_value(void)
{
    struct itimerval value = { { 0, 0 }, { 100, 0 } }, old;
    EXPECT_VALUE(setitimer(ITIMER_REAL, &value, NULL), 0);
    EXPECT_VALUE(syscall(SYS_setitimer, ITIMER_REAL, NULL, &old), 0);
    EXPECT(old.it_value.tv_sec > 0);
    EXPECT_VALUE(getitimer(ITIMER_REAL, &old), 0);
    EXPECT(old.it_value.tv_sec == 0 && old.it_value.tv_usec == 0);
    return 1;
}

static int alarm_upper_bits_ignored(void)
{
    EXPECT_VALUE(syscall(SYS_alarm, 1ul << 32), 0);     /* alarm(0): nothing armed */
    EXPECT_VALUE(syscall(SYS_alarm, 0), 0);
    return 1;
}

/* ---- arch_prctl, set_tid_address ---- */

static int arch_prctl_unknown_code(void)
{
    unsigned long value;
    EXPECT_ERROR(syscall(SYS_arch_prctl, 0x1fff, &value), EINVAL);
    EXPECT_ERROR(syscall(SYS_arch_prctl, 0, &value), EINVAL);
    return 1;
}

/* A base outside the user half is refused, and the old one stays. */
static int arch_prctl_set_fs_kernel_address(void)
{
    unsigned long before, after;
    EXPECT_VALUE(syscall(SYS_arch_prctl, ARCH_GET_FS, &before), 0);
    EXPECT_ERROR(syscall(SYS_arch_prctl, ARCH_SET_FS, KERNEL_ADDRESS), EPERM);
    EXPECT_ERROR(syscall(SYS_arch_prctl, ARCH_SET_FS, NON_CANONICAL_LOW), EPERM);
    EXPECT_VALUE(syscall(SYS_arch_prctl, ARCH_GET_FS, &after), 0);
    EXPECT_VALUE(after, before);
    return 1;
}

static int arch_prctl_get_fs_bad_pointer(void)
{
    EXPECT_ERROR(syscall(SYS_arch_prctl, ARCH_GET_FS, NULL), EFAULT);
    EXPECT_ERROR(syscall(SYS_arch_prctl, ARCH_GET_FS, KERNEL_ADDRESS), EFAULT);
    return 1;
}

static int arch_prctl_gs(void)
{
    unsigned long base = 1;
    NOHZK_DIFFERS("nohzk differs: ARCH_GET_GS and ARCH_SET_GS are EINVAL (the user GS base is not kept)");
    EXPECT_VALUE(syscall(SYS_arch_prctl, ARCH_GET_GS, &base), 0);
    EXPECT_VALUE(base, 0);
    EXPECT_ERROR(syscall(SYS_arch_prctl, ARCH_SET_GS, KERNEL_ADDRESS), EPERM);
    return 1;
}

/* Any address is taken (it is only written at exit): the tid comes back. */
static int set_tid_address_kernel_address(void)
{
    fflush(stdout);
    pid_t child = fork();
    if (child == 0)
        _exit(syscall(SYS_set_tid_address, KERNEL_ADDRESS) == getpid() ? 0 : 1);
    int status = 0;
    EXPECT_VALUE(waitpid(child, &status, 0), child);
    EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    return 1;
}

/* ---- clone ---- */

/* CLONE_SIGHAND needs CLONE_VM, CLONE_THREAD needs CLONE_SIGHAND. */
static int clone_inconsistent_flags(void)
{
    fflush(stdout);
    long result = syscall(SYS_clone, CLONE_SIGHAND | SIGCHLD, NULL, NULL, NULL, 0);
    if (result == 0)
        _exit(0);
    int error = errno;
    if (result > 0)
        waitpid(result, NULL, 0);
    NOHZK_DIFFERS("nohzk differs: CLONE_SIGHAND without CLONE_VM forks");
    EXPECT_SAVED_ERROR(result, error, EINVAL);
    NOHZK_DIFFERS("nohzk differs: CLONE_THREAD is ENOSYS (no threads), whatever the other flags");
    EXPECT_ERROR(syscall(SYS_clone, CLONE_THREAD | SIGCHLD, NULL, NULL, NULL, 0), EINVAL);
    return 1;
}

/* ---- reboot ---- */

static int reboot_bad_magic(void)
{
    EXPECT_ERROR(syscall(SYS_reboot, 0, 0, 0, NULL), EINVAL);
    EXPECT_ERROR(syscall(SYS_reboot, 0xfee1dead, 0, 0x4321fedc, NULL), EINVAL);
    return 1;
}

int main(void)
{
    static const struct ktap_case cases[] = {
        KTAP_CASE(getpid_ignores_arguments), KTAP_CASE(getppid_of_a_child), KTAP_CASE(getuid_ignores_arguments),
        KTAP_CASE(getpgrp_ignores_arguments), KTAP_CASE(setuid_minus_one),
        KTAP_CASE(setgid_minus_one), KTAP_CASE(setuid_to_itself), KTAP_CASE(getpgid_negative_pid),
        KTAP_CASE(getsid_negative_pid), KTAP_CASE(setpgid_negative_pid),
        KTAP_CASE(uname_null), KTAP_CASE(uname_kernel_address), KTAP_CASE(uname_read_only_page),
        KTAP_CASE(uname_crossing_into_unmapped), KTAP_CASE(uname_unaligned),
        KTAP_CASE(getcwd_size_zero), KTAP_CASE(getcwd_size_exact), KTAP_CASE(getcwd_null_buffer),
        KTAP_CASE(getcwd_kernel_address), KTAP_CASE(getcwd_crossing_into_unmapped), KTAP_CASE(getcwd_huge_size),
        KTAP_CASE(getcwd_directory_removed), KTAP_CASE(chdir_bad_paths), KTAP_CASE(chdir_path_too_long),
        KTAP_CASE(umask_keeps_only_permission_bits), KTAP_CASE(umask_applies_to_open_and_mkdir),
        KTAP_CASE(getrlimit_resource_upper_bits_ignored), KTAP_CASE(getrlimit_crossing_into_unmapped),
        KTAP_CASE(setrlimit_current_above_maximum), KTAP_CASE(prlimit64_negative_pid), KTAP_CASE(prlimit64_nothing),
        KTAP_CASE(getrlimit_resource_past_the_last), KTAP_CASE(prlimit64_sets_and_returns_the_old_limit),
        KTAP_CASE(prlimit64_of_a_child),
        KTAP_CASE(setrlimit_nofile_enforced), KTAP_CASE(many_descriptors_up_to_the_limit),
        KTAP_CASE(getrusage_who_upper_bits_ignored),
        KTAP_CASE(getrusage_children_and_thread), KTAP_CASE(times_null), KTAP_CASE(sysinfo_null),
        KTAP_CASE(sysinfo_reports_memory_and_processes),
        KTAP_CASE(getcpu_null_pointers),
        KTAP_CASE(sched_getaffinity_bad_sizes), KTAP_CASE(sched_getaffinity_writes_only_its_size),
        KTAP_CASE(sched_getaffinity_bad_pointer), KTAP_CASE(sched_getaffinity_bad_pid),
        KTAP_CASE(sched_setaffinity_empty_mask), KTAP_CASE(sched_setaffinity_short_size),
        KTAP_CASE(sched_setaffinity_bad_pointer), KTAP_CASE(sched_yield_ignores_arguments),
        KTAP_CASE(clock_gettime_bad_clock), KTAP_CASE(clock_gettime_bad_pointer),
        KTAP_CASE(clock_gettime_read_only_page), KTAP_CASE(clock_gettime_clock_upper_bits_ignored),
        KTAP_CASE(clock_gettime_tai), KTAP_CASE(clock_getres_null), KTAP_CASE(clock_getres_bad_clock),
        KTAP_CASE(gettimeofday_null),
        KTAP_CASE(nanosleep_bad_timespec), KTAP_CASE(nanosleep_bad_pointer),
        KTAP_CASE(nanosleep_zero_with_bad_remaining), KTAP_CASE(clock_nanosleep_unknown_flags_ignored),
        KTAP_CASE(clock_nanosleep_thread_cputime), KTAP_CASE(clock_nanosleep_absolute_past),
        KTAP_CASE(clock_nanosleep_each_clock), KTAP_CASE(clock_nanosleep_tai_deadline),
        KTAP_CASE(wait4_bad_options), KTAP_CASE(wait4_no_children), KTAP_CASE(wait4_pid_int_min),
        KTAP_CASE(wait4_nohang_running_child), KTAP_CASE(wait4_bad_status_pointer),
        KTAP_CASE(wait4_bad_rusage_pointer), KTAP_CASE(exit_status_keeps_low_byte),
        KTAP_CASE(kill_bad_signal), KTAP_CASE(kill_pid_int_min), KTAP_CASE(kill_no_such_process),
        KTAP_CASE(kill_signal_upper_bits_ignored), KTAP_CASE(tkill_bad_arguments), KTAP_CASE(tgkill_bad_arguments),
        KTAP_CASE(rt_sigaction_query_sigkill), KTAP_CASE(rt_sigaction_bad_old_pointer),
        KTAP_CASE(rt_sigaction_bad_sizes), KTAP_CASE(rt_sigaction_unknown_flags_dropped),
        KTAP_CASE(rt_sigaction_mask_drops_sigkill), KTAP_CASE(rt_sigprocmask_query_ignores_how),
        KTAP_CASE(rt_sigprocmask_sigkill_never_blocked), KTAP_CASE(rt_sigprocmask_bad_old_pointer),
        KTAP_CASE(rt_sigpending_short_size), KTAP_CASE(rt_sigpending_bad_arguments),
        KTAP_CASE(rt_sigsuspend_bad_arguments), KTAP_CASE(pause_interrupted_by_handler),
        KTAP_CASE(restart_syscall_without_restart),
        KTAP_CASE(poll_zero_fds), KTAP_CASE(poll_bad_pointer), KTAP_CASE(poll_nfds_over_limit),
        KTAP_CASE(ppoll_bad_arguments),
        KTAP_CASE(getitimer_bad_arguments), KTAP_CASE(setitimer_null_value), KTAP_CASE(alarm_upper_bits_ignored),
        KTAP_CASE(arch_prctl_unknown_code), KTAP_CASE(arch_prctl_set_fs_kernel_address),
        KTAP_CASE(arch_prctl_get_fs_bad_pointer), KTAP_CASE(arch_prctl_gs),
        KTAP_CASE(set_tid_address_kernel_address), KTAP_CASE(clone_inconsistent_flags), KTAP_CASE(reboot_bad_magic),
    };
    strcpy(directory, "/tmp/conform_proc.XXXXXX");
    if (!mkdtemp(directory)) {
        printf("# conform_proc: cannot make the scratch directory (errno %d)\n", errno);
        return 1;
    }
    int status = conform_main(cases, KTAP_COUNT(cases));
    chdir("/");
    rmdir(directory);
    return status;
}
