/* What the hardware needs for ring 3: the SYSCALL MSRs, SMEP/SMAP, and the
 * first entry into user mode of a new program or a forked child. */
#ifndef ARCH_X86_USER_MODE_H
#define ARCH_X86_USER_MODE_H

#include <stdbool.h>
#include <stdint.h>

#define SYSCALL_VECTOR 0x100        /* trap_frame.vector of a system call */

struct trap_frame;

void user_mode_init_this_cpu(void);
bool smap_enabled(void);
/* Leave the kernel for ring 3 at rip with stack rsp, interrupts on. */
void user_mode_start(uint64_t rip, uint64_t rsp) __attribute__((noreturn));
/* A forked child's first return to ring 3, with interrupts off, from a
 * copy of its parent's frame (a local of the caller): through
 * exit_to_user_mode() like every other return. */
void user_mode_resume(struct trap_frame *frame) __attribute__((noreturn));
/* arch/x86/syscall_entry.asm: drop the stack down to frame and return to
 * ring 3 through trap_return with what it holds. */
void enter_user_mode(struct trap_frame *frame) __attribute__((noreturn));

/* The RFLAGS a return to ring 3 loads: the user's CF PF AF ZF SF TF DF OF
 * NT RF AC ID, IF set; IOPL 0; VM, VIF and VIP clear. */
uint64_t user_rflags(uint64_t rflags);
/* Just before the iretq to ring 3: the flags through user_rflags(); false
 * if the iretq would fault in ring 0 (a non-canonical RIP, a selector not
 * the user's), which the caller makes the program's fault, as on Linux. */
bool user_frame_prepare_return(struct trap_frame *frame);
/* After user_frame_prepare_return(), from syscall_entry.asm: may sysretq
 * return to frame (RCX and R11 still the RIP and RFLAGS to load, a RIP
 * below the last page of the lower half, no RF or TF)? Else iretq. */
bool user_frame_sysret_ok(const struct trap_frame *frame);

/* Copy where one side is user memory, inside user_access_begin/end: 0, or
 * the bytes left when a page fault stopped it (arch/x86/user_copy.asm). */
uint64_t user_copy(void *dst, const void *src, uint64_t count);

/* Let the kernel touch user pages around a copy (SMAP's AC flag). */
static inline void user_access_begin(void)
{
    if (smap_enabled())
        __asm__ volatile("stac" : : : "memory");
}

static inline void user_access_end(void)
{
    if (smap_enabled())
        __asm__ volatile("clac" : : : "memory");
}

#endif
