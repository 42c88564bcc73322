/* sysfs: the /sys files and /proc/PID/status lines that glibc and libnuma
 * read at start-up (rt-tests' cyclictest, oslat, hackbench), in Linux's
 * formats (docs/user-space.md, "/sys"): the CPU lists, cpuN directories,
 * the one memory node, Mems_allowed; and /sys refusing every change.
 *
 * On Linux (the host, Debian's 6.1) the machine's own answers are checked
 * for format and consistency: a list ends in a newline, online is within
 * possible, a node's CPUs are online CPUs. On nohzk the exact answer is
 * checked: one node, possible = present = online, kernel_max 254,
 * isolated empty, nohz_full the nohz_full= of /proc/cmdline or "(null)".
 * Scenarios rt-startup, rt-startup-glibc (with mempolicy and cpu_latency). */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/statfs.h>

#include "conform.h"
#include "ktap.h"
#include "testlib.h"

#define SYSFS_MAGIC 0x62656572
#define CPU "/sys/devices/system/cpu/"
#define NODE "/sys/devices/system/node/"
#define MAX_LISTED 4096

static char text[8192];

/* The whole of path in text, read in one go; its length, or -1. */
static long read_text(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    long length = read(fd, text, sizeof(text) - 1);
    close(fd);
    text[length > 0 ? length : 0] = '\0';
    return length;
}

/* A CPU or node list as Linux prints one ("0-3,5", maybe empty) into
 * set[], which has MAX_LISTED entries; the count, or -1 if malformed. */
static int parse_list(const char *list, unsigned char *set)
{
    memset(set, 0, MAX_LISTED);
    int count = 0;
    const char *p = list;
    while (*p && *p != '\n') {
        char *end;
        long first = strtol(p, &end, 10), last = first;
        if (end == p || first < 0 || first >= MAX_LISTED)
            return -1;
        p = end;
        if (*p == '-') {
            last = strtol(p + 1, &end, 10);
            if (end == p + 1 || last < first || last >= MAX_LISTED)
                return -1;
            p = end;
        }
        for (long i = first; i <= last; i++)
            count += !set[i], set[i] = 1;
        if (*p == ',')
            p++;
        else if (*p && *p != '\n')
            return -1;
    }
    return *p == '\n' && p[1] == '\0' ? count : -1;
}

/* A list file: read, ends in exactly one newline, parsed into set. */
static int read_list(const char *path, unsigned char *set)
{
    if (read_text(path) < 1)
        return -1;
    return parse_list(text, set);
}

static unsigned char possible[MAX_LISTED], present[MAX_LISTED], online[MAX_LISTED];

static int online_count(void)
{
    return read_list(CPU "online", online);
}

static int cpu_lists_in_linux_format(void)
{
    int n_possible = read_list(CPU "possible", possible);
    int n_present = read_list(CPU "present", present);
    int n_online = read_list(CPU "online", online);
    EXPECT(n_possible > 0 && n_present > 0 && n_online > 0);
    EXPECT(online[0]);                  /* the boot CPU */
    for (int i = 0; i < MAX_LISTED; i++)
        EXPECT((!online[i] || present[i]) && (!present[i] || possible[i]));
    EXPECT_VALUE(sysconf(_SC_NPROCESSORS_ONLN), n_online);
    if (on_nohzk()) {
        EXPECT(n_possible == n_online && n_present == n_online);
        EXPECT(memcmp(possible, online, sizeof(online)) == 0);
    }
    return 1;
}

/* What sched_getaffinity of a fresh process allows is online. */
static int affinity_is_within_online(void)
{
    EXPECT(online_count() > 0);
    cpu_set_t set;
    EXPECT(sched_getaffinity(0, sizeof(set), &set) == 0);
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
        EXPECT(!CPU_ISSET(cpu, &set) || online[cpu]);
    return 1;
}

/* cpuN is a directory for each online CPU; its online file, where there
 * is one (not for the boot CPU on x86), says 1. */
