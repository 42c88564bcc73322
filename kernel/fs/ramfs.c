/* The content of a regular file in memory: an array of physical pages,
 * one per 4 KiB, read and written in pieces of at most COPY_CHUNK bytes so
 * that vfs_lock is never held long. A missing page (0) is a hole, which
 * reads as zeros: a write after a seek past the end allocates only the
 * pages it writes. Bytes past the size in the last page are zero (pages
 * start zeroed, and the file only shrinks to 0), so a growing file shows
 * zeros there too. A symlink's target is a separate string (inode->target).
 * Devices and generated files carry a file_ops table of their own, which
 * open files use instead.
 *
 * execve maps these pages into the program (vfs_file_page, page_get):
 * a page with more than one holder is copied before a write, and the copy
 * goes into the file, so a running program keeps the content it started
 * with (docs/fork.md, "execve maps the file").
 *
 * Left out: files over FILE_SIZE_MAX. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/fs/vfs_internal.h"
#include "arch/x86/paging.h"
#include "kernel/lib/errno.h"
#include "kernel/mm/heap.h"
#include "kernel/mm/page_alloc.h"
#include "kernel/lib/string.h"

#define COPY_CHUNK    65536
#define FILE_SIZE_MAX (1ul << 30) /* a write past 1 GiB fails with -ENOSPC */

static uint64_t page_at(const struct inode *inode, size_t index)
{
    return index < inode->page_slots ? inode->pages[index] : 0;
}

/* Copy up to the end of one page out of the file (zeros for a hole). */
static size_t read_in_page(const struct inode *inode, uint64_t position, char *buffer, size_t count)
{
    size_t offset = position % PAGE_SIZE;
    if (count > PAGE_SIZE - offset)
        count = PAGE_SIZE - offset;
    uint64_t page = page_at(inode, position / PAGE_SIZE);
    if (page)
        memcpy(buffer, (char *)phys_to_virt(page) + offset, count);
    else
        memset(buffer, 0, count);
    return count;
}

static long ramfs_read(struct file *file, void *buffer, size_t count)
{
    struct inode *inode = file->inode;
    size_t done = 0;
    spin_lock(&vfs_lock);
    while (done < count && file->position < inode->size) {
        size_t chunk = count - done;
        if (chunk > inode->size - file->position)
            chunk = inode->size - file->position;
        if (chunk > COPY_CHUNK)
            chunk = COPY_CHUNK;
        for (size_t copied = 0; copied < chunk;)
            copied += read_in_page(inode, file->position + copied, (char *)buffer + done + copied, chunk - copied);
        file->position += chunk;
        done += chunk;
        if (done < count) { /* let interrupts and other CPUs in */
            spin_unlock(&vfs_lock);
            spin_lock(&vfs_lock);
        }
    }
    spin_unlock(&vfs_lock);
    return (long)done;
}

/* Room for `slots` page entries, doubling so that appends cost O(1) each;
 * the new entries are holes. */
static int reserve_slots(struct inode *inode, size_t slots)
{
    if (slots <= inode->page_slots)
        return 0;
    size_t grown = inode->page_slots * 2 > 16 ? inode->page_slots * 2 : 16;
    if (grown < slots)
        grown = slots;
    uint64_t *pages = kzalloc(grown * sizeof(*pages));
    if (!pages)
        return -ENOMEM;
    if (inode->page_slots)
        memcpy(pages, inode->pages, inode->page_slots * sizeof(*pages));
    kfree(inode->pages);
    inode->pages = pages;
    inode->page_slots = grown;
    return 0;
}

/* The page at index, ready to be written: a hole gets a page (not zeroed
 * if the write covers it all), and a page a program also holds is copied
 * first, the copy taking its place in the file, unless the file has been
 * mapped MAP_SHARED: its holders must see the write. 0 if out of memory. */
static uint64_t writable_page(struct inode *inode, size_t index, bool whole)
{
    uint64_t page = inode->pages[index];
    if (!page) {
        page = whole ? page_alloc_unzeroed() : page_alloc();
    } else if (page_holders(page) > 1 && !inode->shared_mapped) {
        uint64_t copy = page_alloc_unzeroed();
        if (!copy)
            return 0;
        if (!whole)
            memcpy(phys_to_virt(copy), phys_to_virt(page), PAGE_SIZE);
        page_put(page);
        page_event_add(FILE_PAGES_COPIED, 1);
        page = copy;
    }
    inode->pages[index] = page;
    return page;
}

/* A write that stops at the first page it cannot have: what it wrote. */
static long ramfs_write_chunk(struct file *file, const char *buffer, size_t count)
{
    struct inode *inode = file->inode;
    if (file->flags & O_APPEND)
        file->position = inode->size;
    if (file->position > FILE_SIZE_MAX || count > FILE_SIZE_MAX - file->position)
        return -ENOSPC;
    if (count == 0)
        return 0;
    uint64_t end = file->position + count;
    int error = reserve_slots(inode, (end + PAGE_SIZE - 1) / PAGE_SIZE);
    if (error)
        return error;
    size_t done = 0;
    while (done < count) {
        uint64_t position = file->position + done;
        size_t offset = position % PAGE_SIZE, piece = PAGE_SIZE - offset;
        if (piece > count - done)
            piece = count - done;
        uint64_t page = writable_page(inode, position / PAGE_SIZE, piece == PAGE_SIZE);
        if (!page)
            break;
        memcpy((char *)phys_to_virt(page) + offset, buffer + done, piece);
        done += piece;
    }
    if (done == 0)
        return -ENOMEM;
    if (file->position + done > inode->size)
        inode->size = file->position + done;
    file->position += done;
    return (long)done;
}

