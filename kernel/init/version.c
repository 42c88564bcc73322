/* The kernel's name, as uname reports it: Linux 6.1's ABI, by nohzk.
 * (Linux keeps its own in init/version.c.) */
#include "kernel/entry/syscall.h"

#include "kernel/mm/uaccess.h"

struct linux_utsname {
    char sysname[65], nodename[65], release[65], version[65], machine[65], domainname[65];
};

SYSCALL_DEFINE1(uname, void *, user_buffer)
{
    static const struct linux_utsname name = {
        "Linux", "nohzk", "6.1.0-nohzk", "#1 SMP nohzk", "x86_64", "(none)",
    };
    return copy_to_user(user_buffer, &name, sizeof(name));
}
