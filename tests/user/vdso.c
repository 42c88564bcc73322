/* vdso: the vDSO, as Linux maps one (docs/user-space.md, "The vDSO").
 * AT_SYSINFO_EHDR points at an ELF shared object; its dynamic symbols
 * are looked up as musl's vdso lookup does (DT_HASH, DT_VERSYM,
 * DT_VERDEF), and __vdso_clock_gettime, __vdso_gettimeofday, __vdso_time
 * and __vdso_getcpu must be there at version LINUX_2.6. Each is then
 * called directly and held against the system call: a reading of the
 * vDSO lies between two system calls' readings (the order, never a
 * bound in time), readings never go back on one CPU or across CPUs,
 * getcpu names the CPU the task is pinned to. Attacks: the vDSO unmapped
 * (calling it is SIGSEGV, as on Linux; a fork keeps it unmapped, an exec
 * maps it again), or made writable and written (only the writer's copy
 * changes). On nohzk also: a nohz task reading the clock a million times
 * enters the kernel 0 times (counted in /proc/tick's decisions), and with
 * the TSC unstable (tsc=unstable) every read is a system call.
 * Runs on the Linux host (host-vdso.*) and on nohzk (scenario vdso: musl,
 * static glibc and a PIE started by Debian's dynamic loader (the
 * DYNAMIC_BUILD variant, build/tests-user/vdso.dyn) in one boot; and
 * vdso-tsc-unstable, static glibc). */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "ktap.h"
#include "testlib.h"
#include "../../user/lib/nohz.h"
#include "../../user/lib/pin.h"

#define NS_PER_SECOND 1000000000ll
#define READS_PER_CPU 20000
#define NOHZ_READS 1000000
#define FALLBACK_READS 1000
#define SPAN_NS (2 * NS_PER_SECOND)

typedef int (*clock_gettime_fn)(clockid_t, struct timespec *);
typedef int (*gettimeofday_fn)(struct timeval *, void *);
typedef time_t (*time_fn)(time_t *);
typedef long (*getcpu_fn)(unsigned *, unsigned *, void *);
typedef int (*clock_getres_fn)(clockid_t, struct timespec *);

static clock_gettime_fn vdso_clock_gettime;
static gettimeofday_fn vdso_gettimeofday;
static time_fn vdso_time;
static getcpu_fn vdso_getcpu;
static clock_getres_fn vdso_clock_getres;
static char self[4096];

/* ---- The lookup, after musl's src/internal/vdso.c ---- */

static int version_matches(const Elf64_Versym *versym, size_t index, const Elf64_Verdef *verdef,
                           const char *strings, const char *want)
{
    if (!versym)
        return 0;
    Elf64_Half version = versym[index] & 0x7fff;
    for (; ; verdef = (const Elf64_Verdef *)((const char *)verdef + verdef->vd_next)) {
        if (!(verdef->vd_flags & VER_FLG_BASE) && (verdef->vd_ndx & 0x7fff) == version) {
            const Elf64_Verdaux *aux = (const Elf64_Verdaux *)((const char *)verdef + verdef->vd_aux);
            return !strcmp(want, strings + aux->vda_name);
        }
        if (!verdef->vd_next)
            return 0;
    }
}

/* The address of name@version in the vDSO, or NULL; *gnu_hash says
 * whether DT_GNU_HASH is there too (glibc's lookup uses it). */
