/* The IDT and the first C code of every interrupt and exception.
 * Exceptions in the kernel are bugs: they panic with the registers and a
 * backtrace. The rest goes up through kernel/entry/entry.h: an exception
 * from user space becomes Linux's signal (entry_user_fault), vector 32 and
 * up is an interrupt (entry_interrupt), an NMI is entry_nmi's. */
#include "arch/x86/trap.h"

#include "arch/x86/cpu.h"
#include "arch/x86/gdt.h"
#include "arch/x86/paging.h"
#include "arch/x86/user_mode.h"
#include "arch/x86/vectors.h"
#include "kernel/base/printk.h"
#include "kernel/base/panic.h"
#include "kernel/entry/entry.h"
#include "kernel/lib/linux_signal.h"

#define GATE_INTERRUPT 0x8e     /* present, ring 0, 64-bit interrupt gate (IF cleared) */
#define GATE_USER_CALLABLE 0x60 /* DPL 3: `int3` and `into` from ring 3 reach the handler */

struct idt_gate {
    uint16_t offset_low;
    uint16_t selector;
    uint8_t ist;
    uint8_t type;
    uint16_t offset_middle;
    uint32_t offset_high;
    uint32_t reserved;
} __attribute__((packed));

struct idt_pointer {
    uint16_t limit;
    uint64_t base;
} __attribute__((packed));

extern const uint64_t vector_stubs[VECTOR_COUNT];
static struct idt_gate idt[VECTOR_COUNT] __attribute__((aligned(16)));

static const char *const exception_names[VECTOR_EXCEPTION_COUNT] = {
    "divide error", "debug", "NMI", "breakpoint", "overflow", "bound range exceeded",
    "invalid opcode", "device not available", "double fault", "coprocessor segment overrun",
    "invalid TSS", "segment not present", "stack-segment fault", "general protection fault",
    "page fault", "reserved 15", "x87 floating-point error", "alignment check", "machine check",
    "SIMD floating-point error", "virtualization exception", "control protection exception",
};

const char *exception_name(uint64_t vector)
{
    if (vector < VECTOR_EXCEPTION_COUNT && exception_names[vector])
        return exception_names[vector];
    return "reserved exception";
}

static void set_gate(unsigned vector, uint64_t handler, uint8_t ist)
{
    bool user_callable = vector == VECTOR_BREAKPOINT || vector == 4;   /* int3, into */
    idt[vector] = (struct idt_gate){
        .offset_low = handler & 0xffff,
        .selector = SELECTOR_KERNEL_CODE,
        .ist = ist,
        .type = GATE_INTERRUPT | (user_callable ? GATE_USER_CALLABLE : 0),
        .offset_middle = (handler >> 16) & 0xffff,
        .offset_high = handler >> 32,
    };
}

void idt_init(void)
{
    for (unsigned vector = 0; vector < VECTOR_COUNT; vector++)
        set_gate(vector, vector_stubs[vector], 0);
    set_gate(VECTOR_DOUBLE_FAULT, vector_stubs[VECTOR_DOUBLE_FAULT], IST_DOUBLE_FAULT);
    set_gate(VECTOR_NMI, vector_stubs[VECTOR_NMI], IST_NMI);
    set_gate(VECTOR_MACHINE_CHECK, vector_stubs[VECTOR_MACHINE_CHECK], IST_MACHINE_CHECK);
}

void idt_load(void)
{
    struct idt_pointer pointer = { sizeof(idt) - 1, (uint64_t)idt };
    __asm__ volatile("lidt %0" : : "m"(pointer));
}

extern char user_copy_instruction[], user_copy_fault[];

/* A page fault of user_copy() on a user address, which a sibling thread
 * changed after the kernel checked it: a write to a page a fork made
 * copy-on-write meanwhile is resolved and the copy goes on; anything else
 * (unmapped, protected) ends the copy, which returns what it had left
 * (arch/x86/user_copy.asm). */
static bool user_copy_fixup(struct trap_frame *frame)
{
    uint64_t address = read_cr2();
    if (frame->vector != VECTOR_PAGE_FAULT || frame->rip != (uint64_t)user_copy_instruction ||
        address >= USER_HALF_END)
        return false;
    if (!entry_user_copy_fault(address, frame->error_code))
        frame->rip = (uint64_t)user_copy_fault;
    return true;
}

