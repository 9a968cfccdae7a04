/* result.c — what one asset produced: outputs, manifest entries, time per stage. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/grow.h"
#include "cook/core/core.h"

bool cook_manifest_add(cook_manifest_list *list, const char *ref, const char *path,
                       kiln_asset_kind kind, kiln_color_space color_space, uint32_t index) {
    cook_manifest_entry *items =
        array_grow(list->items, &list->cap, list->count + 1, sizeof *items, 8);
    if (items == NULL)
        return false;
    list->items = items;
    cook_manifest_entry *e = &list->items[list->count];
    e->ref = cook_strdup(ref);
    e->path = cook_strdup(path);
    if (e->ref == NULL || e->path == NULL) {
        free(e->ref);
        free(e->path);
        return false;
    }
    e->hash = kiln_ref_hash(ref);
    e->kind = kind;
    e->color_space = color_space;
    e->index = index;
    e->asset_id = (kiln_asset_id){0, 0};
    e->main = false;
    list->count++;
    return true;
}

bool cook_manifest_add_all(cook_manifest_list *list, const cook_manifest_list *from) {
    for (size_t i = 0; i < from->count; i++) {
        const cook_manifest_entry *e = &from->items[i];
        if (!cook_manifest_add(list, e->ref, e->path, e->kind, e->color_space, e->index))
            return false;
    }
    return true;
}

void cook_manifest_list_free(cook_manifest_list *list) {
    for (size_t i = 0; i < list->count; i++) {
        free(list->items[i].ref);
        free(list->items[i].path);
    }
    free(list->items);
    memset(list, 0, sizeof *list);
}

double cook_clock(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

double cook_stage_add(cook_asset_result *result, cook_stage stage, double since) {
    double now = cook_clock();
    result->stage_seconds[stage] += now - since;
    return now;
}

const char *cook_stage_name(cook_stage stage) {
    static const char *const names[COOK_STAGE_COUNT] = {
        [COOK_STAGE_IMPORT] = "import",
        [COOK_STAGE_PROCESS] = "process",
        [COOK_STAGE_WRITE] = "write",
        [COOK_STAGE_TEXTURE] = "texture",
    };
    return (unsigned)stage < COOK_STAGE_COUNT ? names[stage] : "";
}

void cook_asset_result_free(cook_asset_result *result) {
    diag_free(&result->diag);
    strlist_free(&result->outputs);
    strlist_free(&result->dependencies);
    strlist_free(&result->references);
    strlist_free(&result->absent);
    cook_manifest_list_free(&result->manifest);
}
