/* The memory devices: /dev/null (reads end of file, swallows writes),
 * /dev/zero (reads zeros), /dev/random and /dev/urandom (the same
 * xorshift generator, seeded from the TSC). That generator is
 * predictable and not cryptographic in any way: enough for shells,
 * mktemp and tests in a teaching kernel, never for keys. Writes to every
 * one of them are swallowed (Linux mixes those written to random into
 * its pool; we don't). */
#include "kernel/entry/syscall.h"
#include "arch/x86/cpu.h"
#include "kernel/console/console.h"
#include "kernel/lib/errno.h"
#include "kernel/base/printk.h"
#include "kernel/process/signal.h"
#include "kernel/base/spinlock.h"
#include "kernel/lib/string.h"
#include "kernel/mm/uaccess.h"
#include "kernel/fs/vfs.h"
#include "kernel/fs/vfs_internal.h"

static struct spinlock random_lock = SPINLOCK_INIT("random");
static uint64_t random_state;

/* xorshift64* (Vigna); the state must never be 0. */
static uint64_t random_next(void)
{
    spin_lock(&random_lock);
    if (random_state == 0)
        random_state = rdtsc() | 1;
    random_state ^= random_state >> 12;
    random_state ^= random_state << 25;
    random_state ^= random_state >> 27;
    uint64_t value = random_state * 0x2545f4914f6cdd1dul;
    spin_unlock(&random_lock);
    return value;
}

static long null_read(struct file *file, void *buffer, size_t count)
{
    (void)file, (void)buffer, (void)count;
    return 0;
}

static long swallow_write(struct file *file, const void *buffer, size_t count)
{
    (void)file, (void)buffer;
    return (long)count;
}

static long zero_read(struct file *file, void *buffer, size_t count)
{
    (void)file;
    memset(buffer, 0, count);
    return (long)count;
}

static long random_read(struct file *file, void *buffer, size_t count)
{
    (void)file;
    char *bytes = buffer;
    for (size_t done = 0; done < count; done += sizeof(uint64_t)) {
        uint64_t value = random_next();
        size_t chunk = count - done < sizeof(value) ? count - done : sizeof(value);
        memcpy(bytes + done, &value, chunk);
    }
    return (long)count;
}

/* getrandom(2): the same generator as /dev/urandom, which never blocks
 * here, so GRND_NONBLOCK and GRND_RANDOM change nothing. */
#define GRND_NONBLOCK 1u
#define GRND_RANDOM 2u
#define GRND_INSECURE 4u
#define GETRANDOM_MAX 33554431ul    /* Linux's cap on one call */

SYSCALL_DEFINE3(getrandom, void *, user_buffer, size_t, count, unsigned, flags)
{
    char chunk[256];

    if (flags & ~(GRND_NONBLOCK | GRND_RANDOM | GRND_INSECURE) ||
        (flags & GRND_RANDOM && flags & GRND_INSECURE))
        return -EINVAL;
    if (count > GETRANDOM_MAX)
        count = GETRANDOM_MAX;
    if (!user_range_ok(user_buffer, count))
        return -EFAULT;
    /* As Linux: the bytes before the first page that cannot take them. */
    size_t room = user_accessible_prefix(user_buffer, count, true);
    if (count > 0 && room == 0)
        return -EFAULT;
    count = room;
    for (size_t done = 0; done < count; done += sizeof(chunk)) {
        if (done && signal_fatal_pending())
            return (long)done;      /* 32 MiB take seconds under QEMU; we die on the way out */
        size_t piece = count - done < sizeof(chunk) ? count - done : sizeof(chunk);
        random_read(0, chunk, piece);
        if (copy_to_user((char *)user_buffer + done, chunk, piece) < 0)
            return done ? (long)done : -EFAULT;
    }
    return (long)count;
}

static const struct file_ops null_ops = {.read = null_read, .write = swallow_write};
static const struct file_ops zero_ops = {.read = zero_read, .write = swallow_write};
static const struct file_ops random_ops = {.read = random_read, .write = swallow_write};

/* mmap(MAP_SHARED) of /dev/zero is shared anonymous memory, as on Linux. */
bool vfs_is_dev_zero(struct file *file)
{
    return file->inode->ops == &zero_ops;
}

extern const struct file_ops cpu_latency_ops;     /* kernel/fs/cpu_latency.c */

void devices_init(void)
{
    static const struct {
        const char *path;
        const struct file_ops *ops;
        uint32_t mode;
    } devices[] = {
        {"/dev/null", &null_ops, 0666},
        {"/dev/zero", &zero_ops, 0666},
        {"/dev/random", &random_ops, 0666},
        {"/dev/urandom", &random_ops, 0666},
        {"/dev/cpu_dma_latency", &cpu_latency_ops, 0600},
    };
    for (size_t i = 0; i < sizeof(devices) / sizeof(devices[0]); i++) {
        int error = vfs_create_device(devices[i].path, S_IFCHR | devices[i].mode, devices[i].ops, 0);
        if (error)
            printk("devices: cannot create %s: error %d\n", devices[i].path, error);
    }
    /* shm_open()'s directory, world-writable and sticky as Linux's tmpfs
     * there: the whole tree is in memory already, so a plain directory. */
    int error = vfs_mkdir_at(0, "/dev/shm", 01777);
    if (error)
        printk("devices: cannot create /dev/shm: error %d\n", error);
}
