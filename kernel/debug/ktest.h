/* In-kernel tests, printed in KTAP version 1 on the console. A suite is a
 * named list of cases; ktest=NAME[,NAME...] (or ktest=all) on the kernel
 * command line runs them after boot (NAME may be SUITE/CASE: that case
 * alone, which is how tools/course/grade reruns the cases after a hang;
 * with a command too, the command runs after the tests, kernel/init/main.c) (all leaves out the panic* suites, which
 * end the run on purpose) and powers off with status 0 if every
 * case passed, 1 otherwise. Add a suite with KTEST_SUITE in any file. */
#ifndef KERNEL_KTEST_H
#define KERNEL_KTEST_H

#include <stdbool.h>
#include <stddef.h>

struct ktest {
    const char *case_name;
    unsigned failures;
    bool skipped;
    const char *skip_reason;
};

struct ktest_case {
    const char *name;
    void (*run)(struct ktest *test);
};

struct ktest_suite {
    const char *name;
    const struct ktest_case *cases;
    size_t case_count;
};

#define KTEST_CASE(function) { #function, function }

#define KTEST_SUITE(suite_name, ...)                                                   \
    static const struct ktest_case suite_name##_cases[] = { __VA_ARGS__ };             \
    static const struct ktest_suite suite_name##_suite = {                             \
        #suite_name, suite_name##_cases, sizeof(suite_name##_cases) / sizeof(struct ktest_case) \
    };                                                                                 \
    static const struct ktest_suite *const suite_name##_entry                          \
        __attribute__((used, section(".ktest_suites"))) = &suite_name##_suite

/* Check a condition; on failure print where, what, and a message. */
#define KTEST_EXPECT(test, condition, ...)                                            \
    do {                                                                               \
        if (!(condition))                                                              \
            ktest_fail(test, __FILE__, __LINE__, #condition, __VA_ARGS__);             \
    } while (0)

void ktest_fail(struct ktest *test, const char *file, int line, const char *condition, const char *format, ...)
    __attribute__((format(printf, 5, 6)));
void ktest_log(struct ktest *test, const char *format, ...) __attribute__((format(printf, 2, 3)));
void ktest_skip(struct ktest *test, const char *reason);

/* Run the suites named in a comma-separated list; returns failed cases. */
unsigned ktest_run(const char *names);

#endif
