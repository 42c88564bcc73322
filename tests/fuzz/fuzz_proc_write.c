/* Fuzz target: kernel/fs/proc_parse.c, the parsers behind every writable
 * /proc file. The first byte picks the file (its value modulo 4), the rest
 * is what write(2) handed it:
 *   0  /proc/PID/nohz                 proc_parse_nohz
 *   1  /proc/sys/kernel/tick_policy   proc_parse_word
 *   2  /proc/rcustress                proc_parse_seconds
 *   3  /proc/trace                    proc_parse_trace
 * Besides ASan and UBSan, each result is compared with a reference
 * written here from the file's documented grammar (docs/reliability.md,
 * section 1): a parser that accepts what the grammar rejects, or the
 * reverse, or returns another value, breaks an invariant. */
#include <string.h>

#include "kernel/lib/errno.h"
#include "kernel/fs/proc_parse.h"
#include "kernel/trace/trace.h"
#include "tests/fuzz/fuzz.h"

#define STRESS_MAX_SECONDS 600      /* rcu/proc.c */

static bool is_one_of(char c, const char *set)
{
    return c != '\0' && strchr(set, c) != NULL;
}

/* The text with the characters of set cut from both ends. */
static void trim(const char *data, size_t size, const char *set, size_t *start, size_t *end)
{
    *start = 0;
    *end = size;
    while (*start < *end && is_one_of(data[*start], set))
        (*start)++;
    while (*end > *start && is_one_of(data[*end - 1], set))
        (*end)--;
}

/* "0" or "1", with spaces, tabs, CRs and LFs around. */
static void check_nohz(const char *data, size_t size)
{
    size_t start, end;
    int expected = -EINVAL;
    trim(data, size, " \t\r\n", &start, &end);
    if (end - start == 1 && (data[start] == '0' || data[start] == '1'))
        expected = data[start] - '0';
    FUZZ_CHECK(proc_parse_nohz(data, size) == expected);
}

/* A word of 1 to 15 bytes, none of them NUL, spaces, tabs and LFs around
 * it; the word the policy lookup then sees (a C string) is the whole word. */
static void check_word(const char *data, size_t size)
{
    char word[16];
    size_t start, end;
    memset(word, 0x55, sizeof(word));
    long length = proc_parse_word(data, size, word, sizeof(word));
    trim(data, size, " \t\n", &start, &end);
    if (end == start || end - start >= sizeof(word) || memchr(data + start, '\0', end - start)) {
        FUZZ_CHECK(length == -EINVAL);
        return;
    }
    FUZZ_CHECK(length == (long)(end - start));
    FUZZ_CHECK(memcmp(word, data + start, (size_t)length) == 0 && word[length] == '\0');
    FUZZ_CHECK(strlen(word) == (size_t)length);
}

/* Decimal digits, at most one LF after them and nothing else; 1 to 600. */
static void check_seconds(const char *data, size_t size)
{
    size_t digits = 0;
    unsigned long value = 0;
    long expected = -EINVAL;
    while (digits < size && data[digits] >= '0' && data[digits] <= '9') {
        if (value <= STRESS_MAX_SECONDS)
            value = value * 10 + (unsigned long)(data[digits] - '0');
        digits++;
    }
    bool well_formed = digits > 0 && (digits == size || (digits + 1 == size && data[digits] == '\n'));
    if (well_formed && value >= 1 && value <= STRESS_MAX_SECONDS)
        expected = (long)value;
    FUZZ_CHECK(proc_parse_seconds(data, size, STRESS_MAX_SECONDS) == expected);
}

static long class_bits(const char *word, size_t length)
{
    static const char *const names[] = { "irq", "tick", "ipi", "user", "sched", "rcu", "nohz" };
    if (length == 3 && memcmp(word, "all", 3) == 0)
        return TRACE_CLASSES_ALL;
    if (length == 4 && memcmp(word, "none", 4) == 0)
        return 0;
    for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (strlen(names[i]) == length && memcmp(word, names[i], length) == 0)
            return 1l << i;
    }
    return -1;
}

/* "clear" or "classes " and class names separated by commas (a last comma
 * tolerated), with or without a final LF. */
static void check_trace(const char *data, size_t size)
{
    unsigned mask = 0xdead, expected_mask = 0;
    int expected = -EINVAL;
    size_t length = size && data[size - 1] == '\n' ? size - 1 : size;

    if (length == 5 && memcmp(data, "clear", 5) == 0) {
        expected = PROC_TRACE_CLEAR;
    } else if (length > 8 && memcmp(data, "classes ", 8) == 0) {
        expected = PROC_TRACE_CLASSES;
        for (size_t i = 8; i < length;) {
            const char *comma = memchr(data + i, ',', length - i);
            size_t end = comma ? (size_t)(comma - data) : length;
            long bits = class_bits(data + i, end - i);
            if (bits < 0) {
                expected = -EINVAL;
                break;
            }
            expected_mask |= (unsigned)bits;
            i = end + 1;
        }
    }
    int result = proc_parse_trace(data, size, &mask);
    FUZZ_CHECK(result == expected);
    if (result == PROC_TRACE_CLASSES) {
        FUZZ_CHECK(mask == expected_mask);
        /* What /proc/trace will print reads back as the same classes. */
        char text[64], command[80];
        unsigned again = 0;
        size_t written = trace_classes_format(mask, text, sizeof(text));
        FUZZ_CHECK(written < sizeof(text));
        int n = snprintf(command, sizeof(command), "classes %s", text);
        FUZZ_CHECK(proc_parse_trace(command, (size_t)n, &again) == PROC_TRACE_CLASSES && again == mask);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    /* An exact copy of the written bytes, not NUL-terminated: ASan sees a
     * read one past the end. */
    size_t length = size - 1;
    char *copy = malloc(length ? length : 1);
    memcpy(copy, data + 1, length);
    switch (data[0] % 4) {
    case 0: check_nohz(copy, length); break;
    case 1: check_word(copy, length); break;
    case 2: check_seconds(copy, length); break;
    case 3: check_trace(copy, length); break;
    }
    free(copy);
    return 0;
}
