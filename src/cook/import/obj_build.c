/*
 * obj_build.c — the OBJ importer's output (obj_internal.h): the parsed
 * pools, runs and usages into one ir_mesh with its submeshes, material slots
 * and streams; a file of vertices alone into a point cloud.
 */
#include <stdlib.h>
#include <string.h>

#include "cook/import/obj_internal.h"

static bool add_slot(obj_parser *ps, obj_vec *materials, ir_material *material, uint32_t *slot) {
    ir_material *entry = obj_vec_push(materials, sizeof(ir_material), 1);
    if (entry == NULL) {
        ir_material_free(material);
        return obj_out_of_memory(ps);
    }
    *entry = *material;
    *slot = (uint32_t)(materials->count - 1);
    return true;
}

/* A submesh being formed: its key, the order it was first used in, its size
 * and (while indices are copied) where the next of its indices goes. */
typedef struct obj_part {
    uint32_t topology, slot, name, first_use;
    size_t count, offset;
} obj_part;

static int compare_parts(const void *a, const void *b) {
    const obj_part *x = a, *y = b;
    if (x->topology != y->topology)
        return x->topology < y->topology ? -1 : 1;
    if (x->slot != y->slot)
        return x->slot < y->slot ? -1 : 1;
    return x->first_use < y->first_use ? -1 : x->first_use > y->first_use;
}

/* Material slots in order of first use by a face, line or point; the index
 * buffer sorted by topology (triangles, lines, points), then slot (stable),
 * one submesh per topology and slot used. */
static bool build_materials(obj_parser *ps, ir_asset *out, ir_mesh *mesh) {
    name_table library_names = {0};
    obj_vec materials = {0};
    obj_part *parts = NULL;
    uint32_t *run_part = NULL;
    uint32_t *indices = NULL;
    bool ok = false;
    for (uint32_t i = 0; i < ps->library_count; i++) {
        const char *name = ps->library[i].name;
        if (name != NULL && obj_name_find(&library_names, name, strlen(name)) == OBJ_NONE &&
            !obj_name_insert(&library_names, name, strlen(name), i))
            goto oom;
    }
    obj_usage *usages = ps->usages.data;
    const obj_run *runs = ps->runs.data;
    size_t run_count = ps->runs.count;
    uint32_t default_slot = OBJ_NONE;
    bool warned_no_library = false;
    for (size_t r = 0; r < run_count; r++) {
        obj_usage *usage = &usages[runs[r].usage];
        if (usage->slot != OBJ_NONE)
            continue;
        uint32_t found = usage->name
                             ? obj_name_find(&library_names, usage->name, strlen(usage->name))
                             : OBJ_NONE;
        if (found != OBJ_NONE) {
            ir_material moved = ps->library[found];
            memset(&ps->library[found], 0, sizeof ps->library[found]);
            if (!add_slot(ps, &materials, &moved, &usage->slot))
                goto fail;
            continue;
        }
        if (usage->name != NULL && ps->library_count > 0) {
            diag_warning(ps->ctx->diag, ps->path, usage->line,
                         "material '%s' is not defined in any material library; the default "
                         "material is used",
                         usage->name);
        } else if (usage->name != NULL && !warned_no_library && !ps->mtllib_failed) {
            diag_warning(ps->ctx->diag, ps->path, usage->line,
                         "'usemtl %s' but no material library was loaded; the default material "
                         "is used",
                         usage->name);
            warned_no_library = true;
        }
        if (default_slot == OBJ_NONE) {
            ir_material fallback;
            ir_material_init(&fallback);
            fallback.metallic = 0.0f;
            fallback.name = cook_strdup("default");
            if (fallback.name == NULL)
                goto oom;
            if (!add_slot(ps, &materials, &fallback, &default_slot))
                goto fail;
        }
        usage->slot = default_slot;
    }

    /* Submeshes: one per (topology, slot, name) used, ordered by topology,
     * then slot, then first use; each run's indices go to its submesh. */
    size_t index_count = ps->indices.count;
    parts = calloc(run_count ? run_count : 1, sizeof *parts);
    run_part = malloc((run_count ? run_count : 1) * sizeof *run_part);
    indices = malloc((index_count ? index_count : 1) * sizeof *indices);
    if (parts == NULL || run_part == NULL || indices == NULL)
        goto oom;
    size_t part_count = 0;
    for (size_t r = 0; r < run_count; r++) {
        obj_part key = {
            .topology = runs[r].topology, .slot = usages[runs[r].usage].slot, .name = runs[r].part};
        size_t p = 0; /* runs of one key are few apart: look back from the last */
        for (p = part_count; p-- > 0;)
            if (parts[p].topology == key.topology && parts[p].slot == key.slot &&
                parts[p].name == key.name)
                break;
        if (p == SIZE_MAX) {
            key.first_use = (uint32_t)part_count;
            parts[part_count] = key;
            p = part_count++;
        }
        size_t end = r + 1 < run_count ? runs[r + 1].first : index_count;
        parts[p].count += end - runs[r].first;
        run_part[r] = (uint32_t)p;
    }
    /* Sorting moves the parts: remember where each went. */
    qsort(parts, part_count, sizeof *parts, compare_parts);
    uint32_t *where = malloc((part_count ? part_count : 1) * sizeof *where);
    mesh->submeshes = calloc(part_count ? part_count : 1, sizeof *mesh->submeshes);
    if (where == NULL || mesh->submeshes == NULL) {
        free(where);
        goto oom;
    }
    size_t offset = 0;
    uint32_t submesh_count = 0;
    for (size_t p = 0; p < part_count; p++) {
        where[parts[p].first_use] = (uint32_t)p;
        parts[p].offset = offset;
        ir_submesh *sub = &mesh->submeshes[submesh_count++];
        *sub = (ir_submesh){.index_offset = (uint32_t)offset,
                            .index_count = (uint32_t)parts[p].count,
                            .material = parts[p].slot,
                            .topology = (kiln_topology)parts[p].topology};
        if (parts[p].name != 0 &&
            (sub->name = cook_strdup(ps->part_names.items[parts[p].name - 1])) == NULL) {
            mesh->submesh_count = submesh_count;
            free(where);
            goto oom;
        }
        offset += parts[p].count;
    }
    const uint32_t *source = ps->indices.data;
    for (size_t r = 0; r < run_count; r++) {
        size_t end = r + 1 < run_count ? runs[r + 1].first : index_count;
        size_t n = end - runs[r].first;
        obj_part *part = &parts[where[run_part[r]]];
        memcpy(indices + part->offset, source + runs[r].first, n * sizeof *indices);
        part->offset += n;
    }
    free(where);
    mesh->submesh_count = submesh_count;
    mesh->indices = indices;
    mesh->index_count = (uint32_t)index_count;
    indices = NULL;
    out->materials = materials.data;
    out->material_count = (uint32_t)materials.count;
    materials.data = NULL;
    materials.count = 0;
    ok = true;
    goto fail;
oom:
    obj_out_of_memory(ps);
fail:
    for (size_t i = 0; i < materials.count; i++)
        ir_material_free((ir_material *)materials.data + i);
    obj_vec_free(&materials);
    free(library_names.slots);
    free(parts);
    free(run_part);
    free(indices);
    return ok;
}

