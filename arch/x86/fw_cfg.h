/* QEMU's firmware configuration device (fw_cfg): named blobs the host put
 * on QEMU's command line (-fw_cfg name=opt/...,file=PATH), read through
 * I/O ports 0x510 (selector) and 0x511 (data), or copied by the device
 * itself (the DMA interface, port 0x514) when it offers it. QEMU's
 * docs/specs/fw_cfg.rst is the reference; docs/boot.md, section 13, says
 * what nohzk reads from it.
 *
 * Left out: writes, the legacy items below selector 0x20 other than the
 * signature, the feature bits and the file directory, and the MMIO form of
 * other architectures. */
#ifndef NOHZK_FW_CFG_H
#define NOHZK_FW_CFG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FW_CFG_NAME_SIZE 56 /* NUL included */

struct fw_cfg_file {
    uint32_t size;
    uint16_t selector;
    char name[FW_CFG_NAME_SIZE];
};

/* Whether the device answers with its "QEMU" signature (checked once). */
bool fw_cfg_present(void);

/* Whether reads go through the DMA interface (else a byte per port read). */
bool fw_cfg_has_dma(void);

/* Looks name up in the device's file directory. Returns 0 and fills *out,
 * -ENODEV without the device, -ENOENT if no file has that name. */
int fw_cfg_find(const char *name, struct fw_cfg_file *out);

/* Copies the first length bytes of the item at selector into buffer, which
 * must be physically contiguous (a static object of the kernel image, or
 * pages of page_alloc_contiguous). Returns 0, -ENODEV, -EINVAL (4 GiB or
 * more) or -EIO (the device reported a DMA error). */
int fw_cfg_read(uint16_t selector, void *buffer, size_t length);

#endif
