/* conform_io: the descriptor calls (read, write, readv, writev, pread64,
 * pwrite64, lseek, open, openat, close, dup, dup2, dup3, fcntl, pipe, pipe2, ioctl,
 * getrandom) at the edges of their arguments, each answer compared with
 * Linux's (see conform.h). Runs on the Linux host (tests/run:
 * host-conform_io.*) and on nohzk (scenarios conform-io, conform-io-glibc). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <termios.h>

#include "ktap.h"
#include "conform.h"

#define DATA_SIZE 100
#define HUGE_FD (1 << 30)

static char directory[64], data_path[96], link_path[96];

/* The file of DATA_SIZE bytes 0, 1, 2 ..., opened with flags. */
static int open_data(int flags)
{
    return open(data_path, flags);
}

/* A new empty file, opened read-write. */
static int open_scratch(void)
{
    char path[128];
    snprintf(path, sizeof(path), "%s/scratch", directory);
    unlink(path);
    return open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
}

static long position(int fd)
{
    return lseek(fd, 0, SEEK_CUR);
}

static long size_of(int fd)
{
    struct stat st;
    return fstat(fd, &st) == 0 ? (long)st.st_size : -1;
}

/* The lowest free descriptor: one leaked by a failed call shows here. */
static int lowest_free(void)
{
    int fd = dup(0);
    if (fd >= 0)
        close(fd);
    return fd;
}

/* ---- read ---- */

static int read_zero_length(void)
{
    char buffer[8];
    int fd = open_data(O_RDONLY);
    EXPECT_VALUE(syscall(SYS_read, fd, buffer, 0), 0);
    EXPECT_VALUE(position(fd), 0);
    close(fd);
    return 1;
}

static int read_zero_length_null_buffer(void)
{
    int fd = open_data(O_RDONLY);
    EXPECT_VALUE(syscall(SYS_read, fd, NULL, 0), 0);
    close(fd);
    return 1;
}

static int read_null_buffer(void)
{
    int fd = open_data(O_RDONLY);
    EXPECT_ERROR(syscall(SYS_read, fd, NULL, 10), EFAULT);
    EXPECT_VALUE(position(fd), 0);
    close(fd);
    return 1;
}

static int read_kernel_address(void)
{
    int fd = open_data(O_RDONLY);
    EXPECT_ERROR(syscall(SYS_read, fd, KERNEL_ADDRESS, 10), EFAULT);
    EXPECT_VALUE(position(fd), 0);
    close(fd);
    return 1;
}

static int read_non_canonical_low(void)
{
    int fd = open_data(O_RDONLY);
    EXPECT_ERROR(syscall(SYS_read, fd, NON_CANONICAL_LOW, 10), EFAULT);
    close(fd);
    return 1;
}

static int read_non_canonical_high(void)
{
    int fd = open_data(O_RDONLY);
    EXPECT_ERROR(syscall(SYS_read, fd, NON_CANONICAL_HIGH, 10), EFAULT);
    close(fd);
    return 1;
}

static int read_unmapped_page(void)
{
    int fd = open_data(O_RDONLY);
    char *hole = unmapped_page();
    EXPECT_ERROR(syscall(SYS_read, fd, hole, 10), EFAULT);
    EXPECT_VALUE(position(fd), 0);
    close(fd);
    return 1;
}

/* Only the bytes before the hole are read; the file position says so. */
static int read_crossing_into_unmapped(void)
{
    int fd = open_data(O_RDONLY);
    char *page = page_before_hole(PROT_READ | PROT_WRITE);
    long result = syscall(SYS_read, fd, page + PAGE - 10, 50);
    long after = position(fd);
    hole_free(page);
    EXPECT_VALUE(result, 10);
    EXPECT_VALUE(after, 10);
    close(fd);
    return 1;
}

static int read_into_read_only_page(void)
{
    int fd = open_data(O_RDONLY);
    char *page = page_before_hole(PROT_READ);
    long result = syscall(SYS_read, fd, page, 10);
    int error = errno;
    hole_free(page);
    EXPECT_SAVED_ERROR(result, error, EFAULT);
    EXPECT_VALUE(position(fd), 0);
    close(fd);
    return 1;
}

static int read_into_prot_none_page(void)
{
    int fd = open_data(O_RDONLY);
    char *page = page_before_hole(PROT_NONE);
    long result = syscall(SYS_read, fd, page, 10);
    int error = errno;
    hole_free(page);
    EXPECT_SAVED_ERROR(result, error, EFAULT);
    close(fd);
    return 1;
}

static int read_unaligned_buffer(void)
{
    char buffer[16];
    int fd = open_data(O_RDONLY);
    EXPECT_VALUE(syscall(SYS_read, fd, buffer + 1, 7), 7);
    EXPECT(buffer[1] == 0 && buffer[7] == 6);
    close(fd);
    return 1;
}

/* A count that runs past the end of the user half: EFAULT before reading. */
static int read_huge_count(void)
{
    char buffer[DATA_SIZE];
    int fd = open_data(O_RDONLY);
    EXPECT_ERROR(syscall(SYS_read, fd, buffer, SIZE_MAX), EFAULT);
    EXPECT_VALUE(position(fd), 0);
    close(fd);
    return 1;
}

/* A count the address space holds but memory does not: what is there. */
static int read_count_beyond_the_file(void)
{
    static char buffer[DATA_SIZE];     /* low: 1 TiB after it is still user space */
    int fd = open_data(O_RDONLY);
    EXPECT_VALUE(syscall(SYS_read, fd, buffer, 1ul << 40), DATA_SIZE);
    close(fd);
    return 1;
}

static int read_at_end_of_file_unmapped_buffer(void)
{
    int fd = open_data(O_RDONLY);
    lseek(fd, 0, SEEK_END);
    char *hole = unmapped_page();
    EXPECT_VALUE(syscall(SYS_read, fd, hole, 10), 0);
    close(fd);
    return 1;
}

static int read_bad_fd_negative(void)
{
    char buffer[8];
    EXPECT_ERROR(syscall(SYS_read, -1, buffer, sizeof(buffer)), EBADF);
    return 1;
}

static int read_bad_fd_huge(void)
{
    char buffer[8];
    EXPECT_ERROR(syscall(SYS_read, HUGE_FD, buffer, sizeof(buffer)), EBADF);
    EXPECT_ERROR(syscall(SYS_read, INT_MAX, buffer, sizeof(buffer)), EBADF);
    return 1;
}

static int read_closed_fd(void)
{
    char buffer[8];
    int fd = open_data(O_RDONLY);
    close(fd);
    EXPECT_ERROR(syscall(SYS_read, fd, buffer, sizeof(buffer)), EBADF);
    return 1;
}

/* The fd is an unsigned int: the upper half of the register is ignored. */
static int read_fd_upper_bits_ignored(void)
{
    char buffer[8];
    int fd = open_data(O_RDONLY);
    EXPECT_VALUE(syscall(SYS_read, (1ul << 32) | (unsigned)fd, buffer, 4), 4);
    close(fd);
    return 1;
}

static int read_write_only_fd(void)
{
    char buffer[8];
    int fd = open_data(O_WRONLY);
    EXPECT_ERROR(syscall(SYS_read, fd, buffer, sizeof(buffer)), EBADF);
    close(fd);
    return 1;
}

static int read_directory(void)
{
    char buffer[64];
    int fd = open(directory, O_RDONLY | O_DIRECTORY);
    EXPECT_ERROR(syscall(SYS_read, fd, buffer, sizeof(buffer)), EISDIR);
    close(fd);
    return 1;
}

/* A directory cannot be read, even for nothing. */
static int read_directory_zero_length(void)
{
    char buffer[8];
    int fd = open(directory, O_RDONLY | O_DIRECTORY);
    EXPECT_ERROR(syscall(SYS_read, fd, buffer, 0), EISDIR);
    close(fd);
    return 1;
}

/* ---- write ---- */

static int write_zero_length(void)
{
    int fd = open_scratch();
    EXPECT_VALUE(syscall(SYS_write, fd, "x", 0), 0);
    EXPECT_VALUE(size_of(fd), 0);
    close(fd);
    return 1;
}

static int write_zero_length_null_buffer(void)
{
    int fd = open_scratch();
    EXPECT_VALUE(syscall(SYS_write, fd, NULL, 0), 0);
    close(fd);
    return 1;
}

static int write_null_buffer(void)
{
    int fd = open_scratch();
    EXPECT_ERROR(syscall(SYS_write, fd, NULL, 10), EFAULT);
    EXPECT_VALUE(size_of(fd), 0);
    close(fd);
    return 1;
}

