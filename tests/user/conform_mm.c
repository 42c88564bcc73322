/* conform_mm: mmap, munmap and brk at the edges of their arguments, each
 * answer compared with Linux's (see conform.h): lengths, flags, offsets,
 * descriptors, protections as the program sees them, and the break. The
 * ranges of munmap, mprotect and MAP_FIXED (huge, wrapping, past the user
 * half) are mm_ranges.c's. Runs on the Linux host (tests/run:
 * host-conform_mm.*) and on nohzk (scenarios conform-mm, conform-mm-glibc). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "ktap.h"
#include "conform.h"
#include "testlib.h"

#define ANONYMOUS (MAP_PRIVATE | MAP_ANONYMOUS)
#define MAP_FIXED_NOREPLACE_FLAG 0x100000
#define MAP_SHARED_VALIDATE_TYPE 0x03

static char file_path[64];

/* The raw call: the C libraries' wrappers answer some arguments themselves. */
static long raw_mmap(void *address, unsigned long length, long prot, long flags, long fd, long offset)
{
    return syscall(SYS_mmap, address, length, prot, flags, fd, offset);
}


/* ---- mmap: arguments ---- */

static int mmap_zero_length(void)
{
    EXPECT_ERROR(raw_mmap(NULL, 0, PROT_READ, ANONYMOUS, -1, 0), EINVAL);
    return 1;
}

static int mmap_no_map_type(void)
{
    EXPECT_ERROR(raw_mmap(NULL, PAGE, PROT_READ, MAP_ANONYMOUS, -1, 0), EINVAL);
    return 1;
}

/* Map types 4 to 15 do not exist. */
static int mmap_unknown_map_type(void)
{
    EXPECT_ERROR(raw_mmap(NULL, PAGE, PROT_READ, 0x06 | MAP_ANONYMOUS, -1, 0), EINVAL);
    EXPECT_ERROR(raw_mmap(NULL, PAGE, PROT_READ, 0x0f | MAP_ANONYMOUS, -1, 0), EINVAL);
    return 1;
}

/* Flag bits mmap does not know are ignored (only MAP_SHARED_VALIDATE
 * checks them, for files). */
static int mmap_unknown_flags_ignored(void)
{
    long address = raw_mmap(NULL, PAGE, PROT_READ | PROT_WRITE, ANONYMOUS | 0x200000, -1, 0);
    EXPECT(address > 0 && address % PAGE == 0);
    munmap((void *)address, PAGE);
    return 1;
}

/* An anonymous mapping does not look at fd or offset... */
static int mmap_anonymous_ignores_fd(void)
{
    long address = raw_mmap(NULL, PAGE, PROT_READ | PROT_WRITE, ANONYMOUS, 12345, 0);
    EXPECT(address > 0);
    munmap((void *)address, PAGE);
    return 1;
}

/* ...but an offset that is not a multiple of the page is EINVAL. */
static int mmap_unaligned_offset(void)
{
    int fd = open(file_path, O_RDONLY);
    EXPECT_ERROR(raw_mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, fd, 1), EINVAL);
    EXPECT_ERROR(raw_mmap(NULL, PAGE, PROT_READ, ANONYMOUS, -1, 100), EINVAL);
    close(fd);
    return 1;
}

static int mmap_huge_length(void)
{
    EXPECT_ERROR(raw_mmap(NULL, SIZE_MAX, PROT_READ, ANONYMOUS, -1, 0), ENOMEM);
    EXPECT_ERROR(raw_mmap(NULL, SIZE_MAX - PAGE + 2, PROT_READ, ANONYMOUS, -1, 0), ENOMEM);
    EXPECT_ERROR(raw_mmap(NULL, 1ul << 47, PROT_READ, ANONYMOUS, -1, 0), ENOMEM);
    return 1;
}

