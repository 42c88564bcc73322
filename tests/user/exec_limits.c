/* exec_limits: execve's argument limits, its failures, and "#!" scripts,
 * as Linux answers them.
 *
 * Limits (Linux's bprm_stack_limits): the strings (the path included)
 * and one pointer per string must fit in a quarter of RLIMIT_STACK,
 * clamped to [128 KiB, 6 MiB]; one string may take 32 pages with its
 * NUL; and the strings, below one word at the top of the new stack, may
 * not make it grow past RLIMIT_STACK (which matters below 128 KiB). A call at a limit must get past it, one byte more is E2BIG. To see
 * that without starting a program, the call execs an executable file that
 * is no program: ENOEXEC means the arguments were taken (Linux since 6.8
 * opens the file first, 6.1 after copying: both say ENOEXEC last).
 *
 * Failures: each failing execve returns its errno to a caller whose
 * memory, descriptors and handlers are as they were. A vfork child's
 * brk and mmap are the parent's when it gets its memory back.
 *
 * A dynamically linked program whose interpreter is missing is ENOENT,
 * one whose interpreter is no ELF file ELIBBAD (auxv.c runs Debian's
 * loader and its other refusals).
 *
 * Scripts: the interpreter gets its one argument (inner spaces kept), the
 * script's path and the caller's arguments after argv[0]; a missing
 * interpreter is ENOENT, a line with no name ENOEXEC, five nested
 * scripts run and a sixth is ELOOP.
 *
 * Runs on the Linux host and on nohzk (scenarios exec-limits,
 * exec-limits-glibc). */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "testlib.h"
#include "ktap.h"
#include "conform.h"

#define STRING_MAX  (32 * 4096)         /* one string with its NUL */
#define FLOOR       (128 * 1024)
#define CEILING     (6 * 1024 * 1024)
#define CHUNK       100000              /* filler strings' length */

static char self[PATH_MAX], directory[64], not_a_program[128];

/* ---- in the exec'd image ---- */

/* argv: self, "--image", argc wanted, string bytes wanted (NULs included). */
static int run_image(int argc, char **argv)
{
    long want_argc = strtol(argv[2], NULL, 10), want_bytes = strtol(argv[3], NULL, 10), bytes = 0;
    for (int i = 0; i < argc; i++)
        bytes += (long)strlen(argv[i]) + 1;
    if (argc != want_argc || bytes != want_bytes) {
        printf("# image: argc %d, %ld bytes; expected %ld, %ld\n", argc, bytes, want_argc, want_bytes);
        return 1;
    }
    return 0;
}

/* Run by a script: argv[1] is the script line's argument. */
static int run_script_image(int argc, char **argv)
{
    if (strcmp(argv[1], "--depth") == 0)
        return argc == 7 ? 0 : 1;           /* self --depth s5 s4 s3 s2 s1 */
    if (strncmp(argv[1], "--end", 5) == 0)
        return strcmp(argv[1], "--end ") == 0 && argc == 3 ? 0 : 1;
    if (argc != 4 || strcmp(argv[1], "--script  a b") != 0 || strcmp(argv[3], "extra") != 0 ||
        !strstr(argv[2], "/argument")) {
        printf("# script image: argc %d, argv[1] '%s', argv[2] '%s'\n", argc, argv[1], argc > 2 ? argv[2] : "");
        return 1;
    }
    return 0;
}

/* ---- helpers ---- */

static void path_in(char *out, size_t size, const char *name)
{
    snprintf(out, size, "%s/%s", directory, name);
}

static void write_file(const char *name, const void *bytes, size_t length, mode_t mode)
{
    char path[128];
    path_in(path, sizeof(path), name);
    int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, mode);
    if (fd >= 0) {
        if (write(fd, bytes, length) != (ssize_t)length)
            printf("# short write to %s\n", path);
        close(fd);
    }
}

static void write_text(const char *name, const char *text)
{
    write_file(name, text, strlen(text), 0755);
}

/* An argv of strings that, with the path's bytes, cost exactly `total`
 * (strings with their NULs and one pointer each), after `fixed` first
 * strings. Freed by free_argv(). */
