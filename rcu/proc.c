/* /proc/rcu (the state of RCU) and /proc/rcustress (the torture test,
 * driven from user space: user/rcustress.c). Numbers are read without
 * locks: a moment old at most. */
#include "kernel/base/percpu.h"
#include "kernel/fs/proc_parse.h"
#include "kernel/fs/procfs.h"
#include "kernel/lib/errno.h"
#include "rcu/internal.h"
#include "rcu/torture.h"

static void show_cpu(struct proc_text *text, unsigned cpu)
{
    struct rcu_data *rdp = rcu_data_of(cpu);
    unsigned long dynticks = rcu_dynticks_snapshot(cpu);
    const struct rcu_cblist *list = &rdp->cblist;

    proc_printf(text, "%3u %10lu %-4s %-3s %6lu %6lu %6lu %10lu %8lu %8lu %8lu %-9s %11lu %12lu\n", cpu,
                dynticks, rcu_dynticks_in_eqs(dynticks) ? "idle" : "busy", rdp->qs_pending ? "yes" : "no",
                list->counts[RCU_DONE], list->counts[RCU_WAIT], list->counts[RCU_NEXT],
                rdp->callbacks_invoked, rdp->kicks, rdp->qs_reported, rdp->qs_reported_for_eqs,
                rdp->offloaded ? "yes" : "no", rdp->nocb_queued, rdp->nocb_invoked);
}

static void generate_rcu(struct proc_text *text)
{
    unsigned long seq = __atomic_load_n(&rcu_state.gp_seq, __ATOMIC_ACQUIRE);
    unsigned cpu;

    proc_printf(text, "gp_seq: %lu (grace period %lu, %s)\n", seq, rcu_gp_number(seq),
                rcu_seq_in_progress(seq) ? "in progress" : "idle");
    proc_printf(text, "gp_seq_needed: %lu\n", rcu_state.gp_seq_needed);
    proc_printf(text, "gps_completed: %lu\n", rcu_gps_completed());
    proc_printf(text, "fqs_scans: %lu\n", rcu_state.fqs_scans);
    proc_printf(text, "stalls: %lu\n", rcu_stall_count());
    proc_printf(text, "tree: %u levels, %u nodes, fanout %u; gp kthread on cpu %u\n", rcu_state.tree.levels,
                rcu_state.tree.node_count, rcu_state.tree.fanout, rcu_state.gp_kthread_cpu);
    proc_printf(text, "cpu   dynticks eqs  qs_pending   done   wait   next    invoked    kicks  qs_self"
                      "   qs_eqs offloaded nocb_queued nocb_invoked\n");
    for_each_online_cpu(cpu)
        show_cpu(text, cpu);
}

/* ---- /proc/rcustress ---- */

#define STRESS_MAX_SECONDS 600
#define NS_PER_SECOND 1000000000ul

static struct rcu_torture_result last_result;
static bool have_result;

static void generate_rcustress(struct proc_text *text)
{
    if (have_result)
        rcu_torture_format(&last_result, text);
    else
        proc_printf(text, "rcutorture: no run yet; write a number of seconds here\n");
}

/* Writing N runs the torture test for N seconds before the write returns;
 * read the file for the result. -EIO if the run failed, so a shell sees
 * it in the status of `echo N > /proc/rcustress`. */
static long write_rcustress(const char *data, size_t count)
{
    long seconds = proc_parse_seconds(data, count, STRESS_MAX_SECONDS);
    if (seconds < 0)
        return seconds;
    static struct rcu_torture_result result;
    int error = rcu_torture_run((uint64_t)seconds * NS_PER_SECOND, &result);
    if (error)
        return error;
    last_result = result;
    have_result = true;
    return result.errors || result.stalls ? -EIO : (long)count;
}

PROC_FILE("/proc/rcu", generate_rcu, NULL);
PROC_FILE("/proc/rcustress", generate_rcustress, write_rcustress);
