/* The kernel services that kernel code under test calls, linked into every
 * host test (tests/host/Makefile): panic() fails the test, a spinlock
 * checks that it is taken and released in turn (held twice, or released
 * unheld, is a bug the kernel would panic on), the heap is the C
 * library's, and no fault is injected. A test with services of its own
 * (test_vfs: the current process, user memory) defines those itself. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "kernel/base/panic.h"
#include "kernel/base/spinlock.h"
#include "kernel/mm/fault_inject.h"
#include "kernel/mm/heap.h"

void panic(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vfprintf(stderr, format, args);
    va_end(args);
    fail_msg("panic");
    abort();
}

void spin_lock_init(struct spinlock *lock, const char *name)
{
    lock->locked = 0;
    lock->name = name;
}

void spin_lock(struct spinlock *lock)
{
    assert_int_equal(lock->locked, 0);
    lock->locked = 1;
}

void spin_unlock(struct spinlock *lock)
{
    assert_int_equal(lock->locked, 1);
    lock->locked = 0;
}

void *kmalloc(size_t size)
{
    return malloc(size);
}

void *kzalloc(size_t size)
{
    return calloc(1, size);
}

void kfree(void *object)
{
    free(object);
}

bool fault_inject_should_fail(void)
{
    return false;
}
