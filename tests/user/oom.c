/* Memory exhaustion from user space: whatever a program takes, the kernel
 * answers ENOMEM and goes on (it never panics because of what a
 * user program does). One process takes every free page, then gives them
 * back one at a time while another forks at each step, so that each of
 * fork's allocations (page tables, the copy, the kernel stack, the task)
 * meets an empty allocator at some step.
 * The hog is a program of its own (vfork and exec of this one): a forked
 * hog would share our pages copy-on-write, and once it took every page our
 * next write could not be copied (nohzk kills the writer; Linux's OOM
 * killer would pick the hog).
 * NOHZK_ONLY: nohzk refuses a mapping larger than free memory (no
 * overcommit), and its pages are taken when first written (the zero page
 * until then), so the hog fills each mapping by read() from /dev/zero: a
 * kernel write that finds no page is an error, not the writer's death.
 * Linux overcommits and would not run out here. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktap.h"
#include "testlib.h"

#define MIB (1024 * 1024l)
#define PAGE 4096l
#define MAX_STEPS 2000

static char *self_name;

static long mem_free_kib(void)
{
    char line[128];
    long kib = -1;
    FILE *file = fopen("/proc/meminfo", "r");
    if (!file)
        return -1;
    while (fgets(line, sizeof(line), file))
        if (sscanf(line, "MemFree: %ld kB", &kib) == 1)
            break;
    fclose(file);
    return kib;
}

/* A mapping bigger than all free memory fails at once and takes nothing
 * meanwhile (it would starve every other CPU while it grew). */
