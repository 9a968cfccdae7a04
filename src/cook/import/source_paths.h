/*
 * source_paths.h — the scanners behind cook_source_paths (named_paths.h): one
 * per format that names other files.
 */
#ifndef KILN_COOK_IMPORT_SOURCE_PATHS_H
#define KILN_COOK_IMPORT_SOURCE_PATHS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cook/core/named_paths.h"

/* source_paths_yaml.c: include:, asset: and ref: of a level; the textures
 * of a standalone material (*.mat). */
bool source_paths_level(const char *relative, const uint8_t *bytes, size_t size,
                        cook_named_paths *out, char *reason, size_t reason_size);
bool source_paths_mat(const char *relative, const uint8_t *bytes, size_t size,
                      cook_named_paths *out, char *reason, size_t reason_size);
/* source_paths_gltf.c: buffers[].uri and images[].uri of a .gltf or .glb. */
bool source_paths_gltf(const char *relative, const uint8_t *bytes, size_t size,
                       cook_named_paths *out, char *reason, size_t reason_size);

#endif /* KILN_COOK_IMPORT_SOURCE_PATHS_H */
