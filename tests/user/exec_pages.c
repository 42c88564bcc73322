/* execve maps the file's pages (docs/fork.md, "execve maps the file"):
 * what a program sees of its own file and of files written after it
 * started. The program runs itself (argv[1] picks a child mode) from a
 * copy in /tmp that the cases write, truncate and unlink while the copy
 * runs. On nohzk the counts of /proc/vmstat (exec_pages_mapped,
 * exec_pages_copied, nr_free_pages) are checked too; on Linux those cases
 * skip, and so do the writes to a running program (Linux refuses them
 * with ETXTBSY). */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktap.h"
#include "proc_counters.h"

#define PAGE 4096l

/* What the cases find in the file and change: a string in a read-only
 * segment and a long in .data. Neither value is written in the code as
 * an immediate, so each occurs once in the file. */
static const char rodata_marker[] = "exec_pages: read-only marker, first version";
static volatile long data_marker = 0x65786563706167;
/* Never written: zero in every instance. bss_first is the program's first
 * .bss object, likely in the page that ends .data's file bytes. */
static volatile char bss_first[64];
static volatile char bss_big[3 * PAGE];

static char self[4096];
static char copy_path[64];

static int nohzk_counters(void)
{
    return vmstat_value("exec_pages_copied") >= 0;
}

static int counters_here(void)
{
    if (nohzk_counters())
        return 1;
    ktap_skip_reason = "no exec counters in /proc/vmstat (not nohzk)";
    printf("# skipped: %s\n", ktap_skip_reason);
    return 0;
}

/* ---- child modes: argv[1], then file descriptors ---- */

static int bss_is_zero(void)
{
    for (size_t i = 0; i < sizeof(bss_first); i++)
        if (bss_first[i])
            return 0;
    for (size_t i = 0; i < sizeof(bss_big); i++)
        if (bss_big[i])
            return 0;
    return 1;
}

/* "hold READY GO": tell READY, wait for a byte on GO, and exit 0 only if
 * the markers did not change meanwhile and .data still takes a write. */
static int hold_mode(int ready, int go)
{
    char ro_before[sizeof(rodata_marker)];
    memcpy(ro_before, rodata_marker, sizeof(ro_before));
    long data_before = data_marker;
    char byte = 'r';
    if (write(ready, &byte, 1) != 1 || read(go, &byte, 1) != 1)
        return 2;
    if (memcmp(ro_before, rodata_marker, sizeof(ro_before)) != 0 || data_marker != data_before)
        return 3;
    data_marker = data_before + 1;
    return data_marker == data_before + 1 && bss_is_zero() ? 0 : 4;
}

/* "report OUT": write this instance's markers to OUT. */
static int report_mode(int out)
{
    long data = data_marker;
    if (write(out, &data, sizeof(data)) != sizeof(data) ||
        write(out, rodata_marker, sizeof(rodata_marker)) != sizeof(rodata_marker))
        return 2;
    return bss_is_zero() ? 0 : 3;
}

/* "write-data READY GO": write .data, tell READY, wait for GO, still see
 * the own write. */
static int write_data_mode(int ready, int go)
{
    long original = data_marker;
    data_marker = original * 3;
    char byte = 'w';
    if (write(ready, &byte, 1) != 1 || read(go, &byte, 1) != 1)
        return 2;
    return data_marker == original * 3 ? 0 : 3;
}

static int child_mode(int argc, char **argv)
{
    int a = argc > 2 ? atoi(argv[2]) : -1, b = argc > 3 ? atoi(argv[3]) : -1;
    if (!strcmp(argv[1], "hold"))
        return hold_mode(a, b);
    if (!strcmp(argv[1], "report"))
        return report_mode(a);
    if (!strcmp(argv[1], "write-data"))
        return write_data_mode(a, b);
    if (!strcmp(argv[1], "exit"))
        return 0;
    return 99;
}

/* ---- helpers of the cases ---- */

/* Run path with mode and up to two descriptors; the child's pid. */
static pid_t spawn(const char *path, const char *mode, int a, int b)
{
    char first[16], second[16];
    snprintf(first, sizeof(first), "%d", a);
    snprintf(second, sizeof(second), "%d", b);
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        char *argv[] = { (char *)path, (char *)mode, first, second, 0 };
        execve(path, argv, environ);
        _exit(100 + (errno & 0x3f));
    }
    return child;
}

static int exit_code(pid_t child)
{
    int status;
    if (child < 0 || waitpid(child, &status, 0) != child)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1000 + WTERMSIG(status);
}

