/* The KTAP plumbing shared by the test programs of tests/user/ that are a
 * flat list of cases: each case is a function returning 1 (pass) or 0
 * (fail, after CHECK printed why); ktap_main() runs them in order and
 * prints one KTAP document. The programs are single static binaries, so
 * everything here is static. */
#ifndef TESTS_USER_KTAP_H
#define TESTS_USER_KTAP_H

#include <errno.h>
#include <stdio.h>
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

/* Names of the cases to run (ktap_select()); none: every case. */
static char *const *ktap_selected __attribute__((unused));
static int ktap_selected_count __attribute__((unused));

/* Run only the cases named (a lab's grade runs its few, docs/labs/).
 * A name that is no case is reported as a failing case of that name. */
static inline void ktap_select(char *const *names, int count)
{
    ktap_selected = names;
    ktap_selected_count = count;
}

static inline int ktap_is_selected(const char *name)
{
    if (!ktap_selected_count)
        return 1;
    for (int i = 0; i < ktap_selected_count; i++)
        if (strcmp(ktap_selected[i], name) == 0)
            return 1;
    return 0;
}

static inline int ktap_unknown_names(const struct ktap_case *cases, unsigned count, unsigned number)
{
    int unknown = 0;
    for (int i = 0; i < ktap_selected_count; i++) {
        unsigned k = 0;
        while (k < count && strcmp(cases[k].name, ktap_selected[i]) != 0)
            k++;
        if (k == count) {
            printf("not ok %u %s # no such case\n", ++number, ktap_selected[i]);
            unknown++;
        }
    }
    return unknown;
}

static inline int ktap_run(const struct ktap_case *cases, unsigned count, int each_in_a_child)
{
    int failures = 0;
    unsigned planned = 0, number = 0;
    for (unsigned i = 0; i < count; i++)
        planned += ktap_is_selected(cases[i].name);
    for (int i = 0; i < ktap_selected_count; i++) {
        unsigned k = 0;
        while (k < count && strcmp(cases[k].name, ktap_selected[i]) != 0)
            k++;
        planned += k == count;
    }
    printf("KTAP version 1\n1..%u\n", planned);
    fflush(stdout);
    for (unsigned i = 0; i < count; i++) {
        if (!ktap_is_selected(cases[i].name))
            continue;
        ktap_skip_reason = 0;
        if (ktap_before_each_case)
            ktap_before_each_case();
        int ok = each_in_a_child ? ktap_run_in_child(cases[i].run) : cases[i].run();
        printf("%sok %u %s%s%s\n", ok ? "" : "not ", ++number, cases[i].name, ktap_skip_reason ? " # SKIP " : "",
               ktap_skip_reason ? ktap_skip_reason : "");
        fflush(stdout);
        failures += !ok;
    }
    failures += ktap_unknown_names(cases, count, number);
    fflush(stdout);
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