static char **argv_costing(size_t total, const char *path, char *const *fixed, size_t fixed_count)
{
    size_t cost = strlen(path) + 1, count = fixed_count;
    for (size_t i = 0; i < fixed_count; i++)
        cost += strlen(fixed[i]) + 1 + sizeof(char *);
    size_t rest = total - cost, fillers = 0;
    for (size_t left = rest; left > 0; fillers++)
        left -= left > CHUNK + 1 + 8 + 9 ? CHUNK + 1 + 8 : left;
    char **argv = calloc(count + fillers + 1, sizeof(char *));
    for (size_t i = 0; i < fixed_count; i++)
        argv[i] = strdup(fixed[i]);
    for (size_t i = 0; i < fillers; i++) {
        size_t step = rest > CHUNK + 1 + 8 + 9 ? CHUNK + 1 + 8 : rest;
        argv[count + i] = malloc(step - 9 + 1);
        memset(argv[count + i], 'a' + i % 26, step - 9);
        argv[count + i][step - 9] = '\0';
        rest -= step;
    }
    return argv;
}

static long argv_bytes(char **argv, int *argc)
{
    long bytes = 0;
    for (*argc = 0; argv[*argc]; (*argc)++)
        bytes += (long)strlen(argv[*argc]) + 1;
    return bytes;
}

static void free_argv(char **argv)
{
    for (size_t i = 0; argv[i]; i++)
        free(argv[i]);
    free(argv);
}

static int set_stack_limit(rlim_t soft)
{
    struct rlimit limit;
    getrlimit(RLIMIT_STACK, &limit);
    if (limit.rlim_max != RLIM_INFINITY && soft > limit.rlim_max)
        return 0;
    limit.rlim_cur = soft;
    return setrlimit(RLIMIT_STACK, &limit) == 0;
}

static char *const no_environment[] = { NULL };

/* Execs not_a_program with arguments costing `total`: its errno. */
static int errno_at_cost(size_t total)
{
    char *first[] = { "x" };
    char **argv = argv_costing(total, not_a_program, first, 1);
    errno = 0;
    syscall(SYS_execve, not_a_program, argv, no_environment);
    int error = errno;
    free_argv(argv);
    return error;
}

/* ENOEXEC at budget, E2BIG one byte past, for a soft RLIMIT_STACK. */
static int budget_is(rlim_t stack_limit, size_t budget)
{
    struct rlimit saved;
    getrlimit(RLIMIT_STACK, &saved);
    if (!set_stack_limit(stack_limit)) {
        ktap_skip_reason = "cannot set RLIMIT_STACK";
        return 1;
    }
    int at = errno_at_cost(budget), past = errno_at_cost(budget + 1);
    setrlimit(RLIMIT_STACK, &saved);
    if (at != ENOEXEC || past != E2BIG)
        printf("# RLIMIT_STACK %lu: errno %d at %zu bytes (want ENOEXEC), %d one past (want E2BIG)\n",
               (unsigned long)stack_limit, at, budget, past);
    return at == ENOEXEC && past == E2BIG;
}

#define COUNT_TEXT "000000000000000000000000000000"     /* 30 digits: filling them in changes no length */

/* Runs self as an image with argv: argv[1] "--image", argv[2] and argv[3]
 * writable copies of COUNT_TEXT, where the counts are written. Its exit
 * status, 100 + signal if killed. */
static int run_self(char **argv)
{
    int argc;
    long bytes = argv_bytes(argv, &argc);
    snprintf(argv[2], sizeof(COUNT_TEXT), "%030d", argc);
    snprintf(argv[3], sizeof(COUNT_TEXT), "%030ld", bytes);
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        syscall(SYS_execve, self, argv, no_environment);
        printf("# execve of %s with %d arguments failed (errno %d)\n", self, argc, errno);
        fflush(stdout);
        _exit(99);
    }
    int status = wait_status(child);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
}

/* ---- limits ---- */

