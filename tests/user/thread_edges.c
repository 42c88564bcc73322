/* thread_edges: what a program can throw at clone, clone3, threads,
 * futexes and pread64/pwrite64 that the other thread tests do not: clone3
 * struct sizes and addresses (0, short, over a page, kernel, unmapped
 * tail, nonzero past what the kernel knows) and exit_signal past 64;
 * CLONE_SETTLS with a TLS base above user space (EPERM, for a fork and for
 * a thread: a non-canonical FS base would fault the kernel's own wrmsr);
 * SETTID and CLEARTID words at kernel, non-canonical and unmapped
 * addresses (Linux ignores the failed write); pread64 and pwrite64 at
 * negative and huge offsets and lengths and with kernel buffers;
 * sigaltstack per thread; tgkill at a thread while it exits (0, then
 * ESRCH); REQUEUE onto the tid word of an exiting thread; futex calls on
 * a page another thread maps and unmaps (EAGAIN or EFAULT only);
 * exit_group racing an execve from another thread; 2000 threads created
 * and joined. Counts and errors only, nothing timed. Prints KTAP; runs on
 * the Linux host (tests/run: host-thread_edges.*) and on nohzk (scenarios
 * "thread-edges", "thread-edges-glibc"). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "ktap.h"
#include <sched.h>

#define KADDR ((void *)0xffffffff80000000ul)
#define NONCANON 0x0000900000000000ul

static long raw_exit_child(long r)
{
    if (r == 0) {
        /* child: no libc, TLS may be bad */
        __asm__ volatile("mov $60, %%eax; xor %%edi, %%edi; syscall" ::: "rax", "rdi", "rcx", "r11", "memory");
    }
    return r;
}

static int reap(long pid, int *status)
{
    return waitpid((pid_t)pid, status, 0) == pid;
}

struct clone_args_ {
    uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls, set_tid, set_tid_size, cgroup;
};

static int clone3_sizes(void)
{
    struct clone_args_ a = { .exit_signal = SIGCHLD };
    errno = 0;
    CHECK(syscall(SYS_clone3, &a, 0) == -1 && errno == EINVAL);
    CHECK(syscall(SYS_clone3, &a, 63) == -1 && errno == EINVAL);
    CHECK(syscall(SYS_clone3, &a, 4097) == -1 && errno == E2BIG);
    CHECK(syscall(SYS_clone3, &a, ~0ul) == -1 && errno == E2BIG);
    CHECK(syscall(SYS_clone3, KADDR, 88) == -1 && errno == EFAULT);
    CHECK(syscall(SYS_clone3, (void *)NONCANON, 88) == -1 && errno == EFAULT);
    CHECK(syscall(SYS_clone3, NULL, 88) == -1 && errno == EFAULT);
    /* a larger struct with a nonzero byte past what the kernel knows */
    static unsigned char big[4096];
    memset(big, 0, sizeof big);
    memcpy(big, &a, sizeof a);
    big[4000] = 1;
    CHECK(syscall(SYS_clone3, big, 4096) == -1 && errno == E2BIG);
    /* a struct that ends at the end of a mapping, size runs over */
    unsigned char *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(p != MAP_FAILED);
    munmap(p + 4096, 4096);
    memcpy(p + 4096 - 88, &a, 88);
    CHECK(syscall(SYS_clone3, p + 4096 - 88, 96) == -1 && errno == EFAULT);
    /* stack_size without stack, and stack without size */
    struct clone_args_ b = { .exit_signal = SIGCHLD, .stack_size = 4096 };
    CHECK(syscall(SYS_clone3, &b, 88) == -1 && errno == EINVAL);
    /* exit_signal out of range */
    struct clone_args_ c = { .exit_signal = 65 };
    CHECK(syscall(SYS_clone3, &c, 88) == -1 && errno == EINVAL);
    struct clone_args_ d = { .exit_signal = ~0ull };
    CHECK(syscall(SYS_clone3, &d, 88) == -1 && errno == EINVAL);
    /* CLONE_THREAD without CLONE_SIGHAND/VM */
    struct clone_args_ e = { .flags = CLONE_THREAD };
    CHECK(syscall(SYS_clone3, &e, 88) == -1 && errno == EINVAL);
    return 1;
}

