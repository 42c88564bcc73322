/* The kernel command line parameters, once parsed (kernel/init/params.c lists
 * them with their types and defaults). */
#ifndef KERNEL_PARAMS_H
#define KERNEL_PARAMS_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/lib/cpumask.h"

#define KTEST_NAMES_SIZE 256

struct kernel_params {
    char ktest[KTEST_NAMES_SIZE];   /* ktest=: suites to run, "" for none */
    char bench[KTEST_NAMES_SIZE];   /* bench=: benchmarks to run, "" for none */
    char nohz_full[CPULIST_FORMAT_SIZE];    /* nohz_full=: a CPU list, checked once CPUs are up */
    char idle[CPULIST_FORMAT_SIZE + 8];     /* idle=: halt, poll or poll:LIST (sched/idle_poll.h) */
    bool force_pit;                 /* clocksource=pit */
    bool require_hpet;              /* clocksource=hpet: say so if there is none */
    bool tsc_unstable;              /* tsc=unstable: as if the TSC watchdog had marked it */
    bool fw_cfg_required;           /* fw_cfg=required: opt/nohzk/cmdline must be there */
};

extern struct kernel_params kernel_params;
extern const char *kernel_command_line;    /* the boot loader's, then fw_cfg's */

/* Parse and report every bad word on the console; keeps the defaults for
 * those. Returns the number of problems. */
int params_parse(const char *cmdline);

#endif
