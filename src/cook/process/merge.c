/* merge.c — mesh.merge: bake static node transforms into one world-space mesh.
 *
 * Every node that draws a mesh contributes a transformed copy of it; the
 * copies' submeshes are regrouped so each material is drawn by one submesh
 * per topology (triangles first, then lines, then points).
 * Normals transform by the inverse transpose, tangents by the matrix; a
 * mirroring transform (negative determinant) flips the triangles' winding and
 * the tangents' handedness so faces keep facing out. Skinned meshes and
 * meshes with morph targets are not baked (the first are placed by joints at
 * run time, not by their node; the second change shape per node): they stay
 * meshes of their own after the merged one, still drawn by their nodes.
 * A node with instances (EXT_mesh_gpu_instancing) contributes one copy per
 * instance, placed by the node's world matrix times the instance's TRS.
 * The nodes stay, for the scene (what moves), without meshes or instances; a
 * new root node places the merged mesh. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cook/process/process.h"

/* Column-major 4x4 product: out = a * b. */
static void matrix_multiply(const float a[16], const float b[16], float out[16]) {
    float r[16];
    for (int c = 0; c < 4; c++)
        for (int row = 0; row < 4; row++) {
            float sum = 0.0f;
            for (int k = 0; k < 4; k++)
                sum += a[k * 4 + row] * b[c * 4 + k];
            r[c * 4 + row] = sum;
        }
    memcpy(out, r, sizeof r);
}

/* The inverse transpose of the upper 3x3 (cofactor matrix / determinant),
 * row-major in `out`; returns the determinant. */
static float normal_matrix(const float m[16], float out[9]) {
    /* a[row][col] of the upper 3x3 of column-major m. */
#define A(r, c) m[(c)*4 + (r)]
    float cof[9] = {A(1, 1) * A(2, 2) - A(1, 2) * A(2, 1), -(A(1, 0) * A(2, 2) - A(1, 2) * A(2, 0)),
                    A(1, 0) * A(2, 1) - A(1, 1) * A(2, 0), -(A(0, 1) * A(2, 2) - A(0, 2) * A(2, 1)),
                    A(0, 0) * A(2, 2) - A(0, 2) * A(2, 0), -(A(0, 0) * A(2, 1) - A(0, 1) * A(2, 0)),
                    A(0, 1) * A(1, 2) - A(0, 2) * A(1, 1), -(A(0, 0) * A(1, 2) - A(0, 2) * A(1, 0)),
                    A(0, 0) * A(1, 1) - A(0, 1) * A(1, 0)};
    float det = A(0, 0) * cof[0] + A(0, 1) * cof[1] + A(0, 2) * cof[2];
#undef A
    /* The cofactor matrix is det * inverse-transpose; only the direction of
     * transformed normals matters, so its sign is all the determinant adds. */
    float sign = det < 0.0f ? -1.0f : 1.0f;
    for (int i = 0; i < 9; i++)
        out[i] = cof[i] * sign;
    return det;
}

static void normalize3(float v[3]) {
    float length = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    if (length > 0.0f && isfinite(length))
        for (int k = 0; k < 3; k++)
            v[k] /= length;
}

/* One mesh instance placed by a node. */
typedef struct instance {
    const ir_mesh *mesh;
    float world[16];
} instance;

static bool mesh_is_skinned(const ir_asset *asset, uint32_t mesh_index) {
    for (uint32_t n = 0; n < asset->node_count; n++)
        if (asset->nodes[n].mesh == (int32_t)mesh_index && asset->nodes[n].skin >= 0)
            return true;
    return asset->meshes[mesh_index].joints != NULL;
}

/* A mesh with morph targets: its weights animate per node, which one baked
 * world-space mesh cannot keep. */
static bool mesh_is_morphed(const ir_asset *asset, uint32_t mesh_index) {
    return asset->meshes[mesh_index].target_count > 0;
}

static bool mesh_stays_out(const ir_asset *asset, uint32_t mesh_index) {
    return mesh_is_skinned(asset, mesh_index) || mesh_is_morphed(asset, mesh_index);
}

/* Every (node, mesh) pair to bake, with world matrices; parents precede
 * children in ir_asset.nodes, so one pass composes them. */
