/*
 * assimp_nodes.c — assimp's node graph into ir_node (assimp_internal.h):
 * depth-first, parents first, each aiMatrix4x4 as a matrix and its TRS.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include <assimp/scene.h>

#include "common/checked.h"
#include "common/grow.h"
#include "cook/import/assimp_internal.h"

bool aimp_collect_nodes(aimp_state *st) {
    size_t cap = 64, stack_cap = 64, stack_count = 0;
    st->nodes = malloc(cap * sizeof *st->nodes);
    node_entry *stack = malloc(stack_cap * sizeof *stack);
    if (st->nodes == NULL || stack == NULL) {
        free(stack);
        return aimp_out_of_memory(st);
    }
    stack[stack_count++] = (node_entry){st->scene->mRootNode, -1};
    while (stack_count > 0) {
        node_entry entry = stack[--stack_count];
        if (st->node_count >= AIMP_MAX_NODES) {
            free(stack);
            diag_error(st->ctx->diag, st->path, 0, "more than %u nodes", AIMP_MAX_NODES);
            return false;
        }
        if (st->node_count == cap) {
            node_entry *grown =
                array_grow(st->nodes, &cap, (size_t)st->node_count + 1, sizeof *grown, 64);
            if (grown == NULL) {
                free(stack);
                return aimp_out_of_memory(st);
            }
            st->nodes = grown;
        }
        uint32_t index = st->node_count++;
        st->nodes[index] = entry;
        const struct aiNode *node = entry.node;
        if (node->mNumChildren > 0 && node->mChildren == NULL)
            continue;
        size_t need;
        if (!checked_add_size(stack_count, node->mNumChildren, &need)) {
            free(stack);
            return aimp_out_of_memory(st);
        }
        if (need > stack_cap) {
            node_entry *grown = array_grow(stack, &stack_cap, need, sizeof *grown, 64);
            if (grown == NULL) {
                free(stack);
                return aimp_out_of_memory(st);
            }
            stack = grown;
        }
        /* Pushed in reverse so the first child is visited first. */
        for (unsigned c = node->mNumChildren; c-- > 0;)
            if (node->mChildren[c] != NULL)
                stack[stack_count++] = (node_entry){node->mChildren[c], (int32_t)index};
    }
    free(stack);
    return true;
}

void aimp_quaternion_from_matrix(const double r[9], double q[4]) {
#define R(row, col) r[(col)*3 + (row)]
    double trace = R(0, 0) + R(1, 1) + R(2, 2);
    if (trace > 0.0) {
        double s = sqrt(trace + 1.0) * 2.0;
        q[3] = 0.25 * s;
        q[0] = (R(2, 1) - R(1, 2)) / s;
        q[1] = (R(0, 2) - R(2, 0)) / s;
        q[2] = (R(1, 0) - R(0, 1)) / s;
    } else if (R(0, 0) > R(1, 1) && R(0, 0) > R(2, 2)) {
        double s = sqrt(1.0 + R(0, 0) - R(1, 1) - R(2, 2)) * 2.0;
        q[3] = (R(2, 1) - R(1, 2)) / s;
        q[0] = 0.25 * s;
        q[1] = (R(0, 1) + R(1, 0)) / s;
        q[2] = (R(0, 2) + R(2, 0)) / s;
    } else if (R(1, 1) > R(2, 2)) {
        double s = sqrt(1.0 + R(1, 1) - R(0, 0) - R(2, 2)) * 2.0;
        q[3] = (R(0, 2) - R(2, 0)) / s;
        q[0] = (R(0, 1) + R(1, 0)) / s;
        q[1] = 0.25 * s;
        q[2] = (R(1, 2) + R(2, 1)) / s;
    } else {
        double s = sqrt(1.0 + R(2, 2) - R(0, 0) - R(1, 1)) * 2.0;
        q[3] = (R(1, 0) - R(0, 1)) / s;
        q[0] = (R(0, 2) + R(2, 0)) / s;
        q[1] = (R(1, 2) + R(2, 1)) / s;
        q[2] = 0.25 * s;
    }
#undef R
    double length = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    double sign = q[3] < 0.0 ? -1.0 : 1.0; /* one of q, -q: w >= 0 */
    for (int k = 0; k < 4; k++)
        q[k] = length > 0.0 ? sign * q[k] / length : (k == 3 ? 1.0 : 0.0);
}

