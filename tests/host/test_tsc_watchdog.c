/* Host unit tests of kernel/time/tsc_watchdog.c: the clocksource watchdog's
 * verdict on the TSC. Readings are made up: a TSC at 2 GHz read in the
 * middle of two reference reads, every 500 ms per CPU. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "kernel/time/tsc_watchdog.h"

#define MS 1000000ul
#define KHZ 2000000ul            /* 2 GHz */
#define ROUND_NS (500 * MS)

static struct tsc_watchdog watchdog;

static int reset(void **state)
{
    (void)state;
    memset(&watchdog, 0, sizeof(watchdog));
    return 0;
}

/* cpu reads its TSC (at khz since time 0, plus offset) at time ns, between
 * reference reads skew ns apart. */
static enum tsc_verdict feed(unsigned cpu, uint64_t ns, uint64_t khz, uint64_t offset, uint64_t skew,
                             uint64_t *measured)
{
    struct tsc_reading reading = { ns - skew / 2, ns / MS * khz + offset, ns - skew / 2 + skew };
    return tsc_watchdog_check(&watchdog, cpu, &reading, measured);
}

/* Two rounds of cpu at 2 GHz from time start: the first reading, then a rate. */
static enum tsc_verdict two_rounds(unsigned cpu, uint64_t start, uint64_t *khz)
{
    assert_int_equal(feed(cpu, start, KHZ, 0, 10000, khz), TSC_FIRST_READING);
    return feed(cpu, start + ROUND_NS, KHZ, 0, 10000, khz);
}

static void test_the_first_rate_is_the_reference(void **state)
{
    uint64_t khz;

    (void)state;
    assert_int_equal(two_rounds(0, ROUND_NS, &khz), TSC_REFERENCE_SET);
    assert_int_equal(khz, KHZ);
    assert_int_equal(watchdog.reference_khz, KHZ);
    assert_int_equal(two_rounds(1, 3 * ROUND_NS, &khz), TSC_IN_STEP);
    assert_int_equal(feed(0, 10 * ROUND_NS, KHZ, 0, 10000, &khz), TSC_IN_STEP);
    assert_false(watchdog.unstable);
}

/* A TSC off by an offset (TSCs of different CPUs never started together)
 * is fine: only the rate matters. */
static void test_an_offset_is_not_a_drift(void **state)
{
    uint64_t khz;

    (void)state;
    assert_int_equal(two_rounds(0, ROUND_NS, &khz), TSC_REFERENCE_SET);
    assert_int_equal(feed(5, 2 * ROUND_NS, KHZ, 123456789, 0, &khz), TSC_FIRST_READING);
    assert_int_equal(feed(5, 3 * ROUND_NS, KHZ, 123456789, 0, &khz), TSC_IN_STEP);
}

/* The drift: cpu 3's TSC runs 20% slow. The first drifting rate marks the
 * TSC unstable, once; every later check, drifting or not, on any CPU,
 * gets TSC_UNSTABLE, and the mark keeps the first finder. */
static void test_a_drift_marks_once_and_never_again(void **state)
{
    uint64_t khz;

    (void)state;
    assert_int_equal(two_rounds(0, ROUND_NS, &khz), TSC_REFERENCE_SET);
    assert_int_equal(feed(3, ROUND_NS, KHZ, 0, 0, &khz), TSC_FIRST_READING);
    uint64_t tsc_then = ROUND_NS / MS * KHZ;
    struct tsc_reading slow = { 2 * ROUND_NS, tsc_then + ROUND_NS / MS * KHZ * 8 / 10, 2 * ROUND_NS };
    assert_int_equal(tsc_watchdog_check(&watchdog, 3, &slow, &khz), TSC_MARKED_UNSTABLE);
    assert_int_equal(khz, KHZ * 8 / 10);
    assert_true(watchdog.unstable);
    assert_int_equal(watchdog.unstable_cpu, 3);
    assert_int_equal(watchdog.unstable_khz, KHZ * 8 / 10);

    slow.ns_before = slow.ns_after = 3 * ROUND_NS;
    slow.tsc += ROUND_NS / MS * KHZ * 8 / 10;
    assert_int_equal(tsc_watchdog_check(&watchdog, 3, &slow, &khz), TSC_UNSTABLE);
    assert_int_equal(feed(0, 4 * ROUND_NS, KHZ * 3, 0, 0, &khz), TSC_UNSTABLE);
    assert_int_equal(feed(0, 5 * ROUND_NS, KHZ, 0, 0, &khz), TSC_UNSTABLE);
    assert_int_equal(watchdog.unstable_cpu, 3);
    assert_int_equal(watchdog.unstable_khz, KHZ * 8 / 10);
}

