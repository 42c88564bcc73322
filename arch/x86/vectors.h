/* Interrupt vector numbers. Exceptions are 0-31; the 8259 is remapped to
 * 32-47 and masked; IOAPIC device interrupts use 48 + GSI; the local APIC
 * sources and our named IPIs sit at the top, where the APIC gives them the
 * highest priority class. */
#ifndef ARCH_X86_VECTORS_H
#define ARCH_X86_VECTORS_H

#define VECTOR_DIVIDE_ERROR        0
#define VECTOR_DEBUG               1
#define VECTOR_NMI                 2
#define VECTOR_BREAKPOINT          3
#define VECTOR_INVALID_OPCODE      6
#define VECTOR_DOUBLE_FAULT        8
#define VECTOR_GENERAL_PROTECTION 13
#define VECTOR_PAGE_FAULT         14
#define VECTOR_MACHINE_CHECK      18
#define VECTOR_EXCEPTION_COUNT    32

#define VECTOR_LEGACY_PIC_BASE    0x20   /* masked 8259: only spurious ones */
#define VECTOR_DEVICE_BASE        0x30   /* + GSI */
#define DEVICE_GSI_COUNT          24

#define VECTOR_LOCAL_TIMER        0xec
#define VECTOR_RESCHEDULE         0xf0
#define VECTOR_CALL_FUNCTION      0xf1
#define VECTOR_NOHZ_KICK          0xf2
#define VECTOR_TLB_SHOOTDOWN      0xf3
#define VECTOR_APIC_ERROR         0xfe
#define VECTOR_SPURIOUS           0xff

#define VECTOR_COUNT              256

#endif