static void *vdso_symbol(const char *name, const char *version, int *gnu_hash)
{
    const Elf64_Ehdr *header = (const Elf64_Ehdr *)getauxval(AT_SYSINFO_EHDR);
    if (!header)
        return NULL;
    const Elf64_Phdr *phdr = (const Elf64_Phdr *)((const char *)header + header->e_phoff);
    const uint64_t *dynamic = NULL;
    uintptr_t base = (uintptr_t)-1;
    for (int i = 0; i < header->e_phnum; i++) {
        if (phdr[i].p_type == PT_LOAD)
            base = (uintptr_t)header + phdr[i].p_offset - phdr[i].p_vaddr;
        else if (phdr[i].p_type == PT_DYNAMIC)
            dynamic = (const uint64_t *)((const char *)header + phdr[i].p_offset);
    }
    if (!dynamic || base == (uintptr_t)-1)
        return NULL;
    const char *strings = NULL;
    const Elf64_Sym *symbols = NULL;
    const Elf32_Word *hash = NULL;
    const Elf64_Versym *versym = NULL;
    const Elf64_Verdef *verdef = NULL;
    *gnu_hash = 0;
    for (int i = 0; dynamic[i]; i += 2) {
        void *pointer = (void *)(base + dynamic[i + 1]);
        switch (dynamic[i]) {
        case DT_STRTAB: strings = pointer; break;
        case DT_SYMTAB: symbols = pointer; break;
        case DT_HASH: hash = pointer; break;
        case DT_GNU_HASH: *gnu_hash = 1; break;
        case DT_VERSYM: versym = pointer; break;
        case DT_VERDEF: verdef = pointer; break;
        }
    }
    if (!strings || !symbols || !hash || !verdef)
        return NULL;
    for (size_t i = 0; i < hash[1]; i++) {
        const Elf64_Sym *symbol = &symbols[i];
        if (ELF64_ST_TYPE(symbol->st_info) != STT_FUNC || symbol->st_shndx == SHN_UNDEF)
            continue;
        if ((1 << ELF64_ST_BIND(symbol->st_info)) & ~((1 << STB_GLOBAL) | (1 << STB_WEAK)))
            continue;
        if (strcmp(name, strings + symbol->st_name) || !version_matches(versym, i, verdef, strings, version))
            continue;
        return (void *)(base + symbol->st_value);
    }
    return NULL;
}

/* Where the vDSO is mapped and how long: its line in /proc/self/maps
 * where there is one (Linux refuses to split its mapping: EINVAL), else
 * (nohzk) its first PT_LOAD. */
static int vdso_extent(uintptr_t *start, size_t *length)
{
    const Elf64_Ehdr *header = (const Elf64_Ehdr *)getauxval(AT_SYSINFO_EHDR);
    if (!header)
        return 0;
    FILE *maps = fopen("/proc/self/maps", "r");
    char line[512];
    unsigned long from, to;
    while (maps && fgets(line, sizeof(line), maps))
        if (strstr(line, "[vdso]") && sscanf(line, "%lx-%lx", &from, &to) == 2 && from == (uintptr_t)header) {
            fclose(maps);
            *start = from;
            *length = to - from;
            return 1;
        }
    if (maps)
        fclose(maps);
    const Elf64_Phdr *phdr = (const Elf64_Phdr *)((const char *)header + header->e_phoff);
    for (int i = 0; i < header->e_phnum; i++)
        if (phdr[i].p_type == PT_LOAD) {
            *start = (uintptr_t)header;
            *length = (phdr[i].p_memsz + 4095) & ~4095ul;
            return 1;
        }
    return 0;
}

static long long ns_of(const struct timespec *time)
{
    return time->tv_sec * NS_PER_SECOND + time->tv_nsec;
}

static long long syscall_ns(clockid_t clock)
{
    struct timespec time;
    if (syscall(SYS_clock_gettime, clock, &time) != 0)
        return -1;
    return ns_of(&time);
}

static long long vdso_ns(clockid_t clock)
{
    struct timespec time;
    if (vdso_clock_gettime(clock, &time) != 0)
        return -1;
    return ns_of(&time);
}

/* ---- The cases ---- */

static int aux_vector_points_at_an_elf_shared_object(void)
{
    const Elf64_Ehdr *header = (const Elf64_Ehdr *)getauxval(AT_SYSINFO_EHDR);
    CHECK(header != NULL);
    CHECK(!memcmp(header->e_ident, ELFMAG, SELFMAG));
    CHECK(header->e_ident[EI_CLASS] == ELFCLASS64 && header->e_type == ET_DYN && header->e_machine == EM_X86_64);
    CHECK((uintptr_t)header % 4096 == 0);
    return 1;
}

static int symbols_are_there_at_linux_2_6(void)
{
    int gnu_hash;
    vdso_clock_gettime = (clock_gettime_fn)vdso_symbol("__vdso_clock_gettime", "LINUX_2.6", &gnu_hash);
    vdso_gettimeofday = (gettimeofday_fn)vdso_symbol("__vdso_gettimeofday", "LINUX_2.6", &gnu_hash);
    vdso_time = (time_fn)vdso_symbol("__vdso_time", "LINUX_2.6", &gnu_hash);
    vdso_getcpu = (getcpu_fn)vdso_symbol("__vdso_getcpu", "LINUX_2.6", &gnu_hash);
    vdso_clock_getres = (clock_getres_fn)vdso_symbol("__vdso_clock_getres", "LINUX_2.6", &gnu_hash);
    CHECK(vdso_clock_gettime && vdso_gettimeofday && vdso_time && vdso_getcpu && vdso_clock_getres);
    CHECK(gnu_hash);
    CHECK(vdso_symbol("__vdso_clock_gettime", "LINUX_2.5", &gnu_hash) == NULL);     /* the version is checked */
    CHECK(vdso_symbol("__vdso_no_such_call", "LINUX_2.6", &gnu_hash) == NULL);
    return 1;
}

