/* auxv: the auxiliary vector execve gives a program, and the dynamic
 * loader execve starts for a dynamically linked one, as Linux does.
 *
 * Built three ways from this file: static with musl and with glibc (no
 * interpreter: AT_BASE is 0), and, as auxv.dyn, a PIE linked against the
 * host's glibc (Debian 12's) WITHOUT -static, which execve starts through
 * Debian's /lib64/ld-linux-x86-64.so.2 (DYNAMIC_BUILD). Each variant
 * re-execs itself by its full path and checks in the child: AT_PHDR holds
 * the program headers of its own file, AT_PHENT and AT_PHNUM match them,
 * AT_ENTRY is _start, AT_BASE is 0 without PT_INTERP and else the ELF
 * header of the loader, AT_RANDOM 16 bytes not all zero, AT_EXECFN the
 * path execve was given, AT_PAGESZ, AT_CLKTCK, the ids, AT_SECURE 0,
 * AT_PLATFORM "x86_64", AT_HWCAP CPUID.1:EDX.
 *
 * The dynamic variant also dlopens libm and calls cos(), sees the loader
 * refuse a copy of libm with a segment off its page, and attacks the
 * kernel's loading of the interpreter with copies of itself whose PT_INTERP names: a text file
 * (ELIBBAD), Debian's loader cut to 100 bytes, inside its program headers
 * (ELIBBAD), cut to 32 bytes, shorter than an ELF header (EIO), a copy not
 * executable (EACCES), and a copy of the loader that itself names a
 * missing interpreter (Linux ignores that one: the program runs).
 *
 * Runs on the Linux host, on Linux 6.1 and on nohzk (scenario dynamic,
 * the three builds in one boot). */
#define _GNU_SOURCE
#include <cpuid.h>
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#ifdef DYNAMIC_BUILD
#include <dlfcn.h>
#endif

#include "testlib.h"
#include "ktap.h"

#define LOADER "/lib64/ld-linux-x86-64.so.2"

extern char _start[];
static char self[PATH_MAX], directory[64];

/* An entry of the vector as execve left it, after the environment's
 * NULL (glibc's getauxval(AT_HWCAP) gives its own x86 bits instead). */
static unsigned long raw_auxval(unsigned long type)
{
    char **end = environ;
    while (*end)
        end++;
    for (unsigned long *entry = (unsigned long *)(end + 1); entry[0] != AT_NULL; entry += 2)
        if (entry[0] == type)
            return entry[1];
    return 0;
}

/* The child's checks: 0 when all hold, else the number of the first that
 * failed (its exit status, printed by the parent). */
static int check_own_auxv(const char *path_given)
{
    Elf64_Ehdr header;
    int fd = open("/proc/self/exe", O_RDONLY);
    if (fd < 0 || pread(fd, &header, sizeof(header), 0) != sizeof(header))
        return 1;
    size_t table = (size_t)header.e_phnum * sizeof(Elf64_Phdr);
    Elf64_Phdr *phdrs = malloc(table);
    if (!phdrs || pread(fd, phdrs, table, (off_t)header.e_phoff) != (ssize_t)table)
        return 2;
    close(fd);
    const void *in_memory = (const void *)getauxval(AT_PHDR);
    if (!in_memory || memcmp(in_memory, phdrs, table) != 0)
        return 3;
    if (getauxval(AT_PHENT) != sizeof(Elf64_Phdr) || getauxval(AT_PHNUM) != header.e_phnum)
        return 4;
    if (getauxval(AT_ENTRY) != (unsigned long)_start)
        return 5;
    int has_interp = 0;
    for (int i = 0; i < header.e_phnum; i++)
        has_interp |= phdrs[i].p_type == PT_INTERP;
    const unsigned char *base = (const unsigned char *)getauxval(AT_BASE);
    if (has_interp ? !base || memcmp(base, ELFMAG, SELFMAG) != 0 || ((const Elf64_Ehdr *)base)->e_type != ET_DYN
                   : base != 0)
        return 6;
    const unsigned char *random = (const unsigned char *)getauxval(AT_RANDOM);
    unsigned char any = 0;
    for (int i = 0; random && i < 16; i++)
        any |= random[i];
    if (!random || !any)
        return 7;
    const char *execfn = (const char *)getauxval(AT_EXECFN);
    if (!execfn || strcmp(execfn, path_given) != 0)
        return 8;
    if (getauxval(AT_PAGESZ) != 4096 || getauxval(AT_CLKTCK) != (unsigned long)sysconf(_SC_CLK_TCK))
        return 9;
    if (getauxval(AT_UID) != getuid() || getauxval(AT_EUID) != geteuid() || getauxval(AT_GID) != getgid() ||
        getauxval(AT_EGID) != getegid() || getauxval(AT_SECURE) != 0)
        return 10;
    const char *platform = (const char *)getauxval(AT_PLATFORM);
    if (!platform || strcmp(platform, "x86_64") != 0)
        return 11;
    unsigned a, b, c, d;
    __cpuid(1, a, b, c, d);
    if (raw_auxval(AT_HWCAP) != d)
        return 12;
    return 0;
}

