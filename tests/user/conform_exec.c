/* conform_exec: execve's errors, and the state a new program starts with,
 * compared with Linux's (see conform.h). Each state case sets something
 * up, forks, and the child execs this same program with CONFORM_EXEC_CASE
 * in its environment: the new image checks what it was given (signal
 * mask, handlers, ignored signals, pending signals, descriptors, umask,
 * working directory, limits, timers, the initial stack: argc, argv, envp
 * and the auxiliary vector) and exits 0, or prints why and exits 1. Runs
 * on the Linux host (tests/run: host-conform_exec.*) and on nohzk
 * (scenarios conform-exec, conform-exec-glibc). */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>

#include "ktap.h"
#include "conform.h"

#define CASE_VARIABLE "CONFORM_EXEC_CASE"
#define DETAIL_VARIABLE "CONFORM_EXEC_DETAIL"
#define INHERITED_FD 10
#define CLOSED_ON_EXEC_FD 11

static char self[PATH_MAX], directory[64];
static int new_argc;
static char **new_argv, **new_envp;

static uint64_t bit(int signal) { return 1ul << (signal - 1); }

static void handler(int signal) { (void)signal; }

/* ---- in the new program ---- */

#define REQUIRE(condition)                                                                   \
    do {                                                                                     \
        if (!(condition)) {                                                                  \
            printf("# exec'd image: %s:%d: %s failed (errno %d)\n", __FILE__, __LINE__, #condition, errno); \
            return 1;                                                                        \
        }                                                                                    \
    } while (0)

static const char *detail(void)
{
    const char *value = getenv(DETAIL_VARIABLE);
    return value ? value : "";
}

static int image_signal_mask(void)
{
    uint64_t mask = 0;
    REQUIRE(syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &mask, 8) == 0);
    REQUIRE((mask & (bit(SIGUSR1) | bit(SIGUSR2))) == (bit(SIGUSR1) | bit(SIGUSR2)));
    return 0;
}

static int image_handlers(void)
{
    struct kernel_sigaction action;
    REQUIRE(syscall(SYS_rt_sigaction, SIGUSR1, NULL, &action, 8) == 0);
    REQUIRE(action.handler == SIG_DFL);
    REQUIRE(syscall(SYS_rt_sigaction, SIGUSR2, NULL, &action, 8) == 0);
    REQUIRE(action.handler == SIG_IGN);
    return 0;
}

static int image_ignored_flags(void)
{
    struct kernel_sigaction action;
    REQUIRE(syscall(SYS_rt_sigaction, SIGUSR2, NULL, &action, 8) == 0);
    REQUIRE(action.handler == SIG_IGN);
    REQUIRE(action.mask == 0);
    REQUIRE(action.flags == 0);
    return 0;
}

static int image_pending(void)
{
    uint64_t pending = 0;
    REQUIRE(syscall(SYS_rt_sigpending, &pending, 8) == 0);
    REQUIRE(pending & bit(SIGUSR1));
    return 0;
}

static int image_descriptors(void)
{
    char byte = 0;
    REQUIRE(fcntl(INHERITED_FD, F_GETFD) == 0);
    REQUIRE(read(INHERITED_FD, &byte, 1) == 1 && byte == '3');     /* the position is shared */
    errno = 0;
    REQUIRE(fcntl(CLOSED_ON_EXEC_FD, F_GETFD) == -1 && errno == EBADF);
    return 0;
}

static int image_umask(void)
{
    REQUIRE(umask(0) == 027);
    return 0;
}

static int image_cwd(void)
{
    char cwd[PATH_MAX];
    REQUIRE(getcwd(cwd, sizeof(cwd)) && strcmp(cwd, detail()) == 0);
    return 0;
}

static int image_limits(void)
{
    struct rlimit limit;
    REQUIRE(getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur == 100);
    return 0;
}

static int image_alarm(void)
{
    unsigned left = alarm(0);
    REQUIRE(left > 0 && left <= 1000);
    return 0;
}

static int image_sigaltstack(void)
{
    stack_t stack;
    REQUIRE(syscall(SYS_sigaltstack, NULL, &stack) == 0);
    REQUIRE(stack.ss_flags == SS_DISABLE);
    return 0;
}

