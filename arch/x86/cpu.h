/* Single x86 instructions as inline functions: port I/O, MSRs, control
 * registers, CPUID, interrupt flag. Everything that needs one instruction
 * comes from here, so no other file carries inline assembly for them. */
#ifndef ARCH_X86_CPU_H
#define ARCH_X86_CPU_H

#include <stdbool.h>
#include <stdint.h>

#define RFLAGS_IF (1ul << 9)

#define MSR_APIC_BASE      0x0000001b
#define MSR_EFER           0xc0000080
#define MSR_FS_BASE        0xc0000100
#define MSR_GS_BASE        0xc0000101
#define MSR_KERNEL_GS_BASE 0xc0000102

static inline void outb(uint16_t port, uint8_t value)
{
    __asm__ volatile("outb %0, %1" : : "a"(value), "Nd"(port));
}

static inline uint8_t inb(uint16_t port)
{
    uint8_t value;
    __asm__ volatile("inb %1, %0" : "=a"(value) : "Nd"(port));
    return value;
}

static inline void outw(uint16_t port, uint16_t value)
{
    __asm__ volatile("outw %0, %1" : : "a"(value), "Nd"(port));
}

static inline void outl(uint16_t port, uint32_t value)
{
    __asm__ volatile("outl %0, %1" : : "a"(value), "Nd"(port));
}

/* count bytes from one port into memory: the CPU repeats the read itself. */
static inline void insb(uint16_t port, void *buffer, uint64_t count)
{
    __asm__ volatile("rep insb" : "+D"(buffer), "+c"(count) : "d"(port) : "memory");
}

static inline uint64_t rdmsr(uint32_t msr)
{
    uint32_t low, high;
    __asm__ volatile("rdmsr" : "=a"(low), "=d"(high) : "c"(msr));
    return ((uint64_t)high << 32) | low;
}

static inline void wrmsr(uint32_t msr, uint64_t value)
{
    __asm__ volatile("wrmsr" : : "c"(msr), "a"((uint32_t)value), "d"((uint32_t)(value >> 32)));
}

static inline uint64_t rdtsc(void)
{
    uint32_t low, high;
    __asm__ volatile("rdtsc" : "=a"(low), "=d"(high));
    return ((uint64_t)high << 32) | low;
}

static inline void cpuid(uint32_t leaf, uint32_t subleaf, uint32_t *a, uint32_t *b, uint32_t *c, uint32_t *d)
{
    __asm__ volatile("cpuid" : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d) : "a"(leaf), "c"(subleaf));
}

static inline uint64_t read_cr0(void) { uint64_t v; __asm__ volatile("mov %%cr0, %0" : "=r"(v)); return v; }
static inline uint64_t read_cr2(void) { uint64_t v; __asm__ volatile("mov %%cr2, %0" : "=r"(v)); return v; }
static inline uint64_t read_cr3(void) { uint64_t v; __asm__ volatile("mov %%cr3, %0" : "=r"(v)); return v; }
static inline uint64_t read_cr4(void) { uint64_t v; __asm__ volatile("mov %%cr4, %0" : "=r"(v)); return v; }
static inline void write_cr3(uint64_t v) { __asm__ volatile("mov %0, %%cr3" : : "r"(v) : "memory"); }
static inline void write_cr4(uint64_t v) { __asm__ volatile("mov %0, %%cr4" : : "r"(v) : "memory"); }

static inline uint64_t read_rflags(void)
{
    uint64_t flags;
    __asm__ volatile("pushfq; popq %0" : "=r"(flags) : : "memory");
    return flags;
}

static inline void irq_disable(void) { __asm__ volatile("cli" : : : "memory"); }
static inline void irq_enable(void) { __asm__ volatile("sti" : : : "memory"); }
static inline bool irqs_enabled(void) { return read_rflags() & RFLAGS_IF; }

/* Save the interrupt flag and disable interrupts; restore puts it back. */
static inline uint64_t irq_save(void)
{
    uint64_t flags = read_rflags();
    irq_disable();
    return flags;
}

static inline void irq_restore(uint64_t flags)
{
    if (flags & RFLAGS_IF)
        irq_enable();
}

/* Wait for the next interrupt with interrupts enabled: "sti; hlt" leaves no
 * window for an interrupt to slip in between (sti's one-instruction shadow). */
static inline void enable_irqs_and_halt(void) { __asm__ volatile("sti; hlt" : : : "memory"); }
static inline void halt(void) { __asm__ volatile("hlt" : : : "memory"); }
static inline void cpu_relax(void) { __asm__ volatile("pause" : : : "memory"); }
static inline void invlpg(uint64_t address) { __asm__ volatile("invlpg (%0)" : : "r"(address) : "memory"); }

static inline uint64_t read_rbp(void)
{
    uint64_t rbp;
    __asm__ volatile("mov %%rbp, %0" : "=r"(rbp));
    return rbp;
}

#endif
