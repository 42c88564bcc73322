/* exec_state: nothing of a program's registers survives execve. A child
 * loads marker values into the general registers, xmm0-15, MXCSR and the
 * x87 control word and stack, and execs a probe: a 65-byte program this
 * test writes out (no C library, so nothing runs before it looks) whose
 * first instructions push every general register and the flags and
 * fxsave the x87/SSE state, then write the 640 bytes to stdout, a pipe
 * the test reads. Linux starts a program with the general registers 0
 * (rsp aside), RFLAGS 0x202, FCW 0x37f, MXCSR 0x1f80 and every x87 and
 * SSE register 0; so must nohzk. AVX's upper halves are not looked at:
 * nohzk does not enable AVX. Runs on the Linux host and on nohzk
 * (scenarios exec-state, exec-state-glibc). */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "testlib.h"
#include "ktap.h"

/* The probe's code (as -M intel):
 *   pushfq; push r15 ... r8; push rbp, rdi, rsi, rdx, rcx, rbx, rax
 *   sub rsp, 512; fxsave64 [rsp]
 *   write(1, rsp, 640); exit(0)                                      */
static const unsigned char probe_code[] = {
    0x9c, 0x41, 0x57, 0x41, 0x56, 0x41, 0x55, 0x41, 0x54, 0x41, 0x53, 0x41, 0x52, 0x41, 0x51, 0x41, 0x50,
    0x55, 0x57, 0x56, 0x52, 0x51, 0x53, 0x50,                   /* the pushes */
    0x48, 0x81, 0xec, 0x00, 0x02, 0x00, 0x00,                   /* sub rsp, 0x200 */
    0x48, 0x0f, 0xae, 0x04, 0x24,                               /* fxsave64 [rsp] */
    0xb8, 0x01, 0x00, 0x00, 0x00, 0xbf, 0x01, 0x00, 0x00, 0x00, /* mov eax, 1; mov edi, 1 */
    0x48, 0x89, 0xe6, 0xba, 0x80, 0x02, 0x00, 0x00, 0x0f, 0x05, /* mov rsi, rsp; mov edx, 640; syscall */
    0xb8, 0x3c, 0x00, 0x00, 0x00, 0x31, 0xff, 0x0f, 0x05,       /* mov eax, 60; xor edi, edi; syscall */
};

#define PROBE_BASE   0x400000ul
#define REPORT_SIZE  640
#define GPR_OFFSET   512        /* rax, rbx, rcx, rdx, rsi, rdi, rbp, r8..r15, rflags */
#define GPR_COUNT    15

static const char *const gpr_names[GPR_COUNT] = {
    "rax", "rbx", "rcx", "rdx", "rsi", "rdi", "rbp", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
};

static char probe_path[64];

/* An ELF executable: header, one PT_LOAD of the whole file (R+X), code. */
static int write_probe(void)
{
    struct probe_image {
        Elf64_Ehdr header;
        Elf64_Phdr load;
        unsigned char code[sizeof(probe_code)];
    } image;
    memset(&image, 0, sizeof(image));
    memcpy(image.header.e_ident, ELFMAG, SELFMAG);
    image.header.e_ident[EI_CLASS] = ELFCLASS64;
    image.header.e_ident[EI_DATA] = ELFDATA2LSB;
    image.header.e_ident[EI_VERSION] = EV_CURRENT;
    image.header.e_type = ET_EXEC;
    image.header.e_machine = EM_X86_64;
    image.header.e_version = EV_CURRENT;
    image.header.e_entry = PROBE_BASE + offsetof(struct probe_image, code);
    image.header.e_phoff = offsetof(struct probe_image, load);
    image.header.e_ehsize = sizeof(Elf64_Ehdr);
    image.header.e_phentsize = sizeof(Elf64_Phdr);
    image.header.e_phnum = 1;
    image.load = (Elf64_Phdr){ .p_type = PT_LOAD, .p_flags = PF_R | PF_X, .p_offset = 0, .p_vaddr = PROBE_BASE,
                               .p_paddr = PROBE_BASE, .p_filesz = sizeof(image), .p_memsz = sizeof(image),
                               .p_align = 0x1000 };
    memcpy(image.code, probe_code, sizeof(probe_code));
    int fd = open(probe_path, O_CREAT | O_WRONLY | O_TRUNC, 0755);
    if (fd < 0)
        return 0;
    int ok = write(fd, &image, sizeof(image)) == (ssize_t)sizeof(image);
    return close(fd) == 0 && ok;
}