/* Each clock the vDSO serves: syscall <= vDSO <= syscall, many times.
 * The CPU-time clocks and an unknown one go to the system call. */
static int clock_gettime_lies_between_two_system_calls(void)
{
    static const clockid_t clocks[] = { CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_MONOTONIC_RAW,
                                        CLOCK_REALTIME_COARSE, CLOCK_MONOTONIC_COARSE, CLOCK_BOOTTIME, CLOCK_TAI };
    CHECK(vdso_clock_gettime);
    for (unsigned c = 0; c < sizeof(clocks) / sizeof(clocks[0]); c++)
        for (int i = 0; i < 1000; i++) {
            long long before = syscall_ns(clocks[c]), during = vdso_ns(clocks[c]), after = syscall_ns(clocks[c]);
            if (before > during || during > after)
                printf("# clock %d: %lld, vDSO %lld, %lld\n", (int)clocks[c], before, during, after);
            CHECK(before >= 0 && before <= during && during <= after);
        }
    struct timespec time;
    CHECK(vdso_clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time) == 0 && time.tv_nsec < NS_PER_SECOND);
    CHECK(vdso_clock_gettime(12345, &time) == -EINVAL);       /* the raw system call's answer, as Linux's */
    errno = 0;
    CHECK(syscall(SYS_clock_gettime, 12345, &time) == -1 && errno == EINVAL);
    CHECK(clock_gettime(CLOCK_MONOTONIC, &time) == 0 && ns_of(&time) <= syscall_ns(CLOCK_MONOTONIC));
    return 1;
}

static int gettimeofday_and_time_lie_between_two_system_calls(void)
{
    CHECK(vdso_gettimeofday && vdso_time);
    for (int i = 0; i < 1000; i++) {
        struct timeval during;
        long long before = syscall_ns(CLOCK_REALTIME) / 1000;
        CHECK(vdso_gettimeofday(&during, NULL) == 0);
        long long after = syscall_ns(CLOCK_REALTIME) / 1000;
        CHECK(before <= during.tv_sec * 1000000ll + during.tv_usec && during.tv_sec * 1000000ll + during.tv_usec <= after);
        time_t result = 0;
        before = syscall_ns(CLOCK_REALTIME) / NS_PER_SECOND;
        time_t seconds = vdso_time(&result), libc_seconds = time(NULL);
        after = syscall_ns(CLOCK_REALTIME) / NS_PER_SECOND;
        CHECK(seconds == result && seconds <= libc_seconds && libc_seconds <= after);
        /* Linux's time() is the last tick's second, which may lag the
         * fine clock by a tick; nohzk's is the fine clock's. */
        CHECK(seconds >= before - (on_nohzk() ? 0 : 1));
    }
    struct timeval tv;
    CHECK(vdso_gettimeofday(NULL, NULL) == 0 && vdso_gettimeofday(&tv, NULL) == 0);
    return 1;
}

static int clock_getres_agrees_with_the_system_call(void)
{
    static const clockid_t clocks[] = { CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_MONOTONIC_RAW, CLOCK_BOOTTIME,
                                        CLOCK_TAI, CLOCK_REALTIME_COARSE, CLOCK_MONOTONIC_COARSE, CLOCK_PROCESS_CPUTIME_ID };
    CHECK(vdso_clock_getres);
    for (unsigned c = 0; c < sizeof(clocks) / sizeof(clocks[0]); c++) {
        struct timespec from_vdso, from_syscall;
        CHECK(vdso_clock_getres(clocks[c], &from_vdso) == 0);
        CHECK(syscall(SYS_clock_getres, clocks[c], &from_syscall) == 0);
        CHECK(from_vdso.tv_sec == from_syscall.tv_sec && from_vdso.tv_nsec == from_syscall.tv_nsec);
        CHECK(vdso_clock_getres(clocks[c], NULL) == 0);
    }
    return 1;
}

/* Pinned to each CPU in turn: getcpu says that CPU, as the system call
 * does, and the readings go on rising from one CPU to the next. */
