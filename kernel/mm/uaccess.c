/* Copying to and from user memory: see kernel/mm/uaccess.h. Each page of the
 * range is checked in the current process's page tables before it is
 * touched (present, user, and writable for copy_to_user), so a bad pointer
 * is an -EFAULT, never a kernel fault. A copy-on-write page to be written
 * is copied by the check (address_space_write_fault), as Linux copies it
 * in the fault the write would take; a page of a region not touched yet
 * is mapped (region_fault_in), as the fault would. A sibling thread may still
 * unmap or protect a page between the check and the copy: the copy is
 * user_copy(), whose fault stops it (EFAULT), not the kernel. */
#include "kernel/mm/uaccess.h"

#include "arch/x86/cpu.h"
#include "arch/x86/paging.h"
#include "kernel/base/panic.h"
#include "arch/x86/user_mode.h"
#include "kernel/mm/address_space.h"
#include "kernel/lib/errno.h"
#include "kernel/process/process.h"
#include "kernel/mm/region.h"
#include "kernel/lib/string.h"

static bool page_accessible(struct process *process, uint64_t page, bool for_write)
{
    if (!address_space_lookup(process->memory, page, false) && region_fault_in(process, page, for_write, false) < 0)
        return false;   /* not mapped, and no region lets it be mapped now */
    if (for_write)
        return address_space_write_fault(process->memory, page) == 0;
    return address_space_lookup(process->memory, page, false) != 0;
}

static bool range_accessible(uint64_t start, size_t length, bool for_write)
{
    struct process *process = current_process();

    if (!process || start >= USER_SPACE_END || length > USER_SPACE_END - start)
        return false;
    if (length == 0)
        return true;
    for (uint64_t page = start & ~(PAGE_SIZE - 1); page < start + length; page += PAGE_SIZE) {
        if (!page_accessible(process, page, for_write))
            return false;
    }
    return true;
}

int copy_from_user(void *dst, const void *user_src, size_t length)
{
    if (!range_accessible((uint64_t)user_src, length, false))
        return -EFAULT;
    user_access_begin();
    uint64_t left = user_copy(dst, user_src, length);
    user_access_end();
    return left ? -EFAULT : 0;
}

int copy_to_user(void *user_dst, const void *src, size_t length)
{
    if (!range_accessible((uint64_t)user_dst, length, true))
        return -EFAULT;
    user_access_begin();
    uint64_t left = user_copy(user_dst, src, length);
    user_access_end();
    return left ? -EFAULT : 0;
}

long strncpy_from_user(char *dst, const char *user_src, size_t max)
{
    for (size_t i = 0; i < max; i++) {     /* the NUL may be byte max-1 */
        if (copy_from_user(&dst[i], user_src + i, 1) < 0)
            return -EFAULT;
        if (dst[i] == '\0')
            return (long)i;
    }
    if (max)
        dst[max - 1] = '\0';
    return -ENAMETOOLONG;
}

long strnlen_user(const char *user_src, size_t max)
{
    uint64_t start = (uint64_t)user_src;
    size_t done = 0;
    while (done < max) {
        uint64_t at = start + done;
        size_t chunk = PAGE_SIZE - at % PAGE_SIZE;
        if (chunk > max - done)
            chunk = max - done;
        char bytes[256];
        if (chunk > sizeof(bytes))
            chunk = sizeof(bytes);
        if (copy_from_user(bytes, (const void *)at, chunk) < 0)
            return -EFAULT;
        size_t length = 0;
        while (length < chunk && bytes[length])
            length++;
        done += length;
        if (length < chunk)
            return (long)done;
    }
    return (long)max;
}

bool user_range_ok(const void *user_start, size_t length)
{
    uint64_t start = (uint64_t)user_start;
    return start < USER_SPACE_END && length <= USER_SPACE_END - start;
}

size_t user_accessible_prefix(const void *user_start, size_t length, bool for_write)
{
    struct process *process = current_process();
    uint64_t start = (uint64_t)user_start;
    if (!process || start >= USER_SPACE_END)
        return 0;
    if (length > USER_SPACE_END - start)
        length = USER_SPACE_END - start;
    size_t done = 0;
    while (done < length) {
        uint64_t page = (start + done) & ~(PAGE_SIZE - 1);
        if (!page_accessible(process, page, for_write))
            break;
        done = page + PAGE_SIZE - start;
    }
    return done < length ? done : length;
}

/* The word, through the kernel's direct map of its page, if the page is
 * mapped now (for writing: writable, so not copy-on-write), else NULL. A
 * walk without the address space's lock, with interrupts off: a page or a
 * page table another CPU unmaps is freed only after every CPU running the
 * space has flushed at its request (kernel/mm/tlb.c), which this one does
 * not do before interrupts come back on. Nothing here waits for another
 * CPU, so a caller may hold a spinlock that CPU is waiting for. */
static uint32_t *word_mapped(const uint32_t *user_word, bool for_write)
{
    struct process *process = current_process();
    uint64_t address = (uint64_t)user_word;
    ASSERT(!irqs_enabled());
    if (!process || !process->memory || address % sizeof(uint32_t) || address >= USER_SPACE_END)
        return 0;
    uint64_t entry = user_tables_entry(process->memory->root_phys, address);
    if (!(entry & PTE_PRESENT) || !(entry & PTE_USER) || (for_write && !(entry & PTE_WRITE)))
        return 0;
    return (uint32_t *)((char *)phys_to_virt(entry & PTE_ADDRESS) + address % PAGE_SIZE);
}

int user_read_u32_nofault(const uint32_t *user_word, uint32_t *value)
{
    uint32_t *word = word_mapped(user_word, false);
    if (!word)
        return -EFAULT;
    *value = __atomic_load_n(word, __ATOMIC_SEQ_CST);
    return 0;
}

int user_cmpxchg_u32_nofault(uint32_t *user_word, uint32_t expected, uint32_t desired, uint32_t *found)
{
    uint32_t *word = word_mapped(user_word, true);
    if (!word)
        return -EFAULT;
    __atomic_compare_exchange_n(word, &expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
    *found = expected;      /* the value seen: desired was stored if it equals the one expected */
    return 0;
}

int user_fault_in_writable(void *user_start, size_t length)
{
    return range_accessible((uint64_t)user_start, length, true) ? 0 : -EFAULT;
}
