/* The legacy 8259 interrupt controllers: remapped away from the exception
 * vectors and masked for good. The IOAPIC delivers device interrupts. */
#include "arch/x86/interrupt_controllers.h"

#include "arch/x86/cpu.h"
#include "arch/x86/vectors.h"

#define PIC1_COMMAND 0x20
#define PIC1_DATA    0x21
#define PIC2_COMMAND 0xa0
#define PIC2_DATA    0xa1
#define ICW1_INIT_WITH_ICW4 0x11
#define ICW4_8086           0x01

void pic_disable(void)
{
    outb(PIC1_COMMAND, ICW1_INIT_WITH_ICW4);
    outb(PIC2_COMMAND, ICW1_INIT_WITH_ICW4);
    outb(PIC1_DATA, VECTOR_LEGACY_PIC_BASE);        /* spurious IRQ 7 -> 0x27 */
    outb(PIC2_DATA, VECTOR_LEGACY_PIC_BASE + 8);    /* spurious IRQ 15 -> 0x2f */
    outb(PIC1_DATA, 4);                             /* slave on IRQ 2 */
    outb(PIC2_DATA, 2);
    outb(PIC1_DATA, ICW4_8086);
    outb(PIC2_DATA, ICW4_8086);
    outb(PIC1_DATA, 0xff);
    outb(PIC2_DATA, 0xff);
}
