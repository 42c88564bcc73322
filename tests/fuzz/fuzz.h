/* Shared by the fuzz targets of tests/fuzz/: each target file defines
 * LLVMFuzzerTestOneInput (libFuzzer's entry point) and nothing else; the
 * same file is linked either with libFuzzer (make fuzz) or with replay.c
 * (make test replays every corpus file). FUZZ_CHECK turns a broken
 * invariant of a parser's output into a crash that both notice. */
#ifndef TESTS_FUZZ_FUZZ_H
#define TESTS_FUZZ_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(condition)                                                                                \
    do {                                                                                                     \
        if (!(condition)) {                                                                                  \
            fprintf(stderr, "%s:%d: invariant broken: %s\n", __FILE__, __LINE__, #condition);                 \
            abort();                                                                                         \
        }                                                                                                    \
    } while (0)

#endif
