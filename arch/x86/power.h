/* Ending a run. Under QEMU the isa-debug-exit device (port 0xf4) ends the
 * emulator; tools/run/boot reads the status from the console line printed
 * before it (QEMU's own exit code holds only 7 bits). */
#ifndef ARCH_X86_POWER_H
#define ARCH_X86_POWER_H

#define DEBUG_EXIT_PORT        0xf4
#define DEBUG_EXIT_POWER_OFF   0x10     /* QEMU exits 33 */
#define DEBUG_EXIT_PANIC       0x11     /* QEMU exits 35 */

void machine_power_off(int status) __attribute__((noreturn));
void machine_panic_exit(void) __attribute__((noreturn));

#endif
