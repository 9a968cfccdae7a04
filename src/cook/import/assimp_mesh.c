/*
 * assimp_mesh.c — a node's aiMeshes into one ir_mesh (assimp_internal.h):
 * its streams, one submesh per material and topology, instancing of the
 * same list of aiMeshes; skins (assimp_skin.c) and morph targets
 * (assimp_morph.c) on the side.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <assimp/scene.h>

#include "common/grow.h"
#include "cook/import/assimp_internal.h"

bool aimp_is_cooked_mesh(const struct aiMesh *mesh) {
    const unsigned kinds = aiPrimitiveType_POINT | aiPrimitiveType_LINE | aiPrimitiveType_TRIANGLE;
    return mesh != NULL && mesh->mNumVertices > 0 && mesh->mVertices != NULL &&
           (mesh->mNumFaces == 0 || (mesh->mFaces != NULL && (mesh->mPrimitiveTypes & kinds) != 0));
}

static bool is_point_cloud(const struct aiMesh *mesh) {
    return mesh->mNumFaces == 0;
}

/* The topology of a face of `indices` corners, or KILN_TOPOLOGY_COUNT_ for
 * one kiln does not cook (a polygon Triangulate left, or none). */
static kiln_topology face_topology(unsigned indices) {
    return indices == 3   ? KILN_TOPOLOGY_TRIANGLES
           : indices == 2 ? KILN_TOPOLOGY_LINES
           : indices == 1 ? KILN_TOPOLOGY_POINTS
                          : KILN_TOPOLOGY_COUNT_;
}

static bool has_triangles(const struct aiMesh *mesh) {
    return (mesh->mPrimitiveTypes & aiPrimitiveType_TRIANGLE) != 0 && mesh->mNumFaces > 0;
}

static uint32_t material_slot(aimp_state *st, unsigned material) {
    if (material >= st->scene->mNumMaterials)
        return AIMP_NONE;
    if (st->slot_of_material[material] == AIMP_NONE) {
        st->slot_of_material[material] = st->used_count;
        st->used_materials[st->used_count++] = material;
    }
    return st->slot_of_material[material];
}

static bool finite3(const struct aiVector3D *v) {
    return isfinite(v->x) && isfinite(v->y) && isfinite(v->z);
}

/* Normalises xyz in place; false when it has no direction. */
static bool normalize3(float *v) {
    double length = sqrt((double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2]);
    if (!(length > 0.0) || !isfinite(length))
        return false;
    for (int k = 0; k < 3; k++)
        v[k] = (float)(v[k] / length);
    return true;
}

/* What a node's aiMeshes hold together: the counts and the streams their
 * ir_mesh gets (assimp.c, Output, Streams). */
typedef struct mesh_layout {
    uint64_t vertices, indices;
    bool normals, tangents, uv[2], color, bones;
} mesh_layout;

static void measure_meshes(aimp_state *st, const unsigned *meshes, uint32_t count,
                           mesh_layout *layout) {
    const struct aiScene *scene = st->scene;
    *layout = (mesh_layout){0};
    bool all_normals = true, all_tangents = true;
    /* Normals and tangents as the triangle meshes have them (all meshes when
     * none has triangles): lines and points must not cost a surface its own. */
    bool any_triangles = false, triangle_normals = true, triangle_tangents = true;
    for (uint32_t i = 0; i < count; i++) {
        const struct aiMesh *m = scene->mMeshes[meshes[i]];
        layout->vertices += m->mNumVertices;
        if (is_point_cloud(m))
            layout->indices += m->mNumVertices;
        for (unsigned f = 0; f < m->mNumFaces; f++)
            layout->indices += face_topology(m->mFaces[f].mNumIndices) != KILN_TOPOLOGY_COUNT_
                                   ? m->mFaces[f].mNumIndices
                                   : 0;
        bool tangents = m->mTangents != NULL && m->mBitangents != NULL;
        all_normals &= m->mNormals != NULL;
        all_tangents &= tangents;
        if (has_triangles(m)) {
            any_triangles = true;
            triangle_normals &= m->mNormals != NULL;
            triangle_tangents &= tangents;
        }
        for (int k = 0; k < 2; k++)
            layout->uv[k] |= m->mTextureCoords[k] != NULL;
        layout->color |= m->mColors[0] != NULL;
        layout->bones |= m->mNumBones > 0 && m->mBones != NULL;
        if ((m->mTextureCoords[2] != NULL || m->mColors[1] != NULL) && !st->warned_uv_set) {
            diag_note(st->ctx->diag, st->path, 0,
                      "texture coordinate sets beyond the second and colour sets beyond the "
                      "first are not cooked");
            st->warned_uv_set = true;
        }
    }
    if (any_triangles) {
        all_normals = triangle_normals;
        all_tangents = triangle_tangents;
    }
    layout->normals = all_normals;
    layout->tangents = all_tangents && all_normals;
}

