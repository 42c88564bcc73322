/* execve: load a static ELF executable into a fresh address space.
 *
 * The file is read whole into kernel memory, checked by elf_parse(), and
 * each PT_LOAD segment is copied into newly mapped pages (no demand paging:
 * a program's pages are all mapped from the start; the stack's unused
 * pages are the zero page until written, docs/fork.md section 5). The
 * stack gets the System V initial image (user_stack_build). Only when all of that worked does the
 * process switch to the new address space and drop the old one: a failed
 * execve returns an error to a process that is still intact. */
#include "arch/x86/cpu.h"
#include "arch/x86/paging.h"
#include "kernel/mm/address_space.h"
#include "kernel/process/elf.h"
#include "kernel/lib/errno.h"
#include "kernel/lib/format.h"
#include "kernel/mm/heap.h"
#include "kernel/mm/page_alloc.h"
#include "kernel/process/process.h"
#include "kernel/lib/string.h"
#include "kernel/trace/trace.h"
#include "kernel/process/user_stack.h"
#include "kernel/fs/vfs.h"
#include "sched/task.h"

#define USER_STACK_TOP      0x7ffffffff000ul
#define USER_STACK_PAGES    64                  /* 256 KiB */
#define STACK_IMAGE_MAX     (64 * 1024)         /* argv + envp + auxv */
#define MMAP_BASE           0x7f0000000000ul
#define EXECUTABLE_MAX      (32ul << 20)

static long read_whole_file(const char *path, void **image_out, size_t *size_out)
{
    long error = 0;
    struct file *file = vfs_open(path, O_RDONLY, 0, &error);
    if (!file)
        return error;
    if (!vfs_is_executable(file)) {
        vfs_close(file);
        return -EACCES;
    }
    long size = vfs_file_size(file);
    if (size <= 0 || (size_t)size > EXECUTABLE_MAX) {
        vfs_close(file);
        return size < 0 ? size : -ENOEXEC;
    }
    char *image = kmalloc((size_t)size);
    if (!image) {
        vfs_close(file);
        return -ENOMEM;
    }
    for (long done = 0; done < size;) {
        long got = vfs_read(file, image + done, (size_t)(size - done));
        if (got <= 0) {
            kfree(image);
            vfs_close(file);
            return got < 0 ? got : -EIO;
        }
        done += got;
    }
    vfs_close(file);
    *image_out = image;
    *size_out = (size_t)size;
    return 0;
}

/* Pages that size bytes at address touch. */
static unsigned long pages_spanned(uint64_t address, size_t size)
{
    if (!size)
        return 0;
    return ((address + size - 1) / PAGE_SIZE) - address / PAGE_SIZE + 1;
}

static long map_segments(struct address_space *space, const struct elf_info *elf, const char *image,
                         uint64_t *highest)
{
    for (unsigned i = 0; i < elf->segment_count; i++) {
        const struct elf_segment *segment = &elf->segments[i];
        uint64_t flags = (segment->flags & PF_W ? PTE_WRITE : 0) | (segment->flags & PF_X ? 0 : PTE_NX);
        for (uint64_t page = segment->start; page < segment->end; page += PAGE_SIZE) {
            int error = address_space_map(space, page, flags);
            if (error)
                return error;
        }
        copy_into_space(space, segment->vaddr, image + segment->file_offset, segment->file_size);
        page_event_add(EXEC_PAGES_COPIED, pages_spanned(segment->vaddr, segment->file_size));
        if (segment->end > *highest)
            *highest = segment->end;
    }
    return 0;
}

static void random_bytes(uint8_t bytes[16])
{
    uint64_t state = rdtsc() ^ 0x9e3779b97f4a7c15ul;
    for (int i = 0; i < 16; i++) {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        bytes[i] = (uint8_t)state;
    }
}

/* The stack's pages: those the initial image fills (from filled up) are
 * zeroed and mapped now, for copy_into_space(); the rest map the zero
 * page until the program writes them (docs/fork.md, "Lazy zeroing"). */
