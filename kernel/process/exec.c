/* execve: load a static ELF executable into a fresh address space.
 *
 * The file's first page or two (its headers) are read and checked by
 * elf_parse_headers(), and each PT_LOAD segment's pages are mapped from
 * the file's own pages (vfs_file_page): shared, copy-on-write where the
 * segment is writable; only the pages that mix the segment's bytes with
 * others (bss, the bytes before vaddr) are copied. No demand paging: a
 * program's pages are all mapped from the start (docs/fork.md, "execve
 * maps the file"); the stack's unused pages are the zero page until
 * written ("Lazy zeroing"), and below them, down to RLIMIT_STACK, pages
 * come at their first touch (kernel/mm/stack_limit.c). The stack gets
 * the System V initial image (user_stack_build), and is made large
 * enough for it. A "#!" script runs its interpreter (script.c); a
 * dynamically linked program's interpreter (PT_INTERP) is loaded beside
 * it, at INTERP_BASE, and entered first with AT_BASE telling where it is
 * (docs/user-space.md, "Dynamic executables"). Only when all of that worked does the
 * process switch to the new address space and drop the old one: a failed
 * execve returns an error to a process that is still intact. */
#include "arch/x86/cpu.h"
#include "arch/x86/fpu.h"
#include "arch/x86/paging.h"
#include "kernel/mm/address_space.h"
#include "kernel/process/elf.h"
#include "kernel/lib/errno.h"
#include "kernel/lib/format.h"
#include "kernel/lib/linux_abi.h"
#include "kernel/mm/heap.h"
#include "kernel/mm/page_alloc.h"
#include "kernel/mm/region.h"
#include "kernel/mm/stack_limit.h"
#include "kernel/process/process.h"
#include "kernel/process/futex.h"
#include "kernel/lib/string.h"
#include "kernel/trace/trace.h"
#include "kernel/process/script.h"
#include "kernel/process/user_stack.h"
#include "kernel/process/vdso.h"
#include "kernel/fs/vfs.h"
#include "sched/task.h"

#define STACK_ROOM_PAGES    32                  /* free below a large image: Linux's 128 KiB */
#define STACK_IMAGE_EXTRA   4096                /* auxv, AT_RANDOM, AT_PLATFORM, alignment */
#define SCRIPT_DEPTH_MAX    5                   /* Linux: a sixth interpreter is ELOOP */
#define MMAP_BASE           0x7f0000000000ul
/* A dynamically linked program: its interpreter just below mmap's area,
 * and a PIE program at Linux's ELF_ET_DYN_BASE without randomisation. */
#define INTERP_BASE         0x7ef000000000ul
#define DYN_PIE_BASE        0x555555554000ul

/* The ELF header and the program headers must lie in the file's first
 * EXEC_HEAD_MAX bytes: execve reads those, and maps the rest. */
#define EXEC_HEAD_MAX       8192

/* What execve reads of the file: its size and first bytes. */
struct executable {
    struct file *file; /* open while its pages are mapped */
    uint64_t size;
    char *head;
    size_t head_length;
};

static long read_head(struct executable *exe)
{
    size_t want = exe->size < EXEC_HEAD_MAX ? exe->size : EXEC_HEAD_MAX;
    exe->head = kmalloc(want);
    if (!exe->head)
        return -ENOMEM;
    while (exe->head_length < want) {
        long got = vfs_read(exe->file, exe->head + exe->head_length, want - exe->head_length);
        if (got < 0)
            return got;
        if (got == 0)
            break; /* cut short meanwhile: elf_parse_headers judges */
        exe->head_length += (size_t)got;
    }
    return 0;
}

/* Only a regular file of the tree runs: its pages can be mapped (a
 * device or a generated file has none, vfs_file_page says -ENODEV). */
static long open_executable(const char *path, struct executable *exe)
{
    long error = 0;
    exe->file = vfs_open(path, O_RDONLY, 0, &error);
    if (!exe->file)
        return error;
    uint64_t page = 0;
    long size = vfs_file_size(exe->file);
    if (!vfs_is_executable(exe->file) || vfs_file_page(exe->file, 0, &page) == -ENODEV)
        return -EACCES;
    if (page)
        page_put(page);
    if (size <= 0)
        return size < 0 ? size : -ENOEXEC;
    exe->size = (uint64_t)size;
    return read_head(exe);
}