/* Runs path (a copy of this program, or itself) as a child that checks
 * its auxv; its exit status, or -1 if execve failed (errno kept in
 * *exec_errno), -2 if it died of a signal. */
static int run_child(const char *path, int *exec_errno)
{
    int pipe_fds[2];
    if (pipe(pipe_fds) < 0)
        return -3;
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        close(pipe_fds[0]);
        char *argv[] = { "auxv-child", "--child", (char *)path, NULL };
        char *envp[] = { NULL };
        execve(path, argv, envp);
        int error = errno;
        if (write(pipe_fds[1], &error, sizeof(error)) != sizeof(error))
            _exit(126);
        _exit(127);
    }
    close(pipe_fds[1]);
    int error = 0;
    ssize_t got = read(pipe_fds[0], &error, sizeof(error));
    close(pipe_fds[0]);
    int status = wait_status(child);
    *exec_errno = got == sizeof(error) ? error : 0;
    if (got == sizeof(error))
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -2;
}

static int auxv_describes_the_program(void)
{
    int exec_errno = 0;
    int status = run_child(self, &exec_errno);
    if (status != 0)
        printf("# child: status %d, execve errno %d\n", status, exec_errno);
    CHECK(status == 0);
    return 1;
}

#ifdef DYNAMIC_BUILD
static void path_in(char *out, size_t size, const char *name)
{
    snprintf(out, size, "%s/%s", directory, name);
}

static unsigned char *read_whole(const char *path, size_t *length)
{
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0)
        return NULL;
    unsigned char *bytes = malloc((size_t)st.st_size + PATH_MAX);
    if (bytes && read(fd, bytes, (size_t)st.st_size) != st.st_size) {
        free(bytes);
        bytes = NULL;
    }
    close(fd);
    *length = (size_t)st.st_size;
    return bytes;
}

static int write_file(const char *path, const void *bytes, size_t length, mode_t mode)
{
    unlink(path);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
    if (fd < 0)
        return 0;
    int ok = write(fd, bytes, length) == (ssize_t)length;
    return close(fd) == 0 && ok;
}

/* A header of type `from` becomes `to`, its bytes the string appended
 * at the end of the copy (PT_INTERP's path). */
static int retarget(unsigned char *bytes, size_t *length, uint32_t from, const char *string)
{
    Elf64_Ehdr *header = (Elf64_Ehdr *)bytes;
    Elf64_Phdr *headers = (Elf64_Phdr *)(bytes + header->e_phoff);
    for (int i = 0; i < header->e_phnum; i++) {
        if (headers[i].p_type == from) {
            headers[i].p_type = PT_INTERP;
            headers[i].p_offset = *length;
            headers[i].p_filesz = strlen(string) + 1;
            headers[i].p_align = 1;
            memcpy(bytes + *length, string, strlen(string) + 1);
            *length += strlen(string) + 1;
            return 1;
        }
    }
    return 0;
}

