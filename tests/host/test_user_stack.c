/* Unit tests of the initial process stack builder (kernel/process/user_stack.c).
 *
 * Each test builds an image, then reads it back the way a C library's
 * start-up code does: argc at rsp, argv and envp pointer arrays, then the
 * auxiliary vector, following user addresses into the buffer. Buffers are
 * malloc'd at their exact size and pre-filled with a sentinel, so that
 * AddressSanitizer catches writes past the end and the tests catch writes
 * below the image.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/lib/errno.h"
#include "kernel/process/user_stack.h"

#define STACK_TOP 0x7ffffffff000ULL
#define SENTINEL  0xa5

static const uint8_t random_bytes[16] = {0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
                                         0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff};

static const struct auxv_entry caller_auxv[] = {
    {AT_PHDR, 0x400040}, {AT_PHNUM, 7},   {AT_PHENT, 56}, {AT_PAGESZ, 4096}, {AT_ENTRY, 0x401056},
    {AT_UID, 1000},      {AT_EUID, 1000}, {AT_GID, 100},  {AT_EGID, 100},    {AT_HWCAP, 0x178bfbff},
    {AT_CLKTCK, 100},    {AT_SECURE, 0},  {AT_BASE, 0},
};
#define CALLER_AUXV_COUNT (sizeof(caller_auxv) / sizeof(caller_auxv[0]))

/* A stack buffer and the image built in it. */
struct image {
    uint8_t *buffer;
    size_t size;
    uint64_t top;
    uint64_t rsp;
};

static uint8_t *image_new(struct image *image, size_t size, uint64_t top)
{
    image->buffer = malloc(size ? size : 1);
    assert_non_null(image->buffer);
    memset(image->buffer, SENTINEL, size);
    image->size = size;
    image->top = top;
    image->rsp = 0;
    return image->buffer;
}

static int image_build(struct image *image, const char *const *argv, const char *const *envp,
                       const struct auxv_entry *auxv, size_t auxv_count)
{
    return user_stack_build(image->buffer, image->size, image->top, argv, envp, auxv, auxv_count,
                            random_bytes, &image->rsp);
}

/* The buffer bytes at a user address, which must lie inside the image. */
static const uint8_t *at(const struct image *image, uint64_t address, size_t length)
{
    assert_true(address >= image->rsp);
    assert_true(address <= image->top && length <= image->top - address);
    return image->buffer + image->size - (image->top - address);
}

static uint64_t word_at(const struct image *image, uint64_t address)
{
    uint64_t value;
    memcpy(&value, at(image, address, 8), 8);
    return value;
}

/* A NUL-terminated string at a user address, checked to end inside the image. */
static const char *string_at(const struct image *image, uint64_t address)
{
    const char *s = (const char *)at(image, address, 1);
    size_t room = image->top - address;
    assert_true(strnlen(s, room) < room);
    return s;
}

/* What a C runtime finds at its entry point. */
struct walk {
    uint64_t argc;
    uint64_t argv, envp, auxv; /* user addresses of the three arrays */
    size_t envc, auxc;         /* entries before the terminators */
};

static struct walk walk_image(const struct image *image)
{
    struct walk w = {0};
    uint64_t p = image->rsp;

    assert_int_equal(image->rsp % 16, 0); /* the ABI's rule at process entry */
    assert_true(image->rsp < image->top);
    w.argc = word_at(image, p);
    w.argv = p + 8;
    assert_int_equal(word_at(image, w.argv + 8 * w.argc), 0);
    w.envp = w.argv + 8 * (w.argc + 1);
    while (word_at(image, w.envp + 8 * w.envc) != 0)
        w.envc++;
    w.auxv = w.envp + 8 * (w.envc + 1);
    while (word_at(image, w.auxv + 16 * w.auxc) != AT_NULL)
        w.auxc++;
    assert_int_equal(word_at(image, w.auxv + 16 * w.auxc + 8), 0);
    return w;
}

/* getauxval(): the value of `type`, which must appear exactly once. */
static uint64_t auxv_lookup(const struct image *image, const struct walk *w, uint64_t type)
{
    int found = 0;
    uint64_t value = 0;
    for (size_t i = 0; i < w->auxc; i++) {
        if (word_at(image, w->auxv + 16 * i) == type) {
            value = word_at(image, w->auxv + 16 * i + 8);
            found++;
        }
    }
    assert_int_equal(found, 1);
    return value;
}

static void check_strings(const struct image *image, uint64_t array, const char *const *expected,
                          size_t count)
{
    for (size_t i = 0; i < count; i++)
        assert_string_equal(string_at(image, word_at(image, array + 8 * i)), expected[i]);
}

