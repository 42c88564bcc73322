/* rcutorture, in miniature (after Linux's kernel/rcu/rcutorture.c).
 *
 * One writer keeps replacing the object that `torture.current` points to
 * and hands the old one to call_rcu. Its callback bumps the object's
 * pipeline count and queues it again, RCU_TORTURE_PIPE_LEN times; then
 * the object is poisoned and goes back to a small pool, from which the
 * writer soon reuses it with a new generation. So a use after "free" shows
 * up quickly.
 *
 * Readers, one kthread per CPU plus a timer per CPU (readers in interrupt
 * context, including interrupts that arrive in idle), take
 * rcu_read_lock, read the object, dawdle, and check that it is neither
 * poisoned nor reused (generation unchanged). At the end they note its
 * pipeline count: an object is removed at count 1, so a reader that sees 2
 * or more watched a whole grace period go by while it held the object: a
 * broken RCU. The histogram of those counts is rcutorture's "Reader Pipe"
 * line: everything should be in the first two columns.
 *
 * A syncer calls synchronize_rcu and rcu_barrier meanwhile. Readers yield
 * often (context-switch QSes) and sleep now and then (idle, extended QSes).
 * At the end the pool must be whole again: no object lost, none freed
 * twice. Errors, a stall during the run, or a reader that saw count >= 2
 * fail the run. */
#include "rcu/torture.h"

#include "arch/x86/clock.h"
#include "arch/x86/cpu.h"
#include "kernel/fs/procfs.h"
#include "kernel/lib/errno.h"
#include "kernel/lib/format.h"
#include "kernel/time/nohz_task.h"
#include "kernel/base/percpu.h"
#include "kernel/lib/string.h"
#include "kernel/time/timers.h"
#include "rcu/internal.h"
#include "sched/task.h"

#define POOL_SIZE 256
#define MAGIC_LIVE 0x4c495645u          /* "LIVE" */
#define MAGIC_POISON 0x6b6b6b6bu        /* what Linux's slab poisons freed memory with */
#define IRQ_READER_PERIOD_NS 1000000ul

struct torture_object {
    volatile unsigned magic;
    volatile unsigned long generation;
    unsigned pipe_count;                /* atomic */
    struct rcu_head rcu;
    struct torture_object *free_next;
};

struct torture_reader {
    unsigned cpu;
    struct task *task;
    struct timer irq_timer;
    uint64_t reads, irq_reads, errors;
    uint64_t pipe[RCU_TORTURE_PIPE_LEN + 1];
};

static struct {
    struct torture_object pool[POOL_SIZE];
    struct torture_object *free_list;
    unsigned free_count;
    struct spinlock pool_lock;
    struct torture_object *current;     /* RCU-protected */
    unsigned long generation;
    volatile bool stop;
    uint64_t writes, syncs, barriers, errors;
    struct torture_reader readers[MAX_CPUS];
} torture;

static bool torture_busy;

/* ---- The pool ---- */

static void pool_put(struct torture_object *object)
{
    spin_lock(&torture.pool_lock);
    object->magic = MAGIC_POISON;
    object->generation = 0;
    object->free_next = torture.free_list;
    torture.free_list = object;
    torture.free_count++;
    spin_unlock(&torture.pool_lock);
}

static struct torture_object *pool_get(void)
{
    spin_lock(&torture.pool_lock);
    struct torture_object *object = torture.free_list;
    if (object) {
        torture.free_list = object->free_next;
        torture.free_count--;
        if (object->magic != MAGIC_POISON)
            torture.errors++;           /* touched while free */
    }
    spin_unlock(&torture.pool_lock);
    return object;
}

static void pool_init(void)
{
    spin_lock_init(&torture.pool_lock, "rcutorture_pool");
    torture.free_list = 0;
    torture.free_count = 0;
    for (unsigned i = 0; i < POOL_SIZE; i++)
        pool_put(&torture.pool[i]);
}

/* ---- Writer, callbacks, syncer ---- */

