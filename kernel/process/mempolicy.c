/* NUMA memory policy calls, answered as Linux 6.1 answers them on a
 * machine with one node (kernel/mm/node.h): set_mempolicy, get_mempolicy,
 * mbind, migrate_pages, set_mempolicy_home_node. libnuma's
 * numa_available() is get_mempolicy(NULL, NULL, 0, 0, 0), and
 * cyclictest and oslat bind their threads' memory with it.
 *
 * Every check is Linux's (mm/mempolicy.c), in its order: mode and flags,
 * the user's nodemask (get_nodes: maxnode counts bits, one more than the
 * highest, bits past MAX_NUMNODES must be zero, at most a page of them),
 * then the policy against the allowed nodes, node 0: a mask with no
 * allowed node is EINVAL, a mask with node 0 among others is node 0.
 *
 * The policy is the calling thread's state, copied by fork and clone and
 * kept by execve, returned by get_mempolicy; with one node it changes no
 * allocation. Left out: policies of address ranges (mbind checks its range
 * and keeps nothing, so get_mempolicy(MPOL_F_ADDR) says MPOL_DEFAULT),
 * page migration (there is nowhere to move a page), MPOL_F_NUMA_BALANCING's
 * effect. */
#include <stdbool.h>
#include <stdint.h>

#include "arch/x86/paging.h"
#include "kernel/entry/syscall.h"
#include "kernel/lib/errno.h"
#include "kernel/lib/string.h"
#include "kernel/mm/node.h"
#include "kernel/mm/uaccess.h"
#include "kernel/process/process.h"
#include "kernel/process/thread.h"

#define MPOL_DEFAULT 0
#define MPOL_PREFERRED 1
#define MPOL_BIND 2
#define MPOL_INTERLEAVE 3
#define MPOL_LOCAL 4
#define MPOL_PREFERRED_MANY 5
#define MPOL_MAX 6

#define MPOL_F_STATIC_NODES (1 << 15)
#define MPOL_F_RELATIVE_NODES (1 << 14)
#define MPOL_F_NUMA_BALANCING (1 << 13)
#define MPOL_MODE_FLAGS (MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES | MPOL_F_NUMA_BALANCING)

/* get_mempolicy's flags */
#define MPOL_F_NODE (1 << 0)
#define MPOL_F_ADDR (1 << 1)
#define MPOL_F_MEMS_ALLOWED (1 << 2)

/* mbind's flags */
#define MPOL_MF_VALID 7         /* STRICT, MOVE, MOVE_ALL */

#define NODE_WORDS (MAX_NUMNODES / 64)
#define NODE_BITS_MAX (PAGE_SIZE * 8)   /* get_nodes: at most a page of bits */
#define NR_NODE_IDS 1

/* sanitize_mpol_flags: the mode without its flags, or -EINVAL. */
static int mode_of(int mode_and_flags, int *flags)
{
    *flags = mode_and_flags & MPOL_MODE_FLAGS;
    unsigned mode = (unsigned)(mode_and_flags & ~MPOL_MODE_FLAGS);
    if (mode >= MPOL_MAX)
        return -EINVAL;
    if ((*flags & MPOL_F_STATIC_NODES) && (*flags & MPOL_F_RELATIVE_NODES))
        return -EINVAL;
    if ((*flags & MPOL_F_NUMA_BALANCING) && mode != MPOL_BIND)
        return -EINVAL;
    return (int)mode;
}

/* get_nodes: the user's mask of maxnode - 1 bits into nodes. */
static int nodes_from_user(unsigned long *nodes, const unsigned long *user_mask, unsigned long maxnode)
{
    memset(nodes, 0, NODE_WORDS * sizeof(*nodes));
    maxnode--;                      /* 0 wraps: with a mask, more than a page of bits */
    if (maxnode == 0 || !user_mask)
        return 0;
    if (maxnode > NODE_BITS_MAX)
        return -EINVAL;
    /* Bits past MAX_NUMNODES must be zero: Linux checks whole words,
     * down from the one that holds bit maxnode - 1, its last bits too. */
    while (maxnode > MAX_NUMNODES) {
        unsigned long bits;
        if (copy_from_user(&bits, user_mask + (maxnode - 1) / 64, sizeof(bits)) < 0)
            return -EFAULT;
        maxnode = maxnode - 64 >= MAX_NUMNODES ? maxnode - 64 : MAX_NUMNODES;
        if (bits)
            return -EINVAL;
    }
    size_t words = (maxnode + 63) / 64;
    if (copy_from_user(nodes, user_mask, words * sizeof(*nodes)) < 0)
        return -EFAULT;
    if (maxnode % 64)
        nodes[words - 1] &= (1ul << (maxnode % 64)) - 1;
    return 0;
}

