/* mempolicy: set_mempolicy, get_mempolicy, mbind, migrate_pages and
 * set_mempolicy_home_node as Linux answers them on a machine with one
 * memory node (libnuma's numa_available(), cyclictest's and oslat's
 * bindings): every mode with node 0, a mask naming only other nodes
 * EINVAL, maxnode's rules, bad pointers EFAULT, the policy per thread and
 * inherited by fork. The cases need one node: on a NUMA host they skip.
 * Scenarios rt-startup, rt-startup-glibc. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "conform.h"
#include "ktap.h"
#include "testlib.h"

#ifndef SYS_set_mempolicy_home_node
#define SYS_set_mempolicy_home_node 450
#endif

#define MPOL_DEFAULT 0
#define MPOL_PREFERRED 1
#define MPOL_BIND 2
#define MPOL_INTERLEAVE 3
#define MPOL_LOCAL 4
#define MPOL_PREFERRED_MANY 5
#define MPOL_F_STATIC_NODES (1 << 15)
#define MPOL_F_RELATIVE_NODES (1 << 14)
#define MPOL_F_NUMA_BALANCING (1 << 13)
#define MPOL_F_NODE 1
#define MPOL_F_ADDR 2
#define MPOL_F_MEMS_ALLOWED 4
#define MPOL_MF_STRICT 1

static long set_policy(int mode, const unsigned long *mask, unsigned long maxnode)
{
    return syscall(SYS_set_mempolicy, mode, mask, maxnode);
}

static long get_policy(int *mode, unsigned long *mask, unsigned long maxnode, void *address, unsigned long flags)
{
    return syscall(SYS_get_mempolicy, mode, mask, maxnode, address, flags);
}

static long bind_range(void *start, unsigned long length, int mode, const unsigned long *mask, unsigned long maxnode,
                       unsigned flags)
{
    return syscall(SYS_mbind, start, length, mode, mask, maxnode, flags);
}

/* One node (node 0) on this machine? Else the case skips. */
static int one_node(void)
{
    char text[64] = "";
    FILE *file = fopen("/sys/devices/system/node/online", "r");
    if (file) {
        if (!fgets(text, sizeof(text), file))
            text[0] = '\0';
        fclose(file);
    }
    if (strcmp(text, "0\n") == 0)
        return 1;
    ktap_skip_reason = "not a one-node machine";
    return 0;
}

/* The calling thread's policy and its first mask word. */
static int policy_now(int *mode, unsigned long *nodes)
{
    unsigned long mask[16];
    memset(mask, 0xff, sizeof(mask));
    *mode = -1;
    if (get_policy(mode, mask, 1024, NULL, 0) != 0)
        return 0;
    *nodes = mask[0];
    return 1;
}

static void reset_policy(void)
{
    set_policy(MPOL_DEFAULT, NULL, 0);
}

/* numa_available(): get_mempolicy(NULL, NULL, 0, 0, 0) is 0; the default
 * policy is MPOL_DEFAULT with no nodes. */
static int get_mempolicy_available_and_default(void)
{
    if (!one_node())
        return 1;
    EXPECT_VALUE(get_policy(NULL, NULL, 0, NULL, 0), 0);
    int mode;
    unsigned long nodes;
    EXPECT(policy_now(&mode, &nodes));
    EXPECT(mode == MPOL_DEFAULT && nodes == 0);
    return 1;
}

/* Each mode with node 0 is taken and read back; an empty MPOL_PREFERRED
 * is MPOL_LOCAL; MPOL_DEFAULT forgets it. */
