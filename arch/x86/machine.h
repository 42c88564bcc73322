/* Registers with kernel/base what it asks of the hardware
 * (kernel/base/machine.h): the first thing the boot does. */
#ifndef ARCH_X86_MACHINE_H
#define ARCH_X86_MACHINE_H

void machine_hooks_init(void);

#endif
