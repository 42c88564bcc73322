/* User processes: a task (sched/task.h) that has an address space, files,
 * a working directory, and a parent that waits for it. nohzk has one task
 * per process (no threads: clone with CLONE_THREAD is refused). */
#ifndef KERNEL_PROCESS_H
#define KERNEL_PROCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/spinlock.h"
#include "sched/wait.h"

struct task;
struct fd_table;
struct inode;
struct address_space;

#define PROCESS_NAME_SIZE 16

struct process {
    int pid;
    struct process *parent;
    struct process *first_child, *next_sibling;    /* guarded by process_tree_lock */
    struct task *task;
    struct address_space *memory;
    struct fd_table *files;
    struct inode *cwd;
    uint32_t umask;
    char name[PROCESS_NAME_SIZE];                   /* the executable's base name */
    bool exited;                                    /* a zombie: waiting for wait4() */
    int exit_status;                                /* wait4's status word */
    struct wait_queue child_exited;                 /* wait4() sleeps here */
    uint64_t tid_address;                           /* set_tid_address() */
    uint64_t fs_base;                               /* arch_prctl(ARCH_SET_FS) */
    uint64_t signal_handlers[65];                   /* rt_sigaction: recorded only */
    uint64_t signal_mask;
    int process_group, session;
};

#define SIGTRAP  5
#define SIGBUS   7
#define SIGFPE   8
#define SIGKILL  9
#define SIGSEGV 11
#define SIGILL   4

/* wait4() status words */
#define WAIT_STATUS_EXITED(code) (((code)&0xff) << 8)
#define WAIT_STATUS_SIGNALED(signal) ((signal)&0x7f)

struct trap_frame;

struct process *current_process(void);      /* NULL in a kernel thread */

/* Start a process running a flat image of position-independent code (the
 * in-kernel tests use this until execve loads ELF files). */
struct process *process_spawn_flat(const char *name, const void *code, size_t size, int cpu);
/* Wait for it to end and free it; returns its wait status word. */
int process_reap(struct process *process);
void process_exit(int wait_status) __attribute__((noreturn));
void process_switch_in(struct process *process);    /* from schedule() */
void process_kill_by_fault(struct trap_frame *frame, int signal, const char *what, uint64_t address)
    __attribute__((noreturn));

#endif
