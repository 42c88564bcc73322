/* Starting programs the way libraries do, as Linux x86-64 provides it:
 * posix_spawn() and system() (both libcs start the child with
 * clone(CLONE_VM | CLONE_VFORK) on a stack of their own), and clone() with
 * a new stack. A static program that prints KTAP; it runs on nohzk
 * (scenario "spawn", "spawn-glibc") and, unchanged, on the Linux host
 * (tests/run's host-spawn.*).
 *
 * Two rules matter: the child runs on the stack clone() was given, not the
 * parent's; and a vfork child shares its parent's memory (glibc's
 * posix_spawn() reports a failed exec by writing into it). */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktap.h"
#include "testlib.h"

extern char **environ;

static int posix_spawn_runs_a_program(void)
{
    char *argv[] = {"sh", "-c", "exit 7", NULL};
    pid_t pid;
    CHECK(posix_spawn(&pid, "/bin/sh", NULL, NULL, argv, environ) == 0);
    CHECK(exit_status_of(pid) == 7);
    return 1;
}

/* The error comes back from the child, through a pipe, as the result. */
static int posix_spawn_reports_a_missing_program(void)
{
    char *argv[] = {"nothing", NULL};
    pid_t pid = 0;
    int error = posix_spawn(&pid, "/nonexistent/nothing", NULL, NULL, argv, environ);
    CHECK(error == ENOENT);
    return 1;
}

static int posix_spawnp_searches_the_path(void)
{
    char *argv[] = {"sh", "-c", "exit 5", NULL};
    pid_t pid;
    CHECK(posix_spawnp(&pid, "sh", NULL, NULL, argv, environ) == 0);
    CHECK(exit_status_of(pid) == 5);
    return 1;
}

static int system_returns_the_status(void)
{
    int status = system("exit 3");
    CHECK(status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 3);
    CHECK(system(NULL) != 0);   /* a shell is there */
    return 1;
}

static char child_stack[64 * 1024] __attribute__((aligned(16)));

/* In the child: on the stack clone() was given? */
static int runs_on_its_stack(void *argument)
{
    char local;
    uintptr_t at = (uintptr_t)&local, low = (uintptr_t)child_stack;
    return at >= low && at < low + sizeof(child_stack) && argument == child_stack ? 0 : 1;
}

static int clone_runs_the_child_on_the_new_stack(void)
{
    pid_t pid = clone(runs_on_its_stack, child_stack + sizeof(child_stack), SIGCHLD, child_stack);
    CHECK(pid > 0);
    CHECK(exit_status_of(pid) == 0);
    return 1;
}

static int clone_vfork_runs_the_child_on_the_new_stack(void)
{
    pid_t pid = clone(runs_on_its_stack, child_stack + sizeof(child_stack), CLONE_VM | CLONE_VFORK | SIGCHLD,
                      child_stack);
    CHECK(pid > 0);
    CHECK(exit_status_of(pid) == 0);
    return 1;
}

static volatile int written_by_child;

static int vfork_lends_the_memory_until_exit(void)
{
    written_by_child = 0;
    pid_t pid = vfork();
    if (pid == 0) {
        written_by_child = 42;   /* allowed for a test: the parent sleeps until _exit */
        _exit(0);
    }
    CHECK(pid > 0);
    CHECK(written_by_child == 42);   /* seen at once: the parent waited */
    CHECK(exit_status_of(pid) == 0);
    return 1;
}

static int write_and_exit(void *argument)
{
    *(volatile int *)argument = 7;
    return 0;
}

static int clone_vm_vfork_shares_the_memory(void)
{
    written_by_child = 0;
    pid_t pid = clone(write_and_exit, child_stack + sizeof(child_stack), CLONE_VM | CLONE_VFORK | SIGCHLD,
                      (void *)&written_by_child);
    CHECK(pid > 0);
    CHECK(written_by_child == 7);
    CHECK(exit_status_of(pid) == 0);
    return 1;
}

/* After an exec, the child's memory is its own: the parent goes on. */
static int vfork_then_exec_runs_the_program(void)
{
    pid_t pid = vfork();
    if (pid == 0) {
        execl("/bin/sh", "sh", "-c", "exit 9", (char *)NULL);
        _exit(127);
    }
    CHECK(pid > 0);
    CHECK(exit_status_of(pid) == 9);
    return 1;
}

/* Has pid ended within 10 s? Its wait status in *status. */
static int ends_soon(pid_t pid, int *status)
{
    for (int tries = 0; tries < 1000; tries++) {
        if (waitpid(pid, status, WNOHANG) == pid)
            return 1;
        sleep_ms(10);
    }
    return 0;
}

/* A vfork parent waits for its child, but a fatal signal still kills it
 * at once, as Linux's killable wait does; the child, which may be
 * anywhere in its run, keeps the memory and goes on. Here the parent is
 * a process of ours whose vfork child tells us its pid, then waits for a
 * byte from us. (nohzk's parent slept through even SIGKILL until the
 * child exec'd or exited: a vfork child that never did made its parent
 * unkillable.) */
static int vfork_parent_dies_of_a_fatal_signal(int signal)
{
    int to_us[2], to_child[2];
    CHECK(pipe(to_us) == 0 && pipe(to_child) == 0);
    pid_t parent = fork();
    if (parent == 0) {
        if (vfork() == 0) {
            pid_t self = getpid();
            char go;
            if (write(to_us[1], &self, sizeof(self)) != sizeof(self) || read(to_child[0], &go, 1) != 1)
                _exit(1);
            _exit(write(to_us[1], "k", 1) == 1 ? 0 : 1);
        }
        _exit(0);       /* the child has exited: our wait ended the normal way */
    }
    CHECK(parent > 0);
    pid_t child = 0;
    CHECK(read(to_us[0], &child, sizeof(child)) == sizeof(child) && child > 0);
    CHECK(kill(parent, signal) == 0);
    int status = 0;
    int died = ends_soon(parent, &status);
    char reply = 0;
    int child_went_on = write(to_child[1], "g", 1) == 1 && read(to_us[0], &reply, 1) == 1 && reply == 'k';
    if (!died)
        waitpid(parent, &status, 0);    /* the child has exited now: it is free to die */
    CHECK(died && WIFSIGNALED(status) && WTERMSIG(status) == signal);
    CHECK(child_went_on);
    return 1;
}

static int vfork_parent_dies_of_sigkill(void)
{
    return vfork_parent_dies_of_a_fatal_signal(SIGKILL);
}

/* SIGTERM, left at its default action, is as fatal as SIGKILL. */
static int vfork_parent_dies_of_sigterm(void)
{
    return vfork_parent_dies_of_a_fatal_signal(SIGTERM);
}

int main(void)
{
    static const struct ktap_case cases[] = {
        KTAP_CASE(posix_spawn_runs_a_program),
        KTAP_CASE(posix_spawn_reports_a_missing_program),
        KTAP_CASE(posix_spawnp_searches_the_path),
        KTAP_CASE(system_returns_the_status),
        KTAP_CASE(clone_runs_the_child_on_the_new_stack),
        KTAP_CASE(clone_vfork_runs_the_child_on_the_new_stack),
        KTAP_CASE(vfork_lends_the_memory_until_exit),
        KTAP_CASE(clone_vm_vfork_shares_the_memory),
        KTAP_CASE(vfork_then_exec_runs_the_program),
        KTAP_CASE(vfork_parent_dies_of_sigkill),
        KTAP_CASE(vfork_parent_dies_of_sigterm),
    };
    return ktap_main_each_in_a_child(cases, KTAP_COUNT(cases));
}
