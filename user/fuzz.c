/* fuzz SECONDS [SEED] [--shared]: hostile system calls from several processes at
 * once, then a check that the kernel lost nothing (docs/reliability.md).
 *
 * One worker slot per CPU: the parent forks a worker pinned to that CPU;
 * the worker issues random system calls with random, boundary and bad
 * pointer arguments, writes random bytes to the /proc files, and races
 * nohz set/clear against affinity changes, until the deadline. A worker a
 * signal kills (its own doing: a bad rt_sigaction, a SIGPIPE, a blocked
 * SIGSEGV...) is counted and replaced; a worker still alive well after the
 * deadline is stuck in the kernel: killed, and counted as lost.
 *
 * Afterwards, once every worker and its files are gone, the free pages and
 * the heap objects of /proc/meminfo must be back within SLACK_PAGES and
 * SLACK_OBJECTS of what they were (with --shared, other loads run at the
 * same time, as in make soak: the delta is printed, not judged), and the
 * root directory must hold the same names with the same mode: the workers
 * may change only /tmp/fuzz. Prints a summary: calls by result, workers by
 * how they ended, the leak delta. Exit status 0 if nothing was lost, leaked
 * or left outside /tmp/fuzz, 1 otherwise.
 *
 * The calls that would end the experiment rather than test the kernel are
 * left out or their arguments tamed: see neutralize(), where each rule
 * says why. Everything else gets what the dice give. Workers count their
 * results in a small file each (/tmp/fuzz/stats-CPU-GENERATION), rewritten
 * every STATS_EVERY calls, so a killed worker loses at most that many.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stddef.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_WORKERS     16
#define MAX_ERRNO       134
#define STATS_EVERY     64
#define SCRATCH_SIZE    (64 * 1024)
#define VICTIM_PAGES    16
#define FIRST_TAME_FD   32     /* dup2/dup3/close targets: never our own fds */
#define LAST_TAME_FD    63
#define MAX_PROC_FILES  96
#define GRACE_SECONDS   10     /* after the deadline, a live worker is stuck */
#define SLACK_PAGES     64     /* kernel stack page tables are counted apart (KernelStackTables) */
#define SLACK_OBJECTS   64
#define KERNEL_ADDRESS  0xffffffff80100000ul
#define MMAP_MAX_LENGTH (256 * 1024)
#define MAX_MAPPINGS    32

/* Syscall numbers (x86-64). */
enum {
    NR_read = 0, NR_write = 1, NR_open = 2, NR_close = 3, NR_stat = 4, NR_fstat = 5, NR_lstat = 6,
    NR_poll = 7, NR_lseek = 8, NR_mmap = 9, NR_mprotect = 10, NR_munmap = 11, NR_brk = 12,
    NR_rt_sigaction = 13, NR_rt_sigprocmask = 14, NR_rt_sigreturn = 15, NR_ioctl = 16, NR_readv = 19,
    NR_writev = 20, NR_access = 21, NR_pipe = 22, NR_select = 23, NR_sched_yield = 24, NR_dup = 32, NR_dup2 = 33,
    NR_pause = 34, NR_nanosleep = 35, NR_getpid = 39, NR_clone = 56, NR_fork = 57, NR_vfork = 58,
    NR_execve = 59, NR_exit = 60, NR_wait4 = 61, NR_kill = 62, NR_uname = 63, NR_fcntl = 72,
    NR_getcwd = 79, NR_chdir = 80, NR_rename = 82, NR_mkdir = 83, NR_rmdir = 84, NR_link = 86,
    NR_unlink = 87, NR_symlink = 88, NR_readlink = 89, NR_chmod = 90, NR_fchmod = 91, NR_umask = 95,
    NR_gettimeofday = 96, NR_getrlimit = 97, NR_getrusage = 98, NR_sysinfo = 99, NR_times = 100,
    NR_getuid = 102, NR_getgid = 104, NR_setuid = 105, NR_setgid = 106, NR_geteuid = 107,
    NR_getegid = 108, NR_setpgid = 109, NR_getppid = 110, NR_getpgrp = 111, NR_setsid = 112,
    NR_getpgid = 121, NR_rt_sigpending = 127, NR_rt_sigsuspend = 130, NR_setrlimit = 160,
    NR_reboot = 169, NR_arch_prctl = 158, NR_gettid = 186, NR_tkill = 200, NR_sched_setaffinity = 203,
    NR_sched_getaffinity = 204, NR_getdents64 = 217, NR_set_tid_address = 218, NR_clock_gettime = 228,
    NR_clock_getres = 229, NR_clock_nanosleep = 230, NR_exit_group = 231, NR_tgkill = 234,
    NR_openat = 257, NR_mkdirat = 258, NR_newfstatat = 262, NR_unlinkat = 263, NR_renameat = 264,
    NR_linkat = 265, NR_symlinkat = 266, NR_readlinkat = 267, NR_fchmodat = 268, NR_faccessat = 269,
    NR_pselect6 = 270, NR_ppoll = 271, NR_dup3 = 292, NR_pipe2 = 293, NR_prlimit64 = 302, NR_getcpu = 309,
    NR_renameat2 = 316, NR_getrandom = 318,
};

