/* osnoise [--duration S] [--cpu N] [--nohz] [--nohz-optional]
 *         [--threshold-ns T] [--period-ms P] [--warmup-ms W]
 *         [--syscall-every-us U] [--fault-every-us U] [--run-us R --sleep-us S]
 *         [--itimer-us U] [--signals-from-cpu C [--signal-every-us U]]
 *         [--threads N [--thread-cpus LIST] [--thread-every-us U] [--thread-pages P]]
 *         [--mark | --mark-uart] [--json] [--hist]
 *
 * Operating-system noise, in the style of Linux's rtla osnoise: a task
 * pinned to one CPU reads the TSC in a tight loop, and every gap between
 * two consecutive reads longer than the threshold is time the CPU spent
 * on something else (an interrupt, the hypervisor, a preemption): noise.
 * See docs/noise.md.
 *
 *   --duration S        measure for S seconds (default 5), after the warm-up
 *   --cpu N             pin to CPU N (default: the CPU it starts on)
 *   --nohz              write 1 to /proc/thread-self/nohz after pinning; fail
 *                       (status 1) with the reason if refused, or if the
 *                       kernel has no nohz tasks (Linux)
 *   --nohz-optional     with --nohz: where that file does not exist,
 *                       say so and measure anyway
 *   --threshold-ns T    a gap longer than T ns is noise (default 5000; see
 *                       docs/noise.md for why under QEMU TCG)
 *   --period-ms P       also report the worst P ms period (default 1000)
 *   --warmup-ms W       run the loop W ms first, unmeasured (default 1000):
 *                       the tick takes a few periods to stop
 *   --syscall-every-us U  make a getpid() system call every U us
 *   --fault-every-us U    touch a new page every U us (a page fault on
 *                       Linux; on nohzk, which maps eagerly, the mmap of
 *                       each new region is the kernel entry)
 *   --run-us R --sleep-us S  after every R us of the loop, nanosleep S us
 *                       (a task that sleeps briefly and often)
 *   --itimer-us U       an ITIMER_REAL every U us; its SIGALRM handler
 *                       only counts ("alarms")
 *   --signals-from-cpu C  a child pinned to CPU C sends SIGUSR1 every
 *                       --signal-every-us U (default 2000); the handler
 *                       only counts ("signals")
 *   --threads N         N sibling threads of this process (1..16), each
 *                       pinned to the next CPU of --thread-cpus LIST
 *                       (default 0), map P pages (--thread-pages, default
 *                       4, at most 1024), write each,
 *                       unmap them and sleep --thread-every-us U (default
 *                       1000), over and over until the end: each unmap
 *                       may send a TLB shootdown to this CPU, since this
 *                       thread runs in the same address space. "munmaps"
 *                       counts the unmaps in the window; none, or a
 *                       sibling that failed, is an error (status 1)
 *   --mark              write "osnoise: witness open: cpu N" before the
 *                       first /proc/interrupts read of the window,
 *                       "witness inner open" after it, "witness inner
 *                       close" before the last read and "witness close"
 *                       after it, from this CPU, to stdout: QEMU's
 *                       per-vCPU logs count what the vCPU took between
 *                       them (tools/run/boot --witness, docs/noise.md)
 *   --mark-uart         the same marks written to the UART at 0x3f8 by
 *                       this program itself (ioperm): Linux sends a
 *                       program's console text from its serial interrupt,
 *                       on another CPU. Refused ioperm: status 1
 *   --json              print one JSON object on one line instead
 *   --hist              also print the log2 histogram of all gaps
 *
 * Injected work and sleeps are the task's own: their time is neither
 * runtime nor noise; a signal handler's time is noise.
 * Interrupt counts are the deltas of this CPU's column of /proc/interrupts
 * over the measured window, every row; and, as "life", from its arrival on
 * the CPU (right after pinning) to the end, warm-up included. A
 * /proc/interrupts it cannot read whole, or without a column for its CPU
 * or a LOC row, is an error: no counts are printed. Exit status 0; 1 on a
 * refused --nohz or a failed pinning; 2 on bad arguments; 3 when the
 * interrupts cannot be counted. Where the kernel has
 * /proc/interrupt_causes (nohzk), the window's interrupts by cause too
 * (read inside the /proc/interrupts reads), with the kernel's own count of
 * the same moments ("causes_interrupts", which they must add up to).
 *
 * Left out: rtla's per-period sleep (runtime < period), its tracer-based
 * classification of each noise event (HW, NMI, IRQ, softirq, thread):
 * we only have /proc/interrupts, so noise is split by count, not by time. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/interrupt_causes.h"
#include "lib/nohz.h"
#include "lib/pin.h"
#include "lib/proc_interrupts.h"
#include "lib/touch_page.h"
#include "lib/uart_mark.h"

#define CALIBRATION_NS 100000000ull     /* 100 ms */
#define HIST_BUCKETS 64
#define MAX_THREADS 16
#define THREAD_PAGES 4
#define MAX_THREAD_PAGES 1024