/* Nothing below the image was written. */
static void check_untouched_below(const struct image *image)
{
    size_t image_start = image->size - (image->top - image->rsp);
    for (size_t i = 0; i < image_start; i++)
        assert_int_equal(image->buffer[i], SENTINEL);
}

static void check_random_and_platform(const struct image *image, const struct walk *w)
{
    uint64_t random = auxv_lookup(image, w, AT_RANDOM);
    assert_memory_equal(at(image, random, 16), random_bytes, 16);
    assert_string_equal(string_at(image, auxv_lookup(image, w, AT_PLATFORM)), "x86_64");
}

/* ---- tests ---- */

static void test_walk_like_a_c_runtime(void **state)
{
    (void)state;
    const char *argv[] = {"/bin/busybox", "sh", "-c", "echo hello", NULL};
    const char *envp[] = {"HOME=/", "PATH=/bin", "TERM=vt100", NULL};
    struct image image;
    image_new(&image, 4096, STACK_TOP);

    assert_int_equal(image_build(&image, argv, envp, caller_auxv, CALLER_AUXV_COUNT), 0);
    struct walk w = walk_image(&image);
    assert_int_equal(w.argc, 4);
    check_strings(&image, w.argv, argv, 4);
    assert_int_equal(w.envc, 3);
    check_strings(&image, w.envp, envp, 3);

    /* The caller's entries, in order, then ours. */
    assert_int_equal(w.auxc, CALLER_AUXV_COUNT + 2);
    for (size_t i = 0; i < CALLER_AUXV_COUNT; i++) {
        assert_int_equal(word_at(&image, w.auxv + 16 * i), caller_auxv[i].type);
        assert_int_equal(word_at(&image, w.auxv + 16 * i + 8), caller_auxv[i].value);
    }
    assert_int_equal(auxv_lookup(&image, &w, AT_PHDR), 0x400040);
    assert_int_equal(auxv_lookup(&image, &w, AT_PAGESZ), 4096);
    check_random_and_platform(&image, &w);
    check_untouched_below(&image);
    free(image.buffer);
}

/* Strings sit above the pointer arrays, argv's first, all inside the image. */
static void test_strings_are_above_pointers(void **state)
{
    (void)state;
    const char *argv[] = {"a", "bb", NULL};
    const char *envp[] = {"C=ccc", NULL};
    struct image image;
    image_new(&image, 1024, STACK_TOP);

    assert_int_equal(image_build(&image, argv, envp, caller_auxv, CALLER_AUXV_COUNT), 0);
    struct walk w = walk_image(&image);
    uint64_t arrays_end = w.auxv + 16 * (w.auxc + 1);
    uint64_t a0 = word_at(&image, w.argv), a1 = word_at(&image, w.argv + 8);
    uint64_t e0 = word_at(&image, w.envp);
    assert_true(a0 >= arrays_end);
    assert_int_equal(a1, a0 + 2);
    assert_int_equal(e0, a1 + 3);
    assert_int_equal(e0 + 6, STACK_TOP); /* the last string ends at the top */
    free(image.buffer);
}

static void test_empty_envp(void **state)
{
    (void)state;
    const char *argv[] = {"init", NULL};
    const char *empty[] = {NULL};
    const char *const *envps[] = {empty, NULL}; /* an empty array, and none */

    for (int i = 0; i < 2; i++) {
        struct image image;
        image_new(&image, 512, STACK_TOP);
        assert_int_equal(image_build(&image, argv, envps[i], caller_auxv, CALLER_AUXV_COUNT), 0);
        struct walk w = walk_image(&image);
        assert_int_equal(w.argc, 1);
        check_strings(&image, w.argv, argv, 1);
        assert_int_equal(w.envc, 0);
        check_random_and_platform(&image, &w);
        free(image.buffer);
    }
}

/* argc 0 and no caller auxv: still a well-formed image. */
static void test_empty_everything(void **state)
{
    (void)state;
    struct image image;
    image_new(&image, 256, STACK_TOP);

    assert_int_equal(image_build(&image, NULL, NULL, NULL, 0), 0);
    struct walk w = walk_image(&image);
    assert_int_equal(w.argc, 0);
    assert_int_equal(w.envc, 0);
    assert_int_equal(w.auxc, 2);
    check_random_and_platform(&image, &w);
    check_untouched_below(&image);
    free(image.buffer);
}

