/* Directories as Linux x86-64 provides them: reading one while it changes
 * (getdents64 through readdir), and /proc, whose names are the kernel's.
 * A static program that prints KTAP. It runs
 * on nohzk (scenario "dirs") and, unchanged, on the Linux host (tests/run's
 * host-dirs.*), so what it checks is Linux's behaviour.
 *
 * POSIX leaves open only whether a name added or removed during a listing
 * shows up; every other name must come exactly once. The directories here
 * hold more than one getdents64 buffer of names (musl reads 2 KiB at a
 * time, glibc 32 KiB), so a listing takes many calls and a change between
 * two of them is seen. Removing each name as it is read is what nftw(3)
 * with FTW_DEPTH and `rm -r` do; a kernel whose position counts entries
 * skips one name for each removed. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ktap.h"

#define NAMES 1000           /* 64-byte records: 64 KiB of listing */
#define NAME_LENGTH 40

static char directory[64];

/* Name i: fixed width, so that the listing's order (nohzk keeps names
 * sorted) is no help to a buggy position. */
static void name_of(unsigned i, char *out)
{
    snprintf(out, NAME_LENGTH + 1, "%05u-%034u", (i * 7919u) % 100000u, i);
}

static unsigned number_of(const char *name)
{
    return (unsigned)strtoul(name + 6, NULL, 10);
}

static int make_directory(unsigned count)
{
    strcpy(directory, "/tmp/dirs-XXXXXX");
    if (!mkdtemp(directory))
        return 0;
    char path[128], name[NAME_LENGTH + 1];
    for (unsigned i = 0; i < count; i++) {
        name_of(i, name);
        snprintf(path, sizeof(path), "%s/%s", directory, name);
        int fd = open(path, O_CREAT | O_WRONLY | O_EXCL, 0644);
        if (fd < 0)
            return 0;
        close(fd);
    }
    return 1;
}

/* Remove what is left, with a listing read whole before anything goes. */
static int remove_directory(void)
{
    for (int round = 0; round < 8; round++) {
        DIR *listing = opendir(directory);
        if (!listing)
            return 0;
        struct dirent *entry;
        while ((entry = readdir(listing)))
            if (strcmp(entry->d_name, ".") && strcmp(entry->d_name, ".."))
                unlinkat(dirfd(listing), entry->d_name, 0);
        closedir(listing);
        if (rmdir(directory) == 0)
            return 1;
    }
    return 0;
}

/* The names of the files seen, counted: 1 each, or the case fails. */
static int count_name(unsigned char *seen, const char *name)
{
    if (!strcmp(name, ".") || !strcmp(name, ".."))
        return 1;
    if (strlen(name) != NAME_LENGTH)
        return 1;   /* not one of ours: added during the listing */
    unsigned i = number_of(name);
    if (i >= NAMES || seen[i]) {
        printf("# %s seen twice\n", name);
        return 0;
    }
    seen[i] = 1;
    return 1;
}

static int removing_each_name_as_read_skips_none(void)
{
    CHECK(make_directory(NAMES));
    static unsigned char seen[NAMES];
    memset(seen, 0, sizeof(seen));
    DIR *listing = opendir(directory);
    CHECK(listing);
    unsigned removed = 0;
    struct dirent *entry;
    while ((entry = readdir(listing))) {
        CHECK(count_name(seen, entry->d_name));
        if (strcmp(entry->d_name, ".") && strcmp(entry->d_name, "..")) {
            CHECK(unlinkat(dirfd(listing), entry->d_name, 0) == 0);
            removed++;
        }
    }
    closedir(listing);
    if (removed != NAMES)
        printf("# removed %u of %u names: the listing skipped %u\n", removed, NAMES, NAMES - removed);
    int emptied = rmdir(directory) == 0;
    CHECK(remove_directory() || emptied);
    CHECK(removed == NAMES);
    CHECK(emptied);
    return 1;
}

