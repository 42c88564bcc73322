/* Reading and writing user memory from the kernel. Every pointer that comes
 * from user space goes through these: they check that the range lies in the
 * user half and is mapped with the right permission, and return -EFAULT
 * instead of faulting. Callers never dereference a user pointer directly. */
#ifndef KERNEL_UACCESS_H
#define KERNEL_UACCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define USER_SPACE_END 0x0000800000000000ul    /* first non-canonical address */

int copy_from_user(void *dst, const void *user_src, size_t length);    /* 0 or -EFAULT */
int copy_to_user(void *user_dst, const void *src, size_t length);      /* 0 or -EFAULT */
/* Copy a NUL-terminated string of at most max-1 bytes (NUL added); returns
 * its length, -EFAULT, or -ENAMETOOLONG if no NUL came within max-1 bytes. */
long strncpy_from_user(char *dst, const char *user_src, size_t max);
/* The length of the user string at user_src (no NUL counted) if a NUL
 * comes within max bytes, max if none does, -EFAULT if a byte before
 * either cannot be read. A page at a time: execve measures megabytes. */
long strnlen_user(const char *user_src, size_t max);
/* Does [user_start, user_start + length) lie in the user half? Linux's
 * access_ok(): nothing about what is mapped there. */
bool user_range_ok(const void *user_start, size_t length);
/* How many of the length bytes at user_start can be read (or, for_write,
 * written) before the first page that cannot: a short read or write stops
 * there, as on Linux. */
size_t user_accessible_prefix(const void *user_start, size_t length, bool for_write);

/* For futexes (kernel/process/futex.c), which look at a word with a
 * spinlock held and interrupts off: an aligned 32-bit word, read or
 * compared and exchanged atomically, without faulting anything in (no
 * allocation, no stack growth) and without the address space's lock:
 * -EFAULT if the page is not there, or, for the exchange, not writable
 * yet. The caller then drops its lock, faults the page in with
 * copy_from_user() or user_fault_in_writable(), and tries again. */
int user_read_u32_nofault(const uint32_t *user_word, uint32_t *value);
int user_cmpxchg_u32_nofault(uint32_t *user_word, uint32_t expected, uint32_t desired, uint32_t *found);
int user_fault_in_writable(void *user_start, size_t length);     /* 0 or -EFAULT */

#endif
