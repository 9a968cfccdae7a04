/*
 * material.c — standalone materials: the "*.mat" driver (one-row .kmat under
 * the file's own ref, its textures cooked once, as a model's are) and
 * material.replace, which gives a model's row a standalone material's values
 * and makes it reference that material's textures and ref instead of cooking
 * its own (drivers.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cook/drivers/drivers.h"
#include "cook/import/mat.h"

/* The words of `flags` into the material's forced bits; `path` is the .mat. */
static bool apply_flags(cook_context *ctx, const char *path, mat_doc *doc) {
    ir_material *m = &doc->asset.materials[0];
    for (const char *word = doc->flags; word != NULL && *word != '\0';) {
        word += strspn(word, " ,\t");
        size_t length = strcspn(word, " ,\t");
        if (length == 0)
            break;
        if (!driver_material_flag_word(word, length, &m->flags_on, &m->flags_off)) {
            diag_error(ctx->diag, path, doc->flags_line,
                       "flags: '%.*s' is not a flag (cast_shadows, receive_shadows, transparent, "
                       "double_sided, each also with no_ before it)",
                       (int)length, word);
            return false;
        }
        word += length;
    }
    return true;
}

/* Each image's path, relative to the .mat, made relative to the input root
 * and recorded as a dependency; a missing one is an error naming it. */
static bool resolve_images(cook_context *ctx, mat_doc *doc) {
    bool ok = true;
    for (uint32_t i = 0; i < doc->asset.image_count; i++) {
        ir_image *image = &doc->asset.images[i];
        char *root_relative = NULL;
        char reason[512];
        if (!cook_resolve_dependency(ctx, image->path, &root_relative, reason, sizeof reason)) {
            diag_error(ctx->diag, ctx->source_path, doc->image_lines[i], "texture '%s': %s",
                       image->path, reason);
            ok = false;
            continue;
        }
        char *name = cook_strdup(root_relative);
        if (name == NULL) {
            diag_error(ctx->diag, ctx->source_path, 0, "out of memory");
            free(root_relative);
            return false;
        }
        free(image->path);
        free(image->name);
        image->path = root_relative;
        image->name = name; /* messages name the file from the input folder */
    }
    return ok;
}

bool cook_material_asset(const cook_request *request, cook_context *ctx,
                         cook_asset_result *result) {
    cook_stage_enter(ctx, COOK_STAGE_IMPORT);
    double clock = cook_clock();
    mat_doc doc;
    bool ok = mat_parse(ctx->source, ctx->source_size, ctx->source_path, ctx->diag, &doc);
    ok = ok && resolve_images(ctx, &doc) && apply_flags(ctx, ctx->source_path, &doc);
    cook_stage_add(result, COOK_STAGE_IMPORT, clock);
    /* The table is the material: its ref is the file's own, one row. */
    driver_material_table table = {.table_ref = ctx->ref, .textures_required = true};
    ok = ok && driver_cook_materials(request, ctx, &doc.asset, &table, result);
    mat_doc_free(&doc);
    return ok;
}

/* Reads and parses the standalone material `path` (relative to the input
 * root, recorded as a dependency of the model: its values are copied) and
 * the texture refs its own cook gives its slots. */
static bool load_standalone(cook_context *ctx, const char *path, mat_doc *doc, char *ref,
                            size_t ref_size, uint64_t textures[KILN_MATERIAL_SLOT_COUNT]) {
    char reason[512];
    char *root_relative = NULL;
    const cook_importer *importer = cook_registry_match(path);
    if (importer == NULL || importer->driver != cook_material_asset) {
        diag_error(ctx->diag, ctx->source_path, 0,
                   "material.replace: '%s' is not a standalone material (a *.mat file)", path);
        return false;
    }
    if (!cook_resolve_dependency_from(ctx, "", path, &root_relative, reason, sizeof reason)) {
        diag_error(ctx->diag, ctx->source_path, 0, "material.replace: '%s': %s", path, reason);
        return false;
    }
    char *full = cook_path_join(ctx->input_root, root_relative);
    uint8_t *bytes = NULL;
    size_t size = 0;
    bool ok = full != NULL &&
              cook_read_file(full, MAT_MAX_BYTES + 1, &bytes, &size, reason, sizeof reason);
    if (!ok)
        diag_error(ctx->diag, ctx->source_path, 0, "material.replace: '%s': %s", path,
                   full ? reason : "out of memory");
    /* Its own errors name the .mat and its line. */
    bool parsed = ok && mat_parse(bytes, size, root_relative, ctx->diag, doc);
    ok = parsed && apply_flags(ctx, root_relative, doc) &&
         cook_asset_ref(importer, root_relative, ref, ref_size) == KILN_OK;
    if (parsed && !ok)
        mat_doc_free(doc);
    else if (ok && !driver_material_texture_refs(ref, &doc->asset, textures)) {
        diag_error(ctx->diag, ctx->source_path, 0, "out of memory");
        mat_doc_free(doc);
        ok = false;
    }
    free(bytes);
    free(full);
    free(root_relative);
    return ok;
}

