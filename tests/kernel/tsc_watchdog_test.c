/* ktest=tsc_watchdog: the clocksource watchdog's verdict on the TSC
 * (kernel/time/tsc_watchdog.h). A drifting reading marks a watchdog once and
 * never again; the kernel's own watchdog, over several rounds on every
 * ticking CPU, finds the TSC in step with the clocksource (under TCG both
 * follow the host's clock: only a skewed reading could make them differ,
 * and those are skipped), and /proc/tick says what it found; the account
 * clock's calibrated rate agrees with the watchdog's. Counts, states and
 * clock-against-clock comparisons only. tests/host/test_tsc_watchdog.c covers the rules. */
#include "arch/x86/clock.h"
#include "arch/x86/cpu.h"
#include "kernel/lib/format.h"
#include "kernel/debug/ktest.h"
#include "kernel/base/percpu.h"
#include "kernel/lib/string.h"
#include "kernel/time/tick.h"
#include "kernel/time/tsc_watchdog.h"
#include "kernel/fs/vfs.h"

#define MS 1000000ul
#define KHZ 2000000ul
#define ROUNDS_TO_WATCH 6
#define GIVE_UP_NS (60 * 1000 * MS)

/* A watchdog of its own: the kernel's TSC is left alone. */
static void drifting_readings_mark_a_watchdog_once(struct ktest *test)
{
    static struct tsc_watchdog watchdog;
    unsigned marks = 0, verdicts[TSC_UNSTABLE + 1] = { 0 };
    uint64_t khz;

    uint64_t tsc[4] = { 0 };
    memset(&watchdog, 0, sizeof(watchdog));
    for (unsigned round = 1; round <= 4; round++) {
        for (unsigned cpu = 0; cpu < 4; cpu++) {
            /* 500 ms a round; CPUs 2 and 3 run 20% fast from round 3 on */
            tsc[cpu] += 500 * (cpu >= 2 && round >= 3 ? KHZ * 12 / 10 : KHZ);
            struct tsc_reading reading = { round * 500 * MS, tsc[cpu], round * 500 * MS };
            enum tsc_verdict verdict = tsc_watchdog_check(&watchdog, cpu, &reading, &khz);
            verdicts[verdict]++;
            marks += verdict == TSC_MARKED_UNSTABLE;
        }
    }
    ktest_log(test, "verdicts: first %u, reference %u, in step %u, marked %u, unstable %u", verdicts[TSC_FIRST_READING],
              verdicts[TSC_REFERENCE_SET], verdicts[TSC_IN_STEP], verdicts[TSC_MARKED_UNSTABLE], verdicts[TSC_UNSTABLE]);
    KTEST_EXPECT(test, marks == 1, "marked %u times", marks);
    KTEST_EXPECT(test, watchdog.unstable && watchdog.unstable_cpu == 2 && watchdog.unstable_khz == KHZ * 12 / 10,
                 "unstable %d, cpu %u, %lu kHz", watchdog.unstable, watchdog.unstable_cpu, watchdog.unstable_khz);
    /* round 3: cpu 3 finds it marked; round 4: all four do */
    KTEST_EXPECT(test, verdicts[TSC_UNSTABLE] == 5, "%u checks after the mark, expected 5", verdicts[TSC_UNSTABLE]);
    KTEST_EXPECT(test, tsc_is_stable(), "the kernel's TSC was marked by a test watchdog");
}

/* The /proc/tick line: "clocksource NAME, tsc stable: reference N kHz, ..." */
static bool proc_tick_has(const char *wanted)
{
    static char text[8192];
    long error;
    struct file *file = vfs_open("/proc/tick", 0, 0, &error);
    if (!file)
        return false;
    long length = vfs_read(file, text, sizeof(text));
    vfs_close(file);
    if (length <= 0)
        return false;
    size_t wanted_length = strlen(wanted);
    for (long at = 0; at + (long)wanted_length <= length; at++) {
        if (memcmp(text + at, wanted, wanted_length) == 0)
            return true;
    }
    return false;
}

/* Busy here, ticking, for ROUNDS_TO_WATCH watchdog rounds of this CPU. */
static bool watch_rounds(void)
{
    uint64_t checks = this_tick()->watchdog_checks, start = clock_now();
    while (this_tick()->watchdog_checks < checks + ROUNDS_TO_WATCH) {
        if (clock_now() - start > GIVE_UP_NS)
            return false;
        cpu_relax();
    }
    return true;
}

