/* /proc/loadavg: Linux's five fields, of which nohzk keeps no load
 * averages (always 0.00): the running tasks, the processes, the last pid. */
#include "kernel/cpu/percpu.h"
#include "kernel/fs/procfs.h"
#include "kernel/process/process.h"

static void generate_loadavg(struct proc_text *text)
{
    unsigned running = 0, total = 0, last_pid = 0, cpu;
    for_each_online_cpu(cpu)
        running += cpus[cpu]->rq.nr_running;
    spin_lock(&process_tree_lock);
    for (struct process *process = process_table_first_locked(); process; process = process->next_in_table) {
        total++;
        if ((unsigned)process->pid > last_pid)
            last_pid = (unsigned)process->pid;
    }
    spin_unlock(&process_tree_lock);
    proc_printf(text, "0.00 0.00 0.00 %u/%u %u\n", running, total, last_pid);
}

PROC_FILE("/proc/loadavg", generate_loadavg, NULL);