static int map_stack(struct address_space *space, uint64_t filled)
{
    for (uint64_t page = USER_STACK_TOP - USER_STACK_PAGES * PAGE_SIZE; page < USER_STACK_TOP; page += PAGE_SIZE) {
        int error = page < filled ? address_space_map_zero(space, page, PTE_WRITE | PTE_NX)
                                  : address_space_map(space, page, PTE_WRITE | PTE_NX);
        if (error)
            return error;
    }
    return 0;
}

static long build_stack(struct address_space *space, const struct elf_info *elf, const char *const *argv,
                        const char *const *envp, uint64_t *stack_pointer)
{
    uint32_t a, b, c, d;
    cpuid(1, 0, &a, &b, &c, &d);
    const struct auxv_entry auxv[] = {
        { AT_PHDR, elf->phdr },   { AT_PHENT, elf->phentsize }, { AT_PHNUM, elf->phnum },
        { AT_PAGESZ, PAGE_SIZE }, { AT_BASE, 0 },               { AT_FLAGS, 0 },
        { AT_ENTRY, elf->entry }, { AT_UID, 0 },                { AT_EUID, 0 },
        { AT_GID, 0 },            { AT_EGID, 0 },               { AT_HWCAP, d },
        { AT_CLKTCK, 100 },       { AT_SECURE, 0 },
    };
    uint8_t random[16];
    random_bytes(random);

    uint8_t *buffer = kmalloc(STACK_IMAGE_MAX);
    if (!buffer)
        return -ENOMEM;
    int error = user_stack_build(buffer, STACK_IMAGE_MAX, USER_STACK_TOP, argv, envp, auxv,
                                 sizeof(auxv) / sizeof(auxv[0]), random, stack_pointer);
    size_t used = error ? 0 : USER_STACK_TOP - *stack_pointer;
    if (!error)
        error = map_stack(space, USER_STACK_TOP - pages_spanned(*stack_pointer, used) * PAGE_SIZE);
    if (!error) {
        copy_into_space(space, *stack_pointer, buffer + STACK_IMAGE_MAX - used, used);
        page_event_add(EXEC_PAGES_COPIED, pages_spanned(*stack_pointer, used));
    }
    kfree(buffer);
    return error;
}

static const char *base_name(const char *path)
{
    const char *slash = strchr(path, '/');
    while (slash) {
        path = slash + 1;
        slash = strchr(path, '/');
    }
    return path;
}

long process_execve(const char *path, const char *const *argv, const char *const *envp,
                    struct exec_start *start)
{
    struct process *process = current_process();
    void *image = 0;
    size_t size = 0;
    struct elf_info elf;

    long error = read_whole_file(path, &image, &size);
    if (error)
        return error;
    error = elf_parse(image, size, &elf);
    struct address_space *space = error ? 0 : address_space_create();
    if (!error && !space)
        error = -ENOMEM;
    uint64_t highest = 0;
    if (!error)
        error = map_segments(space, &elf, image, &highest);
    if (!error)
        error = build_stack(space, &elf, argv, envp, &start->stack_pointer);
    kfree(image);
    if (error) {
        if (space)
            address_space_destroy(space);
        return error;
    }

    /* The point of no return: the old program is gone from here on. */
    struct address_space *old = process->memory;
    process->memory = space;
    address_space_switch(space);
    if (process->memory_borrowed)
        process_return_borrowed_memory(process, old);   /* a vfork child: the parent's, given back */
    else if (old)
        address_space_destroy(old);
    if (process->files)
        fd_table_close_on_exec(process->files);
    process->brk_start = process->brk = highest;
    process->mmap_next = MMAP_BASE;
    process->fs_base = 0;
    signal_exec(&process->signals);
    wrmsr(MSR_FS_BASE, 0);
    snprintf(process->name, sizeof(process->name), "%s", base_name(path));
    trace_sched_exec(current_task());
    process_set_cmdline(process, argv);
    start->entry = elf.entry;
    return 0;
}