static void close_executable(struct executable *exe)
{
    kfree(exe->head);
    if (exe->file)
        vfs_close(exe->file);
}

/* One page of a segment. A page wholly inside the segment's file bytes is
 * the file's own page, shared (copy-on-write if writable); one that holds
 * them only in part (the first when vaddr is not page-aligned, the last
 * when they end inside it, before the bss or the end of the segment) gets
 * a copy of those bytes and zeros around them, so no other byte of the
 * file shows; one past the file bytes (bss), or in a hole of the file, is
 * the zero page until written (docs/fork.md, "Lazy zeroing"). */
static long map_segment_page(struct address_space *space, const struct elf_segment *segment, struct file *file,
                             uint64_t page, uint64_t flags)
{
    uint64_t file_end = segment->vaddr + segment->file_size;
    uint64_t first = page > segment->vaddr ? page : segment->vaddr;
    uint64_t last = page + PAGE_SIZE < file_end ? page + PAGE_SIZE : file_end;
    if (first >= last)
        return address_space_map_zero(space, page, flags);     /* bss: the zero page until written */
    uint64_t file_page;
    int error = vfs_file_page(file, (segment->file_offset + (first - segment->vaddr)) / PAGE_SIZE, &file_page);
    if (error)
        return error;
    if (!file_page)
        return address_space_map_zero(space, page, flags);     /* a hole in the file reads as zeros */
    if (first == page && last == page + PAGE_SIZE) {
        error = address_space_map_shared(space, page, file_page, flags);
        if (error)
            page_put(file_page);
        else
            page_event_add(EXEC_PAGES_MAPPED, 1);
        return error;
    }
    error = address_space_map(space, page, flags);
    if (!error) { /* vaddr and file offset agree modulo the page size (elf_parse) */
        copy_into_space(space, first, (const char *)phys_to_virt(file_page) + first % PAGE_SIZE, last - first);
        page_event_add(EXEC_PAGES_COPIED, 1);
    }
    page_put(file_page);
    return error;
}

/* Each segment is a region of the file (kernel/mm/region.c), private. */
static long segment_region(struct address_space *space, const struct elf_segment *segment, struct file *file)
{
    struct region_name *name = region_name_of_file(file);
    if (!name)
        return -ENOMEM;
    uint32_t prot = (segment->flags & PF_R ? REGION_READ : 0) | (segment->flags & PF_W ? REGION_WRITE : 0) |
                    (segment->flags & PF_X ? REGION_EXEC : 0);
    long error = regions_insert(&space->regions, segment->start, segment->end, prot, REGION_FILE,
                                segment->file_offset - (segment->vaddr - segment->start), name);
    region_name_put(name);
    return error;
}

static long map_segments(struct address_space *space, const struct elf_info *elf, struct file *file,
                         uint64_t *highest)
{
    for (unsigned i = 0; i < elf->segment_count; i++) {
        const struct elf_segment *segment = &elf->segments[i];
        uint64_t flags = (segment->flags & PF_W ? PTE_WRITE : 0) | (segment->flags & PF_X ? 0 : PTE_NX);
        long error = segment_region(space, segment, file);
        if (error)
            return error;
        for (uint64_t page = segment->start; page < segment->end; page += PAGE_SIZE) {
            error = map_segment_page(space, segment, file, page, flags);
            if (error)
                return error;
        }
        if (segment->end > *highest)
            *highest = segment->end;
    }
    return 0;
}

