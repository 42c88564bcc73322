/* The vDSO: clock_gettime, gettimeofday, time, getcpu and clock_getres
 * answered in user mode, as Linux's x86-64 vDSO answers them (the same
 * symbols at version LINUX_2.6, so glibc and musl find them through
 * AT_SYSINFO_EHDR). Built as a position-independent shared object with
 * vdso.lds, put into the kernel image (arch/x86/vdso_image.asm) and
 * mapped into every process (kernel/process/vdso.c), one page after its
 * data page (vdso_data.h), which kernel/time/vdso_clock.c keeps.
 *
 * Served here: REALTIME, MONOTONIC, MONOTONIC_RAW, BOOTTIME and TAI
 * (every clock counts from boot in nohzk: they differ by offsets that are
 * 0), and the two _COARSE clocks. The CPU-time clocks and anything else
 * make the system call, as on Linux; so does everything once the TSC is
 * marked unstable. Left out: the vgetrandom of Linux 6.11. */
#include "arch/x86/vdso/vdso_data.h"

#define NS_PER_SECOND 1000000000ul

#define SYS_gettimeofday  96
#define SYS_clock_gettime 228
#define SYS_clock_getres  229

enum {
    CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID, CLOCK_MONOTONIC_RAW,
    CLOCK_REALTIME_COARSE, CLOCK_MONOTONIC_COARSE, CLOCK_BOOTTIME, CLOCK_TAI = 11,
};

struct vdso_timespec { long tv_sec, tv_nsec; };
struct vdso_timeval { long tv_sec, tv_usec; };

/* The data page, one page below the vDSO's first byte (vdso.lds). */
extern const struct vdso_data vvar_page __attribute__((visibility("hidden")));

static long syscall2(long number, long a, long b)
{
    long result;
    __asm__ volatile("syscall" : "=a"(result) : "a"(number), "D"(a), "S"(b) : "rcx", "r11", "memory");
    return result;
}

/* The clock's reading in ns, or 0 for "make the system call". */
static int clock_ns(int clock, uint64_t *ns)
{
    int coarse = clock == CLOCK_REALTIME_COARSE || clock == CLOCK_MONOTONIC_COARSE;
    switch (clock) {
    case CLOCK_REALTIME: case CLOCK_MONOTONIC: case CLOCK_MONOTONIC_RAW: case CLOCK_REALTIME_COARSE:
    case CLOCK_MONOTONIC_COARSE: case CLOCK_BOOTTIME: case CLOCK_TAI:
        break;
    default:
        return 0;
    }
    if (!vdso_data_read(&vvar_page, coarse, ns))
        return 0;
    if (clock == CLOCK_REALTIME || clock == CLOCK_REALTIME_COARSE || clock == CLOCK_TAI)
        *ns += vvar_page.realtime_offset_ns;
    if (clock == CLOCK_TAI)
        *ns += vvar_page.tai_offset_ns;
    return 1;
}

int __vdso_clock_gettime(int clock, struct vdso_timespec *time)
{
    uint64_t ns;
    if (!clock_ns(clock, &ns))
        return syscall2(SYS_clock_gettime, clock, (long)time);
    time->tv_sec = ns / NS_PER_SECOND;
    time->tv_nsec = ns % NS_PER_SECOND;
    return 0;
}

int __vdso_gettimeofday(struct vdso_timeval *time, void *zone)
{
    uint64_t ns;
    if (zone || !clock_ns(CLOCK_REALTIME, &ns))
        return syscall2(SYS_gettimeofday, (long)time, (long)zone);
    if (time) {
        time->tv_sec = ns / NS_PER_SECOND;
        time->tv_usec = ns % NS_PER_SECOND / 1000;
    }
    return 0;
}

/* The fine clock, not Linux's last-tick seconds: here no tick need run
 * for the coarse value to move. */
long __vdso_time(long *result)
{
    uint64_t ns;
    long seconds;
    if (clock_ns(CLOCK_REALTIME, &ns)) {
        seconds = ns / NS_PER_SECOND;
    } else {
        struct vdso_timespec now;
        long error = syscall2(SYS_clock_gettime, CLOCK_REALTIME, (long)&now);
        if (error)
            return error;
        seconds = now.tv_sec;
    }
    if (result)
        *result = seconds;
    return seconds;
}

/* As the system call answers: 1 ns for every clock it knows. */
int __vdso_clock_getres(int clock, struct vdso_timespec *resolution)
{
    uint64_t ns;
    if (!clock_ns(clock, &ns))
        return syscall2(SYS_clock_getres, clock, (long)resolution);
    if (resolution) {
        resolution->tv_sec = 0;
        resolution->tv_nsec = 1;
    }
    return 0;
}

/* LSL of the per-CPU GDT entry (arch/x86/gdt.c), as Linux's vDSO does
 * where RDPID is missing; the third argument is unused, as on Linux. */
long __vdso_getcpu(unsigned *cpu, unsigned *node, void *unused)
{
    unsigned limit;
    (void)unused;
    __asm__ volatile("lsl %1, %0" : "=r"(limit) : "r"((unsigned)VDSO_CPUNODE_SELECTOR));
    if (cpu)
        *cpu = limit & ((1u << VDSO_CPUNODE_CPU_BITS) - 1);
    if (node)
        *node = limit >> VDSO_CPUNODE_CPU_BITS;
    return 0;
}

/* The names without the prefix, as Linux exports them too. */
int clock_gettime(int, struct vdso_timespec *) __attribute__((weak, alias("__vdso_clock_gettime")));
int gettimeofday(struct vdso_timeval *, void *) __attribute__((weak, alias("__vdso_gettimeofday")));
long time(long *) __attribute__((weak, alias("__vdso_time")));
long getcpu(unsigned *, unsigned *, void *) __attribute__((weak, alias("__vdso_getcpu")));
int clock_getres(int, struct vdso_timespec *) __attribute__((weak, alias("__vdso_clock_getres")));
