/* canonical: the ways back to user mode a program can aim at an address or
 * state the return cannot take, and what Linux does about each. The last
 * user page (below 2^47) is never mapped (Linux's TASK_SIZE_MAX): mmap
 * MAP_FIXED there fails with ENOMEM, an FS base there (arch_prctl) with
 * EPERM, and a program with a segment there never runs. A signal handler or sa_restorer at a non-canonical or kernel
 * address, and rt_sigreturn frames with a bad RIP, CS, SS, RSP or FPU
 * pointer, or lying where they cannot be read, kill only the program with
 * SIGSEGV (a bad RSP: SIGBUS too on hardware, stack_fault_kills()); the
 * parent sees the status, and the kernel lives on. Prints
 * KTAP; runs on the Linux host (tests/run: host-canonical.*) and on nohzk
 * (scenarios "canonical", "canonical-glibc"). */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include "ktap.h"
#include "testlib.h"

#define LAST_PAGE       0x7ffffffff000ul    /* the page below 2^47 */
#define NON_CANONICAL   0x800000000000ul    /* 2^47, the first non-canonical address */
#define KERNEL_ADDRESS  0xffffffff81000000ul
#define PAGE            4096ul
#define UC_STRICT_RESTORE_SS 0x4ul
#define KERNEL_SA_RESTORER 0x04000000ul
#define SI_KERNEL_CODE  0x80
#define EXEC_FAILED     99

static char **saved_argv;

/* ---- the last page cannot be mapped ---- */

