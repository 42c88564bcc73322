/* tick=idle: Linux's NO_HZ_IDLE. Only an idle CPU stops its tick. */
#include "kernel/time/tick_policy.h"

TICK_POLICY(idle,
    .summary = "idle CPUs stop their tick",
    .rank = 20,
    .stop_when_idle = true);
