/* Host unit tests of kernel/fs/cpio.c: archives built here field by field,
 * one written by the host's `cpio -o -H newc`, every truncation of them,
 * and headers broken one field at a time. Each archive under test lives in
 * a buffer of exactly its length, so AddressSanitizer catches a read one
 * byte past the end. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "kernel/fs/cpio.h"
#include "kernel/lib/errno.h"
#include "cpio_archive.h"

static struct archive sample_archive(void)
{
    struct archive archive = {0};
    archive_add_entry(&archive, "bin", S_IFDIR | 0755, NULL, 1, 0);
    archive_add_entry(&archive, "bin/busybox", S_IFREG | 0755, "ELF pretend", 2, 0);
    archive_add_entry(&archive, "bin/sh", S_IFLNK | 0777, "busybox", 3, 0);
    archive_add_entry(&archive, "etc/a", S_IFREG | 0644, "abc", 4, 0); /* 3 bytes: padded */
    archive_add_entry(&archive, "TRAILER!!!", 0, NULL, 0, 0);
    return archive;
}

/* A copy in a buffer of exactly length bytes (malloc(0) may be NULL). */
static void *exact_copy(const void *bytes, size_t length)
{
    void *copy = malloc(length ? length : 1);
    assert_non_null(copy);
    memcpy(copy, bytes, length);
    return copy;
}

/* Walk a whole archive: the number of entries, or the error. */
static int count_entries(const void *bytes, size_t length)
{
    size_t offset = 0;
    struct cpio_entry entry;
    for (int count = 0;; count++) {
        int result = cpio_next(bytes, length, &offset, &entry);
        if (result <= 0)
            return result < 0 ? result : count;
        assert_true(offset <= length);
        assert_true(count < 1000);
    }
}

static void reads_every_field(void **state)
{
    (void)state;
    struct archive archive = sample_archive();
    size_t offset = 0;
    struct cpio_entry entry;

    assert_int_equal(cpio_next(archive.bytes, archive.length, &offset, &entry), 1);
    assert_int_equal(entry.name_length, 3);
    assert_memory_equal(entry.name, "bin", 4);
    assert_int_equal(entry.mode, S_IFDIR | 0755);
    assert_int_equal(entry.ino, 1);
    assert_int_equal(entry.nlink, 1);
    assert_int_equal(entry.size, 0);
    assert_int_equal(offset % 4, 0);

    assert_int_equal(cpio_next(archive.bytes, archive.length, &offset, &entry), 1);
    assert_string_equal(entry.name, "bin/busybox");
    assert_int_equal(entry.size, 11);
    assert_memory_equal(entry.data, "ELF pretend", 11);

    assert_int_equal(cpio_next(archive.bytes, archive.length, &offset, &entry), 1);
    assert_string_equal(entry.name, "bin/sh");
    assert_int_equal(entry.mode & S_IFMT, S_IFLNK);
    assert_memory_equal(entry.data, "busybox", 7);

    assert_int_equal(cpio_next(archive.bytes, archive.length, &offset, &entry), 1);
    assert_string_equal(entry.name, "etc/a");
    assert_memory_equal(entry.data, "abc", 3);

    assert_int_equal(cpio_next(archive.bytes, archive.length, &offset, &entry), 0);
    assert_int_equal(offset, archive.length);
    free(archive.bytes);
}

/* Every proper prefix is an archive without its trailer: an error, never
 * an end, never a read past the prefix. */
static void every_truncation_is_an_error(void **state)
{
    (void)state;
    struct archive archive = sample_archive();
    assert_int_equal(count_entries(archive.bytes, archive.length), 4);
    /* The trailer's own final padding is optional; stop before it. */
    for (size_t length = 0; length < archive.length - 3; length++) {
        void *prefix = exact_copy(archive.bytes, length);
        assert_int_equal(count_entries(prefix, length), -EINVAL);
        free(prefix);
    }
    free(archive.bytes);
}

static void trailer_without_final_padding(void **state)
{
    (void)state;
    struct archive archive = sample_archive();
    /* The trailer: 110 + 11 bytes of name, padded to 124. */
    unsigned char *copy = exact_copy(archive.bytes, archive.length - 3);
    assert_int_equal(count_entries(copy, archive.length - 3), 4);
    free(copy);
    free(archive.bytes);
}

/* Overwrite bytes of the first header and parse again. */
static int parse_with_bytes(size_t at, const char *replacement, size_t length)
{
    struct archive archive = sample_archive();
    memcpy(archive.bytes + at, replacement, length);
    void *copy = exact_copy(archive.bytes, archive.length);
    int result = count_entries(copy, archive.length);
    free(copy);
    free(archive.bytes);
    return result;
}

static int parse_with(size_t at, const char *replacement)
{
    return parse_with_bytes(at, replacement, strlen(replacement));
}

#define FIELD_AT(index) (6 + 8 * (index))
enum { MODE = 1, FILESIZE = 6, NAMESIZE = 11 };

