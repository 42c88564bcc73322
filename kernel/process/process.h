/* User processes: one or more threads (kernel/process/thread.h), each a
 * task (sched/task.h), that share an address space, files, a working
 * directory and signal handlers, and a parent that waits for them. */
#ifndef KERNEL_PROCESS_H
#define KERNEL_PROCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/mm/fault_inject.h"
#include "kernel/time/itimer.h"
#include "kernel/process/job_control.h"
#include "kernel/process/signal.h"
#include "kernel/process/thread.h"
#include "kernel/base/spinlock.h"
#include "sched/task.h"
#include "sched/wait.h"

struct task;
struct fd_table;
struct inode;
struct address_space;

#define PROCESS_NAME_SIZE 16
#define RLIMIT_COUNT 16         /* Linux's RLIM_NLIMITS */
#define RLIMIT_STACK 3          /* the stack's size; execve sizes its arguments by it */

/* The user stack (docs/memory.md, section 5): it ends at USER_STACK_TOP,
 * and execve reserves RLIMIT_STACK below it, at most down to
 * USER_STACK_LOWEST, where mmap's area ends (kernel/mm/mmap.c). */
#define USER_STACK_TOP    0x7ffffffff000ul
#define USER_STACK_LOWEST 0x7ff000000000ul
#define MMAP_BASE         0x7f0000000000ul  /* mmap's area: [MMAP_BASE, USER_STACK_LOWEST) */

struct process_rlimit {
    uint64_t current, maximum;
};

struct process {
    int pid;
    struct process *parent;
    int parent_pid;             /* parent's pid or 0: set with parent, read without a lock (getppid) */
    struct process *first_child, *next_sibling;    /* guarded by process_tree_lock */
    struct thread leader;                           /* tid == pid; the others follow it in next_in_group */
    int live_threads;                               /* not yet exited; guarded by process_tree_lock */
    bool group_exit;                                /* exit_group or a fatal signal: every thread ends */
    struct thread *exec_thread;                     /* execve from a thread: the others end first */
    struct wait_queue thread_exited;                /* the exec'ing thread waits here */
    struct task *last_task;                         /* the task that ended the process: wait4 waits for its death */
    uint64_t dead_user_ns, dead_system_ns;          /* of threads freed before the process */
    struct address_space *memory;
    bool memory_borrowed;                           /* vfork: memory is the parent's until exec or exit */
    struct process *lent_memory_to;                 /* vfork: the child that borrows ours, while we wait */
    struct fd_table *files;
    struct inode *cwd;
    uint32_t umask;
    char name[PROCESS_NAME_SIZE];                   /* the executable's base name */
    bool exited;                                    /* a zombie: waiting for wait4() */
    int exit_status;                                /* wait4's status word */
    struct wait_queue child_exited;                 /* wait4() sleeps here */
    struct signal_shared signals;                   /* handlers and process-directed pending: signal.c */
    struct job_control job;                         /* stopped or not: kernel/process/job_control.c */
    int process_group, session;
    uint64_t brk_start, brk;                        /* the heap: brk() */
    uint64_t stack_floor;   /* the stack's reserved range is [stack_floor, USER_STACK_TOP); 0: none */
    bool lock_future;       /* mlockall(MCL_FUTURE): new memory is populated at once; not kept by fork or exec */
    /* for /proc/PID and getrusage (kernel/process/process_table.c) */
    struct process *next_in_table;                  /* guarded by process_tree_lock */
    int references;                                 /* the table's, and process_get_locked()'s */
    uint64_t start_ns;                              /* clock_now() at creation */
    char *cmdline;                                  /* argv, NUL-separated (execve); kmalloc'd */
    size_t cmdline_length;
    char *exe_path;     /* the program execve loaded, absolute (/proc/self/exe); kmalloc'd, or NULL */
    uint64_t children_user_ns, children_system_ns;  /* of reaped children, theirs included */
    struct process_rlimit rlimits[RLIMIT_COUNT];    /* NOFILE and STACK enforced, the rest recorded; fork copies */
    struct process_itimers itimers;                 /* setitimer, alarm (kernel/time/itimer.c) */
    struct fault_inject fault;                      /* fail-nth (kernel/mm/fault_inject.c); not inherited */
};

extern struct spinlock process_tree_lock;

/* wait4() status words */
#define WAIT_STATUS_EXITED(code) (((code)&0xff) << 8)
#define WAIT_STATUS_SIGNALED(signal) ((signal)&0x7f)

/* NULL in a kernel thread. Inline, as current_thread(); the host's unit
 * tests (tests/host) give their own. */
#ifndef HOST_TEST
static inline struct process *current_process(void)
{
    struct task *task = current_task();
    return task ? task->process : 0;
}
#else
struct process *current_process(void);
#endif

/* Start a process running a flat image of position-independent code (the
 * in-kernel tests' ring-3 programs). */
