/* Processes: creation, exit, and death by fault. See kernel/process.h.
 *
 * For now a process is started from a flat image of code (the in-kernel
 * tests' ring-3 programs); execve of ELF files, fork and wait4 come with
 * the file system. The layout of a process's memory:
 *   FLAT_IMAGE_BASE    the code, read-only and executable
 *   USER_STACK_TOP     the stack, below it, USER_STACK_PAGES pages, no-execute */
#include "kernel/process.h"

#include "arch/x86/paging.h"
#include "arch/x86/trap.h"
#include "arch/x86/user_mode.h"
#include "arch/x86/cpu.h"
#include "kernel/context_tracking.h"
#include "kernel/format.h"
#include "kernel/heap.h"
#include "kernel/panic.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/string.h"
#include "sched/task.h"

#define FLAT_IMAGE_BASE  0x400000ul
#define USER_STACK_TOP   0x7ffffffff000ul
#define USER_STACK_PAGES 8

static int next_pid = 1;

struct process *current_process(void)
{
    struct task *task = current_task();
    return task ? task->process : 0;
}

/* Copy size bytes into the user pages at address of a space (not the
 * current one), through the kernel's direct map of those pages. */
static void copy_into_space(struct address_space *space, uint64_t address, const void *data, size_t size)
{
    for (size_t done = 0; done < size;) {
        uint64_t page = (address + done) & ~(PAGE_SIZE - 1);
        uint64_t offset = (address + done) - page;
        size_t chunk = PAGE_SIZE - offset < size - done ? PAGE_SIZE - offset : size - done;
        uint64_t entry = address_space_lookup(space, page, false);
        ASSERT(entry);
        memcpy((char *)phys_to_virt(entry & PTE_ADDRESS) + offset, (const char *)data + done, chunk);
        done += chunk;
    }
}

static int map_pages(struct address_space *space, uint64_t start, size_t pages, uint64_t flags)
{
    for (size_t i = 0; i < pages; i++) {
        int error = address_space_map(space, start + i * PAGE_SIZE, flags);
        if (error)
            return error;
    }
    return 0;
}

struct flat_start {
    struct process *process;
};

static void run_flat_image(void *arg)
{
    struct process *process = arg;
    struct task *self = current_task();

    irq_disable();
    address_space_switch(process->memory);
    this_cpu()->syscall_stack_top = self->stack_top;
    context_user_enter();
    user_mode_start(self->stack_top, FLAT_IMAGE_BASE, USER_STACK_TOP);
}

struct process *process_spawn_flat(const char *name, const void *code, size_t size, int cpu)
{
    struct process *process = kzalloc(sizeof(*process));
    if (!process)
        return 0;
    process->memory = address_space_create();
    size_t code_pages = (size + PAGE_SIZE - 1) / PAGE_SIZE;
    if (!process->memory || map_pages(process->memory, FLAT_IMAGE_BASE, code_pages, 0) < 0 ||
        map_pages(process->memory, USER_STACK_TOP - USER_STACK_PAGES * PAGE_SIZE, USER_STACK_PAGES,
                  PTE_WRITE | PTE_NX) < 0) {
        if (process->memory)
            address_space_destroy(process->memory);
        kfree(process);
        return 0;
    }
    copy_into_space(process->memory, FLAT_IMAGE_BASE, code, size);
    process->pid = __atomic_fetch_add(&next_pid, 1, __ATOMIC_RELAXED);
    snprintf(process->name, sizeof(process->name), "%s", name);
    wait_queue_init(&process->child_exited);

    struct cpumask where = cpu >= 0 ? cpumask_of((unsigned)cpu) : cpu_online_mask;
    process->task = kthread_create_stopped(name, run_flat_image, process, &where);
    if (!process->task) {
        address_space_destroy(process->memory);
        kfree(process);
        return 0;
    }
    process->task->process = process;
    wake_up_task(process->task);
    return process;
}

/* At every switch: the next task's address space (the kernel's own for a
 * kernel thread, so that an exiting process's tables can be freed) and its
 * TLS base. */
void process_switch_in(struct process *process)
{
    address_space_switch(process ? process->memory : 0);
    if (process)
        wrmsr(MSR_FS_BASE, process->fs_base);
}

void process_exit(int wait_status)
{
    struct process *process = current_process();

    ASSERT(process);
    irq_disable();
    process->exit_status = wait_status;
    process->exited = true;
    address_space_switch(0);
    address_space_destroy(process->memory);
    process->memory = 0;
    task_exit(wait_status);
}

void process_kill_by_fault(struct trap_frame *frame, int signal, const char *what, uint64_t address)
{
    struct process *process = current_process();

    if (!process)
        panic_from_trap(frame, "%s in ring 3 without a process", what);
    printk("nohzk: pid %d (%s) killed by signal %d: %s at %#lx, rip %#lx\n", process->pid, process->name,
           signal, what, address, frame->rip);
    process_exit(WAIT_STATUS_SIGNALED(signal));
}

int process_reap(struct process *process)
{
    int status = kthread_join(process->task);
    kfree(process);
    return status;
}