/* The ir_mesh's arrays for `layout` (skins apart); false when out of memory
 * (reported). */
static bool alloc_streams(aimp_state *st, const mesh_layout *layout, uint32_t count,
                          ir_mesh *mesh) {
    size_t n = (size_t)layout->vertices;
    mesh->vertex_count = (uint32_t)n;
    mesh->positions = aimp_alloc_array(n, 3 * sizeof(float));
    mesh->indices = aimp_alloc_array((size_t)layout->indices, sizeof(uint32_t));
    mesh->submeshes = aimp_alloc_array((size_t)count * KILN_TOPOLOGY_COUNT_, sizeof(ir_submesh));
    if (mesh->positions == NULL || mesh->indices == NULL || mesh->submeshes == NULL)
        return aimp_out_of_memory(st);
    if (layout->normals && (mesh->normals = aimp_alloc_array(n, 3 * sizeof(float))) == NULL)
        return aimp_out_of_memory(st);
    if (layout->tangents && (mesh->tangents = aimp_alloc_array(n, 4 * sizeof(float))) == NULL)
        return aimp_out_of_memory(st);
    for (int k = 0; k < 2; k++)
        if (layout->uv[k] && (mesh->texcoords[k] = aimp_alloc_array(n, 2 * sizeof(float))) == NULL)
            return aimp_out_of_memory(st);
    if (layout->color && (mesh->colors = aimp_alloc_array(n, 4 * sizeof(float))) == NULL)
        return aimp_out_of_memory(st);
    return true;
}

/* What copying the vertices found unusable. */
typedef struct vertex_checks {
    bool normals_ok, tangents_ok;
    size_t bad_texcoords;
} vertex_checks;

/* The streams of aiMesh `m`'s vertices, at `base` in the ir_mesh. */
static void copy_vertices(const struct aiMesh *m, size_t base, ir_mesh *mesh,
                          vertex_checks *checks) {
    for (unsigned v = 0; v < m->mNumVertices; v++) {
        size_t o = base + v;
        const struct aiVector3D *p = &m->mVertices[v];
        mesh->positions[3 * o + 0] = (float)p->x;
        mesh->positions[3 * o + 1] = (float)p->y;
        mesh->positions[3 * o + 2] = (float)p->z;
        if (mesh->normals != NULL) {
            float *nrm = mesh->normals + 3 * o;
            nrm[0] = m->mNormals ? (float)m->mNormals[v].x : 0.0f;
            nrm[1] = m->mNormals ? (float)m->mNormals[v].y : 0.0f;
            nrm[2] = m->mNormals ? (float)m->mNormals[v].z : 0.0f;
            /* A line or point mesh without (usable) normals next to
             * triangles: +Z (assimp's OBJ reader gives them zeros). */
            bool usable = normalize3(nrm);
            if (!usable && !has_triangles(m)) {
                nrm[0] = nrm[1] = 0.0f;
                nrm[2] = 1.0f;
            } else {
                checks->normals_ok &= usable;
            }
        }
        if (mesh->tangents != NULL && (m->mTangents == NULL || m->mBitangents == NULL)) {
            float *tan = mesh->tangents + 4 * o;
            tan[0] = tan[3] = 1.0f;
            tan[1] = tan[2] = 0.0f;
        } else if (mesh->tangents != NULL) {
            float *tan = mesh->tangents + 4 * o;
            const struct aiVector3D *b = &m->mBitangents[v];
            tan[0] = (float)m->mTangents[v].x;
            tan[1] = (float)m->mTangents[v].y;
            tan[2] = (float)m->mTangents[v].z;
            checks->tangents_ok &= normalize3(tan) && finite3(b);
            const float *nrm = mesh->normals + 3 * o;
            double cross[3] = {(double)nrm[1] * tan[2] - (double)nrm[2] * tan[1],
                               (double)nrm[2] * tan[0] - (double)nrm[0] * tan[2],
                               (double)nrm[0] * tan[1] - (double)nrm[1] * tan[0]};
            double dot = cross[0] * b->x + cross[1] * b->y + cross[2] * b->z;
            tan[3] = dot < 0.0 ? -1.0f : 1.0f;
        }
        for (int k = 0; k < 2; k++) {
            if (mesh->texcoords[k] == NULL)
                continue;
            float *uv = mesh->texcoords[k] + 2 * o;
            if (m->mTextureCoords[k] == NULL) {
                uv[0] = uv[1] = 0.0f;
                continue;
            }
            double u = m->mTextureCoords[k][v].x, w = m->mTextureCoords[k][v].y;
            if (!isfinite(u) || !isfinite(w)) {
                checks->bad_texcoords++;
                u = 0.0;
                w = 1.0;
            }
            uv[0] = (float)u;
            uv[1] = (float)(1.0 - w);
        }
        if (mesh->colors != NULL) {
            float *c = mesh->colors + 4 * o;
            if (m->mColors[0] == NULL) {
                c[0] = c[1] = c[2] = c[3] = 1.0f;
            } else {
                const struct aiColor4D *src = &m->mColors[0][v];
                const double rgba[4] = {src->r, src->g, src->b, src->a};
                for (int k = 0; k < 4; k++)
                    c[k] = isfinite(rgba[k]) ? (float)rgba[k] : 1.0f;
            }
        }
    }
}

