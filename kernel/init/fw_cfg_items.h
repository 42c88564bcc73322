/* The run's items from QEMU's fw_cfg (opt/nohzk/cmdline, opt/nohzk/initrd,
 * opt/nohzk/extra-initrd, opt/nohzk/command) into struct boot_info: see
 * kernel/init/fw_cfg_items.c. */
#ifndef NOHZK_FW_CFG_ITEMS_H
#define NOHZK_FW_CFG_ITEMS_H

#include <stdbool.h>

#include "kernel/init/multiboot2.h"

/* Appends opt/nohzk/cmdline to info's command line, before the line is
 * parsed; false if there is no such item. Panics if it does not fit. */
bool fw_cfg_items_cmdline(struct boot_info *info);

/* Once the line is parsed: panics if fw_cfg=required and the command line
 * item was missing (QEMU started without the run's items). */
void fw_cfg_items_check_required(bool required);

/* Loads opt/nohzk/initrd, opt/nohzk/extra-initrd and opt/nohzk/command
 * into fresh pages as the modules "initrd", "initrd" and "command", after
 * the boot loader's; needs the page allocator. Panics if one cannot be
 * had. */
void fw_cfg_items_modules(struct boot_info *info);

#endif
