/* How a run ends from user space (kernel/process/poweroff.c): busybox's
 * poweroff, halt and reboot. Under QEMU there is no difference worth
 * keeping between them: all three power off with status 0, which
 * tools/run/boot reports. */
#ifndef KERNEL_POWEROFF_H
#define KERNEL_POWEROFF_H

#include <stdint.h>

/* reboot(2): -EINVAL unless the magic numbers and the command are
 * Linux's power-off, halt or restart; else it does not return. */
/* kill(pid, signal) before it is sent: if it is busybox asking init to
 * power off, halt or reboot, and our pid 1 would drop it, end the run. */
void poweroff_if_init_asked(int64_t pid, int64_t signal);

#endif