/* What kernel/syscall.c handles, and some it does not (-ENOSYS expected;
 * harmless on Linux too): statfs, fstatfs, time, set_robust_list,
 * getrandom, statx, rseq, numbers in the holes of the table and past it. */
static const int implemented[] = {
    NR_read, NR_write, NR_open, NR_close, NR_stat, NR_fstat, NR_lstat, NR_poll, NR_lseek, NR_mmap,
    NR_mprotect, NR_munmap, NR_brk, NR_rt_sigaction, NR_rt_sigprocmask, NR_ioctl, NR_readv, NR_writev,
    NR_access, NR_pipe, NR_sched_yield, NR_dup, NR_dup2, NR_nanosleep, NR_getpid, NR_clone, NR_fork,
    NR_vfork, NR_wait4, NR_kill, NR_uname, NR_fcntl, NR_getcwd, NR_chdir, NR_rename, NR_mkdir, NR_rmdir,
    NR_link, NR_unlink, NR_symlink, NR_readlink, NR_chmod, NR_fchmod, NR_umask, NR_gettimeofday,
    NR_getrlimit, NR_getrusage, NR_sysinfo, NR_times, NR_getuid, NR_getgid, NR_setuid, NR_setgid,
    NR_geteuid, NR_getegid, NR_setpgid, NR_getppid, NR_getpgrp, NR_setsid, NR_getpgid, NR_rt_sigpending,
    NR_setrlimit, NR_arch_prctl, NR_gettid, NR_tkill, NR_sched_setaffinity, NR_sched_getaffinity,
    NR_getdents64, NR_set_tid_address, NR_clock_gettime, NR_clock_getres, NR_clock_nanosleep, NR_tgkill,
    NR_openat, NR_mkdirat, NR_newfstatat, NR_unlinkat, NR_renameat, NR_linkat, NR_symlinkat,
    NR_readlinkat, NR_fchmodat, NR_faccessat, NR_dup3, NR_pipe2, NR_prlimit64, NR_getcpu, NR_renameat2, NR_getrandom,
    NR_ppoll, NR_select, NR_pselect6,
    /* Drawn, then skipped by neutralize() (counted as excluded): */
    NR_exit, NR_exit_group, NR_execve, NR_reboot, NR_rt_sigreturn, NR_pause, NR_rt_sigsuspend,
};
static const long unimplemented[] = {137, 138, 201, 273, 332, 334, 335, 400, 423, 451, 600, 4096,
                                     -1, 0x40000000 | NR_getpid, (long)(1ul << 63), INT_MAX};

/* ---- Counters, kept in a file per worker ---- */

struct counts {
    uint64_t calls, skipped;
    uint64_t result[MAX_ERRNO + 1]; /* [0] success, [e] -e */
    uint64_t proc_writes, proc_result[MAX_ERRNO + 1];
    uint64_t nohz_tries, nohz_result[MAX_ERRNO + 1], nohz_moved_while_set;
    int64_t odd_number, odd_result; /* the last result that is neither >= 0 nor an errno */
};

static struct counts counts;
static int stats_fd = -1;

static void count_result(uint64_t *table, long result)
{
    table[result >= 0 ? 0 : (-result <= MAX_ERRNO ? -result : MAX_ERRNO)]++;
}

static void save_counts(void)
{
    lseek(stats_fd, 0, SEEK_SET);
    if (write(stats_fd, &counts, sizeof(counts)) != sizeof(counts))
        _exit(99);
}

/* ---- Randomness: xorshift64*, seeded per worker so a run repeats ---- */

static uint64_t rng_state;

static uint64_t next_random(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1dull;
}

static uint64_t below(uint64_t n)
{
    return n ? next_random() % n : 0;
}

/* ---- The raw system call: no libc wrapper between us and the kernel ---- */

static long raw_syscall(long n, long a0, long a1, long a2, long a3, long a4, long a5)
{
    register long r10 __asm__("r10") = a3, r8 __asm__("r8") = a4, r9 __asm__("r9") = a5;
    long result;
    __asm__ volatile("syscall"
                     : "=a"(result)
                     : "a"(n), "D"(a0), "S"(a1), "d"(a2), "r"(r10), "r"(r8), "r"(r9)
                     : "rcx", "r11", "memory");
    return result;
}

/* ---- The worker's world: memory, descriptors and paths it may harm ---- */

static uint8_t *scratch;       /* random bytes; the usual "valid" pointer */
static uint8_t *victim;        /* munmap/mprotect/MAP_FIXED land here only */
static int safe_fds[8];        /* ours: never closed, never a pipe or the console */
static int safe_fd_count;
static int dir_fd;
static char home[64];          /* /tmp/fuzz/wN: the worker's own directory */
static unsigned worker_cpu, cpu_count;
static pid_t self;
static char proc_files[MAX_PROC_FILES][64];
static struct { long address, length; } mappings[MAX_MAPPINGS]; /* what random mmaps made */
static int mapping_count;
static int gentle;             /* --shared: spare the memory other loads need */
static int proc_file_count;

static void noop_handler(int signal)
{
    (void)signal;
}

