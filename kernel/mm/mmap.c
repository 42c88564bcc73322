/* The memory system calls: brk, mmap, munmap, mprotect, mlockall and
 * munlockall, on the current process's address space
 * (kernel/mm/address_space.c) and its regions (kernel/mm/region.c). Linux's semantics for the documented
 * subset; see docs/user-space.md and docs/memory.md for what is left out. */
#include "kernel/entry/syscall.h"

#include "arch/x86/paging.h"
#include "kernel/fs/vfs.h"
#include "kernel/lib/errno.h"
#include "kernel/lib/linux_abi.h"
#include "kernel/mm/address_space.h"
#include "kernel/mm/fault_inject.h"
#include "kernel/mm/heap.h"
#include "kernel/mm/page_alloc.h"
#include "kernel/mm/region.h"
#include "kernel/process/process.h"
#include "kernel/process/signal.h"

/* The calls that change the regions and the tables hold the address
 * space's sleeping lock around their whole work, so that two threads'
 * calls on one range do not interleave (struct address_space):
 * `space = take_turn(); return give_turn(space, call(...));` (two
 * statements: the order of a call's arguments is unspecified). */
static struct address_space *take_turn(void)
{
    struct address_space *space = current_process()->memory;
    sleep_lock_take(&space->changing);
    return space;
}

static long give_turn(struct address_space *space, long result)
{
    sleep_lock_give(&space->changing);
    return result;
}

#define PROT_WRITE 0x2
#define PROT_EXEC  0x4
#define MAP_SHARED    0x01
#define MAP_PRIVATE   0x02
#define MAP_TYPE      0x0f
#define MAP_FIXED     0x10
#define MAP_ANONYMOUS 0x20
#define MAP_FIXED_NOREPLACE 0x100000  /* MAP_FIXED, but EEXIST over a mapping */
#define MMAP_END      USER_STACK_LOWEST
#define MMAP_MIN_ADDRESS 0x10000ul  /* Linux's vm.mmap_min_addr: no hint below */
#define MMAP_LENGTH_MAX (1ul << 32)
#define TASK_SIZE     USER_MAP_END   /* Linux's: the last page is never mapped */
#define PROT_READ     0x1
#define PROT_SEM      0x8
#define PROT_GROWSDOWN 0x01000000
#define PROT_GROWSUP  0x02000000

static uint64_t page_up(uint64_t value) { return (value + PAGE_SIZE - 1) & ~(PAGE_SIZE - 1); }

/* Fresh pages over [start, end), zeroed now or (lazy) the zero page
 * until written, or none: -ENOMEM, or -EINTR if a fatal signal comes
 * first (a gigabyte takes seconds under QEMU; the process dies on the
 * way out, and SIGKILL must not wait). */
