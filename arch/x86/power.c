/* See arch/x86/power.h. On real hardware (no debug-exit device) the write
 * does nothing and the CPU halts; ACPI power-off was left out on purpose. */
#include "arch/x86/power.h"

#include "arch/x86/cpu.h"
#include "kernel/base/printk.h"

static void __attribute__((noreturn)) halt_forever(void)
{
    irq_disable();
    for (;;)
        halt();
}

void machine_power_off(int status)
{
    printk("nohzk: power-off status=%d\n", status & 0xff);
    outb(DEBUG_EXIT_PORT, DEBUG_EXIT_POWER_OFF);
    halt_forever();
}

void machine_panic_exit(void)
{
    outb(DEBUG_EXIT_PORT, DEBUG_EXIT_PANIC);
    halt_forever();
}
