/*
 * named_paths.h — the paths a source names and the bytes that spell them:
 * what `kiln mv` rewrites when a file moves. The list and the spelling are
 * core/named_paths.c's; cook_source_paths, which knows each format, is the
 * import room's (import/source_paths*.c).
 */
#ifndef KILN_COOK_CORE_NAMED_PATHS_H
#define KILN_COOK_CORE_NAMED_PATHS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cook/core/util.h"

/* How a path is written where it stands. */
typedef enum cook_path_syntax {
    COOK_PATH_TEXT,        /* the bytes themselves (OBJ mtllib, MTL maps, #include "") */
    COOK_PATH_YAML_PLAIN,  /* a level's unquoted scalar */
    COOK_PATH_YAML_SINGLE, /* 'quoted' */
    COOK_PATH_YAML_DOUBLE, /* "quoted" */
    COOK_PATH_JSON_URI,    /* a glTF uri: a JSON string of a percent-encoded path */
} cook_path_syntax;

typedef struct cook_named_path {
    char *path;        /* what it names, decoded; relative to the file's folder or the root */
    size_t start, end; /* the bytes that spell it, quotes included */
    uint32_t line;
    bool from_root; /* relative to the input root (a level's asset: and ref:) */
    bool fixed;     /* cannot be rewritten in place: in a .glb, or spelled with escapes */
    cook_path_syntax syntax;
    char what[64]; /* where it is: "mtllib", "map_Kd", "images[2].uri", "include" */
} cook_named_path;

typedef struct cook_named_paths {
    cook_named_path *items;
    size_t count, cap;
} cook_named_paths;

/* True when `relative`'s name is of a format that names other files: a level,
 * a standalone material (.mat), an OBJ, an MTL, a glTF or GLB, a GLSL or HLSL
 * source or header. */
bool cook_names_paths(const char *relative);
/* The paths the file `relative` (its bytes given) names, in file order:
 * levels' include: (from the level) and asset:/ref: (from the root); a .mat's
 * textures (a slot's path or image:, from the .mat); an OBJ's
 * mtllib; an MTL's texture maps; a glTF's buffers[].uri and images[].uri;
 * a shader's #include "...". What names no file in the input folder (a data:
 * URI, a URI with a scheme, an absolute path) is left out. False with a
 * reason when the file cannot be read as its format. */
bool cook_source_paths(const char *relative, const uint8_t *bytes, size_t size,
                       cook_named_paths *out, char *reason, size_t reason_size);
/* Appends `path` spelled as `named` is (quoted, escaped, percent-encoded);
 * false with a reason when that syntax cannot hold it (an OBJ library name
 * with a space that does not end in ".mtl", a map name starting with '-'). */
bool cook_named_path_spell(const cook_named_path *named, const char *path, bytebuf *out,
                           char *reason, size_t reason_size);
/* Appends a path (its decoded text, path_length bytes) spelled by bytes
 * [start, end) of the file; false when out of memory. */
bool cook_named_paths_add(cook_named_paths *out, const char *path, size_t path_length, size_t start,
                          size_t end, uint32_t line, cook_path_syntax syntax, const char *what);
void cook_named_paths_free(cook_named_paths *paths);

#endif /* KILN_COOK_CORE_NAMED_PATHS_H */
