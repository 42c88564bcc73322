/* fuzz SECONDS [SEED] [--shared] [--only CLASS[,CLASS...]]: hostile system
 * calls from several processes at once, then a check that the kernel lost
 * nothing (docs/reliability.md, section 2).
 *
 * One worker slot per CPU: the parent forks a worker pinned to that CPU.
 * A worker, until the deadline, runs bursts of one class of attack at a
 * time, the class drawn by weight among those selected (all by default):
 *
 *   calls      random system calls with boundary and bad pointer arguments
 *   proc       random bytes written to the /proc files, read back
 *   nohz       /proc/self/nohz set and cleared while siblings move us
 *   affinity   sched_setaffinity on siblings while they take the process
 *              table's lock (getsid, kill, wait4, fork, exit, /proc/PID)
 *   reap       /proc/PID files of siblings' children read as they are reaped
 *   flags      RFLAGS bits (NT, AC, TF, DF, ID, IOPL...) set by popf
 *              before system calls
 *   symlink    symbolic link chains, nested and looped, resolved
 *   memory     munmap/mprotect/mmap/madvise with any address and length
 *   sigreturn  rt_sigreturn of crafted frames, handlers at bad addresses
 *   futex      futex calls on bad, unmapped, unaligned and good words; a
 *              child waiting in one while signalled, stopped and killed,
 *              with a robust list of garbage or of words it owns
 *
 * Siblings find each other through a board file (/tmp/fuzz/board): each
 * worker's pid and its latest child's. The memory and sigreturn classes
 * run in a child that may die (counted by how it ended); a child alive
 * CHILD_SECONDS after its start is killed, and one that SIGKILL does not
 * end within KILL_WAIT_SECONDS is stuck in the kernel, which fails the run.
 * A worker a signal kills (its own doing: a bad rt_sigaction, a SIGPIPE,
 * a blocked SIGSEGV...) is counted and replaced; a worker still alive well
 * after the deadline is stuck in the kernel: killed, and counted as lost.
 *
 * Afterwards, once every worker and its files are gone, the free pages and
 * the heap objects of /proc/meminfo must be back within SLACK_PAGES and
 * SLACK_OBJECTS of what they were (with --shared, other loads run at the
 * same time, as in make soak: the delta is printed, not judged), and the
 * root directory must hold the same names with the same mode: the workers
 * may change only /tmp/fuzz. Prints a summary: calls by result for each
 * class, children and workers by how they ended, the leak delta. Exit
 * status 0 if nothing was lost, stuck, leaked or left outside /tmp/fuzz,
 * 1 otherwise. The same seed draws the same attacks (each worker and child
 * has its own generator); the interleaving of the CPUs does not repeat.
 *
 * The calls that would end the experiment rather than test the kernel are
 * left out or their arguments tamed: see neutralize(), where each rule
 * says why. Everything else gets what the dice give. Workers count their
 * results in a small file each (/tmp/fuzz/stats-CPU-GENERATION), rewritten
 * after every burst, so a killed worker loses at most one burst.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stddef.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
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

#include "lib/clock.h"
#include "lib/pin.h"

#define MAX_WORKERS     16
#define MAX_ERRNO       134
#define TIDY_EVERY      4      /* bursts between two tidy-ups */
#define SCRATCH_SIZE    (64 * 1024)
#define VICTIM_PAGES    16
#define FIRST_TAME_FD   32     /* dup2/dup3/close targets: never our own fds */
#define LAST_TAME_FD    63
#define MAX_PROC_FILES  96
#define GRACE_SECONDS   15     /* after the deadline, a live worker is stuck */
#define SLACK_PAGES     64     /* kernel stack page tables are counted apart (KernelStackTables) */
#define SLACK_OBJECTS   64
#define KERNEL_ADDRESS  0xffffffff80100000ul
#define MMAP_MAX_LENGTH (256 * 1024)
#define MAX_MAPPINGS    32
#define CHILD_SECONDS   2      /* a sacrificial child alive this long is killed */
#define KILL_WAIT_SECONDS 5    /* ... and one SIGKILL did not end by then is stuck */
#define CHILD_RESULTS   16     /* calls a memory child reports (fit in a pipe) */
#define LANDED          77     /* exit status of a child that reached fuzz_landing */
#define CAME_BACK       78     /* ... of one whose rt_sigreturn or kill returned */
#define LANDED_BADLY    79     /* ... of one that reached it with a selector iretq refuses */
#define NON_CANONICAL   0x0000800000000000ul   /* the first non-canonical address */
#define USER_END        NON_CANONICAL
#define PATH_SIZE       4096
#define SYMLINK_NESTING 8      /* links followed inside links (Linux: 8; nohzk: SYMLINK_MAX in all) */

/* Syscall numbers (x86-64). */
enum {
    NR_read = 0, NR_write = 1, NR_open = 2, NR_close = 3, NR_stat = 4, NR_fstat = 5, NR_lstat = 6,
    NR_pread64 = 17, NR_pwrite64 = 18,
    NR_poll = 7, NR_lseek = 8, NR_mmap = 9, NR_mprotect = 10, NR_munmap = 11, NR_brk = 12,
    NR_rt_sigaction = 13, NR_rt_sigprocmask = 14, NR_rt_sigreturn = 15, NR_ioctl = 16, NR_readv = 19,
    NR_writev = 20, NR_access = 21, NR_pipe = 22, NR_select = 23, NR_sched_yield = 24, NR_madvise = 28,
    NR_dup = 32, NR_dup2 = 33,
    NR_pause = 34, NR_nanosleep = 35, NR_getpid = 39, NR_clone = 56, NR_fork = 57, NR_vfork = 58,
    NR_execve = 59, NR_exit = 60, NR_wait4 = 61, NR_kill = 62, NR_uname = 63, NR_fcntl = 72,
    NR_getcwd = 79, NR_chdir = 80, NR_rename = 82, NR_mkdir = 83, NR_rmdir = 84, NR_link = 86,
    NR_unlink = 87, NR_symlink = 88, NR_readlink = 89, NR_chmod = 90, NR_fchmod = 91, NR_umask = 95,
    NR_gettimeofday = 96, NR_getrlimit = 97, NR_getrusage = 98, NR_sysinfo = 99, NR_times = 100,
    NR_getuid = 102, NR_getgid = 104, NR_setuid = 105, NR_setgid = 106, NR_geteuid = 107,
    NR_getegid = 108, NR_setpgid = 109, NR_getppid = 110, NR_getpgrp = 111, NR_setsid = 112,
    NR_getpgid = 121, NR_getsid = 124, NR_rt_sigpending = 127, NR_rt_sigsuspend = 130, NR_sigaltstack = 131, NR_setrlimit = 160,
    NR_reboot = 169, NR_arch_prctl = 158, NR_gettid = 186, NR_tkill = 200, NR_sched_setaffinity = 203,
    NR_sched_getaffinity = 204, NR_getdents64 = 217, NR_set_tid_address = 218, NR_clock_gettime = 228,
    NR_clock_getres = 229, NR_clock_nanosleep = 230, NR_exit_group = 231, NR_tgkill = 234,
    NR_openat = 257, NR_mkdirat = 258, NR_newfstatat = 262, NR_unlinkat = 263, NR_renameat = 264,
    NR_linkat = 265, NR_symlinkat = 266, NR_readlinkat = 267, NR_fchmodat = 268, NR_faccessat = 269,
    NR_pselect6 = 270, NR_ppoll = 271, NR_dup3 = 292, NR_pipe2 = 293, NR_prlimit64 = 302, NR_getcpu = 309,
    NR_renameat2 = 316, NR_getrandom = 318, NR_statfs = 137, NR_fstatfs = 138,
    NR_futex = 202, NR_set_robust_list = 273, NR_get_robust_list = 274,
};

/* What the kernel handles (docs/syscalls.md), and some it does not (-ENOSYS expected;
 * harmless on Linux too): time, splice,
 * statx, rseq, numbers in the holes of the table and past it. */
static const int implemented[] = {
    NR_read, NR_write, NR_open, NR_close, NR_stat, NR_fstat, NR_lstat, NR_poll, NR_lseek, NR_mmap,
    NR_mprotect, NR_munmap, NR_brk, NR_rt_sigaction, NR_rt_sigprocmask, NR_ioctl, NR_readv, NR_writev,
    NR_access, NR_pipe, NR_sched_yield, NR_dup, NR_dup2, NR_nanosleep, NR_getpid, NR_clone, NR_fork,
    NR_vfork, NR_wait4, NR_kill, NR_uname, NR_fcntl, NR_getcwd, NR_chdir, NR_rename, NR_mkdir, NR_rmdir,
    NR_link, NR_unlink, NR_symlink, NR_readlink, NR_chmod, NR_fchmod, NR_umask, NR_gettimeofday,
    NR_getrlimit, NR_getrusage, NR_sysinfo, NR_times, NR_getuid, NR_getgid, NR_setuid, NR_setgid,
    NR_geteuid, NR_getegid, NR_setpgid, NR_getppid, NR_getpgrp, NR_setsid, NR_getpgid, NR_getsid, NR_rt_sigpending,
    NR_setrlimit, NR_arch_prctl, NR_gettid, NR_tkill, NR_sched_setaffinity, NR_sched_getaffinity,
    NR_getdents64, NR_set_tid_address, NR_clock_gettime, NR_clock_getres, NR_clock_nanosleep, NR_tgkill,
    NR_openat, NR_mkdirat, NR_newfstatat, NR_unlinkat, NR_renameat, NR_linkat, NR_symlinkat,
    NR_readlinkat, NR_fchmodat, NR_faccessat, NR_dup3, NR_pipe2, NR_prlimit64, NR_getcpu, NR_renameat2, NR_getrandom,
    NR_ppoll, NR_select, NR_pselect6, NR_statfs, NR_fstatfs, NR_pread64, NR_pwrite64, NR_futex, NR_set_robust_list,
    NR_get_robust_list,
    /* Drawn, then skipped by neutralize() (counted as excluded): */
    NR_exit, NR_exit_group, NR_execve, NR_reboot, NR_rt_sigreturn, NR_pause, NR_rt_sigsuspend,
};
static const long unimplemented[] = {201, 275, 332, 334, 335, 400, 423, 451, 600, 4096,
                                     -1, 0x40000000 | NR_getpid, (long)(1ul << 63), INT_MAX};

/* ---- The classes of attack ---- */

enum class_id {
    CLASS_CALLS, CLASS_PROC, CLASS_NOHZ, CLASS_AFFINITY, CLASS_REAP, CLASS_FLAGS, CLASS_SYMLINK, CLASS_MEMORY,
    CLASS_SIGRETURN, CLASS_FUTEX, CLASS_THREAD_UNMAP, CLASS_THREAD_FUTEX, CLASS_THREAD_EXIT, CLASS_THREAD_SIGNAL,
    CLASS_CLONE, CLASS_COUNT
};

static void calls_burst(void), proc_burst(void), nohz_burst(void), affinity_burst(void), reap_burst(void),
    flags_burst(void), symlink_burst(void), memory_burst(void), sigreturn_burst(void), futex_burst(void),
    thread_unmap_burst(void), thread_futex_burst(void), thread_exit_burst(void), thread_signal_burst(void),
    clone_burst(void);

