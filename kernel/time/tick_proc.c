/* /proc/tick (each CPU's tick, and why it runs), and the tick policy in
 * /proc/sys/kernel: tick_policy, switched at run time by writing a name,
 * and tick_policies, the list of names and what each stops
 * (docs/tick.md, docs/tick-policy.md). */
#include <stddef.h>
#include <stdint.h>

#include "arch/x86/clock.h"
#include "arch/x86/cpu.h"
#include "kernel/base/percpu.h"
#include "kernel/fs/proc_parse.h"
#include "kernel/fs/procfs.h"
#include "kernel/irq/irq.h"
#include "kernel/lib/cpumask.h"
#include "kernel/lib/format.h"
#include "kernel/process/process.h"
#include "kernel/time/housekeeping.h"
#include "kernel/time/nohz_task.h"
#include "kernel/time/tick.h"
#include "kernel/time/tsc_watchdog.h"
#include "sched/task.h"

/* Dependency bits by name, comma-separated, or "-". */
static void print_tick_deps(struct proc_text *text, uint32_t mask)
{
    if (!mask)
        proc_printf(text, "-");
    for (unsigned reason = 0, first = 1; reason < TICK_KEEP_REASON_COUNT; reason++) {
        if (mask & TICK_DEP(reason)) {
            proc_printf(text, "%s%s", first ? "" : ",", tick_keep_reason_names[reason]);
            first = 0;
        }
    }
}

/* The "nohz" column: the tid of cpu's nohz task (a single-threaded
 * process's pid), k and the id of a kernel thread (the in-kernel
 * tests'), "full" or "-". A process's task clears
 * the attribute before it dies, and process_reap() takes process_tree_lock
 * before it frees the task: one read under the lock stays until unlock. */
static void nohz_owner(unsigned cpu, char *owner, size_t size)
{
    spin_lock(&process_tree_lock);
    struct task *nohz = cpu_nohz_task(cpu);
    if (nohz && nohz->thread)       /* a thread's tid: its pid if it is alone */
        snprintf(owner, size, "%d", nohz->thread->tid);
    else if (nohz)
        snprintf(owner, size, "k%u", nohz->id);
    else
        snprintf(owner, size, "%s", cpumask_test_atomic(&nohz_full_mask, cpu) ? "full" : "-");
    spin_unlock(&process_tree_lock);
}

/* The clocksource, and the watchdog's verdict on the TSC (docs/tick.md). */
static void print_clocksource(struct proc_text *text)
{
    proc_printf(text, "clocksource %s, tsc ", clock_source_name());
    if (tsc_is_stable())
        proc_printf(text, "stable: reference %lu kHz, %lu readings skewed\n", tsc_watchdog.reference_khz,
                    tsc_watchdog.skewed);
    else
        proc_printf(text, "unstable: cpu %u measured %lu kHz, reference %lu kHz\n", tsc_watchdog.unstable_cpu,
                    tsc_watchdog.unstable_khz, tsc_watchdog.reference_khz);
}

/* How many times each CPU decided its tick (kernel/time/tick_stop.c
 * tick_decide), beside its interrupts: on an isolated CPU each timer
 * interrupt decides once. This CPU's row is read with interrupts off, so
 * that no interrupt falls between its counts; another CPU's row may be a
 * moment apart. */
static void print_decisions(struct proc_text *text)
{
    unsigned cpu;
    proc_printf(text, "tick decisions, and the interrupts that may bring one\n%-4s %12s %12s %12s\n", "cpu",
                "decisions", "timer_irqs", "all_irqs");
    for_each_online_cpu(cpu) {
        uint64_t flags = irq_save();
        uint64_t decisions = __atomic_load_n(&tick_state_of(cpu)->decisions, __ATOMIC_RELAXED), all = 0;
        for (unsigned source = 0; source < IRQ_SOURCE_COUNT; source++)
            all += irq_count(cpu, source);
        uint64_t timer = irq_count(cpu, IRQ_SOURCE_LOCAL_TIMER);
        irq_restore(flags);
        proc_printf(text, "%-4u %12lu %12lu %12lu\n", cpu, decisions, timer, all);
    }
}

/* Per CPU: whether it ticks and why (the reason the last check found),
 * its nohz task, and the counts; then how often each reason kept each
 * CPU's tick (docs/tick.md explains the columns). */
