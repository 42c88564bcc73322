/* Kernel command line parsing: split the line into words, look each word's
 * name up in the caller's table, convert its value to the parameter's type,
 * and report every problem in one line that says what was expected.
 *
 * It runs before the console exists, so messages are assembled in a
 * buffer with the small message_append_* helpers below (this file is also
 * built into host unit tests, where snprintf is the C library's). */
#include "kernel/init/cmdline.h"
#include "kernel/lib/errno.h"
#include "kernel/lib/format.h"
#include "kernel/lib/string.h"

/* A word longer than this is cut, with "...", when quoted in a message, so
 * that the explanation after it still fits. */
#define MESSAGE_WORD_LIMIT 64

struct message {
    char text[CMDLINE_MAX_MESSAGE + 1];
    size_t length;
};

/* Appends what fits; the text stays NUL-terminated. */
static void message_append_bytes(struct message *message, const char *bytes, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        if (message->length >= CMDLINE_MAX_MESSAGE)
            break;
        message->text[message->length++] = bytes[i];
    }
    message->text[message->length] = '\0';
}

static void message_append(struct message *message, const char *text)
{
    message_append_bytes(message, text, strlen(text));
}

static void message_append_number(struct message *message, uint64_t number)
{
    char digits[24];
    int length = snprintf(digits, sizeof(digits), "%llu", (unsigned long long)number);
    message_append_bytes(message, digits, (size_t)length);
}

/* A word from the command line, shown as '?' for each control character:
 * a quoted word may hold a newline or an escape sequence, and a report is
 * one printable line (tests/fuzz/fuzz_cmdline.c). */
static void message_append_word(struct message *message, const char *word)
{
    size_t length = strnlen(word, MESSAGE_WORD_LIMIT + 1);
    size_t shown = length <= MESSAGE_WORD_LIMIT ? length : MESSAGE_WORD_LIMIT;

    for (size_t i = 0; i < shown; i++) {
        unsigned char c = (unsigned char)word[i];
        message_append_bytes(message, c < 0x20 || c == 0x7f ? "?" : &word[i], 1);
    }
    if (length > MESSAGE_WORD_LIMIT)
        message_append(message, "...");
}

/* ---- Values: each converter either stores a good value or explains, in
 * the message, what it expected. ---- */

static int digit_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Decimal, or hexadecimal after "0x"; the whole text, without overflow. */
static bool parse_uint(const char *text, uint64_t *out)
{
    unsigned int base = 10;
    uint64_t value = 0;

    if (text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
        base = 16;
        text += 2;
    }
    if (*text == '\0')
        return false;
    for (; *text != '\0'; text++) {
        int digit = digit_value(*text);

        if (digit < 0 || (unsigned int)digit >= base)
            return false;
        if (value > (UINT64_MAX - (uint64_t)digit) / base)
            return false;
        value = value * base + (uint64_t)digit;
    }
    *out = value;
    return true;
}

static bool uint_is_allowed(const struct kernel_param *param, uint64_t value)
{
    if (value < param->min || value > param->max)
        return false;
    if (param->allowed == NULL)
        return true;
    for (size_t i = 0; i < param->allowed_count; i++)
        if (param->allowed[i] == value)
            return true;
    return false;
}

static void explain_uint(const struct kernel_param *param, struct message *why)
{
    if (param->allowed != NULL) {
        message_append(why, "must be one of ");
        for (size_t i = 0; i < param->allowed_count; i++) {
            if (i > 0)
                message_append(why, ", ");
            message_append_number(why, param->allowed[i]);
        }
    } else if (param->min == 0 && param->max == UINT64_MAX) {
        message_append(why, "must be a number");
    } else {
        message_append(why, "must be a number from ");
        message_append_number(why, param->min);
        message_append(why, " to ");
        message_append_number(why, param->max);
    }
}

static bool apply_uint(struct kernel_param *param, const char *value, struct message *why)
{
    uint64_t number;

    if (!parse_uint(value, &number) || !uint_is_allowed(param, number)) {
        explain_uint(param, why);
        return false;
    }
    *(uint64_t *)param->value = number;
    return true;
}

static const struct {
    const char *word;
    bool value;
} bool_words[] = {
    {"1", true},   {"0", false},  {"on", true},   {"off", false},
    {"yes", true}, {"no", false}, {"true", true}, {"false", false},
};

static bool apply_bool(struct kernel_param *param, const char *value, struct message *why)
{
    size_t count = sizeof(bool_words) / sizeof(bool_words[0]);

    for (size_t i = 0; i < count; i++) {
        if (strcmp(value, bool_words[i].word) == 0) {
            *(bool *)param->value = bool_words[i].value;
            return true;
        }
    }
    message_append(why, "must be ");
    for (size_t i = 0; i < count; i++) {
        if (i > 0)
            message_append(why, i + 1 < count ? ", " : " or ");
        message_append(why, bool_words[i].word);
    }
    return false;
}

static bool apply_enum(struct kernel_param *param, const char *value, struct message *why)
{
    for (int i = 0; param->choices[i] != NULL; i++) {
        if (strcmp(value, param->choices[i]) == 0) {
            *(int *)param->value = i;
            return true;
        }
    }
    message_append(why, "must be one of ");
    for (int i = 0; param->choices[i] != NULL; i++) {
        if (i > 0)
            message_append(why, ", ");
        message_append(why, param->choices[i]);
    }
    return false;
}