/* argc sits at the initial stack pointer, 16-byte aligned; argv, its NULL,
 * envp and its NULL follow. */
static int image_stack_layout(void)
{
    long *initial = (long *)new_argv - 1;
    REQUIRE((uintptr_t)initial % 16 == 0);
    REQUIRE(*initial == new_argc);
    REQUIRE(new_argc == 4);
    REQUIRE(strcmp(new_argv[1], "") == 0);     /* an empty argument is kept */
    REQUIRE(strcmp(new_argv[2], "second") == 0 && strlen(new_argv[3]) == 3000);
    REQUIRE(new_argv[new_argc] == NULL);
    REQUIRE(new_envp == new_argv + new_argc + 1);
    REQUIRE(getenv("CONFORM_EMPTY") && getenv("CONFORM_EMPTY")[0] == '\0');
    return 0;
}

static Elf64_auxv_t *auxiliary_vector(void)
{
    char **env = new_envp;
    while (*env)
        env++;
    return (Elf64_auxv_t *)(env + 1);
}

static unsigned long aux(uint64_t type, int *found)
{
    for (Elf64_auxv_t *entry = auxiliary_vector(); entry->a_type != AT_NULL; entry++) {
        if (entry->a_type == type) {
            *found = 1;
            return entry->a_un.a_val;
        }
    }
    *found = 0;
    return 0;
}

static int image_auxv(void)
{
    int found;
    REQUIRE(aux(AT_PAGESZ, &found) == 4096 && found);
    REQUIRE(aux(AT_CLKTCK, &found) == 100 && found);
    REQUIRE(aux(AT_UID, &found) == getuid() && found);
    REQUIRE(aux(AT_EUID, &found) == geteuid() && found);
    REQUIRE(aux(AT_GID, &found) == getgid() && found);
    REQUIRE(aux(AT_EGID, &found) == getegid() && found);
    REQUIRE(aux(AT_SECURE, &found) == 0 && found);
    REQUIRE(aux(AT_PHENT, &found) == sizeof(Elf64_Phdr) && found);
    unsigned long count = aux(AT_PHNUM, &found);
    REQUIRE(count > 0 && found);
    const Elf64_Phdr *headers = (const Elf64_Phdr *)aux(AT_PHDR, &found);
    REQUIRE(headers && found);
    int loads = 0;
    for (unsigned long i = 0; i < count; i++)
        loads += headers[i].p_type == PT_LOAD;
    REQUIRE(loads > 0);
    REQUIRE(aux(AT_ENTRY, &found) != 0 && found);
    const char *platform = (const char *)aux(AT_PLATFORM, &found);
    REQUIRE(platform && found && strcmp(platform, "x86_64") == 0);
    aux(AT_HWCAP, &found);
    REQUIRE(found);
    return 0;
}

/* AT_RANDOM: 16 bytes on the stack, not all zero. */
static int image_at_random(void)
{
    int found;
    const unsigned char *bytes = (const unsigned char *)aux(AT_RANDOM, &found);
    REQUIRE(bytes && found);
    REQUIRE((uintptr_t)bytes > (uintptr_t)new_argv);
    int nonzero = 0;
    for (int i = 0; i < 16; i++)
        nonzero |= bytes[i];
    REQUIRE(nonzero);
    return 0;
}

static int image_execfn(void)
{
    int found;
    const char *name = (const char *)aux(AT_EXECFN, &found);
    REQUIRE(found && name && strcmp(name, self) == 0);
    return 0;
}

/* Since Linux 5.18 an empty argv gets one empty string as argv[0]. */
static int image_empty_argv(void)
{
    REQUIRE(new_argc == 1);
    REQUIRE(new_argv[0] && new_argv[0][0] == '\0' && new_argv[1] == NULL);
    return 0;
}

static const struct {
    const char *name;
    int (*check)(void);
} images[] = {
    { "signal_mask", image_signal_mask }, { "handlers", image_handlers }, { "ignored_flags", image_ignored_flags },
    { "pending", image_pending },         { "descriptors", image_descriptors }, { "umask", image_umask },
    { "cwd", image_cwd },                 { "limits", image_limits },   { "alarm", image_alarm },
    { "sigaltstack", image_sigaltstack }, { "stack_layout", image_stack_layout }, { "auxv", image_auxv },
    { "at_random", image_at_random },     { "execfn", image_execfn },   { "empty_argv", image_empty_argv },
};

