/* The end of a run, asked from user space (kernel/process/poweroff.h).
 *
 * reboot(2) ends it at once. busybox's poweroff, halt and reboot send
 * SIGUSR2, SIGUSR1 and SIGTERM to pid 1 instead, as they would ask busybox
 * init. Our pid 1 is a shell or a program, which drops them (pid 1 gets
 * only signals it handles): so the kernel does what init would, and ends
 * the run. */
#include "kernel/entry/syscall.h"
#include "kernel/process/poweroff.h"

#include "arch/x86/power.h"
#include "kernel/lib/errno.h"
#include "kernel/process/process.h"

#define REBOOT_MAGIC1 0xfee1deadu
#define REBOOT_MAGIC2  0x28121969u
#define REBOOT_MAGIC2A 0x05121996u
#define REBOOT_MAGIC2B 0x16041998u
#define REBOOT_MAGIC2C 0x20112000u
#define REBOOT_CMD_RESTART 0x01234567u
#define REBOOT_CMD_HALT 0xcdef0123u
#define REBOOT_CMD_POWER_OFF 0x4321fedcu

SYSCALL_DEFINE3(reboot, uint64_t, magic, uint64_t, magic2, uint64_t, command)
{
    uint32_t second = (uint32_t)magic2;
    if ((uint32_t)magic != REBOOT_MAGIC1 || (second != REBOOT_MAGIC2 && second != REBOOT_MAGIC2A &&
                                             second != REBOOT_MAGIC2B && second != REBOOT_MAGIC2C))
        return -EINVAL;
    if (command != REBOOT_CMD_POWER_OFF && command != REBOOT_CMD_HALT && command != REBOOT_CMD_RESTART)
        return -EINVAL;
    machine_power_off(0);
}

void poweroff_if_init_asked(int64_t pid, int64_t signal)
{
    if (pid != 1 || (signal != SIGUSR1 && signal != SIGUSR2 && signal != SIGTERM))
        return;
    spin_lock(&process_tree_lock);
    struct process *init = process_find_locked(1);
    bool dropped = !init || init->signals.actions[signal].handler == SIG_DFL;
    spin_unlock(&process_tree_lock);
    if (dropped)
        machine_power_off(0);
}
