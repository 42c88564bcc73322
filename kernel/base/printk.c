/* printk: format into a buffer, then write it to the console under a lock.
 * User programs' output (console_output) takes the same lock, a line at a
 * time, so a kernel message never lands inside a program's line. The
 * console sits above: it registers its writer (printk_set_writer); what is
 * printed before that waits in a small buffer, and what does not fit in it
 * is lost. */
#include "kernel/base/printk.h"

#include "kernel/lib/format.h"
#include "kernel/lib/string.h"
#include "kernel/base/spinlock.h"

#define PRINTK_BUFFER_SIZE 512
#define OUTPUT_PIECE_MAX 256     /* bytes written under the lock at most: it holds interrupts off */
#define EARLY_BUFFER_SIZE 2048

static struct spinlock console_lock = SPINLOCK_INIT("console");
static char early_buffer[EARLY_BUFFER_SIZE];
static size_t early_length;

static void keep_early(const char *text, size_t length)
{
    if (length > EARLY_BUFFER_SIZE - early_length)
        length = EARLY_BUFFER_SIZE - early_length;
    memcpy(early_buffer + early_length, text, length);
    early_length += length;
}

static void (*writer)(const char *text, size_t length) = keep_early;

void printk_set_writer(void (*write)(const char *text, size_t length))
{
    spin_lock(&console_lock);
    writer = write;
    write(early_buffer, early_length);
    early_length = 0;
    spin_unlock(&console_lock);
}

static void write_formatted(const char *format, va_list args)
{
    char buf[PRINTK_BUFFER_SIZE];
    int length = vsnprintf(buf, sizeof(buf), format, args);

    if (length >= (int)sizeof(buf)) {
        length = sizeof(buf) - 1;
        buf[length - 1] = '\n';      /* cut, but never glued to the next message */
    }
    writer(buf, (size_t)length);
}

void vprintk(const char *format, va_list args)
{
    spin_lock(&console_lock);
    write_formatted(format, args);
    spin_unlock(&console_lock);
}

void printk(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vprintk(format, args);
    va_end(args);
}

void printk_unlocked(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    write_formatted(format, args);
    va_end(args);
}

void console_output(const char *text, size_t length)
{
    while (length > 0) {
        size_t piece = 0;
        while (piece < length && piece < OUTPUT_PIECE_MAX && text[piece++] != '\n')
            ;
        spin_lock(&console_lock);
        writer(text, piece);
        spin_unlock(&console_lock);
        text += piece;
        length -= piece;
    }
}