/* The whole content of path into a malloc'd buffer; its length in *size. */
static char *read_file(const char *path, size_t *size)
{
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    char *bytes = malloc((size_t)st.st_size + 1);
    size_t done = 0;
    while (bytes && done < (size_t)st.st_size) {
        long got = read(fd, bytes + done, (size_t)st.st_size - done);
        if (got <= 0)
            break;
        done += (size_t)got;
    }
    close(fd);
    if (!bytes || done != (size_t)st.st_size) {
        free(bytes);
        return 0;
    }
    *size = done;
    return bytes;
}

/* A private copy of this program at copy_path, padded with `padding`
 * bytes of 'p' after its end (an executable does not care). Copied
 * through a static buffer: a malloc'd one could stay with this process
 * and count as pages not given back. */
static int make_copy(size_t padding)
{
    static char buffer[16 * PAGE];
    snprintf(copy_path, sizeof(copy_path), "/tmp/exec_pages.%d", (int)getpid());
    unlink(copy_path);
    int from = open(self, O_RDONLY), to = open(copy_path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
    int ok = from >= 0 && to >= 0;
    long got;
    while (ok && (got = read(from, buffer, sizeof(buffer))) > 0)
        ok = write(to, buffer, (size_t)got) == got;
    memset(buffer, 'p', sizeof(buffer));
    for (size_t done = 0; ok && done < padding; done += sizeof(buffer))
        ok = write(to, buffer, sizeof(buffer)) == (long)sizeof(buffer);
    if (from >= 0)
        close(from);
    if (to >= 0)
        close(to);
    return ok;
}

/* Where needle (length bytes) is in haystack, if exactly once; else -1. */
static long unique_offset(const char *haystack, size_t size, const void *needle, size_t length)
{
    long found = -1;
    for (const char *at = haystack; (at = memmem(at, size - (size_t)(at - haystack), needle, length)); at++) {
        if (found >= 0)
            return -1;
        found = at - haystack;
    }
    return found;
}

/* A running copy in "hold" mode: its pid, and the pipe ends that tell it
 * it is ready (read) and may go on (write). */
struct held {
    pid_t pid;
    int ready, go;
};

static int start_held(const char *path, struct held *held)
{
    int ready[2], go[2];
    if (pipe(ready) || pipe(go))
        return 0;
    held->pid = spawn(path, "hold", ready[1], go[0]);
    close(ready[1]);
    close(go[0]);
    held->ready = ready[0];
    held->go = go[1];
    char byte;
    return held->pid > 0 && read(held->ready, &byte, 1) == 1;
}

static int finish_held(struct held *held)
{
    char byte = 'g';
    int wrote = write(held->go, &byte, 1) == 1;
    close(held->go);
    close(held->ready);
    int code = exit_code(held->pid);
    if (code)
        printf("# the held copy exited with %d\n", code);
    return wrote && code == 0;
}

/* pread and pwrite by lseek: nohzk has neither system call. */
static long read_at(int fd, void *buffer, size_t count, long offset)
{
    if (lseek(fd, offset, SEEK_SET) != offset)
        return -1;
    size_t done = 0;
    while (done < count) {
        long got = read(fd, (char *)buffer + done, count - done);
        if (got <= 0)
            break;
        done += (size_t)got;
    }
    return (long)done;
}

static long write_at(int fd, const void *buffer, size_t count, long offset)
{
    return lseek(fd, offset, SEEK_SET) == offset ? write(fd, buffer, count) : -1;
}

/* ---- the cases ---- */

/* A spawn of a static program maps its file pages: only the pages that
 * mix file bytes with bss or with bytes outside the segment, and the
 * stack, are copied. */
static int a_spawn_maps_pages_instead_of_copying(void)
{
    if (!counters_here())
        return 1;
    char *argv[] = { "true", 0 };
    for (int round = 0; round < 2; round++) {
        long copied = vmstat_value("exec_pages_copied"), mapped = vmstat_value("exec_pages_mapped");
        long zeroed = vmstat_value("pages_zeroed");
        fflush(stdout);
        pid_t child = fork();
        if (child == 0) {
            execve("/bin/true", argv, environ);
            _exit(127);
        }
        CHECK(exit_code(child) == 0);
        long copied_now = vmstat_value("exec_pages_copied"), mapped_now = vmstat_value("exec_pages_mapped");
        long zeroed_now = vmstat_value("pages_zeroed");
        printf("# /bin/true: %ld exec pages copied, %ld mapped, %ld pages zeroed\n", copied_now - copied,
               mapped_now - mapped, zeroed_now - zeroed);
        CHECK(mapped >= 0);
        CHECK(copied_now - copied <= 12);       /* 2 per segment and the stack's few */
        CHECK(mapped_now - mapped >= 100);      /* busybox is 2 MB: ~480 pages */
    }
    return 1;
}

/* Two instances of one program: a write to .data is the writer's own. */
static int a_write_to_data_is_private_to_its_instance(void)
{
    int ready[2], go[2], out[2];
    CHECK(pipe(ready) == 0 && pipe(go) == 0 && pipe(out) == 0);
    pid_t writer = spawn(self, "write-data", ready[1], go[0]);
    char byte;
    CHECK(read(ready[0], &byte, 1) == 1);
    pid_t reader = spawn(self, "report", out[1], -1);
    close(out[1]);
    long data = 0;
    char ro[sizeof(rodata_marker)];
    CHECK(read(out[0], &data, sizeof(data)) == sizeof(data));
    CHECK(read(out[0], ro, sizeof(ro)) == sizeof(ro));
    CHECK(exit_code(reader) == 0);
    CHECK(write(go[1], &byte, 1) == 1);
    CHECK(exit_code(writer) == 0);
    CHECK(data == data_marker);
    CHECK(memcmp(ro, rodata_marker, sizeof(ro)) == 0);
    return 1;
}

/* bss is zero, in this process and in a fresh instance (report checks). */
static int bss_is_zero_in_every_instance(void)
{
    extern char edata[] __attribute__((weak));
    if (edata)
        printf("# bss_first %s the page where .data's file bytes end\n",
               ((unsigned long)bss_first & ~(PAGE - 1)) == ((unsigned long)edata & ~(PAGE - 1)) ? "is in"
                                                                                                 : "is past");
    CHECK(bss_is_zero());
    int out[2];
    CHECK(pipe(out) == 0);
    pid_t child = spawn(self, "report", out[1], -1);
    close(out[1]);
    CHECK(exit_code(child) == 0);
    return 1;
}

/* The rest of the page where .data's file bytes end is bss: zeros, not
 * the bytes that follow .data in the file (.comment, symbols...). libc
 * has written some of its bss by now, so the check is that memory there
 * almost never agrees with the file where the file is not zero. */
static int the_bss_after_data_is_not_file_bytes(void)
{
    extern char edata[] __attribute__((weak));
    CHECK(edata);
    size_t size;
    char *bytes = read_file(self, &size);
    CHECK(bytes && size > sizeof(Elf64_Ehdr));
    const Elf64_Ehdr *header = (const void *)bytes;
    CHECK(header->e_phoff + header->e_phnum * sizeof(Elf64_Phdr) <= size);
    const Elf64_Phdr *data = 0;
    for (int i = 0; i < header->e_phnum; i++) {
        const Elf64_Phdr *ph = (const void *)(bytes + header->e_phoff + i * sizeof(Elf64_Phdr));
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_W) && ph->p_filesz < ph->p_memsz)
            data = ph;
    }
    CHECK(data);
    size_t offset = data->p_offset + data->p_filesz, tail = (PAGE - (unsigned long)edata % PAGE) % PAGE;
    if (offset + tail > size)
        tail = size - offset;
    long nonzero = 0, agreeing = 0;
    for (size_t i = 0; i < tail; i++) {
        nonzero += bytes[offset + i] != 0;
        agreeing += bytes[offset + i] != 0 && edata[i] == bytes[offset + i];
    }
    printf("# %zu bytes after .data in its page: %ld not zero in the file, %ld of them in memory\n", tail, nonzero,
           agreeing);
    CHECK(agreeing * 4 <= nonzero);
    free(bytes);
    return 1;
}