static int a_mapping_larger_than_free_memory_fails_at_once(void)
{
    long before = mem_free_kib();
    CHECK(before > 0);
    void *map = mmap(0, (size_t)(before * 1024 * 2), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(map == MAP_FAILED && errno == ENOMEM);
    long after = mem_free_kib();
    CHECK(after > before - 1024 && after < before + 1024);     /* within 1 MiB: nothing kept */
    return 1;
}

/* The hog: takes every page it can, says so, then frees one page per 'r'
 * it reads, answering each; 'q' ends it. */
static void hog(int commands, int answers)
{
    static struct { char *address; long size; } maps[4096];
    long count = 0;
    char c = 'x';
    int zeros = open("/dev/zero", O_RDONLY);
    if (zeros < 0)
        _exit(3);
    for (long size = 4 * MIB; size >= PAGE; size /= 2) {
        while (count < (long)(sizeof(maps) / sizeof(maps[0]))) {
            void *map = mmap(0, (size_t)size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (map == MAP_FAILED)
                break;
            maps[count].address = map;
            maps[count++].size = size;
            if (read(zeros, map, (size_t)size) != size)
                size = PAGE;        /* memory ran out while filling: what was filled is taken */
        }
    }
    if (write(answers, &c, 1) != 1)
        _exit(2);
    while (read(commands, &c, 1) == 1 && c == 'r') {
        if (count) {        /* the last page of the last mapping */
            maps[count - 1].size -= PAGE;
            munmap(maps[count - 1].address + maps[count - 1].size, PAGE);
            count -= maps[count - 1].size == 0;
        }
        if (write(answers, &c, 1) != 1)
            _exit(2);
    }
    _exit(0);
}

/* A hog started by vfork and exec of this program, and its pipes. */
struct hog {
    pid_t pid;
    int commands, answers;      /* our ends */
};

/* Starts it and waits until it has taken every page it could. */
static int hog_start(struct hog *hog)
{
    int to_hog[2], from_hog[2];
    char c;
    if (pipe(to_hog) != 0 || pipe(from_hog) != 0)
        return 0;
    char commands[16], answers[16];
    snprintf(commands, sizeof(commands), "%d", to_hog[0]);
    snprintf(answers, sizeof(answers), "%d", from_hog[1]);
    char *argv[] = { self_name, "hog", commands, answers, 0 };
    hog->pid = vfork();
    if (hog->pid == 0) {
        execvp(self_name, argv);
        _exit(127);
    }
    hog->commands = to_hog[1];
    hog->answers = from_hog[0];
    return hog->pid > 0 && read(hog->answers, &c, 1) == 1;
}

/* The hog gives one page back. */
static int hog_free_page(struct hog *hog)
{
    char c = 'r';
    return write(hog->commands, &c, 1) == 1 && read(hog->answers, &c, 1) == 1;
}

static int hog_stop(struct hog *hog)
{
    char c = 'q';
    if (write(hog->commands, &c, 1) != 1)
        return 0;
    close(hog->commands);
    close(hog->answers);
    return exit_status_of(hog->pid) == 0;
}

static int fork_fails_with_enomem_and_recovers(void)
{
    struct hog hog;
    int status;
    CHECK(hog_start(&hog));
    long low = mem_free_kib();      /* -1 if even /proc/meminfo cannot be opened */
    int enomem = 0, other = 0, worked = 0, steps;
    for (steps = 0; steps < MAX_STEPS && worked < 3; steps++) {
        pid_t pid = fork();
        if (pid == 0)
            _exit(0);
        if (pid > 0) {
            int status;
            worked += waitpid(pid, &status, 0) == pid && WIFEXITED(status);
        } else if (errno == ENOMEM || errno == EAGAIN) {
            enomem++;
        } else {
            other++;
        }
        if (!hog_free_page(&hog))
            break;
    }
    CHECK(hog_stop(&hog));
    printf("# free at the low point: %ld KiB; forks: %d refused (ENOMEM), %d worked, %d other, in %d steps\n", low,
           enomem, worked, other, steps);
    CHECK(enomem >= 1);         /* memory did run out */
    CHECK(other == 0);
    CHECK(worked >= 1);         /* and fork works again as pages come back */
    pid_t pid = fork();         /* the hog's pages all came back */
    if (pid == 0)
        _exit(0);
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
    return 1;
}

/* The torture test creates a kthread per CPU and two more: when memory
 * runs out among them it must say ENOMEM and end the ones it made (it
 * once joined the NULL it got back, and panicked). Written at each step
 * as the hog gives pages back, until a run works. */
static int rcustress_without_memory_says_enomem(void)
{
    struct hog hog;
    int stress = open("/proc/rcustress", O_WRONLY);
    CHECK(stress >= 0);
    CHECK(hog_start(&hog));
    int enomem = 0, other = 0, worked = 0, steps;
    for (steps = 0; steps < MAX_STEPS && !worked; steps++) {
        long written = write(stress, "1", 1);
        if (written == 1)
            worked++;
        else if (errno == ENOMEM)
            enomem++;
        else
            other++;
        if (!hog_free_page(&hog))
            break;
    }
    CHECK(hog_stop(&hog));
    close(stress);
    printf("# rcustress: %d refused (ENOMEM), %d worked, %d other, in %d steps\n", enomem, worked, other, steps);
    CHECK(enomem >= 1);
    CHECK(other == 0);
    CHECK(worked == 1);
    return 1;
}

/* Forked children each map and write a fifth of free memory of their own, then
 * write every page of a shared mapping as big: copies run out (a fork is
 * refused only when the copies do not fit at the fork). A writer that
 * finds no page is killed (SIGKILL); the parent lives on, and once all
 * are reaped every page is back. */
static int copy_on_write_beyond_free_memory(void)
{
    long start = mem_free_kib();
    CHECK(start > 0);
    long size = start / 5 * 1024 / PAGE * PAGE;
    char *map = mmap(0, (size_t)size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(map != MAP_FAILED);
    memset(map, 'p', (size_t)size);
    pid_t children[8];
    int count = 0, refused = 0, killed = 0, done = 0;
    for (int i = 0; i < 8; i++) {
        int ready[2];
        CHECK(pipe(ready) == 0);
        pid_t pid = fork();
        if (pid == 0) {
            close(ready[0]);
            char *own = mmap(0, (size_t)size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (own != MAP_FAILED)
                memset(own, 'o', (size_t)size);
            for (long j = 0; j < size; j += PAGE)
                map[j] = 'c';
            if (write(ready[1], "d", 1) != 1)
                _exit(2);
            pause();
            _exit(0);
        }
        close(ready[1]);
        if (pid < 0) {
            CHECK(errno == ENOMEM || errno == EAGAIN);
            refused++;
        } else {
            children[count++] = pid;
            char c;
            done += read(ready[0], &c, 1) == 1;     /* 0: it died writing */
        }
        close(ready[0]);
    }
    for (int i = 0; i < count; i++) {
        int status;
        kill(children[i], SIGKILL);
        CHECK(waitpid(children[i], &status, 0) == children[i]);
        CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    }
    killed = count - done;
    CHECK(map[0] == 'p' && map[size - PAGE] == 'p');
    munmap(map, (size_t)size);
    long end = mem_free_kib();
    printf("# %d forks refused, %d writers killed, %d done; free %ld KiB before, %ld after\n", refused, killed, done,
           start, end);
    CHECK(killed >= 1);
    CHECK(end > start - 1024);
    return 1;
}

int main(int argc, char **argv)
{
    self_name = argv[0];
    if (argc == 4 && strcmp(argv[1], "hog") == 0)
        hog(atoi(argv[2]), atoi(argv[3]));
    static const struct ktap_case cases[] = {
        KTAP_CASE(a_mapping_larger_than_free_memory_fails_at_once),
        KTAP_CASE(fork_fails_with_enomem_and_recovers),
        KTAP_CASE(copy_on_write_beyond_free_memory),
        KTAP_CASE(rcustress_without_memory_says_enomem),
    };
    return ktap_main(cases, KTAP_COUNT(cases));
}
