/* Host unit tests of kernel/lib/cpumask.c: bit operations, searching, and the
 * CPU list text form in both directions. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "kernel/lib/cpumask.h"
#include "kernel/lib/errno.h"

static struct cpumask mask_of_list(const char *list)
{
    struct cpumask mask;

    cpumask_clear_all(&mask);
    assert_int_equal(cpulist_parse(list, strlen(list), &mask), 0);
    return mask;
}

static void test_set_clear_test(void **state)
{
    struct cpumask mask;

    (void)state;
    cpumask_clear_all(&mask);
    assert_true(cpumask_empty(&mask));
    cpumask_set(&mask, 0);
    cpumask_set(&mask, 63);
    cpumask_set(&mask, 5);
    assert_true(cpumask_test(&mask, 0));
    assert_true(cpumask_test(&mask, 5));
    assert_true(cpumask_test(&mask, 63));
    assert_false(cpumask_test(&mask, 1));
    assert_false(cpumask_test(&mask, 62));
    assert_int_equal(cpumask_weight(&mask), 3);
    cpumask_clear(&mask, 5);
    assert_false(cpumask_test(&mask, 5));
    assert_int_equal(cpumask_weight(&mask), 2);
    assert_false(cpumask_empty(&mask));
}

static void test_out_of_range_cpu_is_ignored(void **state)
{
    struct cpumask mask, before;

    (void)state;
    cpumask_clear_all(&mask);
    cpumask_set(&mask, 3);
    before = mask;
    cpumask_set(&mask, MAX_CPUS);
    cpumask_set(&mask, 1000);
    cpumask_set_atomic(&mask, MAX_CPUS);
    assert_true(cpumask_equal(&mask, &before));
    assert_false(cpumask_test(&mask, MAX_CPUS));
    assert_false(cpumask_test_atomic(&mask, MAX_CPUS + 7));
    cpumask_clear(&mask, MAX_CPUS);
    cpumask_clear_atomic(&mask, MAX_CPUS);
    assert_true(cpumask_equal(&mask, &before));
}

static void test_atomic_operations(void **state)
{
    struct cpumask mask;

    (void)state;
    cpumask_clear_all(&mask);
    cpumask_set_atomic(&mask, 7);
    cpumask_set_atomic(&mask, 63);
    assert_true(cpumask_test_atomic(&mask, 7));
    assert_true(cpumask_test(&mask, 63));
    cpumask_clear_atomic(&mask, 7);
    assert_false(cpumask_test_atomic(&mask, 7));
    assert_true(cpumask_test_atomic(&mask, 63));
    assert_int_equal(cpumask_weight(&mask), 1);
}

static void test_first_next_and_iteration(void **state)
{
    struct cpumask mask;
    unsigned int cpu, visited[MAX_CPUS], count = 0;

    (void)state;
    cpumask_clear_all(&mask);
    assert_int_equal(cpumask_first(&mask), MAX_CPUS);
    assert_int_equal(cpumask_next(&mask, 0), MAX_CPUS);
    for_each_cpu_in(cpu, &mask) fail_msg("empty mask visited CPU %u", cpu);

    mask = mask_of_list("0,2-3,63");
    assert_int_equal(cpumask_first(&mask), 0);
    assert_int_equal(cpumask_next(&mask, 0), 2);
    assert_int_equal(cpumask_next(&mask, 2), 3);
    assert_int_equal(cpumask_next(&mask, 3), 63);
    assert_int_equal(cpumask_next(&mask, 63), MAX_CPUS);
    assert_int_equal(cpumask_next(&mask, MAX_CPUS), MAX_CPUS);
    assert_int_equal(cpumask_next(&mask, 4000000000u), MAX_CPUS);

    for_each_cpu_in(cpu, &mask) visited[count++] = cpu;
    assert_int_equal(count, 4);
    assert_int_equal(visited[0], 0);
    assert_int_equal(visited[1], 2);
    assert_int_equal(visited[2], 3);
    assert_int_equal(visited[3], 63);

    mask = cpumask_of(40);
    assert_int_equal(cpumask_first(&mask), 40);
    assert_int_equal(cpumask_weight(&mask), 1);
}

static void test_set_operations(void **state)
{
    struct cpumask a = mask_of_list("0-3,10");
    struct cpumask b = mask_of_list("2-5,63");
    struct cpumask result, copy;

    (void)state;
    cpumask_and(&result, &a, &b);
    copy = mask_of_list("2-3");
    assert_true(cpumask_equal(&result, &copy));

    cpumask_or(&result, &a, &b);
    copy = mask_of_list("0-5,10,63");
    assert_true(cpumask_equal(&result, &copy));

    cpumask_andnot(&result, &a, &b);
    copy = mask_of_list("0-1,10");
    assert_true(cpumask_equal(&result, &copy));

    /* dst may alias a source */
    cpumask_andnot(&a, &a, &b);
    assert_true(cpumask_equal(&a, &copy));

    cpumask_copy(&copy, &b);
    assert_true(cpumask_equal(&copy, &b));
    cpumask_clear(&copy, 63);
    assert_false(cpumask_equal(&copy, &b));
    assert_int_equal(cpumask_weight(&b), 5);
}