/* A write into the file of a running program changes nothing it sees; a
 * new instance runs the new content. */
static int writing_a_running_program_changes_only_new_instances(void)
{
    CHECK(make_copy(0));
    size_t size;
    char *bytes = read_file(copy_path, &size);
    CHECK(bytes);
    long ro_at = unique_offset(bytes, size, rodata_marker, sizeof(rodata_marker));
    long original = data_marker;
    long data_at = unique_offset(bytes, size, &original, sizeof(original));
    printf("# read-only marker at %ld, data marker at %ld of %zu bytes\n", ro_at, data_at, size);
    CHECK(ro_at >= 0 && data_at >= 0);
    struct held held;
    CHECK(start_held(copy_path, &held));
    int fd = open(copy_path, O_WRONLY);
    if (fd < 0 && errno == ETXTBSY) {
        ktap_skip_reason = "this kernel refuses writes to a running program (ETXTBSY)";
        printf("# skipped: %s\n", ktap_skip_reason);
        CHECK(finish_held(&held));
        unlink(copy_path);
        return 1;
    }
    CHECK(fd >= 0);
    long changed = original ^ 0x5a5a;
    char ro_new[sizeof(rodata_marker)];
    memcpy(ro_new, rodata_marker, sizeof(ro_new));
    memcpy(ro_new + sizeof(ro_new) - 14, "secondversion", 13);
    CHECK(write_at(fd, &changed, sizeof(changed), data_at) == sizeof(changed));
    CHECK(write_at(fd, ro_new, sizeof(ro_new), ro_at) == sizeof(ro_new));
    for (long offset = 0; offset + PAGE <= (long)size; offset += 8 * PAGE)     /* same bytes: copies */
        CHECK(write_at(fd, bytes + offset, 1, offset) == 1);
    close(fd);
    CHECK(finish_held(&held));
    int out[2];
    CHECK(pipe(out) == 0);
    pid_t child = spawn(copy_path, "report", out[1], -1);
    close(out[1]);
    long data = 0;
    char ro[sizeof(rodata_marker)];
    CHECK(read(out[0], &data, sizeof(data)) == sizeof(data));
    CHECK(read(out[0], ro, sizeof(ro)) == sizeof(ro));
    CHECK(exit_code(child) == 0);
    CHECK(data == changed);
    CHECK(memcmp(ro, ro_new, sizeof(ro)) == 0);
    unlink(copy_path);
    free(bytes);
    return 1;
}

