/* Every kernel command line parameter nohzk understands, in one table.
 * Anything else on the command line is reported on the console (never
 * silently ignored), and a bad value keeps the default. */
#include "kernel/init/params.h"

#include "kernel/init/cmdline.h"
#include "kernel/base/printk.h"
#include "kernel/entry/syscall.h"
#include "kernel/fs/procfs.h"
#include "kernel/mm/fault_inject.h"
#include "kernel/time/tick.h"
#include "kernel/trace/trace.h"
#include "rcu/rcu.h"
#include "rcu/tree.h"

struct kernel_params kernel_params;

enum clocksource_choice { CLOCKSOURCE_AUTO, CLOCKSOURCE_HPET, CLOCKSOURCE_PIT };
static const char *const clocksource_names[] = { "auto", "hpet", "pit", 0 };

/* fw_cfg=required: the run's items come through QEMU's fw_cfg, and a boot
 * without them stops (kernel/init/fw_cfg_items.c). */
enum fw_cfg_choice { FW_CFG_AUTO, FW_CFG_REQUIRED };
static const char *const fw_cfg_names[] = { "auto", "required", 0 };

enum tsc_choice { TSC_AUTO, TSC_UNSTABLE };
static const char *const tsc_names[] = { "auto", "unstable", 0 };

static uint64_t hz = 1000;
static int tsc = TSC_AUTO;
static int clocksource = CLOCKSOURCE_AUTO;
static int fw_cfg = FW_CFG_AUTO;
/* tick=: a registered policy's name (TICK_POLICY, kernel/time/tick.h),
 * checked by tick_policy_select() once the line is parsed. */
static char tick_param[16] = TICK_POLICY_DEFAULT;

static struct kernel_param params[] = {
    PARAM_UINT_ONE_OF("hz", &hz, 100, 250, 1000),
    PARAM_STRING("ktest", kernel_params.ktest, sizeof(kernel_params.ktest)),
    PARAM_STRING("bench", kernel_params.bench, sizeof(kernel_params.bench)),
    PARAM_ENUM("clocksource", &clocksource, clocksource_names),
    PARAM_ENUM("tsc", &tsc, tsc_names),
    PARAM_STRING("tick", tick_param, sizeof(tick_param)),
    PARAM_STRING("nohz_full", kernel_params.nohz_full, sizeof(kernel_params.nohz_full)),
    PARAM_STRING("idle", kernel_params.idle, sizeof(kernel_params.idle)),
    PARAM_BOOL("strace", &syscall_trace),
    PARAM_UINT_RANGE("rcu_fanout", &rcu_fanout_param, RCU_FANOUT_MIN, RCU_FANOUT_MAX),
    PARAM_UINT_RANGE("rcu_stall_timeout", &rcu_stall_timeout_param, 1, 300),
    PARAM_BOOL("rcu_check", &rcu_check),
    PARAM_STRING("trace", trace_param, sizeof(trace_param)),
    PARAM_UINT_RANGE("trace_size", &trace_size_param, 16, 1u << 20),
    PARAM_CPULIST("rcu_nocbs", &rcu_nocbs_param),
    PARAM_UINT_RANGE("fail_alloc", &fail_alloc_percent, 0, 100),
    PARAM_UINT_RANGE("mm_race_window_us", &mm_race_window_us, 0, 10000),
    PARAM_ENUM("fw_cfg", &fw_cfg, fw_cfg_names),
};

static void report(void *ctx, const char *message)
{
    (void)ctx;
    printk("cmdline: %s\n", message);
}

const char *kernel_command_line = "";

int params_parse(const char *cmdline)
{
    kernel_command_line = cmdline;      /* the boot loader's line and fw_cfg's, kept for /proc/cmdline */
    int errors = cmdline_parse(cmdline, params, sizeof(params) / sizeof(params[0]), report, 0);

    tick_hz = (unsigned)hz;
    if (tick_policy_select(tick_param) < 0) {
        char names[128];
        tick_policy_names(names, sizeof(names));
        printk("cmdline: tick=%s: no such policy, must be one of %s; tick=%s kept\n", tick_param, names,
               TICK_POLICY_DEFAULT);
        tick_policy_select(TICK_POLICY_DEFAULT);
        errors++;
    }
    kernel_params.force_pit = clocksource == CLOCKSOURCE_PIT;
    kernel_params.require_hpet = clocksource == CLOCKSOURCE_HPET;
    kernel_params.tsc_unstable = tsc == TSC_UNSTABLE;
    kernel_params.fw_cfg_required = fw_cfg == FW_CFG_REQUIRED;
    return errors;
}

static void generate_cmdline(struct proc_text *text)
{
    proc_printf(text, "%s\n", kernel_command_line);
}

PROC_FILE("/proc/cmdline", generate_cmdline, NULL);
