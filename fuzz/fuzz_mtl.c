/* fuzz_mtl.c — import_mtl on arbitrary bytes (materials and texture names;
 * no texture resolves, see fuzz_import.h). */
#include "fuzz_import.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char *text = fuzz_text(data, size);
    if (text == NULL)
        return 0;
    cook_settings settings;
    cook_settings_default(&settings);
    cook_diag diag = {0};
    cook_context ctx = {.input_root = FUZZ_INPUT_ROOT,
                        .source_path = "fuzz.obj",
                        .ref = "fuzz",
                        .source = (const uint8_t *)"",
                        .settings = &settings,
                        .diag = &diag};
    ir_material *materials = NULL;
    ir_image *images = NULL;
    uint32_t material_count = 0, image_count = 0;
    (void)import_mtl(&ctx, "fuzz.mtl", text, size, &materials, &material_count, &images,
                     &image_count);
    for (uint32_t i = 0; i < material_count; i++)
        ir_material_free(&materials[i]);
    free(materials);
    ir_images_free(images, image_count);
    strlist_free(&ctx.dependencies);
    strlist_free(&ctx.references);
    strlist_free(&ctx.absent);
    diag_free(&diag);
    free(text);
    return 0;
}
