/* Each CPU's interrupts by cause: see kernel/irq/irq_cause.h.
 *
 * A small table per CPU of (source, sender, why) rows with a count, written
 * only by its own CPU with interrupts off (in irq_dispatch), read by
 * /proc/interrupt_causes without a lock: a row's key is written before
 * `used` publishes it, counts are single 64-bit stores. The last row takes
 * what does not fit ("other"), so the sum stays exact. */
#include "kernel/irq/irq_cause.h"

#include "kernel/base/percpu.h"
#include "kernel/fs/procfs.h"
#include "kernel/trace/trace.h"
#include "arch/x86/cpu.h"

#define CAUSE_ROWS 32

struct cause_row {
    uint16_t source, sender;
    const char *why;
    uint64_t count;
};

struct cause_table {
    unsigned used;                      /* rows with a key, published with release */
    struct cause_row row[CAUSE_ROWS];
    int64_t merged[IRQ_SOURCE_COUNT];   /* sends answered by another send's interrupt */
    unsigned sender;                    /* the interrupt being handled: */
    const char *why;                    /*  its cause so far */
};

static DEFINE_PER_CPU(struct cause_table, cause_tables);

void irq_cause_begin(void)
{
    struct cause_table *table = this_cpu_ptr(cause_tables);
    table->sender = IRQ_CAUSE_NO_SENDER;
    table->why = 0;
}

void irq_cause_set(unsigned sender, const char *why)
{
    struct cause_table *table = this_cpu_ptr(cause_tables);
    table->sender = sender;
    table->why = why;
}

void irq_cause_merged(enum irq_source source, int count)
{
    struct cause_table *table = this_cpu_ptr(cause_tables);
    __atomic_store_n(&table->merged[source], table->merged[source] + count, __ATOMIC_RELAXED);
}

static struct cause_row *find_row(struct cause_table *table, unsigned source, unsigned sender, const char *why)
{
    for (unsigned i = 0; i < table->used; i++) {
        struct cause_row *row = &table->row[i];
        if (row->source == source && row->sender == sender && row->why == why)
            return row;
    }
    if (table->used == CAUSE_ROWS - 1) {    /* full: the last row is "other" */
        struct cause_row *other = &table->row[CAUSE_ROWS - 1];
        other->source = IRQ_SOURCE_COUNT;
        other->sender = IRQ_CAUSE_NO_SENDER;
        other->why = "other";
        return other;
    }
    struct cause_row *row = &table->row[table->used];
    *row = (struct cause_row){ .source = (uint16_t)source, .sender = (uint16_t)sender, .why = why };
    __atomic_store_n(&table->used, table->used + 1, __ATOMIC_RELEASE);
    return row;
}

void irq_cause_account(enum irq_source source)
{
    struct cause_table *table = this_cpu_ptr(cause_tables);
    const char *why = table->why ? table->why : source >= IRQ_SOURCE_DEVICE_FIRST ? "device" : "unattributed";
    struct cause_row *row = find_row(table, source, table->sender, why);
    __atomic_store_n(&row->count, row->count + 1, __ATOMIC_RELAXED);
    trace_irq_cause(source, table->sender, why);
}

uint64_t irq_cause_count(unsigned cpu, enum irq_source source, unsigned sender, const char *why)
{
    const struct cause_table *table = per_cpu_ptr(cause_tables, cpu);
    unsigned used = __atomic_load_n(&table->used, __ATOMIC_ACQUIRE);
    for (unsigned i = 0; i < used; i++) {
        const struct cause_row *row = &table->row[i];
        if (row->source == source && row->sender == sender && row->why == why)
            return __atomic_load_n(&row->count, __ATOMIC_RELAXED);
    }
    return 0;
}

int64_t irq_cause_merged_count(unsigned cpu, enum irq_source source)
{
    return __atomic_load_n(&per_cpu_ptr(cause_tables, cpu)->merged[source], __ATOMIC_RELAXED);
}

/* The reading CPU's own rows are copied with interrupts off, so that its
 * total and its causes are of the same moment. */
static void generate_cpu(struct proc_text *text, unsigned cpu)
{
    const struct cause_table *table = per_cpu_ptr(cause_tables, cpu);
    struct cause_row rows[CAUSE_ROWS];
    uint64_t flags = irq_save();
    uint64_t total = 0;
    int64_t merged = 0;
    for (unsigned source = 0; source < IRQ_SOURCE_COUNT; source++) {
        total += irq_count(cpu, source);
        merged += __atomic_load_n(&table->merged[source], __ATOMIC_RELAXED);
    }
    for (unsigned i = 0; i < CAUSE_ROWS; i++) {
        rows[i] = table->row[i];
        rows[i].count = __atomic_load_n(&table->row[i].count, __ATOMIC_RELAXED);
    }
    irq_restore(flags);
    proc_printf(text, "cpu %u interrupts %llu merged %lld\n", cpu, (unsigned long long)total, (long long)merged);
    for (unsigned i = 0; i < CAUSE_ROWS; i++) {
        if (!rows[i].count)
            continue;           /* unused, or published after the copy began */
        const char *source = rows[i].source < IRQ_SOURCE_COUNT ? irq_source_name(rows[i].source) : "other";
        if (rows[i].sender == IRQ_CAUSE_NO_SENDER)
            proc_printf(text, "%u %s - %s %llu\n", cpu, source, rows[i].why, (unsigned long long)rows[i].count);
        else
            proc_printf(text, "%u %s %u %s %llu\n", cpu, source, rows[i].sender, rows[i].why,
                        (unsigned long long)rows[i].count);
    }
}

static void generate_interrupt_causes(struct proc_text *text)
{
    unsigned cpu;
    for_each_online_cpu(cpu)
        generate_cpu(text, cpu);
}

PROC_FILE("/proc/interrupt_causes", generate_interrupt_causes, NULL);
