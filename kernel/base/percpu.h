/* struct cpu: everything that belongs to one CPU. Each CPU reaches its own
 * through the GS base (this_cpu()), so no lookup by APIC ID is ever needed
 * on a hot path. Other CPUs' structures are reached through cpus[].
 *
 * Per-CPU variables: DEFINE_PER_CPU(type, name) puts one variable in the
 * .data.percpu section, beside the code that owns it. The section is only
 * an initial image: each CPU gets its own copy of it when it is set up,
 * and per_cpu_ptr()/this_cpu_ptr() find a variable in a copy by adding
 * that CPU's offset from the image. The variable's own name is mangled so
 * that the image cannot be used by mistake. */
#ifndef KERNEL_PERCPU_H
#define KERNEL_PERCPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/x86/gdt.h"
#include "kernel/lib/cpumask.h"

struct cpu {
    struct cpu *self;                   /* must stay first: this_cpu() reads %gs:0 */
    uint64_t syscall_user_rsp;          /* offset 8: arch/x86/syscall_entry.asm */
    uint64_t syscall_stack_top;         /* offset 16: the running task's kernel stack */
    uintptr_t percpu_offset;            /* this CPU's copy of .data.percpu, less the image */
    unsigned id;                        /* 0 .. cpu_count-1, boot CPU is 0 */
    uint32_t apic_id;
    volatile bool online;
    uint64_t kernel_stack_top;
    struct task *current;               /* sched/: running now (idle when none); here for current_task() */
    unsigned irq_nesting;               /* > 0 while handling an interrupt */
    unsigned locks_held;
    unsigned preempt_disabled;
    volatile bool need_resched;
    struct arch_cpu arch;
};

_Static_assert(__builtin_offsetof(struct cpu, syscall_user_rsp) == 8, "syscall_entry.asm knows this offset");
_Static_assert(__builtin_offsetof(struct cpu, syscall_stack_top) == 16, "syscall_entry.asm knows this offset");

extern struct cpu *cpus[MAX_CPUS];
extern unsigned cpu_count;             /* CPUs that came online */
extern struct cpumask cpu_online_mask;

static inline struct cpu *this_cpu(void)
{
    struct cpu *cpu;
    __asm__ volatile("movq %%gs:0, %0" : "=r"(cpu));
    return cpu;
}

static inline unsigned this_cpu_id(void)
{
    return this_cpu()->id;
}

#define for_each_online_cpu(cpu) for_each_cpu_in(cpu, &cpu_online_mask)

#define DECLARE_PER_CPU(type, name) extern __typeof__(type) percpu__##name
#define DEFINE_PER_CPU(type, name) __typeof__(type) percpu__##name __attribute__((section(".data.percpu")))

/* For a variable other CPUs write or spin on (a runqueue's lock, a queue
 * of remote calls): cache lines of its own, so that its owner's writes
 * to its other per-CPU variables do not slow them down, and back. */
#define PERCPU_CACHE_LINE 64
#define DEFINE_PER_CPU_SHARED_ALIGNED(type, name) \
    __typeof__(type) percpu__##name __attribute__((section(".data.percpu.shared_aligned"), aligned(PERCPU_CACHE_LINE)))

/* Offsets of the CPUs' copies from the image; a CPU never set up has an
 * offset that makes any address non-canonical, so a use faults at once
 * instead of writing the image. */
extern uintptr_t percpu_offsets[MAX_CPUS];

/* The compiler must not reason about &var + offset as an address inside
 * var (it is not): hide where the pointer came from. */
#define PERCPU_RELOCATE(pointer, offset)                                  \
    ({                                                                     \
        uintptr_t percpu_address_;                                         \
        __asm__("" : "=r"(percpu_address_) : "0"((uintptr_t)(pointer)));   \
        (__typeof__(pointer))(percpu_address_ + (offset));                 \
    })

#define per_cpu_ptr(name, cpu_id) PERCPU_RELOCATE(&percpu__##name, percpu_offsets[(cpu_id)])

/* This CPU's copy in two instructions, the offset read %gs-relative and the
 * image's address added as an immediate (the kernel's code model keeps it
 * in 32 bits): the generic form takes three, the address in a register
 * first. Hot on the way into and out of every system call. The asm hides
 * the result's origin as PERCPU_RELOCATE does. The host's unit tests
 * (tests/host), built position-independent, compile it but never run it:
 * they get the generic form. */
#ifdef HOST_TEST
static inline uintptr_t this_cpu_percpu_offset(void)
{
    uintptr_t offset;
    __asm__ volatile("movq %%gs:%c1, %0" : "=r"(offset) : "i"(__builtin_offsetof(struct cpu, percpu_offset)));
    return offset;
}
#define this_cpu_ptr(name) PERCPU_RELOCATE(&percpu__##name, this_cpu_percpu_offset())
#else
#define this_cpu_ptr(name)                                                              \
    ({                                                                                 \
        __typeof__(&percpu__##name) this_cpu_ptr_;                                      \
        __asm__ volatile("movq %%gs:%c1, %0\n\taddq %2, %0"                            \
                         : "=r"(this_cpu_ptr_)                                          \
                         : "i"(__builtin_offsetof(struct cpu, percpu_offset)),          \
                           "i"(&percpu__##name));                                       \
        this_cpu_ptr_;                                                                 \
    })
#endif

struct cpu *percpu_setup_boot_cpu(void);
/* Another CPU's struct cpu and copy of the per-CPU image, in one zeroed
 * area of percpu_area_size() bytes that the caller allocates. */
size_t percpu_area_size(void);
struct cpu *percpu_setup(void *area, unsigned id, uint32_t apic_id);
void percpu_mark_online(struct cpu *cpu);

#endif
