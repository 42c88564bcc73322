/* One interrupt where one is needed, never two: a nohz task spinning in
 * user mode on the last CPU takes exactly one interrupt per signal another
 * CPU sends it, and per alarm of its own ITIMER_REAL (the reschedule IPI
 * that makes it enter the kernel), and nothing more: no tick restarted for
 * the delivery, no second IPI for the same event, no RCU prod. Counted
 * from /proc/interrupts by the sender on CPU 0, with the events in lock
 * step: the next one is sent once the handler has returned (its main
 * loop acknowledges), so no two IPIs can merge in the APIC, no two
 * signals in one pending bit, and none finds the signal blocked by a
 * handler still running (then it needs no IPI at all: it is delivered
 * on rt_sigreturn's way out, an answer of 0 that a test waiting only for
 * the handler's count got 13 times in 20). The nohz task
 * writes "signal_cost: witness open/close: cpu N" around each window for
 * QEMU's witness (scenario signal-cost, docs/noise.md "One interrupt per
 * event"). A third case sends each signal twice in a row: the second finds
 * it pending and must send no second IPI; the IPIs sent are counted in
 * /proc/trace (the scenario boots with trace=ipi). Prints KTAP.
 * NOHZK_ONLY: it needs /proc/self/nohz and nohzk's exact count. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktap.h"
#include "testlib.h"
#include "../../user/lib/clock.h"
#include "../../user/lib/nohz.h"
#include "../../user/lib/pin.h"
#include "../../user/lib/proc_interrupts.h"

#define EVENTS 20
#define WAIT_LIMIT_NS 10000000000ll
#define ALARM_US 3000

struct shared {
    atomic_int ready, go, done, failed;
    atomic_int handled;         /* by the handler */
    atomic_int acked;           /* by the main loop: the handler has returned */
};

static struct shared *shared;
static int cpu;

static void handler(int signal)
{
    (void)signal;
    atomic_fetch_add(&shared->handled, 1);
}

static void mark(const char *which)
{
    char line[64];
    int length = snprintf(line, sizeof(line), "signal_cost: witness %s: cpu %d\n", which, cpu);
    if (write(1, line, length) != length)
        atomic_store(&shared->failed, 1);
}

/* Until *value >= at_least. The nohz task's loops (ack set), where its
 * handlers return to, acknowledge each one that returned. */
static int wait_value_ack(atomic_int *value, int at_least, int ack)
{
    for (int64_t limit = now_ns() + WAIT_LIMIT_NS; atomic_load(value) < at_least;) {
        if (ack)
            atomic_store(&shared->acked, atomic_load(&shared->handled));
        if (now_ns() > limit || atomic_load(&shared->failed))
            return 0;
    }
    if (ack)
        atomic_store(&shared->acked, atomic_load(&shared->handled));
    return 1;
}

static int wait_value(atomic_int *value, int at_least)
{
    return wait_value_ack(value, at_least, 0);
}

static void arm_alarm(void)
{
    struct itimerval once = { .it_value = { .tv_sec = 0, .tv_usec = ALARM_US } };
    if (setitimer(ITIMER_REAL, &once, NULL) != 0)
        atomic_store(&shared->failed, 1);
}

/* The nohz task: pinned, marked, its handler run once before the window
 * (its stack pages are touched), its tick stopped; then the window. */
static void nohz_task(int signal, int alarms)
{
    struct tick_row row;
    if (pin_to_cpu(0, cpu) != 0 || write_nohz(0, "1") != 0 || set_handler(signal, handler, SA_RESTART) != 0) {
        atomic_store(&shared->failed, 1);
        _exit(1);
    }
    raise(signal);
    if (atomic_load(&shared->handled) != 1 || !spin_until_own_tick_stopped(cpu, &row)) {
        atomic_store(&shared->failed, 1);
        _exit(1);
    }
    mark("open");
    atomic_store(&shared->ready, 1);
    wait_value_ack(&shared->go, 1, 1);
    for (int i = 1; alarms && i <= EVENTS; i++) {
        arm_alarm();
        wait_value_ack(&shared->handled, 1 + i, 1);
    }
    wait_value_ack(&shared->done, 1, 1);
    mark("close");
    _exit(0);
}

/* Reschedule IPIs sent to cpu that /proc/trace recorded since its last
 * "clear" (which 0 writes first), or -1 if there is no trace. */
static long long reschedules_traced(int clear)
{
    if (clear) {
        FILE *control = fopen("/proc/trace", "w");
        if (!control || fputs("clear\n", control) < 0 || fclose(control) != 0)
            return -1;
        return 0;
    }
    char wanted[48], *line = NULL;
    size_t size = 0;
    long long count = 0;
    snprintf(wanted, sizeof(wanted), "ipi_send: type=RES target=%d why=", cpu);     /* why= names the reason */
    FILE *trace = fopen("/proc/trace", "r");
    if (!trace)
        return -1;
    while (getline(&line, &size, trace) > 0)
        count += strstr(line, wanted) != NULL;
    free(line);
    fclose(trace);
    return count;
}