static int write_kernel_address(void)
{
    int fd = open_scratch();
    EXPECT_ERROR(syscall(SYS_write, fd, KERNEL_ADDRESS, 10), EFAULT);
    EXPECT_VALUE(size_of(fd), 0);
    close(fd);
    return 1;
}

static int write_non_canonical_low(void)
{
    int fd = open_scratch();
    EXPECT_ERROR(syscall(SYS_write, fd, NON_CANONICAL_LOW, 10), EFAULT);
    close(fd);
    return 1;
}

static int write_non_canonical_high(void)
{
    int fd = open_scratch();
    EXPECT_ERROR(syscall(SYS_write, fd, NON_CANONICAL_HIGH, 10), EFAULT);
    close(fd);
    return 1;
}

static int write_unmapped_page(void)
{
    int fd = open_scratch();
    EXPECT_ERROR(syscall(SYS_write, fd, unmapped_page(), 10), EFAULT);
    EXPECT_VALUE(size_of(fd), 0);
    close(fd);
    return 1;
}

/* Only the bytes before the hole are written. */
static int write_crossing_into_unmapped(void)
{
    int fd = open_scratch();
    char *page = page_before_hole(PROT_READ | PROT_WRITE);
    memset(page, 'w', PAGE);
    long result = syscall(SYS_write, fd, page + PAGE - 10, 50);
    hole_free(page);
    EXPECT_VALUE(result, 10);
    EXPECT_VALUE(size_of(fd), 10);
    close(fd);
    return 1;
}

static int write_from_read_only_page(void)
{
    int fd = open_scratch();
    char *page = page_before_hole(PROT_READ);
    long result = syscall(SYS_write, fd, page, 10);
    hole_free(page);
    EXPECT_VALUE(result, 10);
    close(fd);
    return 1;
}

static int write_from_prot_none_page(void)
{
    int fd = open_scratch();
    char *page = page_before_hole(PROT_NONE);
    NOHZK_DIFFERS("nohzk differs: a PROT_NONE page stays readable to the kernel (mprotect keeps it present)");
    long result = syscall(SYS_write, fd, page, 10);
    int error = errno;
    hole_free(page);
    EXPECT_SAVED_ERROR(result, error, EFAULT);
    EXPECT_VALUE(size_of(fd), 0);
    close(fd);
    return 1;
}

static int write_huge_count(void)
{
    int fd = open_scratch();
    EXPECT_ERROR(syscall(SYS_write, fd, "abc", SIZE_MAX), EFAULT);
    EXPECT_VALUE(size_of(fd), 0);
    close(fd);
    return 1;
}

static int write_bad_fd_negative(void)
{
    EXPECT_ERROR(syscall(SYS_write, -1, "x", 1), EBADF);
    return 1;
}

static int write_bad_fd_huge(void)
{
    EXPECT_ERROR(syscall(SYS_write, HUGE_FD, "x", 1), EBADF);
    return 1;
}

static int write_closed_fd(void)
{
    int fd = open_scratch();
    close(fd);
    EXPECT_ERROR(syscall(SYS_write, fd, "x", 1), EBADF);
    return 1;
}

static int write_read_only_fd(void)
{
    int fd = open_data(O_RDONLY);
    EXPECT_ERROR(syscall(SYS_write, fd, "x", 1), EBADF);
    close(fd);
    return 1;
}

static int write_pipe_without_reader(void)
{
    int fds[2];
    EXPECT_VALUE(pipe(fds), 0);
    close(fds[0]);
    signal(SIGPIPE, SIG_IGN);
    EXPECT_ERROR(syscall(SYS_write, fds[1], "x", 1), EPIPE);
    signal(SIGPIPE, SIG_DFL);
    close(fds[1]);
    return 1;
}

/* Nothing to write: no reader is needed (and no SIGPIPE comes). */
static int write_zero_length_pipe_without_reader(void)
{
    int fds[2];
    EXPECT_VALUE(pipe(fds), 0);
    close(fds[0]);
    EXPECT_VALUE(syscall(SYS_write, fds[1], "x", 0), 0);
    close(fds[1]);
    return 1;
}

static int write_pipe_without_reader_raises_sigpipe(void)
{
    int fds[2];
    EXPECT_VALUE(pipe(fds), 0);
    close(fds[0]);
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        syscall(SYS_write, fds[1], "x", 1);
        _exit(0);
    }
    close(fds[1]);
    int status = 0;
    EXPECT_VALUE(waitpid(child, &status, 0), child);
    EXPECT(WIFSIGNALED(status) && WTERMSIG(status) == SIGPIPE);
    return 1;
}

/* ---- readv, writev ---- */

static int readv_zero_count(void)
{
    int fd = open_data(O_RDONLY);
    EXPECT_VALUE(syscall(SYS_readv, fd, NULL, 0), 0);
    close(fd);
    return 1;
}

static int readv_negative_count(void)
{
    struct iovec iov = { NULL, 0 };
    int fd = open_data(O_RDONLY);
    EXPECT_ERROR(syscall(SYS_readv, fd, &iov, -1), EINVAL);
    close(fd);
    return 1;
}

static int readv_count_over_iov_max(void)
{
    static struct iovec iov[1025];
    int fd = open_data(O_RDONLY);
    EXPECT_ERROR(syscall(SYS_readv, fd, iov, 1025), EINVAL);
    EXPECT_VALUE(syscall(SYS_readv, fd, iov, 1024), 0);     /* all empty */
    close(fd);
    return 1;
}

static int readv_null_iov(void)
{
    int fd = open_data(O_RDONLY);
    EXPECT_ERROR(syscall(SYS_readv, fd, NULL, 1), EFAULT);
    close(fd);
    return 1;
}

static int readv_iov_kernel_address(void)
{
    int fd = open_data(O_RDONLY);
    EXPECT_ERROR(syscall(SYS_readv, fd, KERNEL_ADDRESS, 1), EFAULT);
    close(fd);
    return 1;
}

static int readv_bad_base(void)
{
    struct iovec iov = { (void *)KERNEL_ADDRESS, 10 };
    int fd = open_data(O_RDONLY);
    EXPECT_ERROR(syscall(SYS_readv, fd, &iov, 1), EFAULT);
    EXPECT_VALUE(position(fd), 0);
    close(fd);
    return 1;
}

/* The first piece is read; the bad second one ends the call there. */
static int readv_second_base_unmapped(void)
{
    char first[10];
    struct iovec iov[2] = { { first, sizeof(first) }, { unmapped_page(), 10 } };
    int fd = open_data(O_RDONLY);
    EXPECT_VALUE(syscall(SYS_readv, fd, iov, 2), 10);
    EXPECT_VALUE(position(fd), 10);
    close(fd);
    return 1;
}

static int readv_length_negative(void)
{
    char buffer[8];
    struct iovec iov = { buffer, (size_t)SSIZE_MAX + 1 };
    int fd = open_data(O_RDONLY);
    EXPECT_ERROR(syscall(SYS_readv, fd, &iov, 1), EINVAL);
    close(fd);
    return 1;
}

/* A piece that runs past the end of the user half is EFAULT before any
 * I/O, so a total past SSIZE_MAX never gets as far as the manual's EINVAL. */
static int readv_length_past_user_space(void)
{
    static char buffer[DATA_SIZE];
    struct iovec iov[2] = { { buffer, SSIZE_MAX }, { buffer, SSIZE_MAX } };
    int fd = open_data(O_RDONLY);
    EXPECT_ERROR(syscall(SYS_readv, fd, iov, 2), EFAULT);
    EXPECT_VALUE(position(fd), 0);
    close(fd);
    return 1;
}

/* Every piece is checked before any I/O: a kernel address is EFAULT even
 * after a good piece. */
static int readv_second_base_kernel_address(void)
{
    char first[10];
    struct iovec iov[2] = { { first, sizeof(first) }, { (void *)KERNEL_ADDRESS, 10 } };
    int fd = open_data(O_RDONLY);
    EXPECT_ERROR(syscall(SYS_readv, fd, iov, 2), EFAULT);
    EXPECT_VALUE(position(fd), 0);
    close(fd);
    return 1;
}

/* The count reaches the vector code as an unsigned int: the upper half of
 * the register is dropped. */
static int readv_count_upper_bits_ignored(void)
{
    char buffer[8];
    struct iovec iov = { buffer, sizeof(buffer) };
    int fd = open_data(O_RDONLY);
    EXPECT_VALUE(syscall(SYS_readv, fd, &iov, (1ul << 32) | 1), sizeof(buffer));
    close(fd);
    return 1;
}

