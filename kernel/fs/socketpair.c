/* socketpair(AF_UNIX, SOCK_STREAM): two connected ends, each a byte
 * stream both ways, made of two pipes (kernel/fs/pipe.c:
 * stream_pair_create). hackbench's default mode talks through them.
 *
 * The arguments are checked in Linux's order: unknown type flags EINVAL,
 * a family out of range EAFNOSUPPORT, a type out of range EINVAL; then the
 * family's: AF_INET and AF_INET6 make sockets but cannot pair them
 * (EOPNOTSUPP); AF_UNIX takes protocol 0 only (EPROTONOSUPPORT).
 * Left out: every other family (EAFNOSUPPORT, as a Linux without it),
 * SOCK_DGRAM and SOCK_SEQPACKET (ESOCKTNOSUPPORT, where Linux has them),
 * socket(2), shutdown(2), send/recv and the socket options. */
#include "kernel/entry/syscall.h"
#include "kernel/fs/fs_syscalls.h"

#include "kernel/lib/errno.h"
#include "kernel/fs/vfs.h"

#define AF_UNIX 1
#define AF_INET 2
#define AF_INET6 10
#define AF_MAX 46               /* Linux 6.1's NPROTO */
#define SOCK_STREAM 1
#define SOCK_MAX 11
#define SOCK_TYPE_MASK 0xf
#define SOCK_NONBLOCK O_NONBLOCK
#define SOCK_CLOEXEC O_CLOEXEC
#define EAFNOSUPPORT 97
#define EPROTONOSUPPORT 93
#define ESOCKTNOSUPPORT 94

static int check_arguments(int family, int type, int protocol)
{
    int flags = type & ~SOCK_TYPE_MASK;
    type &= SOCK_TYPE_MASK;
    if (flags & ~(SOCK_CLOEXEC | SOCK_NONBLOCK))
        return -EINVAL;
    if (family < 0 || family >= AF_MAX)
        return -EAFNOSUPPORT;
    if (type >= SOCK_MAX)
        return -EINVAL;
    if (family == AF_INET || family == AF_INET6)
        return -EOPNOTSUPP;
    if (family != AF_UNIX)
        return -EAFNOSUPPORT;
    if (protocol != 0 && protocol != AF_UNIX)
        return -EPROTONOSUPPORT;
    return type == SOCK_STREAM ? 0 : -ESOCKTNOSUPPORT;
}

SYSCALL_DEFINE4(socketpair, int, family, int, type, int, protocol, int *, user_fds)
{
    int error = check_arguments(family, type, protocol);
    if (error)
        return error;
    struct fd_table *table = current_files();
    if (!table)
        return -EBADF;
    struct file *ends[2];
    error = stream_pair_create(&ends[0], &ends[1], type & SOCK_NONBLOCK);
    if (error)
        return error;
    return install_pair(table, ends, type & SOCK_CLOEXEC, user_fds);
}
