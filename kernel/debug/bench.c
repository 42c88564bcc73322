/* Micro-benchmarks: see kernel/debug/bench.h. The RCU ones are in
 * rcu/bench.c; this file holds the table of all of them.
 *
 * context_switch: two threads on one CPU yield to each other; cycles per
 * switch, the median over batches. wakeup_cross_cpu: two threads on two
 * CPUs hand a token back and forth through wait queues; cycles per one-way
 * handoff (half a round trip), timed on the sender's CPU only (TSCs of
 * different vCPUs are not in step). trace_point: cycles per trace point
 * (trace_ipi_receive, a typical one) with its class off, then on (the
 * event recorded in this CPU's ring); the mask is put back after. */
#include "kernel/debug/bench.h"

#include "arch/x86/cpu.h"
#include "kernel/base/percpu.h"
#include "kernel/irq/ipi.h"
#include "kernel/base/panic.h"
#include "kernel/base/printk.h"
#include "kernel/lib/median.h"
#include "kernel/lib/string.h"
#include "kernel/trace/trace.h"
#include "rcu/bench.h"
#include "sched/task.h"

#define BATCHES 31
#define PER_BATCH 500

struct yield_pair {
    volatile bool stop;
    uint64_t batches[BATCHES];
    unsigned batch_count;
};

static void yield_forever(void *arg)
{
    struct yield_pair *pair = arg;
    while (!pair->stop)
        yield();
}

static void yield_and_time(void *arg)
{
    struct yield_pair *pair = arg;
    for (unsigned b = 0; b < BATCHES; b++) {
        uint64_t start = rdtsc();
        for (int i = 0; i < PER_BATCH; i++)
            yield();
        /* each yield is two switches: to the partner and back */
        pair->batches[pair->batch_count++] = (rdtsc() - start) / (2 * PER_BATCH);
    }
    pair->stop = true;
}

/* A boot-time benchmark cannot go on without its kthreads. */
static struct task *bench_kthread(const char *name, void (*entry)(void *), void *arg, const struct cpumask *where)
{
    struct task *task = kthread_create(name, entry, arg, where);
    if (!task)
        panic("bench: cannot create %s", name);
    return task;
}

static void bench_context_switch(void)
{
    static struct yield_pair pair;
    struct cpumask cpu = cpumask_of(cpu_count - 1);

    memset(&pair, 0, sizeof(pair));
    struct task *partner = bench_kthread("bench-yield", yield_forever, &pair, &cpu);
    struct task *timer = bench_kthread("bench-time", yield_and_time, &pair, &cpu);
    kthread_join(timer);
    kthread_join(partner);
    printk("bench: context_switch cpu=%u cycles_median=%lu batches=%u per_batch=%d\n", cpu_count - 1,
           median(pair.batches, pair.batch_count), pair.batch_count, PER_BATCH);
}

struct handoff {
    struct wait_queue to_receiver, to_sender;
    volatile int turn;                  /* 0: sender, 1: receiver */
    volatile bool stop;
    uint64_t batches[BATCHES];
};

static void receive_forever(void *arg)
{
    struct handoff *handoff = arg;
    for (;;) {
        wait_event(&handoff->to_receiver, handoff->turn == 1 || handoff->stop);
        if (handoff->stop)
            return;
        __atomic_store_n(&handoff->turn, 0, __ATOMIC_SEQ_CST);
        wake_up_one(&handoff->to_sender);
    }
}

static void send_and_time(void *arg)
{
    struct handoff *handoff = arg;
    for (unsigned b = 0; b < BATCHES; b++) {
        uint64_t start = rdtsc();
        for (int i = 0; i < PER_BATCH; i++) {
            __atomic_store_n(&handoff->turn, 1, __ATOMIC_SEQ_CST);
            wake_up_one(&handoff->to_receiver);
            wait_event(&handoff->to_sender, handoff->turn == 0);
        }
        handoff->batches[b] = (rdtsc() - start) / (2 * PER_BATCH);
    }
    handoff->stop = true;
    wake_up_all(&handoff->to_receiver);
}

static void bench_wakeup_cross_cpu(void)
{
    static struct handoff handoff;

    if (cpu_count < 2) {
        printk("bench: wakeup_cross_cpu skipped (needs two CPUs)\n");
        return;
    }
    memset(&handoff, 0, sizeof(handoff));
    wait_queue_init(&handoff.to_receiver);
    wait_queue_init(&handoff.to_sender);
    unsigned sender_cpu = cpu_count > 2 ? 1 : 0, receiver_cpu = cpu_count - 1;
    struct cpumask on_sender = cpumask_of(sender_cpu), on_receiver = cpumask_of(receiver_cpu);
    struct task *receiver = bench_kthread("bench-recv", receive_forever, &handoff, &on_receiver);
    struct task *sender = bench_kthread("bench-send", send_and_time, &handoff, &on_sender);
    kthread_join(sender);
    kthread_join(receiver);
    printk("bench: wakeup_cross_cpu from=%u to=%u cycles_median=%lu batches=%d per_batch=%d\n", sender_cpu,
           receiver_cpu, median(handoff.batches, BATCHES), BATCHES, PER_BATCH);
}

/* Median cycles per call of a trace point over batches, with this mask. */
static uint64_t time_trace_point(unsigned mask)
{
    uint64_t batches[BATCHES];
    __atomic_store_n(&trace_mask, mask, __ATOMIC_RELEASE);
    for (unsigned b = 0; b < BATCHES; b++) {
        uint64_t start = rdtsc();
        for (int i = 0; i < PER_BATCH; i++)
            trace_ipi_receive(IPI_RESCHEDULE);
        batches[b] = (rdtsc() - start) / PER_BATCH;
    }
    return median(batches, BATCHES);
}

static void bench_trace_point(void)
{
    unsigned saved = __atomic_load_n(&trace_mask, __ATOMIC_ACQUIRE);
    uint64_t off = time_trace_point(0);
    uint64_t on = time_trace_point(1u << TRACE_CLASS_IPI);
    __atomic_store_n(&trace_mask, saved, __ATOMIC_RELEASE);
    trace_clear();
    printk("bench: trace_point cycles_off=%lu cycles_on=%lu batches=%d per_batch=%d\n", off, on, BATCHES,
           PER_BATCH);
}

struct benchmark {
    const char *name;
    void (*run)(void);
};

static const struct benchmark benchmarks[] = {
    { "context_switch", bench_context_switch },
    { "wakeup_cross_cpu", bench_wakeup_cross_cpu },
    { "synchronize_rcu", rcu_bench_synchronize },
    { "call_rcu_flood", rcu_bench_callback_flood },
    { "trace_point", bench_trace_point },
};

unsigned bench_run(const char *names)
{
    unsigned unknown = 0;
    bool all = strcmp(names, "all") == 0;

    for (const char *start = names; *start;) {
        const char *end = strchr(start, ',');
        size_t length = end ? (size_t)(end - start) : strlen(start);
        bool found = false;
        for (unsigned i = 0; i < sizeof(benchmarks) / sizeof(benchmarks[0]); i++) {
            if (all || (strlen(benchmarks[i].name) == length && strncmp(benchmarks[i].name, start, length) == 0)) {
                benchmarks[i].run();
                found = true;
            }
        }
        if (!found) {
            printk("bench: no benchmark named '%.*s'\n", (int)length, start);
            unknown++;
        }
        if (all)
            break;
        start += length + (end ? 1 : 0);
    }
    return unknown;
}
