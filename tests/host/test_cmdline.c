/* Host unit tests of kernel/init/cmdline.c: a table like the kernel's, parsed
 * from good and bad command lines, checking the stored values, that bad
 * values keep the defaults, and the exact messages reported. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "kernel/init/cmdline.h"

enum { TICK_PERIODIC, TICK_IDLE, TICK_TASK, TICK_FULL };

static const char *const tick_names[] = {"periodic", "idle", "task", "full", NULL};

static uint64_t hz;
static uint64_t rcu_fanout;
static uint64_t count;
static int tick;
static bool strace;
static bool quiet;
static struct cpumask nohz_full;
static char init_path[16];

static struct kernel_param params[] = {
    PARAM_UINT_ONE_OF("hz", &hz, 100, 250, 1000),
    PARAM_UINT_RANGE("rcu_fanout", &rcu_fanout, 2, 64),
    PARAM_UINT("count", &count),
    PARAM_ENUM("tick", &tick, tick_names),
    PARAM_BOOL("strace", &strace),
    PARAM_BOOL("quiet", &quiet),
    PARAM_CPULIST("nohz_full", &nohz_full),
    PARAM_STRING("init", init_path, sizeof(init_path)),
};
#define PARAM_COUNT (sizeof(params) / sizeof(params[0]))

enum { HZ, RCU_FANOUT, COUNT, TICK, STRACE, QUIET, NOHZ_FULL, INIT };

#define MAX_REPORTS 16
static char reports[MAX_REPORTS][CMDLINE_MAX_MESSAGE + 1];
static size_t report_count;

static void record_report(void *ctx, const char *message)
{
    assert_ptr_equal(ctx, &report_count);
    assert_true(strlen(message) <= CMDLINE_MAX_MESSAGE);
    assert_null(strchr(message, '\n')); /* one line */
    if (report_count < MAX_REPORTS)
        snprintf(reports[report_count], sizeof(reports[0]), "%s", message);
    report_count++;
}

static int parse(const char *cmdline)
{
    report_count = 0;
    return cmdline_parse(cmdline, params, PARAM_COUNT, record_report, &report_count);
}

/* Parses a line that must yield exactly one problem, with this message. */
static void expect_one_problem(const char *cmdline, const char *message)
{
    assert_int_equal(parse(cmdline), 1);
    assert_int_equal(report_count, 1);
    assert_string_equal(reports[0], message);
}

static int set_defaults(void **state)
{
    (void)state;
    hz = 1000;
    rcu_fanout = 16;
    count = 7;
    tick = TICK_TASK;
    strace = false;
    quiet = false;
    cpumask_clear_all(&nohz_full);
    strcpy(init_path, "/sbin/init");
    report_count = 0;
    return 0;
}

static void assert_all_defaults(void)
{
    assert_int_equal(hz, 1000);
    assert_int_equal(rcu_fanout, 16);
    assert_int_equal(count, 7);
    assert_int_equal(tick, TICK_TASK);
    assert_false(strace);
    assert_false(quiet);
    assert_true(cpumask_empty(&nohz_full));
    assert_string_equal(init_path, "/sbin/init");
}

static void test_empty_line_keeps_defaults(void **state)
{
    (void)state;
    assert_int_equal(parse(""), 0);
    assert_int_equal(parse("   \t  "), 0);
    assert_int_equal(parse(NULL), 0);
    assert_int_equal(report_count, 0);
    assert_all_defaults();
    for (size_t i = 0; i < PARAM_COUNT; i++)
        assert_false(params[i].seen);
}

static void test_good_values(void **state)
{
    (void)state;
    assert_int_equal(parse("hz=250 tick=full nohz_full=1-3,5 "
                           "rcu_fanout=0x20 count=18446744073709551615 "
                           "strace quiet=off init=/bin/sh"),
                     0);
    assert_int_equal(report_count, 0);
    assert_int_equal(hz, 250);
    assert_int_equal(tick, TICK_FULL);
    assert_int_equal(cpumask_weight(&nohz_full), 4);
    assert_true(cpumask_test(&nohz_full, 5));
    assert_int_equal(rcu_fanout, 32);
    assert_true(count == UINT64_MAX);
    assert_true(strace);
    assert_false(quiet);
    assert_string_equal(init_path, "/bin/sh");
    for (size_t i = 0; i < PARAM_COUNT; i++)
        assert_true(params[i].seen);

    /* the next parse starts with every seen flag cleared */
    assert_int_equal(parse("hz=100"), 0);
    assert_true(params[HZ].seen);
    assert_false(params[TICK].seen);
    assert_false(params[INIT].seen);
}

