/* /proc: a few generated files, in Linux's formats so that busybox's
 * tools (top, free, uptime) can read them. Each is a node in the VFS tree
 * (vfs_create_device) whose open builds the whole text into a buffer held
 * by that open file; reads come from that snapshot, so a reader that reads
 * in pieces sees one consistent text, as with Linux's seq_file for small
 * files. The counters are read without locks: a number that is a moment
 * old is fine here.
 *
 * Left out: per-process directories (/proc/self, /proc/PID), /proc/cpuinfo,
 * /proc/loadavg, the user/system split of CPU time (only idle time is
 * measured), "processes" in /proc/stat (the fork counter lives in
 * kernel/process.c and is not exported: shown as 0), and lseek past the
 * snapshot's size with SEEK_END (the inode's size is 0, as on Linux). */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arch/x86/clock.h"
#include "kernel/errno.h"
#include "kernel/format.h"
#include "kernel/heap.h"
#include "kernel/irq.h"
#include "kernel/page_alloc.h"
#include "kernel/percpu.h"
#include "kernel/printk.h"
#include "kernel/string.h"
#include "kernel/vfs.h"
#include "rcu/proc.h"
#include "sched/task.h"

#define USER_HZ 100 /* the unit of /proc/stat's times, fixed by the ABI */
#define NS_PER_TICK (1000000000ul / USER_HZ)

/* Text being built; a write past the capacity is counted in `length` but
 * not stored, so the caller can tell it must retry with more room. */
struct text {
    char *data;
    size_t length, capacity;
};

static void text_printf(struct text *text, const char *format, ...) __attribute__((format(printf, 2, 3)));

static void text_printf(struct text *text, const char *format, ...)
{
    size_t room = text->length < text->capacity ? text->capacity - text->length : 0;
    va_list args;
    va_start(args, format);
    int written = vsnprintf(room ? text->data + text->length : NULL, room, format, args);
    va_end(args);
    if (written > 0)
        text->length += (size_t)written;
}

struct procfs_entry {
    const char *path;
    void (*generate)(struct text *text);
    long (*write)(const char *data, size_t count);  /* optional: the file is writable */
};

/* What an open file holds: the snapshot. */
struct snapshot {
    const struct procfs_entry *entry;
    size_t length;
    char data[];
};

/* ---- The files ---- */

static uint64_t idle_ns(unsigned cpu)
{
    struct task *idle = cpus[cpu]->rq.idle;
    return idle ? task_runtime_ns(idle) : 0;
}

static void generate_interrupts(struct text *text)
{
    static const char *const descriptions[IRQ_SOURCE_DEVICE_FIRST] = {
        [IRQ_SOURCE_LOCAL_TIMER] = "Local timer interrupts",
        [IRQ_SOURCE_RESCHEDULE] = "Rescheduling interrupts",
        [IRQ_SOURCE_CALL_FUNCTION] = "Function call interrupts",
        [IRQ_SOURCE_NOHZ_KICK] = "Nohz kick interrupts",
        [IRQ_SOURCE_SPURIOUS] = "Spurious interrupts",
        [IRQ_SOURCE_APIC_ERROR] = "APIC errors",
    };
    unsigned cpu;
    /* Linux's columns: 11 wide, the label "XXX: " then counts "%10u ". */
    text_printf(text, "%11s", "");
    for_each_online_cpu(cpu)
        text_printf(text, "CPU%-8u", cpu);
    text_printf(text, "\n");
    /* Device IRQs first, by GSI, as Linux lists them; only those seen. */
    for (unsigned gsi = 0; gsi < DEVICE_GSI_COUNT; gsi++) {
        enum irq_source source = IRQ_SOURCE_DEVICE_FIRST + gsi;
        uint64_t total = 0;
        for_each_online_cpu(cpu)
            total += irq_count(cpu, source);
        if (total == 0)
            continue;
        text_printf(text, "%3u: ", gsi);
        for_each_online_cpu(cpu)
            text_printf(text, "%10llu ", (unsigned long long)irq_count(cpu, source));
        text_printf(text, " IO-APIC  %u-edge\n", gsi); /* trigger mode not tracked */
    }
    for (unsigned source = 0; source < IRQ_SOURCE_DEVICE_FIRST; source++) {
        text_printf(text, "%3s: ", irq_source_name(source));
        for_each_online_cpu(cpu)
            text_printf(text, "%10llu ", (unsigned long long)irq_count(cpu, source));
        text_printf(text, "  %s\n", descriptions[source]);
    }
}

static void generate_uptime(struct text *text)
{
    uint64_t now = clock_now();
    /* Idle time is summed over CPUs, as Linux does (it may exceed uptime). */
    uint64_t idle = 0;
    unsigned cpu;
    for_each_online_cpu(cpu)
        idle += idle_ns(cpu);
    uint64_t now_cs = now / 10000000, idle_cs = idle / 10000000;
    text_printf(text, "%llu.%02llu %llu.%02llu\n", (unsigned long long)(now_cs / 100),
                (unsigned long long)(now_cs % 100), (unsigned long long)(idle_cs / 100),
                (unsigned long long)(idle_cs % 100));
}

