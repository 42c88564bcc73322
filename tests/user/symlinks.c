/* Symbolic links as Linux x86-64 follows them: at most 40 in one lookup
 * (MAXSYMLINKS), counted whether they follow each other, nest inside
 * each other's targets or sit in different components of the path; the
 * 41st is ELOOP. readlink, lstat and O_NOFOLLOW do not follow the last
 * component, a trailing slash does. A static program that prints KTAP; it
 * runs on nohzk (scenario "symlinks") and, unchanged, on the Linux host
 * (tests/run's host-symlinks.*), so what it checks is Linux's behaviour.
 *
 * The last cases are links whose targets are long chains of links
 * ("x/x/x/...", 2,048 components in 4,095 bytes), nested three deep: a
 * walk that bounds only the nesting follows 2,048^3 links for one stat
 * (a kernel that did so froze with its file-system lock held; the
 * scenario's timeout catches that). Linux stops at the 41st. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "ktap.h"

#define LINKS_MAX 40                 /* Linux's MAXSYMLINKS */
#define CHAIN_TARGET_LENGTH 4095     /* PATH_MAX - 1: the longest target */

static char directory[64];

/* name -> target, in the test directory (the working directory). */
static int make_link(const char *target, const char *name)
{
    return symlink(target, name) == 0;
}

/* c0 -> c1 -> ... -> c40 -> file: opening c1 follows 40 links, c0 41. */
static int make_chain(void)
{
    char name[16], target[16];
    for (int i = 0; i <= LINKS_MAX; i++) {
        snprintf(name, sizeof(name), "c%d", i);
        if (i == LINKS_MAX)
            snprintf(target, sizeof(target), "file");
        else
            snprintf(target, sizeof(target), "c%d", i + 1);
        if (!make_link(target, name))
            return 0;
    }
    return 1;
}

/* count times "d/" (d is a link to "."), then tail: count links. */
static void through_dots(char *out, size_t size, int count, const char *tail)
{
    size_t used = 0;
    for (int i = 0; i < count && used + 3 < size; i++)
        used += (size_t)snprintf(out + used, size - used, "d/");
    snprintf(out + used, size - used, "%s", tail);
}

static int errno_of_stat(const char *path)
{
    struct stat st;
    errno = 0;
    return stat(path, &st) == 0 ? 0 : errno;
}

static int errno_of_open(const char *path, int flags)
{
    errno = 0;
    int fd = open(path, flags, 0644);
    if (fd < 0)
        return errno;
    close(fd);
    return 0;
}

static int setup(void)
{
    strcpy(directory, "/tmp/symlinks-XXXXXX");
    if (!mkdtemp(directory) || chdir(directory) != 0)
        return 0;
    int fd = open("file", O_CREAT | O_WRONLY | O_EXCL, 0644);
    if (fd < 0 || write(fd, "end", 3) != 3)
        return 0;
    close(fd);
    return make_chain() && make_link(".", "d") && make_link("self", "self") && make_link("loop_b", "loop_a") &&
           make_link("loop_a", "loop_b") && make_link("nowhere", "dangling");
}

/* Everything in the test directory, then the directory. */
static int clean_up(void)
{
    DIR *listing = opendir(".");
    if (!listing)
        return 0;
    struct dirent *entry;
    while ((entry = readdir(listing)))
        if (strcmp(entry->d_name, ".") && strcmp(entry->d_name, ".."))
            unlink(entry->d_name);
    closedir(listing);
    return chdir("/") == 0 && rmdir(directory) == 0;
}

/* ---- The cases ---- */

static int forty_links_in_a_row_are_followed(void)
{
    char content[8] = { 0 };
    int fd = open("c1", O_RDONLY);
    CHECK(fd >= 0);
    CHECK(read(fd, content, sizeof(content) - 1) == 3);
    close(fd);
    CHECK(strcmp(content, "end") == 0);
    CHECK(errno_of_stat("c1") == 0);
    CHECK(errno_of_stat("c1/") == ENOTDIR);  /* followed to a file */
    return 1;
}

static int the_forty_first_link_is_eloop(void)
{
    CHECK(errno_of_stat("c0") == ELOOP);
    CHECK(errno_of_open("c0", O_RDONLY) == ELOOP);
    CHECK(access("c0", F_OK) == -1 && errno == ELOOP);
    CHECK(chdir("c0") == -1 && errno == ELOOP);
    return 1;
}

static int links_count_across_components(void)
{
    char path[256];
    through_dots(path, sizeof(path), LINKS_MAX, "file");
    CHECK(errno_of_stat(path) == 0);
    through_dots(path, sizeof(path), LINKS_MAX + 1, "file");
    CHECK(errno_of_stat(path) == ELOOP);
    /* 38 dots, then c39 -> c40 -> file: 40; one more dot: 41. */
    through_dots(path, sizeof(path), LINKS_MAX - 2, "c39");
    CHECK(errno_of_stat(path) == 0);
    through_dots(path, sizeof(path), LINKS_MAX - 1, "c39");
    CHECK(errno_of_stat(path) == ELOOP);
    /* Without following the last, the same path names the link. */
    struct stat st;
    CHECK(lstat(path, &st) == 0 && S_ISLNK(st.st_mode));
    return 1;
}