static int set_mempolicy_every_mode_with_node_zero(void)
{
    if (!one_node())
        return 1;
    static const int modes[] = { MPOL_BIND, MPOL_INTERLEAVE, MPOL_PREFERRED, MPOL_PREFERRED_MANY,
                                 MPOL_BIND | MPOL_F_NUMA_BALANCING };
    unsigned long zero = 1, both = 3;
    int mode;
    unsigned long nodes;
    for (unsigned i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
        EXPECT_VALUE(set_policy(modes[i], &zero, 2), 0);
        EXPECT(policy_now(&mode, &nodes));
        if (mode != modes[i] || nodes != 1)
            printf("# mode %#x: read back %#x, nodes %#lx\n", modes[i], mode, nodes);
        EXPECT(mode == modes[i] && nodes == 1);
        if (modes[i] & MPOL_F_NUMA_BALANCING)
            continue;           /* Linux 6.18 keeps this one's mask as given */
        EXPECT_VALUE(set_policy(modes[i], &both, 64), 0);       /* node 1 is not there: node 0 */
        EXPECT(policy_now(&mode, &nodes));
        if (mode != modes[i] || nodes != 1)
            printf("# mode %#x with nodes 0-1: read back %#x, nodes %#lx\n", modes[i], mode, nodes);
        EXPECT(mode == modes[i] && nodes == 1);
    }
    EXPECT_VALUE(set_policy(MPOL_LOCAL, NULL, 0), 0);
    EXPECT(policy_now(&mode, &nodes) && mode == MPOL_LOCAL && nodes == 0);
    EXPECT_VALUE(set_policy(MPOL_PREFERRED, NULL, 0), 0);
    EXPECT(policy_now(&mode, &nodes) && mode == MPOL_LOCAL && nodes == 0);
    /* static and relative masks are kept as the user gave them */
    EXPECT_VALUE(set_policy(MPOL_BIND | MPOL_F_STATIC_NODES, &both, 64), 0);
    EXPECT(policy_now(&mode, &nodes) && mode == (MPOL_BIND | MPOL_F_STATIC_NODES) && nodes == 3);
    unsigned long two = 4;
    EXPECT_VALUE(set_policy(MPOL_INTERLEAVE | MPOL_F_RELATIVE_NODES, &two, 64), 0);
    EXPECT(policy_now(&mode, &nodes) && mode == (MPOL_INTERLEAVE | MPOL_F_RELATIVE_NODES) && nodes == 4);
    EXPECT_VALUE(set_policy(MPOL_DEFAULT, NULL, 0), 0);
    EXPECT(policy_now(&mode, &nodes) && mode == MPOL_DEFAULT && nodes == 0);
    return 1;
}

/* Bad modes and masks are EINVAL and leave the policy as it was. */
static int set_mempolicy_bad_modes_and_nodes(void)
{
    if (!one_node())
        return 1;
    unsigned long zero = 1, one = 2, high[32] = { 0 };
    EXPECT_VALUE(set_policy(MPOL_INTERLEAVE, &zero, 64), 0);
    if (on_nohzk())
        EXPECT_ERROR(set_policy(6, &zero, 64), EINVAL);    /* Linux 6.9 added MPOL_WEIGHTED_INTERLEAVE, 6 */
    EXPECT_ERROR(set_policy(7, &zero, 64), EINVAL);
    EXPECT_ERROR(set_policy(-1, &zero, 64), EINVAL);
    EXPECT_ERROR(set_policy(MPOL_BIND | MPOL_F_STATIC_NODES | MPOL_F_RELATIVE_NODES, &zero, 64), EINVAL);
    EXPECT_ERROR(set_policy(MPOL_INTERLEAVE | MPOL_F_NUMA_BALANCING, &zero, 64), EINVAL);
    EXPECT_ERROR(set_policy(MPOL_DEFAULT, &zero, 64), EINVAL);
    EXPECT_ERROR(set_policy(MPOL_LOCAL, &zero, 64), EINVAL);
    EXPECT_ERROR(set_policy(MPOL_PREFERRED | MPOL_F_STATIC_NODES, NULL, 0), EINVAL);
    EXPECT_ERROR(set_policy(MPOL_BIND, NULL, 64), EINVAL);         /* no nodes */
    EXPECT_ERROR(set_policy(MPOL_BIND, &zero, 1), EINVAL);         /* maxnode 1: no bits */
    EXPECT_ERROR(set_policy(MPOL_BIND, &zero, 0), EINVAL);         /* maxnode 0 wraps */
    EXPECT_ERROR(set_policy(MPOL_BIND, &one, 64), EINVAL);
    EXPECT_ERROR(set_policy(MPOL_PREFERRED, &one, 64), EINVAL);
    EXPECT_ERROR(set_policy(MPOL_INTERLEAVE, &one, 64), EINVAL);
    EXPECT_ERROR(set_policy(MPOL_BIND, &zero, 4096 * 8 + 2), EINVAL);   /* more than a page of bits */
    EXPECT_ERROR(set_policy(MPOL_BIND, &zero, ~0ul), EINVAL);
    /* bits past MAX_NUMNODES (1024 here, up to Linux's 1024): zero is fine, one is not */
    high[0] = 1;
    EXPECT_VALUE(set_policy(MPOL_BIND, high, 32 * 64 + 1), 0);
    high[31] = 1ul << 63;
    EXPECT_ERROR(set_policy(MPOL_BIND, high, 32 * 64 + 1), EINVAL);
    high[31] = 1ul << 63;                           /* past maxnode - 1 bits, but in the word: checked */
    EXPECT_ERROR(set_policy(MPOL_PREFERRED, high, 32 * 64), EINVAL);
    high[31] = 0;
    EXPECT_VALUE(set_policy(MPOL_PREFERRED, high, 32 * 64), 0);
    int mode;
    unsigned long nodes;
    EXPECT(policy_now(&mode, &nodes) && mode == MPOL_PREFERRED && nodes == 1);
    reset_policy();
    return 1;
}