/* Boundary values and bad pointers of every kind. */
static long any_value(void)
{
    switch (below(20)) {
    case 0: return 0;
    case 1: return -1;
    case 2: return INT_MAX;
    case 3: return INT_MIN;
    case 4: return UINT32_MAX;
    case 5: return (long)(1ul << 63);
    case 6: return (long)next_random();                       /* huge */
    case 7: return (long)below(4097);
    case 8: return 0x10;                                      /* NULL page */
    case 9: return (long)KERNEL_ADDRESS;                      /* SMAP/SMEP */
    case 10: return (long)0x0000800000000000ul;               /* first non-canonical */
    case 11: return (long)0x00007ffffffff000ul;               /* top of user half, unmapped */
    case 12: return (long)(scratch + 1 + below(64));          /* misaligned */
    case 13: return (long)(scratch + SCRATCH_SIZE - below(16)); /* runs into the guard page */
    case 14: return (long)(victim + below(VICTIM_PAGES * 4096)); /* maybe unmapped, maybe PROT_NONE */
    case 15: return (long)&noop_handler;                      /* read-only text: writes must fail */
    case 16: return (long)(scratch + SCRATCH_SIZE - 4096);     /* the last page */
    default: return (long)(scratch + below(SCRATCH_SIZE / 2));
    }
}

static long bad_fd(void)
{
    /* Never a small number: fcntl(F_DUPFD, n) may have made it a copy of
     * the busybox fd (found when fchmod(200, 0) emptied busybox's mode). */
    static const long bad[] = {-1, INT_MAX, 1000000, INT_MIN, -100};   /* as int too: never 0-2 */
    return bad[below(sizeof(bad) / sizeof(bad[0]))];
}

/* An fd that is safe to read, write and ioctl: never 0-2 (the console:
 * reads block, writes flood it) and never a pipe (a read blocks forever
 * with ourselves the writer, a write to a full one too). */
static long pick_fd(void)
{
    return below(4) == 0 ? bad_fd() : safe_fds[below(safe_fd_count)];
}

static long tame_fd(void)
{
    return below(4) == 0 ? bad_fd() : FIRST_TAME_FD + (long)below(LAST_TAME_FD - FIRST_TAME_FD + 1);
}

static long pick_dirfd(void)
{
    switch (below(3)) {
    case 0: return AT_FDCWD;
    case 1: return dir_fd;
    default: return bad_fd();
    }
}

/* Paths a call may only read or look at. */
static long read_path(void)
{
    static const char *const paths[] = {"/proc/self/status", "/proc/meminfo", "/proc/self", "/proc",
                                        "/bin/busybox", "/dev/null", "/", "f", "d", "l", "d/g",
                                        "/nonexistent/x", "", "/proc/self/fd", "/tmp/fuzz/../fuzz"};
    if (below(4) == 0)
        return any_value();
    return (long)paths[below(sizeof(paths) / sizeof(paths[0]))];
}

/* A name of random bytes, made fresh for each call in a buffer of its own:
 * never scratch, which getcwd() and readlink() fill with real paths (a
 * name taken from there was "/w2", the tail of "/tmp/fuzz/w2", and created
 * /w2 in the root). No '/' in it, so it cannot leave the directory. */
static char *random_name(void)
{
    static char names[2][33];  /* two: rename() takes two names */
    static unsigned which;
    char *name = names[which++ % 2];
    size_t length = 1 + below(sizeof(names[0]) - 1);
    for (size_t i = 0; i < length; i++) {
        name[i] = (char)(1 + below(255));
        if (name[i] == '/')
            name[i] = '_';
    }
    name[length] = '\0';
    return name;
}

/* Paths a call may create, remove, rename or chmod: only in the worker's
 * own directory, so that the shell and busybox survive the run. */
static long write_path(void)
{
    static const char *const paths[] = {"f", "d", "l", "d/g", "e", "d/d2", "/nonexistent/x", ""};
    switch (below(6)) {
    case 0: return (long)(below(2) ? KERNEL_ADDRESS : 0x10);
    case 1: return (long)random_name();
    default: return (long)paths[below(sizeof(paths) / sizeof(paths[0]))];
    }
}

static long short_timespec(void)
{
    struct timespec *ts = (struct timespec *)(scratch + 2048);
    switch (below(5)) {
    case 0: ts->tv_sec = -1, ts->tv_nsec = 0; break;
    case 1: ts->tv_sec = 0, ts->tv_nsec = 1000000000; break;     /* EINVAL */
    case 2: return below(2) ? (long)KERNEL_ADDRESS : 0x10;
    default: ts->tv_sec = 0, ts->tv_nsec = (long)below(1000000); /* at most 1 ms */
    }
    return (long)ts;
}

/* select's timeval: at most 1 ms, or invalid. (A timespec's invalid
 * nanoseconds would be 1000 s here: microseconds carry over.) */
static long short_timeval(void)
{
    struct timeval *tv = (struct timeval *)(scratch + 2048);
    switch (below(5)) {
    case 0: tv->tv_sec = -1, tv->tv_usec = 0; break;
    case 1: tv->tv_sec = 0, tv->tv_usec = -1; break;              /* EINVAL */
    case 2: return below(2) ? (long)KERNEL_ADDRESS : 0x10;
    default: tv->tv_sec = 0, tv->tv_usec = (long)below(1000);     /* at most 1 ms */
    }
    return (long)tv;
}

