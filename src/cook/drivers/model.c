/* model.c — the model driver: a glTF, OBJ or assimp source through import →
 * process → encode → write, into one .kmesh per mesh, a .kmat and the KTX2
 * textures its materials use. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cook/drivers/drivers.h"

/* The IR contract (ir.h), checked before anything is written: an importer bug
 * must become an error message, not a file the runtime rejects later. */
static bool check_mesh_invariants(const ir_mesh *mesh, uint32_t material_count, cook_context *ctx) {
    const char *path = ctx->source_path;
    if (mesh->index_count % 3 != 0) {
        diag_error(ctx->diag, path, 0, "mesh '%s': %u indices is not a whole number of triangles",
                   mesh->name ? mesh->name : "", mesh->index_count);
        return false;
    }
    for (uint32_t i = 0; i < mesh->index_count; i++) {
        if (mesh->indices[i] >= mesh->vertex_count) {
            diag_error(ctx->diag, path, 0, "mesh '%s': index %u out of range (%u vertices)",
                       mesh->name ? mesh->name : "", mesh->indices[i], mesh->vertex_count);
            return false;
        }
    }
    for (size_t i = 0; i < (size_t)mesh->vertex_count * 3; i++) {
        if (!isfinite(mesh->positions[i])) {
            diag_error(ctx->diag, path, 0, "mesh '%s': vertex %zu has a non-finite position",
                       mesh->name ? mesh->name : "", i / 3);
            return false;
        }
    }
    uint32_t expected_offset = 0;
    for (uint32_t s = 0; s < mesh->submesh_count; s++) {
        const ir_submesh *sub = &mesh->submeshes[s];
        if (sub->index_offset != expected_offset || sub->index_count % 3 != 0 ||
            sub->index_count > mesh->index_count - sub->index_offset ||
            sub->material >= material_count) {
            diag_error(ctx->diag, path, 0, "mesh '%s': submesh %u is inconsistent",
                       mesh->name ? mesh->name : "", s);
            return false;
        }
        expected_offset += sub->index_count;
    }
    if (expected_offset != mesh->index_count) {
        diag_error(ctx->diag, path, 0, "mesh '%s': submeshes do not cover the index buffer",
                   mesh->name ? mesh->name : "");
        return false;
    }
    return true;
}

static bool cook_mesh_output(const cook_request *request, cook_context *ctx, const ir_asset *asset,
                             uint32_t mesh_index, cook_asset_result *result) {
    ir_mesh *mesh = &asset->meshes[mesh_index];
    double clock = cook_clock();
    bool processed =
        check_mesh_invariants(mesh, asset->material_count, ctx) && process_mesh(ctx, mesh, asset);
    clock = cook_stage_add(result, COOK_STAGE_PROCESS, clock);
    if (!processed)
        return false;
    char suffix[32];
    if (asset->mesh_count == 1)
        snprintf(suffix, sizeof suffix, ".kmesh");
    else
        snprintf(suffix, sizeof suffix, ".mesh%u.kmesh", mesh_index);
    char *relative = cook_output_path(request->source_path, suffix);
    bytebuf bytes = {0};
    bool ok = relative != NULL;
    if (!ok)
        diag_error(ctx->diag, ctx->source_path, 0, "out of memory");
    encoded_vertices vertices = {0};
    if (ok && !(encode_mesh_vertices(mesh, request->settings->mesh_quantize_positions,
                                     request->settings->threads, &vertices) &&
                write_kmesh(ctx, mesh, &vertices, asset->material_count, request->importer->name,
                            &bytes))) {
        diag_error(ctx->diag, ctx->source_path, 0, "out of memory encoding the mesh");
        ok = false;
    }
    encoded_vertices_free(&vertices);
    if (ok) {
        /* A source with one mesh is named by its own ref; several are leaves. */
        char ref[1200];
        if (asset->mesh_count == 1)
            snprintf(ref, sizeof ref, "%s", ctx->ref);
        else
            snprintf(ref, sizeof ref, "%s/mesh_%u", ctx->ref, mesh_index);
        write_output out = {.relative = relative,
                            .name = ctx->source_path,
                            .kind = KILN_ASSET_MESH,
                            .bytes = &bytes,
                            .ref = ref,
                            .color_space = KILN_COLOR_SPACE_NONE};
        ok = write_emit(ctx, request->output_root, request->verify, &out, result);
    }
    if (ok) {
        result->meshes++;
        for (uint32_t s = 0; s < mesh->submesh_count; s++)
            result->triangles += mesh->submeshes[s].index_count / 3;
    }
    cook_stage_add(result, COOK_STAGE_WRITE, clock);
    bytebuf_free(&bytes);
    free(relative);
    return ok;
}

