/* abi_probe: one C source, built static with glibc and with musl, run on
 * the host and on nohzk; the scenario "abi-probe" checks that all four
 * outputs are the same. So it prints only what must agree everywhere:
 * facts and yes/no answers, never times, pids or sizes that differ
 * between kernels. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/times.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define CHECK(what, condition) printf("%-28s %s\n", what, (condition) ? "yes" : "no")

static void identity(void)
{
    struct utsname name;
    CHECK("uname works", uname(&name) == 0);
    printf("%-28s %s\n", "uname sysname", name.sysname);
    printf("%-28s %s\n", "uname machine", name.machine);
    CHECK("getpid > 0", getpid() > 0);
    CHECK("getppid >= 0", getppid() >= 0);
    CHECK("gettid == getpid", syscall(SYS_gettid) == getpid());
    CHECK("getuid == geteuid", getuid() == geteuid());
}

static void clocks(void)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (volatile int i = 0; i < 1000000; i++)
        ;
    clock_gettime(CLOCK_MONOTONIC, &b);
    CHECK("monotonic clock advances", b.tv_sec > a.tv_sec || (b.tv_sec == a.tv_sec && b.tv_nsec > a.tv_nsec));
    struct timespec request = { 0, 20 * 1000 * 1000 }, c;
    nanosleep(&request, NULL);
    clock_gettime(CLOCK_MONOTONIC, &c);
    long long slept = (c.tv_sec - b.tv_sec) * 1000000000ll + (c.tv_nsec - b.tv_nsec);
    CHECK("nanosleep not early", slept >= 20 * 1000 * 1000);
    struct rusage usage;
    CHECK("getrusage self", getrusage(RUSAGE_SELF, &usage) == 0);
    CHECK("getrusage bad who EINVAL", getrusage(42, &usage) == -1 && errno == EINVAL);
    struct tms tms;
    CHECK("times works", times(&tms) != (clock_t)-1);
    struct sysinfo info;
    CHECK("sysinfo has memory", sysinfo(&info) == 0 && info.totalram > 0 && info.freeram <= info.totalram);
    unsigned cpu = 999;
    CHECK("getcpu gives a cpu", syscall(SYS_getcpu, &cpu, NULL, NULL) == 0 && cpu < 256);
}

static void files(void)
{
    const char *path = "/tmp/abi_probe.txt", *moved = "/tmp/abi_probe.moved", *link = "/tmp/abi_probe.link";
    unlink(path), unlink(moved), unlink(link);
    int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
    CHECK("create", fd >= 0);
    CHECK("write 5", write(fd, "hello", 5) == 5);
    close(fd);
    struct stat st;
    CHECK("stat size 5", stat(path, &st) == 0 && st.st_size == 5 && S_ISREG(st.st_mode));
    CHECK("chmod 0640", chmod(path, 0640) == 0 && stat(path, &st) == 0 && (st.st_mode & 0777) == 0640);
    CHECK("rename", rename(path, moved) == 0);
    CHECK("old name gone", stat(path, &st) == -1 && errno == ENOENT);
    CHECK("symlink", symlink(moved, link) == 0);
    char target[64] = { 0 };
    CHECK("readlink", readlink(link, target, sizeof(target) - 1) == (ssize_t)strlen(moved) && !strcmp(target, moved));
    char buffer[16] = { 0 };
    fd = open(link, O_RDONLY);
    CHECK("read through symlink", fd >= 0 && read(fd, buffer, sizeof(buffer)) == 5 && !strcmp(buffer, "hello"));
    CHECK("lseek to 1", lseek(fd, 1, SEEK_SET) == 1 && read(fd, buffer, 2) == 2 && !memcmp(buffer, "el", 2));
    close(fd);
    CHECK("rename onto dir EISDIR", mkdir("/tmp/abi_probe.d", 0755) == 0 && rename(moved, "/tmp/abi_probe.d") == -1 && errno == EISDIR);
    CHECK("rmdir", rmdir("/tmp/abi_probe.d") == 0);
    CHECK("unlink both", unlink(link) == 0 && unlink(moved) == 0);
    CHECK("unlink missing ENOENT", unlink(moved) == -1 && errno == ENOENT);
    int pipe_fds[2];
    CHECK("pipe round trip", pipe(pipe_fds) == 0 && write(pipe_fds[1], "x", 1) == 1 && read(pipe_fds[0], buffer, 1) == 1 && buffer[0] == 'x');
    CHECK("bad fd EBADF", close(1000) == -1 && errno == EBADF);
}

static void processes(void)
{
    pid_t child = fork();
    if (child == 0)
        _exit(42);
    int status = 0;
    CHECK("fork and wait", child > 0 && waitpid(child, &status, 0) == child);
    CHECK("exit status 42", WIFEXITED(status) && WEXITSTATUS(status) == 42);
    CHECK("no more children ECHILD", wait(&status) == -1 && errno == ECHILD);
    struct rlimit limit;
    CHECK("getrlimit nofile", getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur > 0 && limit.rlim_cur <= limit.rlim_max);
}

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    identity();
    clocks();
    files();
    processes();
    printf("abi_probe: done\n");
    return 0;
}
