/* The memory system calls: brk, mmap, munmap, mprotect, mlockall and
 * munlockall, on the current process's address space
 * (kernel/mm/address_space.c). Linux's semantics for the documented
 * subset; see docs/user-space.md and docs/memory.md for what is left out. */
#include "kernel/entry/syscall.h"

#include "arch/x86/paging.h"
#include "kernel/fs/vfs.h"
#include "kernel/lib/errno.h"
#include "kernel/mm/address_space.h"
#include "kernel/mm/heap.h"
#include "kernel/mm/page_alloc.h"
#include "kernel/process/process.h"
#include "kernel/process/signal.h"

#define PROT_WRITE 0x2
#define PROT_EXEC  0x4
#define MAP_SHARED    0x01
#define MAP_PRIVATE   0x02
#define MAP_FIXED     0x10
#define MAP_ANONYMOUS 0x20
#define MMAP_END      0x7ff000000000ul
#define MMAP_LENGTH_MAX (1ul << 32)
#define TASK_SIZE     USER_MAP_END   /* Linux's: the last page is never mapped */
#define PROT_READ     0x1
#define PROT_SEM      0x8
#define PROT_GROWSDOWN 0x01000000
#define PROT_GROWSUP  0x02000000

static uint64_t page_up(uint64_t value) { return (value + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1); }

static uint64_t protection_flags(uint64_t prot)
{
    return (prot & PROT_WRITE ? PTE_WRITE : 0) | (prot & PROT_EXEC ? 0 : PTE_NX);
}

/* Fresh pages over [start, end), zeroed now or (lazy) the zero page
 * until written, or none: -ENOMEM, or -EINTR if a fatal signal comes
 * first (a gigabyte takes seconds under QEMU; the process dies on the
 * way out, and SIGKILL must not wait). */
static long map_pages(struct address_space *space, uint64_t start, uint64_t end, bool lazy)
{
    for (uint64_t page = start; page < end; page += PAGE_SIZE) {
        long error = signal_fatal_pending() ? -EINTR
                     : lazy                 ? address_space_map_zero(space, page, PTE_WRITE | PTE_NX)
                                            : address_space_map(space, page, PTE_WRITE | PTE_NX);
        if (error < 0) {
            address_space_unmap_range(space, start, page);
            return error == -EINTR ? -EINTR : -ENOMEM;
        }
    }
    return 0;
}

/* Growth maps the zero page (docs/fork.md, "Lazy zeroing"), refused
 * as mmap refuses when it is more than the pages free now: no overcommit
 * promise, a check, not a reservation. */
/* mlockall: nohzk never pages out, so every page is locked already; what
 * a program asks for with it is that no page fault is left to come (a
 * real-time or nohz task about to run alone, docs/fork.md). MCL_CURRENT
 * copies every copy-on-write page now, MCL_FUTURE maps later anonymous
 * memory and brk growth populated, MCL_ONFAULT leaves both lazy; Linux's
 * flag rules. Out of memory midway: -ENOMEM, the pages done so far kept. */
#define MCL_CURRENT 1
#define MCL_FUTURE  2
#define MCL_ONFAULT 4

SYSCALL_DEFINE1(mlockall, int, flags)
{
    struct process *process = current_process();
    if (!flags || (flags & ~(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT)) ||
        flags == MCL_ONFAULT)
        return -EINVAL;
    if (flags & MCL_FUTURE)
        process->lock_future = !(flags & MCL_ONFAULT);
    if (!(flags & MCL_CURRENT) || (flags & MCL_ONFAULT))
        return 0;
    for (uint64_t page = address_space_next_cow(process->memory, 0); page != UINT64_MAX;
         page = address_space_next_cow(process->memory, page + PAGE_SIZE)) {
        if (signal_fatal_pending())
            return -EINTR;
        if (address_space_write_fault(process->memory, page) < 0)
            return -ENOMEM;
    }
    return 0;
}

SYSCALL_DEFINE0(munlockall)
{
    current_process()->lock_future = false;
    return 0;
}

SYSCALL_DEFINE1(brk, uint64_t, address)
{
    struct process *process = current_process();
    uint64_t old_end = page_up(process->brk), new_end = page_up(address);

    if (address < process->brk_start || address > process->brk_start + (1ul << 30))
        return (long)process->brk;
    if (new_end > old_end && (new_end - old_end) / PAGE_SIZE > page_free_count())
        return (long)process->brk;
    if (map_pages(process->memory, old_end, new_end, !process->lock_future) < 0)
        return (long)process->brk;
    if (new_end < old_end)
        address_space_unmap_range(process->memory, new_end, old_end);
    process->brk = address;
    return (long)address;
}