/* weight: how often a worker draws the class when several are selected. */
static const struct {
    const char *name;
    unsigned weight;
    void (*burst)(void);
} classes[CLASS_COUNT] = {
    [CLASS_CALLS] = {"calls", 40, calls_burst},
    [CLASS_PROC] = {"proc", 6, proc_burst},
    [CLASS_NOHZ] = {"nohz", 8, nohz_burst},
    [CLASS_AFFINITY] = {"affinity", 8, affinity_burst},
    [CLASS_REAP] = {"reap", 8, reap_burst},
    [CLASS_FLAGS] = {"flags", 8, flags_burst},
    [CLASS_SYMLINK] = {"symlink", 6, symlink_burst},
    [CLASS_MEMORY] = {"memory", 6, memory_burst},
    [CLASS_SIGRETURN] = {"sigreturn", 6, sigreturn_burst},
    [CLASS_FUTEX] = {"futex", 6, futex_burst},
    [CLASS_THREAD_UNMAP] = {"thread-unmap", 4, thread_unmap_burst},
    [CLASS_THREAD_FUTEX] = {"thread-futex", 4, thread_futex_burst},
    [CLASS_THREAD_EXIT] = {"thread-exit", 4, thread_exit_burst},
    [CLASS_THREAD_SIGNAL] = {"thread-signal", 4, thread_signal_burst},
    [CLASS_CLONE] = {"clone", 4, clone_burst},
};

static unsigned selected = (1u << CLASS_COUNT) - 1;    /* --only */

/* ---- Counters, kept in a file per worker ---- */

/* How the sacrificial children of a class ended. */
struct child_counts {
    uint64_t started, exited, landed, landed_badly, came_back, other_exit, fork_failed;
    uint64_t timed_out;     /* alive after CHILD_SECONDS (or the deadline): killed */
    uint64_t stuck;         /* SIGKILL did not end it in KILL_WAIT_SECONDS */
    uint64_t signal[65];
};

struct counts {
    uint64_t calls, skipped;
    uint64_t result[MAX_ERRNO + 1]; /* [0] success, [e] -e */
    uint64_t proc_writes, proc_result[MAX_ERRNO + 1];
    uint64_t nohz_tries, nohz_result[MAX_ERRNO + 1], nohz_moved_while_set;
    uint64_t bursts[CLASS_COUNT], class_calls[CLASS_COUNT], class_result[CLASS_COUNT][MAX_ERRNO + 1];
    uint64_t traps;         /* flags: SIGTRAP and SIGBUS caught, TF and AC cleared */
    struct child_counts children[CLASS_COUNT];
    uint64_t thread_events[CLASS_COUNT];    /* the thread classes' events (see EVENTS) */
    int64_t odd_number, odd_result; /* the last result that is neither >= 0 nor an errno */
};

static struct counts counts;
static int stats_fd = -1;

static void count_result(uint64_t *table, long result)
{
    table[result >= 0 ? 0 : (-result <= MAX_ERRNO ? -result : MAX_ERRNO)]++;
}

/* A call made by one of the classes past calls, proc and the nohz race. */
static void count_class(enum class_id class, long result)
{
    counts.class_calls[class]++;
    count_result(counts.class_result[class], result);
}

static void save_counts(void)
{
    lseek(stats_fd, 0, SEEK_SET);
    if (write(stats_fd, &counts, sizeof(counts)) != sizeof(counts))
        _exit(99);
}

/* ---- Randomness: xorshift64*, seeded per worker so a run repeats ---- */

static __thread uint64_t rng_state;   /* per thread: the thread classes seed theirs */

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

/* The same, with the RFLAGS bits `bits` set by popf just before the
 * syscall instruction, and the caller's flags restored just after it.
 * The red zone below the stack pointer is stepped over: the compiler may
 * keep locals there. */
static long flagged_syscall(uint64_t bits, long n, long a0, long a1, long a2, long a3, long a4, long a5)
{
    register long r10 __asm__("r10") = a3, r8 __asm__("r8") = a4, r9 __asm__("r9") = a5;
    long result;
    __asm__ volatile("lea -128(%%rsp), %%rsp\n\t"
                     "pushfq\n\t"
                     "pushfq\n\t"
                     "orq %[bits], (%%rsp)\n\t"
                     "popfq\n\t"
                     "syscall\n\t"
                     "popfq\n\t"
                     "lea 128(%%rsp), %%rsp"
                     : "=a"(result)
                     : "a"(n), "D"(a0), "S"(a1), "d"(a2), "r"(r10), "r"(r8), "r"(r9), [bits] "r"(bits)
                     : "rcx", "r11", "memory", "cc");
    return result;
}

/* A sacrificial child's way out: no atexit handlers, no stdio flush. */
static void __attribute__((noreturn)) child_exit(int status)
{
    for (;;)
        raw_syscall(NR_exit_group, status, 0, 0, 0, 0, 0);
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
static int board_fd = -1;      /* /tmp/fuzz/board: the pids of the workers and their children */
static unsigned worker_slot, worker_count;
static int64_t deadline_ns;    /* CLOCK_MONOTONIC */

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
    case NR_rt_sigreturn:   /* a garbage frame: the sigreturn class crafts them, in a child */
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
    /* Our own memory: only the victim area may be unmapped or protected
     * (the memory class, in a child, takes any range). */
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
    /* A futex wait or PI lock never without a timeout (or for longer than
     * 1 ms): the word may hold what it expects, or a live sibling's TID. */
    case NR_futex:
        a[3] = short_timespec();
        return 1;
    case NR_set_robust_list:    /* garbage is walked at our exit: harmless, and tested */
        return 1;
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

/* One random call; with bits, set in RFLAGS first (the flags class, which
 * counts it as its own). */
static void one_syscall(uint64_t bits)
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
    if (!bits)
        counts.calls++;
    if (verdict < 0)
        return;
    long result = bits ? flagged_syscall(bits, n, a[0], a[1], a[2], a[3], a[4], a[5])
                       : raw_syscall(n, a[0], a[1], a[2], a[3], a[4], a[5]);
    if (bits)
        count_class(CLASS_FLAGS, result);
    else
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
        counts.nohz_moved_while_set++;  /* a nohz task's affinity cannot change */
    count_result(counts.nohz_result, raw_syscall(NR_write, fd, (long)"0", 1, 0, 0, 0));
    close(fd);
    pin_to_cpu(0, (int)worker_cpu);
}

/* ---- Time ---- */

#define NS_PER_SECOND 1000000000l

/* ---- Siblings: the board ----
 * Slot s holds worker s's pid, slot MAX_WORKERS + s the pid of its latest
 * child. A pid there may be long gone: nohzk never reuses one, so a stale
 * pid only gives ESRCH or ENOENT. */

static void board_write(unsigned index, pid_t pid)
{
    int32_t value = pid;
    lseek(board_fd, (off_t)(index * sizeof(value)), SEEK_SET);
    if (write(board_fd, &value, sizeof(value)) != sizeof(value))
        _exit(95);
}

static pid_t board_read(unsigned index)
{
    int32_t value = 0;
    lseek(board_fd, (off_t)(index * sizeof(value)), SEEK_SET);
    if (read(board_fd, &value, sizeof(value)) != sizeof(value))
        return 0;
    return value;
}

static void publish_child(pid_t pid)
{
    board_write(MAX_WORKERS + worker_slot, pid);
}

/* Any of ours: a worker (maybe this one) or the latest child of one. */
static pid_t relative_pid(void)
{
    unsigned slot = (unsigned)below(worker_count);
    pid_t pid = board_read(below(2) ? slot : MAX_WORKERS + slot);
    return pid > 0 ? pid : self;
}

/* Opens /proc/PID/NAME, reads it to the end, closes it: the result of the
 * open (an fd or -errno), the read's counted too. */
static long read_proc_file(enum class_id class, pid_t pid, const char *name)
{
    char path[64], sink[512];
    snprintf(path, sizeof(path), "/proc/%d/%s", pid, name);
    long fd = raw_syscall(NR_open, (long)path, O_RDONLY, 0, 0, 0, 0);
    count_class(class, fd);
    if (fd < 0)
        return fd;
    long got;
    while ((got = raw_syscall(NR_read, fd, (long)sink, sizeof(sink), 0, 0, 0)) > 0)
        ;
    count_class(class, got);
    close((int)fd);
    return fd;
}

/* ---- calls and proc ---- */

static void calls_burst(void)
{
    if (below(6) == 0)
        nohz_race();
    for (int i = 0; i < 16; i++)
        one_syscall(0);
}

static void proc_burst(void)
{
    proc_write();
    if (below(2))
        proc_write();
}

/* ---- nohz: set and clear while siblings move us ----
 * Workers in even slots are flippers, in odd slots movers (alone, a
 * worker flips). A flipper writes 1 and 0 to its nohz file many times,
 * through one descriptor it keeps. A mover pins flippers to one random
 * CPU each: a move from another process that a nohz write must never see
 * half done (the mask changed, the task still on its old CPU). Movers
 * never move each other, and a flipper takes the process table's lock
 * only for its first open: a move holds that lock, and a task that waits
 * for it while being moved is the affinity class's business (so a worker
 * is not pinned back before a nohz burst, see worker()). */
static int nohz_fd = -1;

static int is_mover(void)
{
    return worker_count >= 2 && worker_slot % 2 == 1;
}

static pid_t flipper_pid(void)
{
    return board_read(2 * (unsigned)below((worker_count + 1) / 2));
}

static void nohz_flips(void)
{
    if (nohz_fd < 0)
        nohz_fd = open("/proc/self/nohz", O_WRONLY);
    if (nohz_fd < 0) {
        count_class(CLASS_NOHZ, -errno);
        return;
    }
    for (unsigned i = 0, n = 16 + (unsigned)below(64); i < n; i++) {
        count_class(CLASS_NOHZ, raw_syscall(NR_write, nohz_fd, (long)"1", 1, 0, 0, 0));
        if (below(4) == 0)
            count_class(CLASS_NOHZ, raw_syscall(NR_sched_yield, 0, 0, 0, 0, 0, 0));
        count_class(CLASS_NOHZ, raw_syscall(NR_write, nohz_fd, (long)"0", 1, 0, 0, 0));
    }
}

static void nohz_moves(void)
{
    for (unsigned i = 0, n = 16 + (unsigned)below(64); i < n; i++) {
        pid_t pid = flipper_pid();
        uint64_t mask = 1ul << below(cpu_count);
        if (pid > 0)
            count_class(CLASS_NOHZ, raw_syscall(NR_sched_setaffinity, pid, sizeof(mask), (long)&mask, 0, 0, 0));
    }
}

static void nohz_burst(void)
{
    if (is_mover())
        nohz_moves();
    else
        nohz_flips();
}

/* ---- affinity: moving siblings while they take the process table's lock ----
 * A mover sets the affinity of workers and their children; a locker makes
 * the calls that take the process table's lock: getsid, kill, getpgid,
 * wait4, fork and exit, an open of /proc/PID. A move of another process
 * must never wait, lock held, for a task that waits for that lock. */
static uint64_t random_cpu_mask(void)
{
    uint64_t online = cpu_count >= 64 ? ~0ul : (1ul << cpu_count) - 1;
    switch (below(8)) {
    case 0: return 0;               /* EINVAL */
    case 1: return ~0ul;            /* CPUs that do not exist as well */
    case 2: return online;
    default: {
        uint64_t mask = next_random() & online;
        return mask ? mask : 1ul << below(cpu_count);
    }
    }
}

