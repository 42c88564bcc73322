/* Pipes: a 4 KiB ring buffer between two open files, the read end and the
 * write end. Each end is one struct file (dup and fork share it, so its
 * release runs once, at its last close); the pipe counts the ends still
 * open and is freed when both are gone.
 *
 * Locking: pipe->lock guards the ring and the counts. It is a spinlock,
 * so it is never held while sleeping: a reader or writer that must wait
 * drops it and sleeps on its wait queue (sched/wait.h), and rechecks after
 * waking, since another reader or writer may have got there first. Copies
 * under the lock are at most PIPE_SIZE bytes.
 *
 * A read returns what is there (at least one byte), 0 at end of file (no
 * writer left); a blocking write returns only once everything is written.
 * A write with no reader left sends SIGPIPE and fails with -EPIPE. A
 * signal ends a wait (kernel/process/signal.h): the call is restarted or fails
 * with -EINTR, or a write returns what it had written.
 *
 * socketpair(AF_UNIX, SOCK_STREAM) is two pipes, one per direction
 * (kernel/fs/socketpair.c): the functions that take a struct pipe serve
 * both.
 *
 * Left out: PIPE_BUF atomicity for concurrent writers (a write may be
 * split when the ring fills), F_SETPIPE_SZ. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/entry/syscall.h"
#include "kernel/fs/fs_syscalls.h"
#include "kernel/lib/errno.h"
#include "kernel/mm/heap.h"
#include "kernel/process/process.h"
#include "kernel/process/signal.h"
#include "kernel/base/spinlock.h"
#include "kernel/lib/string.h"
#include "kernel/fs/poll.h"
#include "kernel/mm/uaccess.h"
#include "kernel/fs/vfs.h"
#include "sched/task.h"
#include "sched/wait.h"

#define PIPE_SIZE 4096

struct pipe {
    struct spinlock lock;
    size_t head;  /* next byte to read */
    size_t count; /* bytes in the ring */
    unsigned readers, writers; /* ends open: 0 or 1 each */
    struct wait_queue readable, writable;
    char ring[PIPE_SIZE];
};

/* For wait_event, outside the lock: a stale value only means one more
 * pass through the loop, since the waker changes state before waking. */
static bool can_read(struct pipe *pipe)
{
    return __atomic_load_n(&pipe->count, __ATOMIC_ACQUIRE) > 0 ||
           __atomic_load_n(&pipe->writers, __ATOMIC_ACQUIRE) == 0;
}

static bool can_write(struct pipe *pipe)
{
    return __atomic_load_n(&pipe->count, __ATOMIC_ACQUIRE) < PIPE_SIZE ||
           __atomic_load_n(&pipe->readers, __ATOMIC_ACQUIRE) == 0;
}

/* A read from pipe through file (a pipe's read end, or a socket). */
static long read_from(struct pipe *pipe, struct file *file, void *buffer, size_t count)
{
    if (count == 0)
        return 0;
    for (;;) {
        spin_lock(&pipe->lock);
        if (pipe->count > 0) {
            size_t done = 0;
            while (done < count && pipe->count > 0) {
                size_t piece = PIPE_SIZE - pipe->head; /* up to the end of the ring */
                if (piece > pipe->count)
                    piece = pipe->count;
                if (piece > count - done)
                    piece = count - done;
                memcpy((char *)buffer + done, pipe->ring + pipe->head, piece);
                pipe->head = (pipe->head + piece) % PIPE_SIZE;
                __atomic_store_n(&pipe->count, pipe->count - piece, __ATOMIC_RELEASE);
                done += piece;
            }
            spin_unlock(&pipe->lock);
            wake_up_all(&pipe->writable);
            poll_notify();
            return (long)done;
        }
        bool writer = pipe->writers > 0;
        spin_unlock(&pipe->lock);
        if (!writer)
            return 0;
        if (file->flags & O_NONBLOCK)
            return -EAGAIN;
        long interrupted = wait_event_interruptible(&pipe->readable, can_read(pipe));
        if (interrupted)
            return interrupted;
    }
}

static long pipe_read(struct file *file, void *buffer, size_t count)
{
    return read_from(file->private, file, buffer, count);
}

