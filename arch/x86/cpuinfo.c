/* /proc/cpuinfo in Linux's x86 format: one block per online CPU, the
 * fields busybox and scripts read (processor, vendor_id, model name,
 * flags...). The identity comes from CPUID on the reading CPU: every CPU
 * of a QEMU machine is the same model, so only processor, core id and
 * apicid differ from block to block. The flags are the CPUID bits named
 * as Linux names them, for the leaves 1, 7 and 0x80000001; bits with no
 * name here are left out. Left out: microcode, bugs, TLB size, power
 * management's list. cpu MHz is the TSC rate measured at boot, bogomips
 * twice that, as Linux's delay calibration gives on a TSC. */
#include <stdint.h>

#include "arch/x86/clock.h"
#include "arch/x86/cpu.h"
#include "kernel/base/percpu.h"
#include "kernel/fs/procfs.h"

struct flag_leaf {
    uint32_t leaf;
    int reg;                    /* 1 = ebx, 2 = ecx, 3 = edx */
    const char *names[32];      /* by bit; NULL: not shown */
};

static const struct flag_leaf flag_leaves[] = {
    { 1, 3, { "fpu", "vme", "de", "pse", "tsc", "msr", "pae", "mce", "cx8", "apic", 0, "sep", "mtrr", "pge",
              "mca", "cmov", "pat", "pse36", "pn", "clflush", 0, "dts", "acpi", "mmx", "fxsr", "sse", "sse2",
              "ss", "ht", "tm", "ia64", "pbe" } },
    { 0x80000001, 3, { [11] = "syscall", [19] = "mp", [20] = "nx", [22] = "mmxext", [25] = "fxsr_opt",
                       [26] = "pdpe1gb", [27] = "rdtscp", [29] = "lm", [30] = "3dnowext", [31] = "3dnow" } },
    { 1, 2, { "pni", "pclmulqdq", "dtes64", "monitor", "ds_cpl", "vmx", "smx", "est", "tm2", "ssse3", "cid",
              "sdbg", "fma", "cx16", "xtpr", "pdcm", 0, "pcid", "dca", "sse4_1", "sse4_2", "x2apic", "movbe",
              "popcnt", "tsc_deadline_timer", "aes", "xsave", 0, "avx", "f16c", "rdrand", "hypervisor" } },
    { 0x80000001, 2, { "lahf_lm", "cmp_legacy", "svm", "extapic", "cr8_legacy", "abm", "sse4a", "misalignsse",
                       "3dnowprefetch", "osvw", "ibs", "xop", "skinit", "wdt", 0, "lwp", "fma4", "tce", 0,
                       "nodeid_msr", 0, "tbm", "topoext", "perfctr_core", "perfctr_nb" } },
    { 7, 1, { "fsgsbase", "tsc_adjust", 0, "bmi1", "hle", "avx2", 0, "smep", "bmi2", "erms", "invpcid", "rtm",
              0, 0, "mpx", 0, "avx512f", "avx512dq", "rdseed", "adx", "smap", "avx512ifma", 0, "clflushopt",
              "clwb", "intel_pt", "avx512pf", "avx512er", "avx512cd", "sha_ni", "avx512bw", "avx512vl" } },
};

struct cpu_identity {
    char vendor[13], model_name[49];
    unsigned family, model, stepping, max_leaf, clflush, cache_kb, physical_bits, virtual_bits;
};

static uint32_t max_leaf_of(uint32_t base)
{
    uint32_t a, b, c, d;
    cpuid(base, 0, &a, &b, &c, &d);
    return a;
}

static void put_word(char *to, uint32_t word)
{
    for (int i = 0; i < 4; i++)
        to[i] = (char)(word >> (8 * i));
}