/* Normals or tangents some vertex had no usable value for are dropped with a
 * warning: the pipeline generates normals, and goes without tangents. */
static void drop_unusable_frames(aimp_state *st, ir_mesh *mesh, const vertex_checks *checks) {
    if (mesh->normals != NULL && !checks->normals_ok) {
        diag_warning(st->ctx->diag, st->path, 0,
                     "mesh '%s': some normals are zero or not finite; normals are generated "
                     "instead",
                     mesh->name ? mesh->name : "");
        free(mesh->normals);
        mesh->normals = NULL;
    }
    if (mesh->tangents != NULL && (!checks->tangents_ok || mesh->normals == NULL)) {
        diag_warning(st->ctx->diag, st->path, 0,
                     "mesh '%s': some tangents are zero or not finite; tangents are dropped",
                     mesh->name ? mesh->name : "");
        free(mesh->tangents);
        mesh->tangents = NULL;
    }
}

/* The indices of the node's aiMeshes, whose vertices start at
 * first_vertex[i] in the ir_mesh, and its submeshes. */
static bool build_indices(aimp_state *st, const unsigned *meshes, uint32_t count,
                          const uint32_t *first_vertex, ir_mesh *mesh) {
    const struct aiScene *scene = st->scene;
    /* Indices: one submesh per material and topology, materials in order of
     * first appearance; the node's aiMeshes with that material are
     * concatenated. */
    size_t index_count = 0;
    uint32_t submesh_count = 0;
    const char *kinds[KILN_TOPOLOGY_COUNT_] = {"triangles", "line segments", "points"};
    size_t dropped_of[KILN_TOPOLOGY_COUNT_] = {0, 0, 0};
    for (uint32_t i = 0; i < count; i++) {
        unsigned material = scene->mMeshes[meshes[i]]->mMaterialIndex;
        bool seen = false;
        for (uint32_t j = 0; j < i && !seen; j++)
            seen = scene->mMeshes[meshes[j]]->mMaterialIndex == material;
        if (seen)
            continue;
        uint32_t slot = material_slot(st, material);
        if (slot == AIMP_NONE) {
            diag_error(st->ctx->diag, st->path, 0, "mesh '%s' uses material %u of %u",
                       mesh->name ? mesh->name : "", material, scene->mNumMaterials);
            return false;
        }
        for (int topology = 0; topology < KILN_TOPOLOGY_COUNT_; topology++) {
            size_t offset = index_count;
            for (uint32_t j = i; j < count; j++) {
                const struct aiMesh *m = scene->mMeshes[meshes[j]];
                if (m->mMaterialIndex != material)
                    continue;
                for (unsigned v = 0;
                     topology == KILN_TOPOLOGY_POINTS && is_point_cloud(m) && v < m->mNumVertices;
                     v++) {
                    if (finite3(&m->mVertices[v]))
                        mesh->indices[index_count++] = first_vertex[j] + v;
                    else
                        dropped_of[topology]++;
                }
                for (unsigned f = 0; f < m->mNumFaces; f++) {
                    const struct aiFace *face = &m->mFaces[f];
                    if ((int)face_topology(face->mNumIndices) != topology || face->mIndices == NULL)
                        continue;
                    bool usable = true;
                    for (unsigned c = 0; c < face->mNumIndices; c++)
                        usable &= face->mIndices[c] < m->mNumVertices &&
                                  finite3(&m->mVertices[face->mIndices[c]]);
                    if (!usable) {
                        dropped_of[topology]++;
                        continue;
                    }
                    for (unsigned c = 0; c < face->mNumIndices; c++)
                        mesh->indices[index_count++] = first_vertex[j] + face->mIndices[c];
                }
            }
            if (index_count > offset)
                mesh->submeshes[submesh_count++] =
                    (ir_submesh){.index_offset = (uint32_t)offset,
                                 .index_count = (uint32_t)(index_count - offset),
                                 .material = slot,
                                 .topology = (kiln_topology)topology};
        }
    }
    mesh->index_count = (uint32_t)index_count;
    mesh->submesh_count = submesh_count;
    for (int topology = 0; topology < KILN_TOPOLOGY_COUNT_; topology++) {
        if (dropped_of[topology] > 0)
            diag_warning(st->ctx->diag, st->path, 0,
                         "mesh '%s': %zu %s dropped: they use a vertex whose position is not "
                         "a finite number, or one that does not exist",
                         mesh->name ? mesh->name : "", dropped_of[topology], kinds[topology]);
    }
    return true;
}

