/*
 * manager_files.c — how a folder file's bytes get into memory: read into
 * manager memory (the default) or, with KILN_MANAGER_MAP_FILES, mapped; and
 * the file-memory cache behind the read.
 *
 * Why a cache (BENCHMARKS.md section 12, "Sync folder load: where the time
 * went"): reading a file costs the kernel's copy, but the memory it lands in
 * costs more when it is fresh. Every new anonymous page is a page fault, a
 * zeroed page and a page-table update, which on some virtual machines is
 * dearer than copying the page's bytes ten times over. With the C library's
 * allocator, whether the blocks a destroyed scope freed are still mapped when
 * the next scope loads depends on its heap's state (it trims a free top of the
 * heap, and unmaps large blocks at once), so the same load of the same files
 * took 1.1x or 2.5x the time of read() into one reused buffer from one run to
 * the next. So with the default allocator the manager keeps the blocks it
 * frees, by size class, and reads the next files of each class into them:
 * memory already mapped, as the read() baseline's buffer is.
 *
 * Bounded: in-use plus kept bytes never exceed the most the manager had in
 * use at once since it was created or last trimmed (a fresh block first
 * evicts the oldest kept ones), so the cache keeps at most what the largest
 * load needed. kiln_manager_trim frees kept blocks and lowers the bound to
 * what is left (a game that loaded one huge level and then small ones would
 * otherwise keep the huge level's blocks for good); kiln_manager_destroy
 * frees them all. With allocator hooks there is no cache: every
 * block comes from, and goes back to, the hooks.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/internal.h"
#include "runtime/manager_parts.h"

/* ---------------------------------------------------------------------------
 * The file-memory cache
 * ------------------------------------------------------------------------- */

/* Blocks below this are the C library's small bins' business. */
#define CACHE_MIN_SHIFT 12u
#define CACHE_MAX_SHIFT 47u
/* Blocks of this class size and more are mappings of their own, aligned to
 * and asking for transparent huge pages: one fault and one page-table entry
 * per 2 MiB instead of 512 when the block is first written. */
#define HUGE_SIZE ((size_t)2 << 20)
#define POPULATE_MIN ((size_t)64 << 10)

struct mgr_file_block {
    mgr_file_block *older, *newer; /* the cache's age list */
    mgr_file_block *prev, *next;   /* its class's list */
    uint32_t cls;
};

/* A size's class: rounded up to a quarter of its power of two (at most 25%
 * more), so 4 classes a doubling. False for sizes the cache does not keep. */
static bool size_class(size_t size, size_t *rounded, uint32_t *cls) {
    if (size < ((size_t)1 << CACHE_MIN_SHIFT) || size >= ((size_t)1 << CACHE_MAX_SHIFT))
        return false;
    unsigned shift = 63u - (unsigned)__builtin_clzll((unsigned long long)size);
    size_t quarter = (size_t)1 << (shift - 2);
    size_t up = (size + quarter - 1) & ~(quarter - 1);
    unsigned top = 63u - (unsigned)__builtin_clzll((unsigned long long)up);
    *rounded = up;
    *cls = (top - CACHE_MIN_SHIFT) * 4u + (uint32_t)((up >> (top - 2)) & 3u);
    return *cls < MGR_FILE_CLASSES;
}

void mgr_file_cache_init(kiln_manager *m, bool enabled) {
    mgr_file_cache *c = &m->files;
    memset(c, 0, sizeof *c);
    c->enabled = enabled;
    pthread_mutex_init(&c->lock, NULL);
}

/* Takes kept block `b` out of both lists (cache lock held). */
static void unlink_block(mgr_file_cache *c, mgr_file_block *b, size_t rounded) {
    if (b->older != NULL)
        b->older->newer = b->newer;
    else
        c->oldest = b->newer;
    if (b->newer != NULL)
        b->newer->older = b->older;
    else
        c->newest = b->older;
    if (b->prev != NULL)
        b->prev->next = b->next;
    else
        c->lists[b->cls] = b->next;
    if (b->next != NULL)
        b->next->prev = b->prev;
    c->kept -= rounded;
}

static size_t class_bytes(uint32_t cls) {
    unsigned top = cls / 4u + CACHE_MIN_SHIFT;
    return ((size_t)1 << top) + (size_t)(cls % 4u) * ((size_t)1 << (top - 2));
}

/* Maps the whole pages of [block, block + size) in one call rather than a
 * fault each as the read writes them (pages already mapped are skipped; a
 * kernel without MADV_POPULATE_WRITE leaves them to the faults). */
static void populate(uint8_t *block, size_t size) {
#ifdef MADV_POPULATE_WRITE
    uintptr_t first = ((uintptr_t)block + 4095) & ~(uintptr_t)4095;
    uintptr_t end = ((uintptr_t)block + size) & ~(uintptr_t)4095;
    if (size >= POPULATE_MIN && end > first)
        madvise((void *)first, end - first, MADV_POPULATE_WRITE);
#else
    (void)block;
    (void)size;
#endif
}

