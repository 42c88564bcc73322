/* Trace class names, and the class lists of trace= and /proc/trace
 * ("irq,tick", "all", "none"). Pure logic: the host unit tests run it. */
#include "kernel/lib/format.h"
#include "kernel/lib/string.h"
#include "kernel/trace/trace.h"

static const char *const class_names[TRACE_CLASS_COUNT] = {
    [TRACE_CLASS_IRQ] = "irq",   [TRACE_CLASS_TICK] = "tick",   [TRACE_CLASS_IPI] = "ipi",
    [TRACE_CLASS_USER] = "user", [TRACE_CLASS_SCHED] = "sched", [TRACE_CLASS_RCU] = "rcu",
    [TRACE_CLASS_NOHZ] = "nohz",
};

const char *trace_class_name(enum trace_class class)
{
    return class < TRACE_CLASS_COUNT ? class_names[class] : "?";
}

static bool word_is(const char *word, size_t length, const char *name)
{
    return strlen(name) == length && strncmp(word, name, length) == 0;
}

/* The bits one word stands for, or -1 if it names nothing. */
static long word_mask(const char *word, size_t length)
{
    if (word_is(word, length, "all"))
        return TRACE_CLASSES_ALL;
    if (word_is(word, length, "none"))
        return 0;
    for (unsigned class = 0; class < TRACE_CLASS_COUNT; class++) {
        if (word_is(word, length, class_names[class]))
            return 1l << class;
    }
    return -1;
}

int trace_classes_parse(const char *text, size_t length, unsigned *mask, char *bad, size_t bad_size)
{
    unsigned result = 0;
    size_t i = 0;

    while (i < length) {
        size_t start = i;
        while (i < length && text[i] != ',')
            i++;
        long bits = word_mask(text + start, i - start);
        if (bits < 0) {
            snprintf(bad, bad_size, "%.*s", (int)(i - start), text + start);
            return -1;
        }
        result |= (unsigned)bits;
        i++;                    /* past the comma */
    }
    *mask = result;
    return 0;
}

size_t trace_classes_format(unsigned mask, char *buffer, size_t size)
{
    size_t length = 0;
    for (unsigned class = 0; class < TRACE_CLASS_COUNT; class++) {
        if (!(mask & (1u << class)))
            continue;
        size_t room = length < size ? size - length : 0;
        length += (size_t)snprintf(room ? buffer + length : NULL, room, "%s%s", length ? "," : "", class_names[class]);
    }
    if (length == 0)
        length = (size_t)snprintf(buffer, size, "none");
    return length;
}
