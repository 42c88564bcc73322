/* Memory nodes: nohzk has one, node 0, with all memory and every CPU
 * (kernel/mm/node.c). MAX_NUMNODES is Debian's Linux's (NODES_SHIFT 10):
 * the width of a nodemask in /proc/PID/status and the bound of the
 * memory policy calls' maxnode. */
#ifndef KERNEL_MM_NODE_H
#define KERNEL_MM_NODE_H

#define MAX_NUMNODES 1024

/* A thread's memory policy (set_mempolicy): its mode with Linux's mode
 * flags, and the nodes it named. With one node every policy places pages
 * the same: the page allocator never reads it. All zero is MPOL_DEFAULT. */
struct mempolicy {
    int mode;
    unsigned long nodes[MAX_NUMNODES / 64];
};

#endif