/* ---------------------------------------------------------------------------
 * Materials and their textures: <stem>.kmat next to the mesh, one KTX2 per
 * image a slot uses at <stem>/tex_<image>.ktx2, refs <sourceRef>/tex_<image>
 * and <sourceRef>/material_<row>.
 * ------------------------------------------------------------------------- */

static const char *const slot_names[IR_SLOT_COUNT] = {"base colour", "metallic-roughness", "normal",
                                                      "occlusion",   "emissive",           "alpha"};

/* The colour space and channels a slot wants (DESIGN.md: cooked through the
 * model with the colour space of the slot that uses it). */
static cook_texture_usage slot_usage(ir_texture_slot slot) {
    switch (slot) {
    case IR_SLOT_BASE_COLOR:
    case IR_SLOT_EMISSIVE:
        return COOK_TEXTURE_COLOR;
    case IR_SLOT_NORMAL:
        return COOK_TEXTURE_NORMAL;
    case IR_SLOT_ALPHA:
        return COOK_TEXTURE_SINGLE;
    case IR_SLOT_METALLIC_ROUGHNESS:
    case IR_SLOT_OCCLUSION:
    case IR_SLOT_COUNT:
        break;
    }
    return COOK_TEXTURE_DATA; /* ORM packing kept: one texture for both slots */
}

/* How each image is cooked: the usage of its first use (material rows in
 * order, slots in order); a later use wanting another usage is a warning. */
typedef struct image_plan {
    bool used;
    cook_texture_usage usage;
    uint32_t first_material;
    ir_texture_slot first_slot;
    float alpha_cutoff; /* a MASK material's cutoff when used as its base colour */
    uint64_t hash;      /* the cooked texture's ref hash, 0 when it failed */
} image_plan;

static void plan_images(cook_context *ctx, const ir_asset *asset, image_plan *plans) {
    for (uint32_t m = 0; m < asset->material_count; m++) {
        const ir_material *material = &asset->materials[m];
        for (int s = 0; s < IR_SLOT_COUNT; s++) {
            int32_t image = material->textures[s].image;
            if (image < 0 || (uint32_t)image >= asset->image_count)
                continue;
            image_plan *plan = &plans[image];
            cook_texture_usage usage = slot_usage((ir_texture_slot)s);
            if (!plan->used) {
                plan->used = true;
                plan->usage = usage;
                plan->first_material = m;
                plan->first_slot = (ir_texture_slot)s;
            } else if (plan->usage != usage) {
                const ir_material *first = &asset->materials[plan->first_material];
                diag_warning(ctx->diag, ctx->source_path, 0,
                             "image '%s' is the %s texture of material '%s' and the %s texture "
                             "of material '%s'; it is cooked once, for its first use (%s)",
                             asset->images[image].name, slot_names[plan->first_slot],
                             first->name ? first->name : "", slot_names[s],
                             material->name ? material->name : "", slot_names[plan->first_slot]);
            }
            if (s == IR_SLOT_BASE_COLOR && material->alpha_mode == IR_ALPHA_MASK &&
                plan->usage == COOK_TEXTURE_COLOR && plan->alpha_cutoff <= 0.0f &&
                material->alpha_cutoff > 0.0f)
                plan->alpha_cutoff = material->alpha_cutoff;
        }
    }
}

