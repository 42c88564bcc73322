/* CPU masks: counting, searching, and the CPU list text form used on the
 * command line (nohz_full=1-3) and in /proc.
 *
 * Left out on purpose: Linux's stride syntax ("0-7:2/4") and the "all" and
 * "N" keywords of cpulist_parse(). */
#include "kernel/lib/cpumask.h"
#include "kernel/lib/errno.h"
#include "kernel/lib/format.h"

unsigned int cpumask_weight(const struct cpumask *mask)
{
    unsigned int count = 0;

    /* Clearing the lowest set bit each round: no popcount instruction
     * needed, which a generic x86-64 kernel build may not assume. */
    for (size_t i = 0; i < CPUMASK_WORDS; i++)
        for (uint64_t word = mask->bits[i]; word != 0; word &= word - 1)
            count++;
    return count;
}

/* The lowest CPU >= cpu in the mask, or MAX_CPUS. */
static unsigned int cpumask_first_from(const struct cpumask *mask, unsigned int cpu)
{
    while (cpu < MAX_CPUS) {
        uint64_t word = mask->bits[cpumask_word(cpu)] >> (cpu % 64);

        if (word != 0) {
            cpu += (unsigned int)__builtin_ctzll(word);
            return cpu < MAX_CPUS ? cpu : MAX_CPUS;
        }
        cpu = (unsigned int)(cpumask_word(cpu) + 1) * 64;
    }
    return MAX_CPUS;
}

unsigned int cpumask_first(const struct cpumask *mask)
{
    return cpumask_first_from(mask, 0);
}

unsigned int cpumask_next(const struct cpumask *mask, unsigned int cpu)
{
    if (cpu >= MAX_CPUS - 1)
        return MAX_CPUS;
    return cpumask_first_from(mask, cpu + 1);
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Reads the decimal number at text[*pos], advancing *pos past it. The value
 * saturates at MAX_CPUS, so "99999999999999999999" cannot overflow and is
 * still reported as out of range. Returns false if there is no digit. */
static bool read_cpu_number(const char *text, size_t len, size_t *pos, unsigned int *cpu)
{
    size_t start = *pos;
    unsigned int value = 0;

    while (*pos < len && is_digit(text[*pos])) {
        value = value * 10 + (unsigned int)(text[*pos] - '0');
        if (value > MAX_CPUS)
            value = MAX_CPUS;
        (*pos)++;
    }
    *cpu = value;
    return *pos > start;
}

int cpulist_parse(const char *text, size_t len, struct cpumask *out)
{
    struct cpumask mask; /* built aside so that *out survives an error */
    size_t pos = 0;

    cpumask_clear_all(&mask);
    for (;;) {
        unsigned int first, last;

        if (!read_cpu_number(text, len, &pos, &first))
            return -EINVAL;
        last = first;
        if (pos < len && text[pos] == '-') {
            pos++;
            if (!read_cpu_number(text, len, &pos, &last))
                return -EINVAL;
        }
        if (first >= MAX_CPUS || last >= MAX_CPUS)
            return -ERANGE;
        if (last < first)
            return -EINVAL;
        for (unsigned int cpu = first; cpu <= last; cpu++)
            cpumask_set(&mask, cpu);

        if (pos == len)
            break;
        if (text[pos] != ',')
            return -EINVAL;
        pos++; /* a ',' must be followed by another range */
    }
    *out = mask;
    return 0;
}

/* The output side: appends that refuse to overrun buf, always keeping one
 * byte for the final NUL. */
struct list_writer {
    char *buf;
    size_t size;
    size_t length;
};

static bool writer_append_char(struct list_writer *writer, char c)
{
    if (writer->length + 1 >= writer->size)
        return false;
    writer->buf[writer->length++] = c;
    return true;
}

static bool writer_append_number(struct list_writer *writer, unsigned int number)
{
    char digits[12];
    int length = snprintf(digits, sizeof(digits), "%u", number);

    for (int i = 0; i < length; i++)
        if (!writer_append_char(writer, digits[i]))
            return false;
    return true;
}

/* Appends "first" or "first-last", preceded by ',' unless it comes first. */
static bool writer_append_range(struct list_writer *writer, unsigned int first, unsigned int last)
{
    if (writer->length > 0 && !writer_append_char(writer, ','))
        return false;
    if (!writer_append_number(writer, first))
        return false;
    if (last == first)
        return true;
    return writer_append_char(writer, '-') && writer_append_number(writer, last);
}

int cpulist_format(const struct cpumask *mask, char *buf, size_t size)
{
    struct list_writer writer = {.buf = buf, .size = size, .length = 0};
    unsigned int first = cpumask_first(mask);

    if (size == 0)
        return -ENOSPC;
    while (first < MAX_CPUS) {
        unsigned int last = first;

        while (cpumask_test(mask, last + 1))
            last++;
        if (!writer_append_range(&writer, first, last)) {
            /* A cut-off list would name the wrong CPUs ("1" for
             * "10"); an empty one at least cannot mislead. */
            buf[0] = '\0';
            return -ENOSPC;
        }
        first = cpumask_next(mask, last);
    }
    buf[writer.length] = '\0';
    return (int)writer.length;
}

/* The 32 bits of mask from bit `first`, bits past `bits` cleared. */
static uint32_t chunk_of(const struct cpumask *mask, unsigned int first, unsigned int bits)
{
    uint32_t chunk = 0;
    for (unsigned int bit = 0; bit < 32 && first + bit < bits; bit++)
        if (cpumask_test(mask, first + bit))
            chunk |= (uint32_t)1 << bit;
    return chunk;
}

int cpumask_format_bitmap(const struct cpumask *mask, unsigned int bits, char *buf, size_t size)
{
    static const char digits[] = "0123456789abcdef";
    size_t length = 0;

    if (bits == 0 || bits > MAX_CPUS)
        return -EINVAL;
    unsigned int first_width = (bits % 32 ? bits % 32 : 32) + 3;   /* bits of the top chunk, in hex digits */
    for (unsigned int start = (bits - 1) / 32 * 32, width = first_width / 4;; start -= 32, width = 8) {
        uint32_t chunk = chunk_of(mask, start, bits);
        if (length + width + (length ? 1 : 0) + 1 > size) {
            if (size)
                buf[0] = '\0';
            return -ENOSPC;
        }
        if (length)
            buf[length++] = ',';
        for (unsigned int digit = width; digit-- > 0;)
            buf[length++] = digits[(chunk >> (4 * digit)) & 0xf];
        if (start == 0)
            break;
    }
    buf[length] = '\0';
    return (int)length;
}
