/* execve's arguments and environment, copied from the caller into the
 * kernel under Linux's limits (docs/user-space.md, "execve's arguments"):
 * at most 32 pages per string with its NUL, and the strings (the path
 * included) plus one pointer per string within a quarter of the caller's
 * RLIMIT_STACK, never less than 128 KiB nor more than 6 MiB; and the
 * strings within RLIMIT_STACK itself, in pages, with a word above them
 * (Linux's new stack may not grow past it while they are copied). */
#ifndef NOHZK_EXEC_ARGS_H
#define NOHZK_EXEC_ARGS_H

#include <stddef.h>
#include <stdint.h>

#define EXEC_ARG_STRING_MAX (32 * 4096ul)   /* one string with its NUL: Linux's MAX_ARG_STRLEN */

struct exec_args {
    char *strings;          /* every string, NUL-terminated, one block */
    const char **argv;      /* NULL-terminated; never empty: "" if the caller gave none */
    const char **envp;      /* NULL-terminated */
};

/* The room the strings and pointers may take, for a caller whose
 * RLIMIT_STACK soft limit is stack_limit. */
uint64_t exec_args_budget(uint64_t stack_limit);
/* Copies both arrays; 0, or -EFAULT (a pointer or string that cannot be
 * read), -E2BIG (past the limits), -ENOMEM, -EINTR (a fatal signal). */
long exec_args_copy(struct exec_args *args, const char *path, const char *const *user_argv,
                    const char *const *user_envp, uint64_t stack_limit);
void exec_args_free(struct exec_args *args);

#endif