static int cpu_directories(void)
{
    EXPECT(online_count() > 0);
    for (int cpu = 0; cpu < MAX_LISTED; cpu++) {
        if (!online[cpu])
            continue;
        char path[64];
        struct stat st;
        snprintf(path, sizeof(path), CPU "cpu%d", cpu);
        EXPECT(stat(path, &st) == 0 && S_ISDIR(st.st_mode));
        snprintf(path, sizeof(path), CPU "cpu%d/online", cpu);
        long length = read_text(path);
        if (length < 0 && !on_nohzk() && errno == ENOENT)
            continue;           /* a kernel without CPU hotplug */
        if (cpu == 0 && on_nohzk()) {
            EXPECT(length < 0 && errno == ENOENT);
            continue;
        }
        EXPECT(length == 2 && strcmp(text, "1\n") == 0);
    }
    /* a directory past the last CPU is not there */
    EXPECT_ERROR(open(CPU "cpu4095", O_RDONLY), ENOENT);
    return 1;
}

/* getdents of the cpu directory lists cpuN for each online CPU. */
static int cpu_directory_lists_cpus(void)
{
    int n_online = online_count();
    EXPECT(n_online > 0);
    DIR *dir = opendir(CPU);
    EXPECT(dir != NULL);
    int listed = 0, files = 0;
    struct dirent *entry;
    while ((entry = readdir(dir))) {
        int cpu;
        char tail;
        if (sscanf(entry->d_name, "cpu%d%c", &cpu, &tail) == 1 && cpu >= 0 && cpu < MAX_LISTED && online[cpu])
            listed++;
        files += !strcmp(entry->d_name, "online") || !strcmp(entry->d_name, "possible") ||
                 !strcmp(entry->d_name, "present") || !strcmp(entry->d_name, "kernel_max");
    }
    closedir(dir);
    EXPECT(listed == n_online);
    EXPECT(files == 4);
    return 1;
}

static int kernel_max(void)
{
    EXPECT(read_list(CPU "possible", possible) > 0);
    EXPECT(read_text(CPU "kernel_max") > 1);
    char *end;
    long max = strtol(text, &end, 10);
    EXPECT(end != text && strcmp(end, "\n") == 0);
    for (int cpu = 0; cpu < MAX_LISTED; cpu++)
        EXPECT(!possible[cpu] || cpu <= max);
    if (on_nohzk())
        EXPECT(max == 254);         /* MAX_CPUS - 1 */
    return 1;
}

/* isolated: a list (empty without isolcpus=), within possible. */
static int isolated_cpus(void)
{
    static unsigned char isolated[MAX_LISTED];
    EXPECT(read_list(CPU "possible", possible) > 0);
    int count = read_list(CPU "isolated", isolated);
    EXPECT(count >= 0);
    for (int cpu = 0; cpu < MAX_LISTED; cpu++)
        EXPECT(!isolated[cpu] || possible[cpu]);
    if (on_nohzk())
        EXPECT(count == 0 && strcmp(text, "\n") == 0);
    return 1;
}

/* The nohz_full= of the kernel's command line, "" without one. */
static void nohz_full_parameter(char *list, size_t size)
{
    list[0] = '\0';
    if (read_text("/proc/cmdline") < 0)
        return;
    char *found = strstr(text, "nohz_full=");
    if (found && (found == text || found[-1] == ' ')) {
        found += strlen("nohz_full=");
        snprintf(list, size, "%.*s", (int)strcspn(found, " \n"), found);
    }
}

/* nohz_full: the CPUs of nohz_full=, or "(null)" (Linux 6.1 with
 * CONFIG_CPUMASK_OFFSTACK) or an empty list without it. A kernel built
 * without CONFIG_NO_HZ_FULL has no such file (the host may be one). */
