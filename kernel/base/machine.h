/* What kernel/base asks of the machine, which sits above it: send an NMI,
 * this CPU's APIC ID as the hardware says, whether a kernel address is
 * mapped (a backtrace reads only those), and how to end the run after a
 * panic. arch/x86 registers them at boot (arch/x86/machine.c); until then
 * there is one CPU, no NMI is sent, a backtrace stops at its first
 * address and a panic halts. */
#ifndef KERNEL_BASE_MACHINE_H
#define KERNEL_BASE_MACHINE_H

#include <stdbool.h>
#include <stdint.h>

struct machine_hooks {
    void (*send_nmi)(uint32_t apic_id);
    uint32_t (*apic_id)(void);
    bool (*kernel_mapped)(uint64_t address);
    void (*panic_exit)(void) __attribute__((noreturn));
};

void machine_hooks_register(const struct machine_hooks *hooks);
extern const struct machine_hooks *machine;

#endif
