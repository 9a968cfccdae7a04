/*
 * components.h — a level entity's components (kscene.md SLNK: compact JSON,
 * an object) and the assets they name: every "hash" key that follows a
 * "ref" key with a string value in the same object, as the cooker writes
 * them ({"ref":"textures/decal.png","hash":"8c3f5d0e2a1b4c77"}). A "hash"
 * anywhere else, and ref-like text inside a string, names nothing. Keys are
 * compared as written (no escapes undone). Used by the runtime's asset
 * manager (a level's dependencies) and kiln check.
 */
#ifndef KILN_COMMON_COMPONENTS_H
#define KILN_COMMON_COMPONENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define COMPONENTS_MAX_DEPTH 256

enum {
    COMPONENTS_OK = 0,
    COMPONENTS_MALFORMED = 1, /* *why and *at (byte offset) say where */
    COMPONENTS_STOPPED = 2    /* the callback returned false */
};

/* Called with each ref (its raw bytes between the quotes) and its hash. */
typedef bool (*components_ref_fn)(void *user, const char *ref, size_t ref_length, uint64_t hash);

/* Calls fn for each ref / hash pair of `json` (`length` bytes), in order,
 * iteratively (no recursion, whatever the nesting). COMPONENTS_MALFORMED
 * when the text is not a JSON object, nests deeper than
 * COMPONENTS_MAX_DEPTH, or a ref's "hash" is not 16 lower-case hex digits. */
int components_scan(const char *json, size_t length, components_ref_fn fn, void *user,
                    const char **why, size_t *at);

#endif /* KILN_COMMON_COMPONENTS_H */