static int run_image(const char *name)
{
    for (size_t i = 0; i < sizeof(images) / sizeof(images[0]); i++) {
        if (strcmp(images[i].name, name) == 0) {
            int status = images[i].check();
            fflush(stdout);
            return status;
        }
    }
    printf("# exec'd image: no check named %s\n", name);
    return 1;
}

/* ---- in the test ---- */

/* Forks; the child runs prepare() (if any), then execs this program for
 * the check `name` with argv (NULL: just the program's path) and the
 * detail string. Returns the child's exit status, or 100 + its signal. */
static int exec_check(const char *name, void (*prepare)(void), char *const *argv, const char *detail_value)
{
    char case_variable[64], detail_variable[PATH_MAX + 32], self_variable[PATH_MAX + 32];
    snprintf(case_variable, sizeof(case_variable), CASE_VARIABLE "=%s", name);
    snprintf(detail_variable, sizeof(detail_variable), DETAIL_VARIABLE "=%s", detail_value ? detail_value : "");
    snprintf(self_variable, sizeof(self_variable), "CONFORM_EXEC_SELF=%s", self);
    char *envp[] = { case_variable, detail_variable, self_variable, "CONFORM_EMPTY=", NULL };
    char *default_argv[] = { self, NULL };
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        if (prepare)
            prepare();
        syscall(SYS_execve, self, argv ? argv : default_argv, envp);
        printf("# execve of %s failed (errno %d)\n", self, errno);
        fflush(stdout);
        _exit(99);
    }
    int status = 0;
    if (waitpid(child, &status, 0) != child)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
}

static void block_usr1_usr2(void)
{
    uint64_t mask = bit(SIGUSR1) | bit(SIGUSR2);
    syscall(SYS_rt_sigprocmask, SIG_BLOCK, &mask, NULL, 8);
}

static int execve_keeps_the_signal_mask(void)
{
    EXPECT_VALUE(exec_check("signal_mask", block_usr1_usr2, NULL, NULL), 0);
    return 1;
}

static void catch_usr1_ignore_usr2(void)
{
    signal(SIGUSR1, handler);
    signal(SIGUSR2, SIG_IGN);
}

static int execve_resets_handlers_keeps_ignored(void)
{
    EXPECT_VALUE(exec_check("handlers", catch_usr1_ignore_usr2, NULL, NULL), 0);
    return 1;
}

static void ignore_with_flags(void)
{
    struct kernel_sigaction action = { SIG_IGN, SA_RESTART | SA_NODEFER, NULL, bit(SIGTERM) };
    syscall(SYS_rt_sigaction, SIGUSR2, &action, NULL, 8);
}

/* An ignored signal stays ignored, but its flags and mask are cleared. */
static int execve_clears_flags_of_ignored(void)
{
    NOHZK_DIFFERS("nohzk differs: an ignored signal keeps its sa_flags and sa_mask across execve");
    EXPECT_VALUE(exec_check("ignored_flags", ignore_with_flags, NULL, NULL), 0);
    return 1;
}

static void leave_usr1_pending(void)
{
    block_usr1_usr2();
    kill(getpid(), SIGUSR1);
}

static int execve_keeps_pending_signals(void)
{
    EXPECT_VALUE(exec_check("pending", leave_usr1_pending, NULL, NULL), 0);
    return 1;
}

static void open_two_descriptors(void)
{
    char path[128];
    snprintf(path, sizeof(path), "%s/data", directory);
    int fd = open(path, O_RDONLY);
    char bytes[3];
    read(fd, bytes, 3);     /* the new image reads on from 3 */
    dup2(fd, INHERITED_FD);
    dup3(fd, CLOSED_ON_EXEC_FD, O_CLOEXEC);
    close(fd);
}

static int execve_keeps_descriptors_without_cloexec(void)
{
    EXPECT_VALUE(exec_check("descriptors", open_two_descriptors, NULL, NULL), 0);
    return 1;
}

static void set_umask(void) { umask(027); }

