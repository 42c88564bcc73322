/* Parsers of /proc writes: see kernel/fs/proc_parse.h. Pure logic, compiled
 * into the kernel and into the host fuzz targets (tests/fuzz/). */
#include "kernel/fs/proc_parse.h"

#include <stdbool.h>

#include "kernel/lib/errno.h"
#include "kernel/lib/string.h"
#include "kernel/trace/trace.h"

static bool is_nohz_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

int proc_parse_nohz(const char *data, size_t count)
{
    size_t start = 0, end = count;

    while (start < end && is_nohz_space(data[start]))
        start++;
    while (end > start && is_nohz_space(data[end - 1]))
        end--;
    if (end - start != 1 || (data[start] != '0' && data[start] != '1'))
        return -EINVAL;
    return data[start] - '0';
}

static bool is_word_space(char c)
{
    return c == ' ' || c == '\n' || c == '\t';
}

long proc_parse_word(const char *data, size_t count, char *word, size_t size)
{
    size_t start = 0, end = count;

    while (start < end && is_word_space(data[start]))
        start++;
    while (end > start && is_word_space(data[end - 1]))
        end--;
    if (end - start == 0 || end - start >= size)
        return -EINVAL;
    /* A NUL would cut the word short where it is looked up as a string:
     * "task\0junk" must not switch to task. */
    for (size_t i = start; i < end; i++) {
        if (data[i] == '\0')
            return -EINVAL;
    }
    memcpy(word, data + start, end - start);
    word[end - start] = 0;
    return (long)(end - start);
}

/* Over the whole write, not a prefix of it: "1\nanything" and
 * "000000000000001garbage" are errors, not 1 (their inputs are in
 * tests/fuzz/proc_write/crash-rcustress-*). */
long proc_parse_number(const char *data, size_t count, unsigned long min, unsigned long max)
{
    unsigned long value = 0;
    size_t i = 0;

    for (; i < count && data[i] >= '0' && data[i] <= '9'; i++) {
        if (value <= max)     /* past max it need only stay past it, without overflowing */
            value = value * 10 + (unsigned long)(data[i] - '0');
    }
    bool only_a_final_newline_left = i == count || (i + 1 == count && data[i] == '\n');
    if (i == 0 || !only_a_final_newline_left || value < min || value > max)
        return -EINVAL;
    return (long)value;
}

long proc_parse_seconds(const char *data, size_t count, unsigned long max)
{
    return proc_parse_number(data, count, 1, max);
}

int proc_parse_trace(const char *data, size_t count, unsigned *mask)
{
    size_t length = count;
    char bad[32];

    if (length && data[length - 1] == '\n')
        length--;
    if (length == 5 && strncmp(data, "clear", 5) == 0)
        return PROC_TRACE_CLEAR;
    if (length > 8 && strncmp(data, "classes ", 8) == 0 &&
        trace_classes_parse(data + 8, length - 8, mask, bad, sizeof(bad)) == 0)
        return PROC_TRACE_CLASSES;
    return -EINVAL;
}
