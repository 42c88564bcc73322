/* Helpers shared by the test programs of tests/user/: children, sleeps,
 * signal handlers and masks, /proc/PID/stat and the flags register. Each
 * program is one .c file built into a static binary (the Makefile
 * rebuilds every program when a header here changes), so all of it is
 * static. The KTAP report is ktap.h's; the clock, CPU pinning and the
 * nohz files are in user/lib/, shared with user/. */
#ifndef TESTS_USER_TESTLIB_H
#define TESTS_USER_TESTLIB_H

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- Children ---- */

/* pid's wait status, waiting through EINTR; -1 if the wait fails. */
static inline int wait_status(pid_t pid)
{
    int status = -1;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    return status;
}

/* pid's exit code; -1 if a signal ended it or the wait failed. */
static inline int exit_status_of(pid_t pid)
{
    int status = wait_status(pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Runs body in a child, which exits 0 if body returns; the child's wait
 * status, -1 if fork fails. Output waiting in stdout goes out first, or
 * the child would print it again. No core dump: the deaths are expected. */
static inline int status_of_child(void (*body)(void))
{
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        struct rlimit no_core = { 0, 0 };
        setrlimit(RLIMIT_CORE, &no_core);
        body();
        fflush(stdout);
        _exit(0);
    }
    return child < 0 ? -1 : wait_status(child);
}

/* A wait status is a death by signal: 1, or 0 after printing what it is
 * instead (as a KTAP comment). */
/* This program's own path, for a test that execs itself: argv[0] made
 * absolute if it has a slash, else found in PATH. 0 if not found. */
static inline int find_self(const char *argv0, char *self, size_t size)
{
    if (strchr(argv0, '/')) {
        if (argv0[0] == '/')
            snprintf(self, size, "%s", argv0);
        else if (getcwd(self, size - strlen(argv0) - 2))
            strcat(strcat(self, "/"), argv0);
        return access(self, X_OK) == 0;
    }
    const char *path = getenv("PATH");
    char directories[1024];
    snprintf(directories, sizeof(directories), "%s", path && *path ? path : "/bin:/usr/bin");
    for (char *dir = strtok(directories, ":"); dir; dir = strtok(NULL, ":")) {
        snprintf(self, size, "%s/%s", dir, argv0);
        if (access(self, X_OK) == 0)
            return 1;
    }
    return 0;
}

/* Running on nohzk (its uname release says so), not on Linux? */
static inline int on_nohzk(void)
{
    static int known = -1;
    if (known < 0) {
        struct utsname name;
        known = uname(&name) == 0 && strstr(name.release, "nohzk") != NULL;
    }
    return known;
}

static inline int killed_by(int status, int signal)
{
    if (WIFSIGNALED(status) && WTERMSIG(status) == signal)
        return 1;
    if (WIFSIGNALED(status))
        printf("# killed by signal %d, expected %d\n", WTERMSIG(status), signal);
    else
        printf("# exited with %d, expected signal %d\n", WEXITSTATUS(status), signal);
    return 0;
}

/* The same for an exit with code. */
static inline int exited_with(int status, int code)
{
    if (WIFEXITED(status) && WEXITSTATUS(status) == code)
        return 1;
    if (WIFSIGNALED(status))
        printf("# killed by signal %d, expected exit %d\n", WTERMSIG(status), code);
    else
        printf("# exited with %d, expected %d\n", WEXITSTATUS(status), code);
    return 0;
}

static inline void kill_and_reap(pid_t pid)
{
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

/* ---- Time ---- */

/* Sleeps ms milliseconds, all of them: a handled signal does not cut the
 * sleep short. */
static inline void sleep_ms(long ms)
{
    struct timespec pause = { ms / 1000, ms % 1000 * 1000000 };
    while (nanosleep(&pause, &pause) != 0 && errno == EINTR)
        ;
}

/* A child that writes byte to fd after delay_ms, then exits (0 if the
 * write worked): something for a waiting call to wake on. Its pid. */
static inline pid_t write_later(int fd, char byte, long delay_ms)
{
    pid_t child = fork();
    if (child == 0) {
        sleep_ms(delay_ms);
        _exit(write(fd, &byte, 1) == 1 ? 0 : 1);
    }
    return child;
}

/* ---- Signals ---- */

/* handler for signal, with flags (SA_RESTART...) and nothing more blocked
 * while it runs: sigaction's result. */
static inline int set_handler(int signal, void (*handler)(int), int flags)
{
    struct sigaction action;
    memset(&action, 0, sizeof(action));
    action.sa_handler = handler;
    action.sa_flags = flags;
    sigemptyset(&action.sa_mask);
    return sigaction(signal, &action, NULL);
}

/* The same for a handler that takes the siginfo and the context. */
static inline int set_siginfo_handler(int signal, void (*handler)(int, siginfo_t *, void *), int flags)
{
    struct sigaction action;
    memset(&action, 0, sizeof(action));
    action.sa_sigaction = handler;
    action.sa_flags = SA_SIGINFO | flags;
    sigemptyset(&action.sa_mask);
    return sigaction(signal, &action, NULL);
}

/* A handler that counts: caught[signal] is how many times it ran. */
static volatile sig_atomic_t caught[65] __attribute__((unused));

static inline void count_caught(int signal)
{
    caught[signal]++;
}

/* The set of signal alone, for sigprocmask, sigsuspend, ppoll... */
static inline sigset_t signal_set(int signal)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, signal);
    return set;
}

/* ---- /proc/PID/stat ---- */

/* The state letter (R, S, T, Z...) of a stat file, '?' if unreadable. */
static inline char state_in_stat_file(const char *path)
{
    char text[256];
    FILE *file = fopen(path, "r");
    size_t length = file ? fread(text, 1, sizeof(text) - 1, file) : 0;
    if (file)
        fclose(file);
    text[length] = '\0';
    const char *end = strrchr(text, ')');      /* "pid (name) S ..." */
    return end && end[1] == ' ' ? end[2] : '?';
}

/* pid's state letter, '?' if it cannot be read. */
static inline char proc_state_of(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    return state_in_stat_file(path);
}

/* 1 once pid is in state (looked at every 10 ms), 0 if not within 10 s. */
static inline int state_soon(pid_t pid, char state)
{
    for (int tries = 0; tries < 1000; tries++) {
        if (proc_state_of(pid) == state)
            return 1;
        sleep_ms(10);
    }
    return 0;
}

/* ---- The flags register (RFLAGS) ---- */

#define RFLAGS_TF   0x100ul         /* single-step trap */
#define RFLAGS_DF   0x400ul         /* string direction */
#define RFLAGS_IOPL 0x3000ul        /* I/O privilege level: ring 3 cannot raise it */
#define RFLAGS_NT   0x4000ul        /* nested task */
#define RFLAGS_AC   0x40000ul       /* alignment check */
#define RFLAGS_ID   0x200000ul      /* CPUID available */

static inline uint64_t read_flags(void)
{
    uint64_t flags;
    __asm__ volatile("pushfq; popq %0" : "=r"(flags));
    return flags;
}

#endif
