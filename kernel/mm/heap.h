/* The kernel heap: kmalloc/kfree for objects of any size. */
#ifndef KERNEL_HEAP_H
#define KERNEL_HEAP_H

#include <stddef.h>

void *kmalloc(size_t size);         /* 16-byte aligned; NULL if out of memory */
void *kzalloc(size_t size);         /* the same, zeroed */
void kfree(void *object);           /* NULL is fine; a bad or double free panics */
size_t kmalloc_usable_size(const void *object);
void heap_usage(size_t *objects, size_t *bytes); /* handed out now; bytes rounded up to classes/pages */

/* Objects handed out by size, for leak hunting (/proc/meminfo's
 * HeapObjectsBySize): 16, 32, ..., 1024 bytes, then larger ones. */
#define HEAP_SIZE_BUCKETS 8
void heap_usage_by_size(size_t counts[HEAP_SIZE_BUCKETS]);

#endif