/* CPU cpu's count in the row named name, or all rows ("" ); -1 if unreadable. */
static long long cpu_interrupts(const char *name)
{
    struct interrupt_table table;
    if (interrupt_table_read(&table) < 0) {
        printf("# cannot count interrupts: %s\n", table.why);
        return -1;
    }
    long long sum = -1;
    int column = interrupt_table_column(&table, cpu);
    if (column >= 0) {
        sum = 0;
        for (int r = 0; r < table.rows; r++) {
            if (!*name || !strcmp(table.row[r].name, name))
                sum += (long long)table.row[r].counts[column];
        }
    }
    interrupt_table_free(&table);
    return sum;
}

/* EVENTS signals sent from CPU 0 (alarms: 0, the task arms its own;
 * twice: each sent twice in a row) and the counts of cpu over the window. */
static int window(int signal, int alarms, int twice)
{
    if (cpu < 1) {
        ktap_skip_reason = "needs 2 CPUs";
        return 1;
    }
    shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(shared != MAP_FAILED);
    memset(shared, 0, sizeof(*shared));
    CHECK(pin_to_cpu(0, 0) == 0);
    fflush(stdout);
    pid_t child = fork();
    CHECK(child >= 0);
    if (child == 0)
        nohz_task(signal, alarms);
    int ready = wait_value(&shared->ready, 1);
    long long all = cpu_interrupts(""), res = cpu_interrupts("RES"), loc = cpu_interrupts("LOC");
    long long traced = twice ? reschedules_traced(1) : 0;
    atomic_store(&shared->go, 1);
    int sent = alarms ? EVENTS : 0;
    for (int i = 1; ready && !alarms && i <= EVENTS; i++) {
        int before = atomic_load(&shared->acked);
        sent += kill(child, signal) == 0;
        if (twice)
            kill(child, signal);        /* mostly finds it pending; else it is a signal of its own */
        if (!wait_value(&shared->acked, before + 1))
            break;
    }
    if (twice) {        /* one more, alone: any second signal still on its way is handled first */
        int before = atomic_load(&shared->acked);
        kill(child, signal);
        wait_value(&shared->acked, before + 1);
    } else {
        wait_value(&shared->acked, 1 + EVENTS);
    }
    if (twice)
        traced = traced < 0 ? -1 : reschedules_traced(0);
    all = cpu_interrupts("") - all;
    res = cpu_interrupts("RES") - res;
    loc = cpu_interrupts("LOC") - loc;
    atomic_store(&shared->done, 1);
    int status = -1;
    CHECK(waitpid(child, &status, 0) == child);
    int handled = atomic_load(&shared->handled) - 1;
    printf("# cpu %d: %d %s sent%s, %d handled, interrupts %lld (RES %lld, LOC %lld)", cpu, sent,
           alarms ? "alarms" : "signals", twice ? " twice, and one alone" : "", handled, all, res, loc);
    printf(twice ? ", reschedule IPIs sent %lld\n" : "\n", traced);
    CHECK(ready && !atomic_load(&shared->failed) && exited_with(status, 0));
    if (twice) {        /* one IPI, one interrupt, per signal delivered */
        CHECK(traced >= 0);
        CHECK(handled >= EVENTS + 1 && traced == handled && res == handled && all == handled && loc == 0);
        munmap(shared, sizeof(*shared));
        return 1;
    }
    CHECK(sent == EVENTS && handled == EVENTS);
    CHECK(loc == 0);
    CHECK(res == EVENTS);
    CHECK(all == EVENTS);
    munmap(shared, sizeof(*shared));
    return 1;
}

static int each_signal_costs_one_interrupt(void)
{
    return window(SIGUSR1, 0, 0);
}

static int each_alarm_costs_one_interrupt(void)
{
    return window(SIGALRM, 1, 0);
}

static int a_pending_signal_sends_no_second_ipi(void)
{
    return window(SIGUSR1, 0, 1);
}

static const struct ktap_case cases[] = {
    KTAP_CASE(each_signal_costs_one_interrupt),
    KTAP_CASE(each_alarm_costs_one_interrupt),
    KTAP_CASE(a_pending_signal_sends_no_second_ipi),
};

int main(void)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    cpu = (int)sysconf(_SC_NPROCESSORS_ONLN) - 1;      /* before any case pins this process */
    return ktap_main(cases, KTAP_COUNT(cases));
}