static int getcpu_and_readings_follow_the_cpu(void)
{
    cpu_set_t allowed;
    CHECK(vdso_getcpu && vdso_clock_gettime);
    CHECK(sched_getaffinity(0, sizeof(allowed), &allowed) == 0);
    long long last = 0;
    int cpus = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) {
        if (!CPU_ISSET(cpu, &allowed))
            continue;
        CHECK(pin_to_cpu(0, cpu) == 0);
        unsigned from_vdso = 9999, node = 9999, from_syscall = 8888;
        CHECK(vdso_getcpu(&from_vdso, &node, NULL) == 0);
        CHECK(syscall(SYS_getcpu, &from_syscall, NULL, NULL) == 0);
        CHECK(from_vdso == (unsigned)cpu && from_syscall == (unsigned)cpu && node == 0);
        CHECK(sched_getcpu() == cpu);
        CHECK(vdso_getcpu(NULL, NULL, NULL) == 0);
        for (int i = 0; i < READS_PER_CPU; i++) {
            long long now = vdso_ns(CLOCK_MONOTONIC);
            if (now < last)
                printf("# cpu %d: %lld after %lld\n", cpu, now, last);
            CHECK(now >= last);
            last = now;
        }
        cpus++;
    }
    CHECK(sched_setaffinity(0, sizeof(allowed), &allowed) == 0);
    CHECK(cpus >= 1);
    return 1;
}

/* Two threads on two CPUs: each reading is at least the latest the other
 * had published before it read. */
static _Atomic long long latest;
static atomic_int backwards;

static void *read_against_the_other(void *cpu)
{
    if (pin_to_cpu(0, (int)(intptr_t)cpu) != 0)
        atomic_store(&backwards, -1);
    for (int i = 0; i < READS_PER_CPU; i++) {
        long long seen = atomic_load(&latest), now = vdso_ns(CLOCK_MONOTONIC);
        if (now < seen)
            atomic_fetch_add(&backwards, 1);
        while (seen < now && !atomic_compare_exchange_weak(&latest, &seen, now))
            ;
    }
    return NULL;
}

static int readings_never_go_back_across_cpus(void)
{
    if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
        ktap_skip_reason = "one CPU";
        return 1;
    }
    pthread_t threads[2];
    CHECK(vdso_clock_gettime);
    for (intptr_t i = 0; i < 2; i++)
        CHECK(pthread_create(&threads[i], NULL, read_against_the_other, (void *)i) == 0);
    for (int i = 0; i < 2; i++)
        pthread_join(threads[i], NULL);
    printf("# %d readings behind the other CPU's\n", atomic_load(&backwards));
    CHECK(atomic_load(&backwards) == 0);
    return 1;
}

/* ---- nohzk: how often the clock enters the kernel ---- */

struct decisions {
    unsigned long decisions, timer_irqs, all_irqs, rechecks_skipped, rechecks_made;
};

static char tick_text[65536];

/* cpu's row in /proc/tick's table that starts with title: 1 if found. */
static int row_of(const char *title, int cpu, const char *format, unsigned long *a, unsigned long *b,
                  unsigned long *c)
{
    for (char *line = strstr(tick_text, title); line && (line = strchr(line, '\n'));) {
        int row_cpu;
        line++;
        if (sscanf(line, format, &row_cpu, a, b, c) >= 3 && row_cpu == cpu)
            return 1;
    }
    return 0;
}

/* /proc/tick's counts of cpu: each way back to user mode is a tick
 * decision (the tick running on an isolated CPU) or a stopped-tick
 * recheck, skipped or made; less the interrupts, that counts system
 * calls and exceptions. 1, or 0 if a row is missing. */
static int decisions_read(int cpu, struct decisions *counts)
{
    unsigned long unused;
    int fd = open("/proc/tick", O_RDONLY);
    if (fd < 0)
        return 0;
    ssize_t got = read(fd, tick_text, sizeof(tick_text) - 1);
    close(fd);
    if (got <= 0)
        return 0;
    tick_text[got] = 0;
    return row_of("tick decisions", cpu, "%d %lu %lu %lu", &counts->decisions, &counts->timer_irqs,
                  &counts->all_irqs) &&
           row_of("stopped-tick rechecks", cpu, "%d %lu %lu", &counts->rechecks_skipped, &counts->rechecks_made, &unused);
}

static unsigned long returns_to_user(const struct decisions *counts)
{
    return counts->decisions + counts->rechecks_skipped + counts->rechecks_made - counts->all_irqs;
}