static int execve_four_thousand_arguments_run(void)
{
    char **argv = calloc(4001, sizeof(char *));
    char argc_text[] = COUNT_TEXT, bytes_text[] = COUNT_TEXT;
    argv[0] = self, argv[1] = "--image", argv[2] = argc_text, argv[3] = bytes_text;
    for (int i = 4; i < 4000; i++) {
        argv[i] = malloc(16);
        snprintf(argv[i], 16, "arg%d", i);
    }
    int status = run_self(argv);
    for (int i = 4; i < 4000; i++)
        free(argv[i]);
    free(argv);
    CHECK(status == 0);
    return 1;
}

static int execve_one_70000_byte_argument_runs(void)
{
    char *big = malloc(70001);
    memset(big, 'b', 70000);
    big[70000] = '\0';
    char argc_text[] = COUNT_TEXT, bytes_text[] = COUNT_TEXT;
    char *argv[] = { self, "--image", argc_text, bytes_text, big, NULL };
    int status = run_self(argv);
    free(big);
    CHECK(status == 0);
    return 1;
}

/* At the default 8 MiB limit: 2 MiB of arguments start the program. */
static int execve_two_mebibytes_of_arguments_run(void)
{
    struct rlimit saved;
    getrlimit(RLIMIT_STACK, &saved);
    if (!set_stack_limit(8 << 20)) {
        ktap_skip_reason = "cannot set RLIMIT_STACK";
        return 1;
    }
    char *fixed[] = { self, "--image", COUNT_TEXT, COUNT_TEXT };
    char **argv = argv_costing(2 << 20, self, fixed, 4);
    int status = run_self(argv);
    free_argv(argv);
    setrlimit(RLIMIT_STACK, &saved);
    CHECK(status == 0);
    return 1;
}

static int execve_longest_string_is_32_pages(void)
{
    char *string = malloc(STRING_MAX + 1);
    memset(string, 's', STRING_MAX);
    string[STRING_MAX - 1] = '\0';                  /* 32 pages with its NUL */
    char *argv[] = { "x", string, NULL };
    EXPECT_ERROR(syscall(SYS_execve, not_a_program, argv, no_environment), ENOEXEC);
    string[STRING_MAX - 1] = 's';
    string[STRING_MAX] = '\0';                      /* one byte more */
    EXPECT_ERROR(syscall(SYS_execve, not_a_program, argv, no_environment), E2BIG);
    char *envp[] = { string, NULL };
    EXPECT_ERROR(syscall(SYS_execve, not_a_program, argv + 2, envp), E2BIG);
    free(string);
    return 1;
}

static int execve_budget_is_a_quarter_of_the_stack_limit(void)
{
    CHECK(budget_is(8 << 20, 2 << 20));
    CHECK(budget_is(4 << 20, 1 << 20));
    return 1;
}

static int execve_budget_is_at_least_128_kib(void)
{
    CHECK(budget_is(256 << 10, FLOOR));
    return 1;
}

/* Execs not_a_program with one argument, the strings (path included)
 * taking `bytes`: its errno. */
static int errno_for_string_bytes(size_t bytes)
{
    size_t length = bytes - (strlen(not_a_program) + 1) - 1;
    char *string = malloc(length + 1);
    memset(string, 'p', length);
    string[length] = '\0';
    char *argv[] = { string, NULL };
    errno = 0;
    syscall(SYS_execve, not_a_program, argv, no_environment);
    int error = errno;
    free(string);
    return error;
}

/* Below 128 KiB of RLIMIT_STACK, Linux's floor holds for the pointers
 * only: the strings fill the new stack from its top word down, and it
 * may not grow past the limit (in pages). */
static int execve_strings_fit_a_small_stack_limit(void)
{
    struct rlimit saved;
    getrlimit(RLIMIT_STACK, &saved);
    CHECK(set_stack_limit(64 << 10));
    int at = errno_for_string_bytes((64 << 10) - 8), past = errno_for_string_bytes((64 << 10) - 7);
    setrlimit(RLIMIT_STACK, &saved);
    if (at != ENOEXEC || past != E2BIG)
        printf("# 64 KiB limit: errno %d for 65528 bytes (want ENOEXEC), %d for one more (want E2BIG)\n", at,
               past);
    CHECK(at == ENOEXEC && past == E2BIG);
    return 1;
}

