/* The event trace (docs/trace.md): small fixed-size events in a lock-free
 * ring per CPU, read as text from /proc/trace.
 *
 * A trace point is one line at its call site, e.g. trace_irq_enter(vector).
 * Each is a static inline function here that tests one bit of a global
 * mask, marked unlikely: with its class off, a trace point costs one load
 * and one predictable branch, and its arguments are not even computed when
 * they have no side effects. With the class on, trace_emit() (out of line,
 * kernel/trace/trace.c) stamps the event with the clocksource and stores it.
 *
 * Tick reasons are strings with static storage (string literals): the event
 * keeps the pointer, /proc/trace prints the text. */
#ifndef KERNEL_TRACE_H
#define KERNEL_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Classes: each event type belongs to one. Names as in trace=, /proc/trace. */
enum trace_class {
    TRACE_CLASS_IRQ,        /* "irq": interrupt enter/exit, with the vector */
    TRACE_CLASS_TICK,       /* "tick": tick fire, stop, restart (with a reason) */
    TRACE_CLASS_IPI,        /* "ipi": send (type, target), receive (type) */
    TRACE_CLASS_USER,       /* "user": user mode enter/exit (context tracking) */
    TRACE_CLASS_SCHED,      /* "sched": switch, wakeup, migrate */
    TRACE_CLASS_RCU,        /* "rcu": GP start/end, QS report, extended QS enter/exit */
    TRACE_CLASS_NOHZ,       /* "nohz": a task's nohz attribute set/clear */
    TRACE_CLASS_COUNT,
};

#define TRACE_CLASSES_ALL ((1u << TRACE_CLASS_COUNT) - 1)

/* Event types. arg0 is 32 bits, arg1 64; what they hold is in the comment,
 * and in format_details() (kernel/trace/trace.c). */
enum trace_type {
    TRACE_NONE,
    TRACE_IRQ_ENTER,        /* vector */
    TRACE_IRQ_EXIT,         /* vector */
    TRACE_TICK_FIRE,        /* -, ticks so far on this CPU */
    TRACE_TICK_STOP,        /* -, reason (const char *) */
    TRACE_TICK_RESTART,     /* -, reason (const char *) */
    TRACE_TICK_DEP_KICK,    /* target CPU, reason (const char *): a dependency mask became non-empty */
    TRACE_TICK_KEEP,        /* -, reason (const char *): a check kept the tick, for a reason other than the last */
    TRACE_IPI_SEND,         /* enum ipi_type | target CPU << 8, why (const char *) */
    TRACE_IPI_RECEIVE,      /* enum ipi_type */
    TRACE_USER_ENTER,
    TRACE_USER_EXIT,
    TRACE_SCHED_SWITCH,     /* prev task id, next task id */
    TRACE_SCHED_WAKEUP,     /* task id, target CPU */
    TRACE_SCHED_MIGRATE,    /* task id, (from CPU << 32) | to CPU */
    TRACE_SCHED_EXEC,       /* task id (its name is the new program's) */
    TRACE_RCU_GP_START,     /* -, gp_seq */
    TRACE_RCU_GP_END,       /* -, gp_seq */
    TRACE_RCU_QS_REPORT,    /* gp_seq (low 32 bits), mask of the CPUs reported for */
    TRACE_RCU_EQS_ENTER,    /* enum trace_eqs_kind */
    TRACE_RCU_EQS_EXIT,     /* enum trace_eqs_kind */
    TRACE_NOHZ_SET,         /* pid */
    TRACE_NOHZ_CLEAR,       /* pid */
    TRACE_IRQ_CAUSE,        /* enum irq_source | sender CPU << 16 (0xffff: none), why (const char *) */
    TRACE_TYPE_COUNT,
};

enum trace_eqs_kind { TRACE_EQS_IDLE, TRACE_EQS_USER };

/* One event: 32 bytes. seq is 0 while the slot is being written, else the
 * slot's position in the ring's history plus one (kernel/trace/trace_ring.c). */
struct trace_event {
    uint64_t time_ns;       /* clock_now(): the HPET, the same clock on every CPU */
    uint32_t seq;
    uint16_t type;          /* enum trace_type */
    uint16_t cpu;
    uint32_t task;          /* task id of the task running when it happened */
    uint32_t arg0;
    uint64_t arg1;
};

_Static_assert(sizeof(struct trace_event) == 32, "events are 32 bytes");

extern unsigned trace_mask;        /* bit (1 << class) set: that class is recorded */

static inline bool trace_class_on(enum trace_class class)
{
    return __builtin_expect((__atomic_load_n(&trace_mask, __ATOMIC_RELAXED) >> class) & 1, 0);
}

void trace_emit(enum trace_type type, uint32_t arg0, uint64_t arg1);

struct task;
void trace_emit_switch(struct task *prev, struct task *next);   /* also remember the tasks' names */
void trace_emit_exec(struct task *task);

/* ---- Trace points: one line at each call site ---- */

static inline void trace_irq_enter(unsigned vector)
{
    if (trace_class_on(TRACE_CLASS_IRQ))
        trace_emit(TRACE_IRQ_ENTER, vector, 0);
}

static inline void trace_irq_exit(unsigned vector)
{
    if (trace_class_on(TRACE_CLASS_IRQ))
        trace_emit(TRACE_IRQ_EXIT, vector, 0);
}

static inline void trace_tick_fire(uint64_t ticks)
{
    if (trace_class_on(TRACE_CLASS_TICK))
        trace_emit(TRACE_TICK_FIRE, 0, ticks);
}

/* why: a string literal naming the reason ("alone", "rcu", "nohz kick"...). */
static inline void trace_tick_stop(const char *why)
{
    if (trace_class_on(TRACE_CLASS_TICK))
        trace_emit(TRACE_TICK_STOP, 0, (uint64_t)(uintptr_t)why);
}