static long pick_pid(void)
{
    static const long others[] = {0, 99999, -99999, INT_MAX};
    return below(2) ? self : others[below(4)];
}

static void reap_now(long pid)
{
    if (pid > 0)
        waitpid((pid_t)pid, NULL, 0);
}

/* Makes call n with args a[] safe for the experiment; returns 0 to skip
 * it. Every exclusion, and why. */
static int neutralize(long n, long a[6])
{
    switch (n) {
    /* Would end the worker, or the whole run: */
    case NR_exit:
    case NR_exit_group:     /* ends the worker: nothing to learn */
    case NR_reboot:         /* powers the machine off */
    case NR_execve:         /* would run arbitrary programs from /bin */
    case NR_rt_sigreturn:   /* a garbage frame: tested by tests/user/signals.c */
    case NR_pause:
    case NR_rt_sigsuspend:  /* block until a signal that never comes */
        return 0;
    /* Other processes: only ourselves or pids that do not exist. */
    case NR_kill:
    case NR_tkill:
        a[0] = pick_pid() == self ? self : 99999;
        a[1] = below(2) ? 0 : (below(2) ? SIGURG : 65 + (long)below(1000));   /* harmless or EINVAL */
        return 1;
    case NR_tgkill:
        a[0] = a[1] = below(4) ? self : 99999;
        a[2] = below(2) ? 0 : SIGWINCH;
        return 1;
    case NR_setpgid:
    case NR_sched_setaffinity:
    case NR_prlimit64:
        a[0] = pick_pid();
        return 1;
    /* Bounded forks (as fork: a raw clone or vfork child would share our
     * memory or stack), reaped at once. The child leaves at once. */
    case NR_clone:
    case NR_vfork:
    case NR_fork: {
        long pid = raw_syscall(NR_fork, 0, 0, 0, 0, 0, 0);
        if (pid == 0)
            raw_syscall(NR_exit, 0, 0, 0, 0, 0, 0);
        count_result(counts.result, pid);
        reap_now(pid);
        return -1;   /* done here */
    }
    case NR_wait4:
        a[2] |= WNOHANG;    /* children leave at once, but never wait for ever */
        return 1;
    /* Our own memory: only the victim area may be unmapped or protected. */
    case NR_munmap:
    case NR_mprotect:
        if (below(4))
            a[0] = (long)(victim + below(VICTIM_PAGES) * 4096);
        else
            a[0] = below(2) ? (long)KERNEL_ADDRESS : (long)(victim + 1);
        a[1] = (long)below(VICTIM_PAGES * 4096 + 1);
        return 1;
    case NR_mmap:
        if (a[3] & (MAP_FIXED | 0x100000 /* MAP_FIXED_NOREPLACE */))
            a[0] = (long)(victim + below(VICTIM_PAGES) * 4096);
        /* nohzk maps eagerly: lengths that can succeed are kept small, or
         * the workers would take the memory the shell needs (make soak).
         * What succeeds is unmapped again by tidy_up(). */
        if ((unsigned long)a[1] > MMAP_MAX_LENGTH && ((unsigned long)a[1] < (1ul << 30) || gentle))
            a[1] = MMAP_MAX_LENGTH;
        a[4] = pick_fd();
        return 1;
    case NR_brk:    /* only up: musl's heap lives below the break */
        a[0] = below(2) ? 0 : (below(2) ? (long)KERNEL_ADDRESS
                                      : raw_syscall(NR_brk, 0, 0, 0, 0, 0, 0) + (long)below(16) * 4096);
        return 1;
    case NR_arch_prctl:     /* ARCH_SET_FS: musl's TLS, errno included */
        if (a[0] == 0x1002)
            a[0] = 0x1003;
        return 1;
    case NR_rt_sigaction: { /* SIG_DFL or SIG_IGN, never a random handler */
        if (below(8)) {     /* else a random one: the worker may die of it */
            long *act = (long *)(scratch + 4096);
            act[0] = (long)below(2);
            act[1] = a[2] & ~0x04000000L; /* sa_flags without SA_RESTORER */
            a[1] = (long)act;
        }
        return 1;
    }
    /* Descriptors: reads and writes only on our safe fds (never block),
     * closes and dup targets only in the tame range. */
    case NR_read:
    case NR_write:
    case NR_readv:
    case NR_writev:
    case NR_ioctl:
    case NR_fstat:
    case NR_lseek:
    case NR_fcntl:
    case NR_getdents64:
    case NR_dup:
        a[0] = pick_fd();
        if (n == NR_write || n == NR_read)
            a[2] = (long)below(8192);   /* bounded: writes grow a file in RAM */
        /* Files live in RAM without holes: a write far out takes that
         * much memory. Offsets stay near the start, or (alone) huge. */
        if (n == NR_lseek && (below(2) || gentle || (a[1] >= 0 && a[1] < (1l << 30))))
            a[1] = (long)below(65536);
        return 1;
    case NR_fchmod:         /* our file or directory: not busybox or /dev/null */
        a[0] = below(4) == 0 ? -1 : safe_fds[below(2)];
        return 1;
    case NR_close:
        a[0] = tame_fd();
        return 1;
    case NR_dup2:
    case NR_dup3:
        a[0] = pick_fd();
        a[1] = tame_fd();
        return 1;
    case NR_poll:
        a[1] = (long)below(9);
        a[2] = 0;           /* never wait */
        return 1;
    case NR_ppoll:
        a[1] = (long)below(9);
        a[2] = short_timespec();    /* at most 1 ms, or invalid: never NULL (for ever) */
        return 1;
    case NR_select:
        a[4] = short_timeval();     /* never NULL (for ever) */
        return 1;
    case NR_pselect6:
        a[4] = short_timespec();
        return 1;
    case NR_nanosleep:
        a[0] = short_timespec();
        return 1;
    case NR_clock_nanosleep:
        a[2] = short_timespec();
        return 1;
    /* Paths: anything may be read; only our own directory may change. */
    case NR_open:
        a[0] = (a[1] & (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC)) ? write_path() : read_path();
        return 1;
    case NR_openat:
        a[0] = pick_dirfd();
        a[1] = (a[2] & (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC)) ? write_path() : read_path();
        return 1;
    case NR_stat:
    case NR_lstat:
    case NR_access:
    case NR_readlink:
        a[0] = read_path();
        return 1;
    case NR_chdir:          /* never "/": relative names would land there (/proc refuses them) */
        a[0] = below(2) ? (long)home : (long)(below(2) ? "d" : below(2) ? "/proc" : "/nonexistent");
        return 1;
    case NR_newfstatat:
    case NR_readlinkat:
    case NR_faccessat:
        a[0] = pick_dirfd();
        a[1] = read_path();
        return 1;
    case NR_mkdir:
    case NR_rmdir:
    case NR_unlink:
    case NR_chmod:
        a[0] = write_path();
        return 1;
    case NR_rename:
    case NR_link:
        a[0] = write_path();
        a[1] = write_path();
        return 1;
    case NR_symlink:        /* a link to /bin/busybox, then chmod or O_TRUNC through it... */
        a[0] = write_path();
        a[1] = write_path();
        return 1;
    case NR_mkdirat:
    case NR_unlinkat:
    case NR_fchmodat:
        a[0] = pick_dirfd();
        a[1] = write_path();
        return 1;
    case NR_renameat:
    case NR_renameat2:
    case NR_linkat:
        a[0] = pick_dirfd();
        a[1] = write_path();
        a[2] = pick_dirfd();
        a[3] = write_path();
        return 1;
    case NR_symlinkat:
        a[0] = write_path();
        a[1] = pick_dirfd();
        a[2] = write_path();
        return 1;
    default:
        return 1;
    }
}

