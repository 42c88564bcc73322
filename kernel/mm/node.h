/* Memory nodes: nohzk has one, node 0, with all memory and every CPU
 * (kernel/mm/node.c). MAX_NUMNODES is Debian's Linux's (NODES_SHIFT 10):
 * the width of a nodemask in /proc/PID/status and the bound of the
 * memory policy calls' maxnode. */
#ifndef KERNEL_MM_NODE_H
#define KERNEL_MM_NODE_H

#define MAX_NUMNODES 1024

#endif