static int mmap_fixed_fails(uint64_t address, uint64_t length, int expected_errno)
{
    errno = 0;
    void *p = mmap((void *)address, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (p != MAP_FAILED || errno != expected_errno) {
        printf("# mmap(%#lx, %#lx, MAP_FIXED) = %p, errno %d; expected errno %d\n", (unsigned long)address,
               (unsigned long)length, p, errno, expected_errno);
        return 0;
    }
    return 1;
}

static int mmap_fixed_in_the_last_page_is_enomem(void)
{
    return mmap_fixed_fails(LAST_PAGE, PAGE, ENOMEM) && mmap_fixed_fails(LAST_PAGE + 1, PAGE, ENOMEM) &&
           mmap_fixed_fails(NON_CANONICAL, PAGE, ENOMEM) && mmap_fixed_fails(LAST_PAGE - PAGE, 2 * PAGE, ENOMEM);
}

/* A refused MAP_FIXED unmaps nothing: on nohzk the page below the last
 * holds the top of the stack, where argv and the environment are. */
static int refused_mmap_fixed_changes_nothing(void)
{
    char before[64];
    snprintf(before, sizeof(before), "%s", saved_argv[0]);
    CHECK(mmap_fixed_fails(LAST_PAGE - PAGE, 2 * PAGE, ENOMEM));
    CHECK(strcmp(before, saved_argv[0]) == 0);
    return 1;
}

/* Without MAP_FIXED the address is a hint, and the mapping goes elsewhere. */
static int mmap_hint_in_the_last_page_maps_below(void)
{
    char *p = mmap((void *)LAST_PAGE, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(p != MAP_FAILED);
    CHECK((uint64_t)p + PAGE <= LAST_PAGE);
    p[0] = 1;
    CHECK(munmap(p, PAGE) == 0);
    return 1;
}

static int mprotect_of_the_last_page_is_enomem(void)
{
    errno = 0;
    CHECK(mprotect((void *)LAST_PAGE, PAGE, PROT_READ) == -1 && errno == ENOMEM);
    return 1;
}

#define ARCH_SET_FS 0x1002
#define ARCH_GET_FS 0x1003

/* arch_prctl(ARCH_SET_FS, base) by hand: a base that is taken replaces the
 * C library's thread pointer (errno with it), so it is put back at once. */
static long set_fs_and_put_back(uint64_t base, uint64_t *seen)
{
    uint64_t old = 0;
    long result;
    __asm__ volatile("syscall" : "=a"(result) : "a"((long)SYS_arch_prctl), "D"((long)ARCH_GET_FS), "S"(&old)
                     : "rcx", "r11", "memory");
    __asm__ volatile("syscall" : "=a"(result) : "a"((long)SYS_arch_prctl), "D"((long)ARCH_SET_FS), "S"(base)
                     : "rcx", "r11", "memory");
    long ignored;
    __asm__ volatile("syscall" : "=a"(ignored) : "a"((long)SYS_arch_prctl), "D"((long)ARCH_GET_FS), "S"(seen)
                     : "rcx", "r11", "memory");
    __asm__ volatile("syscall" : "=a"(ignored) : "a"((long)SYS_arch_prctl), "D"((long)ARCH_SET_FS), "S"(old)
                     : "rcx", "r11", "memory");
    (void)ignored;
    return result;
}

/* Linux takes an FS base below TASK_SIZE_MAX only: not in the last page. */
static int fs_base_in_the_last_page_is_eperm(void)
{
    static const uint64_t refused[] = { LAST_PAGE, LAST_PAGE + PAGE - 1, NON_CANONICAL, KERNEL_ADDRESS };
    uint64_t before = 0, seen = 0;

    CHECK(syscall(SYS_arch_prctl, ARCH_GET_FS, &before) == 0);
    for (unsigned i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        long result = set_fs_and_put_back(refused[i], &seen);
        if (result != -EPERM || seen != before) {
            printf("# ARCH_SET_FS %#lx: %ld, FS base then %#lx (expected %d, %#lx)\n", (unsigned long)refused[i],
                   result, (unsigned long)seen, -EPERM, (unsigned long)before);
            return 0;
        }
    }
    long result = set_fs_and_put_back(LAST_PAGE - 8, &seen);
    if (result != 0 || seen != LAST_PAGE - 8) {
        printf("# ARCH_SET_FS %#lx: %ld, FS base then %#lx\n", LAST_PAGE - 8, result, (unsigned long)seen);
        return 0;
    }
    return 1;
}

/* A one-segment static program at base, memsz bytes, whose entry (at
 * base + 0x100) calls exit(7). */
static int write_program(const char *path, uint64_t base, uint64_t memsz)
{
    static unsigned char image[0x200];
    static const unsigned char exit_7[] = {0xb8, 60, 0, 0, 0, 0xbf, 7, 0, 0, 0, 0x0f, 0x05};
    Elf64_Ehdr *h = (Elf64_Ehdr *)image;
    Elf64_Phdr *ph = (Elf64_Phdr *)(image + sizeof(*h));

    memset(image, 0, sizeof(image));
    memcpy(h->e_ident, ELFMAG, SELFMAG);
    h->e_ident[EI_CLASS] = ELFCLASS64;
    h->e_ident[EI_DATA] = ELFDATA2LSB;
    h->e_ident[EI_VERSION] = EV_CURRENT;
    h->e_type = ET_EXEC;
    h->e_machine = EM_X86_64;
    h->e_version = EV_CURRENT;
    h->e_entry = base + 0x100;
    h->e_phoff = sizeof(*h);
    h->e_ehsize = sizeof(*h);
    h->e_phentsize = sizeof(*ph);
    h->e_phnum = 1;
    *ph = (Elf64_Phdr){.p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_vaddr = base, .p_paddr = base,
                       .p_filesz = sizeof(image), .p_memsz = memsz, .p_align = PAGE};
    memcpy(image + 0x100, exit_7, sizeof(exit_7));
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
    if (fd < 0)
        return 0;
    int ok = write(fd, image, sizeof(image)) == (ssize_t)sizeof(image);
    return close(fd) == 0 && ok;
}

/* The status of a child that execs path (EXEC_FAILED if execve fails). */
static int run_program(const char *path)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        char *argv[] = {(char *)path, NULL};
        execve(path, argv, argv + 1);
        _exit(EXEC_FAILED);
    }
    int status = -1;
    waitpid(pid, &status, 0);
    return status;
}

static int program_in_the_last_page_never_runs(void)
{
    const char *path = "/tmp/canonical-last-page";
    CHECK(write_program(path, 0x400000, PAGE));
    int status = run_program(path);
    CHECK(exited_with(status, 7));          /* the program itself works */
    CHECK(write_program(path, LAST_PAGE, PAGE));
    status = run_program(path);
    unlink(path);
    /* Linux fails after the point of no return (SIGSEGV); nohzk refuses
     * the file before it (execve fails). Either way it never runs. */
    if (WIFEXITED(status) && WEXITSTATUS(status) == EXEC_FAILED)
        return 1;
    CHECK(killed_by(status, SIGSEGV));
    return 1;
}

/* ---- signal handlers and sa_restorer where a return cannot go ---- */

struct kernel_sigaction {
    uint64_t handler, flags, restorer, mask;
};

