/* The event trace: see kernel/trace/trace.h and docs/trace.md.
 *
 * Each CPU writes its own ring (kernel/trace/trace_ring.c) with interrupts off
 * for the few stores of one event, so an interrupt on that CPU cannot
 * interleave with it; other CPUs read it without locks. Rings are
 * allocated once every CPU is up (trace_init): events from earlier in the
 * boot are not recorded.
 *
 * Events name their task by id. Ids are turned into names and pids when
 * /proc/trace is read, from a small table filled on the writing side each
 * time a CPU's running task changes, at switches and at exec: like
 * ftrace's saved_cmdlines, a task that is gone may show as "<...>", and
 * a task shows under its latest name.
 *
 * /proc/trace: the events of every CPU merged in time order; writing
 * "classes LIST" sets the classes, "clear" forgets every recorded event. */
#include "kernel/trace/trace.h"

#include "arch/x86/clock.h"
#include "arch/x86/cpu.h"
#include "arch/x86/vectors.h"
#include "kernel/lib/errno.h"
#include "kernel/lib/format.h"
#include "kernel/mm/heap.h"
#include "kernel/irq/ipi.h"
#include "kernel/irq/irq.h"
#include "kernel/base/percpu.h"
#include "kernel/base/printk.h"
#include "kernel/fs/proc_parse.h"
#include "kernel/fs/procfs.h"
#include "kernel/process/process.h"
#include "kernel/lib/string.h"
#include "kernel/trace/trace_ring.h"
#include "sched/task.h"

#define NAME_SLOTS 512              /* remembered task names, by id modulo this */
#define NAME_SIZE 16

unsigned trace_mask;
uint64_t trace_size_param = 8192;
char trace_param[128];

static struct trace_ring rings[MAX_CPUS];
static uint32_t last_named[MAX_CPUS];   /* the task id each CPU last remembered */

struct task_name {
    uint32_t id;                    /* written last: a reader checks it before and after */
    int pid;
    char name[NAME_SIZE];
};

static struct task_name names[NAME_SLOTS];

/* ---- Writing ---- */

static int task_pid(const struct task *task)
{
    return task->process ? task->process->pid : 0;
}