static void one_syscall(void)
{
    long n = below(8) ? implemented[below(sizeof(implemented) / sizeof(implemented[0]))]
                      : unimplemented[below(sizeof(unimplemented) / sizeof(unimplemented[0]))];
    long a[6];
    for (int i = 0; i < 6; i++)
        a[i] = any_value();
    int verdict = neutralize(n, a);
    if (verdict == 0) {
        counts.skipped++;
        return;
    }
    counts.calls++;
    if (verdict < 0)
        return;
    long result = raw_syscall(n, a[0], a[1], a[2], a[3], a[4], a[5]);
    count_result(counts.result, result);
    if (result < -MAX_ERRNO + 1)
        counts.odd_number = n, counts.odd_result = result;
    if (n == NR_mmap && result > 0 && mapping_count < MAX_MAPPINGS &&
        (result < (long)victim || result >= (long)(victim + VICTIM_PAGES * 4096))) {
        mappings[mapping_count].address = result;
        mappings[mapping_count++].length = a[1];
    }
}

/* ---- /proc: random bytes to every file ---- */

static void add_proc_files(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d)) != NULL && proc_file_count < MAX_PROC_FILES;) {
        if (e->d_name[0] == '.' || (e->d_name[0] >= '0' && e->d_name[0] <= '9'))
            continue;   /* other processes come in through /proc/1 */
        if (e->d_type == DT_DIR || e->d_type == DT_LNK || strlen(dir) + strlen(e->d_name) + 2 > sizeof(proc_files[0]))
            continue;
        if (gentle && strcmp(e->d_name, "rcustress") == 0)
            continue;   /* a 1 s torture run would make another job's rcustress fail with EBUSY */
        strcpy(proc_files[proc_file_count], dir);
        strcat(proc_files[proc_file_count], "/");
        strcat(proc_files[proc_file_count++], e->d_name);
    }
    closedir(d);
}

static void proc_write(void)
{
    const char *path = proc_files[below(proc_file_count)];
    char bytes[40];
    size_t length = below(sizeof(bytes));
    for (size_t i = 0; i < length; i++)
        bytes[i] = (char)next_random();
    if (below(3) == 0)  /* something that looks like a value */
        length = (size_t)snprintf(bytes, sizeof(bytes), "%ld\n", below(2) ? (long)below(3) : any_value());
    /* /proc/rcustress runs a torture test for the number of seconds
     * written: at most 1 s here, so a worker is never stuck for minutes. */
    if (strcmp(path, "/proc/rcustress") == 0 && bytes[0] >= '0' && bytes[0] <= '9')
        length = (size_t)snprintf(bytes, sizeof(bytes), "1\n");
    counts.proc_writes++;
    int fd = open(path, below(2) ? O_WRONLY : O_RDWR);
    if (fd < 0) {
        count_result(counts.proc_result, -errno);
        return;
    }
    long result = raw_syscall(NR_write, fd, (long)bytes, (long)length, 0, 0, 0);
    count_result(counts.proc_result, result);
    char sink[512];   /* and read it back: the generators run after a write */
    lseek(fd, 0, SEEK_SET);
    while (read(fd, sink, sizeof(sink)) > 0)
        ;
    close(fd);
}

