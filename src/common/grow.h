/*
 * grow.h — the one growable-array step: make room for `needed` items,
 * doubling the capacity (from `initial`), with the size arithmetic checked.
 *
 *   if (list->count == list->cap) {
 *       item *grown = array_grow(list->items, &list->cap, list->count + 1,
 *                                sizeof *grown, 8);
 *       if (grown == NULL)
 *           return false;           // list->items is still valid, unchanged
 *       list->items = grown;
 *   }
 *
 * On success *capacity is the new capacity (at least `needed`) and the
 * returned block holds the old items; new slots are uninitialised.
 */
#ifndef KILN_COMMON_GROW_H
#define KILN_COMMON_GROW_H

#include <stddef.h>
#include <stdlib.h>

#include "common/checked.h"

/* The grown block, or `items` itself when it already holds `needed`; NULL
 * (items untouched, *capacity unchanged) when the size overflows or memory
 * runs out. */
static inline void *array_grow(void *items, size_t *capacity, size_t needed, size_t item_size,
                               size_t initial) {
    if (needed <= *capacity && items != NULL)
        return items;
    size_t cap = *capacity > 0 ? *capacity : (initial > 0 ? initial : 1);
    while (cap < needed) {
        if (!checked_mul_size(cap, 2, &cap))
            return NULL;
    }
    size_t bytes;
    if (!checked_mul_size(cap, item_size, &bytes))
        return NULL;
    void *grown = realloc(items, bytes > 0 ? bytes : 1);
    if (grown == NULL)
        return NULL;
    *capacity = cap;
    return grown;
}

#endif /* KILN_COMMON_GROW_H */