/* A write to pipe through file (a pipe's write end, or a socket). */
static long write_to(struct pipe *pipe, struct file *file, const void *buffer, size_t count)
{
    size_t done = 0;
    while (done < count) {
        spin_lock(&pipe->lock);
        if (pipe->readers == 0) {
            spin_unlock(&pipe->lock);
            if (done > 0)
                return (long)done;
            struct process *writer = current_process();     /* none for a kernel thread */
            if (writer)
                signal_send(writer, SIGPIPE, &(struct signal_origin){ .pid = writer->pid });
            return -EPIPE;
        }
        size_t copied = 0;
        while (done < count && pipe->count < PIPE_SIZE) {
            size_t tail = (pipe->head + pipe->count) % PIPE_SIZE;
            size_t piece = tail >= pipe->head ? PIPE_SIZE - tail : pipe->head - tail;
            if (piece > count - done)
                piece = count - done;
            memcpy(pipe->ring + tail, (const char *)buffer + done, piece);
            __atomic_store_n(&pipe->count, pipe->count + piece, __ATOMIC_RELEASE);
            done += piece;
            copied += piece;
        }
        spin_unlock(&pipe->lock);
        if (copied > 0) {
            wake_up_all(&pipe->readable);
            poll_notify();
        }
        if (done == count)
            break;
        if (file->flags & O_NONBLOCK)
            return done > 0 ? (long)done : -EAGAIN;
        long interrupted = wait_event_interruptible(&pipe->writable, can_write(pipe));
        if (interrupted)
            return done > 0 ? (long)done : interrupted;
    }
    return (long)done;
}

static long pipe_write(struct file *file, const void *buffer, size_t count)
{
    return write_to(file->private, file, buffer, count);
}

/* The last close of one end: the other side sees EOF or -EPIPE. */
static void close_end(struct pipe *pipe, bool read_end)
{
    spin_lock(&pipe->lock);
    if (read_end)
        __atomic_store_n(&pipe->readers, pipe->readers - 1, __ATOMIC_RELEASE);
    else
        __atomic_store_n(&pipe->writers, pipe->writers - 1, __ATOMIC_RELEASE);
    bool last = pipe->readers == 0 && pipe->writers == 0;
    /* Woken under the lock: once it is dropped, the other end's release
     * may free the pipe. */
    if (!last) {
        wake_up_all(read_end ? &pipe->writable : &pipe->readable);
        poll_notify();
    }
    spin_unlock(&pipe->lock);
    if (last)
        kfree(pipe); /* nobody can be asleep on it: no end is open */
}

static void pipe_release(struct file *file)
{
    close_end(file->private, (file->flags & O_ACCMODE) == O_RDONLY);
}

/* The read end: data, or EOF (no writer: POLLHUP). The write end: room,
 * or no reader (POLLERR: a write would get EPIPE). */
static unsigned pipe_poll(struct file *file)
{
    struct pipe *pipe = file->private;
    unsigned mask = 0;
    spin_lock(&pipe->lock);
    if ((file->flags & O_ACCMODE) == O_RDONLY) {
        mask |= pipe->count > 0 ? POLLIN : 0;
        mask |= pipe->writers == 0 ? POLLHUP : 0;
    } else {
        mask |= pipe->count < PIPE_SIZE ? POLLOUT : 0;
        mask |= pipe->readers == 0 ? POLLERR : 0;
    }
    spin_unlock(&pipe->lock);
    return mask;
}

#define FIONREAD 0x541b

/* FIONREAD: the bytes a read would get now (at either end, as on Linux). */
static long pipe_ioctl(struct file *file, unsigned long request, unsigned long argument)
{
    struct pipe *pipe = file->private;
    if (request != FIONREAD)
        return -ENOTTY;
    int count = (int)__atomic_load_n(&pipe->count, __ATOMIC_ACQUIRE);
    return copy_to_user((void *)argument, &count, sizeof(count)) < 0 ? -EFAULT : 0;
}

static const struct file_ops pipe_ops = {
    .read = pipe_read,
    .ioctl = pipe_ioctl,
    .write = pipe_write,
    .release = pipe_release,
    .poll = pipe_poll,
};

static struct pipe *pipe_new(void)
{
    struct pipe *pipe = kzalloc(sizeof(*pipe));
    if (!pipe)
        return NULL;
    spin_lock_init(&pipe->lock, "pipe");
    wait_queue_init(&pipe->readable);
    wait_queue_init(&pipe->writable);
    return pipe;
}

int pipe_create(struct file **read_end, struct file **write_end, int flags)
{
    struct pipe *pipe = pipe_new();
    if (!pipe)
        return -ENOMEM;
    unsigned nonblock = (unsigned)flags & O_NONBLOCK;
    long error;
    /* Each end has an inode of its own (Linux shares one): fstat tells
     * them apart by st_ino, which nothing relies on. */
    *read_end = vfs_open_anonymous(S_IFIFO | 0600, &pipe_ops, pipe, O_RDONLY | nonblock, &error);
    if (!*read_end) {
        kfree(pipe);
        return (int)error;
    }
    pipe->readers = 1;
    *write_end = vfs_open_anonymous(S_IFIFO | 0600, &pipe_ops, pipe, O_WRONLY | nonblock, &error);
    if (!*write_end) {
        vfs_close(*read_end); /* the last end: frees the pipe */
        return (int)error;
    }
    pipe->writers = 1;
    return 0;
}