/* ---- nohz: set and clear racing affinity changes ----
 * Set, try to move to another CPU (must fail with EBUSY while set: a move
 * that succeeds is counted and fails the run), clear, move back. Other
 * workers do the same on the other CPUs meanwhile, and random /proc
 * writes and sched_setaffinity calls set and move at other moments. A
 * kernel without /proc/self/nohz counts ENOENT. */
static void pin_to(unsigned cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    sched_setaffinity(0, sizeof(set), &set);
}

static void nohz_race(void)
{
    counts.nohz_tries++;
    int fd = open("/proc/self/nohz", O_WRONLY);
    if (fd < 0) {
        count_result(counts.nohz_result, -errno);
        return;
    }
    long set = raw_syscall(NR_write, fd, (long)"1", 1, 0, 0, 0);
    count_result(counts.nohz_result, set);
    cpu_set_t other;
    CPU_ZERO(&other);
    CPU_SET((worker_cpu + 1) % cpu_count, &other);
    long moved = raw_syscall(NR_sched_setaffinity, 0, sizeof(other), (long)&other, 0, 0, 0);
    if (set == 1 && moved != -EBUSY && cpu_count > 1)
        counts.nohz_moved_while_set++;  /* patch 13: must be EBUSY */
    count_result(counts.nohz_result, raw_syscall(NR_write, fd, (long)"0", 1, 0, 0, 0));
    close(fd);
    pin_to(worker_cpu);
}

/* ---- A worker ---- */

