/* "#!" scripts: the first line names the interpreter execve runs instead,
 * with one optional argument, by Linux's rules (docs/user-space.md,
 * "Scripts"). The parser is pure: it reads the file's first bytes. */
#ifndef NOHZK_SCRIPT_H
#define NOHZK_SCRIPT_H

#include <stdbool.h>
#include <stddef.h>

#define SCRIPT_LINE_MAX 256     /* Linux's BINPRM_BUF_SIZE: all that is read of the line */

struct script_line {
    char interpreter[SCRIPT_LINE_MAX];
    char argument[SCRIPT_LINE_MAX];
    bool has_argument;
};

/* Is head[0, length) a script? 0 and *line, or -ENOEXEC: no "#!", no
 * interpreter name, or a name the line limit cuts. */
int script_parse(const char *head, size_t length, struct script_line *line);

#endif
