/* ktest=entry: trap_user_gs_window (arch/x86/traps.c), the C half of the
 * "bad iret" fixup. entry.asm calls it for an exception taken in ring 0 at
 * one of the two instructions that run with the user's GS; here it gets
 * frames laid out as the CPU would leave them, on a stack of our own. */
#include "arch/x86/gdt.h"
#include "arch/x86/trap.h"
#include "kernel/debug/ktest.h"
#include "kernel/lib/string.h"

extern char iret_to_user[];
extern char syscall_entry[];

#define USER_RIP    0x401000ul
#define USER_RFLAGS 0x246ul
#define USER_RSP    0x7ffffffef000ul
#define IRET_WORDS  5

/* A kernel stack as trap_return leaves it at iret_to_user: the user
 * frame's last five words (rip, cs, rflags, rsp, ss) still in place at its
 * top, the general registers and vector popped into the CPU. */
struct stack {
    uint64_t words[64];
} __attribute__((aligned(16)));

static struct trap_frame *user_frame_at_top(struct stack *stack)
{
    struct trap_frame *original = (struct trap_frame *)&stack->words[64] - 1;
    memset(stack, 0, sizeof(*stack));
    original->rip = USER_RIP;
    original->cs = SELECTOR_USER_CODE;
    original->rflags = USER_RFLAGS;
    original->rsp = USER_RSP;
    original->ss = SELECTOR_USER_DATA;
    return original;
}

/* The frame of the exception iretq raised: the user's registers (already
 * popped), and the ring 0 state at iret_to_user. */
static struct trap_frame fault_at(uint64_t rip, uint64_t vector, const struct trap_frame *original)
{
    return (struct trap_frame){
        .r15 = 15, .rbx = 3, .rax = 1, .rdi = 5,
        .vector = vector, .error_code = 0,
        .rip = rip, .cs = SELECTOR_KERNEL_CODE, .rflags = 0x10046,
        .rsp = (uint64_t)&original->rip, .ss = 0,
    };
}

static void a_faulting_iret_becomes_the_programs_fault(struct ktest *test)
{
    static const uint64_t vectors[] = { 11, 12, 13 };   /* #NP, #SS, #GP */
    for (unsigned i = 0; i < sizeof(vectors) / sizeof(vectors[0]); i++) {
        static struct stack stack;
        struct trap_frame *original = user_frame_at_top(&stack);
        struct trap_frame fault = fault_at((uint64_t)iret_to_user, vectors[i], original);
        struct trap_frame *rebuilt = trap_user_gs_window(&fault);

        KTEST_EXPECT(test, rebuilt == original, "vector %lu: frame at %p, expected %p", vectors[i], rebuilt,
                     original);
        KTEST_EXPECT(test, trap_from_user(rebuilt), "vector %lu: cs %#lx", vectors[i], rebuilt->cs);
        KTEST_EXPECT(test, rebuilt->rip == USER_RIP && rebuilt->rsp == USER_RSP && rebuilt->rflags == USER_RFLAGS &&
                               rebuilt->ss == SELECTOR_USER_DATA,
                     "vector %lu: rip %#lx rsp %#lx rflags %#lx ss %#lx", vectors[i], rebuilt->rip, rebuilt->rsp,
                     rebuilt->rflags, rebuilt->ss);
        KTEST_EXPECT(test, rebuilt->r15 == 15 && rebuilt->rbx == 3 && rebuilt->rax == 1 && rebuilt->rdi == 5,
                     "vector %lu: the user's registers were not kept", vectors[i]);
        KTEST_EXPECT(test, rebuilt->vector == vectors[i], "vector %lu became %lu", vectors[i], rebuilt->vector);
    }
}

/* An NMI or machine check at the same instruction, or anything at
 * syscall_entry, is the kernel's own: the frame stays as it is. */
static void other_entries_in_the_window_stay_the_kernels(struct ktest *test)
{
    static struct stack stack;
    struct trap_frame *original = user_frame_at_top(&stack);
    struct trap_frame nmi = fault_at((uint64_t)iret_to_user, 2, original);
    struct trap_frame machine_check = fault_at((uint64_t)iret_to_user, 18, original);
    struct trap_frame at_syscall_entry = fault_at((uint64_t)syscall_entry, 13, original);

    KTEST_EXPECT(test, trap_user_gs_window(&nmi) == &nmi, "an NMI was taken for a failed iret");
    KTEST_EXPECT(test, trap_user_gs_window(&machine_check) == &machine_check,
                 "a machine check was taken for a failed iret");
    KTEST_EXPECT(test, trap_user_gs_window(&at_syscall_entry) == &at_syscall_entry,
                 "an exception at syscall_entry was taken for a failed iret");
    KTEST_EXPECT(test, original->rip == USER_RIP && original->cs == SELECTOR_USER_CODE, "the stack was written");
}

KTEST_SUITE(entry,
            KTEST_CASE(a_faulting_iret_becomes_the_programs_fault),
            KTEST_CASE(other_entries_in_the_window_stay_the_kernels));
