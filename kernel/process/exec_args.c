/* execve's arguments: see exec_args.h. Three passes over the caller's
 * arrays: count the pointers, measure the strings (in Linux's order: the
 * path, the environment, the arguments, so the same call fails the same
 * way), then copy them into one block sized to fit. Linux copies straight
 * into the new stack instead; a kernel block keeps exec.c's image builder
 * (user_stack.c) as it is, at the price of one contiguous allocation of
 * up to 6 MiB. */
#include "kernel/process/exec_args.h"

#include <stdbool.h>

#include "kernel/lib/errno.h"
#include "kernel/lib/string.h"
#include "kernel/mm/heap.h"
#include "kernel/mm/uaccess.h"
#include "kernel/process/signal.h"

#define WORD           sizeof(uint64_t)
#define BUDGET_FLOOR   (32 * 4096ul)    /* Linux's ARG_MAX: even with a tiny stack */
#define BUDGET_CEILING (6ul << 20)      /* 3/4 of the 8 MiB default stack */

uint64_t exec_args_budget(uint64_t stack_limit)
{
    uint64_t budget = stack_limit / 4;
    if (budget > BUDGET_CEILING)
        budget = BUDGET_CEILING;
    return budget < BUDGET_FLOOR ? BUDGET_FLOOR : budget;
}

/* Linux writes the strings down from one word below the new stack's top,
 * growing it a page at a time, and the stack may not grow past its
 * limit: below 128 KiB of RLIMIT_STACK that bounds the strings before the
 * budget does. */
static bool strings_fit_stack(uint64_t bytes, uint64_t stack_limit)
{
    uint64_t pages = (bytes + WORD + 4095) / 4096;
    return pages * 4096 <= stack_limit;
}

static long read_pointer(const char *const *array, size_t index, uint64_t *pointer)
{
    return copy_from_user(pointer, &array[index], WORD) < 0 ? -EFAULT : 0;
}

/* How many pointers come before array's NULL (a NULL array has none).
 * Stops with -E2BIG once the pointers alone, with the `already` counted,
 * fill the budget: Linux counts on to 2^31 first, and would say -EFAULT
 * instead for a bad pointer further on. */
static long count_pointers(const char *const *array, size_t already, uint64_t budget, size_t *count)
{
    size_t n = 0;
    for (; array; n++) {
        uint64_t pointer;
        if (read_pointer(array, n, &pointer))
            return -EFAULT;
        if (!pointer)
            break;
        if ((already + n + 1) * WORD >= budget)
            return -E2BIG;
        if (n % 4096 == 4095 && signal_fatal_pending())
            return -EINTR;
    }
    *count = n;
    return 0;
}

/* Adds the strings' bytes, NULs included, to *bytes: -E2BIG for one
 * string past EXEC_ARG_STRING_MAX or a total past room. */
static long measure_strings(const char *const *array, size_t count, uint64_t room, uint64_t *bytes)
{
    for (size_t i = 0; i < count; i++) {
        uint64_t pointer;
        if (read_pointer(array, i, &pointer))
            return -EFAULT;
        long length = strnlen_user((const char *)pointer, EXEC_ARG_STRING_MAX);
        if (length < 0)
            return length;
        if ((uint64_t)length >= EXEC_ARG_STRING_MAX)
            return -E2BIG;
        *bytes += (uint64_t)length + 1;
        if (*bytes > room)
            return -E2BIG;
        if (i % 256 == 255 && signal_fatal_pending())
            return -EINTR;
    }
    return 0;
}

/* Copies the strings to *cursor on, out[i] pointing at each. A string
 * that grew since it was measured (another sharer of its page wrote it)
 * finds no room: -E2BIG. */
static long copy_strings(const char *const *array, size_t count, char **cursor, const char *end, const char **out)
{
    for (size_t i = 0; i < count; i++) {
        uint64_t pointer;
        if (read_pointer(array, i, &pointer))
            return -EFAULT;
        size_t room = (size_t)(end - *cursor);
        long length = strnlen_user((const char *)pointer, room);
        if (length < 0)
            return length;
        if ((size_t)length >= room)
            return -E2BIG;
        if (copy_from_user(*cursor, (const char *)pointer, (size_t)length) < 0)
            return -EFAULT;
        (*cursor)[length] = '\0';
        out[i] = *cursor;
        *cursor += length + 1;
    }
    out[count] = 0;
    return 0;
}

void exec_args_free(struct exec_args *args)
{
    kfree(args->strings);
    kfree(args->argv);
    *args = (struct exec_args){ 0 };
}

long exec_args_copy(struct exec_args *args, const char *path, const char *const *user_argv,
                    const char *const *user_envp, uint64_t stack_limit)
{
    uint64_t budget = exec_args_budget(stack_limit);
    size_t argc = 0, envc = 0;
    *args = (struct exec_args){ 0 };

    long error = count_pointers(user_argv, 0, budget, &argc);
    if (!error)
        error = count_pointers(user_envp, argc, budget, &envc);
    if (error)
        return error;
    /* An empty argv gets "" as argv[0] (Linux since 5.18), counted too. */
    size_t new_argc = argc ? argc : 1;
    uint64_t pointers = (new_argc + envc) * WORD;
    if (pointers >= budget)
        return -E2BIG;
    uint64_t room = budget - pointers, path_bytes = strlen(path) + 1, bytes = path_bytes;
    error = bytes > room ? -E2BIG : measure_strings(user_envp, envc, room, &bytes);
    if (!error)
        error = measure_strings(user_argv, argc, room, &bytes);
    if (!error && !argc && ++bytes > room)
        error = -E2BIG;
    if (!error && !strings_fit_stack(bytes, stack_limit))
        error = -E2BIG;
    if (error)
        return error;

    size_t block = (size_t)(bytes - path_bytes);
    args->strings = kmalloc(block);
    args->argv = kmalloc((new_argc + 1 + envc + 1) * WORD);
    if (!args->strings || !args->argv) {
        exec_args_free(args);
        return -ENOMEM;
    }
    args->envp = args->argv + new_argc + 1;
    char *cursor = args->strings;
    const char *end = args->strings + block;
    error = copy_strings(user_argv, argc, &cursor, end, args->argv);
    if (!error && !argc) {
        *cursor = '\0';
        args->argv[0] = cursor++;
        args->argv[1] = 0;
    }
    if (!error)
        error = copy_strings(user_envp, envc, &cursor, end, args->envp);
    if (error)
        exec_args_free(args);
    return error;
}
