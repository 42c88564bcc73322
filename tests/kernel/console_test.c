/* ktest=console: the console's line discipline and the memory devices,
 * through the file layer as read() and write() reach them. Input is
 * injected (console_test_inject) rather than typed, and echo is turned off
 * while a case runs so that it does not land in the KTAP output. Needs
 * vfs_init and console_init to have run before ktest_run; skips if not. */
#include "kernel/console/console.h"
#include "kernel/lib/cpumask.h"
#include "kernel/lib/errno.h"
#include "kernel/debug/ktest.h"
#include "kernel/base/percpu.h"
#include "kernel/lib/string.h"
#include "kernel/time/timers.h"
#include "kernel/fs/vfs.h"
#include "sched/task.h"

#define MS 1000000ul

static struct file *open_or_skip(struct ktest *test, const char *path, int flags)
{
    /* Before vfs_init there is no root, and a lookup would fault. */
    if (!vfs_root()) {
        ktest_skip(test, "vfs_init and console_init did not run yet");
        return 0;
    }
    long error;
    struct file *file = vfs_open(path, flags, 0, &error);
    if (!file)
        ktest_skip(test, "no device node: console_init did not run");
    return file;
}

/* Opens the console with echo off (and lflag changed as asked), saving
 * the termios to restore. */
static struct file *open_console(struct ktest *test, int flags, uint32_t clear_lflag,
                                 struct linux_termios *saved)
{
    struct file *file = open_or_skip(test, "/dev/console", flags);
    if (!file)
        return 0;
    console_get_termios(saved);
    struct linux_termios quiet = *saved;
    quiet.c_lflag &= ~(ECHO | clear_lflag);
    console_set_termios(&quiet);
    return file;
}

static void close_console(struct file *file, const struct linux_termios *saved)
{
    console_set_termios(saved);
    vfs_close(file);
}

/* Reads once and compares with the expected bytes. */
static void expect_read(struct ktest *test, struct file *file, const char *expected, long expected_length)
{
    char buffer[64] = {0};
    long got = vfs_read(file, buffer, sizeof(buffer));
    KTEST_EXPECT(test, got == expected_length && memcmp(buffer, expected, (size_t)expected_length) == 0,
                 "read %ld bytes '%.*s', expected %ld '%s'", got, got > 0 ? (int)got : 0, buffer,
                 expected_length, expected);
}

static void defaults_are_linux_console_ones(struct ktest *test)
{
    struct linux_termios termios;
    console_get_termios(&termios);
    KTEST_EXPECT(test, termios.c_lflag & ICANON, "not canonical: lflag %o", termios.c_lflag);
    KTEST_EXPECT(test, termios.c_iflag & ICRNL, "no ICRNL: iflag %o", termios.c_iflag);
    KTEST_EXPECT(test, termios.c_cc[VERASE] == 0x7f && termios.c_cc[VEOF] == 4 && termios.c_cc[VMIN] == 1,
                 "c_cc erase %d eof %d min %d", termios.c_cc[VERASE], termios.c_cc[VEOF], termios.c_cc[VMIN]);
}

static void canonical_lines_are_edited(struct ktest *test)
{
    struct linux_termios saved;
    struct file *file = open_console(test, O_RDWR, 0, &saved);
    if (!file)
        return;
    console_test_inject("ab\x7f"
                        "c\n",
                        5);
    expect_read(test, file, "ac\n", 3);
    console_test_inject("xy\bz\r", 5); /* ^H erases too; CR reads as NL */
    expect_read(test, file, "xz\n", 3);
    console_test_inject("junk\x15ok\n", 8); /* ^U kills the line */
    expect_read(test, file, "ok\n", 3);
    console_test_inject("one two\x17three\n", 14); /* ^W erases a word */
    expect_read(test, file, "one three\n", 10);
    console_test_inject("\x03lost\n", 6); /* ^C flushes (and signals the foreground group) */
    expect_read(test, file, "lost\n", 5);
    close_console(file, &saved);
}

static void canonical_reads_stop_at_line_ends(struct ktest *test)
{
    struct linux_termios saved;
    struct file *file = open_console(test, O_RDWR, 0, &saved);
    if (!file)
        return;
    console_test_inject("first\nsecond\n", 13);
    expect_read(test, file, "first\n", 6);
    char two[2];
    KTEST_EXPECT(test, vfs_read(file, two, 2) == 2 && memcmp(two, "se", 2) == 0, "short read");
    expect_read(test, file, "cond\n", 5);
    console_test_inject("hi\x04", 3); /* ^D ends a line without itself */
    expect_read(test, file, "hi", 2);
    console_test_inject("\x04", 1); /* on an empty line: end of file */
    expect_read(test, file, "", 0);
    close_console(file, &saved);
}