extern const char canonical_restorer[];
__asm__(".text\ncanonical_restorer: mov $15, %eax\nsyscall\nud2\n");

static void empty_handler(int signal) { (void)signal; }

static void raise_with(uint64_t handler, uint64_t restorer, uint64_t mask)
{
    struct kernel_sigaction action = {handler, KERNEL_SA_RESTORER, restorer, mask};
    if (syscall(SYS_rt_sigaction, SIGUSR1, &action, NULL, 8) != 0)
        _exit(2);
    raise(SIGUSR1);
}

static void handler_non_canonical(void) { raise_with(NON_CANONICAL, (uint64_t)canonical_restorer, 0); }
static void handler_in_the_kernel(void) { raise_with(KERNEL_ADDRESS, (uint64_t)canonical_restorer, 0); }
static void handler_in_the_last_page(void) { raise_with(LAST_PAGE, (uint64_t)canonical_restorer, 0); }
static void restorer_non_canonical(void) { raise_with((uint64_t)empty_handler, NON_CANONICAL, 0); }

static int handler_at_a_non_canonical_address_is_sigsegv(void)
{
    return killed_by(status_of_child(handler_non_canonical), SIGSEGV);
}

static int handler_at_a_kernel_address_is_sigsegv(void)
{
    return killed_by(status_of_child(handler_in_the_kernel), SIGSEGV);
}

static int handler_in_the_last_page_is_sigsegv(void)
{
    return killed_by(status_of_child(handler_in_the_last_page), SIGSEGV);
}

static int restorer_at_a_non_canonical_address_is_sigsegv(void)
{
    return killed_by(status_of_child(restorer_non_canonical), SIGSEGV);
}

/* The SIGSEGV is a fault's: a SIGSEGV handler gets it (SI_KERNEL, as
 * Linux's failed iret gives), with the bad address as the interrupted RIP. */
static void on_segv_report(int signal, siginfo_t *info, void *context)
{
    (void)signal;
    ucontext_t *uc = context;
    uint64_t rip = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
    if (info->si_code == SI_KERNEL_CODE && info->si_addr == NULL && rip == NON_CANONICAL)
        _exit(42);
    printf("# SIGSEGV handler: si_code %d, si_addr %p, rip %#lx\n", info->si_code, info->si_addr,
           (unsigned long)rip);
    fflush(stdout);
    _exit(43);
}

static void handler_non_canonical_caught(void)
{
    set_siginfo_handler(SIGSEGV, on_segv_report, 0);
    raise_with(NON_CANONICAL, (uint64_t)canonical_restorer, 0);
}

/* With SIGSEGV blocked while the bad handler would run, it cannot be
 * caught: the program dies of it. */
static void handler_non_canonical_segv_blocked(void)
{
    set_siginfo_handler(SIGSEGV, on_segv_report, 0);
    raise_with(NON_CANONICAL, (uint64_t)canonical_restorer, 1ul << (SIGSEGV - 1));
}

static int handler_at_a_non_canonical_address_reaches_a_sigsegv_handler(void)
{
    return exited_with(status_of_child(handler_non_canonical_caught), 42);
}

static int handler_at_a_non_canonical_address_with_sigsegv_blocked_kills(void)
{
    return killed_by(status_of_child(handler_non_canonical_segv_blocked), SIGSEGV);
}

/* ---- rt_sigreturn with crafted frames ---- */

/* What the SIGUSR1 handler does to the frame it returns through. */
enum edit {
    RIP_NON_CANONICAL, RIP_KERNEL, CS_NULL, CS_DATA_SEGMENT, CS_RPL_0, SS_NULL, SS_NULL_NOT_STRICT,
    SS_CODE_SEGMENT, FLAGS_ALL, RSP_NON_CANONICAL, FPSTATE_NON_CANONICAL, FPSTATE_NULL_PAGE,
};

static enum edit edit;
static int sysret_shaped;            /* also RCX = RIP and R11 = RFLAGS, as SYSCALL leaves them */
static uint64_t handler_segments;   /* the frame's CS, GS, FS, SS as delivered */