/* O_TRUNC on a running program's file: it runs on; the empty file no
 * longer runs. */
static int truncating_a_running_program(void)
{
    CHECK(make_copy(0));
    struct held held;
    CHECK(start_held(copy_path, &held));
    int fd = open(copy_path, O_WRONLY | O_TRUNC);
    if (fd < 0 && errno == ETXTBSY) {
        ktap_skip_reason = "this kernel refuses writes to a running program (ETXTBSY)";
        printf("# skipped: %s\n", ktap_skip_reason);
        CHECK(finish_held(&held));
        unlink(copy_path);
        return 1;
    }
    CHECK(fd >= 0);
    close(fd);
    CHECK(finish_held(&held));
    CHECK(exit_code(spawn(copy_path, "exit", -1, -1)) == 100 + ENOEXEC);
    unlink(copy_path);
    return 1;
}

/* Unlinking a running program's file: it runs on, and once it exits its
 * pages are free again. The copy is padded to 2 MiB (512 pages), so a
 * leak of the file would be hundreds of pages; 32 pages of slack cover
 * page tables and heap slabs that stay allocated. */
static int unlinking_a_running_program_frees_its_pages_after(void)
{
    int counting = nohzk_counters();
    for (int round = 0; round < 2; round++) {       /* round 0 warms the heap up */
        long before = vmstat_value("nr_free_pages");
        CHECK(make_copy(2l << 20));
        struct held held;
        CHECK(start_held(copy_path, &held));
        CHECK(unlink(copy_path) == 0);
        CHECK(finish_held(&held));
        long after = vmstat_value("nr_free_pages");
        printf("# round %d: %ld free pages before, %ld after\n", round, before, after);
        if (counting && round == 1)
            CHECK(after >= before - 32);
    }
    return 1;
}

/* A seek past the end and a write leave a hole that reads as zeros. */
static int a_hole_reads_as_zeros(void)
{
    char path[64];
    snprintf(path, sizeof(path), "/tmp/exec_pages.hole.%d", (int)getpid());
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    CHECK(fd >= 0);
    unlink(path);
    CHECK(write(fd, "head", 4) == 4);
    CHECK(lseek(fd, 3 * PAGE + 100, SEEK_SET) == 3 * PAGE + 100);
    CHECK(write(fd, "tail", 4) == 4);
    struct stat st;
    CHECK(fstat(fd, &st) == 0 && st.st_size == 3 * PAGE + 104);
    static char content[4 * PAGE];
    memset(content, 'x', sizeof(content));
    CHECK(read_at(fd, content, sizeof(content), 0) == 3 * PAGE + 104);
    CHECK(memcmp(content, "head", 4) == 0 && memcmp(content + 3 * PAGE + 100, "tail", 4) == 0);
    for (long i = 4; i < 3 * PAGE + 100; i++)
        CHECK(content[i] == 0);
    /* A write into the hole fills part of one page; the rest stays zero. */
    CHECK(write_at(fd, "mid", 3, PAGE + 10) == 3);
    CHECK(read_at(fd, content, sizeof(content), 0) == 3 * PAGE + 104);
    CHECK(memcmp(content + PAGE + 10, "mid", 3) == 0 && content[PAGE + 9] == 0 && content[PAGE + 13] == 0);
    close(fd);
    return 1;
}

