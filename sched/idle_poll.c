/* idle=poll: see sched/idle_poll.h and docs/noise.md "Polling idle".
 *
 * A polling CPU never halts. While idle it spins on its need_resched flag
 * with interrupts on, and reads the clock when one of its own timers is
 * pending, to run it when it is due (kernel/time/tick.c:
 * tick_poll_timers). While it polls, `watching` is set: a waker that
 * sets need_resched reads it after a full fence, and sends no reschedule
 * IPI if it is set (Linux's TIF_POLLING_NRFLAG); the poller clears it with
 * a full fence before it looks at need_resched for the last time (the
 * idle loop's test). One of the two sees the other's store, so no wake-up
 * is lost. Timers work the same way (kernel/time/timers.c: the base is
 * "polled").
 *
 * The cost: the CPU never sleeps. On hardware it burns power and heats
 * its core (and slows a hyperthread sibling); under TCG it keeps one host
 * thread busy for as long as it idles. Hence the per-CPU form, poll:LIST,
 * for the isolated CPUs only. Linux's idle=poll is for every CPU; its
 * per-CPU knob is cpuidle's, via /dev/cpu_dma_latency or the PM QoS
 * resume latency of one CPU (left out). */
#include "sched/idle_poll.h"

#include "arch/x86/cpu.h"
#include "kernel/base/percpu.h"
#include "kernel/base/printk.h"
#include "kernel/lib/string.h"
#include "kernel/time/tick.h"
#include "kernel/time/timers.h"

static struct cpumask idle_poll_mask;
static DEFINE_PER_CPU(bool, watching);

/* Problems are reported and change nothing, or only the CPUs they name. */
void idle_poll_init(const char *value)
{
    struct cpumask mask;

    if (!*value || !strcmp(value, "halt"))
        return;
    if (!strcmp(value, "poll")) {
        mask = cpu_online_mask;
    } else if (strncmp(value, "poll:", 5) != 0 || cpulist_parse(value + 5, strlen(value + 5), &mask) < 0) {
        printk("cmdline: idle=%s: must be halt, poll or poll:LIST (e.g. poll:1-3); idle=halt kept\n", value);
        return;
    }
    struct cpumask offline;
    cpumask_andnot(&offline, &mask, &cpu_online_mask);
    if (!cpumask_empty(&offline)) {
        printk("cmdline: idle=%s: CPU %u is not online: left out\n", value, cpumask_first(&offline));
        cpumask_and(&mask, &mask, &cpu_online_mask);
    }
    unsigned cpu;
    for_each_cpu_in(cpu, &mask)
        cpumask_set_atomic(&idle_poll_mask, cpu);
    char text[CPULIST_FORMAT_SIZE];
    cpulist_format(&idle_poll_mask, text, sizeof(text));
    printk("idle: cpus %s poll\n", text[0] ? text : "none");
}

bool idle_poll_cpu(unsigned cpu)
{
    return cpumask_test_atomic(&idle_poll_mask, cpu);
}

bool idle_poll_begin(void)
{
    if (!idle_poll_cpu(this_cpu_id()))
        return false;
    __atomic_store_n(this_cpu_ptr(watching), true, __ATOMIC_SEQ_CST);
    timers_poll_begin();
    return true;
}

void idle_poll_wait(void)
{
    struct cpu *cpu = this_cpu();
    irq_enable();
    while (!__atomic_load_n(&cpu->need_resched, __ATOMIC_SEQ_CST)) {
        if (timers_next_deadline() != UINT64_MAX) {     /* no clock read while none is pending */
            irq_disable();
            tick_poll_timers();
            irq_enable();
        }
        cpu_relax();
    }
    irq_disable();
}

void idle_poll_end(void)
{
    __atomic_store_n(this_cpu_ptr(watching), false, __ATOMIC_SEQ_CST);
    timers_poll_end();
}

bool idle_poll_watching(unsigned cpu)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return __atomic_load_n(per_cpu_ptr(watching, cpu), __ATOMIC_SEQ_CST);
}