static void identify(struct cpu_identity *id)
{
    uint32_t a, b, c, d;
    cpuid(0, 0, &a, &b, &c, &d);
    id->max_leaf = a;
    put_word(id->vendor, b);
    put_word(id->vendor + 4, d);
    put_word(id->vendor + 8, c);
    id->vendor[12] = '\0';
    cpuid(1, 0, &a, &b, &c, &d);
    unsigned base_family = (a >> 8) & 0xf, base_model = (a >> 4) & 0xf;
    id->family = base_family == 0xf ? base_family + ((a >> 20) & 0xff) : base_family;
    id->model = base_family == 0x6 || base_family == 0xf ? base_model | ((a >> 16) & 0xf) << 4 : base_model;
    id->stepping = a & 0xf;
    id->clflush = ((b >> 8) & 0xff) * 8;
    uint32_t extended = max_leaf_of(0x80000000);
    id->model_name[0] = '\0';
    if (extended >= 0x80000004) {
        for (uint32_t leaf = 0; leaf < 3; leaf++) {
            cpuid(0x80000002 + leaf, 0, &a, &b, &c, &d);
            put_word(id->model_name + leaf * 16, a);
            put_word(id->model_name + leaf * 16 + 4, b);
            put_word(id->model_name + leaf * 16 + 8, c);
            put_word(id->model_name + leaf * 16 + 12, d);
        }
        id->model_name[48] = '\0';
    }
    id->cache_kb = 0;
    if (extended >= 0x80000006) {
        cpuid(0x80000006, 0, &a, &b, &c, &d);
        id->cache_kb = c >> 16;
    }
    id->physical_bits = 36, id->virtual_bits = 48;
    if (extended >= 0x80000008) {
        cpuid(0x80000008, 0, &a, &b, &c, &d);
        id->physical_bits = a & 0xff, id->virtual_bits = (a >> 8) & 0xff;
    }
}

static void print_flags(struct proc_text *text, const struct cpu_identity *id)
{
    uint32_t extended = max_leaf_of(0x80000000);
    for (unsigned i = 0; i < sizeof(flag_leaves) / sizeof(flag_leaves[0]); i++) {
        const struct flag_leaf *leaf = &flag_leaves[i];
        if (leaf->leaf >= 0x80000000 ? leaf->leaf > extended : leaf->leaf > id->max_leaf)
            continue;
        uint32_t regs[4];
        cpuid(leaf->leaf, 0, &regs[0], &regs[1], &regs[2], &regs[3]);
        for (int bit = 0; bit < 32; bit++)
            if (regs[leaf->reg] >> bit & 1 && leaf->names[bit])
                proc_printf(text, " %s", leaf->names[bit]);
    }
}

static void generate_cpuinfo(struct proc_text *text)
{
    struct cpu_identity id;
    identify(&id);
    const char *name = id.model_name;
    while (*name == ' ')
        name++;
    uint64_t khz = clock_tsc_khz();
    unsigned cpu;
    for_each_online_cpu(cpu) {
        proc_printf(text, "processor\t: %u\nvendor_id\t: %s\ncpu family\t: %u\nmodel\t\t: %u\n", cpu, id.vendor,
                    id.family, id.model);
        proc_printf(text, "model name\t: %s\nstepping\t: %u\n", name, id.stepping);
        proc_printf(text, "cpu MHz\t\t: %lu.%03lu\ncache size\t: %u KB\n", (unsigned long)(khz / 1000),
                    (unsigned long)(khz % 1000), id.cache_kb);
        proc_printf(text, "physical id\t: 0\nsiblings\t: %u\ncore id\t\t: %u\ncpu cores\t: %u\n", cpu_count, cpu,
                    cpu_count);
        proc_printf(text, "apicid\t\t: %u\ninitial apicid\t: %u\n", cpus[cpu]->apic_id, cpus[cpu]->apic_id);
        proc_printf(text, "fpu\t\t: yes\nfpu_exception\t: yes\ncpuid level\t: %u\nwp\t\t: yes\nflags\t\t:",
                    id.max_leaf);
        print_flags(text, &id);
        proc_printf(text, "\nbogomips\t: %lu.%02lu\n", (unsigned long)(2 * khz / 1000),
                    (unsigned long)(2 * khz % 1000 / 10));
        proc_printf(text, "clflush size\t: %u\ncache_alignment\t: %u\naddress sizes\t: %u bits physical, %u bits "
                          "virtual\npower management:\n\n",
                    id.clflush, id.clflush, id.physical_bits, id.virtual_bits);
    }
}

PROC_FILE("/proc/cpuinfo", generate_cpuinfo, NULL);
