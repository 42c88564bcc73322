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

static bool is_named(const char *name, const char *only, size_t only_length)
{
    return !only || (strlen(name) == only_length && strncmp(name, only, only_length) == 0);
}

/* Run suite's cases, or only the one named only (only_length characters;
 * NULL: all), as a subtest numbered number. */
static unsigned run_suite(const struct ktest_suite *suite, unsigned number, const char *only, size_t only_length)
{
    unsigned failed = 0, run = 0;
    size_t planned = 0;

    for (size_t i = 0; i < suite->case_count; i++)
        planned += is_named(suite->cases[i].name, only, only_length);
    printk("    KTAP version 1\n    # Subtest: %s\n    1..%zu\n", suite->name, planned);
    for (size_t i = 0; i < suite->case_count; i++) {
        struct ktest test = { .case_name = suite->cases[i].name };
        if (!is_named(test.case_name, only, only_length))
            continue;
        run++;
        suite->cases[i].run(&test);
        if (test.skipped)
            printk("    ok %u %s # SKIP %s\n", run, test.case_name, test.skip_reason);
        else
            printk("    %s %u %s\n", test.failures ? "not ok" : "ok", run, test.case_name);
        if (test.failures)
            failed++;
    }
    if (planned == 0) {
        printk("not ok %u %s # no such case %.*s\n", number, suite->name, (int)only_length, only);
        return 1;
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
                failed += run_suite(*s, ++number, 0, 0);
        }
        return failed;
    }
    for (const char *start = names; *start;) {
        const char *end = strchr(start, ',');
        size_t length = end ? (size_t)(end - start) : strlen(start);
        size_t suite_length = 0;
        while (suite_length < length && start[suite_length] != '/')
            suite_length++;
        const char *slash = suite_length < length ? start + suite_length : 0;
        const struct ktest_suite *suite = find_suite(start, suite_length);
        number++;
        if (suite) {
            failed += slash ? run_suite(suite, number, slash + 1, length - suite_length - 1)
                            : run_suite(suite, number, 0, 0);
        } else {
            printk("not ok %u %.*s # no such suite\n", number, (int)suite_length, start);
            failed++;
        }
        start += length + (end ? 1 : 0);
    }
    return failed;
}