/* A link whose target names links counts them too. */
static int links_count_inside_targets(void)
{
    char target[256];
    through_dots(target, sizeof(target), LINKS_MAX - 1, "file");
    CHECK(make_link(target, "in40"));       /* itself and 39 */
    through_dots(target, sizeof(target), LINKS_MAX, "file");
    CHECK(make_link(target, "in41"));
    CHECK(errno_of_stat("in40") == 0);
    CHECK(errno_of_stat("in41") == ELOOP);
    CHECK(errno_of_stat("d/in40") == ELOOP);    /* one more on the way */
    return 1;
}

/* m1 -> m2/. -> ... -> m40 -> .: each target starts with the next link,
 * so they nest 40 deep (Linux's nesting limit is the same 40). */
static int links_nest_forty_deep(void)
{
    char name[16], target[16];
    for (int i = 0; i <= LINKS_MAX; i++) {
        snprintf(name, sizeof(name), "m%d", i);
        if (i == LINKS_MAX)
            snprintf(target, sizeof(target), ".");
        else
            snprintf(target, sizeof(target), "m%d/.", i + 1);
        CHECK(make_link(target, name));
    }
    struct stat st;
    CHECK(stat("m1", &st) == 0 && S_ISDIR(st.st_mode));
    CHECK(errno_of_stat("m1/file") == 0);
    CHECK(errno_of_stat("m0") == ELOOP);
    return 1;
}

static int loops_are_eloop(void)
{
    CHECK(errno_of_stat("self") == ELOOP);
    CHECK(errno_of_stat("loop_a") == ELOOP);
    CHECK(errno_of_open("self", O_RDONLY) == ELOOP);
    CHECK(errno_of_open("loop_a", O_WRONLY | O_CREAT) == ELOOP);
    CHECK(errno_of_stat("self/file") == ELOOP);
    CHECK(errno_of_stat("dangling") == ENOENT);
    return 1;
}

static int lstat_and_readlink_do_not_follow(void)
{
    struct stat st;
    CHECK(lstat("self", &st) == 0 && S_ISLNK(st.st_mode) && st.st_size == 4);
    CHECK(lstat("c0", &st) == 0 && S_ISLNK(st.st_mode) && st.st_size == 2);
    CHECK(lstat("d/d/c40", &st) == 0 && S_ISLNK(st.st_mode) && st.st_size == 4);
    CHECK(lstat("self/", &st) == -1 && errno == ELOOP);    /* a trailing slash follows */
    CHECK(lstat("d/", &st) == 0 && S_ISDIR(st.st_mode));

    char buffer[16];
    CHECK(readlink("self", buffer, sizeof(buffer)) == 4 && memcmp(buffer, "self", 4) == 0);
    CHECK(readlink("c0", buffer, sizeof(buffer)) == 2 && memcmp(buffer, "c1", 2) == 0);
    CHECK(readlink("d/d/c40", buffer, 2) == 2 && memcmp(buffer, "fi", 2) == 0);  /* cut, no NUL */
    CHECK(readlink("file", buffer, sizeof(buffer)) == -1 && errno == EINVAL);
    CHECK(readlink("d/", buffer, sizeof(buffer)) == -1 && errno == EINVAL);
    CHECK(readlink("self/", buffer, sizeof(buffer)) == -1 && errno == ELOOP);
    CHECK(syscall(SYS_readlink, "c0", buffer, 0) == -1 && errno == EINVAL);   /* musl's readlink() hides it */
    char path[256];
    through_dots(path, sizeof(path), LINKS_MAX + 1, "c0");
    CHECK(readlink(path, buffer, sizeof(buffer)) == -1 && errno == ELOOP);
    return 1;
}

static int o_nofollow_stops_at_the_last_link(void)
{
    CHECK(errno_of_open("c40", O_RDONLY | O_NOFOLLOW) == ELOOP);
    CHECK(errno_of_open("self", O_RDONLY | O_NOFOLLOW) == ELOOP);
    CHECK(errno_of_open("c40", O_WRONLY | O_CREAT | O_NOFOLLOW) == ELOOP);
    CHECK(errno_of_open("d/d/file", O_RDONLY | O_NOFOLLOW) == 0);
    CHECK(errno_of_open("d/", O_RDONLY | O_NOFOLLOW | O_DIRECTORY) == 0);
    CHECK(errno_of_open("file", O_RDONLY | O_NOFOLLOW) == 0);
    return 1;
}

/* open(O_CREAT) counts the links of the directory part and the last one
 * together. */
