/* Attacks on thread groups (docs/threads.md): threads ending while /proc
 * reads them, exec racing clone, the group's end racing clone, SIGKILL
 * racing both, a group stop and continue, a join racing the thread's
 * end. A static program (musl or glibc) that prints a KTAP document; it
 * passes on the Linux host (host-thread_races) and on nohzk (scenario
 * thread-races). Each round runs in a child, so the worst a round can do
 * to the test is kill that child; what must hold is its wait status, and
 * that the kernel goes on. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktap.h"
#include "testlib.h"

#define ROUNDS 20

static char self_path[512];

static void *return_at_once(void *arg)
{
    return arg;
}

/* Creates and joins threads without end (each one returns at once). */
static void *churn(void *arg)
{
    (void)arg;
    for (;;) {
        pthread_t thread;
        if (pthread_create(&thread, 0, return_at_once, 0) == 0)
            pthread_join(thread, 0);
    }
    return 0;
}

/* Creates threads that detach and end, without end. */
static void *churn_detached(void *arg)
{
    (void)arg;
    for (;;) {
        pthread_t thread;
        if (pthread_create(&thread, 0, return_at_once, 0) == 0)
            pthread_detach(thread);
        else
            sched_yield();
    }
    return 0;
}

/* Reads every file of every thread of pid; the count of files read. */
static int read_task_files(pid_t pid)
{
    char path[384], buffer[1024];
    int read_count = 0;
    snprintf(path, sizeof(path), "/proc/%d/task", pid);
    DIR *dir = opendir(path);
    if (!dir)
        return 0;
    struct dirent *entry;
    while ((entry = readdir(dir))) {
        if (entry->d_name[0] == '.')
            continue;
        static const char *const names[] = { "stat", "status" };
        for (int i = 0; i < 2; i++) {
            snprintf(path, sizeof(path), "/proc/%d/task/%s/%s", pid, entry->d_name, names[i]);
            int fd = open(path, O_RDONLY);
            if (fd < 0)
                continue;   /* gone meanwhile: ENOENT or ESRCH */
            if (read(fd, buffer, sizeof(buffer)) > 0)
                read_count++;
            close(fd);
        }
    }
    closedir(dir);
    return read_count;
}

/* A child churns threads while we read its /proc/PID/task files over and
 * over; then it is killed. */
static int proc_reads_while_threads_end(void)
{
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        pthread_t a, b;
        pthread_create(&a, 0, churn, 0);
        pthread_create(&b, 0, churn_detached, 0);
        for (;;)
            pause();
    }
    CHECK(child > 0);
    int reads = 0;
    for (int i = 0; i < 300; i++)
        reads += read_task_files(child);
    CHECK(kill(child, SIGKILL) == 0);
    int status = wait_status(child);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    CHECK(reads > 0);
    return 1;
}

static void *exec_true(void *arg)
{
    (void)arg;
    for (int i = 0; i < 50; i++)
        sched_yield();
    execl(self_path, self_path, "--exit", "5", (char *)0);
    _exit(99);
}

static void exec_racing_clone_body(void)
{
    pthread_t a, b, c;
    pthread_create(&a, 0, churn, 0);
    pthread_create(&b, 0, churn_detached, 0);
    pthread_create(&c, 0, exec_true, 0);
    for (;;)
        pause();
}

/* One thread execs while two others create threads: the new program
 * runs alone and exits 5. */
static int exec_racing_clone(void)
{
    if (!self_path[0]) {
        ktap_skip_reason = "cannot find this program's path";
        return 1;
    }
    for (int round = 0; round < ROUNDS; round++) {
        int status = status_of_child(exec_racing_clone_body);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 5);
    }
    return 1;
}

static void *exit_soon(void *arg)
{
    (void)arg;
    for (int i = 0; i < 50; i++)
        sched_yield();
    exit(6);
}

