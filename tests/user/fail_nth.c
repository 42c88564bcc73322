/* fail-nth: every allocation failure of every system call class the
 * fuzzer exercises, taken on purpose (docs/reliability.md, "Fault
 * injection"). For each call and N = 1, 2, 3, ... writes N to
 * /proc/self/fail-nth, makes the one system call, reads fail-nth back (0:
 * the Nth fallible point failed), until the failure no longer fires.
 * Each (call, N) must: end (the scenario's timeout catches a hang), fail
 * with a clean errno (ENOMEM, EAGAIN, EMFILE) or succeed, leave the state
 * its result says (a failed mmap mapped nothing, a failed fork made no
 * child, a short write wrote what it says...), and give back every heap
 * object and page: /proc/meminfo's HeapObjects exactly, MemFree within
 * SLACK_PAGES (page-table pages of kernel stacks, KernelStackTables, are
 * kept by design and counted apart, as user/fuzz.c does). Without an
 * injected failure the call must succeed: the walk then tests the calls
 * too. Prints the (call, N) pairs tried and injected.
 *
 * fail_nth [--all] [--only NAME]: --all adds the slow calls (rcustress
 * runs a second per N). On Linux, fail-nth needs CONFIG_FAULT_INJECTION
 * and counts differently (not only the next call), and HeapObjects is
 * nohzk's: every case is skipped there. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ktap.h"
#include "testlib.h"
#include "proc_counters.h"

#define PAGE 4096l
#define MAX_N 2000              /* a call with more fallible points than this is a bug of its own */
#define SLACK_PAGES 4
#define SETTLE_TRIES 200
#define DIR_PATH "/tmp/fail_nth"
#define FILE_PATH DIR_PATH "/file"
#define NEW_PATH DIR_PATH "/new"
#define SCRIPT_PATH DIR_PATH "/script"
#define WRITE_SIZE (3 * PAGE + 100)

static int fail_nth_fd = -1;
static int all_calls;
static const char *only;
static char self_path[256];
static unsigned long pairs_tried, pairs_injected, leaks;

/* ---- the state each call works on ---- */

static int fds[4];
static char *map;
static long brk_before;
static char buffer[WRITE_SIZE], pattern[WRITE_SIZE];
static volatile int usr1_count;
static pid_t child;

static void on_usr1(int signal) { (void)signal; usr1_count++; }

/* The lowest free descriptor: a failed call must not have taken one. */
static int lowest_free_fd(void)
{
    int fd = dup(0);
    close(fd);
    return fd;
}

/* pread and pwrite as lseek and read or write: nohzk has no pread64. */
static long read_at(int fd, void *data, size_t size, off_t offset)
{
    return lseek(fd, offset, SEEK_SET) == offset ? read(fd, data, size) : -1;
}

static long write_at(int fd, const void *data, size_t size, off_t offset)
{
    return lseek(fd, offset, SEEK_SET) == offset ? write(fd, data, size) : -1;
}

/* A write from an unmapped address fails with EFAULT. */
static int mapped(const void *address)
{
    return write_at(fds[3], address, 1, 0) == 1 || errno != EFAULT;  /* fds[3]: a scratch file */
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* ---- the calls: setup, the one system call, the check, the teardown ---- */

struct call {
    const char *name;
    int slow;                               /* only with --all */
    int also_errno;                         /* a clean errno of this call's own, when injected */
    int child_arms;                         /* a child makes the call: it arms itself, child_fired says */
    void (*setup)(void);
    long (*call)(void);                     /* exactly one system call */
    int (*check)(long result, int fired);   /* the state agrees with the result */
    void (*teardown)(void);
};

static int expected_fd;
static void nothing(void) {}

/* file */
static void open_setup(void) { expected_fd = lowest_free_fd(); }
static long open_create(void) { return syscall(SYS_open, NEW_PATH, O_CREAT | O_RDWR, 0644); }
static int open_create_check(long result, int fired)
{
    (void)fired;
    if (result < 0)
        return file_size(NEW_PATH) < 0 && lowest_free_fd() == expected_fd;
    fds[0] = (int)result;
    return result == expected_fd && file_size(NEW_PATH) == 0;
}
static void open_teardown(void) { close(fds[0]); unlink(NEW_PATH); }
static long open_existing(void) { return syscall(SYS_open, FILE_PATH, O_RDONLY); }
static int open_existing_check(long result, int fired)
{
    (void)fired;
    if (result < 0)
        return lowest_free_fd() == expected_fd;
    fds[0] = (int)result;
    return result == expected_fd && read(fds[0], buffer, 1) == 1;
}
static void close_fd0(void) { close(fds[0]); }

static void write_setup(void) { fds[0] = open(NEW_PATH, O_CREAT | O_RDWR | O_TRUNC, 0644); }
static long write_file(void) { return syscall(SYS_write, fds[0], pattern, WRITE_SIZE); }
static int write_file_check(long result, int fired)
{
    (void)fired;
    long size = file_size(NEW_PATH);
    if (result < 0)
        return size == 0;
    if (size != result || read_at(fds[0], buffer, (size_t)size, 0) != size)
        return 0;
    return memcmp(buffer, pattern, (size_t)size) == 0;      /* a short write wrote what it says */
}

static void read_setup(void) { fds[0] = open(FILE_PATH, O_RDONLY); memset(buffer, 0, sizeof(buffer)); }
static long read_file(void) { return syscall(SYS_read, fds[0], buffer, WRITE_SIZE); }
static int read_file_check(long result, int fired)
{
    (void)fired;
    if (result < 0)
        return lseek(fds[0], 0, SEEK_CUR) == 0;
    return lseek(fds[0], 0, SEEK_CUR) == result && memcmp(buffer, pattern, (size_t)result) == 0;
}

static long make_dir(void) { return syscall(SYS_mkdir, NEW_PATH, 0755); }
static int make_dir_check(long result, int fired)
{
    (void)fired;
    struct stat st;
    int exists = stat(NEW_PATH, &st) == 0 && S_ISDIR(st.st_mode);
    return result < 0 ? !exists : exists;
}
static void remove_dir(void) { rmdir(NEW_PATH); }

static long rename_file(void) { return syscall(SYS_rename, FILE_PATH, NEW_PATH); }
static int rename_check(long result, int fired)
{
    (void)fired;
    int old = file_size(FILE_PATH) == WRITE_SIZE, new = file_size(NEW_PATH) == WRITE_SIZE;
    return result < 0 ? old && !new : !old && new;
}
static void rename_back(void) { rename(NEW_PATH, FILE_PATH); }

static long make_symlink(void) { return syscall(SYS_symlink, FILE_PATH, NEW_PATH); }
static int symlink_check(long result, int fired)
{
    (void)fired;
    char target[64];
    long length = readlink(NEW_PATH, target, sizeof(target));
    return result < 0 ? length < 0 : length == (long)strlen(FILE_PATH);
}
static void unlink_new(void) { unlink(NEW_PATH); }

static void dirfd_setup(void) { fds[0] = open(DIR_PATH, O_RDONLY | O_DIRECTORY); }
static long getdents(void) { return syscall(SYS_getdents64, fds[0], buffer, sizeof(buffer)); }
static int getdents_check(long result, int fired)
{
    (void)fired;
    return result != 0;     /* "." at least, or an error */
}

/* pipe */
static long make_pipe(void) { return syscall(SYS_pipe, fds); }
static int pipe_check(long result, int fired)
{
    (void)fired;
    if (result < 0)
        return lowest_free_fd() == expected_fd;
    char c = 0;
    return fds[0] == expected_fd && write(fds[1], "p", 1) == 1 && read(fds[0], &c, 1) == 1 && c == 'p';
}
static void close_pipe(void) { close(fds[0]); close(fds[1]); }

/* socketpair: two pipes and two ends; both directions must work */
static long make_socketpair(void) { return syscall(SYS_socketpair, 1 /* AF_UNIX */, 1 /* SOCK_STREAM */, 0, fds); }
static int socketpair_check(long result, int fired)
{
    char c = 0;
    return pipe_check(result, fired) &&
           (result < 0 || (write(fds[0], "q", 1) == 1 && read(fds[1], &c, 1) == 1 && c == 'q'));
}

static void pipe_setup(void) { pipe(fds); fcntl(fds[1], F_SETFL, O_NONBLOCK); }
static long pipe_write(void) { return syscall(SYS_write, fds[1], pattern, WRITE_SIZE); }
static int pipe_write_check(long result, int fired)
{
    (void)fired;
    fcntl(fds[0], F_SETFL, O_NONBLOCK);
    long got = read(fds[0], buffer, sizeof(buffer));
    if (result < 0)
        return got < 0 && errno == EAGAIN;
    return got == result && memcmp(buffer, pattern, (size_t)got) == 0;
}

static long dup_fd(void) { return syscall(SYS_dup, 1); }
static int dup_check(long result, int fired)
{
    (void)fired;
    if (result < 0)
        return lowest_free_fd() == expected_fd;
    fds[0] = (int)result;
    return result == expected_fd;
}

static void poll_setup(void) { pipe(fds); write(fds[1], "x", 1); }
static long poll_pipe(void)
{
    struct pollfd p[2] = { { fds[0], POLLIN, 0 }, { fds[1], POLLOUT, 0 } };
    return syscall(SYS_poll, p, 2, 0);
}
static long select_pipe(void)
{
    fd_set readable;
    FD_ZERO(&readable);
    FD_SET(fds[0], &readable);
    struct timeval none = { 0, 0 };
    return syscall(SYS_select, fds[0] + 1, &readable, 0, 0, &none);
}
static int ready_check(long result, int fired)
{
    (void)fired;
    return result < 0 || result >= 1;
}

/* processes */
static long fork_raw(void)
{
    long pid = syscall(SYS_fork);
    if (pid == 0)
        syscall(SYS_exit_group, 7);
    return pid;
}
static int fork_check(long result, int fired)
{
    (void)fired;
    int status;
    if (result < 0)
        return waitpid(-1, &status, WNOHANG) < 0 && errno == ECHILD;    /* no child was made */
    return waitpid((pid_t)result, &status, 0) == result && WIFEXITED(status) && WEXITSTATUS(status) == 7;
}

/* A child that has exited and waits to be reaped (its state in
 * /proc/PID/stat is Z). */
static void exited_child_setup(void)
{
    char path[32], text[128];
    child = fork();
    if (child == 0)
        _exit(5);
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)child);
    for (int i = 0; i < 10000; i++) {
        int fd = open(path, O_RDONLY);
        long got = fd < 0 ? -1 : read(fd, text, sizeof(text) - 1);
        close(fd);
        text[got > 0 ? got : 0] = 0;
        char *end = strrchr(text, ')');
        if (end && end[1] == ' ' && end[2] == 'Z')
            return;
        usleep(1000);
    }
}
static long wait_child(void) { int status; return syscall(SYS_wait4, child, &status, 0, 0); }
static int wait_check(long result, int fired)
{
    (void)fired;
    int status;
    if (result < 0)
        return waitpid(child, &status, 0) == child;     /* still there to reap */
    return result == child && waitpid(-1, &status, WNOHANG) < 0;
}