/* Names added during a listing may or may not show; the others, once. */
static int adding_names_repeats_and_skips_none(void)
{
    CHECK(make_directory(NAMES));
    static unsigned char seen[NAMES];
    memset(seen, 0, sizeof(seen));
    DIR *listing = opendir(directory);
    CHECK(listing);
    unsigned found = 0, added = 0;
    struct dirent *entry;
    while ((entry = readdir(listing))) {
        CHECK(count_name(seen, entry->d_name));
        if (strlen(entry->d_name) == NAME_LENGTH) {
            found++;
            char name[16];
            snprintf(name, sizeof(name), "%c-new-%u", found % 2 ? '0' : 'z', found);   /* before and after */
            int fd = openat(dirfd(listing), name, O_CREAT | O_WRONLY, 0644);
            CHECK(fd >= 0);
            close(fd);
            added++;
        }
    }
    closedir(listing);
    int all = found == NAMES;
    if (!all)
        printf("# found %u of %u names\n", found, NAMES);
    CHECK(remove_directory());
    CHECK(all && added == found);
    return 1;
}

/* rewinddir() starts over; telldir()/seekdir() come back to a name. */
static int rewind_and_seek_come_back(void)
{
    CHECK(make_directory(200));
    DIR *listing = opendir(directory);
    CHECK(listing);
    unsigned first = 0, second = 0;
    long middle = -1;
    char at_middle[256] = "";
    struct dirent *entry;
    while ((entry = readdir(listing))) {
        if (++first == 100) {
            middle = telldir(listing);
            entry = readdir(listing);
            CHECK(entry);
            snprintf(at_middle, sizeof(at_middle), "%s", entry->d_name);
            first++;
        }
    }
    rewinddir(listing);
    while (readdir(listing))
        second++;
    seekdir(listing, middle);
    entry = readdir(listing);
    int same = entry && strcmp(entry->d_name, at_middle) == 0;
    closedir(listing);
    CHECK(remove_directory());
    CHECK(first == 202 && second == 202);   /* 200 names, "." and ".." */
    CHECK(same);
    return 1;
}

/* /proc's names are the kernel's: a program can neither add one nor take
 * one away (Linux 6.18's errors). Creating there goes through the open, mkdir, symlink and
 * rename paths; removing through unlink and rmdir. */
static int proc_keeps_its_names(void)
{
    errno = 0;
    CHECK(open("/proc/dirs-test", O_CREAT | O_WRONLY, 0644) == -1 && errno == ENOENT);
    CHECK(mkdir("/proc/dirs-test", 0755) == -1 && errno == ENOENT);
    CHECK(mkdir("/proc/1/dirs-test", 0755) == -1 && errno == ENOENT);
    CHECK(mkdir("/proc/1", 0755) == -1 && errno == EEXIST);
    CHECK(symlink("x", "/proc/dirs-test") == -1 && errno == ENOENT);
    CHECK(unlink("/proc/meminfo") == -1 && errno == EPERM);
    CHECK(rmdir("/proc/1") == -1 && errno == EPERM);
    CHECK(rmdir("/proc") == -1 && errno == EBUSY);     /* a mount point on Linux */
    CHECK(rename("/proc/meminfo", "/proc/dirs-test") == -1 && errno == ENOENT);
    char path[] = "/tmp/dirs-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    int moved = rename(path, "/proc/dirs-test");
    int error = errno;
    unlink(path);
    errno = error;
    CHECK(moved == -1 && errno == EXDEV);
    CHECK(access("/proc/meminfo", R_OK) == 0 && access("/proc/dirs-test", F_OK) == -1);
    return 1;
}

int main(void)
{
    static const struct ktap_case cases[] = {
        KTAP_CASE(removing_each_name_as_read_skips_none),
        KTAP_CASE(adding_names_repeats_and_skips_none),
        KTAP_CASE(rewind_and_seek_come_back),
        KTAP_CASE(proc_keeps_its_names),
    };
    return ktap_main(cases, KTAP_COUNT(cases));
}