static void test_separators(void **state)
{
    (void)state;
    assert_int_equal(parse("\t hz=100\t\ttick=idle   strace \n"), 0);
    assert_int_equal(hz, 100);
    assert_int_equal(tick, TICK_IDLE);
    assert_true(strace);
}

static void test_bool_words(void **state)
{
    static const struct {
        const char *line;
        bool value;
    } cases[] = {
        {"quiet=1", true},    {"quiet=0", false},     {"quiet=on", true},
        {"quiet=off", false}, {"quiet=yes", true},    {"quiet=no", false},
        {"quiet=true", true}, {"quiet=false", false}, {"quiet", true},
    };

    (void)state;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        quiet = !cases[i].value;
        assert_int_equal(parse(cases[i].line), 0);
        if (quiet != cases[i].value)
            fail_msg("\"%s\" gave %d", cases[i].line, quiet);
    }
}

static void test_messages(void **state)
{
    (void)state;
    expect_one_problem("foo=1", "unknown parameter \"foo=1\"");
    expect_one_problem("foo", "unknown parameter \"foo\"");
    expect_one_problem("hzz=100", "unknown parameter \"hzz=100\"");
    expect_one_problem("h=100", "unknown parameter \"h=100\"");
    expect_one_problem("=100", "unknown parameter \"=100\"");
    expect_one_problem("hz=123", "hz=123: must be one of 100, 250, 1000");
    expect_one_problem("hz=", "hz=: must be one of 100, 250, 1000");
    expect_one_problem("hz", "hz: needs a value (hz=...)");
    expect_one_problem("tick=bogus", "tick=bogus: must be one of periodic, idle, task, full");
    expect_one_problem("tick=Full", "tick=Full: must be one of periodic, idle, task, full");
    expect_one_problem("nohz_full=3-1", "nohz_full=3-1: not a CPU list");
    expect_one_problem("nohz_full=", "nohz_full=: not a CPU list");
    expect_one_problem("nohz_full=0-255", "nohz_full=0-255: CPU numbers must be below 255");
    expect_one_problem("rcu_fanout=1", "rcu_fanout=1: must be a number from 2 to 64");
    expect_one_problem("rcu_fanout=65", "rcu_fanout=65: must be a number from 2 to 64");
    expect_one_problem("count=-1", "count=-1: must be a number");
    expect_one_problem("strace=maybe", "strace=maybe: must be 1, 0, on, off, yes, no, "
                                       "true or false");
    expect_one_problem("strace=", "strace=: must be 1, 0, on, off, yes, "
                                  "no, true or false");
    expect_one_problem("init=/a/path/of/16chr", "init=/a/path/of/16chr: longer than 15 characters");
    expect_one_problem("init=\"/bin/sh -c", "init=/bin/sh -c: missing closing quote");
    /* none of the above changed anything */
    assert_all_defaults();
}

static void test_bad_numbers(void **state)
{
    static const char *const lines[] = {
        "count=18446744073709551616", /* UINT64_MAX + 1 */
        "count=99999999999999999999999",
        "count=0x10000000000000000",
        "count=0x",
        "count=0xg",
        "count=12abc",
        "count=\" 1\"",
        "count=+1",
        "count=1.5",
        "count=1e3",
    };

    (void)state;
    for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
        if (parse(lines[i]) != 1)
            fail_msg("\"%s\" was accepted", lines[i]);
        assert_int_equal(count, 7);
    }
    assert_int_equal(parse("count=0xFfFfFfFfFfFfFfFf"), 0);
    assert_true(count == UINT64_MAX);
    assert_int_equal(parse("count=0"), 0);
    assert_int_equal(count, 0);
}

static void test_every_problem_reported_once(void **state)
{
    (void)state;
    assert_int_equal(parse("hz=250 foo tick=bogus hz=7 init=/bin/sh "
                           "nohz_full=1,x"),
                     4);
    assert_int_equal(report_count, 4);
    assert_string_equal(reports[0], "unknown parameter \"foo\"");
    assert_string_equal(reports[1], "tick=bogus: must be one of periodic, idle, task, full");
    assert_string_equal(reports[2], "hz=7: must be one of 100, 250, 1000");
    assert_string_equal(reports[3], "nohz_full=1,x: not a CPU list");
    /* the good words still apply; the bad ones kept what was there */
    assert_int_equal(hz, 250);
    assert_int_equal(tick, TICK_TASK);
    assert_string_equal(init_path, "/bin/sh");
    assert_true(cpumask_empty(&nohz_full));
    assert_false(params[TICK].seen);
    assert_false(params[NOHZ_FULL].seen);
}

