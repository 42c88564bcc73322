/* The rt_sigframe of Linux x86-64 (arch/x86/include/uapi/asm/sigcontext.h
 * and ucontext.h define the layout; we only mirror it). On the user stack,
 * from low to high addresses:
 *
 *   return address   = sa_restorer: the handler's `ret` lands there
 *   struct ucontext  flags, link, the alternate stack, the registers
 *                    (sigcontext) and the mask to restore
 *   struct siginfo   128 bytes
 *   ...              padding
 *   FPU state        512 bytes of fxsave, 64-byte aligned; sigcontext's
 *                    fpstate points here
 *   (128 bytes skipped: the interrupted code's red zone)
 *
 * On the alternate stack (sigaltstack) the frame starts at its top, with
 * no red zone; signal.c says where (struct signal_frame_stack).
 * Left out: xsave state (we only save SSE, as nohzk only enables that),
 * and the 32-bit frames. */
#include "arch/x86/signal_frame.h"

#include <stddef.h>

#include "arch/x86/fpu.h"
#include "arch/x86/gdt.h"
#include "arch/x86/trap.h"
#include "kernel/lib/errno.h"
#include "kernel/lib/linux_signal.h"
#include "kernel/lib/string.h"
#include "kernel/mm/uaccess.h"

#define RED_ZONE 128
#define USER_ADDRESS_END 0x0000800000000000ul  /* first non-canonical address */

/* The flags sigreturn takes from the frame (Linux's FIX_EFLAGS): CF PF AF
 * ZF SF TF DF OF RF AC. The others (IF, IOPL, NT, ID...) stay as they are
 * in the program now; exit_to_user_mode() vets them all once more. */
#define RFLAGS_FROM_SIGRETURN 0x50dd5ul
#define RFLAGS_TF (1ul << 8)
#define RFLAGS_DF (1ul << 10)
#define RFLAGS_RF (1ul << 16)

/* ucontext.uc_flags, as Linux sets them for a 64-bit frame: the SS slot
 * is meaningful, and sigreturn restores it as it is (a bad one kills). */
#define UC_SIGCONTEXT_SS 0x2
#define UC_STRICT_RESTORE_SS 0x4

struct sigcontext {
    uint64_t r8, r9, r10, r11, r12, r13, r14, r15;
    uint64_t rdi, rsi, rbp, rbx, rdx, rax, rcx, rsp, rip, rflags;
    uint16_t cs, gs, fs, ss;
    uint64_t error_code, trap_number, old_mask, cr2;
    uint64_t fpstate;           /* user address of the fxsave image */
    uint64_t reserved[8];
};

struct ucontext {
    uint64_t flags;
    uint64_t link;
    struct signal_stack stack;
    struct sigcontext registers;
    uint64_t blocked;
};

struct siginfo {
    int32_t signal, error, code, padding;
    union {
        struct {
            int32_t pid;
            uint32_t uid;
            int32_t status;
        } sender;
        uint64_t address;
        uint8_t bytes[112];
    };
};

struct rt_sigframe {
    uint64_t return_address;
    struct ucontext context;
    struct siginfo info;
};

_Static_assert(sizeof(struct sigcontext) == 256, "Linux's sigcontext is 256 bytes");
_Static_assert(sizeof(struct siginfo) == 128, "Linux's siginfo is 128 bytes");
_Static_assert(offsetof(struct rt_sigframe, context.blocked) == 8 + 296, "uc_sigmask at 296 in ucontext");

static void save_registers(struct sigcontext *saved, const struct trap_frame *frame)
{
    saved->r8 = frame->r8, saved->r9 = frame->r9, saved->r10 = frame->r10, saved->r11 = frame->r11;
    saved->r12 = frame->r12, saved->r13 = frame->r13, saved->r14 = frame->r14, saved->r15 = frame->r15;
    saved->rdi = frame->rdi, saved->rsi = frame->rsi, saved->rbp = frame->rbp, saved->rbx = frame->rbx;
    saved->rdx = frame->rdx, saved->rax = frame->rax, saved->rcx = frame->rcx, saved->rsp = frame->rsp;
    saved->rip = frame->rip, saved->rflags = frame->rflags;
    saved->cs = (uint16_t)frame->cs, saved->ss = (uint16_t)frame->ss;
    saved->error_code = frame->error_code;
    saved->trap_number = frame->vector;
}

static void fill_siginfo(struct siginfo *info, int signal, const struct signal_origin *origin)
{
    memset(info, 0, sizeof(*info));
    info->signal = signal;
    info->code = origin->code;
    if (signal == SIGSEGV || signal == SIGBUS || signal == SIGILL || signal == SIGFPE || signal == SIGTRAP) {
        info->address = origin->address;
    } else {
        info->sender.pid = origin->pid;
        info->sender.status = origin->status;
    }
}

int signal_info_to_user(void *user_info, int signal, const struct signal_origin *origin)
{
    struct siginfo info;
    fill_siginfo(&info, signal, origin);
    return copy_to_user(user_info, &info, sizeof(info)) < 0 ? -EFAULT : 0;
}