/* Pages that size bytes at address touch. */
static unsigned long pages_spanned(uint64_t address, size_t size)
{
    if (!size)
        return 0;
    return ((address + size - 1) / PAGE_SIZE) - address / PAGE_SIZE + 1;
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
 * zeroed and mapped now, for copy_into_space(); the rest of its first
 * STACK_INITIAL_PAGES, or of the image and STACK_ROOM_PAGES below it,
 * map the zero page until the program writes them (docs/fork.md, "Lazy
 * zeroing"); none below floor. The pages below come at their first
 * touch. */
static int map_stack(struct address_space *space, uint64_t filled, uint64_t floor)
{
    uint64_t pages = (USER_STACK_TOP - filled) / PAGE_SIZE + STACK_ROOM_PAGES;
    if (pages < STACK_INITIAL_PAGES)
        pages = STACK_INITIAL_PAGES;
    uint64_t lowest = USER_STACK_TOP - pages * PAGE_SIZE;
    for (uint64_t page = floor > lowest ? floor : lowest; page < USER_STACK_TOP; page += PAGE_SIZE) {
        int error = page < filled ? address_space_map_zero(space, page, PTE_WRITE | PTE_NX)
                                  : address_space_map(space, page, PTE_WRITE | PTE_NX);
        if (error)
            return error;
    }
    return 0;
}

/* What a string array takes in the image: its strings and pointers. */
static size_t image_bound(const char *const *strings)
{
    size_t bytes = sizeof(uint64_t);
    for (; strings && *strings; strings++)
        bytes += strlen(*strings) + 1 + sizeof(uint64_t);
    return bytes;
}

/* The auxiliary vector in Linux's order; interpreter_base is AT_BASE (0
 * for a static program). AT_HWCAP2 is 0: FSGSBASE is not enabled. */
static long build_stack(struct address_space *space, const struct elf_info *elf, uint64_t interpreter_base,
                        const char *execfn, const char *const *argv, const char *const *envp,
                        uint64_t *stack_pointer, uint64_t *floor)
{
    uint32_t a, b, c, d;
    cpuid(1, 0, &a, &b, &c, &d);
    const struct auxv_entry auxv[] = {
        { AT_SYSINFO_EHDR, VDSO_IMAGE_ADDRESS },
        { AT_HWCAP, d },          { AT_PAGESZ, PAGE_SIZE },     { AT_CLKTCK, 100 },
        { AT_PHDR, elf->phdr },   { AT_PHENT, elf->phentsize }, { AT_PHNUM, elf->phnum },
        { AT_BASE, interpreter_base }, { AT_FLAGS, 0 },         { AT_ENTRY, elf->entry },
        { AT_UID, 0 },            { AT_EUID, 0 },               { AT_GID, 0 },
        { AT_EGID, 0 },           { AT_SECURE, 0 },             { AT_HWCAP2, 0 },
    };
    uint8_t random[16];
    random_bytes(random);

    size_t size = image_bound(argv) + image_bound(envp) + strlen(execfn) + STACK_IMAGE_EXTRA;
    uint8_t *buffer = kmalloc(size);
    if (!buffer)
        return -ENOMEM;
    int error = user_stack_build_named(buffer, size, USER_STACK_TOP, argv, envp, execfn, auxv,
                                       sizeof(auxv) / sizeof(auxv[0]), random, stack_pointer);
    size_t used = error ? 0 : USER_STACK_TOP - *stack_pointer;
    uint64_t filled = USER_STACK_TOP - pages_spanned(*stack_pointer, used) * PAGE_SIZE;
    *floor = stack_floor_for(current_process()->rlimits[RLIMIT_STACK].current, filled);
    if (!error)
        error = map_stack(space, filled, *floor);
    if (!error) {
        copy_into_space(space, *stack_pointer, buffer + size - used, used);
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

/* The path in a dynamically linked program's PT_INTERP, in a kmalloc'd
 * buffer; Linux's rule: it ends with its NUL. */
static long read_interpreter_path(const struct executable *exe, const struct elf_info *elf, char **path)
{
    *path = kmalloc(elf->interp_size);
    if (!*path)
        return -ENOMEM;
    long error = vfs_seek(exe->file, (int64_t)elf->interp_offset, SEEK_SET);
    size_t got = 0;
    while (error >= 0 && got < elf->interp_size) {
        long n = vfs_read(exe->file, *path + got, elf->interp_size - got);
        if (n <= 0) {
            error = n < 0 ? n : -ENOEXEC;
            break;
        }
        got += (size_t)n;
    }
    if (error >= 0 && (*path)[elf->interp_size - 1] != '\0')
        error = -ENOEXEC;
    return error < 0 ? error : 0;
}

/* Does [start, end) meet one of elf's segments? */
static bool overlaps_segments(const struct elf_info *elf, uint64_t start, uint64_t end)
{
    for (unsigned i = 0; i < elf->segment_count; i++)
        if (start < elf->segments[i].end && elf->segments[i].start < end)
            return true;
    return false;
}

/* A dynamically linked program: the interpreter its PT_INTERP names
 * (Debian's ld-linux-x86-64.so.2), opened and parsed, placed at
 * INTERP_BASE, or just above the program if the program is there. Linux's
 * answers: a missing file ENOENT, one not executable EACCES, one shorter
 * than an ELF header EIO, one that is not an x86-64 ELF file or whose
 * program headers are cut short ELIBBAD; the interpreter's own PT_INTERP
 * is ignored. One whose segments run past its end is ELIBBAD here, where
 * Linux maps them and the process dies of SIGSEGV or SIGBUS. */
static long open_interpreter(const struct executable *exe, const struct elf_info *elf,
                             struct executable *interp, struct elf_info *interp_elf)
{
    char *path = 0;
    long error = read_interpreter_path(exe, elf, &path);
    if (!error)
        error = open_executable(path, interp);
    kfree(path);
    if (error)
        return error;
    if (interp->head_length < sizeof(struct elf64_header))
        return -EIO;
    uint64_t base = INTERP_BASE;
    for (int attempt = 0; attempt < 2; attempt++) {
        if (elf_parse_headers_at(interp->head, interp->head_length, interp->size, base, interp_elf))
            return -ELIBBAD;
        const struct elf_segment *last = &interp_elf->segments[interp_elf->segment_count - 1];
        if (!overlaps_segments(elf, interp_elf->segments[0].start, last->end))
            return 0;
        base = elf->segments[elf->segment_count - 1].end + PAGE_SIZE;
    }
    return -ENOMEM;     /* an ET_EXEC interpreter where the program is */
}

/* One "#!" level: the interpreter's arguments, made from the caller's. */
struct interpretation {
    struct script_line line;
    char path[PATH_MAX];
    const char *argv[];
};

/* argv for the interpreter of the script at path: the interpreter, its
 * argument if any, path, then argv without its argv[0]. */
static struct interpretation *interpret(const struct script_line *line, const char *path,
                                        const char *const *argv)
{
    size_t argc = 0;
    while (argv[argc])
        argc++;
    struct interpretation *level = kmalloc(sizeof(*level) + (argc + 3) * sizeof(char *));
    if (!level)
        return 0;
    level->line = *line;
    snprintf(level->path, sizeof(level->path), "%s", path);
    size_t n = 0;
    level->argv[n++] = level->line.interpreter;
    if (level->line.has_argument)
        level->argv[n++] = level->line.argument;
    level->argv[n++] = level->path;
    for (size_t i = 1; i < argc; i++)
        level->argv[n++] = argv[i];
    level->argv[n] = 0;
    return level;
}

/* Opens the program execve runs for path: path itself, or the
 * interpreter of the script it is (of the script that one is, up to
 * SCRIPT_DEPTH_MAX levels), *argv then being the interpreter's. */
static long open_program(const char *path, const char *const **argv, struct executable *exe,
                         struct interpretation *levels[SCRIPT_DEPTH_MAX])
{
    for (int depth = 0;; depth++) {
        long error = open_executable(path, exe);
        struct script_line line;
        if (error || script_parse(exe->head, exe->head_length, &line) != 0)
            return error;
        if (depth == SCRIPT_DEPTH_MAX)
            return -ELOOP;
        levels[depth] = interpret(&line, path, *argv);
        if (!levels[depth])
            return -ENOMEM;
        close_executable(exe);
        *exe = (struct executable){ 0 };
        path = levels[depth]->line.interpreter;
        *argv = levels[depth]->argv;
    }
}

/* The absolute path of the file exec loads, for /proc/self/exe: NULL in
 * *path for a file unlinked meanwhile; -ENOMEM without memory. */
static long executable_path(struct file *file, char **path)
{
    char *scratch = kmalloc(PATH_MAX);
    if (!scratch)
        return -ENOMEM;
    long length = vfs_inode_path(file->inode, scratch, PATH_MAX);
    *path = length > 0 ? kmalloc((size_t)length) : 0;
    if (*path)
        memcpy(*path, scratch, (size_t)length);
    kfree(scratch);
    return length > 0 && !*path ? -ENOMEM : 0;
}

static void free_interpretations(struct interpretation *levels[SCRIPT_DEPTH_MAX])
{
    for (int i = 0; i < SCRIPT_DEPTH_MAX; i++)
        kfree(levels[i]);
}

long process_execve(const char *path, const char *const *argv, const char *const *envp,
                    struct exec_start *start)
{
    struct process *process = current_process();
    struct executable exe = { 0 }, interp = { 0 };
    struct interpretation *levels[SCRIPT_DEPTH_MAX] = { 0 };
    struct elf_info elf;
    static struct elf_info no_interp;   /* zero: no segments */
    struct elf_info *interp_elf = &no_interp;
    const char *execfn = path;          /* AT_EXECFN: the name given, even for a script */

    long error = open_program(path, &argv, &exe, levels);
    if (!error)
        error = elf_parse_headers(exe.head, exe.head_length, exe.size, &elf);
    if (!error && elf.type == ET_DYN && elf.has_interp)         /* a PIE: at Linux's base */
        error = elf_parse_headers_at(exe.head, exe.head_length, exe.size, DYN_PIE_BASE, &elf);
    if (!error && elf.has_interp) {
        interp_elf = kmalloc(sizeof(*interp_elf));
        if (!interp_elf)
            interp_elf = &no_interp;    /* what the paths below read */
        error = interp_elf != &no_interp ? open_interpreter(&exe, &elf, &interp, interp_elf) : -ENOMEM;
    }
    struct address_space *space = error ? 0 : address_space_create();
    if (!error && !space)
        error = -ENOMEM;
    uint64_t highest = 0, stack_floor = 0, interp_highest = 0;
    if (!error)
        error = map_segments(space, &elf, exe.file, &highest);
    if (!error && elf.has_interp)
        error = map_segments(space, interp_elf, interp.file, &interp_highest);
    if (!error)
        error = vdso_map(space);
    if (!error)
        error = build_stack(space, &elf, elf.has_interp ? interp_elf->load_bias : 0, execfn, argv, envp,
                            &start->stack_pointer, &stack_floor);
    if (!error)     /* the stack's reserved range, its pages faulted in (kernel/mm/stack_limit.c) */
        error = regions_insert(&space->regions, stack_floor, USER_STACK_TOP, REGION_READ | REGION_WRITE,
                               REGION_STACK, 0, 0);
    char *exe_path = 0;         /* before the point of no return, as the command line */
    if (!error)
        error = executable_path(exe.file, &exe_path);
    close_executable(&exe);
    close_executable(&interp);
    uint64_t entry = error ? 0 : elf.has_interp ? interp_elf->entry : elf.entry;
    if (interp_elf != &no_interp)
        kfree(interp_elf);
    size_t cmdline_length = 0;
    char *cmdline = error ? 0 : process_cmdline_make(argv, &cmdline_length);    /* before the point of no return */
    if (!error && !cmdline)
        error = -ENOMEM;
    /* From a thread of a group: the others end first, and we take the
     * leader's place (its pid). A group already ending refuses. */
    if (!error)
        error = thread_exec_alone();
    if (error) {
        kfree(cmdline);
        if (space)
            address_space_destroy(space);
        kfree(exe_path);
        free_interpretations(levels);
        return error;
    }

    /* The point of no return: the old program is gone from here on. Its
     * robust futexes are released in its memory first (Linux's
     * exec_mm_release). */
    futex_exec_release(current_thread()->robust_list, current_thread()->tid);
    current_thread()->robust_list = 0;
    spin_lock(&process_tree_lock);      /* /proc/PID reads its sizes under the lock */
    struct address_space *old = process->memory;
    process->memory = space;
    spin_unlock(&process_tree_lock);
    address_space_switch(space);
    if (process->memory_borrowed)
        process_return_borrowed_memory(process, old);   /* a vfork child: the parent's, given back */
    else if (old)
        address_space_destroy(old);
    if (process->files)
        fd_table_close_on_exec(process->files);
    process->brk_start = process->brk = highest;
    process->stack_floor = stack_floor;
    current_thread()->fs_base = 0;
    current_thread()->clear_child_tid = 0;
    signal_exec(&process->signals, &current_thread()->signals);
    process->lock_future = false;
    wrmsr(MSR_FS_BASE, 0);
    fpu_reset();        /* nothing of the old program's x87/SSE registers */
    snprintf(process->name, sizeof(process->name), "%s", base_name(path));
    trace_sched_exec(current_task());
    process_cmdline_install(process, cmdline, cmdline_length);
    kfree(process->exe_path);   /* only this process reads it (/proc/self/exe) */
    process->exe_path = exe_path;
    free_interpretations(levels);
    start->entry = entry;
    return 0;
}