static void exit_group_racing_clone_body(void)
{
    pthread_t a, b, c;
    pthread_create(&a, 0, churn, 0);
    pthread_create(&b, 0, churn_detached, 0);
    pthread_create(&c, 0, exit_soon, 0);
    for (;;)
        pause();
}

/* exit_group while threads are being made: every one ends, status 6. */
static int exit_group_racing_clone(void)
{
    for (int round = 0; round < ROUNDS; round++) {
        int status = status_of_child(exit_group_racing_clone_body);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 6);
    }
    return 1;
}

static void *exec_and_exit(void *arg)
{
    (void)arg;
    execl(self_path, self_path, "--exit", "5", (char *)0);
    _exit(99);
}

static void exec_racing_exit_group_body(void)
{
    pthread_t a, b;
    pthread_create(&a, 0, exec_and_exit, 0);
    pthread_create(&b, 0, exit_soon, 0);
    for (;;)
        pause();
}

/* exec in one thread, exit_group in another, at once: one of them wins,
 * whole: status 5 (the new program) or 6 (the group's end). */
static int exec_racing_exit_group(void)
{
    if (!self_path[0]) {
        ktap_skip_reason = "cannot find this program's path";
        return 1;
    }
    for (int round = 0; round < ROUNDS; round++) {
        int status = status_of_child(exec_racing_exit_group_body);
        CHECK(WIFEXITED(status) && (WEXITSTATUS(status) == 5 || WEXITSTATUS(status) == 6));
    }
    return 1;
}

/* SIGKILL from outside while threads are made and end. */
static int kill_racing_clone(void)
{
    for (int round = 0; round < ROUNDS; round++) {
        fflush(stdout);
        pid_t child = fork();
        if (child == 0) {
            pthread_t a, b;
            pthread_create(&a, 0, churn, 0);
            pthread_create(&b, 0, churn_detached, 0);
            for (;;)
                pause();
        }
        CHECK(child > 0);
        for (int i = 0; i < round * 20; i++)
            sched_yield();
        CHECK(kill(child, SIGKILL) == 0);
        int status = wait_status(child);
        CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    }
    return 1;
}

static void *spin_forever(void *arg)
{
    (void)arg;
    volatile unsigned long counter = 0;
    for (;;)
        counter++;
    return 0;
}

/* The state letters of pid's threads: how many are 'T', and how many in all. */
static void thread_states(pid_t pid, int *stopped, int *all)
{
    char path[384], buffer[512];
    *stopped = *all = 0;
    snprintf(path, sizeof(path), "/proc/%d/task", pid);
    DIR *dir = opendir(path);
    struct dirent *entry;
    while (dir && (entry = readdir(dir))) {
        if (entry->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "/proc/%d/task/%s/stat", pid, entry->d_name);
        int fd = open(path, O_RDONLY);
        ssize_t length = fd < 0 ? -1 : read(fd, buffer, sizeof(buffer) - 1);
        if (fd >= 0)
            close(fd);
        if (length <= 0)
            continue;
        buffer[length] = 0;
        char *close_paren = strrchr(buffer, ')');
        if (!close_paren)
            continue;
        (*all)++;
        *stopped += close_paren[2] == 'T';
    }
    if (dir)
        closedir(dir);
}

/* SIGSTOP stops every thread of the process, SIGCONT continues them all. */
static int stop_and_continue_the_group(void)
{
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        pthread_t a, b;
        pthread_create(&a, 0, spin_forever, 0);
        pthread_create(&b, 0, spin_forever, 0);
        spin_forever(0);
    }
    CHECK(child > 0);
    int stopped = 0, all = 0;
    for (int i = 0; i < 100000 && all != 3; i++) {
        thread_states(child, &stopped, &all);
        sched_yield();
    }
    CHECK(all == 3);
    CHECK(kill(child, SIGSTOP) == 0);
    int status;
    CHECK(waitpid(child, &status, WUNTRACED) == child && WIFSTOPPED(status));
    for (int i = 0; i < 100000 && stopped != 3; i++) {
        thread_states(child, &stopped, &all);
        sched_yield();
    }
    CHECK(stopped == 3);
    CHECK(kill(child, SIGCONT) == 0);
    for (int i = 0; i < 100000 && stopped != 0; i++) {
        thread_states(child, &stopped, &all);
        sched_yield();
    }
    CHECK(stopped == 0 && all == 3);
    CHECK(kill(child, SIGKILL) == 0);
    status = wait_status(child);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    return 1;
}