static int execve_budget_is_at_most_6_mib(void)
{
    CHECK(budget_is(64 << 20, CEILING));
    CHECK(budget_is(RLIM_INFINITY, CEILING));
    return 1;
}

/* The pointers count: 1 + 16383 empty strings cost 16384 * 9 bytes
 * (path aside); at a 128 KiB budget 14564 empty strings are too many. */
static int execve_pointers_count(void)
{
    struct rlimit saved;
    getrlimit(RLIMIT_STACK, &saved);
    CHECK(set_stack_limit(64 << 10));
    size_t count = (FLOOR - (strlen(not_a_program) + 1)) / 9;  /* each: NUL + pointer */
    char **argv = calloc(count + 2, sizeof(char *));
    for (size_t i = 0; i < count + 1; i++)
        argv[i] = "";
    argv[count] = NULL;
    errno = 0;
    syscall(SYS_execve, not_a_program, argv, no_environment);
    int at = errno;
    argv[count] = "";
    errno = 0;
    syscall(SYS_execve, not_a_program, argv, no_environment);
    int past = errno;
    free(argv);
    setrlimit(RLIMIT_STACK, &saved);
    if (at != ENOEXEC || past != E2BIG)
        printf("# %zu empty strings: errno %d (want ENOEXEC); one more: %d (want E2BIG)\n", count, at, past);
    CHECK(at == ENOEXEC && past == E2BIG);
    return 1;
}

/* ---- failures leave the caller as it was ---- */

#define PATTERN_SIZE (256 * 1024)
static unsigned char *heap_pattern, *mapped_pattern;
static volatile unsigned global_pattern = 0x600dcafe;
static int canary_fd = -1;

static unsigned char pattern_byte(size_t i) { return (unsigned char)(i * 31 + 7); }

