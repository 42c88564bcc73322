/* Fuzz target: kernel/process/script.c, the "#!" line of a file execve
 * runs. On success the input starts with "#!", the interpreter's name
 * holds no blank or line end, and the argument holds no line end and
 * starts with no blank; on a line a '\n' ends, it is empty exactly when
 * there is none and does not end with a blank. (A line the file's end or
 * a NUL ends is not trimmed: Linux passes "" for "#!/bin/sh " at the end
 * of a file, the argument starting at the NUL.) */
#include <string.h>

#include "kernel/process/script.h"
#include "tests/fuzz/fuzz.h"

static bool blank(char c)
{
    return c == ' ' || c == '\t';
}

/* Does a '\n' end the line, before any NUL (the file's end reads as
 * NULs) within the bytes read? */
static bool ends_with_newline(const uint8_t *data, size_t size)
{
    for (size_t i = 0; i < size && i < SCRIPT_LINE_MAX && data[i]; i++)
        if (data[i] == '\n')
            return true;
    return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct script_line line;
    if (script_parse((const char *)data, size, &line) != 0)
        return 0;
    FUZZ_CHECK(size >= 2 && data[0] == '#' && data[1] == '!');
    size_t name = strnlen(line.interpreter, SCRIPT_LINE_MAX);
    FUZZ_CHECK(name < SCRIPT_LINE_MAX);
    for (size_t i = 0; i < name; i++)
        FUZZ_CHECK(!blank(line.interpreter[i]) && line.interpreter[i] != '\n');
    size_t argument = strnlen(line.argument, SCRIPT_LINE_MAX);
    FUZZ_CHECK(argument < SCRIPT_LINE_MAX);
    bool cut = !ends_with_newline(data, size);
    FUZZ_CHECK(line.has_argument || argument == 0);
    FUZZ_CHECK(cut || line.has_argument == (argument > 0));
    if (argument) {
        FUZZ_CHECK(!blank(line.argument[0]) && memchr(line.argument, '\n', argument) == NULL);
        FUZZ_CHECK(cut || !blank(line.argument[argument - 1]));
    }
    return 0;
}
