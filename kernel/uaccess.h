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

#endif
