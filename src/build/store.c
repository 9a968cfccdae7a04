/*
 * store.c — the local cache store: records looked up in the cache read from
 * <output>/.kiln-cache, and the next build's records written back to it as
 * one file (cache.c's format) when the build closes the store committing.
 *
 * A remote store would be another build_cache_store (build/cache.h) tried
 * after this one; nothing here knows of it.
 */
#include <stdlib.h>
#include <string.h>

#include "build/internal.h"

typedef struct local_store {
    char *output;
    const kiln_cache *loaded;
    kiln_cache next; /* shallow copies of the records stored, in source order */
} local_store;

static const cache_record *local_lookup(void *state, const char *source) {
    const local_store *local = state;
    return cache_find(local->loaded, source);
}

static bool local_store_record(void *state, const cache_record *record) {
    local_store *local = state;
    return cache_append_shared(&local->next, record);
}

/* With `commit`, writes the stored records as the new <output>/.kiln-cache
 * (unless the file already holds those bytes). */
static bool local_close(void *state, bool commit, char *reason, size_t reason_size) {
    local_store *local = state;
    bool ok = true;
    if (commit) {
        bytebuf bytes = {0};
        char *path = cook_path_join(local->output, CACHE_FILE_NAME);
        /* The build counts one up when it cooked a record (a no-op build
         * writes nothing: the last build that cooked keeps its number). */
        local->next.build = local->loaded != NULL ? local->loaded->build : 0;
        for (size_t i = 0; i < local->next.count; i++) {
            if (local->next.records[i].cooked_in > local->next.build)
                local->next.build = local->next.records[i].cooked_in;
        }
        if (path != NULL)
            cache_serialize(&local->next, &bytes);
        if (path == NULL || bytes.failed) {
            snprintf(reason, reason_size, "out of memory");
            ok = false;
        } else {
            ok = write_file_if_changed(path, bytes.data, bytes.size, reason, reason_size);
        }
        free(path);
        bytebuf_free(&bytes);
    }
    free(local->next.records);
    free(local->output);
    free(local);
    return ok;
}

void build_local_store_open(build_cache_store *store, const char *output, const kiln_cache *loaded,
                            uint32_t encoder_version, bool record_times) {
    local_store *local = calloc(1, sizeof *local);
    if (local != NULL && (local->output = strdup(output)) == NULL) {
        free(local);
        local = NULL;
    }
    if (local != NULL) {
        local->loaded = loaded;
        local->next.encoder_version = encoder_version;
        local->next.timed = record_times || (loaded != NULL && loaded->timed);
    }
    *store = (build_cache_store){
        .name = "local",
        .state = local,
        .lookup = local ? local_lookup : NULL,
        .store = local ? local_store_record : NULL,
        .close = local ? local_close : NULL,
    };
}
