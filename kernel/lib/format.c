/* vsnprintf: see kernel/lib/format.h. Like C's, it returns the length the
 * output would have had, and always NUL-terminates when size > 0. */
#include "kernel/lib/format.h"

#include <stdbool.h>
#include <stdint.h>

struct output {
    char *buf;
    size_t size;
    size_t length;
};

static void put_char(struct output *out, char c)
{
    if (out->length + 1 < out->size)
        out->buf[out->length] = c;
    out->length++;
}

static void put_padding(struct output *out, char pad, int count)
{
    while (count-- > 0)
        put_char(out, pad);
}

static void put_string(struct output *out, const char *s, int width, int precision, bool left)
{
    int length = 0;

    if (!s)
        s = "(null)";
    while (s[length] && (precision < 0 || length < precision))
        length++;
    if (!left)
        put_padding(out, ' ', width - length);
    for (int i = 0; i < length; i++)
        put_char(out, s[i]);
    if (left)
        put_padding(out, ' ', width - length);
}

static void put_number(struct output *out, uint64_t value, unsigned base, bool negative,
                       bool upper, int width, bool zero_pad, bool left)
{
    const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
    char reversed[24];
    int count = 0;

    do {
        reversed[count++] = digits[value % base];
        value /= base;
    } while (value);
    int length = count + (negative ? 1 : 0);
    if (!left && !zero_pad)
        put_padding(out, ' ', width - length);
    if (negative)
        put_char(out, '-');
    if (!left && zero_pad)
        put_padding(out, '0', width - length);
    while (count)
        put_char(out, reversed[--count]);
    if (left)
        put_padding(out, ' ', width - length);
}

int vsnprintf(char *buf, size_t size, const char *format, va_list args)
{
    struct output out = { buf, size, 0 };

    for (const char *p = format; *p; p++) {
        if (*p != '%') {
            put_char(&out, *p);
            continue;
        }
        bool left = false, zero_pad = false, alternate = false;
        int width = 0, precision = -1, longs = 0;
        for (p++; *p == '-' || *p == '0' || *p == '#'; p++) {
            if (*p == '-')
                left = true;
            else if (*p == '#')
                alternate = true;
            else
                zero_pad = true;
        }
        if (*p == '*') {
            width = va_arg(args, int);
            p++;
        }
        for (; *p >= '0' && *p <= '9'; p++)
            width = width * 10 + (*p - '0');
        if (*p == '.') {
            precision = 0;
            if (*++p == '*') {
                precision = va_arg(args, int);
                p++;
            }
            for (; *p >= '0' && *p <= '9'; p++)
                precision = precision * 10 + (*p - '0');
        }
        for (; *p == 'l' || *p == 'z'; p++)
            longs++;

        uint64_t value;
        switch (*p) {
        case 'd':
        case 'i': {
            int64_t signed_value = longs ? va_arg(args, int64_t) : va_arg(args, int);
            bool negative = signed_value < 0;
            value = negative ? (uint64_t)0 - (uint64_t)signed_value : (uint64_t)signed_value;
            put_number(&out, value, 10, negative, false, width, zero_pad, left);
            break;
        }
        case 'u':
        case 'x':
        case 'X':
        case 'o':
            value = longs ? va_arg(args, uint64_t) : va_arg(args, unsigned);
            if (alternate && (*p == 'x' || *p == 'X'))
                put_string(&out, "0x", 0, -1, false);
            put_number(&out, value, *p == 'u' ? 10 : *p == 'o' ? 8 : 16, false, *p == 'X',
                       width, zero_pad, left);
            break;
        case 'p':
            put_string(&out, "0x", 0, -1, false);
            put_number(&out, (uint64_t)(uintptr_t)va_arg(args, void *), 16, false, false, 16, true, false);
            break;
        case 's':
            put_string(&out, va_arg(args, const char *), width, precision, left);
            break;
        case 'c':
            put_char(&out, (char)va_arg(args, int));
            break;
        case '%':
            put_char(&out, '%');
            break;
        case '\0':
            p--;                /* a lone '%' at the end: stop */
            break;
        default:                /* unknown conversion: print it as it is */
            put_char(&out, '%');
            put_char(&out, *p);
            break;
        }
    }
    if (size)
        buf[out.length < size ? out.length : size - 1] = '\0';
    return (int)out.length;
}

int snprintf(char *buf, size_t size, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    int length = vsnprintf(buf, size, format, args);
    va_end(args);
    return length;
}