/* Static, so the asm below reaches them without a register. */
static const uint64_t xmm_marker[2] = { 0x5a5a5a5a5a5a5a5aul, 0xa5a5a5a5a5a5a5a5ul };
static const uint32_t mxcsr_marker = 0xff80;     /* round toward zero, flush to zero */
static const uint16_t fcw_marker = 0x027f;       /* double precision */
static const char *exec_path;
static char *const *exec_argv;
static char *const *exec_envp;

/* Markers everywhere, then execve: never returns (exit 99 if the exec fails). */
static void __attribute__((noreturn)) exec_with_markers(void)
{
    __asm__ volatile(
        "fldcw %[fcw]\n\tldmxcsr %[mxcsr]\n\tfld1\n\tfldpi\n\tfldl2e\n\t"
        "movdqu %[xmm], %%xmm0\n\tmovdqu %[xmm], %%xmm1\n\tmovdqu %[xmm], %%xmm2\n\tmovdqu %[xmm], %%xmm3\n\t"
        "movdqu %[xmm], %%xmm4\n\tmovdqu %[xmm], %%xmm5\n\tmovdqu %[xmm], %%xmm6\n\tmovdqu %[xmm], %%xmm7\n\t"
        "movdqu %[xmm], %%xmm8\n\tmovdqu %[xmm], %%xmm9\n\tmovdqu %[xmm], %%xmm10\n\tmovdqu %[xmm], %%xmm11\n\t"
        "movdqu %[xmm], %%xmm12\n\tmovdqu %[xmm], %%xmm13\n\tmovdqu %[xmm], %%xmm14\n\tmovdqu %[xmm], %%xmm15\n\t"
        "mov %[path], %%rdi\n\tmov %[argv], %%rsi\n\tmov %[envp], %%rdx\n\t"
        "mov $0x1111111111111111, %%rbx\n\tmov $0x2222222222222222, %%rbp\n\t"
        "mov $0x3333333333333333, %%r8\n\tmov $0x4444444444444444, %%r9\n\tmov $0x5555555555555555, %%r10\n\t"
        "mov $0x6666666666666666, %%r12\n\tmov $0x7777777777777777, %%r13\n\t"
        "mov $0x8888888888888888, %%r14\n\tmov $0x9999999999999999, %%r15\n\t"
        "std\n\t"                                   /* DF set: the new program must start with it clear */
        "mov $59, %%eax\n\tsyscall\n\t"
        "cld\n\tmov $99, %%edi\n\tmov $60, %%eax\n\tsyscall\n\t"
        :
        : [fcw] "m"(fcw_marker), [mxcsr] "m"(mxcsr_marker), [xmm] "m"(xmm_marker), [path] "m"(exec_path),
          [argv] "m"(exec_argv), [envp] "m"(exec_envp)
        : "memory");
    __builtin_unreachable();
}

