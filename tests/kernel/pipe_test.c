/* ktest=pipe: pipes through the file layer, as read() and write() reach
 * them, without user space: pipe_create gives the two open files that
 * sys_pipe2 would install. Then /proc/interrupts through vfs_open/vfs_read
 * (skipped until procfs_init runs at boot). */
#include <stdint.h>

#include "kernel/lib/errno.h"
#include "kernel/lib/format.h"
#include "kernel/mm/heap.h"
#include "kernel/debug/ktest.h"
#include "kernel/base/percpu.h"
#include "kernel/lib/string.h"
#include "kernel/time/timers.h"
#include "kernel/fs/vfs.h"
#include "sched/task.h"

#define MS            1000000ul
#define TRANSFER_SIZE (1ul << 20)
#define PIECE_MAX     3000 /* not a divisor of the ring size: pieces wrap */

static uint8_t pattern_byte(uint64_t i)
{
    return (uint8_t)(i * 131 + (i >> 12));
}

/* FNV-1a, carried across pieces. */
static uint64_t checksum(uint64_t hash, const uint8_t *data, size_t length)
{
    for (size_t i = 0; i < length; i++)
        hash = (hash ^ data[i]) * 0x100000001b3ull;
    return hash;
}

#define FNV_START 0xcbf29ce484222325ull

/* Two CPUs that differ when there are two. */
static unsigned other_cpu(unsigned cpu)
{
    unsigned last = 0, candidate;
    for_each_online_cpu(candidate) {
        if (candidate != cpu)
            return candidate;
        last = candidate;
    }
    return last;
}

struct transfer {
    struct file *end;
    uint64_t hash;
    uint64_t bytes;
    long error;
    unsigned cpu; /* where it ran */
    unsigned pieces;
};

static void writer_thread(void *arg)
{
    struct transfer *t = arg;
    uint8_t *buffer = kmalloc(PIECE_MAX);
    t->cpu = this_cpu_id();
    size_t piece = 1;
    while (buffer && t->bytes < TRANSFER_SIZE) {
        piece = piece * 7 % PIECE_MAX + 1; /* 1 .. PIECE_MAX, varying */
        if (piece > TRANSFER_SIZE - t->bytes)
            piece = TRANSFER_SIZE - t->bytes;
        for (size_t i = 0; i < piece; i++)
            buffer[i] = pattern_byte(t->bytes + i);
        long written = vfs_write(t->end, buffer, piece);
        if (written != (long)piece) {
            t->error = written < 0 ? written : -EIO;
            break;
        }
        t->hash = checksum(t->hash, buffer, piece);
        t->bytes += piece;
        t->pieces++;
    }
    kfree(buffer);
    vfs_close(t->end); /* the reader sees EOF */
}

static void reader_thread(void *arg)
{
    struct transfer *t = arg;
    uint8_t *buffer = kmalloc(PIECE_MAX);
    t->cpu = this_cpu_id();
    size_t piece = 5;
    while (buffer) {
        piece = piece * 13 % PIECE_MAX + 1;
        long got = vfs_read(t->end, buffer, piece);
        if (got <= 0) {
            t->error = got;
            break;
        }
        for (long i = 0; i < got; i++) {
            if (buffer[i] != pattern_byte(t->bytes + (uint64_t)i) && t->error == 0)
                t->error = -EIO; /* out of order or corrupted */
        }
        t->hash = checksum(t->hash, buffer, (size_t)got);
        t->bytes += (uint64_t)got;
        t->pieces++;
    }
    kfree(buffer);
    vfs_close(t->end);
}

