/* The items a run passes through QEMU's fw_cfg device instead of the ISO
 * (tools/run/boot; docs/boot.md, section 13), put into struct boot_info so
 * that the rest of the kernel sees one command line and a list of
 * modules, whichever way they came:
 *
 *   opt/nohzk/cmdline        appended to the boot loader's command line
 *   opt/nohzk/initrd         an "initrd" module (build/initrd.cpio)
 *   opt/nohzk/extra-initrd   another, unpacked after it (--debian, --add)
 *   opt/nohzk/command        the "command" module, run with sh -c
 *
 * A boot that cannot have what it was given panics with the item's name
 * and size rather than run without it: a test run on other inputs than
 * its own would report a result that means nothing. */
#include "kernel/init/fw_cfg_items.h"

#include "arch/x86/fw_cfg.h"
#include "arch/x86/paging.h"
#include "kernel/base/panic.h"
#include "kernel/base/printk.h"
#include "kernel/lib/errno.h"
#include "kernel/lib/string.h"
#include "kernel/mm/page_alloc.h"

#define ITEM_CMDLINE "opt/nohzk/cmdline"

static bool found_cmdline;

bool fw_cfg_items_cmdline(struct boot_info *info)
{
    static char text[MB2_CMDLINE_SIZE];
    struct fw_cfg_file file;

    if (fw_cfg_find(ITEM_CMDLINE, &file) < 0)
        return false;
    int error = file.size < sizeof(text) ? fw_cfg_read(file.selector, text, file.size) : -E2BIG;
    if (!error)
        error = mb2_append_cmdline(info, text, file.size);
    if (error == -E2BIG)
        panic("fw_cfg: %s is %u bytes: with the boot loader's %zu, more than the %zu the command line holds",
              ITEM_CMDLINE, file.size, strlen(info->cmdline), sizeof(text) - 1);
    if (error)
        panic("fw_cfg: %s: cannot take it (error %d%s)", ITEM_CMDLINE, error,
              error == -EINVAL ? ": a NUL byte in it" : "");
    found_cmdline = true;
    return true;
}

void fw_cfg_items_check_required(bool required)
{
    if (required && !found_cmdline)
        panic("fw_cfg: no item %s, which fw_cfg=required asks for%s: start QEMU with "
              "-fw_cfg name=%s,file=PATH (tools/run/boot does)",
              ITEM_CMDLINE, fw_cfg_present() ? "" : " (no fw_cfg device)", ITEM_CMDLINE);
}

/* One item into fresh contiguous pages, as a module named module_name;
 * false if there is no such item. */
static bool load_module(const char *item, const char *module_name, struct boot_info *info)
{
    struct fw_cfg_file file;

    if (fw_cfg_find(item, &file) < 0)
        return false;
    size_t pages = (file.size + PAGE_SIZE - 1) / PAGE_SIZE;
    uint64_t phys = page_alloc_contiguous(pages ? pages : 1);
    if (!phys)
        panic("fw_cfg: %s is %u bytes: no %zu free contiguous pages for it (more memory: --mem)", item,
              file.size, pages);
    if (phys + file.size > UINT32_MAX)
        panic("fw_cfg: %s: its pages at %#lx lie above 4 GiB, where a module cannot be", item, phys);
    int error = fw_cfg_read(file.selector, phys_to_virt(phys), file.size);
    if (!error)
        error = mb2_add_module(info, (uint32_t)phys, (uint32_t)(phys + file.size), module_name);
    if (error)
        panic("fw_cfg: %s (%u bytes): cannot take it (error %d%s)", item, file.size, error,
              error == -ENOSPC ? ": too many modules" : "");
    printk("fw_cfg: %s: %u bytes\n", item, file.size);
    return true;
}

void fw_cfg_items_modules(struct boot_info *info)
{
    load_module("opt/nohzk/initrd", "initrd", info);
    load_module("opt/nohzk/extra-initrd", "initrd", info);
    load_module("opt/nohzk/command", "command", info);
}
