/* Host unit tests of user/lib/proc_interrupts.h, the /proc/interrupts
 * parser of spin, osnoise and the test programs: long rows are read
 * whole, columns are found by CPU name, and every text it cannot read is
 * an error with a reason, never a count of 0. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "user/lib/proc_interrupts.h"

static int parse_text(const char *text, struct interrupt_table *table)
{
    FILE *file = fmemopen((void *)text, strlen(text), "r");
    assert_non_null(file);
    int result = interrupt_table_parse(file, table);
    fclose(file);
    return result;
}

/* The kernel's layout (kernel/irq/irq_proc.c generate_interrupts) for cpus
 * CPUs; CPU c's LOC count is 1000 + c, its RES count c. */
static char *nohzk_text(unsigned cpus)
{
    char *text;
    size_t size;
    FILE *out = open_memstream(&text, &size);
    fprintf(out, "%11s", "");
    for (unsigned cpu = 0; cpu < cpus; cpu++)
        fprintf(out, "CPU%-8u", cpu);
    fprintf(out, "\n  0: ");
    for (unsigned cpu = 0; cpu < cpus; cpu++)
        fprintf(out, "%10u ", cpu == 0 ? 77 : 0);
    fprintf(out, " IO-APIC  0-edge\nLOC: ");
    for (unsigned cpu = 0; cpu < cpus; cpu++)
        fprintf(out, "%10u ", 1000 + cpu);
    fprintf(out, "  Local timer interrupts\nRES: ");
    for (unsigned cpu = 0; cpu < cpus; cpu++)
        fprintf(out, "%10u ", cpu);
    fprintf(out, "  Rescheduling interrupts\n");
    fclose(out);
    return text;
}

static void test_255_cpus_rows_are_read_whole(void **state)
{
    struct interrupt_table table;
    char *text = nohzk_text(255);
    (void)state;
    assert_true(strlen(text) > 3 * 2800);
    assert_int_equal(parse_text(text, &table), 0);
    assert_int_equal(table.columns, 255);
    assert_int_equal(table.rows, 3);
    int column = interrupt_table_column(&table, 254), loc = interrupt_table_row(&table, "LOC");
    assert_int_equal(column, 254);
    assert_int_equal(loc, 1);
    assert_int_equal(table.row[loc].counts[column], 1254);
    assert_int_equal(table.row[interrupt_table_row(&table, "RES")].counts[column], 254);
    assert_int_equal(table.row[interrupt_table_row(&table, "0")].counts[0], 77);
    interrupt_table_free(&table);
    free(text);
}

/* Linux's layout: device rows with descriptions that hold digits, and
 * ERR and MIS with one total each, which are not per-CPU rows. */
static void test_linux_layout(void **state)
{
    static const char text[] = "           CPU0       CPU1       \n"
                               "  0:         44          0   IO-APIC   2-edge      timer\n"
                               " 24:          0       3011   PCI-MSI 65536-edge      nvme0q0\n"
                               "NMI:          5          6   Non-maskable interrupts\n"
                               "LOC:     123456     654321   Local timer interrupts\n"
                               "ERR:          0\n"
                               "MIS:          0\n";
    struct interrupt_table table;
    (void)state;
    assert_int_equal(parse_text(text, &table), 0);
    assert_int_equal(table.columns, 2);
    assert_int_equal(table.rows, 4);
    assert_int_equal(table.row[interrupt_table_row(&table, "LOC")].counts[1], 654321);
    assert_int_equal(table.row[interrupt_table_row(&table, "24")].counts[1], 3011);
    assert_int_equal(interrupt_table_row(&table, "ERR"), -1);
    assert_non_null(strstr(table.why, "no per-CPU row ERR"));
    interrupt_table_free(&table);
}

