/* kernel_main: the boot CPU's path from the boot loader to a running
 * system, in order; ap_main: the same for the other CPUs. Each step is one
 * call, so this file reads as the table of contents of the boot. */
#include "arch/x86/acpi.h"
#include "arch/x86/clock.h"
#include "arch/x86/cpu.h"
#include "arch/x86/gdt.h"
#include "arch/x86/interrupt_controllers.h"
#include "arch/x86/lapic.h"
#include "arch/x86/machine.h"
#include "arch/x86/paging.h"
#include "arch/x86/power.h"
#include "arch/x86/serial.h"
#include "arch/x86/smpboot.h"
#include "arch/x86/trap.h"
#include "arch/x86/user_mode.h"
#include "kernel/debug/bench.h"
#include "kernel/entry/syscall.h"
#include "kernel/init/cmdline.h"
#include "kernel/console/console.h"
#include "kernel/mm/heap.h"
#include "kernel/process/process.h"
#include "kernel/fs/procfs.h"
#include "kernel/fs/sysfs.h"
#include "kernel/fs/vfs.h"
#include "kernel/time/context_tracking.h"
#include "kernel/time/housekeeping.h"
#include "kernel/debug/ktest.h"
#include "kernel/mm/memmap.h"
#include "kernel/init/multiboot2.h"
#include "kernel/init/fw_cfg_items.h"
#include "kernel/mm/page_alloc.h"
#include "kernel/base/lockcheck.h"
#include "kernel/base/panic.h"
#include "kernel/time/nohz_task.h"
#include "kernel/init/params.h"
#include "kernel/base/percpu.h"
#include "kernel/irq/ipi.h"
#include "kernel/irq/irq.h"
#include "kernel/time/tick.h"
#include "kernel/base/printk.h"
#include "kernel/lib/errno.h"
#include "kernel/lib/string.h"
#include "kernel/time/timers.h"
#include "kernel/time/tsc_watchdog.h"
#include "kernel/time/vdso_clock.h"
#include "kernel/process/vdso.h"
#include "kernel/trace/trace.h"
#include "rcu/rcu.h"
#include "sched/task.h"
#include "sched/idle_poll.h"

#define BOOT_INFO_MAX_BYTES (64 * 1024)
#define DEFAULT_LAPIC_ADDRESS 0xfee00000ul
#define LOW_MEMORY_LIMIT 0xa0000ul          /* the trampoline must start below 1 MiB */

extern char __kernel_end[];

static struct boot_info boot_info;
static struct memmap free_memory;
static uint64_t trampoline_page;

static void read_boot_info(uint32_t magic, uint32_t info_phys)
{
    if (magic != MB2_BOOTLOADER_MAGIC)
        panic("not started by a multiboot2 boot loader (magic %#x)", magic);
    uint32_t total_size = *(const uint32_t *)phys_to_virt(info_phys);
    size_t available = total_size < BOOT_INFO_MAX_BYTES ? total_size : BOOT_INFO_MAX_BYTES;
    if (mb2_parse(phys_to_virt(info_phys), available, &boot_info) < 0)
        panic("the multiboot2 boot information is malformed (%u bytes)", total_size);
    bool from_fw_cfg = fw_cfg_items_cmdline(&boot_info);
    printk("boot: loader '%s', command line '%s'%s\n", boot_info.boot_loader_name, boot_info.cmdline,
           from_fw_cfg ? " (with fw_cfg's)" : "");
}

/* The highest address of any RAM, so that the direct map covers the boot
 * information, modules and ACPI tables as well as free memory. */
static uint64_t highest_ram_address(void)
{
    uint64_t highest = 0;
    for (size_t i = 0; i < boot_info.memory_map_count; i++) {
        const struct mb2_memory_entry *entry = &boot_info.memory_map[i];
        if (entry->type == MB2_MEMORY_RESERVED || entry->type == MB2_MEMORY_BADRAM)
            continue;
        if (entry->base + entry->length > highest)
            highest = entry->base + entry->length;
    }
    return highest;
}

/* The lowest free page below 640 KiB, for the AP trampoline. */
static uint64_t choose_trampoline_page(void)
{
    for (uint64_t page = PAGE_SIZE; page < LOW_MEMORY_LIMIT; page += PAGE_SIZE) {
        if (memmap_contains(&free_memory, page, PAGE_SIZE))
            return page;
    }
    return 0;
}

