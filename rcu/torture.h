/* The RCU torture test, shared by ktest=rcutorture and /proc/rcustress
 * (user/rcustress.c): see rcu/torture.c. */
#ifndef RCU_TORTURE_H
#define RCU_TORTURE_H

#include <stddef.h>
#include <stdint.h>

#include "kernel/lib/cpumask.h"

#define RCU_TORTURE_PIPE_LEN 10     /* GPs an object lives through after removal, as in Linux */

struct rcu_torture_result {
    uint64_t reads, irq_reads, writes, syncs, barriers;
    uint64_t reads_per_cpu[MAX_CPUS];
    uint64_t errors;                /* poison, generation, pipeline or leak errors */
    uint64_t gps;                   /* grace periods completed during the run */
    uint64_t stalls;                /* stalls reported during the run */
    uint64_t pipe[RCU_TORTURE_PIPE_LEN + 1];    /* reader pipeline-age histogram */
    unsigned cpus;
};

/* Run for duration_ns of clock time; 0, or -EBUSY if a run is going on. */
int rcu_torture_run(uint64_t duration_ns, struct rcu_torture_result *result);

/* The result as text, one "rcutorture: ..." line each. */
struct proc_text;
void rcu_torture_format(const struct rcu_torture_result *result, struct proc_text *text);

#endif