static void set_up_world(void)
{
    scratch = mmap(NULL, SCRATCH_SIZE + 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    victim = mmap(NULL, VICTIM_PAGES * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (scratch == MAP_FAILED || victim == MAP_FAILED)
        _exit(98);
    munmap(scratch + SCRATCH_SIZE, 4096);   /* a guard page after the scratch area */
    for (size_t i = 0; i < SCRATCH_SIZE; i += 8)
        *(uint64_t *)(scratch + i) = next_random();

    mkdir(home, 0755);
    chdir(home);
    mkdir("d", 0755);
    close(open("f", O_CREAT | O_WRONLY, 0644));
    symlink("f", "l");
    dir_fd = open(".", O_RDONLY | O_DIRECTORY);
    safe_fd_count = 0;
    safe_fds[safe_fd_count++] = dir_fd;
    safe_fds[safe_fd_count++] = open("f", O_RDWR);
    safe_fds[safe_fd_count++] = open("/proc/meminfo", O_RDONLY);
    safe_fds[safe_fd_count++] = open("/proc/self/status", O_RDONLY);
    safe_fds[safe_fd_count++] = open("/dev/null", O_RDWR);
    safe_fds[safe_fd_count++] = open("/bin/busybox", O_RDONLY);
    for (int i = 0; i < safe_fd_count; i++)
        if (safe_fds[i] < 0 || safe_fds[i] >= FIRST_TAME_FD)
            _exit(97);
}

/* Every so often: close what random calls opened (they would run out of
 * descriptors), restore the victim area and our CPU, shrink our file. */
static void tidy_up(void)
{
    for (int fd = 3; fd < 256; fd++) {
        int ours = fd == stats_fd;
        for (int i = 0; i < safe_fd_count; i++)
            ours |= fd == safe_fds[i];
        if (!ours)
            close(fd);
    }
    mmap(victim, VICTIM_PAGES * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    for (int i = 0; i < mapping_count; i++)
        munmap((void *)mappings[i].address, (size_t)mappings[i].length);
    mapping_count = 0;
    pin_to(worker_cpu);
    chdir(home);
    int fd = open("f", O_WRONLY | O_TRUNC);
    if (fd >= 0)
        close(fd);
}

static void worker(unsigned cpu, unsigned generation, uint64_t seed, time_t deadline)
{
    char path[64];
    worker_cpu = cpu;
    self = getpid();
    rng_state = seed ^ (0x9e3779b97f4a7c15ull * (cpu + 1)) ^ ((uint64_t)generation << 32) ^ 1;
    snprintf(path, sizeof(path), "/tmp/fuzz/stats-%u-%u", cpu, generation);
    stats_fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0644);
    snprintf(home, sizeof(home), "/tmp/fuzz/w%u", cpu);
    if (stats_fd < 0)
        _exit(96);
    pin_to(cpu);
    setpgid(0, 0);     /* so that kill(0, ...) reaches only us */
    set_up_world();
    add_proc_files("/proc");
    add_proc_files("/proc/self");
    add_proc_files("/proc/1");
    save_counts();

    for (unsigned long i = 1;; i++) {
        if (i % 128 == 0)
            proc_write();
        else if (i % 97 == 0)
            nohz_race();
        else
            one_syscall();
        if (i % STATS_EVERY == 0) {
            save_counts();
            tidy_up();
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC, &now);
            if (now.tv_sec >= deadline)
                break;
        }
    }
    save_counts();
    _exit(0);
}

/* ---- The parent ---- */

struct meminfo {
    long free_kb, heap_objects, stack_tables_kb;
};

/* KernelStackTables: page tables made for kernel stacks, kept for ever by
 * design (docs/memory.md); the leak check counts them apart. */
static struct meminfo read_meminfo(void)
{
    struct meminfo m = {-1, -1, 0};
    char line[128];
    FILE *f = fopen("/proc/meminfo", "r");
    while (f && fgets(line, sizeof(line), f)) {
        sscanf(line, "MemFree: %ld", &m.free_kb);
        sscanf(line, "HeapObjects: %ld", &m.heap_objects);
        sscanf(line, "KernelStackTables: %ld", &m.stack_tables_kb);
    }
    if (f)
        fclose(f);
    return m;
}

/* The root directory as a string: its mode and its names. The workers may
 * change only /tmp/fuzz; a change here is debris they left outside. */
static void describe_root(char *out, size_t size)
{
    struct stat st;
    size_t used = (size_t)snprintf(out, size, "mode %o:", stat("/", &st) == 0 ? (unsigned)st.st_mode : 0u);
    DIR *directory = opendir("/");
    struct dirent *entry;
    while (directory && (entry = readdir(directory)) && used < size)
        used += (size_t)snprintf(out + used, size - used, " %s", entry->d_name);
    if (directory)
        closedir(directory);
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st, (void)type, (void)ftw;
    remove(path);
    return 0;
}

static const char *errno_name(int e)
{
    static const char *const names[] = {
        [1] = "EPERM", [2] = "ENOENT", [3] = "ESRCH", [4] = "EINTR", [5] = "EIO", [7] = "E2BIG",
        [8] = "ENOEXEC", [9] = "EBADF", [10] = "ECHILD", [11] = "EAGAIN", [12] = "ENOMEM",
        [13] = "EACCES", [14] = "EFAULT", [16] = "EBUSY", [17] = "EEXIST", [18] = "EXDEV",
        [20] = "ENOTDIR", [21] = "EISDIR", [22] = "EINVAL", [23] = "ENFILE", [24] = "EMFILE",
        [25] = "ENOTTY", [26] = "ETXTBSY", [27] = "EFBIG", [28] = "ENOSPC", [29] = "ESPIPE",
        [30] = "EROFS", [31] = "EMLINK", [32] = "EPIPE", [33] = "EDOM", [34] = "ERANGE",
        [36] = "ENAMETOOLONG", [38] = "ENOSYS", [39] = "ENOTEMPTY", [40] = "ELOOP", [95] = "EOPNOTSUPP",
        [75] = "EOVERFLOW",
    };
    return e < (int)(sizeof(names) / sizeof(names[0])) && names[e] ? names[e] : NULL;
}

static void print_results(const char *what, uint64_t total, const uint64_t *table)
{
    printf("fuzz: %s %llu:", what, (unsigned long long)total);
    for (int e = 0; e <= MAX_ERRNO; e++) {
        if (!table[e])
            continue;
        const char *name = e == 0 ? "success" : errno_name(e);
        if (name)
            printf(" %s %llu", name, (unsigned long long)table[e]);
        else
            printf(" %s%d %llu", e == MAX_ERRNO ? "below -" : "errno", e, (unsigned long long)table[e]);
    }
    printf("\n");
}

static void add_counts(struct counts *sum, const struct counts *c)
{
    const uint64_t *from = (const uint64_t *)c;
    uint64_t *to = (uint64_t *)sum;
    for (size_t i = 0; i < offsetof(struct counts, odd_number) / sizeof(uint64_t); i++)
        to[i] += from[i];
    if (c->odd_result)
        sum->odd_number = c->odd_number, sum->odd_result = c->odd_result;
}

static unsigned online_cpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) != 0)
        return 1;
    unsigned n = (unsigned)CPU_COUNT(&set);
    return n < 1 ? 1 : n > MAX_WORKERS ? MAX_WORKERS : n;
}

