/* Starting the application processors (INIT-SIPI-SIPI). */
#ifndef ARCH_X86_SMPBOOT_H
#define ARCH_X86_SMPBOOT_H

#include <stdint.h>

struct cpu;

#define AP_STACK_PAGES 4

/* Start every CPU in apic_ids except this one, one at a time, through the
 * trampoline page at trampoline_phys (< 1 MiB, free). Each AP runs
 * ap_main(cpu) and sets cpu->online. Returns how many came online. */
unsigned smp_boot_secondary_cpus(const uint32_t *apic_ids, unsigned count, uint64_t trampoline_phys);

/* Provided by the kernel: what an AP does once it runs C code. */
void ap_main(struct cpu *cpu) __attribute__((noreturn));

#endif