static void build_free_memory(uint32_t info_phys)
{
    memmap_init(&free_memory);
    if (mb2_add_usable_memory(&boot_info, &free_memory) < 0)
        panic("the boot loader gave no usable memory map");
    memmap_reserve(&free_memory, 0, PAGE_SIZE);        /* page_alloc() returns 0 for "none" */
    memmap_reserve(&free_memory, 0x100000, virt_to_phys(__kernel_end) - 0x100000);
    memmap_reserve(&free_memory, info_phys, boot_info.total_size);
    for (size_t i = 0; i < boot_info.module_count; i++)
        memmap_reserve(&free_memory, boot_info.modules[i].start,
                       boot_info.modules[i].end - boot_info.modules[i].start);
    acpi_reserve_tables(&free_memory);
    memmap_align_pages(&free_memory, PAGE_SIZE);

    trampoline_page = choose_trampoline_page();
    if (trampoline_page)
        memmap_reserve(&free_memory, trampoline_page, PAGE_SIZE);
    else
        printk("smp: no free page below 640 KiB for the AP trampoline\n");
}

static void start_interrupt_controllers(const struct acpi_info *acpi)
{
    pic_disable();
    lapic_init_boot_cpu(acpi->has_madt ? acpi->madt.lapic_address : DEFAULT_LAPIC_ADDRESS);
    this_cpu()->apic_id = lapic_id();
    if (acpi->has_madt && acpi->madt.ioapic_count > 0)
        ioapic_init(acpi->madt.ioapics[0].address, acpi->madt.ioapics[0].gsi_base);
}

static void start_secondary_cpus(const struct acpi_info *acpi)
{
    uint32_t apic_ids[MAX_CPUS];
    unsigned count = 0;

    if (!acpi->has_madt || !trampoline_page)
        return;
    for (unsigned i = 0; i < acpi->madt.cpu_count && count < MAX_CPUS; i++) {
        if (acpi->madt.cpus[i].enabled)
            apic_ids[count++] = acpi->madt.cpus[i].apic_id;
    }
    smp_boot_secondary_cpus(apic_ids, count, trampoline_page);
}

/* The last module of that name: fw_cfg's come after the boot loader's. */
static const struct mb2_module *find_module(const char *name)
{
    for (size_t i = boot_info.module_count; i > 0; i--) {
        if (strcmp(boot_info.modules[i - 1].name, name) == 0)
            return &boot_info.modules[i - 1];
    }
    return 0;
}

/* Every "initrd" module in order, later files replacing earlier ones:
 * the ISO's archive, then the run's from fw_cfg. Returns 0, -ENOENT if
 * there is none, or the first unpack error. */
static int unpack_initrds(void)
{
    int error = -ENOENT;

    for (size_t i = 0; i < boot_info.module_count; i++) {
        const struct mb2_module *module = &boot_info.modules[i];
        if (strcmp(module->name, "initrd") != 0)
            continue;
        error = initramfs_unpack(phys_to_virt(module->start), module->end - module->start);
        if (error)
            return error;
    }
    return error;
}

static void show_ticks_after_one_second(void)
{
    sleep_ns(1000000000ul);
    unsigned cpu;
    printk("tick: LOC interrupts per CPU after 1 s:");
    for_each_online_cpu(cpu)
        printk(" cpu%u=%lu", cpu, irq_count(cpu, IRQ_SOURCE_LOCAL_TIMER));
    printk("\n");
}

static const char *const shell_environment[] = { "PATH=/bin:/sbin:/usr/bin:/usr/sbin", "HOME=/", "TERM=vt100",
                                                   "USER=root", 0 };

/* The file tree from the initrd, and the console. False if there is no
 * initrd with a /bin/sh (the kernel still boots, for its own tests). */
static bool start_user_space(void)
{
    const struct acpi_info *acpi = acpi_info();
    uint16_t flags = 0;
    uint32_t serial_gsi = acpi->has_madt ? acpi_irq_to_gsi(&acpi->madt, 4, &flags) : 4;

    vfs_init();
    procfs_init();
    sysfs_init();
    console_init(serial_gsi, acpi_override_is_level(flags), acpi_override_is_active_low(flags));
    int error = unpack_initrds();
    if (error == -ENOENT)
        return false;
    if (error) {
        printk("initrd: cannot unpack (error %d)\n", error);
        return false;
    }
    long open_error = 0;
    struct file *shell = vfs_open("/bin/sh", O_RDONLY, 0, &open_error);
    if (!shell)
        return false;
    vfs_close(shell);
    return true;
}

/* A wait status as a shell reports it: the exit code, or 128 + signal. */
static int exit_status_of(int wait_status)
{
    return (wait_status & 0x7f) ? 128 + (wait_status & 0x7f) : (wait_status >> 8) & 0xff;
}

static int run_shell_command(const char *text, size_t length)
{
    char *command = kmalloc(length + 1);
    if (!command)
        return 127;
    memcpy(command, text, length);
    command[length] = '\0';
    const char *const argv[] = { "sh", "-c", command, 0 };
    struct process *shell = process_spawn_exec("/bin/sh", argv, shell_environment, "/dev/console");
    int status = shell ? exit_status_of(process_reap(shell)) : 127;
    kfree(command);
    return status;
}