static void generate_tick(struct proc_text *text)
{
    unsigned cpu;
    proc_printf(text, "policy %s, hz %u, timekeeper ", tick_policy->name, tick_hz);
    if (timekeeper_cpu == TIMEKEEPER_NONE)
        proc_printf(text, "none\n");
    else
        proc_printf(text, "%u\n", timekeeper_cpu);
    /* Where unpinned timers may go: a nohz CPU leaves the set, and its
     * task's exit, however it dies, gives it back
     * (docs/nohz-task.md#patch-02-unpinned-timers-avoid-nohz-cpus). */
    struct cpumask housekeeping = housekeeping_mask;
    char list[CPULIST_FORMAT_SIZE];
    cpulist_format(&housekeeping, list, sizeof(list));
    proc_printf(text, "housekeeping %s\n", list);
    print_clocksource(text);
    proc_printf(text, "%-4s %-8s %-12s %-5s %10s %8s %8s %8s %8s %8s %8s\n", "cpu", "state", "reason", "nohz",
                "ticks", "missed", "stops", "restarts", "kicks", "wasted", "watchdog");
    for_each_online_cpu(cpu) {
        struct tick_state *tick = tick_state_of(cpu);
        char owner[12];
        nohz_owner(cpu, owner, sizeof(owner));
        proc_printf(text, "%-4u %-8s %-12s %-5s %10lu %8lu %8lu %8lu %8lu %8lu %8lu\n", cpu,
                    tick->running ? "ticking" : "stopped", tick_keep_reason_names[tick->reason], owner, tick->ticks,
                    tick->missed, tick->stops, tick->restarts, tick->kicks_received, tick->kicks_while_ticking,
                    tick->watchdog_checks);
    }
    proc_printf(text, "kept by:");
    for (unsigned reason = TICK_KEEP_POLICY; reason < TICK_KEEP_REASON_COUNT; reason++)
        proc_printf(text, " %s", tick_keep_reason_names[reason]);
    proc_printf(text, "\n");
    for_each_online_cpu(cpu) {
        proc_printf(text, "%-4u", cpu);
        for (unsigned reason = TICK_KEEP_POLICY; reason < TICK_KEEP_REASON_COUNT; reason++)
            proc_printf(text, " %lu", tick_state_of(cpu)->refusals[reason]);
        proc_printf(text, "\n");
    }
    proc_printf(text, "dependencies: global ");
    print_tick_deps(text, tick_dep_global_mask);
    proc_printf(text, "\n%-4s %-24s %9s\n", "cpu", "deps (cpu | task)", "dep_kicks");
    for_each_online_cpu(cpu) {
        proc_printf(text, "%-4u ", cpu);
        print_tick_deps(text, tick_dep_mask_read(cpu) & ~tick_dep_global_mask);
        proc_printf(text, " %lu\n", tick_state_of(cpu)->dep_kicks);
    }
    proc_printf(text, "stopped-tick rechecks on the way to user mode\n%-4s %12s %12s\n", "cpu", "skipped",
                "made");
    for_each_online_cpu(cpu)
        proc_printf(text, "%-4u %12lu %12lu\n", cpu, tick_state_of(cpu)->rechecks_skipped,
                    tick_state_of(cpu)->rechecks_made);
    print_decisions(text);
    /* Kicks sent to each CPU, beside the "kicks" (received) of the first
     * table: every kick sent must arrive. */
    proc_printf(text, "nohz kicks sent to each cpu\n%-4s %12s\n", "cpu", "sent");
    for_each_online_cpu(cpu)
        proc_printf(text, "%-4u %12lu\n", cpu, __atomic_load_n(&tick_state_of(cpu)->kicks_sent, __ATOMIC_RELAXED));
}

static void generate_tick_policy(struct proc_text *text)
{
    proc_printf(text, "%s\n", tick_policy->name);
}

static void generate_tick_policies(struct proc_text *text)
{
    const struct tick_policy *policy;
    for_each_tick_policy(policy)
        proc_printf(text, "%-10s %s\n", policy->name, policy->summary);
}

/* A policy's name, blanks around it ignored; -EINVAL for an unknown one. */
static long write_tick_policy(const char *data, size_t count)
{
    char name[16];
    long length = proc_parse_word(data, count, name, sizeof(name));
    if (length < 0)
        return length;
    int error = tick_policy_switch(name);
    return error ? error : (long)count;
}

PROC_FILE("/proc/tick", generate_tick, NULL);
PROC_FILE("/proc/sys/kernel/tick_policy", generate_tick_policy, write_tick_policy);
PROC_FILE("/proc/sys/kernel/tick_policies", generate_tick_policies, NULL);