/* Row `m` becomes the standalone material (its name kept: meshes and rules
 * know the row by it); its slots keep the samplers, and a textured one is
 * IR_IMAGE_SHARED: the mesh stage sees the normal map, the model cooks
 * nothing for it. */
static void take_material(ir_material *row, const ir_material *standalone, uint64_t source) {
    char *name = row->name;
    bool unnamed = row->unnamed;
    char *dropped = row->dropped_extensions;
    char *extras = row->extras; /* the source's material still; its textures are gone */
    for (int s = 0; s < IR_SLOT_COUNT; s++) {
        free(row->texture_extras[s]);
        free(row->image_extras[s]);
    }
    *row = *standalone;
    row->name = name;
    row->unnamed = unnamed;
    row->dropped_extensions = dropped;
    row->extras = extras;
    for (int s = 0; s < IR_SLOT_COUNT; s++) {
        row->texture_extras[s] = NULL;
        row->image_extras[s] = NULL;
    }
    row->source_material = source;
    for (int s = 0; s < IR_SLOT_COUNT; s++)
        row->textures[s].image = standalone->textures[s].image >= 0 ? IR_IMAGE_SHARED : -1;
}

bool driver_material_replace(cook_context *ctx, ir_asset *asset, uint64_t **shared) {
    *shared = NULL;
    const char *text = ctx->settings->material_replace;
    bool ok = true;
    while (ok && *text != '\0') {
        size_t line_length = strcspn(text, "\n");
        char line[COOK_SHADER_TEXT_MAX];
        snprintf(line, sizeof line, "%.*s", (int)line_length, text);
        text += line_length + (text[line_length] == '\n');
        char *equals = strrchr(line, '=');
        if (equals == NULL || equals == line || equals[1] == '\0') {
            diag_error(ctx->diag, ctx->source_path, 0,
                       "material.replace: '%s' is not NAME=PATH (a material name glob, '=', a "
                       "*.mat file relative to the input folder)",
                       line);
            return false;
        }
        *equals = '\0';
        const char *path = equals + 1;
        bool matched = false;
        for (uint32_t m = 0; m < asset->material_count && !matched; m++)
            matched = discover_glob_match(line, asset->materials[m].name);
        if (!matched)
            continue; /* a rule for many models: this one has no such material */
        mat_doc doc;
        char ref[1024];
        uint64_t textures[KILN_MATERIAL_SLOT_COUNT];
        if (!load_standalone(ctx, path, &doc, ref, sizeof ref, textures))
            return false;
        if (*shared == NULL)
            *shared =
                calloc((size_t)asset->material_count * KILN_MATERIAL_SLOT_COUNT, sizeof **shared);
        ok = *shared != NULL;
        if (!ok)
            diag_error(ctx->diag, ctx->source_path, 0, "out of memory");
        for (uint32_t m = 0; ok && m < asset->material_count; m++) {
            if (!discover_glob_match(line, asset->materials[m].name))
                continue;
            take_material(&asset->materials[m], &doc.asset.materials[0], kiln_ref_hash(ref));
            memcpy(*shared + (size_t)m * KILN_MATERIAL_SLOT_COUNT, textures, sizeof textures);
        }
        mat_doc_free(&doc);
    }
    if (!ok) {
        free(*shared);
        *shared = NULL;
    }
    return ok;
}