static int nohz_full_cpus(void)
{
    char parameter[256];
    nohz_full_parameter(parameter, sizeof(parameter));
    long length = read_text(CPU "nohz_full");
    if (length < 0 && errno == ENOENT && !on_nohzk()) {
        ktap_skip_reason = "no " CPU "nohz_full: a kernel without CONFIG_NO_HZ_FULL";
        return 1;
    }
    EXPECT(length > 0 && text[length - 1] == '\n');
    if (!parameter[0]) {
        EXPECT(strcmp(text, "(null)\n") == 0 || (!on_nohzk() && strcmp(text, "\n") == 0));
        return 1;
    }
    static unsigned char shown[MAX_LISTED], asked[MAX_LISTED];
    char asked_text[300];
    snprintf(asked_text, sizeof(asked_text), "%s\n", parameter);
    EXPECT(parse_list(text, shown) > 0);
    EXPECT(parse_list(asked_text, asked) > 0);
    asked[0] = 0;                   /* both keep the boot CPU for housekeeping */
    EXPECT(memcmp(shown, asked, sizeof(asked)) == 0);
    return 1;
}

/* The node lists all contain node 0; on nohzk they are "0". */
static int node_lists(void)
{
    static unsigned char nodes[MAX_LISTED];
    static const char *const files[] = { NODE "possible", NODE "online", NODE "has_cpu", NODE "has_normal_memory" };
    for (unsigned i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        int count = read_list(files[i], nodes);
        if (count < 0)
            printf("# %s: \"%s\"\n", files[i], text);
        EXPECT(count > 0 && nodes[0]);
        if (on_nohzk())
            EXPECT(count == 1 && strcmp(text, "0\n") == 0);
    }
    return 1;
}

/* node0's CPUs: a list of online CPUs, and the same set as a bitmap
 * ("%*pb": hex words of 32 bits, highest first, joined by commas). On a
 * one-node machine, every online CPU. */
static int node_cpus(void)
{
    static unsigned char nodes[MAX_LISTED], listed[MAX_LISTED];
    int n_online = online_count(), n_nodes = read_list(NODE "online", nodes);
    EXPECT(n_online > 0 && n_nodes > 0);
    int count = read_list(NODE "node0/cpulist", listed);
    EXPECT(count > 0);
    for (int cpu = 0; cpu < MAX_LISTED; cpu++)
        EXPECT(!listed[cpu] || online[cpu]);
    if (n_nodes == 1)
        EXPECT(count == n_online);
    EXPECT(read_text(NODE "node0/cpumap") > 1);
    /* The bitmap, lowest word last. */
    char *end = text + strlen(text) - 1;
    EXPECT(*end == '\n');
    int bit = 0;
    while (end > text) {
        char *start = end;
        while (start > text && start[-1] != ',')
            start--;
        EXPECT(end - start >= 1 && end - start <= 8);
        char word_text[9];
        snprintf(word_text, sizeof(word_text), "%.*s", (int)(end - start), start);
        char *word_end;
        unsigned long word = strtoul(word_text, &word_end, 16);
        EXPECT(*word_end == '\0');
        for (int i = 0; i < 32 && bit + i < MAX_LISTED; i++)
            EXPECT(((word >> i) & 1) == listed[bit + i]);
        bit += 32;
        end = start > text ? start - 1 : text;
    }
    return 1;
}

/* A "Node 0 NAME:" line of node0/meminfo, in kB; -1 if absent or not in
 * Linux's layout ("Node %d MemTotal:       %8lu kB": the name and colon
 * padded to 16 columns, then the number right-aligned in 8 or more). */
static long node_meminfo(const char *name)
{
    char key[64];
    snprintf(key, sizeof(key), "Node 0 %s:", name);
    char *line = strstr(text, key);
    if (!line || (line != text && line[-1] != '\n') || strlen(key) > 23)
        return -1;
    for (size_t i = strlen(key); i < 23; i++)
        if (line[i] != ' ')
            return -1;
    const char *column = line + 23;
    char *end;
    long kb = strtol(column, &end, 10);
    if (end - column < 8 || (end - column > 8 && column[0] == ' '))
        return -1;
    return strncmp(end, " kB\n", 4) == 0 ? kb : -1;
}

