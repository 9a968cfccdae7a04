/* model.c — the model driver: a glTF, OBJ or assimp source through import →
 * process → encode → write, into one .kmesh per mesh, a .kmat and the KTX2
 * textures its materials use, and a .kscene placing the meshes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cook/drivers/drivers.h"

/* The IR contract (ir.h), checked before anything is written: an importer bug
 * must become an error message, not a file the runtime rejects later. */
static bool check_mesh_invariants(const ir_mesh *mesh, uint32_t material_count, cook_context *ctx) {
    const char *path = ctx->source_path;
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
        uint32_t size = kiln_topology_index_count(sub->topology);
        if (sub->index_offset != expected_offset || size == 0 || sub->index_count % size != 0 ||
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

/* A source with one mesh is named by its own ref; several are leaves. */
void driver_mesh_ref(const char *source_ref, uint32_t mesh_count, uint32_t mesh_index, char *out,
                     size_t size) {
    if (mesh_count == 1)
        snprintf(out, size, "%s", source_ref);
    else
        snprintf(out, size, "%s/mesh_%u", source_ref, mesh_index);
}

static void mesh_ref(const cook_context *ctx, const ir_asset *asset, uint32_t mesh_index, char *out,
                     size_t size) {
    driver_mesh_ref(ctx->ref, asset->mesh_count, mesh_index, out, size);
}

static bool produce_kmesh(void *layout, write_sink sink, void *sink_arg, char *reason,
                          size_t reason_size) {
    (void)reason;
    (void)reason_size;
    return container_layout_write(&((const kmesh_layout *)layout)->container, sink, sink_arg);
}

static bool cook_mesh_output(const cook_request *request, cook_context *ctx, const ir_asset *asset,
                             uint32_t mesh_index, cook_asset_result *result) {
    ir_mesh *mesh = &asset->meshes[mesh_index];
    if (!cook_stage_enter(ctx, COOK_STAGE_PROCESS))
        return false; /* out of time (reported) */
    double clock = cook_clock();
    bool processed =
        check_mesh_invariants(mesh, asset->material_count, ctx) && process_mesh(ctx, mesh, asset);
    cook_stage_add(result, COOK_STAGE_PROCESS, clock);
    if (!processed)
        return false;
    char suffix[32];
    if (asset->mesh_count == 1)
        snprintf(suffix, sizeof suffix, ".kmesh");
    else
        snprintf(suffix, sizeof suffix, ".mesh%u.kmesh", mesh_index);
    driver_output out;
    bool ok = driver_output_begin(ctx, COOK_STAGE_WRITE, suffix, &out);
    kmesh_layout layout = {0};
    encoded_vertices vertices = {0};
    bool streams = request->settings->mesh_vertex_layout == COOK_VERTEX_LAYOUT_STREAMS;
    if (ok && !(encode_mesh_vertices(mesh, request->settings->mesh_quantize_positions,
                                     request->settings->threads, &vertices) &&
                (!streams || encoded_vertices_to_streams(&vertices, mesh->vertex_count)) &&
                write_kmesh_layout(ctx, mesh, &vertices, asset->material_count,
                                   request->importer->name, &layout))) {
        diag_error(ctx->diag, ctx->source_path, 0, "out of memory encoding the mesh");
        ok = false;
    }
    if (ok) {
        char ref[1200];
        mesh_ref(ctx, asset, mesh_index, ref, sizeof ref);
        /* Written from the mesh's and the vertices' own blocks, not from a
         * copy of the whole file (kmesh_layout). */
        ok = driver_output_emit_produced(request, ctx, &out, KILN_ASSET_MESH, ref, produce_kmesh,
                                         &layout, layout.container.file_size, result);
    }
    kmesh_layout_free(&layout);
    encoded_vertices_free(&vertices);
    if (ok) {
        result->meshes++;
        for (uint32_t s = 0; s < mesh->submesh_count; s++)
            if (mesh->submeshes[s].topology == KILN_TOPOLOGY_TRIANGLES)
                result->triangles += mesh->submeshes[s].index_count / 3;
    }
    return driver_output_end(&out, result, ok);
}

/* ---------------------------------------------------------------------------
 * Materials and their textures: <stem>.kmat next to the mesh, one KTX2 per
 * image a slot uses at <stem>/<name>.ktx2 (named after the image: see
 * name_textures), refs <sourceRef>/<name>, the table's <sourceRef>/materials
 * and each row's <sourceRef>/<leaf> (model_materials.c).
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

/* How each texture is cooked: the usage of its first use (material rows in
 * order, slots in order); a later use wanting another usage is a warning.
 * Plan i < image_count cooks image i as it is; the plans after those each
 * merge a separate opacity map into a colour image's alpha (a blended or
 * masked material's IR_SLOT_ALPHA: MTL map_d, assimp's opacity texture). */
#define TEXTURE_NAME_MAX 64

typedef struct image_plan {
    bool used;
    int32_t image;   /* the IR image cooked (the colour one), or -1: white */
    int32_t opacity; /* the IR image whose opacity becomes alpha, or -1 */
    cook_texture_usage usage;
    uint32_t first_material;
    ir_texture_slot first_slot;
    float alpha_cutoff;          /* a MASK material's cutoff when used as its base colour */
    uint64_t hash;               /* the cooked texture's ref hash, 0 when it failed */
    char name[TEXTURE_NAME_MAX]; /* the cooked file's name: <stem>/<name>.ktx2 */
} image_plan;

/* The plans and which plan each material slot uses (-1: none). */
typedef struct texture_plans {
    image_plan *plans; /* image_count + material_count (merges) */
    uint32_t count;
    int32_t *slot_plan; /* material_count * IR_SLOT_COUNT */
} texture_plans;

static int32_t valid_image(const ir_asset *asset, int32_t image) {
    return image >= 0 && (uint32_t)image < asset->image_count ? image : -1;
}

/* Fills the slot -> plan table: each slot's own image, except that a blended
 * or masked material with an opacity map gets one merged plan (shared by
 * materials with the same pair) for its base colour, and no alpha slot. */
static bool plan_slots(const ir_asset *asset, texture_plans *t) {
    size_t capacity = (size_t)asset->image_count + asset->material_count;
    t->plans = calloc(capacity ? capacity : 1, sizeof *t->plans);
    t->slot_plan =
        malloc(((size_t)asset->material_count * IR_SLOT_COUNT + 1) * sizeof *t->slot_plan);
    if (t->plans == NULL || t->slot_plan == NULL)
        return false;
    t->count = asset->image_count;
    for (uint32_t i = 0; i < asset->image_count; i++) {
        t->plans[i].image = (int32_t)i;
        t->plans[i].opacity = -1;
    }
    for (uint32_t m = 0; m < asset->material_count; m++) {
        const ir_material *material = &asset->materials[m];
        int32_t *slots = &t->slot_plan[(size_t)m * IR_SLOT_COUNT];
        for (int s = 0; s < IR_SLOT_COUNT; s++)
            slots[s] = valid_image(asset, material->textures[s].image);
        int32_t opacity = slots[IR_SLOT_ALPHA];
        if (opacity < 0 || material->alpha_mode == IR_ALPHA_OPAQUE)
            continue;
        int32_t color = slots[IR_SLOT_BASE_COLOR];
        uint32_t merge = asset->image_count;
        while (merge < t->count &&
               (t->plans[merge].image != color || t->plans[merge].opacity != opacity))
            merge++;
        if (merge == t->count) {
            t->plans[merge].image = color;
            t->plans[merge].opacity = opacity;
            t->count++;
        }
        slots[IR_SLOT_BASE_COLOR] = (int32_t)merge;
        slots[IR_SLOT_ALPHA] = -1; /* it is the base colour's alpha now */
    }
    return true;
}

/* A plan's image for messages: the colour image's name, or the opacity map's. */
static const char *plan_image_name(const ir_asset *asset, const image_plan *plan) {
    return asset->images[plan->image >= 0 ? plan->image : plan->opacity].name;
}

static void plan_images(cook_context *ctx, const ir_asset *asset, texture_plans *t) {
    for (uint32_t m = 0; m < asset->material_count; m++) {
        const ir_material *material = &asset->materials[m];
        for (int s = 0; s < IR_SLOT_COUNT; s++) {
            int32_t index = t->slot_plan[(size_t)m * IR_SLOT_COUNT + (size_t)s];
            if (index < 0)
                continue;
            image_plan *plan = &t->plans[index];
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
                             plan_image_name(asset, plan), slot_names[plan->first_slot],
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

static bool name_is_taken(const image_plan *plans, uint32_t count, const char *name) {
    if (driver_leaf_is_reserved(name))
        return true;
    for (uint32_t i = 0; i < count; i++)
        if (plans[i].used && strcmp(plans[i].name, name) == 0)
            return true;
    return false;
}

/* Each used image's texture is named after its source: the file's name
 * without folder and extension (textures/Crate_Albedo.png -> crate_albedo),
 * or an embedded image's own label, lower-cased (refs are) with anything but
 * [a-z0-9_-] turned into '_'; tex_<plan> when it has neither. A merged
 * texture is named after its colour image (else its opacity map). Names taken
 * by an earlier plan (in plan order) or by the source's own leaves
 * (driver_leaf_is_reserved) get _2, _3, ...: the same source always gives
 * the same names. */
static void name_textures(const ir_asset *asset, texture_plans *t) {
    image_plan *plans = t->plans;
    for (uint32_t i = 0; i < t->count; i++) {
        if (!plans[i].used)
            continue;
        const ir_image *image =
            &asset->images[plans[i].image >= 0 ? plans[i].image : plans[i].opacity];
        const char *source = image->path ? image->path : image->label;
        char base[TEXTURE_NAME_MAX - 12] = "";
        if (source != NULL) {
            const char *start = source;
            for (const char *c = source; *c; c++)
                if (*c == '/' || *c == '\\')
                    start = c + 1;
            const char *dot = strrchr(start, '.');
            size_t length = dot && dot != start ? (size_t)(dot - start) : strlen(start);
            driver_leaf_from_text(start, length, base, sizeof base);
        }
        if (base[0] == '\0' || strspn(base, "_") == strlen(base))
            snprintf(base, sizeof base, "tex_%u", i);
        snprintf(plans[i].name, sizeof plans[i].name, "%s", base);
        for (uint32_t n = 2; name_is_taken(plans, i, plans[i].name); n++)
            snprintf(plans[i].name, sizeof plans[i].name, "%s_%u", base, n);
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

/* The encoded bytes of IR image `image`: embedded (borrowed) or read from
 * the input tree into *owned. False with `reason` when it cannot be read. */
static bool image_bytes(const cook_context *ctx, const ir_image *image, uint8_t **owned,
                        const uint8_t **bytes, size_t *size, char *reason, size_t reason_size) {
    *owned = NULL;
    *bytes = image->bytes;
    *size = image->size;
    if (image->bytes != NULL)
        return true;
    if (image->path == NULL) {
        snprintf(reason, reason_size, "no data");
        return false;
    }
    /* Resolved (inside the input root) and recorded as a dependency by the
     * importer: read it relative to the root. */
    char *full = cook_path_join(ctx->input_root, image->path);
    bool ok = full != NULL &&
              cook_read_file(full, COOK_SOURCE_MAX_BYTES, owned, size, reason, reason_size);
    if (full == NULL)
        snprintf(reason, reason_size, "out of memory");
    free(full);
    *bytes = *owned;
    return ok;
}

static const char *image_display_name(const ir_image *image) {
    return image->path ? image->path : image->name;
}

/* Cooks one plan's texture. A failure to read or encode the image is a
 * warning naming the material and file(s): the slots using it become empty
 * and the asset still cooks. Returns false for failures that must fail the
 * asset: out of memory, and a texture that could not be written (a full disk
 * must not leave a model whose material silently lost its texture). */
static bool cook_model_image(const cook_request *request, cook_context *ctx, const ir_asset *asset,
                             image_plan *plan, cook_asset_result *result) {
    const ir_image *image = plan->image >= 0 ? &asset->images[plan->image] : NULL;
    const ir_image *opacity = plan->opacity >= 0 ? &asset->images[plan->opacity] : NULL;
    const ir_material *first = &asset->materials[plan->first_material];
    const char *material = first->name ? first->name : "";
    char ref[1200], leaf[TEXTURE_NAME_MAX + 8];
    snprintf(ref, sizeof ref, "%s/%s", ctx->ref, plan->name);
    snprintf(leaf, sizeof leaf, "/%s.ktx2", plan->name);
    char *out_path = cook_output_path(request->source_path, leaf);
    if (out_path == NULL) {
        diag_error(ctx->diag, ctx->source_path, 0, "out of memory");
        return false;
    }
    uint8_t *owned = NULL, *owned_opacity = NULL;
    const uint8_t *bytes = NULL, *opacity_bytes = NULL;
    size_t size = 0, opacity_size = 0;
    char reason[512] = "";
    bool readable =
        (image == NULL || image_bytes(ctx, image, &owned, &bytes, &size, reason, sizeof reason)) &&
        (opacity == NULL || image_bytes(ctx, opacity, &owned_opacity, &opacity_bytes, &opacity_size,
                                        reason, sizeof reason));
    bool cooked = false;
    cook_diag texture_diag = {0};
    if (readable) {
        cook_texture_source src = {
            .name = image ? image_display_name(image) : image_display_name(opacity),
            .bytes = bytes,
            .size = size,
            .usage = plan->usage,
            .alpha_cutoff = plan->alpha_cutoff,
            .opacity_name = opacity ? image_display_name(opacity) : NULL,
            .opacity_bytes = opacity_bytes,
            .opacity_size = opacity_size,
        };
        cook_diag *asset_diag = ctx->diag;
        ctx->diag = &texture_diag; /* its errors become one warning here */
        cooked =
            cook_texture(ctx, request->output_root, &src, ref, out_path, request->verify, result);
        ctx->diag = asset_diag;
        if (!cooked)
            first_message(&texture_diag, reason, sizeof reason);
    }
    if (!cooked && result->write_failed) {
        bytebuf_append(&ctx->diag->text, texture_diag.text.data, texture_diag.text.size);
        ctx->diag->errors += texture_diag.errors;
        ctx->diag->warnings += texture_diag.warnings;
        diag_error(ctx->diag, ctx->source_path, 0, "material '%s': texture '%s' was not written",
                   material, image ? image_display_name(image) : image_display_name(opacity));
        diag_free(&texture_diag);
        free(owned);
        free(owned_opacity);
        free(out_path);
        return false;
    }
    if (cooked) {
        bytebuf_append(&ctx->diag->text, texture_diag.text.data, texture_diag.text.size);
        ctx->diag->warnings += texture_diag.warnings;
        plan->hash = kiln_ref_hash(ref);
    } else if (opacity != NULL) {
        diag_warning(ctx->diag, ctx->source_path, 0,
                     "material '%s': texture '%s' with opacity map '%s' cannot be cooked (%s); "
                     "its base colour slot gets no texture",
                     material, image ? image_display_name(image) : "(none)",
                     image_display_name(opacity), reason[0] ? reason : "unknown reason");
    } else {
        diag_warning(ctx->diag, ctx->source_path, 0,
                     "material '%s': texture '%s' cannot be cooked (%s); its slot gets no "
                     "texture",
                     material, image_display_name(image), reason[0] ? reason : "unknown reason");
    }
    diag_free(&texture_diag);
    free(owned);
    free(owned_opacity);
    free(out_path);
    return true;
}

/* Each row's leaf (driver_material_leaves), the textures' names taken. */
static bool name_materials(const ir_asset *asset, const texture_plans *t,
                           char (*leaves)[DRIVER_LEAF_MAX]) {
    const char **taken = malloc((t->count ? t->count : 1) * sizeof *taken);
    if (taken == NULL)
        return false;
    size_t taken_count = 0;
    for (uint32_t i = 0; i < t->count; i++)
        if (t->plans[i].used)
            taken[taken_count++] = t->plans[i].name;
    bool ok = driver_material_leaves(asset, taken, taken_count, leaves);
    free(taken);
    return ok;
}

bool driver_material_texture_refs(const char *source_ref, const ir_asset *asset, uint64_t *hashes) {
    texture_plans plans = {0};
    bool ok = plan_slots(asset, &plans);
    if (ok) {
        cook_diag quiet = {0}; /* the material's own cook reports them */
        cook_context scratch = {.diag = &quiet, .source_path = ""};
        plan_images(&scratch, asset, &plans);
        diag_free(&quiet);
        name_textures(asset, &plans);
        for (uint32_t m = 0; m < asset->material_count; m++)
            for (int s = 0; s < IR_SLOT_COUNT; s++) {
                int32_t plan = plans.slot_plan[(size_t)m * IR_SLOT_COUNT + (size_t)s];
                char ref[1200];
                snprintf(ref, sizeof ref, "%s/%s", source_ref,
                         plan >= 0 ? plans.plans[plan].name : "");
                hashes[(size_t)m * KILN_MATERIAL_SLOT_COUNT + (size_t)s] =
                    plan >= 0 ? kiln_ref_hash(ref) : 0;
            }
    }
    free(plans.plans);
    free(plans.slot_plan);
    return ok;
}

bool driver_cook_materials(const cook_request *request, cook_context *ctx, ir_asset *asset,
                           const driver_material_table *table, cook_asset_result *result) {
    texture_plans plans = {0};
    uint64_t *hashes =
        calloc((size_t)asset->material_count * KILN_MATERIAL_SLOT_COUNT, sizeof *hashes);
    char(*leaves)[DRIVER_LEAF_MAX] = calloc(asset->material_count, sizeof *leaves);
    bytebuf bytes = {0};
    bool ok = plan_slots(asset, &plans) && hashes != NULL && leaves != NULL;
    if (ok) {
        plan_images(ctx, asset, &plans);
        name_textures(asset, &plans);
        ok = name_materials(asset, &plans, leaves);
    }
    if (!ok)
        diag_error(ctx->diag, ctx->source_path, 0, "out of memory");
    if (ok && !driver_material_flags(ctx, asset, leaves)) {
        bytebuf_free(&bytes);
        free(plans.plans);
        free(plans.slot_plan);
        free(hashes);
        free(leaves);
        return false;
    }
    ok = cook_stage_enter(ctx, COOK_STAGE_TEXTURE) && ok;
    double clock = cook_clock();
    for (uint32_t i = 0; ok && i < plans.count; i++) {
        if (!plans.plans[i].used)
            continue;
        ok = cook_budget_check(ctx) &&
             cook_model_image(request, ctx, asset, &plans.plans[i], result);
        if (ok && table->textures_required && plans.plans[i].hash == 0) {
            diag_error(ctx->diag, ctx->source_path, 0, "texture '%s' was not cooked",
                       plan_image_name(asset, &plans.plans[i]));
            ok = false;
        }
    }
    cook_stage_add(result, COOK_STAGE_TEXTURE, clock);
    driver_output out;
    ok = driver_output_begin(ctx, COOK_STAGE_WRITE, ".kmat", &out) && ok;
    for (uint32_t m = 0; ok && m < asset->material_count; m++)
        for (int s = 0; s < IR_SLOT_COUNT; s++) {
            int32_t plan = plans.slot_plan[(size_t)m * IR_SLOT_COUNT + (size_t)s];
            size_t at = (size_t)m * KILN_MATERIAL_SLOT_COUNT + (size_t)s;
            if (plan >= 0)
                hashes[at] = plans.plans[plan].hash;
            else if (table->row_textures != NULL)
                hashes[at] = table->row_textures[at]; /* a standalone material's, shared */
        }
    if (ok && !write_kmat(ctx, asset->materials, asset->material_count, hashes,
                          request->importer->name, &bytes)) {
        diag_error(ctx->diag, ctx->source_path, 0, "out of memory encoding the materials");
        ok = false;
    }
    if (ok) {
        /* One file: the table's entry, then one per row. */
        char ref[1200];
        if (table->table_ref != NULL)
            snprintf(ref, sizeof ref, "%s", table->table_ref);
        else
            snprintf(ref, sizeof ref, "%s/%s", ctx->ref, DRIVER_MATERIAL_TABLE_LEAF);
        ok = driver_output_emit(request, ctx, &out, KILN_ASSET_MATERIAL, ref, &bytes, result);
    }
    for (uint32_t m = 0; ok && table->row_refs && m < asset->material_count; m++) {
        char ref[1200];
        snprintf(ref, sizeof ref, "%s/%s", ctx->ref, leaves[m]);
        ok = cook_manifest_add(&result->manifest, ref, out.relative, KILN_ASSET_MATERIAL,
                               KILN_COLOR_SPACE_NONE, m);
        if (!ok)
            diag_error(ctx->diag, ctx->source_path, 0, "out of memory");
    }
    bytebuf_free(&bytes);
    free(plans.plans);
    free(plans.slot_plan);
    free(hashes);
    free(leaves);
    return driver_output_end(&out, result, ok);
}

/* A model's table: <sourceRef>/materials and a ref per row; `shared` (from
 * driver_material_replace, or NULL) holds the textures of rows taken from
 * standalone materials. */
static bool cook_materials_output(const cook_request *request, cook_context *ctx, ir_asset *asset,
                                  const uint64_t *shared, cook_asset_result *result) {
    driver_material_table table = {.row_refs = true, .row_textures = shared};
    return driver_cook_materials(request, ctx, asset, &table, result);
}

/* ---------------------------------------------------------------------------
 * The scene: <stem>.kscene next to the meshes, ref <sourceRef>/scene
 * ------------------------------------------------------------------------- */

/* A source without nodes (OBJ) gets one root per mesh, named after it. */
static bool add_mesh_nodes(ir_asset *asset) {
    if (asset->node_count > 0 || asset->mesh_count == 0)
        return true;
    asset->nodes = calloc(asset->mesh_count, sizeof *asset->nodes);
    if (asset->nodes == NULL)
        return false;
    for (uint32_t m = 0; m < asset->mesh_count; m++) {
        ir_node *node = &asset->nodes[asset->node_count++];
        ir_node_init(node);
        node->mesh = (int32_t)m;
        node->name = cook_strdup(asset->meshes[m].name ? asset->meshes[m].name : "");
        if (node->name == NULL)
            return false;
    }
    return true;
}

static int compare_i32(const void *a, const void *b) {
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return x < y ? -1 : x > y;
}

/* The node half of the IR contract (ir.h), checked before the scene is
 * written, like check_mesh_invariants for meshes. */
static bool check_node_invariants(const ir_asset *asset, cook_context *ctx) {
    const char *path = ctx->source_path;
    int32_t *sources = malloc((asset->node_count ? asset->node_count : 1) * sizeof *sources);
    if (sources == NULL) {
        diag_error(ctx->diag, path, 0, "out of memory");
        return false;
    }
    uint32_t source_count = 0;
    bool ok = asset->node_count <= (uint32_t)INT32_MAX;
    for (uint32_t n = 0; ok && n < asset->node_count; n++) {
        const ir_node *node = &asset->nodes[n];
        if (node->parent >= (int32_t)n || node->parent < -1 || node->mesh < -1 ||
            (node->mesh >= 0 && (uint32_t)node->mesh >= asset->mesh_count)) {
            diag_error(ctx->diag, path, 0,
                       "node %u ('%s'): parent %d or mesh %d out of range (importer bug)", n,
                       node->name ? node->name : "", node->parent, node->mesh);
            ok = false;
        }
        if (node->source >= 0)
            sources[source_count++] = node->source;
    }
    qsort(sources, source_count, sizeof *sources, compare_i32);
    for (uint32_t k = 1; ok && k < source_count; k++) {
        if (sources[k] == sources[k - 1]) {
            diag_error(ctx->diag, path, 0, "two nodes have source index %d (importer bug)",
                       sources[k]);
            ok = false;
        }
    }
    for (uint32_t s = 0; ok && s < asset->scene_count; s++) {
        const ir_scene *scene = &asset->scenes[s];
        for (uint32_t r = 0; ok && r < scene->root_count; r++) {
            uint32_t root = scene->roots[r];
            if (root >= asset->node_count || asset->nodes[root].parent >= 0) {
                diag_error(ctx->diag, path, 0, "scene %u: root %u is not a root node", s, root);
                ok = false;
            }
        }
    }
    free(sources);
    return ok;
}

uint64_t driver_model_material_table(const char *source_ref, const ir_asset *asset) {
    /* The table's ref finds the .kmat through the manifest (kman.md); a
     * source without meshes writes no .kmat, so its scene names none. */
    if (asset->material_count == 0 || asset->mesh_count == 0)
        return 0;
    char ref[1200];
    snprintf(ref, sizeof ref, "%s/%s", source_ref, DRIVER_MATERIAL_TABLE_LEAF);
    return kiln_ref_hash(ref);
}

static bool cook_scene_output(const cook_request *request, cook_context *ctx, const ir_asset *asset,
                              cook_asset_result *result) {
    driver_output out;
    bool ok = driver_output_begin(ctx, COOK_STAGE_WRITE, ".kscene", &out);
    uint64_t *mesh_refs = malloc((asset->mesh_count ? asset->mesh_count : 1) * sizeof *mesh_refs);
    bytebuf bytes = {0};
    if (ok && mesh_refs == NULL) {
        diag_error(ctx->diag, ctx->source_path, 0, "out of memory");
        ok = false;
    }
    char ref[1200];
    for (uint32_t m = 0; ok && m < asset->mesh_count; m++) {
        mesh_ref(ctx, asset, m, ref, sizeof ref);
        mesh_refs[m] = kiln_ref_hash(ref);
    }
    uint64_t material_table = driver_model_material_table(ctx->ref, asset);
    if (ok &&
        !write_kscene(ctx, asset, mesh_refs, material_table, request->importer->name, &bytes)) {
        diag_error(ctx->diag, ctx->source_path, 0, "out of memory encoding the scene");
        ok = false;
    }
    if (ok) {
        snprintf(ref, sizeof ref, "%s/scene", ctx->ref);
        ok = driver_output_emit(request, ctx, &out, KILN_ASSET_SCENE, ref, &bytes, result);
    }
    bytebuf_free(&bytes);
    free(mesh_refs);
    return driver_output_end(&out, result, ok);
}

/* ---------------------------------------------------------------------------
 * The clips: <stem>.kanim next to the scene, ref <sourceRef>/anim
 * ------------------------------------------------------------------------- */

/* The animation half of the IR contract (ir.h). */
static bool check_animation_invariants(const ir_asset *asset, cook_context *ctx) {
    for (uint32_t a = 0; a < asset->animation_count; a++) {
        const ir_animation *anim = &asset->animations[a];
        for (uint32_t c = 0; c < anim->channel_count; c++) {
            const ir_anim_channel *ch = &anim->channels[c];
            const ir_anim_sampler *s =
                ch->sampler < anim->sampler_count ? &anim->samplers[ch->sampler] : NULL;
            bool ok = ch->node < asset->node_count && s != NULL && s->key_count > 0 &&
                      (ch->path == IR_ANIM_WEIGHTS
                           ? s->components == asset->nodes[ch->node].weight_count
                           : s->components == (ch->path == IR_ANIM_ROTATION ? 4u : 3u));
            for (uint32_t k = 1; ok && s != NULL && k < s->key_count; k++)
                ok = s->times[k] > s->times[k - 1];
            if (!ok) {
                diag_error(ctx->diag, ctx->source_path, 0,
                           "animation %u ('%s') channel %u: target, sampler or keys out of range "
                           "(importer bug)",
                           a, anim->name ? anim->name : "", c);
                return false;
            }
        }
    }
    return true;
}

/* anim.reduce and anim.quantize (process/anim.c). */
static bool process_anim_stage(cook_context *ctx, ir_asset *asset) {
    if (!process_animations(asset, ctx->settings)) {
        diag_error(ctx->diag, ctx->source_path, 0, "out of memory reducing the animations");
        return false;
    }
    return true;
}

static bool cook_anim_output(const cook_request *request, cook_context *ctx, const ir_asset *asset,
                             cook_asset_result *result) {
    driver_output out;
    bool ok = driver_output_begin(ctx, COOK_STAGE_WRITE, ".kanim", &out);
    bytebuf bytes = {0};
    char ref[1200];
    snprintf(ref, sizeof ref, "%s/scene", ctx->ref);
    if (ok && !write_kanim(ctx, asset, kiln_ref_hash(ref), request->importer->name, &bytes)) {
        diag_error(ctx->diag, ctx->source_path, 0, "out of memory encoding the animations");
        ok = false;
    }
    if (ok) {
        snprintf(ref, sizeof ref, "%s/anim", ctx->ref);
        ok = driver_output_emit(request, ctx, &out, KILN_ASSET_ANIMATION, ref, &bytes, result);
    }
    bytebuf_free(&bytes);
    return driver_output_end(&out, result, ok);
}

/* Whether a node draws a mesh with morph targets: its default weights go to
 * the .kanim (AWGT) even without clips, so the runtime's rest pose
 * (kiln_anim_pose_rest) and `kiln pose` have them. */
bool driver_model_has_morph_nodes(const ir_asset *asset) {
    for (uint32_t n = 0; n < asset->node_count; n++) {
        const ir_node *node = &asset->nodes[n];
        if (node->mesh >= 0 && (uint32_t)node->mesh < asset->mesh_count &&
            asset->meshes[node->mesh].target_count > 0 && node->weight_count > 0)
            return true;
    }
    return false;
}

/* Whether a source without meshes still has something to cook: a node with a
 * camera or a light (the .kscene places them), or a clip (the .kanim plays
 * it on the scene's nodes). Bare transform nodes alone are not worth a file:
 * assimp gives every file a root node. */
static bool has_meshless_content(const ir_asset *asset) {
    if (asset->animation_count > 0)
        return true;
    for (uint32_t n = 0; n < asset->node_count; n++)
        if (asset->nodes[n].camera >= 0 || asset->nodes[n].light >= 0)
            return true;
    return false;
}

/* scene.scale and scene.up on the scene's root nodes (process_scene_units):
 * the scale is text in the settings, checked here. */
static bool apply_scene_units(cook_context *ctx, ir_asset *asset) {
    const char *text = ctx->settings->scene_scale;
    scene_units units = {.scale = 1.0f, .z_up = ctx->settings->scene_up == COOK_UP_Z};
    if (text[0] != '\0') {
        char *end = NULL;
        double scale = strtod(text, &end);
        if (end == text || *end != '\0' || !(scale > 0.0) || scale > 1e30) {
            diag_error(ctx->diag, ctx->source_path, 0,
                       "scene.scale: '%s' is not a positive number (0.01 turns centimetres into "
                       "metres)",
                       text);
            return false;
        }
        units.scale = (float)scale;
    }
    char problem[512];
    if (!process_scene_units(asset, &units, problem, sizeof problem)) {
        diag_error(ctx->diag, ctx->source_path, 0, "%s", problem);
        return false;
    }
    return true;
}

bool driver_model_scene(cook_context *ctx, ir_asset *asset, bool *has_scene) {
    const char *source_path = ctx->source_path;
    bool ok = true;
    if (ctx->settings->mesh_merge && asset->mesh_count > 0)
        ok = process_merge_asset(asset, ctx->diag, source_path);
    *has_scene = asset->mesh_count > 0 || has_meshless_content(asset);
    if (ok && !*has_scene)
        diag_warning(ctx->diag, source_path, 0,
                     "nothing to cook: no triangles, lines or points, no cameras or lights and no "
                     "animations; nothing written");
    /* The nodes are checked before anything is written, as meshes are. */
    if (ok && asset->mesh_count > 0 && !add_mesh_nodes(asset)) {
        diag_error(ctx->diag, source_path, 0, "out of memory");
        ok = false;
    }
    ok = ok && (!*has_scene || check_node_invariants(asset, ctx));
    return ok && (!*has_scene || apply_scene_units(ctx, asset));
}

/* The model driver: import into the IR, merge (mesh.merge), then every mesh,
 * the material table with its textures, the scene placing the meshes,
 * cameras and lights, and the clips. A source without meshes (cameras,
 * lights or clips only) still gets its .kscene and .kanim. */
bool cook_model_asset(const cook_request *request, cook_context *ctx, cook_asset_result *result) {
    cook_stage_enter(ctx, COOK_STAGE_IMPORT);
    double clock = cook_clock();
    ir_asset asset = {0};
    bool ok = import_run(ctx, request->importer->import, &asset);
    if (ok && result->diag.errors > 0)
        ok = false; /* an importer that reported an error has failed */
    /* The IR owns all it keeps (embedded images are copies): the file's
     * bytes (28 MB for a 1M-triangle GLB, 83 MB as OBJ) are not read again,
     * and freed now their pages serve the process stage instead of fresh
     * ones (BENCHMARKS.md, "Whole-process overhead of a large cook"). */
    cook_release_source(ctx);
    clock = cook_stage_add(result, COOK_STAGE_IMPORT, clock);
    ok = cook_stage_enter(ctx, COOK_STAGE_PROCESS) && ok;
    if (ok && request->settings->material_overrides[0] != '\0')
        ok = driver_material_overrides(ctx, &asset);
    bool has_scene = false;
    ok = ok && driver_model_scene(ctx, &asset, &has_scene);
    cook_stage_add(result, COOK_STAGE_PROCESS, clock);
    /* material.replace before the meshes: a standalone material's normal
     * map asks for tangents as the model's own would. */
    uint64_t *shared = NULL;
    if (ok && asset.mesh_count > 0 && asset.material_count > 0)
        ok = driver_material_replace(ctx, &asset, &shared);
    for (uint32_t m = 0; ok && m < asset.mesh_count; m++)
        ok = cook_mesh_output(request, ctx, &asset, m, result);
    if (ok && asset.mesh_count > 0 && asset.material_count > 0)
        ok = cook_materials_output(request, ctx, &asset, shared, result);
    free(shared);
    if (ok && has_scene)
        ok = cook_scene_output(request, ctx, &asset, result);
    if (ok && has_scene && (asset.animation_count > 0 || driver_model_has_morph_nodes(&asset)))
        ok = check_animation_invariants(&asset, ctx) && process_anim_stage(ctx, &asset) &&
             cook_anim_output(request, ctx, &asset, result);
    ir_asset_free(&asset);
    return ok;
}