/* execve, in a child that arms its own fail-nth: the new program (this
 * one, "exec-child") reports its fail-nth; the count survives exec. */
static int exec_report[2];
static long exec_n;
static const char *exec_path;
static void exec_setup(void) { pipe(exec_report); exec_path = self_path; }
/* A #! script whose interpreter is this program: it gets "exec-child",
 * the script's path, then the script's arguments (Linux's order). */
static void exec_script_setup(void)
{
    static char script[300];
    int length = snprintf(script, sizeof(script), "#!%s exec-child\n", self_path);
    int fd = open(SCRIPT_PATH, O_CREAT | O_WRONLY | O_TRUNC, 0755);
    write(fd, script, (size_t)length);
    close(fd);
    pipe(exec_report);
    exec_path = SCRIPT_PATH;
}
static long exec_in_child(void)
{
    char fd[16], n[24], *argv[] = { exec_path == self_path ? self_path : (char *)exec_path,
                                    exec_path == self_path ? "exec-child" : fd, fd, 0 };
    if (exec_path != self_path)
        argv[2] = 0;
    snprintf(fd, sizeof(fd), "%d", exec_report[1]);
    int length = snprintf(n, sizeof(n), "%ld", exec_n);
    child = fork();
    if (child == 0) {
        int own = open("/proc/self/fail-nth", O_WRONLY);
        if (exec_n && (own < 0 || write(own, n, (size_t)length) != length))
            _exit(3);
        long r = syscall(SYS_execve, exec_path, argv, environ);
        char line[64];
        int length = snprintf(line, sizeof(line), "%ld %d\n", r, errno);
        write(exec_report[1], line, (size_t)length);
        _exit(0);
    }
    return child;
}
static void close_exec_report(void) { close(exec_report[0]); close(exec_report[1]); }
static void exec_script_teardown(void) { close_exec_report(); unlink(SCRIPT_PATH); }