static int o_creat_counts_every_link(void)
{
    char path[256];
    CHECK(errno_of_open("c1", O_WRONLY | O_CREAT) == 0);
    CHECK(errno_of_open("c0", O_WRONLY | O_CREAT) == ELOOP);
    through_dots(path, sizeof(path), LINKS_MAX - 1, "c40");
    CHECK(errno_of_open(path, O_WRONLY | O_CREAT) == 0);
    through_dots(path, sizeof(path), LINKS_MAX, "c40");
    CHECK(errno_of_open(path, O_WRONLY | O_CREAT) == ELOOP);
    CHECK(errno_of_open("c40", O_WRONLY | O_CREAT | O_EXCL) == EEXIST);
    CHECK(errno_of_open("dangling", O_WRONLY | O_CREAT | O_EXCL) == EEXIST);
    return 1;
}

/* name -> "part/part/.../part": 2,048 components, 4,095 bytes. */
static int make_chain_link(const char *part, const char *name)
{
    static char target[CHAIN_TARGET_LENGTH + 1];
    for (int i = 0; i < CHAIN_TARGET_LENGTH; i++)
        target[i] = i % 2 ? '/' : part[0];
    target[CHAIN_TARGET_LENGTH] = '\0';
    return make_link(target, name);
}

/* x -> ., y -> x/x/.../x, z -> y/y/.../y, w -> z/z/.../z. */
static int targets_full_of_links_are_eloop(void)
{
    CHECK(make_link(".", "x"));
    CHECK(make_chain_link("x", "y"));
    CHECK(make_chain_link("y", "z"));
    CHECK(make_chain_link("z", "w"));
    struct stat st;
    CHECK(lstat("y", &st) == 0 && st.st_size == CHAIN_TARGET_LENGTH);
    CHECK(errno_of_stat("x/x/x/file") == 0);
    CHECK(errno_of_stat("w") == ELOOP);
    CHECK(errno_of_stat("w/file") == ELOOP);
    CHECK(errno_of_stat("z") == ELOOP);
    CHECK(errno_of_stat("y") == ELOOP);
    CHECK(errno_of_open("w", O_RDONLY) == ELOOP);
    CHECK(errno_of_open("w", O_WRONLY | O_CREAT) == ELOOP);
    CHECK(chdir("w") == -1 && errno == ELOOP);
    return 1;
}

/* big/L -> zzz/../zzz/../... (585 lookups of zzz in big, 4,095 bytes),
 * big/zzz the directory sorting last among BIG_NAMES files: 40 times L
 * is 23,400 lookups in big, about 6 s under QEMU with each a search
 * of the directory's list, all with the file-system lock held. */
#define BIG_NAMES 4000
#define BIG_LOOKUPS 40

static int lookups_in_a_big_directory(void)
{
    char name[32];
    CHECK(mkdir("big", 0755) == 0 && mkdir("big/zzz", 0755) == 0);
    for (int i = 0; i < BIG_NAMES; i++) {
        snprintf(name, sizeof(name), "big/f%05d", i);
        int fd = open(name, O_CREAT | O_WRONLY | O_EXCL, 0644);
        CHECK(fd >= 0);
        close(fd);
    }
    static char target[CHAIN_TARGET_LENGTH + 1], path[256];
    size_t used = 0;
    while (used + 7 <= CHAIN_TARGET_LENGTH - 3) {
        memcpy(target + used, "zzz/../", 7);
        used += 7;
    }
    memcpy(target + used, "zzz", 4);
    CHECK(make_link(target, "big/L"));
    used = (size_t)snprintf(path, sizeof(path), "big/");
    for (int i = 0; i < LINKS_MAX; i++)
        used += (size_t)snprintf(path + used, sizeof(path) - used, "L/../");
    snprintf(path + used, sizeof(path) - used, "f%05d", BIG_NAMES - 1);
    struct stat st;
    for (int i = 0; i < BIG_LOOKUPS; i++)
        CHECK(stat(path, &st) == 0 && S_ISREG(st.st_mode));
    for (int i = 0; i < BIG_NAMES; i++) {
        snprintf(name, sizeof(name), "big/f%05d", i);
        CHECK(unlink(name) == 0);
    }
    CHECK(unlink("big/L") == 0 && rmdir("big/zzz") == 0 && rmdir("big") == 0);
    return 1;
}

static int cleans_up(void)
{
    CHECK(clean_up());
    return 1;
}

int main(void)
{
    static const struct ktap_case cases[] = {
        KTAP_CASE(forty_links_in_a_row_are_followed),
        KTAP_CASE(the_forty_first_link_is_eloop),
        KTAP_CASE(links_count_across_components),
        KTAP_CASE(links_count_inside_targets),
        KTAP_CASE(links_nest_forty_deep),
        KTAP_CASE(loops_are_eloop),
        KTAP_CASE(lstat_and_readlink_do_not_follow),
        KTAP_CASE(o_nofollow_stops_at_the_last_link),
        KTAP_CASE(o_creat_counts_every_link),
        KTAP_CASE(targets_full_of_links_are_eloop),
        KTAP_CASE(lookups_in_a_big_directory),
        KTAP_CASE(cleans_up),
    };
    if (!setup()) {
        printf("# symlinks: cannot set up %s (errno %d)\n", directory, errno);
        clean_up();
        return 1;
    }
    return ktap_main(cases, KTAP_COUNT(cases));
}
