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

#define FXSAVE_FCW   0       /* x87 control word */
#define FXSAVE_MXCSR 24
#define INITIAL_FCW   0x037f  /* what fninit loads: extended precision, all exceptions masked */
#define INITIAL_MXCSR 0x1f80  /* round to nearest, all exceptions masked */

/* The state a program starts with, as Linux's: the control words above,
 * every register and status zero (not whatever firmware left in them). */
static struct fpu_state initial_state;
static volatile int initial_state_ready;

static void make_initial_state(struct fpu_state *state)
{
    uint16_t fcw = INITIAL_FCW;
    uint32_t mxcsr = INITIAL_MXCSR;
    memset(state, 0, sizeof(*state));
    memcpy(state->fxsave_area + FXSAVE_FCW, &fcw, sizeof(fcw));
    memcpy(state->fxsave_area + FXSAVE_MXCSR, &mxcsr, sizeof(mxcsr));
}

static void write_cr0(uint64_t value) { __asm__ volatile("mov %0, %%cr0" : : "r"(value) : "memory"); }

void fpu_init_this_cpu(void)
{
    write_cr0((read_cr0() & ~(CR0_EM | CR0_TS)) | CR0_MP | CR0_NE);
    write_cr4(read_cr4() | CR4_OSFXSR | CR4_OSXMMEXCPT);
    __asm__ volatile("fninit");
    if (!__atomic_exchange_n(&initial_state_ready, 1, __ATOMIC_SEQ_CST))
        make_initial_state(&initial_state);
}

void fpu_reset(void)
{
    fpu_restore(&initial_state);
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
