/* What the hardware needs for ring 3: the SYSCALL MSRs, SMEP/SMAP, and the
 * first entry into user mode. */
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
