/* The KTAP plumbing shared by the test programs of tests/user/ that are a
 * flat list of cases: each case is a function returning 1 (pass) or 0
 * (fail, after CHECK printed why); ktap_main() runs them in order and
 * prints one KTAP document. The programs are single static binaries, so
 * everything here is static. */
#ifndef TESTS_USER_KTAP_H
#define TESTS_USER_KTAP_H

#include <errno.h>
#include <stdio.h>

struct ktap_case {
    const char *name;
    int (*run)(void);
};

static int ktap_failures;
static const char *ktap_skip_reason;   /* set by a case that cannot run here; it then returns 1 */

/* Fail the current case: print the condition and errno as a KTAP comment. */
#define CHECK(condition)                                                                        \
    do {                                                                                        \
        if (!(condition)) {                                                                     \
            printf("# %s:%d: %s failed (errno %d)\n", __FILE__, __LINE__, #condition, errno);    \
            return 0;                                                                           \
        }                                                                                       \
    } while (0)

#define KTAP_CASE(function) { #function, function }

/* Run every case; the exit status is 1 if any failed. */
static int ktap_main(const struct ktap_case *cases, unsigned count)
{
    printf("KTAP version 1\n1..%u\n", count);
    fflush(stdout);
    for (unsigned i = 0; i < count; i++) {
        ktap_skip_reason = 0;
        int ok = cases[i].run();
        printf("%sok %u %s%s%s\n", ok ? "" : "not ", i + 1, cases[i].name, ktap_skip_reason ? " # SKIP " : "",
               ktap_skip_reason ? ktap_skip_reason : "");
        fflush(stdout);
        ktap_failures += !ok;
    }
    return ktap_failures ? 1 : 0;
}

#endif