static void object_callback(struct rcu_head *head)
{
    struct torture_object *object = (struct torture_object *)((char *)head - __builtin_offsetof(struct torture_object, rcu));

    if (__atomic_add_fetch(&object->pipe_count, 1, __ATOMIC_RELEASE) >= RCU_TORTURE_PIPE_LEN)
        pool_put(object);
    else
        call_rcu(head, object_callback);
}

static void retire(struct torture_object *old)
{
    __atomic_store_n(&old->pipe_count, 1, __ATOMIC_RELEASE);   /* removed: readers may still hold it */
    call_rcu(&old->rcu, object_callback);
}

static void writer_main(void *unused)
{
    (void)unused;
    while (!torture.stop) {
        struct torture_object *object = pool_get();
        if (!object) {
            sleep_ns(200000);           /* every object is waiting for a GP */
            continue;
        }
        object->generation = ++torture.generation;
        __atomic_store_n(&object->pipe_count, 0, __ATOMIC_RELAXED);
        object->magic = MAGIC_LIVE;
        struct torture_object *old = torture.current;
        rcu_assign_pointer(torture.current, object);
        if (old)
            retire(old);
        torture.writes++;
        if (torture.writes % 8 == 0)
            yield();
    }
}

static void syncer_main(void *unused)
{
    (void)unused;
    while (!torture.stop) {
        synchronize_rcu();
        torture.syncs++;
        if (torture.syncs % 8 == 0) {
            rcu_barrier();
            torture.barriers++;
        }
    }
}

/* ---- Readers ---- */

static void dawdle(unsigned iterations)
{
    for (unsigned i = 0; i < iterations; i++)
        cpu_relax();
}

/* One read-side critical section; false if it saw a freed or reused object. */
static bool read_once(struct torture_reader *reader, unsigned delay, bool nest)
{
    bool good = true;

    rcu_read_lock();
    struct torture_object *object = rcu_dereference(torture.current);
    if (object) {
        unsigned long generation = object->generation;
        good = object->magic == MAGIC_LIVE;
        if (nest) {
            rcu_read_lock();
            dawdle(delay / 2);
            rcu_read_unlock();
        }
        dawdle(delay);
        good = good && object->magic == MAGIC_LIVE && object->generation == generation;
        unsigned pipe = __atomic_load_n(&object->pipe_count, __ATOMIC_ACQUIRE);
        reader->pipe[pipe < RCU_TORTURE_PIPE_LEN ? pipe : RCU_TORTURE_PIPE_LEN]++;
    }
    rcu_read_unlock();
    return good;
}

static void irq_reader_fired(struct timer *timer)
{
    struct torture_reader *reader = timer->data;

    if (!read_once(reader, 50, false))
        reader->errors++;
    reader->irq_reads++;
    if (!torture.stop)
        timer_start(timer, clock_now() + IRQ_READER_PERIOD_NS, true);
}

static void reader_main(void *arg)
{
    struct torture_reader *reader = arg;

    timer_init(&reader->irq_timer, irq_reader_fired, reader);
    timer_start(&reader->irq_timer, clock_now() + IRQ_READER_PERIOD_NS, true);
    while (!torture.stop) {
        unsigned n = (unsigned)reader->reads;
        /* Mostly short readers, a few long ones (where a broken RCU is caught). */
        if (!read_once(reader, n % 64 == 0 ? 20000 : 200, n % 3 == 0))
            reader->errors++;
        reader->reads++;
        if (n % 16 == 0)
            yield();
        if (n % 512 == 0)
            sleep_ns(500000);           /* let the CPU go idle: an extended QS */
    }
    timer_cancel(&reader->irq_timer);   /* on this CPU: the handler is not running now */
}

/* ---- The run ---- */