enum mark { MARK_NONE, MARK_STDOUT, MARK_UART };

struct options {
    double duration_s;
    int cpu;                            /* -1: where we start */
    int nohz, nohz_optional, json, hist;
    uint64_t threshold_ns, period_ms, warmup_ms, syscall_every_us, fault_every_us;
    uint64_t run_us, sleep_us, itimer_us, signal_every_us;
    int signal_cpu;                     /* -1: no signals */
    int threads, thread_cpus[MAX_THREADS], thread_cpu_count;
    uint64_t thread_every_us, thread_pages;
    enum mark mark;
};

/* What one run of the loop saw, in TSC cycles. */
struct noise {
    uint64_t runtime, noise, max_single, max_period, events, samples;
    uint64_t injected, syscalls, faults, sleeps;
    uint64_t hist[HIST_BUCKETS];
};

static uint64_t rdtsc(void)
{
    uint32_t low, high;
    __asm__ volatile("rdtsc" : "=a"(low), "=d"(high));
    return ((uint64_t)high << 32) | low;
}

static void usage(void)
{
    fprintf(stderr, "usage: osnoise [--duration S] [--cpu N] [--nohz] [--nohz-optional] [--threshold-ns T]\n"
                    "               [--period-ms P] [--warmup-ms W] [--syscall-every-us U]\n"
                    "               [--fault-every-us U] [--run-us R --sleep-us S] [--itimer-us U]\n"
                    "               [--signals-from-cpu C [--signal-every-us U]]\n"
                    "               [--threads N [--thread-cpus LIST] [--thread-every-us U] [--thread-pages P]]\n"
                    "               [--mark | --mark-uart] [--json] [--hist]\n");
    exit(2);
}

static uint64_t parse_number(const char *text, int zero_ok)
{
    char *end;
    unsigned long long value = strtoull(text, &end, 10);
    if (!*text || *end || *text == '-' || (!zero_ok && value == 0))
        usage();
    return value;
}

/* "0,1" into o->thread_cpus; usage() on anything else. */
static void parse_thread_cpus(struct options *o, char *text)
{
    o->thread_cpu_count = 0;
    for (char *word = strtok(text, ","); word; word = strtok(NULL, ",")) {
        if (o->thread_cpu_count == MAX_THREADS)
            usage();
        o->thread_cpus[o->thread_cpu_count++] = (int)parse_number(word, 1);
    }
    if (!o->thread_cpu_count)
        usage();
}