static void affinity_moves(void)
{
    for (unsigned i = 0, n = 16 + (unsigned)below(48); i < n; i++) {
        uint64_t mask = random_cpu_mask();
        count_class(CLASS_AFFINITY,
                    raw_syscall(NR_sched_setaffinity, relative_pid(), sizeof(mask), (long)&mask, 0, 0, 0));
    }
}

/* A child that leaves at once, published so that others move it as it
 * exits, and reaped. */
static long fork_and_reap(void)
{
    long pid = raw_syscall(NR_fork, 0, 0, 0, 0, 0, 0);
    if (pid == 0)
        child_exit(0);
    if (pid > 0) {
        publish_child((pid_t)pid);
        waitpid((pid_t)pid, NULL, 0);
    }
    return pid;
}

static void tree_lock_calls(void)
{
    for (unsigned i = 0, n = 16 + (unsigned)below(48); i < n; i++) {
        pid_t pid = relative_pid();
        long result;
        switch (below(8)) {
        case 0: result = raw_syscall(NR_getsid, pid, 0, 0, 0, 0, 0); break;
        case 1: result = raw_syscall(NR_kill, pid, 0, 0, 0, 0, 0); break;
        case 2: result = raw_syscall(NR_getpgid, pid, 0, 0, 0, 0, 0); break;
        case 3: result = raw_syscall(NR_wait4, -1, 0, WNOHANG, 0, 0, 0); break;
        case 4: result = fork_and_reap(); break;
        case 5: result = raw_syscall(NR_sched_getaffinity, pid, 8, (long)scratch, 0, 0, 0); break;
        case 6: result = raw_syscall(NR_setpgid, 0, 0, 0, 0, 0, 0); break;
        default: read_proc_file(CLASS_AFFINITY, pid, "stat"); continue;
        }
        count_class(CLASS_AFFINITY, result);
    }
}

static void affinity_burst(void)
{
    if (below(2))
        affinity_moves();
    else
        tree_lock_calls();
}

/* ---- reap: the /proc files of processes as they go ----
 * Workers in slots 0, 4, 8... are spawners, the others readers. A spawner
 * forks children that leave soon (or that it kills), publishes each, and
 * reaps it. A reader follows a spawner's child slot, reading the files of
 * whatever pid is there, mostly stat (its generator looks into the task),
 * or reads every /proc/PID. A file must never be made from a process
 * being freed: a reader that takes the process table's lock just before
 * the reaper, who is between freeing the task and unlisting the process,
 * finds it listed with its task gone. The more readers wait for that lock,
 * the likelier one wins it there. */
static const char *const pid_files[] = {"stat", "status", "nohz", "cmdline"};

static int is_spawner(void)
{
    return worker_slot % 4 == 0;
}

static void spawn_and_reap(void)
{
    for (unsigned i = 0, n = 2 + (unsigned)below(6); i < n; i++) {
        unsigned way = (unsigned)below(3);
        long pid = raw_syscall(NR_fork, 0, 0, 0, 0, 0, 0);
        if (pid == 0) {
            for (unsigned k = (unsigned)below(4); k; k--)
                raw_syscall(NR_sched_yield, 0, 0, 0, 0, 0, 0);
            child_exit(0);
        }
        count_class(CLASS_REAP, pid);
        if (pid < 0)
            continue;
        publish_child((pid_t)pid);
        if (way == 0)       /* let the readers find it alive */
            for (unsigned k = (unsigned)below(8); k; k--)
                raw_syscall(NR_sched_yield, 0, 0, 0, 0, 0, 0);
        else if (way == 1)
            kill((pid_t)pid, SIGKILL);
        count_class(CLASS_REAP, waitpid((pid_t)pid, NULL, 0) == pid ? 0 : -errno);
    }
}

static void read_every_pid(void)
{
    DIR *proc = opendir("/proc");
    for (struct dirent *e; proc && (e = readdir(proc)) != NULL;)
        if (e->d_name[0] >= '1' && e->d_name[0] <= '9')
            read_proc_file(CLASS_REAP, atoi(e->d_name), pid_files[below(4)]);
    if (proc)
        closedir(proc);
}

static void follow_slot(unsigned index)
{
    for (unsigned i = 0, n = 32 + (unsigned)below(96); i < n; i++) {
        pid_t pid = board_read(index);
        if (pid > 0)
            read_proc_file(CLASS_REAP, pid, pid_files[below(2) ? 0 : below(4)]);
    }
}

static void reap_burst(void)
{
    unsigned spawner = 4 * (unsigned)below((worker_count + 3) / 4);
    if (is_spawner())
        spawn_and_reap();
    else if (below(8))
        follow_slot(below(8) ? MAX_WORKERS + spawner : spawner);
    else
        read_every_pid();
}

/* ---- flags: odd RFLAGS bits at the syscall instruction ----
 * SYSCALL clears only the bits the kernel put in MSR_SFMASK: the kernel
 * runs with any other bit user code set, and must return to user mode
 * with what the user may have. */
#define RFLAGS_TF (1ul << 8)
#define RFLAGS_DF (1ul << 10)
#define RFLAGS_NT (1ul << 14)
#define RFLAGS_RF (1ul << 16)
#define RFLAGS_VM (1ul << 17)
#define RFLAGS_AC (1ul << 18)
#define RFLAGS_ID (1ul << 21)
#define RFLAGS_IOPL (3ul << 12)    /* popf ignores it in ring 3: an attempt */
#define RFLAGS_ARITHMETIC 0x8d5ul   /* CF PF AF ZF SF OF */

/* At least one of NT, AC, TF, DF, ID and IOPL; often several. */
static uint64_t odd_flags(void)
{
    static const uint64_t odd[] = {RFLAGS_NT, RFLAGS_AC, RFLAGS_TF, RFLAGS_DF, RFLAGS_ID, RFLAGS_IOPL,
                                   RFLAGS_RF, 1ul << 19 /* VIF */, 1ul << 20 /* VIP */, RFLAGS_ARITHMETIC};
    uint64_t bits = odd[below(6)];
    for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++)
        if (below(4) == 0)
            bits |= odd[i];
    return bits;
}

/* SIGTRAP (TF) and SIGBUS (AC and a misaligned access): clear the bit in
 * the saved flags and go on. */
static void step_over(int signal, siginfo_t *info, void *context)
{
    (void)signal, (void)info;
    ((ucontext_t *)context)->uc_mcontext.gregs[REG_EFL] &= ~(greg_t)(RFLAGS_TF | RFLAGS_AC);
    counts.traps++;
}

static void catch_traps(void)
{
    struct sigaction action = {.sa_sigaction = step_over, .sa_flags = SA_SIGINFO};
    sigaction(SIGTRAP, &action, NULL);
    sigaction(SIGBUS, &action, NULL);
}

/* Spin in registers with the bits set, so that interrupts come from user
 * mode with them too. loops >= 1. */
static void flagged_spin(uint64_t bits, unsigned loops)
{
    __asm__ volatile("lea -128(%%rsp), %%rsp\n\t"
                     "pushfq\n\t"
                     "pushfq\n\t"
                     "orq %[bits], (%%rsp)\n\t"
                     "popfq\n\t"
                     "1: dec %[loops]\n\t"
                     "jnz 1b\n\t"
                     "popfq\n\t"
                     "lea 128(%%rsp), %%rsp"
                     : [loops] "+r"(loops)
                     : [bits] "r"(bits)
                     : "memory", "cc");
}

static void flags_burst(void)
{
    catch_traps();
    for (unsigned i = 0, n = 8 + (unsigned)below(24); i < n; i++) {
        uint64_t bits = odd_flags();
        long result;
        switch (below(14)) {
        case 0: result = flagged_syscall(bits, NR_getpid, 0, 0, 0, 0, 0, 0); break;
        case 1: result = flagged_syscall(bits, NR_sched_yield, 0, 0, 0, 0, 0, 0); break;
        case 2: result = flagged_syscall(bits, NR_clock_gettime, CLOCK_MONOTONIC, (long)scratch, 0, 0, 0, 0); break;
        case 3: result = flagged_syscall(bits, NR_nanosleep, short_timespec(), 0, 0, 0, 0, 0); break;
        case 4:
            lseek(safe_fds[2], 0, SEEK_SET);
            result = flagged_syscall(bits, NR_read, safe_fds[2], (long)scratch, 512, 0, 0, 0);
            break;
        case 5: result = flagged_syscall(bits, NR_write, safe_fds[4], (long)scratch, 256, 0, 0, 0); break;
        case 6: result = flagged_syscall(bits, NR_getcwd, (long)(scratch + 1024), 256, 0, 0, 0, 0); break;
        case 7: result = flagged_syscall(bits, NR_uname, (long)(scratch + 1024), 0, 0, 0, 0, 0); break;
        case 8: result = flagged_syscall(bits, NR_sched_getaffinity, 0, 8, (long)scratch, 0, 0, 0); break;
        case 9: result = flagged_syscall(bits, NR_kill, self, 0, 0, 0, 0, 0); break;
        case 10: result = flagged_syscall(bits, NR_stat, (long)"/proc/self/status", (long)(scratch + 1024), 0, 0, 0, 0); break;
        case 11: flagged_spin(bits, 1 + (unsigned)below(200000)); continue;
        default: one_syscall(bits); catch_traps(); continue;     /* it may have changed a handler */
        }
        count_class(CLASS_FLAGS, result);
    }
}

/* ---- Sacrificial children: memory and sigreturn ---- */

#define EVENTS (-1000000l)     /* a child's result at or below: EVENTS - its count of events */

/* 1 once it ended (*status), 0 if stuck: alive KILL_WAIT_SECONDS after a
 * SIGKILL, sent CHILD_SECONDS after its start or at the deadline. */
static int wait_for_child(pid_t pid, int *status, struct child_counts *c)
{
    int64_t start = now_ns(), killed_at = 0;
    long nap_us = 100;
    for (;;) {
        pid_t got = waitpid(pid, status, WNOHANG);
        if (got == pid)
            return 1;
        if (got < 0) {          /* reaped by a wait4(-1): how it ended is lost */
            *status = 0xff00;   /* an exit status of 255: "other" */
            return 1;
        }
        int64_t now = now_ns();
        if (!killed_at && (now - start >= CHILD_SECONDS * NS_PER_SECOND || now >= deadline_ns)) {
            kill(pid, SIGKILL);
            killed_at = now;
            c->timed_out++;
        } else if (killed_at && now - killed_at >= KILL_WAIT_SECONDS * NS_PER_SECOND) {
            c->stuck++;
            return 0;
        }
        usleep((useconds_t)nap_us);
        if (nap_us < 20000)
            nap_us *= 2;
    }
}

static void count_ending(struct child_counts *c, int status)
{
    if (WIFSIGNALED(status))
        c->signal[WTERMSIG(status) < 65 ? WTERMSIG(status) : 0]++;
    else if (WEXITSTATUS(status) == 0)
        c->exited++;
    else if (WEXITSTATUS(status) == LANDED)
        c->landed++;
    else if (WEXITSTATUS(status) == LANDED_BADLY)
        c->landed_badly++;
    else if (WEXITSTATUS(status) == CAME_BACK)
        c->came_back++;
    else
        c->other_exit++;
}

/* Starts body in a child with a generator of its own (so the worker's draws
 * do not depend on the child's), which reports the results of its calls
 * (longs) through a pipe: the pid and the pipe's read end, or -1 (counted).
 * The results are read only from a child that ended: a stuck one still
 * holds the pipe. */
