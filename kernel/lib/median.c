/* The median of a handful of values: see kernel/lib/median.h. */
#include "kernel/lib/median.h"

uint64_t median(uint64_t *values, unsigned count)
{
    for (unsigned i = 1; i < count; i++) {
        uint64_t value = values[i];
        unsigned j = i;
        for (; j > 0 && values[j - 1] > value; j--)
            values[j] = values[j - 1];
        values[j] = value;
    }
    return values[count / 2];
}
