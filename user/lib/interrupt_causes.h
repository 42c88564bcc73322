/* nohzk's /proc/interrupt_causes, one CPU's part, parsed strictly: shared
 * by osnoise and tests/user/interrupt_causes.c (docs/noise.md, "Every
 * interrupt has a cause"). The file gives, per CPU, a line
 *     cpu N interrupts TOTAL merged M
 * (TOTAL: the sum of the CPU's /proc/interrupts column, read at the same
 * moment as the rows) then one row per cause
 *     N SOURCE FROM WHY COUNT
 * (FROM: the sending CPU, or - when the interrupt is not an IPI). A line
 * that fits neither is an error with its reason, never a count of 0. */
#ifndef USER_LIB_INTERRUPT_CAUSES_H
#define USER_LIB_INTERRUPT_CAUSES_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CAUSE_KEY_SIZE 96
#define CAUSES_MAX 64

struct interrupt_cause {
    char key[CAUSE_KEY_SIZE];           /* "SOURCE FROM WHY", e.g. "RES 0 signal" */
    unsigned long long count;
};

struct interrupt_causes {
    int found;                          /* the CPU's line was there */
    unsigned long long total;           /* its interrupts, all sources */
    long long merged;
    int count;
    struct interrupt_cause cause[CAUSES_MAX];
    char why[160];                      /* after a failure: the reason */
};

/* 0, or -1 with causes->why; errno ENOENT when the kernel has no such file
 * (Linux). */
static inline int interrupt_causes_read(int cpu, struct interrupt_causes *causes)
{
    memset(causes, 0, sizeof(*causes));
    FILE *f = fopen("/proc/interrupt_causes", "r");
    if (!f) {
        int error = errno;
        snprintf(causes->why, sizeof(causes->why), "/proc/interrupt_causes: %s", strerror(error));
        errno = error;
        return -1;
    }
    char line[256];
    int status = 0;
    while (fgets(line, sizeof(line), f)) {
        int line_cpu;
        unsigned long long total, count;
        long long merged;
        char source[16], from[16], why[64];
        if (!strchr(line, '\n')) {
            snprintf(causes->why, sizeof(causes->why), "a line without its end: %.40s", line);
            status = -1;
            break;
        }
        if (sscanf(line, "cpu %d interrupts %llu merged %lld", &line_cpu, &total, &merged) == 3) {
            if (line_cpu == cpu) {
                causes->found = 1;
                causes->total = total;
                causes->merged = merged;
            }
        } else if (sscanf(line, "%d %15s %15s %63s %llu", &line_cpu, source, from, why, &count) == 5) {
            if (line_cpu != cpu)
                continue;
            if (causes->count == CAUSES_MAX) {
                snprintf(causes->why, sizeof(causes->why), "more than %d causes for cpu %d", CAUSES_MAX, cpu);
                status = -1;
                break;
            }
            struct interrupt_cause *c = &causes->cause[causes->count++];
            snprintf(c->key, sizeof(c->key), "%s %s %s", source, from, why);
            c->count = count;
        } else {
            snprintf(causes->why, sizeof(causes->why), "not a cause line: %.60s", line);
            status = -1;
            break;
        }
    }
    fclose(f);
    if (status == 0 && !causes->found) {
        snprintf(causes->why, sizeof(causes->why), "no line for cpu %d", cpu);
        status = -1;
    }
    return status;
}

/* after -= before, cause by cause (a cause may appear meanwhile); the sum
 * of the differences. */
static inline unsigned long long interrupt_causes_subtract(struct interrupt_causes *after,
                                                           const struct interrupt_causes *before)
{
    unsigned long long sum = 0;
    for (int i = 0; i < after->count; i++) {
        for (int j = 0; j < before->count; j++) {
            if (!strcmp(after->cause[i].key, before->cause[j].key)) {
                after->cause[i].count -= before->cause[j].count;
                break;
            }
        }
        sum += after->cause[i].count;
    }
    after->total -= before->total;
    after->merged -= before->merged;
    return sum;
}

#endif
