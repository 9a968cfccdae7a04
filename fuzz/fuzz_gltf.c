/* fuzz_gltf.c — import_gltf on arbitrary bytes as a source file named fuzz.gltf
 * (see fuzz_import.h). */
#include "fuzz_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_import(import_gltf, "fuzz.gltf", data, size);
    return 0;
}
