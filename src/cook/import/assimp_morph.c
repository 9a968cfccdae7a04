/*
 * assimp_morph.c — aiAnimMeshes into morph targets, and a node's default
 * morph weights (assimp_internal.h).
 */
#include <math.h>
#include <stdlib.h>

#include <assimp/scene.h>

#include "cook/import/assimp_internal.h"

bool aimp_read_anim_meshes(aimp_state *st, const unsigned *meshes, uint32_t count, ir_mesh *mesh) {
    const struct aiScene *scene = st->scene;
    const char *name = mesh->name ? mesh->name : "";
    unsigned targets = scene->mMeshes[meshes[0]]->mNumAnimMeshes;
    bool consistent = true, has[3] = {false, false, false}, other = false;
    for (uint32_t i = 0; i < count; i++) {
        const struct aiMesh *m = scene->mMeshes[meshes[i]];
        unsigned n = m->mAnimMeshes != NULL ? m->mNumAnimMeshes : 0;
        targets = m->mAnimMeshes != NULL ? targets : 0;
        consistent &= n == targets;
        for (unsigned t = 0; consistent && t < n; t++) {
            const struct aiAnimMesh *a = m->mAnimMeshes[t];
            consistent = a != NULL && a->mNumVertices == m->mNumVertices;
            if (!consistent)
                break;
            has[0] |= a->mVertices != NULL;
            has[1] |= a->mNormals != NULL && m->mNormals != NULL;
            has[2] |= a->mTangents != NULL && m->mTangents != NULL;
            other |= a->mColors[0] != NULL || a->mTextureCoords[0] != NULL;
        }
    }
    if (!consistent) {
        diag_warning(st->ctx->diag, st->path, 0,
                     "mesh '%s': its parts have different morph targets (aiAnimMesh counts or "
                     "vertex counts); the morph targets are not cooked",
                     name);
        return true;
    }
    has[1] &= mesh->normals != NULL;
    has[2] &= mesh->tangents != NULL;
    if (targets == 0 || (!has[0] && !has[1] && !has[2]))
        return true;
    if (other)
        diag_warning(st->ctx->diag, st->path, 0,
                     "mesh '%s': morph targets replacing colours or texture coordinates; only "
                     "position, normal and tangent deltas are cooked",
                     name);
    if (targets > UINT16_MAX) {
        diag_warning(st->ctx->diag, st->path, 0,
                     "mesh '%s': %u morph targets; more than %u are not cooked", name, targets,
                     UINT16_MAX);
        return true;
    }
    size_t n = mesh->vertex_count;
    mesh->targets = calloc(targets, sizeof *mesh->targets);
    if (mesh->targets == NULL)
        return aimp_out_of_memory(st);
    mesh->target_count = targets;
    for (unsigned t = 0; t < targets; t++) {
        ir_morph_target *target = &mesh->targets[t];
        const struct aiAnimMesh *first = scene->mMeshes[meshes[0]]->mAnimMeshes[t];
        if (aimp_string_length(&first->mName) > 0 &&
            (target->name = aimp_string_dup(&first->mName)) == NULL)
            return aimp_out_of_memory(st);
        for (int k = 0; k < 3; k++)
            if (has[k] && /* zeros: a part without this stream does not move */
                (*ir_morph_stream(target, k) = calloc(n ? n : 1, 3 * sizeof(float))) == NULL)
                return aimp_out_of_memory(st);
    }
    size_t base = 0, bad = 0;
    for (uint32_t i = 0; i < count; i++) {
        const struct aiMesh *m = scene->mMeshes[meshes[i]];
        const struct aiVector3D *base_streams[3] = {m->mVertices, m->mNormals, m->mTangents};
        for (unsigned t = 0; t < targets; t++) {
            const struct aiAnimMesh *a = m->mAnimMeshes[t];
            const struct aiVector3D *streams[3] = {a->mVertices, a->mNormals, a->mTangents};
            for (int k = 0; k < 3; k++) {
                float *out = *ir_morph_stream(&mesh->targets[t], k);
                if (out == NULL || streams[k] == NULL || base_streams[k] == NULL)
                    continue; /* calloc'd: no change */
                for (unsigned v = 0; v < m->mNumVertices; v++) {
                    const double d[3] = {(double)streams[k][v].x - base_streams[k][v].x,
                                         (double)streams[k][v].y - base_streams[k][v].y,
                                         (double)streams[k][v].z - base_streams[k][v].z};
                    for (int c = 0; c < 3; c++) {
                        float value = (float)d[c];
                        bad += !isfinite(value);
                        out[3 * (base + v) + (size_t)c] = isfinite(value) ? value : 0.0f;
                    }
                }
            }
        }
        base += m->mNumVertices;
    }
    if (bad > 0)
        diag_warning(st->ctx->diag, st->path, 0,
                     "mesh '%s': %zu morph target delta components are not finite; set to 0", name,
                     bad);
    return true;
}

bool aimp_set_node_weights(aimp_state *st, uint32_t node_index, unsigned first_mesh) {
    ir_node *node = &st->out->nodes[node_index];
    if (node->mesh < 0 || st->out->meshes[node->mesh].target_count == 0)
        return true;
    uint32_t targets = st->out->meshes[node->mesh].target_count;
    const struct aiMesh *m = st->scene->mMeshes[first_mesh];
    free(node->weights);
    node->weights = calloc(targets, sizeof *node->weights);
    if (node->weights == NULL)
        return aimp_out_of_memory(st);
    node->weight_count = targets;
    for (uint32_t t = 0; t < targets && t < m->mNumAnimMeshes; t++)
        node->weights[t] = isfinite(m->mAnimMeshes[t]->mWeight) ? m->mAnimMeshes[t]->mWeight : 0.0f;
    return true;
}