/* A new block of a class's `rounded` bytes (a multiple of 1 KiB, of 512 KiB
 * from HUGE_SIZE) for a file of `size`, its pages populated: from the
 * allocator, or a mapping aligned to HUGE_SIZE (mapped larger, the ends
 * unmapped). NULL when out of memory. */
static void *block_new(kiln_manager *m, size_t rounded, size_t size) {
    if (rounded < HUGE_SIZE) {
        uint8_t *block = mgr_alloc(m, rounded, 16);
        if (block != NULL)
            populate(block, size);
        return block;
    }
    if (rounded > SIZE_MAX - HUGE_SIZE)
        return NULL;
    uint8_t *mapped =
        mmap(NULL, rounded + HUGE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED)
        return NULL;
    uintptr_t at = ((uintptr_t)mapped + HUGE_SIZE - 1) & ~(uintptr_t)(HUGE_SIZE - 1);
    uint8_t *block = (uint8_t *)at;
    if (block > mapped)
        munmap(mapped, (size_t)(block - mapped));
    munmap(block + rounded, (size_t)(mapped + HUGE_SIZE - block)); /* at least a page */
#ifdef MADV_HUGEPAGE
    madvise(block, rounded, MADV_HUGEPAGE); /* a hint: without it, small pages */
#endif
    populate(block, size); /* huge pages where given, else the small ones */
    return block;
}

static void block_delete(kiln_manager *m, void *block, size_t rounded) {
    if (rounded < HUGE_SIZE)
        mgr_free(m, block, rounded);
    else
        munmap(block, rounded);
}

/* Memory for `size` bytes of a file, 16-byte aligned: a kept block of its
 * class, or a new one (the oldest kept blocks freed first as far as the
 * bound needs). */
static void *file_alloc(kiln_manager *m, size_t size) {
    mgr_file_cache *c = &m->files;
    size_t rounded;
    uint32_t cls;
    if (!c->enabled || !size_class(size, &rounded, &cls))
        return mgr_alloc(m, size, 16);
    mgr_file_block *evicted = NULL;
    pthread_mutex_lock(&c->lock);
    mgr_file_block *b = c->lists[cls];
    if (b != NULL)
        unlink_block(c, b, rounded);
    c->in_use += rounded;
    if (c->in_use > c->peak)
        c->peak = c->in_use;
    while (b == NULL && c->oldest != NULL && c->in_use + c->kept > c->peak) {
        mgr_file_block *old = c->oldest;
        unlink_block(c, old, class_bytes(old->cls));
        old->next = evicted; /* freed below, unlocked */
        evicted = old;
    }
    pthread_mutex_unlock(&c->lock);
    while (evicted != NULL) {
        mgr_file_block *next = evicted->next;
        block_delete(m, evicted, class_bytes(evicted->cls));
        evicted = next;
    }
    if (b != NULL)
        return b;
    void *fresh = block_new(m, rounded, size);
    if (fresh == NULL) {
        pthread_mutex_lock(&c->lock);
        c->in_use -= rounded;
        pthread_mutex_unlock(&c->lock);
    }
    return fresh;
}

/* Gives back what file_alloc(m, size) returned: kept when the cache is on
 * (in-use plus kept bytes stay as they were, so within the bound). */
static void file_free(kiln_manager *m, void *memory, size_t size) {
    mgr_file_cache *c = &m->files;
    size_t rounded;
    uint32_t cls;
    if (memory == NULL)
        return;
    if (!c->enabled || !size_class(size, &rounded, &cls)) {
        mgr_free(m, memory, size);
        return;
    }
    /* Kept as it is: a huge-page block's pages stay mapped for the next file. */
    mgr_file_block *b = memory;
    pthread_mutex_lock(&c->lock);
    c->in_use -= rounded;
    c->kept += rounded;
    b->cls = cls;
    b->older = c->newest;
    b->newer = NULL;
    if (c->newest != NULL)
        c->newest->newer = b;
    else
        c->oldest = b;
    c->newest = b;
    b->prev = NULL;
    b->next = c->lists[cls];
    if (b->next != NULL)
        b->next->prev = b;
    c->lists[cls] = b;
    pthread_mutex_unlock(&c->lock);
}

/* Frees kept blocks, oldest first, until at most `keep` bytes are kept, and
 * lowers the bound to what is in use plus what stays kept: the peak of a big
 * load no longer lets the cache keep that much. */
static void file_cache_trim(kiln_manager *m, uint64_t keep) {
    mgr_file_cache *c = &m->files;
    mgr_file_block *freed = NULL;
    pthread_mutex_lock(&c->lock);
    while (c->oldest != NULL && c->kept > keep) {
        mgr_file_block *old = c->oldest;
        unlink_block(c, old, class_bytes(old->cls));
        old->next = freed; /* freed below, unlocked */
        freed = old;
    }
    c->peak = c->in_use + c->kept;
    pthread_mutex_unlock(&c->lock);
    while (freed != NULL) {
        mgr_file_block *next = freed->next;
        block_delete(m, freed, class_bytes(freed->cls));
        freed = next;
    }
}