/* Bad pointers: EFAULT, the policy unchanged. */
static int get_mempolicy_bad_pointers(void)
{
    if (!one_node())
        return 1;
    unsigned long zero = 1, mask[16];
    int mode;
    EXPECT_VALUE(set_policy(MPOL_INTERLEAVE, &zero, 64), 0);
    EXPECT_ERROR(set_policy(MPOL_BIND, (unsigned long *)KERNEL_ADDRESS, 64), EFAULT);
    EXPECT_ERROR(set_policy(MPOL_BIND, (unsigned long *)NON_CANONICAL_LOW, 64), EFAULT);
    EXPECT_ERROR(set_policy(MPOL_BIND, (unsigned long *)unmapped_page(), 64), EFAULT);
    EXPECT_ERROR(get_policy((int *)KERNEL_ADDRESS, NULL, 0, NULL, 0), EFAULT);
    EXPECT_ERROR(get_policy(&mode, (unsigned long *)KERNEL_ADDRESS, 64, NULL, 0), EFAULT);
    EXPECT_ERROR(get_policy(&mode, (unsigned long *)NON_CANONICAL_HIGH, 64, NULL, 0), EFAULT);
    EXPECT_ERROR(get_policy(&mode, mask, 0, NULL, 0), EINVAL);      /* fewer bits than nodes */
    EXPECT_ERROR(get_policy(&mode, mask, 4096 * 8 + 2, NULL, 0), EINVAL);
    /* maxnode 1: no bits to give, nothing written */
    mask[0] = 77;
    EXPECT_VALUE(get_policy(&mode, mask, 1, NULL, 0), 0);
    EXPECT(mask[0] == 77 && mode == MPOL_INTERLEAVE);
    /* 1024 bits: the words past node 0's zeroed */
    memset(mask, 0xff, sizeof(mask));
    EXPECT_VALUE(get_policy(&mode, mask, 1025, NULL, 0), 0);
    for (int i = 1; i < 16; i++)
        EXPECT(mask[i] == 0);
    EXPECT(mask[0] == 1);
    reset_policy();
    return 1;
}

