/* spin SECONDS [--nohz] [--pure] [--fifo PRIORITY] [--syscall-every N] [--fault-every N] [--mark]
 *
 * A user-space loop for SECONDS seconds: the task the nohz model is
 * about. It reads the clock (clock_gettime, which the vDSO answers in user
 * mode; a system call with tsc=unstable) every CLOCK_CHECK_EVERY
 * iterations, and samples its CPU with a getcpu() system call at the same
 * time (so a stopped tick's requested recheck is seen within
 * CLOCK_CHECK_EVERY iterations); its "syscalls" count only those of
 * --syscall-every.
 *
 *   --pure              no system call at all from the first second to the
 *                       end: the CPU is sampled with the vDSO's getcpu
 *                       (sched_getcpu(), LSL in user mode), and spin proves
 *                       it with a count from /proc/tick (nohzk; "-" on
 *                       Linux), valid on a CPU whose tick stays stopped
 *                       (--nohz, alone: LOC 0), where every return to user
 *                       mode is counted:
 *                         spin: cpu 3 kernel entries after the first second: 0
 *                       (system calls and exceptions: returns to user mode
 *                       less interrupts, less spin's own reading of the
 *                       count, measured by reading it twice)
 *   --nohz              write 1 to /proc/self/nohz first; fail (status 1)
 *                       with the reason if the kernel refuses
 *   --fifo PRIORITY     run as SCHED_FIFO at PRIORITY (1-99) first (busybox
 *                       has no chrt); fail (status 1) if the kernel refuses
 *   --syscall-every N   make a getcpu() system call every N iterations
 *                       (with --pure too: its control, counted as entries)
 *   --fault-every N     touch a new page every N iterations (a page fault,
 *                       and an mmap every 1024 pages)
 *   --mark              (2 s or more) lock its memory (mlockall, unless
 *                       --fault-every), then print a line when the window after
 *                       the first second opens and one when it closes,
 *                       each with its CPU's tick count from /proc/tick
 *                       ("-" without one):
 *                         spin: witness open: cpu 3, ticks 1204
 *                         spin: witness close: cpu 3, ticks 1204
 *                       The lines are written from spin's CPU: QEMU's
 *                       per-vCPU logs find the window by them (tools/run/boot
 *                       --witness, docs/noise.md)
 *
 * At the end it prints one line, e.g.
 *   spin: 1 s, 123456789 iterations, 10 syscalls, 0 faults, cpus 2:11
 * where "cpus" lists each CPU getcpu() reported and how many times: with
 * taskset -c 2 every sample is 2. For runs of 2 s or more, a second line
 * gives the interrupts its CPU took from the end of the first second to
 * the end (from /proc/interrupts; read with system calls, which are not
 * interrupts); a third line gives the same from the start of the loop:
 *   spin: cpu 3 after the first second: LOC 0, RES 0, CAL 0, NHZ 0, all 0
 *   spin: cpu 3 over the whole loop: LOC 1, RES 0, CAL 0, NHZ 0, all 1
 * The counts are of one CPU's column: pin spin with taskset. If a sample
 * saw another CPU, or /proc/interrupts cannot be read whole (no column
 * for the CPU, a row cut short, no LOC row...), spin says why on stderr
 * and exits 3 instead of printing counts it does not have.
 * Exit status 0; 1 on --nohz refusal; 2 on bad arguments; 3 when the
 * interrupts cannot be counted. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/nohz.h"
#include "lib/proc_interrupts.h"
#include "lib/touch_page.h"

#define CLOCK_CHECK_EVERY (1ul << 16)
#define CPU_SAMPLES 1024          /* glibc's CPU_SETSIZE; more than MAX_CPUS */

static unsigned long cpu_samples[CPU_SAMPLES], cpu_samples_beyond;

static void usage(void)
{
    fprintf(stderr, "usage: spin SECONDS [--nohz] [--pure] [--fifo PRIORITY] [--syscall-every N] [--fault-every N] [--mark]\n");
    exit(2);
}

static unsigned long parse_count(const char *text)
{
    char *end;
    unsigned long value = strtoul(text, &end, 10);
    if (!*text || *end || value == 0)
        usage();
    return value;
}

static int pure;         /* --pure */

/* One sample of the CPU spin runs on: a getcpu() system call, or with
 * --pure the vDSO's (sched_getcpu(), no system call). */
static void sample_cpu_by(int by_syscall)
{
    unsigned cpu = 0;
    if (!by_syscall) {
        int found = sched_getcpu();
        cpu = found < 0 ? CPU_SAMPLES : (unsigned)found;
    } else if (syscall(SYS_getcpu, &cpu, NULL, NULL) != 0) {
        cpu = CPU_SAMPLES;
    }
    if (cpu >= CPU_SAMPLES)
        cpu_samples_beyond++;
    else
        cpu_samples[cpu]++;
}

static void sample_cpu(void)
{
    sample_cpu_by(!pure);
}

