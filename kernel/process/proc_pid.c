/* The files of every /proc/PID: stat, status and cmdline in Linux's
 * formats (busybox's ps and top read them), nohz and fail-nth. Each is generated at
 * open from the process, under process_tree_lock (kernel/fs/procfs.c
 * looks it up by pid). VmSize and VmRSS count pages (address_space.h);
 * left out: Linux's other Vm and Rss lines. */
#include <limits.h>
#include <stdint.h>

#include "arch/x86/paging.h"
#include "kernel/base/percpu.h"
#include "kernel/fs/procfs.h"
#include "kernel/lib/cpumask.h"
#include "kernel/lib/errno.h"
#include "kernel/fs/proc_parse.h"
#include "kernel/lib/linux_abi.h"
#include "kernel/lib/format.h"
#include "kernel/mm/address_space.h"
#include "kernel/mm/node.h"
#include "kernel/mm/region.h"
#include "kernel/process/process.h"
#include "kernel/time/nohz_task.h"
#include "sched/task.h"

/* A thread's state; the leader's is the process's, as in Linux (a
 * leader that has exited while others run is a zombie). */
static char thread_state(struct thread *thread)
{
    struct process *process = thread->process;
    if (process->exited || thread->exited || thread->task->state == TASK_DEAD)
        return 'Z';
    if (job_is_stopped(process))
        return 'T';
    return thread->task->state == TASK_RUNNABLE ? 'R' : 'S';
}

static const char *process_state_name(char state)
{
    switch (state) {
    case 'R': return "R (running)";
    case 'Z': return "Z (zombie)";
    case 'T': return "T (stopped)";
    default: return "S (sleeping)";
    }
}

static unsigned long long to_user_hz(uint64_t ns)
{
    return (unsigned long long)user_hz_ticks(ns);
}

static int parent_pid(struct process *process)
{
    return process->parent ? process->parent->pid : 0;
}

/* Pages mapped (VmSize) and resident (VmRSS): a page of the shared zero
 * page is mapped, not resident, as Linux does not count its zero page in
 * RSS. Under process_tree_lock, which exit and exec hold to change
 * process->memory. 0 for a zombie. */
static void memory_pages(struct process *process, unsigned long *mapped, unsigned long *resident)
{
    struct address_space *memory = process->memory;
    *mapped = memory ? __atomic_load_n(&memory->mapped_pages, __ATOMIC_RELAXED) : 0;
    unsigned long zero = memory ? __atomic_load_n(&memory->zero_pages, __ATOMIC_RELAXED) : 0;
    *resident = *mapped > zero ? *mapped - zero : 0;
}

/* Linux's 52 fields (man 5 proc); those nohzk does not track are 0:
 * signals pending, blocked, ignored and caught are fields 31 to 34,
 * exit_signal 38 and the CPU 39; priority 18 (20, or -1 - the real-time
 * priority), rt_priority 40 and policy 41.
 * Of a process: its leader's, with the times of all its threads; of one
 * thread (/proc/PID/task/TID/stat): its own. */
static void stat_of(struct proc_text *text, struct process *process, struct thread *thread, uint64_t user,
                    uint64_t system)
{
    unsigned long mapped, resident;
    uint64_t ignored, caught;
    memory_pages(process, &mapped, &resident);
    signal_dispositions(&process->signals, &ignored, &caught);
    struct task *task = thread->task;
    proc_printf(text, "%d (%s) %c %d %d %d 0 -1 0 0 0 0 0 %llu %llu %llu %llu %d 0 %d 0 %llu %lu %lu "
                "18446744073709551615 0 0 0 0 0 %llu %llu %llu %llu 0 0 0 17 %u %u %u 0 0 0 0 0 0 0 0 0 0 0\n",
                thread->tid, process->name, thread_state(thread), parent_pid(process),
                process->process_group, process->session, to_user_hz(user), to_user_hz(system),
                to_user_hz(process->children_user_ns), to_user_hz(process->children_system_ns),
                task->prio ? -1 - (int)task->prio : 20, thread_count_locked(process), to_user_hz(process->start_ns), mapped * PAGE_SIZE, resident,
                (unsigned long long)(__atomic_load_n(&thread->signals.pending, __ATOMIC_RELAXED) |
                                     __atomic_load_n(&process->signals.pending, __ATOMIC_RELAXED)),
                (unsigned long long)thread->signals.blocked, (unsigned long long)ignored,
                (unsigned long long)caught, task->cpu, task->policy == SCHED_FIFO || task->policy == SCHED_RR ? task->rt_priority : 0,
                task->policy);
}

