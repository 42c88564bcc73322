/* The local APIC (xAPIC, memory-mapped): this CPU's interrupt controller and
 * timer, and the way to interrupt other CPUs. */
#ifndef ARCH_X86_LAPIC_H
#define ARCH_X86_LAPIC_H

#include <stdbool.h>
#include <stdint.h>

void lapic_init_boot_cpu(uint64_t phys_address);
void lapic_init_this_cpu(void);
uint32_t lapic_id(void);
void lapic_eoi(void);
uint32_t lapic_read_error(void);
void lapic_send_ipi(uint32_t apic_id, uint8_t vector);
void lapic_send_init(uint32_t apic_id);
void lapic_send_startup(uint32_t apic_id, uint8_t page_number);
void lapic_send_nmi(uint32_t apic_id);  /* a backtrace (kernel/base/lockcheck.c), a stop (panic) */
bool lapic_is_ready(void);

/* The LAPIC timer, one-shot. */
void lapic_timer_calibrate(void);
void lapic_timer_arm_ns(uint64_t delta_ns);
void lapic_timer_disarm(void);
uint64_t lapic_timer_frequency(void);

#endif
