/* Fuzz target: kernel/process/user_stack.c, the initial stack execve builds from
 * strings a user program chose. The input is the strings, NUL-separated:
 * those before an empty one are argv, the rest envp; a small first byte
 * picks the buffer size, so that "does not fit" is reached too; an odd
 * one makes the first argument AT_EXECFN's name as well. On success the
 * image must lie inside the buffer with rsp 16-byte aligned (the System
 * V rule), argc first, and the name at the very top. */
#include <string.h>

#include "kernel/process/user_stack.h"
#include "tests/fuzz/fuzz.h"

#define MAX_STRINGS 64
#define STACK_TOP   0x7ffffffff000ull

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    size_t buffer_size = 64 + (size_t)data[0] * 32;
    char *text = malloc(size);
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';

    const char *argv[MAX_STRINGS + 1], *envp[MAX_STRINGS + 1];
    size_t argc = 0, envc = 0;
    bool in_envp = false;
    for (size_t i = 0; i < size - 1;) {
        const char *string = text + i;
        size_t length = strlen(string);
        if (length == 0 && !in_envp)
            in_envp = true;
        else if (in_envp && envc < MAX_STRINGS)
            envp[envc++] = string;
        else if (!in_envp && argc < MAX_STRINGS)
            argv[argc++] = string;
        i += length + 1;
    }
    argv[argc] = envp[envc] = NULL;

    static const uint8_t random16[16] = {1, 2, 3};
    const struct auxv_entry auxv[] = {{AT_PAGESZ, 4096}, {AT_ENTRY, 0x401000}};
    uint8_t *buffer = malloc(buffer_size);
    uint64_t rsp = 0;
    const char *execfn = (data[0] & 1) && argc ? argv[0] : NULL;
    if (user_stack_build_named(buffer, buffer_size, STACK_TOP, argv, envp, execfn, auxv, 2, random16, &rsp) == 0) {
        FUZZ_CHECK(rsp % 16 == 0 && rsp < STACK_TOP && STACK_TOP - rsp <= buffer_size);
        uint64_t argc_on_stack;
        memcpy(&argc_on_stack, buffer + buffer_size - (STACK_TOP - rsp), 8);
        FUZZ_CHECK(argc_on_stack == argc);
        if (execfn)
            FUZZ_CHECK(memcmp(buffer + buffer_size - strlen(execfn) - 1, execfn, strlen(execfn) + 1) == 0);
    }
    free(buffer);
    free(text);
    return 0;
}