static struct options parse_options(int argc, char **argv)
{
    struct options o = { .duration_s = 5, .cpu = -1, .threshold_ns = 5000, .period_ms = 1000, .warmup_ms = 1000,
                         .signal_every_us = 2000, .signal_cpu = -1, .thread_cpu_count = 1,
                         .thread_every_us = 1000, .thread_pages = THREAD_PAGES };
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (!strcmp(arg, "--nohz"))
            o.nohz = 1;
        else if (!strcmp(arg, "--nohz-optional"))
            o.nohz_optional = 1;
        else if (!strcmp(arg, "--json"))
            o.json = 1;
        else if (!strcmp(arg, "--hist"))
            o.hist = 1;
        else if (!strcmp(arg, "--mark") || !strcmp(arg, "--mark-uart")) {
            if (o.mark)
                usage();                /* one way of marking */
            o.mark = strcmp(arg, "--mark") ? MARK_UART : MARK_STDOUT;
        }
        else if (i + 1 == argc)
            usage();
        else if (!strcmp(arg, "--duration"))
            o.duration_s = (double)parse_number(argv[++i], 0);
        else if (!strcmp(arg, "--cpu"))
            o.cpu = (int)parse_number(argv[++i], 1);
        else if (!strcmp(arg, "--threshold-ns"))
            o.threshold_ns = parse_number(argv[++i], 0);
        else if (!strcmp(arg, "--period-ms"))
            o.period_ms = parse_number(argv[++i], 0);
        else if (!strcmp(arg, "--warmup-ms"))
            o.warmup_ms = parse_number(argv[++i], 1);
        else if (!strcmp(arg, "--syscall-every-us"))
            o.syscall_every_us = parse_number(argv[++i], 0);
        else if (!strcmp(arg, "--fault-every-us"))
            o.fault_every_us = parse_number(argv[++i], 0);
        else if (!strcmp(arg, "--run-us"))
            o.run_us = parse_number(argv[++i], 0);
        else if (!strcmp(arg, "--sleep-us"))
            o.sleep_us = parse_number(argv[++i], 0);
        else if (!strcmp(arg, "--itimer-us"))
            o.itimer_us = parse_number(argv[++i], 0);
        else if (!strcmp(arg, "--signals-from-cpu"))
            o.signal_cpu = (int)parse_number(argv[++i], 1);
        else if (!strcmp(arg, "--signal-every-us"))
            o.signal_every_us = parse_number(argv[++i], 0);
        else if (!strcmp(arg, "--threads"))
            o.threads = (int)parse_number(argv[++i], 0);
        else if (!strcmp(arg, "--thread-cpus"))
            parse_thread_cpus(&o, argv[++i]);
        else if (!strcmp(arg, "--thread-every-us"))
            o.thread_every_us = parse_number(argv[++i], 1);
        else if (!strcmp(arg, "--thread-pages"))
            o.thread_pages = parse_number(argv[++i], 0);
        else
            usage();
    }
    if (o.threads > MAX_THREADS || o.thread_pages > MAX_THREAD_PAGES)
        usage();
    if (!o.run_us != !o.sleep_us)       /* one without the other */
        usage();
    return o;
}

/* Pin to one CPU (nohz tasks must be), and check that we run there. */
static int pin(int cpu)
{
    if (cpu < 0)
        cpu = cpu_now();
    if (cpu < 0) {
        fprintf(stderr, "osnoise: cannot tell which CPU this is\n");
        exit(1);
    }
    int moved = move_to_cpu(cpu);
    if (moved == -1) {
        fprintf(stderr, "osnoise: cannot pin to CPU %d: %s\n", cpu, strerror(errno));
        exit(1);
    }
    if (moved) {
        fprintf(stderr, "osnoise: pinned to CPU %d but running on %d\n", cpu, cpu_now());
        exit(1);
    }
    return cpu;
}

/* 1: we are a nohz task; 0: no nohz tasks here and --nohz-optional. */
static int become_nohz(const struct options *o)
{
    int error = write_thread_nohz("1");
    if (error == ENOENT) {
        fprintf(stderr, "osnoise: --nohz: this kernel has no nohz tasks (no /proc/thread-self/nohz)%s\n",
                o->nohz_optional ? "; measuring without" : "");
        if (!o->nohz_optional)
            exit(1);
        return 0;
    }
    if (error) {
        fprintf(stderr, "osnoise: --nohz: cannot write 1 to /proc/thread-self/nohz: %s\n", strerror(error));
        exit(1);
    }
    return 1;
}

/* TSC cycles per second, against CLOCK_MONOTONIC over about 100 ms. Each
 * clock read is bracketed by two TSC reads, and we take their middle. */
static double calibrate_tsc(void)
{
    uint64_t before = rdtsc(), start_ns = now_ns(), start = (before + rdtsc()) / 2;
    uint64_t ns, tsc;
    do {
        before = rdtsc();
        ns = now_ns();
        tsc = (before + rdtsc()) / 2;
    } while (ns - start_ns < CALIBRATION_NS);
    return (double)(tsc - start) * 1e9 / (double)(ns - start_ns);
}


/* When to inject work, in TSC cycles. */
struct injection {
    uint64_t syscall_every, fault_every, sleep_every;  /* cycles, 0 = never */
    uint64_t next_syscall, next_fault, next_sleep;
    struct timespec sleep;
};

static int due(uint64_t every, uint64_t next, uint64_t now)
{
    return every && now >= next;
}

/* Injected work due at `now`; returns the cycles it took. The next sleep
 * comes after --run-us more of the loop, counted from this wake-up. */
