/* mark CPU open|close [--uart]
 *
 * Writes one witness mark from CPU, for a program that writes none itself
 * (Debian's oslat and cyclictest, tools/measure/instruments): pinned to
 * CPU, it prints the line, with CLOCK_MONOTONIC at the time, and exits:
 *     mark: witness open: cpu 3, monotonic 12.345678901
 * QEMU's per-vCPU logs open a window on the vCPU that wrote the line, and
 * the matching close line ends it (tools/lib/witness.py; docs/noise.md,
 * "The outside witness"); the two clock readings give the window's length,
 * to count the witness per second.
 *
 *   --uart   write the line to the UART at 0x3f8 itself (ioperm), as
 *            osnoise --mark-uart does: Linux's console sends a program's
 *            text from whichever CPU takes the serial interrupt, so only
 *            bytes the program writes itself are sure to be CPU's.
 *            Without it the line goes to stdout, which nohzk's console
 *            writes on the writer's CPU.
 *
 * Exit status 0; 1 if it cannot be pinned to CPU, ioperm is refused or
 * the line cannot be written; 2 on bad arguments. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/pin.h"
#include "lib/uart_mark.h"

static void usage(void)
{
    fprintf(stderr, "usage: mark CPU open|close [--uart]\n");
    exit(2);
}

static int parse_cpu(const char *text)
{
    char *end;
    errno = 0;
    long cpu = strtol(text, &end, 10);
    if (errno || end == text || *end || cpu < 0 || cpu > 4095)
        usage();
    return (int)cpu;
}

/* Pinned to cpu and running there, or exit 1. */
static void move_to(int cpu)
{
    int moved = move_to_cpu(cpu);
    if (moved == -1) {
        fprintf(stderr, "mark: cannot pin to CPU %d: %s\n", cpu, strerror(errno));
        exit(1);
    }
    if (moved) {
        fprintf(stderr, "mark: pinned to CPU %d but running on %d\n", cpu, cpu_now());
        exit(1);
    }
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 4 || (strcmp(argv[2], "open") && strcmp(argv[2], "close")))
        usage();
    int uart = argc == 4;
    if (uart && strcmp(argv[3], "--uart"))
        usage();
    int cpu = parse_cpu(argv[1]);
    if (uart) {
        int error = uart_allow();
        if (error) {
            fprintf(stderr, "mark: --uart: ioperm(0x%x): %s\n", UART_PORT, strerror(error));
            return 1;
        }
    }
    move_to(cpu);
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    char line[96];
    int length = snprintf(line, sizeof(line), "mark: witness %s: cpu %d, monotonic %lld.%09ld\n", argv[2], cpu,
                          (long long)now.tv_sec, now.tv_nsec);
    if (uart) {
        uart_write(line, length);
        return 0;
    }
    if (write(1, line, (size_t)length) != length) {
        fprintf(stderr, "mark: cannot write the mark: %s\n", strerror(errno));
        return 1;
    }
    return 0;
}