static void test_parse_good_lists(void **state)
{
    struct cpumask mask;

    (void)state;
    mask = mask_of_list("0");
    assert_int_equal(cpumask_weight(&mask), 1);
    assert_true(cpumask_test(&mask, 0));

    mask = mask_of_list("1-3,5,7-8");
    assert_int_equal(cpumask_weight(&mask), 6);
    assert_false(cpumask_test(&mask, 0));
    assert_false(cpumask_test(&mask, 4));
    assert_false(cpumask_test(&mask, 6));
    assert_true(cpumask_test(&mask, 8));

    mask = mask_of_list("0-63");
    assert_int_equal(cpumask_weight(&mask), 64);

    mask = mask_of_list("0-254");       /* every CPU an xAPIC machine can have */
    assert_int_equal(cpumask_weight(&mask), 255);
    assert_int_equal(cpumask_first(&mask), 0);
    assert_int_equal(cpumask_next(&mask, 253), 254);
    assert_int_equal(cpumask_next(&mask, 254), MAX_CPUS);

    mask = mask_of_list("63-64,127-128,191-192,254");   /* across every word */
    assert_int_equal(cpumask_weight(&mask), 7);
    assert_int_equal(cpumask_next(&mask, 64), 127);
    assert_int_equal(cpumask_next(&mask, 192), 254);

    mask = mask_of_list("5-5,3,3"); /* single-CPU range, repeats */
    assert_int_equal(cpumask_weight(&mask), 2);

    mask = mask_of_list("007"); /* leading zeros, as Linux allows */
    assert_true(cpumask_test(&mask, 7));
}

static void test_parse_reads_only_len_bytes(void **state)
{
    struct cpumask mask;

    (void)state;
    /* "1-2" followed by bytes that are not part of the list */
    assert_int_equal(cpulist_parse("1-2xyz", 3, &mask), 0);
    assert_int_equal(cpumask_weight(&mask), 2);
    assert_int_equal(cpulist_parse("1-23", 3, &mask), 0);
    assert_false(cpumask_test(&mask, 23));
}

static void expect_parse_error(const char *list, int error)
{
    struct cpumask mask = mask_of_list("4,9");
    struct cpumask before = mask;

    assert_int_equal(cpulist_parse(list, strlen(list), &mask), error);
    if (!cpumask_equal(&mask, &before))
        fail_msg("\"%s\" changed the mask on error", list);
}

static void test_parse_errors_leave_mask_unchanged(void **state)
{
    (void)state;
    expect_parse_error("", -EINVAL);
    expect_parse_error(",", -EINVAL);
    expect_parse_error("1,", -EINVAL);
    expect_parse_error(",1", -EINVAL);
    expect_parse_error("1,,2", -EINVAL);
    expect_parse_error("3-1", -EINVAL);
    expect_parse_error("1-", -EINVAL);
    expect_parse_error("-1", -EINVAL);
    expect_parse_error("1--2", -EINVAL);
    expect_parse_error("1-2-3", -EINVAL);
    expect_parse_error(" 1", -EINVAL);
    expect_parse_error("1 ", -EINVAL);
    expect_parse_error("1, 2", -EINVAL);
    expect_parse_error("1x", -EINVAL);
    expect_parse_error("0x1", -EINVAL);
    expect_parse_error("+1", -EINVAL);
    expect_parse_error("1-3,5:2", -EINVAL);
    expect_parse_error("255", -ERANGE);       /* xAPIC: IDs 0..254, 255 is broadcast */
    expect_parse_error("0-255", -ERANGE);
    expect_parse_error("1,99999999999999999999999", -ERANGE);
    expect_parse_error("300-265", -ERANGE);
    /* a good prefix is not applied either */
    expect_parse_error("0-3,bad", -EINVAL);
    expect_parse_error("0-3,1000", -ERANGE);
}

static void expect_format(const char *list, const char *expected)
{
    struct cpumask mask;
    char buf[CPULIST_FORMAT_SIZE];

    cpumask_clear_all(&mask);
    if (list[0] != '\0')
        mask = mask_of_list(list);
    assert_int_equal(cpulist_format(&mask, buf, sizeof(buf)), strlen(expected));
    assert_string_equal(buf, expected);
}

