/* The KTAP test runner: see kernel/debug/ktest.h. Suites are collected by the
 * linker into the .ktest_suites section (linker.ld). */
#include "kernel/debug/ktest.h"

#include <stdarg.h>

#include "kernel/lib/format.h"
#include "kernel/base/printk.h"
#include "kernel/lib/string.h"

extern const struct ktest_suite *const __ktest_suites_start[], *const __ktest_suites_end[];

static void print_diagnostic(const char *format, va_list args)
{
    char line[256];
    vsnprintf(line, sizeof(line), format, args);
    printk("        # %s\n", line);
}

void ktest_fail(struct ktest *test, const char *file, int line, const char *condition, const char *format, ...)
{
    va_list args;

    test->failures++;
    printk("        # %s: %s:%d: expected %s\n", test->case_name, file, line, condition);
    va_start(args, format);
    print_diagnostic(format, args);
    va_end(args);
}

void ktest_log(struct ktest *test, const char *format, ...)
{
    va_list args;
    (void)test;
    va_start(args, format);
    print_diagnostic(format, args);
    va_end(args);
}

void ktest_skip(struct ktest *test, const char *reason)
{
    test->skipped = true;
    test->skip_reason = reason;
}

static const struct ktest_suite *find_suite(const char *name, size_t length)
{
    for (const struct ktest_suite *const *s = __ktest_suites_start; s < __ktest_suites_end; s++) {
        if (strlen((*s)->name) == length && strncmp((*s)->name, name, length) == 0)
            return *s;
    }
    return 0;
}

static unsigned run_suite(const struct ktest_suite *suite, unsigned number)
{
    unsigned failed = 0;

    printk("    KTAP version 1\n    # Subtest: %s\n    1..%zu\n", suite->name, suite->case_count);
    for (size_t i = 0; i < suite->case_count; i++) {
        struct ktest test = { .case_name = suite->cases[i].name };
        suite->cases[i].run(&test);
        if (test.skipped)
            printk("    ok %zu %s # SKIP %s\n", i + 1, test.case_name, test.skip_reason);
        else
            printk("    %s %zu %s\n", test.failures ? "not ok" : "ok", i + 1, test.case_name);
        if (test.failures)
            failed++;
    }
    printk("%s %u %s\n", failed ? "not ok" : "ok", number, suite->name);
    return failed;
}

/* Suites named panic* end the run with a deliberate panic: "all" leaves
 * them out, so that every other suite gets to run. */
static bool in_all(const struct ktest_suite *suite)
{
    return strncmp(suite->name, "panic", 5) != 0;
}

/* Split the list on commas; "all" means every suite but the panic ones. */
static unsigned count_names(const char *names)
{
    if (strcmp(names, "all") == 0) {
        unsigned count = 0;
        for (const struct ktest_suite *const *s = __ktest_suites_start; s < __ktest_suites_end; s++)
            count += in_all(*s);
        return count;
    }
    unsigned count = 1;
    for (const char *p = names; *p; p++)
        count += *p == ',';
    return count;
}

unsigned ktest_run(const char *names)
{
    unsigned failed = 0, number = 0;

    printk("KTAP version 1\n1..%u\n", count_names(names));
    if (strcmp(names, "all") == 0) {
        for (const struct ktest_suite *const *s = __ktest_suites_start; s < __ktest_suites_end; s++) {
            if (in_all(*s))
                failed += run_suite(*s, ++number);
        }
        return failed;
    }
    for (const char *start = names; *start;) {
        const char *end = strchr(start, ',');
        size_t length = end ? (size_t)(end - start) : strlen(start);
        const struct ktest_suite *suite = find_suite(start, length);
        number++;
        if (suite) {
            failed += run_suite(suite, number);
        } else {
            printk("not ok %u %.*s # no such suite\n", number, (int)length, start);
            failed++;
        }
        start += length + (end ? 1 : 0);
    }
    return failed;
}
