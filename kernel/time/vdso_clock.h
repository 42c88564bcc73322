/* The clock the vDSO reads in user mode, and the system calls read in the
 * kernel: the TSC, converted by the vDSO's data page (Linux's vvar,
 * arch/x86/vdso/vdso_data.h), which the timekeeper steers toward the
 * clocksource (docs/tick.md, "The vDSO"). */
#ifndef KERNEL_TIME_VDSO_CLOCK_H
#define KERNEL_TIME_VDSO_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

/* At boot, after the TSC's calibration: the data page. */
void vdso_clock_init(void);
/* The data page's physical address, held by the kernel for ever (0 before
 * vdso_clock_init): kernel/process/vdso.c maps it read-only. */
uint64_t vdso_clock_data_page(void);
/* CLOCK_MONOTONIC as user mode reads it (coarse: in tick-period steps);
 * the clocksource once the TSC is marked unstable. */
uint64_t vdso_clock_ns(bool coarse);
/* The timekeeper's tick: steer the conversion every half second, and
 * tell the vDSO to make system calls once the TSC is marked unstable. */
void vdso_clock_update(uint64_t now);

#endif
