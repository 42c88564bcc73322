/* The kernel heap: kmalloc/kfree for objects of any size. */
#ifndef KERNEL_HEAP_H
#define KERNEL_HEAP_H

#include <stddef.h>

void *kmalloc(size_t size);         /* 16-byte aligned; NULL if out of memory */
void *kzalloc(size_t size);         /* the same, zeroed */
void kfree(void *object);           /* NULL is fine; a bad or double free panics */
size_t kmalloc_usable_size(const void *object);
void heap_usage(size_t *objects, size_t *bytes); /* handed out now; bytes rounded up to classes/pages */

#endif
