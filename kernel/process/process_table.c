/* The process table: every process from creation to reaping, in one list
 * under process_tree_lock, so that /proc can list them and system calls
 * can find one by pid. A list is enough for the few dozen processes a
 * teaching kernel runs.
 *
 * Hooks hear of each process added and removed: that is how procfs
 * creates /proc/PID and removes it when the process is reaped.
 *
 * Lifetime: the table holds one reference to each process, and whoever
 * pins one it found under the lock (process_get_locked) holds another.
 * process_reap() takes the process out of the table, then drops the
 * table's reference; the last process_put() frees the task and the
 * process. So nothing found under the lock is freed before the lock is
 * dropped, nor a pinned one before it is put. */
#include "kernel/process/process.h"

#include "arch/x86/clock.h"
#include "kernel/mm/heap.h"
#include "kernel/time/nohz_task.h"
#include "kernel/base/panic.h"
#include "kernel/lib/string.h"
#include "sched/task.h"

static struct process *table;
static struct process *init_process;
static struct process_table_hook *hooks;

/* Hooks are only added, at boot: the list is read without the lock. */
void process_table_add_hook(struct process_table_hook *hook)
{
    spin_lock(&process_tree_lock);
    hook->next = hooks;
    __atomic_store_n(&hooks, hook, __ATOMIC_RELEASE);
    spin_unlock(&process_tree_lock);
}

static struct process_table_hook *first_hook(void)
{
    return __atomic_load_n(&hooks, __ATOMIC_ACQUIRE);
}

void process_table_add(struct process *process)
{
    process->start_ns = clock_now();
    process->references = 1;        /* the table's: a fork copied its parent's count */
    spin_lock(&process_tree_lock);
    process->next_in_table = table;
    table = process;
    if (process->pid == 1)
        init_process = process;
    spin_unlock(&process_tree_lock);
    for (struct process_table_hook *hook = first_hook(); hook; hook = hook->next)
        hook->added(process->pid);
}

void process_table_remove(struct process *process)
{
    spin_lock(&process_tree_lock);
    struct process **link = &table;
    while (*link && *link != process)
        link = &(*link)->next_in_table;
    if (*link)
        *link = process->next_in_table;
    if (init_process == process)
        init_process = 0;
    spin_unlock(&process_tree_lock);
    for (struct process_table_hook *hook = first_hook(); hook; hook = hook->next)
        hook->removed(process->pid);
}

void process_table_thread_added(int pid, int tid)
{
    for (struct process_table_hook *hook = first_hook(); hook; hook = hook->next)
        hook->thread_added(pid, tid);
}

void process_table_thread_removed(int pid, int tid)
{
    for (struct process_table_hook *hook = first_hook(); hook; hook = hook->next)
        hook->thread_removed(pid, tid);
}

void process_get_locked(struct process *process)
{
    ASSERT(spin_is_held_by_me(&process_tree_lock));
    process->references++;
}

/* The tasks are dead (process_reap waited for that before dropping the
 * table's reference); kthread_join waits for their last switch to end. */
static void process_free(struct process *process)
{
    thread_free_all(process);
    process_program_names_free(process);
    kfree(process);
}

void process_put(struct process *process)
{
    spin_lock(&process_tree_lock);
    bool last = --process->references == 0;
    spin_unlock(&process_tree_lock);
    if (last)
        process_free(process);
}

struct process *process_find_locked(int pid)
{
    for (struct process *process = table; process; process = process->next_in_table) {
        if (process->pid == pid)
            return process;
    }
    return 0;
}

struct process *process_table_first_locked(void)
{
    return table;
}

struct process *process_init(void)
{
    return init_process;
}

#define CMDLINE_MAX 4096    /* Linux shows the first page of a long one too */

/* argv, NUL-separated, for /proc/PID/cmdline: a kmalloc'd copy, or
 * NULL if out of memory. */
char *process_cmdline_make(const char *const *argv, size_t *length_out)
{
    size_t length = 0;
    for (int i = 0; argv && argv[i] && length < CMDLINE_MAX; i++)
        length += strlen(argv[i]) + 1;
    if (length > CMDLINE_MAX)
        length = CMDLINE_MAX;
    char *copy = kmalloc(length ? length : 1);
    if (!copy)
        return 0;
    size_t used = 0;
    for (int i = 0; argv && argv[i] && used < length; i++) {
        size_t size = strlen(argv[i]) + 1;
        if (size > length - used)
            size = length - used;
        memcpy(copy + used, argv[i], size);
        used += size;
    }
    *length_out = used;
    return copy;
}

/* The process shows copy (process_cmdline_make's) from now on. */
void process_cmdline_install(struct process *process, char *copy, size_t length)
{
    spin_lock(&process_tree_lock);
    char *old = process->cmdline;
    process->cmdline = copy;
    process->cmdline_length = length;
    spin_unlock(&process_tree_lock);
    kfree(old);
}

/* The first process's; on failure it shows none. */
void process_set_cmdline(struct process *process, const char *const *argv)
{
    size_t length = 0;
    char *copy = process_cmdline_make(argv, &length);
    if (copy)
        process_cmdline_install(process, copy, length);
}

/* fork: the child shows its parent's command line and program until it
 * runs execve. Only the parent itself changes its own (execve), so no lock
 * is needed to read them here. False if out of memory, the child's copies
 * freed: the fork fails (a child without them would show an empty
 * /proc/PID/cmdline). */
bool process_copy_program_names(struct process *child, const struct process *parent)
{
    child->cmdline = kmalloc(parent->cmdline_length ? parent->cmdline_length : 1);
    child->cmdline_length = child->cmdline ? parent->cmdline_length : 0;
    if (child->cmdline && parent->cmdline_length)
        memcpy(child->cmdline, parent->cmdline, parent->cmdline_length);
    child->exe_path = parent->exe_path ? kmalloc(strlen(parent->exe_path) + 1) : 0;
    if (child->exe_path)
        memcpy(child->exe_path, parent->exe_path, strlen(parent->exe_path) + 1);
    if (!child->cmdline || (parent->exe_path && !child->exe_path)) {
        process_program_names_free(child);
        return false;
    }
    return true;
}

void process_program_names_free(struct process *process)
{
    kfree(process->cmdline);
    kfree(process->exe_path);
    process->cmdline = process->exe_path = 0;
    process->cmdline_length = 0;
}

/* /proc/PID/status prints it as the "Nohz:" line: the leader's. */
bool process_is_nohz(struct process *process)
{
    return thread_is_nohz(&process->leader);
}

bool thread_is_nohz(struct thread *thread)
{
    return thread->task && task_is_nohz(thread->task);
}