/* A length that is not a multiple of the page is rounded up. */
static int mmap_unaligned_length(void)
{
    char *address = (char *)raw_mmap(NULL, PAGE + 1, PROT_READ | PROT_WRITE, ANONYMOUS, -1, 0);
    EXPECT(address != MAP_FAILED);
    address[2 * PAGE - 1] = 1;     /* the second page is there */
    EXPECT_VALUE(munmap(address, 2 * PAGE), 0);
    return 1;
}

static int mmap_bad_fd(void)
{
    EXPECT_ERROR(raw_mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, -1, 0), EBADF);
    EXPECT_ERROR(raw_mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, 1 << 30, 0), EBADF);
    return 1;
}

/* Mapping needs a readable file, and one that can be mapped. */
static int mmap_write_only_fd(void)
{
    int fd = open(file_path, O_WRONLY);
    long result = raw_mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, fd, 0);
    int error = errno;
    close(fd);
    EXPECT_SAVED_ERROR(result, error, EACCES);
    return 1;
}

static int mmap_pipe(void)
{
    int fds[2];
    EXPECT_VALUE(pipe(fds), 0);
    long result = raw_mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, fds[0], 0);
    int error = errno;
    close(fds[0]);
    close(fds[1]);
    EXPECT_SAVED_ERROR(result, error, ENODEV);
    return 1;
}

/* What has no mmap operation on Linux: a directory and /dev/null are
 * ENODEV, private or shared. */
static int mmap_of_what_has_no_pages(void)
{
    int directory = open("/", O_RDONLY | O_DIRECTORY), null = open("/dev/null", O_RDONLY);
    CHECK(directory >= 0 && null >= 0);
    long result = raw_mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, directory, 0);
    EXPECT_SAVED_ERROR(result, errno, ENODEV);
    result = raw_mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE, null, 0);
    EXPECT_SAVED_ERROR(result, errno, ENODEV);
    result = raw_mmap(NULL, PAGE, PROT_READ, MAP_SHARED, null, 0);
    EXPECT_SAVED_ERROR(result, errno, ENODEV);
    close(directory);
    close(null);
    return 1;
}

static int mmap_shared_file(void)
{
    int fd = open(file_path, O_RDWR);
    char *address = (char *)raw_mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    int error = errno;
    EXPECT(address != MAP_FAILED || (errno = error, 0));
    address[0] = 'S';
    munmap(address, PAGE);
    char byte = 0;
    lseek(fd, 0, SEEK_SET);
    read(fd, &byte, 1);
    lseek(fd, 0, SEEK_SET);
    write(fd, "f", 1);
    close(fd);
    EXPECT_VALUE(byte, 'S');
    return 1;
}

/* A shared anonymous mapping is shared with a child after fork. */
static int mmap_shared_anonymous_is_shared(void)
{
    volatile char *address = (volatile char *)raw_mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
                                                       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CHECK(address != MAP_FAILED);
    pid_t child = fork();
    CHECK(child >= 0);
    if (child == 0) {
        address[0] = 42;
        _exit(0);
    }
    int status = 0;
    CHECK(waitpid(child, &status, 0) == child && WIFEXITED(status));
    char seen = address[0];
    munmap((void *)address, PAGE);
    EXPECT_VALUE(seen, 42);
    return 1;
}

/* MAP_SHARED_VALIDATE knows every flag it is given, or says EOPNOTSUPP. */
static int mmap_shared_validate_unknown_flag(void)
{
    int fd = open(file_path, O_RDWR);
    long result = raw_mmap(NULL, PAGE, PROT_READ, MAP_SHARED_VALIDATE_TYPE | 0x200000, fd, 0);
    int error = errno;
    close(fd);
    EXPECT_SAVED_ERROR(result, error, EOPNOTSUPP);
    return 1;
}

