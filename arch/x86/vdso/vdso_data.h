/* The vDSO's data page (Linux's vvar): what the kernel publishes and the
 * vDSO's code (arch/x86/vdso/vdso.c) reads in user mode, and the read
 * both sides share, so that clock_gettime answers the same in the vDSO
 * and in the system call (kernel/time/vdso_clock.c). Built into the
 * kernel and into the vDSO: plain C, no kernel headers.
 *
 * A clock reading is base_ns + (TSC - base_tsc) * mult >> shift. The
 * timekeeper rewrites it at its tick, continuously (no step), steering
 * mult toward the clocksource; between writes it stays valid for as long
 * as the TSC is (a nohz CPU needs no tick to read the clock). seq is odd
 * while the kernel writes: a reader that saw it odd or changed reads
 * again. use_syscall is set once the TSC is marked unstable (or was never
 * calibrated): then the vDSO makes the system call. */
#ifndef ARCH_X86_VDSO_DATA_H
#define ARCH_X86_VDSO_DATA_H

#include <stdint.h>

/* LSL of this selector gives the CPU in its low 12 bits and the node
 * above (Linux's GDT_ENTRY_CPUNODE, at another index): one GDT entry per
 * CPU, a ring-3 data segment whose limit is the number. */
#define VDSO_CPUNODE_GDT_INDEX 7
#define VDSO_CPUNODE_SELECTOR  (VDSO_CPUNODE_GDT_INDEX * 8 | 3)
#define VDSO_CPUNODE_CPU_BITS  12

struct vdso_data {
    volatile uint32_t seq;
    volatile uint32_t use_syscall;
    volatile uint64_t base_tsc;         /* the TSC at the last update */
    volatile uint64_t base_ns;          /* CLOCK_MONOTONIC then */
    volatile uint64_t mult;             /* ns per TSC cycle << shift */
    volatile uint32_t shift;
    volatile uint32_t pad;
    volatile uint64_t coarse_ns;        /* the _COARSE clocks count in these steps: the tick period */
    volatile uint64_t realtime_offset_ns;   /* REALTIME - MONOTONIC: 0, no wall clock */
    volatile uint64_t tai_offset_ns;        /* TAI - REALTIME: 0 */
};

static inline uint64_t vdso_rdtsc_ordered(void)
{
    uint32_t low, high;
    __asm__ volatile("lfence; rdtsc" : "=a"(low), "=d"(high) :: "memory");
    return (uint64_t)high << 32 | low;
}

/* The reading at tsc: a TSC a little behind base_tsc (read on another
 * CPU just before the update) counts as base_tsc, as Linux's vDSO does. */
static inline uint64_t vdso_data_ns_at(const struct vdso_data *data, uint64_t tsc)
{
    uint64_t cycles = tsc > data->base_tsc ? tsc - data->base_tsc : 0;
    return data->base_ns + (uint64_t)(((unsigned __int128)cycles * data->mult) >> data->shift);
}

/* CLOCK_MONOTONIC (coarse: rounded down to a tick period, so it needs
 * no tick to stay current) into *ns; 0 if the caller must ask the
 * clocksource (the system call) instead. */
static inline int vdso_data_read(const struct vdso_data *data, int coarse, uint64_t *ns)
{
    uint32_t seq;
    do {
        seq = data->seq;
        __asm__ volatile("" ::: "memory");     /* x86 keeps loads in order; the compiler must too */
        if (seq & 1) {
            __asm__ volatile("pause");
            continue;
        }
        if (data->use_syscall)
            return 0;
        *ns = vdso_data_ns_at(data, vdso_rdtsc_ordered());
        if (coarse && data->coarse_ns)
            *ns -= *ns % data->coarse_ns;
        __asm__ volatile("" ::: "memory");
    } while ((seq & 1) || data->seq != seq);
    return 1;
}

#endif
