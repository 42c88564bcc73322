/* The trace ring: see kernel/trace/trace_ring.h.
 *
 * One writer per ring (its CPU, interrupts off, so a nested interrupt can
 * never see a half-reserved slot), so reserving is a plain increment of
 * head. Readers on other CPUs use each slot's seq as a sequence lock: the
 * writer sets it to 0, writes the event, then sets it to the slot's
 * position + 1. A reader that reads the same expected value before and
 * after copying has a whole event; anything else (0, or a later position
 * because the writer lapped it) is skipped. Nothing is ever blocked.
 *
 * Left out: per-event sizes (every event is 32 bytes), and a reader that
 * consumes events (reads are snapshots; the ring only ever overwrites). */
#include "kernel/trace/trace_ring.h"

#define RING_MIN 16u
#define RING_MAX (1u << 20)

uint32_t trace_ring_round_size(uint64_t requested)
{
    uint32_t size = RING_MIN;
    while (size < RING_MAX && (uint64_t)size * 2 <= requested)
        size *= 2;
    return size;
}

void trace_ring_write(struct trace_ring *ring, const struct trace_event *event)
{
    uint64_t position = ring->head;
    struct trace_event *slot = &ring->slots[position & (ring->size - 1)];

    __atomic_store_n(&slot->seq, 0, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);    /* readers see seq 0 before any new field */
    slot->time_ns = event->time_ns;
    slot->type = event->type;
    slot->cpu = event->cpu;
    slot->task = event->task;
    slot->arg0 = event->arg0;
    slot->arg1 = event->arg1;
    __atomic_store_n(&slot->seq, (uint32_t)(position + 1), __ATOMIC_RELEASE);
    __atomic_store_n(&ring->head, position + 1, __ATOMIC_RELEASE);
}

/* Copy slot position into *out if it still holds that event, whole. */
static int read_slot(const struct trace_ring *ring, uint64_t position, struct trace_event *out)
{
    const struct trace_event *slot = &ring->slots[position & (ring->size - 1)];
    uint32_t expected = (uint32_t)(position + 1);

    if (expected == 0 || __atomic_load_n(&slot->seq, __ATOMIC_ACQUIRE) != expected)
        return 0;
    out->time_ns = slot->time_ns;
    out->type = slot->type;
    out->cpu = slot->cpu;
    out->task = slot->task;
    out->arg0 = slot->arg0;
    out->arg1 = slot->arg1;
    __atomic_thread_fence(__ATOMIC_ACQUIRE);    /* the copy before the second look at seq */
    if (__atomic_load_n(&slot->seq, __ATOMIC_RELAXED) != expected)
        return 0;
    out->seq = expected;
    return 1;
}

size_t trace_ring_read(const struct trace_ring *ring, struct trace_event *out, size_t max, uint64_t *overwritten)
{
    uint64_t head = __atomic_load_n(&ring->head, __ATOMIC_ACQUIRE);
    uint64_t cleared = __atomic_load_n(&ring->cleared_at, __ATOMIC_ACQUIRE);
    uint64_t start = head > ring->size ? head - ring->size : 0;

    *overwritten = start > cleared ? start - cleared : 0;
    if (start < cleared)
        start = cleared;
    if (head - start > max)
        start = head - max;
    size_t count = 0;
    for (uint64_t position = start; position < head; position++)
        count += (size_t)read_slot(ring, position, &out[count]);
    return count;
}

void trace_ring_clear(struct trace_ring *ring)
{
    __atomic_store_n(&ring->cleared_at, __atomic_load_n(&ring->head, __ATOMIC_ACQUIRE), __ATOMIC_RELEASE);
}
