/* /proc/vmstat: Linux's nr_free_pages, then the counts of page_event
 * (kernel/mm/page_alloc.h), one "name value" line each as Linux writes
 * this file. The tests read them to see what a fork or a write copied. */
#include "kernel/fs/procfs.h"
#include "kernel/mm/page_alloc.h"

static unsigned long events[PAGE_EVENT_COUNT];

static const char *const event_names[PAGE_EVENT_COUNT] = {
    [PAGES_ZEROED] = "pages_zeroed",
    [FORK_TABLE_PAGES] = "fork_table_pages",
    [FORK_PAGES_COPIED] = "fork_pages_copied",
    [FORK_PAGES_SHARED] = "fork_pages_shared",
    [COW_FAULTS] = "cow_faults",
    [COW_PAGES_COPIED] = "cow_pages_copied",
    [COW_PAGES_REUSED] = "cow_pages_reused",
    [EXEC_PAGES_COPIED] = "exec_pages_copied",
    [ZERO_PAGE_MAPPED] = "zero_page_mapped",
    [ZERO_PAGE_FAULTS] = "zero_page_faults",
    [EXEC_PAGES_MAPPED] = "exec_pages_mapped",
    [FILE_PAGES_COPIED] = "file_pages_copied",
    [STACK_PAGES_FAULTED] = "stack_pages_faulted",
    [FAULTS_INJECTED] = "faults_injected",
};

void page_event_add(enum page_event event, unsigned long count)
{
    __atomic_fetch_add(&events[event], count, __ATOMIC_RELAXED);
}

unsigned long page_event_read(enum page_event event)
{
    return __atomic_load_n(&events[event], __ATOMIC_RELAXED);
}

static void generate_vmstat(struct proc_text *text)
{
    proc_printf(text, "nr_free_pages %lu\n", (unsigned long)page_free_count());
    for (unsigned i = 0; i < PAGE_EVENT_COUNT; i++)
        proc_printf(text, "%s %lu\n", event_names[i], page_event_read(i));
}

PROC_FILE("/proc/vmstat", generate_vmstat, NULL);