static int execve_keeps_the_umask(void)
{
    EXPECT_VALUE(exec_check("umask", set_umask, NULL, NULL), 0);
    return 1;
}

static void enter_directory(void) { chdir(directory); }

static int execve_keeps_the_working_directory(void)
{
    EXPECT_VALUE(exec_check("cwd", enter_directory, NULL, directory), 0);
    return 1;
}

static void lower_nofile(void)
{
    struct rlimit limit = { 100, 200 };
    setrlimit(RLIMIT_NOFILE, &limit);
}

static int execve_keeps_limits(void)
{
    EXPECT_VALUE(exec_check("limits", lower_nofile, NULL, NULL), 0);
    return 1;
}

static void arm_alarm(void) { alarm(1000); }

/* ITIMER_REAL (alarm) survives execve. */
static int execve_keeps_the_alarm(void)
{
    EXPECT_VALUE(exec_check("alarm", arm_alarm, NULL, NULL), 0);
    return 1;
}

static void set_alternate_stack(void)
{
    static char stack_memory[65536];
    stack_t stack = { .ss_sp = stack_memory, .ss_size = sizeof(stack_memory), .ss_flags = 0 };
    sigaltstack(&stack, NULL);
}

/* The alternate signal stack is not inherited by the new program. */
static int execve_resets_the_alternate_stack(void)
{
    EXPECT_VALUE(exec_check("sigaltstack", set_alternate_stack, NULL, NULL), 0);
    return 1;
}

static int execve_initial_stack_layout(void)
{
    static char long_argument[3001];
    memset(long_argument, 'a', 3000);
    char *argv[] = { self, "", "second", long_argument, NULL };
    EXPECT_VALUE(exec_check("stack_layout", NULL, argv, NULL), 0);
    return 1;
}

static int execve_auxiliary_vector(void)
{
    EXPECT_VALUE(exec_check("auxv", NULL, NULL, NULL), 0);
    return 1;
}

static int execve_at_random(void)
{
    EXPECT_VALUE(exec_check("at_random", NULL, NULL, NULL), 0);
    return 1;
}

static int execve_at_execfn(void)
{
    NOHZK_DIFFERS("nohzk differs: no AT_EXECFN in the auxiliary vector");
    EXPECT_VALUE(exec_check("execfn", NULL, NULL, NULL), 0);
    return 1;
}

static int execve_empty_argv(void)
{
    char *argv[] = { NULL };
    EXPECT_VALUE(exec_check("empty_argv", NULL, argv, NULL), 0);
    return 1;
}

/* ---- execve's errors (the caller goes on) ---- */

static int execve_bad_path(void)
{
    char *argv[] = { "x", NULL };
    static char path[PATH_MAX + 2];
    EXPECT_ERROR(syscall(SYS_execve, NULL, argv, NULL), EFAULT);
    EXPECT_ERROR(syscall(SYS_execve, KERNEL_ADDRESS, argv, NULL), EFAULT);
    EXPECT_ERROR(syscall(SYS_execve, "", argv, NULL), ENOENT);
    EXPECT_ERROR(syscall(SYS_execve, "/no/such/program", argv, NULL), ENOENT);
    snprintf(path, sizeof(path), "%s/", self);
    EXPECT_ERROR(syscall(SYS_execve, path, argv, NULL), ENOTDIR);
    return 1;
}

static int execve_not_executable(void)
{
    char *argv[] = { "x", NULL };
    char path[128];
    snprintf(path, sizeof(path), "%s/data", directory);
    EXPECT_ERROR(syscall(SYS_execve, path, argv, NULL), EACCES);
    EXPECT_ERROR(syscall(SYS_execve, directory, argv, NULL), EACCES);
    return 1;
}

/* Executable, but neither ELF nor a #! script. */
static int execve_not_a_program(void)
{
    char *argv[] = { "x", NULL };
    char path[128];
    snprintf(path, sizeof(path), "%s/garbage", directory);
    EXPECT_ERROR(syscall(SYS_execve, path, argv, NULL), ENOEXEC);
    return 1;
}

