/* /proc/loadavg in Linux's format: the 1, 5 and 15 minute load averages
 * (sched/loadavg.c), the running tasks over the processes, and the last
 * pid handed out ("0.52 0.58 0.59 1/123 4567"). */
#include "kernel/base/percpu.h"
#include "sched/runqueue.h"
#include "kernel/fs/procfs.h"
#include "kernel/process/process.h"
#include "sched/loadavg.h"

/* Fixed point to "I.FF", rounded to the hundredth as Linux prints it. */
static void print_average(struct proc_text *text, unsigned long average, const char *after)
{
    average += LOADAVG_ONE / 200;
    proc_printf(text, "%lu.%02lu%s", average >> LOADAVG_SHIFT,
                ((average & (LOADAVG_ONE - 1)) * 100) >> LOADAVG_SHIFT, after);
}

static void generate_loadavg(struct proc_text *text)
{
    unsigned running = 0, total = 0, cpu;
    unsigned long averages[3];
    loadavg_get(averages);
    for_each_online_cpu(cpu)
        running += cpu_rq(cpu)->nr_running;
    spin_lock(&process_tree_lock);
    for (struct process *process = process_table_first_locked(); process; process = process->next_in_table)
        total++;
    spin_unlock(&process_tree_lock);
    for (int k = 0; k < 3; k++)
        print_average(text, averages[k], " ");
    proc_printf(text, "%u/%u %d\n", running, total, process_last_pid());
}

PROC_FILE("/proc/loadavg", generate_loadavg, NULL);