SYSCALL_DEFINE2(pipe2, int *, user_fds, int, flags)
{
    if (flags & ~(O_CLOEXEC | O_NONBLOCK))
        return -EINVAL; /* O_DIRECT (packet mode) is left out */
    struct fd_table *table = current_files();
    if (!table)
        return -EBADF;
    struct file *read_end, *write_end;
    int error = pipe_create(&read_end, &write_end, flags & O_NONBLOCK);
    if (error)
        return error;
    struct file *ends[2] = { read_end, write_end };
    return install_pair(table, ends, flags & O_CLOEXEC, user_fds);
}

SYSCALL_DEFINE1(pipe, int *, user_fds)
{
    return sys_pipe2(user_fds, 0);
}

/* --- the two directions of a socket pair -------------------------------- */

struct stream_end {
    struct pipe *in, *out;
};

static long stream_read(struct file *file, void *buffer, size_t count)
{
    return read_from(((struct stream_end *)file->private)->in, file, buffer, count);
}

static long stream_write(struct file *file, const void *buffer, size_t count)
{
    return write_to(((struct stream_end *)file->private)->out, file, buffer, count);
}

/* Readable: data, or the peer gone (POLLIN, and POLLHUP: Linux's
 * unix_poll, as the peer's close shuts both directions); writable: room,
 * or the peer gone (the write then fails). */
static unsigned stream_poll(struct file *file)
{
    struct stream_end *end = file->private;
    unsigned mask = 0;
    spin_lock(&end->in->lock);
    bool peer_gone = end->in->writers == 0;
    mask |= end->in->count > 0 || peer_gone ? POLLIN : 0;
    mask |= peer_gone ? POLLHUP : 0;
    spin_unlock(&end->in->lock);
    spin_lock(&end->out->lock);
    mask |= end->out->count < PIPE_SIZE || end->out->readers == 0 ? POLLOUT : 0;     /* then a write says EPIPE */
    spin_unlock(&end->out->lock);
    return mask;
}

static long stream_ioctl(struct file *file, unsigned long request, unsigned long argument)
{
    struct stream_end *end = file->private;
    if (request != FIONREAD)
        return -ENOTTY;
    int count = (int)__atomic_load_n(&end->in->count, __ATOMIC_ACQUIRE);
    return copy_to_user((void *)argument, &count, sizeof(count)) < 0 ? -EFAULT : 0;
}

static void stream_release(struct file *file)
{
    struct stream_end *end = file->private;
    close_end(end->in, true);
    close_end(end->out, false);
    kfree(end);
}

static const struct file_ops stream_ops = {
    .read = stream_read,
    .write = stream_write,
    .ioctl = stream_ioctl,
    .release = stream_release,
    .poll = stream_poll,
};

/* One end on pipes in (it reads) and out (it writes); it holds one end of
 * each from now on, released with the file. */
static struct file *stream_open(struct pipe *in, struct pipe *out, unsigned nonblock, long *error)
{
    struct stream_end *end = kzalloc(sizeof(*end));
    if (!end) {
        *error = -ENOMEM;
        return NULL;
    }
    *end = (struct stream_end){ .in = in, .out = out };
    struct file *file = vfs_open_anonymous(S_IFSOCK | 0777, &stream_ops, end, O_RDWR | nonblock, error);
    if (!file)
        kfree(end);
    return file;
}

int stream_pair_create(struct file **first, struct file **second, int flags)
{
    unsigned nonblock = (unsigned)flags & O_NONBLOCK;
    struct pipe *forth = pipe_new(), *back = pipe_new();
    long error = -ENOMEM;
    if (!forth || !back) {
        kfree(forth);
        kfree(back);
        return -ENOMEM;
    }
    forth->readers = forth->writers = back->readers = back->writers = 1;
    *first = stream_open(back, forth, nonblock, &error);
    if (!*first) {
        kfree(forth);
        kfree(back);
        return (int)error;
    }
    *second = stream_open(forth, back, nonblock, &error);
    if (!*second) {
        /* first's release drops one end of each; the others are second's */
        spin_lock(&forth->lock);
        forth->readers = 0;
        spin_unlock(&forth->lock);
        spin_lock(&back->lock);
        back->writers = 0;
        spin_unlock(&back->lock);
        vfs_close(*first);
        return (int)error;
    }
    return 0;
}