static int readv_zero_lengths_null_bases(void)
{
    struct iovec iov[2] = { { NULL, 0 }, { NULL, 0 } };
    int fd = open_data(O_RDONLY);
    EXPECT_VALUE(syscall(SYS_readv, fd, iov, 2), 0);
    close(fd);
    return 1;
}

/* The descriptor is looked at before the vector's count. */
static int readv_bad_fd_before_bad_count(void)
{
    EXPECT_ERROR(syscall(SYS_readv, -1, NULL, -1), EBADF);
    return 1;
}

static int writev_zero_count(void)
{
    int fd = open_scratch();
    EXPECT_VALUE(syscall(SYS_writev, fd, NULL, 0), 0);
    close(fd);
    return 1;
}

static int writev_negative_count(void)
{
    struct iovec iov = { "x", 1 };
    int fd = open_scratch();
    EXPECT_ERROR(syscall(SYS_writev, fd, &iov, -1), EINVAL);
    EXPECT_VALUE(size_of(fd), 0);
    close(fd);
    return 1;
}

static int writev_count_over_iov_max(void)
{
    static struct iovec iov[1025];
    int fd = open_scratch();
    EXPECT_ERROR(syscall(SYS_writev, fd, iov, 1025), EINVAL);
    close(fd);
    return 1;
}

static int writev_bad_base(void)
{
    struct iovec iov = { (void *)KERNEL_ADDRESS, 10 };
    int fd = open_scratch();
    EXPECT_ERROR(syscall(SYS_writev, fd, &iov, 1), EFAULT);
    EXPECT_VALUE(size_of(fd), 0);
    close(fd);
    return 1;
}

static int writev_second_base_unmapped(void)
{
    struct iovec iov[2] = { { "0123456789", 10 }, { unmapped_page(), 10 } };
    int fd = open_scratch();
    EXPECT_VALUE(syscall(SYS_writev, fd, iov, 2), 10);
    EXPECT_VALUE(size_of(fd), 10);
    close(fd);
    return 1;
}

static int writev_length_negative(void)
{
    struct iovec iov = { "x", (size_t)SSIZE_MAX + 1 };
    int fd = open_scratch();
    EXPECT_ERROR(syscall(SYS_writev, fd, &iov, 1), EINVAL);
    close(fd);
    return 1;
}

static int writev_bad_fd_before_bad_count(void)
{
    EXPECT_ERROR(syscall(SYS_writev, -1, NULL, -1), EBADF);
    return 1;
}

/* ---- lseek ---- */

/* ---- pread64, pwrite64 ---- */

/* Bytes at the offset; the position that read uses stays where it was. */
static int pread64_reads_at_the_offset_and_keeps_the_position(void)
{
    unsigned char buffer[4];
    int fd = open_data(O_RDONLY);
    EXPECT_VALUE(lseek(fd, 10, SEEK_SET), 10);
    EXPECT_VALUE(syscall(SYS_pread64, fd, buffer, sizeof(buffer), 50), 4);
    EXPECT(buffer[0] == 50 && buffer[3] == 53);
    EXPECT_VALUE(position(fd), 10);
    EXPECT_VALUE(syscall(SYS_read, fd, buffer, 1), 1);
    EXPECT(buffer[0] == 10);
    close(fd);
    return 1;
}

/* At or past the end: 0 bytes, as read there. */
static int pread64_past_end(void)
{
    char buffer[8];
    int fd = open_data(O_RDONLY);
    EXPECT_VALUE(syscall(SYS_pread64, fd, buffer, sizeof(buffer), DATA_SIZE), 0);
    EXPECT_VALUE(syscall(SYS_pread64, fd, buffer, sizeof(buffer), 1L << 40), 0);
    EXPECT_VALUE(syscall(SYS_pread64, fd, buffer, sizeof(buffer), DATA_SIZE - 3), 3);
    close(fd);
    return 1;
}

/* A negative offset is refused before the descriptor is looked at. */
static int pread64_negative_offset(void)
{
    char buffer[8];
    int fd = open_data(O_RDONLY);
    EXPECT_ERROR(syscall(SYS_pread64, fd, buffer, sizeof(buffer), -1L), EINVAL);
    EXPECT_ERROR(syscall(SYS_pread64, -1, buffer, sizeof(buffer), -1L), EINVAL);
    close(fd);
    return 1;
}

/* offset + count past the largest offset (Linux's rw_verify_area). */
static int pread64_range_past_the_largest_offset(void)
{
    char buffer[8];
    int fd = open_data(O_RDONLY);
    EXPECT_ERROR(syscall(SYS_pread64, fd, buffer, 2, LONG_MAX), EINVAL);
    EXPECT_VALUE(syscall(SYS_pread64, fd, buffer, 0, LONG_MAX), 0);
    close(fd);
    return 1;
}

static int pread64_bad_fd(void)
{
    char buffer[8];
    int fd = open_data(O_RDONLY);
    close(fd);
    EXPECT_ERROR(syscall(SYS_pread64, -1, buffer, sizeof(buffer), 0), EBADF);
    EXPECT_ERROR(syscall(SYS_pread64, HUGE_FD, buffer, sizeof(buffer), 0), EBADF);
    EXPECT_ERROR(syscall(SYS_pread64, fd, buffer, sizeof(buffer), 0), EBADF);
    return 1;
}

static int pread64_write_only_fd(void)
{
    char buffer[8];
    int fd = open_data(O_WRONLY);
    EXPECT_ERROR(syscall(SYS_pread64, fd, buffer, sizeof(buffer), 0), EBADF);
    close(fd);
    return 1;
}

/* A pipe has no position: ESPIPE, before its ends' modes are looked at. */
static int pread64_pipe(void)
{
    char buffer[8];
    int fds[2];
    EXPECT_VALUE(pipe(fds), 0);
    EXPECT_ERROR(syscall(SYS_pread64, fds[0], buffer, sizeof(buffer), 0), ESPIPE);
    EXPECT_ERROR(syscall(SYS_pread64, fds[1], buffer, sizeof(buffer), 0), ESPIPE);
    close(fds[0]);
    close(fds[1]);
    return 1;
}

static int pread64_directory(void)
{
    char buffer[64];
    int fd = open(directory, O_RDONLY | O_DIRECTORY);
    EXPECT_ERROR(syscall(SYS_pread64, fd, buffer, sizeof(buffer), 0), EISDIR);
    close(fd);
    return 1;
}

static int pread64_bad_buffer(void)
{
    int fd = open_data(O_RDONLY);
    EXPECT_ERROR(syscall(SYS_pread64, fd, NULL, 8, 0), EFAULT);
    EXPECT_ERROR(syscall(SYS_pread64, fd, (void *)0xffff800000000000ul, 8, 0), EFAULT);
    EXPECT_VALUE(position(fd), 0);
    close(fd);
    return 1;
}

/* Bytes at the offset, the gap a hole of zeros; the position stays. */
static int pwrite64_writes_at_the_offset_and_keeps_the_position(void)
{
    unsigned char buffer[12];
    int fd = open_scratch();
    EXPECT_VALUE(write(fd, "abc", 3), 3);
    EXPECT_VALUE(syscall(SYS_pwrite64, fd, "XY", 2, 10), 2);
    EXPECT_VALUE(position(fd), 3);
    EXPECT_VALUE(size_of(fd), 12);
    EXPECT_VALUE(syscall(SYS_pread64, fd, buffer, sizeof(buffer), 0), 12);
    EXPECT(memcmp(buffer, "abc\0\0\0\0\0\0\0XY", 12) == 0);
    close(fd);
    return 1;
}

/* With O_APPEND the bytes go to the end whatever the offset, as Linux
 * does (pwrite(2), BUGS). */
static int pwrite64_with_o_append_appends(void)
{
    char path[128];
    snprintf(path, sizeof(path), "%s/scratch", directory);
    int fd = open_scratch();
    EXPECT_VALUE(write(fd, "abc", 3), 3);
    close(fd);
    fd = open(path, O_WRONLY | O_APPEND);
    EXPECT_VALUE(syscall(SYS_pwrite64, fd, "XY", 2, 0), 2);
    EXPECT_VALUE(size_of(fd), 5);
    close(fd);
    return 1;
}