/* A free address given as a hint (no MAP_FIXED) is used. */
static int mmap_hint_used_when_free(void)
{
    char *probe = (char *)raw_mmap(NULL, 4 * PAGE, PROT_NONE, ANONYMOUS, -1, 0);
    EXPECT(probe != MAP_FAILED);
    munmap(probe, 4 * PAGE);
    long address = raw_mmap(probe + PAGE, PAGE, PROT_READ, ANONYMOUS, -1, 0);
    munmap((void *)address, PAGE);
    EXPECT_VALUE(address, (long)(probe + PAGE));
    return 1;
}

/* MAP_FIXED_NOREPLACE over a mapping: EEXIST, the mapping unchanged. */
static int mmap_fixed_noreplace_over_a_mapping(void)
{
    char *pages = (char *)raw_mmap(NULL, PAGE, PROT_READ | PROT_WRITE, ANONYMOUS, -1, 0);
    EXPECT(pages != MAP_FAILED);
    pages[0] = 7;
    long result = raw_mmap(pages, PAGE, PROT_READ | PROT_WRITE, ANONYMOUS | MAP_FIXED_NOREPLACE_FLAG, -1, 0);
    int error = errno;
    if (result > 0 && result != (long)pages)
        munmap((void *)result, PAGE);
    EXPECT_VALUE(pages[0], 7);
    munmap(pages, PAGE);
    EXPECT_SAVED_ERROR(result, error, EEXIST);
    return 1;
}

/* MAP_FIXED over a mapping replaces it: fresh zeroed pages. */
static int mmap_fixed_replaces(void)
{
    char *pages = (char *)raw_mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, ANONYMOUS, -1, 0);
    EXPECT(pages != MAP_FAILED);
    pages[0] = 7, pages[PAGE] = 8;
    EXPECT_VALUE(raw_mmap(pages, PAGE, PROT_READ | PROT_WRITE, ANONYMOUS | MAP_FIXED, -1, 0), (long)pages);
    EXPECT_VALUE(pages[0], 0);
    EXPECT_VALUE(pages[PAGE], 8);     /* the page after is untouched */
    munmap(pages, 2 * PAGE);
    return 1;
}

/* A private file mapping is a copy: writes stay in memory. */
static int mmap_private_file_is_a_copy(void)
{
    int fd = open(file_path, O_RDWR);
    char *address = (char *)raw_mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    EXPECT(address != MAP_FAILED);
    EXPECT(memcmp(address, "file data", 9) == 0);
    EXPECT_VALUE(address[100], 0);     /* past the end of the file: zeros */
    address[0] = 'X';
    char byte = 0;
    EXPECT_VALUE(read(fd, &byte, 1), 1);     /* mmap does not move the file position */
    EXPECT_VALUE(byte, 'f');
    munmap(address, PAGE);
    close(fd);
    return 1;
}

/* ---- mmap: protections, as the program sees them ---- */

static char *fault_page;

static void read_fault_page(void) { (void)*(volatile char *)fault_page; }
static void write_fault_page(void) { *(volatile char *)fault_page = 1; }

static int mmap_prot_read_write_faults(void)
{
    fault_page = (char *)raw_mmap(NULL, PAGE, PROT_READ, ANONYMOUS, -1, 0);
    EXPECT(fault_page != MAP_FAILED);
    int read_status = status_of_child(read_fault_page), write_status = status_of_child(write_fault_page);
    munmap(fault_page, PAGE);
    EXPECT(exited_with(read_status, 0));
    EXPECT(killed_by(write_status, SIGSEGV));
    return 1;
}

static int mmap_prot_none_read_faults(void)
{
    fault_page = (char *)raw_mmap(NULL, PAGE, PROT_NONE, ANONYMOUS, -1, 0);
    EXPECT(fault_page != MAP_FAILED);
    int status = status_of_child(read_fault_page);
    munmap(fault_page, PAGE);
    EXPECT(killed_by(status, SIGSEGV));
    return 1;
}

