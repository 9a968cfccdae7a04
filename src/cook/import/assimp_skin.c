/*
 * assimp_skin.c — bones into skins (assimp_internal.h): each mesh's bone
 * nodes and inverse bind matrices, shared between meshes that have the same;
 * per vertex the 8 largest weights, largest first, renormalised (assimp.c,
 * Output, Skins).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <assimp/mesh.h>

#include "common/grow.h"
#include "cook/import/assimp_internal.h"

/* Inserts (joint, weight) into a vertex's eight slots, keeping the largest. */
static void add_influence(uint16_t *joints, float *weights, uint8_t *counts, uint16_t joint,
                          float weight) {
    if (*counts < 255)
        (*counts)++;
    int smallest = 0;
    for (int k = 1; k < 8; k++)
        if (weights[k] < weights[smallest])
            smallest = k;
    if (weight > weights[smallest]) {
        weights[smallest] = weight;
        joints[smallest] = joint;
    }
}

/* The local joint index of the bone naming `node`, appended (with its offset
 * matrix) when new; -1 on allocation failure, -2 for a non-finite matrix. */
static int32_t bone_index(aimp_bone_set *set, uint32_t node, const struct aiMatrix4x4 *offset) {
    for (uint32_t k = 0; k < set->count; k++)
        if (set->nodes[k] == node)
            return (int32_t)k;
    const double m[16] = {offset->a1, offset->b1, offset->c1, offset->d1, offset->a2, offset->b2,
                          offset->c2, offset->d2, offset->a3, offset->b3, offset->c3, offset->d3,
                          offset->a4, offset->b4, offset->c4, offset->d4};
    for (int e = 0; e < 16; e++)
        if (!isfinite(m[e]))
            return -2;
    if (set->count == set->cap) {
        /* Two arrays of one capacity, as in aimp_node_meshes. */
        size_t needed = (size_t)set->count + 1, nodes_cap = set->cap, matrices_cap = set->cap;
        uint32_t *nodes = array_grow(set->nodes, &nodes_cap, needed, sizeof *nodes, 16);
        if (nodes != NULL)
            set->nodes = nodes;
        float *matrices =
            array_grow(set->inverse_bind, &matrices_cap, needed, 16 * sizeof *matrices, 16);
        if (matrices != NULL)
            set->inverse_bind = matrices;
        if (nodes == NULL || matrices == NULL)
            return -1;
        set->cap = nodes_cap;
    }
    set->nodes[set->count] = node;
    for (int e = 0; e < 16; e++) /* affine: assimp's offsets are; the last row made exact */
        set->inverse_bind[16 * (size_t)set->count + (size_t)e] =
            e == 3 || e == 7 || e == 11 ? 0.0f : (e == 15 ? 1.0f : (float)m[e]);
    return (int32_t)set->count++;
}

/* The skin of `mesh_index` from its bones: an existing skin with the same
 * joints and matrices, else a new one (taking the set's arrays). */
static bool attach_skin(aimp_state *st, uint32_t mesh_index, aimp_bone_set *set) {
    if (mesh_index >= st->mesh_skin_cap) {
        size_t cap = st->mesh_skin_cap;
        int32_t *grown = array_grow(st->mesh_skin, &cap, (size_t)mesh_index + 1, sizeof *grown, 16);
        if (grown == NULL)
            return aimp_out_of_memory(st);
        for (size_t k = st->mesh_skin_cap; k < cap; k++)
            grown[k] = -1;
        st->mesh_skin = grown;
        st->mesh_skin_cap = cap;
    }
    st->mesh_skin[mesh_index] = -1;
    if (set->count == 0)
        return true;
    ir_asset *out = st->out;
    for (uint32_t s = 0; s < out->skin_count; s++) {
        const ir_skin *skin = &out->skins[s];
        if (skin->joint_count == set->count &&
            memcmp(skin->joints, set->nodes, set->count * sizeof *set->nodes) == 0 &&
            memcmp(skin->inverse_bind, set->inverse_bind, (size_t)set->count * 64) == 0) {
            st->mesh_skin[mesh_index] = (int32_t)s;
            return true;
        }
    }
    ir_skin *skins = realloc(out->skins, ((size_t)out->skin_count + 1) * sizeof *skins);
    if (skins == NULL)
        return aimp_out_of_memory(st);
    out->skins = skins;
    ir_skin *skin = &out->skins[out->skin_count];
    memset(skin, 0, sizeof *skin);
    skin->joints = set->nodes;
    skin->inverse_bind = set->inverse_bind;
    skin->joint_count = set->count;
    skin->skeleton = -1;
    skin->source = set->source;
    set->nodes = NULL;
    set->inverse_bind = NULL;
    st->mesh_skin[mesh_index] = (int32_t)out->skin_count++;
    return true;
}

bool aimp_skin_begin(aimp_state *st, aimp_skin_builder *b, ir_mesh *mesh, size_t n) {
    mesh->joints = calloc(n ? n : 1, 4 * sizeof(uint16_t));
    mesh->weights = calloc(n ? n : 1, 4 * sizeof(float));
    b->joints8 = calloc(n ? n : 1, 8 * sizeof(uint16_t));
    b->weights8 = calloc(n ? n : 1, 8 * sizeof(float));
    b->influences = calloc(n ? n : 1, 1);
    if (mesh->joints == NULL || mesh->weights == NULL || b->influences == NULL ||
        b->joints8 == NULL || b->weights8 == NULL) {
        aimp_skin_free(b);
        return aimp_out_of_memory(st);
    }
    return true;
}

