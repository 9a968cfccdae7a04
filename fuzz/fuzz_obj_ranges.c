/* fuzz_obj_ranges.c — the OBJ importer in byte ranges on two threads against
 * the same importer in one pass (import_obj_ranges), on arbitrary bytes
 * after the first, which picks the range size (256 bytes to 8 KiB): any
 * difference in the result, the messages or the meshes aborts. */
#include "fuzz_import.h"

static bool same_bytes(const void *a, const void *b, size_t size) {
    return (a == NULL) == (b == NULL) && (a == NULL || memcmp(a, b, size) == 0);
}

static bool same_meshes(const ir_asset *a, const ir_asset *b) {
    if (a->mesh_count != b->mesh_count || a->material_count != b->material_count)
        return false;
    for (uint32_t i = 0; i < a->mesh_count; i++) {
        const ir_mesh *x = &a->meshes[i], *y = &b->meshes[i];
        size_t n = x->vertex_count;
        if (n != y->vertex_count || x->index_count != y->index_count ||
            x->submesh_count != y->submesh_count ||
            !same_bytes(x->positions, y->positions, 12 * n) ||
            !same_bytes(x->normals, y->normals, 12 * n) ||
            !same_bytes(x->texcoords[0], y->texcoords[0], 8 * n) ||
            !same_bytes(x->colors, y->colors, 16 * n) ||
            !same_bytes(x->indices, y->indices, 4 * (size_t)x->index_count))
            return false;
        for (uint32_t s = 0; s < x->submesh_count; s++)
            if (x->submeshes[s].index_offset != y->submeshes[s].index_offset ||
                x->submeshes[s].index_count != y->submeshes[s].index_count ||
                x->submeshes[s].material != y->submeshes[s].material ||
                x->submeshes[s].topology != y->submeshes[s].topology)
                return false;
    }
    return true;
}

typedef struct pass_result {
    cook_diag diag;
    ir_asset asset;
    bool ok;
} pass_result;

static void run_import(pass_result *run, const char *text, size_t size, size_t range_bytes) {
    cook_settings settings;
    cook_settings_default(&settings);
    settings.threads = 2;
    memset(run, 0, sizeof *run);
    cook_context ctx = {
        .input_root = FUZZ_INPUT_ROOT,
        .source_path = "fuzz.obj",
        .ref = "fuzz",
        .source = (const uint8_t *)text,
        .source_size = size,
        .settings = &settings,
        .diag = &run->diag,
    };
    run->ok = import_obj_ranges(&ctx, &run->asset, range_bytes, NULL);
    strlist_free(&ctx.dependencies);
    strlist_free(&ctx.references);
    strlist_free(&ctx.absent);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1)
        return 0;
    size_t range_bytes = (size_t)256 << (data[0] % 6);
    char *text = fuzz_text(data + 1, size - 1);
    if (text == NULL)
        return 0;
    pass_result one, ranges;
    run_import(&one, text, size - 1, 0);
    run_import(&ranges, text, size - 1, range_bytes);
    const char *said_one = one.diag.text.data ? (const char *)one.diag.text.data : "";
    const char *said_ranges = ranges.diag.text.data ? (const char *)ranges.diag.text.data : "";
    if (one.ok != ranges.ok || strcmp(said_one, said_ranges) != 0 ||
        !same_meshes(&one.asset, &ranges.asset)) {
        fprintf(stderr, "ranges of %zu bytes differ from one pass:\n%s---\n%s", range_bytes,
                said_one, said_ranges);
        abort();
    }
    for (pass_result *run = &one; run != NULL; run = run == &one ? &ranges : NULL) {
        ir_asset_free(&run->asset);
        diag_free(&run->diag);
    }
    free(text);
    return 0;
}