static long proc_meminfo(const char *name)
{
    if (read_text("/proc/meminfo") < 0)
        return -1;
    char *line = strstr(text, name);
    return line ? strtol(line + strlen(name) + 1, NULL, 10) : -1;
}

/* node0/meminfo starts with MemTotal, MemFree, MemUsed (= total - free),
 * its total within the machine's; on one node the machine's. */
static int node_memory(void)
{
    static unsigned char nodes[MAX_LISTED];
    int n_nodes = read_list(NODE "online", nodes);
    long machine_total = proc_meminfo("MemTotal:");
    EXPECT(machine_total > 0 && n_nodes > 0);
    EXPECT(read_text(NODE "node0/meminfo") > 0);
    EXPECT(strncmp(text, "Node 0 MemTotal:", 16) == 0);
    long total = node_meminfo("MemTotal"), free = node_meminfo("MemFree"), used = node_meminfo("MemUsed");
    EXPECT(total > 0 && free > 0 && used > 0);
    EXPECT(free <= total && used == total - free);
    EXPECT(total <= machine_total);
    if (n_nodes == 1)
        EXPECT(total == machine_total);
    return 1;
}

/* A file read a byte at a time gives the text one read gives; lseek back
 * to 0 gives it again; a read into a bad buffer is EFAULT. */
static int reads_in_pieces_and_bad_buffers(void)
{
    char whole[256], pieces[256];
    EXPECT(read_text(CPU "online") > 0);
    snprintf(whole, sizeof(whole), "%.200s", text);
    int fd = open(CPU "online", O_RDONLY);
    EXPECT(fd >= 0);
    size_t got = 0;
    while (got < sizeof(pieces) - 1 && read(fd, pieces + got, 1) == 1)
        got++;
    pieces[got] = '\0';
    EXPECT(strcmp(pieces, whole) == 0);
    EXPECT_VALUE(read(fd, pieces, 1), 0);
    EXPECT_VALUE(lseek(fd, 0, SEEK_SET), 0);
    EXPECT_ERROR(syscall(SYS_read, fd, NULL, 10), EFAULT);
    EXPECT_ERROR(read(fd, (void *)KERNEL_ADDRESS, 10), EFAULT);
    EXPECT_ERROR(read(fd, (void *)NON_CANONICAL_LOW, 10), EFAULT);
    EXPECT_VALUE(read(fd, pieces, 0), 0);
    EXPECT_VALUE(read(fd, pieces, sizeof(pieces)), (long)strlen(whole));
    close(fd);
    return 1;
}

/* /sys takes no change, as Linux's, root included: a write open is EACCES,
 * so is O_CREAT; mkdir, symlink, removing or renaming a name is EPERM; a
 * rename to another file system is EXDEV. The files are unchanged after. */
static int refuses_every_change(void)
{
    EXPECT(read_text(CPU "online") > 0);
    char before[256];
    snprintf(before, sizeof(before), "%.200s", text);
    EXPECT_ERROR(open(CPU "online", O_WRONLY), EACCES);
    EXPECT_ERROR(open(CPU "online", O_RDWR), EACCES);
    EXPECT_ERROR(open(CPU "online", O_WRONLY | O_TRUNC), EACCES);
    EXPECT_ERROR(open(CPU "new_file", O_WRONLY | O_CREAT, 0644), EACCES);
    EXPECT_ERROR(open(CPU "new_file", O_RDONLY | O_CREAT, 0644), EACCES);
    EXPECT_ERROR(mkdir(CPU "new_directory", 0755), EPERM);
    EXPECT_ERROR(mkdir("/sys/new_directory", 0755), EPERM);
    EXPECT_ERROR(symlink("/", CPU "new_link"), EPERM);
    EXPECT_ERROR(unlink(CPU "online"), EPERM);
    EXPECT_ERROR(rmdir(CPU "cpu0"), EPERM);
    EXPECT_ERROR(rename(CPU "online", CPU "online2"), EPERM);
    EXPECT_ERROR(rename(CPU "online", "/proc/online"), EXDEV);
    EXPECT_ERROR(rename(CPU "online", "/online"), EXDEV);
    EXPECT(read_text(CPU "online") > 0 && strcmp(text, before) == 0);
    EXPECT_ERROR(open(CPU "new_file", O_RDONLY), ENOENT);
    EXPECT_ERROR(open(CPU "online2", O_RDONLY), ENOENT);
    return 1;
}