/* This CPU's counts of the /proc/interrupts rows we name, and of all
 * rows. A text that cannot be read, no column for the CPU or no LOC row
 * is fatal (status 3): a count we could not read is not a 0. A kernel
 * without one of the other rows (Linux has no NHZ) gets "-" for it. */
#define SOURCES 4
static const char *const source_names[SOURCES] = { "LOC", "RES", "CAL", "NHZ" };

struct interrupt_counts {
    unsigned long long by_source[SOURCES], all;
    int has_source[SOURCES];
};

static void cannot_count(const char *why)
{
    fprintf(stderr, "spin: cannot count interrupts: %s\n", why);
    exit(3);
}

static struct interrupt_counts read_interrupts(unsigned cpu)
{
    struct interrupt_counts counts = { { 0 }, 0, { 0 } };
    struct interrupt_table table;
    int column;
    if (interrupt_table_read(&table) != 0 || (column = interrupt_table_column(&table, (int)cpu)) < 0 ||
        interrupt_table_row(&table, "LOC") < 0)
        cannot_count(table.why);
    for (int row = 0; row < table.rows; row++)
        counts.all += table.row[row].counts[column];
    for (int i = 0; i < SOURCES; i++) {
        int row = interrupt_table_row(&table, source_names[i]);
        counts.has_source[i] = row >= 0;
        counts.by_source[i] = row >= 0 ? table.row[row].counts[column] : 0;
    }
    interrupt_table_free(&table);
    return counts;
}

static void report_interrupts(const char *when, unsigned cpu, const struct interrupt_counts *before,
                              const struct interrupt_counts *after)
{
    printf("spin: cpu %u %s:", cpu, when);
    for (int i = 0; i < SOURCES; i++) {
        if (before->has_source[i] && after->has_source[i])
            printf("%s %s %llu", i ? "," : "", source_names[i], after->by_source[i] - before->by_source[i]);
        else
            printf("%s %s -", i ? "," : "", source_names[i]);
    }
    printf(", all %llu\n", after->all - before->all);
}

/* The counts are of one CPU's column: every getcpu() sample must have
 * been that CPU. */
static void check_stayed_on(unsigned cpu)
{
    for (unsigned other = 0; other < CPU_SAMPLES; other++) {
        if (other != cpu && cpu_samples[other]) {
            char why[96];
            snprintf(why, sizeof(why), "it ran on cpu %u and %u (pin it with taskset)", cpu, other);
            cannot_count(why);
        }
    }
    if (cpu >= CPU_SAMPLES || cpu_samples_beyond)
        cannot_count("a CPU number beyond what it records");
}

/* cpu's tick count, the "ticks" column of its row of /proc/tick; -1 if
 * there is no /proc/tick (Linux). A row not found is fatal. */
static long long ticks_of(unsigned cpu)
{
    struct tick_row row;
    int found = tick_row_read((int)cpu, &row);
    if (found < 0 && errno == ENOENT)
        return -1;
    if (found < 0)
        cannot_count("cannot open /proc/tick");
    if (!found)
        cannot_count("no row for its CPU in /proc/tick");
    return (long long)row.ticks;
}

static void print_mark(const char *which, unsigned cpu)
{
    long long ticks = ticks_of(cpu);
    if (ticks < 0)
        printf("spin: witness %s: cpu %u, ticks -\n", which, cpu);
    else
        printf("spin: witness %s: cpu %u, ticks %lld\n", which, cpu, ticks);
    fflush(stdout);
}

/* --pure's count, from /proc/tick: on a CPU whose tick stays stopped,
 * each return to user mode is a stopped-tick recheck (skipped or made);
 * less the CPU's interrupts, what remains are system calls and
 * exceptions. Read with raw open/read/close. -1 without /proc/tick
 * (Linux) or its rows. */
static char tick_text[1 << 16];

static long long tick_table_value(const char *title, unsigned cpu, int columns)
{
    char *line = strstr(tick_text, title);
    for (line = line ? strchr(line, '\n') : NULL; line && line[1] && line[1] != '\n'; line = strchr(line + 1, '\n')) {
        unsigned long long a = 0, b = 0, c = 0;
        int row;
        if (sscanf(line + 1, "%d %llu %llu %llu", &row, &a, &b, &c) == columns + 1 && row == (int)cpu)
            return columns == 3 ? (long long)c : (long long)(a + b);
    }
    return -1;
}

static long long kernel_entries(unsigned cpu)
{
    int fd = open("/proc/tick", O_RDONLY);
    if (fd < 0)
        return -1;
    ssize_t got = read(fd, tick_text, sizeof(tick_text) - 1);
    close(fd);
    if (got <= 0)
        return -1;
    tick_text[got] = 0;
    long long interrupts = tick_table_value("tick decisions", cpu, 3);       /* its all_irqs column */
    long long returns = tick_table_value("stopped-tick rechecks", cpu, 2);
    return interrupts < 0 || returns < 0 ? -1 : returns - interrupts;
}

/* Fresh memory is the zero page until written (docs/fork.md), and a
 * first write is a page fault: an exception in the window the witness
 * counts (the C library maps and unmaps memory as the marks read /proc).
 * A real-time program on Linux locks its memory for the same reason. */
