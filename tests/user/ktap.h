/* The KTAP plumbing shared by the test programs of tests/user/ that are a
 * flat list of cases: each case is a function returning 1 (pass) or 0
 * (fail, after CHECK printed why); ktap_main() runs them in order and
 * prints one KTAP document. The programs are single static binaries, so
 * everything here is static. */
#ifndef TESTS_USER_KTAP_H
#define TESTS_USER_KTAP_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct ktap_case {
    const char *name;
    int (*run)(void);
};

static const char *ktap_skip_reason __attribute__((unused));   /* set by a case that cannot run here; it then returns 1 */

/* Called before each case if set: state a family of programs keeps per
 * case is reset there (conform.h). */
static void (*ktap_before_each_case)(void) __attribute__((unused));

/* Fail the current case: print the condition and errno as a KTAP comment. */
#define CHECK(condition)                                                                        \
    do {                                                                                        \
        if (!(condition)) {                                                                     \
            printf("# %s:%d: %s failed (errno %d)\n", __FILE__, __LINE__, #condition, errno);    \
            return 0;                                                                           \
        }                                                                                       \
    } while (0)

#define KTAP_CASE(function) { #function, function }

/* The number of cases in an array of them, for ktap_main(). */
#define KTAP_COUNT(cases) ((unsigned)(sizeof(cases) / sizeof((cases)[0])))

/* A case run in a child process: for cases that change what the process
 * is (its nohz attribute, its CPU); a crash fails only that case. */
static inline int ktap_run_in_child(int (*run)(void))
{
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        int ok = run();
        fflush(stdout);         /* _exit() would drop CHECK's message */
        _exit(ok ? 0 : 1);
    }
    int status;
    if (child < 0 || waitpid(child, &status, 0) != child)
        return 0;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* KTAP_ONLY="case case ...": run only those cases; the others report
 * "# SKIP not in KTAP_ONLY" under their own numbers (a lab's grade runs
 * only its cases: docs/labs/README.md). */
static inline int ktap_selected(const char *name)
{
    const char *only = getenv("KTAP_ONLY");
    size_t length = strlen(name);
    if (!only)
        return 1;
    for (const char *at = strstr(only, name); at; at = strstr(at + 1, name)) {
        if ((at == only || at[-1] == ' ') && (at[length] == ' ' || at[length] == '\0'))
            return 1;
    }
    return 0;
}

static inline int ktap_run(const struct ktap_case *cases, unsigned count, int each_in_a_child)
{
    int failures = 0;
    printf("KTAP version 1\n1..%u\n", count);
    fflush(stdout);
    for (unsigned i = 0; i < count; i++) {
        if (!ktap_selected(cases[i].name)) {
            printf("ok %u %s # SKIP not in KTAP_ONLY\n", i + 1, cases[i].name);
            continue;
        }
        ktap_skip_reason = 0;
        if (ktap_before_each_case)
            ktap_before_each_case();
        int ok = each_in_a_child ? ktap_run_in_child(cases[i].run) : cases[i].run();
        printf("%sok %u %s%s%s\n", ok ? "" : "not ", i + 1, cases[i].name, ktap_skip_reason ? " # SKIP " : "",
               ktap_skip_reason ? ktap_skip_reason : "");
        fflush(stdout);
        failures += !ok;
    }
    return failures ? 1 : 0;
}

/* Run every case; the exit status is 1 if any failed. */
static inline int ktap_main(const struct ktap_case *cases, unsigned count)
{
    return ktap_run(cases, count, 0);
}

/* The same, each case in a child process of its own. */
static inline int ktap_main_each_in_a_child(const struct ktap_case *cases, unsigned count)
{
    return ktap_run(cases, count, 1);
}

#endif