/* A copy of this program whose interpreter is `interpreter`. */
static int write_program_for(const char *name, const char *interpreter)
{
    size_t length;
    unsigned char *bytes = read_whole(self, &length);
    char path[128];
    path_in(path, sizeof(path), name);
    int ok = bytes && retarget(bytes, &length, PT_INTERP, interpreter) && write_file(path, bytes, length, 0755);
    free(bytes);
    return ok;
}

/* A copy of Debian's loader: its first `cut` bytes (0: all), and if
 * `names` is set, a PT_INTERP naming it in place of PT_GNU_STACK. */
/* The loader's second PT_LOAD moved onto its first: the same page offset,
 * so that every alignment rule still holds. */
static int overlap_second_load(unsigned char *bytes)
{
    Elf64_Ehdr *header = (Elf64_Ehdr *)bytes;
    Elf64_Phdr *headers = (Elf64_Phdr *)(bytes + header->e_phoff), *first = NULL;
    for (int i = 0; i < header->e_phnum; i++) {
        if (headers[i].p_type != PT_LOAD)
            continue;
        if (!first) {
            first = &headers[i];
            continue;
        }
        headers[i].p_vaddr = headers[i].p_paddr = first->p_vaddr + (headers[i].p_offset & 0xfff);
        return 1;
    }
    return 0;
}

static int overlap_requested;

static int write_loader_copy(const char *name, size_t cut, const char *names, mode_t mode)
{
    size_t length;
    unsigned char *bytes = read_whole(LOADER, &length);
    char path[128];
    path_in(path, sizeof(path), name);
    int ok = bytes != NULL;
    if (ok && overlap_requested)
        ok = overlap_second_load(bytes);
    if (ok && names)
        ok = retarget(bytes, &length, PT_GNU_STACK, names);
    if (ok && cut)
        length = cut;
    ok = ok && write_file(path, bytes, length, mode);
    free(bytes);
    return ok;
}

/* Runs the copy of this program that names the loader copy `loader`. */
static int exec_with_loader(const char *loader, int *exec_errno)
{
    char interpreter[128], name[64], program[128];
    path_in(interpreter, sizeof(interpreter), loader);
    snprintf(name, sizeof(name), "program-%s", loader);
    path_in(program, sizeof(program), name);
    if (!write_program_for(name, interpreter))
        return -4;
    return run_child(program, exec_errno);
}

static int dlopen_finds_libm(void)
{
    void *libm = dlopen("libm.so.6", RTLD_NOW);
    CHECK(libm != NULL);
    double (*cosine)(double) = (double (*)(double))dlsym(libm, "cos");
    CHECK(cosine != NULL);
    CHECK(cosine(0.0) == 1.0);
    CHECK(dlclose(libm) == 0);
    CHECK(dlopen("libno-such-library.so.1", RTLD_NOW) == NULL);
    return 1;
}

/* A copy of libm whose second PT_LOAD is a byte off its page: the loader
 * refuses it in user mode, with its own message, over nohzk's mmap as
 * over Linux's. */
static int loader_refuses_a_misaligned_library(void)
{
    size_t length;
    unsigned char *bytes = read_whole("/lib/x86_64-linux-gnu/libm.so.6", &length);
    CHECK(bytes != NULL);
    Elf64_Ehdr *header = (Elf64_Ehdr *)bytes;
    Elf64_Phdr *headers = (Elf64_Phdr *)(bytes + header->e_phoff);
    int loads = 0;
    for (int i = 0; i < header->e_phnum; i++)
        if (headers[i].p_type == PT_LOAD && ++loads == 2)
            headers[i].p_offset += 1;
    char path[128];
    path_in(path, sizeof(path), "libmisaligned.so");
    CHECK(loads >= 2 && write_file(path, bytes, length, 0755));
    free(bytes);
    CHECK(dlopen(path, RTLD_NOW) == NULL);
    const char *why = dlerror();
    printf("# dlopen: %s\n", why ? why : "(no message)");
    CHECK(why && strstr(why, "not page-aligned"));
    return 1;
}