/* A one-byte write that ends at 1 GiB (nohzk's largest file) makes a
 * sparse file: it takes one page, and reads as zeros up to that byte. */
static int a_write_at_the_size_limit_is_sparse(void)
{
    char path[64];
    snprintf(path, sizeof(path), "/tmp/exec_pages.big.%d", (int)getpid());
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
    CHECK(fd >= 0);
    unlink(path);
    long before = vmstat_value("nr_free_pages");
    CHECK(write_at(fd, "z", 1, (1l << 30) - 1) == 1);
    CHECK(write_at(fd, "", 0, (1l << 30) + PAGE) == 0);      /* a write of nothing makes nothing */
    struct stat st;
    CHECK(fstat(fd, &st) == 0 && st.st_size == 1l << 30);
    char tail[PAGE];
    CHECK(read_at(fd, tail, sizeof(tail), (1l << 30) - PAGE) == PAGE);
    for (long i = 0; i < PAGE - 1; i++)
        CHECK(tail[i] == 0);
    CHECK(tail[PAGE - 1] == 'z');
    long after = vmstat_value("nr_free_pages");
    if (nohzk_counters()) {
        printf("# a 1 GiB sparse file took %ld pages\n", before - after);
        CHECK(before - after < 1024);           /* its page list: 2 MiB; its content: 1 page */
    }
    close(fd);
    return 1;
}

/* Files that are not programs: an empty one, and one cut after its first
 * page (its segments' offsets are past the end). Neither runs. */
static int empty_and_cut_programs_do_not_run(void)
{
    CHECK(make_copy(0));
    int fd = open(copy_path, O_WRONLY | O_TRUNC);
    CHECK(fd >= 0);
    close(fd);
    CHECK(exit_code(spawn(copy_path, "exit", -1, -1)) == 100 + ENOEXEC);
    size_t size;
    char *bytes = read_file(self, &size);
    CHECK(bytes && size > 2 * PAGE);
    fd = open(copy_path, O_WRONLY | O_TRUNC);
    CHECK(fd >= 0 && write(fd, bytes, PAGE) == PAGE);
    close(fd);
    int code = exit_code(spawn(copy_path, "exit", -1, -1));
    printf("# a program cut after one page: exit code %d\n", code);
    CHECK(code != 0 && code != 99);         /* refused (Linux may start it and kill it) */
    unlink(copy_path);
    free(bytes);
    return 1;
}

/* Only a regular file runs: a device or a /proc file has no pages. */
static int devices_and_proc_files_do_not_run(void)
{
    CHECK(exit_code(spawn("/dev/null", "exit", -1, -1)) == 100 + EACCES);
    CHECK(exit_code(spawn("/proc/self/stat", "exit", -1, -1)) == 100 + EACCES);
    CHECK(exit_code(spawn("/proc", "exit", -1, -1)) == 100 + EACCES);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        return child_mode(argc, argv);
    if (strchr(argv[0], '/'))
        snprintf(self, sizeof(self), "%s", argv[0]);
    else
        snprintf(self, sizeof(self), "/bin/%s", argv[0]);
    static const struct ktap_case cases[] = {
        KTAP_CASE(a_spawn_maps_pages_instead_of_copying),
        KTAP_CASE(a_write_to_data_is_private_to_its_instance),
        KTAP_CASE(bss_is_zero_in_every_instance),
        KTAP_CASE(the_bss_after_data_is_not_file_bytes),
        KTAP_CASE(writing_a_running_program_changes_only_new_instances),
        KTAP_CASE(truncating_a_running_program),
        KTAP_CASE(unlinking_a_running_program_frees_its_pages_after),
        KTAP_CASE(a_hole_reads_as_zeros),
        KTAP_CASE(a_write_at_the_size_limit_is_sparse),
        KTAP_CASE(empty_and_cut_programs_do_not_run),
        KTAP_CASE(devices_and_proc_files_do_not_run),
    };
    return ktap_main_each_in_a_child(cases, sizeof(cases) / sizeof(cases[0]));
}
