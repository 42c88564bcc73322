/* proc_rss: /proc/PID/status's VmSize and VmRSS, and stat's vsize and
 * rss, count the address space (docs/memory.md): a mapping of N pages
 * adds N pages to VmSize at once; reading them maps the zero page, which
 * is not resident; writing them adds N pages to VmRSS; unmapping takes
 * both back. nohzk's answers are exact; on Linux (tests/run:
 * host-proc_rss.*, linux-proc_rss.*) the counts are approximate, and get
 * slack_kb(). Scenarios proc-rss, proc-rss-glibc. */
#include <fcntl.h>
#include <stdlib.h>

#include "conform.h"
#include "ktap.h"

#define PAGES 256

/* Slack in kB on Linux, whose RSS counters are approximate (proc(5): "a
 * kernel-internal scalability optimization"): 6.1 caches them per task
 * and folds them in every 64 faults, later versions keep per-CPU batches
 * of 64 pages, so a count may lag by about 64 pages per CPU (Debian's 6.1
 * under QEMU showed 832 kB after reading 1 MiB of fresh pages). nohzk
 * counts exactly. */
static long slack_kb(void)
{
    return conform_on_nohzk() ? 0 : 64 * 4 * sysconf(_SC_NPROCESSORS_ONLN);
}

static char text[4096];

/* The file's text, read with read(2): no malloc to move the numbers. */
static int read_text(const char *path)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return 0;
    ssize_t length = read(fd, text, sizeof(text) - 1);
    close(fd);
    text[length > 0 ? length : 0] = '\0';
    return length > 0;
}

/* A "Name:\t   N kB" line of /proc/self/status; -1 if missing. */
static long status_kb(const char *name)
{
    if (!read_text("/proc/self/status"))
        return -1;
    const char *line = strstr(text, name);
    long kb;
    return line && sscanf(line + strlen(name), ":%ld kB", &kb) == 1 ? kb : -1;
}

/* Fields 23 (vsize, bytes) and 24 (rss, pages) of /proc/self/stat. */
static int stat_sizes(unsigned long *vsize, long *rss)
{
    if (!read_text("/proc/self/stat"))
        return 0;
    const char *p = strrchr(text, ')');
    if (!p)
        return 0;
    p += 2;     /* field 3 */
    for (int field = 3; field < 23; field++) {
        p = strchr(p, ' ');
        if (!p)
            return 0;
        p++;
    }
    return sscanf(p, "%lu %ld", vsize, rss) == 2;
}

static int near_within(long got, long want, long slack)
{
    if (got >= want - slack && got <= want + slack)
        return 1;
    printf("# got %ld kB, want %ld kB (slack %ld)\n", got, want, slack);
    return 0;
}

static int near(long got, long want)
{
    return near_within(got, want, slack_kb());
}

static char *map_pages(void)
{
    char *pages = mmap(NULL, PAGES * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return pages == MAP_FAILED ? NULL : pages;
}

static int status_has_sizes(void)
{
    EXPECT(status_kb("VmSize") > 0);
    EXPECT(status_kb("VmRSS") > 0);
    EXPECT(status_kb("VmRSS") <= status_kb("VmSize"));
    return 1;
}

static int mapping_adds_to_vmsize_not_rss(void)
{
    long size = status_kb("VmSize"), rss = status_kb("VmRSS");
    char *pages = map_pages();
    EXPECT(pages != NULL);
    long size_after = status_kb("VmSize"), rss_after = status_kb("VmRSS");
    munmap(pages, PAGES * PAGE);
    EXPECT(near(size_after - size, PAGES * 4));
    EXPECT(near(rss_after - rss, 0));
    return 1;
}

static int reading_maps_the_zero_page_not_resident(void)
{
    char *pages = map_pages();
    EXPECT(pages != NULL);
    long rss = status_kb("VmRSS");
    volatile char sum = 0;
    for (int i = 0; i < PAGES; i++)
        sum += pages[i * PAGE];
    long rss_after = status_kb("VmRSS");
    munmap(pages, PAGES * PAGE);
    EXPECT(near(rss_after - rss, 0));
    return 1;
}

static int writing_makes_pages_resident(void)
{
    char *pages = map_pages();
    EXPECT(pages != NULL);
    long rss = status_kb("VmRSS");
    for (int i = 0; i < PAGES; i++)
        pages[i * PAGE] = 1;
    long rss_after = status_kb("VmRSS");
    munmap(pages, PAGES * PAGE);
    long rss_unmapped = status_kb("VmRSS");
    EXPECT(near(rss_after - rss, PAGES * 4));
    EXPECT(near(rss_unmapped, rss));
    return 1;
}

/* stat's vsize (bytes) and rss (pages) say what status says. */
static int stat_agrees_with_status(void)
{
    char *pages = map_pages();
    EXPECT(pages != NULL);
    for (int i = 0; i < PAGES / 2; i++)
        pages[i * PAGE] = 1;
    unsigned long vsize;
    long rss_pages;
    int ok = stat_sizes(&vsize, &rss_pages);
    long size = status_kb("VmSize"), rss = status_kb("VmRSS");
    munmap(pages, PAGES * PAGE);
    EXPECT(ok);
    EXPECT(near((long)(vsize / 1024), size));
    EXPECT(near_within(rss_pages * 4, rss, slack_kb()));
    EXPECT(rss_pages * 4 >= PAGES / 2 * 4 - slack_kb());
    return 1;
}

/* A forked child has the same pages mapped and resident (shared). */
static int a_fork_child_counts_the_same(void)
{
    char *pages = map_pages();
    EXPECT(pages != NULL);
    for (int i = 0; i < PAGES; i++)
        pages[i * PAGE] = 1;
    long size = status_kb("VmSize"), rss = status_kb("VmRSS");
    int fds[2];
    EXPECT(pipe(fds) == 0);
    pid_t child = fork();
    if (child == 0) {
        long sizes[2] = { status_kb("VmSize"), status_kb("VmRSS") };
        _exit(write(fds[1], sizes, sizeof(sizes)) == sizeof(sizes) ? 0 : 1);
    }
    long sizes[2] = { 0, 0 };
    ssize_t got = read(fds[0], sizes, sizeof(sizes));
    waitpid(child, NULL, 0);
    close(fds[0]);
    close(fds[1]);
    munmap(pages, PAGES * PAGE);
    EXPECT(got == sizeof(sizes));
    EXPECT(near(sizes[0], size));
    EXPECT(near_within(sizes[1], rss, slack_kb()));
    EXPECT(sizes[1] >= PAGES * 4);
    return 1;
}

int main(void)
{
    static const struct ktap_case cases[] = {
        KTAP_CASE(status_has_sizes),
        KTAP_CASE(mapping_adds_to_vmsize_not_rss),
        KTAP_CASE(reading_maps_the_zero_page_not_resident),
        KTAP_CASE(writing_makes_pages_resident),
        KTAP_CASE(stat_agrees_with_status),
        KTAP_CASE(a_fork_child_counts_the_same),
    };
    return conform_main(cases, KTAP_COUNT(cases));
}
