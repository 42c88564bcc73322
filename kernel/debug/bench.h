/* In-kernel micro-benchmarks, run with bench=NAME[,NAME] (or bench=all).
 * Each prints lines "bench: NAME KEY=VALUE ..." that tools/measure/bench collects.
 * Numbers (TSC cycles measured on one CPU, clocksource ns, ticks) depend on
 * the host. */
#ifndef KERNEL_BENCH_H
#define KERNEL_BENCH_H

/* Returns the number of benchmarks that could not run. */
unsigned bench_run(const char *names);

#endif