/* Within the tolerance (10%): in step. Just past it: marked. */
static void test_the_tolerance(void **state)
{
    uint64_t khz;

    (void)state;
    assert_int_equal(two_rounds(0, ROUND_NS, &khz), TSC_REFERENCE_SET);
    assert_int_equal(feed(1, ROUND_NS, KHZ * 109 / 100, 0, 0, &khz), TSC_FIRST_READING);
    assert_int_equal(feed(1, 2 * ROUND_NS, KHZ * 109 / 100, 0, 0, &khz), TSC_IN_STEP);
    assert_int_equal(feed(2, ROUND_NS, KHZ * 111 / 100, 0, 0, &khz), TSC_FIRST_READING);
    assert_int_equal(feed(2, 2 * ROUND_NS, KHZ * 111 / 100, 0, 0, &khz), TSC_MARKED_UNSTABLE);
}

/* A reading whose reference reads are far apart (the vCPU was not run
 * between them) is skipped and changes nothing: the next good reading is
 * measured against the last good one. Before the skew check, such a
 * reading on a loaded host made a rate off by the pause. */
static void test_a_skewed_reading_is_skipped(void **state)
{
    uint64_t khz;

    (void)state;
    assert_int_equal(two_rounds(0, ROUND_NS, &khz), TSC_REFERENCE_SET);
    struct tsc_watchdog_cpu before = watchdog.cpus[0];
    /* The TSC read 100 ms after the first reference read: its middle is
     * 50 ms off, a 10% error over 500 ms. */
    struct tsc_reading paused = { 3 * ROUND_NS, (3 * ROUND_NS + 100 * MS) / MS * KHZ, 3 * ROUND_NS + 100 * MS };
    assert_int_equal(tsc_watchdog_check(&watchdog, 0, &paused, &khz), TSC_SKEWED);
    assert_int_equal(khz, 0);
    assert_int_equal(watchdog.skewed, 1);
    assert_memory_equal(&watchdog.cpus[0], &before, sizeof(before));
    struct tsc_reading backwards = { 3 * ROUND_NS + 1, 0, 3 * ROUND_NS };
    assert_int_equal(tsc_watchdog_check(&watchdog, 0, &backwards, &khz), TSC_SKEWED);
    assert_int_equal(feed(0, 4 * ROUND_NS, KHZ, 0, TSC_WATCHDOG_MAX_SKEW_NS, &khz), TSC_IN_STEP);
    assert_false(watchdog.unstable);
}

/* Readings too close together measure nothing: the interval grows from
 * the last good reading until it is long enough. */
static void test_a_reading_too_soon_waits(void **state)
{
    uint64_t khz;

    (void)state;
    assert_int_equal(two_rounds(0, ROUND_NS, &khz), TSC_REFERENCE_SET);
    assert_int_equal(feed(0, 2 * ROUND_NS + MS, KHZ * 2, 0, 0, &khz), TSC_TOO_SOON);
    assert_int_equal(feed(0, 3 * ROUND_NS, KHZ, 0, 0, &khz), TSC_IN_STEP);
}

/* A TSC that stands still or goes back between two readings is unstable:
 * its intervals mean nothing. */
static void test_a_tsc_going_back_is_unstable(void **state)
{
    uint64_t khz;

    (void)state;
    assert_int_equal(two_rounds(0, ROUND_NS, &khz), TSC_REFERENCE_SET);
    struct tsc_reading back = { 3 * ROUND_NS, 1000, 3 * ROUND_NS };
    assert_int_equal(tsc_watchdog_check(&watchdog, 0, &back, &khz), TSC_MARKED_UNSTABLE);
    assert_int_equal(watchdog.unstable_khz, 0);
}

/* A CPU whose tick stopped for a day: the interval is long, the rate right. */
static void test_a_long_interval_measures_right(void **state)
{
    uint64_t khz;
    uint64_t day = 86400ul * 1000 * MS;

    (void)state;
    assert_int_equal(two_rounds(0, ROUND_NS, &khz), TSC_REFERENCE_SET);
    assert_int_equal(feed(0, 2 * ROUND_NS + day, KHZ, 0, 0, &khz), TSC_IN_STEP);
    assert_true(khz >= KHZ - 1 && khz <= KHZ + 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_the_first_rate_is_the_reference, reset),
        cmocka_unit_test_setup(test_an_offset_is_not_a_drift, reset),
        cmocka_unit_test_setup(test_a_drift_marks_once_and_never_again, reset),
        cmocka_unit_test_setup(test_the_tolerance, reset),
        cmocka_unit_test_setup(test_a_skewed_reading_is_skipped, reset),
        cmocka_unit_test_setup(test_a_reading_too_soon_waits, reset),
        cmocka_unit_test_setup(test_a_tsc_going_back_is_unstable, reset),
        cmocka_unit_test_setup(test_a_long_interval_measures_right, reset),
    };
    return cmocka_run_group_tests(tests, 0, 0);
}
