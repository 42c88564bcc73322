/* When the kernel finds itself broken: panic() prints "PANIC:" with the CPU,
 * the registers (if it came from a trap) and a backtrace with symbol names,
 * stops every other CPU with an NMI, and ends the run with the panic status
 * (tools/run/boot exits 253). ASSERT checks an invariant and panics if it fails. */
#ifndef KERNEL_PANIC_H
#define KERNEL_PANIC_H

#include <stdbool.h>
#include <stdint.h>

struct trap_frame;

void panic(const char *format, ...) __attribute__((noreturn, format(printf, 1, 2)));
void panic_from_trap(struct trap_frame *frame, const char *format, ...)
    __attribute__((noreturn, format(printf, 2, 3)));
bool panic_in_progress(void);
/* Called by the NMI handler on the CPUs that panic() stops. */
void panic_halt_this_cpu(void) __attribute__((noreturn));
/* Without a lock, as panic() prints; print_backtrace_here() starts at its caller. */
void print_backtrace(uint64_t rip, uint64_t rbp);
void print_backtrace_here(void);

#define ASSERT(condition)                                                        \
    do {                                                                         \
        if (__builtin_expect(!(condition), 0))                                   \
            panic("assertion failed: %s (%s:%d)", #condition, __FILE__, __LINE__); \
    } while (0)

#endif
