/* ktest=ipi: named IPIs and remote function calls arrive, exactly as many
 * as were sent. Counts only. */
#include "arch/x86/cpu.h"
#include "arch/x86/timer.h"
#include "kernel/irq/irq.h"
#include "kernel/debug/ktest.h"
#include "kernel/base/percpu.h"
#include "kernel/irq/ipi.h"
#include "kernel/irq/irq_cause.h"

#define PING_PONG_ROUNDS 50
#define NAMED_IPI_COUNT 100
#define WAIT_LIMIT_NS 5000000000ul

static const char ipi_test_reason[] = "ktest";

/* A ping-pong between two CPUs driven entirely from interrupt handlers:
 * each side answers with an asynchronous call, made with interrupts off
 * (allowed when not waiting:
 * docs/nohz-task.md#patch-08-an-asynchronous-function-call-with-interrupts-off). */
struct rally {
    unsigned a, b;
    volatile unsigned pings_received;   /* on b */
    volatile unsigned pongs_received;   /* on a */
    volatile unsigned wrong_cpu;
};

static void receive_pong(void *arg);

static void receive_ping(void *arg)
{
    struct rally *rally = arg;
    if (this_cpu_id() != rally->b)
        rally->wrong_cpu++;
    rally->pings_received++;
    smp_call_function_single(rally->a, receive_pong, rally, false);
}

static void receive_pong(void *arg)
{
    struct rally *rally = arg;
    if (this_cpu_id() != rally->a)
        rally->wrong_cpu++;
    rally->pongs_received++;
    if (rally->pongs_received < PING_PONG_ROUNDS)
        smp_call_function_single(rally->b, receive_ping, rally, false);
}

static void serve(void *arg)
{
    struct rally *rally = arg;
    smp_call_function_single(rally->b, receive_ping, rally, false);
}

static bool wait_for(volatile unsigned *counter, unsigned target)
{
    uint64_t start = clock_now();
    while (*counter < target) {
        if (clock_now() - start > WAIT_LIMIT_NS)
            return false;
        cpu_relax();
    }
    return true;
}

static uint64_t total_count(enum irq_source source)
{
    uint64_t total = 0;
    unsigned cpu;
    for_each_online_cpu(cpu) total += irq_count(cpu, source);
    return total;
}

static void ping_pong_between_every_pair(struct ktest *test)
{
    unsigned pairs = 0;

    if (cpu_count < 2) {
        ktest_skip(test, "needs two CPUs");
        return;
    }
    uint64_t calls_before = total_count(IRQ_SOURCE_CALL_FUNCTION);
    for (unsigned a = 0; a < cpu_count; a++) {
        for (unsigned b = 0; b < cpu_count; b++) {
            if (a == b)
                continue;
            struct rally rally = { .a = a, .b = b };
            /* Start the rally from a (when a is not us, via one more call). */
            if (a == this_cpu_id())
                serve(&rally);
            else
                smp_call_function_single(a, serve, &rally, true);
            KTEST_EXPECT(test, wait_for(&rally.pongs_received, PING_PONG_ROUNDS), "%u<->%u: stuck at %u pongs",
                         a, b, rally.pongs_received);
            KTEST_EXPECT(test, rally.pings_received == PING_PONG_ROUNDS && rally.pongs_received == PING_PONG_ROUNDS,
                         "%u<->%u: %u pings, %u pongs, sent %d each", a, b, rally.pings_received,
                         rally.pongs_received, PING_PONG_ROUNDS);
            KTEST_EXPECT(test, rally.wrong_cpu == 0, "%u<->%u: %u calls ran on the wrong CPU", a, b,
                         rally.wrong_cpu);
            pairs++;
        }
    }
    /* Every call is one CAL interrupt: 2 per round, plus the serve calls sent to CPUs other than us. */
    uint64_t serve_calls = (uint64_t)(cpu_count - 1) * (cpu_count - 1);
    uint64_t expected = (uint64_t)pairs * 2 * PING_PONG_ROUNDS + serve_calls;
    uint64_t received = total_count(IRQ_SOURCE_CALL_FUNCTION) - calls_before;
    ktest_log(test, "%u ordered pairs, %lu call-function IPIs received, %lu sent", pairs, received, expected);
    KTEST_EXPECT(test, received == expected, "received %lu CAL interrupts, sent %lu", received, expected);
}