static pid_t start_child(enum class_id class, void (*body)(int results), int *results_fd)
{
    struct child_counts *c = &counts.children[class];
    uint64_t seed = next_random();
    int pipe_fds[2];
    if (pipe(pipe_fds) < 0) {
        c->fork_failed++;
        return -1;
    }
    pid_t pid = fork();
    if (pid == 0) {
        close(pipe_fds[0]);
        rng_state = seed | 1;
        body(pipe_fds[1]);
        child_exit(0);
    }
    close(pipe_fds[1]);
    if (pid < 0) {
        c->fork_failed++;
        close(pipe_fds[0]);
        return -1;
    }
    c->started++;
    publish_child(pid);
    *results_fd = pipe_fds[0];
    return pid;
}

/* Waits for it (killing it after CHILD_SECONDS), then counts its results. */
static void finish_child(enum class_id class, pid_t pid, int results_fd)
{
    struct child_counts *c = &counts.children[class];
    int status;
    if (wait_for_child(pid, &status, c)) {
        count_ending(c, status);
        long results[CHILD_RESULTS];
        ssize_t got;
        while ((got = read(results_fd, results, sizeof(results))) > 0)
            for (ssize_t i = 0; i < got / (ssize_t)sizeof(long); i++)
                if (results[i] <= EVENTS)
                    counts.thread_events[class] += (uint64_t)(EVENTS - results[i]);
                else
                    count_class(class, results[i]);
    }
    close(results_fd);
}

static void run_child(enum class_id class, void (*body)(int results))
{
    int results_fd;
    pid_t pid = start_child(class, body, &results_fd);
    if (pid > 0)
        finish_child(class, pid, results_fd);
}

/* ---- memory: any address, any length ----
 * In a child: a huge range from a low address unmaps or protects its own
 * code and stack, and it dies of that. What the kernel must do is answer,
 * or at least die when killed: a loop over 2^36 bytes of pages that
 * ignores SIGKILL is a stuck child. */
static long any_address(void)
{
    switch (below(14)) {
    case 0: return 0;
    case 1: return (long)victim;
    case 2: return (long)scratch;
    case 3: return 0x10000;
    case 4: return (long)(next_random() & (USER_END - 1) & ~0xffful);    /* any page of the user half */
    case 5: return (long)(USER_END - 4096);
    case 6: return 1l << 46;
    case 7: return (long)KERNEL_ADDRESS;
    case 8: return (long)0xffff800000000000ul;                          /* the first kernel address */
    case 9: return (long)NON_CANONICAL;
    case 10: return (long)next_random();
    case 11: return (long)(victim + 1);                                 /* misaligned */
    case 12: return -4096;
    default: return (long)(victim + below(VICTIM_PAGES) * 4096);
    }
}

static long any_length(long address)
{
    switch (below(14)) {
    case 0: return 0;
    case 1: return 1;
    case 2: return 4096;
    case 3: return 1l << 36;
    case 4: return (1l << 36) + 4096;
    case 5: return 1l << 40;
    case 6: return 1l << 46;
    case 7: return 1l << 47;
    case 8: return (long)(USER_END - (uint64_t)address);           /* to the end of the user half */
    case 9: return (long)(USER_END - (uint64_t)address + 4096);    /* a page past it */
    case 10: return -address;                                      /* address + length wraps to 0 */
    case 11: return -4096;
    case 12: return (long)next_random();
    default: return (long)(below(1ul << 36) & ~0xffful);
    }
}

static void memory_child(int results)
{
    for (unsigned i = 0, n = 1 + (unsigned)below(8); i < n; i++) {
        long address = any_address(), length = any_length(address), result;
        switch (below(5)) {
        case 0:
        case 1: result = raw_syscall(NR_munmap, address, length, 0, 0, 0, 0); break;
        case 2: result = raw_syscall(NR_mprotect, address, length, (long)below(8), 0, 0, 0); break;
        case 3: {
            long flags = (below(2) ? MAP_PRIVATE : MAP_SHARED) | (below(2) ? MAP_ANONYMOUS : 0) |
                         (below(2) ? MAP_FIXED : 0);
            /* nohzk maps eagerly: a mapping that can succeed takes that
             * much memory from the other workers (and loads, --shared)
             * for as long as the child lives. Larger ones are refused. */
            if ((unsigned long)length > MMAP_MAX_LENGTH && (unsigned long)length <= (gentle ? 1ul << 32 : 1ul << 30))
                length = MMAP_MAX_LENGTH;
            result = raw_syscall(NR_mmap, address, length, (long)below(8), flags, pick_fd(), 0);
            break;
        }
        default:
            result = raw_syscall(NR_madvise, address, length, below(2) ? MADV_DONTNEED : (long)below(100), 0, 0, 0);
            break;
        }
        raw_syscall(NR_write, results, (long)&result, sizeof(result), 0, 0, 0);
    }
}

static void memory_burst(void)
{
    run_child(CLASS_MEMORY, memory_child);
}

/* ---- futex: calls on any word, and a child signalled while it waits ----
 * The worker's own calls never block long: a wait or a PI lock always has
 * a timeout of at most 1 ms (relative, or absolute and long past). The
 * child waits for ever (a FUTEX_WAIT on a word that holds what it
 * expects, a LOCK_PI on a word the worker owns), with up to three sibling
 * threads that lock, unlock and wait on a PI word of their own and die
 * holding it, while the worker sends it signals, stops and continues it,
 * and kills it or lets wait_for_child() do it: it must leave no waiter
 * behind and never get stuck. */
#define FUTEX_OPS 14
static uint32_t futex_words[4];

static long futex_address(void)
{
    switch (below(12)) {
    case 0: return 0;
    case 1: return (long)KERNEL_ADDRESS;
    case 2: return (long)NON_CANONICAL;
    case 3: return (long)(USER_END - 4096);
    case 4: return (long)((uint8_t *)&futex_words[0] + 1 + below(3));   /* unaligned */
    case 5: return (long)(victim + below(VICTIM_PAGES) * 4096);         /* maybe unmapped or PROT_NONE */
    case 6: return (long)scratch + (long)(below(SCRATCH_SIZE / 4) * 4);
    case 7: return any_value();
    default: return (long)&futex_words[below(4)];
    }
}

static uint32_t futex_value(void)
{
    switch (below(6)) {
    case 0: return (uint32_t)self;
    case 1: return (uint32_t)relative_pid();
    case 2: return 0x80000000u | (uint32_t)relative_pid();       /* FUTEX_WAITERS */
    case 3: return 0x40000000u;                                  /* FUTEX_OWNER_DIED */
    case 4: return (uint32_t)next_random();
    default: return (uint32_t)below(3);
    }
}

static long one_futex_call(void)
{
    long op = (long)below(FUTEX_OPS) | (below(2) ? 128 : 0) | (below(4) ? 0 : 256);
    if (below(16) == 0)
        op = any_value();
    long uaddr = futex_address(), uaddr2 = futex_address();
    if (below(2))
        futex_words[below(4)] = futex_value();
    long fourth = below(3) ? short_timespec() : (below(2) ? (long)below(4) : INT_MAX);
    switch (op & 127) {
    case 0: case 6: case 9: case 11: case 13:   /* waits: their fourth argument is a timeout */
        fourth = short_timespec();
        break;
    }
    return raw_syscall(NR_futex, uaddr, op, below(2) ? (long)futex_value() : any_value(), fourth, uaddr2,
                       below(2) ? (long)futex_value() : any_value());
}

/* A robust list for a child: garbage, or a ring through futex_words[]
 * with the child's TID in some, looping or not. */
static void robust_list_for(pid_t me)
{
    static long head[3];
    static long entries[4][2];      /* { next, futex } */
    if (below(4) == 0) {
        raw_syscall(NR_set_robust_list, below(2) ? any_value() : (long)head, 24, 0, 0, 0, 0);
        return;
    }
    head[0] = (long)&entries[0];
    head[1] = (long)sizeof(long);   /* futex_offset: the word after next */
    head[2] = below(2) ? 0 : (long)&entries[below(4)];
    for (int i = 0; i < 4; i++) {
        entries[i][0] = below(8) == 0 ? any_value() : i == 3 ? (below(2) ? (long)head : (long)&entries[0])
                                                              : (long)&entries[i + 1] | (long)below(2);
        entries[i][1] = below(2) ? me : (long)futex_value();
    }
    raw_syscall(NR_set_robust_list, (long)head, 24, 0, 0, 0, 0);
}

/* A sibling thread of the waiting child: PI locks and unlocks of one word
 * (a lock may block for ever: the owner never unlocks), waits and wakes,
 * and sometimes death by SYS_exit, holding what it holds. */
static int futex_results_fd;

static void *futex_thread(void *arg)
{
    uint64_t state = (uint64_t)(uintptr_t)arg | 1;
    for (unsigned i = 0; i < 8; i++) {
        state ^= state << 13, state ^= state >> 7, state ^= state << 17;
        long result;
        switch (state % 6) {
        case 0: result = raw_syscall(NR_futex, (long)&futex_words[2], 6 | 128, 0, 0, 0, 0); break;
        case 1: result = raw_syscall(NR_futex, (long)&futex_words[2], 7 | 128, 0, 0, 0, 0); break;
        case 2: result = raw_syscall(NR_futex, (long)&futex_words[0], 0 | 128, 7, 0, 0, 0); break;
        case 3: result = raw_syscall(NR_futex, (long)&futex_words[0], 1 | 128, INT_MAX, 0, 0, 0); break;
        case 4: result = raw_syscall(NR_futex, (long)&futex_words[2], 8, 0, 0, 0, 0); break;
        default: raw_syscall(NR_exit, 0, 0, 0, 0, 0, 0); result = 0; break;
        }
        raw_syscall(NR_write, futex_results_fd, (long)&result, sizeof(result), 0, 0, 0);
    }
    return 0;
}

static void futex_waiting_child(int results)
{
    futex_results_fd = results;
    futex_words[2] = 0;
    for (unsigned i = 0, n = (unsigned)below(4); i < n; i++) {
        pthread_t thread;
        pthread_create(&thread, 0, futex_thread, (void *)(uintptr_t)next_random());
    }
    pid_t me = (pid_t)raw_syscall(NR_gettid, 0, 0, 0, 0, 0, 0);
    struct sigaction action = { .sa_handler = noop_handler, .sa_flags = below(2) ? SA_RESTART : 0 };
    sigaction(SIGUSR1, &action, 0);
    robust_list_for(me);
    for (unsigned i = 0, n = 1 + (unsigned)below(4); i < n; i++) {
        long result;
        futex_words[0] = 7;
        futex_words[1] = (uint32_t)getppid();     /* the worker: alive, never unlocks */
        switch (below(4)) {
        case 0: result = raw_syscall(NR_futex, (long)&futex_words[0], 0, 7, 0, 0, 0); break;
        case 1: result = raw_syscall(NR_futex, (long)&futex_words[0], 9 | 128, 7, 0, 0, (long)below(4) + 1); break;
        case 2: result = raw_syscall(NR_futex, (long)&futex_words[1], 6, 0, 0, 0, 0); break;
        default: result = one_futex_call(); break;
        }
        raw_syscall(NR_write, results, (long)&result, sizeof(result), 0, 0, 0);
    }
}

