/* The one memory node, as Linux's sysfs shows a machine without NUMA:
 * /sys/devices/system/node/{possible,online,has_cpu,has_normal_memory}
 * list node 0, and node0/ has every CPU (cpumap, cpulist) and the page
 * allocator's memory (meminfo). libnuma reads these to size its masks
 * and numa_node_size(). Left out: node0/meminfo's lines past MemUsed
 * (Active, Dirty, Slab... which nohzk does not count per node), distance,
 * numastat, vmstat, hugepages. */
#include "kernel/base/percpu.h"
#include "kernel/fs/sysfs.h"
#include "kernel/lib/cpumask.h"
#include "kernel/mm/page_alloc.h"

static void show_node_zero(struct proc_text *text)
{
    proc_printf(text, "0\n");
}

static void show_node_cpumap(struct proc_text *text)
{
    char bitmap[CPUMASK_BITMAP_FORMAT_SIZE];
    cpumask_format_bitmap(&cpu_online_mask, cpu_count, bitmap, sizeof(bitmap));  /* nr_cpu_ids bits */
    proc_printf(text, "%s\n", bitmap);
}

static void show_node_cpulist(struct proc_text *text)
{
    char list[CPULIST_FORMAT_SIZE];
    cpulist_format(&cpu_online_mask, list, sizeof(list));
    proc_printf(text, "%s\n", list);
}

static void show_node_meminfo(struct proc_text *text)
{
    unsigned long kb_per_page = 4096 / 1024;
    unsigned long total = page_total_count() * kb_per_page, free = page_free_count() * kb_per_page;
    proc_printf(text, "Node 0 MemTotal:       %8lu kB\n", total);
    proc_printf(text, "Node 0 MemFree:        %8lu kB\n", free);
    proc_printf(text, "Node 0 MemUsed:        %8lu kB\n", total - free);
}

/* One function per file: SYSFS_FILE names its entry after it. */
static void show_possible_nodes(struct proc_text *text) { show_node_zero(text); }
static void show_online_nodes(struct proc_text *text) { show_node_zero(text); }
static void show_nodes_with_cpus(struct proc_text *text) { show_node_zero(text); }
static void show_nodes_with_memory(struct proc_text *text) { show_node_zero(text); }

SYSFS_FILE("/sys/devices/system/node/possible", show_possible_nodes);
SYSFS_FILE("/sys/devices/system/node/online", show_online_nodes);
SYSFS_FILE("/sys/devices/system/node/has_cpu", show_nodes_with_cpus);
SYSFS_FILE("/sys/devices/system/node/has_normal_memory", show_nodes_with_memory);
SYSFS_FILE("/sys/devices/system/node/node0/cpumap", show_node_cpumap);
SYSFS_FILE("/sys/devices/system/node/node0/cpulist", show_node_cpulist);
SYSFS_FILE("/sys/devices/system/node/node0/meminfo", show_node_meminfo);