static int pwrite64_refuses_bad_arguments(void)
{
    int fds[2];
    int fd = open_data(O_RDONLY);
    EXPECT_ERROR(syscall(SYS_pwrite64, fd, "x", 1, 0), EBADF);
    EXPECT_ERROR(syscall(SYS_pwrite64, fd, "x", 1, -1L), EINVAL);
    close(fd);
    EXPECT_ERROR(syscall(SYS_pwrite64, -1, "x", 1, 0), EBADF);
    EXPECT_VALUE(pipe(fds), 0);
    EXPECT_ERROR(syscall(SYS_pwrite64, fds[1], "x", 1, 0), ESPIPE);
    close(fds[0]);
    close(fds[1]);
    fd = open_scratch();
    EXPECT_ERROR(syscall(SYS_pwrite64, fd, NULL, 1, 0), EFAULT);
    EXPECT_VALUE(size_of(fd), 0);
    close(fd);
    return 1;
}

static int lseek_negative_result(void)
{
    int fd = open_data(O_RDONLY);
    lseek(fd, 5, SEEK_SET);
    EXPECT_ERROR(syscall(SYS_lseek, fd, -1l, SEEK_SET), EINVAL);
    EXPECT_ERROR(syscall(SYS_lseek, fd, -6l, SEEK_CUR), EINVAL);
    EXPECT_ERROR(syscall(SYS_lseek, fd, -DATA_SIZE - 1l, SEEK_END), EINVAL);
    EXPECT_VALUE(position(fd), 5);
    close(fd);
    return 1;
}

static int lseek_unknown_whence(void)
{
    int fd = open_data(O_RDONLY);
    EXPECT_ERROR(syscall(SYS_lseek, fd, 0, 5), EINVAL);
    EXPECT_ERROR(syscall(SYS_lseek, fd, 0, -1), EINVAL);
    close(fd);
    return 1;
}

static int lseek_past_end(void)
{
    int fd = open_data(O_RDONLY);
    EXPECT_VALUE(syscall(SYS_lseek, fd, 1l << 40, SEEK_SET), 1l << 40);
    char buffer[4];
    EXPECT_VALUE(read(fd, buffer, sizeof(buffer)), 0);
    close(fd);
    return 1;
}

static int lseek_overflow(void)
{
    int fd = open_data(O_RDONLY);
    lseek(fd, 10, SEEK_SET);
    EXPECT_ERROR(syscall(SYS_lseek, fd, LONG_MAX, SEEK_CUR), EINVAL);
    EXPECT_ERROR(syscall(SYS_lseek, fd, LONG_MAX, SEEK_END), EINVAL);
    EXPECT_VALUE(position(fd), 10);
    close(fd);
    return 1;
}

/* SEEK_DATA and SEEK_HOLE: a file without holes is all data, then its
 * end; past the end, ENXIO. */
static int lseek_data_and_hole(void)
{
    int fd = open_data(O_RDONLY);
    EXPECT_VALUE(syscall(SYS_lseek, fd, 7, SEEK_DATA), 7);
    EXPECT_VALUE(syscall(SYS_lseek, fd, 7, SEEK_HOLE), DATA_SIZE);
    EXPECT_ERROR(syscall(SYS_lseek, fd, DATA_SIZE, SEEK_DATA), ENXIO);
    EXPECT_ERROR(syscall(SYS_lseek, fd, DATA_SIZE, SEEK_HOLE), ENXIO);
    EXPECT_ERROR(syscall(SYS_lseek, fd, -1l, SEEK_DATA), ENXIO);
    close(fd);
    return 1;
}

static int lseek_pipe(void)
{
    int fds[2];
    EXPECT_VALUE(pipe(fds), 0);
    EXPECT_ERROR(syscall(SYS_lseek, fds[0], 0, SEEK_CUR), ESPIPE);
    close(fds[0]);
    close(fds[1]);
    return 1;
}

static int lseek_bad_fd(void)
{
    EXPECT_ERROR(syscall(SYS_lseek, -1, 0, SEEK_SET), EBADF);
    EXPECT_ERROR(syscall(SYS_lseek, HUGE_FD, 0, SEEK_SET), EBADF);
    return 1;
}

/* ---- open, openat ---- */

static int open_null_path(void)
{
    EXPECT_ERROR(syscall(SYS_open, NULL, O_RDONLY), EFAULT);
    return 1;
}

static int open_kernel_address(void)
{
    EXPECT_ERROR(syscall(SYS_open, KERNEL_ADDRESS, O_RDONLY), EFAULT);
    EXPECT_ERROR(syscall(SYS_open, NON_CANONICAL_LOW, O_RDONLY), EFAULT);
    EXPECT_ERROR(syscall(SYS_open, NON_CANONICAL_HIGH, O_RDONLY), EFAULT);
    return 1;
}

static int open_empty_path(void)
{
    EXPECT_ERROR(syscall(SYS_open, "", O_RDONLY), ENOENT);
    return 1;
}

/* A path whose NUL would be past the end of its page. */
static int open_path_crossing_into_unmapped(void)
{
    char *page = page_before_hole(PROT_READ | PROT_WRITE);
    memcpy(page + PAGE - 4, "/tmp", 4);
    long result = syscall(SYS_open, page + PAGE - 4, O_RDONLY);
    int error = errno;
    hole_free(page);
    EXPECT_SAVED_ERROR(result, error, EFAULT);
    return 1;
}

static int open_path_too_long(void)
{
    static char path[PATH_MAX + 2];
    memset(path, 'a', sizeof(path) - 1);
    path[0] = '/';
    EXPECT_ERROR(syscall(SYS_open, path, O_RDONLY), ENAMETOOLONG);
    return 1;
}

static int open_name_too_long(void)
{
    char path[300];
    int length = snprintf(path, sizeof(path), "%s/", directory);
    memset(path + length, 'n', 256);
    path[length + 256] = '\0';
    NOHZK_DIFFERS("nohzk differs: a name longer than NAME_MAX is looked up (ENOENT), not ENAMETOOLONG");
    EXPECT_ERROR(syscall(SYS_open, path, O_RDONLY), ENAMETOOLONG);
    EXPECT_ERROR(syscall(SYS_open, path, O_RDWR | O_CREAT, 0600), ENAMETOOLONG);
    return 1;
}

/* open() ignores flag bits it does not know (openat2 would refuse them). */
static int open_unknown_flags_ignored(void)
{
    int fd = syscall(SYS_open, data_path, O_RDONLY | 0x40000000);
    EXPECT(fd >= 0);
    close(fd);
    return 1;
}

/* Access mode 3: neither read nor write (Linux's ioctl-only mode). */
static int open_access_mode_3(void)
{
    char buffer[4];
    int fd = syscall(SYS_open, data_path, 3);
    EXPECT(fd >= 0);
    EXPECT_ERROR(read(fd, buffer, 1), EBADF);
    EXPECT_ERROR(write(fd, "x", 1), EBADF);
    close(fd);
    return 1;
}

static int open_directory_for_writing(void)
{
    EXPECT_ERROR(syscall(SYS_open, directory, O_WRONLY), EISDIR);
    EXPECT_ERROR(syscall(SYS_open, directory, O_RDWR), EISDIR);
    return 1;
}

static int open_o_directory_on_file(void)
{
    EXPECT_ERROR(syscall(SYS_open, data_path, O_RDONLY | O_DIRECTORY), ENOTDIR);
    return 1;
}

static int open_o_excl_existing(void)
{
    EXPECT_ERROR(syscall(SYS_open, data_path, O_RDWR | O_CREAT | O_EXCL, 0600), EEXIST);
    return 1;
}

static int open_trailing_slash_on_file(void)
{
    char path[128];
    snprintf(path, sizeof(path), "%s/", data_path);
    EXPECT_ERROR(syscall(SYS_open, path, O_RDONLY), ENOTDIR);
    return 1;
}

static int open_o_creat_trailing_slash(void)
{
    char path[128];
    snprintf(path, sizeof(path), "%s/new/", directory);
    EXPECT_ERROR(syscall(SYS_open, path, O_RDWR | O_CREAT, 0600), EISDIR);
    return 1;
}

static int open_o_nofollow_symlink(void)
{
    EXPECT_ERROR(syscall(SYS_open, link_path, O_RDONLY | O_NOFOLLOW), ELOOP);
    return 1;
}

static int open_file_as_directory(void)
{
    char path[128];
    snprintf(path, sizeof(path), "%s/x", data_path);
    EXPECT_ERROR(syscall(SYS_open, path, O_RDONLY), ENOTDIR);
    EXPECT_ERROR(syscall(SYS_open, path, O_RDWR | O_CREAT, 0600), ENOTDIR);
    return 1;
}

static int open_missing_parent(void)
{
    char path[128];
    snprintf(path, sizeof(path), "%s/none/x", directory);
    EXPECT_ERROR(syscall(SYS_open, path, O_RDWR | O_CREAT, 0600), ENOENT);
    return 1;
}

