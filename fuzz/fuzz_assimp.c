/* fuzz_assimp.c — import_assimp on arbitrary bytes, in process: assimp reads
 * them from memory (kiln's aiFileIO serves the source from ctx->source, the
 * same post-processing flags and properties as a build), then kiln converts
 * the scene into its IR (assimp.c, assimp_anim.c).
 *
 * The source is named "fuzz.model", an extension assimp has no reader for, so
 * it picks the reader from the content (PLY, STL, OFF, COLLADA, FBX, 3DS, X,
 * ... by their signatures), as aiImportFileFromMemory does without a hint.
 *
 * Not in the CI smoke list (scripts/fuzz.sh): assimp 5.2 itself loops forever
 * on some malformed headers (tests/fuzz/regressions/assimp-hangs/), which a
 * build survives only through its isolated importer's time limit. Run it with
 * `make fuzz FUZZ_HARNESSES=assimp` (fuzz.sh gives it -timeout=5 and assimp's
 * leak suppressions, fuzz/assimp.lsan); see fuzz/README.md. */
#include "fuzz_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_import(import_assimp, "fuzz.model", data, size);
    return 0;
}
