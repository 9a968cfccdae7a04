/* fuzz_source_paths.c — cook_source_paths (src/cook/import/source_paths*.c),
 * what `kiln mv` reads from every file of the input folder, on arbitrary
 * bytes. The first byte picks the format (the file follows it). Every path
 * found must lie inside the bytes, in order and without overlap (kiln mv
 * splices its rewrites in that order), and spell back without a crash. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cook/core/named_paths.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[] = {"fuzz.level", "fuzz.obj",  "fuzz.mtl", "fuzz.gltf",
                                    "fuzz.glb",   "fuzz.glsl", "fuzz.mat"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0)
        return 0;
    const char *name = names[data[0] % (sizeof names / sizeof *names)];
    data++;
    size--;
    cook_named_paths paths;
    char reason[512];
    if (!cook_source_paths(name, data, size, &paths, reason, sizeof reason)) {
        if (reason[0] == '\0' || paths.count != 0)
            abort(); /* a refusal says why and returns nothing */
        return 0;
    }
    size_t previous_end = 0;
    for (size_t i = 0; i < paths.count; i++) {
        const cook_named_path *named = &paths.items[i];
        if (named->start > named->end || named->end > size || named->start < previous_end ||
            named->path == NULL)
            abort();
        previous_end = named->end;
        bytebuf spelled = {0};
        (void)cook_named_path_spell(named, named->path, &spelled, reason, sizeof reason);
        bytebuf_free(&spelled);
    }
    cook_named_paths_free(&paths);
    return 0;
}