static void editing_handler(int signal, siginfo_t *info, void *context)
{
    (void)signal, (void)info;
    ucontext_t *uc = context;
    greg_t *regs = uc->uc_mcontext.gregs;
    uint64_t segments = (uint64_t)regs[REG_CSGSFS];
    uint64_t cs = segments & 0xffff, ss = segments >> 48;

    handler_segments = segments;
    switch (edit) {
    case RIP_NON_CANONICAL: regs[REG_RIP] = (greg_t)NON_CANONICAL; break;
    case RIP_KERNEL: regs[REG_RIP] = (greg_t)KERNEL_ADDRESS; break;
    case CS_NULL: segments &= ~0xfffful; break;
    case CS_DATA_SEGMENT: segments = (segments & ~0xfffful) | ss; break;
    case CS_RPL_0: segments &= ~3ul; break;
    case SS_NULL: segments &= ~(0xfffful << 48); break;
    case SS_NULL_NOT_STRICT:
        segments &= ~(0xfffful << 48);
        uc->uc_flags &= ~UC_STRICT_RESTORE_SS;
        break;
    case SS_CODE_SEGMENT: segments = (segments & ~(0xfffful << 48)) | cs << 48; break;
    /* Every flag but TF (a trap), DF and AC (C code runs next). */
    case FLAGS_ALL: regs[REG_EFL] = (greg_t) ~(RFLAGS_TF | RFLAGS_DF | RFLAGS_AC); break;
    case RSP_NON_CANONICAL: regs[REG_RSP] = (greg_t)NON_CANONICAL; break;
    case FPSTATE_NON_CANONICAL: uc->uc_mcontext.fpregs = (void *)NON_CANONICAL; break;
    case FPSTATE_NULL_PAGE: uc->uc_mcontext.fpregs = (void *)0x10; break;
    }
    regs[REG_CSGSFS] = (greg_t)segments;
    if (sysret_shaped) {
        regs[REG_RCX] = regs[REG_RIP];
        regs[REG_R11] = regs[REG_EFL];
    }
}

/* Raise SIGUSR1 with the handler above: returns if the edited frame can be
 * returned to. */
static void raise_and_edit(void)
{
    set_siginfo_handler(SIGUSR1, editing_handler, 0);
    raise(SIGUSR1);
}

static int edited_frame_is_sigsegv(enum edit e)
{
    edit = e;
    return killed_by(status_of_child(raise_and_edit), SIGSEGV);
}

/* rt_sigreturn is a system call: a frame that looks as SYSCALL left it
 * could be returned to with sysretq (arch/x86/user_mode.c,
 * user_frame_sysret_ok), which loads RIP and RFLAGS from RCX and R11 and
 * checks neither RIP nor RSP. The bad ones must still be the program's
 * SIGSEGV, and a good one must resume. */
static int sysret_shaped_frame_is_sigsegv(enum edit e)
{
    sysret_shaped = 1;
    int result = edited_frame_is_sigsegv(e);
    sysret_shaped = 0;
    return result;
}
static int sysret_shaped_sigreturn_to_a_non_canonical_rip_is_sigsegv(void)
{
    return sysret_shaped_frame_is_sigsegv(RIP_NON_CANONICAL);
}
static int sysret_shaped_sigreturn_to_a_kernel_rip_is_sigsegv(void)
{
    return sysret_shaped_frame_is_sigsegv(RIP_KERNEL);
}
/* A non-canonical stack pointer faults at the program's first push or
 * pop: a stack-segment fault on hardware, which Linux makes SIGBUS, but a
 * general protection fault under QEMU's TCG (SIGSEGV, also Linux's there).
 * On Linux either is right; nohzk runs under TCG and must give SIGSEGV. */
static int stack_fault_kills(int status)
{
    return killed_by(status, SIGSEGV) || (!on_nohzk() && WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS);
}

static int sigreturn_to_a_non_canonical_rsp_kills_the_program(void)
{
    edit = RSP_NON_CANONICAL;
    return stack_fault_kills(status_of_child(raise_and_edit));
}

static int sysret_shaped_sigreturn_to_a_non_canonical_rsp_kills_the_program(void)
{
    sysret_shaped = 1;
    int result = sigreturn_to_a_non_canonical_rsp_kills_the_program();
    sysret_shaped = 0;
    return result;
}
static int sysret_shaped_sigreturn_with_a_null_cs_is_sigsegv(void)
{
    return sysret_shaped_frame_is_sigsegv(CS_NULL);
}