/* The first message in a diagnostics buffer, without "path: error: ". */
static void first_message(const cook_diag *diag, char *out, size_t size) {
    out[0] = '\0';
    if (diag->text.size == 0)
        return;
    const char *text = (const char *)diag->text.data;
    const char *end = memchr(text, '\n', diag->text.size);
    size_t length = end ? (size_t)(end - text) : diag->text.size;
    const char *tags[] = {": error: ", ": warning: "};
    for (size_t t = 0; t < 2; t++) {
        const char *found = strstr(text, tags[t]);
        if (found != NULL && found < text + length) {
            length -= (size_t)(found + strlen(tags[t]) - text);
            text = found + strlen(tags[t]);
            break;
        }
    }
    snprintf(out, size, "%.*s", (int)length, text);
}

/* Cooks image `index`. A failure is a warning naming the material and file:
 * the slots using it become empty and the asset still cooks. Returns false
 * only for failures that must fail the asset (out of memory). */
static bool cook_model_image(const cook_request *request, cook_context *ctx, const ir_asset *asset,
                             uint32_t index, image_plan *plan, cook_asset_result *result) {
    const ir_image *image = &asset->images[index];
    const ir_material *first = &asset->materials[plan->first_material];
    const char *material = first->name ? first->name : "";
    char ref[1200], leaf[48];
    snprintf(ref, sizeof ref, "%s/tex_%u", ctx->ref, index);
    snprintf(leaf, sizeof leaf, "/tex_%u.ktx2", index);
    char *out_path = cook_output_path(request->source_path, leaf);
    if (out_path == NULL) {
        diag_error(ctx->diag, ctx->source_path, 0, "out of memory");
        return false;
    }
    uint8_t *owned = NULL;
    size_t size = image->size;
    const uint8_t *bytes = image->bytes;
    char reason[512] = "";
    bool readable = true;
    if (bytes == NULL && image->path != NULL) {
        /* Resolved (inside the input root) and recorded as a dependency by
         * the importer: read it relative to the root. */
        char *full = cook_path_join(ctx->input_root, image->path);
        readable = full != NULL && cook_read_file(full, COOK_SOURCE_MAX_BYTES, &owned, &size,
                                                  reason, sizeof reason);
        if (full == NULL)
            snprintf(reason, sizeof reason, "out of memory");
        free(full);
        bytes = owned;
    } else if (bytes == NULL) {
        readable = false;
        snprintf(reason, sizeof reason, "no data");
    }
    bool cooked = false;
    cook_diag texture_diag = {0};
    if (readable) {
        cook_texture_source src = {
            .name = image->path ? image->path : image->name,
            .bytes = bytes,
            .size = size,
            .usage = plan->usage,
            .alpha_cutoff = plan->alpha_cutoff,
        };
        cook_diag *asset_diag = ctx->diag;
        ctx->diag = &texture_diag; /* its errors become one warning here */
        cooked =
            cook_texture(ctx, request->output_root, &src, ref, out_path, request->verify, result);
        ctx->diag = asset_diag;
        if (!cooked)
            first_message(&texture_diag, reason, sizeof reason);
    }
    if (cooked) {
        bytebuf_append(&ctx->diag->text, texture_diag.text.data, texture_diag.text.size);
        ctx->diag->warnings += texture_diag.warnings;
        plan->hash = kiln_ref_hash(ref);
    } else {
        diag_warning(ctx->diag, ctx->source_path, 0,
                     "material '%s': texture '%s' cannot be cooked (%s); its slot gets no "
                     "texture",
                     material, image->path ? image->path : image->name,
                     reason[0] ? reason : "unknown reason");
    }
    diag_free(&texture_diag);
    free(owned);
    free(out_path);
    return true;
}