static long map_pages(struct address_space *space, uint64_t start, uint64_t end, bool lazy, uint64_t flags)
{
    for (uint64_t page = start; page < end; page += PAGE_SIZE) {
        long error = signal_fatal_pending() ? -EINTR
                     : lazy                 ? address_space_map_zero(space, page, flags)
                                            : address_space_map(space, page, flags);
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

static long mlockall_in_turn(int flags)
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

/* mlock, mlock2 and munlock over [address, + length), its pages
 * rounded out: the range must be mapped (ENOMEM, Linux's), and, unless
 * only on fault, every page of it is then made present, and a private
 * writable one the process's own, as MCL_CURRENT does for all (a
 * PROT_NONE page cannot be: ENOMEM, as Linux). Nothing pages out here,
 * so there is no lock to record, and munlock only checks. */
#define MLOCK_ONFAULT 1

static long lock_range(uint64_t address, uint64_t length, bool populate)
{
    struct process *process = current_process();
    uint64_t start = address & ~(PAGE_SIZE - 1), end = page_up(address + length);
    if (address + length < address || end < start)
        return -EINVAL;
    struct region region;
    for (uint64_t page = start; page < end; page = region.end)
        if (page >= USER_HALF_END || !region_find(&process->memory->regions, page, &region))
            return -ENOMEM;
    for (uint64_t page = start; populate && page < end; page += PAGE_SIZE) {
        if (signal_fatal_pending())
            return -EINTR;
        region_find(&process->memory->regions, page, &region);
        bool private_writable = region.prot & REGION_WRITE && !(region.kind & REGION_SHARED);
        if (!(region.prot & (REGION_READ | REGION_WRITE | REGION_EXEC)))
            return -ENOMEM;     /* PROT_NONE cannot be made present: Linux's answer */
        long error = 0;
        if (!address_space_lookup(process->memory, page, false))
            error = region_fault_in(process, page, private_writable, false);
        if (!error && private_writable)
            error = address_space_write_fault(process->memory, page);
        if (error == -ENOMEM)
            return -ENOMEM;
    }
    return 0;
}

SYSCALL_DEFINE2(mlock, uint64_t, address, uint64_t, length)
{
    struct address_space *space = take_turn();
    return give_turn(space, lock_range(address, length, true));
}

SYSCALL_DEFINE3(mlock2, uint64_t, address, uint64_t, length, int, flags)
{
    if (flags & ~MLOCK_ONFAULT)
        return -EINVAL;
    struct address_space *space = take_turn();
    return give_turn(space, lock_range(address, length, !(flags & MLOCK_ONFAULT)));
}

SYSCALL_DEFINE2(munlock, uint64_t, address, uint64_t, length)
{
    struct address_space *space = take_turn();
    return give_turn(space, lock_range(address, length, false));
}

SYSCALL_DEFINE0(munlockall)
{
    current_process()->lock_future = false;
    return 0;
}

/* The heap is brk's regions (REGION_HEAP): growth needs the range free
 * of other mappings, as Linux's brk refuses to grow into one. */
static long brk_in_turn(uint64_t address)
{
    struct process *process = current_process();
    struct region_list *regions = &process->memory->regions;
    uint64_t old_end = page_up(process->brk), new_end = page_up(address);

    if (address < process->brk_start || address > process->brk_start + (1ul << 30))
        return (long)process->brk;
    if (new_end > old_end) {
        if ((new_end - old_end) / PAGE_SIZE > page_free_count() || !regions_range_free(regions, old_end, new_end) ||
            regions_insert(regions, old_end, new_end, PROT_READ | PROT_WRITE, REGION_HEAP, 0, 0) < 0)
            return (long)process->brk;
        if (map_pages(process->memory, old_end, new_end, !process->lock_future, PTE_USER | PTE_WRITE | PTE_NX) < 0) {
            regions_forget(regions, old_end, new_end);
            return (long)process->brk;
        }
        regions_merge(regions);
    } else if (new_end < old_end) {
        struct region_spares spares;
        if (regions_remove_prepare(&spares) < 0)
            return (long)process->brk;
        regions_remove(regions, new_end, old_end, &spares);
        address_space_unmap_range(process->memory, new_end, old_end);
        regions_removed(regions, new_end, old_end);
    }
    process->brk = address;
    return (long)address;
}

static long fill_from_file(struct process *process, uint64_t address, uint64_t length, struct file *file,
                           uint64_t offset)
{
    char *buffer = kmalloc(PAGE_SIZE);
    long position = vfs_seek(file, 0, SEEK_CUR);    /* mmap leaves the file position alone */
    long result = !buffer ? -ENOMEM : position < 0 ? position : vfs_seek(file, (int64_t)offset, SEEK_SET);
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
    if (position >= 0)
        vfs_seek(file, position, SEEK_SET);
    return result < 0 ? result : 0;
}

struct region_name *region_name_of_file(struct file *file)
{
    char *path = kmalloc(PATH_MAX);
    if (!path)
        return 0;
    struct linux_stat stat;
    vfs_stat_file(file, &stat);
    if (vfs_file_path(file, path, PATH_MAX) <= 0)
        path[0] = '\0';     /* unlinked: maps shows no path */
    struct region_name *name = region_name_make(path, stat.st_dev, stat.st_ino);
    kfree(path);
    return name;
}

/* The pages of a new mapping of [address, + length): none for PROT_NONE
 * (the region faults), the zero page until written for anonymous memory
 * (docs/fork.md, "Lazy zeroing"), a copy of the file's bytes for a file;
 * shared anonymous memory gets zeroed pages of its own at once, marked
 * PTE_SHARED, which fork shares writable and never copies. */
static long populate(struct process *process, uint64_t address, uint64_t length, uint64_t prot, struct file *file,
                     uint64_t offset, bool shared)
{
    uint64_t flags = region_page_flags((uint32_t)prot);
    if (shared) {   /* its own zeroed pages now, whatever prot: a fork shares these very pages */
        long error = map_pages(process->memory, address, address + length, false,
                               PTE_USER | PTE_WRITE | PTE_NX | PTE_SHARED);
        if (!error)
            address_space_protect_range(process->memory, address, address + length, flags);
        return error;
    }
    if (!(flags & PTE_USER) && !file)
        return 0;
    long error = map_pages(process->memory, address, address + length, !file && !process->lock_future,
                           file ? PTE_USER | PTE_WRITE | PTE_NX : flags);
    if (!error && file) {
        error = fill_from_file(process, address, length, file, offset);
        if (!error)
            address_space_protect_range(process->memory, address, address + length, flags);
    }
    if (error)
        address_space_unmap_range(process->memory, address, address + length);
    return error;
}

/* Linux 6.1's rules for the open file, in its order: MAP_SHARED_VALIDATE
 * knows every flag (none beyond the legacy ones: no DAX, so no MAP_SYNC);
 * readable; for a shared mapping that may be written, opened for writing
 * too (O_APPEND is no bar: Linux refuses only an append-only inode,
 * which nohzk has not). Then what has no mmap operation in Linux: all but
 * a regular file and /dev/zero (a pipe, a socket, a directory, the
 * terminal, /proc's and /sys's files) is ENODEV; a read from the terminal
 * would otherwise hold the address space's turn until a line came. */
#define MAP_SHARED_VALIDATE 0x03
#define LEGACY_MAP_MASK (MAP_SHARED | MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS | 0x0800 /* DENYWRITE */ | \
                         0x1000 /* EXECUTABLE */ | 0x4000000 /* UNINITIALIZED */ | 0x0100 /* GROWSDOWN */ | \
                         0x2000 /* LOCKED */ | 0x4000 /* NORESERVE */ | 0x8000 /* POPULATE */ | \
                         0x10000 /* NONBLOCK */ | 0x20000 /* STACK */ | 0x40000 /* HUGETLB */)

static long file_access_error(struct file *file, uint64_t prot, uint64_t flags, bool shared)
{
    unsigned mode = file->flags & O_ACCMODE;
    if ((flags & MAP_TYPE) == MAP_SHARED_VALIDATE && flags & ~(uint64_t)LEGACY_MAP_MASK)
        return -EOPNOTSUPP;
    if (mode == O_WRONLY)
        return -EACCES;
    if (shared && prot & PROT_WRITE && mode != O_RDWR)
        return -EACCES;
    struct linux_stat stat;
    vfs_stat_file(file, &stat);
    bool mappable = (stat.st_mode & S_IFMT) == S_IFREG && !vfs_is_generated(file);
    return mappable || vfs_is_dev_zero(file) ? 0 : -ENODEV;
}

/* A MAP_SHARED file's pages, the file's own (vfs_file_page_shared), so
 * that writes through the mapping and write() meet; pages past the end
 * of the file stay unmapped (a touch there is SIGBUS, region_fault_in). */
static long map_file_shared(struct address_space *space, uint64_t address, uint64_t length, uint64_t prot,
                            struct file *file, uint64_t offset)
{
    uint64_t flags = region_page_flags((uint32_t)prot) | PTE_SHARED;
    for (uint64_t done = 0; done < length; done += PAGE_SIZE) {
        uint64_t page = 0;
        long error = signal_fatal_pending() ? -EINTR : vfs_file_page_shared(file, (offset + done) / PAGE_SIZE, &page);
        if (!error && page) {
            error = address_space_map_page(space, address + done, page, flags);
            if (error)
                page_put(page);
        }
        if (error) {
            address_space_unmap_range(space, address, address + done);
            return error == -EINTR ? -EINTR : -ENOMEM;
        }
    }
    return 0;
}

/* Where a mapping goes without MAP_FIXED: at the hint if it is free
 * there (Linux's rule), else the next gap of mmap's area, bottom-up from
 * MMAP_BASE, next fit (docs/memory.md, section 6). */
static long mmap_region(struct process *process, uint64_t address, uint64_t length, uint64_t prot, uint64_t flags,
                        struct region_name *name, uint64_t offset)
{
    struct region_list *regions = &process->memory->regions;
    uint32_t kind = (name ? REGION_FILE : 0) | (flags & MAP_SHARED ? REGION_SHARED : 0);
    uint32_t rights = (uint32_t)(prot & (PROT_READ | PROT_WRITE | PROT_EXEC));
    if (flags & MAP_FIXED_NOREPLACE && !regions_range_free(regions, address, address + length))
        return -EEXIST;
    if (flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) {
        long error = regions_insert(regions, address, address + length, rights, kind, offset, name);
        if (error)
            return error;
        address_space_unmap_range(process->memory, address, address + length);
        return (long)address;
    }
    uint64_t hint = page_up(address);
    if (hint < MMAP_MIN_ADDRESS || hint > TASK_SIZE - length)
        hint = 0;
    long start = regions_insert_anywhere(regions, hint, length, MMAP_BASE, MMAP_END, rights, kind, offset, name);
    if (start >= 0)     /* a page a sibling's fault put there during its munmap: not ours */
        address_space_unmap_range(process->memory, (uint64_t)start, (uint64_t)start + length);
    return start;
}

static long mmap_in_turn(uint64_t address, uint64_t length, uint64_t prot, uint64_t flags, int64_t fd,
                              uint64_t offset)
{
    struct process *process = current_process();

    uint64_t type = flags & MAP_TYPE;     /* shared, private, or shared-validate */
    if (length == 0 || offset % PAGE_SIZE || type == 0 || type > (MAP_SHARED | MAP_PRIVATE))
        return -EINVAL;
    if (length > MMAP_LENGTH_MAX)
        return -ENOMEM;     /* more than memory could hold: see the check below */
    length = page_up(length);
    if (flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) {
        if (address > TASK_SIZE - length)
            return -ENOMEM; /* Linux's order: the range, then its alignment */
        if (address % PAGE_SIZE)
            return -EINVAL;
    }
    /* No overcommit: an anonymous mapping is the zero page until written
     * (docs/fork.md, "Lazy zeroing"), but one larger than the pages free
     * now is refused as if its pages were taken at once; a check, not a
     * reservation, and a write that later finds no page kills the writer.
     * A file's pages are taken at once and filled. Refused before the old
     * pages of a MAP_FIXED go, as Linux leaves them when it refuses: a
     * fuzz worker lost its malloc heap to a 4 GiB one. PROT_NONE takes
     * nothing until an mprotect opens it. */
    bool anonymous = flags & MAP_ANONYMOUS, shared = flags & MAP_SHARED;
    if ((!anonymous || shared || prot & (PROT_READ | PROT_WRITE | PROT_EXEC)) &&
        length / PAGE_SIZE > page_free_count())
        return -ENOMEM;
    struct file *file = anonymous ? 0 : fd_get(process->files, (int)fd);
    if (!anonymous && !file)
        return -EBADF;
    if (file && shared && vfs_is_dev_zero(file)) {  /* shared anonymous memory, as on Linux */
        vfs_close(file);
        file = 0;
    }
    long refused = file ? file_access_error(file, prot, flags, shared) : 0;
    if (refused) {
        vfs_close(file);
        return refused;
    }
    struct region_name *name = file ? region_name_of_file(file) : 0;
    long result = file && !name ? -ENOMEM : mmap_region(process, address, length, prot, flags, name, offset);
    region_name_put(name);      /* the regions hold theirs */
    if (result >= 0) {
        long error = file && shared ? map_file_shared(process->memory, (uint64_t)result, length, prot, file, offset)
                                    : populate(process, (uint64_t)result, length, prot, file, offset, shared);
        if (error < 0) {
            regions_forget(&process->memory->regions, (uint64_t)result, (uint64_t)result + length);
            result = error;
        } else {
            regions_merge(&process->memory->regions);
        }
    }
    if (file)
        vfs_close(file);
    return result;
}

/* Linux's checks, in Linux's order; then the regions and the pages there
 * go, at a cost that follows what is mapped (docs/memory.md, section 4). */
static long munmap_in_turn(uint64_t address, uint64_t length)
{
    if (address % PAGE_SIZE || address > TASK_SIZE || length > TASK_SIZE - address)
        return -EINVAL;
    length = page_up(length);
    if (length == 0)
        return -EINVAL;
    struct address_space *space = current_process()->memory;
    struct region_spares spares;
    int error = regions_remove_prepare(&spares);
    if (error)
        return error;
    regions_remove(&space->regions, address, address + length, &spares);
    fault_inject_race_window();
    address_space_unmap_range(space, address, address + length);
    regions_removed(&space->regions, address, address + length);
    return 0;
}

/* As Linux: nothing to do is no error, whatever prot says; a range that
 * wraps, or starts outside every region, is ENOMEM; the regions before
 * the first hole change, then ENOMEM. PROT_GROWSDOWN and PROT_GROWSUP are
 * accepted and ignored (no mapping grows here). PROT_NONE pages stay
 * mapped and lose their user bit: every access faults (SEGV_ACCERR). */
static long mprotect_in_turn(uint64_t address, uint64_t length, uint64_t prot)
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
    struct address_space *space = current_process()->memory;
    uint32_t rights = (uint32_t)(prot & (PROT_READ | PROT_WRITE | PROT_EXEC));
    uint64_t changed_end;
    int error = regions_protect(&space->regions, address, end < USER_HALF_END ? end : USER_HALF_END, rights,
                                &changed_end);
    fault_inject_race_window();
    if (changed_end > address)
        address_space_protect_range(space, address, changed_end, region_page_flags(rights));
    return error;
}