static void remember_task(const struct task *task)
{
    struct task_name *slot = &names[task->id % NAME_SLOTS];

    __atomic_store_n(&slot->id, 0, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    slot->pid = task_pid(task);
    snprintf(slot->name, NAME_SIZE, "%s", task->process ? task->process->name : task->name);
    __atomic_store_n(&slot->id, task->id, __ATOMIC_RELEASE);
}

static void emit_locked(struct cpu *cpu, enum trace_type type, uint32_t arg0, uint64_t arg1)
{
    struct trace_ring *ring = &rings[cpu->id];
    struct task *task = cpu->current;

    if (!ring->slots)
        return;
    if (task && task->id != last_named[cpu->id]) {
        remember_task(task);
        last_named[cpu->id] = task->id;
    }
    struct trace_event event = {
        .time_ns = clock_now(), .type = (uint16_t)type, .cpu = (uint16_t)cpu->id,
        .task = task ? task->id : 0, .arg0 = arg0, .arg1 = arg1,
    };
    trace_ring_write(ring, &event);
}

void trace_emit(enum trace_type type, uint32_t arg0, uint64_t arg1)
{
    uint64_t flags = irq_save();
    emit_locked(this_cpu(), type, arg0, arg1);
    irq_restore(flags);
}

void trace_emit_switch(struct task *prev, struct task *next)
{
    uint64_t flags = irq_save();
    remember_task(next);
    emit_locked(this_cpu(), TRACE_SCHED_SWITCH, prev->id, next->id);
    irq_restore(flags);
}

void trace_emit_exec(struct task *task)
{
    uint64_t flags = irq_save();
    remember_task(task);
    emit_locked(this_cpu(), TRACE_SCHED_EXEC, task->id, 0);
    irq_restore(flags);
}

/* ---- Control ---- */

void trace_init(void)
{
    uint32_t size = trace_ring_round_size(trace_size_param);
    unsigned mask = 0, cpu;
    char bad[32];

    if (trace_classes_parse(trace_param, strlen(trace_param), &mask, bad, sizeof(bad)) < 0) {
        printk("trace: trace=%s: no class named '%s' (irq, tick, ipi, user, sched, rcu, nohz, all, none); "
               "tracing stays off\n", trace_param, bad);
        mask = 0;
    }
    for_each_online_cpu(cpu) {
        rings[cpu].slots = kzalloc(sizeof(struct trace_event) * size);
        if (!rings[cpu].slots) {
            printk("trace: no memory for %u events on cpu %u\n", size, cpu);
            continue;
        }
        rings[cpu].size = size;
    }
    if (mask) {
        char classes[64];
        trace_classes_format(mask, classes, sizeof(classes));
        printk("trace: recording %s, %u events per CPU\n", classes, size);
    }
    __atomic_store_n(&trace_mask, mask, __ATOMIC_RELEASE);
}

void trace_clear(void)
{
    unsigned cpu;
    for_each_online_cpu(cpu)
        trace_ring_clear(&rings[cpu]);
}

/* "classes LIST" or "clear", with or without a final newline. */
static long write_trace(const char *data, size_t count)
{
    unsigned mask;
    int command = proc_parse_trace(data, count, &mask);

    if (command == PROC_TRACE_CLEAR)
        trace_clear();
    else if (command == PROC_TRACE_CLASSES)
        __atomic_store_n(&trace_mask, mask, __ATOMIC_RELEASE);
    else
        return command;
    return (long)count;
}

/* ---- Reading: /proc/trace ---- */

/* The name and pid of a task id, as remembered; false if forgotten. */
static bool lookup_task(uint32_t id, char *name, int *pid)
{
    const struct task_name *slot = &names[id % NAME_SLOTS];

    if (id == 0 || __atomic_load_n(&slot->id, __ATOMIC_ACQUIRE) != id)
        return false;
    memcpy(name, slot->name, NAME_SIZE);
    name[NAME_SIZE - 1] = '\0';
    *pid = slot->pid;
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    return __atomic_load_n(&slot->id, __ATOMIC_RELAXED) == id;
}

/* "comm=NAME pid=N" with the given prefix, e.g. "prev_". */
static int format_task(char *buffer, size_t size, const char *prefix, uint32_t id)
{
    char name[NAME_SIZE];
    int pid;
    if (!lookup_task(id, name, &pid))
        return snprintf(buffer, size, "%scomm=<...> %stask=%u", prefix, prefix, id);
    return snprintf(buffer, size, "%scomm=%s %spid=%d", prefix, name, prefix, pid);
}

static const char *ipi_name(uint32_t type)
{
    static const char *const ipi_names[] = {
        [IPI_RESCHEDULE] = "RES", [IPI_CALL_FUNCTION] = "CAL", [IPI_NOHZ_KICK] = "NHZ",
        [IPI_TLB_SHOOTDOWN] = "TLB",
    };
    return type < sizeof(ipi_names) / sizeof(ipi_names[0]) ? ipi_names[type] : "?";
}

static const char *vector_name(uint32_t vector)
{
    switch (vector) {
    case VECTOR_LOCAL_TIMER: return "LOC";
    case VECTOR_RESCHEDULE: return "RES";
    case VECTOR_CALL_FUNCTION: return "CAL";
    case VECTOR_NOHZ_KICK: return "NHZ";
    case VECTOR_TLB_SHOOTDOWN: return "TLB";
    case VECTOR_APIC_ERROR: return "ERR";
    case VECTOR_SPURIOUS: return "SPU";
    default: return vector >= VECTOR_DEVICE_BASE && vector < VECTOR_DEVICE_BASE + DEVICE_GSI_COUNT ? "device" : "?";
    }
}

static const char *const type_names[TRACE_TYPE_COUNT] = {
    [TRACE_NONE] = "none",
    [TRACE_IRQ_ENTER] = "irq_enter",         [TRACE_IRQ_EXIT] = "irq_exit",
    [TRACE_TICK_FIRE] = "tick_fire",         [TRACE_TICK_STOP] = "tick_stop",
    [TRACE_TICK_RESTART] = "tick_restart",   [TRACE_TICK_DEP_KICK] = "tick_dep_kick",
    [TRACE_TICK_KEEP] = "tick_keep",
    [TRACE_IPI_SEND] = "ipi_send",
    [TRACE_IPI_RECEIVE] = "ipi_receive",     [TRACE_USER_ENTER] = "user_enter",
    [TRACE_USER_EXIT] = "user_exit",         [TRACE_SCHED_SWITCH] = "sched_switch",
    [TRACE_SCHED_WAKEUP] = "sched_wakeup",   [TRACE_SCHED_MIGRATE] = "sched_migrate",
    [TRACE_SCHED_EXEC] = "sched_exec",       [TRACE_RCU_GP_START] = "rcu_gp_start",
    [TRACE_RCU_GP_END] = "rcu_gp_end",       [TRACE_RCU_QS_REPORT] = "rcu_qs_report",
    [TRACE_RCU_EQS_ENTER] = "rcu_eqs_enter", [TRACE_RCU_EQS_EXIT] = "rcu_eqs_exit",
    [TRACE_NOHZ_SET] = "nohz_set",           [TRACE_NOHZ_CLEAR] = "nohz_clear",
    [TRACE_IRQ_CAUSE] = "irq_cause",
};

/* The part after "EVENT: ". */
static int format_details(char *buffer, size_t size, const struct trace_event *event)
{
    unsigned long long arg1 = event->arg1;
    switch (event->type) {
    case TRACE_IRQ_ENTER:
    case TRACE_IRQ_EXIT:
        return snprintf(buffer, size, "vector=%u source=%s", event->arg0, vector_name(event->arg0));
    case TRACE_TICK_FIRE:
        return snprintf(buffer, size, "ticks=%llu", arg1);
    case TRACE_TICK_STOP:
    case TRACE_TICK_RESTART:
    case TRACE_TICK_KEEP:
        return snprintf(buffer, size, "reason=%s", event->arg1 ? (const char *)(uintptr_t)event->arg1 : "none");
    case TRACE_TICK_DEP_KICK:
        return snprintf(buffer, size, "target=%u reason=%s", event->arg0,
                        event->arg1 ? (const char *)(uintptr_t)event->arg1 : "none");
    case TRACE_IPI_SEND:
        return snprintf(buffer, size, "type=%s target=%u why=%s", ipi_name(event->arg0 & 0xff), event->arg0 >> 8,
                        event->arg1 ? (const char *)(uintptr_t)event->arg1 : "none");
    case TRACE_IRQ_CAUSE:
        if ((event->arg0 >> 16) == 0xffff)
            return snprintf(buffer, size, "source=%s from=- why=%s", irq_source_name(event->arg0 & 0xffff),
                            (const char *)(uintptr_t)event->arg1);
        return snprintf(buffer, size, "source=%s from=%u why=%s", irq_source_name(event->arg0 & 0xffff),
                        event->arg0 >> 16, (const char *)(uintptr_t)event->arg1);
    case TRACE_IPI_RECEIVE:
        return snprintf(buffer, size, "type=%s", ipi_name(event->arg0));
    case TRACE_SCHED_SWITCH: {
        int length = format_task(buffer, size, "prev_", event->arg0);
        size_t used = (size_t)length < size ? (size_t)length : size;
        return length + snprintf(buffer ? buffer + used : NULL, size - used, " ==> ") +
               format_task(buffer && used + 5 < size ? buffer + used + 5 : NULL, used + 5 < size ? size - used - 5 : 0,
                           "next_", (uint32_t)event->arg1);
    }
    case TRACE_SCHED_WAKEUP: {
        int length = format_task(buffer, size, "", event->arg0);
        size_t used = (size_t)length < size ? (size_t)length : size;
        return length + snprintf(buffer ? buffer + used : NULL, size - used, " target_cpu=%llu", arg1);
    }
    case TRACE_SCHED_MIGRATE: {
        int length = format_task(buffer, size, "", event->arg0);
        size_t used = (size_t)length < size ? (size_t)length : size;
        return length + snprintf(buffer ? buffer + used : NULL, size - used, " orig_cpu=%llu dest_cpu=%llu",
                                 arg1 >> 32, arg1 & 0xffffffffull);
    }
    case TRACE_SCHED_EXEC:
        return format_task(buffer, size, "", event->arg0);
    case TRACE_USER_ENTER:
    case TRACE_USER_EXIT:
        buffer[0] = '\0';
        return 0;
    case TRACE_RCU_GP_START:
    case TRACE_RCU_GP_END:
        return snprintf(buffer, size, "gp_seq=%llu", arg1);
    case TRACE_RCU_QS_REPORT:
        return snprintf(buffer, size, "gp_seq=%u cpus=%#llx", event->arg0, arg1);
    case TRACE_RCU_EQS_ENTER:
    case TRACE_RCU_EQS_EXIT:
        return snprintf(buffer, size, "kind=%s", event->arg0 == TRACE_EQS_USER ? "user" : "idle");
    case TRACE_NOHZ_SET:
    case TRACE_NOHZ_CLEAR:
        return snprintf(buffer, size, "pid=%d", (int)event->arg0);
    default:
        return snprintf(buffer, size, "arg0=%u arg1=%llu", event->arg0, arg1);
    }
}

static void print_event(struct proc_text *text, const struct trace_event *event)
{
    char name[NAME_SIZE], details[160];
    int pid;
    if (!lookup_task(event->task, name, &pid)) {
        snprintf(name, sizeof(name), "<...>");
        pid = -1;
    }
    format_details(details, sizeof(details), event);
    uint64_t us = event->time_ns / 1000;
    const char *type = event->type < TRACE_TYPE_COUNT && type_names[event->type] ? type_names[event->type] : "?";
    proc_printf(text, "%16s-%-5d [%03u] %5llu.%06llu: %s:%s%s\n", name, pid, event->cpu,
                (unsigned long long)(us / 1000000), (unsigned long long)(us % 1000000), type,
                details[0] ? " " : "", details);
}

struct cpu_events {
    struct trace_event *events;
    size_t count, next;
    uint64_t overwritten;
};

/* The CPU whose next event is the earliest, or -1 when all are done. */
static int earliest(struct cpu_events *per_cpu)
{
    int best = -1;
    unsigned cpu;
    for_each_online_cpu(cpu) {
        struct cpu_events *c = &per_cpu[cpu];
        if (c->next < c->count &&
            (best < 0 || c->events[c->next].time_ns < per_cpu[best].events[per_cpu[best].next].time_ns))
            best = (int)cpu;
    }
    return best;
}

void trace_proc_show(struct proc_text *text)
{
    char classes[64];
    unsigned cpu;

    trace_classes_format(__atomic_load_n(&trace_mask, __ATOMIC_RELAXED), classes, sizeof(classes));
    proc_printf(text, "# nohzk trace: classes %s, %u events per cpu\n", classes, rings[0].size);
    struct cpu_events *per_cpu = kzalloc(sizeof(*per_cpu) * MAX_CPUS);
    if (!per_cpu)
        return;
    for_each_online_cpu(cpu) {
        struct cpu_events *c = &per_cpu[cpu];
        if (!rings[cpu].slots || !(c->events = kmalloc(sizeof(struct trace_event) * rings[cpu].size)))
            continue;
        c->count = trace_ring_read(&rings[cpu], c->events, rings[cpu].size, &c->overwritten);
    }
    for_each_online_cpu(cpu)
        proc_printf(text, "# cpu %u: %zu events, %llu overwritten\n", cpu, per_cpu[cpu].count,
                    (unsigned long long)per_cpu[cpu].overwritten);
    proc_printf(text, "#             TASK-PID   CPU  TIMESTAMP  EVENT: DETAILS\n");
    for (int best; (best = earliest(per_cpu)) >= 0;)
        print_event(text, &per_cpu[best].events[per_cpu[best].next++]);
    for_each_online_cpu(cpu)
        kfree(per_cpu[cpu].events);
    kfree(per_cpu);
}

PROC_FILE("/proc/trace", trace_proc_show, write_trace);
