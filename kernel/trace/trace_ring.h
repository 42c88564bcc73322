/* A ring of trace events with one writer and any number of readers
 * (kernel/trace/trace_ring.c). Pure logic, no locks: the host unit tests run it. */
#ifndef KERNEL_TRACE_RING_H
#define KERNEL_TRACE_RING_H

#include <stddef.h>
#include <stdint.h>

#include "kernel/trace/trace.h"

struct trace_ring {
    struct trace_event *slots;
    uint32_t size;              /* a power of two */
    uint64_t head;              /* events ever written: the next one goes to slots[head % size] */
    uint64_t cleared_at;        /* readers skip the events before this position */
};

/* Round a requested size down to a power of two (16 .. 1 Mi events). */
uint32_t trace_ring_round_size(uint64_t requested);

/* The writer: the ring's own CPU, with interrupts off. */
void trace_ring_write(struct trace_ring *ring, const struct trace_event *event);

/* Copy the last events (at most max, oldest first) that are whole: an
 * event overwritten or half-written while being copied is left out.
 * *overwritten gets how many were lost to wrapping since the last clear. */
size_t trace_ring_read(const struct trace_ring *ring, struct trace_event *out, size_t max, uint64_t *overwritten);

/* Forget what is in the ring now (any CPU may call it). */
void trace_ring_clear(struct trace_ring *ring);

#endif
