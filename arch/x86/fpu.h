/* The x87/SSE register file of user programs. The kernel itself never
 * touches it (it is built with -mgeneral-regs-only), so only switches
 * between two user tasks need to save and restore it: schedule() does, at
 * every switch, eagerly (lazy switching with CR0.TS was left out). */
#ifndef ARCH_X86_FPU_H
#define ARCH_X86_FPU_H

#include <stdint.h>

struct fpu_state {
    uint8_t fxsave_area[512];
} __attribute__((aligned(16)));

void fpu_init_this_cpu(void);                   /* enable SSE; first call records the initial state */
void fpu_state_init(struct fpu_state *state);   /* a fresh program's registers */
void fpu_reset(void);                           /* load them now: execve */
void fpu_save(struct fpu_state *state);
void fpu_restore(const struct fpu_state *state);

#endif
