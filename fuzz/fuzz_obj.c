/* fuzz_obj.c — import_obj on arbitrary bytes as a source file named fuzz.obj
 * (see fuzz_import.h). */
#include "fuzz_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_import(import_obj, "fuzz.obj", data, size);
    return 0;
}
