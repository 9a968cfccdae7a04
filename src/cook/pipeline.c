/* pipeline.c — one asset through import → process → encode → write. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cook/cook.h"

#define SOURCE_MAX_BYTES ((size_t)2 << 30) /* 2 GiB */

char *cook_output_path(const char *source_path, const char *suffix) {
    const char *slash = strrchr(source_path, '/');
    const char *name = slash ? slash + 1 : source_path;
    const char *dot = strrchr(name, '.');
    size_t stem_length = (dot && dot != name) ? (size_t)(dot - source_path)
                                              : strlen(source_path);
    size_t size = stem_length + strlen(suffix) + 1;
    char *out = malloc(size);
    if (out != NULL)
        snprintf(out, size, "%.*s%s", (int)stem_length, source_path, suffix);
    return out;
}

static char *join_path(const char *dir, const char *name) {
    size_t size = strlen(dir) + 1 + strlen(name) + 1;
    char *out = malloc(size);
    if (out != NULL)
        snprintf(out, size, "%s/%s", dir, name);
    return out;
}

/* The IR contract (ir.h), checked before anything is written: an importer bug
 * must become an error message, not a file the runtime rejects later. */
static bool check_mesh_invariants(const ir_mesh *mesh, uint32_t material_count,
                                  cook_context *ctx) {
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

/* Re-reads a written file from disk and validates it fully (--verify). */
static bool verify_written_file(const char *full_path, const char *source_path,
                                cook_diag *diag) {
    kiln_file file;
    kiln_error error;
    uint32_t flags = KILN_OPEN_VERIFY_CHECKSUM | KILN_OPEN_DEEP;
    kiln_result result = kiln_file_map(&file, full_path, flags, &error);
    if (result == KILN_OK) {
        kiln_mesh_view view;
        result = kiln_mesh_view_get(&file, flags, &view, &error);
        kiln_file_close(&file);
    }
    if (result != KILN_OK) {
        diag_error(diag, source_path, 0, "verification of the written file failed: %s",
                   error.message);
        return false;
    }
    return true;
}

static bool cook_mesh_output(const cook_request *request, cook_context *ctx,
                             const ir_asset *asset, uint32_t mesh_index,
                             cook_asset_result *result) {
    ir_mesh *mesh = &asset->meshes[mesh_index];
    if (!check_mesh_invariants(mesh, asset->material_count, ctx))
        return false;
    if (!process_mesh(ctx, mesh, asset))
        return false;
    char suffix[32];
    if (asset->mesh_count == 1)
        snprintf(suffix, sizeof suffix, ".kmesh");
    else
        snprintf(suffix, sizeof suffix, ".mesh%u.kmesh", mesh_index);
    char *relative = cook_output_path(request->source_path, suffix);
    char *full = relative ? join_path(request->output_root, relative) : NULL;
    bytebuf bytes = {0};
    char reason[512];
    bool ok = full != NULL;
    if (!ok)
        diag_error(ctx->diag, ctx->source_path, 0, "out of memory");
    if (ok && !write_kmesh(ctx, mesh, asset->material_count, request->importer->name, &bytes)) {
        diag_error(ctx->diag, ctx->source_path, 0, "out of memory encoding the mesh");
        ok = false;
    }
    if (ok && !write_file_atomic(full, bytes.data, bytes.size, reason, sizeof reason)) {
        diag_error(ctx->diag, ctx->source_path, 0, "%s", reason);
        ok = false;
    }
    if (ok && request->verify)
        ok = verify_written_file(full, ctx->source_path, ctx->diag);
    if (ok) {
        /* A source with one mesh is named by its own ref; several are leaves. */
        char ref[1200];
        if (asset->mesh_count == 1)
            snprintf(ref, sizeof ref, "%s", ctx->ref);
        else
            snprintf(ref, sizeof ref, "%s/mesh_%u", ctx->ref, mesh_index);
        ok = cook_manifest_add(&result->manifest, ref, relative, KILN_ASSET_MESH,
                               KILN_COLOR_SPACE_NONE, 0);
        if (!ok)
            diag_error(ctx->diag, ctx->source_path, 0, "out of memory");
    }
    if (ok) {
        strlist_push(&result->outputs, relative);
        result->bytes_written += bytes.size;
        result->meshes++;
        for (uint32_t s = 0; s < mesh->submesh_count; s++)
            result->triangles += mesh->submeshes[s].index_count / 3;
    }
    bytebuf_free(&bytes);
    free(relative);
    free(full);
    return ok;
}

bool cook_asset(const cook_request *request, cook_asset_result *result) {
    memset(result, 0, sizeof *result);
    const char *source_path = request->source_path;
    char ref[1024];
    if (kiln_ref_canonicalize(source_path, ref, sizeof ref) != KILN_OK) {
        diag_error(&result->diag, source_path, 0, "cannot form an asset ref from this path");
        return false;
    }
    char *full = join_path(request->input_root, source_path);
    uint8_t *source = NULL;
    size_t source_size = 0;
    char reason[512];
    if (full == NULL ||
        !cook_read_file(full, SOURCE_MAX_BYTES, &source, &source_size, reason, sizeof reason)) {
        diag_error(&result->diag, source_path, 0, "%s", full ? reason : "out of memory");
        free(full);
        return false;
    }
    free(full);

    cook_context ctx = {
        .input_root = request->input_root,
        .source_path = source_path,
        .ref = ref,
        .source = source,
        .source_size = source_size,
        .settings = request->settings,
        .diag = &result->diag,
    };
    ir_asset asset = {0};
    bool ok = request->importer->import(&ctx, &asset);
    if (ok && result->diag.errors > 0)
        ok = false; /* an importer that reported an error has failed */
    if (ok && request->settings->mesh_merge && asset.mesh_count > 0)
        ok = process_merge_asset(&asset, &result->diag, source_path);
    if (ok && asset.mesh_count == 0)
        diag_warning(&result->diag, source_path, 0, "no triangles to cook; nothing written");
    for (uint32_t m = 0; ok && m < asset.mesh_count; m++)
        ok = cook_mesh_output(request, &ctx, &asset, m, result);

    result->dependencies = ctx.dependencies;
    ir_asset_free(&asset);
    free(source);
    result->ok = ok && result->diag.errors == 0;
    return result->ok;
}

void cook_asset_result_free(cook_asset_result *result) {
    diag_free(&result->diag);
    strlist_free(&result->outputs);
    strlist_free(&result->dependencies);
    cook_manifest_list_free(&result->manifest);
}