/* get_mempolicy's flags as libnuma uses them. */
static int get_mempolicy_flags(void)
{
    if (!one_node())
        return 1;
    unsigned long zero = 1, mask[16];
    int node = -1;
    char *page = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    EXPECT(page != MAP_FAILED);
    memset(mask, 0, sizeof(mask));
    EXPECT_VALUE(get_policy(&node, mask, 1024, NULL, MPOL_F_MEMS_ALLOWED), 0);
    EXPECT(node == 0 && mask[0] == 1);
    EXPECT_ERROR(get_policy(&node, mask, 1024, NULL, MPOL_F_MEMS_ALLOWED | MPOL_F_NODE), EINVAL);
    EXPECT_ERROR(get_policy(&node, mask, 1024, NULL, 8), EINVAL);
    EXPECT_ERROR(get_policy(&node, mask, 1024, page, 0), EINVAL);        /* an address without MPOL_F_ADDR */
    EXPECT_VALUE(set_policy(MPOL_BIND, &zero, 64), 0);
    EXPECT_ERROR(get_policy(&node, NULL, 0, NULL, MPOL_F_NODE), EINVAL); /* only for interleave */
    EXPECT_VALUE(set_policy(MPOL_INTERLEAVE, &zero, 64), 0);
    node = -1;
    EXPECT_VALUE(get_policy(&node, NULL, 0, NULL, MPOL_F_NODE), 0);
    EXPECT(node == 0);
    /* the node of a page, faulted in if need be */
    node = -1;
    EXPECT_VALUE(get_policy(&node, NULL, 0, page, MPOL_F_NODE | MPOL_F_ADDR), 0);
    EXPECT(node == 0);
    /* a range that nobody mbind()ed: MPOL_DEFAULT, whatever the thread's */
    node = -1;
    EXPECT_VALUE(get_policy(&node, mask, 1024, page, MPOL_F_ADDR), 0);
    EXPECT(node == MPOL_DEFAULT && mask[0] == 0);
    EXPECT_ERROR(get_policy(&node, NULL, 0, unmapped_page(), MPOL_F_ADDR), EFAULT);
    EXPECT_ERROR(get_policy(&node, NULL, 0, (void *)KERNEL_ADDRESS, MPOL_F_ADDR), EFAULT);
    EXPECT_ERROR(get_policy(&node, NULL, 0, (void *)NON_CANONICAL_LOW, MPOL_F_ADDR | MPOL_F_NODE), EFAULT);
    munmap(page, PAGE);
    reset_policy();
    return 1;
}

/* mbind: a mapped range with node 0; Linux's errors for the rest. */
static int mbind_ranges(void)
{
    if (!one_node())
        return 1;
    unsigned long zero = 1, one = 2;
    char *pages = mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    EXPECT(pages != MAP_FAILED);
    EXPECT_VALUE(bind_range(pages, 3 * PAGE, MPOL_BIND, &zero, 64, MPOL_MF_STRICT), 0);
    EXPECT_VALUE(bind_range(pages, 1, MPOL_INTERLEAVE, &zero, 64, 0), 0);
    EXPECT_VALUE(bind_range(pages, 3 * PAGE, MPOL_DEFAULT, NULL, 0, 0), 0);
    EXPECT_VALUE(bind_range(pages, 0, MPOL_BIND, &zero, 64, 0), 0);
    EXPECT_VALUE(bind_range(unmapped_page(), 0, MPOL_BIND, &zero, 64, 0), 0);   /* nothing to do */
    EXPECT_ERROR(bind_range(pages + 1, PAGE, MPOL_BIND, &zero, 64, 0), EINVAL);
    EXPECT_ERROR(bind_range(pages, PAGE, MPOL_BIND, &zero, 64, 8), EINVAL);
    EXPECT_ERROR(bind_range(pages, PAGE, MPOL_BIND, &one, 64, 0), EINVAL);
    EXPECT_ERROR(bind_range(pages, PAGE, 7, &zero, 64, 0), EINVAL);
    EXPECT_ERROR(bind_range(pages, PAGE, -1, &zero, 64, 0), EINVAL);
    EXPECT_ERROR(bind_range(pages, PAGE, MPOL_BIND, (unsigned long *)KERNEL_ADDRESS, 64, 0), EFAULT);
    EXPECT_ERROR(bind_range(pages, -(2 * PAGE), MPOL_BIND, &zero, 64, 0), EINVAL);    /* wraps */
    EXPECT_ERROR(bind_range((void *)KERNEL_ADDRESS, PAGE, MPOL_BIND, &zero, 64, 0), EFAULT);
    EXPECT_ERROR(bind_range((void *)NON_CANONICAL_LOW, PAGE, MPOL_BIND, &zero, 64, 0), EFAULT);
    munmap(pages + PAGE, PAGE);
    EXPECT_ERROR(bind_range(pages, 3 * PAGE, MPOL_BIND, &zero, 64, 0), EFAULT);       /* a hole */
    EXPECT_ERROR(bind_range(pages + PAGE, PAGE, MPOL_BIND, &zero, 64, 0), EFAULT);
    munmap(pages, 3 * PAGE);
    return 1;
}