/* Every combination of string lengths keeps rsp aligned and the image tight. */
static void test_alignment(void **state)
{
    (void)state;
    static const char letters[] = "abcdefghijklmnopqrstuvwxyz0123456789";

    for (size_t argc = 0; argc < 5; argc++) {
        for (size_t length = 0; length < 20; length++) {
            for (size_t envc = 0; envc < 3; envc++) {
                char strings[8][32];
                const char *argv[8] = {0}, *envp[8] = {0};
                for (size_t i = 0; i < argc + envc; i++) {
                    size_t n = (length + i) % 20;
                    memcpy(strings[i], letters, n);
                    strings[i][n] = '\0';
                    if (i < argc)
                        argv[i] = strings[i];
                    else
                        envp[i - argc] = strings[i];
                }
                struct image image;
                image_new(&image, 1024, STACK_TOP);
                assert_int_equal(image_build(&image, argv, envp, caller_auxv, length % 4), 0);
                struct walk w = walk_image(&image);
                assert_int_equal(w.argc, argc);
                assert_int_equal(w.envc, envc);
                check_strings(&image, w.argv, argv, argc);
                check_strings(&image, w.envp, envp, envc);
                check_random_and_platform(&image, &w);
                check_untouched_below(&image);
                /* At most 15 bytes of padding: the image is as small as it can be. */
                size_t strings_size = 0;
                for (size_t i = 0; i < argc + envc; i++)
                    strings_size += strlen(strings[i]) + 1;
                size_t minimum = strings_size + 7 + 16 + 8 * (1 + argc + 1 + envc + 1 + 2 * (length % 4 + 3));
                assert_true(image.top - image.rsp >= minimum && image.top - image.rsp < minimum + 16);
                free(image.buffer);
            }
        }
    }
}

/* The exact size fits; one byte less is -E2BIG, and writes nothing. */
static void test_exact_fit(void **state)
{
    (void)state;
    const char *argv[] = {"spin", "5", "--nohz", NULL};
    const char *envp[] = {"A=1", NULL};
    struct image image;
    image_new(&image, 4096, STACK_TOP);
    assert_int_equal(image_build(&image, argv, envp, caller_auxv, CALLER_AUXV_COUNT), 0);
    size_t used = image.top - image.rsp;
    free(image.buffer);

    image_new(&image, used, STACK_TOP);
    assert_int_equal(image_build(&image, argv, envp, caller_auxv, CALLER_AUXV_COUNT), 0);
    assert_int_equal(image.top - image.rsp, used);
    walk_image(&image);
    free(image.buffer);

    image_new(&image, used - 1, STACK_TOP);
    assert_int_equal(image_build(&image, argv, envp, caller_auxv, CALLER_AUXV_COUNT), -E2BIG);
    for (size_t i = 0; i < used - 1; i++)
        assert_int_equal(image.buffer[i], SENTINEL);
    free(image.buffer);

    image_new(&image, 0, STACK_TOP);
    assert_int_equal(image_build(&image, argv, envp, caller_auxv, CALLER_AUXV_COUNT), -E2BIG);
    free(image.buffer);
}

/* AT_EXECFN: the name execve was given, at the very top, above the
 * strings; an image that fits without it but not with it is E2BIG; a
 * caller's own AT_EXECFN entry is refused. */
static void test_execfn(void **state)
{
    (void)state;
    const char *argv[] = {"sh", "-c", "true", NULL};
    const char *envp[] = {"PATH=/bin", NULL};
    const char *name = "/usr/bin/oslat";
    struct image image;
    image_new(&image, 4096, STACK_TOP);
    assert_int_equal(user_stack_build_named(image.buffer, image.size, STACK_TOP, argv, envp, name, caller_auxv,
                                            CALLER_AUXV_COUNT, random_bytes, &image.rsp), 0);
    struct walk w = walk_image(&image);
    assert_int_equal(auxv_lookup(&image, &w, AT_EXECFN), STACK_TOP - strlen(name) - 1);
    assert_string_equal(string_at(&image, STACK_TOP - strlen(name) - 1), name);
    check_strings(&image, w.argv, argv, 3);
    check_strings(&image, w.envp, envp, 1);
    assert_int_equal(auxv_lookup(&image, &w, AT_PHNUM), 7);
    size_t used = image.top - image.rsp;
    check_untouched_below(&image);
    free(image.buffer);

    image_new(&image, used - 1, STACK_TOP);
    assert_int_equal(user_stack_build_named(image.buffer, image.size, STACK_TOP, argv, envp, name, caller_auxv,
                                            CALLER_AUXV_COUNT, random_bytes, &image.rsp), -E2BIG);
    free(image.buffer);

    const struct auxv_entry own[] = {{AT_EXECFN, 0x1234}};
    image_new(&image, 4096, STACK_TOP);
    assert_int_equal(user_stack_build_named(image.buffer, image.size, STACK_TOP, argv, envp, name, own, 1,
                                            random_bytes, &image.rsp), -EINVAL);
    free(image.buffer);
}

