/* fuzz_glb.c — import_gltf on arbitrary bytes as a binary glTF (fuzz.glb):
 * the GLB header and chunks, then the JSON and the BIN chunk it points into. */
#include "fuzz_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_import(import_gltf, "fuzz.glb", data, size);
    return 0;
}