static void make_state(void)
{
    heap_pattern = malloc(PATTERN_SIZE);
    mapped_pattern = mmap(NULL, PATTERN_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    for (size_t i = 0; i < PATTERN_SIZE; i++)
        heap_pattern[i] = mapped_pattern[i] = pattern_byte(i);
    canary_fd = dup(1);
    signal(SIGUSR1, count_caught);
}

/* Memory, a descriptor and a handler as make_state() left them. */
static int state_intact(const char *after)
{
    for (size_t i = 0; i < PATTERN_SIZE; i++) {
        if (heap_pattern[i] != pattern_byte(i) || mapped_pattern[i] != pattern_byte(i)) {
            printf("# after %s: byte %zu changed\n", after, i);
            return 0;
        }
    }
    caught[SIGUSR1] = 0;
    kill(getpid(), SIGUSR1);
    if (global_pattern != 0x600dcafe || fcntl(canary_fd, F_GETFD) < 0 || caught[SIGUSR1] != 1) {
        printf("# after %s: global %#x, fd %d, handler ran %d times\n", after, global_pattern, canary_fd,
               (int)caught[SIGUSR1]);
        return 0;
    }
    return 1;
}

/* execve(path, argv, envp) fails with `error` (0: any errno), and the
 * caller is intact. */
static int fails_intact(const char *what, const char *path, char *const *argv, char *const *envp, int error)
{
    errno = 0;
    long result = syscall(SYS_execve, path, argv, envp);
    int got = errno;
    if (result != -1 || (error && got != error)) {
        printf("# %s: execve = %ld, errno %d, expected -1 errno %d\n", what, result, got, error);
        return 0;
    }
    return state_intact(what);
}

/* A copy of this program with its ELF header or a program header edited. */
static void write_edited_self(const char *name, void (*edit)(unsigned char *, size_t *), size_t extra)
{
    int fd = open(self, O_RDONLY);
    struct stat st;
    fstat(fd, &st);
    size_t length = (size_t)st.st_size;
    unsigned char *bytes = malloc(length + extra);
    size_t got = 0;
    while (got < length) {
        ssize_t n = read(fd, bytes + got, length - got);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    edit(bytes, &length);
    write_file(name, bytes, length, 0755);
    free(bytes);
}

static void to_aarch64(unsigned char *bytes, size_t *length)
{
    (void)length;
    ((Elf64_Ehdr *)bytes)->e_machine = EM_AARCH64;
}

static void cut_short(unsigned char *bytes, size_t *length)
{
    (void)bytes;
    *length = 100;      /* the header, not the program headers */
}

static const char *interpreter_wanted;

/* PT_GNU_STACK becomes a PT_INTERP naming interpreter_wanted, appended. */
static void add_interpreter(unsigned char *bytes, size_t *length)
{
    Elf64_Ehdr *header = (Elf64_Ehdr *)bytes;
    Elf64_Phdr *headers = (Elf64_Phdr *)(bytes + header->e_phoff);
    for (int i = 0; i < header->e_phnum; i++) {
        if (headers[i].p_type == PT_GNU_STACK) {
            headers[i].p_type = PT_INTERP;
            headers[i].p_offset = *length;
            headers[i].p_filesz = strlen(interpreter_wanted) + 1;
            headers[i].p_flags = PF_R;
            headers[i].p_align = 1;
            memcpy(bytes + *length, interpreter_wanted, strlen(interpreter_wanted) + 1);
            *length += strlen(interpreter_wanted) + 1;
            return;
        }
    }
    printf("# no PT_GNU_STACK in %s to turn into PT_INTERP\n", self);
}

static int execve_bad_programs_return(void)
{
    char *argv[] = { "x", NULL };
    char path[128];
    make_state();
    CHECK(fails_intact("not a program", not_a_program, argv, no_environment, ENOEXEC));
    CHECK(fails_intact("a directory", directory, argv, no_environment, EACCES));
    path_in(path, sizeof(path), "data");
    CHECK(fails_intact("not executable", path, argv, no_environment, EACCES));
    CHECK(fails_intact("no such file", "/no/such/program", argv, no_environment, ENOENT));
    write_edited_self("aarch64", to_aarch64, 0);
    path_in(path, sizeof(path), "aarch64");
    CHECK(fails_intact("another machine's ELF", path, argv, no_environment, ENOEXEC));
    write_edited_self("short", cut_short, 0);
    path_in(path, sizeof(path), "short");
    CHECK(fails_intact("an ELF cut short", path, argv, no_environment, 0));    /* Linux EIO, nohzk EINVAL */
    interpreter_wanted = "/no/such/ld.so";
    write_edited_self("dynamic", add_interpreter, PATH_MAX);
    path_in(path, sizeof(path), "dynamic");
    CHECK(fails_intact("a missing interpreter", path, argv, no_environment, ENOENT));
    static char text[128];      /* longer than an ELF header: shorter is EIO */
    write_text("text", "this is not a program, and it is longer than the 64 bytes of an ELF header\n");
    path_in(text, sizeof(text), "text");
    interpreter_wanted = text;
    write_edited_self("text-interpreter", add_interpreter, PATH_MAX);
    path_in(path, sizeof(path), "text-interpreter");
    CHECK(fails_intact("an interpreter that is no ELF file", path, argv, no_environment, ELIBBAD));
    return 1;
}

static int execve_bad_vectors_return(void)
{
    char *argv[] = { "x", NULL };
    char *kernel_string[] = { "x", (char *)KERNEL_ADDRESS, NULL };
    char *low_non_canonical[] = { "x", (char *)NON_CANONICAL_LOW, NULL };
    char *high_non_canonical[] = { (char *)NON_CANONICAL_HIGH, NULL };
    char *hole = unmapped_page();
    char *unmapped_string[] = { "x", hole, NULL };
    char *before = page_before_hole(PROT_READ | PROT_WRITE);
    memset(before, 'r', PAGE);                      /* no NUL before the hole */
    char *runs_into_hole[] = { "x", before, NULL };
    make_state();
    CHECK(fails_intact("argv in the kernel", not_a_program, (char *const *)KERNEL_ADDRESS, no_environment, EFAULT));
    CHECK(fails_intact("argv non-canonical", not_a_program, (char *const *)NON_CANONICAL_LOW, no_environment, EFAULT));
    CHECK(fails_intact("argv unmapped", not_a_program, (char *const *)hole, no_environment, EFAULT));
    CHECK(fails_intact("a string in the kernel", not_a_program, kernel_string, no_environment, EFAULT));
    CHECK(fails_intact("a string at 2^47", not_a_program, low_non_canonical, no_environment, EFAULT));
    CHECK(fails_intact("a string at 2^63", not_a_program, high_non_canonical, no_environment, EFAULT));
    CHECK(fails_intact("a string unmapped", not_a_program, unmapped_string, no_environment, EFAULT));
    CHECK(fails_intact("a string into a hole", not_a_program, runs_into_hole, no_environment, EFAULT));
    CHECK(fails_intact("envp in the kernel", not_a_program, argv, (char *const *)KERNEL_ADDRESS, EFAULT));
    CHECK(fails_intact("an env string in the kernel", not_a_program, argv, kernel_string + 1, EFAULT));
    CHECK(fails_intact("a path in the kernel", (const char *)KERNEL_ADDRESS, argv, no_environment, EFAULT));
    hole_free(before);
    return 1;
}

/* A vfork child whose exec fails goes on in the parent's memory, and
 * what its brk and mmap did is the parent's afterwards (one mm, on Linux). */
static int vfork_child_brk_and_mmap_are_the_parents(void)
{
    static char *volatile mapped;
    static volatile long child_brk, child_error;
    char *argv[] = { "x", NULL };
    long before = syscall(SYS_brk, 0);
    pid_t child = vfork();
    if (child == 0) {
        child_error = syscall(SYS_execve, not_a_program, argv, no_environment) < 0 ? errno : 0;
        child_brk = syscall(SYS_brk, before + 64 * 1024);
        mapped = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (mapped != MAP_FAILED)
            mapped[0] = 'c';
        _exit(0);
    }
    CHECK(child > 0 && exited_with(wait_status(child), 0));
    CHECK(child_error == ENOEXEC);
    CHECK(child_brk == before + 64 * 1024);
    long now = syscall(SYS_brk, 0);
    if (now != child_brk)
        printf("# brk: %#lx before, the child set %#lx, the parent sees %#lx\n", before, child_brk, now);
    CHECK(now == child_brk);
    CHECK(syscall(SYS_brk, child_brk + 4096) == child_brk + 4096);
    ((volatile char *)child_brk)[100] = 1;          /* the child's heap pages are ours */
    CHECK(mapped != MAP_FAILED && mapped[0] == 'c');
    char *ours = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(ours != MAP_FAILED && ours != mapped);
    CHECK(mapped[0] == 'c');
    CHECK(syscall(SYS_brk, before) == before);
    munmap(ours, PAGE);
    munmap(mapped, PAGE);
    return 1;
}

/* ---- scripts ---- */

/* Runs path with argv in a child: its exit status, 100 + signal, or
 * 200 + errno if the exec failed. */
static int run_script(const char *path, char *const *argv)
{
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        syscall(SYS_execve, path, argv, no_environment);
        _exit(200 + errno);
    }
    int status = wait_status(child);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
}

static int execve_script_runs_its_interpreter(void)
{
    char path[128];
    path_in(path, sizeof(path), "exit7");
    char *argv[] = { path, NULL };
    EXPECT_VALUE(run_script(path, argv), 7);
    return 1;
}

static int execve_script_argument_and_arguments(void)
{
    char path[128], line[PATH_MAX + 64];
    snprintf(line, sizeof(line), "#!  %s   --script  a b  \t\nexit 3\n", self);
    write_text("argument", line);
    path_in(path, sizeof(path), "argument");
    char *argv[] = { "dropped", "extra", NULL };
    EXPECT_VALUE(run_script(path, argv), 0);
    /* No '\n': the line ends at byte 255, so the blank before the file's
     * end stays in the argument (Linux's binfmt_script). */
    snprintf(line, sizeof(line), "#!%s --end ", self);
    write_text("end", line);
    path_in(path, sizeof(path), "end");
    char *no_arguments[] = { path, NULL };
    EXPECT_VALUE(run_script(path, no_arguments), 0);
    return 1;
}

static int execve_script_errors(void)
{
    char path[128], long_line[400];
    char *argv[] = { "x", NULL };
    write_text("missing", "#!/no/such/interpreter\n");
    path_in(path, sizeof(path), "missing");
    EXPECT_ERROR(syscall(SYS_execve, path, argv, no_environment), ENOENT);
    write_text("blank", "#!  \t \nexit 0\n");
    path_in(path, sizeof(path), "blank");
    EXPECT_ERROR(syscall(SYS_execve, path, argv, no_environment), ENOEXEC);
    memset(long_line, 'n', sizeof(long_line));
    memcpy(long_line, "#!/", 3);
    long_line[sizeof(long_line) - 1] = '\0';       /* a name past the 256 bytes read */
    write_text("long", long_line);
    path_in(path, sizeof(path), "long");
    EXPECT_ERROR(syscall(SYS_execve, path, argv, no_environment), ENOEXEC);
    return 1;
}

/* s1 runs s2 ... s5 runs self: five scripts; a sixth (s0) is ELOOP. */
static int execve_scripts_nest_five_deep(void)
{
    char line[PATH_MAX + 32], name[16], path[128];
    snprintf(line, sizeof(line), "#!%s --depth\n", self);
    write_text("s5", line);
    for (int i = 4; i >= 0; i--) {
        snprintf(name, sizeof(name), "s%d", i + 1);
        path_in(path, sizeof(path), name);
        snprintf(line, sizeof(line), "#!%s\n", path);
        snprintf(name, sizeof(name), "s%d", i);
        write_text(name, line);
    }
    path_in(path, sizeof(path), "s1");
    char *argv[] = { path, NULL };
    EXPECT_VALUE(run_script(path, argv), 0);
    path_in(path, sizeof(path), "s0");
    EXPECT_ERROR(syscall(SYS_execve, path, argv, no_environment), ELOOP);
    return 1;
}

/* ---- set-up ---- */

static void remove_all(void)
{
    static const char *const names[] = { "data", "garbage", "aarch64", "short", "dynamic", "interpreted", "exit7", "argument", "end",
                                         "missing", "blank", "long", "s0", "s1", "s2", "s3", "s4", "s5" };
    char path[128];
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        path_in(path, sizeof(path), names[i]);
        unlink(path);
    }
    rmdir(directory);
}