static instance *collect_instances(const ir_asset *asset, uint32_t *count) {
    float(*world)[16] = malloc((asset->node_count ? asset->node_count : 1) * sizeof *world);
    size_t slots = (size_t)asset->node_count + asset->instance_count;
    instance *out = malloc((slots ? slots : 1) * sizeof *out);
    if (world == NULL || out == NULL) {
        free(world);
        free(out);
        return NULL;
    }
    *count = 0;
    for (uint32_t n = 0; n < asset->node_count; n++) {
        const ir_node *node = &asset->nodes[n];
        if (node->parent >= 0 && (uint32_t)node->parent < n)
            matrix_multiply(world[node->parent], node->matrix, world[n]);
        else
            memcpy(world[n], node->matrix, sizeof world[n]);
        if (node->mesh < 0 || (uint32_t)node->mesh >= asset->mesh_count ||
            mesh_stays_out(asset, (uint32_t)node->mesh))
            continue;
        if (node->instance_count > 0 &&
            (uint64_t)node->instance_offset + node->instance_count <= asset->instance_count) {
            for (uint32_t e = 0; e < node->instance_count; e++) {
                const ir_instance *inst = &asset->instances[node->instance_offset + e];
                kiln_scene_transform t;
                memcpy(t.translation, inst->translation, sizeof t.translation);
                memcpy(t.rotation, inst->rotation, sizeof t.rotation);
                memcpy(t.scale, inst->scale, sizeof t.scale);
                float local[16];
                kiln_scene_compose(&t, local);
                out[*count].mesh = &asset->meshes[node->mesh];
                matrix_multiply(world[n], local, out[*count].world);
                (*count)++;
            }
            continue;
        }
        out[*count].mesh = &asset->meshes[node->mesh];
        memcpy(out[*count].world, world[n], sizeof out[*count].world);
        (*count)++;
    }
    free(world);
    return out;
}

/* Appends one transformed instance's vertices at `base` of `merged`. */
static void bake_vertices(const instance *inst, uint32_t base, ir_mesh *merged) {
    const ir_mesh *src = inst->mesh;
    const float *m = inst->world;
    float nm[9];
    float det = normal_matrix(m, nm);
    for (uint32_t v = 0; v < src->vertex_count; v++) {
        size_t d = (size_t)base + v;
        const float *p = src->positions + 3 * (size_t)v;
        for (int r = 0; r < 3; r++)
            merged->positions[3 * d + (size_t)r] =
                m[0 * 4 + r] * p[0] + m[1 * 4 + r] * p[1] + m[2 * 4 + r] * p[2] + m[3 * 4 + r];
        if (merged->normals && src->normals == NULL) {
            memcpy(merged->normals + 3 * d, (const float[3]){0.0f, 0.0f, 1.0f}, 3 * sizeof(float));
        } else if (merged->normals) {
            const float *n = src->normals + 3 * (size_t)v;
            float *out = merged->normals + 3 * d;
            for (int r = 0; r < 3; r++)
                out[r] = nm[r * 3 + 0] * n[0] + nm[r * 3 + 1] * n[1] + nm[r * 3 + 2] * n[2];
            normalize3(out);
        }
        if (merged->tangents && src->tangents == NULL) {
            memcpy(merged->tangents + 4 * d, (const float[4]){1.0f, 0.0f, 0.0f, 1.0f},
                   4 * sizeof(float));
        } else if (merged->tangents) {
            const float *t = src->tangents + 4 * (size_t)v;
            float *out = merged->tangents + 4 * d;
            for (int r = 0; r < 3; r++)
                out[r] = m[0 * 4 + r] * t[0] + m[1 * 4 + r] * t[1] + m[2 * 4 + r] * t[2];
            normalize3(out);
            out[3] = det < 0.0f ? -t[3] : t[3];
        }
        for (int set = 0; set < 2; set++) {
            if (merged->texcoords[set] == NULL)
                continue;
            float *out = merged->texcoords[set] + 2 * d;
            if (src->texcoords[set])
                memcpy(out, src->texcoords[set] + 2 * (size_t)v, 2 * sizeof(float));
            else
                out[0] = out[1] = 0.0f;
        }
        if (merged->colors) {
            float *out = merged->colors + 4 * d;
            if (src->colors)
                memcpy(out, src->colors + 4 * (size_t)v, 4 * sizeof(float));
            else
                out[0] = out[1] = out[2] = out[3] = 1.0f;
        }
    }
}

static bool has_triangles(const ir_mesh *mesh) {
    for (uint32_t s = 0; s < mesh->submesh_count; s++)
        if (mesh->submeshes[s].topology == KILN_TOPOLOGY_TRIANGLES)
            return true;
    return false;
}

/* Streams the merged mesh carries: normals and tangents only when every
 * instance with triangles has them (the process stage regenerates what is
 * missing; line and point instances without them get +Z and +X, rather than
 * costing every triangle its source normals), the others when any instance
 * has them (the rest get defaults). */
