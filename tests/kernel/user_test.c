/* ktest=user: ring 3 runs, system calls work and refuse bad arguments, and
 * every kind of fault from user space kills only that process, while the
 * kernel and the other CPUs carry on. Programs: tests/kernel/user_programs.asm. */
#include "kernel/time/context_tracking.h"
#include "kernel/debug/ktest.h"
#include "kernel/mm/page_alloc.h"
#include "kernel/base/percpu.h"
#include "kernel/process/process.h"
#include "kernel/time/timers.h"
#include "sched/task.h"

#define DECLARE_PROGRAM(name) extern const char user_program_##name[], user_program_##name##_end[]
#define RUN(name, cpu) run_program(#name, user_program_##name, user_program_##name##_end, cpu)

DECLARE_PROGRAM(hello);
DECLARE_PROGRAM(bad_arguments);
DECLARE_PROGRAM(many_syscalls);
DECLARE_PROGRAM(spin);
DECLARE_PROGRAM(null_write);
DECLARE_PROGRAM(invalid_opcode);
DECLARE_PROGRAM(divide_by_zero);
DECLARE_PROGRAM(breakpoint);
DECLARE_PROGRAM(read_kernel);
DECLARE_PROGRAM(jump_to_kernel);
DECLARE_PROGRAM(write_code);
DECLARE_PROGRAM(stack_overflow);
DECLARE_PROGRAM(privileged);

static int run_program(const char *name, const char *start, const char *end, int cpu)
{
    struct process *process = process_spawn_flat(name, start, (size_t)(end - start), cpu);
    if (!process)
        return -1;
    return process_reap(process);
}

static void hello_runs_in_ring_3_and_exits_with_its_code(struct ktest *test)
{
    int status = RUN(hello, -1);
    KTEST_EXPECT(test, status == WAIT_STATUS_EXITED(7), "wait status %#x, expected exit 7", status);
}

static void bad_system_call_arguments_return_errors(struct ktest *test)
{
    int status = RUN(bad_arguments, -1);
    KTEST_EXPECT(test, status == WAIT_STATUS_EXITED(0), "step %d of the program failed (status %#x)",
                 (status >> 8) & 0xff, status);
}

/* Each system call leaves and re-enters user context exactly once. */
static void every_system_call_passes_the_context_hooks(struct ktest *test)
{
    unsigned cpu = cpu_count - 1;
    uint64_t before = context_user_exits(cpu);
    int status = RUN(many_syscalls, (int)cpu);
    uint64_t exits = context_user_exits(cpu) - before;
    KTEST_EXPECT(test, status == WAIT_STATUS_EXITED(0), "status %#x", status);
    /* 1000 getpid + 1 exit, plus interrupts that arrived in user mode */
    ktest_log(test, "cpu %u: %lu exits from user mode for 1001 system calls", cpu, exits);
    KTEST_EXPECT(test, exits >= 1001, "only %lu exits from user mode", exits);
    KTEST_EXPECT(test, !context_cpu_in_user(cpu), "cpu %u still marked in user mode", cpu);
}

struct competitor {
    volatile bool stop;
    uint64_t slices;
};

static void compete(void *arg)
{
    struct competitor *competitor = arg;
    while (!competitor->stop)
        __asm__ volatile("pause");
    competitor->slices = current_task()->slices;
}

/* The tick interrupts ring 3 (through the context hooks) and preempts a
 * user task for a kernel thread on the same CPU, and back. */
static void user_task_is_preempted_by_the_tick(struct ktest *test)
{
    static struct competitor competitor;
    unsigned cpu = cpu_count - 1;
    struct cpumask there = cpumask_of(cpu);

    competitor = (struct competitor){ 0 };
    uint64_t before = context_user_exits(cpu);
    struct task *rival = kthread_create("rival", compete, &competitor, &there);
    int status = RUN(spin, (int)cpu);
    competitor.stop = true;
    kthread_join(rival);
    uint64_t exits = context_user_exits(cpu) - before;
    ktest_log(test, "spin: %lu exits from user mode (interrupts), rival got %lu slices", exits, competitor.slices);
    KTEST_EXPECT(test, status == WAIT_STATUS_EXITED(0), "status %#x", status);
    KTEST_EXPECT(test, exits > 10, "only %lu interrupts reached the spinning user task", exits);
    KTEST_EXPECT(test, competitor.slices >= 2, "the kernel thread got %lu slices", competitor.slices);
}

struct fault_case {
    const char *name;
    const char *start, *end;
    int signal;
};

static void every_user_fault_kills_only_its_process(struct ktest *test)
{
#define FAULT(name, signal) { #name, user_program_##name, user_program_##name##_end, signal }
    static const struct fault_case cases[] = {
        FAULT(null_write, SIGSEGV),     FAULT(invalid_opcode, SIGILL), FAULT(divide_by_zero, SIGFPE),
        FAULT(breakpoint, SIGTRAP),     FAULT(read_kernel, SIGSEGV),   FAULT(jump_to_kernel, SIGSEGV),
        FAULT(write_code, SIGSEGV),     FAULT(stack_overflow, SIGSEGV), FAULT(privileged, SIGSEGV),
    };
    size_t free_before = page_free_count();

    for (unsigned round = 0; round < 3; round++) {
        for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
            int status = run_program(cases[i].name, cases[i].start, cases[i].end, (int)(i % cpu_count));
            KTEST_EXPECT(test, status == WAIT_STATUS_SIGNALED(cases[i].signal), "%s: status %#x, expected signal %d",
                         cases[i].name, status, cases[i].signal);
        }
    }
    /* and the kernel still runs a process afterwards, with nothing leaked */
    KTEST_EXPECT(test, RUN(hello, -1) == WAIT_STATUS_EXITED(7), "a process after the faults failed");
    size_t free_after = page_free_count();
    KTEST_EXPECT(test, free_after + 32 >= free_before, "leaked %zu pages", free_before - free_after);
}

/* The lifetime rule (kernel/process/process_table.c): a process pinned under
 * process_tree_lock is out of the table once reaped, but it and its task
 * stay (freed memory would read as heap poison) until the last put. */
static void a_pinned_process_outlives_its_reaping(struct ktest *test)
{
    struct process *process =
        process_spawn_flat("hello", user_program_hello, (size_t)(user_program_hello_end - user_program_hello), -1);
    KTEST_EXPECT(test, process, "cannot spawn");
    if (!process)
        return;
    spin_lock(&process_tree_lock);
    int pid = process->pid;
    process_get_locked(process);
    spin_unlock(&process_tree_lock);
    int status = process_reap(process);
    spin_lock(&process_tree_lock);
    bool found = process_find_locked(pid) != 0;
    spin_unlock(&process_tree_lock);
    KTEST_EXPECT(test, status == WAIT_STATUS_EXITED(7), "wait status %#x", status);
    KTEST_EXPECT(test, !found, "pid %d is still in the table after it was reaped", pid);
    KTEST_EXPECT(test, process->pid == pid && process->leader.task->state == TASK_DEAD && process->leader.task->process == process,
                 "freed while pinned: pid %d, task state %d", process->pid, (int)process->leader.task->state);
    process_put(process);
}

KTEST_SUITE(user,
            KTEST_CASE(hello_runs_in_ring_3_and_exits_with_its_code),
            KTEST_CASE(bad_system_call_arguments_return_errors),
            KTEST_CASE(every_system_call_passes_the_context_hooks),
            KTEST_CASE(user_task_is_preempted_by_the_tick),
            KTEST_CASE(every_user_fault_kills_only_its_process),
            KTEST_CASE(a_pinned_process_outlives_its_reaping));
