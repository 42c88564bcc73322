/* System calls: Linux x86-64 numbers, registers and errno values.
 *
 * A system call is defined beside its implementation, as on Linux:
 *
 *   SYSCALL_DEFINE3(read, int, fd, void *, buffer, uint64_t, count)
 *   {
 *       ...
 *   }
 *
 * defines long sys_read(int fd, void *buffer, uint64_t count) and
 * registers it under __NR_read (kernel/lib/linux_syscall_numbers.h) in the
 * section .syscalls, which linker.ld collects; syscall_table_init() files
 * the entries by number at boot. The entry's adapter takes the six raw
 * registers and casts each to its declared type, so an int argument drops
 * the upper half of its register, as Linux does. A name Linux does not
 * number fails to compile; a number registered twice fails to link
 * ("multiple definition of `syscall_number_N'"). */
#ifndef KERNEL_SYSCALL_H
#define KERNEL_SYSCALL_H

#include <stdbool.h>
#include <stdint.h>

#include "kernel/lib/linux_syscall_numbers.h"

struct trap_frame;

typedef long (*syscall_adapter)(uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t a4, uint64_t a5);

struct syscall {
    unsigned number;
    const char *name;
    syscall_adapter call;
};

void syscall_table_init(void);                  /* at boot, before the first user program */
void syscall_dispatch(struct trap_frame *frame);
const char *syscall_name(uint64_t number);      /* NULL if nohzk does not know it */
extern bool syscall_trace;                      /* strace=1 */

/* SYSCALL_MAPn(m, t1, a1, ..., tn, an) is m(t1, a1), ..., m(tn, an). */
#define SYSCALL_MAP1(m, t, a) m(t, a)
#define SYSCALL_MAP2(m, t, a, ...) m(t, a), SYSCALL_MAP1(m, __VA_ARGS__)
#define SYSCALL_MAP3(m, t, a, ...) m(t, a), SYSCALL_MAP2(m, __VA_ARGS__)
#define SYSCALL_MAP4(m, t, a, ...) m(t, a), SYSCALL_MAP3(m, __VA_ARGS__)
#define SYSCALL_MAP5(m, t, a, ...) m(t, a), SYSCALL_MAP4(m, __VA_ARGS__)
#define SYSCALL_MAP6(m, t, a, ...) m(t, a), SYSCALL_MAP5(m, __VA_ARGS__)

#define SYSCALL_DECLARE(type, arg) type arg
#define SYSCALL_RAW(type, arg) uint64_t arg
#define SYSCALL_CAST(type, arg) (type)arg

/* The registers a call of n arguments leaves unused, after its own. */
#define SYSCALL_UNUSED(n) __attribute__((unused)) uint64_t unused##n
#define SYSCALL_PAD0 SYSCALL_UNUSED(0) SYSCALL_PAD1
#define SYSCALL_PAD1 , SYSCALL_UNUSED(1) SYSCALL_PAD2
#define SYSCALL_PAD2 , SYSCALL_UNUSED(2) SYSCALL_PAD3
#define SYSCALL_PAD3 , SYSCALL_UNUSED(3) SYSCALL_PAD4
#define SYSCALL_PAD4 , SYSCALL_UNUSED(4) SYSCALL_PAD5
#define SYSCALL_PAD5 , SYSCALL_UNUSED(5)
#define SYSCALL_PAD6

/* The entry is a global named by the number, so that two calls with one
 * number collide at link time. */
#define SYSCALL_ENTRY_NAME(number) SYSCALL_ENTRY_NAME_(number)
#define SYSCALL_ENTRY_NAME_(number) syscall_number_##number

#define SYSCALL_REGISTER(syscall_name)                                                            \
    _Static_assert(__NR_##syscall_name >= 0 && __NR_##syscall_name < LINUX_SYSCALL_COUNT,         \
                   "system call number out of range");                                            \
    const struct syscall SYSCALL_ENTRY_NAME(__NR_##syscall_name) = {                              \
        __NR_##syscall_name, #syscall_name, syscall_adapter_##syscall_name                        \
    };                                                                                            \
    static const struct syscall *const syscall_entry_##syscall_name                               \
        __attribute__((used, section(".syscalls"))) = &SYSCALL_ENTRY_NAME(__NR_##syscall_name)

#define SYSCALL_DEFINE0(name)                                                                     \
    long sys_##name(void);                                                                        \
    static long syscall_adapter_##name(SYSCALL_PAD0) { return sys_##name(); }                 \
    SYSCALL_REGISTER(name);                                                                       \
    long sys_##name(void)

#define SYSCALL_DEFINEx(x, name, ...)                                                             \
    long sys_##name(SYSCALL_MAP##x(SYSCALL_DECLARE, __VA_ARGS__));                                \
    static long syscall_adapter_##name(SYSCALL_MAP##x(SYSCALL_RAW, __VA_ARGS__) SYSCALL_PAD##x) \
    {                                                                                             \
        return sys_##name(SYSCALL_MAP##x(SYSCALL_CAST, __VA_ARGS__));                             \
    }                                                                                             \
    SYSCALL_REGISTER(name);                                                                       \
    long sys_##name(SYSCALL_MAP##x(SYSCALL_DECLARE, __VA_ARGS__))

#define SYSCALL_DEFINE1(name, ...) SYSCALL_DEFINEx(1, name, __VA_ARGS__)
#define SYSCALL_DEFINE2(name, ...) SYSCALL_DEFINEx(2, name, __VA_ARGS__)
#define SYSCALL_DEFINE3(name, ...) SYSCALL_DEFINEx(3, name, __VA_ARGS__)
#define SYSCALL_DEFINE4(name, ...) SYSCALL_DEFINEx(4, name, __VA_ARGS__)
#define SYSCALL_DEFINE5(name, ...) SYSCALL_DEFINEx(5, name, __VA_ARGS__)
#define SYSCALL_DEFINE6(name, ...) SYSCALL_DEFINEx(6, name, __VA_ARGS__)

#endif