static void rejects_bad_headers(void **state)
{
    (void)state;
    assert_int_equal(parse_with(0, "070707"), -EINVAL); /* odc, not newc */
    assert_int_equal(parse_with(0, "x70701"), -EINVAL);
    assert_int_equal(parse_with(FIELD_AT(MODE), "0000g1ED"), -EINVAL);
    assert_int_equal(parse_with(FIELD_AT(MODE), " 00041ED"), -EINVAL);
    assert_int_equal(parse_with(FIELD_AT(MODE), "+00041ED"), -EINVAL);
    assert_int_equal(parse_with(FIELD_AT(MODE), "-00041ED"), -EINVAL);
    assert_int_equal(parse_with(FIELD_AT(FILESIZE), "FFFFFFFF"), -EINVAL);
    assert_int_equal(parse_with(FIELD_AT(FILESIZE), "00010000"), -EINVAL);
    assert_int_equal(parse_with(FIELD_AT(NAMESIZE), "00000000"), -EINVAL);
    assert_int_equal(parse_with(FIELD_AT(NAMESIZE), "FFFFFFFF"), -EINVAL);
    assert_int_equal(parse_with(FIELD_AT(NAMESIZE), "00001001"), -EINVAL); /* > PATH_MAX */
    /* "bin\0" announced as 3 bytes: the name has no NUL. */
    assert_int_equal(parse_with(FIELD_AT(NAMESIZE), "00000003"), -EINVAL);
    /* A NUL inside the name. */
    assert_int_equal(parse_with_bytes(CPIO_HEADER_SIZE + 1, "", 1), -EINVAL);
}

static void accepts_variants(void **state)
{
    (void)state;
    assert_int_equal(parse_with(0, "070702"), 4);                /* crc variant */
    assert_int_equal(parse_with(FIELD_AT(MODE), "000041ed"), 4); /* lower case */
}

static void rejects_bad_offsets(void **state)
{
    (void)state;
    struct archive archive = sample_archive();
    struct cpio_entry entry;
    size_t offset = archive.length + 1;
    assert_int_equal(cpio_next(archive.bytes, archive.length, &offset, &entry), -EINVAL);
    offset = SIZE_MAX;
    assert_int_equal(cpio_next(archive.bytes, archive.length, &offset, &entry), -EINVAL);
    offset = 0;
    assert_int_equal(cpio_next(archive.bytes, 0, &offset, &entry), -EINVAL);
    free(archive.bytes);
}

/* Single-byte corruptions anywhere: any result is fine, but no crash, no
 * read out of bounds, and the offset only moves forward within bounds. */
static void survives_corruption(void **state)
{
    (void)state;
    struct archive archive = sample_archive();
    static const unsigned char values[] = {0, '0', '7', 'F', 0xff, '\n'};
    for (size_t at = 0; at < archive.length; at++) {
        for (size_t v = 0; v < sizeof(values); v++) {
            unsigned char *copy = exact_copy(archive.bytes, archive.length);
            copy[at] = values[v];
            int result = count_entries(copy, archive.length);
            assert_true(result == -EINVAL || (result >= 0 && result <= 4));
            free(copy);
        }
    }
    free(archive.bytes);
}

/* An archive written by the host's cpio(1) from a small tree. */
static void reads_real_cpio_archive(void **state)
{
    (void)state;
    char directory[] = "/tmp/test_cpio.XXXXXX";
    assert_non_null(mkdtemp(directory));
    char command[1024];
    snprintf(command, sizeof(command),
             "cd %s && mkdir sub && printf 'hello, world\\n' > sub/hello && : > empty && "
             "ln -s sub/hello link && chmod 640 sub/hello && "
             "printf 'sub\\nsub/hello\\nempty\\nlink\\n' | cpio -o -H newc --quiet > ../%s.cpio",
             directory, directory + 5);
    if (system(command) != 0) {
        skip(); /* no cpio on this host */
    }
    char archive_path[64];
    snprintf(archive_path, sizeof(archive_path), "%s.cpio", directory);
    FILE *file = fopen(archive_path, "rb");
    assert_non_null(file);
    unsigned char buffer[4096];
    size_t length = fread(buffer, 1, sizeof(buffer), file);
    fclose(file);
    void *bytes = exact_copy(buffer, length);

    size_t offset = 0;
    struct cpio_entry entry;
    int seen = 0;
    while (cpio_next(bytes, length, &offset, &entry) == 1) {
        if (strcmp(entry.name, "sub") == 0) {
            assert_int_equal(entry.mode & S_IFMT, S_IFDIR);
        } else if (strcmp(entry.name, "sub/hello") == 0) {
            assert_int_equal(entry.mode, S_IFREG | 0640);
            assert_int_equal(entry.size, 13);
            assert_memory_equal(entry.data, "hello, world\n", 13);
        } else if (strcmp(entry.name, "empty") == 0) {
            assert_int_equal(entry.mode & S_IFMT, S_IFREG);
            assert_int_equal(entry.size, 0);
        } else if (strcmp(entry.name, "link") == 0) {
            assert_int_equal(entry.mode & S_IFMT, S_IFLNK);
            assert_int_equal(entry.size, 9);
            assert_memory_equal(entry.data, "sub/hello", 9);
        } else {
            fail_msg("unexpected entry %s", entry.name);
        }
        seen++;
    }
    assert_int_equal(seen, 4);
    /* cpio pads archives to 512-byte blocks with zeroes after the trailer. */
    assert_true(offset <= length);
    for (size_t cut = 0; cut < offset - 3; cut++) {
        void *prefix = exact_copy(bytes, cut);
        assert_int_equal(count_entries(prefix, cut), -EINVAL);
        free(prefix);
    }
    free(bytes);
    snprintf(command, sizeof(command), "rm -rf %s %s", directory, archive_path);
    assert_int_equal(system(command), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reads_every_field),
        cmocka_unit_test(every_truncation_is_an_error),
        cmocka_unit_test(trailer_without_final_padding),
        cmocka_unit_test(rejects_bad_headers),
        cmocka_unit_test(accepts_variants),
        cmocka_unit_test(rejects_bad_offsets),
        cmocka_unit_test(survives_corruption),
        cmocka_unit_test(reads_real_cpio_archive),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