static int tsc_unstable(void)
{
    decisions_read(0, &(struct decisions){ 0 });
    return strstr(tick_text, "tsc unstable") != NULL;
}

#define READS_BETWEEN 3     /* /proc/tick's open, read and close */

static unsigned long timer_irqs_during;

/* Kernel entries (not interrupts) on cpu while reads() runs, less the
 * READS_BETWEEN of the second read of the counts; -1 if unknown. The
 * timer interrupts in timer_irqs_during. */
static long entries_during(int cpu, void (*reads)(long), long count)
{
    struct decisions before, after;
    if (!decisions_read(cpu, &before) || !decisions_read(cpu, &before))    /* the first touches the pages */
        return -1;
    reads(count);
    if (!decisions_read(cpu, &after))
        return -1;
    timer_irqs_during = after.timer_irqs - before.timer_irqs;
    return (long)(returns_to_user(&after) - returns_to_user(&before)) - READS_BETWEEN;
}

static volatile long long sink;

static long long first_read, last_read, span_ns;
static long went_back;

/* count reads, and with the TSC stable for SPAN_NS at least: a nohz
 * task's tick stops meanwhile and nothing writes the data page for its
 * sake. Each reading at least the one before. */
static void libc_reads(long count)
{
    struct timespec now;
    long long until = 0;
    last_read = first_read = 0;
    for (long i = 0; i < count || last_read < until; i++) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        long long ns = ns_of(&now);
        went_back += ns < last_read;
        last_read = ns;
        if (!first_read)
            first_read = ns, until = span_ns ? ns + span_ns : 0;
        if (i % 1024 == 0)
            sink += gettimeofday(&(struct timeval){ 0 }, NULL) + time(NULL) + sched_getcpu();
    }
}

static void syscall_reads(long count)
{
    for (long i = 0; i < count; i++)
        sink += syscall_ns(CLOCK_MONOTONIC);
}

/* A nohz task on the last CPU reads the clock through its C library a
 * million times (and gettimeofday, time and getcpu now and then): no
 * system call. The same count of direct system calls is counted, so the
 * count is shown to count. With the TSC unstable, every read is one. */
static int nohz_reads(void)
{
    int cpu = (int)sysconf(_SC_NPROCESSORS_ONLN) - 1;
    CHECK(cpu >= 1);
    CHECK(pin_to_cpu(0, cpu) == 0 && write_nohz(0, "1") == 0);
    long control = entries_during(cpu, syscall_reads, FALLBACK_READS);
    int unstable = tsc_unstable();
    long reads = unstable ? FALLBACK_READS : NOHZ_READS;
    span_ns = unstable ? 0 : SPAN_NS;
    long long before = syscall_ns(CLOCK_MONOTONIC);
    long entries = entries_during(cpu, libc_reads, reads);
    long long after = syscall_ns(CLOCK_MONOTONIC);
    printf("# cpu %d, tsc %s: %ld reads or more through the C library over %lld ms entered the kernel %ld times "
           "(%lu timer interrupts); %d system calls %ld\n", cpu, unstable ? "unstable" : "stable", reads,
           (last_read - first_read) / 1000000, entries, timer_irqs_during, FALLBACK_READS, control);
    write_nohz(0, "0");
    CHECK(control >= FALLBACK_READS);     /* and a first touch of a page or two */
    CHECK(unstable ? entries >= reads : entries == 0);
    CHECK(went_back == 0 && before <= first_read && last_read <= after);
    return 1;
}

static int nohz_task_reads_the_clock_without_entering_the_kernel(void)
{
    if (!on_nohzk()) {
        ktap_skip_reason = "Linux has no /proc/tick";
        return 1;
    }
    return ktap_run_in_child(nohz_reads);     /* it pins and marks the task */
}

/* ---- Attacks ---- */

static int unmap_vdso(void)
{
    uintptr_t start;
    size_t length;
    if (!vdso_extent(&start, &length)) {
        printf("# no PT_LOAD in the vDSO at %#lx\n", getauxval(AT_SYSINFO_EHDR));
        return 0;
    }
    if (munmap((void *)start, length) != 0) {
        printf("# munmap(%#lx, %zu): errno %d\n", (unsigned long)start, length, errno);
        return 0;
    }
    return 1;
}

static void time_after_unmap(void)
{
    if (!unmap_vdso())
        _exit(3);
    sink += time(NULL);         /* through the C library's saved pointer */
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    _exit(0);
}

/* Linux lets a program unmap its vDSO; the C library still calls it:
 * SIGSEGV. */
