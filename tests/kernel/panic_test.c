/* ktest=panic: a deliberate kernel fault must end in a PANIC report with a
 * symbolized backtrace and the panic exit status, never in a pass. The
 * QEMU scenario checks the report names this function. */
#include "kernel/ktest.h"

static void __attribute__((noinline)) ktest_panic_null_dereference(struct ktest *test)
{
    volatile int *null_pointer = 0;
    *null_pointer = 1;
    KTEST_EXPECT(test, false, "a write to address 0 did not fault");
}

KTEST_SUITE(panic, KTEST_CASE(ktest_panic_null_dereference));
