/* /proc/interrupts, parsed strictly: shared by spin, osnoise and the test
 * programs that count interrupts. See docs/noise.md, "Reading
 * /proc/interrupts".
 *
 * The header names one column per online CPU ("CPU0 CPU1 ... CPU254"); a
 * row is "LABEL:" then one count per column, then an optional description.
 * Lines are read whole, whatever their length (at 255 CPUs a row is about
 * 2,800 characters). A row with a single count when there are several
 * columns and nothing after it is a total, not a per-CPU row (Linux's ERR
 * and MIS): it is left out. Anything else that does not fit, a header word that is not CPUn, a
 * row with another number of counts, a line with no label or no newline,
 * is an error with its reason: a measuring tool must never turn text it
 * cannot read into a count of 0. */
#ifndef USER_LIB_PROC_INTERRUPTS_H
#define USER_LIB_PROC_INTERRUPTS_H

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#define INTERRUPT_NAME_SIZE 16

struct interrupt_row {
    char name[INTERRUPT_NAME_SIZE];
    unsigned long long *counts;        /* one per column */
};

struct interrupt_table {
    int columns, *cpus;                 /* the CPU number of each column */
    int rows;
    struct interrupt_row *row;
    char why[160];                      /* after a failed parse: the reason */
};

__attribute__((format(printf, 2, 3))) static inline int interrupt_table_fail(struct interrupt_table *table,
                                                                              const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(table->why, sizeof(table->why), format, args);
    va_end(args);
    return -1;
}

static inline void interrupt_table_free(struct interrupt_table *table)
{
    for (int i = 0; i < table->rows; i++)
        free(table->row[i].counts);
    free(table->row);
    free(table->cpus);
    table->row = NULL;
    table->cpus = NULL;
    table->rows = table->columns = 0;
}

static inline int interrupt_is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* A whole number made of digits alone and ended by a blank or the end of
 * the line ("2-edge" is not one). *text moves past it. 1 if one was read. */
static inline int interrupt_read_count(char **text, unsigned long long *value)
{
    char *p = *text;
    while (interrupt_is_blank(*p))
        p++;
    if (*p < '0' || *p > '9')
        return 0;
    unsigned long long number = 0;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (number > (~0ull - 9) / 10)
            return 0;                   /* too long to be a count */
        number = number * 10 + (unsigned)(*p - '0');
    }
    if (*p && !interrupt_is_blank(*p) && *p != '\n')
        return 0;
    *text = p;
    *value = number;
    return 1;
}

static inline int interrupt_parse_header(struct interrupt_table *table, char *line)
{
    for (char *word = strtok(line, " \t\n"); word; word = strtok(NULL, " \t\n")) {
        char *end = word;
        long cpu = -1;
        if (!strncmp(word, "CPU", 3) && word[3] >= '0' && word[3] <= '9')
            cpu = strtol(word + 3, &end, 10);
        if (cpu < 0 || *end || cpu > 1000000)
            return interrupt_table_fail(table, "header word \"%.20s\" is not CPUn", word);
        int *cpus = realloc(table->cpus, sizeof(int) * (size_t)(table->columns + 1));
        if (!cpus)
            return interrupt_table_fail(table, "out of memory");
        table->cpus = cpus;
        table->cpus[table->columns++] = (int)cpu;
    }
    if (!table->columns)
        return interrupt_table_fail(table, "the header names no CPU");
    return 0;
}

/* One row: a per-CPU row is added; a total (one count) is left out. */
static inline int interrupt_parse_row(struct interrupt_table *table, char *line)
{
    char *label = line + strspn(line, " "), *colon = strchr(line, ':');
    size_t length = colon ? (size_t)(colon - label) : 0;
    if (!colon || colon < label || length == 0 || length >= INTERRUPT_NAME_SIZE ||
        strcspn(label, " \t") < length)
        return interrupt_table_fail(table, "a line without a LABEL: \"%.40s\"", line);
    unsigned long long *counts = malloc(sizeof(*counts) * (size_t)table->columns), extra;
    if (!counts)
        return interrupt_table_fail(table, "out of memory");
    int found = 0;
    char *cursor = colon + 1;
    while (found < table->columns && interrupt_read_count(&cursor, &counts[found]))
        found++;
    if (found == table->columns && interrupt_read_count(&cursor, &extra))
        found++;                        /* more counts than CPUs */
    if (found == 1 && table->columns > 1 && cursor[strspn(cursor, " \t")] == '\n') {
        free(counts);
        return 0;                       /* a total (Linux's ERR, MIS) */
    }
    if (found != table->columns) {
        free(counts);
        return interrupt_table_fail(table, "row %.*s has %s%d counts, the header %d CPUs", (int)length, label,
                                    found > table->columns ? "more than " : "", found - (found > table->columns),
                                    table->columns);
    }
    struct interrupt_row *rows = realloc(table->row, sizeof(*rows) * (size_t)(table->rows + 1));
    if (!rows) {
        free(counts);
        return interrupt_table_fail(table, "out of memory");
    }
    table->row = rows;
    memcpy(rows[table->rows].name, label, length);
    rows[table->rows].name[length] = 0;
    rows[table->rows++].counts = counts;
    return 0;
}

/* Parses the whole text. 0, or -1 with the reason in table->why and the
 * table empty. */
static inline int interrupt_table_parse(FILE *file, struct interrupt_table *table)
{
    char *line = NULL;
    size_t size = 0;
    ssize_t length;
    int lines = 0, result = 0;
    memset(table, 0, sizeof(*table));
    while (result == 0 && (length = getline(&line, &size, file)) >= 0) {
        if (length == 0 || line[length - 1] != '\n')
            result = interrupt_table_fail(table, "line %d is not ended by a newline (cut short?)", lines + 1);
        else if (lines++ == 0)
            result = interrupt_parse_header(table, line);
        else
            result = interrupt_parse_row(table, line);
    }
    if (result == 0 && ferror(file))
        result = interrupt_table_fail(table, "read error: %s", strerror(errno));
    if (result == 0 && lines == 0)
        result = interrupt_table_fail(table, "empty");
    free(line);
    if (result != 0) {
        char why[sizeof(table->why)];
        memcpy(why, table->why, sizeof(why));
        interrupt_table_free(table);
        memcpy(table->why, why, sizeof(why));
    }
    return result;
}

static inline int interrupt_table_read(struct interrupt_table *table)
{
    FILE *file = fopen("/proc/interrupts", "r");
    if (!file) {
        memset(table, 0, sizeof(*table));
        return interrupt_table_fail(table, "cannot open /proc/interrupts: %s", strerror(errno));
    }
    int result = interrupt_table_parse(file, table);
    fclose(file);
    return result;
}

/* The column of cpu, or -1 (then table->why says so). */
static inline int interrupt_table_column(struct interrupt_table *table, int cpu)
{
    for (int column = 0; column < table->columns; column++) {
        if (table->cpus[column] == cpu)
            return column;
    }
    return interrupt_table_fail(table, "no column CPU%d in the header (%d CPUs)", cpu, table->columns);
}

/* The row named name, or -1 (then table->why says so). */
static inline int interrupt_table_row(struct interrupt_table *table, const char *name)
{
    for (int row = 0; row < table->rows; row++) {
        if (!strcmp(table->row[row].name, name))
            return row;
    }
    return interrupt_table_fail(table, "no per-CPU row %s", name);
}

#endif