int main(int argc, char **argv)
{
    int shared = argc > 2 && strcmp(argv[argc - 1], "--shared") == 0;
    argc -= shared;
    gentle = shared;
    if (argc < 2 || atoi(argv[1]) <= 0) {
        fprintf(stderr, "usage: fuzz SECONDS [SEED] [--shared]\n");
        return 2;
    }
    /* Random bytes into a real Linux's /proc, as root, could reboot it
     * (/proc/sysrq-trigger): run only where /proc/rcustress says nohzk. */
    if (access("/proc/sysrq-trigger", F_OK) == 0 || access("/proc/rcustress", F_OK) != 0) {
        fprintf(stderr, "fuzz: this does not look like nohzk: refusing to run\n");
        return 2;
    }
    int seconds = atoi(argv[1]);
    uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 0) : (uint64_t)time(NULL);
    cpu_count = online_cpus();
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("fuzz: %u workers, one per CPU, for %d s, seed %llu\n", cpu_count, seconds,
           (unsigned long long)seed);

    mkdir("/tmp", 0755);
    mkdir("/tmp/fuzz", 0755);
    struct meminfo before = read_meminfo();
    static char root_before[1024], root_after[1024];
    describe_root(root_before, sizeof(root_before));
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    time_t deadline = now.tv_sec + seconds;

    pid_t pids[MAX_WORKERS] = {0};
    unsigned generation[MAX_WORKERS] = {0};
    unsigned started = 0, finished = 0, lost = 0, killed_by[65] = {0};
    int stuck = 0;
    for (;;) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        for (unsigned cpu = 0; cpu < cpu_count; cpu++) {
            if (pids[cpu] || now.tv_sec >= deadline)
                continue;
            pid_t pid = fork();
            if (pid == 0)
                worker(cpu, generation[cpu], seed, deadline);
            if (pid > 0) {
                pids[cpu] = pid;
                generation[cpu]++;
                started++;
            }
        }
        int status, running = 0;
        pid_t pid;
        while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
            for (unsigned cpu = 0; cpu < cpu_count; cpu++)
                if (pids[cpu] == pid)
                    pids[cpu] = 0;
            if (WIFSIGNALED(status) && WTERMSIG(status) < 65) {
                if (stuck && WTERMSIG(status) == SIGKILL)
                    lost++;
                else
                    killed_by[WTERMSIG(status)]++;
            } else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
                finished++;
            } else {
                printf("fuzz: worker %d exited with status %d\n", pid, WEXITSTATUS(status));
                lost++;
            }
        }
        for (unsigned cpu = 0; cpu < cpu_count; cpu++)
            running += pids[cpu] != 0;
        if (!running && now.tv_sec >= deadline)
            break;
        if (now.tv_sec >= deadline + GRACE_SECONDS && !stuck) {
            stuck = 1;
            for (unsigned cpu = 0; cpu < cpu_count; cpu++)
                if (pids[cpu]) {
                    printf("fuzz: worker %d on cpu %u stuck %d s after the deadline: killed\n", pids[cpu], cpu,
                           GRACE_SECONDS);
                    kill(pids[cpu], SIGKILL);
                }
        }
        usleep(20000);
    }

    struct counts total = {0};
    for (unsigned cpu = 0; cpu < cpu_count; cpu++)
        for (unsigned g = 0; g < generation[cpu]; g++) {
            char path[64];
            struct counts c;
            snprintf(path, sizeof(path), "/tmp/fuzz/stats-%u-%u", cpu, g);
            int fd = open(path, O_RDONLY);
            if (fd >= 0 && read(fd, &c, sizeof(c)) == sizeof(c))
                add_counts(&total, &c);
            if (fd >= 0)
                close(fd);
        }
    nftw("/tmp/fuzz", remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    /* Freed processes and files may wait for a grace period or two. */
    sleep(1);
    struct meminfo after = read_meminfo();
    describe_root(root_after, sizeof(root_after));
    int root_kept = strcmp(root_before, root_after) == 0;

    print_results("syscalls tried", total.calls, total.result);
    printf("fuzz: skipped (excluded) %llu\n", (unsigned long long)total.skipped);
    if (total.odd_result)
        printf("fuzz: a result that is no errno: syscall %lld returned %lld\n", (long long)total.odd_number,
               (long long)total.odd_result);
    print_results("/proc writes", total.proc_writes, total.proc_result);
    print_results("nohz races", total.nohz_tries, total.nohz_result);
    printf("fuzz: nohz: moved while set %llu (must be 0)\n", (unsigned long long)total.nohz_moved_while_set);
    printf("fuzz: workers %u started, %u finished, %u lost, killed by signals:", started, finished, lost);
    unsigned killed = 0;
    for (int s = 1; s < 65; s++)
        if (killed_by[s]) {
            printf(" %s %u", strsignal(s), killed_by[s]);
            killed += killed_by[s];
        }
    printf("%s\n", killed ? "" : " none");
    long stack_tables = (after.stack_tables_kb - before.stack_tables_kb) / 4;
    long page_delta = (before.free_kb - after.free_kb) / 4 - stack_tables;
    long object_delta = after.heap_objects - before.heap_objects;
    printf("fuzz: leak: free pages %ld -> %ld (%+ld used, %ld of them kernel stack page tables, kept by design; "
           "slack %d), heap objects %ld -> %ld (%+ld, slack %d)\n",
           before.free_kb / 4, after.free_kb / 4, page_delta + stack_tables, stack_tables, SLACK_PAGES,
           before.heap_objects, after.heap_objects, object_delta, SLACK_OBJECTS);
    printf("fuzz: root directory %s\n", root_kept ? "unchanged" : "CHANGED");
    if (!root_kept)
        printf("fuzz: before: %s\nfuzz: after:  %s\n", root_before, root_after);
    int leak_ok = shared || (page_delta <= SLACK_PAGES && object_delta <= SLACK_OBJECTS);
    int ok = lost == 0 && finished > 0 && leak_ok && root_kept && total.nohz_moved_while_set == 0 && before.free_kb >= 0 && before.heap_objects >= 0;
    printf("fuzz: %s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
