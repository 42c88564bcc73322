/* ktest=percpu: every CPU works on its own copy of the per-CPU section,
 * made from the section's initial image. */
#include "kernel/base/percpu.h"
#include "kernel/debug/ktest.h"
#include "kernel/irq/ipi.h"

#define PATTERN 0x5eed0000c0ffee00ul

struct percpu_test_state {
    uint64_t pattern;
    unsigned writer;
    uint8_t bytes[3];
};

static DEFINE_PER_CPU(struct percpu_test_state, percpu_test_state) = {
    .pattern = PATTERN, .writer = ~0u, .bytes = { 1, 2, 3 },
};

extern char __per_cpu_start[], __per_cpu_end[];

struct seen {
    struct percpu_test_state before;
    struct percpu_test_state *mine;
};

/* Runs on each CPU: what its copy held, then mark the copy as its own. */
static void look_and_write(void *arg)
{
    struct seen *seen = arg;
    struct percpu_test_state *state = this_cpu_ptr(percpu_test_state);
    seen->before = *state;
    seen->mine = state;
    state->writer = this_cpu_id();
}

static bool inside_image(const void *pointer)
{
    return (const char *)pointer >= __per_cpu_start && (const char *)pointer < __per_cpu_end;
}

/* Each CPU finds the initial values in its copy, its this_cpu_ptr() is
 * the per_cpu_ptr() others use for it, and no copy is the image. */
static void each_copy_starts_from_the_image(struct ktest *test)
{
    unsigned cpu;
    for_each_online_cpu(cpu) {
        struct seen seen = { .mine = 0 };
        KTEST_EXPECT(test, smp_call_function_single(cpu, look_and_write, &seen, true) == 0, "cpu %u", cpu);
        KTEST_EXPECT(test, seen.before.pattern == PATTERN, "cpu %u: pattern %#lx", cpu, seen.before.pattern);
        KTEST_EXPECT(test, seen.before.writer == ~0u, "cpu %u: already written by %u", cpu, seen.before.writer);
        KTEST_EXPECT(test, seen.before.bytes[2] == 3, "cpu %u: bytes[2] %u", cpu, seen.before.bytes[2]);
        KTEST_EXPECT(test, seen.mine == per_cpu_ptr(percpu_test_state, cpu), "cpu %u: this_cpu_ptr %p, per_cpu_ptr %p",
                     cpu, (void *)seen.mine, (void *)per_cpu_ptr(percpu_test_state, cpu));
        KTEST_EXPECT(test, !inside_image(seen.mine), "cpu %u uses the image at %p", cpu, (void *)seen.mine);
    }
}

/* After every CPU wrote its id into its own copy, each copy holds its
 * own CPU's id: no two CPUs share one; the image is untouched. */
static void each_cpu_has_its_own_copy(struct ktest *test)
{
    unsigned cpu, other;
    for_each_online_cpu(cpu) {
        struct seen seen;
        smp_call_function_single(cpu, look_and_write, &seen, true);
    }
    for_each_online_cpu(cpu) {
        struct percpu_test_state *state = per_cpu_ptr(percpu_test_state, cpu);
        KTEST_EXPECT(test, state->writer == cpu, "cpu %u's copy was written by %u", cpu, state->writer);
        for_each_online_cpu(other)
            KTEST_EXPECT(test, other == cpu || per_cpu_ptr(percpu_test_state, other) != state,
                         "cpus %u and %u share a copy", cpu, other);
    }
    struct percpu_test_state *image = (void *)&percpu__percpu_test_state;
    KTEST_EXPECT(test, image->pattern == PATTERN && image->writer == ~0u, "the image was written: writer %u",
                 image->writer);
}

KTEST_SUITE(percpu,
            KTEST_CASE(each_copy_starts_from_the_image),
            KTEST_CASE(each_cpu_has_its_own_copy));