/* The first task, pinned to the boot CPU: run the in-kernel tests, or the
 * command that tools/run/boot passed, or stay up for an interactive session. */
static void init_task(void *unused)
{
    bool have_shell = start_user_space();
    (void)unused;
    if (kernel_params.bench[0])
        machine_power_off(bench_run(kernel_params.bench) ? 1 : 0);
    const struct mb2_module *command = find_module("command");
    unsigned failed = 0;
    if (kernel_params.ktest[0]) {
        /* A command given too runs after the suites, whatever they said (a
         * lab's grade checks in one boot that the shell still works); a
         * failed suite makes the status 1. */
        failed = ktest_run(kernel_params.ktest);
        if (!command || command->end == command->start || !have_shell)
            machine_power_off(failed ? 1 : 0);
    }
    if (command) {
        size_t length = command->end - command->start;
        if (length == 0)
            machine_power_off(0);
        if (!have_shell) {
            printk("nohzk: cannot run '%.*s': no /bin/sh (was the initrd built?)\n", (int)length,
                   (const char *)phys_to_virt(command->start));
            machine_power_off(127);
        }
        int status = run_shell_command(phys_to_virt(command->start), length);
        machine_power_off(failed ? 1 : status);
    }
    if (have_shell) {
        static const char *const argv[] = { "sh", 0 };
        printk("nohzk: starting an interactive shell; `poweroff` or Ctrl-A X to leave\n");
        struct process *shell = process_spawn_exec("/bin/sh", argv, shell_environment, "/dev/console");
        machine_power_off(shell ? exit_status_of(process_reap(shell)) : 127);
    }
    show_ticks_after_one_second();
    printk("nohzk: up, without an initrd: no shell. Ctrl-A X leaves QEMU.\n");
}

static void start_init_task(void)
{
    struct cpumask boot_cpu_only = cpumask_of(0);
    if (!kthread_create("init", init_task, 0, &boot_cpu_only))
        panic("cannot create the init task");
}

/* The lock check's question to the TSC watchdog, which sits above it. */
static bool tsc_trusted(void)
{
    return tsc_is_stable();
}

void kernel_main(uint32_t magic, uint32_t info_phys)
{
    struct cpu *boot_cpu = percpu_setup_boot_cpu();

    machine_hooks_init();
    console_early_init();
    lockcheck_set_tsc_trusted(tsc_trusted);
    printk("\nnohzk: booting\n");
    read_boot_info(magic, info_phys);
    params_parse(boot_info.cmdline);
    fw_cfg_items_check_required(kernel_params.fw_cfg_required);
    const struct acpi_info *acpi =
        acpi_init(boot_info.rsdp_version ? boot_info.rsdp : 0, boot_info.rsdp_length);

    build_free_memory(info_phys);
    page_alloc_init(&free_memory);
    paging_init(highest_ram_address());
    fw_cfg_items_modules(&boot_info);

    idt_init();
    arch_cpu_init(boot_cpu);
    start_interrupt_controllers(acpi);
    if (kernel_params.require_hpet && !acpi->has_hpet)
        printk("clock: clocksource=hpet, but this machine has no HPET\n");
    clock_init(acpi->has_hpet ? acpi->hpet_address : 0, kernel_params.force_pit);
    lapic_timer_calibrate();
    context_clock_calibrate();
    if (kernel_params.tsc_unstable && tsc_watchdog_mark_unstable(&tsc_watchdog, boot_cpu->id, 0))
        printk("clocksource: tsc marked unstable (tsc=unstable): the vDSO makes system calls\n");
    vdso_clock_init();
    vdso_init();
    user_mode_init_this_cpu();
    syscall_table_init();
    irq_init();
    ipi_init();
    tick_init();

    timers_init_this_cpu();
    sched_init_this_cpu();
    percpu_mark_online(boot_cpu);
    irq_enable();
    tick_start_this_cpu();
    start_secondary_cpus(acpi);
    printk("smp: %u CPUs online\n", cpu_count);
    trace_init();
    housekeeping_init();
    nohz_full_init(kernel_params.nohz_full);
    rcu_nocbs_add(&nohz_full_mask);     /* nohz_full= implies rcu_nocbs=, as on Linux */
    idle_poll_init(kernel_params.idle);
    rcu_init();
    start_init_task();
    idle_loop();
}

void ap_main(struct cpu *cpu)
{
    arch_cpu_init(cpu);
    lapic_init_this_cpu();
    user_mode_init_this_cpu();
    timers_init_this_cpu();
    sched_init_this_cpu();
    percpu_mark_online(cpu);
    irq_enable();
    tick_start_this_cpu();
    idle_loop();
}