static void futex_burst(void)
{
    for (unsigned i = 0, n = 1 + (unsigned)below(64); i < n; i++)
        count_class(CLASS_FUTEX, one_futex_call());
    if (below(2))
        count_class(CLASS_FUTEX, raw_syscall(NR_get_robust_list, below(2) ? 0 : relative_pid(),
                                             below(4) ? (long)scratch : any_value(),
                                             below(4) ? (long)(scratch + 8) : any_value(), 0, 0, 0));
    /* the child: signals while it waits, then death */
    int results_fd;
    pid_t pid = start_child(CLASS_FUTEX, futex_waiting_child, &results_fd);
    if (pid < 0)
        return;
    static const int signals[] = { SIGUSR1, SIGURG, SIGSTOP, SIGCONT, SIGKILL };
    for (unsigned i = 0, n = (unsigned)below(6); i < n; i++) {
        usleep((useconds_t)below(3000));
        kill(pid, signals[below(sizeof(signals) / sizeof(signals[0]))]);
    }
    kill(pid, below(4) ? SIGKILL : SIGCONT);    /* or finish_child() kills it after CHILD_SECONDS */
    finish_child(CLASS_FUTEX, pid, results_fd);
}

/* ---- Thread classes: each burst runs in a child of its own ----
 * (start_child/run_child), so no thread the worker made outlives the
 * burst: the child's exit ends them all, and the leak check sees whole
 * processes only. A child reports at most a few hundred results (they
 * wait in a pipe until it has ended); a count of its class's event
 * (thread_events[]: a fault caught, a word cleared by an exit, a handler
 * run) is reported as EVENTS - count. */
static void report(int results, long result)
{
    raw_syscall(NR_write, results, (long)&result, sizeof(result), 0, 0, 0);
}

/* The generator of a thread: seeded by its creator, its own from then on. */
static void seed_thread(uint64_t seed)
{
    rng_state = seed | 1;
}

static volatile int threads_stop;
static volatile long thread_event_count;

static void add_event(void)
{
    __atomic_add_fetch(&thread_event_count, 1, __ATOMIC_RELAXED);
}

/* ---- thread-unmap: siblings touch pages another unmaps or protects ----
 * Touchers read and write the victim pages while the child's main thread
 * unmaps, reprotects and maps them again. A SIGSEGV in a toucher is what
 * such a race must give (never a kernel fault, never a stale page): the
 * handler jumps back to the toucher's loop, and each is counted. */
static __thread sigjmp_buf toucher_jump;

static void toucher_fault(int signal)
{
    (void)signal;
    siglongjmp(toucher_jump, 1);
}

static void *touch_victim(void *arg)
{
    seed_thread((uint64_t)(uintptr_t)arg);
    while (!threads_stop) {
        if (sigsetjmp(toucher_jump, 1)) {
            add_event();
            continue;
        }
        volatile uint8_t *page = victim + below(VICTIM_PAGES) * 4096 + below(4096);
        if (below(2))
            *page = (uint8_t)next_random();
        else
            (void)*page;
    }
    return 0;
}

