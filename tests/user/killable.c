/* SIGKILL ends a process whatever system call it is in: blocked on a full
 * pipe, copying gigabytes in one readv, filling a buffer from getrandom,
 * unmapping an enormous range. Each case starts a child that says it is
 * about to make the call, kills it, and checks that wait4 reports
 * SIGKILL. A static program that prints KTAP; it runs on nohzk (scenario
 * "killable") and, unchanged, on the Linux host (tests/run's
 * host-killable.*), so what it checks is Linux's behaviour.
 *
 * A call that went on to its end before the kill took effect would make
 * the case wait for it: a readv of 4 GiB (2 GiB once cut to Linux's
 * MAX_RW_COUNT, test_vfs's cuts_vectors_at_max_rw_count) from
 * /dev/urandom takes minutes under QEMU, a munmap of 2^46 bytes page by
 * page about 1,000 s. The scenario's timeout catches that; nothing here
 * measures a time (the short sleep before each kill only lets the child
 * get into its call). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ktap.h"
#include "testlib.h"

#define BUFFER_SIZE (16ul << 20)        /* each fork copies it on nohzk */
#define IOVECS 256                      /* 4 GiB in all, over the one buffer */

static int ready_pipe[2];
static char *buffer;
static struct iovec iov[IOVECS];

/* In the child: tell the parent the call comes next. */
static void say_ready(void)
{
    char byte = 1;
    if (write(ready_pipe[1], &byte, 1) != 1)
        _exit(2);
}

/* Run the call in a child, kill it once it is in, and return the status
 * wait4 gives (-1 on failure). The call is repeated forever: a call that
 * ends early changes nothing. */
static int status_after_kill(void (*call)(void))
{
    if (pipe(ready_pipe) != 0)
        return -1;
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        close(ready_pipe[0]);
        say_ready();
        for (;;)
            call();
    }
    close(ready_pipe[1]);
    char byte;
    int ready = child > 0 && read(ready_pipe[0], &byte, 1) == 1;
    close(ready_pipe[0]);
    sleep_ms(50);
    if (child > 0)
        kill(child, SIGKILL);
    int status = -1;
    if (child < 0 || wait4(child, &status, 0, 0) != child || !ready)
        return -1;
    return status;
}

static void fill_iovecs(void)
{
    for (int i = 0; i < IOVECS; i++)
        iov[i] = (struct iovec){ buffer, BUFFER_SIZE };
}

/* ---- The calls ---- */

static void write_to_full_pipe(void)
{
    int fds[2];
    if (pipe(fds) != 0)
        _exit(3);
    for (;;)
        write(fds[1], buffer, BUFFER_SIZE);     /* nobody reads: it fills, then blocks */
}

static void read_urandom_gigabytes(void)
{
    int fd = open("/dev/urandom", O_RDONLY);
    readv(fd, iov, IOVECS);
    close(fd);
}

static void getrandom_all_it_gives(void)
{
    syscall(SYS_getrandom, buffer, BUFFER_SIZE, 0);
}

static void munmap_huge_range(void)
{
    syscall(SYS_munmap, 0x100000000000ul, 0x400000000000ul);
}

static void sleep_forever(void)
{
    pause();
}

/* ---- The cases ---- */

static int sigkill_ends_a_write_blocked_on_a_full_pipe(void)
{
    CHECK(killed_by(status_after_kill(write_to_full_pipe), SIGKILL));
    return 1;
}

static int sigkill_ends_a_readv_of_gigabytes(void)
{
    CHECK(killed_by(status_after_kill(read_urandom_gigabytes), SIGKILL));
    return 1;
}

static int sigkill_ends_getrandom(void)
{
    CHECK(killed_by(status_after_kill(getrandom_all_it_gives), SIGKILL));
    return 1;
}

static int sigkill_ends_munmap_of_huge_ranges(void)
{
    CHECK(killed_by(status_after_kill(munmap_huge_range), SIGKILL));
    return 1;
}

static int sigkill_ends_pause(void)
{
    CHECK(killed_by(status_after_kill(sleep_forever), SIGKILL));
    return 1;
}

int main(void)
{
    static const struct ktap_case cases[] = {
        KTAP_CASE(sigkill_ends_pause),
        KTAP_CASE(sigkill_ends_a_write_blocked_on_a_full_pipe),
        KTAP_CASE(sigkill_ends_munmap_of_huge_ranges),
        KTAP_CASE(sigkill_ends_getrandom),
        KTAP_CASE(sigkill_ends_a_readv_of_gigabytes),
    };
    buffer = mmap(0, BUFFER_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (buffer == MAP_FAILED) {
        printf("# killable: no %lu-byte buffer (errno %d)\n", BUFFER_SIZE, errno);
        return 1;
    }
    memset(buffer, 0, BUFFER_SIZE);
    fill_iovecs();
    return ktap_main(cases, KTAP_COUNT(cases));
}
