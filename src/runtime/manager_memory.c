/*
 * manager_memory.c — the asset manager's memory: every allocation goes
 * through the allocator hooks of kiln_manager_desc (the default: aligned_alloc
 * and free), and mgr_grow is the manager's growable-array step on them.
 * The lowest of the manager's files: it calls none of the others.
 */
#include <stdlib.h>
#include <string.h>

#include "runtime/manager_parts.h"

/* ---------------------------------------------------------------------------
 * Allocation
 * ------------------------------------------------------------------------- */

void *mgr_default_alloc(void *user, size_t size, size_t alignment) {
    (void)user;
    size_t rounded = (size + alignment - 1) / alignment * alignment;
    return aligned_alloc(alignment, rounded == 0 ? alignment : rounded);
}

void mgr_default_free(void *user, void *memory, size_t size) {
    (void)user;
    (void)size;
    free(memory);
}

void *mgr_alloc(kiln_manager *m, size_t size, size_t alignment) {
    return m->allocator.alloc(m->allocator.user, size, alignment);
}

void *mgr_calloc(kiln_manager *m, size_t count, size_t size) {
    if (size != 0 && count > SIZE_MAX / size)
        return NULL;
    void *p = mgr_alloc(m, count * size, 16);
    if (p != NULL)
        memset(p, 0, count * size);
    return p;
}

void mgr_free(kiln_manager *m, void *memory, size_t size) {
    if (memory != NULL)
        m->allocator.free(m->allocator.user, memory, size);
}

/* Grows an array of `elem`-byte items to hold at least `need`. */
bool mgr_grow(kiln_manager *m, void **array, uint32_t *capacity, uint32_t need, size_t elem) {
    if (need <= *capacity)
        return true;
    uint32_t cap = *capacity < 4 ? 4 : *capacity;
    while (cap < need)
        cap = cap > UINT32_MAX / 2 ? need : cap * 2;
    void *fresh = mgr_calloc(m, cap, elem);
    if (fresh == NULL)
        return false;
    if (*array != NULL) {
        memcpy(fresh, *array, (size_t)*capacity * elem);
        mgr_free(m, *array, (size_t)*capacity * elem);
    }
    *array = fresh;
    *capacity = cap;
    return true;
}