static void test_last_good_value_wins(void **state)
{
    (void)state;
    assert_int_equal(parse("hz=100 hz=250"), 0);
    assert_int_equal(hz, 250);
    assert_int_equal(parse("nohz_full=1-3 nohz_full=7"), 0);
    assert_int_equal(cpumask_weight(&nohz_full), 1);
    assert_true(cpumask_test(&nohz_full, 7));
    assert_int_equal(parse("hz=100 hz=42"), 1);
    assert_int_equal(hz, 100);
    assert_true(params[HZ].seen);
}

static void test_quotes(void **state)
{
    char long_init[64];
    struct kernel_param wide[] = {
        PARAM_STRING("init", long_init, sizeof(long_init)),
    };

    (void)state;
    assert_int_equal(cmdline_parse("init=\"/bin/sh -c 'x y'\" "
                                   "other=\"a\tb\"",
                                   wide, 1, NULL, NULL),
                     1);
    assert_string_equal(long_init, "/bin/sh -c 'x y'");

    assert_int_equal(cmdline_parse("\"init=/bin/a b\"", wide, 1, NULL, NULL), 0);
    assert_string_equal(long_init, "/bin/a b");

    assert_int_equal(cmdline_parse("init=/bin/\"x\"y\"\"", wide, 1, NULL, NULL), 0);
    assert_string_equal(long_init, "/bin/xy");

    assert_int_equal(cmdline_parse("init=\"\"", wide, 1, NULL, NULL), 0);
    assert_string_equal(long_init, "");

    /* quotes around a number are removed before it is read */
    assert_int_equal(parse("hz=\"250\""), 0);
    assert_int_equal(hz, 250);
}

static void test_string_length_limit(void **state)
{
    (void)state;
    /* 15 characters fit a 16-byte buffer, 16 do not */
    assert_int_equal(parse("init=/0123456789abcd"), 0);
    assert_string_equal(init_path, "/0123456789abcd");
    assert_int_equal(parse("init=/0123456789abcde"), 1);
    assert_string_equal(init_path, "/0123456789abcd");
    assert_int_equal(parse("init="), 0);
    assert_string_equal(init_path, "");
}

static void test_long_word(void **state)
{
    char line[CMDLINE_MAX_WORD + 64];
    size_t length;

    (void)state;
    /* a word of exactly CMDLINE_MAX_WORD characters is read whole ... */
    strcpy(line, "foo=");
    length = strlen(line);
    memset(line + length, 'a', CMDLINE_MAX_WORD - length);
    line[CMDLINE_MAX_WORD] = '\0';
    assert_int_equal(parse(line), 1);
    /* ... and quoted in the message cut to 64 characters and "..." */
    assert_int_equal(strlen(reports[0]), strlen("unknown parameter \"\"") + 64 + 3);
    assert_memory_equal(reports[0] + strlen(reports[0]) - 4, "...\"", 4);

    /* one more character is too long, then the next word still counts */
    strcpy(line + CMDLINE_MAX_WORD, "b hz=250");
    assert_int_equal(parse(line), 1);
    assert_non_null(strstr(reports[0], ": longer than 511 characters"));
    assert_int_equal(hz, 250);
}

static void test_null_report(void **state)
{
    (void)state;
    assert_int_equal(cmdline_parse("foo hz=1 tick=task", params, PARAM_COUNT, NULL, NULL), 2);
    assert_int_equal(hz, 1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_empty_line_keeps_defaults, set_defaults),
        cmocka_unit_test_setup(test_good_values, set_defaults),
        cmocka_unit_test_setup(test_separators, set_defaults),
        cmocka_unit_test_setup(test_bool_words, set_defaults),
        cmocka_unit_test_setup(test_messages, set_defaults),
        cmocka_unit_test_setup(test_bad_numbers, set_defaults),
        cmocka_unit_test_setup(test_every_problem_reported_once, set_defaults),
        cmocka_unit_test_setup(test_last_good_value_wins, set_defaults),
        cmocka_unit_test_setup(test_quotes, set_defaults),
        cmocka_unit_test_setup(test_string_length_limit, set_defaults),
        cmocka_unit_test_setup(test_long_word, set_defaults),
        cmocka_unit_test_setup(test_null_report, set_defaults),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
