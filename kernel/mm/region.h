/* Memory regions (Linux's VMAs): the record of each mapping of an address
 * space, its range, rights, backing and sharing, sorted by address and
 * never overlapping. The page tables hold the pages; the regions say what
 * may be there, so a fault outside any region is the program's fault and
 * one inside finds what to map. See docs/memory.md, section 6. */
#ifndef KERNEL_MM_REGION_H
#define KERNEL_MM_REGION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/base/spinlock.h"

/* prot: Linux's PROT_ bits */
#define REGION_READ  0x1
#define REGION_WRITE 0x2
#define REGION_EXEC  0x4

/* kind */
#define REGION_SHARED 0x01     /* MAP_SHARED: a fork shares the pages, never copies them */
#define REGION_FILE   0x02     /* backed by name at offset (private: a copy made at mmap) */
#define REGION_HEAP   0x04     /* brk's */
#define REGION_STACK  0x08     /* the main stack: pages come at their first touch, within RLIMIT_STACK */
#define REGION_UNMAPPING 0x10  /* munmap under way: no region to a fault or maps, but no gap to mmap */
#define REGION_VDSO   0x20     /* the vDSO's image (kernel/process/vdso.c): [vdso] in maps */
#define REGION_VVAR   0x40     /* the vDSO's data page: [vvar] */

/* What /proc/PID/maps names a file region by; shared by the pieces of a
 * split and by a fork's copy, freed with its last holder. */
struct region_name {
    int holders;
    uint64_t device, inode;
    char path[];
};

struct region {
    uint64_t start, end;        /* page-aligned, start < end */
    uint32_t prot, kind;
    uint64_t offset;            /* in the file, of start */
    struct region_name *name;   /* REGION_FILE's, or NULL */
    struct region *next;
};

/* Guarded by lock, held only for list work (never across a page-table
 * change or a shootdown, so it may be taken under process_tree_lock). */
struct region_list {
    struct region *first;
    struct spinlock lock;
    uint64_t next_fit;      /* where the last mapping placed anywhere ended */
};

struct address_space;

void regions_init(struct region_list *list);
void regions_free(struct region_list *list);
int regions_copy(struct region_list *to, struct region_list *from);    /* fork; -ENOMEM */

/* A copy of the region holding address; false if none. */
bool region_find(struct region_list *list, uint64_t address, struct region *out);
/* A copy of the first region that ends above address; false if none. */
bool region_next(struct region_list *list, uint64_t address, struct region *out);
/* Whether no region meets [start, end). */
bool regions_range_free(struct region_list *list, uint64_t start, uint64_t end);

/* Record a mapping of [start, end) (page-aligned): what was there goes
 * from the list (the caller unmaps its pages). It is merged with the
 * neighbours that match only by regions_merge(), once its pages are in
 * (regions_forget undoes it until then). -ENOMEM with nothing changed.
 * name: a holder is taken. */
int regions_insert(struct region_list *list, uint64_t start, uint64_t end, uint32_t prot, uint32_t kind,
                   uint64_t offset, struct region_name *name);
/* As regions_insert, at a free range of length chosen under the same
 * lock: hint if free there, else the first gap at or above where the
 * last one chosen so ended, within [low, high), else the lowest gap
 * there (next fit: a range just unmapped is not handed out again at
 * once). The address, or -ENOMEM. */
long regions_insert_anywhere(struct region_list *list, uint64_t hint, uint64_t length, uint64_t low,
                             uint64_t high, uint32_t prot, uint32_t kind, uint64_t offset,
                             struct region_name *name);
/* Forget [start, end), in three steps: prepare takes the memory its
 * splits may need (-ENOMEM, nothing changed); remove marks the regions
 * there REGION_UNMAPPING (a fault there is outside every region, so no
 * page comes back); munmap unmaps the pages; removed frees the marked
 * regions. Until then no sibling thread's mmap is given the range and
 * sees its pages vanish. */
struct region_spares {
    struct region *region[3];
    unsigned count;
};
int regions_remove_prepare(struct region_spares *spares);
void regions_remove(struct region_list *list, uint64_t start, uint64_t end, struct region_spares *spares);
void regions_removed(struct region_list *list, uint64_t start, uint64_t end);
void regions_merge(struct region_list *list);
/* Forget [start, end), just inserted whole by the caller (a failed mmap
 * or brk): needs no memory. */
void regions_forget(struct region_list *list, uint64_t start, uint64_t end);
/* mprotect: the regions from start on, up to end or the first hole, get
 * prot; *changed_end says how far. -ENOMEM if start is not mapped (nothing
 * changed) or a hole comes before end; -ENOMEM for a split without memory
 * (nothing changed). */
int regions_protect(struct region_list *list, uint64_t start, uint64_t end, uint32_t prot, uint64_t *changed_end);

/* Call show for each region in order, under the lock (/proc/PID/maps). */
void regions_each(struct region_list *list, void (*show)(void *arg, const struct region *region), void *arg);

/* A user access that found no entry it may use (a fault from ring 3, or
 * a system call about to copy): 0 if a page is mapped now (an anonymous
 * region's first touch: the zero page for a read; the stack's, within
 * RLIMIT_STACK); -EFAULT outside every region (SEGV_MAPERR); -EACCES in
 * a region without the right (SEGV_ACCERR); -ENXIO past the end of a
 * shared file mapping (SIGBUS); -ENOMEM. */
struct process;
int region_fault_in(struct process *process, uint64_t address, bool write, bool fetch);
/* The page-table rights of prot (address_space_protect_range's flags). */
uint64_t region_page_flags(uint32_t prot);

struct region_name *region_name_make(const char *path, uint64_t device, uint64_t inode);  /* NULL: no memory */
void region_name_put(struct region_name *name);
/* The name of an open file (kernel/mm/mmap.c): its path, device and inode. */
struct file;
struct region_name *region_name_of_file(struct file *file);

#endif
