/* ktest=panic*: deliberate kernel faults. ktest=panic: a null write must end in a PANIC report with a
 * symbolized backtrace and the panic exit status, never in a pass. The
 * QEMU scenario checks the report names this function. */
#include "kernel/mm/heap.h"
#include "kernel/irq/ipi.h"
#include "kernel/base/percpu.h"
#include "kernel/base/printk.h"
#include "kernel/time/timers.h"
#include "sched/task.h"
#include "kernel/debug/ktest.h"
#include "kernel/base/spinlock.h"

static void __attribute__((noinline)) ktest_panic_null_dereference(struct ktest *test)
{
    volatile int *null_pointer = 0;
    *null_pointer = 1;
    KTEST_EXPECT(test, false, "a write to address 0 did not fault");
}

KTEST_SUITE(panic, KTEST_CASE(ktest_panic_null_dereference));

/* ktest=panic_lock: taking a spinlock this CPU already holds is a deadlock;
 * the owner check turns it into a report. */
static void ktest_panic_recursive_lock(struct ktest *test)
{
    static struct spinlock lock = SPINLOCK_INIT("ktest");
    spin_lock(&lock);
    spin_lock(&lock);
    KTEST_EXPECT(test, false, "taking a held lock again was not caught");
}

KTEST_SUITE(panic_lock, KTEST_CASE(ktest_panic_recursive_lock));

/* ktest=panic_lock_not_held: code that says it runs under a lock asserts
 * it (spin_assert_held); called without the lock, it panics at once. */
static void ktest_panic_lock_not_held(struct ktest *test)
{
    static struct spinlock lock = SPINLOCK_INIT("ktest-unheld");
    spin_assert_held(&lock);
    KTEST_EXPECT(test, false, "a lock not held passed spin_assert_held");
}

KTEST_SUITE(panic_lock_not_held, KTEST_CASE(ktest_panic_lock_not_held));

/* ktest=panic_double_free: the heap catches an object freed twice (a
 * neighbour keeps the slab alive, so its in-use bitmap is what notices). */
static void ktest_panic_double_free(struct ktest *test)
{
    void *neighbour = kmalloc(40);
    void *object = kmalloc(40);
    kfree(object);
    kfree(object);
    kfree(neighbour);
    KTEST_EXPECT(test, false, "a double free was not caught");
}

KTEST_SUITE(panic_double_free, KTEST_CASE(ktest_panic_double_free));

/* ktest=panic_use_after_free: a write into a freed object is caught when
 * kmalloc hands that object out again (the slab is LIFO: the next
 * allocation of the size gets it back). */
static void ktest_panic_use_after_free(struct ktest *test)
{
    void *neighbour = kmalloc(48);
    volatile char *object = kmalloc(48);
    kfree((void *)object);
    object[20] = 1;
    void *again = kmalloc(48);
    KTEST_EXPECT(test, false, "a write after free was not caught (%p, %p)", again, neighbour);
}

KTEST_SUITE(panic_use_after_free, KTEST_CASE(ktest_panic_use_after_free));

/* ktest=panic_stack_overflow: running off the bottom of a kernel stack hits
 * the unmapped guard page; the fault cannot push its frame on that stack,
 * so it becomes a double fault, which runs on its own IST stack. */
static volatile unsigned recursion_limit = ~0u;    /* volatile: gcc must not see the end */

static unsigned __attribute__((noinline)) recurse_forever(unsigned depth)
{
    volatile char frame_filler[256];
    frame_filler[0] = (char)depth;
    if (depth >= recursion_limit)
        return 0;
    return recurse_forever(depth + 1) + frame_filler[0];
}

static void ktest_panic_stack_overflow(struct ktest *test)
{
    recurse_forever(0);
    KTEST_EXPECT(test, false, "endless recursion did not fault");
}

KTEST_SUITE(panic_stack_overflow, KTEST_CASE(ktest_panic_stack_overflow));

/* ktest=panic_boot_stack_overflow: the boot CPU's own stack (its idle
 * stack, from boot/multiboot2.asm) has a guard page too. An interrupt that
 * arrives while CPU 0 idles runs on that stack: a call sent from CPU 1
 * overflows it from there. A call that finds CPU 0 busy on another stack
 * returns, and is sent again. */
extern char boot_stack[], boot_stack_top[];
static volatile bool landed_elsewhere;

static void overflow_if_on_boot_stack(void *arg)
{
    (void)arg;
    char here;
    if (&here < boot_stack || &here >= boot_stack_top) {
        landed_elsewhere = true;
        return;
    }
    printk("ktest: cpu 0 runs on its boot stack: overflowing it\n");
    recurse_forever(0);
}

static void ktest_panic_boot_stack_overflow(struct ktest *test)
{
    struct cpumask cpu1 = cpumask_of(1);
    set_affinity(current_task(), &cpu1);
    yield();
    KTEST_EXPECT(test, this_cpu_id() == 1, "could not move to cpu 1 (needs -smp 2 or more)");
    for (int tries = 0; tries < 100 && this_cpu_id() == 1; tries++) {
        landed_elsewhere = false;
        smp_call_function_single(0, overflow_if_on_boot_stack, 0, true);
        sleep_ns(10 * 1000 * 1000);
    }
    KTEST_EXPECT(test, false, "cpu 0 never overflowed its boot stack (landed elsewhere: %d)", landed_elsewhere);
}

KTEST_SUITE(panic_boot_stack_overflow, KTEST_CASE(ktest_panic_boot_stack_overflow));