static bool allocate_merged(const instance *instances, uint32_t count, uint64_t vertices,
                            uint64_t indices, ir_mesh *merged) {
    bool all_normals = true, all_tangents = true, any_uv[2] = {false, false}, any_color = false;
    bool any_normals = false, any_tangents = false;
    for (uint32_t i = 0; i < count; i++) {
        const ir_mesh *m = instances[i].mesh;
        bool triangles = has_triangles(m);
        any_normals = any_normals || m->normals;
        any_tangents = any_tangents || m->tangents;
        all_normals = all_normals && (m->normals || !triangles);
        all_tangents = all_tangents && (m->tangents || !triangles);
        any_uv[0] = any_uv[0] || m->texcoords[0];
        any_uv[1] = any_uv[1] || m->texcoords[1];
        any_color = any_color || m->colors;
    }
    all_normals = all_normals && any_normals; /* nothing to keep: none */
    all_tangents = all_tangents && any_tangents;
    if (vertices > UINT32_MAX || indices > UINT32_MAX)
        return false;
    size_t n = (size_t)vertices ? (size_t)vertices : 1;
    merged->vertex_count = (uint32_t)vertices;
    merged->index_count = (uint32_t)indices;
    merged->positions = malloc(n * 3 * sizeof(float));
    merged->normals = all_normals ? malloc(n * 3 * sizeof(float)) : NULL;
    merged->tangents = all_tangents && all_normals ? malloc(n * 4 * sizeof(float)) : NULL;
    merged->texcoords[0] = any_uv[0] ? malloc(n * 2 * sizeof(float)) : NULL;
    merged->texcoords[1] = any_uv[1] ? malloc(n * 2 * sizeof(float)) : NULL;
    merged->colors = any_color ? malloc(n * 4 * sizeof(float)) : NULL;
    merged->indices = malloc(((size_t)indices ? (size_t)indices : 1) * sizeof(uint32_t));
    return merged->positions && merged->indices && (!all_normals || merged->normals) &&
           (!merged->tangents == !(all_tangents && all_normals)) &&
           (!any_uv[0] || merged->texcoords[0]) && (!any_uv[1] || merged->texcoords[1]) &&
           (!any_color || merged->colors);
}

/* After the merge no node draws what was baked; a node drawing a mesh that
 * stayed out draws it at its new index (`kept`: old mesh index -> new, -1 for
 * baked). One new root, "merged", places the merged mesh, which is in world
 * space already, with the identity, and every scene shows it. */

/* One warning for the `count` meshes of a kind that mesh.merge leaves out of
 * the merged mesh: "<count> <noun>[es]<qualifier> not merged<why>: kept as ...". */
static void warn_kept_out(cook_diag *diag, const char *path, uint32_t count, const char *noun,
                          const char *qualifier, const char *why) {
    if (count == 0)
        return;
    const char *their = count == 1 ? "its" : "their";
    diag_warning(diag, path, 0,
                 "mesh.merge: %u %s%s%s not merged%s: kept as %s own, drawn by %s nodes", count,
                 noun, count == 1 ? "" : "es", qualifier, why, their, their);
}

static bool add_merged_node(ir_asset *asset, const int32_t *kept, uint32_t old_mesh_count) {
    ir_node *nodes = realloc(asset->nodes, ((size_t)asset->node_count + 1) * sizeof *nodes);
    if (nodes == NULL)
        return false;
    asset->nodes = nodes;
    for (uint32_t n = 0; n < asset->node_count; n++) {
        int32_t mesh = nodes[n].mesh;
        nodes[n].mesh = mesh >= 0 && (uint32_t)mesh < old_mesh_count ? kept[mesh] : -1;
        if (nodes[n].mesh < 0)
            nodes[n].instance_offset = nodes[n].instance_count = 0; /* baked */
    }
    ir_node *merged = &nodes[asset->node_count];
    ir_node_init(merged);
    merged->name = cook_strdup("merged");
    if (merged->name == NULL)
        return false;
    merged->mesh = 0;
    uint32_t index = asset->node_count++;
    for (uint32_t s = 0; s < asset->scene_count; s++) {
        ir_scene *scene = &asset->scenes[s];
        uint32_t *roots = realloc(scene->roots, ((size_t)scene->root_count + 1) * sizeof *roots);
        if (roots == NULL)
            return false;
        scene->roots = roots;
        roots[scene->root_count++] = index;
    }
    return true;
}