/* O_TRUNC truncates even when opening for reading only. */
static int open_o_trunc_read_only(void)
{
    int fd = open_scratch();
    EXPECT_VALUE(write(fd, "abc", 3), 3);
    close(fd);
    char path[128];
    snprintf(path, sizeof(path), "%s/scratch", directory);
    fd = syscall(SYS_open, path, O_RDONLY | O_TRUNC);
    EXPECT(fd >= 0);
    EXPECT_VALUE(size_of(fd), 0);
    close(fd);
    return 1;
}

static int openat_bad_dirfd(void)
{
    EXPECT_ERROR(syscall(SYS_openat, -1, "data", O_RDONLY), EBADF);
    EXPECT_ERROR(syscall(SYS_openat, HUGE_FD, "data", O_RDONLY), EBADF);
    return 1;
}

static int openat_dirfd_is_a_file(void)
{
    int fd = open_data(O_RDONLY);
    EXPECT_ERROR(syscall(SYS_openat, fd, "data", O_RDONLY), ENOTDIR);
    close(fd);
    return 1;
}

/* An absolute path does not look at dirfd, even a bad one. */
static int openat_absolute_path_ignores_dirfd(void)
{
    int fd = syscall(SYS_openat, -1, data_path, O_RDONLY);
    EXPECT(fd >= 0);
    close(fd);
    return 1;
}

static int openat_relative_to_dirfd(void)
{
    int dir = open(directory, O_RDONLY | O_DIRECTORY);
    int fd = syscall(SYS_openat, dir, "data", O_RDONLY);
    EXPECT(fd >= 0);
    EXPECT_VALUE(size_of(fd), DATA_SIZE);
    close(fd);
    close(dir);
    return 1;
}

static int openat_empty_path(void)
{
    int dir = open(directory, O_RDONLY | O_DIRECTORY);
    EXPECT_ERROR(syscall(SYS_openat, dir, "", O_RDONLY), ENOENT);
    close(dir);
    return 1;
}

/* ---- close ---- */

static int close_bad_fd(void)
{
    EXPECT_ERROR(syscall(SYS_close, -1), EBADF);
    EXPECT_ERROR(syscall(SYS_close, HUGE_FD), EBADF);
    EXPECT_ERROR(syscall(SYS_close, INT_MAX), EBADF);
    return 1;
}

static int close_twice(void)
{
    int fd = open_data(O_RDONLY);
    EXPECT_VALUE(syscall(SYS_close, fd), 0);
    EXPECT_ERROR(syscall(SYS_close, fd), EBADF);
    return 1;
}

static int close_fd_upper_bits_ignored(void)
{
    int fd = open_data(O_RDONLY);
    EXPECT_VALUE(syscall(SYS_close, (1ul << 32) | (unsigned)fd), 0);
    EXPECT_ERROR(fcntl(fd, F_GETFD), EBADF);
    return 1;
}

/* ---- dup, dup2, dup3 ---- */

static int dup_bad_fd(void)
{
    int before = lowest_free();
    EXPECT_ERROR(syscall(SYS_dup, -1), EBADF);
    EXPECT_ERROR(syscall(SYS_dup, HUGE_FD), EBADF);
    EXPECT_VALUE(lowest_free(), before);
    return 1;
}

static int dup_lowest_free(void)
{
    int fd = open_data(O_RDONLY);
    int first = syscall(SYS_dup, fd);
    close(fd);
    EXPECT_VALUE(syscall(SYS_dup, first), fd);
    close(fd);
    close(first);
    return 1;
}

/* The new descriptor never inherits close-on-exec. */
static int dup_clears_cloexec(void)
{
    int fd = open(data_path, O_RDONLY | O_CLOEXEC);
    int copy = syscall(SYS_dup, fd);
    EXPECT(copy >= 0);
    EXPECT_VALUE(fcntl(copy, F_GETFD), 0);
    close(copy);
    close(fd);
    return 1;
}

static int dup2_same_fd(void)
{
    int fd = open_data(O_RDONLY);
    EXPECT_VALUE(syscall(SYS_dup2, fd, fd), fd);
    close(fd);
    EXPECT_ERROR(syscall(SYS_dup2, fd, fd), EBADF);
    return 1;
}

static int dup2_bad_newfd(void)
{
    int fd = open_data(O_RDONLY);
    EXPECT_ERROR(syscall(SYS_dup2, fd, -1), EBADF);
    EXPECT_ERROR(syscall(SYS_dup2, fd, HUGE_FD), EBADF);
    close(fd);
    return 1;
}

static int dup2_bad_oldfd_keeps_newfd(void)
{
    int fd = open_data(O_RDONLY);
    EXPECT_ERROR(syscall(SYS_dup2, -1, fd), EBADF);
    EXPECT_VALUE(fcntl(fd, F_GETFD), 0);     /* still open */
    close(fd);
    return 1;
}

static int dup2_replaces_an_open_fd(void)
{
    int fd = open_data(O_RDONLY);
    int other = open_scratch();
    EXPECT_VALUE(syscall(SYS_dup2, fd, other), other);
    EXPECT_VALUE(size_of(other), DATA_SIZE);
    close(other);
    close(fd);
    return 1;
}

static int dup3_same_fd(void)
{
    int fd = open_data(O_RDONLY);
    EXPECT_ERROR(syscall(SYS_dup3, fd, fd, 0), EINVAL);
    close(fd);
    return 1;
}

static int dup3_unknown_flags(void)
{
    int fd = open_data(O_RDONLY);
    int target = lowest_free() + 1;
    EXPECT_ERROR(syscall(SYS_dup3, fd, target, O_NONBLOCK), EINVAL);
    EXPECT_ERROR(syscall(SYS_dup3, fd, target, 0x40000000), EINVAL);
    EXPECT_ERROR(fcntl(target, F_GETFD), EBADF);
    close(fd);
    return 1;
}

static int dup3_cloexec(void)
{
    int fd = open_data(O_RDONLY);
    int target = fd + 10;
    EXPECT_VALUE(syscall(SYS_dup3, fd, target, O_CLOEXEC), target);
    EXPECT_VALUE(fcntl(target, F_GETFD), FD_CLOEXEC);
    close(target);
    close(fd);
    return 1;
}

static int dup3_bad_fds(void)
{
    int fd = open_data(O_RDONLY);
    EXPECT_ERROR(syscall(SYS_dup3, -1, fd, 0), EBADF);
    EXPECT_ERROR(syscall(SYS_dup3, fd, -1, 0), EBADF);
    EXPECT_ERROR(syscall(SYS_dup3, fd, HUGE_FD, 0), EBADF);
    close(fd);
    return 1;
}

/* ---- fcntl ---- */

static int fcntl_bad_fd(void)
{
    EXPECT_ERROR(syscall(SYS_fcntl, -1, F_GETFD), EBADF);
    EXPECT_ERROR(syscall(SYS_fcntl, HUGE_FD, F_GETFL), EBADF);
    return 1;
}

static int fcntl_unknown_command(void)
{
    int fd = open_data(O_RDONLY);
    EXPECT_ERROR(syscall(SYS_fcntl, fd, 9999, 0), EINVAL);
    EXPECT_ERROR(syscall(SYS_fcntl, fd, -1, 0), EINVAL);
    close(fd);
    return 1;
}

static int fcntl_dupfd_bad_minimum(void)
{
    int fd = open_data(O_RDONLY);
    struct rlimit limit;
    getrlimit(RLIMIT_NOFILE, &limit);
    EXPECT_ERROR(syscall(SYS_fcntl, fd, F_DUPFD, -1), EINVAL);
    EXPECT_ERROR(syscall(SYS_fcntl, fd, F_DUPFD, limit.rlim_cur), EINVAL);
    EXPECT_ERROR(syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, -1), EINVAL);
    close(fd);
    return 1;
}

static int fcntl_dupfd_minimum(void)
{
    int fd = open_data(O_RDONLY);
    int copy = syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, fd + 20);
    EXPECT_VALUE(copy, fd + 20);
    EXPECT_VALUE(fcntl(copy, F_GETFD), FD_CLOEXEC);
    close(copy);
    close(fd);
    return 1;
}

/* F_SETFD keeps only FD_CLOEXEC. */
static int fcntl_setfd_other_bits(void)
{
    int fd = open_data(O_RDONLY);
    EXPECT_VALUE(syscall(SYS_fcntl, fd, F_SETFD, 0xfe), 0);
    EXPECT_VALUE(fcntl(fd, F_GETFD), 0);
    EXPECT_VALUE(syscall(SYS_fcntl, fd, F_SETFD, 0xff), 0);
    EXPECT_VALUE(fcntl(fd, F_GETFD), FD_CLOEXEC);
    close(fd);
    return 1;
}