/* /sys is a sysfs of its own: statfs's magic, a device apart from / and
 * /proc, listed in /proc/mounts. */
static int mounted_as_sysfs(void)
{
    struct statfs fs;
    EXPECT(statfs(CPU "online", &fs) == 0);
    EXPECT(fs.f_type == SYSFS_MAGIC);
    struct stat sys, root, proc;
    EXPECT(stat("/sys", &sys) == 0 && stat("/", &root) == 0 && stat("/proc", &proc) == 0);
    EXPECT(sys.st_dev != root.st_dev && sys.st_dev != proc.st_dev);
    EXPECT(read_text("/proc/mounts") > 0);
    EXPECT(strstr(text, " /sys sysfs rw,") != NULL);     /* Linux names its source as mount(8) was told */
    return 1;
}

/* Mems_allowed and Mems_allowed_list of /proc/self/status: a bitmap of
 * MAX_NUMNODES bits (32-bit hex words, commas, a power of two of them)
 * with node 0, and its list; on nohzk 1024 bits and "0", as Debian's
 * Linux 6.1 prints on one node. */
static int status_mems_allowed(void)
{
    EXPECT(read_text("/proc/self/status") > 0);
    char *line = strstr(text, "\nMems_allowed:\t");
    EXPECT(line != NULL);
    line += strlen("\nMems_allowed:\t");
    size_t length = strcspn(line, "\n");
    EXPECT(length % 9 == 8);
    unsigned words = (unsigned)(length + 1) / 9;
    EXPECT((words & (words - 1)) == 0);
    for (unsigned i = 0; i < words; i++) {
        const char *word = line + i * 9;
        EXPECT(strspn(word, "0123456789abcdef") == 8 && (i + 1 == words || word[8] == ','));
    }
    EXPECT(strtoul(line + length - 8, NULL, 16) & 1);
    char *list = strstr(line, "\nMems_allowed_list:\t");
    EXPECT(list == line + length);          /* the next line */
    list += strlen("\nMems_allowed_list:\t");
    static unsigned char nodes[MAX_LISTED], allowed[MAX_LISTED];
    char list_text[256];
    snprintf(list_text, sizeof(list_text), "%.*s\n", (int)strcspn(list, "\n"), list);
    EXPECT(parse_list(list_text, allowed) > 0 && allowed[0]);
    if (read_list(NODE "online", nodes) == 1)
        EXPECT(strcmp(list_text, "0\n") == 0);
    if (on_nohzk())
        EXPECT(words == 32);
    return 1;
}

int main(void)
{
    static const struct ktap_case cases[] = {
        KTAP_CASE(cpu_lists_in_linux_format),
        KTAP_CASE(affinity_is_within_online),
        KTAP_CASE(cpu_directories),
        KTAP_CASE(cpu_directory_lists_cpus),
        KTAP_CASE(kernel_max),
        KTAP_CASE(isolated_cpus),
        KTAP_CASE(nohz_full_cpus),
        KTAP_CASE(node_lists),
        KTAP_CASE(node_cpus),
        KTAP_CASE(node_memory),
        KTAP_CASE(reads_in_pieces_and_bad_buffers),
        KTAP_CASE(refuses_every_change),
        KTAP_CASE(mounted_as_sysfs),
        KTAP_CASE(status_mems_allowed),
    };
    return conform_main(cases, KTAP_COUNT(cases));
}