static int settls_noncanonical(void)
{
    int status;
    unsigned long bad[] = { NONCANON, 0xffff800000000000ul, 0x00007ffffffff000ul, ~0ul };
    for (unsigned i = 0; i < 4; i++) {
        long r = raw_exit_child(syscall(SYS_clone, CLONE_SETTLS | SIGCHLD, 0, 0, 0, bad[i]));
        printf("# clone SETTLS %#lx -> %ld errno %d\n", bad[i], r, r < 0 ? errno : 0);
        if (r > 0)
            CHECK(reap(r, &status));
        CHECK(r == -1 && errno == EPERM);
        struct clone_args_ a = { .flags = CLONE_SETTLS, .exit_signal = SIGCHLD, .tls = bad[i] };
        r = raw_exit_child(syscall(SYS_clone3, &a, 88));
        printf("# clone3 SETTLS %#lx -> %ld errno %d\n", bad[i], r, r < 0 ? errno : 0);
        if (r > 0)
            CHECK(reap(r, &status));
        CHECK(r == -1 && errno == EPERM);
    }
    return 1;
}

static char thread_stack[16384] __attribute__((aligned(16)));

/* clone with a child that exits at once, never touching libc or its TLS. */
static long clone_and_exit(unsigned long flags, void *stack, unsigned long tls)
{
    long result;
    register long r10 __asm__("r10") = 0;
    register long r8 __asm__("r8") = (long)tls;
    __asm__ volatile("syscall\n\t"
                     "test %%rax, %%rax\n\t"
                     "jnz 1f\n\t"
                     "mov $60, %%eax\n\t"
                     "xor %%edi, %%edi\n\t"
                     "syscall\n\t"
                     "1:"
                     : "=a"(result) : "0"((long)SYS_clone), "D"(flags), "S"(stack), "d"(0L), "r"(r10), "r"(r8)
                     : "rcx", "r11", "memory");
    return result;
}

static int settls_noncanonical_thread(void)
{
    unsigned long flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM | CLONE_SETTLS;
    unsigned long bad[] = { NONCANON, 0xffff800000000000ul, 0x00007ffffffff000ul, ~0ul };
    for (unsigned i = 0; i < 4; i++) {
        long r = clone_and_exit(flags, thread_stack + sizeof thread_stack, bad[i]);
        printf("# thread SETTLS %#lx -> %ld\n", bad[i], r);
        CHECK(r == -EPERM);
    }
    return 1;
}

/* Linux ignores put_user failures for SETTID: the child is created. */
static int settid_bad_addresses(void)
{
    void *addrs[] = { KADDR, (void *)NONCANON, (void *)8, (void *)0x00007ffffffffffeul };
    for (unsigned i = 0; i < 4; i++) {
        int status;
        long r = raw_exit_child(syscall(SYS_clone, CLONE_PARENT_SETTID | SIGCHLD, 0, addrs[i], 0, 0));
        printf("# PARENT_SETTID %p -> %ld\n", addrs[i], r);
        CHECK(r > 0 && reap(r, &status) && WIFEXITED(status));
        r = raw_exit_child(syscall(SYS_clone, CLONE_CHILD_SETTID | SIGCHLD, 0, 0, addrs[i], 0));
        printf("# CHILD_SETTID %p -> %ld\n", addrs[i], r);
        CHECK(r > 0 && reap(r, &status) && WIFEXITED(status));
        r = raw_exit_child(syscall(SYS_clone, CLONE_CHILD_CLEARTID | SIGCHLD, 0, 0, addrs[i], 0));
        printf("# CHILD_CLEARTID %p -> %ld\n", addrs[i], r);
        CHECK(r > 0 && reap(r, &status) && WIFEXITED(status));
        struct clone_args_ a = { .flags = CLONE_PARENT_SETTID | CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID,
                                 .exit_signal = SIGCHLD, .parent_tid = (uint64_t)addrs[i], .child_tid = (uint64_t)addrs[i] };
        r = raw_exit_child(syscall(SYS_clone3, &a, 88));
        printf("# clone3 SETTIDs %p -> %ld\n", addrs[i], r);
        CHECK(r > 0 && reap(r, &status) && WIFEXITED(status));
    }
    return 1;
}