/* madvise: Linux's advice values and checks (6.1's do_madvise). Only
 * MADV_DONTNEED and MADV_FREE act: a private anonymous region's pages go,
 * and its next touch sees zeros (region_fault_in); a shared region keeps
 * its contents, and a private file region keeps its copy (Linux would
 * read the file again: left out, docs/memory.md, section 6). The rest is
 * accepted and changes nothing (nohzk never pages out, has no huge pages
 * and no core dumps). MADV_REMOVE and the poisoning ones are EINVAL.
 * Unmapped parts: ENOMEM once the mapped ones are done. */
#define MADV_DONTNEED 4
#define MADV_FREE     8
#define MADV_REMOVE   9

static bool advice_known(int advice)
{
    return (advice >= 0 && advice <= 4) || advice == MADV_FREE || (advice >= 10 && advice <= 24);
}

static long madvise_in_turn(uint64_t address, uint64_t length, int advice)
{
    if (!advice_known(advice) || address % PAGE_SIZE)
        return -EINVAL;
    uint64_t end = address + page_up(length);
    if ((length && end == address) || end < address)
        return -EINVAL;
    if (end == address)
        return 0;
    struct address_space *space = current_process()->memory;
    long error = 0;
    uint64_t cursor = address;
    struct region region;
    while (cursor < end && region_next(&space->regions, cursor, &region) && region.start < end) {
        if (region.start > cursor)
            error = -ENOMEM;
        uint64_t from = region.start > cursor ? region.start : cursor;
        uint64_t to = region.end < end ? region.end : end;
        if (advice == MADV_FREE && region.kind & (REGION_SHARED | REGION_FILE))
            return -EINVAL;     /* Linux: only private anonymous memory */
        if ((advice == MADV_DONTNEED || advice == MADV_FREE) && !(region.kind & (REGION_SHARED | REGION_FILE)))
            address_space_unmap_range(space, from, to);
        cursor = region.end;
    }
    return cursor < end ? -ENOMEM : error;
}