/* The streams of one ir_mesh from the node's aiMeshes. */
static bool build_mesh(aimp_state *st, const unsigned *meshes, uint32_t count, ir_mesh *mesh) {
    mesh_layout layout;
    measure_meshes(st, meshes, count, &layout);
    if (layout.vertices > UINT32_MAX || layout.indices > UINT32_MAX) {
        diag_error(st->ctx->diag, st->path, 0, "mesh '%s': more than %u vertices or indices",
                   mesh->name ? mesh->name : "", UINT32_MAX);
        return false;
    }
    if (!alloc_streams(st, &layout, count, mesh))
        return false;
    size_t n = mesh->vertex_count;
    aimp_skin_builder skin = {.bones = {.source = -1}};
    if (layout.bones && !aimp_skin_begin(st, &skin, mesh, n))
        return false;
    uint32_t *first_vertex = aimp_alloc_array(count, sizeof(uint32_t));
    if (first_vertex == NULL) {
        aimp_skin_free(&skin);
        return aimp_out_of_memory(st);
    }
    /* Vertices, submesh by submesh in the node's order. */
    vertex_checks checks = {.normals_ok = true, .tangents_ok = true};
    size_t base = 0;
    for (uint32_t i = 0; i < count; i++) {
        const struct aiMesh *m = st->scene->mMeshes[meshes[i]];
        first_vertex[i] = (uint32_t)base;
        copy_vertices(m, base, mesh, &checks);
        if (mesh->joints != NULL && m->mBones != NULL &&
            !aimp_skin_add_bones(st, &skin, m, meshes[i], base)) {
            aimp_skin_free(&skin);
            free(first_vertex);
            return false;
        }
        base += m->mNumVertices;
    }
    if (!aimp_skin_finish(st, &skin, mesh, n)) {
        free(first_vertex);
        return false;
    }
    drop_unusable_frames(st, mesh, &checks);
    if (!aimp_read_anim_meshes(st, meshes, count, mesh)) {
        free(first_vertex);
        return false;
    }
    if (checks.bad_texcoords > 0 && !st->warned_texcoord) {
        diag_warning(st->ctx->diag, st->path, 0,
                     "%zu texture coordinates are not finite numbers; set to 0",
                     checks.bad_texcoords);
        st->warned_texcoord = true;
    }
    bool ok = build_indices(st, meshes, count, first_vertex, mesh);
    free(first_vertex);
    if (!ok)
        return false;
    /* Positions no triangle may use must still be finite (ir.h). */
    for (size_t i = 0; i < 3 * n; i++)
        if (!isfinite(mesh->positions[i]))
            mesh->positions[i] = 0.0f;
    return true;
}

/* The group (ir mesh) for a node's list of triangle aiMeshes: an existing one
 * when another node placed exactly the same list. */