static int bad_interpreters_are_refused(void)
{
    int exec_errno = 0;
    char text[200];
    memset(text, 'x', sizeof(text));
    memcpy(text, "not a program\n", 14);
    char path[128];
    path_in(path, sizeof(path), "text");
    CHECK(write_file(path, text, sizeof(text), 0755));
    CHECK(exec_with_loader("text", &exec_errno) == -1 && exec_errno == ELIBBAD);
    CHECK(write_loader_copy("cut100", 100, NULL, 0755));
    CHECK(exec_with_loader("cut100", &exec_errno) == -1 && exec_errno == ELIBBAD);
    CHECK(write_loader_copy("cut32", 32, NULL, 0755));
    CHECK(exec_with_loader("cut32", &exec_errno) == -1 && exec_errno == EIO);
    CHECK(write_loader_copy("not-executable", 0, NULL, 0644));
    CHECK(exec_with_loader("not-executable", &exec_errno) == -1 && exec_errno == EACCES);
    CHECK(exec_with_loader("missing", &exec_errno) == -1 && exec_errno == ENOENT);
    return 1;
}

/* An interpreter whose second segment lies over its first: Linux's
 * load_elf_interp() maps them in order, the second over the first, and
 * the loader dies of its own fault in user mode; nohzk's ELF rules
 * (kernel/process/elf.c: segments ascending and disjoint) refuse it,
 * ELIBBAD for an interpreter. Neither kernel falls over. */
static int an_interpreter_with_overlapping_segments(void)
{
    int exec_errno = 0;
    overlap_requested = 1;
    int written = write_loader_copy("loader-overlapping", 0, NULL, 0755);
    overlap_requested = 0;
    CHECK(written);
    int status = exec_with_loader("loader-overlapping", &exec_errno);
    printf("# child: status %d, execve errno %d\n", status, exec_errno);
    if (on_nohzk())
        CHECK(status == -1 && exec_errno == ELIBBAD);
    else
        CHECK(status == -2 && exec_errno == 0);     /* execve went through; a signal ended it */
    return 1;
}

static int interpreters_interpreter_is_ignored(void)
{
    int exec_errno = 0;
    CHECK(write_loader_copy("loader-with-interp", 0, "/no/such/ld.so", 0755));
    int status = exec_with_loader("loader-with-interp", &exec_errno);
    if (status != 0)
        printf("# child: status %d, execve errno %d\n", status, exec_errno);
    CHECK(status == 0);
    return 1;
}
#endif

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--child") == 0)
        return check_own_auxv(argv[2]);
    static const struct ktap_case cases[] = {
        KTAP_CASE(auxv_describes_the_program),
#ifdef DYNAMIC_BUILD
        KTAP_CASE(dlopen_finds_libm),
        KTAP_CASE(loader_refuses_a_misaligned_library),
        KTAP_CASE(bad_interpreters_are_refused),
        KTAP_CASE(interpreters_interpreter_is_ignored),
        KTAP_CASE(an_interpreter_with_overlapping_segments),
#endif
    };
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 1 || !find_self(argv[0], self, sizeof(self))) {
        printf("# auxv: cannot find this program (argv[0] %s)\n", argc ? argv[0] : "none");
        return 1;
    }
    strcpy(directory, "/tmp/auxv.XXXXXX");
    if (!mkdtemp(directory)) {
        printf("# auxv: cannot make the scratch directory (errno %d)\n", errno);
        return 1;
    }
    int failed = ktap_main(cases, KTAP_COUNT(cases));
    char command[128];
    snprintf(command, sizeof(command), "rm -rf %s", directory);
    if (system(command) != 0)
        printf("# auxv: could not remove %s\n", directory);
    return failed;
}
