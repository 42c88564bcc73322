/* TLB shootdown (kernel/mm/tlb.h, docs/threads.md "The shootdown").
 *
 * Each CPU has two counters: requests sent to it, and the request count
 * it had seen when it last flushed. A sender takes a number, sends the
 * IPI (IPI_TLB_SHOOTDOWN, "TLB" in /proc/interrupts) and waits until the
 * target's flushed count reaches it: one flush answers every request
 * made before it began. A flush is the whole TLB (a CR3 reload), not a
 * page at a time: few pages change at once here, and a reload is one
 * instruction.
 *
 * A sender may hold its address space's lock with interrupts off, and
 * its target may be spinning on that lock, or sending to the sender: so
 * every such wait calls tlb_answer() (the lock's spin too), and no one
 * waits for another's flush with a request of its own unanswered.
 *
 * Left out: Linux's lazy TLB mode (a kernel thread here loads the
 * kernel's own tables, so a CPU that switched away holds nothing of the
 * space) and flushing single pages with INVLPG on the targets. */
#include "kernel/mm/tlb.h"

#include "arch/x86/cpu.h"
#include "arch/x86/paging.h"
#include "kernel/base/percpu.h"
#include "kernel/irq/ipi.h"

struct tlb_cpu {
    uint64_t requested;         /* numbers handed out to senders */
    uint64_t flushed;           /* requested, as read before our last flush began */
} __attribute__((aligned(64)));

static struct tlb_cpu tlb_cpus[MAX_CPUS];
static uint64_t sent;

void tlb_answer(void)
{
    struct tlb_cpu *self = &tlb_cpus[this_cpu_id()];
    uint64_t requested = __atomic_load_n(&self->requested, __ATOMIC_ACQUIRE);
    if (requested == __atomic_load_n(&self->flushed, __ATOMIC_RELAXED))
        return;
    paging_flush_this_cpu();
    __atomic_store_n(&self->flushed, requested, __ATOMIC_RELEASE);
}

void tlb_shootdown(const struct cpumask *targets, const char *why)
{
    uint64_t numbers[MAX_CPUS];
    unsigned self = this_cpu_id(), cpu;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);    /* the entries' changes before the requests */
    for_each_cpu_in(cpu, targets) {
        if (cpu == self)
            continue;
        numbers[cpu] = __atomic_add_fetch(&tlb_cpus[cpu].requested, 1, __ATOMIC_SEQ_CST);
        ipi_send(cpu, IPI_TLB_SHOOTDOWN, why);
        __atomic_add_fetch(&sent, 1, __ATOMIC_RELAXED);
    }
    for_each_cpu_in(cpu, targets) {
        if (cpu == self)
            continue;
        while (__atomic_load_n(&tlb_cpus[cpu].flushed, __ATOMIC_ACQUIRE) < numbers[cpu]) {
            tlb_answer();
            cpu_relax();
        }
    }
}

uint64_t tlb_shootdowns_sent(void)
{
    return __atomic_load_n(&sent, __ATOMIC_RELAXED);
}