static void lock_memory(void)
{
    if (mlockall(MCL_CURRENT | MCL_FUTURE) != 0)
        fprintf(stderr, "spin: mlockall: %s (page faults may show in the window)\n", strerror(errno));
}

static void become_nohz(void)
{
    int error = write_nohz(0, "1");
    if (error) {
        fprintf(stderr, "spin: --nohz: cannot write 1 to /proc/self/nohz: %s\n", strerror(error));
        exit(1);
    }
}

/* A raw call: musl's sched_setscheduler() says ENOSYS on purpose. */
static void become_fifo(unsigned long priority)
{
    int param[1] = { (int)priority };
    if (syscall(SYS_sched_setscheduler, 0, 1 /* SCHED_FIFO */, param) != 0) {
        fprintf(stderr, "spin: --fifo %lu: %s\n", priority, strerror(errno));
        exit(1);
    }
}

int main(int argc, char **argv)
{
    unsigned long syscall_every = 0, fault_every = 0, fifo = 0;
    unsigned long long iterations = 0, syscalls = 0, faults = 0;
    int nohz = 0, mark = 0;
    long long entries_open = -1, entries_close = -1, entries_own = 0;

    if (argc < 2)
        usage();
    unsigned long seconds = parse_count(argv[1]);
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--nohz"))
            nohz = 1;
        else if (!strcmp(argv[i], "--pure"))
            pure = 1;
        else if (!strcmp(argv[i], "--mark") && seconds >= 2)
            mark = 1;
        else if (!strcmp(argv[i], "--fifo") && i + 1 < argc)
            fifo = parse_count(argv[++i]);
        else if (!strcmp(argv[i], "--syscall-every") && i + 1 < argc)
            syscall_every = parse_count(argv[++i]);
        else if (!strcmp(argv[i], "--fault-every") && i + 1 < argc)
            fault_every = parse_count(argv[++i]);
        else
            usage();
    }
    if (nohz)
        become_nohz();
    if (fifo)
        become_fifo(fifo);
    sample_cpu();
    unsigned cpu = 0;
    if (syscall(SYS_getcpu, &cpu, NULL, NULL) != 0)
        cannot_count("getcpu failed");
    if (mark && !fault_every)
        lock_memory();          /* with --fault-every, the faults are the point */
    struct interrupt_counts at_start = read_interrupts(cpu);
    unsigned long long start = now_ns(), end = start + seconds * 1000000000ull;
    unsigned long long first_second = seconds >= 2 ? start + 1000000000ull : ~0ull;
    struct interrupt_counts after_first_second = { { 0 }, 0, { 0 } };
    for (;;) {
        iterations++;
        if (syscall_every && iterations % syscall_every == 0) {
            sample_cpu_by(1);       /* a system call, --pure or not */
            syscalls++;
        }
        if (fault_every && iterations % fault_every == 0) {
            touch_new_page("spin");
            faults++;
        }
        if (iterations % CLOCK_CHECK_EVERY == 0) {
            unsigned long long now = now_ns();
            if (now >= end)
                break;
            if (now >= first_second) {
                after_first_second = read_interrupts(cpu);
                first_second = ~0ull;
                if (pure) {     /* two readings: the second minus the first is what one costs */
                    long long first = kernel_entries(cpu);
                    entries_open = kernel_entries(cpu);
                    entries_own = first < 0 || entries_open < 0 ? 0 : entries_open - first;
                }
                if (mark)
                    print_mark("open", cpu);
            }
            sample_cpu();
        }
        __asm__ volatile("" ::: "memory");     /* keep the loop a loop */
    }
    if (pure && entries_open >= 0)
        entries_close = kernel_entries(cpu);
    struct interrupt_counts at_end = read_interrupts(cpu);
    if (mark)
        print_mark("close", cpu);
    sample_cpu();
    printf("spin: %lu s, %llu iterations, %llu syscalls, %llu faults%s%s, cpus", seconds, iterations, syscalls,
           faults, nohz ? ", nohz" : "", fifo ? ", fifo" : "");
    for (int cpu = 0; cpu < CPU_SAMPLES; cpu++) {
        if (cpu_samples[cpu])
            printf(" %d:%lu", cpu, cpu_samples[cpu]);
    }
    if (cpu_samples_beyond)
        printf(" ?:%lu", cpu_samples_beyond);
    printf("\n");
    fflush(stdout);
    check_stayed_on(cpu);
    if (seconds >= 2)
        report_interrupts("after the first second", cpu, &after_first_second, &at_end);
    if (pure && seconds >= 2 && entries_close >= 0)
        printf("spin: cpu %u kernel entries after the first second: %lld\n", cpu,
               entries_close - entries_open - entries_own);
    else if (pure && seconds >= 2)
        printf("spin: cpu %u kernel entries after the first second: -\n", cpu);
    report_interrupts("over the whole loop", cpu, &at_start, &at_end);
    return 0;
}
