/* fuzz_level.c — libFuzzer harness: the level parser (src/cook/import/level.c) on arbitrary
 * bytes, as a `*.level` file would hold them. Every {ref: PATH} is accepted with hash 0. Build
 * and run: see fuzz/README.md. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cook/import/level.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    cook_diag diag = {0};
    level_doc doc;
    if (level_parse(data, size, "fuzz.level", &diag, NULL, NULL, &doc)) {
        /* What it accepts is whole: every entity has a name, unit rotation. */
        for (uint32_t i = 0; i < doc.entity_count; i++) {
            const level_entity *e = &doc.entities[i];
            if (e->name == NULL || e->name[0] == '\0')
                abort();
            float q = e->rotation[0] * e->rotation[0] + e->rotation[1] * e->rotation[1] +
                      e->rotation[2] * e->rotation[2] + e->rotation[3] * e->rotation[3];
            if (!(q > 0.999f && q < 1.001f))
                abort();
        }
    } else if (diag.errors == 0) {
        abort(); /* a refusal always says why */
    }
    level_doc_free(&doc);
    diag_free(&diag);
    return 0;
}