/* F_SETFL changes O_APPEND and O_NONBLOCK, never the access mode. */
static int fcntl_setfl_keeps_access_mode(void)
{
    int fd = open_data(O_RDONLY);
    EXPECT_VALUE(syscall(SYS_fcntl, fd, F_SETFL, O_RDWR | O_APPEND | O_NONBLOCK | 0x40000000), 0);
    EXPECT_VALUE(fcntl(fd, F_GETFL) & (O_ACCMODE | O_APPEND | O_NONBLOCK), O_RDONLY | O_APPEND | O_NONBLOCK);
    EXPECT_ERROR(write(fd, "x", 1), EBADF);
    close(fd);
    return 1;
}

static int fcntl_getfl_access_mode(void)
{
    int fd = open_data(O_WRONLY | O_APPEND);
    EXPECT_VALUE(fcntl(fd, F_GETFL) & (O_ACCMODE | O_APPEND), O_WRONLY | O_APPEND);
    close(fd);
    return 1;
}

/* ---- pipe, pipe2 ---- */

static int pipe_bad_array(void)
{
    int before = lowest_free();
    EXPECT_ERROR(syscall(SYS_pipe, NULL), EFAULT);
    EXPECT_ERROR(syscall(SYS_pipe, KERNEL_ADDRESS), EFAULT);
    EXPECT_ERROR(syscall(SYS_pipe, NON_CANONICAL_HIGH), EFAULT);
    EXPECT_VALUE(lowest_free(), before);     /* no descriptor left behind */
    return 1;
}

static int pipe_read_only_array(void)
{
    int before = lowest_free();
    char *page = page_before_hole(PROT_READ);
    long result = syscall(SYS_pipe, page);
    int error = errno;
    hole_free(page);
    EXPECT_SAVED_ERROR(result, error, EFAULT);
    EXPECT_VALUE(lowest_free(), before);
    return 1;
}

/* The array's second int would be in the hole. */
static int pipe_array_crossing_into_unmapped(void)
{
    int before = lowest_free();
    char *page = page_before_hole(PROT_READ | PROT_WRITE);
    long result = syscall(SYS_pipe, page + PAGE - 4);
    int error = errno;
    hole_free(page);
    EXPECT_SAVED_ERROR(result, error, EFAULT);
    EXPECT_VALUE(lowest_free(), before);
    return 1;
}

static int pipe_unaligned_array(void)
{
    char bytes[12];
    int fds[2];
    EXPECT_VALUE(syscall(SYS_pipe, bytes + 1), 0);
    memcpy(fds, bytes + 1, sizeof(fds));
    EXPECT_VALUE(write(fds[1], "p", 1), 1);
    EXPECT_VALUE(read(fds[0], bytes, 1), 1);
    close(fds[0]);
    close(fds[1]);
    return 1;
}

static int pipe_read_without_writer(void)
{
    int fds[2];
    char byte;
    EXPECT_VALUE(pipe(fds), 0);
    close(fds[1]);
    EXPECT_VALUE(read(fds[0], &byte, 1), 0);
    close(fds[0]);
    return 1;
}

/* ---- socketpair(AF_UNIX, SOCK_STREAM) ---- */

/* Two ends, each reading what the other writes; the peer's close is end
 * of file, POLLHUP, and EPIPE for a write. */
static int socketpair_streams_both_ways(void)
{
    int fds[2];
    char text[8] = { 0 };
    struct stat status;
    EXPECT_VALUE(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
    EXPECT_VALUE(fstat(fds[0], &status), 0);
    EXPECT(S_ISSOCK(status.st_mode));
    struct pollfd poll_fd = { fds[0], POLLIN | POLLOUT, 0 };
    EXPECT_VALUE(poll(&poll_fd, 1, 0), 1);
    EXPECT_VALUE(poll_fd.revents, POLLOUT);
    EXPECT_VALUE(write(fds[0], "ab", 2), 2);
    EXPECT_VALUE(write(fds[1], "xyz", 3), 3);
    EXPECT_VALUE(read(fds[1], text, sizeof(text)), 2);
    EXPECT(memcmp(text, "ab", 2) == 0);
    EXPECT_VALUE(poll(&poll_fd, 1, 0), 1);
    EXPECT_VALUE(poll_fd.revents, POLLIN | POLLOUT);
    EXPECT_VALUE(read(fds[0], text, sizeof(text)), 3);
    EXPECT(memcmp(text, "xyz", 3) == 0);
    EXPECT_VALUE(close(fds[1]), 0);
    EXPECT_VALUE(read(fds[0], text, sizeof(text)), 0);
    poll_fd.events = POLLIN;
    EXPECT_VALUE(poll(&poll_fd, 1, 0), 1);
    EXPECT_VALUE(poll_fd.revents, POLLIN | POLLHUP);
    signal(SIGPIPE, SIG_IGN);
    EXPECT_ERROR(write(fds[0], "a", 1), EPIPE);
    signal(SIGPIPE, SIG_DFL);
    close(fds[0]);
    return 1;
}

/* SOCK_NONBLOCK and SOCK_CLOEXEC on both ends; a full buffer is EAGAIN. */
static int socketpair_flags(void)
{
    int fds[2];
    char byte, block[4096] = { 0 };
    EXPECT_VALUE(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds), 0);
    for (int i = 0; i < 2; i++) {
        EXPECT_VALUE(fcntl(fds[i], F_GETFD), FD_CLOEXEC);
        EXPECT(fcntl(fds[i], F_GETFL) & O_NONBLOCK);
    }
    EXPECT_ERROR(read(fds[0], &byte, 1), EAGAIN);
    long written = 0, result;
    while ((result = write(fds[0], block, sizeof(block))) > 0 && written < (64l << 20))
        written += result;
    EXPECT_SAVED_ERROR(result, errno, EAGAIN);
    EXPECT(written > 0);
    close(fds[0]);
    close(fds[1]);
    return 1;
}

/* Linux's order: type flags, family, type range, then the family's own
 * answer; a failure leaves no descriptor behind. */
static int socketpair_bad_arguments(void)
{
    int fds[2], before = lowest_free();
    EXPECT_ERROR(socketpair(AF_UNIX, SOCK_STREAM | O_APPEND, 0, fds), EINVAL);
    EXPECT_ERROR(socketpair(12345, SOCK_STREAM, 0, fds), EAFNOSUPPORT);
    EXPECT_ERROR(socketpair(-1, SOCK_STREAM, 0, fds), EAFNOSUPPORT);
    EXPECT_ERROR(socketpair(AF_UNIX, 11, 0, fds), EINVAL);
    EXPECT_ERROR(socketpair(AF_INET, SOCK_STREAM, 0, fds), EOPNOTSUPP);
    EXPECT_ERROR(socketpair(AF_UNIX, SOCK_STREAM, 5, fds), EPROTONOSUPPORT);
    EXPECT_ERROR(socketpair(AF_UNIX, SOCK_RDM, 0, fds), ESOCKTNOSUPPORT);
    EXPECT_ERROR(socketpair(AF_UNIX, SOCK_STREAM, 0, (int *)KERNEL_ADDRESS), EFAULT);
    EXPECT_ERROR(socketpair(AF_UNIX, SOCK_STREAM, 0, NULL), EFAULT);
    EXPECT_VALUE(lowest_free(), before);
    return 1;
}

static int pipe2_unknown_flags(void)
{
    int fds[2], before = lowest_free();
    EXPECT_ERROR(syscall(SYS_pipe2, fds, O_APPEND), EINVAL);
    EXPECT_ERROR(syscall(SYS_pipe2, fds, 0x40000000), EINVAL);
    EXPECT_VALUE(lowest_free(), before);
    return 1;
}

static int pipe2_cloexec_and_nonblock(void)
{
    int fds[2];
    char byte;
    EXPECT_VALUE(syscall(SYS_pipe2, fds, O_CLOEXEC | O_NONBLOCK), 0);
    EXPECT_VALUE(fcntl(fds[0], F_GETFD), FD_CLOEXEC);
    EXPECT_VALUE(fcntl(fds[1], F_GETFD), FD_CLOEXEC);
    EXPECT_ERROR(read(fds[0], &byte, 1), EAGAIN);
    close(fds[0]);
    close(fds[1]);
    return 1;
}