static void transfers_one_mib_across_cpus(struct ktest *test)
{
    struct file *read_end, *write_end;
    KTEST_EXPECT(test, pipe_create(&read_end, &write_end, 0) == 0, "pipe_create failed");
    struct transfer writer = { .end = write_end, .hash = FNV_START };
    struct transfer reader = { .end = read_end, .hash = FNV_START };
    unsigned writer_cpu = other_cpu(this_cpu_id());
    unsigned reader_cpu = other_cpu(writer_cpu);
    struct cpumask on_writer_cpu = cpumask_of(writer_cpu), on_reader_cpu = cpumask_of(reader_cpu);
    struct task *r = kthread_create("pipe-reader", reader_thread, &reader, &on_reader_cpu);
    struct task *w = kthread_create("pipe-writer", writer_thread, &writer, &on_writer_cpu);
    kthread_join(w);
    kthread_join(r);
    KTEST_EXPECT(test, writer.error == 0 && writer.bytes == TRANSFER_SIZE, "writer: error %ld after %llu bytes",
                 writer.error, (unsigned long long)writer.bytes);
    KTEST_EXPECT(test, reader.error == 0, "reader ended with %ld (0 is EOF; -EIO is a wrong byte)", reader.error);
    KTEST_EXPECT(test, reader.bytes == TRANSFER_SIZE && reader.hash == writer.hash,
                 "read %llu bytes, checksum %llx, written checksum %llx", (unsigned long long)reader.bytes,
                 (unsigned long long)reader.hash, (unsigned long long)writer.hash);
    ktest_log(test, "writer on cpu %u (%u writes), reader on cpu %u (%u reads)", writer.cpu, writer.pieces,
              reader.cpu, reader.pieces);
}

static void reads_eof_after_the_writer_closes(struct ktest *test)
{
    struct file *read_end, *write_end;
    KTEST_EXPECT(test, pipe_create(&read_end, &write_end, 0) == 0, "pipe_create failed");
    KTEST_EXPECT(test, vfs_write(write_end, "abc", 3) == 3, "write failed");
    vfs_close(write_end);
    char buffer[8] = {0};
    long got = vfs_read(read_end, buffer, sizeof(buffer));
    KTEST_EXPECT(test, got == 3 && memcmp(buffer, "abc", 3) == 0, "read %ld, expected the 3 bytes left", got);
    KTEST_EXPECT(test, vfs_read(read_end, buffer, sizeof(buffer)) == 0, "no EOF once drained");
    vfs_close(read_end);
}

/* A reader asleep on an empty pipe must wake up when the writer closes. */
static void sleeping_reader_sees_eof_on_close(struct ktest *test)
{
    struct file *read_end, *write_end;
    KTEST_EXPECT(test, pipe_create(&read_end, &write_end, 0) == 0, "pipe_create failed");
    struct transfer reader = { .end = read_end, .hash = FNV_START, .error = 1 };
    struct cpumask elsewhere = cpumask_of(other_cpu(this_cpu_id()));
    struct task *r = kthread_create("pipe-reader", reader_thread, &reader, &elsewhere);
    sleep_ns(20 * MS); /* let it block */
    vfs_close(write_end);
    kthread_join(r);
    KTEST_EXPECT(test, reader.error == 0 && reader.bytes == 0, "reader got %ld after %llu bytes, expected EOF",
                 reader.error, (unsigned long long)reader.bytes);
}

static void write_fails_with_epipe_without_reader(struct ktest *test)
{
    struct file *read_end, *write_end;
    KTEST_EXPECT(test, pipe_create(&read_end, &write_end, 0) == 0, "pipe_create failed");
    vfs_close(read_end);
    long written = vfs_write(write_end, "x", 1);
    KTEST_EXPECT(test, written == -EPIPE, "write returned %ld, expected -EPIPE", written);
    vfs_close(write_end);
}