static int unmapped_vdso_kills_its_caller(void)
{
    int status = status_of_child(time_after_unmap);
    if (!killed_by(status, SIGSEGV))
        printf("# status %#x\n", status);
    CHECK(killed_by(status, SIGSEGV));
    return 1;
}

/* A fork keeps it unmapped (the child dies the same way); an exec maps
 * it again (the new program finds it and reads the clock). */
static void fork_then_exec_after_unmap(void)
{
    if (!unmap_vdso())
        _exit(3);
    pid_t child = fork();
    if (child == 0) {
        sink += syscall_ns(CLOCK_MONOTONIC) + vdso_ns(CLOCK_MONOTONIC);    /* pointer found before the unmap */
        _exit(0);
    }
    if (!killed_by(wait_status(child), SIGSEGV))
        _exit(4);
    execl(self, self, "--exec-check", (char *)NULL);
    _exit(5);
}

static int exec_check(void)
{
    int gnu_hash;
    clock_gettime_fn found = (clock_gettime_fn)vdso_symbol("__vdso_clock_gettime", "LINUX_2.6", &gnu_hash);
    struct timespec time;
    if (!found || found(CLOCK_MONOTONIC, &time) != 0)
        return 6;
    long long after = syscall_ns(CLOCK_MONOTONIC);
    return ns_of(&time) <= after ? 0 : 7;
}

static int fork_keeps_it_unmapped_and_exec_maps_it_again(void)
{
    CHECK(vdso_clock_gettime);
    int status = status_of_child(fork_then_exec_after_unmap);
    if (!exited_with(status, 0))
        printf("# status %#x (exit 3: unmap failed, 4: the forked child lived, 5: exec failed, 6: no vDSO after "
               "exec, 7: its clock was ahead)\n", status);
    CHECK(exited_with(status, 0));
    return 1;
}

static unsigned char image_before[4096];

/* A child makes the vDSO writable and writes over it (and on nohzk over
 * the data page below it): the parent's vDSO and clock are unchanged. */
static void write_over_vdso(void)
{
    uintptr_t start;
    size_t length;
    if (!vdso_extent(&start, &length) || mprotect((void *)start, length, PROT_READ | PROT_WRITE | PROT_EXEC) != 0)
        _exit(3);
    memset((void *)start, 0xcc, length);
    if (on_nohzk()) {
        void *data = (void *)(start - 4096);
        if (mprotect(data, 4096, PROT_READ | PROT_WRITE) != 0)
            _exit(4);
        memset(data, 0xff, 4096);
    }
    _exit(0);
}

static int writing_over_it_changes_only_the_writer(void)
{
    uintptr_t start;
    size_t length;
    CHECK(vdso_clock_gettime && vdso_extent(&start, &length));
    memcpy(image_before, (void *)start, sizeof(image_before));
    int status = status_of_child(write_over_vdso);
    if (!exited_with(status, 0))
        printf("# status %#x (exit 3: mprotect of the image failed, 4: of the data page)\n", status);
    CHECK(exited_with(status, 0));
    CHECK(!memcmp(image_before, (void *)start, sizeof(image_before)));
    long long before = syscall_ns(CLOCK_MONOTONIC), during = vdso_ns(CLOCK_MONOTONIC), after = syscall_ns(CLOCK_MONOTONIC);
    CHECK(before <= during && during <= after);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--exec-check"))
        return exec_check();
    if (!find_self(argv[0], self, sizeof(self))) {
        printf("vdso: cannot find its own executable\n");
        return 1;
    }
    static const struct ktap_case cases[] = {
        KTAP_CASE(aux_vector_points_at_an_elf_shared_object),
        KTAP_CASE(symbols_are_there_at_linux_2_6),
        KTAP_CASE(clock_gettime_lies_between_two_system_calls),
        KTAP_CASE(gettimeofday_and_time_lie_between_two_system_calls),
        KTAP_CASE(clock_getres_agrees_with_the_system_call),
        KTAP_CASE(getcpu_and_readings_follow_the_cpu),
        KTAP_CASE(readings_never_go_back_across_cpus),
        KTAP_CASE(nohz_task_reads_the_clock_without_entering_the_kernel),
        KTAP_CASE(unmapped_vdso_kills_its_caller),
        KTAP_CASE(fork_keeps_it_unmapped_and_exec_maps_it_again),
        KTAP_CASE(writing_over_it_changes_only_the_writer),
    };
    return ktap_main(cases, KTAP_COUNT(cases));
}
