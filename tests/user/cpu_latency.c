/* cpu_latency: /dev/cpu_dma_latency as Linux's PM QoS interface answers
 * (cyclictest and oslat hold it open with 0 written): each open file is a
 * request, a 4-byte write is a binary value, other writes hexadecimal
 * text, a negative value the default, a read gives the smallest request of all open
 * files as 4 bytes, and a close drops the file's request.
 * On Linux another program may hold a smaller request, so the host checks
 * that what is read is at most what was asked; nohzk, where nothing else
 * holds one, is checked exactly (default 2,000,000,000 µs).
 * Scenarios rt-startup, rt-startup-glibc. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>

#include "conform.h"
#include "ktap.h"
#include "testlib.h"

#define DEVICE "/dev/cpu_dma_latency"
#define DEFAULT_US 2000000000

/* The value now, read through a new open (itself a default request). */
static int32_t latency_now(void)
{
    int fd = open(DEVICE, O_RDONLY);
    int32_t value = -1;
    if (fd >= 0 && read(fd, &value, sizeof(value)) != sizeof(value))
        value = -1;
    if (fd >= 0)
        close(fd);
    return value;
}

/* The value read is what was asked: exactly on nohzk, at most on Linux. */
static int reads_as(int32_t asked)
{
    int32_t now = latency_now();
    if (on_nohzk() ? now == asked : (now >= 0 && now <= asked))
        return 1;
    printf("# read %d, asked %d\n", now, asked);
    return 0;
}

static int a_root_only_character_device(void)
{
    struct stat st;
    EXPECT(stat(DEVICE, &st) == 0);
    EXPECT(S_ISCHR(st.st_mode) && (st.st_mode & 0777) == 0600);
    return 1;
}

/* Open alone, a read gives 4 bytes, then end of file. */
static int read_gives_four_bytes(void)
{
    int fd = open(DEVICE, O_RDWR);
    EXPECT(fd >= 0);
    char bytes[8];
    EXPECT_VALUE(read(fd, bytes, sizeof(bytes)), 4);
    EXPECT_VALUE(read(fd, bytes, sizeof(bytes)), 0);
    close(fd);
    EXPECT(reads_as(DEFAULT_US));
    return 1;
}

static int binary_value_held_while_open(void)
{
    int fd = open(DEVICE, O_WRONLY);
    EXPECT(fd >= 0);
    int32_t zero = 0, ten = 10;
    EXPECT_VALUE(write(fd, &ten, sizeof(ten)), 4);
    EXPECT(reads_as(10));
    EXPECT_VALUE(write(fd, &zero, sizeof(zero)), 4);
    EXPECT(reads_as(0));
    close(fd);
    if (on_nohzk())
        EXPECT(reads_as(DEFAULT_US));
    return 1;
}

/* Text is hexadecimal (kstrtos32 base 16). */
static int text_is_hexadecimal(void)
{
    int fd = open(DEVICE, O_WRONLY);
    EXPECT(fd >= 0);
    EXPECT_VALUE(write(fd, "a\n", 2), 2);
    EXPECT(reads_as(10));
    EXPECT_VALUE(write(fd, "0x1f", 4 + 0), 4);     /* 4 bytes: taken as binary, not text */
    EXPECT(reads_as(*(const int32_t *)"0x1f"));
    EXPECT_VALUE(write(fd, "0x1f\n", 5), 5);
    EXPECT(reads_as(31));
    EXPECT_VALUE(write(fd, "100", 3), 3);
    EXPECT(reads_as(256));
    EXPECT_VALUE(write(fd, "7\0junk", 6), 6);      /* parsed up to the NUL */
    EXPECT(reads_as(7));
    close(fd);
    return 1;
}

/* Bad values are refused and change nothing. */
static int bad_values(void)
{
    int fd = open(DEVICE, O_WRONLY);
    EXPECT(fd >= 0);
    int32_t minus = -5, five = 5;
    EXPECT_VALUE(write(fd, &five, 4), 4);
    EXPECT_ERROR(write(fd, "", 0), EINVAL);
    EXPECT_ERROR(write(fd, "zz", 2), EINVAL);
    EXPECT_ERROR(write(fd, "1\n\n", 3), EINVAL);
    EXPECT_ERROR(write(fd, "0x", 2), EINVAL);
    EXPECT_ERROR(write(fd, "80000000", 8), ERANGE);
    EXPECT_ERROR(write(fd, "fffffffffffffffffff", 19), ERANGE);
    EXPECT_ERROR(syscall(SYS_write, fd, NULL, 4), EFAULT);
    EXPECT_ERROR(syscall(SYS_write, fd, (void *)KERNEL_ADDRESS, 4), EFAULT);
    EXPECT_ERROR(syscall(SYS_write, fd, (void *)NON_CANONICAL_LOW, 8), EFAULT);
    EXPECT_ERROR(write(fd, "12345678901234567890123456789", 29), ERANGE);   /* 23 characters parsed */
    EXPECT(reads_as(5));
    /* a negative value is taken: the default (nohzk; Linux 6.18 reads the same) */
    EXPECT_VALUE(write(fd, &minus, 4), 4);
    EXPECT_VALUE(write(fd, "-2\n", 3), 3);
    if (on_nohzk())
        EXPECT(reads_as(DEFAULT_US));
    close(fd);
    return 1;
}

/* Two requests: the smaller rules; closing it leaves the other. */
static int smallest_request_rules(void)
{
    int a = open(DEVICE, O_WRONLY), b = open(DEVICE, O_WRONLY);
    EXPECT(a >= 0 && b >= 0);
    int32_t hundred = 100, fifty = 50;
    EXPECT_VALUE(write(a, &hundred, 4), 4);
    EXPECT_VALUE(write(b, &fifty, 4), 4);
    EXPECT(reads_as(50));
    close(b);
    EXPECT(reads_as(100));
    close(a);
    return 1;
}

/* A child that dies with it open drops its request. */
static int exit_drops_the_request(void)
{
    int ready[2];
    EXPECT(pipe(ready) == 0);
    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        int fd = open(DEVICE, O_WRONLY);
        int32_t zero = 0;
        char byte = fd >= 0 && write(fd, &zero, 4) == 4 ? 1 : 0;
        if (write(ready[1], &byte, 1) != 1)
            _exit(1);
        pause();
        _exit(0);
    }
    char byte = 0;
    EXPECT(read(ready[0], &byte, 1) == 1 && byte == 1);
    EXPECT(reads_as(0));
    kill_and_reap(child);
    close(ready[0]);
    close(ready[1]);
    if (on_nohzk())
        EXPECT(reads_as(DEFAULT_US));
    return 1;
}

int main(void)
{
    if (access(DEVICE, F_OK) != 0 && !on_nohzk()) {
        printf("KTAP version 1\n1..0 # SKIP no " DEVICE " on this kernel\n");
        return 0;
    }
    static const struct ktap_case cases[] = {
        KTAP_CASE(a_root_only_character_device),
        KTAP_CASE(read_gives_four_bytes),
        KTAP_CASE(binary_value_held_while_open),
        KTAP_CASE(text_is_hexadecimal),
        KTAP_CASE(bad_values),
        KTAP_CASE(smallest_request_rules),
        KTAP_CASE(exit_drops_the_request),
    };
    return conform_main(cases, KTAP_COUNT(cases));
}
