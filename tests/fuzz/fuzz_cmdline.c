/* Fuzz target: kernel/init/cmdline.c, the kernel command line, with a table of
 * every kind of parameter. The input is the command line (cut at its
 * first NUL, as GRUB's string would be). Checks: every report is one line
 * of at most CMDLINE_MAX_MESSAGE characters, the count returned is the
 * count reported, and values stay in their declared ranges. */
#include <string.h>

#include "kernel/init/cmdline.h"
#include "tests/fuzz/fuzz.h"

static const char *const tick_names[] = {"periodic", "idle", "task", "full", NULL};

static uint64_t hz, rcu_fanout, count;
static int tick;
static bool strace;
static struct cpumask nohz_full;
static char init_path[16];

static struct kernel_param params[] = {
    PARAM_UINT_ONE_OF("hz", &hz, 100, 250, 1000),
    PARAM_UINT_RANGE("rcu_fanout", &rcu_fanout, 2, 64),
    PARAM_UINT("count", &count),
    PARAM_ENUM("tick", &tick, tick_names),
    PARAM_BOOL("strace", &strace),
    PARAM_CPULIST("nohz_full", &nohz_full),
    PARAM_STRING("init", init_path, sizeof(init_path)),
};

static int reports;

static void check_report(void *ctx, const char *message)
{
    (void)ctx;
    FUZZ_CHECK(strlen(message) <= CMDLINE_MAX_MESSAGE);
    FUZZ_CHECK(strchr(message, '\n') == NULL);
    reports++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *line = malloc(size + 1);
    memcpy(line, data, size);
    line[size] = '\0';
    hz = 1000;
    rcu_fanout = 16;
    tick = 2;
    reports = 0;
    int problems = cmdline_parse(line, params, sizeof(params) / sizeof(params[0]), check_report, NULL);
    FUZZ_CHECK(problems == reports);
    FUZZ_CHECK(hz == 100 || hz == 250 || hz == 1000);
    FUZZ_CHECK(rcu_fanout >= 2 && rcu_fanout <= 64);
    FUZZ_CHECK(tick >= 0 && tick <= 3);
    FUZZ_CHECK(memchr(init_path, '\0', sizeof(init_path)) != NULL);
    free(line);
    return 0;
}
