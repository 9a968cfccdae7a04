/*
 * library.c — a client library of the remote cache loaded on first use
 * (library.h).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build/remote/library.h"

bool library_load(const char *file, const library_symbol *symbols, size_t count, void *table,
                  char *reason, size_t reason_size) {
#ifdef KILN_TEST_HOOKS
    /* The tests load from an empty folder to see a missing library. */
    char path[4096];
    const char *folder = getenv("KILN_TEST_LIBRARY_DIR");
    if (folder != NULL) {
        snprintf(path, sizeof path, "%s/%s", folder, file);
        file = path;
    }
#endif
    /* RTLD_LOCAL: its symbols serve the table only, never the program's own
     * lookups. It is never closed: its handles outlive any one transport. */
    void *handle = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char *why = dlerror(); /* names the file */
        snprintf(reason, reason_size, "%s", why != NULL ? why : file);
        return false;
    }
    for (size_t i = 0; i < count; i++) {
        void *address = dlsym(handle, symbols[i].name);
        if (address == NULL) {
            snprintf(reason, reason_size, "%s has no function %s", file, symbols[i].name);
            dlclose(handle);
            return false;
        }
        /* POSIX lets a function's address travel as void *; copied, not
         * converted, as ISO C has no conversion between the two. */
        memcpy((char *)table + symbols[i].offset, &address, sizeof address);
    }
    return true;
}

bool library_load_once(library_once *once, const char *file, const library_symbol *symbols,
                       size_t count, void *table, library_start start, char *reason,
                       size_t reason_size) {
    pthread_mutex_lock(&once->lock);
    if (!once->loaded)
        once->loaded = library_load(file, symbols, count, table, reason, reason_size) &&
                       (start == NULL || start(reason, reason_size));
    bool loaded = once->loaded;
    pthread_mutex_unlock(&once->lock);
    return loaded;
}
