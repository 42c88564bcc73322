/* Host tests of the "#!" line parser (kernel/process/script.c): what
 * Linux's binfmt_script makes of each line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "kernel/lib/errno.h"
#include "kernel/process/script.h"

static int parse(const char *text, size_t length, struct script_line *line)
{
    memset(line, 0x55, sizeof(*line));
    return script_parse(text, length, line);
}

static int parse_text(const char *text, struct script_line *line)
{
    return parse(text, strlen(text), line);
}

static void test_plain(void **state)
{
    (void)state;
    struct script_line line;
    assert_int_equal(parse_text("#!/bin/sh\necho hi\n", &line), 0);
    assert_string_equal(line.interpreter, "/bin/sh");
    assert_false(line.has_argument);
}

/* Blanks around the name go; the argument is the rest of the line, its
 * inner blanks kept, its trailing ones not. */
static void test_argument(void **state)
{
    (void)state;
    struct script_line line;
    assert_int_equal(parse_text("#! \t/usr/bin/env  python3 -u \t\n", &line), 0);
    assert_string_equal(line.interpreter, "/usr/bin/env");
    assert_true(line.has_argument);
    assert_string_equal(line.argument, "python3 -u");
    assert_int_equal(parse_text("#!/bin/sh   \n", &line), 0);
    assert_false(line.has_argument);
}

static void test_not_scripts(void **state)
{
    (void)state;
    struct script_line line;
    assert_int_equal(parse_text("", &line), -ENOEXEC);
    assert_int_equal(parse_text("#", &line), -ENOEXEC);
    assert_int_equal(parse_text("#/bin/sh\n", &line), -ENOEXEC);
    assert_int_equal(parse_text("\x7f" "ELF", &line), -ENOEXEC);
    assert_int_equal(parse_text("#!\n", &line), -ENOEXEC);
    assert_int_equal(parse_text("#! \t \n/bin/sh\n", &line), -ENOEXEC);
}

/* A file that ends after the name: the zeros past its end end it. */
static void test_no_newline(void **state)
{
    (void)state;
    struct script_line line;
    assert_int_equal(parse_text("#!/bin/sh", &line), 0);
    assert_string_equal(line.interpreter, "/bin/sh");
    assert_false(line.has_argument);
    assert_int_equal(parse_text("#!/bin/sh -x", &line), 0);
    assert_string_equal(line.argument, "-x");
    /* Linux's quirk: blanks at the end of the file are not trimmed (the
     * line's end is byte 255), so the argument is "" at the first NUL. */
    assert_int_equal(parse_text("#!/bin/sh ", &line), 0);
    assert_true(line.has_argument);
    assert_string_equal(line.argument, "");
}

/* Only SCRIPT_LINE_MAX bytes are read: a name that reaches their end may
 * be cut, and is refused; a long argument is cut at byte 255. */
static void test_line_limit(void **state)
{
    (void)state;
    struct script_line line;
    char text[400];
    memset(text, 'n', sizeof(text));
    memcpy(text, "#!/", 3);
    assert_int_equal(parse(text, sizeof(text), &line), -ENOEXEC);
    memcpy(text, "#!/bin/sh ", 10);
    memset(text + 10, 'a', sizeof(text) - 10);
    assert_int_equal(parse(text, sizeof(text), &line), 0);
    assert_string_equal(line.interpreter, "/bin/sh");
    assert_int_equal(strlen(line.argument), SCRIPT_LINE_MAX - 1 - 10);
    memset(text, 'n', sizeof(text));
    memcpy(text, "#!/", 3);
    text[254] = ' ';            /* the name ends inside the bytes read */
    assert_int_equal(parse(text, sizeof(text), &line), 0);
    assert_int_equal(strlen(line.interpreter), 254 - 2);
    assert_false(line.has_argument);
}

/* A NUL ends the search for '\n' and the name; a name that is empty
 * parses, and its lookup fails (ENOENT), as on Linux. */
static void test_nul(void **state)
{
    (void)state;
    struct script_line line;
    assert_int_equal(parse("#!/bin/sh\0-x\n", 13, &line), 0);
    assert_string_equal(line.interpreter, "/bin/sh");
    assert_false(line.has_argument);
    assert_int_equal(parse("#! \0/bin/sh\n", 12, &line), 0);
    assert_string_equal(line.interpreter, "");
    /* A blank then a NUL: the argument starts at the NUL, and is "". */
    assert_int_equal(parse("#!/bin/sh \t\0-x\n", 15, &line), 0);
    assert_true(line.has_argument);
    assert_string_equal(line.argument, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain),      cmocka_unit_test(test_argument), cmocka_unit_test(test_not_scripts),
        cmocka_unit_test(test_no_newline), cmocka_unit_test(test_line_limit), cmocka_unit_test(test_nul),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
