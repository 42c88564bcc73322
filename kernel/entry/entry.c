/* The way into and out of the kernel: the kernel's side of every trap,
 * interrupt and system call. arch/x86 saves the registers and tells
 * exceptions from interrupts; from here on it is the model's business
 * (context tracking, signals, rescheduling, interrupt handlers). See
 * kernel/entry/entry.h and docs/user-space.md, section 4. */
#include "kernel/entry/entry.h"

#include "arch/x86/cpu.h"
#include "arch/x86/user_mode.h"
#include "kernel/base/percpu.h"
#include "kernel/base/panic.h"
#include "kernel/irq/irq.h"
#include "kernel/lib/errno.h"
#include "kernel/mm/address_space.h"
#include "kernel/process/process.h"
#include "kernel/base/lockcheck.h"
#include "kernel/process/signal.h"
#include "kernel/mm/region.h"
#include "arch/x86/paging.h"
#include "kernel/time/context_tracking.h"
#include "sched/task.h"

void enter_from_user_mode(void)
{
    context_user_exit();
}

/* Loop until nothing is left to do: a reschedule, a signal (its handler
 * frame changes what we return to), an interrupted system call to run
 * again (a stop and a continue, no handler: as if it never happened).
 * Last, the frame must be one iretq can return to: a handler address or
 * a sigreturn frame may say otherwise. On Linux that iretq faults and the
 * program gets SIGSEGV (SI_KERNEL); here the same comes before it. */
void exit_to_user_mode(struct trap_frame *frame)
{
    for (;;) {
        if (this_cpu()->need_resched) {
            schedule();
        } else if (signal_pending()) {
            irq_enable();
            signal_deliver_one(frame);
            irq_disable();
        } else if (signal_wants_restart(frame)) {
            signal_restart_syscall(frame);
        } else if (!user_frame_prepare_return(frame)) {
            signal_force(frame, SIGSEGV, SI_KERNEL, 0, "no return to this RIP, CS or SS");
        } else {
            break;
        }
    }
    signal_restore_wait_mask();
    context_user_enter();
}

/* si_code 1 for every fault: SEGV_MAPERR, ILL_ILLOPC, FPE_INTDIV,
 * BUS_ADRALN, TRAP_BRKPT (the first code of each signal). */
void entry_user_fault(struct trap_frame *frame, int signal, const char *what, uint64_t address)
{
    signal_force(frame, signal, 1, address, what);
}

#define PAGE_FAULT_PRESENT 1
#define PAGE_FAULT_WRITE   2
#define PAGE_FAULT_FETCH   16
#define SEGV_MAPERR 1
#define SEGV_ACCERR 2
#define BUS_ADRERR  2

/* A fault in the middle of a user copy (arch/x86/traps.c): only a write
 * to a copy-on-write page is resolved there. */
bool entry_user_copy_fault(uint64_t address, uint64_t error_code)
{
    struct process *process = current_process();
    bool present = error_code & PAGE_FAULT_PRESENT, write = error_code & PAGE_FAULT_WRITE;
    return process && present && write && address_space_write_fault(process->memory, address) == 0;
}

/* Faults that are not the program's: a write to a copy-on-write page,
 * and a first touch of a page its region allows (an anonymous page not
 * touched yet, a stack page within RLIMIT_STACK: kernel/mm/region.c).
 * Anything else is SIGSEGV, SEGV_ACCERR inside a region (PROT_NONE, a
 * write to a read-only page), SEGV_MAPERR outside every one, as Linux.
 * Out of memory for the page: the process is killed (Linux's OOM killer
 * would pick some process; here it is the one that needs the page). */
bool entry_user_page_fault(struct trap_frame *frame, uint64_t address, uint64_t error_code)
{
    struct process *process = current_process();
    bool present = error_code & PAGE_FAULT_PRESENT, write = error_code & PAGE_FAULT_WRITE;
    if (!process)
        return false;
    int error = present && write ? address_space_write_fault(process->memory, address) : -EFAULT;
    if (!present)
        error = region_fault_in(process, address, write, error_code & PAGE_FAULT_FETCH);
    if (error == -ENOMEM)
        signal_force(frame, SIGKILL, SI_KERNEL, address, "out of memory for a page");
    if (error == -ENXIO)
        signal_force(frame, SIGBUS, BUS_ADRERR, address, "past the end of a shared file mapping");
    if (error == -EFAULT || error == -EACCES) {
        struct region region;
        bool in_region = address < USER_HALF_END && region_find(&process->memory->regions, address, &region);
        signal_force(frame, SIGSEGV, in_region ? SEGV_ACCERR : SEGV_MAPERR, address, "page fault");
    }
    return true;
}

void entry_interrupt(struct trap_frame *frame)
{
    irq_dispatch(frame);
}

void entry_nmi(struct trap_frame *frame)
{
    if (panic_in_progress())
        panic_halt_this_cpu();
    if (lockcheck_answer_nmi(frame))
        return;
    panic_from_trap(frame, "unexpected NMI");
}
