/* Ring 3 support: see arch/x86/user_mode.h.
 *
 * SYSCALL jumps to syscall_entry (arch/x86/syscall_entry.asm) with the
 * kernel code selector from STAR[47:32]; SYSRET would use STAR[63:48] + 16
 * for the user code selector, which is why the GDT puts user data before
 * user code (arch/x86/gdt.h). SFMASK is Linux's: the kernel starts every
 * system call with all of the user's flags clear but the reserved bit 1
 * (NT above all: iretq faults when NT is set while it runs; the NT it
 * loads for ring 3 is harmless there, so the program keeps its own).
 *
 * A return to ring 3 is an iretq, or a sysretq after a system call that
 * left the frame as SYSCALL saved it (user_frame_sysret_ok());
 * user_frame_prepare_return() makes sure first that it cannot fault in
 * ring 0 and loads only flags ring 3 may hold. See docs/user-space.md.
 *
 * SMEP stops the kernel from executing user pages, SMAP from touching them
 * except inside user_access_begin/end: a stray user pointer in the kernel
 * faults instead of quietly following the user's data. */
#include "arch/x86/user_mode.h"

#include "arch/x86/cpu.h"
#include "arch/x86/fpu.h"
#include "arch/x86/gdt.h"
#include "arch/x86/trap.h"
#include "kernel/entry/entry.h"

#define MSR_STAR   0xc0000081
#define MSR_LSTAR  0xc0000082
#define MSR_SFMASK 0xc0000084
#define EFER_SYSCALL_ENABLE (1ul << 0)
#define CR0_AM (1ul << 18)   /* ring 3 code that sets RFLAGS.AC gets #AC, as on Linux */
#define CR4_SMEP (1ul << 20)
#define CR4_SMAP (1ul << 21)
#define RFLAGS_RESERVED_1 (1ul << 1)
/* What ring 3 may hold: CF PF AF ZF SF TF IF DF OF NT RF AC ID, as on
 * Linux. Not IOPL (in and out), VM, VIF or VIP. */
#define RFLAGS_USER_HELD 0x254fd5ul
/* Cleared by SYSCALL: every flag but the reserved bit 1 (Linux's mask:
 * CF PF AF ZF SF TF IF DF OF IOPL NT RF AC ID). */
#define SYSCALL_FLAG_MASK 0x257fd5ul
#define USER_CANONICAL_END 0x0000800000000000ul   /* RIP at or above (in the lower half) faults iretq */

extern char syscall_entry[];

static bool smap_on;

bool smap_enabled(void)
{
    return smap_on;
}

static void enable_smep_smap(void)
{
    uint32_t a, b, c, d;
    cpuid(7, 0, &a, &b, &c, &d);
    uint64_t cr4 = read_cr4();
    if (b & (1u << 7))
        cr4 |= CR4_SMEP;
    if (b & (1u << 20)) {
        cr4 |= CR4_SMAP;
        smap_on = true;
    }
    write_cr4(cr4);
}

void user_mode_init_this_cpu(void)
{
    wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_SYSCALL_ENABLE);
    wrmsr(MSR_STAR, ((uint64_t)(SELECTOR_USER_DATA - 8) << 48) | ((uint64_t)SELECTOR_KERNEL_CODE << 32));
    wrmsr(MSR_LSTAR, (uint64_t)syscall_entry);
    wrmsr(MSR_SFMASK, SYSCALL_FLAG_MASK);
    enable_smep_smap();
    __asm__ volatile("mov %0, %%cr0" : : "r"(read_cr0() | CR0_AM) : "memory");
    fpu_init_this_cpu();
}

/* The frame is a local: it lies below our own stack frames, and
 * enter_user_mode() drops everything above it. (Building it at the top of
 * the stack would overwrite the frames of the functions that called us.) */
void user_mode_start(uint64_t rip, uint64_t rsp)
{
    struct trap_frame frame = {
        .rip = rip,
        .cs = SELECTOR_USER_CODE,
        .rflags = RFLAGS_IF,
        .rsp = rsp,
        .ss = SELECTOR_USER_DATA,
    };
    enter_user_mode(&frame);
}

void user_mode_resume(struct trap_frame *frame)
{
    exit_to_user_mode(frame);
    enter_user_mode(frame);
}

uint64_t user_rflags(uint64_t rflags)
{
    return (rflags & RFLAGS_USER_HELD) | RFLAGS_IF | RFLAGS_RESERVED_1;
}

/* Canonical in the lower half (the upper half is canonical too, and
 * iretq goes there; the program's first fetch then faults in ring 3). */
static bool canonical(uint64_t address)
{
    return address < USER_CANONICAL_END || address >= ~(USER_CANONICAL_END - 1);
}

/* sysretq takes RIP from RCX and RFLAGS from R11, and cannot restore RF
 * (or TF without a trap after it); on Intel it faults in ring 0, on the
 * user's stack, when RCX is not canonical, so the last page below the
 * hole is left to iretq too, as on Linux. A non-canonical RSP (from a
 * sigreturn frame) goes to iretq as well, whose fault the program gets
 * (arch/x86/traps.c, trap_user_gs_window). */
#define RFLAGS_TF (1ul << 8)
#define RFLAGS_RF (1ul << 16)
#define SYSRET_RIP_END (USER_CANONICAL_END - 4096)

bool user_frame_sysret_ok(const struct trap_frame *frame)
{
    return frame->vector == SYSCALL_VECTOR && frame->rcx == frame->rip && frame->r11 == frame->rflags &&
           frame->rip < SYSRET_RIP_END && !(frame->rflags & (RFLAGS_TF | RFLAGS_RF)) &&
           frame->cs == SELECTOR_USER_CODE && frame->ss == SELECTOR_USER_DATA && canonical(frame->rsp);
}

bool user_frame_prepare_return(struct trap_frame *frame)
{
    frame->rflags = user_rflags(frame->rflags);
    return canonical(frame->rip) && frame->cs == SELECTOR_USER_CODE && frame->ss == SELECTOR_USER_DATA;
}