static uint64_t inject(struct injection *in, uint64_t now, struct noise *n)
{
    if (!due(in->syscall_every, in->next_syscall, now) && !due(in->fault_every, in->next_fault, now) &&
        !due(in->sleep_every, in->next_sleep, now))
        return 0;                       /* a period boundary: nothing to do */
    uint64_t start = rdtsc();
    int slept = 0;
    if (in->syscall_every && now >= in->next_syscall) {
        syscall(SYS_getpid);
        n->syscalls++;
        in->next_syscall = now + in->syscall_every;
    }
    if (in->fault_every && now >= in->next_fault) {
        touch_new_page("osnoise");
        n->faults++;
        in->next_fault = now + in->fault_every;
    }
    if (due(in->sleep_every, in->next_sleep, now)) {
        nanosleep(&in->sleep, NULL);    /* a signal may end it early */
        n->sleeps++;
        slept = 1;
    }
    uint64_t end = rdtsc();
    if (slept)
        in->next_sleep = end + in->sleep_every;
    return end - start;
}

static uint64_t next_event(const struct injection *in, uint64_t end, uint64_t period_end)
{
    uint64_t next = end < period_end ? end : period_end;
    if (in->syscall_every && in->next_syscall < next)
        next = in->next_syscall;
    if (in->fault_every && in->next_fault < next)
        next = in->next_fault;
    if (in->sleep_every && in->next_sleep < next)
        next = in->next_sleep;
    return next;
}

/* The measuring loop: no system call in it but the injected ones. */
static void measure(uint64_t cycles, uint64_t threshold, uint64_t period, struct injection *in, struct noise *n)
{
    uint64_t prev = rdtsc(), start = prev, end = start + cycles;
    uint64_t period_end = start + period, period_noise = 0;
    in->next_syscall = start + in->syscall_every;
    in->next_fault = start + in->fault_every;
    in->next_sleep = start + in->sleep_every;
    uint64_t next = next_event(in, end, period_end);
    for (;;) {
        uint64_t now = rdtsc(), gap = now - prev;
        n->samples++;
        n->hist[63 - __builtin_clzll(gap | 1)]++;
        if (gap > threshold) {
            n->noise += gap;
            period_noise += gap;
            n->events++;
            if (gap > n->max_single)
                n->max_single = gap;
        }
        prev = now;
        if (now < next)
            continue;
        for (; now >= period_end; period_end += period) {
            if (period_noise > n->max_period)
                n->max_period = period_noise;
            period_noise = 0;
        }
        if (now >= end)
            break;
        uint64_t took = inject(in, now, n);
        n->injected += took;
        prev += took;
        next = next_event(in, end, period_end);
    }
    if (period_noise > n->max_period)
        n->max_period = period_noise;
    n->runtime = prev - start - n->injected;
}

/* This CPU's column of /proc/interrupts, every per-CPU row, parsed by
 * lib/proc_interrupts.h. A text it cannot read, or no column for this
 * CPU, is fatal (status 3): a count we could not read is not a 0. */
struct source {
    char name[INTERRUPT_NAME_SIZE];
    unsigned long long count;
};

struct interrupts {
    struct source *rows;
    int count;
};

static void cannot_count(const char *why)
{
    fprintf(stderr, "osnoise: cannot count interrupts: %s\n", why);
    exit(3);
}

static struct interrupts read_interrupts(int cpu)
{
    struct interrupts irqs = { NULL, 0 };
    struct interrupt_table table;
    int column;
    if (interrupt_table_read(&table) != 0 || (column = interrupt_table_column(&table, cpu)) < 0 ||
        interrupt_table_row(&table, "LOC") < 0)
        cannot_count(table.why);
    irqs.rows = calloc((size_t)table.rows, sizeof(*irqs.rows));
    if (!irqs.rows)
        cannot_count("out of memory");
    for (int i = 0; i < table.rows; i++) {
        memcpy(irqs.rows[i].name, table.row[i].name, sizeof(irqs.rows[i].name));
        irqs.rows[i].count = table.row[i].counts[column];
    }
    irqs.count = table.rows;
    interrupt_table_free(&table);
    return irqs;
}

static struct interrupts copy_of(const struct interrupts *irqs)
{
    struct interrupts copy = { calloc((size_t)irqs->count + 1, sizeof(*irqs->rows)), irqs->count };
    if (!copy.rows)
        cannot_count("out of memory");
    memcpy(copy.rows, irqs->rows, sizeof(*irqs->rows) * (size_t)irqs->count);
    return copy;
}

