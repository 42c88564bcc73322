/* The "#!" line, as Linux's binfmt_script reads it: the file's first
 * SCRIPT_LINE_MAX bytes (zeros past its end), the line up to '\n' or the
 * end of those bytes (the search stops at a NUL), spaces and tabs around the name, the name up to a
 * space, tab or NUL, then everything left of the line (inner spaces
 * kept) as the one argument. A line with no '\n' in those bytes is
 * refused if the name itself may be cut short. */
#include "kernel/process/script.h"

#include "kernel/lib/errno.h"
#include "kernel/lib/string.h"

static bool blank(char c)
{
    return c == ' ' || c == '\t';
}

static bool ends_name(char c)
{
    return blank(c) || c == '\0';
}

/* The first index in [from, to) that is not blank; to if none. */
static size_t skip_blanks(const char *buffer, size_t from, size_t to)
{
    while (from < to && blank(buffer[from]))
        from++;
    return from;
}

/* The first index in [from, to) that ends a name; to if none. */
static size_t find_name_end(const char *buffer, size_t from, size_t to)
{
    while (from < to && !ends_name(buffer[from]))
        from++;
    return from;
}

/* Copies buffer[from, to) as a string: it stops at a NUL inside. */
static void copy_part(char *out, const char *buffer, size_t from, size_t to)
{
    size_t n = 0;
    while (from + n < to && buffer[from + n]) {
        out[n] = buffer[from + n];
        n++;
    }
    out[n] = '\0';
}

/* Where the line ends; 0 if no '\n' came and the name may be cut. */
static size_t line_end(const char *buffer)
{
    for (size_t i = 0; i < SCRIPT_LINE_MAX && buffer[i]; i++)  /* a NUL ends the search */
        if (buffer[i] == '\n')
            return i;
    size_t last = SCRIPT_LINE_MAX - 1;  /* Linux keeps the last byte for a NUL */
    size_t name = skip_blanks(buffer, 2, last);
    if (name == last || find_name_end(buffer, name, last) == last)
        return 0;
    return last;
}

int script_parse(const char *head, size_t length, struct script_line *line)
{
    char buffer[SCRIPT_LINE_MAX];
    size_t n = length < SCRIPT_LINE_MAX ? length : SCRIPT_LINE_MAX;

    memset(buffer, 0, sizeof(buffer));
    memcpy(buffer, head, n);
    if (n < 2 || buffer[0] != '#' || buffer[1] != '!')
        return -ENOEXEC;
    size_t end = line_end(buffer);
    if (!end)
        return -ENOEXEC;
    while (end > 2 && blank(buffer[end - 1]))
        end--;
    size_t name = skip_blanks(buffer, 2, end);
    if (name == end)
        return -ENOEXEC;
    size_t name_end = find_name_end(buffer, name, end);
    copy_part(line->interpreter, buffer, name, name_end);  /* "" if a NUL: its lookup fails */
    line->has_argument = false;
    line->argument[0] = '\0';
    if (name_end < end && buffer[name_end] != '\0') {
        size_t argument = skip_blanks(buffer, name_end, end);
        if (argument < end) {
            copy_part(line->argument, buffer, argument, end);
            line->has_argument = true;
        }
    }
    return 0;
}