int signal_frame_push(struct trap_frame *frame, int signal, const struct signal_action *action,
                      const struct signal_origin *origin, uint64_t blocked_to_restore,
                      const struct signal_frame_stack *stack)
{
    struct fpu_state fpu;
    struct rt_sigframe sigframe;

    if (!(action->flags & SA_RESTORER))
        return -EFAULT;         /* Linux x86-64 has no default trampoline either */
    uint64_t sp = stack->switch_to_top ? stack->top : frame->rsp - RED_ZONE;
    uint64_t fpstate = (sp - sizeof(fpu)) & ~63ul;
    uint64_t address = ((fpstate - sizeof(sigframe)) & ~15ul) - 8;  /* as if called: rsp+8 16-aligned */
    if (stack->bounded && !(address > stack->low && address - stack->low <= stack->size))
        return -EFAULT;         /* it would overflow the alternate stack: Linux's SIGSEGV too */

    memset(&sigframe, 0, sizeof(sigframe));
    sigframe.return_address = action->restorer;
    sigframe.context.flags = UC_SIGCONTEXT_SS | UC_STRICT_RESTORE_SS;
    sigframe.context.stack = stack->saved;
    save_registers(&sigframe.context.registers, frame);
    sigframe.context.registers.cr2 = origin->address;
    sigframe.context.registers.fpstate = fpstate;
    sigframe.context.registers.old_mask = blocked_to_restore;
    sigframe.context.blocked = blocked_to_restore;
    fill_siginfo(&sigframe.info, signal, origin);
    fpu_save(&fpu);
    if (copy_to_user((void *)fpstate, &fpu, sizeof(fpu)) < 0 ||
        copy_to_user((void *)address, &sigframe, sizeof(sigframe)) < 0)
        return -EFAULT;

    /* The handler starts with a clean FPU, as on Linux. */
    fpu_state_init(&fpu);
    fpu_restore(&fpu);
    frame->rsp = address;
    frame->rip = action->handler;
    frame->rdi = (uint64_t)signal;
    frame->rsi = address + offsetof(struct rt_sigframe, info);
    frame->rdx = address + offsetof(struct rt_sigframe, context);
    frame->rax = 0;
    frame->cs = SELECTOR_USER_CODE;     /* whatever a sigreturn had put there */
    frame->ss = SELECTOR_USER_DATA;
    /* The ABI's DF clear, and no single-step into the handler; AC and ID
     * stay, as on Linux. */
    frame->rflags &= ~(RFLAGS_TF | RFLAGS_DF | RFLAGS_RF);
    return 0;
}

static int restore_fpu(uint64_t fpstate)
{
    struct fpu_state fpu, current;

    if (fpstate & 15 || copy_from_user(&fpu, (const void *)fpstate, sizeof(fpu)) < 0)
        return -EFAULT;
    /* A reserved MXCSR bit set would make fxrstor fault in the kernel: keep
     * only the bits this CPU's MXCSR_MASK allows. */
    fpu_save(&current);
    uint32_t mask = *(uint32_t *)(current.fxsave_area + 28);
    if (!mask)
        mask = 0xffbf;
    *(uint32_t *)(fpu.fxsave_area + 24) &= mask;
    fpu_restore(&fpu);
    return 0;
}

int signal_frame_pop(struct trap_frame *frame, uint64_t *blocked, struct signal_stack *altstack)
{
    struct rt_sigframe sigframe;
    /* The handler returned into sa_restorer, which popped the return
     * address: the frame starts 8 bytes below the stack pointer now. */
    uint64_t address = frame->rsp - 8;

    if (copy_from_user(&sigframe, (const void *)address, sizeof(sigframe)) < 0)
        return -EFAULT;
    const struct sigcontext *saved = &sigframe.context.registers;
    if (saved->rsp >= USER_ADDRESS_END)
        return -EFAULT;         /* a stack nothing can use; Linux's program dies of SIGSEGV too */
    if (saved->fpstate && restore_fpu(saved->fpstate) < 0)
        return -EFAULT;
    frame->r8 = saved->r8, frame->r9 = saved->r9, frame->r10 = saved->r10, frame->r11 = saved->r11;
    frame->r12 = saved->r12, frame->r13 = saved->r13, frame->r14 = saved->r14, frame->r15 = saved->r15;
    frame->rdi = saved->rdi, frame->rsi = saved->rsi, frame->rbp = saved->rbp, frame->rbx = saved->rbx;
    frame->rdx = saved->rdx, frame->rax = saved->rax, frame->rcx = saved->rcx, frame->rsp = saved->rsp;
    /* RIP, CS and SS as saved, as on Linux, whose iretq then faults if they
     * are bad: exit_to_user_mode() checks them before ours would. A frame
     * without UC_STRICT_RESTORE_SS gets a usable SS (Linux's
     * force_valid_ss, for programs older than the SS slot). */
    frame->rip = saved->rip;
    frame->rflags = (frame->rflags & ~RFLAGS_FROM_SIGRETURN) | (saved->rflags & RFLAGS_FROM_SIGRETURN);
    frame->cs = saved->cs | 3;
    frame->ss = saved->ss | 3;
    if (!(sigframe.context.flags & UC_STRICT_RESTORE_SS) && frame->ss != SELECTOR_USER_DATA)
        frame->ss = SELECTOR_USER_DATA;
    frame->error_code = (uint64_t)-1;   /* no system call to restart (syscall_entry.asm) */
    *blocked = sigframe.context.blocked;
    *altstack = sigframe.context.stack;
    return 0;
}
