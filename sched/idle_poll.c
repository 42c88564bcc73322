/* idle=poll: see sched/idle_poll.h and docs/noise.md "Polling idle".
 *
 * A polling CPU never halts. While idle it spins on its need_resched flag
 * with interrupts on, and reads the clock when one of its own timers is
 * pending, to run it when it is due (kernel/time/tick.c:
 * tick_poll_timers). So its idle task never waits for anything without
 * looking at need_resched first: a waker that sets the flag under the
 * runqueue lock and finds the idle task current there sends no
 * reschedule IPI (sched/sched.c: resched_needs_ipi; Linux's
 * TIF_POLLING_NRFLAG). Its own timers arm no timer interrupt while it
 * polls (kernel/time/timers.c: the base is "polled").
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
#include "kernel/irq/ipi.h"
#include "kernel/lib/string.h"
#include "kernel/time/tick.h"
#include "kernel/time/timers.h"

static struct cpumask idle_poll_mask;

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
    for_each_cpu_in(cpu, &mask) {
        if (cpu != this_cpu_id())
            ipi_send(cpu, IPI_RESCHEDULE);      /* out of its halt: from now on it polls */
    }
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
    timers_poll_begin();
    return true;
}

/* The clock is read only while a timer of ours is pending, and then once
 * every POLL_CLOCK_EVERY turns: under QEMU a read of the HPET takes the
 * emulator's global lock, which every other vCPU's device access needs. */
#define POLL_CLOCK_EVERY 64

void idle_poll_wait(void)
{
    struct cpu *cpu = this_cpu();
    unsigned turns = 0;
    irq_enable();
    while (!__atomic_load_n(&cpu->need_resched, __ATOMIC_SEQ_CST)) {
        if (++turns % POLL_CLOCK_EVERY == 0 && timers_next_deadline() != UINT64_MAX) {
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
    timers_poll_end();
}
