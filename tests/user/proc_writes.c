/* proc_writes: every writable /proc file takes a write whole or refuses
 * it whole (docs/architecture.md, "/proc"). For each file: a write longer
 * than a page (5000 bytes, 1 MiB) or empty is EINVAL, a
 * buffer in the kernel half, non-canonical, unmapped or running into a
 * hole is EFAULT, and none of them changes what the file shows; a valid
 * write returns its whole count and takes effect; writev's pieces make
 * one write (a value split in two is taken). The long writes start
 * with a valid value followed by blanks, so that a kernel that hands the
 * file the first page alone takes that value.
 *
 * The files are nohzk's (tick_policy, trace, rcustress, nohz): on the
 * Linux host (tests/run: host-proc_writes.*) they are missing and the
 * cases skip. Scenarios proc-writes, proc-writes-glibc. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <sys/uio.h>
#include <stdlib.h>

#include "conform.h"
#include "ktap.h"
#include "testlib.h"

#define LONG_WRITE  5000
#define HUGE_WRITE  (1 << 20)

/* A writable file: how to read its state, and two values to write. */
struct writable {
    const char *path;
    const char *state_path;     /* where the effect shows */
    const char *(*value)(const char *state);  /* a valid value that changes the state */
};

static char other_value[64];

static const char *other_policy(const char *state)
{
    snprintf(other_value, sizeof(other_value), "%s\n", strncmp(state, "periodic", 8) ? "periodic" : "idle");
    return other_value;
}

static const char *other_classes(const char *state)
{
    snprintf(other_value, sizeof(other_value), "%s\n",
             strstr(state, "classes none,") ? "classes irq" : "classes none");
    return other_value;
}

static const char *one_second(const char *state)
{
    (void)state;
    return "1\n";
}

static const char *nohz_on(const char *state)
{
    (void)state;
    return "1\n";
}

static const struct writable tick_policy = { "/proc/sys/kernel/tick_policy", "/proc/sys/kernel/tick_policy",
                                             other_policy };
static const struct writable trace = { "/proc/trace", "/proc/trace", other_classes };
static const struct writable rcustress = { "/proc/rcustress", "/proc/rcustress", one_second };
static const struct writable nohz = { "/proc/self/nohz", "/proc/self/nohz", nohz_on };

/* The first line of path (its state: policy, trace classes, last torture
 * result's first line, nohz flag) into buffer; 0 if it cannot be read. */
static int read_state(const char *path, char *buffer, size_t size)
{
    FILE *file = fopen(path, "r");
    if (!file)
        return 0;
    int ok = fgets(buffer, (int)size, file) != NULL;
    fclose(file);
    return ok;
}

/* 1 if the file is there to test; else the case skips (Linux host). */
static int present(const struct writable *file)
{
    if (access(file->path, W_OK) == 0)
        return 1;
    ktap_skip_reason = "no such file here (not nohzk)";
    printf("# skipped: %s: %s\n", file->path, strerror(errno));
    return 0;
}

/* Writes count bytes at buffer to the file in one write(2); the result
 * and errno in *saved_errno; the state before and after must be equal
 * (the caller checks the result). */
static long write_once(const struct writable *file, const void *buffer, size_t count, int *saved_errno,
                       int *unchanged)
{
    char before[256] = "", after[256] = "";
    read_state(file->state_path, before, sizeof(before));
    int fd = open(file->path, O_WRONLY);
    if (fd < 0) {
        *saved_errno = errno;
        return -2;
    }
    errno = 0;
    long result = write(fd, buffer, count);
    *saved_errno = errno;
    close(fd);
    read_state(file->state_path, after, sizeof(after));
    *unchanged = strcmp(before, after) == 0;
    if (!*unchanged)
        printf("# %s: state was \"%.*s\", now \"%.*s\"\n", file->path, (int)strcspn(before, "\n"), before,
               (int)strcspn(after, "\n"), after);
    return result;
}

/* A valid value followed by blanks, length bytes in all. */
static char *padded_value(const struct writable *file, size_t length)
{
    char state[256] = "";
    read_state(file->state_path, state, sizeof(state));
    const char *value = file->value(state);
    char *buffer = malloc(length);
    if (!buffer)
        exit(2);
    memset(buffer, ' ', length);
    memcpy(buffer, value, strlen(value) - 1);       /* without its LF */
    return buffer;
}

static int too_long(const struct writable *file, size_t length)
{
    if (!present(file))
        return 1;
    char *buffer = padded_value(file, length);
    int saved_errno, unchanged;
    long result = write_once(file, buffer, length, &saved_errno, &unchanged);
    free(buffer);
    EXPECT_SAVED_ERROR(result, saved_errno, EINVAL);
    EXPECT(unchanged);
    return 1;
}