static long mmap_anonymous(void)
{
    return (long)syscall(SYS_mmap, map, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED
                         | MAP_POPULATE, -1, 0);
}
/* A hole of 4 pages: where the fixed mappings go. */
static void hole_setup(void)
{
    map = mmap(0, 4 * PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    munmap(map, 4 * PAGE);
}
static int mmap_check(long result, int fired)
{
    (void)fired;
    if (result < 0)
        return !mapped(map) && !mapped(map + 3 * PAGE);         /* nothing mapped */
    map[0] = 1;
    map[3 * PAGE] = 2;
    return (char *)result == map && map[PAGE] == 0;
}
static void unmap(void) { munmap(map, 4 * PAGE); }
/* Shared anonymous memory: its pages are taken at once. */
static long mmap_shared(void)
{
    return (long)syscall(SYS_mmap, map, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED,
                         -1, 0);
}
/* A private file mapping: a copy of the file, its region named. */
static long mmap_file(void)
{
    return (long)syscall(SYS_mmap, map, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fds[2], 0);
}
static int mmap_file_check(long result, int fired)
{
    (void)fired;
    if (result < 0)
        return !mapped(map) && !mapped(map + 3 * PAGE);
    return (char *)result == map && map[0] == pattern[0];
}

/* The file's own pages, shared: the file's bytes at once. */
static long mmap_shared_file(void)
{
    return (long)syscall(SYS_mmap, map, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fds[2], 0);
}
static int mmap_shared_file_check(long result, int fired)
{
    (void)fired;
    if (result < 0)
        return !mapped(map) && !mapped(map + PAGE);
    return (char *)result == map && map[0] == pattern[0] && map[PAGE] == pattern[PAGE];
}

/* A cut inside a page: the rest of it zeroed, the page after it gone,
 * or nothing changed. */
static void two_page_scratch(void)
{
    char page[PAGE];
    memset(page, 'z', sizeof(page));
    ftruncate(fds[3], 0);
    pwrite(fds[3], page, PAGE, 0);
    pwrite(fds[3], page, PAGE, PAGE);
}
static void empty_scratch(void) { ftruncate(fds[3], 0); }
static long ftruncate_cut(void) { return syscall(SYS_ftruncate, fds[3], 100L); }
static int ftruncate_cut_check(long result, int fired)
{
    (void)fired;
    struct stat st;
    char byte = 0;
    if (fstat(fds[3], &st) != 0)
        return 0;
    if (result < 0)
        return st.st_size == 2 * PAGE && pread(fds[3], &byte, 1, PAGE + 5) == 1 && byte == 'z';
    return st.st_size == 100 && ftruncate(fds[3], 200) == 0 && pread(fds[3], &byte, 1, 150) == 1 && byte == 0;
}

static void three_pages_setup(void)
{
    map = mmap(0, 3 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    for (int i = 0; i < 3; i++)
        map[i * PAGE] = (char)('a' + i);
}
static long munmap_middle(void) { return syscall(SYS_munmap, map + PAGE, PAGE); }
static int munmap_check(long result, int fired)
{
    (void)fired;
    if (map[0] != 'a' || map[2 * PAGE] != 'c')
        return 0;
    return result < 0 ? map[PAGE] == 'b' : !mapped(map + PAGE);
}
static long mprotect_middle(void) { return syscall(SYS_mprotect, map + PAGE, PAGE, PROT_READ); }
static int mprotect_check(long result, int fired)
{
    (void)fired;
    /* a read-only page makes read() into it fail with EFAULT */
    lseek(fds[2], 0, SEEK_SET);
    long got = read(fds[2], map + PAGE, 1);    /* fds[2]: the file, starting with pattern[0] */
    if (map[0] != 'a' || map[2 * PAGE] != 'c')
        return 0;
    return result < 0 ? got == 1 : got < 0 && errno == EFAULT && map[PAGE] == 'b';
}
static void unmap_three(void) { munmap(map, 3 * PAGE); }
static long madvise_middle(void) { return syscall(SYS_madvise, map + PAGE, PAGE, MADV_DONTNEED); }
static int madvise_check(long result, int fired)
{
    (void)fired;
    if (map[0] != 'a' || map[2 * PAGE] != 'c')
        return 0;
    return result < 0 ? map[PAGE] == 'b' : map[PAGE] == 0;
}

static void brk_setup(void) { brk_before = syscall(SYS_brk, 0); }
static long brk_grow(void) { return syscall(SYS_brk, brk_before + 8 * PAGE); }
static int brk_check(long result, int fired)
{
    (void)fired;
    long now = syscall(SYS_brk, 0);
    if (result != now)
        return 0;
    if (now == brk_before)
        return 1;       /* refused: Linux's brk answers the old break */
    memset((char *)brk_before, 1, 8 * PAGE);
    return now == brk_before + 8 * PAGE;
}
static void brk_back(void) { syscall(SYS_brk, brk_before); }

/* A page the kernel cannot get for a copy to user memory is EFAULT, as
 * on Linux (the copy faults and the fault finds no page). */
static void zero_read_setup(void)
{
    map = mmap(0, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    fds[0] = open("/dev/zero", O_RDONLY);
    memset(buffer, 0, sizeof(buffer));
}
static long read_into_fresh_pages(void) { return syscall(SYS_read, fds[0], map, 4 * PAGE); }
static int zero_read_check(long result, int fired)
{
    (void)fired;
    return result < 0 || (result <= 4 * PAGE && memcmp(map, buffer, (size_t)(result < PAGE ? result : PAGE)) == 0);
}
static void zero_read_teardown(void) { munmap(map, 4 * PAGE); close(fds[0]); }

/* signals */
static long sigaction_usr1(void)
{
    struct sigaction action = { 0 };
    action.sa_handler = on_usr1;
    return sigaction(SIGUSR1, &action, 0);     /* musl: one rt_sigaction */
}
static int sigaction_check(long result, int fired)
{
    (void)fired;
    struct sigaction now;
    sigaction(SIGUSR1, 0, &now);
    return result < 0 ? now.sa_handler == SIG_DFL : now.sa_handler == on_usr1;
}
static void default_usr1(void) { signal(SIGUSR1, SIG_DFL); }
static void handle_usr1(void) { signal(SIGUSR1, on_usr1); usr1_count = 0; }
static long kill_self(void) { return syscall(SYS_kill, getpid(), SIGUSR1); }
static int kill_check(long result, int fired)
{
    (void)fired;
    return result < 0 ? usr1_count == 0 : usr1_count == 1;
}

/* /proc */
static long open_proc_status(void) { return syscall(SYS_open, "/proc/self/status", O_RDONLY); }
static long open_proc_meminfo(void) { return syscall(SYS_open, "/proc/meminfo", O_RDONLY); }
static int open_proc_check(long result, int fired)
{
    (void)fired;
    if (result < 0)
        return lowest_free_fd() == expected_fd;
    fds[0] = (int)result;
    return result == expected_fd && read(fds[0], buffer, 16) > 0;
}
static void proc_nohz_setup(void) { fds[0] = open("/proc/self/nohz", O_RDWR); }
static long write_nohz(void) { return syscall(SYS_write, fds[0], "0", 1); }
/* A /proc file's first byte, from a fresh open (its text is made at open). */
static char proc_first_byte(const char *path)
{
    char c = 0;
    int fd = open(path, O_RDONLY);
    if (fd < 0 || read(fd, &c, 1) != 1)
        c = 0;
    close(fd);
    return c;
}

static int nohz_check(long result, int fired)
{
    (void)fired;
    return (result < 0 || result == 1) && proc_first_byte("/proc/self/nohz") == '0';
}
static void all_cpus(void);

/* nohz set: the process bound to the last CPU first */
static void nohz_set_setup(void)
{
    cpu_set_t last;
    CPU_ZERO(&last);
    CPU_SET((int)sysconf(_SC_NPROCESSORS_ONLN) - 1, &last);
    sched_setaffinity(0, sizeof(last), &last);
    fds[0] = open("/proc/self/nohz", O_RDWR);
}
static long write_nohz_1(void) { return syscall(SYS_write, fds[0], "1", 1); }
static int nohz_set_check(long result, int fired)
{
    (void)fired;
    return proc_first_byte("/proc/self/nohz") == (result == 1 ? '1' : '0');
}
static void nohz_set_teardown(void)
{
    write_at(fds[0], "0", 1, 0);
    close(fds[0]);
    all_cpus();
}
static void rcustress_setup(void) { fds[0] = open("/proc/rcustress", O_WRONLY); }
static long write_rcustress(void) { return syscall(SYS_write, fds[0], "1", 1); }
static int rcustress_check(long result, int fired)
{
    (void)fired;
    return result < 0 || result == 1;
}

/* timers, sleep */
static long set_itimer(void)
{
    struct itimerval long_time = { { 0, 0 }, { 1000, 0 } };
    return syscall(SYS_setitimer, ITIMER_REAL, &long_time, 0);
}
static int itimer_check(long result, int fired)
{
    (void)fired;
    struct itimerval now;
    getitimer(ITIMER_REAL, &now);
    return result < 0 ? now.it_value.tv_sec == 0 && now.it_value.tv_usec == 0 : now.it_value.tv_sec > 0;
}
static void disarm_itimer(void)
{
    struct itimerval none = { { 0, 0 }, { 0, 0 } };
    setitimer(ITIMER_REAL, &none, 0);
}
static long short_sleep(void)
{
    struct timespec t = { 0, 1000000 };
    return syscall(SYS_nanosleep, &t, 0);
}
static int sleep_check(long result, int fired)
{
    (void)fired;
    return result == 0 || errno == EINTR;
}

/* more of the fuzzer's calls: each must work or fail cleanly, and a
 * failure must change nothing the check can see */
static int worked_or_failed(long result, int fired) { (void)result; (void)fired; return 1; }

/* exit_group in a child that armed itself: the zombie's fail-nth says
 * whether a failure fired, and it must have exited with its own code. */
static int child_fired;
static long exit_in_child(void)
{
    char n[24], path[40], text[128];
    int length = snprintf(n, sizeof(n), "%ld", exec_n);
    pid_t pid = fork();
    if (pid == 0) {
        int own = open("/proc/self/fail-nth", O_WRONLY);
        if (exec_n && (own < 0 || write(own, n, (size_t)length) != length))
            _exit(3);
        syscall(SYS_exit_group, 9);
    }
    if (pid < 0)
        return -1;
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    for (int i = 0; i < 10000; i++) {           /* until it is a zombie */
        int fd = open(path, O_RDONLY);
        long got = fd < 0 ? -1 : read(fd, text, sizeof(text) - 1);
        close(fd);
        text[got > 0 ? got : 0] = 0;
        char *end = strrchr(text, ')');
        if (end && end[1] == ' ' && end[2] == 'Z')
            break;
        usleep(1000);
    }
    snprintf(path, sizeof(path), "/proc/%d/fail-nth", (int)pid);
    int fd = open(path, O_RDONLY);
    long got = fd < 0 ? -1 : read(fd, text, sizeof(text) - 1);
    close(fd);
    text[got > 0 ? got : 0] = 0;
    child_fired = exec_n && got > 0 && strtol(text, 0, 10) == 0;
    int status;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 9) {
        errno = EIO;        /* not a clean errno: the walk reports it */
        return -1;
    }
    return 0;
}

/* dup2 far up in a fresh process: its table grows (from 64 slots), and
 * the new slots are allocations. In a child, so that every N starts from
 * the small table: it arms itself and says by its exit code what came
 * of it (0 worked, 1 failed cleanly with fd 200 still closed, 3 worked
 * though a failure fired, 2 anything else). */
static long left(void);
static int clean_errno(int error);

static long dup2_grow_in_child(void)
{
    char n[24];
    int length = snprintf(n, sizeof(n), "%ld", exec_n);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        int own = open("/proc/self/fail-nth", O_WRONLY);
        if (own < 0 || (exec_n && write(own, n, (size_t)length) != length))
            _exit(2);
        long result = syscall(SYS_dup2, 1, 200);
        int error = errno;
        int fired = exec_n && left() == 0;
        int open_now = fcntl(200, F_GETFD) >= 0;
        if (result == 200 && open_now)
            _exit(fired ? 3 : 0);
        _exit(result < 0 && !open_now && fired && clean_errno(error) ? 1 : 2);
    }
    int status;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) == 2) {
        child_fired = 0;
        errno = EIO;        /* not a clean errno: the walk reports it */
        return -1;
    }
    child_fired = WEXITSTATUS(status) == 1 || WEXITSTATUS(status) == 3;
    if (WEXITSTATUS(status) == 1) {
        errno = ENOMEM;
        return -1;
    }
    return 0;
}

