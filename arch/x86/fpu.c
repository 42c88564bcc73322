/* See arch/x86/fpu.h. */
#include "arch/x86/fpu.h"

#include "arch/x86/cpu.h"
#include "kernel/lib/string.h"

#define CR0_MP (1ul << 1)
#define CR0_EM (1ul << 2)
#define CR0_TS (1ul << 3)
#define CR0_NE (1ul << 5)   /* x87 errors raise #MF, not the PC's legacy IRQ 13 */
#define CR4_OSFXSR (1ul << 9)
#define CR4_OSXMMEXCPT (1ul << 10)

static struct fpu_state initial_state;
static volatile int initial_state_ready;

static void write_cr0(uint64_t value) { __asm__ volatile("mov %0, %%cr0" : : "r"(value) : "memory"); }

void fpu_init_this_cpu(void)
{
    write_cr0((read_cr0() & ~(CR0_EM | CR0_TS)) | CR0_MP | CR0_NE);
    write_cr4(read_cr4() | CR4_OSFXSR | CR4_OSXMMEXCPT);
    __asm__ volatile("fninit");
    if (!__atomic_exchange_n(&initial_state_ready, 1, __ATOMIC_SEQ_CST))
        fpu_save(&initial_state);   /* x87 defaults, MXCSR 0x1f80: all exceptions masked */
}

void fpu_state_init(struct fpu_state *state)
{
    memcpy(state, &initial_state, sizeof(*state));
}

void fpu_save(struct fpu_state *state)
{
    __asm__ volatile("fxsave64 %0" : "=m"(*state) : : "memory");
}

void fpu_restore(const struct fpu_state *state)
{
    __asm__ volatile("fxrstor64 %0" : : "m"(*state) : "memory");
}
