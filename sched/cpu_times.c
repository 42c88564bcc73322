/* Where each CPU's time went: /proc/stat (in USER_HZ ticks, with the
 * counts it adds: interrupts, context switches, running tasks) and
 * /proc/uptime. Idle time is the idle task's runtime; user time is
 * measured at the context tracking hooks (kernel/time/context_tracking.c);
 * system time is the rest, interrupts included: none is sampled by the
 * tick. Left out: "processes" (always 0), and irq time split from system
 * time. */
#include <stdint.h>

#include "arch/x86/clock.h"
#include "kernel/base/percpu.h"
#include "kernel/fs/procfs.h"
#include "kernel/irq/irq.h"
#include "kernel/lib/format.h"
#include "kernel/lib/linux_abi.h"
#include "kernel/time/context_tracking.h"
#include "sched/task.h"

static uint64_t idle_ns(unsigned cpu)
{
    struct task *idle = cpus[cpu]->rq.idle;
    return idle ? task_runtime_ns(idle) : 0;
}

static void generate_uptime(struct proc_text *text)
{
    uint64_t now = clock_now();
    /* Idle time is summed over CPUs, as Linux does (it may exceed uptime). */
    uint64_t idle = 0;
    unsigned cpu;
    for_each_online_cpu(cpu)
        idle += idle_ns(cpu);
    uint64_t now_cs = now / 10000000, idle_cs = idle / 10000000;
    proc_printf(text, "%llu.%02llu %llu.%02llu\n", (unsigned long long)(now_cs / 100),
                (unsigned long long)(now_cs % 100), (unsigned long long)(idle_cs / 100),
                (unsigned long long)(idle_cs % 100));
}

struct cpu_times {
    uint64_t user, system, idle;    /* USER_HZ ticks */
};

static struct cpu_times cpu_times(unsigned cpu, uint64_t now)
{
    uint64_t idle = idle_ns(cpu), user = context_user_ns(cpu);
    uint64_t system = now > idle + user ? now - idle - user : 0;
    return (struct cpu_times){ user_hz_ticks(user), user_hz_ticks(system), user_hz_ticks(idle) };
}

static void stat_cpu_line(struct proc_text *text, const char *name, struct cpu_times times)
{
    /* user nice system idle iowait irq softirq steal guest guest_nice */
    proc_printf(text, "%s %llu 0 %llu %llu 0 0 0 0 0 0\n", name, (unsigned long long)times.user,
                (unsigned long long)times.system, (unsigned long long)times.idle);
}

static void generate_stat(struct proc_text *text)
{
    uint64_t switches = 0, running = 0, interrupts = 0, now = clock_now();
    struct cpu_times total = { 0, 0, 0 };
    unsigned cpu;
    for_each_online_cpu(cpu) {
        struct cpu_times times = cpu_times(cpu, now);
        total.user += times.user;
        total.system += times.system;
        total.idle += times.idle;
        switches += cpus[cpu]->rq.context_switches;
        running += cpus[cpu]->rq.nr_running;
        for (unsigned source = 0; source < IRQ_SOURCE_COUNT; source++)
            interrupts += irq_count(cpu, source);
    }
    stat_cpu_line(text, "cpu ", total);
    for_each_online_cpu(cpu) {
        char name[16];
        snprintf(name, sizeof(name), "cpu%u", cpu);
        stat_cpu_line(text, name, cpu_times(cpu, now));
    }
    /* intr: the total, then each device IRQ by number (Linux's layout). */
    proc_printf(text, "intr %llu", (unsigned long long)interrupts);
    for (unsigned gsi = 0; gsi < DEVICE_GSI_COUNT; gsi++) {
        uint64_t count = 0;
        for_each_online_cpu(cpu)
            count += irq_count(cpu, IRQ_SOURCE_DEVICE_FIRST + gsi);
        proc_printf(text, " %llu", (unsigned long long)count);
    }
    proc_printf(text, "\nctxt %llu\n", (unsigned long long)switches);
    proc_printf(text, "btime 0\n"); /* no wall clock */
    proc_printf(text, "processes 0\n");
    proc_printf(text, "procs_running %llu\n", (unsigned long long)running);
    proc_printf(text, "procs_blocked 0\n");
}

PROC_FILE("/proc/stat", generate_stat, NULL);
PROC_FILE("/proc/uptime", generate_uptime, NULL);