static volatile int release_all;
static void *park(void *arg)
{
    (void)arg;
    while (!release_all)
        syscall(SYS_futex, &release_all, 128 /*WAIT_PRIVATE*/, 0, NULL);
    return NULL;
}

#define MANY 2000
static pthread_t many[MANY];
static int many_threads(void)
{
    int made = 0, err = 0;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 16384);
    for (; made < MANY; made++)
        if ((err = pthread_create(&many[made], &attr, park, NULL)))
            break;
    release_all = 1;
    syscall(SYS_futex, &release_all, 129, INT_MAX);
    for (int i = 0; i < made; i++)
        CHECK(pthread_join(many[i], NULL) == 0);
    printf("# made %d threads (err %d)\n", made, err);
    CHECK(made > 100);
    return 1;
}
/* futex on a page another thread maps and unmaps. */
static volatile int stop;
static void *const FIXED = (void *)0x500000000000ul;
static void *mapper(void *arg)
{
    (void)arg;
    for (int i = 0; i < 3000 && !stop; i++) {
        mmap(FIXED, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
        munmap(FIXED, 4096);
    }
    stop = 1;
    return NULL;
}
static int futex_on_unmapping_page(void)
{
    pthread_t t;
    CHECK(pthread_create(&t, NULL, mapper, NULL) == 0);
    long counts[4] = { 0 };
    while (!stop) {
        long r = syscall(SYS_futex, FIXED, 0 /*WAIT*/, 1, NULL);   /* value 0 != 1 -> EAGAIN */
        if (r == -1 && errno == EAGAIN) counts[0]++;
        else if (r == -1 && errno == EFAULT) counts[1]++;
        else { printf("# wait -> %ld errno %d\n", r, errno); counts[3]++; }
        r = syscall(SYS_futex, FIXED, 1 /*WAKE*/, 1);
        if (r == -1 && errno != EFAULT) counts[3]++;
        r = syscall(SYS_futex, FIXED, 4 /*CMP_REQUEUE*/, 1, 1, (char *)FIXED + 4, 0);
        if (r == -1 && errno != EFAULT && errno != EAGAIN) counts[3]++;
    }
    pthread_join(t, NULL);
    printf("# EAGAIN %ld EFAULT %ld other %ld\n", counts[0], counts[1], counts[3]);
    CHECK(counts[3] == 0);
    return 1;
}

/* REQUEUE onto the tid word of a thread that is exiting. */
static void *quick(void *arg) { (void)arg; return NULL; }
static int requeue_onto_dying_tid(void)
{
    static int word;
    for (int i = 0; i < 300; i++) {
        pthread_t t;
        CHECK(pthread_create(&t, NULL, quick, NULL) == 0);
        /* musl's and glibc's pthread_t points at struct pthread, whose
         * tid word the exiting thread's CLEARTID writes: requeue (nobody
         * waits) onto a word in it, and wake it, while the thread ends. */
        long r = syscall(SYS_futex, &word, 3 /*REQUEUE*/, 0, INT_MAX, (void *)t, 0);
        CHECK(r >= 0);
        r = syscall(SYS_futex, (void *)t, 1, INT_MAX);
        CHECK(r >= 0);
        pthread_join(t, NULL);
    }
    return 1;
}

/* tgkill at a thread that is exiting: 0 or ESRCH, never anything else. */
static void on_usr1(int s) { (void)s; }
static volatile pid_t dying_tid;
static void *report_and_die(void *arg)
{
    (void)arg;
    dying_tid = syscall(SYS_gettid);
    return NULL;
}
static int tgkill_dying(void)
{
    signal(SIGUSR1, on_usr1);
    long ok = 0, esrch = 0;
    for (int i = 0; i < 200; i++) {
        dying_tid = 0;
        pthread_t t;
        CHECK(pthread_create(&t, NULL, report_and_die, NULL) == 0);
        while (!dying_tid)
            ;
        pid_t tid = dying_tid;
        for (;;) {
            long r = syscall(SYS_tgkill, getpid(), tid, SIGUSR1);
            if (r == 0) { ok++; continue; }
            CHECK(errno == ESRCH);
            esrch++;
            break;
        }
        pthread_join(t, NULL);
        CHECK(syscall(SYS_tgkill, getpid(), tid, 0) == -1 && errno == ESRCH);
    }
    printf("# delivered %ld esrch %ld\n", ok, esrch);
    CHECK(esrch == 200);
    return 1;
}

/* exit_group racing execve from another thread. */
static void *exec_true(void *arg)
{
    (void)arg;
    char *argv[] = { "true", NULL };
    execve("/bin/true", argv, NULL);
    execve("/usr/bin/true", argv, NULL);
    return NULL;
}
static int exit_group_vs_execve(void)
{
    int codes[256] = { 0 };
    for (int i = 0; i < 40; i++) {
        pid_t p = fork();
        if (p == 0) {
            pthread_t t;
            pthread_create(&t, NULL, exec_true, NULL);
            for (volatile int j = 0; j < (i % 8) * 1000; j++)
                ;
            syscall(SYS_exit_group, 7);
        }
        int status;
        CHECK(waitpid(p, &status, 0) == p);
        CHECK(WIFEXITED(status));
        CHECK(WEXITSTATUS(status) == 7 || WEXITSTATUS(status) == 0);
        codes[WEXITSTATUS(status)]++;
    }
    printf("# exit 7: %d, exec won: %d\n", codes[7], codes[0]);
    return 1;
}

/* sigaltstack is per thread; a new thread starts with none. */
static void *alt_check(void *arg)
{
    stack_t cur;
    sigaltstack(NULL, &cur);
    *(int *)arg = cur.ss_flags;
    static char st[65536];
    stack_t s = { .ss_sp = st, .ss_size = sizeof st };
    *((int *)arg + 1) = sigaltstack(&s, NULL);
    return NULL;
}
static int sigaltstack_per_thread(void)
{
    static char mine[65536];
    stack_t s = { .ss_sp = mine, .ss_size = sizeof mine }, cur;
    CHECK(sigaltstack(&s, NULL) == 0);
    int res[2] = { -1, -1 };
    pthread_t t;
    CHECK(pthread_create(&t, NULL, alt_check, res) == 0);
    pthread_join(t, NULL);
    CHECK(res[0] == SS_DISABLE);
    CHECK(res[1] == 0);
    CHECK(sigaltstack(NULL, &cur) == 0 && cur.ss_sp == mine);
    s.ss_flags = SS_DISABLE;
    sigaltstack(&s, NULL);
    return 1;
}

static int pread_pwrite_edges(void)
{
    char buf[64];
    int fd = open("/tmp/atk-file", O_RDWR | O_CREAT | O_TRUNC, 0600);
    CHECK(fd >= 0);
    CHECK(write(fd, "hello", 5) == 5);
    CHECK(pread(fd, buf, 5, -1) == -1 && errno == EINVAL);
    CHECK(pwrite(fd, buf, 5, -1) == -1 && errno == EINVAL);
    CHECK(syscall(SYS_pread64, fd, buf, 5, LLONG_MIN) == -1 && errno == EINVAL);
    CHECK(syscall(SYS_pread64, fd, buf, 5, LLONG_MAX) == -1 && errno == EINVAL);
    CHECK(syscall(SYS_pread64, fd, buf, 1, LLONG_MAX - 1) == 0);
    errno = 0;
    long r = syscall(SYS_pwrite64, fd, buf, 5, LLONG_MAX);
    printf("# pwrite at LLONG_MAX -> %ld errno %d\n", r, errno);
    CHECK(r == -1 && errno == EINVAL);
    /* one byte at LLONG_MAX - 1 is the file system's call (tmpfs: EFBIG,
     * ramfs: written, nohzk: ENOSPC), so it is not checked here */
    CHECK(syscall(SYS_pread64, fd, KADDR, 5, 0) == -1 && errno == EFAULT);
    CHECK(syscall(SYS_pwrite64, fd, KADDR, 5, 0) == -1 && errno == EFAULT);
    CHECK(syscall(SYS_pread64, fd, (void *)NONCANON, 5, 0) == -1 && errno == EFAULT);
    r = syscall(SYS_pread64, fd, buf, ~0ul, 0);
    printf("# pread count ~0 -> %ld errno %d\n", r, errno);
    r = syscall(SYS_pread64, fd, buf, (size_t)SSIZE_MAX + 1, 0);
    printf("# pread count SSIZE_MAX+1 -> %ld errno %d\n", r, errno);
    r = syscall(SYS_pwrite64, fd, buf, ~0ul, 0);
    printf("# pwrite count ~0 -> %ld errno %d\n", r, errno);
    CHECK(pread(fd, buf, 0, 1000) == 0);
    CHECK(pread(fd, buf, 5, 0) == 5 && memcmp(buf, "hello", 5) == 0);
    /* the shared position did not move */
    CHECK(lseek(fd, 0, SEEK_CUR) == 5);
    /* a buffer that runs into an unmapped page: partial or EFAULT, file intact */
    char *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    munmap(p + 4096, 4096);
    r = pread(fd, p + 4094, 5, 0);
    printf("# pread across unmapped -> %ld errno %d\n", r, errno);
    memcpy(p + 4093, "XYZ", 3);
    r = pwrite(fd, p + 4093, 10, 0);
    printf("# pwrite across unmapped -> %ld errno %d\n", r, errno);
    int pfd[2];
    CHECK(pipe(pfd) == 0);
    CHECK(pread(pfd[0], buf, 1, 0) == -1 && errno == ESPIPE);
    CHECK(pwrite(pfd[1], buf, 1, 0) == -1 && errno == ESPIPE);
    CHECK(pread(pfd[1], buf, 1, 0) == -1 && errno == ESPIPE);
    CHECK(pread(999, buf, 1, 0) == -1 && errno == EBADF);
    int dfd = open("/", O_RDONLY | O_DIRECTORY);
    r = pread(dfd, buf, 1, 0);
    printf("# pread dir -> %ld errno %d\n", r, errno);
    CHECK(r == -1 && errno == EISDIR);
    close(fd);
    unlink("/tmp/atk-file");
    return 1;
}

static const struct ktap_case cases[] = {
    KTAP_CASE(clone3_sizes),
    KTAP_CASE(settls_noncanonical),
    KTAP_CASE(settls_noncanonical_thread),
    KTAP_CASE(settid_bad_addresses),
    KTAP_CASE(pread_pwrite_edges),
    KTAP_CASE(sigaltstack_per_thread),
    KTAP_CASE(tgkill_dying),
    KTAP_CASE(requeue_onto_dying_tid),
    KTAP_CASE(futex_on_unmapping_page),
    KTAP_CASE(exit_group_vs_execve),
    KTAP_CASE(many_threads),
};

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    return ktap_main_each_in_a_child(cases, KTAP_COUNT(cases));
}
