/* Per-CPU GDT and TSS. Selectors are laid out for SYSCALL/SYSRET: kernel
 * code, kernel data, then user data before user code (SYSRET's order). */
#ifndef ARCH_X86_GDT_H
#define ARCH_X86_GDT_H

#include <stdint.h>

#define SELECTOR_KERNEL_CODE 0x08
#define SELECTOR_KERNEL_DATA 0x10
#define SELECTOR_USER_DATA   (0x18 | 3)
#define SELECTOR_USER_CODE   (0x20 | 3)
#define SELECTOR_TSS         0x28
#define GDT_ENTRIES          8          /* the TSS descriptor takes two; 7: the vDSO's CPU number */

/* Interrupt stack table slots (1-based, as the IDT gate encodes them).
 * These exceptions get a known-good stack even if the current one is bad. */
#define IST_DOUBLE_FAULT  1
#define IST_NMI           2
#define IST_MACHINE_CHECK 3
#define IST_COUNT         3
#define IST_STACK_PAGES   4

struct tss {
    uint32_t reserved0;
    uint64_t rsp[3];
    uint64_t reserved1;
    uint64_t ist[7];
    uint64_t reserved2;
    uint16_t reserved3;
    uint16_t iomap_base;
} __attribute__((packed));

/* The architecture's part of struct cpu. */
struct arch_cpu {
    uint64_t gdt[GDT_ENTRIES];
    struct tss tss;
};

/* On the CPU itself, once memory is set up: the GS base first (everything,
 * even a spinlock, reads this_cpu()), then its GDT and TSS, and the IDT. */
struct cpu;
void arch_cpu_init(struct cpu *cpu);

#endif