static char *stem_of(const char *path) {
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    const char *dot = strrchr(name, '.');
    size_t length = (dot && dot != name) ? (size_t)(dot - name) : strlen(name);
    char *stem = malloc(length + 1);
    if (stem != NULL) {
        memcpy(stem, name, length);
        stem[length] = '\0';
    }
    return stem;
}

/* A file of vertices alone (a scan's export) is a point cloud: each finite
 * position once, in file order, with the default material. */
static bool vertices_as_points(obj_parser *ps) {
    const uint8_t *bad = ps->bad.count > 0 ? ps->bad.data : NULL;
    ps->usage = 0;
    for (size_t v = 0; v < ps->positions.count; v++) {
        if (bad != NULL && bad[v])
            continue;
        uint32_t key[3] = {(uint32_t)v, OBJ_NONE, OBJ_NONE}, id;
        uint32_t *out;
        if (!obj_vertex_id(ps, key, &id) || !obj_start_run(ps, KILN_TOPOLOGY_POINTS))
            return false;
        if ((out = obj_vec_push(&ps->indices, sizeof(uint32_t), 1)) == NULL)
            return obj_out_of_memory(ps);
        *out = id;
    }
    ps->elements = ps->indices.count > 0;
    if (ps->elements)
        diag_note(ps->ctx->diag, ps->path, 0,
                  "no faces, lines or points: its %zu vertices are cooked as a point cloud",
                  ps->indices.count);
    return true;
}

bool obj_finish(obj_parser *ps, ir_asset *out) {
    if (ps->faces == 0 && ps->elements == 0) {
        if (ps->dropped_faces > 0 || ps->dropped_elements > 0) {
            diag_error(ps->ctx->diag, ps->path,
                       ps->dropped_faces > 0 ? ps->dropped_line : ps->dropped_element_line,
                       "every face, line and point uses a vertex whose position is not a finite "
                       "number; nothing to cook");
            return false;
        }
        if (!vertices_as_points(ps))
            return false;
        if (ps->elements == 0) {
            diag_error(ps->ctx->diag, ps->path, 0, "%s",
                       ps->positions.count > 0
                           ? "no vertex position is a finite number; nothing to cook"
                           : "no geometry: the file has no vertices and no 'f', 'l' or 'p' "
                             "statements");
            return false;
        }
    }
    if (ps->dropped_faces > 0)
        diag_warning(ps->ctx->diag, ps->path, ps->dropped_line,
                     "%u face%s dropped: they use vertices whose position is not a finite number",
                     ps->dropped_faces, ps->dropped_faces == 1 ? "" : "s");
    if (ps->dropped_elements > 0)
        diag_warning(ps->ctx->diag, ps->path, ps->dropped_element_line,
                     "%u point%s or line segment%s dropped: they use vertices whose position is "
                     "not a finite number",
                     ps->dropped_elements, ps->dropped_elements == 1 ? "" : "s",
                     ps->dropped_elements == 1 ? "" : "s");

    ir_mesh *mesh = calloc(1, sizeof *mesh);
    if (mesh == NULL)
        return obj_out_of_memory(ps);
    out->meshes = mesh;
    out->mesh_count = 1;
    mesh->name = ps->mesh_name ? ps->mesh_name : stem_of(ps->path);
    ps->mesh_name = NULL;
    if (mesh->name == NULL)
        return obj_out_of_memory(ps);
    return build_materials(ps, out, mesh) && obj_build_streams(ps, mesh);
}