static void *end_now(void *arg)
{
    return arg;
}

/* Joins racing the threads' ends: each join returns the thread's value. */
static int join_racing_exit(void)
{
    for (int round = 0; round < 200; round++) {
        pthread_t thread;
        void *result = 0;
        CHECK(pthread_create(&thread, 0, end_now, (void *)(uintptr_t)(round + 1)) == 0);
        CHECK(pthread_join(thread, &result) == 0);
        CHECK((uintptr_t)result == (uintptr_t)(round + 1));
    }
    return 1;
}

/* A system call copying to or from user memory while a sibling unmaps
 * it: the copy ends early or fails with EFAULT, as on Linux; the kernel
 * must not fault on its own account. */
#define RACE_BYTES (1 << 20)
static char *volatile race_buffer;
static atomic_int race_done;

static void *toggle_mapping(void *arg)
{
    (void)arg;
    for (int i = 0; i < 300; i++) {
        munmap(race_buffer, RACE_BYTES);
        sched_yield();
        if (mmap(race_buffer, RACE_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) ==
            MAP_FAILED)
            break;
    }
    atomic_store(&race_done, 1);
    return 0;
}

static int copy_racing_munmap(void)
{
    pthread_t thread;
    int zero = open("/dev/zero", O_RDONLY), pipes[2];
    CHECK(zero >= 0 && pipe(pipes) == 0);
    CHECK(fcntl(pipes[1], F_SETFL, O_NONBLOCK) == 0 && fcntl(pipes[0], F_SETFL, O_NONBLOCK) == 0);
    race_buffer = mmap(0, RACE_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(race_buffer != MAP_FAILED);
    atomic_store(&race_done, 0);
    CHECK(pthread_create(&thread, 0, toggle_mapping, 0) == 0);
    long copies = 0, faults = 0;
    while (!atomic_load(&race_done)) {
        ssize_t got = read(zero, race_buffer, RACE_BYTES);        /* copy_to_user */
        CHECK(got > 0 || errno == EFAULT);
        ssize_t put = write(pipes[1], race_buffer, 65536);       /* copy_from_user */
        CHECK(put > 0 || errno == EFAULT || errno == EAGAIN);
        char sink[65536];
        while (read(pipes[0], sink, sizeof(sink)) > 0)
            ;
        copies += got > 0;
        faults += got < 0;
    }
    CHECK(pthread_join(thread, 0) == 0);
    CHECK(copies + faults > 0);
    close(zero);
    close(pipes[0]);
    close(pipes[1]);
    return 1;
}

/* --- two memory calls of one process at once --------------------------- */

#define AREA_PAGES 16
#define AREA_BYTES (AREA_PAGES * 4096)
#define MEMORY_ROUNDS 200
static char *volatile area;             /* AREA_PAGES between two PROT_NONE guards */
static atomic_int round_go, round_done;

/* The rights /proc/self/maps gives the page at address: 'w' or '-', 0 if
 * no line covers it. */
static char maps_write_right(const void *address)
{
    FILE *maps = fopen("/proc/self/maps", "r");
    char line[512], right = 0;
    while (maps && fgets(line, sizeof(line), maps)) {
        unsigned long start, end;
        char rights[5];
        if (sscanf(line, "%lx-%lx %4s", &start, &end, rights) == 3 && start <= (unsigned long)address &&
            (unsigned long)address < end) {
            right = rights[1];
            break;
        }
    }
    if (maps)
        fclose(maps);
    return right;
}

/* Whether the kernel may write the page, asked through a system call that
 * writes there (EFAULT if not): no fault in the test itself. */
static int kernel_can_write(int zero, void *page)
{
    return read(zero, page, 1) == 1;
}

/* The same for reading, through a pipe (a write to /dev/null reads
 * nothing on Linux); the byte is taken back out. */
static int kernel_can_read(int pipes[2], void *page)
{
    char byte;
    int can = write(pipes[1], page, 1) == 1;
    while (read(pipes[0], &byte, 1) == 1)
        ;
    return can;
}

static char *make_area(void)
{
    char *guarded = mmap(0, AREA_BYTES + 2 * 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (guarded == MAP_FAILED)
        return 0;
    char *inner = guarded + 4096;
    return mprotect(inner, AREA_BYTES, PROT_READ | PROT_WRITE) == 0 ? inner : 0;
}

static void wait_until(atomic_int *counter, int round)
{
    while (atomic_load(counter) < round)
        sched_yield();
}

static void *protect_opposite(void *arg)
{
    (void)arg;
    for (int round = 1; round <= MEMORY_ROUNDS; round++) {
        wait_until(&round_go, round);
        mprotect(area, AREA_BYTES, round & 1 ? PROT_READ : PROT_READ | PROT_WRITE);
        atomic_store(&round_done, round);
    }
    return 0;
}

/* Two threads mprotect the same range at once, one to read-only, one to
 * read-write: whichever is last, the rights /proc/self/maps shows are the
 * rights the pages have (one call's regions with the other's pages was
 * the failure). */
static int mprotect_races_keep_maps_true(void)
{
    int zero = open("/dev/zero", O_RDONLY);
    CHECK(zero >= 0);
    area = make_area();
    CHECK(area);
    atomic_store(&round_go, 0);
    atomic_store(&round_done, 0);
    pthread_t thread;
    CHECK(pthread_create(&thread, 0, protect_opposite, 0) == 0);
    int mismatches = 0, writable_rounds = 0;
    for (int round = 1; round <= MEMORY_ROUNDS; round++) {
        atomic_store(&round_go, round);
        mprotect(area, AREA_BYTES, round & 1 ? PROT_READ | PROT_WRITE : PROT_READ);
        wait_until(&round_done, round);
        char right = maps_write_right(area);
        for (int page = 0; page < AREA_PAGES; page++) {
            int can = kernel_can_write(zero, area + page * 4096);
            writable_rounds += can && page == 0;
            mismatches += can != (right == 'w');
        }
    }
    CHECK(pthread_join(thread, 0) == 0);
    printf("# %d rounds, writable after %d, pages whose rights differed from maps: %d\n", MEMORY_ROUNDS,
           writable_rounds, mismatches);
    CHECK(mismatches == 0);
    close(zero);
    return 1;
}

static void *unmap_area(void *arg)
{
    (void)arg;
    for (int round = 1; round <= MEMORY_ROUNDS; round++) {
        wait_until(&round_go, round);
        munmap(area, AREA_BYTES);
        atomic_store(&round_done, round);
    }
    return 0;
}

/* One thread maps the range afresh (MAP_FIXED) and fills it through
 * read() from a pipe while another unmaps it: if the range is mapped at
 * the end, the mapping came after the munmap, and what the filler put
 * there is there (an munmap that ended after a newer mmap took its pages
 * was the failure: zeros in a mapped range). */
static int map_fixed_racing_munmap_keeps_data(void)
{
    int pipes[2];
    CHECK(pipe(pipes) == 0);
    CHECK(fcntl(pipes[0], F_SETFL, O_NONBLOCK) == 0);
    area = make_area();
    CHECK(area);
    atomic_store(&round_go, 0);
    atomic_store(&round_done, 0);
    pthread_t thread;
    CHECK(pthread_create(&thread, 0, unmap_area, 0) == 0);
    static char pattern[4096];
    memset(pattern, 0xab, sizeof(pattern));
    int lost = 0, mapped_at_end = 0;
    for (int round = 1; round <= MEMORY_ROUNDS; round++) {
        atomic_store(&round_go, round);
        if (round & 1)
            sched_yield();      /* in half the rounds the munmap starts first */
        int filled = 0;
        if (mmap(area, AREA_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED) {
            CHECK(write(pipes[1], pattern, 4096) == 4096);
            filled = read(pipes[0], area, 4096) == 4096;    /* EFAULT if the munmap came first */
            char sink[4096];
            while (read(pipes[0], sink, sizeof(sink)) > 0)
                ;
        }
        wait_until(&round_done, round);
        if (filled && kernel_can_read(pipes, area)) {
            mapped_at_end++;
            lost += memcmp(area, pattern, 4096) != 0;
        }
    }
    CHECK(pthread_join(thread, 0) == 0);
    printf("# %d rounds, mapped at the end %d, of them with the data lost %d\n", MEMORY_ROUNDS, mapped_at_end,
           lost);
    CHECK(lost == 0);
    close(pipes[0]);
    close(pipes[1]);
    return 1;
}

/* --- the working directory, shared by the threads ------------------------ */

#define CWD_ROUNDS 300
static atomic_int cwd_stop;

/* Looks paths up from the working directory, which a sibling keeps
 * changing and removing. */
static void *look_up_from_cwd(void *arg)
{
    long *lookups = arg;
    char buffer[256];
    struct stat status;
    while (!atomic_load(&cwd_stop)) {
        stat(".", &status);
        getcwd(buffer, sizeof(buffer));
        int fd = open("..", O_RDONLY);
        if (fd >= 0)
            close(fd);
        (*lookups)++;
    }
    return 0;
}

/* One thread makes a directory, enters it, leaves and removes it, in a
 * loop, while another looks paths up from wherever the process stands:
 * the directory a chdir leaves must live until the lookup that started
 * from it ends (the kernel's reference, not the thread's luck). */
static int chdir_racing_lookups(void)
{
    char base[64];
    snprintf(base, sizeof(base), "/tmp/cwd-race-%d", getpid());
    CHECK(mkdir(base, 0700) == 0 && chdir(base) == 0);
    atomic_store(&cwd_stop, 0);
    long lookups = 0;
    pthread_t thread;
    CHECK(pthread_create(&thread, 0, look_up_from_cwd, &lookups) == 0);
    int failures = 0;
    for (int round = 0; round < CWD_ROUNDS; round++) {
        failures += mkdir("d", 0700) != 0;
        failures += chdir("d") != 0;
        failures += chdir("..") != 0;
        failures += rmdir("d") != 0;
    }
    atomic_store(&cwd_stop, 1);
    CHECK(pthread_join(thread, 0) == 0);
    printf("# %d rounds of mkdir, chdir, chdir .., rmdir; %ld lookups beside them\n", CWD_ROUNDS, lookups);
    CHECK(failures == 0 && lookups > 0);
    CHECK(chdir("/") == 0 && rmdir(base) == 0);
    return 1;
}

static const struct ktap_case cases[] = {
    KTAP_CASE(proc_reads_while_threads_end),
    KTAP_CASE(exec_racing_clone),
    KTAP_CASE(exit_group_racing_clone),
    KTAP_CASE(exec_racing_exit_group),
    KTAP_CASE(kill_racing_clone),
    KTAP_CASE(stop_and_continue_the_group),
    KTAP_CASE(join_racing_exit),
    KTAP_CASE(copy_racing_munmap),
    KTAP_CASE(mprotect_races_keep_maps_true),
    KTAP_CASE(map_fixed_racing_munmap_keeps_data),
    KTAP_CASE(chdir_racing_lookups),
};

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--exit") == 0)
        return atoi(argv[2]);
    if (!find_self(argv[0], self_path, sizeof(self_path)))
        self_path[0] = 0;
    return ktap_main_each_in_a_child(cases, KTAP_COUNT(cases));
}
