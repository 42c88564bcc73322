/* sched/loadavg.c: the damped averages, fed by hand (loadavg_update())
 * as the ticks feed them. Times are the kernel's clock_now() ns. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "kernel/base/percpu.h"
#include "sched/loadavg.h"
#include "sched/runqueue.h"

/* loadavg_tick() reads the runqueues; these tests feed loadavg_update(). */
DEFINE_PER_CPU(struct runqueue, runqueues);
uintptr_t percpu_offsets[MAX_CPUS];
struct cpumask cpu_online_mask;

#define SECOND 1000000000ull
#define WINDOW (5 * SECOND)

/* The state is the file's own (static): each test starts where the last
 * one left the clock, at a time of its own. */
static uint64_t now = 0;

static void averages(unsigned long out[3])
{
    loadavg_get(out);
}

/* A constant load rises towards it, the 1-minute average first, and
 * reaches it exactly (rounding up while rising). */
static void constant_load_is_reached(void **state)
{
    (void)state;
    unsigned long a[3], b[3];
    averages(a);
    assert_int_equal(a[0], 0);
    loadavg_update(now += SECOND, 2, 2);     /* before the first boundary: nothing */
    averages(a);
    assert_int_equal(a[0], 0);
    loadavg_update(now = WINDOW, 1, 2);
    averages(a);
    assert_true(a[0] > 0 && a[0] < 2 * LOADAVG_ONE);
    assert_true(a[0] > a[1] && a[1] > a[2] && a[2] > 0);
    loadavg_update(now, 1, 2);               /* the same boundary twice: one sample */
    averages(b);
    assert_memory_equal(a, b, sizeof(a));
    for (int i = 0; i < 200; i++) {
        loadavg_update(now += WINDOW, 1, 2);
        averages(b);
        assert_true(b[0] >= a[0] && b[0] <= 2 * LOADAVG_ONE);
        a[0] = b[0];
    }
    assert_int_equal(b[0], 2 * LOADAVG_ONE);
}

/* With no task, the averages decay; a late sample folds the windows it
 * missed, as the same number of samples would (here: all idle). */
static void missed_windows_fold_as_samples(void **state)
{
    (void)state;
    unsigned long start[3], one_by_one[3], late[3];
    averages(start);
    assert_true(start[2] > 0);
    for (int i = 0; i < 12; i++)
        loadavg_update(now += WINDOW, 0, 0);
    averages(one_by_one);
    assert_true(one_by_one[0] < start[0] && one_by_one[2] < start[2]);
    /* Back to the start: decay the same way in one late sample. */
    for (int i = 0; i < 400; i++)
        loadavg_update(now += WINDOW, 1, 1);     /* the averages at 1.00 */
    averages(start);
    assert_int_equal(start[0], LOADAVG_ONE);
    loadavg_update(now += 12 * WINDOW, 0, 0);
    averages(late);
    for (int i = 0; i < 400; i++)
        loadavg_update(now += WINDOW, 1, 1);
    for (int i = 0; i < 12; i++)
        loadavg_update(now += WINDOW, 0, 0);
    averages(one_by_one);
    assert_memory_equal(late, one_by_one, sizeof(late));
}

/* The missed windows count the other CPUs' tasks (they ran without a
 * tick), not the sampling CPU's, which was idle. */
static void missed_windows_leave_out_this_cpu(void **state)
{
    (void)state;
    for (int i = 0; i < 1000; i++)
        loadavg_update(now += WINDOW, 0, 0);
    unsigned long a[3];
    averages(a);
    assert_int_equal(a[0], 0);
    loadavg_update(now += 100 * WINDOW, 3, 3);  /* all 3 here, just woken: 99 windows at 0, one at 3 */
    averages(a);
    assert_true(a[0] > 0 && a[0] < LOADAVG_ONE / 2);
    loadavg_update(now += 100 * WINDOW, 0, 1);  /* one task ran tick-free on another CPU */
    averages(a);
    assert_true(a[0] > LOADAVG_ONE * 9 / 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(constant_load_is_reached),
        cmocka_unit_test(missed_windows_fold_as_samples),
        cmocka_unit_test(missed_windows_leave_out_this_cpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
