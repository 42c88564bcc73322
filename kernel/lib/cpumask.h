/* CPU masks: one bit per CPU, for "which CPUs are nohz_full", "which CPUs
 * still owe RCU a quiescent state", "which CPUs to send this IPI to".
 *
 * The plain functions are for masks that one CPU owns or that are written
 * before the other CPUs start (boot parameters). The *_atomic ones are for
 * masks that several CPUs change at once; they are sequentially consistent,
 * the simplest ordering to reason about.
 *
 * A CPU number >= MAX_CPUS is a caller's bug; the functions ignore it (set
 * and clear do nothing, test says false) rather than write past the mask.
 *
 * Left out on purpose: Linux's dynamic cpumask sizes (nr_cpu_ids) and
 * off-stack masks; ours is a fixed array small enough to copy by value. */
#ifndef NOHZK_CPUMASK_H
#define NOHZK_CPUMASK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The most CPUs an xAPIC machine can have: 8-bit APIC IDs 0..254, 255
 * being the broadcast destination (QEMU's pc machine refuses -smp 256
 * without x2APIC, which this kernel does not drive). docs/smp.md. */
#define MAX_CPUS      255
#define CPUMASK_WORDS ((MAX_CPUS + 63) / 64)

/* Enough room for cpulist_format() of any mask: at worst every CPU costs a
 * number of up to three digits (MAX_CPUS <= 1000) plus a separator, then
 * the final NUL. */
#define CPULIST_FORMAT_SIZE (4 * MAX_CPUS + 1)

struct cpumask {
    uint64_t bits[CPUMASK_WORDS];
};

static inline size_t cpumask_word(unsigned int cpu)
{
    return cpu / 64;
}

static inline uint64_t cpumask_bit(unsigned int cpu)
{
    return (uint64_t)1 << (cpu % 64);
}

static inline void cpumask_clear_all(struct cpumask *mask)
{
    for (size_t i = 0; i < CPUMASK_WORDS; i++)
        mask->bits[i] = 0;
}

static inline void cpumask_set(struct cpumask *mask, unsigned int cpu)
{
    if (cpu < MAX_CPUS)
        mask->bits[cpumask_word(cpu)] |= cpumask_bit(cpu);
}

static inline void cpumask_clear(struct cpumask *mask, unsigned int cpu)
{
    if (cpu < MAX_CPUS)
        mask->bits[cpumask_word(cpu)] &= ~cpumask_bit(cpu);
}

static inline bool cpumask_test(const struct cpumask *mask, unsigned int cpu)
{
    return cpu < MAX_CPUS && (mask->bits[cpumask_word(cpu)] & cpumask_bit(cpu)) != 0;
}

static inline void cpumask_set_atomic(struct cpumask *mask, unsigned int cpu)
{
    if (cpu < MAX_CPUS)
        __atomic_fetch_or(&mask->bits[cpumask_word(cpu)], cpumask_bit(cpu), __ATOMIC_SEQ_CST);
}

static inline void cpumask_clear_atomic(struct cpumask *mask, unsigned int cpu)
{
    if (cpu < MAX_CPUS)
        __atomic_fetch_and(&mask->bits[cpumask_word(cpu)], ~cpumask_bit(cpu), __ATOMIC_SEQ_CST);
}

static inline bool cpumask_test_atomic(const struct cpumask *mask, unsigned int cpu)
{
    if (cpu >= MAX_CPUS)
        return false;
    uint64_t word = __atomic_load_n(&mask->bits[cpumask_word(cpu)], __ATOMIC_SEQ_CST);
    return (word & cpumask_bit(cpu)) != 0;
}

static inline struct cpumask cpumask_of(unsigned int cpu)
{
    struct cpumask mask;
    cpumask_clear_all(&mask);
    cpumask_set(&mask, cpu);
    return mask;
}

static inline void cpumask_copy(struct cpumask *dst, const struct cpumask *src)
{
    *dst = *src;
}

/* dst may be the same mask as a or b in the three functions below. */
static inline void cpumask_and(struct cpumask *dst, const struct cpumask *a, const struct cpumask *b)
{
    for (size_t i = 0; i < CPUMASK_WORDS; i++)
        dst->bits[i] = a->bits[i] & b->bits[i];
}

static inline void cpumask_or(struct cpumask *dst, const struct cpumask *a, const struct cpumask *b)
{
    for (size_t i = 0; i < CPUMASK_WORDS; i++)
        dst->bits[i] = a->bits[i] | b->bits[i];
}

/* The CPUs in a but not in b. */
static inline void cpumask_andnot(struct cpumask *dst, const struct cpumask *a, const struct cpumask *b)
{
    for (size_t i = 0; i < CPUMASK_WORDS; i++)
        dst->bits[i] = a->bits[i] & ~b->bits[i];
}

static inline bool cpumask_equal(const struct cpumask *a, const struct cpumask *b)
{
    for (size_t i = 0; i < CPUMASK_WORDS; i++)
        if (a->bits[i] != b->bits[i])
            return false;
    return true;
}

static inline bool cpumask_empty(const struct cpumask *mask)
{
    for (size_t i = 0; i < CPUMASK_WORDS; i++)
        if (mask->bits[i] != 0)
            return false;
    return true;
}

/* Number of CPUs in the mask. */
unsigned int cpumask_weight(const struct cpumask *mask);

/* The lowest CPU in the mask, or MAX_CPUS if it is empty. */
unsigned int cpumask_first(const struct cpumask *mask);

/* The lowest CPU in the mask above cpu, or MAX_CPUS if there is none. */
unsigned int cpumask_next(const struct cpumask *mask, unsigned int cpu);

/* for_each_cpu_in(cpu, &mask) { ... } visits the CPUs in increasing order. */
#define for_each_cpu_in(cpu, mask)                                                                           \
    for ((cpu) = cpumask_first(mask); (cpu) < MAX_CPUS; (cpu) = cpumask_next((mask), (cpu)))

/* Parses Linux's CPU list syntax: "0", "1-3", "1-3,5,7-8". The text need
 * not end with a NUL; exactly len bytes are read. Returns 0, -EINVAL for
 * bad syntax (empty text, spaces, a descending range, trailing garbage) or
 * -ERANGE for a CPU >= MAX_CPUS. On error *out is left unchanged. */
int cpulist_parse(const char *text, size_t len, struct cpumask *out);

/* Writes the mask as a CPU list ("0-2,5"; an empty mask gives ""), always
 * NUL-terminated when size > 0. Returns the length without the NUL, or
 * -ENOSPC if it does not fit (buf then holds ""). */
int cpulist_format(const struct cpumask *mask, char *buf, size_t size);

/* Enough room for cpumask_format_bitmap() of MAX_CPUS bits: 8 hex digits
 * and a comma per 32 bits, then the NUL. */
#define CPUMASK_BITMAP_FORMAT_SIZE (9 * ((MAX_CPUS + 31) / 32) + 1)

/* Writes the first bits bits of the mask as Linux's "%*pb" does (the
 * Cpus_allowed line of /proc/PID/status): hex in 32-bit chunks, most
 * significant first, separated by commas, the first chunk as wide as its
 * bits need ("f" for 4 CPUs, "7fffffff,ffffffff,..." for 255). Returns
 * the length without the NUL; -EINVAL if bits is 0 or above MAX_CPUS,
 * -ENOSPC if it does not fit (buf then holds "" when size > 0). */
int cpumask_format_bitmap(const struct cpumask *mask, unsigned int bits, char *buf, size_t size);

#endif
