/* The kernel command line ("hz=250 tick=full nohz_full=1-3 init=/bin/sh"),
 * parsed into typed variables described by a table:
 *
 *	static uint64_t hz = 1000;
 *	static int clocksource = CLOCKSOURCE_AUTO;
 *	static const char *const clocksource_names[] =
 *		{ "auto", "hpet", "pit", NULL };
 *	static struct kernel_param params[] = {
 *		PARAM_UINT_ONE_OF("hz", &hz, 100, 250, 1000),
 *		PARAM_ENUM("clocksource", &clocksource, clocksource_names),
 *		PARAM_CPULIST("nohz_full", &nohz_full_mask),
 *		PARAM_STRING("init", init_path, sizeof(init_path)),
 *	};
 *	cmdline_parse(text, params, ARRAY_SIZE(params), report, NULL);
 *
 * Each variable holds its default before the call; a good value replaces
 * it, a bad one is reported and leaves it alone.
 *
 * Left out on purpose: Linux's "--" (arguments for init), passing unknown
 * words on to init, '-' and '_' being the same in names, size suffixes
 * (64M), octal numbers, and a way to put a '"' inside a value. */
#ifndef NOHZK_CMDLINE_H
#define NOHZK_CMDLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/lib/cpumask.h"

enum param_type {
    PARAM_UINT,    /* uint64_t: decimal or 0x hex, within min..max */
    PARAM_BOOL,    /* bool: 1/0 on/off yes/no true/false; bare "name" = true */
    PARAM_ENUM,    /* int: index of the value in a NULL-terminated name list */
    PARAM_CPULIST, /* struct cpumask: "1-3,5" (see cpulist_parse) */
    PARAM_STRING,  /* char[size]: the value, quotes removed, NUL-terminated */
};

struct kernel_param {
    const char *name;
    enum param_type type;
    void *value; /* the variable, of the type above */

    uint64_t min, max;       /* PARAM_UINT: inclusive range */
    const uint64_t *allowed; /* PARAM_UINT: if set, the only values */
    size_t allowed_count;

    const char *const *choices; /* PARAM_ENUM: names, NULL at the end */

    size_t size; /* PARAM_STRING: buffer size, NUL included */

    bool seen; /* set by cmdline_parse on a good value */
};

/* Table entries. Each macro is named after the type it declares: with
 * parentheses, PARAM_BOOL("strace", &strace) is a whole entry; without,
 * PARAM_BOOL is the enum value (C expands a function-like macro only when
 * a '(' follows). Designated initializers work too.
 *
 * The macros take a pointer to the variable and check its type at compile
 * time: "1 ? pointer : (type *)0" draws a warning (an error with -Werror)
 * when pointer is not a type *. */
#define PARAM_CHECK_TYPE(type, pointer) (1 ? (pointer) : (type *)0)

#define PARAM_UINT_RANGE(name_, variable, min_, max_)                                                        \
    {                                                                                                        \
        .name = (name_), .type = PARAM_UINT, .value = PARAM_CHECK_TYPE(uint64_t, variable), .min = (min_),   \
        .max = (max_)                                                                                        \
    }

/* Any uint64_t at all. */
#define PARAM_UINT(name_, variable) PARAM_UINT_RANGE(name_, variable, 0, UINT64_MAX)

/* PARAM_UINT_ONE_OF("hz", &hz, 100, 250, 1000): only the listed values. */
#define PARAM_UINT_ONE_OF(name_, variable, ...)                                                              \
    {                                                                                                        \
        .name = (name_), .type = PARAM_UINT, .value = PARAM_CHECK_TYPE(uint64_t, variable), .min = 0,        \
        .max = UINT64_MAX, .allowed = (const uint64_t[]){__VA_ARGS__},                                       \
        .allowed_count = sizeof((const uint64_t[]){__VA_ARGS__}) / sizeof(uint64_t)                          \
    }

#define PARAM_BOOL(name_, variable)                                                                          \
    {                                                                                                        \
        .name = (name_), .type = PARAM_BOOL, .value = PARAM_CHECK_TYPE(bool, variable)                       \
    }

#define PARAM_ENUM(name_, variable, choice_names)                                                            \
    {                                                                                                        \
        .name = (name_), .type = PARAM_ENUM, .value = PARAM_CHECK_TYPE(int, variable),                       \
        .choices = (choice_names)                                                                            \
    }

#define PARAM_CPULIST(name_, variable)                                                                       \
    {                                                                                                        \
        .name = (name_), .type = PARAM_CPULIST, .value = PARAM_CHECK_TYPE(struct cpumask, variable)          \
    }

#define PARAM_STRING(name_, buffer, buffer_size)                                                             \
    {                                                                                                        \
        .name = (name_), .type = PARAM_STRING, .value = PARAM_CHECK_TYPE(char, buffer),                      \
        .size = (buffer_size)                                                                                \
    }

/* The longest word (name=value, quotes removed) cmdline_parse accepts;
 * as long as the whole command line multiboot2.h keeps. */
#define CMDLINE_MAX_WORD 511

/* The longest message given to report(), NUL excluded. */
#define CMDLINE_MAX_MESSAGE 255

/* Parses cmdline (NULL counts as empty) against params[0..count-1].
 * Words are separated by spaces and tabs (and newlines); double quotes
 * group a value with spaces in it and are removed: init="/bin/sh -c 'a b'".
 * Every problem is reported once through report(ctx, message), with a
 * one-line message naming the word and what was expected; report may be
 * NULL. A parameter given twice keeps its last good value. First clears
 * every seen flag. Returns the number of problems. */
int cmdline_parse(const char *cmdline, struct kernel_param *params, size_t count,
                  void (*report)(void *ctx, const char *message), void *ctx);

#endif