static bool apply_cpulist(struct kernel_param *param, const char *value, struct message *why)
{
    int error = cpulist_parse(value, strlen(value), param->value);

    if (error == -ERANGE) {
        message_append(why, "CPU numbers must be below ");
        message_append_number(why, MAX_CPUS);
    } else if (error != 0) {
        message_append(why, "not a CPU list");
    }
    return error == 0;
}

static bool apply_string(struct kernel_param *param, const char *value, struct message *why)
{
    size_t length = strlen(value);

    if (length >= param->size) {
        message_append(why, "longer than ");
        message_append_number(why, param->size > 0 ? param->size - 1 : 0);
        message_append(why, " characters");
        return false;
    }
    memcpy(param->value, value, length + 1);
    return true;
}

static bool apply_value(struct kernel_param *param, const char *value, struct message *why)
{
    switch (param->type) {
    case PARAM_UINT:
        return apply_uint(param, value, why);
    case PARAM_BOOL:
        return apply_bool(param, value, why);
    case PARAM_ENUM:
        return apply_enum(param, value, why);
    case PARAM_CPULIST:
        return apply_cpulist(param, value, why);
    case PARAM_STRING:
        return apply_string(param, value, why);
    }
    message_append(why, "parameter has an unknown type");
    return false;
}

/* ---- Words ---- */

struct parser {
    struct kernel_param *params;
    size_t count;
    void (*report)(void *ctx, const char *message);
    void *ctx;
    int problems;
};

static void parser_report(struct parser *parser, const struct message *message)
{
    parser->problems++;
    if (parser->report != NULL)
        parser->report(parser->ctx, message->text);
}

static struct kernel_param *find_param(struct parser *parser, const char *name, size_t name_length)
{
    for (size_t i = 0; i < parser->count; i++) {
        const char *candidate = parser->params[i].name;

        if (strlen(candidate) == name_length && memcmp(candidate, name, name_length) == 0)
            return &parser->params[i];
    }
    return NULL;
}

/* Handles one word, "name" or "name=value", with its quotes removed. */
static void parse_word(struct parser *parser, const char *word)
{
    const char *equals = strchr(word, '=');
    size_t name_length = equals ? (size_t)(equals - word) : strlen(word);
    struct kernel_param *param = find_param(parser, word, name_length);
    struct message message = {.length = 0};

    if (param == NULL) {
        message_append(&message, "unknown parameter \"");
        message_append_word(&message, word);
        message_append(&message, "\"");
        parser_report(parser, &message);
        return;
    }
    if (equals == NULL && param->type == PARAM_BOOL) {
        *(bool *)param->value = true; /* a bare flag: "strace" */
        param->seen = true;
        return;
    }
    message_append_word(&message, word);
    if (equals == NULL) {
        message_append(&message, ": needs a value (");
        message_append(&message, param->name);
        message_append(&message, "=...)");
        parser_report(parser, &message);
        return;
    }
    message_append(&message, ": ");
    if (apply_value(param, equals + 1, &message))
        param->seen = true;
    else
        parser_report(parser, &message);
}

static bool is_separator(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

enum word_status { WORD_NONE, WORD_OK, WORD_TOO_LONG, WORD_UNTERMINATED };

/* Copies the next word at *cursor into word[] (CMDLINE_MAX_WORD + 1 bytes),
 * dropping its double quotes, and moves *cursor past it. A quote runs
 * until the next quote, spaces included; an unterminated one takes the rest
 * of the line. A word too long is cut (and the rest skipped). */
static enum word_status next_word(const char **cursor, char *word)
{
    const char *text = *cursor;
    size_t length = 0;
    bool in_quotes = false;
    bool too_long = false;

    while (is_separator(*text))
        text++;
    if (*text == '\0') {
        *cursor = text;
        return WORD_NONE;
    }
    for (; *text != '\0' && (in_quotes || !is_separator(*text)); text++) {
        if (*text == '"')
            in_quotes = !in_quotes;
        else if (length < CMDLINE_MAX_WORD)
            word[length++] = *text;
        else
            too_long = true;
    }
    word[length] = '\0';
    *cursor = text;
    if (in_quotes)
        return WORD_UNTERMINATED;
    return too_long ? WORD_TOO_LONG : WORD_OK;
}

/* A word the tokenizer could not hand over whole: report, do not apply. */
static void report_bad_word(struct parser *parser, const char *word, enum word_status status)
{
    struct message message = {.length = 0};

    message_append_word(&message, word);
    if (status == WORD_UNTERMINATED) {
        message_append(&message, ": missing closing quote");
    } else {
        message_append(&message, ": longer than ");
        message_append_number(&message, CMDLINE_MAX_WORD);
        message_append(&message, " characters");
    }
    parser_report(parser, &message);
}

int cmdline_parse(const char *cmdline, struct kernel_param *params, size_t count,
                  void (*report)(void *ctx, const char *message), void *ctx)
{
    struct parser parser = {
        .params = params,
        .count = count,
        .report = report,
        .ctx = ctx,
        .problems = 0,
    };
    char word[CMDLINE_MAX_WORD + 1];
    enum word_status status;

    for (size_t i = 0; i < count; i++)
        params[i].seen = false;
    if (cmdline == NULL)
        return 0;
    while ((status = next_word(&cmdline, word)) != WORD_NONE) {
        if (status == WORD_OK)
            parse_word(&parser, word);
        else
            report_bad_word(&parser, word, status);
    }
    return parser.problems;
}
