/* The IOAPIC (device interrupts to CPUs) and the legacy 8259 (masked). */
#ifndef ARCH_X86_INTERRUPT_CONTROLLERS_H
#define ARCH_X86_INTERRUPT_CONTROLLERS_H

#include <stdbool.h>
#include <stdint.h>

void pic_disable(void);

void ioapic_init(uint64_t phys_address, uint32_t gsi_base);
bool ioapic_present(void);
/* Deliver GSI gsi as vector VECTOR_DEVICE_BASE + gsi to the CPU apic_id. */
int ioapic_route(uint32_t gsi, uint32_t apic_id, bool level_triggered, bool active_low);
void ioapic_mask(uint32_t gsi);

#endif
