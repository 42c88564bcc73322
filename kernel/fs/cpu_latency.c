/* /dev/cpu_dma_latency: Linux's PM QoS interface for the CPUs' wake-up
 * latency (kernel/power/qos.c), which cyclictest and oslat hold open with
 * 0 written so that no CPU enters a deep C-state. Each open file is a
 * request, at first the default (2,000 s in µs); a write of 4 bytes is
 * the new value as a binary s32, any other write a hexadecimal number
 * (kstrtos32 base 16: "0x" may lead, one newline may end it); a negative
 * value is taken and stands for the default (-1 is Linux's
 * PM_QOS_DEFAULT_VALUE; Linux 6.18 reads the others back as the default
 * too). A read gives the strongest request of all open files (the
 * smallest value) as 4 bytes; closing drops the file's request.
 *
 * What it changes: nothing. nohzk's idle loop halts with hlt, whose wake-up is
 * an interrupt's, and knows no deeper C-state to forbid; the value is
 * kept so a program reads back what it asked for. */
#include <stdbool.h>
#include <stdint.h>

#include "kernel/base/spinlock.h"
#include "kernel/fs/vfs.h"
#include "kernel/lib/errno.h"
#include "kernel/lib/string.h"
#include "kernel/mm/heap.h"

#define LATENCY_DEFAULT_US 2000000000   /* PM_QOS_CPU_LATENCY_DEFAULT_VALUE */
#define TEXT_MAX 23                     /* kstrtos32_from_user's buffer, less its NUL */

struct latency_request {
    int32_t value;
    struct latency_request *next;
};

static struct spinlock requests_lock = SPINLOCK_INIT("cpu_dma_latency");
static struct latency_request *requests;

static int latency_open(struct file *file)
{
    struct latency_request *request = kzalloc(sizeof(*request));
    if (!request)
        return -ENOMEM;
    request->value = LATENCY_DEFAULT_US;
    spin_lock(&requests_lock);
    request->next = requests;
    requests = request;
    spin_unlock(&requests_lock);
    file->private = request;
    return 0;
}

static void latency_release(struct file *file)
{
    struct latency_request *request = file->private;
    spin_lock(&requests_lock);
    for (struct latency_request **link = &requests; *link; link = &(*link)->next)
        if (*link == request) {
            *link = request->next;
            break;
        }
    spin_unlock(&requests_lock);
    kfree(request);
}

/* The smallest value of the open requests, as pm_qos_get_value(). */
static int32_t latency_now(void)
{
    int32_t value = LATENCY_DEFAULT_US;
    spin_lock(&requests_lock);
    for (struct latency_request *request = requests; request; request = request->next)
        if (request->value < value)
            value = request->value;
    spin_unlock(&requests_lock);
    return value;
}

static long latency_read(struct file *file, void *buffer, size_t count)
{
    int32_t value = latency_now();
    if (file->position >= sizeof(value))
        return 0;
    size_t left = sizeof(value) - file->position;
    if (count > left)
        count = left;
    memcpy(buffer, (char *)&value + file->position, count);
    file->position += count;
    return (long)count;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* kstrtos32(text, 16): 0 and the value, -EINVAL or -ERANGE. */
static int parse_hex_s32(const char *text, size_t length, int32_t *out)
{
    size_t i = 0;
    bool negative = false;
    if (i < length && (text[i] == '+' || text[i] == '-'))
        negative = text[i++] == '-';
    if (length - i >= 2 && text[i] == '0' && (text[i + 1] == 'x' || text[i + 1] == 'X') &&
        length - i > 2 && hex_digit(text[i + 2]) >= 0)
        i += 2;
    int64_t value = 0;
    size_t digits = 0;
    for (; i < length && hex_digit(text[i]) >= 0; i++, digits++) {
        value = value * 16 + hex_digit(text[i]);
        if (value > (int64_t)INT32_MAX + 1)
            return -ERANGE;
    }
    if (i < length && text[i] == '\n')
        i++;
    if (!digits || i != length)
        return -EINVAL;
    if (negative)
        value = -value;
    if (value > INT32_MAX)
        return -ERANGE;
    *out = (int32_t)value;
    return 0;
}

static long latency_write(struct file *file, const void *buffer, size_t count)
{
    int32_t value;
    if (count == sizeof(value)) {
        memcpy(&value, buffer, sizeof(value));
    } else {
        const char *text = buffer;
        size_t length = count < TEXT_MAX ? count : TEXT_MAX;
        length = strnlen(text, length);     /* Linux parses up to a NUL */
        int error = parse_hex_s32(text, length, &value);
        if (error)
            return error;
    }
    if (value < 0)
        value = LATENCY_DEFAULT_US;
    struct latency_request *request = file->private;
    spin_lock(&requests_lock);
    request->value = value;
    spin_unlock(&requests_lock);
    return (long)count;
}

const struct file_ops cpu_latency_ops = {
    .open = latency_open,
    .read = latency_read,
    .write = latency_write,
    .release = latency_release,
};