/* O_DIRECT: packet mode, each write one read. */
static int pipe2_o_direct(void)
{
    int fds[2];
    char buffer[8];
    NOHZK_DIFFERS("nohzk differs: pipes have no packet mode (O_DIRECT is EINVAL)");
    EXPECT_VALUE(syscall(SYS_pipe2, fds, O_DIRECT), 0);
    EXPECT_VALUE(write(fds[1], "ab", 2), 2);
    EXPECT_VALUE(write(fds[1], "cd", 2), 2);
    EXPECT_VALUE(read(fds[0], buffer, sizeof(buffer)), 2);
    close(fds[0]);
    close(fds[1]);
    return 1;
}

/* ---- ioctl ---- */

static int ioctl_unknown_request(void)
{
    int fd = open_data(O_RDONLY);
    EXPECT_ERROR(syscall(SYS_ioctl, fd, 0x7ffe, 0), ENOTTY);
    close(fd);
    return 1;
}

static int ioctl_bad_fd(void)
{
    EXPECT_ERROR(syscall(SYS_ioctl, -1, TCGETS, 0), EBADF);
    EXPECT_ERROR(syscall(SYS_ioctl, HUGE_FD, TCGETS, 0), EBADF);
    return 1;
}

static int ioctl_terminal_request_on_file(void)
{
    struct termios settings;
    struct winsize size;
    int fd = open_data(O_RDONLY);
    EXPECT_ERROR(syscall(SYS_ioctl, fd, TCGETS, &settings), ENOTTY);
    EXPECT_ERROR(syscall(SYS_ioctl, fd, TIOCGWINSZ, &size), ENOTTY);
    close(fd);
    return 1;
}

static int ioctl_terminal_request_on_pipe(void)
{
    int fds[2];
    struct termios settings;
    EXPECT_VALUE(pipe(fds), 0);
    EXPECT_ERROR(syscall(SYS_ioctl, fds[0], TCGETS, &settings), ENOTTY);
    close(fds[0]);
    close(fds[1]);
    return 1;
}

/* FIOCLEX and FIONCLEX work on any descriptor. */
static int ioctl_fioclex(void)
{
    int fd = open_data(O_RDONLY);
    EXPECT_VALUE(syscall(SYS_ioctl, fd, FIOCLEX, 0), 0);
    EXPECT_VALUE(fcntl(fd, F_GETFD), FD_CLOEXEC);
    EXPECT_VALUE(syscall(SYS_ioctl, fd, FIONCLEX, 0), 0);
    EXPECT_VALUE(fcntl(fd, F_GETFD), 0);
    close(fd);
    return 1;
}

static int ioctl_fionbio(void)
{
    int fds[2], on = 1, off = 0;
    char byte;
    EXPECT_VALUE(pipe(fds), 0);
    EXPECT_VALUE(syscall(SYS_ioctl, fds[0], FIONBIO, &on), 0);
    EXPECT_VALUE(fcntl(fds[0], F_GETFL) & O_NONBLOCK, O_NONBLOCK);
    EXPECT_ERROR(read(fds[0], &byte, 1), EAGAIN);
    EXPECT_ERROR(syscall(SYS_ioctl, fds[0], FIONBIO, NULL), EFAULT);
    EXPECT_VALUE(syscall(SYS_ioctl, fds[0], FIONBIO, &off), 0);
    EXPECT_VALUE(fcntl(fds[0], F_GETFL) & O_NONBLOCK, 0);
    close(fds[0]);
    close(fds[1]);
    return 1;
}

/* FIONREAD: the bytes a read would get now. */
static int ioctl_fionread(void)
{
    int fd = open_data(O_RDONLY), count = -1, fds[2];
    lseek(fd, 30, SEEK_SET);
    EXPECT_VALUE(syscall(SYS_ioctl, fd, FIONREAD, &count), 0);
    EXPECT_VALUE(count, DATA_SIZE - 30);
    EXPECT_ERROR(syscall(SYS_ioctl, fd, FIONREAD, KERNEL_ADDRESS), EFAULT);
    close(fd);
    EXPECT_VALUE(pipe(fds), 0);
    EXPECT_VALUE(write(fds[1], "abc", 3), 3);
    EXPECT_VALUE(syscall(SYS_ioctl, fds[0], FIONREAD, &count), 0);
    EXPECT_VALUE(count, 3);
    close(fds[0]);
    close(fds[1]);
    return 1;
}

/* ---- getrandom ---- */

static int getrandom_zero_length(void)
{
    EXPECT_VALUE(syscall(SYS_getrandom, NULL, 0, 0), 0);
    return 1;
}

static int getrandom_non_canonical(void)
{
    EXPECT_ERROR(syscall(SYS_getrandom, NON_CANONICAL_LOW, 16, 0), EFAULT);
    EXPECT_ERROR(syscall(SYS_getrandom, NON_CANONICAL_HIGH, 16, 0), EFAULT);
    return 1;
}

static int getrandom_read_only_page(void)
{
    char *page = page_before_hole(PROT_READ);
    long result = syscall(SYS_getrandom, page, 16, 0);
    int error = errno;
    hole_free(page);
    EXPECT_SAVED_ERROR(result, error, EFAULT);
    return 1;
}

/* Only the bytes before the hole are filled. */
static int getrandom_crossing_into_unmapped(void)
{
    char *page = page_before_hole(PROT_READ | PROT_WRITE);
    long result = syscall(SYS_getrandom, page + PAGE - 10, 100, 0);
    hole_free(page);
    EXPECT_VALUE(result, 10);
    return 1;
}

/* ftruncate grows with zeros and cuts; bytes past a cut read as zeros
 * when the file grows again; truncate() by name too. */
static int ftruncate_grows_and_cuts(void)
{
    int fd = open_scratch();
    CHECK(fd >= 0);
    EXPECT_VALUE(write(fd, "abcdefgh", 8), 8);
    EXPECT_VALUE(ftruncate(fd, 5000), 0);
    struct stat st;
    EXPECT_VALUE(fstat(fd, &st), 0);
    EXPECT_VALUE(st.st_size, 5000);
    char bytes[8] = {0};
    EXPECT_VALUE(pread(fd, bytes, 2, 4096), 2);
    EXPECT(bytes[0] == 0 && bytes[1] == 0);
    EXPECT_VALUE(ftruncate(fd, 3), 0);
    EXPECT_VALUE(ftruncate(fd, 8), 0);
    EXPECT_VALUE(pread(fd, bytes, 8, 0), 8);
    EXPECT(memcmp(bytes, "abc\0\0\0\0\0", 8) == 0);
    char path[128];
    snprintf(path, sizeof(path), "%s/scratch", directory);
    EXPECT_VALUE(truncate(path, 1), 0);
    EXPECT_VALUE(fstat(fd, &st), 0);
    EXPECT_VALUE(st.st_size, 1);
    close(fd);
    return 1;
}

/* Linux's refusals: a negative length, a descriptor not open for
 * writing, one that is no regular file (EINVAL), a bad one (EBADF); a
 * directory by name (EISDIR). */
static int ftruncate_refusals(void)
{
    int fd = open_scratch();
    CHECK(fd >= 0);
    close(fd);
    char path[128];
    snprintf(path, sizeof(path), "%s/scratch", directory);
    int read_only = open(path, O_RDONLY), fds[2];
    CHECK(read_only >= 0 && pipe(fds) == 0);
    EXPECT_ERROR(syscall(SYS_ftruncate, read_only, 0), EINVAL);
    EXPECT_ERROR(syscall(SYS_ftruncate, fds[1], 0), EINVAL);
    EXPECT_ERROR(syscall(SYS_ftruncate, 1 << 20, 0), EBADF);
    EXPECT_ERROR(syscall(SYS_truncate, path, -1L), EINVAL);
    EXPECT_ERROR(syscall(SYS_truncate, directory, 0), EISDIR);
    int writable = open(path, O_WRONLY);
    CHECK(writable >= 0);
    EXPECT_ERROR(syscall(SYS_ftruncate, writable, -1L), EINVAL);
    close(writable), close(read_only), close(fds[0]), close(fds[1]);
    return 1;
}

static int getrandom_insecure_with_random(void)
{
    char bytes[8];
    EXPECT_ERROR(syscall(SYS_getrandom, bytes, sizeof(bytes), 2 | 4), EINVAL);
    return 1;
}

/* ---- the scratch directory ---- */