/* Past the end of a file mapped whole pages beyond it: SIGBUS. */
static int mmap_beyond_file_end_sigbus(void)
{
    int fd = open(file_path, O_RDONLY);
    fault_page = (char *)raw_mmap(NULL, 2 * PAGE, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    EXPECT(fault_page != MAP_FAILED);
    fault_page += PAGE;
    int status = status_of_child(read_fault_page);
    munmap(fault_page - PAGE, 2 * PAGE);
    NOHZK_DIFFERS("nohzk differs: pages past the end of a mapped file read as zeros (no SIGBUS)");
    EXPECT(killed_by(status, SIGBUS));
    return 1;
}

/* ---- munmap ---- */

static int munmap_twice(void)
{
    char *pages = (char *)raw_mmap(NULL, PAGE, PROT_READ, ANONYMOUS, -1, 0);
    EXPECT(pages != MAP_FAILED);
    EXPECT_VALUE(syscall(SYS_munmap, pages, PAGE), 0);
    EXPECT_VALUE(syscall(SYS_munmap, pages, PAGE), 0);     /* nothing there: no error */
    return 1;
}

static int munmap_middle_keeps_the_rest(void)
{
    char *pages = (char *)raw_mmap(NULL, 3 * PAGE, PROT_READ | PROT_WRITE, ANONYMOUS, -1, 0);
    EXPECT(pages != MAP_FAILED);
    pages[0] = 1, pages[2 * PAGE] = 3;
    EXPECT_VALUE(syscall(SYS_munmap, pages + PAGE, PAGE), 0);
    EXPECT(pages[0] == 1 && pages[2 * PAGE] == 3);
    fault_page = pages + PAGE;
    EXPECT(killed_by(status_of_child(read_fault_page), SIGSEGV));
    munmap(pages, 3 * PAGE);
    return 1;
}

/* A length that is not a multiple of the page takes the whole last page. */
static int munmap_unaligned_length(void)
{
    char *pages = (char *)raw_mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, ANONYMOUS, -1, 0);
    EXPECT(pages != MAP_FAILED);
    EXPECT_VALUE(syscall(SYS_munmap, pages, 1), 0);
    fault_page = pages;
    EXPECT(killed_by(status_of_child(read_fault_page), SIGSEGV));
    pages[PAGE] = 1;
    munmap(pages + PAGE, PAGE);
    return 1;
}

/* ---- mprotect (its ranges are mm_ranges.c's) ---- */

/* Write taken away faults; given back, it works again. */
static int mprotect_write_removed_faults(void)
{
    fault_page = (char *)raw_mmap(NULL, PAGE, PROT_READ | PROT_WRITE, ANONYMOUS, -1, 0);
    EXPECT(fault_page != MAP_FAILED);
    fault_page[0] = 5;
    EXPECT_VALUE(syscall(SYS_mprotect, fault_page, PAGE, PROT_READ), 0);
    int status = status_of_child(write_fault_page);
    EXPECT(killed_by(status, SIGSEGV));
    EXPECT_VALUE(fault_page[0], 5);     /* still readable, contents kept */
    EXPECT_VALUE(syscall(SYS_mprotect, fault_page, PAGE, PROT_READ | PROT_WRITE), 0);
    fault_page[0] = 6;
    munmap(fault_page, PAGE);
    return 1;
}

/* ---- brk (each in a child: the C library's malloc owns the break) ---- */

static long raw_brk(unsigned long address)
{
    return syscall(SYS_brk, address);
}

static void brk_queries(void)
{
    long current = raw_brk(0);
    if (current <= 0)
        _exit(1);
    if (raw_brk(0) != current || raw_brk(1) != current || raw_brk(PAGE) != current)
        _exit(2);     /* below the start: the break stays */
    if (raw_brk(KERNEL_ADDRESS) != current || raw_brk(NON_CANONICAL_LOW) != current ||
        raw_brk(NON_CANONICAL_HIGH) != current)
        _exit(3);
    _exit(0);
}

static int brk_zero_and_bad_addresses(void)
{
    int status = status_of_child(brk_queries);
    EXPECT_VALUE(WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status), 0);
    return 1;
}

