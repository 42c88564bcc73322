/* kernel/base's hooks into the hardware: the local APIC sends the NMIs and
 * says which CPU this is, the page tables say what a backtrace may read,
 * the debug-exit device ends the run after a panic. */
#include "arch/x86/machine.h"

#include "arch/x86/lapic.h"
#include "arch/x86/paging.h"
#include "arch/x86/power.h"
#include "kernel/base/machine.h"

static const struct machine_hooks x86_machine = {
    .send_nmi = lapic_send_nmi,
    .apic_id = lapic_id,
    .kernel_mapped = paging_is_kernel_mapped,
    .panic_exit = machine_panic_exit,
};

void machine_hooks_init(void)
{
    machine_hooks_register(&x86_machine);
}
