/* The PIT (8254) channel 0 as a fallback clocksource when there is no HPET.
 * It counts down at 1.193182 MHz from 65536 and reloads (mode 2), so a read
 * sees only where in the current 55 ms period we are. Each read adds the
 * counts elapsed since the previous read (modulo 65536) to a 64-bit total;
 * that is right as long as reads come at least every 55 ms, which the
 * timekeeper's tick guarantees (kernel/time/tick_stop.c: keep_reason() never
 * stops it on this clock).
 * Reads are serialized by a lock: the total is shared by all CPUs. */
#include "arch/x86/clock.h"
#include "arch/x86/cpu.h"
#include "kernel/base/spinlock.h"

#define PIT_CHANNEL0        0x40
#define PIT_COMMAND         0x43
#define PIT_FREQUENCY_HZ    1193182ul
#define PIT_MODE2_CHANNEL0  0x34    /* channel 0, low then high byte, mode 2 */
#define PIT_LATCH_CHANNEL0  0x00

static struct spinlock pit_lock = SPINLOCK_INIT("pit");
static uint16_t last_count;
static uint64_t total_counts;
static uint64_t ns_per_count_scaled;    /* << 32 */

static uint16_t read_count(void)
{
    outb(PIT_COMMAND, PIT_LATCH_CHANNEL0);
    uint8_t low = inb(PIT_CHANNEL0);
    uint8_t high = inb(PIT_CHANNEL0);
    return (uint16_t)(low | high << 8);
}

void pit_clock_init(void)
{
    outb(PIT_COMMAND, PIT_MODE2_CHANNEL0);
    outb(PIT_CHANNEL0, 0);      /* reload value 0 means 65536 */
    outb(PIT_CHANNEL0, 0);
    ns_per_count_scaled = (1000000000ul << 32) / PIT_FREQUENCY_HZ;
    last_count = read_count();
}

uint64_t pit_read_ns(void)
{
    spin_lock(&pit_lock);
    uint16_t count = read_count();
    total_counts += (uint16_t)(last_count - count);     /* counts down, wraps */
    last_count = count;
    uint64_t total = total_counts;
    spin_unlock(&pit_lock);
    return (uint64_t)(((unsigned __int128)total * ns_per_count_scaled) >> 32);
}