/* Columns are CPUs by name: with CPU 1 offline, CPU 2 is column 1. */
static void test_columns_found_by_cpu_name(void **state)
{
    static const char text[] = "    CPU0 CPU2 \nLOC:  10  30   Local timer interrupts\n";
    struct interrupt_table table;
    (void)state;
    assert_int_equal(parse_text(text, &table), 0);
    assert_int_equal(interrupt_table_column(&table, 2), 1);
    assert_int_equal(interrupt_table_column(&table, 1), -1);
    assert_string_equal(table.why, "no column CPU1 in the header (2 CPUs)");
    assert_int_equal(interrupt_table_column(&table, 3), -1);
    interrupt_table_free(&table);
}

static void expect_error(const char *text, const char *why)
{
    struct interrupt_table table;
    assert_int_equal(parse_text(text, &table), -1);
    assert_int_equal(table.rows, 0);
    assert_int_equal(table.columns, 0);
    assert_null(table.row);
    if (!strstr(table.why, why))
        fail_msg("reason \"%s\", expected it to hold \"%s\"", table.why, why);
}

static void test_unreadable_text_is_an_error(void **state)
{
    (void)state;
    expect_error("", "empty");
    expect_error("   CPU0 CPU1\nLOC: 1 2\nRES: 3", "line 3 is not ended by a newline");
    expect_error("   CPU0 CPU1", "line 1 is not ended by a newline");
    expect_error("\n", "the header names no CPU");
    expect_error("   CPU0 CPUx\n", "header word \"CPUx\" is not CPUn");
    expect_error("   CPU0 cpu1\n", "header word \"cpu1\" is not CPUn");
    expect_error("   CPU0 C\n", "header word \"C\" is not CPUn");
    expect_error("   CPU0 CPU\n", "header word \"CPU\" is not CPUn");
    expect_error("   CPU0 CPU-1\n", "header word \"CPU-1\" is not CPUn");
    expect_error("   CPU0 CPU99999999999\n", "header word \"CPU99999999999\" is not CPUn");
    expect_error("   CPU0 CPU1 CPU2\nLOC: 1 2   Local\n", "row LOC has 2 counts, the header 3 CPUs");
    expect_error("   CPU0 CPU1\nLOC: 1 2 3  Local\n", "row LOC has more than 2 counts, the header 2 CPUs");
    expect_error("   CPU0 CPU1\nLOC: 1 -2  Local\n", "row LOC has 1 counts");
    expect_error("   CPU0 CPU1 CPU2\nLOC: 1 2x 3\n", "row LOC has 1 counts");
    expect_error("   CPU0 CPU1\nLOC 1 2\n", "a line without a LABEL");
    expect_error("   CPU0 CPU1\n: 1 2\n", "a line without a LABEL");
    expect_error("   CPU0 CPU1\nA B: 1 2\n", "a line without a LABEL");
    expect_error("   CPU0 CPU1\nLOC: 1 2\n\n", "a line without a LABEL");
    expect_error("   CPU0\nLOC: 99999999999999999999999\n", "row LOC has 0 counts");
}

/* A row of 64 columns cut where a 512-byte buffer would have cut it is
 * an error, not a short row. */
static void test_cut_row_is_an_error(void **state)
{
    char *text = nohzk_text(64);
    char *loc = strstr(text, "LOC:");
    (void)state;
    strcpy(loc + 511, "\n");
    expect_error(text, "row LOC has 46 counts, the header 64 CPUs");
    free(text);
}

/* The host's own /proc/interrupts (Linux, x86): it parses, and has a
 * per-CPU LOC row; skipped where there is none. */
static void test_host_text_parses(void **state)
{
    struct interrupt_table table;
    (void)state;
    FILE *file = fopen("/proc/interrupts", "r");
    if (!file)
        skip();
    int result = interrupt_table_parse(file, &table);
    fclose(file);
    if (result != 0)
        fail_msg("the host's /proc/interrupts: %s", table.why);
    assert_true(interrupt_table_row(&table, "LOC") >= 0);
    interrupt_table_free(&table);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_255_cpus_rows_are_read_whole),
        cmocka_unit_test(test_linux_layout),
        cmocka_unit_test(test_columns_found_by_cpu_name),
        cmocka_unit_test(test_unreadable_text_is_an_error),
        cmocka_unit_test(test_cut_row_is_an_error),
        cmocka_unit_test(test_host_text_parses),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
