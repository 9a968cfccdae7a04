/*
 * level.h — text level files (`*.level`, YAML; README.md, Levels): the parser
 * the level driver (drivers/level.c) and the fuzz harness call.
 *
 *   include: [common.level]      # other levels, relative to this one
 *   merge: true                  # inline the placed models (drivers/level_merge.c)
 *   entities:
 *     - name: truck              # unique among every entity the level adds
 *       asset: models/truck.gltf # a model, relative to the input folder
 *       translation: [0, 0, 5]
 *       rotation: [0, 0, 0, 1]   # quaternion x y z w, normalised
 *       # or rotation_degrees: [x, y, z]: about X, then Y, then Z
 *       scale: [1, 1, 1]
 *       parent: yard             # another entity's name
 *       components:              # free-form; {ref: PATH} names an asset
 *         decal: {ref: textures/decal.png, size: 2}
 *
 * The parser reads one file's bytes; includes, names, parents and refs are the
 * driver's. Every message names the file and the line.
 */
#ifndef KILN_COOK_IMPORT_LEVEL_H
#define KILN_COOK_IMPORT_LEVEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cook/core/core.h"

#define LEVEL_MAX_BYTES ((size_t)64 << 20) /* one level file */
#define LEVEL_MAX_DEPTH 64u                /* nesting of components */
/* Nesting of the whole file: components sit in the file's map, the
 * entities' list, the entity and its components' map, four levels down. */
#define LEVEL_MAX_YAML_DEPTH (LEVEL_MAX_DEPTH + 4u)
/* Values visited in one file's components (an alias each time it is used)
 * and the bytes of JSON they make, as multiples of the file's size, each at
 * least its floor: a file without aliases visits at most a value per byte of
 * it and makes at most 6 bytes of JSON per byte (a control character escaped
 * as \u00XX); aliases may reuse blocks many times over, past that they are
 * a bomb (nine nested aliases in 600 bytes name 2^27 values). */
#define LEVEL_VALUES_PER_BYTE 16u
#define LEVEL_MIN_VALUES (1u << 16)
#define LEVEL_JSON_PER_BYTE 64u
#define LEVEL_MIN_JSON ((size_t)4 << 20)
#define LEVEL_MAX_ENTITIES (1u << 20) /* entities in one file */
#define LEVEL_MAX_KEYS 4096u          /* keys in one map of components */
#define LEVEL_MAX_INCLUDE_DEPTH 32u   /* levels including levels including ... */

/* Called for each {ref: PATH} of the components, in file order: fills *hash
 * with the ref hash of what PATH cooks to, or reports an error naming `path`
 * and `line` and returns false. */
typedef bool (*level_ref_fn)(void *user, const char *ref_path, uint32_t line, uint64_t *hash);

typedef struct level_include {
    char *path; /* as written: relative to the including level's folder */
    uint32_t line;
} level_include;

typedef struct level_entity {
    char *name;
    uint32_t line; /* of its name */
    char *asset;   /* as written (relative to the input folder), or NULL */
    uint32_t asset_line;
    char *parent; /* another entity's name, or NULL */
    uint32_t parent_line;
    float translation[3];
    float rotation[4]; /* unit quaternion x y z w */
    float scale[3];
    char *components; /* compact JSON object, or NULL */
} level_entity;

typedef struct level_doc {
    level_include *includes;
    uint32_t include_count;
    level_entity *entities;
    uint32_t entity_count;
    /* merge: true / false (level.merge for this level); merge_line 0 when
     * the file does not say. */
    bool merge;
    uint32_t merge_line;
    /* The most bytes the YAML's nodes held at once while it was read
     * (level_tree.h): one entity's, unless the file uses anchors. */
    size_t yaml_peak_bytes;
} level_doc;

/* Parses one level file's bytes. `path` names it in messages (diag). Refs in
 * components go through `resolve` (NULL: every ref hashes to 0, for tests
 * and fuzzing). Returns false when it reported an error; `out` then holds
 * what was read so far and must still be freed. */
bool level_parse(const uint8_t *bytes, size_t size, const char *path, cook_diag *diag,
                 level_ref_fn resolve, void *user, level_doc *out);
void level_doc_free(level_doc *doc);

#endif /* KILN_COOK_IMPORT_LEVEL_H */