static int setup(void)
{
    strcpy(directory, "/tmp/conform_io.XXXXXX");
    if (!mkdtemp(directory))
        return 0;
    snprintf(data_path, sizeof(data_path), "%s/data", directory);
    snprintf(link_path, sizeof(link_path), "%s/link", directory);
    int fd = open(data_path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    char bytes[DATA_SIZE];
    for (int i = 0; i < DATA_SIZE; i++)
        bytes[i] = (char)i;
    int ok = fd >= 0 && write(fd, bytes, sizeof(bytes)) == DATA_SIZE && symlink(data_path, link_path) == 0;
    close(fd);
    return ok;
}

static void cleanup(void)
{
    char path[128];
    snprintf(path, sizeof(path), "%s/scratch", directory);
    unlink(path);
    unlink(link_path);
    unlink(data_path);
    rmdir(directory);
}

int main(void)
{
    static const struct ktap_case cases[] = {
        KTAP_CASE(read_zero_length), KTAP_CASE(read_zero_length_null_buffer), KTAP_CASE(read_null_buffer),
        KTAP_CASE(read_kernel_address), KTAP_CASE(read_non_canonical_low), KTAP_CASE(read_non_canonical_high),
        KTAP_CASE(read_unmapped_page), KTAP_CASE(read_crossing_into_unmapped), KTAP_CASE(read_into_read_only_page),
        KTAP_CASE(read_into_prot_none_page), KTAP_CASE(read_unaligned_buffer), KTAP_CASE(read_huge_count),
        KTAP_CASE(read_count_beyond_the_file), KTAP_CASE(read_at_end_of_file_unmapped_buffer),
        KTAP_CASE(read_bad_fd_negative), KTAP_CASE(read_bad_fd_huge), KTAP_CASE(read_closed_fd),
        KTAP_CASE(read_fd_upper_bits_ignored), KTAP_CASE(read_write_only_fd), KTAP_CASE(read_directory), KTAP_CASE(read_directory_zero_length),
        KTAP_CASE(write_zero_length), KTAP_CASE(write_zero_length_null_buffer), KTAP_CASE(write_null_buffer),
        KTAP_CASE(write_kernel_address), KTAP_CASE(write_non_canonical_low), KTAP_CASE(write_non_canonical_high),
        KTAP_CASE(write_unmapped_page), KTAP_CASE(write_crossing_into_unmapped),
        KTAP_CASE(write_from_read_only_page), KTAP_CASE(write_from_prot_none_page), KTAP_CASE(write_huge_count),
        KTAP_CASE(write_bad_fd_negative), KTAP_CASE(write_bad_fd_huge), KTAP_CASE(write_closed_fd),
        KTAP_CASE(write_read_only_fd), KTAP_CASE(write_pipe_without_reader),
        KTAP_CASE(write_zero_length_pipe_without_reader), KTAP_CASE(write_pipe_without_reader_raises_sigpipe),
        KTAP_CASE(readv_zero_count), KTAP_CASE(readv_negative_count), KTAP_CASE(readv_count_over_iov_max),
        KTAP_CASE(readv_null_iov), KTAP_CASE(readv_iov_kernel_address), KTAP_CASE(readv_bad_base),
        KTAP_CASE(readv_second_base_unmapped), KTAP_CASE(readv_length_negative), KTAP_CASE(readv_length_past_user_space), KTAP_CASE(readv_second_base_kernel_address),
        KTAP_CASE(readv_count_upper_bits_ignored),
        KTAP_CASE(readv_zero_lengths_null_bases), KTAP_CASE(readv_bad_fd_before_bad_count),
        KTAP_CASE(writev_zero_count), KTAP_CASE(writev_negative_count), KTAP_CASE(writev_count_over_iov_max),
        KTAP_CASE(writev_bad_base), KTAP_CASE(writev_second_base_unmapped), KTAP_CASE(writev_length_negative),
        KTAP_CASE(writev_bad_fd_before_bad_count),
        KTAP_CASE(lseek_negative_result), KTAP_CASE(lseek_unknown_whence), KTAP_CASE(lseek_past_end),
        KTAP_CASE(lseek_overflow), KTAP_CASE(lseek_data_and_hole), KTAP_CASE(lseek_pipe), KTAP_CASE(lseek_bad_fd),
        KTAP_CASE(pread64_reads_at_the_offset_and_keeps_the_position), KTAP_CASE(pread64_past_end),
        KTAP_CASE(pread64_negative_offset), KTAP_CASE(pread64_range_past_the_largest_offset), KTAP_CASE(pread64_bad_fd),
        KTAP_CASE(pread64_write_only_fd), KTAP_CASE(pread64_pipe), KTAP_CASE(pread64_directory),
        KTAP_CASE(pread64_bad_buffer), KTAP_CASE(pwrite64_writes_at_the_offset_and_keeps_the_position),
        KTAP_CASE(pwrite64_with_o_append_appends), KTAP_CASE(pwrite64_refuses_bad_arguments),
        KTAP_CASE(open_null_path), KTAP_CASE(open_kernel_address), KTAP_CASE(open_empty_path),
        KTAP_CASE(open_path_crossing_into_unmapped), KTAP_CASE(open_path_too_long), KTAP_CASE(open_name_too_long),
        KTAP_CASE(open_unknown_flags_ignored), KTAP_CASE(open_access_mode_3), KTAP_CASE(open_directory_for_writing),
        KTAP_CASE(open_o_directory_on_file), KTAP_CASE(open_o_excl_existing), KTAP_CASE(open_trailing_slash_on_file),
        KTAP_CASE(open_o_creat_trailing_slash), KTAP_CASE(open_o_nofollow_symlink), KTAP_CASE(open_file_as_directory),
        KTAP_CASE(open_missing_parent), KTAP_CASE(open_o_trunc_read_only),
        KTAP_CASE(openat_bad_dirfd), KTAP_CASE(openat_dirfd_is_a_file), KTAP_CASE(openat_absolute_path_ignores_dirfd),
        KTAP_CASE(openat_relative_to_dirfd), KTAP_CASE(openat_empty_path),
        KTAP_CASE(close_bad_fd), KTAP_CASE(close_twice), KTAP_CASE(close_fd_upper_bits_ignored),
        KTAP_CASE(dup_bad_fd), KTAP_CASE(dup_lowest_free), KTAP_CASE(dup_clears_cloexec), KTAP_CASE(dup2_same_fd),
        KTAP_CASE(dup2_bad_newfd), KTAP_CASE(dup2_bad_oldfd_keeps_newfd), KTAP_CASE(dup2_replaces_an_open_fd),
        KTAP_CASE(dup3_same_fd), KTAP_CASE(dup3_unknown_flags), KTAP_CASE(dup3_cloexec), KTAP_CASE(dup3_bad_fds),
        KTAP_CASE(fcntl_bad_fd), KTAP_CASE(fcntl_unknown_command), KTAP_CASE(fcntl_dupfd_bad_minimum),
        KTAP_CASE(fcntl_dupfd_minimum), KTAP_CASE(fcntl_setfd_other_bits), KTAP_CASE(fcntl_setfl_keeps_access_mode),
        KTAP_CASE(fcntl_getfl_access_mode),
        KTAP_CASE(pipe_bad_array), KTAP_CASE(pipe_read_only_array), KTAP_CASE(pipe_array_crossing_into_unmapped),
        KTAP_CASE(pipe_unaligned_array), KTAP_CASE(pipe_read_without_writer), KTAP_CASE(pipe2_unknown_flags),
        KTAP_CASE(socketpair_streams_both_ways), KTAP_CASE(socketpair_flags), KTAP_CASE(socketpair_bad_arguments),
        KTAP_CASE(pipe2_cloexec_and_nonblock), KTAP_CASE(pipe2_o_direct),
        KTAP_CASE(ioctl_unknown_request), KTAP_CASE(ioctl_bad_fd), KTAP_CASE(ioctl_terminal_request_on_file),
        KTAP_CASE(ioctl_terminal_request_on_pipe), KTAP_CASE(ioctl_fioclex), KTAP_CASE(ioctl_fionbio), KTAP_CASE(ioctl_fionread),
        KTAP_CASE(getrandom_zero_length), KTAP_CASE(getrandom_non_canonical), KTAP_CASE(getrandom_read_only_page),
        KTAP_CASE(getrandom_crossing_into_unmapped), KTAP_CASE(getrandom_insecure_with_random),
        KTAP_CASE(ftruncate_grows_and_cuts), KTAP_CASE(ftruncate_refusals),
    };
    if (!setup()) {
        printf("# conform_io: cannot make the scratch directory (errno %d)\n", errno);
        return 1;
    }
    int status = conform_main(cases, KTAP_COUNT(cases));
    cleanup();
    return status;
}
