/* /proc/meminfo: free and total memory in Linux's format (what busybox's
 * free reads), and the heap's counts that the leak checks read. */
#include <stddef.h>

#include "arch/x86/paging.h"
#include "kernel/fs/procfs.h"
#include "kernel/mm/heap.h"
#include "kernel/mm/page_alloc.h"

static void generate_meminfo(struct proc_text *text)
{
    unsigned long kb_per_page = 4096 / 1024;
    unsigned long total = page_total_count() * kb_per_page, free = page_free_count() * kb_per_page;
    /* No page cache to reclaim: what is free is what is available. */
    proc_printf(text, "MemTotal:       %8lu kB\n", total);
    proc_printf(text, "MemFree:        %8lu kB\n", free);
    proc_printf(text, "MemAvailable:   %8lu kB\n", free);
    /* Linux's name for kernel objects; HeapObjects is ours (leak checks). */
    size_t heap_objects, heap_bytes;
    heap_usage(&heap_objects, &heap_bytes);
    proc_printf(text, "Slab:           %8lu kB\nHeapObjects:    %8lu\n", heap_bytes / 1024, heap_objects);
    size_t by_size[HEAP_SIZE_BUCKETS];
    heap_usage_by_size(by_size);
    proc_printf(text, "KernelStackTables: %6lu kB\n", kernel_stack_table_pages() * 4);
    proc_printf(text, "HeapObjectsBySize:");
    for (unsigned i = 0; i < HEAP_SIZE_BUCKETS; i++)
        proc_printf(text, " %lu", by_size[i]);
    proc_printf(text, "\n");
}

PROC_FILE("/proc/meminfo", generate_meminfo, NULL);
