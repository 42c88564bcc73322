/* The console terminal: COM1 seen as a Linux tty. Bytes the UART receives
 * go through a small line discipline (Linux's n_tty in miniature: editing,
 * echo, canonical lines or raw bytes) and wait in a buffer for read();
 * termios and the window size are set by ioctl, as on Linux.
 *
 * Device nodes: /dev/console, /dev/tty and /dev/ttyS0 are this terminal;
 * /dev/null, /dev/zero, /dev/random and /dev/urandom are the memory
 * devices (kernel/fs/devices.c). */
#ifndef KERNEL_CONSOLE_H
#define KERNEL_CONSOLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/lib/linux_abi.h"

/* termios flag bits and c_cc indices, from Linux's asm-generic/termbits.h
 * (octal, as there). */
#define IGNBRK 0000001
#define BRKINT 0000002
#define ISTRIP 0000040
#define INLCR  0000100
#define IGNCR  0000200
#define ICRNL  0000400
#define IXON   0002000

#define OPOST 0000001
#define ONLCR 0000004

#define B38400 0000017
#define CS8    0000060
#define CREAD  0000200
#define HUPCL  0002000

#define ISIG    0000001
#define ICANON  0000002
#define ECHO    0000010
#define ECHOE   0000020
#define ECHOK   0000040
#define ECHONL  0000100
#define NOFLSH  0000200
#define ECHOCTL 0001000
#define ECHOKE  0004000
#define IEXTEN  0100000

#define VINTR    0
#define VQUIT    1
#define VERASE   2
#define VKILL    3
#define VEOF     4
#define VTIME    5
#define VMIN     6
#define VSWTC    7
#define VSTART   8
#define VSTOP    9
#define VSUSP    10
#define VEOL     11
#define VREPRINT 12
#define VDISCARD 13
#define VWERASE  14
#define VLNEXT   15
#define VEOL2    16

/* Called by kernel_main after vfs_init(), with ISA IRQ 4's GSI and
 * polarity from the MADT (acpi_irq_to_gsi). Creates the device nodes and
 * routes the receive interrupt to CPU 0; without an IOAPIC, reads poll. */
/* Sets up COM1 and gives printk its writer: the first thing the boot does. */
void console_early_init(void);
void console_init(uint32_t gsi, bool level_triggered, bool active_low);
void devices_init(void); /* /dev/null, zero, random, urandom; console_init calls it */

/* The state the TCGETS/TCSETS ioctls read and write, for kernel callers. */
void console_get_termios(struct linux_termios *out);
void console_set_termios(const struct linux_termios *termios);

/* write(2) of a process without a descriptor table (the in-kernel tests'
 * flat programs): fds 1 and 2 go to the console. */
long sys_write_console(uint64_t fd, const char *user_buffer, uint64_t count);

/* Feed bytes to the line discipline as if the UART had received them. */
void console_test_inject(const char *bytes, size_t count);

#endif
