/* The plumbing of the conform_*.c programs: each case is one system call
 * given one edge of its arguments (named CALL_EDGE, as docs/syscalls.md
 * cites it), and checks the result AND errno against what Linux x86-64
 * returns. The programs run on the Linux host first (tests/run), so an
 * expectation that is not Linux's fails there.
 *
 * A difference from Linux that nohzk keeps is declared in the case
 * with NOHZK_DIFFERS("why") just before the check that shows it: on nohzk,
 * if that check fails, the case is reported as a SKIP with the reason (and
 * the check's diagnostic); if it passes, the case passes. On Linux the
 * declaration changes nothing. */
#ifndef TESTS_USER_CONFORM_H
#define TESTS_USER_CONFORM_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The kernel's struct sigaction (not libc's), for raw rt_sigaction calls. */
struct kernel_sigaction {
    void (*handler)(int);
    unsigned long flags;
    void (*restorer)(void);
    uint64_t mask;
};

#include "ktap.h"
#include "testlib.h"

#define KERNEL_ADDRESS     0xffff800000000000ul     /* the first kernel-half address */
#define NON_CANONICAL_LOW  0x0000800000000000ul     /* just past the user half */
#define NON_CANONICAL_HIGH 0x8000000000000000ul
#define PAGE               4096ul

static const char *conform_known;       /* the case's declared difference, or NULL */

static int conform_on_nohzk(void) { return on_nohzk(); }

#define NOHZK_DIFFERS(reason) (conform_known = (reason))

/* A check failed: 0 (the case fails), or 1 with a SKIP on nohzk for a
 * declared difference. */
static int conform_failed(void)
{
    if (conform_known && conform_on_nohzk()) {
        ktap_skip_reason = conform_known;
        return 1;
    }
    return 0;
}

/* The expression (a raw syscall(), or a libc call that passes the kernel's
 * answer through) is -1 with errno `error`. */
#define EXPECT_ERROR(expression, error)                                                               \
    do {                                                                                              \
        errno = 0;                                                                                    \
        long result_ = (long)(expression);                                                            \
        int errno_ = errno;                                                                           \
        if (result_ != -1 || errno_ != (error)) {                                                     \
            printf("# %s:%d: %s = %ld (errno %d %s), expected -1 (errno %d %s)\n", __FILE__, __LINE__, \
                   #expression, result_, result_ == -1 ? errno_ : 0, result_ == -1 ? strerror(errno_) : "", \
                   (error), #error);                                                                  \
            return conform_failed();                                                                  \
        }                                                                                             \
    } while (0)

/* A result kept earlier (with the errno saved just after it) is -1 with
 * errno `error`: for a call made before its mapping was taken away. */
#define EXPECT_SAVED_ERROR(result, saved_errno, error)                                                \
    do {                                                                                              \
        if ((result) != -1 || (saved_errno) != (error)) {                                             \
            printf("# %s:%d: %s = %ld (errno %d), expected -1 (errno %d %s)\n", __FILE__, __LINE__,   \
                   #result, (long)(result), (result) == -1 ? (saved_errno) : 0, (error), #error);     \
            return conform_failed();                                                                  \
        }                                                                                             \
    } while (0)

/* The expression succeeds with exactly `value`. */
#define EXPECT_VALUE(expression, value)                                                               \
    do {                                                                                              \
        errno = 0;                                                                                    \
        long result_ = (long)(expression);                                                            \
        int errno_ = errno;                                                                           \
        if (result_ != (long)(value)) {                                                               \
            printf("# %s:%d: %s = %ld (errno %d %s), expected %ld\n", __FILE__, __LINE__, #expression, \
                   result_, result_ == -1 ? errno_ : 0, result_ == -1 ? strerror(errno_) : "",        \
                   (long)(value));                                                                    \
            return conform_failed();                                                                  \
        }                                                                                             \
    } while (0)

/* A condition on the state afterwards. */
#define EXPECT(condition)                                                                             \
    do {                                                                                              \
        if (!(condition)) {                                                                           \
            printf("# %s:%d: %s failed (errno %d)\n", __FILE__, __LINE__, #condition, errno);         \
            return conform_failed();                                                                  \
        }                                                                                             \
    } while (0)

/* Two pages: the first mapped with prot, the second unmapped. Returns the
 * first; its end (+PAGE) is the start of the hole. Unmap with
 * hole_free(). Made fresh in each case: a later mmap may fill the hole. */
static inline char *page_before_hole(int prot)
{
    char *pages = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (pages == MAP_FAILED) {
        printf("# mmap of two pages failed (errno %d)\n", errno);
        exit(1);
    }
    munmap(pages + PAGE, PAGE);
    if (prot != (PROT_READ | PROT_WRITE))
        mprotect(pages, PAGE, prot);
    return pages;
}

static inline void hole_free(char *page)
{
    if (page)
        munmap(page, PAGE);
}

/* An address in a page that was mapped and is not any more. */
static inline char *unmapped_page(void)
{
    char *page = page_before_hole(PROT_READ | PROT_WRITE);
    if (page)
        munmap(page, PAGE);
    return page;
}

static void conform_forget_difference(void)
{
    conform_known = 0;
}

/* ktap_main(), each case starting with no declared difference. */
static inline int conform_main(const struct ktap_case *cases, unsigned count)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    ktap_before_each_case = conform_forget_difference;
    return ktap_main(cases, count);
}

#endif
