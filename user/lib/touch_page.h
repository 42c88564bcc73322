/* Shared by the programs of user/ that inject page faults (spin,
 * osnoise): user/NAME.c includes "lib/NAME.h"; the Makefile rebuilds every
 * program when a header here changes. */
#ifndef USER_LIB_TOUCH_PAGE_H
#define USER_LIB_TOUCH_PAGE_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define FAULT_REGION_PAGES 1024

/* A fresh page each time, so that each touch is a first touch on a kernel
 * with demand paging. who: the program, for the error message. */
static void touch_new_page(const char *who)
{
    static char *region;
    static unsigned long next;
    long page = sysconf(_SC_PAGESIZE);
    if (!region || next == FAULT_REGION_PAGES) {
        if (region)
            munmap(region, FAULT_REGION_PAGES * page);
        region = mmap(NULL, FAULT_REGION_PAGES * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (region == MAP_FAILED) {
            fprintf(stderr, "%s: mmap: out of memory\n", who);
            exit(1);
        }
        next = 0;
    }
    region[next++ * page] = 1;
}

#endif