int main(int argc, char **argv)
{
    if (argc >= 4 && strcmp(argv[1], "--image") == 0)
        return run_image(argc, argv);
    if (argc >= 2 && strncmp(argv[1], "--", 2) == 0)
        return run_script_image(argc, argv);
    static const struct ktap_case cases[] = {
        KTAP_CASE(execve_four_thousand_arguments_run), KTAP_CASE(execve_one_70000_byte_argument_runs),
        KTAP_CASE(execve_two_mebibytes_of_arguments_run), KTAP_CASE(execve_longest_string_is_32_pages),
        KTAP_CASE(execve_budget_is_a_quarter_of_the_stack_limit), KTAP_CASE(execve_budget_is_at_least_128_kib),
        KTAP_CASE(execve_budget_is_at_most_6_mib), KTAP_CASE(execve_strings_fit_a_small_stack_limit), KTAP_CASE(execve_pointers_count),
        KTAP_CASE(execve_bad_programs_return), KTAP_CASE(execve_bad_vectors_return),
        KTAP_CASE(vfork_child_brk_and_mmap_are_the_parents),
        KTAP_CASE(execve_script_runs_its_interpreter), KTAP_CASE(execve_script_argument_and_arguments),
        KTAP_CASE(execve_script_errors), KTAP_CASE(execve_scripts_nest_five_deep),
    };
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 1 || !find_self(argv[0], self, sizeof(self))) {
        printf("# exec_limits: cannot find this program (argv[0] %s)\n", argc ? argv[0] : "none");
        return 1;
    }
    strcpy(directory, "/tmp/exec_limits.XXXXXX");
    if (!mkdtemp(directory)) {
        printf("# exec_limits: cannot make the scratch directory (errno %d)\n", errno);
        return 1;
    }
    write_file("data", "data\n", 5, 0644);
    write_text("garbage", "this is not a program\n");
    write_text("exit7", "#!/bin/sh\nexit 7\n");
    path_in(not_a_program, sizeof(not_a_program), "garbage");
    int status = conform_main(cases, KTAP_COUNT(cases));
    remove_all();
    return status;
}