static void brk_moves(void)
{
    long start = raw_brk(0);
    unsigned long target = start + 3 * PAGE + 1;
    if (raw_brk(target) != (long)target)
        _exit(1);     /* the exact address comes back, unaligned */
    char *bytes = (char *)start;
    bytes[0] = 1;
    bytes[3 * PAGE] = 2;     /* the page holding the break is there */
    if (raw_brk(start) != start)
        _exit(2);
    if (raw_brk(target) != (long)target || bytes[3 * PAGE] != 0)
        _exit(3);     /* given back, then fresh zeros */
    raw_brk(start);
    _exit(0);
}

static int brk_grow_and_shrink(void)
{
    int status = status_of_child(brk_moves);
    EXPECT_VALUE(WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status), 0);
    return 1;
}

static void brk_beyond_shrunk(void)
{
    long start = raw_brk(0);
    if (raw_brk(start + 2 * PAGE) != start + 2 * (long)PAGE)
        _exit(1);
    raw_brk(start);
    fault_page = (char *)start + PAGE;
    read_fault_page();     /* given back: SIGSEGV */
    _exit(0);
}

static int brk_shrunk_pages_are_gone(void)
{
    int status = status_of_child(brk_beyond_shrunk);
    EXPECT(killed_by(status, SIGSEGV));
    return 1;
}

static void brk_huge(void)
{
    long start = raw_brk(0);
    _exit(raw_brk(start + (1ul << 46)) == start && raw_brk(0) == start ? 0 : 1);
}

static int brk_huge_increase(void)
{
    int status = status_of_child(brk_huge);
    EXPECT_VALUE(WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status), 0);
    return 1;
}

int main(void)
{
    static const struct ktap_case cases[] = {
        KTAP_CASE(mmap_zero_length), KTAP_CASE(mmap_no_map_type), KTAP_CASE(mmap_unknown_map_type),
        KTAP_CASE(mmap_unknown_flags_ignored), KTAP_CASE(mmap_anonymous_ignores_fd), KTAP_CASE(mmap_unaligned_offset),
        KTAP_CASE(mmap_huge_length), KTAP_CASE(mmap_unaligned_length), KTAP_CASE(mmap_bad_fd),
        KTAP_CASE(mmap_write_only_fd), KTAP_CASE(mmap_pipe), KTAP_CASE(mmap_of_what_has_no_pages), KTAP_CASE(mmap_shared_file), KTAP_CASE(mmap_shared_anonymous_is_shared),
        KTAP_CASE(mmap_shared_validate_unknown_flag), KTAP_CASE(mmap_hint_used_when_free),
        KTAP_CASE(mmap_fixed_noreplace_over_a_mapping), KTAP_CASE(mmap_fixed_replaces),
        KTAP_CASE(mmap_private_file_is_a_copy), KTAP_CASE(mmap_prot_read_write_faults),
        KTAP_CASE(mmap_prot_none_read_faults), KTAP_CASE(mmap_beyond_file_end_sigbus),
        KTAP_CASE(munmap_twice), KTAP_CASE(munmap_middle_keeps_the_rest), KTAP_CASE(munmap_unaligned_length),
        KTAP_CASE(mprotect_write_removed_faults),
        KTAP_CASE(brk_zero_and_bad_addresses), KTAP_CASE(brk_grow_and_shrink), KTAP_CASE(brk_shrunk_pages_are_gone),
        KTAP_CASE(brk_huge_increase),
    };
    strcpy(file_path, "/tmp/conform_mm.XXXXXX");
    int fd = mkstemp(file_path);
    if (fd < 0 || write(fd, "file data", 9) != 9) {
        printf("# conform_mm: cannot make the scratch file (errno %d)\n", errno);
        return 1;
    }
    close(fd);
    int status = conform_main(cases, KTAP_COUNT(cases));
    unlink(file_path);
    return status;
}