static void the_tsc_keeps_in_step_with_the_clocksource(struct ktest *test)
{
    char line[96];

    KTEST_EXPECT(test, watch_rounds(), "this cpu did not take %d watchdog rounds", ROUNDS_TO_WATCH);
    ktest_log(test, "reference %lu kHz, %lu readings skewed, on %u CPUs", tsc_watchdog.reference_khz,
              tsc_watchdog.skewed, cpu_count);
    KTEST_EXPECT(test, tsc_is_stable(), "the TSC was marked unstable: cpu %u measured %lu kHz, reference %lu kHz",
                 tsc_watchdog.unstable_cpu, tsc_watchdog.unstable_khz, tsc_watchdog.reference_khz);
    KTEST_EXPECT(test, tsc_watchdog.reference_khz > 0, "no reference rate was measured");
    snprintf(line, sizeof(line), "\nclocksource %s, tsc stable: reference %lu kHz, ", clock_source_name(),
             tsc_watchdog.reference_khz);
    KTEST_EXPECT(test, proc_tick_has(line), "/proc/tick has no line '%s'", line + 1);
}

/* The account clock's rate (clock_tsc_calibrate(), once at boot), from
 * which every task's user and system time comes, is good to 0.1%: it
 * agrees with the watchdog's reference rate, measured independently over
 * 500 ms rounds, and over 100 ms the TSC's nanoseconds follow the
 * clocksource's. Both follow the host's clock under TCG, so this compares
 * two clocks with each other, never with a duration. */
#define PACE_INTERVAL_NS (100 * MS)
#define PAIR_SKEW_NS 5000ul

/* clock_now() and clock_tsc_ns() at one moment: bracketed, interrupts off. */
static bool read_pair(uint64_t *clock_ns, uint64_t *tsc_ns)
{
    for (int try = 0; try < 100; try++) {
        uint64_t flags = irq_save();
        uint64_t before = clock_now();
        *tsc_ns = clock_tsc_ns();
        uint64_t after = clock_now();
        irq_restore(flags);
        if (after - before <= PAIR_SKEW_NS) {
            *clock_ns = before + (after - before) / 2;
            return true;
        }
    }
    return false;
}

static uint64_t difference(uint64_t a, uint64_t b)
{
    return a > b ? a - b : b - a;
}

static void the_account_clock_keeps_the_clocksources_pace(struct ktest *test)
{
    uint64_t khz = clock_tsc_khz(), reference = tsc_watchdog.reference_khz;
    KTEST_EXPECT(test, clock_tsc_calibrated() && khz > 0, "the TSC was not calibrated at boot");
    KTEST_EXPECT(test, watch_rounds() && tsc_watchdog.reference_khz > 0, "no reference rate");
    reference = tsc_watchdog.reference_khz;
    ktest_log(test, "calibrated %lu kHz, watchdog reference %lu kHz", khz, reference);
    KTEST_EXPECT(test, difference(khz, reference) <= reference / 1000, "calibrated %lu kHz, reference %lu kHz",
                 khz, reference);

    uint64_t clock_start, tsc_start, clock_end, tsc_end;
    bool paired = read_pair(&clock_start, &tsc_start);
    clock_delay_ns(PACE_INTERVAL_NS);
    paired = paired && read_pair(&clock_end, &tsc_end);
    KTEST_EXPECT(test, paired, "no reading of both clocks within %lu ns", PAIR_SKEW_NS);
    uint64_t clock_delta = clock_end - clock_start, tsc_delta = tsc_end - tsc_start;
    ktest_log(test, "over %lu ns of the clocksource, %lu ns of the TSC", clock_delta, tsc_delta);
    KTEST_EXPECT(test, difference(clock_delta, tsc_delta) <= clock_delta / 1000 + 2 * PAIR_SKEW_NS,
                 "the TSC measured %lu ns where the clocksource measured %lu", tsc_delta, clock_delta);
}

KTEST_SUITE(tsc_watchdog,
            KTEST_CASE(drifting_readings_mark_a_watchdog_once),
            KTEST_CASE(the_tsc_keeps_in_step_with_the_clocksource),
            KTEST_CASE(the_account_clock_keeps_the_clocksources_pace));