static void nonblocking_read_says_eagain(struct ktest *test)
{
    struct linux_termios saved;
    struct file *file = open_console(test, O_RDWR | O_NONBLOCK, 0, &saved);
    if (!file)
        return;
    console_test_inject("partial", 7); /* no line end yet */
    char buffer[16];
    long got = vfs_read(file, buffer, sizeof(buffer));
    KTEST_EXPECT(test, got == -EAGAIN, "read returned %ld", got);
    console_test_inject("\n", 1);
    expect_read(test, file, "partial\n", 8);
    close_console(file, &saved);
}

static void raw_mode_reads_bytes(struct ktest *test)
{
    struct linux_termios saved;
    struct file *file = open_console(test, O_RDWR, 0, &saved);
    if (!file)
        return;
    console_test_inject("half", 4);
    struct linux_termios raw;
    console_get_termios(&raw);
    raw.c_lflag &= ~ICANON; /* the half line becomes readable */
    raw.c_cc[VMIN] = 1;
    raw.c_cc[VTIME] = 0;
    console_set_termios(&raw);
    expect_read(test, file, "half", 4);
    console_test_inject("\x7f\r", 2); /* no editing; ICRNL still applies */
    char byte;
    KTEST_EXPECT(test, vfs_read(file, &byte, 1) == 1 && byte == 0x7f, "byte %#x", byte);
    KTEST_EXPECT(test, vfs_read(file, &byte, 1) == 1 && byte == '\n', "byte %#x", byte);
    close_console(file, &saved);
}

struct blocked_reader {
    struct file *file;
    char buffer[16];
    volatile long got;
};

static void read_console(void *arg)
{
    struct blocked_reader *reader = arg;
    reader->got = vfs_read(reader->file, reader->buffer, sizeof(reader->buffer));
}

static void read_sleeps_until_a_line_comes(struct ktest *test)
{
    struct linux_termios saved;
    struct file *file = open_console(test, O_RDWR, 0, &saved);
    if (!file)
        return;
    struct blocked_reader reader = {.file = file, .got = -1};
    struct cpumask there = cpumask_of(cpu_count - 1);
    struct task *task = kthread_create("console_reader", read_console, &reader, &there);
    sleep_ns(20 * MS);
    KTEST_EXPECT(test, reader.got == -1, "read returned %ld before any input", reader.got);
    console_test_inject("wake\n", 5);
    kthread_join(task);
    KTEST_EXPECT(test, reader.got == 5 && memcmp(reader.buffer, "wake\n", 5) == 0, "read returned %ld",
                 reader.got);
    close_console(file, &saved);
}

static void zero_reads_zeros(struct ktest *test)
{
    struct file *file = open_or_skip(test, "/dev/zero", O_RDONLY);
    if (!file)
        return;
    char buffer[100];
    memset(buffer, 0xaa, sizeof(buffer));
    KTEST_EXPECT(test, vfs_read(file, buffer, sizeof(buffer)) == sizeof(buffer), "short read");
    for (size_t i = 0; i < sizeof(buffer); i++)
        KTEST_EXPECT(test, buffer[i] == 0, "byte %zu is %#x", i, buffer[i]);
    vfs_close(file);
}

static void null_swallows_and_ends(struct ktest *test)
{
    struct file *file = open_or_skip(test, "/dev/null", O_RDWR);
    if (!file)
        return;
    char buffer[10] = "something";
    KTEST_EXPECT(test, vfs_write(file, buffer, sizeof(buffer)) == sizeof(buffer), "write not swallowed");
    KTEST_EXPECT(test, vfs_read(file, buffer, sizeof(buffer)) == 0, "read is not end of file");
    vfs_close(file);
}

static void urandom_varies(struct ktest *test)
{
    struct file *file = open_or_skip(test, "/dev/urandom", O_RDONLY);
    if (!file)
        return;
    uint64_t first[2] = {0}, second[2] = {0};
    KTEST_EXPECT(test, vfs_read(file, first, 13) == 13, "short read");
    KTEST_EXPECT(test, vfs_read(file, second, 13) == 13, "short read");
    KTEST_EXPECT(test, memcmp(first, second, 13) != 0 && first[0] != 0, "the same bytes twice");
    vfs_close(file);
}

KTEST_SUITE(console, KTEST_CASE(defaults_are_linux_console_ones), KTEST_CASE(canonical_lines_are_edited),
            KTEST_CASE(canonical_reads_stop_at_line_ends), KTEST_CASE(nonblocking_read_says_eagain),
            KTEST_CASE(raw_mode_reads_bytes), KTEST_CASE(read_sleeps_until_a_line_comes),
            KTEST_CASE(zero_reads_zeros), KTEST_CASE(null_swallows_and_ends), KTEST_CASE(urandom_varies));