static int sigreturn_to_a_non_canonical_rip_is_sigsegv(void) { return edited_frame_is_sigsegv(RIP_NON_CANONICAL); }
static int sigreturn_to_a_kernel_rip_is_sigsegv(void) { return edited_frame_is_sigsegv(RIP_KERNEL); }
static int sigreturn_with_a_null_cs_is_sigsegv(void) { return edited_frame_is_sigsegv(CS_NULL); }
static int sigreturn_with_a_data_segment_as_cs_is_sigsegv(void) { return edited_frame_is_sigsegv(CS_DATA_SEGMENT); }
static int sigreturn_with_a_null_ss_is_sigsegv(void) { return edited_frame_is_sigsegv(SS_NULL); }
static int sigreturn_with_a_code_segment_as_ss_is_sigsegv(void) { return edited_frame_is_sigsegv(SS_CODE_SEGMENT); }
static int sigreturn_with_a_non_canonical_fpstate_is_sigsegv(void)
{
    return edited_frame_is_sigsegv(FPSTATE_NON_CANONICAL);
}
static int sigreturn_with_fpstate_in_the_null_page_is_sigsegv(void)
{
    return edited_frame_is_sigsegv(FPSTATE_NULL_PAGE);
}

static uint16_t read_ss(void)
{
    uint16_t ss;
    __asm__ volatile("mov %%ss, %0" : "=r"(ss));
    return ss;
}

/* The frame's CS with RPL 0: the kernel makes it RPL 3, and all is well. */
static int sigreturn_with_cs_rpl_0_continues(void)
{
    edit = CS_RPL_0;
    raise_and_edit();
    CHECK(getppid() > 0);
    return 1;
}

/* Without UC_STRICT_RESTORE_SS (a program older than the SS slot), a bad
 * SS becomes the user data segment. */
static int sigreturn_with_a_null_ss_not_strict_continues(void)
{
    edit = SS_NULL_NOT_STRICT;
    raise_and_edit();
    CHECK(read_ss() == (uint16_t)(handler_segments >> 48));
    return 1;
}

/* The same with RCX and R11 as SYSCALL leaves them: the program goes on. */
static int sysret_shaped_sigreturn_continues(void)
{
    edit = CS_RPL_0;
    sysret_shaped = 1;
    raise_and_edit();
    sysret_shaped = 0;
    CHECK(getppid() > 0);
    return 1;
}

/* Only the arithmetic flags, TF, DF, RF and AC come from the frame: IOPL,
 * NT, IF and the rest stay as the program had them. */
static int sigreturn_with_every_flag_takes_only_user_flags(void)
{
    edit = FLAGS_ALL;
    raise_and_edit();
    uint64_t flags = read_flags();
    if (flags & (RFLAGS_IOPL | RFLAGS_NT)) {
        printf("# flags %#lx after the sigreturn: IOPL or NT set\n", (unsigned long)flags);
        return 0;
    }
    CHECK(getppid() > 0);
    return 1;
}

/* rt_sigreturn with the frame (8 bytes below rsp) at address. */
static void __attribute__((noreturn)) sigreturn_at(uint64_t frame)
{
    __asm__ volatile("mov %0, %%rsp; mov $15, %%eax; syscall; ud2" : : "r"(frame + 8) : "memory");
    __builtin_unreachable();
}

static void frame_in_the_kernel(void) { sigreturn_at(KERNEL_ADDRESS); }
static void frame_non_canonical(void) { sigreturn_at(0x8000000000000000ul); }
static void frame_in_the_last_page(void) { sigreturn_at(LAST_PAGE); }

/* The frame's first 64 bytes at the end of a page, the rest in an
 * unmapped one. */
static void frame_crossing_into_an_unmapped_page(void)
{
    char *pages = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (pages == MAP_FAILED || munmap(pages + PAGE, PAGE) != 0)
        _exit(2);
    memset(pages, 0, PAGE);
    sigreturn_at((uint64_t)pages + PAGE - 64);
}

/* The SIGSEGV of a frame that cannot be read is forced, not a kill: a
 * SIGSEGV handler gets it (SI_KERNEL), on the stack the frame was read
 * from, which has room below the frame here. */
static void on_segv_exit(int signal, siginfo_t *info, void *context)
{
    (void)signal, (void)context;
    if (info->si_code == SI_KERNEL_CODE)
        _exit(42);
    printf("# SIGSEGV handler: si_code %d, si_addr %p\n", info->si_code, info->si_addr);
    fflush(stdout);
    _exit(43);
}

static void frame_crossing_caught(void)
{
    set_siginfo_handler(SIGSEGV, on_segv_exit, 0);
    frame_crossing_into_an_unmapped_page();
}