static void thread_unmap_child(int results)
{
    struct sigaction action = { .sa_handler = toucher_fault };
    sigaction(SIGSEGV, &action, 0);
    sigaction(SIGBUS, &action, 0);
    pthread_t touchers[3];
    unsigned count = 1 + (unsigned)below(3);
    for (unsigned i = 0; i < count; i++)
        pthread_create(&touchers[i], 0, touch_victim, (void *)(uintptr_t)next_random());
    for (unsigned i = 0, n = 4 + (unsigned)below(28); i < n; i++) {
        long page = (long)below(VICTIM_PAGES), pages = 1 + (long)below(VICTIM_PAGES - (uint64_t)page);
        long address = (long)(victim + page * 4096), length = pages * 4096, result;
        switch (below(3)) {
        case 0: result = raw_syscall(NR_munmap, address, length, 0, 0, 0, 0); break;
        case 1: result = raw_syscall(NR_mprotect, address, length, (long)below(4), 0, 0, 0); break;
        default:
            result = raw_syscall(NR_mmap, address, length, PROT_READ | PROT_WRITE,
                                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
            break;
        }
        report(results, result);
        for (unsigned spin = (unsigned)below(2000); spin; spin--)
            __asm__ volatile("pause");
    }
    threads_stop = 1;
    for (unsigned i = 0; i < count; i++)
        pthread_join(touchers[i], 0);
    report(results, EVENTS - thread_event_count);
}

static void thread_unmap_burst(void)
{
    run_child(CLASS_THREAD_UNMAP, thread_unmap_child);
}

/* ---- thread-futex: futex calls from several threads at once ----
 * one_futex_call()'s words (bad, unmapped, kernel, non-canonical,
 * misaligned, good), operations, flags and timeouts, from up to four
 * threads, while the main thread unmaps and maps the victim pages some
 * of the words lie in. */
static void *futex_caller(void *arg)
{
    int results = (int)((uintptr_t)arg & 0xffff);
    seed_thread((uint64_t)(uintptr_t)arg);
    for (unsigned i = 0, n = 4 + (unsigned)below(28); i < n; i++)
        report(results, one_futex_call());
    return 0;
}

static void thread_futex_child(int results)
{
    pthread_t callers[4];
    unsigned count = 2 + (unsigned)below(3);
    for (unsigned i = 0; i < count; i++)
        pthread_create(&callers[i], 0, futex_caller, (void *)(uintptr_t)((next_random() << 16) | (unsigned)results));
    for (unsigned i = 0, n = (unsigned)below(16); i < n; i++) {
        long address = (long)(victim + below(VICTIM_PAGES) * 4096);
        if (below(2))
            raw_syscall(NR_munmap, address, 4096, 0, 0, 0, 0);
        else
            raw_syscall(NR_mmap, address, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
        futex_words[below(4)] = futex_value();
        raw_syscall(NR_futex, (long)&futex_words[below(4)], 1 | (below(2) ? 128 : 0), INT_MAX, 0, 0, 0);
    }
    for (unsigned i = 0; i < count; i++)
        pthread_join(callers[i], 0);
}

static void thread_futex_burst(void)
{
    run_child(CLASS_THREAD_FUTEX, thread_futex_child);
}

/* ---- thread-exit: a thread ends while others wait on its tid ----
 * Each exiter puts its tid in a word, names the word its clear_child_tid
 * (set_tid_address, CLONE_CHILD_CLEARTID's word) and ends by SYS_exit;
 * a waiter for each of some of them FUTEX_WAITs on the word holding the
 * tid (shared, as Linux's wake at the exit is; private ones, which that
 * wake does not reach, with a timeout). The end must clear the word and
 * wake its waiter: one left asleep keeps the child alive until it is
 * killed at the time limit.
 * One child in eight ends the group (exit_group) while they wait. */
static uint32_t exit_words[4];
static volatile int exit_go;

static void *exit_soon(void *arg)
{
    unsigned which = (unsigned)((uintptr_t)arg & 3);
    seed_thread((uint64_t)(uintptr_t)arg);
    uint32_t tid = (uint32_t)raw_syscall(NR_gettid, 0, 0, 0, 0, 0, 0);
    raw_syscall(NR_set_tid_address, (long)&exit_words[which], 0, 0, 0, 0, 0);
    __atomic_store_n(&exit_words[which], tid, __ATOMIC_RELEASE);
    for (unsigned tries = 0; tries < 100000 && !exit_go; tries++)
        raw_syscall(NR_sched_yield, 0, 0, 0, 0, 0, 0);     /* the threads share the worker's CPU */
    for (unsigned spin = (unsigned)below(20000); spin; spin--)
        __asm__ volatile("pause");
    for (;;)
        raw_syscall(NR_exit, 0, 0, 0, 0, 0, 0);
    return 0;
}

static void *wait_for_exit(void *arg)
{
    int results = (int)((uintptr_t)arg & 0xffff);
    unsigned which = (unsigned)(((uintptr_t)arg >> 16) & 3);
    seed_thread((uint64_t)(uintptr_t)arg);
    uint32_t tid = 0;
    for (unsigned tries = 0; tries < 1000 && !(tid = __atomic_load_n(&exit_words[which], __ATOMIC_ACQUIRE)); tries++)
        raw_syscall(NR_sched_yield, 0, 0, 0, 0, 0, 0);
    if (!tid)
        return 0;
    /* the exit's wake is Linux's: one waiter, shared (not private) key;
     * a private wait is not woken by it, so it always has a timeout */
    struct timespec timeout = { 0, (long)below(2000000) };
    long private_wait = below(4) == 0, with_timeout = private_wait || below(4) == 0;
    long result = raw_syscall(NR_futex, (long)&exit_words[which], private_wait ? 128 : 0, tid,
                              with_timeout ? (long)&timeout : 0, 0, 0);
    report(results, result);
    if (__atomic_load_n(&exit_words[which], __ATOMIC_ACQUIRE) == 0)
        add_event();
    return 0;
}

static void thread_exit_child(int results)
{
    pthread_t waiters[4], exiter;
    unsigned exiters = 4, waiting = 1 + (unsigned)below(4);
    for (unsigned i = 0; i < exiters; i++)
        pthread_create(&exiter, 0, exit_soon, (void *)(uintptr_t)((next_random() << 2) | i));
    for (unsigned i = 0; i < waiting; i++)
        pthread_create(&waiters[i], 0, wait_for_exit,
                       (void *)(uintptr_t)((next_random() << 18) | (i << 16) | (unsigned)results));
    for (unsigned spin = (unsigned)below(20000); spin; spin--)
        __asm__ volatile("pause");
    exit_go = 1;
    if (below(8) == 0) {
        for (unsigned spin = (unsigned)below(20000); spin; spin--)
            __asm__ volatile("pause");
        child_exit(0);
    }
    for (unsigned i = 0; i < waiting; i++)
        pthread_join(waiters[i], 0);
    report(results, EVENTS - thread_event_count);
}

static void thread_exit_burst(void)
{
    run_child(CLASS_THREAD_EXIT, thread_exit_child);
}

/* ---- thread-signal: a signal during a futex wait ----
 * Waiters FUTEX_WAIT (or WAIT_BITSET) on a word that holds 0, with no
 * timeout or a relative one, while the main thread tgkills them with
 * SIGUSR1 (a handler with or without SA_RESTART); then it sets the word
 * and wakes them. Each wait ends woken (0), interrupted (EINTR), timed
 * out or EAGAIN; a restarted wait goes on. A waiter left asleep after the
 * wake keeps the child alive until the time limit. */
static uint32_t signal_word;

static void count_handler(int signal)
{
    (void)signal;
    add_event();
}

static pid_t signal_tids[3];

static void *wait_through_signals(void *arg)
{
    int results = (int)((uintptr_t)arg & 0xffff);
    seed_thread((uint64_t)(uintptr_t)arg);
    __atomic_store_n(&signal_tids[((uintptr_t)arg >> 16) & 3], (pid_t)raw_syscall(NR_gettid, 0, 0, 0, 0, 0, 0),
                     __ATOMIC_RELEASE);
    for (unsigned i = 0; i < 6 && !__atomic_load_n(&signal_word, __ATOMIC_ACQUIRE); i++) {
        struct timespec timeout = { 0, 1000000 + (long)below(20000000) };
        long op = below(2) ? 0 : 9;     /* WAIT, WAIT_BITSET (whose timeout is absolute: 0 s, long past) */
        long with_timeout = below(3) == 0;
        report(results, raw_syscall(NR_futex, (long)&signal_word, op | (below(2) ? 128 : 0), 0,
                                    with_timeout ? (long)&timeout : 0, 0, op == 9 ? -1 : 0));
    }
    while (!__atomic_load_n(&signal_word, __ATOMIC_ACQUIRE))
        raw_syscall(NR_futex, (long)&signal_word, 0, 0, 0, 0, 0);
    return 0;
}

static void thread_signal_child(int results)
{
    struct sigaction action = { .sa_handler = count_handler, .sa_flags = below(2) ? SA_RESTART : 0 };
    sigaction(SIGUSR1, &action, 0);
    pthread_t waiters[3];
    unsigned count = 1 + (unsigned)below(3);
    for (unsigned i = 0; i < count; i++)
        pthread_create(&waiters[i], 0, wait_through_signals,
                       (void *)(uintptr_t)((next_random() << 18) | (i << 16) | (unsigned)results));
    long pid = raw_syscall(NR_getpid, 0, 0, 0, 0, 0, 0);
    for (unsigned round = 0, n = 1 + (unsigned)below(8); round < n; round++) {
        usleep((useconds_t)below(3000));
        for (unsigned i = 0; i < count; i++) {
            pid_t tid = __atomic_load_n(&signal_tids[i], __ATOMIC_ACQUIRE);
            if (tid)
                raw_syscall(NR_tgkill, pid, tid, SIGUSR1, 0, 0, 0);
        }
    }
    __atomic_store_n(&signal_word, 1, __ATOMIC_RELEASE);
    raw_syscall(NR_futex, (long)&signal_word, 1, INT_MAX, 0, 0, 0);
    raw_syscall(NR_futex, (long)&signal_word, 1 | 128, INT_MAX, 0, 0, 0);
    for (unsigned i = 0; i < count; i++)
        pthread_join(waiters[i], 0);
    report(results, EVENTS - thread_event_count);
}

static void thread_signal_burst(void)
{
    run_child(CLASS_THREAD_SIGNAL, thread_signal_child);
}

/* ---- clone: clone and clone3 with random flag combinations ----
 * The new task, thread or process, runs nothing but SYS_exit, in
 * registers, so it needs no stack of its own and no TLS: any stack, any
 * TLS, CLONE_VM without a stack, are all safe to ask for. Left out:
 * CLONE_PARENT without CLONE_THREAD (its child would be the worker's), and
 * an exit signal of SIGSTOP or SIGKILL (it would stop or kill this child,
 * which ignores every other signal). */
static long clone_and_exit(long n, long a0, long a1, long a2, long a3, long a4)
{
    register long r10 __asm__("r10") = a3, r8 __asm__("r8") = a4;
    long result;
    __asm__ volatile("syscall\n\t"
                     "test %%rax, %%rax\n\t"
                     "jnz 1f\n\t"
                     "mov $60, %%eax\n\t"       /* SYS_exit: the thread, or the process */
                     "xor %%edi, %%edi\n\t"
                     "syscall\n\t"
                     "ud2\n"
                     "1:"
                     : "=a"(result)
                     : "a"(n), "D"(a0), "S"(a1), "d"(a2), "r"(r10), "r"(r8)
                     : "rcx", "r11", "memory");
    return result;
}

#define CLONE_PARENT_FLAG 0x8000ul
#define CLONE_THREAD_FLAG 0x10000ul

static uint64_t any_clone_flags(void)
{
    static const uint64_t groups[] = {
        0x100 | 0x200 | 0x400 | 0x800 | 0x10000 | 0x40000 | 0x80000 | 0x200000 | 0x1000000, /* pthread's */
        0x100 | 0x4000,                                 /* vfork's */
        0x100 | 0x800,                                  /* VM and SIGHAND, no THREAD */
        0x800 | 0x10000,                                /* SIGHAND, THREAD, no VM: EINVAL */
        0,                                              /* fork's */
    };
    uint64_t flags = groups[below(sizeof(groups) / sizeof(groups[0]))];
    for (unsigned i = 0, n = (unsigned)below(4); i < n; i++)
        flags ^= 1ul << (8 + below(26));                /* CLONE_VM ... CLONE_IO */
    if (below(8) == 0)
        flags |= 1ul << (32 + below(32));               /* clone3's CLEAR_SIGHAND, INTO_CGROUP, or none */
    if ((flags & CLONE_PARENT_FLAG) && !(flags & CLONE_THREAD_FLAG))
        flags &= ~CLONE_PARENT_FLAG;
    return flags;
}

static long any_exit_signal(void)
{
    long signal = below(4) ? SIGCHLD : below(2) ? 0 : (long)below(300);
    return signal == SIGSTOP || signal == SIGKILL ? SIGCHLD : signal;
}

static void clone_child(int results)
{
    for (int s = 1; s < 65; s++)
        if (s != SIGKILL && s != SIGSTOP)
            signal(s, SIG_IGN);
    static uint64_t args[11];
    static int32_t set_tid[4];
    for (unsigned i = 0, n = 1 + (unsigned)below(16); i < n; i++) {
        uint64_t flags = any_clone_flags();
        long tls = below(2) ? 0 : any_value();
        long result;
        if (below(2)) {
            flags &= 0xffffffffu & ~0xfful;
            result = clone_and_exit(NR_clone, (long)(flags | (uint64_t)(any_exit_signal() & 0xff)),
                                    below(2) ? 0 : (long)(scratch + SCRATCH_SIZE), futex_address(),
                                    futex_address(), tls);
        } else {
            for (int t = 0; t < 4; t++)
                set_tid[t] = below(2) ? 0 : (int32_t)relative_pid();
            args[0] = flags;
            args[1] = (uint64_t)futex_address();                 /* pidfd */
            args[2] = (uint64_t)futex_address();                 /* child_tid */
            args[3] = (uint64_t)futex_address();                 /* parent_tid */
            args[4] = (uint64_t)any_exit_signal();
            args[5] = below(2) ? 0 : below(2) ? (uint64_t)scratch : (uint64_t)any_value();  /* stack */
            args[6] = args[5] && below(4) ? SCRATCH_SIZE : (uint64_t)(below(2) ? 0 : any_value());
            args[7] = (uint64_t)tls;
            args[8] = below(4) ? 0 : below(2) ? (uint64_t)set_tid : (uint64_t)any_value();  /* set_tid */
            args[9] = below(2) ? 0 : below(6);                   /* set_tid_size */
            args[10] = below(4) ? 0 : (uint64_t)any_value();     /* cgroup */
            static const long sizes[] = { 64, 80, 88, 88, 88, 0, 63, 4096, 4097 };
            long size = below(8) ? sizes[below(sizeof(sizes) / sizeof(sizes[0]))] : any_value();
            result = clone_and_exit(435, below(16) ? (long)args : any_value(), size, 0, 0, 0);
        }
        report(results, result);
        while (raw_syscall(NR_wait4, -1, 0, WNOHANG | __WALL, 0, 0, 0) > 0)
            ;
    }
}

static void clone_burst(void)
{
    run_child(CLASS_CLONE, clone_child);
}

/* ---- sigreturn: crafted signal frames and handlers at bad addresses ----
 * In a child that must die of a signal, or reach fuzz_landing (exit
 * LANDED) where a frame was fine once the kernel had sanitized it. A frame
 * whose CS, or SS where its uc_flags ask for it as saved
 * (UC_STRICT_RESTORE_SS), is a selector no iretq to user mode takes must
 * not get there: fuzz_bad_frame says so, and the exit is LANDED_BADLY. */
#define UC_SIGCONTEXT_SS 0x2
#define UC_STRICT_RESTORE_SS 0x4

uint8_t fuzz_bad_frame;
__asm__(".text\n"
        ".globl fuzz_landing\n"
        "fuzz_landing:\n\t"
        "mov $231, %eax\n\t"    /* exit_group(LANDED + 2 * fuzz_bad_frame): no stack needed */
        "movzbl fuzz_bad_frame(%rip), %edi\n\t"
        "lea 77(%rdi,%rdi), %edi\n\t"
        "syscall\n\t"
        "ud2\n");
extern char fuzz_landing[];
_Static_assert(LANDED == 77 && LANDED_BADLY == LANDED + 2, "fuzz_landing's exit statuses");

struct kernel_sigaction {
    uint64_t handler, flags, restorer, mask;
};
#define SA_RESTORER_FLAG 0x04000000ul

static uint64_t bad_code_address(void)
{
    static const uint64_t bad[] = {
        NON_CANONICAL, NON_CANONICAL + 0x1000, 0x8000000000000000ul, 0xffff7ffffffff000ul, /* non-canonical */
        0xffff800000000000ul, KERNEL_ADDRESS, 0xfffffffffffffff0ul,                        /* kernel */
        USER_END - 1,           /* an instruction that runs into the non-canonical hole */
        USER_END - 4096, 0x10, 2,
    };
    switch (below(4)) {
    case 0: return next_random();
    case 1: return (uint64_t)fuzz_landing + 1 + below(8);  /* inside an instruction */
    case 2: return (uint64_t)scratch;                      /* data: not executable */
    default: return bad[below(sizeof(bad) / sizeof(bad[0]))];
    }
}

static uint64_t bad_stack_address(void)
{
    switch (below(8)) {
    case 0: return 0;
    case 1: return 8;
    case 2: return KERNEL_ADDRESS;
    case 3: return NON_CANONICAL;
    case 4: return (uint64_t)-8;
    case 5: return USER_END - 8;
    case 6: return (uint64_t)(scratch + SCRATCH_SIZE - 64);  /* runs into the guard page */
    default: return next_random();
    }
}

/* One field of a saved context made bad. */
static void spoil(ucontext_t *context)
{
    static const uint16_t selectors[] = {0, 3, 0x8, 0x10, 0x18, 0x1b, 0x23, 0x2b, 0x33, 0x4, 0xffff};
    greg_t *regs = context->uc_mcontext.gregs;
    uint16_t *cs_gs_fs_ss = (uint16_t *)&regs[REG_CSGSFS];
    switch (below(7)) {
    case 0: regs[REG_RIP] = (greg_t)bad_code_address(); break;
    case 1: regs[REG_RSP] = (greg_t)bad_stack_address(); break;
    case 2: cs_gs_fs_ss[0] = selectors[below(sizeof(selectors) / sizeof(selectors[0]))]; break;
    case 3: cs_gs_fs_ss[3] = selectors[below(sizeof(selectors) / sizeof(selectors[0]))]; break;
    case 4:
        regs[REG_EFL] = (greg_t)(below(2) ? next_random() : (uint64_t)regs[REG_EFL] | odd_flags() | RFLAGS_VM);
        break;
    case 5:     /* the FPU state: a bad pointer, misaligned, or random bytes */
        context->uc_mcontext.fpregs = (void *)(below(2) ? bad_stack_address() : (uint64_t)(scratch + below(64)));
        break;
    default: memcpy(&context->uc_sigmask, &(uint64_t){next_random()}, sizeof(uint64_t)); break;
    }
}

/* A selector no iretq to ring 3 takes as CS (other: SS) or as SS (other:
 * CS), whatever the GDT: null, the LDT (there is none), a ring 0 one, past
 * any GDT, or the other kind of segment. */
static int refused_selector(uint16_t selector, uint16_t other)
{
    selector |= 3;      /* the kernel returns to ring 3: the RPL is 3 */
    return selector == 3 || selector == (0x4 | 3) || selector == (0x8 | 3) || selector == 0xffff ||
           selector == (other | 3);
}

static void judge_frame(const ucontext_t *context)
{
    uint16_t cs, ss;
    __asm__("mov %%cs, %0\n\tmov %%ss, %1" : "=r"(cs), "=r"(ss));
    const uint16_t *cs_gs_fs_ss = (const uint16_t *)&context->uc_mcontext.gregs[REG_CSGSFS];
    fuzz_bad_frame = refused_selector(cs_gs_fs_ss[0], ss) ||
                     ((context->uc_flags & UC_STRICT_RESTORE_SS) && refused_selector(cs_gs_fs_ss[3], cs));
}

static void spoil_on_return(int signal, siginfo_t *info, void *context)
{
    (void)signal, (void)info;
    ucontext_t *saved = context;
    saved->uc_mcontext.gregs[REG_RIP] = (greg_t)fuzz_landing;
    for (unsigned i = 0, n = 1 + (unsigned)below(3); i < n; i++)
        spoil(saved);
    judge_frame(saved);
}

static void __attribute__((noreturn)) sigreturn_with_stack(uint64_t stack)
{
    __asm__ volatile("mov %0, %%rsp\n\t"
                     "mov $15, %%eax\n\t"
                     "syscall\n\t"
                     "ud2"
                     :
                     : "r"(stack)
                     : "memory");
    __builtin_unreachable();
}

/* A frame of our own: the random bytes of scratch, or a context that would
 * land but for a spoiled field or two. The kernel reads it 8 bytes below
 * the stack pointer (a restorer's `ret` popped the return address). */
static void __attribute__((noreturn)) made_frame(void)
{
    uint8_t *frame = scratch + 8192;
    if (below(3)) {
        memset(frame, 0, 2048);
        ucontext_t *context = (ucontext_t *)(frame + 8);
        greg_t *regs = context->uc_mcontext.gregs;
        uint16_t cs, ss;
        __asm__("mov %%cs, %0\n\tmov %%ss, %1" : "=r"(cs), "=r"(ss));
        regs[REG_RIP] = (greg_t)fuzz_landing;
        regs[REG_RSP] = (greg_t)(scratch + 16384);
        regs[REG_EFL] = 0x202;
        ((uint16_t *)&regs[REG_CSGSFS])[0] = cs;
        ((uint16_t *)&regs[REG_CSGSFS])[3] = ss;
        context->uc_flags = below(2) ? UC_SIGCONTEXT_SS | UC_STRICT_RESTORE_SS : 0;
        for (unsigned i = 0, n = (unsigned)below(4); i < n; i++)
            spoil(context);
        judge_frame(context);
    }
    sigreturn_with_stack(below(4) ? (uint64_t)(frame + 8) : bad_stack_address());
}

static void raise_signal(int signal)
{
    switch (signal) {
    case SIGSEGV: __asm__ volatile("movl 0x10, %%eax" : : : "eax", "memory"); break;
    case SIGTRAP: __asm__ volatile("int3"); break;
    case SIGILL: __asm__ volatile("ud2"); break;
    default: raw_syscall(NR_kill, raw_syscall(NR_getpid, 0, 0, 0, 0, 0, 0), signal, 0, 0, 0, 0); break;
    }
}

/* An alternate stack (sigaltstack) for SA_ONSTACK handlers: at a bad
 * address, of a random size (huge ones wrap past 2^64), or the last
 * bytes of scratch, with random flags: the frame must fail in user mode
 * (SIGSEGV), never in the kernel. */
static void bad_alternate_stack(void)
{
    static const uint32_t flags[] = { 0, 1, 2, 1u << 31, 4 };
    struct {
        uint64_t pointer;
        uint32_t flags, padding;
        uint64_t size;
    } stack = { below(2) ? bad_stack_address() : (uint64_t)scratch, flags[below(5)], 0,
                below(2) ? next_random() : 2048 + below(8192) };
    raw_syscall(NR_sigaltstack, (long)&stack, below(4) ? 0 : (long)bad_stack_address(), 0, 0, 0, 0);
}

/* A handler, or its restorer, at a bad address: the way back to user mode
 * must fail in user mode, never in the kernel. */
static void bad_handler(void)
{
    static const int signals[] = {SIGUSR1, SIGSEGV, SIGTRAP, SIGILL};
    int signal = signals[below(4)];
    struct sigaction musl = {.sa_handler = noop_handler};
    struct kernel_sigaction action;
    sigaction(signal, &musl, NULL);     /* to read back musl's restorer */
    raw_syscall(NR_rt_sigaction, signal, 0, (long)&action, 8, 0, 0);
    int good_handler = below(4) == 0;   /* then the restorer is bad */
    action.handler = good_handler ? (uint64_t)noop_handler : bad_code_address();
    action.flags = SA_RESTORER_FLAG | (below(2) ? SA_SIGINFO : 0) | (below(4) ? 0 : SA_NODEFER) |
                   (below(4) ? 0 : SA_ONSTACK) | (below(4) ? 0 : SA_RESETHAND);
    if (good_handler || below(3) == 0)
        action.restorer = bad_code_address();
    if (below(8) == 0)
        action.flags &= ~SA_RESTORER_FLAG;
    action.mask = below(2) ? 0 : next_random();
    raw_syscall(NR_rt_sigaction, signal, (long)&action, 0, 8, 0, 0);
    if (below(2))
        bad_alternate_stack();
    raise_signal(signal);
}

/* A syscall instruction in the last bytes below 2^47 (if that page can be
 * mapped): it returns to the first non-canonical address. */
static void syscall_at_the_edge(void)
{
    uint8_t *page = (uint8_t *)(USER_END - 4096);
    long mapped = raw_syscall(NR_mmap, (long)page, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
                              MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (mapped == (long)page) {
        page[4094] = 0x0f;  /* syscall */
        page[4095] = 0x05;
    }
    __asm__ volatile("jmp *%0" : : "r"(page + 4094), "a"((long)NR_getpid) : "memory");
}

static void sigreturn_child(int results)
{
    (void)results;
    switch (below(8)) {
    case 0:
    case 1:
    case 2: {
        struct sigaction action = {.sa_sigaction = spoil_on_return, .sa_flags = SA_SIGINFO};
        if (below(4) == 0)
            action.sa_flags |= SA_NODEFER;
        sigaction(SIGUSR1, &action, NULL);
        raise_signal(SIGUSR1);
        break;
    }
    case 3:
    case 4: made_frame();
    case 7: syscall_at_the_edge(); break;
    default: bad_handler(); break;
    }
    child_exit(CAME_BACK);
}

static void sigreturn_burst(void)
{
    run_child(CLASS_SIGRETURN, sigreturn_child);
}

/* ---- symlink: chains of links, nested and looped ----
 * In s/ of the worker's directory. Nested: l0 names s (or a directory, a
 * file, nothing), and each l(k) names l(k-1) up to 40 times over
 * (l(k-1)/l(k-1)/...), so
 * that resolving l(k) follows the product of the widths (40^7 links at a
 * nesting of 7): bounding the depth of nesting is not enough, the total
 * must be bounded too (Linux: 40 links in all). Also a
 * plain chain l(k) -> l(k-1), loops, and x -> "." named a thousand times
 * in one path. Then calls that resolve through them. */
static void empty_directory(const char *path)
{
    char name[PATH_SIZE];
    DIR *directory = opendir(path);
    for (struct dirent *e; directory && (e = readdir(directory)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(name, sizeof(name), "%s/%s", path, e->d_name);
        if (unlink(name) < 0)
            rmdir(name);
    }
    if (directory)
        closedir(directory);
}

static void make_link(const char *target, const char *name)
{
    count_class(CLASS_SYMLINK, raw_syscall(NR_symlink, (long)target, (long)name, 0, 0, 0, 0));
}

/* Builds one shape in s/ and says which path goes through it. */
static void build_links(char *final, size_t size)
{
    static const char *const bases[] = {".", "..", "../d", "../f", "nonexistent", "/tmp/fuzz", "l0"};
    static char target[PATH_SIZE], s_itself[80];
    char name[16];
    empty_directory("s");
    mkdir("s", 0755);
    switch (below(4)) {
    case 0: {   /* nested: l0 mostly names s itself, so that l0/l0/... goes on */
        unsigned depth = 1 + (unsigned)below(SYMLINK_NESTING + 1);
        snprintf(s_itself, sizeof(s_itself), "%s/s", below(2) ? ".." : home);
        make_link(below(4) == 0 ? bases[below(sizeof(bases) / sizeof(bases[0]))] : below(2) ? "." : s_itself,
                  "s/l0");
        for (unsigned k = 1; k <= depth; k++) {
            size_t used = 0;
            for (unsigned i = 0, width = 1 + (unsigned)below(40); i < width; i++)
                used += (size_t)snprintf(target + used, sizeof(target) - used, "%sl%u", i ? "/" : "", k - 1);
            snprintf(name, sizeof(name), "s/l%u", k);
            make_link(target, name);
        }
        snprintf(final, size, "s/l%u", depth);
        break;
    }
    case 1: {   /* a chain */
        unsigned length = 1 + (unsigned)below(48);
        make_link(bases[below(sizeof(bases) / sizeof(bases[0]))], "s/l0");
        for (unsigned k = 1; k <= length; k++) {
            snprintf(target, sizeof(target), "l%u", k - 1);
            snprintf(name, sizeof(name), "s/l%u", k);
            make_link(target, name);
        }
        snprintf(final, size, "s/l%u", length);
        break;
    }
    case 2:     /* loops */
        make_link("b", "s/a");
        make_link("a", "s/b");
        make_link("x", "s/x");
        make_link("y/y", "s/y");
        snprintf(final, size, "s/%c", "axy"[below(3)]);
        break;
    default: {  /* one link, many times in a path (past PATH_MAX, sometimes) */
        make_link(".", "s/x");
        size_t used = (size_t)snprintf(final, size, "s");
        for (unsigned i = 0, n = 1 + (unsigned)below(2100); i < n && used + 3 < size; i++)
            used += (size_t)snprintf(final + used, size - used, "/x");
        break;
    }
    }
}

/* Names used after the path: only in s/, the worker's directory or
 * /tmp/fuzz, wherever the links lead. */
static void resolve_through(const char *final)
{
    static const char *const suffixes[] = {"", "/", "/.", "/f", "/x", "/../f", "/l0"};
    static char path[PATH_SIZE + 64];
    snprintf(path, sizeof(path), "%s%s", final, suffixes[below(sizeof(suffixes) / sizeof(suffixes[0]))]);
    long p = (long)path, buffer = (long)(scratch + 1024), result, n = -1;
    switch (below(13)) {
    case 0: result = raw_syscall(NR_stat, p, buffer, 0, 0, 0, 0); break;
    case 1: result = raw_syscall(NR_lstat, p, buffer, 0, 0, 0, 0); break;
    case 2: result = raw_syscall(n = NR_open, p, O_RDONLY, 0, 0, 0, 0); break;
    case 3: result = raw_syscall(n = NR_open, p, O_WRONLY | O_CREAT, 0644, 0, 0, 0); break;
    case 4: result = raw_syscall(NR_access, p, F_OK, 0, 0, 0, 0); break;
    case 5: result = raw_syscall(NR_readlink, p, buffer, 256, 0, 0, 0); break;
    case 6: result = raw_syscall(NR_chdir, p, 0, 0, 0, 0, 0); chdir(home); break;
    case 7: result = raw_syscall(NR_mkdir, p, 0755, 0, 0, 0, 0); break;
    case 8: result = raw_syscall(NR_unlink, p, 0, 0, 0, 0, 0); break;
    case 9: result = raw_syscall(NR_rename, p, (long)"s/r", 0, 0, 0, 0); break;
    case 10: result = raw_syscall(NR_newfstatat, dir_fd, p, buffer, below(2) ? 0 : AT_SYMLINK_NOFOLLOW, 0, 0); break;
    case 11: result = raw_syscall(NR_symlink, (long)"f", p, 0, 0, 0, 0); break;
    default: result = raw_syscall(n = NR_openat, AT_FDCWD, p, O_RDONLY | O_DIRECTORY, 0, 0, 0); break;
    }
    count_class(CLASS_SYMLINK, result);
    if (result >= 0 && (n == NR_open || n == NR_openat))
        close((int)result);
}

static void symlink_burst(void)
{
    static char final[PATH_SIZE + 64];
    chdir(home);
    build_links(final, sizeof(final));
    for (unsigned i = 0, n = 4 + (unsigned)below(8); i < n; i++)
        resolve_through(final);
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
    nohz_fd = open("/proc/self/nohz", O_WRONLY);     /* the nohz class's, kept */
    for (int i = 0; i < safe_fd_count; i++)
        if (safe_fds[i] < 0 || safe_fds[i] >= FIRST_TAME_FD)
            _exit(97);
}

/* Every so often: close what random calls opened (they would run out of
 * descriptors), restore the victim area and our directory, shrink our
 * file. */
static void tidy_up(void)
{
    for (int fd = 3; fd < 256; fd++) {
        int ours = fd == stats_fd || fd == board_fd || fd == nohz_fd;
        for (int i = 0; i < safe_fd_count; i++)
            ours |= fd == safe_fds[i];
        if (!ours)
            close(fd);
    }
    mmap(victim, VICTIM_PAGES * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    for (int i = 0; i < mapping_count; i++)
        munmap((void *)mappings[i].address, (size_t)mappings[i].length);
    mapping_count = 0;
    chdir(home);
    int fd = open("f", O_WRONLY | O_TRUNC);
    if (fd >= 0)
        close(fd);
}

/* A class drawn by weight among the selected ones. */
static enum class_id pick_class(void)
{
    uint64_t total = 0;
    for (int c = 0; c < CLASS_COUNT; c++)
        if (selected & (1u << c))
            total += classes[c].weight;
    uint64_t roll = below(total);
    for (int c = 0; c < CLASS_COUNT; c++) {
        if (!(selected & (1u << c)))
            continue;
        if (roll < classes[c].weight)
            return (enum class_id)c;
        roll -= classes[c].weight;
    }
    return CLASS_CALLS;
}

static void worker(unsigned cpu, unsigned generation, uint64_t seed, time_t deadline)
{
    char path[64];
    worker_cpu = worker_slot = cpu;
    self = getpid();
    deadline_ns = (int64_t)deadline * NS_PER_SECOND;
    rng_state = seed ^ (0x9e3779b97f4a7c15ull * (cpu + 1)) ^ ((uint64_t)generation << 32) ^ 1;
    snprintf(path, sizeof(path), "/tmp/fuzz/stats-%u-%u", cpu, generation);
    stats_fd = open(path, O_CREAT | O_RDWR | O_TRUNC, 0644);
    board_fd = open("/tmp/fuzz/board", O_RDWR);
    snprintf(home, sizeof(home), "/tmp/fuzz/w%u", cpu);
    if (stats_fd < 0 || board_fd < 0)
        _exit(96);
    board_write(worker_slot, self);
    pin_to_cpu(0, (int)cpu);
    setpgid(0, 0);     /* so that kill(0, ...) reaches only us */
    set_up_world();
    add_proc_files("/proc");
    add_proc_files("/proc/self");
    add_proc_files("/proc/1");
    save_counts();

    for (unsigned long burst = 1; now_ns() < deadline_ns; burst++) {
        enum class_id class = pick_class();
        if (burst % TIDY_EVERY == 0) {
            tidy_up();
            if (class != CLASS_NOHZ)    /* back to our CPU, which others change */
                pin_to_cpu(0, (int)worker_cpu);
        }
        counts.bursts[class]++;
        classes[class].burst();
        save_counts();
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
        [75] = "EOVERFLOW", [35] = "EDEADLK", [110] = "ETIMEDOUT", [130] = "EOWNERDEAD",
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

static void usage(void)
{
    fprintf(stderr, "usage: fuzz SECONDS [SEED] [--shared] [--only CLASS[,CLASS...]]\nclasses:");
    for (int c = 0; c < CLASS_COUNT; c++)
        fprintf(stderr, " %s", classes[c].name);
    fprintf(stderr, "\n");
}

/* "flags,symlink" to a set of classes; 0 if a name is unknown. */
static unsigned parse_classes(const char *list)
{
    unsigned set = 0;
    while (*list) {
        size_t length = strcspn(list, ",");
        int c = 0;
        while (c < CLASS_COUNT && (strlen(classes[c].name) != length || strncmp(classes[c].name, list, length)))
            c++;
        if (c == CLASS_COUNT)
            return 0;
        set |= 1u << c;
        list += length + (list[length] == ',');
    }
    return set;
}

static void print_classes(const char *prefix, unsigned set)
{
    printf("%s", prefix);
    for (int c = 0, first = 1; c < CLASS_COUNT; c++)
        if (set & (1u << c)) {
            printf("%s%s", first ? "" : ",", classes[c].name);
            first = 0;
        }
}

/* What each thread class counts as its event. */
static const char *const thread_event_names[CLASS_COUNT] = {
    [CLASS_THREAD_UNMAP] = "faults caught",
    [CLASS_THREAD_EXIT] = "words cleared by the exit",
    [CLASS_THREAD_SIGNAL] = "handlers run",
};

/* How a class's sacrificial children ended; returns how many are stuck. */
static uint64_t print_children(enum class_id class, const struct child_counts *c)
{
    printf("fuzz: class %s: children %llu: exited %llu, landed %llu, landed badly %llu, came back %llu, "
           "other exits %llu, fork failed %llu, killed by signals:", classes[class].name,
           (unsigned long long)c->started, (unsigned long long)c->exited, (unsigned long long)c->landed,
           (unsigned long long)c->landed_badly, (unsigned long long)c->came_back,
           (unsigned long long)c->other_exit, (unsigned long long)c->fork_failed);
    uint64_t signalled = 0;
    for (int s = 0; s < 65; s++)
        if (c->signal[s]) {
            printf(" %s %llu", s ? strsignal(s) : "other", (unsigned long long)c->signal[s]);
            signalled += c->signal[s];
        }
    printf("%s; killed at the time limit %llu, stuck %llu (must be 0)\n", signalled ? "" : " none",
           (unsigned long long)c->timed_out, (unsigned long long)c->stuck);
    return c->stuck;
}

int main(int argc, char **argv)
{
    int seconds = 0, positional = 0;
    uint64_t seed = (uint64_t)time(NULL);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--shared") == 0) {
            gentle = 1;
        } else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
            selected = parse_classes(argv[++i]);
            if (!selected) {
                fprintf(stderr, "fuzz: unknown class in '%s'\n", argv[i]);
                usage();
                return 2;
            }
        } else if (positional == 0 && atoi(argv[i]) > 0) {
            seconds = atoi(argv[i]);
            positional++;
        } else if (positional == 1 && argv[i][0] != '-') {
            seed = strtoull(argv[i], NULL, 0);
            positional++;
        } else {
            usage();
            return 2;
        }
    }
    if (seconds <= 0) {
        usage();
        return 2;
    }
    /* Random bytes into a real Linux's /proc, as root, could reboot it
     * (/proc/sysrq-trigger): run only where /proc/rcustress says nohzk. */
    if (access("/proc/sysrq-trigger", F_OK) == 0 || access("/proc/rcustress", F_OK) != 0) {
        fprintf(stderr, "fuzz: this does not look like nohzk: refusing to run\n");
        return 2;
    }
    cpu_count = online_cpus();
    worker_count = cpu_count;
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("fuzz: %u workers, one per CPU, for %d s, seed %llu\n", cpu_count, seconds,
           (unsigned long long)seed);
    print_classes("fuzz: classes ", selected);
    printf("\n");

    mkdir("/tmp", 0755);
    mkdir("/tmp/fuzz", 0755);
    int board = open("/tmp/fuzz/board", O_CREAT | O_RDWR | O_TRUNC, 0644);
    static const int32_t no_pids[2 * MAX_WORKERS];
    if (board < 0 || write(board, no_pids, sizeof(no_pids)) != sizeof(no_pids)) {
        perror("fuzz: /tmp/fuzz/board");
        return 1;
    }
    close(board);
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
            int worker_pid = 0;
            for (unsigned cpu = 0; cpu < cpu_count; cpu++)
                if (pids[cpu] == pid)
                    pids[cpu] = 0, worker_pid = 1;
            if (!worker_pid)
                continue;   /* a sacrificial child whose worker is gone */
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

    static struct counts total;
    for (unsigned cpu = 0; cpu < cpu_count; cpu++)
        for (unsigned g = 0; g < generation[cpu]; g++) {
            char path[64];
            static struct counts c;
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
    uint64_t children_stuck = 0;
    for (int c = 0; c < CLASS_COUNT; c++) {
        if (!(selected & (1u << c)))
            continue;
        char what[64];
        snprintf(what, sizeof(what), "class %s: %llu bursts, calls", classes[c].name,
                 (unsigned long long)total.bursts[c]);
        if (c == CLASS_CALLS || c == CLASS_PROC || c == CLASS_SIGRETURN)   /* no calls, or counted above */
            printf("fuzz: class %s: %llu bursts\n", classes[c].name, (unsigned long long)total.bursts[c]);
        else
            print_results(what, total.class_calls[c], total.class_result[c]);
        if (c == CLASS_FLAGS)
            printf("fuzz: class flags: traps stepped over %llu\n", (unsigned long long)total.traps);
        if (c == CLASS_MEMORY || c == CLASS_SIGRETURN || c >= CLASS_FUTEX)
            children_stuck += print_children((enum class_id)c, &total.children[c]);
        if (thread_event_names[c])
            printf("fuzz: class %s: %s %llu\n", classes[c].name, thread_event_names[c],
                   (unsigned long long)total.thread_events[c]);
    }
    /* A crafted frame or a bad handler must end in a signal, or at the
     * landing pad where the kernel sanitized the frame. */
    const struct child_counts *sr = &total.children[CLASS_SIGRETURN];
    uint64_t sigreturn_odd = sr->exited + sr->landed_badly + sr->came_back + sr->other_exit;
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
    int leak_ok = gentle || (page_delta <= SLACK_PAGES && object_delta <= SLACK_OBJECTS);
    int ok = lost == 0 && finished > 0 && leak_ok && root_kept && total.nohz_moved_while_set == 0 &&
             children_stuck == 0 && sigreturn_odd == 0 && before.free_kb >= 0 && before.heap_objects >= 0;
    printf("fuzz: repeat with: fuzz %d %llu%s", seconds, (unsigned long long)seed, gentle ? " --shared" : "");
    if (selected != (1u << CLASS_COUNT) - 1)
        print_classes(" --only ", selected);
    printf("\nfuzz: %s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
