/* The lock check: see kernel/base/lockcheck.h. Nothing here takes a lock, and
 * everything is printed with printk_unlocked(): the stuck lock may be the
 * console's, and the owner prints its backtrace from an NMI. Concurrent
 * reports take turns through one flag, waited for a bounded time. */
#include "kernel/base/lockcheck.h"

#include "arch/x86/cpu.h"
#include "arch/x86/trap.h"
#include "kernel/lib/format.h"
#include "kernel/base/ksyms.h"
#include "kernel/base/machine.h"
#include "kernel/base/panic.h"
#include "kernel/base/percpu.h"
#include "kernel/base/printk.h"
#include "kernel/base/spinlock.h"

#define NMI_ANSWER_CYCLES (1ul << 31)   /* how long a reporter waits for the owner's backtrace */
#define REPORT_TURN_CYCLES (1ul << 32)  /* how long a report waits for another to end */
#define SITE_SIZE 80

struct lockcheck_cpu {
    uint64_t irqs_off_since;            /* TSC when a lock turned interrupts off; 0: none did */
    const struct spinlock *irqs_off_lock;
    uint64_t irqs_off_taken_at;
    bool irqs_off_reported;
    volatile bool backtrace_wanted;     /* set by a reporter, cleared by this CPU's NMI handler */
};

static struct lockcheck_cpu lockcheck_cpus[MAX_CPUS];
static struct lockcheck_counts counts;
static volatile int reporting_cpu = -1;

static bool tsc_always_trusted(void)
{
    return true;
}

static bool (*tsc_trusted)(void) = tsc_always_trusted;
static uint64_t report_cycles = LOCKCHECK_REPORT_CYCLES, panic_cycles = LOCKCHECK_PANIC_CYCLES;

void lockcheck_set_bounds(uint64_t report, uint64_t panic)
{
    __atomic_store_n(&report_cycles, report ? report : LOCKCHECK_REPORT_CYCLES, __ATOMIC_SEQ_CST);
    __atomic_store_n(&panic_cycles, panic ? panic : LOCKCHECK_PANIC_CYCLES, __ATOMIC_SEQ_CST);
}

uint64_t lockcheck_report_cycles(void)
{
    return __atomic_load_n(&report_cycles, __ATOMIC_RELAXED);
}

uint64_t lockcheck_panic_cycles(void)
{
    return __atomic_load_n(&panic_cycles, __ATOMIC_RELAXED);
}

void lockcheck_set_tsc_trusted(bool (*trusted)(void))
{
    tsc_trusted = trusted;
}

static void count(uint64_t *counter)
{
    __atomic_add_fetch(counter, 1, __ATOMIC_SEQ_CST);
}

void lockcheck_read_counts(struct lockcheck_counts *out)
{
    out->wait_reports = __atomic_load_n(&counts.wait_reports, __ATOMIC_SEQ_CST);
    out->irqs_off_reports = __atomic_load_n(&counts.irqs_off_reports, __ATOMIC_SEQ_CST);
    out->nmi_backtraces = __atomic_load_n(&counts.nmi_backtraces, __ATOMIC_SEQ_CST);
}

/* Cycles since start; a TSC that went back counts as no time. */
static uint64_t cycles_since(uint64_t start)
{
    uint64_t now = rdtsc();
    return now > start ? now - start : 0;
}

/* "function+0xoffset" for a code address. */
static const char *describe_site(uint64_t address, char *buffer)
{
    uint64_t offset;
    const char *name = ksyms_lookup(address, &offset);
    if (name)
        snprintf(buffer, SITE_SIZE, "%s+0x%lx", name, offset);
    else
        snprintf(buffer, SITE_SIZE, "%#lx", address);
    return buffer;
}

static void report_begin(unsigned cpu)
{
    uint64_t start = rdtsc();
    int none = -1;
    while (!__atomic_compare_exchange_n(&reporting_cpu, &none, (int)cpu, false, __ATOMIC_ACQUIRE,
                                        __ATOMIC_RELAXED)) {
        if (cycles_since(start) > REPORT_TURN_CYCLES)
            return;             /* the other report is stuck: print anyway */
        none = -1;
        cpu_relax();
    }
}

static void report_end(unsigned cpu)
{
    int me = (int)cpu;
    __atomic_compare_exchange_n(&reporting_cpu, &me, -1, false, __ATOMIC_RELEASE, __ATOMIC_RELAXED);
}

/* Ask cpu, by NMI, to print its backtrace; wait a bounded time for it. */
static void ask_for_backtrace(unsigned cpu)
{
    struct lockcheck_cpu *target = &lockcheck_cpus[cpu];

    __atomic_store_n(&target->backtrace_wanted, true, __ATOMIC_SEQ_CST);
    machine->send_nmi(cpus[cpu]->apic_id);
    uint64_t start = rdtsc();
    while (__atomic_load_n(&target->backtrace_wanted, __ATOMIC_ACQUIRE)) {
        if (cycles_since(start) > NMI_ANSWER_CYCLES) {
            printk_unlocked("lockcheck: cpu %u did not answer the NMI\n", cpu);
            return;
        }
        cpu_relax();
    }
}