static int unreadable_sigreturn_frame_reaches_a_sigsegv_handler(void)
{
    return exited_with(status_of_child(frame_crossing_caught), 42);
}

static int sigreturn_frame_at_a_kernel_address_is_sigsegv(void)
{
    return killed_by(status_of_child(frame_in_the_kernel), SIGSEGV);
}

static int sigreturn_frame_at_a_non_canonical_address_is_sigsegv(void)
{
    return killed_by(status_of_child(frame_non_canonical), SIGSEGV);
}

static int sigreturn_frame_in_the_last_page_is_sigsegv(void)
{
    return killed_by(status_of_child(frame_in_the_last_page), SIGSEGV);
}

static int sigreturn_frame_crossing_into_an_unmapped_page_is_sigsegv(void)
{
    return killed_by(status_of_child(frame_crossing_into_an_unmapped_page), SIGSEGV);
}

static void exit_seven(void) { _exit(7); }

static int a_process_runs_afterwards(void)
{
    return exited_with(status_of_child(exit_seven), 7);
}

static const struct ktap_case cases[] = {
    KTAP_CASE(mmap_fixed_in_the_last_page_is_enomem),
    KTAP_CASE(refused_mmap_fixed_changes_nothing),
    KTAP_CASE(mmap_hint_in_the_last_page_maps_below),
    KTAP_CASE(mprotect_of_the_last_page_is_enomem),
    KTAP_CASE(fs_base_in_the_last_page_is_eperm),
    KTAP_CASE(program_in_the_last_page_never_runs),
    KTAP_CASE(handler_at_a_non_canonical_address_is_sigsegv),
    KTAP_CASE(handler_at_a_kernel_address_is_sigsegv),
    KTAP_CASE(handler_in_the_last_page_is_sigsegv),
    KTAP_CASE(restorer_at_a_non_canonical_address_is_sigsegv),
    KTAP_CASE(handler_at_a_non_canonical_address_reaches_a_sigsegv_handler),
    KTAP_CASE(handler_at_a_non_canonical_address_with_sigsegv_blocked_kills),
    KTAP_CASE(sigreturn_to_a_non_canonical_rip_is_sigsegv),
    KTAP_CASE(sigreturn_to_a_kernel_rip_is_sigsegv),
    KTAP_CASE(sigreturn_with_a_null_cs_is_sigsegv),
    KTAP_CASE(sigreturn_with_a_data_segment_as_cs_is_sigsegv),
    KTAP_CASE(sigreturn_with_cs_rpl_0_continues),
    KTAP_CASE(sigreturn_with_a_null_ss_is_sigsegv),
    KTAP_CASE(sigreturn_with_a_null_ss_not_strict_continues),
    KTAP_CASE(sigreturn_with_a_code_segment_as_ss_is_sigsegv),
    KTAP_CASE(sigreturn_with_every_flag_takes_only_user_flags),
    KTAP_CASE(sigreturn_to_a_non_canonical_rsp_kills_the_program),
    KTAP_CASE(sysret_shaped_sigreturn_to_a_non_canonical_rip_is_sigsegv),
    KTAP_CASE(sysret_shaped_sigreturn_to_a_kernel_rip_is_sigsegv),
    KTAP_CASE(sysret_shaped_sigreturn_to_a_non_canonical_rsp_kills_the_program),
    KTAP_CASE(sysret_shaped_sigreturn_with_a_null_cs_is_sigsegv),
    KTAP_CASE(sysret_shaped_sigreturn_continues),
    KTAP_CASE(sigreturn_with_a_non_canonical_fpstate_is_sigsegv),
    KTAP_CASE(sigreturn_with_fpstate_in_the_null_page_is_sigsegv),
    KTAP_CASE(sigreturn_frame_at_a_kernel_address_is_sigsegv),
    KTAP_CASE(sigreturn_frame_at_a_non_canonical_address_is_sigsegv),
    KTAP_CASE(sigreturn_frame_in_the_last_page_is_sigsegv),
    KTAP_CASE(sigreturn_frame_crossing_into_an_unmapped_page_is_sigsegv),
    KTAP_CASE(unreadable_sigreturn_frame_reaches_a_sigsegv_handler),
    KTAP_CASE(a_process_runs_afterwards),
};

int main(int argc, char **argv)
{
    (void)argc;
    saved_argv = argv;
    setvbuf(stdout, NULL, _IOLBF, 0);
    return ktap_main_each_in_a_child(cases, KTAP_COUNT(cases));
}