kiln_result kiln_manager_trim(kiln_manager *m, uint64_t keep_bytes, kiln_error *err) {
    if (m == NULL)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln manager",
                            "kiln_manager_trim needs a manager");
    if (m->files.enabled)
        file_cache_trim(m, keep_bytes);
    return KILN_OK;
}

void mgr_file_cache_counts(kiln_manager *m, uint64_t *kept, uint64_t *bound) {
    mgr_file_cache *c = &m->files;
    pthread_mutex_lock(&c->lock);
    *kept = c->kept;
    *bound = c->peak;
    pthread_mutex_unlock(&c->lock);
}

void mgr_file_cache_drain(kiln_manager *m) {
    mgr_file_cache *c = &m->files;
    while (c->oldest != NULL) {
        mgr_file_block *b = c->oldest;
        size_t bytes = class_bytes(b->cls);
        unlink_block(c, b, bytes);
        block_delete(m, b, bytes);
    }
    pthread_mutex_destroy(&c->lock);
}

/* ---------------------------------------------------------------------------
 * Reading and mapping
 * ------------------------------------------------------------------------- */

/* With KILN_MANAGER_MAP_FILES, folder files of at least this many bytes are
 * mapped, smaller ones read into manager memory: a mapping
 * costs an mmap, an munmap and a whole page at least, more than copying a few
 * kilobytes, and a process has a limited number of mappings (vm.max_map_count)
 * that thousands of tiny files would use up (BENCHMARKS.md section 12). */
#define MGR_MAP_MIN ((size_t)64 * 1024)

/* What identifies a file's version (mgr_file_id) from its stat. */
void mgr_file_id_of(const struct stat *st, mgr_file_id *id) {
    id->dev = (uint64_t)st->st_dev;
    id->ino = (uint64_t)st->st_ino;
    id->size = (uint64_t)st->st_size;
    id->mtime_ns = (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
    id->ctime_ns = (int64_t)st->st_ctim.tv_sec * 1000000000 + st->st_ctim.tv_nsec;
}

/* A whole folder file, 16-byte aligned: read into manager memory, or with
 * KILN_MANAGER_MAP_FILES mapped read-only and private, every page populated
 * (read into the page cache now if it was not there, on this thread: no I/O
 * or fault when the engine touches it); *mapped says which. A file that cannot be mapped (the
 * process is out of mappings) is read. *id (may be NULL) gets the version it read.
 *
 * A mapped file is the file: the cooker replaces files by rename, so the
 * mapping keeps the old version's bytes until the asset lets it go (a hot
 * reload maps the new file). A file truncated in place while mapped would
 * raise SIGBUS on access, and one rewritten in place would change under the
 * validated views: KILN_MANAGER_MAP_FILES (kiln/manager.h) is only for
 * folders written by rename. */
kiln_result mgr_read_file(kiln_manager *m, const char *name, const char *path, void **data,
                          size_t *size, bool *mapped, mgr_file_id *id, kiln_error *err) {
    int fd;
    struct stat st;
    kiln_result result = runtime_open_regular(name, path, &fd, size, &st, err);
    if (result != KILN_OK)
        return result;
    if (id != NULL)
        mgr_file_id_of(&st, id);
    *mapped = false;
    if ((m->flags & KILN_MANAGER_MAP_FILES) != 0 && *size >= MGR_MAP_MIN &&
        runtime_map_fd(name, fd, *size, true, data, NULL) == KILN_OK) {
        close(fd); /* the mapping keeps the file */
        *mapped = true;
        return KILN_OK;
    }
    uint8_t *memory = file_alloc(m, *size);
    if (memory == NULL) {
        close(fd);
        return runtime_fail(err, KILN_ERR_OUT_OF_MEMORY, name, "cannot allocate %zu bytes", *size);
    }
    size_t done = 0;
    while (done < *size) {
        ssize_t got = read(fd, memory + done, *size - done);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            char reason[128];
            int saved = errno;
            close(fd);
            file_free(m, memory, *size);
            return got == 0
                       ? runtime_fail(err, KILN_ERR_TRUNCATED, name, "file shrank while being read")
                       : runtime_fail(err, KILN_ERR_IO, name, "cannot read: %s",
                                      runtime_os_reason(saved, reason, sizeof reason));
        }
        done += (size_t)got;
    }
    close(fd);
    *data = memory;
    return KILN_OK;
}

void *mgr_file_alloc(kiln_manager *m, size_t size) {
    return file_alloc(m, size);
}

/* Frees a data's file bytes (unmaps a mapped file). */
void mgr_file_memory_free(kiln_manager *m, mgr_data *d) {
    if (d->file_memory != NULL) {
        if (d->file_mapped)
            munmap(d->file_memory, d->file_memory_size);
        else
            file_free(m, d->file_memory, d->file_memory_size);
    }
    d->file_memory = NULL;
    d->file_memory_size = 0;
    d->file_mapped = false;
}