static inline void trace_tick_restart(const char *why)
{
    if (trace_class_on(TRACE_CLASS_TICK))
        trace_emit(TRACE_TICK_RESTART, 0, (uint64_t)(uintptr_t)why);
}

static inline void trace_tick_keep(const char *why)
{
    if (trace_class_on(TRACE_CLASS_TICK))
        trace_emit(TRACE_TICK_KEEP, 0, (uint64_t)(uintptr_t)why);
}

static inline void trace_tick_dep_kick(unsigned target_cpu, const char *why)
{
    if (trace_class_on(TRACE_CLASS_TICK))
        trace_emit(TRACE_TICK_DEP_KICK, target_cpu, (uint64_t)(uintptr_t)why);
}

/* why: a string with static storage (kernel/irq/ipi.h). */
static inline void trace_ipi_send(unsigned type, unsigned target_cpu, const char *why)
{
    if (trace_class_on(TRACE_CLASS_IPI))
        trace_emit(TRACE_IPI_SEND, type | target_cpu << 8, (uint64_t)(uintptr_t)why);
}

/* The cause an interrupt was accounted to (kernel/irq/irq_cause.c). */
static inline void trace_irq_cause(unsigned source, unsigned sender, const char *why)
{
    if (trace_class_on(TRACE_CLASS_IRQ))
        trace_emit(TRACE_IRQ_CAUSE, source | sender << 16, (uint64_t)(uintptr_t)why);
}

static inline void trace_ipi_receive(unsigned type)
{
    if (trace_class_on(TRACE_CLASS_IPI))
        trace_emit(TRACE_IPI_RECEIVE, type, 0);
}

static inline void trace_user_enter(void)
{
    if (trace_class_on(TRACE_CLASS_USER))
        trace_emit(TRACE_USER_ENTER, 0, 0);
}

static inline void trace_user_exit(void)
{
    if (trace_class_on(TRACE_CLASS_USER))
        trace_emit(TRACE_USER_EXIT, 0, 0);
}

static inline void trace_sched_switch(struct task *prev, struct task *next)
{
    if (trace_class_on(TRACE_CLASS_SCHED))
        trace_emit_switch(prev, next);
}

/* After execve gave the task its new name. */
static inline void trace_sched_exec(struct task *task)
{
    if (trace_class_on(TRACE_CLASS_SCHED))
        trace_emit_exec(task);
}

static inline void trace_sched_wakeup(unsigned task_id, unsigned cpu)
{
    if (trace_class_on(TRACE_CLASS_SCHED))
        trace_emit(TRACE_SCHED_WAKEUP, task_id, cpu);
}

static inline void trace_sched_migrate(unsigned task_id, unsigned from_cpu, unsigned to_cpu)
{
    if (trace_class_on(TRACE_CLASS_SCHED))
        trace_emit(TRACE_SCHED_MIGRATE, task_id, (uint64_t)from_cpu << 32 | to_cpu);
}

static inline void trace_rcu_gp_start(unsigned long gp_seq)
{
    if (trace_class_on(TRACE_CLASS_RCU))
        trace_emit(TRACE_RCU_GP_START, 0, gp_seq);
}

static inline void trace_rcu_gp_end(unsigned long gp_seq)
{
    if (trace_class_on(TRACE_CLASS_RCU))
        trace_emit(TRACE_RCU_GP_END, 0, gp_seq);
}

/* cpus: the mask of CPUs reported for (bit N = CPU N). */
static inline void trace_rcu_qs_report(unsigned long gp_seq, uint64_t cpus)
{
    if (trace_class_on(TRACE_CLASS_RCU))
        trace_emit(TRACE_RCU_QS_REPORT, (uint32_t)gp_seq, cpus);
}

static inline void trace_rcu_eqs_enter(enum trace_eqs_kind kind)
{
    if (trace_class_on(TRACE_CLASS_RCU))
        trace_emit(TRACE_RCU_EQS_ENTER, kind, 0);
}

static inline void trace_rcu_eqs_exit(enum trace_eqs_kind kind)
{
    if (trace_class_on(TRACE_CLASS_RCU))
        trace_emit(TRACE_RCU_EQS_EXIT, kind, 0);
}

static inline void trace_nohz_set(int pid)
{
    if (trace_class_on(TRACE_CLASS_NOHZ))
        trace_emit(TRACE_NOHZ_SET, (uint32_t)pid, 0);
}

static inline void trace_nohz_clear(int pid)
{
    if (trace_class_on(TRACE_CLASS_NOHZ))
        trace_emit(TRACE_NOHZ_CLEAR, (uint32_t)pid, 0);
}

/* ---- Control (kernel/trace/trace.c, kernel/trace/trace_classes.c) ---- */

extern uint64_t trace_size_param;   /* trace_size=: events per CPU ring */
extern char trace_param[128];       /* trace=: class list */

void trace_init(void);              /* after the heap, before the other CPUs start */
void trace_clear(void);
const char *trace_class_name(enum trace_class class);

/* Parse "irq,tick", "all", "none" (also "", = none). Returns 0 and sets
 * *mask, or -1 with the first bad word copied to bad (NUL-terminated). */
int trace_classes_parse(const char *text, size_t length, unsigned *mask, char *bad, size_t bad_size);
/* "irq,tick,...", "none" if the mask is empty; returns the length snprintf would. */
size_t trace_classes_format(unsigned mask, char *buffer, size_t size);

/* /proc/trace's text: every CPU's events merged in time order. */
struct proc_text;
void trace_proc_show(struct proc_text *text);

#endif