static int execve_bad_vectors(void)
{
    char *bad_element[] = { (char *)KERNEL_ADDRESS, NULL };
    char *argv[] = { self, NULL };
    EXPECT_ERROR(syscall(SYS_execve, self, KERNEL_ADDRESS, NULL), EFAULT);
    EXPECT_ERROR(syscall(SYS_execve, self, bad_element, NULL), EFAULT);
    EXPECT_ERROR(syscall(SYS_execve, self, argv, KERNEL_ADDRESS), EFAULT);
    EXPECT_ERROR(syscall(SYS_execve, self, argv, bad_element), EFAULT);
    EXPECT_ERROR(syscall(SYS_execve, self, unmapped_page(), NULL), EFAULT);
    return 1;
}

/* One string longer than MAX_ARG_STRLEN (32 pages). */
static int execve_argument_too_long(void)
{
    static char huge[40 * 4096];
    memset(huge, 'h', sizeof(huge) - 1);
    char *argv[] = { self, huge, NULL };
    EXPECT_ERROR(syscall(SYS_execve, self, argv, NULL), E2BIG);
    return 1;
}

static int execve_script(void)
{
    char path[128];
    snprintf(path, sizeof(path), "%s/script", directory);
    char *argv[] = { path, NULL };
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        syscall(SYS_execve, path, argv, NULL);
        _exit(errno == ENOEXEC ? 98 : 99);
    }
    int status = 0;
    EXPECT_VALUE(waitpid(child, &status, 0), child);
    EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 7);
    return 1;
}

/* ---- set-up ---- */

static void write_file(const char *name, const char *text, mode_t mode)
{
    char path[128];
    snprintf(path, sizeof(path), "%s/%s", directory, name);
    int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, mode);
    if (fd >= 0) {
        write(fd, text, strlen(text));
        close(fd);
    }
}

static void remove_file(const char *name)
{
    char path[128];
    snprintf(path, sizeof(path), "%s/%s", directory, name);
    unlink(path);
}

int main(int argc, char **argv, char **envp)
{
    new_argc = argc, new_argv = argv, new_envp = envp;
    const char *image = getenv(CASE_VARIABLE);
    if (image) {
        snprintf(self, sizeof(self), "%s", getenv("CONFORM_EXEC_SELF") ? getenv("CONFORM_EXEC_SELF") : "");
        return run_image(image);
    }
    static const struct ktap_case cases[] = {
        KTAP_CASE(execve_keeps_the_signal_mask), KTAP_CASE(execve_resets_handlers_keeps_ignored),
        KTAP_CASE(execve_clears_flags_of_ignored), KTAP_CASE(execve_keeps_pending_signals),
        KTAP_CASE(execve_keeps_descriptors_without_cloexec), KTAP_CASE(execve_keeps_the_umask),
        KTAP_CASE(execve_keeps_the_working_directory), KTAP_CASE(execve_keeps_limits),
        KTAP_CASE(execve_keeps_the_alarm), KTAP_CASE(execve_resets_the_alternate_stack),
        KTAP_CASE(execve_initial_stack_layout), KTAP_CASE(execve_auxiliary_vector), KTAP_CASE(execve_at_random),
        KTAP_CASE(execve_at_execfn), KTAP_CASE(execve_empty_argv),
        KTAP_CASE(execve_bad_path), KTAP_CASE(execve_not_executable), KTAP_CASE(execve_not_a_program),
        KTAP_CASE(execve_bad_vectors), KTAP_CASE(execve_argument_too_long), KTAP_CASE(execve_script),
    };
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 1 || !find_self(argv[0], self, sizeof(self))) {
        printf("# conform_exec: cannot find this program (argv[0] %s)\n", argc ? argv[0] : "none");
        return 1;
    }
    strcpy(directory, "/tmp/conform_exec.XXXXXX");
    if (!mkdtemp(directory)) {
        printf("# conform_exec: cannot make the scratch directory (errno %d)\n", errno);
        return 1;
    }
    write_file("data", "0123456789", 0644);
    write_file("garbage", "this is not a program\n", 0755);
    write_file("script", "#!/bin/sh\nexit 7\n", 0755);
    int status = conform_main(cases, KTAP_COUNT(cases));
    remove_file("data");
    remove_file("garbage");
    remove_file("script");
    rmdir(directory);
    return status;
}
