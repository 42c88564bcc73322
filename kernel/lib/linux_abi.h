/* Structures and constants of the Linux x86-64 ABI that nohzk speaks.
 * Layouts are Linux's, byte for byte: unmodified static binaries read them. */
#ifndef KERNEL_LINUX_ABI_H
#define KERNEL_LINUX_ABI_H

#include <stdint.h>

/* struct timeval (getrusage, gettimeofday, setitimer) and a conversion
 * from nanoseconds (truncated to microseconds). */
struct linux_timeval {
    int64_t seconds, microseconds;
};

static inline struct linux_timeval timeval_of(uint64_t ns)
{
    return (struct linux_timeval){ (int64_t)(ns / 1000000000ul), (int64_t)(ns % 1000000000ul / 1000) };
}

/* clock_t: times(), /proc/stat and /proc/PID/stat count in USER_HZ ticks
 * (sysconf(_SC_CLK_TCK)), fixed by the ABI whatever the tick rate. */
#define USER_HZ 100

static inline uint64_t user_hz_ticks(uint64_t ns)
{
    return ns / (1000000000ul / USER_HZ);
}

/* struct timespec (clock_gettime, nanosleep, ppoll). */
struct linux_timespec {
    int64_t seconds, nanoseconds;
};

static inline struct linux_timespec timespec_of(uint64_t ns)
{
    return (struct linux_timespec){ (int64_t)(ns / 1000000000ul), (int64_t)(ns % 1000000000ul) };
}

/* A century: longer times are cut to it, so that nanoseconds fit in 64
 * bits and clock_now() + the time cannot wrap; for a sleep or a timeout,
 * as good as for ever. */
#define LINUX_TIME_MAX_SECONDS (100ll * 365 * 24 * 3600)

/* A duration from user space in nanoseconds, or -1 if it is not one
 * (negative, or nanoseconds outside 0..999,999,999: EINVAL). */
static inline int64_t ns_of_timespec(const struct linux_timespec *time)
{
    if (time->seconds < 0 || time->nanoseconds < 0 || time->nanoseconds >= 1000000000)
        return -1;
    int64_t seconds = time->seconds > LINUX_TIME_MAX_SECONDS ? LINUX_TIME_MAX_SECONDS : time->seconds;
    return seconds * 1000000000ll + time->nanoseconds;
}

/* struct stat, as the x86-64 fstat/newfstatat/stat return it */
struct linux_stat {
    uint64_t st_dev;
    uint64_t st_ino;
    uint64_t st_nlink;
    uint32_t st_mode;
    uint32_t st_uid;
    uint32_t st_gid;
    uint32_t pad0;
    uint64_t st_rdev;
    int64_t st_size;
    int64_t st_blksize;
    int64_t st_blocks;
    uint64_t st_atime_sec, st_atime_nsec;
    uint64_t st_mtime_sec, st_mtime_nsec;
    uint64_t st_ctime_sec, st_ctime_nsec;
    int64_t reserved[3];
};

/* struct statfs, as x86-64's statfs and fstatfs return it */
struct linux_statfs {
    int64_t f_type, f_bsize;
    uint64_t f_blocks, f_bfree, f_bavail, f_files, f_ffree;
    int32_t f_fsid[2];
    int64_t f_namelen, f_frsize, f_flags, f_spare[4];
};

#define S_IFMT   0170000
#define S_IFSOCK 0140000
#define S_IFLNK  0120000
#define S_IFREG  0100000
#define S_IFBLK  0060000
#define S_IFDIR  0040000
#define S_IFCHR  0020000
#define S_IFIFO  0010000

/* open flags */
#define O_ACCMODE   00000003
#define O_RDONLY    00000000
#define O_WRONLY    00000001
#define O_RDWR      00000002
#define O_CREAT     00000100
#define O_EXCL      00000200
#define O_NOCTTY    00000400
#define O_TRUNC     00001000
#define O_APPEND    00002000
#define O_NONBLOCK  00004000
#define O_DIRECTORY 00200000
#define O_NOFOLLOW  00400000
#define O_CLOEXEC   02000000
#define AT_FDCWD    (-100)
#define AT_SYMLINK_NOFOLLOW 0x100
#define AT_SYMLINK_FOLLOW 0x400
#define AT_EMPTY_PATH 0x1000

/* getdents64 record */
struct linux_dirent64 {
    uint64_t d_ino;
    int64_t d_off;
    uint16_t d_reclen;
    uint8_t d_type;
    char d_name[];
};
#define DT_UNKNOWN 0
#define DT_FIFO 1
#define DT_CHR 2
#define DT_DIR 4
#define DT_REG 8
#define DT_LNK 10

/* fcntl */
#define F_DUPFD 0
#define F_GETFD 1
#define F_SETFD 2
#define F_GETFL 3
#define F_SETFL 4
#define F_DUPFD_CLOEXEC 1030
#define FD_CLOEXEC 1

/* lseek */
#define SEEK_SET 0
#define SEEK_CUR 1
#define SEEK_END 2

/* termios (struct termios as the TCGETS ioctl returns it: the kernel's) */
struct linux_termios {
    uint32_t c_iflag, c_oflag, c_cflag, c_lflag;
    uint8_t c_line;
    uint8_t c_cc[19];
};
struct linux_winsize {
    uint16_t ws_row, ws_col, ws_xpixel, ws_ypixel;
};
#define TCGETS     0x5401
#define TCSETS     0x5402
#define TCSETSW    0x5403
#define TCSETSF    0x5404
#define TIOCGPGRP  0x540F
#define TIOCSPGRP  0x5410
#define TIOCGWINSZ 0x5413
#define TIOCSWINSZ 0x5414

#endif
