/* Builds the System V initial process stack (layout in user_stack.h).
 *
 * Positions are computed as depths: bytes below stack_top. A user address
 * is stack_top - depth, a buffer index is buffer_size - depth, and since
 * stack_top is 16-byte aligned, an address is aligned when its depth is.
 * Everything is measured (with overflow checks) before a byte is written,
 * and the whole image is zeroed first so that padding never leaks old
 * kernel memory to user space.
 */
#include <stdbool.h>

#include "kernel/process/user_stack.h"
#include "kernel/lib/errno.h"
#include "kernel/lib/string.h"

#define PLATFORM    "x86_64"
#define WORD        sizeof(uint64_t)
#define RANDOM_SIZE 16

/* Counts the strings of a NULL-terminated array and their bytes with the
 * NULs, adding to *bytes; -E2BIG as soon as strings and pointers together
 * would exceed `limit` bytes (so a huge argv costs only what fits). */
static int measure(const char *const *strings, size_t limit, size_t *count, size_t *bytes)
{
    size_t n = 0;

    for (; strings && strings[n]; n++) {
        if (*bytes + (n + 1) * WORD > limit)
            return -E2BIG;
        size_t room = limit - *bytes - (n + 1) * WORD;
        size_t length = strnlen(strings[n], room);
        if (length >= room)
            return -E2BIG; /* no room for length + 1 bytes */
        *bytes += length + 1;
    }
    *count = n;
    return 0;
}

static void put_word(uint8_t *buffer, size_t index, uint64_t value)
{
    memcpy(buffer + index, &value, WORD); /* the buffer may be unaligned */
}

/* Copies the strings in order to increasing addresses, starting at depth
 * *string_depth, and writes their user addresses, then NULL, into the
 * pointer array at buffer index pointer_index. */
static void put_strings(uint8_t *buffer, size_t buffer_size, uint64_t stack_top, const char *const *strings,
                        size_t count, size_t *string_depth, size_t pointer_index)
{
    for (size_t i = 0; i < count; i++) {
        size_t size = strlen(strings[i]) + 1;
        memcpy(buffer + buffer_size - *string_depth, strings[i], size);
        put_word(buffer, pointer_index + i * WORD, stack_top - *string_depth);
        *string_depth -= size;
    }
    put_word(buffer, pointer_index + count * WORD, 0);
}

static bool auxv_is_ours(uint64_t type)
{
    return type == AT_NULL || type == AT_RANDOM || type == AT_PLATFORM || type == AT_EXECFN;
}

int user_stack_build(uint8_t *buffer, size_t buffer_size, uint64_t stack_top, const char *const *argv,
                     const char *const *envp, const struct auxv_entry *auxv, size_t auxv_count,
                     const uint8_t random16[16], uint64_t *user_rsp_out)
{
    return user_stack_build_named(buffer, buffer_size, stack_top, argv, envp, 0, auxv, auxv_count, random16,
                                  user_rsp_out);
}

int user_stack_build_named(uint8_t *buffer, size_t buffer_size, uint64_t stack_top, const char *const *argv,
                           const char *const *envp, const char *execfn, const struct auxv_entry *auxv,
                           size_t auxv_count, const uint8_t random16[16], uint64_t *user_rsp_out)
{
    size_t argc, envc, string_bytes = 0;
    int err;

    if (stack_top % 16 != 0 || (auxv_count > 0 && auxv == NULL) || random16 == NULL)
        return -EINVAL;
    if (auxv_count > buffer_size / (2 * WORD))
        return -E2BIG; /* before reading auxv: the count bounds the loops */
    for (size_t i = 0; i < auxv_count; i++)
        if (auxv_is_ours(auxv[i].type))
            return -EINVAL;
    err = measure(argv, buffer_size, &argc, &string_bytes);
    if (!err)
        err = measure(envp, buffer_size - argc * WORD, &envc, &string_bytes);
    if (err)
        return err;
    /* The file name execve was given goes at the very top (AT_EXECFN). */
    size_t execfn_size = execfn ? strnlen(execfn, buffer_size) + 1 : 0;
    if (execfn_size > buffer_size - string_bytes)
        return -E2BIG;

    /* Depths of each part; argc, envc, the strings and auxv_count are all
     * bounded by buffer_size now, so none of this can overflow. */
    size_t platform_depth = execfn_size + string_bytes + sizeof(PLATFORM);
    size_t random_depth = platform_depth + RANDOM_SIZE;
    size_t words = 1 + (argc + 1) + (envc + 1) + 2 * (auxv_count + 3 + (execfn ? 1 : 0));
    size_t rsp_depth = (random_depth + words * WORD + 15) & ~(size_t)15;
    if (rsp_depth > buffer_size)
        return -E2BIG;
    if (rsp_depth > stack_top)
        return -EINVAL;

    size_t rsp = buffer_size - rsp_depth; /* the buffer index of argc */
    memset(buffer + rsp, 0, rsp_depth);
    memcpy(buffer + buffer_size - platform_depth, PLATFORM, sizeof(PLATFORM));
    memcpy(buffer + buffer_size - random_depth, random16, RANDOM_SIZE);
    if (execfn)
        memcpy(buffer + buffer_size - execfn_size, execfn, execfn_size);

    size_t index = rsp;
    put_word(buffer, index, argc);
    index += WORD;
    size_t string_depth = execfn_size + string_bytes;
    put_strings(buffer, buffer_size, stack_top, argv, argc, &string_depth, index);
    index += (argc + 1) * WORD;
    put_strings(buffer, buffer_size, stack_top, envp, envc, &string_depth, index);
    index += (envc + 1) * WORD;

    for (size_t i = 0; i < auxv_count; i++, index += 2 * WORD) {
        put_word(buffer, index, auxv[i].type);
        put_word(buffer, index + WORD, auxv[i].value);
    }
    put_word(buffer, index, AT_PLATFORM);
    put_word(buffer, index + WORD, stack_top - platform_depth);
    put_word(buffer, index + 2 * WORD, AT_RANDOM);
    put_word(buffer, index + 3 * WORD, stack_top - random_depth);
    if (execfn) {
        put_word(buffer, index + 4 * WORD, AT_EXECFN);
        put_word(buffer, index + 5 * WORD, stack_top - execfn_size);
    }
    /* AT_NULL and its value are already zero. */

    *user_rsp_out = stack_top - rsp_depth;
    return 0;
}