/* Runs the probe from a child full of markers: its 640 bytes, 1 if all came. */
static int run_probe(unsigned char report[REPORT_SIZE])
{
    static char *argv[] = { "probe", NULL };
    static char *envp[] = { NULL };
    int pipe_fds[2];
    if (pipe(pipe_fds) < 0)
        return 0;
    exec_path = probe_path, exec_argv = argv, exec_envp = envp;
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        dup2(pipe_fds[1], 1);
        close(pipe_fds[0]);
        close(pipe_fds[1]);
        exec_with_markers();
    }
    close(pipe_fds[1]);
    size_t got = 0;
    while (got < REPORT_SIZE) {
        ssize_t n = read(pipe_fds[0], report + got, REPORT_SIZE - got);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(pipe_fds[0]);
    int status = wait_status(child);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        printf("# the probe's status: %#x\n", status);
    return got == REPORT_SIZE && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static uint64_t word_at(const unsigned char *report, size_t offset)
{
    uint64_t value;
    memcpy(&value, report + offset, sizeof(value));
    return value;
}

/* Bytes [from, to) are all 0: 1, else 0 after saying which is not. */
static int zero_bytes(const unsigned char *report, size_t from, size_t to, const char *what)
{
    for (size_t i = from; i < to; i++) {
        if (report[i]) {
            printf("# %s: byte %zu of the fxsave area is %#x\n", what, i, report[i]);
            return 0;
        }
    }
    return 1;
}

static int execve_general_registers_are_zero(void)
{
    unsigned char report[REPORT_SIZE];
    CHECK(run_probe(report));
    int clean = 1;
    for (int i = 0; i < GPR_COUNT; i++) {
        uint64_t value = word_at(report, GPR_OFFSET + 8 * i);
        if (value) {
            printf("# %s = %#lx at the entry point\n", gpr_names[i], (unsigned long)value);
            clean = 0;
        }
    }
    CHECK(clean);
    uint64_t flags = word_at(report, GPR_OFFSET + 8 * GPR_COUNT);
    if (flags != 0x202)
        printf("# rflags = %#lx at the entry point\n", (unsigned long)flags);
    CHECK(flags == 0x202);          /* IF and the always-one bit: DF and the rest clear */
    return 1;
}

/* fxsave: FCW at 0, FSW 2, abridged FTW 4, FOP 6, FIP 8, FDP 16, MXCSR 24,
 * ST0-7 from 32 (16 bytes each), XMM0-15 from 160. */
static int execve_x87_is_reset(void)
{
    unsigned char report[REPORT_SIZE];
    CHECK(run_probe(report));
    uint16_t fcw, fsw;
    memcpy(&fcw, report, 2);
    memcpy(&fsw, report + 2, 2);
    if (fcw != 0x37f || fsw != 0)
        printf("# FCW %#x, FSW %#x\n", fcw, fsw);
    CHECK(fcw == 0x37f);
    CHECK(fsw == 0);
    CHECK(zero_bytes(report, 4, 24, "FTW, FOP, FIP, FDP"));
    CHECK(zero_bytes(report, 32, 160, "ST0-7"));
    return 1;
}

static int execve_sse_is_reset(void)
{
    unsigned char report[REPORT_SIZE];
    CHECK(run_probe(report));
    uint32_t mxcsr;
    memcpy(&mxcsr, report + 24, 4);
    if (mxcsr != 0x1f80)
        printf("# MXCSR %#x\n", mxcsr);
    CHECK(mxcsr == 0x1f80);
    CHECK(zero_bytes(report, 160, 416, "XMM0-15"));
    return 1;
}

int main(void)
{
    static const struct ktap_case cases[] = {
        KTAP_CASE(execve_general_registers_are_zero),
        KTAP_CASE(execve_x87_is_reset),
        KTAP_CASE(execve_sse_is_reset),
    };
    setvbuf(stdout, NULL, _IOLBF, 0);
    snprintf(probe_path, sizeof(probe_path), "/tmp/exec_state_probe.%d", (int)getpid());
    if (!write_probe()) {
        printf("# exec_state: cannot write %s (errno %d)\n", probe_path, errno);
        return 1;
    }
    int status = ktap_main(cases, KTAP_COUNT(cases));
    unlink(probe_path);
    return status;
}