static long ramfs_write(struct file *file, const void *buffer, size_t count)
{
    size_t done = 0;
    while (done < count) {
        size_t chunk = count - done < COPY_CHUNK ? count - done : COPY_CHUNK;
        spin_lock(&vfs_lock);
        long written = ramfs_write_chunk(file, (const char *)buffer + done, chunk);
        spin_unlock(&vfs_lock);
        if (written < 0)
            return done ? (long)done : written;
        done += (size_t)written;
        if ((size_t)written < chunk)
            break; /* out of memory part way */
    }
    return (long)done;
}

/* ftruncate: the new size. Pages wholly past it leave the file (a
 * mapping keeps its holder: Linux would unmap them; docs/memory.md); the
 * rest of a cut last page is zeroed, in the file's own page (a copy if a
 * program holds it), so that bytes past the size read as zeros when the
 * file grows again. Nothing changes on -ENOMEM. */
int vfs_truncate(struct file *file, uint64_t length)
{
    struct inode *inode = file->inode;
    if (!is_type(inode, S_IFREG) || inode->ops)
        return -EINVAL;
    if (length > FILE_SIZE_MAX)
        return -EFBIG;
    spin_lock(&vfs_lock);
    size_t keep = (length + PAGE_SIZE - 1) / PAGE_SIZE, cut = length % PAGE_SIZE;
    if (length < inode->size && cut && keep - 1 < inode->page_slots && inode->pages[keep - 1]) {
        uint64_t page = writable_page(inode, keep - 1, false);
        if (!page) {
            spin_unlock(&vfs_lock);
            return -ENOMEM;
        }
        memset((char *)phys_to_virt(page) + cut, 0, PAGE_SIZE - cut);
    }
    for (size_t i = keep; i < inode->page_slots; i++) {
        if (inode->pages[i])
            page_put(inode->pages[i]);
        inode->pages[i] = 0;
    }
    if (!keep) {    /* empty, as O_TRUNC leaves it */
        kfree(inode->pages);
        inode->pages = NULL;
        inode->page_slots = 0;
    }
    inode->size = length;
    spin_unlock(&vfs_lock);
    return 0;
}

struct file_pages ramfs_take_pages(struct inode *inode)
{
    struct file_pages taken = { inode->pages, inode->page_slots };
    inode->pages = NULL;
    inode->page_slots = 0;
    inode->size = 0;
    return taken;
}

void ramfs_put_pages(struct file_pages pages)
{
    for (size_t i = 0; i < pages.slots; i++)
        if (pages.pages[i])
            page_put(pages.pages[i]);
    kfree(pages.pages);
}

int ramfs_fill_pages(const char *content, size_t size, struct file_pages *out)
{
    out->slots = (size + PAGE_SIZE - 1) / PAGE_SIZE;
    out->pages = out->slots ? kzalloc(out->slots * sizeof(uint64_t)) : NULL;
    if (out->slots && !out->pages)
        return -ENOMEM;
    for (size_t i = 0; i < out->slots; i++) {
        size_t piece = size - i * PAGE_SIZE < PAGE_SIZE ? size - i * PAGE_SIZE : PAGE_SIZE;
        out->pages[i] = piece == PAGE_SIZE ? page_alloc_unzeroed() : page_alloc();
        if (!out->pages[i]) {
            ramfs_put_pages(*out);
            return -ENOMEM;
        }
        memcpy(phys_to_virt(out->pages[i]), content + i * PAGE_SIZE, piece);
    }
    return 0;
}

int vfs_file_page(struct file *file, uint64_t index, uint64_t *page)
{
    struct inode *inode = file->inode;
    int error = 0;
    *page = 0;
    spin_lock(&vfs_lock);
    if (!is_type(inode, S_IFREG) || inode->ops)
        error = -ENODEV;
    else if (index < (inode->size + PAGE_SIZE - 1) / PAGE_SIZE && page_at(inode, index)) {
        *page = inode->pages[index];
        page_get(*page);
    }
    spin_unlock(&vfs_lock);
    return error;
}

/* For a MAP_SHARED mapping (kernel/mm/mmap.c): the file's own page at
 * index, made now if a hole (and detached from a program that ran the
 * file, as a write would), with a holder for the mapping; 0 past the end
 * of the file. From then on the file's pages are shared, never copied. */
int vfs_file_page_shared(struct file *file, uint64_t index, uint64_t *page)
{
    struct inode *inode = file->inode;
    int error = 0;
    *page = 0;
    spin_lock(&vfs_lock);
    if (!is_type(inode, S_IFREG) || inode->ops) {
        error = -ENODEV;
    } else if (index < (inode->size + PAGE_SIZE - 1) / PAGE_SIZE) {
        error = reserve_slots(inode, index + 1);
        uint64_t got = error ? 0 : writable_page(inode, index, false);
        if (!error && !got)
            error = -ENOMEM;
        if (got) {
            inode->shared_mapped = true;
            page_get(got);
            *page = got;
        }
    }
    spin_unlock(&vfs_lock);
    return error;
}

const struct file_ops ramfs_file_ops = {
    .read = ramfs_read,
    .write = ramfs_write,
};
