/* tick=periodic: every CPU ticks, always, as before dynticks. */
#include "kernel/time/tick_policy.h"

TICK_POLICY(periodic,
    .summary = "every CPU ticks, always",
    .rank = 10,
    .stop_when_idle = false);
