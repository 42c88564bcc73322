/* RCU benchmarks for `make bench` (bench=synchronize_rcu,call_rcu_flood):
 *
 * synchronize_rcu: latency with every other CPU idle, in ticks (jiffies)
 *   and in ns of the clocksource; the median of RUNS calls.
 * call_rcu_flood: a kthread on the last CPU queues FLOOD callbacks as fast
 *   as it can, then rcu_barrier(); callbacks invoked per second over that
 *   span. All invoked on that CPU by its rcuc kthread.
 *
 * Times under TCG depend on the host: reported, never asserted. */
#include "arch/x86/clock.h"
#include "kernel/mm/heap.h"
#include "kernel/base/percpu.h"
#include "kernel/base/printk.h"
#include "kernel/lib/median.h"
#include "kernel/time/tick.h"
#include "rcu/bench.h"
#include "rcu/internal.h"
#include "sched/task.h"

#define RUNS 31
#define FLOOD 20000

void rcu_bench_synchronize(void)
{
    uint64_t ns[RUNS], ticks[RUNS];
    uint64_t gps_before = rcu_gps_completed();

    for (unsigned i = 0; i < RUNS; i++) {
        uint64_t start = clock_now(), start_jiffies = jiffies;
        synchronize_rcu();
        ns[i] = clock_now() - start;
        ticks[i] = jiffies - start_jiffies;
    }
    printk("bench: synchronize_rcu ns_median=%lu ticks_median=%lu runs=%d gps=%lu\n", median(ns, RUNS),
           median(ticks, RUNS), RUNS, rcu_gps_completed() - gps_before);
}

static unsigned long flood_invoked;

static void count_invoked(struct rcu_head *head)
{
    (void)head;
    flood_invoked++;            /* one CPU's rcuc: no other writer */
}

static void flood(void *arg)
{
    struct rcu_head *heads = arg;
    for (unsigned i = 0; i < FLOOD; i++)
        call_rcu(&heads[i], count_invoked);
}

void rcu_bench_callback_flood(void)
{
    struct rcu_head *heads = kmalloc(FLOOD * sizeof(*heads));
    struct cpumask last = cpumask_of(cpu_count - 1);

    if (!heads) {
        printk("bench: call_rcu_flood skipped (no memory)\n");
        return;
    }
    flood_invoked = 0;
    uint64_t start = clock_now(), gps_before = rcu_gps_completed();
    struct task *flooder = kthread_create("rcu_flood", flood, heads, &last);
    if (!flooder) {
        printk("bench: call_rcu_flood skipped (no memory for its kthread)\n");
        kfree(heads);
        return;
    }
    kthread_join(flooder);
    rcu_barrier();
    uint64_t ns = clock_now() - start;
    printk("bench: call_rcu_flood callbacks=%lu ns=%lu per_second=%lu gps=%lu cpu=%u\n", flood_invoked, ns,
           ns ? flood_invoked * 1000000000ul / ns : 0, rcu_gps_completed() - gps_before, cpu_count - 1);
    kfree(heads);
}