/* migrate_pages: with one node nothing moves (0 left behind). */
static int migrate_pages_and_set_mempolicy_home_node(void)
{
    if (!one_node())
        return 1;
    unsigned long zero = 1, one = 2;
    EXPECT_VALUE(syscall(SYS_migrate_pages, 0, 64, &zero, &zero), 0);
    EXPECT_VALUE(syscall(SYS_migrate_pages, getpid(), 64, &one, &zero), 0);
    EXPECT_ERROR(syscall(SYS_migrate_pages, getpid(), 64, &zero, &one), EINVAL);  /* no allowed node to go to */
    EXPECT_ERROR(syscall(SYS_migrate_pages, getpid(), 64, NULL, NULL), EINVAL);
    EXPECT_ERROR(syscall(SYS_migrate_pages, 0x3fffffff, 64, &zero, &zero), ESRCH);
    EXPECT_ERROR(syscall(SYS_migrate_pages, -1, 64, &zero, &zero), ESRCH);
    EXPECT_ERROR(syscall(SYS_migrate_pages, 0, 64, (unsigned long *)KERNEL_ADDRESS, &zero), EFAULT);
    EXPECT_ERROR(syscall(SYS_migrate_pages, 0, 64, &zero, (unsigned long *)NON_CANONICAL_LOW), EFAULT);
    EXPECT_ERROR(syscall(SYS_migrate_pages, 0, 4096 * 8 + 2, &zero, &zero), EINVAL);
    char *pages = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    EXPECT(pages != MAP_FAILED);
    /* a range without a policy: left alone, 0 on Linux 6.1 and nohzk;
     * ENOENT on later Linux */
    long home = syscall(SYS_set_mempolicy_home_node, pages, PAGE, 0, 0);
    printf("# set_mempolicy_home_node of a range without a policy: %ld (errno %d)\n", home, home ? errno : 0);
    EXPECT(home == 0 || (!on_nohzk() && home == -1 && errno == ENOENT));
    EXPECT_ERROR(syscall(SYS_set_mempolicy_home_node, pages, PAGE, 1, 0), EINVAL);
    EXPECT_ERROR(syscall(SYS_set_mempolicy_home_node, pages, PAGE, 0, 1), EINVAL);
    EXPECT_ERROR(syscall(SYS_set_mempolicy_home_node, pages + 1, PAGE, 0, 0), EINVAL);
    EXPECT_ERROR(syscall(SYS_set_mempolicy_home_node, pages, PAGE, 1l << 40, 0), EINVAL);
    munmap(pages, PAGE);
    return 1;
}

static void *thread_body(void *unused)
{
    (void)unused;
    int mode;
    unsigned long nodes, zero = 1;
    long seen = policy_now(&mode, &nodes) ? mode : -1;
    set_policy(MPOL_PREFERRED, &zero, 64);       /* its own: not the creator's */
    return (void *)seen;
}

/* The policy is the thread's: a new thread and a fork child start with
 * the creator's; a thread's change stays its own. */
static int per_thread_and_inherited(void)
{
    if (!one_node())
        return 1;
    unsigned long zero = 1;
    EXPECT_VALUE(set_policy(MPOL_INTERLEAVE, &zero, 64), 0);
    pthread_t thread;
    void *seen;
    EXPECT(pthread_create(&thread, NULL, thread_body, NULL) == 0);
    EXPECT(pthread_join(thread, &seen) == 0);
    EXPECT((long)seen == MPOL_INTERLEAVE);
    int mode;
    unsigned long nodes;
    EXPECT(policy_now(&mode, &nodes) && mode == MPOL_INTERLEAVE);
    fflush(stdout);
    pid_t child = fork();
    if (child == 0)
        _exit(policy_now(&mode, &nodes) && mode == MPOL_INTERLEAVE && nodes == 1 ? 0 : 1);
    EXPECT(exited_with(wait_status(child), 0));
    reset_policy();
    return 1;
}

int main(void)
{
    static const struct ktap_case cases[] = {
        KTAP_CASE(get_mempolicy_available_and_default),
        KTAP_CASE(set_mempolicy_every_mode_with_node_zero),
        KTAP_CASE(set_mempolicy_bad_modes_and_nodes),
        KTAP_CASE(get_mempolicy_bad_pointers),
        KTAP_CASE(get_mempolicy_flags),
        KTAP_CASE(mbind_ranges),
        KTAP_CASE(migrate_pages_and_set_mempolicy_home_node),
        KTAP_CASE(per_thread_and_inherited),
    };
    return conform_main(cases, KTAP_COUNT(cases));
}
