/* Linux's errno values: nohzk speaks the Linux ABI, so the kernel uses the
 * same numbers everywhere (functions return -ERRNO on failure). */
#ifndef NOHZK_ERRNO_H
#define NOHZK_ERRNO_H

#define EPERM    1
#define ENOENT   2
#define ESRCH    3
#define EINTR    4
#define EIO      5
#define ENXIO    6
#define E2BIG    7
#define EFBIG    27
#define ENOEXEC  8
#define EBADF    9
#define ECHILD  10
#define EAGAIN  11
#define ENOMEM  12
#define EACCES  13
#define EFAULT  14
#define EBUSY   16
#define EEXIST  17
#define ENOTDIR 20
#define EISDIR  21
#define EINVAL  22
#define ENFILE  23
#define EMFILE  24
#define ENOTTY  25
#define ENOSPC  28
#define ESPIPE  29
#define EPIPE   32
#define ERANGE  34
#define EDEADLK 35
#define ENAMETOOLONG 36
#define ENOSYS  38
#define ENOTEMPTY 39
#define ELOOP   40
#define ELIBBAD 80      /* execve: an interpreter that cannot be loaded */
#define EXDEV   18
#define ENODEV  19
#define EMLINK  31
#define EOPNOTSUPP 95
#define ETIMEDOUT 110

/* Kernel-internal, never returned to user space: an ioctl request this
 * layer does not know, for the file's own ioctl to answer. */
#define ENOIOCTLCMD 515

#endif
