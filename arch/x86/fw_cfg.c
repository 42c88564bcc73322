/* See arch/x86/fw_cfg.h. The directory (selector 0x19) is a big-endian
 * count, then 64-byte entries: be32 size, be16 selector, u16 reserved,
 * char name[56]. It is read entry by entry through the data port, a few
 * kilobytes at most; items are read by DMA when the device offers it,
 * because a port read per byte of a megabyte archive is slow under TCG. */
#include "arch/x86/fw_cfg.h"

#include "arch/x86/cpu.h"
#include "arch/x86/paging.h"
#include "kernel/lib/errno.h"
#include "kernel/lib/string.h"

#define FW_CFG_PORT_SELECTOR 0x510
#define FW_CFG_PORT_DATA     0x511
#define FW_CFG_PORT_DMA      0x514 /* be64 address: high half at 0x514, low at 0x518 */

#define FW_CFG_SIGNATURE 0x00
#define FW_CFG_ID        0x01
#define FW_CFG_FILE_DIR  0x19

#define FW_CFG_ID_DMA (1u << 1)

#define FW_CFG_DMA_ERROR  (1u << 0)
#define FW_CFG_DMA_READ   (1u << 1)
#define FW_CFG_DMA_SELECT (1u << 3)

/* What the device reads at the address written to the DMA port; all
 * fields big-endian. */
struct fw_cfg_dma_access {
    uint32_t control;
    uint32_t length;
    uint64_t address;
} __attribute__((packed, aligned(16)));

enum { UNKNOWN, ABSENT, PORTS_ONLY, WITH_DMA };
static int device = UNKNOWN;
static struct fw_cfg_dma_access dma_access;

static void select_item(uint16_t selector)
{
    outw(FW_CFG_PORT_SELECTOR, selector);
}

static void read_data(void *buffer, size_t length)
{
    insb(FW_CFG_PORT_DATA, buffer, length);
}

static uint32_t be32(const uint8_t *bytes)
{
    return (uint32_t)bytes[0] << 24 | (uint32_t)bytes[1] << 16 | (uint32_t)bytes[2] << 8 | bytes[3];
}

static void probe(void)
{
    char signature[4];
    uint8_t id[4];

    select_item(FW_CFG_SIGNATURE);
    read_data(signature, sizeof(signature));
    if (memcmp(signature, "QEMU", 4) != 0) {
        device = ABSENT;
        return;
    }
    select_item(FW_CFG_ID);
    read_data(id, sizeof(id)); /* little-endian, unlike the rest */
    device = id[0] & FW_CFG_ID_DMA ? WITH_DMA : PORTS_ONLY;
}

bool fw_cfg_present(void)
{
    if (device == UNKNOWN)
        probe();
    return device != ABSENT;
}

bool fw_cfg_has_dma(void)
{
    return fw_cfg_present() && device == WITH_DMA;
}

int fw_cfg_find(const char *name, struct fw_cfg_file *out)
{
    uint8_t count[4], entry[8 + FW_CFG_NAME_SIZE];

    if (!fw_cfg_present())
        return -ENODEV;
    select_item(FW_CFG_FILE_DIR);
    read_data(count, sizeof(count));
    for (uint32_t i = be32(count); i > 0; i--) {
        read_data(entry, sizeof(entry));
        const char *entry_name = (const char *)entry + 8;
        if (strnlen(entry_name, FW_CFG_NAME_SIZE) == FW_CFG_NAME_SIZE || strcmp(entry_name, name) != 0)
            continue;
        out->size = be32(entry);
        out->selector = (uint16_t)(entry[4] << 8 | entry[5]);
        memcpy(out->name, entry_name, FW_CFG_NAME_SIZE);
        return 0;
    }
    return -ENOENT;
}

/* One DMA transfer: select, then read length bytes to phys. The device
 * copies before the port write returns (QEMU's is synchronous); the loop
 * waits anyway, as the specification allows a transfer in progress. */
static int read_by_dma(uint16_t selector, uint64_t phys, uint32_t length)
{
    uint64_t access_phys = virt_to_phys(&dma_access);

    dma_access.control = __builtin_bswap32((uint32_t)selector << 16 | FW_CFG_DMA_SELECT | FW_CFG_DMA_READ);
    dma_access.length = __builtin_bswap32(length);
    dma_access.address = __builtin_bswap64(phys);
    __asm__ volatile("" ::: "memory"); /* the fields are in memory before the device looks */
    outl(FW_CFG_PORT_DMA, __builtin_bswap32((uint32_t)(access_phys >> 32)));
    outl(FW_CFG_PORT_DMA + 4, __builtin_bswap32((uint32_t)access_phys));
    for (;;) {
        uint32_t control = __builtin_bswap32(*(volatile uint32_t *)&dma_access.control);
        if (control & FW_CFG_DMA_ERROR)
            return -EIO;
        if (control == 0)
            return 0;
        cpu_relax();
    }
}

int fw_cfg_read(uint16_t selector, void *buffer, size_t length)
{
    if (!fw_cfg_present())
        return -ENODEV;
    if (length > UINT32_MAX)
        return -EINVAL; /* no item is that large: sizes are 32-bit */
    if (device == WITH_DMA && length > 0)
        return read_by_dma(selector, virt_to_phys(buffer), (uint32_t)length);
    select_item(selector);
    read_data(buffer, length);
    return 0;
}