bool aimp_skin_add_bones(aimp_state *st, aimp_skin_builder *b, const struct aiMesh *m,
                         unsigned mesh_index, size_t base) {
    for (unsigned i = 0; i < m->mNumBones; i++) {
        const struct aiBone *bone = m->mBones[i];
        if (bone == NULL || bone->mNumWeights == 0 || bone->mWeights == NULL)
            continue;
        uint32_t node = aimp_find_node(st, &bone->mName);
        int32_t joint = node == AIMP_NONE ? -3 : bone_index(&b->bones, node, &bone->mOffsetMatrix);
        if (joint == -1)
            return aimp_out_of_memory(st);
        if (joint == -2) {
            diag_error(st->ctx->diag, st->path, 0,
                       "bone '%.*s': its offset (inverse bind) matrix is not finite",
                       (int)aimp_string_length(&bone->mName), bone->mName.data);
            return false;
        }
        if (b->bones.source < 0)
            b->bones.source = (int32_t)mesh_index;
        if (joint < 0 || joint > UINT16_MAX) {
            if (b->unknown_bones++ == 0)
                diag_warning(st->ctx->diag, st->path, 0, "bone '%.*s' %s; its weights are dropped",
                             (int)aimp_string_length(&bone->mName), bone->mName.data,
                             joint < 0 ? "names no node" : "is joint 65536 or later");
            continue;
        }
        for (unsigned w = 0; w < bone->mNumWeights; w++) {
            const struct aiVertexWeight *vw = &bone->mWeights[w];
            float weight = (float)vw->mWeight;
            if (vw->mVertexId >= m->mNumVertices || !(weight > 0.0f) || !isfinite(weight))
                continue;
            size_t o = base + vw->mVertexId;
            add_influence(b->joints8 + 8 * o, b->weights8 + 8 * o, b->influences + o,
                          (uint16_t)joint, weight);
        }
    }
    return true;
}

/* A vertex's eight influences largest first, renormalised; a weightless
 * vertex stays all 0 until ir_bind_weightless binds it to its skin's root
 * joint. */
static void sort_influences(uint16_t *j, float *w) {
    for (int a = 1; a < 8; a++) /* insertion sort, stable */
        for (int c = a; c > 0 && w[c] > w[c - 1]; c--) {
            float tw = w[c];
            w[c] = w[c - 1];
            w[c - 1] = tw;
            uint16_t tj = j[c];
            j[c] = j[c - 1];
            j[c - 1] = tj;
        }
    double sum = 0.0;
    for (int k = 0; k < 8; k++)
        sum += w[k];
    for (int k = 0; k < 8; k++) {
        w[k] = sum > 0.0 ? (float)(w[k] / sum) : 0.0f;
        if (w[k] == 0.0f)
            j[k] = 0;
    }
}

/* The builder's eight influences a vertex into the mesh's four (joints,
 * weights) and, when some vertex has more than four, four more (joints1,
 * weights1). False when out of memory (not reported). */
static bool store_influences(aimp_state *st, aimp_skin_builder *b, ir_mesh *mesh, size_t n) {
    size_t over_four = 0, over_eight = 0;
    for (size_t v = 0; v < n; v++) {
        sort_influences(b->joints8 + 8 * v, b->weights8 + 8 * v);
        over_four += b->influences[v] > 4;
        over_eight += b->influences[v] > 8;
    }
    if (over_four > 0) {
        mesh->joints1 = calloc(n ? n : 1, 4 * sizeof(uint16_t));
        mesh->weights1 = calloc(n ? n : 1, 4 * sizeof(float));
        if (mesh->joints1 == NULL || mesh->weights1 == NULL)
            return false;
    }
    for (size_t v = 0; v < n; v++) {
        memcpy(mesh->joints + 4 * v, b->joints8 + 8 * v, 4 * sizeof(uint16_t));
        memcpy(mesh->weights + 4 * v, b->weights8 + 8 * v, 4 * sizeof(float));
        if (mesh->joints1 != NULL) {
            memcpy(mesh->joints1 + 4 * v, b->joints8 + 8 * v + 4, 4 * sizeof(uint16_t));
            memcpy(mesh->weights1 + 4 * v, b->weights8 + 8 * v + 4, 4 * sizeof(float));
        }
    }
    if (over_eight > 0)
        diag_warning(st->ctx->diag, st->path, 0,
                     "mesh '%s': %zu vertices have more than 8 bone weights; the 8 largest "
                     "are kept",
                     mesh->name ? mesh->name : "", over_eight);
    return true;
}

bool aimp_skin_finish(aimp_state *st, aimp_skin_builder *b, ir_mesh *mesh, size_t n) {
    bool ok = mesh->joints == NULL || store_influences(st, b, mesh, n);
    ok = ok && attach_skin(st, st->out->mesh_count - 1, &b->bones);
    aimp_skin_free(b);
    if (!ok)
        return st->ctx->diag->errors > 0 ? false : aimp_out_of_memory(st);
    return true;
}

void aimp_skin_free(aimp_skin_builder *b) {
    free(b->joints8);
    free(b->weights8);
    free(b->influences);
    free(b->bones.nodes);
    free(b->bones.inverse_bind);
    b->joints8 = NULL;
    b->weights8 = NULL;
    b->influences = NULL;
    b->bones.nodes = NULL;
    b->bones.inverse_bind = NULL;
}