static long vfork_raw(void)
{
    /* the child shares our memory and stack until it exits: it only exits */
    long pid;
    __asm__ volatile("syscall" : "=a"(pid) : "a"(SYS_vfork) : "rcx", "r11", "memory");
    if (pid == 0)
        __asm__ volatile("syscall" : : "a"(SYS_exit_group), "D"(7) : "rcx", "r11", "memory");
    if (pid < 0) {
        errno = (int)-pid;
        return -1;
    }
    return pid;
}

static long dup2_fd(void) { return syscall(SYS_dup2, 1, 40); }
static int dup2_check(long result, int fired)
{
    (void)fired;
    int open_now = fcntl(40, F_GETFD) >= 0;
    return result < 0 ? !open_now : result == 40 && open_now;
}
static void close_40(void) { close(40); }

static long pipe2_cloexec(void) { return syscall(SYS_pipe2, fds, O_CLOEXEC | O_NONBLOCK); }
static long fcntl_dupfd(void) { return syscall(SYS_fcntl, 1, F_DUPFD_CLOEXEC, 0); }

static long unlink_file(void) { return syscall(SYS_unlink, NEW_PATH); }
static void make_new(void) { close(open(NEW_PATH, O_CREAT | O_WRONLY, 0644)); }
static int unlink_check(long result, int fired)
{
    (void)fired;
    return result < 0 ? file_size(NEW_PATH) == 0 : file_size(NEW_PATH) < 0;
}
static long chdir_dir(void) { return syscall(SYS_chdir, DIR_PATH); }
static int chdir_check(long result, int fired)
{
    (void)fired;
    char cwd[64];
    return getcwd(cwd, sizeof(cwd)) && (result < 0 ? strcmp(cwd, "/") == 0 : strcmp(cwd, DIR_PATH) == 0);
}
static void chdir_root(void) { chdir("/"); }
static long get_cwd(void) { return syscall(SYS_getcwd, buffer, 64); }
static long read_link(void) { return syscall(SYS_readlink, "/proc/self", buffer, 64); }
static long stat_file(void) { struct stat st; return syscall(SYS_stat, FILE_PATH, &st); }
static long chmod_file(void) { return syscall(SYS_chmod, FILE_PATH, 0600); }
static int chmod_check(long result, int fired)
{
    (void)fired;
    struct stat st;
    stat(FILE_PATH, &st);
    return (st.st_mode & 0777) == (result < 0 ? 0644u : 0600u);
}
static void chmod_back(void) { chmod(FILE_PATH, 0644); }
static long writev_file(void)
{
    struct iovec parts[2] = { { pattern, 100 }, { pattern + 100, WRITE_SIZE - 100 } };
    return syscall(SYS_writev, fds[0], parts, 2);
}
static long getdents_proc(void) { return syscall(SYS_getdents64, fds[0], buffer, sizeof(buffer)); }
static void proc_dir_setup(void) { fds[0] = open("/proc", O_RDONLY | O_DIRECTORY); }