/* A million arguments, or one huge one, against a 64 KiB stack. */
static void test_huge_argv(void **state)
{
    (void)state;
    enum { COUNT = 1000000 };
    const char **many = calloc(COUNT + 1, sizeof(*many));
    assert_non_null(many);
    for (size_t i = 0; i < COUNT; i++)
        many[i] = "x";
    struct image image;
    image_new(&image, 65536, STACK_TOP);
    assert_int_equal(image_build(&image, many, NULL, caller_auxv, CALLER_AUXV_COUNT), -E2BIG);
    assert_int_equal(image_build(&image, (const char *[]){"sh", NULL}, many, caller_auxv, CALLER_AUXV_COUNT),
                     -E2BIG);

    size_t big = 65536;
    char *huge = malloc(big + 1);
    assert_non_null(huge);
    memset(huge, 'y', big);
    huge[big] = '\0';
    assert_int_equal(image_build(&image, (const char *[]){huge, NULL}, NULL, NULL, 0), -E2BIG);
    assert_int_equal(image_build(&image, (const char *[]){"sh", NULL}, (const char *[]){huge, NULL}, NULL, 0),
                     -E2BIG);

    /* As many one-byte strings as fit: the builder packs them and succeeds. */
    many[4000] = NULL;
    assert_int_equal(image_build(&image, many, NULL, caller_auxv, CALLER_AUXV_COUNT), 0);
    struct walk w = walk_image(&image);
    assert_int_equal(w.argc, 4000);
    check_strings(&image, w.argv, many, 4000);
    free(huge);
    free(many);
    free(image.buffer);
}

static void test_bad_arguments(void **state)
{
    (void)state;
    const char *argv[] = {"x", NULL};
    struct image image;
    image_new(&image, 1024, STACK_TOP + 8); /* stack top not 16-byte aligned */
    assert_int_equal(image_build(&image, argv, NULL, NULL, 0), -EINVAL);
    image.top = STACK_TOP;

    /* The entries the builder adds itself may not come from the caller. */
    static const uint64_t ours[] = {AT_NULL, AT_RANDOM, AT_PLATFORM};
    for (size_t i = 0; i < 3; i++) {
        struct auxv_entry auxv[] = {{AT_PAGESZ, 4096}, {ours[i], 1}};
        assert_int_equal(image_build(&image, argv, NULL, auxv, 2), -EINVAL);
    }
    /* A huge auxv count is refused before the array is read. */
    assert_int_equal(image_build(&image, argv, NULL, caller_auxv, SIZE_MAX / 2), -E2BIG);
    assert_int_equal(image_build(&image, argv, NULL, NULL, 1), -EINVAL);
    assert_int_equal(
        user_stack_build(image.buffer, image.size, STACK_TOP, argv, NULL, NULL, 0, NULL, &image.rsp),
        -EINVAL);
    /* A stack top so low that the image would wrap below address 0. */
    image.top = 64;
    assert_int_equal(image_build(&image, argv, NULL, caller_auxv, CALLER_AUXV_COUNT), -EINVAL);
    for (size_t i = 0; i < image.size; i++)
        assert_int_equal(image.buffer[i], SENTINEL);
    free(image.buffer);
}

/* An unaligned kernel buffer is fine: only user addresses must be aligned. */
static void test_unaligned_buffer(void **state)
{
    (void)state;
    const char *argv[] = {"prog", NULL};
    uint8_t *storage = malloc(1025);
    assert_non_null(storage);
    struct image image = {.buffer = storage + 1, .size = 1024, .top = STACK_TOP};
    memset(image.buffer, SENTINEL, image.size);
    assert_int_equal(image_build(&image, argv, NULL, caller_auxv, CALLER_AUXV_COUNT), 0);
    struct walk w = walk_image(&image);
    check_strings(&image, w.argv, argv, 1);
    check_random_and_platform(&image, &w);
    free(storage);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_walk_like_a_c_runtime),
        cmocka_unit_test(test_strings_are_above_pointers),
        cmocka_unit_test(test_empty_envp),
        cmocka_unit_test(test_empty_everything),
        cmocka_unit_test(test_alignment),
        cmocka_unit_test(test_exact_fit),
        cmocka_unit_test(test_execfn),
        cmocka_unit_test(test_huge_argv),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_unaligned_buffer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