struct process *process_spawn_flat(const char *name, const void *code, size_t size, int cpu);
/* Wait for it to end and free it; returns its wait status word. */
int process_reap(struct process *process);
/* The whole process ends (exit_group, a fatal signal): every thread. */
void process_exit(int wait_status) __attribute__((noreturn));
/* The last thread's part of it: shared state freed, the parent told. */
void process_exit_last(struct process *process, int wait_status);
void process_switch_in(struct task *task);          /* from schedule() */
int process_allocate_pid(void);
struct address_space;
void copy_into_space(struct address_space *space, uint64_t address, const void *data, size_t size);

/* execve: replace the current process's program (kernel/process/exec.c). Returns 0
 * and where to start, or a negative errno with the process unchanged. */
struct exec_start {
    uint64_t entry, stack_pointer;
};
long process_execve(const char *path, const char *const *argv, const char *const *envp,
                    struct exec_start *start);
/* What a fork-style clone's child sets up itself, at its first run:
 * CLONE_SETTLS, CLONE_CHILD_SETTID (the tid written into the child's own
 * memory, as Linux's schedule_tail()) and CLONE_CHILD_CLEARTID. */
struct fork_child_setup {
    bool set_tls;
    uint64_t tls, set_child_tid, clear_child_tid;
};

/* A fork (or, share_memory, a vfork) of the caller, returning from its
 * system call on child_stack (0: the caller's stack), with setup (0:
 * none): the child's pid or -ENOMEM (kernel/process/process_syscalls.c;
 * clone.c uses it). */
long fork_onto(uint64_t child_stack, bool share_memory, const struct fork_child_setup *setup);
/* fork: a copy of parent whose task starts in child_entry(arg). */
struct process *process_fork(struct process *parent, void (*child_entry)(void *), void *arg, bool share_memory);
/* Exec or exit of a vfork child, which has switched away from memory:
 * the parent's loan is given back, or, if the parent died meanwhile, the
 * memory is the child's and is freed. */
void process_return_borrowed_memory(struct process *process, struct address_space *memory);
/* wait4's options (Linux's values) */
#define WAIT_NO_HANG   1        /* WNOHANG */
#define WAIT_UNTRACED  2        /* WUNTRACED: report stops */
#define WAIT_CONTINUED 8        /* WCONTINUED: report continues */
/* wait4: reap a child that has exited (pid -1: any), or report one that
 * stopped or continued if options ask; 0 with WAIT_NO_HANG and none
 * ready; -ECHILD without children. */
long process_wait_child(int pid, int options, int *status);
/* Start the first user process: path with argv/envp, fds 0-2 on console. */
struct process *process_spawn_exec(const char *path, const char *const *argv, const char *const *envp,
                                   const char *console);
/* The table of all processes, for /proc and lookups by pid
 * (kernel/process/process_table.c). A process is in it from creation until it is
 * reaped. A process found in it (or through a parent's children) is used
 * under process_tree_lock; to use it after unlocking, pin it with
 * process_get_locked() and drop it with process_put(), which frees it
 * and its task if it was reaped meanwhile (docs/user-space.md,
 * "Process lifetime"). */
void process_table_add(struct process *process);
void process_table_remove(struct process *process);
struct process *process_find_locked(int pid);     /* caller holds process_tree_lock */
void process_get_locked(struct process *process); /* caller holds process_tree_lock */
void process_put(struct process *process);        /* no spinlock held: may wait for the task to switch out */
struct process *process_table_first_locked(void); /* then ->next_in_table */
int process_last_pid(void);     /* the pid handed out last (/proc/loadavg), 0 before the first */
#define for_each_process(p) for (struct process *p = process_table_first_locked(); p; p = p->next_in_table)
struct process *process_init(void);               /* adopts orphans; NULL before it exists */
/* Told after a process enters the table and after it leaves it, holding
 * no lock (procfs creates and removes /proc/PID). A hook is added at boot,
 * before the first process, and stays. */
struct process_table_hook {
    void (*added)(int pid);
    void (*removed)(int pid);
    void (*thread_added)(int pid, int tid);     /* a thread of pid, past its leader */
    void (*thread_removed)(int pid, int tid);
    struct process_table_hook *next;
};
void process_table_add_hook(struct process_table_hook *hook);
void process_table_thread_added(int pid, int tid);
void process_table_thread_removed(int pid, int tid);
void process_set_cmdline(struct process *process, const char *const *argv);
char *process_cmdline_make(const char *const *argv, size_t *length);     /* NULL: out of memory */
void process_cmdline_install(struct process *process, char *copy, size_t length);
bool process_copy_program_names(struct process *child, const struct process *parent); /* fork: cmdline and exe_path; false: out of memory */
void process_program_names_free(struct process *process);
/* Whether its leader's task has the nohz attribute (kernel/time/nohz_task.c). */
bool process_is_nohz(struct process *process);
bool thread_is_nohz(struct thread *thread);

#endif