/* msync: nothing to write back (no shared file mapping), so Linux's
 * checks alone (6.1's sys_msync): unknown flags, an unaligned address,
 * MS_ASYNC with MS_SYNC: EINVAL; a wrap, or a hole: ENOMEM (MS_SYNC alone
 * stops at the first). */
#define MS_ASYNC      1
#define MS_INVALIDATE 2
#define MS_SYNC       4

SYSCALL_DEFINE3(msync, uint64_t, address, uint64_t, length, int, flags)
{
    if (flags & ~(MS_ASYNC | MS_INVALIDATE | MS_SYNC) || address % PAGE_SIZE ||
        ((flags & MS_ASYNC) && (flags & MS_SYNC)))
        return -EINVAL;
    uint64_t end = address + page_up(length);
    if (end < address)
        return -ENOMEM;
    long unmapped = 0;
    struct region region;
    for (uint64_t cursor = address; cursor < end; cursor = region.end) {
        if (!region_next(&current_process()->memory->regions, cursor, &region) || region.start >= end)
            return -ENOMEM;
        if (region.start > cursor) {
            if (flags == MS_SYNC)
                return -ENOMEM;
            unmapped = -ENOMEM;
        }
    }
    return unmapped;
}

SYSCALL_DEFINE1(mlockall, int, flags)
{
    struct address_space *space = take_turn();
    return give_turn(space, mlockall_in_turn(flags));
}

SYSCALL_DEFINE1(brk, uint64_t, address)
{
    struct address_space *space = take_turn();
    return give_turn(space, brk_in_turn(address));
}

SYSCALL_DEFINE2(munmap, uint64_t, address, uint64_t, length)
{
    struct address_space *space = take_turn();
    return give_turn(space, munmap_in_turn(address, length));
}

SYSCALL_DEFINE6(mmap, uint64_t, address, uint64_t, length, uint64_t, prot, uint64_t, flags, int64_t, fd,
               uint64_t, offset)
{
    struct address_space *space = take_turn();
    return give_turn(space, mmap_in_turn(address, length, prot, flags, fd, offset));
}

SYSCALL_DEFINE3(mprotect, uint64_t, address, uint64_t, length, uint64_t, prot)
{
    struct address_space *space = take_turn();
    return give_turn(space, mprotect_in_turn(address, length, prot));
}

SYSCALL_DEFINE3(madvise, uint64_t, address, uint64_t, length, int, advice)
{
    struct address_space *space = take_turn();
    return give_turn(space, madvise_in_turn(address, length, advice));
}