static long set_affinity(void)
{
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(0, &one);
    return syscall(SYS_sched_setaffinity, 0, sizeof(one), &one);
}
static void all_cpus(void)
{
    cpu_set_t all;
    CPU_ZERO(&all);
    for (int i = 0; i < 64; i++)
        CPU_SET(i, &all);
    sched_setaffinity(0, sizeof(all), &all);
}
static long mask_signals(void)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR2);
    return syscall(SYS_rt_sigprocmask, SIG_BLOCK, &set, 0, 8);
}
static void unmask_signals(void)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGUSR2);
    sigprocmask(SIG_UNBLOCK, &set, 0);
}
static long alarm_far(void) { return syscall(SYS_alarm, 1000); }
static void alarm_off(void) { alarm(0); }
static long clock_sleep(void)
{
    struct timespec t = { 0, 1000000 };
    return syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &t, 0);
}
static long ppoll_pipe(void)
{
    struct pollfd p[1] = { { fds[0], POLLIN, 0 } };
    struct timespec none = { 0, 0 };
    return syscall(SYS_ppoll, p, 1, &none, 0, 8);
}
static long get_random(void) { return syscall(SYS_getrandom, buffer, 64, 0); }
static long open_proc_cpuinfo(void) { return syscall(SYS_open, "/proc/cpuinfo", O_RDONLY); }
static long open_proc_mounts(void) { return syscall(SYS_open, "/proc/mounts", O_RDONLY); }
static long statfs_root(void) { return syscall(SYS_statfs, "/", buffer); }
/* an alternate signal stack: a refused one leaves none */
static char alt_stack[4 * 8192];
static long set_alt_stack(void)
{
    stack_t alt = { .ss_sp = alt_stack, .ss_size = sizeof(alt_stack), .ss_flags = 0 };
    return syscall(SYS_sigaltstack, &alt, 0);
}
static int alt_stack_check(long result, int fired)
{
    (void)fired;
    stack_t now;
    if (sigaltstack(0, &now) != 0)
        return 0;
    return result < 0 ? (now.ss_flags & SS_DISABLE) != 0 : now.ss_sp == alt_stack;
}
static void no_alt_stack(void)
{
    stack_t none = { .ss_flags = SS_DISABLE };
    sigaltstack(&none, 0);
}
static long open_proc_init(void) { return syscall(SYS_open, "/proc/1/stat", O_RDONLY); }
static void policy_setup(void) { fds[0] = open("/proc/sys/kernel/tick_policy", O_RDWR); }
static long write_policy(void) { return syscall(SYS_write, fds[0], "task\n", 5); }
static void trace_setup(void) { fds[0] = open("/proc/trace", O_RDWR); }
static long write_trace(void) { return syscall(SYS_write, fds[0], "clear", 5); }
/* Another process's file: a child that waits, armed by us. */
static long write_fail_nth_of_child(void) { return syscall(SYS_write, fds[0], "3", 1); }
static void child_fail_nth_setup(void)
{
    char path[40];
    child = fork();
    if (child == 0) {
        pause();
        _exit(0);
    }
    snprintf(path, sizeof(path), "/proc/%d/fail-nth", (int)child);
    fds[0] = open(path, O_WRONLY);
}
static void end_child(void)
{
    close(fds[0]);
    kill(child, SIGKILL);
    waitpid(child, 0, 0);
}
static long exec_missing(void)
{
    char *argv[] = { "nothing", 0 };
    long r = syscall(SYS_execve, "/no/such/program", argv, environ);
    return r < 0 && errno == ENOENT ? 0 : r;    /* ENOENT is its answer */
}

/* threads, clone3, futexes */
#define THREAD_FLAGS (CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM | \
                      CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID)
struct clone_args_ {
    unsigned long long flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
};
static struct clone_args_ clone3_args;
static volatile int tid_word;

/* clone or clone3 whose new task runs only SYS_exit, in registers: no
 * stack or libc of its own needed. The tid or pid, or -errno (raw). */
static long clone_to_exit(long number, long a0, long a1, long a2, long a3)
{
    register long r10 __asm__("r10") = a3, r8 __asm__("r8") = 0;
    long result;
    __asm__ volatile("syscall\n\t"
                     "test %%rax, %%rax\n\t"
                     "jnz 1f\n\t"
                     "mov $60, %%eax\n\t"
                     "mov $7, %%edi\n\t"        /* a process child exits 7, as fork_raw's */
                     "syscall\n\t"
                     "ud2\n"
                     "1:"
                     : "=a"(result)
                     : "a"(number), "D"(a0), "S"(a1), "d"(a2), "r"(r10), "r"(r8)
                     : "rcx", "r11", "memory");
    if (result < 0) {
        errno = (int)-result;
        return -1;
    }
    return result;
}

/* Threads in /proc/self/task other than this one. */
static int other_threads(void)
{
    int fd = open("/proc/self/task", O_RDONLY | O_DIRECTORY), count = -1;
    char entries[2048];
    long got;
    while (fd >= 0 && (got = syscall(SYS_getdents64, fd, entries, sizeof(entries))) > 0)
        for (long at = 0; at < got;) {
            unsigned short length = *(unsigned short *)(entries + at + 16);
            count += entries[at + 19] != '.';
            at += length;
        }
    close(fd);
    return count;
}

static void tid_word_setup(void) { tid_word = -1; }
static long last_thread_result;         /* thread_check()'s last */
static long clone_thread(void) { return clone_to_exit(SYS_clone, THREAD_FLAGS, 0, (long)&tid_word, (long)&tid_word); }
static long clone3_thread(void)
{
    clone3_args = (struct clone_args_){ .flags = THREAD_FLAGS, .parent_tid = (unsigned long)&tid_word,
                                        .child_tid = (unsigned long)&tid_word };
    return clone_to_exit(SYS_clone3, (long)&clone3_args, sizeof(clone3_args), 0, 0);
}
/* A failed clone left no thread and wrote no tid; a new thread ends,
 * clearing its word (CLONE_CHILD_CLEARTID), and leaves the task list. */
static int thread_check(long result, int fired)
{
    (void)fired;
    last_thread_result = result;
    if (result < 0)
        return tid_word == -1 && other_threads() == 0;
    for (int i = 0; i < 10000 && tid_word != 0; i++)
        usleep(100);
    for (int i = 0; i < 10000 && other_threads() != 0; i++)
        usleep(100);
    usleep(20000);              /* off the list, its task dead soon after: then the next clone frees it */
    return tid_word == 0 && other_threads() == 0;
}
/* A thread that ended is freed by the next clone (thread_sweep(),
 * docs/threads.md) or the process's end, not at once: so the walk keeps
 * one ended thread in hand. Each clone frees the one before; after a
 * clone that failed, another takes its place, unarmed. */
static void make_ended_thread(void)
{
    tid_word = -1;
    thread_check(clone_thread(), 0);
}
static void thread_teardown(void)
{
    if (last_thread_result < 0)
        make_ended_thread();
}
static long clone_process(void)
{
    return clone_to_exit(SYS_clone, CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID | SIGCHLD, 0, 0, (long)&tid_word);
}
static long clone3_process(void)
{
    clone3_args = (struct clone_args_){ .flags = CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID,
                                        .child_tid = (unsigned long)&tid_word, .exit_signal = SIGCHLD };
    return clone_to_exit(SYS_clone3, (long)&clone3_args, sizeof(clone3_args), 0, 0);
}
static int clone_process_check(long result, int fired)
{
    return fork_check(result, fired) && tid_word == -1;    /* the child's tid went to its own copy */
}