static bool nodes_empty(const unsigned long *nodes)
{
    for (unsigned i = 0; i < NODE_WORDS; i++)
        if (nodes[i])
            return false;
    return true;
}

/* mpol_new and mpol_set_nodemask: whether mode with flags may name these
 * nodes, of which node 0 alone is allowed; 0 or -EINVAL. A relative mask
 * folds onto the one allowed node: any bit is node 0. */
static int policy_check(int mode, int flags, const unsigned long *nodes)
{
    bool empty = nodes_empty(nodes);
    bool relative_or_static = flags & (MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES);
    switch (mode) {
    case MPOL_DEFAULT:
        return empty ? 0 : -EINVAL;
    case MPOL_LOCAL:
        return empty && !relative_or_static ? 0 : -EINVAL;
    case MPOL_PREFERRED:
        if (empty)
            return relative_or_static ? -EINVAL : 0;     /* local allocation */
        break;
    default:
        if (empty)
            return -EINVAL;
    }
    bool allowed = (flags & MPOL_F_RELATIVE_NODES) ? true : (nodes[0] & 1);
    return allowed ? 0 : -EINVAL;
}

/* The policy as stored: the user's mask for a static or relative policy
 * (Linux keeps user_nodemask), else the allowed nodes it names: node 0.
 * An empty MPOL_PREFERRED is MPOL_LOCAL; MPOL_DEFAULT is all zero. */
static struct mempolicy policy_of(int mode, int flags, const unsigned long *nodes)
{
    struct mempolicy policy = { 0 };
    if (mode == MPOL_DEFAULT)
        return policy;
    if (mode == MPOL_PREFERRED && nodes_empty(nodes))
        mode = MPOL_LOCAL;
    policy.mode = mode | flags;
    if (flags & (MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES))
        memcpy(policy.nodes, nodes, sizeof(policy.nodes));
    else if (mode != MPOL_LOCAL)
        policy.nodes[0] = 1;
    return policy;
}

SYSCALL_DEFINE3(set_mempolicy, int, mode_and_flags, const unsigned long *, user_mask, unsigned long, maxnode)
{
    int flags;
    int mode = mode_of(mode_and_flags, &flags);
    if (mode < 0)
        return mode;
    unsigned long nodes[NODE_WORDS];
    int error = nodes_from_user(nodes, user_mask, maxnode);
    if (!error)
        error = policy_check(mode, flags, nodes);
    if (error)
        return error;
    current_thread()->mempolicy = policy_of(mode, flags, nodes);
    return 0;
}

/* copy_nodes_to_user: maxnode - 1 bits rounded up to whole longs, the
 * ones past nr_node_ids zeroed; more than a page of them is EINVAL. */
static int nodes_to_user(unsigned long *user_mask, unsigned long maxnode, const unsigned long *nodes)
{
    size_t copy = ((maxnode - 1 + 63) / 64) * 8;
    size_t ours = ((NR_NODE_IDS + 63) / 64) * 8;
    if (copy > ours) {
        if (copy > PAGE_SIZE)
            return -EINVAL;
        static const char zeros[PAGE_SIZE];
        if (copy_to_user((char *)user_mask + ours, zeros, copy - ours) < 0)
            return -EFAULT;
        copy = ours;
    }
    return copy_to_user(user_mask, nodes, copy) < 0 ? -EFAULT : 0;
}

/* Whether the page at address is mapped (vma_lookup), for MPOL_F_ADDR. */
static bool address_mapped(uint64_t address)
{
    return user_range_ok((const void *)address, 1) && user_accessible_prefix((const void *)address, 1, false) == 1;
}