static void generate_pid_stat(struct proc_text *text, struct process *process)
{
    uint64_t user, system;
    thread_group_times_locked(process, &user, &system);
    stat_of(text, process, &process->leader, user, system);
}

static void generate_tid_stat(struct proc_text *text, struct thread *thread)
{
    uint64_t user, system;
    task_times_ns(thread->task, &user, &system);
    stat_of(text, thread->process, thread, user, system);
}

/* Mems_allowed: node 0 alone (kernel/mm/node.c), printed as Linux prints
 * a nodemask_t: MAX_NUMNODES bits in words of 32, highest first. */
static void mems_allowed_of(struct proc_text *text)
{
    proc_printf(text, "Mems_allowed:\t");
    for (unsigned word = MAX_NUMNODES / 32; word > 1; word--)
        proc_printf(text, "00000000,");
    proc_printf(text, "00000001\nMems_allowed_list:\t0\n");
}

static void status_of(struct proc_text *text, struct process *process, struct thread *thread)
{
    struct cpumask affinity = thread->task->affinity;
    char cpus_allowed[CPULIST_FORMAT_SIZE], bitmap[CPUMASK_BITMAP_FORMAT_SIZE];
    cpulist_format(&affinity, cpus_allowed, sizeof(cpus_allowed));
    cpumask_format_bitmap(&affinity, cpu_count, bitmap, sizeof(bitmap));     /* Linux: nr_cpu_ids bits */
    proc_printf(text, "Name:\t%s\nUmask:\t%04o\nState:\t%s\nTgid:\t%d\nPid:\t%d\nPPid:\t%d\n", process->name,
                process->umask, process_state_name(thread_state(thread)), process->pid, thread->tid,
                parent_pid(process));
    proc_printf(text, "Uid:\t0\t0\t0\t0\nGid:\t0\t0\t0\t0\n");
    if (process->memory) {      /* Linux prints none for a zombie */
        unsigned long mapped, resident;
        memory_pages(process, &mapped, &resident);
        proc_printf(text, "VmSize:\t%8lu kB\nVmRSS:\t%8lu kB\n", mapped * (PAGE_SIZE / 1024),
                    resident * (PAGE_SIZE / 1024));
    }
    proc_printf(text, "Threads:\t%d\n", thread_count_locked(process));
    uint64_t ignored, caught;
    signal_dispositions(&process->signals, &ignored, &caught);
    proc_printf(text, "SigPnd:\t%016llx\nShdPnd:\t%016llx\nSigBlk:\t%016llx\nSigIgn:\t%016llx\nSigCgt:\t%016llx\n",
                (unsigned long long)__atomic_load_n(&thread->signals.pending, __ATOMIC_RELAXED),
                (unsigned long long)__atomic_load_n(&process->signals.pending, __ATOMIC_RELAXED),
                (unsigned long long)thread->signals.blocked, (unsigned long long)ignored,
                (unsigned long long)caught);
    proc_printf(text, "Cpus_allowed:\t%s\nCpus_allowed_list:\t%s\n", bitmap, cpus_allowed);
    mems_allowed_of(text);
    proc_printf(text, "voluntary_ctxt_switches:\t%llu\n", (unsigned long long)thread->task->slices);
    /* ours: whether it is a nohz task (kernel/time/nohz_task.c) */
    proc_printf(text, "Nohz:\t%d\n", thread_is_nohz(thread) ? 1 : 0);
}

static void generate_pid_status(struct proc_text *text, struct process *process)
{
    status_of(text, process, &process->leader);
}

static void generate_tid_status(struct proc_text *text, struct thread *thread)
{
    status_of(text, thread->process, thread);
}

static void generate_pid_cmdline(struct proc_text *text, struct process *process)
{
    proc_write_bytes(text, process->cmdline, process->cmdline_length);
}

/* A thread's is its process's (busybox's ps -T shows it). */
static void generate_tid_cmdline(struct proc_text *text, struct thread *thread)
{
    generate_pid_cmdline(text, thread->process);
}