static int zero_length(const struct writable *file)
{
    if (!present(file))
        return 1;
    int saved_errno, unchanged;
    long result = write_once(file, "", 0, &saved_errno, &unchanged);
    EXPECT_SAVED_ERROR(result, saved_errno, EINVAL);
    EXPECT(unchanged);
    return 1;
}

static int bad_buffer(const struct writable *file, const void *buffer)
{
    if (!present(file))
        return 1;
    int saved_errno, unchanged;
    long result = write_once(file, buffer, 2, &saved_errno, &unchanged);
    EXPECT_SAVED_ERROR(result, saved_errno, EFAULT);
    EXPECT(unchanged);
    return 1;
}

/* A valid value at the end of a page, the count running 64 bytes into
 * the unmapped page after it: EFAULT, not the readable part. */
static int into_hole(const struct writable *file)
{
    if (!present(file))
        return 1;
    char state[256] = "";
    read_state(file->state_path, state, sizeof(state));
    const char *value = file->value(state);
    char *page = page_before_hole(PROT_READ | PROT_WRITE);
    size_t length = strlen(value);
    char *start = page + PAGE - length;
    memcpy(start, value, length);
    int saved_errno, unchanged;
    long result = write_once(file, start, length + 64, &saved_errno, &unchanged);
    hole_free(page);
    EXPECT_SAVED_ERROR(result, saved_errno, EFAULT);
    EXPECT(unchanged);
    return 1;
}

/* A valid write: its whole count, and the state changes. */
static int valid(const struct writable *file)
{
    if (!present(file))
        return 1;
    char state[256] = "";
    read_state(file->state_path, state, sizeof(state));
    char value[64];
    snprintf(value, sizeof(value), "%s", file->value(state));
    int saved_errno, unchanged;
    long result = write_once(file, value, strlen(value), &saved_errno, &unchanged);
    EXPECT_VALUE(result, (long)strlen(value));
    if (file != &rcustress)     /* a second run may print the same first line */
        EXPECT(!unchanged);
    return 1;
}

/* writev: the pieces are one write. A valid value split in two is taken
 * (once); a valid value followed by a piece of 5000 blanks is refused,
 * the value too. */
static int writev_once(const struct writable *file, struct iovec *pieces, int count, int *saved_errno,
                       int *unchanged)
{
    char before[256] = "", after[256] = "";
    read_state(file->state_path, before, sizeof(before));
    int fd = open(file->path, O_WRONLY);
    errno = 0;
    long result = fd < 0 ? -2 : writev(fd, pieces, count);
    *saved_errno = errno;
    if (fd >= 0)
        close(fd);
    read_state(file->state_path, after, sizeof(after));
    *unchanged = strcmp(before, after) == 0;
    return result;
}

static int writev_split_value(const struct writable *file)
{
    if (!present(file))
        return 1;
    char state[256] = "", value[64];
    read_state(file->state_path, state, sizeof(state));
    snprintf(value, sizeof(value), "%s", file->value(state));
    size_t length = strlen(value);
    struct iovec pieces[2] = { { value, 1 }, { value + 1, length - 1 } };
    int saved_errno, unchanged;
    long result = writev_once(file, pieces, 2, &saved_errno, &unchanged);
    EXPECT_VALUE(result, (long)length);
    if (file != &rcustress)
        EXPECT(!unchanged);
    return 1;
}

static int writev_too_long(const struct writable *file)
{
    if (!present(file))
        return 1;
    char state[256] = "", value[64];
    read_state(file->state_path, state, sizeof(state));
    snprintf(value, sizeof(value), "%s", file->value(state));
    char *blanks = malloc(LONG_WRITE);
    if (!blanks)
        exit(2);
    memset(blanks, ' ', LONG_WRITE);
    struct iovec pieces[2] = { { value, strlen(value) - 1 }, { blanks, LONG_WRITE } };
    int saved_errno, unchanged;
    long result = writev_once(file, pieces, 2, &saved_errno, &unchanged);
    free(blanks);
    EXPECT_SAVED_ERROR(result, saved_errno, EINVAL);
    EXPECT(unchanged);
    return 1;
}

/* tick_policy and trace are global: put back what was there. */
static char saved_policy[64], saved_classes[128];

