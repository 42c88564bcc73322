/* Housekeeping CPUs: see kernel/time/housekeeping.h. */
#include "kernel/time/housekeeping.h"

#include "kernel/lib/errno.h"
#include "kernel/base/percpu.h"

struct cpumask housekeeping_mask;

void housekeeping_init(void)
{
    cpumask_copy(&housekeeping_mask, &cpu_online_mask);
}

bool housekeeping_cpu(unsigned cpu)
{
    return cpumask_test_atomic(&housekeeping_mask, cpu);
}

unsigned housekeeping_pick_cpu(void)
{
    unsigned cpu = this_cpu_id();
    if (housekeeping_cpu(cpu))
        return cpu;
    struct cpumask snapshot = housekeeping_mask;
    return cpumask_first(&snapshot);
}

void housekeeping_remove(unsigned cpu)
{
    cpumask_clear_atomic(&housekeeping_mask, cpu);
}

void housekeeping_add(unsigned cpu)
{
    cpumask_set_atomic(&housekeeping_mask, cpu);
}

int housekeeping_set(const struct cpumask *mask)
{
    struct cpumask online;

    cpumask_and(&online, mask, &cpu_online_mask);
    if (cpumask_empty(&online) || !cpumask_equal(&online, mask))
        return -EINVAL;
    /* Add first, then remove: readers never see an empty set. */
    for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++) {
        if (cpumask_test(mask, cpu))
            cpumask_set_atomic(&housekeeping_mask, cpu);
    }
    for (unsigned cpu = 0; cpu < MAX_CPUS; cpu++) {
        if (!cpumask_test(mask, cpu))
            cpumask_clear_atomic(&housekeeping_mask, cpu);
    }
    return 0;
}