/* after -= before, row by row (by name: a row may appear meanwhile). */
static unsigned long long subtract(struct interrupts *after, const struct interrupts *before)
{
    unsigned long long total = 0;
    for (int i = 0; i < after->count; i++) {
        for (int j = 0; j < before->count; j++) {
            if (!strcmp(after->rows[i].name, before->rows[j].name)) {
                after->rows[i].count -= before->rows[j].count;
                break;
            }
        }
        total += after->rows[i].count;
    }
    return total;
}

struct report {
    int cpu, nohz;
    double tsc_hz;
    uint64_t runtime_ns;
    unsigned long long irq_total;
    struct interrupts irqs;
    unsigned long long life_total;     /* from arrival on the CPU to the end, warm-up included */
    struct interrupts life;
    unsigned long long alarms, signals; /* handled in the window */
    unsigned long long munmaps;         /* by the sibling threads, in the window */
    int has_causes;                     /* nohzk's /proc/interrupt_causes was read */
    unsigned long long causes_sum;      /* its causes' counts in the window, added */
    struct interrupt_causes causes;     /* in the window; .total: the kernel's count */
};

/* /proc/interrupt_causes for cpu into *causes: 1, or 0 where the kernel
 * has none (Linux); any other failure stops osnoise (status 3). */
static int read_causes(int cpu, struct interrupt_causes *causes)
{
    if (interrupt_causes_read(cpu, causes) == 0)
        return 1;
    if (errno == ENOENT)
        return 0;
    cannot_count(causes->why);
    return 0;
}

static uint64_t to_ns(uint64_t cycles, double tsc_hz)
{
    return (uint64_t)((double)cycles * 1e9 / tsc_hz + 0.5);
}

static double available_pct(const struct noise *n)
{
    return n->runtime ? 100.0 * (double)(n->runtime - n->noise) / (double)n->runtime : 0;
}

/* The named rows always (if the kernel has them), other rows if non-zero:
 * Linux has dozens of rows, nearly all 0. */
static int worth_printing(const struct source *row)
{
    static const char *const named[] = { "LOC", "RES", "CAL", "NHZ" };
    for (unsigned i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
        if (!strcmp(row->name, named[i]))
            return 1;
    }
    return row->count != 0;
}

static void print_table(const struct options *o, const struct report *r, const struct noise *n)
{
    printf("osnoise: cpu %d%s, threshold %llu ns, %.0f s after a %llu ms warm-up, times in us\n", r->cpu,
           r->nohz ? ", nohz" : "", (unsigned long long)o->threshold_ns, o->duration_s,
           (unsigned long long)o->warmup_ms);
    printf("CPU   Runtime     Noise  %% CPU Aval  Max Noise  Max Single   Events    IRQs  by source\n");
    printf("%3d %9llu %9llu  %10.5f %10llu %11llu %8llu %7llu ", r->cpu,
           (unsigned long long)(r->runtime_ns / 1000), (unsigned long long)(to_ns(n->noise, r->tsc_hz) / 1000),
           available_pct(n), (unsigned long long)(to_ns(n->max_period, r->tsc_hz) / 1000),
           (unsigned long long)(to_ns(n->max_single, r->tsc_hz) / 1000), (unsigned long long)n->events,
           r->irq_total);
    for (int i = 0; i < r->irqs.count; i++) {
        if (worth_printing(&r->irqs.rows[i]))
            printf(" %s:%llu", r->irqs.rows[i].name, r->irqs.rows[i].count);
    }
    printf("\n");
    printf("osnoise: over its whole run on cpu %d (from its arrival, warm-up included): %llu interrupts\n",
           r->cpu, r->life_total);
    if (n->syscalls || n->faults || n->sleeps)
        printf("osnoise: injected %llu syscalls, %llu faults, %llu sleeps, %llu us (not counted as noise)\n",
               (unsigned long long)n->syscalls, (unsigned long long)n->faults, (unsigned long long)n->sleeps,
               (unsigned long long)(to_ns(n->injected, r->tsc_hz) / 1000));
    if (r->alarms || r->signals)
        printf("osnoise: handled %llu SIGALRM, %llu SIGUSR1 (their time is noise)\n", r->alarms, r->signals);
    if (o->threads)
        printf("osnoise: %d sibling threads unmapped %llu times in the window\n", o->threads, r->munmaps);
    if (r->has_causes) {
        printf("osnoise: %llu interrupts by cause (source, from cpu, why):", r->causes_sum);
        for (int i = 0; i < r->causes.count; i++) {
            if (r->causes.cause[i].count)
                printf(" %s: %llu;", r->causes.cause[i].key, r->causes.cause[i].count);
        }
        printf("\n");
    }
}