bool aimp_node_meshes(aimp_state *st, uint32_t node_index, unsigned *scratch) {
    const struct aiScene *scene = st->scene;
    const struct aiNode *node = st->nodes[node_index].node;
    if (node->mNumMeshes == 0 || node->mMeshes == NULL)
        return true;
    uint32_t count = 0;
    for (unsigned i = 0; i < node->mNumMeshes; i++) {
        unsigned index = node->mMeshes[i];
        if (index >= scene->mNumMeshes) {
            diag_error(st->ctx->diag, st->path, 0, "node '%.*s' uses mesh %u of %u",
                       (int)aimp_string_length(&node->mName), node->mName.data, index,
                       scene->mNumMeshes);
            return false;
        }
        const struct aiMesh *mesh = scene->mMeshes[index];
        if (!aimp_is_cooked_mesh(mesh)) {
            if (mesh != NULL && !st->mesh_used[index])
                st->skipped_meshes++;
            st->mesh_used[index] = true;
            continue;
        }
        st->mesh_used[index] = true;
        scratch[count++] = index;
    }
    if (count == 0)
        return true;

    for (uint32_t g = st->group_first[scratch[0]]; g != AIMP_NONE; g = st->group_next[g]) {
        const struct aiNode *other = st->group_node[g];
        uint32_t other_count = 0;
        bool same = true;
        for (unsigned i = 0; i < other->mNumMeshes && same; i++) {
            unsigned index = other->mMeshes[i];
            if (!aimp_is_cooked_mesh(scene->mMeshes[index]))
                continue;
            same = other_count < count && scratch[other_count] == index;
            other_count++;
        }
        if (same && other_count == count) {
            st->out->nodes[node_index].mesh =
                st->group_mesh[g] == AIMP_NONE ? -1 : (int32_t)st->group_mesh[g];
            return aimp_set_node_weights(st, node_index, scratch[0]);
        }
    }

    if (st->group_count == st->group_cap) {
        /* Four arrays of one capacity: each grows from a copy of it, which
         * becomes the capacity once all four have grown. */
        size_t needed = (size_t)st->group_count + 1, cap[4];
        for (int k = 0; k < 4; k++)
            cap[k] = st->group_cap;
        uint32_t *next = array_grow(st->group_next, &cap[0], needed, sizeof *next, 16);
        if (next != NULL)
            st->group_next = next;
        uint32_t *mesh_of = array_grow(st->group_mesh, &cap[1], needed, sizeof *mesh_of, 16);
        if (mesh_of != NULL)
            st->group_mesh = mesh_of;
        const struct aiNode **nodes =
            array_grow(st->group_node, &cap[2], needed, sizeof *nodes, 16);
        if (nodes != NULL)
            st->group_node = nodes;
        ir_mesh *meshes = array_grow(st->out->meshes, &cap[3], needed, sizeof *meshes, 16);
        if (meshes != NULL)
            st->out->meshes = meshes;
        if (next == NULL || mesh_of == NULL || nodes == NULL || meshes == NULL)
            return aimp_out_of_memory(st);
        st->group_cap = cap[0];
    }
    uint32_t group = st->group_count++;
    st->group_next[group] = st->group_first[scratch[0]];
    st->group_first[scratch[0]] = group;
    st->group_node[group] = node;
    st->group_mesh[group] = AIMP_NONE;

    ir_mesh *mesh = &st->out->meshes[st->out->mesh_count];
    memset(mesh, 0, sizeof *mesh);
    const struct aiString *name =
        aimp_string_length(&node->mName) > 0 ? &node->mName : &scene->mMeshes[scratch[0]]->mName;
    if (aimp_string_length(name) > 0) {
        mesh->name = aimp_string_dup(name);
    } else {
        char fallback[32];
        snprintf(fallback, sizeof fallback, "mesh_%u", st->out->mesh_count);
        mesh->name = cook_strdup(fallback);
    }
    if (mesh->name == NULL)
        return aimp_out_of_memory(st);
    st->out->mesh_count++; /* owned by the asset from here on, even half built */
    if (!build_mesh(st, scratch, count, mesh))
        return false;
    if (mesh->index_count == 0) { /* every face dropped */
        ir_mesh_free(mesh);
        st->out->mesh_count--;
        if (st->out->mesh_count < st->mesh_skin_cap)
            st->mesh_skin[st->out->mesh_count] = -1;
        return true;
    }
    st->group_mesh[group] = st->out->mesh_count - 1;
    st->out->nodes[node_index].mesh = (int32_t)(st->out->mesh_count - 1);
    return aimp_set_node_weights(st, node_index, scratch[0]);
}
