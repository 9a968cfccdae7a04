/*
 * gltf_component.h — glTF's accessor component types and their sizes, shared
 * by the glTF importer (gltf*.c) and the Draco decoder (draco_decode.cpp),
 * which converts decoded values to them. Plain C, usable from C++.
 */
#ifndef KILN_COOK_IMPORT_GLTF_COMPONENT_H
#define KILN_COOK_IMPORT_GLTF_COMPONENT_H

#include <stdint.h>

enum {
    GLTF_BYTE = 5120,
    GLTF_UNSIGNED_BYTE = 5121,
    GLTF_SHORT = 5122,
    GLTF_UNSIGNED_SHORT = 5123,
    GLTF_UNSIGNED_INT = 5125,
    GLTF_FLOAT = 5126,
};

/* Bytes of one component; 0 for a value that is no component type. */
static inline uint32_t gltf_component_size(uint32_t component_type) {
    switch (component_type) {
    case GLTF_BYTE:
    case GLTF_UNSIGNED_BYTE:
        return 1;
    case GLTF_SHORT:
    case GLTF_UNSIGNED_SHORT:
        return 2;
    case GLTF_UNSIGNED_INT:
    case GLTF_FLOAT:
        return 4;
    }
    return 0;
}

#endif /* KILN_COOK_IMPORT_GLTF_COMPONENT_H */