static volatile unsigned async_arrivals;

static void note_arrival(void *arg)
{
    (void)arg;
    async_arrivals++;
}

static void async_call_with_interrupts_off_arrives(struct ktest *test)
{
    unsigned target = cpu_count > 1 ? 1 : 0;

    async_arrivals = 0;
    irq_disable();
    int result = smp_call_function_single(target, note_arrival, 0, false);
    irq_enable();
    KTEST_EXPECT(test, result == 0, "smp_call_function_single returned %d", result);
    KTEST_EXPECT(test, wait_for(&async_arrivals, 1), "the call never ran on cpu %u", target);
}

static void bad_target_is_refused(struct ktest *test)
{
    KTEST_EXPECT(test, smp_call_function_single(MAX_CPUS, note_arrival, 0, true) < 0, "cpu MAX_CPUS accepted");
    KTEST_EXPECT(test, smp_call_function_single(cpu_count, note_arrival, 0, true) < 0, "offline cpu %u accepted",
                 cpu_count);
}

/* RES and NHZ: N sent to each other CPU, at least N counted there (another
 * sender's may come in between: a wake-up of a kernel thread), each of
 * ours accounted to this CPU and the reason it gave
 * (kernel/irq/irq_cause.c), but for those merged with another sender's
 * (a kick of the tick's own meanwhile): that interrupt goes to the older
 * send, and ours is counted merged. */
static void named_ipis_are_counted_exactly(struct ktest *test)
{
    static const enum ipi_type types[] = { IPI_RESCHEDULE, IPI_NOHZ_KICK };
    static const enum irq_source sources[] = { IRQ_SOURCE_RESCHEDULE, IRQ_SOURCE_NOHZ_KICK };
    unsigned cpu;

    for (unsigned t = 0; t < 2; t++) {
        for_each_online_cpu(cpu) {
            if (cpu == this_cpu_id())
                continue;
            uint64_t before = irq_count(cpu, sources[t]);
            uint64_t caused_before = irq_cause_count(cpu, sources[t], this_cpu_id(), ipi_test_reason);
            int64_t merged_before = irq_cause_merged_count(cpu, sources[t]);
            for (int i = 0; i < NAMED_IPI_COUNT; i++) {
                ipi_send(cpu, types[t], ipi_test_reason);
                /* An IPI sent while the last one is still pending merges with it: wait for each. */
                uint64_t start = clock_now();
                while (irq_count(cpu, sources[t]) < before + (uint64_t)i + 1 && clock_now() - start < WAIT_LIMIT_NS)
                    cpu_relax();
            }
            /* Another sender's IPI in flight at the first count counts
             * among ours: wait until each of ours is accounted too. */
            uint64_t caused, start = clock_now();
            int64_t merged, accounted;
            do {
                caused = irq_cause_count(cpu, sources[t], this_cpu_id(), ipi_test_reason) - caused_before;
                merged = irq_cause_merged_count(cpu, sources[t]) - merged_before;
                accounted = (int64_t)caused + (merged > 0 ? merged : 0);
            } while (accounted < NAMED_IPI_COUNT && clock_now() - start < WAIT_LIMIT_NS);
            uint64_t received = irq_count(cpu, sources[t]) - before;
            KTEST_EXPECT(test, received >= NAMED_IPI_COUNT, "cpu %u got %lu %s, sent %d", cpu, received,
                         irq_source_name(sources[t]), NAMED_IPI_COUNT);
            KTEST_EXPECT(test, caused <= NAMED_IPI_COUNT && accounted >= NAMED_IPI_COUNT,
                         "cpu %u accounted %lu %s to cpu %u's \"%s\" and %ld merged, sent %d", cpu, caused,
                         irq_source_name(sources[t]), this_cpu_id(), ipi_test_reason, (long)merged, NAMED_IPI_COUNT);
        }
    }
}

KTEST_SUITE(ipi,
            KTEST_CASE(ping_pong_between_every_pair),
            KTEST_CASE(async_call_with_interrupts_off_arrives),
            KTEST_CASE(bad_target_is_refused),
            KTEST_CASE(named_ipis_are_counted_exactly));
