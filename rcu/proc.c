/* /proc/rcu (the state of RCU) and /proc/rcustress (the torture test,
 * driven from user space). kernel/fs/procfs.c lists them and calls these to
 * fill its buffers; both work like snprintf: they return the length the
 * whole text needs. Numbers are read without locks: a moment old at most. */
#include "kernel/lib/errno.h"
#include "kernel/lib/format.h"
#include "kernel/cpu/percpu.h"
#include "kernel/fs/proc_parse.h"
#include "kernel/lib/string.h"
#include "rcu/internal.h"
#include "rcu/proc.h"
#include "rcu/torture.h"

struct appender {
    char *buffer;
    size_t size, length;
};

static void append(struct appender *out, const char *format, ...) __attribute__((format(printf, 2, 3)));

static void append(struct appender *out, const char *format, ...)
{
    size_t room = out->length < out->size ? out->size - out->length : 0;
    va_list args;
    va_start(args, format);
    int written = vsnprintf(room ? out->buffer + out->length : 0, room, format, args);
    va_end(args);
    if (written > 0)
        out->length += (size_t)written;
}

static void show_cpu(struct appender *out, unsigned cpu)
{
    struct rcu_data *rdp = rcu_data_of(cpu);
    unsigned long dynticks = rcu_dynticks_snapshot(cpu);
    const struct rcu_cblist *list = &rdp->cblist;

    append(out, "%3u %10lu %-4s %-3s %6lu %6lu %6lu %10lu %8lu %8lu %8lu %-9s %11lu %12lu\n", cpu, dynticks,
           rcu_dynticks_in_eqs(dynticks) ? "idle" : "busy", rdp->qs_pending ? "yes" : "no",
           list->counts[RCU_DONE], list->counts[RCU_WAIT], list->counts[RCU_NEXT], rdp->callbacks_invoked,
           rdp->kicks, rdp->qs_reported, rdp->qs_reported_for_eqs, rdp->offloaded ? "yes" : "no",
           rdp->nocb_queued, rdp->nocb_invoked);
}

size_t rcu_proc_show(char *buffer, size_t size)
{
    struct appender out = { buffer, size, 0 };
    unsigned long seq = __atomic_load_n(&rcu_state.gp_seq, __ATOMIC_ACQUIRE);
    unsigned cpu;

    append(&out, "gp_seq: %lu (grace period %lu, %s)\n", seq, rcu_gp_number(seq),
           rcu_seq_in_progress(seq) ? "in progress" : "idle");
    append(&out, "gp_seq_needed: %lu\n", rcu_state.gp_seq_needed);
    append(&out, "gps_completed: %lu\n", rcu_gps_completed());
    append(&out, "fqs_scans: %lu\n", rcu_state.fqs_scans);
    append(&out, "stalls: %lu\n", rcu_stall_count());
    append(&out, "tree: %u levels, %u nodes, fanout %u; gp kthread on cpu %u\n", rcu_state.tree.levels,
           rcu_state.tree.node_count, rcu_state.tree.fanout, rcu_state.gp_kthread_cpu);
    append(&out, "cpu   dynticks eqs  qs_pending   done   wait   next    invoked    kicks  qs_self   qs_eqs "
                 "offloaded nocb_queued nocb_invoked\n");
    for_each_online_cpu(cpu)
        show_cpu(&out, cpu);
    return out.length;
}

/* ---- /proc/rcustress ---- */

#define STRESS_MAX_SECONDS 600
#define NS_PER_SECOND 1000000000ul

static struct rcu_torture_result last_result;
static bool have_result;

size_t rcu_stress_show(char *buffer, size_t size)
{
    if (!have_result)
        return (size_t)snprintf(buffer, size, "rcutorture: no run yet; write a number of seconds here\n");
    return rcu_torture_format(&last_result, buffer, size);
}

/* Writing N runs the torture test for N seconds before the write returns;
 * read the file for the result. -EIO if the run failed, so a shell sees
 * it in the status of `echo N > /proc/rcustress`. */
long rcu_stress_write(const char *data, size_t count)
{
    long seconds = proc_parse_seconds(data, count, STRESS_MAX_SECONDS);    /* kernel/fs/proc_parse.c */
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
