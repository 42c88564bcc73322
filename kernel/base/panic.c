/* panic(): see kernel/base/panic.h. Only the first CPU to panic prints; the
 * others stop. Nothing here takes a lock: the console lock may be held by
 * the CPU that broke. */
#include "kernel/base/panic.h"

#include <stdarg.h>

#include "arch/x86/cpu.h"
#include "arch/x86/trap.h"
#include "kernel/lib/format.h"
#include "kernel/base/ksyms.h"
#include "kernel/base/machine.h"
#include "kernel/base/percpu.h"
#include "kernel/base/printk.h"

#define BACKTRACE_MAX_FRAMES 32

static volatile int panicking_cpu = -1;

static void __attribute__((noreturn)) halt_forever(void)
{
    irq_disable();
    for (;;)
        halt();
}

static void no_nmi(uint32_t apic_id)
{
    (void)apic_id;
}

static uint32_t no_apic_id(void)
{
    return ~0u;
}

static bool nothing_known_mapped(uint64_t address)
{
    (void)address;
    return false;
}

static const struct machine_hooks before_arch = { no_nmi, no_apic_id, nothing_known_mapped, halt_forever };
const struct machine_hooks *machine = &before_arch;

void machine_hooks_register(const struct machine_hooks *hooks)
{
    machine = hooks;
}

bool panic_in_progress(void)
{
    return panicking_cpu >= 0;
}

void panic_halt_this_cpu(void)
{
    halt_forever();
}

static void print_address(uint64_t address)
{
    uint64_t offset;
    const char *name = ksyms_lookup(address, &offset);

    if (name)
        printk_unlocked("    [<%016lx>] %s+0x%lx\n", address, name, offset);
    else
        printk_unlocked("    [<%016lx>] ?\n", address);
}

/* Walk the frame-pointer chain (the kernel is built with frame pointers):
 * each frame holds the caller's rbp, then the return address. */
void print_backtrace(uint64_t rip, uint64_t rbp)
{
    printk_unlocked("Backtrace:\n");
    print_address(rip);
    for (int depth = 0; depth < BACKTRACE_MAX_FRAMES && rbp; depth++) {
        if ((rbp & 7) || !machine->kernel_mapped(rbp) || !machine->kernel_mapped(rbp + 8))
            break;
        uint64_t *frame = (uint64_t *)rbp;
        if (!frame[1])
            break;
        print_address(frame[1] - 1);    /* -1: the call, not the next line */
        rbp = frame[0];
    }
}

/* The backtrace of whoever calls this, from the call on. */
void __attribute__((noinline)) print_backtrace_here(void)
{
    print_backtrace((uint64_t)__builtin_return_address(0) - 1, *(uint64_t *)read_rbp());
}

static void print_registers(const struct trap_frame *f)
{
    printk_unlocked("RIP: %016lx CS: %04lx RFLAGS: %016lx error: %lx\n", f->rip, f->cs, f->rflags,
                    f->error_code);
    printk_unlocked("RSP: %016lx SS: %04lx CR2: %016lx CR3: %016lx\n", f->rsp, f->ss, read_cr2(),
                    read_cr3());
    printk_unlocked("RAX: %016lx RBX: %016lx RCX: %016lx RDX: %016lx\n", f->rax, f->rbx, f->rcx, f->rdx);
    printk_unlocked("RSI: %016lx RDI: %016lx RBP: %016lx R8:  %016lx\n", f->rsi, f->rdi, f->rbp, f->r8);
    printk_unlocked("R9:  %016lx R10: %016lx R11: %016lx R12: %016lx\n", f->r9, f->r10, f->r11, f->r12);
    printk_unlocked("R13: %016lx R14: %016lx R15: %016lx\n", f->r13, f->r14, f->r15);
}

/* An NMI to each other online CPU: it halts there (the NMI handler sees
 * panic_in_progress()). Not to all but self: a CPU still starting may
 * have no IDT yet, and an NMI there is a triple fault, which resets the
 * machine in the middle of the report. */
static void stop_other_cpus(unsigned me)
{
    unsigned cpu;
    for_each_online_cpu(cpu)
        if (cpu != me)
            machine->send_nmi(cpus[cpu]->apic_id);
}

static void __attribute__((noreturn))
panic_common(struct trap_frame *frame, const char *format, va_list args)
{
    char message[256];
    int expected = -1;

    irq_disable();
    unsigned cpu = this_cpu_id();
    if (!__atomic_compare_exchange_n(&panicking_cpu, &expected, (int)cpu, false, __ATOMIC_SEQ_CST,
                                     __ATOMIC_SEQ_CST))
        panic_halt_this_cpu();          /* another CPU is already reporting */

    stop_other_cpus(cpu);
    vsnprintf(message, sizeof(message), format, args);
    printk_unlocked("\nPANIC: cpu %u: %s\n", cpu, message);
    if (frame) {
        print_registers(frame);
        print_backtrace(frame->rip, frame->rbp);
    } else {
        /* start at our caller: skip panic_common's own frame */
        print_backtrace((uint64_t)__builtin_return_address(0) - 1, *(uint64_t *)read_rbp());
    }
    printk_unlocked("PANIC: end of report, stopping\n");
    machine->panic_exit();
}

void panic(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    panic_common(0, format, args);
}

void panic_from_trap(struct trap_frame *frame, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    panic_common(frame, format, args);
}