static void print_json(const struct options *o, const struct report *r, const struct noise *n)
{
    printf("{\"tool\": \"osnoise\", \"cpu\": %d, \"nohz\": %s, \"threshold_ns\": %llu, \"warmup_ms\": %llu, "
           "\"period_ms\": %llu, \"runtime_ns\": %llu, \"noise_ns\": %llu, \"available_pct\": %.5f, "
           "\"max_period_noise_ns\": %llu, \"max_single_noise_ns\": %llu, \"noise_events\": %llu, "
           "\"samples\": %llu, \"tsc_hz\": %.0f, \"syscalls\": %llu, \"faults\": %llu, \"injected_ns\": %llu, "
           "\"sleeps\": %llu, \"alarms\": %llu, \"signals\": %llu, \"threads\": %d, \"thread_pages\": %llu, "
           "\"munmaps\": %llu, "
           "\"interrupts_total\": %llu, \"interrupts\": {",
           r->cpu, r->nohz ? "true" : "false", (unsigned long long)o->threshold_ns,
           (unsigned long long)o->warmup_ms, (unsigned long long)o->period_ms,
           (unsigned long long)r->runtime_ns, (unsigned long long)to_ns(n->noise, r->tsc_hz), available_pct(n),
           (unsigned long long)to_ns(n->max_period, r->tsc_hz), (unsigned long long)to_ns(n->max_single, r->tsc_hz),
           (unsigned long long)n->events, (unsigned long long)n->samples, r->tsc_hz,
           (unsigned long long)n->syscalls, (unsigned long long)n->faults,
           (unsigned long long)to_ns(n->injected, r->tsc_hz), (unsigned long long)n->sleeps, r->alarms, r->signals,
           o->threads, (unsigned long long)o->thread_pages, r->munmaps, r->irq_total);
    for (int i = 0; i < r->irqs.count; i++)
        printf("%s\"%s\": %llu", i ? ", " : "", r->irqs.rows[i].name, r->irqs.rows[i].count);
    printf("}, \"life_interrupts_total\": %llu, \"life_interrupts\": {", r->life_total);
    for (int i = 0; i < r->life.count; i++)
        printf("%s\"%s\": %llu", i ? ", " : "", r->life.rows[i].name, r->life.rows[i].count);
    printf("}");
    if (r->has_causes) {
        printf(", \"causes_interrupts\": %llu, \"causes_merged\": %lld, \"causes_total\": %llu, \"causes\": {",
               r->causes.total, r->causes.merged, r->causes_sum);
        int first = 1;
        for (int i = 0; i < r->causes.count; i++) {
            if (!r->causes.cause[i].count)
                continue;
            printf("%s\"%s\": %llu", first ? "" : ", ", r->causes.cause[i].key, r->causes.cause[i].count);
            first = 0;
        }
        printf("}");
    }
    printf("}\n");
}

/* Gaps by power of two, from the smallest bucket seen to the largest. */
static void print_hist(const struct noise *n, double tsc_hz)
{
    int low = 0, high = HIST_BUCKETS - 1;
    while (low < high && !n->hist[low])
        low++;
    while (high > low && !n->hist[high])
        high--;
    printf("osnoise: gaps between TSC reads (ns, log2 buckets)\n");
    for (int b = low; b <= high; b++)
        printf("  %12llu .. %12llu  %llu\n", (unsigned long long)to_ns(1ull << b, tsc_hz),
               (unsigned long long)to_ns((2ull << b) - 1, tsc_hz), (unsigned long long)n->hist[b]);
}

static struct timespec microseconds(uint64_t us)
{
    struct timespec t = { (time_t)(us / 1000000), (long)(us % 1000000) * 1000 };
    return t;
}

static struct injection injection(const struct options *o, double tsc_hz)
{
    struct injection in = { 0 };
    in.syscall_every = (uint64_t)(tsc_hz * (double)o->syscall_every_us / 1e6);
    in.fault_every = (uint64_t)(tsc_hz * (double)o->fault_every_us / 1e6);
    in.sleep_every = (uint64_t)(tsc_hz * (double)o->run_us / 1e6);
    in.sleep = microseconds(o->sleep_us);
    return in;
}

/* Signals: their handlers only count. A handler's time is a gap in the
 * loop, so it is noise, as an interrupt's is. */
static volatile sig_atomic_t alarms, signals;

static void count_alarm(int signal)
{
    (void)signal;
    alarms++;
}