static void handle_exception(struct trap_frame *frame)
{
    if (user_copy_fixup(frame))
        return;
    if (frame->vector == VECTOR_PAGE_FAULT)
        panic_from_trap(frame, "page fault at address %#lx (%s, %s)", read_cr2(),
                        frame->error_code & 1 ? "protection violation" : "page not present",
                        frame->error_code & 2 ? "write" : frame->error_code & 16 ? "instruction fetch" : "read");
    panic_from_trap(frame, "%s in the kernel", exception_name(frame->vector));
}

/* The signal Linux sends for an exception in user mode. */
static int exception_signal(uint64_t vector)
{
    switch (vector) {
    case VECTOR_DIVIDE_ERROR:
    case 16:                    /* x87 error */
    case 19:                    /* SIMD error */
        return SIGFPE;
    case VECTOR_DEBUG:
    case VECTOR_BREAKPOINT:
        return SIGTRAP;
    case VECTOR_INVALID_OPCODE:
        return SIGILL;
    case 12:                    /* stack-segment fault: a non-canonical stack */
    case 17:                    /* alignment check */
        return SIGBUS;
    default:
        return SIGSEGV;
    }
}

extern char iret_to_user[];

/* iretq's own faults: a segment not present, a bad stack segment, and
 * #GP (a bad selector, a non-canonical RIP, or NT set in ring 0). */
static bool iret_can_raise(uint64_t vector)
{
    return vector == 11 || vector == 12 || vector == VECTOR_GENERAL_PROTECTION;
}

/* An entry from ring 0 where the user's GS was live (entry.asm swapped it
 * back already). A fault of iret_to_user means the return to ring 3
 * failed: the frame it was popping is put back where it was, with the
 * user's registers, as a fault of the user program at the address it was
 * returning to (Linux's "bad iret" fixup): the program gets SIGSEGV, not
 * the kernel an endless fault. Anything else (an NMI just before the
 * iretq or at syscall_entry) is the kernel's, and returns there. */
struct trap_frame *trap_user_gs_window(struct trap_frame *frame)
{
    if (frame->rip != (uint64_t)iret_to_user || !iret_can_raise(frame->vector))
        return frame;
    const uint64_t *popped = (const uint64_t *)frame->rsp;     /* rip, cs, rflags, rsp, ss */
    struct trap_frame user = *frame;
    user.rip = popped[0], user.cs = popped[1], user.rflags = popped[2], user.rsp = popped[3], user.ss = popped[4];
    printk("nohzk: return to user mode failed: %s, rip %#lx cs %#lx rflags %#lx rsp %#lx ss %#lx\n",
           exception_name(frame->vector), user.rip, user.cs, user.rflags, user.rsp, user.ss);
    struct trap_frame *rebuilt = (struct trap_frame *)(frame->rsp + 5 * sizeof(uint64_t)) - 1;
    *rebuilt = user;
    return rebuilt;
}

/* Every entry from ring 3 leaves user context first
 * (enter_from_user_mode) and goes back through exit_to_user_mode(), which
 * enters it again last. An exception from ring 3 is the process's fault,
 * not the kernel's: it gets the Linux signal, whose handler runs on the way
 * out; without one, only the process dies. */
void trap_dispatch(struct trap_frame *frame)
{
    bool from_user = trap_from_user(frame);

    /* Interrupt gates keep RFLAGS.AC: a user program that set it (for
     * alignment checks) would run this handler with SMAP off. The frame
     * keeps the interrupted AC for the way back. */
    user_access_end();

    /* An NMI can come anywhere, even with interrupts off in the middle of
     * a context switch: it only prints or stops, and goes straight back. */
    if (frame->vector == VECTOR_NMI) {
        entry_nmi(frame);
        return;
    }

    if (from_user)
        enter_from_user_mode();
    if (frame->vector < VECTOR_EXCEPTION_COUNT) {
        bool page_fault = frame->vector == VECTOR_PAGE_FAULT;
        uint64_t address = page_fault ? read_cr2() : frame->rip;
        if (from_user && !(page_fault && entry_user_page_fault(frame, address, frame->error_code)))
            entry_user_fault(frame, exception_signal(frame->vector), exception_name(frame->vector), address);
        else if (!from_user)
            handle_exception(frame);
    } else {
        entry_interrupt(frame);
    }
    if (from_user)
        exit_to_user_mode(frame);
}
