/* The HPET's main counter as a clocksource. Its period (in femtoseconds) is
 * in the capabilities register; we convert counts to nanoseconds with one
 * 64x64->128-bit multiply and a shift (no division on the read path). */
#include "arch/x86/clock.h"
#include "arch/x86/paging.h"
#include "kernel/base/printk.h"

#define HPET_CAPABILITIES   0x000
#define HPET_CONFIGURATION  0x010
#define HPET_MAIN_COUNTER   0x0f0
#define HPET_ENABLE         (1ul << 0)
#define HPET_LEGACY_ROUTE   (1ul << 1)
#define HPET_COUNTER_64BIT  (1ul << 13)
#define FEMTOSECONDS_PER_NS 1000000ul

static volatile uint64_t *hpet;
static uint64_t ns_per_count_scaled;    /* period in ns, << 32 */
static uint64_t start_count;

static uint64_t hpet_read(unsigned offset) { return hpet[offset / 8]; }
static void hpet_write(unsigned offset, uint64_t value) { hpet[offset / 8] = value; }

bool hpet_init(uint64_t phys_address)
{
    hpet = ioremap(phys_address, PAGE_SIZE);
    uint64_t capabilities = hpet_read(HPET_CAPABILITIES);
    uint64_t period_fs = capabilities >> 32;

    if (period_fs == 0 || period_fs > 100000000ul) {
        printk("clock: HPET reports a bad period (%lu fs), not using it\n", period_fs);
        return false;
    }
    if (!(capabilities & HPET_COUNTER_64BIT)) {
        printk("clock: HPET counter is only 32 bits, not using it\n");
        return false;
    }
    ns_per_count_scaled = (period_fs << 32) / FEMTOSECONDS_PER_NS;
    hpet_write(HPET_CONFIGURATION, hpet_read(HPET_CONFIGURATION) & ~HPET_LEGACY_ROUTE);
    hpet_write(HPET_CONFIGURATION, hpet_read(HPET_CONFIGURATION) | HPET_ENABLE);
    start_count = hpet_read(HPET_MAIN_COUNTER);
    printk("clock: HPET at %#lx, %lu MHz\n", phys_address, 1000000000ul / (period_fs / 1000) / 1000);
    return true;
}

uint64_t hpet_read_ns(void)
{
    uint64_t counts = hpet_read(HPET_MAIN_COUNTER) - start_count;
    return (uint64_t)(((unsigned __int128)counts * ns_per_count_scaled) >> 32);
}