static void count_signal(int signal)
{
    (void)signal;
    signals++;
}

static void handle(int signal, void (*handler)(int))
{
    struct sigaction action;
    memset(&action, 0, sizeof(action));
    action.sa_handler = handler;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    if (sigaction(signal, &action, NULL) != 0) {
        fprintf(stderr, "osnoise: sigaction: %s\n", strerror(errno));
        exit(1);
    }
}

static void set_itimer(uint64_t every_us)
{
    struct timespec every = microseconds(every_us);
    struct itimerval timer = { { every.tv_sec, every.tv_nsec / 1000 }, { every.tv_sec, every.tv_nsec / 1000 } };
    if (setitimer(ITIMER_REAL, &timer, NULL) != 0) {
        fprintf(stderr, "osnoise: setitimer: %s\n", strerror(errno));
        exit(1);
    }
}

/* A child pinned to cpu that sends us SIGUSR1 every every_us until we
 * are gone or kill it. */
static pid_t start_signal_sender(int cpu, uint64_t every_us)
{
    pid_t parent = getpid(), child = fork();
    if (child < 0) {
        fprintf(stderr, "osnoise: fork: %s\n", strerror(errno));
        exit(1);
    }
    if (child > 0)
        return child;
    if (pin_to_cpu(0, cpu) != 0) {
        fprintf(stderr, "osnoise: cannot pin the signal sender to CPU %d: %s\n", cpu, strerror(errno));
        kill(parent, SIGTERM);
        _exit(1);
    }
    struct timespec every = microseconds(every_us);
    for (;;) {
        nanosleep(&every, NULL);
        if (kill(parent, SIGUSR1) != 0)
            _exit(0);
    }
}

static void stop_signal_sender(pid_t child)
{
    int status;
    kill(child, SIGKILL);
    waitpid(child, &status, 0);
}

/* Sibling threads (--threads): memory of their own, mapped, written and
 * unmapped in a loop on their CPUs. They block every signal, so that the
 * measuring thread takes the alarms and signals of the other options. */
struct siblings {
    pthread_t thread[MAX_THREADS];
    int count;
    atomic_int stop, failed;
    atomic_ullong munmaps;
    int cpus[MAX_THREADS];
    size_t pages;
    struct timespec pause;
};

static struct siblings siblings;

static void *sibling(void *arg)
{
    int cpu = siblings.cpus[(long)arg];
    size_t length = siblings.pages * (size_t)sysconf(_SC_PAGESIZE);
    if (pin_to_cpu(0, cpu) != 0) {
        atomic_store(&siblings.failed, errno ? errno : EINVAL);
        return NULL;
    }
    while (!atomic_load(&siblings.stop)) {
        char *region = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (region == MAP_FAILED) {
            atomic_store(&siblings.failed, errno);
            return NULL;
        }
        for (size_t at = 0; at < length; at += (size_t)sysconf(_SC_PAGESIZE))
            ((volatile char *)region)[at] = 1;
        if (munmap(region, length) != 0) {
            atomic_store(&siblings.failed, errno);
            return NULL;
        }
        atomic_fetch_add(&siblings.munmaps, 1);
        nanosleep(&siblings.pause, NULL);
    }
    return NULL;
}

