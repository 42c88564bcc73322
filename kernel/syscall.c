/* The system call table and the one path every system call takes.
 *
 * syscall_entry (arch/x86/syscall_entry.asm) saves the user registers as a
 * struct trap_frame and calls syscall_dispatch(), which leaves user context
 * (context tracking), enables interrupts, runs the handler with Linux's
 * argument registers (rdi, rsi, rdx, r10, r8, r9), stores the result in rax,
 * reschedules if asked to, and enters user context again. A number nohzk
 * does not implement returns -ENOSYS; with strace=1 on the kernel command
 * line every call is logged with its name, arguments and result, so a
 * missing one shows at once. */
#include <stdbool.h>

#include "kernel/syscall.h"

#include "arch/x86/cpu.h"
#include "arch/x86/trap.h"
#include "kernel/context_tracking.h"
#include "kernel/errno.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/process.h"
#include "kernel/string.h"
#include "kernel/uaccess.h"
#include "sched/task.h"

bool syscall_trace;

typedef long (*syscall_fn)(uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5);

struct syscall_entry {
    const char *name;
    syscall_fn handler;
};

#define CONSOLE_CHUNK 256

/* Until the file layer exists, a process without a descriptor table writes
 * fds 1 and 2 to the console. */
static long sys_write_console(uint64_t fd, uint64_t buffer, uint64_t count, uint64_t a3, uint64_t a4,
                              uint64_t a5)
{
    char chunk[CONSOLE_CHUNK + 1];
    (void)a3, (void)a4, (void)a5;

    if (fd != 1 && fd != 2)
        return -EBADF;
    if ((int64_t)count < 0)
        return -EINVAL;
    for (uint64_t done = 0; done < count;) {
        size_t length = count - done < CONSOLE_CHUNK ? count - done : CONSOLE_CHUNK;
        if (copy_from_user(chunk, (const char *)(buffer + done), length) < 0)
            return done ? (long)done : -EFAULT;
        chunk[length] = '\0';
        printk("%s", chunk);
        done += length;
    }
    return (long)count;
}

static long sys_exit(uint64_t code, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5)
{
    (void)a1, (void)a2, (void)a3, (void)a4, (void)a5;
    process_exit(WAIT_STATUS_EXITED((int)code));
}

static long sys_getpid(uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5)
{
    (void)a0, (void)a1, (void)a2, (void)a3, (void)a4, (void)a5;
    return current_process()->pid;
}

static long sys_sched_yield(uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5)
{
    (void)a0, (void)a1, (void)a2, (void)a3, (void)a4, (void)a5;
    yield();
    return 0;
}

#define ARCH_SET_FS 0x1002
#define ARCH_GET_FS 0x1003

static long sys_arch_prctl(uint64_t code, uint64_t address, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5)
{
    struct process *process = current_process();
    (void)a2, (void)a3, (void)a4, (void)a5;

    if (code == ARCH_SET_FS) {
        if (address >= USER_SPACE_END)
            return -EPERM;
        process->fs_base = address;
        wrmsr(MSR_FS_BASE, address);
        return 0;
    }
    if (code == ARCH_GET_FS)
        return copy_to_user((void *)address, &process->fs_base, sizeof(uint64_t));
    return -EINVAL;
}

static long sys_set_tid_address(uint64_t address, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4,
                                uint64_t a5)
{
    (void)a1, (void)a2, (void)a3, (void)a4, (void)a5;
    current_process()->tid_address = address;
    return current_process()->pid;
}

#define NR(number, function) [number] = { #function, sys_##function }

static const struct syscall_entry table[] = {
    [1] = { "write", sys_write_console },
    NR(24, sched_yield),
    NR(39, getpid),
    NR(60, exit),
    [186] = { "gettid", sys_getpid },
    NR(158, arch_prctl),
    NR(218, set_tid_address),
    [231] = { "exit_group", sys_exit },
};

#define TABLE_SIZE (sizeof(table) / sizeof(table[0]))

const char *syscall_name(uint64_t number)
{
    return number < TABLE_SIZE ? table[number].name : 0;
}

static long call(struct trap_frame *frame)
{
    uint64_t number = frame->rax;
    if (number >= TABLE_SIZE || !table[number].handler)
        return -ENOSYS;
    return table[number].handler(frame->rdi, frame->rsi, frame->rdx, frame->r10, frame->r8, frame->r9);
}

void syscall_dispatch(struct trap_frame *frame)
{
    context_user_exit();
    irq_enable();
    long result = call(frame);
    if (syscall_trace) {
        const char *name = syscall_name(frame->rax);
        printk("strace: pid %d: %s(%#lx, %#lx, %#lx, %#lx, %#lx, %#lx) = %ld\n", current_process()->pid,
               name ? name : "unknown", frame->rdi, frame->rsi, frame->rdx, frame->r10, frame->r8, frame->r9,
               result);
    }
    frame->rax = (uint64_t)result;
    irq_disable();
    if (this_cpu()->need_resched)
        schedule();
    context_user_enter();
}