SYSCALL_DEFINE5(get_mempolicy, int *, user_policy, unsigned long *, user_mask, unsigned long, maxnode, uint64_t,
                address, unsigned long, flags)
{
    if (user_mask && maxnode < NR_NODE_IDS)
        return -EINVAL;
    if (flags & ~(unsigned long)(MPOL_F_NODE | MPOL_F_ADDR | MPOL_F_MEMS_ALLOWED))
        return -EINVAL;
    struct mempolicy policy = current_thread()->mempolicy;
    unsigned long nodes[NODE_WORDS] = { 0 };
    int answer;
    if (flags & MPOL_F_MEMS_ALLOWED) {
        if (flags & (MPOL_F_NODE | MPOL_F_ADDR))
            return -EINVAL;
        answer = 0;
        nodes[0] = 1;
    } else {
        if (flags & MPOL_F_ADDR) {
            if (!address_mapped(address))
                return -EFAULT;
            policy = (struct mempolicy){ 0 };        /* no range keeps a policy here */
        } else if (address) {
            return -EINVAL;
        }
        int mode = policy.mode & ~MPOL_MODE_FLAGS;
        if (flags & MPOL_F_NODE) {
            if (!(flags & MPOL_F_ADDR) && !(policy.mode && mode == MPOL_INTERLEAVE))
                return -EINVAL;
            answer = 0;         /* the node of the page, or the next to interleave: node 0 */
        } else {
            answer = policy.mode;
        }
        memcpy(nodes, policy.nodes, sizeof(nodes));
    }
    if (user_policy && copy_to_user(user_policy, &answer, sizeof(answer)) < 0)
        return -EFAULT;
    return user_mask ? nodes_to_user(user_mask, maxnode, nodes) : 0;
}

/* do_mbind's checks; the range must be mapped without a hole
 * (queue_pages_range). Nothing is kept. */
SYSCALL_DEFINE6(mbind, uint64_t, start, uint64_t, length, int, mode_and_flags, const unsigned long *, user_mask,
                unsigned long, maxnode, unsigned, mbind_flags)
{
    int flags;
    int mode = mode_of(mode_and_flags, &flags);
    if (mode < 0)
        return mode;
    unsigned long nodes[NODE_WORDS];
    int error = nodes_from_user(nodes, user_mask, maxnode);
    if (error)
        return error;
    if (mbind_flags & ~(unsigned)MPOL_MF_VALID)
        return -EINVAL;
    if (start % PAGE_SIZE)
        return -EINVAL;
    length = (length + PAGE_SIZE - 1) & ~(uint64_t)(PAGE_SIZE - 1);
    uint64_t end = start + length;
    if (end < start)
        return -EINVAL;
    if (end == start)
        return 0;
    error = policy_check(mode, flags, nodes);
    if (error)
        return error;
    if (!user_range_ok((const void *)start, length) ||
        user_accessible_prefix((const void *)start, length, false) != length)
        return -EFAULT;
    return 0;
}

/* Both masks checked; the target, a process or thread, must exist. The
 * new nodes are cut to the allowed one: none left is EINVAL, so is a
 * process without memory (a zombie); else no page moves, as there is one
 * node: 0 pages left behind. */
SYSCALL_DEFINE4(migrate_pages, int, pid, unsigned long, maxnode, const unsigned long *, user_old,
                const unsigned long *, user_new)
{
    unsigned long old_nodes[NODE_WORDS], new_nodes[NODE_WORDS];
    int error = nodes_from_user(old_nodes, user_old, maxnode);
    if (!error)
        error = nodes_from_user(new_nodes, user_new, maxnode);
    if (error)
        return error;
    if (pid < 0)
        return -ESRCH;
    spin_lock(&process_tree_lock);
    struct thread *thread = pid ? thread_find_locked(pid) : current_thread();
    struct process *process = thread ? thread->process : process_find_locked(pid);
    bool has_memory = process && process->memory;
    spin_unlock(&process_tree_lock);
    if (!process)
        return -ESRCH;
    return new_nodes[0] & 1 && has_memory ? 0 : -EINVAL;
}

/* Linux 6.1: checks, then each mapping's policy, of which none is kept
 * here (a range with no policy is left alone): 0. */
SYSCALL_DEFINE4(set_mempolicy_home_node, uint64_t, start, uint64_t, length, unsigned long, home_node, unsigned long,
                flags)
{
    if (start % PAGE_SIZE || flags)
        return -EINVAL;
    if (home_node >= MAX_NUMNODES || home_node >= NR_NODE_IDS)
        return -EINVAL;
    length = (length + PAGE_SIZE - 1) & ~(uint64_t)(PAGE_SIZE - 1);
    if (start + length < start)
        return -EINVAL;
    return 0;
}
