/* The register state saved by arch/x86/entry.asm on every interrupt and
 * exception, in the order the stub pushes it (lowest address first). */
#ifndef ARCH_X86_TRAP_H
#define ARCH_X86_TRAP_H

#include <stdbool.h>
#include <stdint.h>

struct trap_frame {
    uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
    uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
    uint64_t vector, error_code;
    /* pushed by the CPU */
    uint64_t rip, cs, rflags, rsp, ss;
};

static inline bool trap_from_user(const struct trap_frame *frame)
{
    return (frame->cs & 3) != 0;
}

void trap_dispatch(struct trap_frame *frame);
/* entry.asm: an exception in ring 0 at an instruction that runs with the
 * user's GS; returns the frame to handle. */
struct trap_frame *trap_user_gs_window(struct trap_frame *frame);
void idt_init(void);
void idt_load(void);
const char *exception_name(uint64_t vector);

#endif