/* The nohz task attribute, 0 or 1 (docs/nohz-task.md#patch-15-procselfnohz):
 * /proc/PID/nohz is the leader's, /proc/PID/task/TID/nohz that thread's
 * (docs/threads.md); writes: nohz_task_proc_write(). */
static void generate_pid_nohz(struct proc_text *text, struct process *process)
{
    proc_printf(text, "%d\n", process_is_nohz(process) ? 1 : 0);
}

static void generate_tid_nohz(struct proc_text *text, struct thread *thread)
{
    proc_printf(text, "%d\n", thread_is_nohz(thread) ? 1 : 0);
}

/* /proc/PID/maps: one line per region (kernel/mm/region.c), Linux's
 * format: range, rights, p or s, offset, device, inode, and the name
 * from column 74 (a file's path, [heap], [stack], [vvar], [vdso]). Empty
 * for a zombie. */
static void show_region(void *arg, const struct region *region)
{
    struct proc_text *text = arg;
    const struct region_name *name = region->name;
    uint64_t device = name ? name->device : 0;
    unsigned major = (unsigned)((device >> 8) & 0xfff), minor = (unsigned)((device & 0xff) | ((device >> 12) & 0xfff00));
    const char *label = name                          ? name->path
                        : region->kind & REGION_HEAP  ? "[heap]"
                        : region->kind & REGION_STACK ? "[stack]"
                        : region->kind & REGION_VVAR  ? "[vvar]"
                        : region->kind & REGION_VDSO  ? "[vdso]"
                                                      : "";
    char line[128];
    snprintf(line, sizeof(line), "%08lx-%08lx %c%c%c%c %08lx %02x:%02x %lu ", region->start, region->end,
                        region->prot & REGION_READ ? 'r' : '-', region->prot & REGION_WRITE ? 'w' : '-',
                        region->prot & REGION_EXEC ? 'x' : '-', region->kind & REGION_SHARED ? 's' : 'p',
                        name ? region->offset : 0, major, minor, name ? (unsigned long)name->inode : 0ul);
    if (!*label) {
        proc_printf(text, "%s\n", line);
        return;
    }
    proc_printf(text, "%-73s%s\n", line, label);
}

static void generate_pid_maps(struct proc_text *text, struct process *process)
{
    if (process->memory)
        regions_each(&process->memory->regions, show_region, text);
}

/* A thread's regions are its process's. */
static void generate_tid_maps(struct proc_text *text, struct thread *thread)
{
    generate_pid_maps(text, thread->process);
}

/* Fault injection's fail-nth (kernel/mm/fault_inject.c): the count left,
 * 0 once injected. */
static void generate_pid_fail_nth(struct proc_text *text, struct process *process)
{
    proc_printf(text, "%u\n", fault_inject_left(&process->fault));
}

/* Counted per process: a thread's file is its process's. */
static void generate_tid_fail_nth(struct proc_text *text, struct thread *thread)
{
    generate_pid_fail_nth(text, thread->process);
}

/* N from 0 to INT_MAX, as Linux; anything else is EINVAL. pid: of
 * /proc/PID, or a tid. */
static long write_pid_fail_nth(int pid, const char *data, size_t count)
{
    long nth = proc_parse_number(data, count, 0, INT_MAX);
    if (nth < 0)
        return nth;
    spin_lock(&process_tree_lock);
    struct thread *thread = thread_find_locked(pid);
    struct process *process = thread ? thread->process : process_find_locked(pid);
    if (process)
        fault_inject_arm(&process->fault, (uint32_t)nth);
    spin_unlock(&process_tree_lock);
    return process ? (long)count : -ESRCH;
}

PROC_PID_TID_FILE("stat", generate_pid_stat, generate_tid_stat, NULL);
PROC_PID_TID_FILE("status", generate_pid_status, generate_tid_status, NULL);
PROC_PID_TID_FILE("cmdline", generate_pid_cmdline, generate_tid_cmdline, NULL);
PROC_PID_TID_FILE("nohz", generate_pid_nohz, generate_tid_nohz, nohz_task_proc_write);
PROC_PID_TID_FILE("maps", generate_pid_maps, generate_tid_maps, NULL);
PROC_PID_TID_FILE("fail-nth", generate_pid_fail_nth, generate_tid_fail_nth, write_pid_fail_nth);