static void nonblocking_full_and_empty_give_eagain(struct ktest *test)
{
    struct file *read_end, *write_end;
    KTEST_EXPECT(test, pipe_create(&read_end, &write_end, O_NONBLOCK) == 0, "pipe_create failed");
    char *buffer = kzalloc(8192);
    char byte;
    KTEST_EXPECT(test, vfs_read(read_end, &byte, 1) == -EAGAIN, "empty read did not give -EAGAIN");
    long written = vfs_write(write_end, buffer, 8192);
    KTEST_EXPECT(test, written == 4096, "first write wrote %ld, expected the ring's 4096", written);
    written = vfs_write(write_end, buffer, 1);
    KTEST_EXPECT(test, written == -EAGAIN, "write to a full pipe returned %ld, expected -EAGAIN", written);
    long got = vfs_read(read_end, buffer, 8192);
    KTEST_EXPECT(test, got == 4096, "read %ld of 4096", got);
    KTEST_EXPECT(test, vfs_read(read_end, &byte, 1) == -EAGAIN, "drained read did not give -EAGAIN");
    kfree(buffer);
    vfs_close(read_end);
    vfs_close(write_end);
}

static void ends_are_fifos_with_one_direction(struct ktest *test)
{
    struct file *read_end, *write_end;
    KTEST_EXPECT(test, pipe_create(&read_end, &write_end, 0) == 0, "pipe_create failed");
    struct linux_stat st;
    vfs_stat_file(read_end, &st);
    KTEST_EXPECT(test, (st.st_mode & S_IFMT) == S_IFIFO, "mode %o is not S_IFIFO", (unsigned)st.st_mode);
    KTEST_EXPECT(test, vfs_seek(read_end, 0, SEEK_SET) == -ESPIPE, "a pipe was seekable");
    char byte;
    KTEST_EXPECT(test, vfs_read(write_end, &byte, 1) == -EBADF, "the write end was readable");
    KTEST_EXPECT(test, vfs_write(read_end, "x", 1) == -EBADF, "the read end was writable");
    vfs_close(read_end);
    vfs_close(write_end);
}

/* The first occurrence of needle in text, or NULL (kernel/lib/string.h has no strstr). */
static const char *find(const char *text, const char *needle)
{
    size_t length = strlen(needle);
    for (; *text; text++) {
        if (strncmp(text, needle, length) == 0)
            return text;
    }
    return NULL;
}

static void proc_interrupts_has_a_column_per_cpu(struct ktest *test)
{
    if (!vfs_root()) {
        ktest_skip(test, "vfs_init did not run");
        return;
    }
    long error;
    struct file *file = vfs_open("/proc/interrupts", O_RDONLY, 0, &error);
    if (!file) {
        ktest_skip(test, "no /proc/interrupts: procfs_init did not run");
        return;
    }
    size_t size = 65536, length = 0;
    char *text = kzalloc(size);
    long got;
    /* Small reads, so that the position is exercised. */
    while (length < size - 1 && (got = vfs_read(file, text + length, size - 1 - length < 100 ? size - 1 - length : 100)) > 0)
        length += (size_t)got;
    vfs_close(file);
    text[length] = '\0';
    KTEST_EXPECT(test, find(text, "LOC:") != NULL, "no LOC: row");
    KTEST_EXPECT(test, find(text, "Nohz kick interrupts") != NULL, "no NHZ row");
    /* The header line names CPU0 .. CPUn, one per online CPU. */
    char *newline = strchr(text, '\n');
    if (newline)
        *newline = '\0';
    unsigned cpu, columns = 0, online = 0;
    for (const char *p = text; (p = find(p, "CPU")) != NULL; p += 3)
        columns++;
    for_each_online_cpu(cpu) {
        char name[16];
        snprintf(name, sizeof(name), "CPU%u ", cpu);
        KTEST_EXPECT(test, find(text, name) != NULL, "no column %s", name);
        online++;
    }
    KTEST_EXPECT(test, columns == online, "%u CPU columns, %u CPUs online", columns, online);
    kfree(text);
}

KTEST_SUITE(pipe,
            KTEST_CASE(transfers_one_mib_across_cpus),
            KTEST_CASE(reads_eof_after_the_writer_closes),
            KTEST_CASE(sleeping_reader_sees_eof_on_close),
            KTEST_CASE(write_fails_with_epipe_without_reader),
            KTEST_CASE(nonblocking_full_and_empty_give_eagain),
            KTEST_CASE(ends_are_fifos_with_one_direction),
            KTEST_CASE(proc_interrupts_has_a_column_per_cpu));