static void collect(struct rcu_torture_result *result)
{
    unsigned cpu;
    for_each_online_cpu(cpu) {
        struct torture_reader *reader = &torture.readers[cpu];
        result->reads += reader->reads;
        result->irq_reads += reader->irq_reads;
        result->reads_per_cpu[cpu] = reader->reads + reader->irq_reads;
        result->errors += reader->errors;
        for (unsigned i = 0; i <= RCU_TORTURE_PIPE_LEN; i++)
            result->pipe[i] += reader->pipe[i];
    }
    for (unsigned i = 2; i <= RCU_TORTURE_PIPE_LEN; i++)
        result->errors += result->pipe[i];     /* a reader outlived a grace period */
    result->writes = torture.writes;
    result->syncs = torture.syncs;
    result->barriers = torture.barriers;
    result->errors += torture.errors;
    result->cpus = cpu_count;
}

/* A kthread_create that found no memory gave NULL: nothing to join. */
static void join_if_started(struct task *task)
{
    if (task)
        kthread_join(task);
}

int rcu_torture_run(uint64_t duration_ns, struct rcu_torture_result *result)
{
    bool expected = false;
    unsigned cpu;

    if (!__atomic_compare_exchange_n(&torture_busy, &expected, true, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        return -EBUSY;
    memset(result, 0, sizeof(*result));
    memset(&torture, 0, sizeof(torture));
    pool_init();
    uint64_t gps_before = rcu_gps_completed(), stalls_before = rcu_stall_count();

    /* Every CPU but those of nohz tasks: the torture load must not
     * compete with them (their grace-period side is what it tests). */
    struct cpumask where;
    cpumask_andnot(&where, &cpu_online_mask, &cpu_has_nohz_task);
    cpumask_andnot(&where, &where, &nohz_full_mask);
    bool all_started = true;
    for_each_cpu_in(cpu, &where) {
        struct cpumask only_here = cpumask_of(cpu);
        torture.readers[cpu].cpu = cpu;
        torture.readers[cpu].task = kthread_create("rcu_reader", reader_main, &torture.readers[cpu], &only_here);
        all_started &= torture.readers[cpu].task != 0;
    }
    struct task *writer = kthread_create("rcu_writer", writer_main, 0, &where);
    struct task *syncer = kthread_create("rcu_syncer", syncer_main, 0, &where);
    all_started &= writer && syncer;
    if (all_started)
        sleep_ns(duration_ns);
    __atomic_store_n(&torture.stop, true, __ATOMIC_RELEASE);
    join_if_started(writer);
    join_if_started(syncer);
    for_each_cpu_in(cpu, &where)
        join_if_started(torture.readers[cpu].task);

    /* Retire the last object and wait for every callback: the pool must be whole. */
    struct torture_object *last = torture.current;
    rcu_assign_pointer(torture.current, (struct torture_object *)0);
    if (last)
        retire(last);
    /* Callbacks requeue themselves up to RCU_TORTURE_PIPE_LEN times, so
     * one barrier is not enough; a lost object would keep this loop
     * going, hence the bound (far above the ten rounds needed). */
    for (unsigned round = 0; round < 10 * RCU_TORTURE_PIPE_LEN && torture.free_count < POOL_SIZE; round++)
        rcu_barrier();
    collect(result);
    if (torture.free_count != POOL_SIZE)
        result->errors++;
    result->gps = rcu_gps_completed() - gps_before;
    result->stalls = rcu_stall_count() - stalls_before;
    __atomic_store_n(&torture_busy, false, __ATOMIC_RELEASE);
    return all_started ? 0 : -ENOMEM;   /* the ones made ran their checks all the same */
}

void rcu_torture_format(const struct rcu_torture_result *result, struct proc_text *text)
{
    proc_printf(text, "rcutorture: reads %lu (in interrupts %lu) writes %lu syncs %lu barriers %lu\n",
                result->reads, result->irq_reads, result->writes, result->syncs, result->barriers);
    proc_printf(text, "rcutorture: grace periods %lu, stalls %lu, errors %lu, cpus %u\n", result->gps,
                result->stalls, result->errors, result->cpus);
    proc_printf(text, "rcutorture: Reader Pipe:");
    for (unsigned i = 0; i <= RCU_TORTURE_PIPE_LEN; i++)
        proc_printf(text, " %lu", result->pipe[i]);
    proc_printf(text, "\nrcutorture: %s\n", result->errors || result->stalls ? "FAILURE" : "SUCCESS");
}