static void start_siblings(const struct options *o)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);     /* inherited by each sibling */
    siblings.pause = microseconds(o->thread_every_us);
    siblings.pages = (size_t)o->thread_pages;
    for (int i = 0; i < o->threads; i++) {
        siblings.cpus[i] = o->thread_cpus[i % o->thread_cpu_count];
        int error = pthread_create(&siblings.thread[i], NULL, sibling, (void *)(long)i);
        if (error) {
            fprintf(stderr, "osnoise: --threads: pthread_create: %s\n", strerror(error));
            exit(1);
        }
        siblings.count++;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void stop_siblings(void)
{
    atomic_store(&siblings.stop, 1);
    for (int i = 0; i < siblings.count; i++)
        pthread_join(siblings.thread[i], NULL);
    int error = atomic_load(&siblings.failed);
    if (error) {
        fprintf(stderr, "osnoise: --threads: a sibling thread failed: %s\n", strerror(error));
        exit(1);
    }
}

/* The witness marks (--mark, --mark-uart), written from this CPU. */
static void allow_uart(void)
{
    int error = uart_allow();
    if (error) {
        fprintf(stderr, "osnoise: --mark-uart: ioperm(0x%x): %s\n", UART_PORT, strerror(error));
        exit(1);
    }
}

static void write_mark(enum mark how, const char *which, int cpu)
{
    char line[64];
    int length = snprintf(line, sizeof(line), "osnoise: witness %s: cpu %d\n", which, cpu);
    if (how == MARK_STDOUT) {
        fflush(stdout);
        if (write(1, line, (size_t)length) != length) {
            fprintf(stderr, "osnoise: --mark: cannot write the mark\n");
            exit(1);
        }
    } else if (how == MARK_UART) {
        uart_write(line, length);
    }
}

int main(int argc, char **argv)
{
    struct options o = parse_options(argc, argv);
    struct report r = { 0 };
    static struct noise warmup, n;
    pid_t sender = -1;

    if (o.mark == MARK_UART)
        allow_uart();
    if (o.signal_cpu >= 0) {
        handle(SIGUSR1, count_signal);
        sender = start_signal_sender(o.signal_cpu, o.signal_every_us);
    }
    if (o.threads)
        start_siblings(&o);
    r.cpu = pin(o.cpu);
    struct interrupts at_arrival = read_interrupts(r.cpu);
    r.nohz = o.nohz && become_nohz(&o);
    double hz = calibrate_tsc();
    uint64_t threshold = (uint64_t)(hz * (double)o.threshold_ns / 1e9);
    uint64_t period = (uint64_t)(hz * (double)o.period_ms / 1e3);
    struct injection in = injection(&o, hz);
    if (o.itimer_us) {
        handle(SIGALRM, count_alarm);
        set_itimer(o.itimer_us);
    }

    /* The same loop, unmeasured: the tick stops during it. */
    if (o.warmup_ms > CALIBRATION_NS / 1000000)
        measure((uint64_t)(hz * (double)(o.warmup_ms - CALIBRATION_NS / 1000000) / 1e3), threshold, period, &in,
                &warmup);

    /* The guest's counts are read between the outer and the inner marks
     * at each end: the witness's inner and outer windows bracket them. */
    static struct interrupt_causes causes_before;
    write_mark(o.mark, "open", r.cpu);
    struct interrupts before = read_interrupts(r.cpu);
    r.has_causes = read_causes(r.cpu, &causes_before);
    write_mark(o.mark, "inner open", r.cpu);
    sig_atomic_t alarms_before = alarms, signals_before = signals;
    unsigned long long munmaps_before = atomic_load(&siblings.munmaps);
    uint64_t start_ns = now_ns(), start_tsc = rdtsc();
    measure((uint64_t)(hz * o.duration_s), threshold, period, &in, &n);
    uint64_t end_tsc = rdtsc(), end_ns = now_ns();
    r.alarms = (unsigned long long)(alarms - alarms_before);
    r.signals = (unsigned long long)(signals - signals_before);
    r.munmaps = atomic_load(&siblings.munmaps) - munmaps_before;
    write_mark(o.mark, "inner close", r.cpu);
    if (r.has_causes && !read_causes(r.cpu, &r.causes))
        cannot_count("/proc/interrupt_causes went away");
    r.irqs = read_interrupts(r.cpu);
    write_mark(o.mark, "close", r.cpu);
    if (o.itimer_us)
        set_itimer(0);
    if (sender > 0)
        stop_signal_sender(sender);
    if (o.threads) {
        stop_siblings();
        if (!r.munmaps) {
            fprintf(stderr, "osnoise: --threads: the sibling threads unmapped nothing in the window\n");
            return 1;
        }
    }

    if (cpu_now() != r.cpu) {
        fprintf(stderr, "osnoise: moved from CPU %d to %d while measuring\n", r.cpu, cpu_now());
        return 1;
    }
    /* Times come from the TSC at the frequency measured over the whole
     * window, which is better than the first 100 ms. */
    r.tsc_hz = (double)(end_tsc - start_tsc) * 1e9 / (double)(end_ns - start_ns);
    r.runtime_ns = to_ns(n.runtime, r.tsc_hz);
    r.life = copy_of(&r.irqs);
    r.life_total = subtract(&r.life, &at_arrival);
    r.irq_total = subtract(&r.irqs, &before);
    if (r.has_causes)
        r.causes_sum = interrupt_causes_subtract(&r.causes, &causes_before);
    if (o.json)
        print_json(&o, &r, &n);
    else
        print_table(&o, &r, &n);
    if (o.hist)
        print_hist(&n, r.tsc_hz);
    return 0;
}
