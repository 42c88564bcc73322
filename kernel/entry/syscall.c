/* The system call table and the one path every system call takes.
 *
 * Each call registers itself beside its code with SYSCALL_DEFINE
 * (kernel/entry/syscall.h); syscall_table_init() files them by number.
 * syscall_entry (arch/x86/syscall_entry.asm) saves the user registers as a
 * struct trap_frame and calls syscall_dispatch(), which leaves user context
 * (enter_from_user_mode), enables interrupts, arms fault injection if the
 * process asked (kernel/mm/fault_inject.h), runs the handler with Linux's
 * argument registers (rdi, rsi, rdx, r10, r8, r9), stores the result in rax,
 * and goes back through exit_to_user_mode() (kernel/entry/entry.c). A
 * number nohzk does not implement returns -ENOSYS; with strace=1 on the
 * kernel command line every call is logged with its name, arguments and
 * result, so a missing one shows at once. */
#include <stdbool.h>

#include "kernel/entry/syscall.h"
#include "kernel/entry/entry.h"

#include "arch/x86/cpu.h"
#include "arch/x86/trap.h"
#include "kernel/lib/errno.h"
#include "kernel/lib/format.h"
#include "kernel/base/panic.h"
#include "kernel/base/percpu.h"
#include "kernel/base/printk.h"
#include "kernel/process/process.h"
#include "sched/task.h"

bool syscall_trace;

/* The calls registered with SYSCALL_DEFINE (kernel/entry/syscall.h),
 * collected by linker.ld, filed by number at boot. */
extern const struct syscall *const __syscalls_start[], *const __syscalls_end[];
static const struct syscall *by_number[LINUX_SYSCALL_COUNT];

void syscall_table_init(void)
{
    for (const struct syscall *const *entry = __syscalls_start; entry < __syscalls_end; entry++)
        by_number[(*entry)->number] = *entry;
}

const char *syscall_name(uint64_t number)
{
    return number < LINUX_SYSCALL_COUNT && by_number[number] ? by_number[number]->name : 0;
}

static long call(struct trap_frame *frame)
{
    uint64_t number = frame->rax;
    if (number >= LINUX_SYSCALL_COUNT || !by_number[number])
        return -ENOSYS;
    return by_number[number]->call(frame->rdi, frame->rsi, frame->rdx, frame->r10, frame->r8, frame->r9);
}

/* A handler must give back every lock it took and leave interrupts as it
 * found them (on): otherwise the task goes back to user space holding a
 * lock, or with the tick off. Cheap enough for every call; the fuzzer
 * (user/fuzz.c) reaches the error paths where such slips hide. */
static void check_balanced(uint64_t number)
{
    const char *name = syscall_name(number);
    if (this_cpu()->locks_held)
        panic("syscall %s returned with %u spinlocks held", name ? name : "unknown", this_cpu()->locks_held);
    if (!irqs_enabled())
        panic("syscall %s returned with interrupts disabled", name ? name : "unknown");
}

void syscall_dispatch(struct trap_frame *frame)
{
    enter_from_user_mode();
    struct task *task = current_task();
    task->syscall_frame = frame;
    irq_enable();
    struct process *process = task->process;
    bool injecting = process && fault_inject_wanted(&process->fault) && fault_inject_syscall_begin(process);
    uint64_t number = frame->rax;       /* a signal may rewrite the frame */
    long result = call(frame);
    if (injecting)
        fault_inject_syscall_end(process);
    check_balanced(number);
    if (syscall_trace) {
        const char *name = syscall_name(number);
        char unknown[24];
        if (!name)      /* the number, to look up in Linux's table */
            snprintf(unknown, sizeof(unknown), "syscall_%lu", number);
        printk("strace: pid %d: %s(%#lx, %#lx, %#lx, %#lx, %#lx, %#lx) = %ld\n", current_process()->pid,
               name ? name : unknown, frame->rdi, frame->rsi, frame->rdx, frame->r10, frame->r8, frame->r9,
               result);
    }
    frame->rax = (uint64_t)result;
    irq_disable();
    exit_to_user_mode(frame);
}