static bool cook_materials_output(const cook_request *request, cook_context *ctx,
                                  const ir_asset *asset, cook_asset_result *result) {
    image_plan *plans = calloc(asset->image_count ? asset->image_count : 1, sizeof *plans);
    uint64_t *hashes =
        calloc((size_t)asset->material_count * KILN_MATERIAL_SLOT_COUNT, sizeof *hashes);
    char *relative = cook_output_path(request->source_path, ".kmat");
    bytebuf bytes = {0};
    bool ok = plans != NULL && hashes != NULL && relative != NULL;
    if (!ok)
        diag_error(ctx->diag, ctx->source_path, 0, "out of memory");
    if (ok)
        plan_images(ctx, asset, plans);
    double clock = cook_clock();
    for (uint32_t i = 0; ok && i < asset->image_count; i++)
        if (plans[i].used)
            ok = cook_model_image(request, ctx, asset, i, &plans[i], result);
    clock = cook_stage_add(result, COOK_STAGE_TEXTURE, clock);
    for (uint32_t m = 0; ok && m < asset->material_count; m++)
        for (int s = 0; s < IR_SLOT_COUNT; s++) {
            int32_t image = asset->materials[m].textures[s].image;
            if (image >= 0 && (uint32_t)image < asset->image_count)
                hashes[(size_t)m * KILN_MATERIAL_SLOT_COUNT + (size_t)s] = plans[image].hash;
        }
    if (ok && !write_kmat(ctx, asset->materials, asset->material_count, hashes,
                          request->importer->name, &bytes)) {
        diag_error(ctx->diag, ctx->source_path, 0, "out of memory encoding the materials");
        ok = false;
    }
    if (ok) {
        /* One file, one manifest entry per row. */
        write_output out = {.relative = relative,
                            .name = ctx->source_path,
                            .kind = KILN_ASSET_MATERIAL,
                            .bytes = &bytes};
        ok = write_emit(ctx, request->output_root, request->verify, &out, result);
    }
    for (uint32_t m = 0; ok && m < asset->material_count; m++) {
        char ref[1200];
        snprintf(ref, sizeof ref, "%s/material_%u", ctx->ref, m);
        ok = cook_manifest_add(&result->manifest, ref, relative, KILN_ASSET_MATERIAL,
                               KILN_COLOR_SPACE_NONE, m);
        if (!ok)
            diag_error(ctx->diag, ctx->source_path, 0, "out of memory");
    }
    cook_stage_add(result, COOK_STAGE_WRITE, clock);
    bytebuf_free(&bytes);
    free(plans);
    free(hashes);
    free(relative);
    return ok;
}

/* The model driver: import into the IR, merge (mesh.merge), then every mesh
 * and the material table with its textures. */
bool cook_model_asset(const cook_request *request, cook_context *ctx, cook_asset_result *result) {
    const char *source_path = ctx->source_path;
    double clock = cook_clock();
    ir_asset asset = {0};
    bool ok = import_run(ctx, request->importer->import, &asset);
    if (ok && result->diag.errors > 0)
        ok = false; /* an importer that reported an error has failed */
    clock = cook_stage_add(result, COOK_STAGE_IMPORT, clock);
    if (ok && request->settings->mesh_merge && asset.mesh_count > 0)
        ok = process_merge_asset(&asset, &result->diag, source_path);
    cook_stage_add(result, COOK_STAGE_PROCESS, clock);
    if (ok && asset.mesh_count == 0)
        diag_warning(&result->diag, source_path, 0, "no triangles to cook; nothing written");
    for (uint32_t m = 0; ok && m < asset.mesh_count; m++)
        ok = cook_mesh_output(request, ctx, &asset, m, result);
    if (ok && asset.mesh_count > 0 && asset.material_count > 0)
        ok = cook_materials_output(request, ctx, &asset, result);
    ir_asset_free(&asset);
    return ok;
}