static void generate_meminfo(struct text *text)
{
    unsigned long kb_per_page = 4096 / 1024;
    unsigned long total = page_total_count() * kb_per_page, free = page_free_count() * kb_per_page;
    /* No page cache to reclaim: what is free is what is available. */
    text_printf(text, "MemTotal:       %8lu kB\n", total);
    text_printf(text, "MemFree:        %8lu kB\n", free);
    text_printf(text, "MemAvailable:   %8lu kB\n", free);
}

static void stat_cpu_line(struct text *text, const char *name, uint64_t idle_ticks)
{
    /* user nice system idle iowait irq softirq steal guest guest_nice */
    text_printf(text, "%s 0 0 0 %llu 0 0 0 0 0 0\n", name, (unsigned long long)idle_ticks);
}

static void generate_stat(struct text *text)
{
    uint64_t idle_total = 0, switches = 0, running = 0, interrupts = 0;
    unsigned cpu;
    for_each_online_cpu(cpu) {
        idle_total += idle_ns(cpu) / NS_PER_TICK;
        switches += cpus[cpu]->rq.context_switches;
        running += cpus[cpu]->rq.nr_running;
        for (unsigned source = 0; source < IRQ_SOURCE_COUNT; source++)
            interrupts += irq_count(cpu, source);
    }
    stat_cpu_line(text, "cpu ", idle_total);
    for_each_online_cpu(cpu) {
        char name[16];
        snprintf(name, sizeof(name), "cpu%u", cpu);
        stat_cpu_line(text, name, idle_ns(cpu) / NS_PER_TICK);
    }
    /* intr: the total, then each device IRQ by number (Linux's layout). */
    text_printf(text, "intr %llu", (unsigned long long)interrupts);
    for (unsigned gsi = 0; gsi < DEVICE_GSI_COUNT; gsi++) {
        uint64_t count = 0;
        for_each_online_cpu(cpu)
            count += irq_count(cpu, IRQ_SOURCE_DEVICE_FIRST + gsi);
        text_printf(text, " %llu", (unsigned long long)count);
    }
    text_printf(text, "\nctxt %llu\n", (unsigned long long)switches);
    text_printf(text, "btime 0\n"); /* no wall clock */
    text_printf(text, "processes 0\n");
    text_printf(text, "procs_running %llu\n", (unsigned long long)running);
    text_printf(text, "procs_blocked 0\n");
}

/* Files whose text another part of the kernel writes, snprintf-style. */
static void generate_from(struct text *text, size_t (*show)(char *buffer, size_t size))
{
    size_t room = text->length < text->capacity ? text->capacity - text->length : 0;
    text->length += show(room ? text->data + text->length : NULL, room);
}

static void generate_rcu(struct text *text) { generate_from(text, rcu_proc_show); }
static void generate_rcustress(struct text *text) { generate_from(text, rcu_stress_show); }

static const struct procfs_entry entries[] = {
    { "/proc/interrupts", generate_interrupts, NULL },
    { "/proc/uptime", generate_uptime, NULL },
    { "/proc/meminfo", generate_meminfo, NULL },
    { "/proc/stat", generate_stat, NULL },
    { "/proc/rcu", generate_rcu, NULL },
    { "/proc/rcustress", generate_rcustress, rcu_stress_write },
};

/* ---- The file operations ---- */

static int procfs_open(struct file *file)
{
    const struct procfs_entry *entry = file->private;
    size_t capacity = 4096;
    for (;;) {
        struct snapshot *snapshot = kmalloc(sizeof(*snapshot) + capacity);
        if (!snapshot)
            return -ENOMEM;
        struct text text = { snapshot->data, 0, capacity };
        entry->generate(&text);
        if (text.length < capacity) {
            snapshot->entry = entry;
            snapshot->length = text.length;
            file->private = snapshot;
            return 0;
        }
        /* Did not fit: once more with room for what it needed. */
        kfree(snapshot);
        capacity = text.length + 1;
    }
}

static long procfs_read(struct file *file, void *buffer, size_t count)
{
    struct snapshot *snapshot = file->private;
    if (file->position >= snapshot->length)
        return 0;
    size_t left = snapshot->length - file->position;
    if (count > left)
        count = left;
    memcpy(buffer, snapshot->data + file->position, count);
    file->position += count;
    return (long)count;
}

static long procfs_write(struct file *file, const void *buffer, size_t count)
{
    struct snapshot *snapshot = file->private;
    return snapshot->entry->write ? snapshot->entry->write(buffer, count) : -EINVAL;
}

static void procfs_release(struct file *file)
{
    kfree(file->private);
}

static const struct file_ops procfs_ops = {
    .open = procfs_open,
    .read = procfs_read,
    .write = procfs_write,
    .release = procfs_release,
};

void procfs_init(void)
{
    for (size_t i = 0; i < sizeof(entries) / sizeof(entries[0]); i++) {
        uint32_t mode = S_IFREG | (entries[i].write ? 0644 : 0444);
        int error = vfs_create_device(entries[i].path, mode, &procfs_ops, (void *)&entries[i]);
        if (error)
            printk("procfs: cannot create %s: %d\n", entries[i].path, error);
    }
}
