/* RCU benchmarks, run by kernel/debug/bench.c: see rcu/bench.c. */
#ifndef RCU_BENCH_H
#define RCU_BENCH_H

void rcu_bench_synchronize(void);
void rcu_bench_callback_flood(void);

#endif