bool process_merge_asset(ir_asset *asset, cook_diag *diag, const char *path) {
    uint32_t count = 0;
    instance *instances = collect_instances(asset, &count);
    if (instances == NULL)
        return false;
    if (count == 0) { /* nothing placed by a node (e.g. OBJ): keep the meshes */
        free(instances);
        return true;
    }
    uint64_t vertices = 0, indices = 0;
    for (uint32_t i = 0; i < count; i++) {
        vertices += instances[i].mesh->vertex_count;
        for (uint32_t s = 0; s < instances[i].mesh->submesh_count; s++)
            indices += instances[i].mesh->submeshes[s].index_count;
    }
    ir_mesh merged = {0};
    /* Per (topology, material): the level-0 indices the merged submesh gets. */
    uint32_t slots = asset->material_count;
    uint32_t *slot_counts = calloc((size_t)KILN_TOPOLOGY_COUNT_ * slots + 1, sizeof *slot_counts);
    bool ok = slot_counts != NULL && allocate_merged(instances, count, vertices, indices, &merged);
    if (ok) {
        merged.name = cook_strdup("merged");
        uint32_t base = 0;
        for (uint32_t i = 0; i < count; i++) {
            bake_vertices(&instances[i], base, &merged);
            base += instances[i].mesh->vertex_count;
        }
        /* Group level-0 primitives by topology, then material, in order. */
        for (uint32_t i = 0; i < count; i++)
            for (uint32_t s = 0; s < instances[i].mesh->submesh_count; s++) {
                const ir_submesh *sub = &instances[i].mesh->submeshes[s];
                slot_counts[(size_t)sub->topology * slots + sub->material] += sub->index_count;
            }
        uint32_t used = 0;
        for (size_t k = 0; k < (size_t)KILN_TOPOLOGY_COUNT_ * slots; k++)
            used += slot_counts[k] > 0;
        merged.submeshes = calloc(used ? used : 1, sizeof *merged.submeshes);
        ok = merged.submeshes != NULL;
        uint32_t offset = 0;
        for (size_t k = 0; ok && k < (size_t)KILN_TOPOLOGY_COUNT_ * slots; k++) {
            if (slot_counts[k] == 0)
                continue;
            kiln_topology topology = (kiln_topology)(k / slots);
            uint32_t mat = (uint32_t)(k % slots);
            ir_submesh *sub = &merged.submeshes[merged.submesh_count++];
            sub->index_offset = offset;
            sub->material = mat;
            sub->topology = topology;
            base = 0;
            for (uint32_t i = 0; i < count; i++) {
                const ir_mesh *src = instances[i].mesh;
                /* Winding is a triangle's only: lines and points just move. */
                bool mirrored = topology == KILN_TOPOLOGY_TRIANGLES &&
                                normal_matrix(instances[i].world, (float[9]){0}) < 0.0f;
                for (uint32_t s = 0; s < src->submesh_count; s++) {
                    const ir_submesh *part = &src->submeshes[s];
                    if (part->material != mat || part->topology != topology)
                        continue;
                    const uint32_t *in = src->indices + part->index_offset;
                    uint32_t *dst = merged.indices + offset;
                    for (uint32_t j = 0; j < part->index_count; j++)
                        dst[j] = base + in[j];
                    for (uint32_t j = 0; mirrored && j + 2 < part->index_count; j += 3) {
                        dst[j + 1] = base + in[j + 2];
                        dst[j + 2] = base + in[j + 1];
                    }
                    offset += part->index_count;
                }
                base += src->vertex_count;
            }
            sub->index_count = offset - sub->index_offset;
        }
    }
    free(slot_counts);
    free(instances);
    if (!ok) {
        ir_mesh_free(&merged);
        diag_error(diag, path, 0, "mesh.merge: out of memory or more than 2^32 vertices");
        return false;
    }
    uint32_t skinned = 0, morphed = 0, old_count = asset->mesh_count;
    int32_t *kept = malloc((old_count ? old_count : 1) * sizeof *kept);
    ir_mesh *meshes = malloc(((size_t)old_count + 1) * sizeof *meshes);
    if (kept == NULL || meshes == NULL) {
        free(kept);
        free(meshes);
        ir_mesh_free(&merged);
        diag_error(diag, path, 0, "mesh.merge: out of memory");
        return false;
    }
    /* The merged mesh first, then every mesh that stayed out, in order. */
    meshes[0] = merged;
    uint32_t mesh_count = 1;
    for (uint32_t m = 0; m < old_count; m++) {
        bool is_skinned = mesh_is_skinned(asset, m);
        bool is_morphed = !is_skinned && mesh_is_morphed(asset, m);
        skinned += is_skinned;
        morphed += is_morphed;
        if (is_skinned || is_morphed) {
            kept[m] = (int32_t)mesh_count;
            meshes[mesh_count++] = asset->meshes[m];
        } else {
            kept[m] = -1;
            ir_mesh_free(&asset->meshes[m]);
        }
    }
    warn_kept_out(diag, path, skinned, "skinned mesh", "", "");
    warn_kept_out(diag, path, morphed, "mesh", " with morph targets",
                  " (a baked mesh cannot keep per-node morph weights)");
    free(asset->meshes);
    asset->meshes = meshes;
    asset->mesh_count = mesh_count;
    bool ok_node = add_merged_node(asset, kept, old_count);
    free(kept);
    if (!ok_node) {
        diag_error(diag, path, 0, "mesh.merge: out of memory");
        return false;
    }
    return true;
}