static void set_transform(aimp_state *st, ir_node *node, const struct aiMatrix4x4 *t) {
    /* aiMatrix4x4 is row-major (a1..a4 is the first row, translation in a4,
     * b4, c4); the IR's matrix is column-major. */
    const double m[16] = {t->a1, t->b1, t->c1, t->d1, t->a2, t->b2, t->c2, t->d2,
                          t->a3, t->b3, t->c3, t->d3, t->a4, t->b4, t->c4, t->d4};
    for (int i = 0; i < 16; i++) {
        if (!isfinite(m[i])) {
            if (!st->warned_matrix)
                diag_warning(st->ctx->diag, st->path, 0,
                             "node '%s' has a transform that is not finite; identity used",
                             node->name ? node->name : "");
            st->warned_matrix = true;
            return; /* ir_node_init's identity */
        }
    }
    for (int i = 0; i < 16; i++)
        node->matrix[i] = (float)m[i];
    for (int k = 0; k < 3; k++)
        node->translation[k] = (float)m[12 + k];

    double scale[3], r[9];
    for (int c = 0; c < 3; c++)
        scale[c] =
            sqrt(m[4 * c] * m[4 * c] + m[4 * c + 1] * m[4 * c + 1] + m[4 * c + 2] * m[4 * c + 2]);
    double det = m[0] * (m[5] * m[10] - m[6] * m[9]) - m[4] * (m[1] * m[10] - m[2] * m[9]) +
                 m[8] * (m[1] * m[6] - m[2] * m[5]);
    if (det < 0.0)
        scale[0] = -scale[0];
    bool degenerate = scale[0] == 0.0 || scale[1] == 0.0 || scale[2] == 0.0;
    double q[4] = {0.0, 0.0, 0.0, 1.0};
    bool exact = m[3] == 0.0 && m[7] == 0.0 && m[11] == 0.0 && m[15] == 1.0;
    if (!degenerate) {
        for (int c = 0; c < 3; c++)
            for (int row = 0; row < 3; row++)
                r[3 * c + row] = m[4 * c + row] / scale[c];
        /* Orthogonal columns, or the matrix has shear. */
        for (int a = 0; a < 3; a++)
            for (int b = a + 1; b < 3; b++) {
                double dot =
                    r[3 * a] * r[3 * b] + r[3 * a + 1] * r[3 * b + 1] + r[3 * a + 2] * r[3 * b + 2];
                if (fabs(dot) > 1e-4)
                    exact = false;
            }
        aimp_quaternion_from_matrix(r, q);
    }
    for (int k = 0; k < 3; k++) {
        /* A column of finite floats can be longer than FLT_MAX: the matrix
         * is kept, the scale is the largest float (approximate). */
        if (fabs(scale[k]) > FLT_MAX) {
            scale[k] = copysign(FLT_MAX, scale[k]);
            exact = false;
        }
        node->scale[k] = (float)scale[k];
    }
    for (int k = 0; k < 4; k++)
        node->rotation[k] = (float)q[k];
    if (!exact && !st->warned_shear) {
        diag_warning(st->ctx->diag, st->path, 0,
                     "node '%s' has a transform with shear or projection; its matrix is kept and "
                     "its translation/rotation/scale are approximate",
                     node->name ? node->name : "");
        st->warned_shear = true;
    }
}

bool aimp_build_nodes(aimp_state *st) {
    ir_asset *out = st->out;
    out->nodes = calloc(st->node_count, sizeof *out->nodes);
    if (out->nodes == NULL)
        return aimp_out_of_memory(st);
    out->node_count = st->node_count;
    for (uint32_t i = 0; i < st->node_count; i++) {
        ir_node *node = &out->nodes[i];
        ir_node_init(node);
        const struct aiNode *source = st->nodes[i].node;
        node->parent = st->nodes[i].parent;
        node->source = (int32_t)i; /* the depth-first position: assimp numbers no nodes */
        if (aimp_string_length(&source->mName) > 0) {
            node->name = aimp_string_dup(&source->mName);
            if (node->name == NULL)
                return aimp_out_of_memory(st);
        }
        set_transform(st, node, &source->mTransformation);
    }
    return true;
}