static long fill_from_file(struct process *process, uint64_t address, uint64_t length, int fd, uint64_t offset)
{
    struct file *file = fd_get(process->files, fd);
    if (!file)
        return -EBADF;
    char *buffer = kmalloc(PAGE_SIZE);
    long result = buffer ? vfs_seek(file, (int64_t)offset, SEEK_SET) : -ENOMEM;
    for (uint64_t done = 0; result >= 0 && done < length;) {
        if (done && signal_fatal_pending()) {
            result = -EINTR;
            break;
        }
        long got = vfs_read(file, buffer, length - done < PAGE_SIZE ? length - done : PAGE_SIZE);
        if (got <= 0) {
            result = got;
            break;
        }
        copy_into_space(process->memory, address + done, buffer, (size_t)got);
        done += (uint64_t)got;
    }
    kfree(buffer);
    vfs_close(file);
    return result < 0 ? result : 0;
}

SYSCALL_DEFINE6(mmap, uint64_t, address, uint64_t, length, uint64_t, prot, uint64_t, flags, int64_t, fd,
               uint64_t, offset)
{
    struct process *process = current_process();

    if (length == 0 || offset % PAGE_SIZE || !(flags & (MAP_PRIVATE | MAP_SHARED)))
        return -EINVAL;
    if (length > MMAP_LENGTH_MAX)
        return -ENOMEM;     /* more than memory could hold: see the check below */
    if (flags & MAP_SHARED)
        return -ENOSYS;     /* shared mappings were left out: fork copies every page */
    length = page_up(length);
    if (flags & MAP_FIXED) {
        if (address > TASK_SIZE - length)
            return -ENOMEM; /* Linux's order: the range, then its alignment */
        if (address % PAGE_SIZE)
            return -EINVAL;
        /* Refused before the old pages go, as Linux leaves them when it
         * refuses: a fuzz worker lost its malloc heap to a 4 GiB one. */
        if (length / PAGE_SIZE > page_free_count())
            return -ENOMEM;
        address_space_unmap_range(process->memory, address, address + length);
    } else {
        if (process->mmap_next + length > MMAP_END || length / PAGE_SIZE > page_free_count())
            return -ENOMEM;
        address = process->mmap_next;
        process->mmap_next += length + PAGE_SIZE;   /* a hole between mappings */
    }
    /* No overcommit: an anonymous mapping is the zero page until written
     * (docs/fork.md, "Lazy zeroing"), but one larger than the pages free
     * now is refused as if its pages were taken at once; a check, not a
     * reservation, and a write that later finds no page kills the writer.
     * A file's pages are taken at once and filled. (Checked above too,
     * before the address space is used up.) */
    if (length / PAGE_SIZE > page_free_count())
        return -ENOMEM;
    long error = map_pages(process->memory, address, address + length,
                           (flags & MAP_ANONYMOUS) && !current_process()->lock_future);
    if (error < 0)
        return error;
    if (!(flags & MAP_ANONYMOUS)) {
        error = fill_from_file(process, address, length, (int)fd, offset);
        if (error < 0) {
            address_space_unmap_range(process->memory, address, address + length);
            return error;
        }
    }
    address_space_protect_range(process->memory, address, address + length, protection_flags(prot));
    return (long)address;
}

/* Linux's checks, in Linux's order; then the pages there go, at a cost
 * that follows what is mapped (docs/memory.md, section 4). */
SYSCALL_DEFINE2(munmap, uint64_t, address, uint64_t, length)
{
    if (address % PAGE_SIZE || address > TASK_SIZE || length > TASK_SIZE - address)
        return -EINVAL;
    length = page_up(length);
    if (length == 0)
        return -EINVAL;
    address_space_unmap_range(current_process()->memory, address, address + length);
    return 0;
}

/* As Linux: nothing to do is no error, whatever prot says; a range that
 * wraps, or starts at a page not mapped, is ENOMEM; the pages before the
 * first hole change. PROT_GROWSDOWN and PROT_GROWSUP are accepted and
 * ignored (no mapping grows here), and PROT_NONE pages stay readable. */
SYSCALL_DEFINE3(mprotect, uint64_t, address, uint64_t, length, uint64_t, prot)
{
    uint64_t grows = prot & (PROT_GROWSDOWN | PROT_GROWSUP);
    prot &= ~grows;
    if (grows == (PROT_GROWSDOWN | PROT_GROWSUP) || address % PAGE_SIZE)
        return -EINVAL;
    if (length == 0)
        return 0;
    uint64_t end = address + page_up(length);
    if (end <= address)
        return -ENOMEM;
    if (prot & ~(uint64_t)(PROT_READ | PROT_WRITE | PROT_EXEC | PROT_SEM))
        return -EINVAL;
    if (address >= USER_HALF_END)
        return -ENOMEM;
    uint64_t mapped_end = end < USER_HALF_END ? end : USER_HALF_END;
    int error = address_space_protect_range(current_process()->memory, address, mapped_end, protection_flags(prot));
    return error ? error : end > mapped_end ? -ENOMEM : 0;
}