/* futex operations that write the word: on a page never written, the
 * write needs a page (EFAULT or ENOMEM when none comes, as Linux's
 * fault_in_user_writeable()). */
static void fresh_page_setup(void)
{
    map = mmap(0, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}
static void unmap_page(void) { munmap(map, PAGE); }
static volatile int futex_word;
static long futex_wake_op(void)
{
    /* *map = 1 (FUTEX_OP_SET), wake on both words: no one waits */
    return syscall(SYS_futex, &futex_word, 5 | 128, 1, 1, map, (1 << 28) | (1 << 12));
}
static int wake_op_check(long result, int fired)
{
    (void)fired;
    return result < 0 ? *(volatile int *)map == 0 : result == 0 && *(volatile int *)map == 1;
}
static long futex_lock_pi(void) { return syscall(SYS_futex, map, 6 | 128, 0, 0, 0, 0); }
static int lock_pi_check(long result, int fired)
{
    (void)fired;
    int word = *(volatile int *)map;
    return result < 0 ? word == 0 : result == 0 && word == (int)syscall(SYS_gettid);
}
static long futex_wake(void) { return syscall(SYS_futex, &futex_word, 1 | 128, 1, 0, 0, 0); }
static int futex_check(long result, int fired)
{
    (void)fired;
    return result <= 0;     /* no one waits: none woken or moved (a failure's errno the walk checks) */
}
static long futex_requeue(void) { return syscall(SYS_futex, &futex_word, 4 | 128, 1, 1, &tid_word, 0); }

static long robust_head[3], saved_head, saved_length;
static void save_robust_list(void)
{
    robust_head[0] = (long)robust_head;
    robust_head[1] = 8;
    syscall(SYS_get_robust_list, 0, &saved_head, &saved_length);
}
static long set_robust(void) { return syscall(SYS_set_robust_list, robust_head, 24); }
static void restore_robust_list(void)
{
    if (saved_head)
        syscall(SYS_set_robust_list, saved_head, saved_length);
}
static long tgkill_self(void) { return syscall(SYS_tgkill, getpid(), (int)syscall(SYS_gettid), SIGUSR1); }

static char task_path[64];
static void task_status_setup(void)
{
    expected_fd = lowest_free_fd();
    snprintf(task_path, sizeof(task_path), "/proc/self/task/%d/status", (int)syscall(SYS_gettid));
}
static long open_task_status(void) { return syscall(SYS_open, task_path, O_RDONLY); }
static long open_thread_self_nohz(void) { return syscall(SYS_open, "/proc/thread-self/nohz", O_RDONLY); }
static void task_dir_setup(void) { fds[0] = open("/proc/self/task", O_RDONLY | O_DIRECTORY); }

static const struct call calls[] = {
    { "open-create", 0, 0, 0, open_setup, open_create, open_create_check, open_teardown },
    { "open", 0, 0, 0, open_setup, open_existing, open_existing_check, close_fd0 },
    { "write-file", 0, 0, 0, write_setup, write_file, write_file_check, open_teardown },
    { "read-file", 0, 0, 0, read_setup, read_file, read_file_check, close_fd0 },
    { "mkdir", 0, 0, 0, nothing, make_dir, make_dir_check, remove_dir },
    { "rename", 0, 0, 0, nothing, rename_file, rename_check, rename_back },
    { "symlink", 0, 0, 0, nothing, make_symlink, symlink_check, unlink_new },
    { "getdents", 0, 0, 0, dirfd_setup, getdents, getdents_check, close_fd0 },
    { "pipe", 0, 0, 0, open_setup, make_pipe, pipe_check, close_pipe },
    { "socketpair", 0, 0, 0, open_setup, make_socketpair, socketpair_check, close_pipe },
    { "pipe-write", 0, 0, 0, pipe_setup, pipe_write, pipe_write_check, close_pipe },
    { "dup", 0, 0, 0, open_setup, dup_fd, dup_check, close_fd0 },
    { "poll", 0, 0, 0, poll_setup, poll_pipe, ready_check, close_pipe },
    { "select", 0, 0, 0, poll_setup, select_pipe, ready_check, close_pipe },
    { "fork", 0, 0, 0, nothing, fork_raw, fork_check, nothing },
    { "wait4", 0, 0, 0, exited_child_setup, wait_child, wait_check, nothing },
    { "execve", 0, 0, 0, exec_setup, exec_in_child, 0, close_exec_report },
    { "execve-script", 0, 0, 0, exec_script_setup, exec_in_child, 0, exec_script_teardown },
    { "mmap", 0, 0, 0, hole_setup, mmap_anonymous, mmap_check, unmap },
    { "mmap-shared", 0, 0, 0, hole_setup, mmap_shared, mmap_check, unmap },
    { "mmap-file", 0, 0, 0, hole_setup, mmap_file, mmap_file_check, unmap },
    { "mmap-shared-file", 0, 0, 0, hole_setup, mmap_shared_file, mmap_shared_file_check, unmap },
    { "ftruncate-cut", 0, 0, 0, two_page_scratch, ftruncate_cut, ftruncate_cut_check, empty_scratch },
    { "munmap", 0, 0, 0, three_pages_setup, munmap_middle, munmap_check, unmap_three },
    { "madvise", 0, 0, 0, three_pages_setup, madvise_middle, madvise_check, unmap_three },
    { "mprotect", 0, 0, 0, three_pages_setup, mprotect_middle, mprotect_check, unmap_three },
    { "brk", 0, 0, 0, brk_setup, brk_grow, brk_check, brk_back },
    { "read-zero", 0, EFAULT, 0, zero_read_setup, read_into_fresh_pages, zero_read_check, zero_read_teardown },
    { "sigaction", 0, 0, 0, default_usr1, sigaction_usr1, sigaction_check, default_usr1 },
    { "kill", 0, 0, 0, handle_usr1, kill_self, kill_check, default_usr1 },
    { "proc-status", 0, 0, 0, open_setup, open_proc_status, open_proc_check, close_fd0 },
    { "proc-meminfo", 0, 0, 0, open_setup, open_proc_meminfo, open_proc_check, close_fd0 },
    { "proc-nohz", 0, 0, 0, proc_nohz_setup, write_nohz, nohz_check, close_fd0 },
    { "proc-nohz-set", 0, 0, 0, nohz_set_setup, write_nohz_1, nohz_set_check, nohz_set_teardown },
    { "setitimer", 0, 0, 0, nothing, set_itimer, itimer_check, disarm_itimer },
    { "nanosleep", 0, 0, 0, nothing, short_sleep, sleep_check, nothing },
    { "vfork", 0, 0, 0, nothing, vfork_raw, fork_check, nothing },
    { "dup2", 0, 0, 0, nothing, dup2_fd, dup2_check, close_40 },
    { "pipe2", 0, 0, 0, open_setup, pipe2_cloexec, pipe_check, close_pipe },
    { "fcntl-dupfd", 0, 0, 0, open_setup, fcntl_dupfd, dup_check, close_fd0 },
    { "unlink", 0, 0, 0, make_new, unlink_file, unlink_check, unlink_new },
    { "chdir", 0, 0, 0, nothing, chdir_dir, chdir_check, chdir_root },
    { "getcwd", 0, 0, 0, nothing, get_cwd, worked_or_failed, nothing },
    { "readlink", 0, 0, 0, nothing, read_link, worked_or_failed, nothing },
    { "stat", 0, 0, 0, nothing, stat_file, worked_or_failed, nothing },
    { "chmod", 0, 0, 0, nothing, chmod_file, chmod_check, chmod_back },
    { "writev", 0, 0, 0, write_setup, writev_file, write_file_check, open_teardown },
    { "getdents-proc", 0, 0, 0, proc_dir_setup, getdents_proc, getdents_check, close_fd0 },
    { "sched_setaffinity", 0, 0, 0, nothing, set_affinity, worked_or_failed, all_cpus },
    { "rt_sigprocmask", 0, 0, 0, nothing, mask_signals, worked_or_failed, unmask_signals },
    { "alarm", 0, 0, 0, nothing, alarm_far, worked_or_failed, alarm_off },
    { "clock_nanosleep", 0, 0, 0, nothing, clock_sleep, sleep_check, nothing },
    { "ppoll", 0, 0, 0, poll_setup, ppoll_pipe, ready_check, close_pipe },
    { "getrandom", 0, 0, 0, nothing, get_random, worked_or_failed, nothing },
    { "proc-init-stat", 0, 0, 0, open_setup, open_proc_init, open_proc_check, close_fd0 },
    { "proc-tick-policy", 0, 0, 0, policy_setup, write_policy, worked_or_failed, close_fd0 },
    { "proc-trace", 0, 0, 0, trace_setup, write_trace, worked_or_failed, close_fd0 },
    { "proc-fail-nth-child", 0, 0, 0, child_fail_nth_setup, write_fail_nth_of_child, worked_or_failed, end_child },
    { "proc-cpuinfo", 0, 0, 0, open_setup, open_proc_cpuinfo, open_proc_check, close_fd0 },
    { "proc-mounts", 0, 0, 0, open_setup, open_proc_mounts, open_proc_check, close_fd0 },
    { "statfs", 0, 0, 0, nothing, statfs_root, worked_or_failed, nothing },
    { "sigaltstack", 0, 0, 0, no_alt_stack, set_alt_stack, alt_stack_check, no_alt_stack },
    { "exit", 0, 0, 1, nothing, exit_in_child, worked_or_failed, nothing },
    { "dup2-grow", 0, 0, 1, nothing, dup2_grow_in_child, worked_or_failed, nothing },
    { "execve-missing", 0, 0, 0, nothing, exec_missing, worked_or_failed, nothing },
    { "clone-thread", 0, 0, 0, tid_word_setup, clone_thread, thread_check, thread_teardown },
    { "clone3-thread", 0, 0, 0, tid_word_setup, clone3_thread, thread_check, thread_teardown },
    { "clone-process", 0, 0, 0, tid_word_setup, clone_process, clone_process_check, nothing },
    { "clone3-process", 0, 0, 0, tid_word_setup, clone3_process, clone_process_check, nothing },
    { "futex-wake-op", 0, EFAULT, 0, fresh_page_setup, futex_wake_op, wake_op_check, unmap_page },
    { "futex-lock-pi", 0, EFAULT, 0, fresh_page_setup, futex_lock_pi, lock_pi_check, unmap_page },
    { "futex-wake", 0, 0, 0, nothing, futex_wake, futex_check, nothing },
    { "futex-requeue", 0, 0, 0, nothing, futex_requeue, futex_check, nothing },
    { "set_robust_list", 0, 0, 0, save_robust_list, set_robust, worked_or_failed, restore_robust_list },
    { "tgkill", 0, 0, 0, handle_usr1, tgkill_self, kill_check, default_usr1 },
    { "proc-task-status", 0, 0, 0, task_status_setup, open_task_status, open_proc_check, close_fd0 },
    { "proc-thread-self-nohz", 0, 0, 0, open_setup, open_thread_self_nohz, open_proc_check, close_fd0 },
    { "getdents-proc-task", 0, 0, 0, task_dir_setup, getdents_proc, getdents_check, close_fd0 },
    { "rcustress", 1, 0, 0, rcustress_setup, write_rcustress, rcustress_check, close_fd0 },
};

/* ---- the walk ---- */

struct counters {
    long heap_objects, free_pages, stack_table_pages;
};

static struct counters read_counters(void)
{
    struct counters c;
    c.heap_objects = proc_counter("/proc/meminfo", "HeapObjects", ':');
    c.free_pages = proc_counter("/proc/meminfo", "MemFree", ':') / 4;
    c.stack_table_pages = proc_counter("/proc/meminfo", "KernelStackTables", ':') / 4;
    return c;
}

/* Frees can come a little later (a reaped child's task, RCU): wait for
 * the counts to come back, a bounded number of times. */
static int back_to(const struct counters *before, struct counters *after)
{
    for (int i = 0; i < SETTLE_TRIES; i++) {
        *after = read_counters();
        long pages = before->free_pages - after->free_pages - (after->stack_table_pages - before->stack_table_pages);
        if (after->heap_objects == before->heap_objects && pages <= SLACK_PAGES)
            return 1;
        usleep(1000);
    }
    return 0;
}

static int arm(long n)
{
    char text[24];
    int length = snprintf(text, sizeof(text), "%ld", n);
    return write(fail_nth_fd, text, (size_t)length) == length;
}

/* Read from a fresh open: a /proc file's text is made at open. */
static long left(void)
{
    char text[24] = { 0 };
    int fd = open("/proc/self/fail-nth", O_RDONLY);
    long got = fd < 0 ? -1 : read(fd, text, sizeof(text) - 1);
    close(fd);
    return got > 0 ? strtol(text, 0, 10) : -1;
}

static int clean_errno(int error)
{
    return error == ENOMEM || error == EAGAIN || error == EMFILE;
}

/* The new program of the exec call: it says "ok LEFT". */
static int exec_child_report(int fd)
{
    char text[24] = { 0 }, line[48];
    int f = open("/proc/self/fail-nth", O_RDONLY);
    if (f < 0 || read(f, text, sizeof(text) - 1) <= 0)
        return 1;
    int length = snprintf(line, sizeof(line), "ok %ld\n", strtol(text, 0, 10));
    return write(fd, line, (size_t)length) == length ? 0 : 1;
}

/* One (call, N): 1 if the failure fired, 0 if not, -1 on a bad outcome. */
static int try_pair(const struct call *call, long n)
{
    struct counters before = read_counters(), after;
    fds[0] = fds[1] = -1;
    exec_n = n;
    call->setup();
    if (n && call->check && !call->child_arms && !arm(n))   /* execve's and exit's children arm themselves */
        return -1;
    errno = 0;
    long result = call->call();
    int error = errno, fired;
    if (call->child_arms) {
        fired = child_fired;
    } else if (call->check) {
        fired = n && left() == 0;
    } else {                        /* execve: the child knows */
        char line[64] = { 0 };
        close(exec_report[1]);
        exec_report[1] = -1;
        long got = read(exec_report[0], line, sizeof(line) - 1);
        int status;
        if (result < 0) {           /* the fork itself failed */
            fired = 0;
        } else if (waitpid((pid_t)result, &status, 0) != result) {
            printf("# execve N=%ld: child lost\n", n);
            return -1;
        } else if (WIFSIGNALED(status)) {
            fired = 1;              /* past the point of no return: killed, as Linux does */
            if (WTERMSIG(status) != SIGKILL && WTERMSIG(status) != SIGSEGV) {
                printf("# execve N=%ld: killed by signal %d\n", n, WTERMSIG(status));
                return -1;
            }
        } else if (got > 3 && strncmp(line, "ok ", 3) == 0) {
            fired = n && strtol(line + 3, 0, 10) == 0;
            if (fired) {
                printf("# execve N=%ld: a failure fired, yet exec worked\n", n);
                return -1;
            }
            result = 0;
        } else if (got > 0 && sscanf(line, "%ld %d", &result, &error) == 2 && result < 0) {
            fired = 1;
        } else {
            printf("# execve N=%ld: child said '%s'\n", n, line);
            return -1;
        }
    }
    int ok = 1;
    if (result < 0 && !(fired && (clean_errno(error) || error == call->also_errno))) {
        printf("# %s N=%ld: failed with errno %d (%s)\n", call->name, n, error, fired ? "injected" : "not injected");
        ok = 0;
    }
    if (call->check && !call->check(result, fired)) {
        printf("# %s N=%ld: the state does not agree with the result %ld (errno %d)\n", call->name, n, result, error);
        ok = 0;
    }
    call->teardown();
    if (!back_to(&before, &after)) {
        printf("# %s N=%ld: leak: heap objects %ld -> %ld, free pages %ld -> %ld (stack tables %+ld)\n", call->name,
               n, before.heap_objects, after.heap_objects, before.free_pages, after.free_pages,
               after.stack_table_pages - before.stack_table_pages);
        leaks++;
        ok = 0;
    }
    return ok ? fired : -1;
}

static int walk(const struct call *call)
{
    if (call->teardown == thread_teardown)
        make_ended_thread();
    if (try_pair(call, 0) < 0)      /* without injection: must work, and warms caches */
        return 0;
    int bad = 0;
    long n;
    for (n = 1; n <= MAX_N; n++) {
        int fired = try_pair(call, n);
        pairs_tried++;
        if (fired < 0)
            bad++;
        if (fired == 0)
            break;
        pairs_injected += fired > 0;
    }
    printf("# %s: %ld fallible points, %d bad\n", call->name, n - 1, bad);
    return bad == 0 && n <= MAX_N;
}

static int set_up(void)
{
    mkdir(DIR_PATH, 0755);
    for (int i = 0; i < WRITE_SIZE; i++)
        pattern[i] = (char)('A' + i % 26);
    int fd = open(FILE_PATH, O_CREAT | O_RDWR | O_TRUNC, 0644);
    if (fd < 0 || write(fd, pattern, WRITE_SIZE) != WRITE_SIZE)
        return 0;
    fds[2] = fd;
    fds[3] = open(DIR_PATH "/scratch", O_CREAT | O_RDWR | O_TRUNC, 0644);
    return fds[3] >= 0;
}

/* /proc/self/fail-nth open for reading and writing, or -1 with the case
 * marked skipped where there is none (Linux without fault injection). */
static int open_fail_nth(void)
{
    int fd = open("/proc/self/fail-nth", O_RDWR);
    if (fd >= 0 && proc_counter("/proc/meminfo", "HeapObjects", ':') >= 0)
        return fd;
    if (fd >= 0)
        close(fd);
    ktap_skip_reason = "no /proc/self/fail-nth or no HeapObjects in /proc/meminfo (not nohzk)";
    return -1;
}

static int every_call(void)
{
    fail_nth_fd = open_fail_nth();
    if (fail_nth_fd < 0)
        return 1;
    CHECK(set_up());
    int failures = 0;
    for (unsigned i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
        if ((calls[i].slow && !all_calls) || (only && strcmp(only, calls[i].name) != 0))
            continue;
        fflush(stdout);
        failures += !walk(&calls[i]);
    }
    printf("fail-nth: %lu (call, N) pairs tried, %lu injected, %lu leaks, %d calls bad\n", pairs_tried,
           pairs_injected, leaks, failures);
    CHECK(failures == 0);
    return 1;
}

/* Bad writes: EINVAL, and the count is unchanged. */
static int bad_writes_change_nothing(void)
{
    int fd = open_fail_nth();
    if (fd < 0)
        return 1;
    static const char *const bad[] = { "-1", "x", "", "4294967296", "2147483648", "1x", "1 2", " 1" };
    CHECK(write(fd, "5", 1) == 1);      /* armed for the next call */
    CHECK(syscall(SYS_getpid) > 0);     /* which has no fallible point */
    CHECK(left() == 5);
    CHECK(write(fd, "0", 1) == 1);      /* disarmed: the count is 0 */
    for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        errno = 0;
        CHECK(write(fd, bad[i], strlen(bad[i])) < 0 && errno == EINVAL);
        CHECK(left() == 0);
    }
    CHECK(write(fd, "2147483647\n", 11) == 11);     /* the largest: INT_MAX */
    CHECK(syscall(SYS_getpid) > 0);     /* the armed call: the open below does not count */
    int thread_self = open("/proc/thread-self/fail-nth", O_RDONLY);     /* the same file, Linux's path */
    char text[24] = { 0 };
    CHECK(thread_self >= 0 && read(thread_self, text, sizeof(text) - 1) > 0);
    CHECK(strcmp(text, "2147483647\n") == 0);
    close(thread_self);
    CHECK(write(fd, "0", 1) == 1);
    close(fd);
    return 1;
}

/* A forked child starts disarmed, with a count of 0; the parent's count
 * stays; a call without fallible points leaves the count as it was. */
static int fork_does_not_inherit_it(void)
{
    int fd = open_fail_nth();
    if (fd < 0)
        return 1;
    CHECK(write(fd, "7", 1) == 1);
    CHECK(syscall(SYS_getpid) > 0);     /* the armed call: nothing to fail */
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0)
        _exit(left() == 0 ? 0 : 1);
    CHECK(pid > 0 && exit_status_of(pid) == 0);
    CHECK(left() == 7);
    CHECK(write(fd, "0", 1) == 1);
    close(fd);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "exec-child") == 0)
        return exec_child_report(atoi(argv[argc - 1]));     /* the descriptor comes last */
    snprintf(self_path, sizeof(self_path), "%s%s", strchr(argv[0], '/') ? "" : "/bin/", argv[0]);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--all") == 0)
            all_calls = 1;
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc)
            only = argv[++i];
    }
    static const struct ktap_case cases[] = {
        KTAP_CASE(bad_writes_change_nothing),
        KTAP_CASE(fork_does_not_inherit_it),
        KTAP_CASE(every_call),
    };
    return ktap_main(cases, KTAP_COUNT(cases));
}