static void report_wait(struct spinlock *lock, uint64_t waited)
{
    unsigned me = this_cpu_id();
    int owner = lock->owner_cpu;
    char site[SITE_SIZE];

    report_begin(me);
    printk_unlocked("lockcheck: cpu %u waits for lock '%s' (%p) for %lu cycles (bound %lu): held by cpu %d, "
                    "taken at %s\n",
                    me, lock->name, (void *)lock, waited, lockcheck_report_cycles(), owner,
                    describe_site(lock->taken_at, site));
    printk_unlocked("lockcheck: cpu %u, the waiter:\n", me);
    print_backtrace_here();
    if (owner >= 0 && owner < MAX_CPUS && (unsigned)owner != me && cpus[owner])
        ask_for_backtrace((unsigned)owner);
    printk_unlocked("lockcheck: end of report; cpu %u goes on waiting (panic at %lu cycles)\n", me,
                    lockcheck_panic_cycles());
    report_end(me);
    count(&counts.wait_reports);
}

void lockcheck_wait_begin(struct lock_wait *wait)
{
    *wait = (struct lock_wait){ .start = rdtsc() };
}

/* Cycles waited: the TSC's, or the spins' estimate once it is unstable. */
static uint64_t cycles_waited(const struct lock_wait *wait)
{
    if (tsc_trusted())
        return cycles_since(wait->start);
    return wait->spins * LOCKCHECK_CYCLES_PER_SPIN;
}

void lockcheck_wait_check(struct lock_wait *wait, struct spinlock *lock)
{
    uint64_t waited = cycles_waited(wait);
    char site[SITE_SIZE];

    if (waited >= lockcheck_panic_cycles())
        panic("lockcheck: cpu %u waited %lu cycles for lock '%s' (%p), held by cpu %d, taken at %s", this_cpu_id(),
              waited, lock->name, (void *)lock, lock->owner_cpu, describe_site(lock->taken_at, site));
    if (waited < lockcheck_report_cycles() || wait->reported)
        return;
    wait->reported = true;
    bool first = false;
    if (__atomic_compare_exchange_n(&lock->wait_reported, &first, true, false, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED))
        report_wait(lock, waited);
}

void lockcheck_irqs_off(const struct spinlock *lock, uint64_t since)
{
    struct lockcheck_cpu *cpu = &lockcheck_cpus[this_cpu_id()];
    cpu->irqs_off_since = since;
    cpu->irqs_off_lock = lock;
    cpu->irqs_off_taken_at = lock->taken_at;
}

static void report_irqs_off(struct lockcheck_cpu *cpu, uint64_t cycles)
{
    unsigned me = this_cpu_id();
    char site[SITE_SIZE];

    report_begin(me);
    printk_unlocked("lockcheck: cpu %u kept interrupts off for %lu cycles (bound %lu): lock '%s' taken at %s, "
                    "released at:\n",
                    me, cycles, lockcheck_report_cycles(), cpu->irqs_off_lock->name,
                    describe_site(cpu->irqs_off_taken_at, site));
    print_backtrace_here();
    report_end(me);
    count(&counts.irqs_off_reports);
}

void lockcheck_irqs_on(const struct spinlock *lock)
{
    struct lockcheck_cpu *cpu = &lockcheck_cpus[this_cpu_id()];

    if (!cpu->irqs_off_since || cpu->irqs_off_lock != lock)
        return;
    uint64_t cycles = cycles_since(cpu->irqs_off_since);
    cpu->irqs_off_since = 0;
    if (cycles >= lockcheck_report_cycles() && !cpu->irqs_off_reported && tsc_trusted()) {
        cpu->irqs_off_reported = true;
        report_irqs_off(cpu, cycles);
    }
}

/* In an NMI, %gs may still be the user's (the NMI came between syscall
 * and swapgs): this CPU is found by its APIC ID instead. */
static int cpu_of_this_nmi(void)
{
    uint32_t apic_id = machine->apic_id();
    for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++) {
        if (cpus[cpu] && cpus[cpu]->apic_id == apic_id)
            return (int)cpu;
    }
    return -1;
}

bool lockcheck_answer_nmi(const struct trap_frame *frame)
{
    int cpu = cpu_of_this_nmi();

    if (cpu < 0 || !__atomic_load_n(&lockcheck_cpus[cpu].backtrace_wanted, __ATOMIC_ACQUIRE))
        return false;
    printk_unlocked("lockcheck: cpu %d at the NMI:\n", cpu);
    print_backtrace(frame->rip, frame->rbp);
    count(&counts.nmi_backtraces);
    __atomic_store_n(&lockcheck_cpus[cpu].backtrace_wanted, false, __ATOMIC_RELEASE);
    return true;
}