static void restore(void)
{
    int fd;
    if (saved_policy[0] && (fd = open(tick_policy.path, O_WRONLY)) >= 0) {
        if (write(fd, saved_policy, strlen(saved_policy)) < 0)
            printf("# cannot restore the tick policy (errno %d)\n", errno);
        close(fd);
    }
    if (saved_classes[0] && (fd = open(trace.path, O_WRONLY)) >= 0) {
        if (write(fd, saved_classes, strlen(saved_classes)) < 0)
            printf("# cannot restore the trace classes (errno %d)\n", errno);
        close(fd);
    }
}

/* /proc/self/nohz: each case in a child pinned to the last CPU, where it
 * may be a nohz task; the child's exit code says pass, fail or skip. */
static int in_pinned_child(int (*run)(void))
{
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET((int)sysconf(_SC_NPROCESSORS_ONLN) - 1, &set);
        if (sched_setaffinity(0, sizeof(set), &set) != 0)
            _exit(3);
        int ok = run();
        fflush(stdout);
        _exit(ktap_skip_reason ? 4 : ok ? 0 : 1);
    }
    int status = exit_status_of(child);
    if (status == 4)
        ktap_skip_reason = "no such file here (not nohzk)";
    return status == 0 || status == 4;
}

#define CASES_FOR(file)                                                                                      \
    static int file##_5000_bytes(void) { return too_long(&file, LONG_WRITE); }                              \
    static int file##_1_mib(void) { return too_long(&file, HUGE_WRITE); }                                   \
    static int file##_zero_length(void) { return zero_length(&file); }                                      \
    static int file##_kernel_address(void) { return bad_buffer(&file, (const void *)KERNEL_ADDRESS); }     \
    static int file##_non_canonical(void) { return bad_buffer(&file, (const void *)NON_CANONICAL_LOW); }   \
    static int file##_unmapped(void) { return bad_buffer(&file, unmapped_page()); }                         \
    static int file##_into_hole(void) { return into_hole(&file); }                                          \
    static int file##_valid(void) { return valid(&file); }                                                  \
    static int file##_writev_split_value(void) { return writev_split_value(&file); }                        \
    static int file##_writev_too_long(void) { return writev_too_long(&file); }

#define PINNED(name) static int name##_pinned(void) { return in_pinned_child(name); }

CASES_FOR(tick_policy)
CASES_FOR(trace)
CASES_FOR(rcustress)
CASES_FOR(nohz)
PINNED(nohz_5000_bytes)
PINNED(nohz_1_mib)
PINNED(nohz_zero_length)
PINNED(nohz_kernel_address)
PINNED(nohz_non_canonical)
PINNED(nohz_unmapped)
PINNED(nohz_into_hole)
PINNED(nohz_valid)
PINNED(nohz_writev_split_value)
PINNED(nohz_writev_too_long)

#define KTAP_CASES_FOR(file)                                                                             \
    KTAP_CASE(file##_5000_bytes), KTAP_CASE(file##_1_mib), KTAP_CASE(file##_zero_length),                 \
        KTAP_CASE(file##_kernel_address), KTAP_CASE(file##_non_canonical), KTAP_CASE(file##_unmapped),    \
        KTAP_CASE(file##_into_hole), KTAP_CASE(file##_valid), KTAP_CASE(file##_writev_split_value),          \
        KTAP_CASE(file##_writev_too_long)

int main(void)
{
    static const struct ktap_case cases[] = {
        KTAP_CASES_FOR(tick_policy),
        KTAP_CASES_FOR(trace),
        KTAP_CASES_FOR(rcustress),
        { "nohz_5000_bytes", nohz_5000_bytes_pinned },
        { "nohz_1_mib", nohz_1_mib_pinned },
        { "nohz_zero_length", nohz_zero_length_pinned },
        { "nohz_kernel_address", nohz_kernel_address_pinned },
        { "nohz_non_canonical", nohz_non_canonical_pinned },
        { "nohz_unmapped", nohz_unmapped_pinned },
        { "nohz_into_hole", nohz_into_hole_pinned },
        { "nohz_valid", nohz_valid_pinned },
        { "nohz_writev_split_value", nohz_writev_split_value_pinned },
        { "nohz_writev_too_long", nohz_writev_too_long_pinned },
    };
    read_state(tick_policy.path, saved_policy, sizeof(saved_policy));
    char classes[256] = "";
    const char *list = read_state(trace.path, classes, sizeof(classes)) ? strstr(classes, "classes ") : NULL;
    const char *end = list ? strstr(list, ", ") : NULL;
    if (end)    /* "# nohzk trace: classes irq,tick, 4096 events per cpu" */
        snprintf(saved_classes, sizeof(saved_classes), "%.*s\n", (int)(end - list), list);
    int status = conform_main(cases, KTAP_COUNT(cases));
    restore();
    return status;
}
