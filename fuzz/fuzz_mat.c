/* fuzz_mat.c — libFuzzer harness: the standalone material parser
 * (src/cook/import/mat.c) on arbitrary bytes, as a `*.mat` file would hold
 * them. Build and run: see fuzz/README.md. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cook/import/mat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    cook_diag diag = {0};
    mat_doc doc;
    if (mat_parse(data, size, "fuzz.mat", &diag, &doc)) {
        /* What it accepts is whole: one named row in the .kmat's ranges,
         * every slot's image one of the images, each with a path. */
        const ir_material *m = &doc.asset.materials[0];
        if (doc.asset.material_count != 1 || m->name == NULL || m->name[0] == '\0')
            abort();
        for (int c = 0; c < 4; c++)
            if (!(m->base_color[c] >= 0.0f && m->base_color[c] <= 1.0f))
                abort();
        if (!(m->metallic >= 0.0f && m->metallic <= 1.0f && m->roughness >= 0.0f &&
              m->roughness <= 1.0f && isfinite(m->normal_scale)))
            abort();
        for (int s = 0; s < IR_SLOT_COUNT; s++) {
            int32_t image = m->textures[s].image;
            if (image >= (int32_t)doc.asset.image_count ||
                (image >= 0 && doc.asset.images[image].path == NULL))
                abort();
        }
        mat_doc_free(&doc);
    } else if (diag.errors == 0) {
        abort(); /* a refusal always says why */
    }
    diag_free(&diag);
    return 0;
}