static void test_format(void **state)
{
    (void)state;
    expect_format("", "");
    expect_format("0", "0");
    expect_format("0-2,5", "0-2,5");
    expect_format("5,0,1,2", "0-2,5");
    expect_format("0-1", "0-1");
    expect_format("63", "63");
    expect_format("0-63", "0-63");
    expect_format("1,3,5,62-63", "1,3,5,62-63");
    expect_format("0-254", "0-254");
    expect_format("64,128-130,254", "64,128-130,254");
}

static void test_format_worst_case_fits(void **state)
{
    struct cpumask mask;
    char buf[CPULIST_FORMAT_SIZE];
    char back[CPULIST_FORMAT_SIZE];
    int length;

    (void)state;
    cpumask_clear_all(&mask);
    for (unsigned int cpu = 0; cpu < MAX_CPUS; cpu += 2)
        cpumask_set(&mask, cpu);
    length = cpulist_format(&mask, buf, sizeof(buf));
    assert_true(length > 0);
    assert_int_equal(length, strlen(buf));
    /* and the text reads back as the same mask */
    struct cpumask parsed;
    assert_int_equal(cpulist_parse(buf, (size_t)length, &parsed), 0);
    assert_true(cpumask_equal(&parsed, &mask));
    assert_int_equal(cpulist_format(&parsed, back, sizeof(back)), length);
    assert_string_equal(back, buf);
}

static void test_format_no_space(void **state)
{
    struct cpumask mask = mask_of_list("0-2,10"); /* "0-2,10": 6 chars */
    char buf[8];

    (void)state;
    assert_int_equal(cpulist_format(&mask, buf, 7), 6);
    assert_string_equal(buf, "0-2,10");

    memset(buf, 'x', sizeof(buf));
    assert_int_equal(cpulist_format(&mask, buf, 6), -ENOSPC);
    assert_string_equal(buf, "");  /* never a misleading "0-2,1" */
    assert_int_equal(buf[6], 'x'); /* nothing written past size */

    memset(buf, 'x', sizeof(buf));
    assert_int_equal(cpulist_format(&mask, buf, 1), -ENOSPC);
    assert_int_equal(buf[0], '\0');

    assert_int_equal(cpulist_format(&mask, buf, 0), -ENOSPC);

    cpumask_clear_all(&mask);
    assert_int_equal(cpulist_format(&mask, buf, 1), 0);
    assert_string_equal(buf, "");
}

static void expect_bitmap(const char *list, unsigned int bits, const char *expected)
{
    struct cpumask mask;
    char buf[CPUMASK_BITMAP_FORMAT_SIZE];

    cpumask_clear_all(&mask);
    if (list[0] != '\0')
        mask = mask_of_list(list);
    assert_int_equal(cpumask_format_bitmap(&mask, bits, buf, sizeof(buf)), strlen(expected));
    assert_string_equal(buf, expected);
}

/* Linux's "%*pb" of /proc/PID/status Cpus_allowed: hex in 32-bit chunks,
 * most significant first, the first as wide as its bits need. */
static void test_format_bitmap(void **state)
{
    char small[8];
    struct cpumask mask = mask_of_list("0-254");

    (void)state;
    expect_bitmap("0-3", 4, "f");
    expect_bitmap("0-1", 2, "3");
    expect_bitmap("1", 4, "2");
    expect_bitmap("", 4, "0");
    expect_bitmap("0-31", 32, "ffffffff");
    expect_bitmap("0", 33, "0,00000001");
    expect_bitmap("0-63", 64, "ffffffff,ffffffff");
    expect_bitmap("63", 64, "80000000,00000000");
    expect_bitmap("0-254", 255, "7fffffff,ffffffff,ffffffff,ffffffff,ffffffff,ffffffff,ffffffff,ffffffff");
    expect_bitmap("254", 255, "40000000,00000000,00000000,00000000,00000000,00000000,00000000,00000000");
    expect_bitmap("0-63,128", 130, "1,00000000,00000000,ffffffff,ffffffff");
    assert_int_equal(cpumask_format_bitmap(&mask, 255, small, sizeof(small)), -ENOSPC);
    assert_string_equal(small, "");
    assert_int_equal(cpumask_format_bitmap(&mask, 0, small, sizeof(small)), -EINVAL);
    assert_int_equal(cpumask_format_bitmap(&mask, MAX_CPUS + 1, small, sizeof(small)), -EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_set_clear_test),
        cmocka_unit_test(test_out_of_range_cpu_is_ignored),
        cmocka_unit_test(test_atomic_operations),
        cmocka_unit_test(test_first_next_and_iteration),
        cmocka_unit_test(test_set_operations),
        cmocka_unit_test(test_parse_good_lists),
        cmocka_unit_test(test_parse_reads_only_len_bytes),
        cmocka_unit_test(test_parse_errors_leave_mask_unchanged),
        cmocka_unit_test(test_format),
        cmocka_unit_test(test_format_worst_case_fits),
        cmocka_unit_test(test_format_no_space),
        cmocka_unit_test(test_format_bitmap),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
