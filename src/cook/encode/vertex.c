/* vertex.c — packing of vertex attributes into their cooked encodings. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cook/encode/encode.h"

static int16_t snorm16(float value) {
    float clamped = value < -1.0f ? -1.0f : (value > 1.0f ? 1.0f : value);
    return (int16_t)lrintf(clamped * 32767.0f);
}

static float sign_not_zero(float value) {
    return value >= 0.0f ? 1.0f : -1.0f;
}

/* Octahedral mapping (Meyer et al. 2010, "On floating-point normal vectors"):
 * project onto the octahedron |x|+|y|+|z| = 1, fold the lower half over the
 * diagonals, store x and y. Decoded by kiln_oct_decode. */
static void oct_project(const float v[3], float *out_x, float *out_y) {
    float l1 = fabsf(v[0]) + fabsf(v[1]) + fabsf(v[2]);
    if (!(l1 > 0.0f) || !isfinite(l1)) {
        *out_x = 0.0f; /* not a direction: store +Z */
        *out_y = 0.0f;
        return;
    }
    float x = v[0] / l1, y = v[1] / l1;
    if (v[2] < 0.0f) {
        float folded_x = (1.0f - fabsf(y)) * sign_not_zero(x);
        float folded_y = (1.0f - fabsf(x)) * sign_not_zero(y);
        x = folded_x;
        y = folded_y;
    }
    *out_x = x;
    *out_y = y;
}

void encode_oct_snorm16(const float v[3], int16_t out[2]) {
    float x, y;
    oct_project(v, &x, &y);
    out[0] = snorm16(x);
    out[1] = snorm16(y);
}

/* y' = w * (0.5 + 0.5 * y) maps y in [-1, 1] to [0.5 * w .. w]'s half of the
 * range, so the sign of y' carries w at the cost of one bit of y. y' is never
 * stored as 0, which has no sign. */
void encode_oct_signed_snorm16(const float v[3], float w, int16_t out[2]) {
    float x, y;
    oct_project(v, &x, &y);
    float sign = w < 0.0f ? -1.0f : 1.0f;
    int16_t packed = snorm16(sign * (0.5f + 0.5f * y));
    if (packed == 0)
        packed = (int16_t)sign;
    out[0] = snorm16(x);
    out[1] = packed;
}

/* The cooked vertex layout: which IR streams are present decides which
 * attributes the file declares; the descriptor names each, so engines read the
 * layout instead of assuming one. */

static void layout_add(encoded_vertices *layout, kiln_vertex_semantic semantic,
                       kiln_vertex_format format) {
    kiln_vertex_attribute *a = &layout->attributes[layout->attribute_count++];
    a->semantic = (uint16_t)semantic;
    a->format = (uint16_t)format;
    a->stream = 0;
    a->offset = (uint16_t)layout->stride;
    layout->stride += kiln_vertex_format_size(format);
}

static void choose_layout(const ir_mesh *mesh, bool quantize_positions, encoded_vertices *layout) {
    layout_add(layout, KILN_SEMANTIC_POSITION,
               quantize_positions ? KILN_VFORMAT_UNORM16X4 : KILN_VFORMAT_F32X3);
    if (mesh->normals)
        layout_add(layout, KILN_SEMANTIC_NORMAL, KILN_VFORMAT_OCT_SNORM16X2);
    if (mesh->tangents)
        layout_add(layout, KILN_SEMANTIC_TANGENT, KILN_VFORMAT_OCT_SIGNED_SNORM16X2);
    if (mesh->texcoords[0])
        layout_add(layout, KILN_SEMANTIC_TEXCOORD0, KILN_VFORMAT_F32X2);
    if (mesh->texcoords[1])
        layout_add(layout, KILN_SEMANTIC_TEXCOORD1, KILN_VFORMAT_F32X2);
    if (mesh->colors)
        layout_add(layout, KILN_SEMANTIC_COLOR0, KILN_VFORMAT_UNORM16X4);
    if (mesh->joints && mesh->weights) {
        layout_add(layout, KILN_SEMANTIC_JOINTS0, KILN_VFORMAT_U16X4);
        layout_add(layout, KILN_SEMANTIC_WEIGHTS0, KILN_VFORMAT_UNORM16X4);
        if (mesh->joints1 && mesh->weights1) {
            layout_add(layout, KILN_SEMANTIC_JOINTS1, KILN_VFORMAT_U16X4);
            layout_add(layout, KILN_SEMANTIC_WEIGHTS1, KILN_VFORMAT_UNORM16X4);
        }
    }
}

static uint16_t unorm16(float value) {
    float clamped = value < 0.0f ? 0.0f : (value > 1.0f ? 1.0f : value);
    return (uint16_t)lrintf(clamped * 65535.0f);
}

/* A vertex's four or eight weights as unorm16 summing to exactly 65535: each
 * over their sum (in double) rounded to the nearest step, the residue (at most half a step per
 * weight) given to the largest (the first of equals), so a shader's sum is exactly 1. */
void encode_skin_weights(const float *weights, int count, uint16_t *out) {
    double total = 0.0;
    for (int k = 0; k < count; k++)
        total += weights[k] > 0.0f ? (double)weights[k] : 0.0;
    int32_t sum = 0;
    int largest = 0;
    for (int k = 0; k < count; k++) {
        double w = weights[k] > 0.0f && total > 0.0 ? (double)weights[k] / total : 0.0;
        out[k] = (uint16_t)lround(w * 65535.0);
        sum += out[k];
        if (weights[k] > weights[largest])
            largest = k;
    }
    if (sum > 0) /* 0: no weight at all, which binding ruled out; left as it is */
        out[largest] = (uint16_t)((int32_t)out[largest] + (65535 - sum));
}

/* Positions as unorm16 over the mesh's box: p = offset + scale * q / 65535. */
typedef struct position_quantizer {
    float offset[3];
    float scale[3];
} position_quantizer;

static void quantize_position(const position_quantizer *q, const float p[3], uint16_t out[4]) {
    for (int k = 0; k < 3; k++)
        out[k] = q->scale[k] > 0.0f ? unorm16((p[k] - q->offset[k]) / q->scale[k]) : 0;
    out[3] = 0;
}

static void pack_vertex(const ir_mesh *mesh, const encoded_vertices *layout,
                        const position_quantizer *quantizer, uint32_t v, uint8_t *out) {
    for (uint32_t i = 0; i < layout->attribute_count; i++) {
        const kiln_vertex_attribute *a = &layout->attributes[i];
        uint8_t *dst = out + a->offset;
        switch ((kiln_vertex_semantic)a->semantic) {
        case KILN_SEMANTIC_POSITION:
            if (a->format == KILN_VFORMAT_UNORM16X4) {
                uint16_t q[4];
                quantize_position(quantizer, mesh->positions + 3 * (size_t)v, q);
                memcpy(dst, q, 8);
            } else {
                memcpy(dst, mesh->positions + 3 * (size_t)v, 12);
            }
            break;
        case KILN_SEMANTIC_NORMAL: {
            int16_t oct[2];
            encode_oct_snorm16(mesh->normals + 3 * (size_t)v, oct);
            memcpy(dst, oct, 4);
            break;
        }
        case KILN_SEMANTIC_TANGENT: {
            const float *t = mesh->tangents + 4 * (size_t)v;
            int16_t oct[2];
            encode_oct_signed_snorm16(t, t[3], oct);
            memcpy(dst, oct, 4);
            break;
        }
        case KILN_SEMANTIC_TEXCOORD0:
        case KILN_SEMANTIC_TEXCOORD1:
            memcpy(dst, mesh->texcoords[a->semantic - KILN_SEMANTIC_TEXCOORD0] + 2 * (size_t)v, 8);
            break;
        case KILN_SEMANTIC_COLOR0: {
            uint16_t rgba[4];
            for (int k = 0; k < 4; k++)
                rgba[k] = unorm16(mesh->colors[4 * (size_t)v + (size_t)k]);
            memcpy(dst, rgba, 8);
            break;
        }
        case KILN_SEMANTIC_JOINTS0:
            memcpy(dst, mesh->joints + 4 * (size_t)v, 8);
            break;
        case KILN_SEMANTIC_JOINTS1:
            memcpy(dst, mesh->joints1 + 4 * (size_t)v, 8);
            break;
        case KILN_SEMANTIC_WEIGHTS0:
        case KILN_SEMANTIC_WEIGHTS1: {
            float all[8];
            uint16_t weights[8];
            int count = mesh->weights1 != NULL ? 8 : 4;
            memcpy(all, mesh->weights + 4 * (size_t)v, 4 * sizeof(float));
            if (count == 8)
                memcpy(all + 4, mesh->weights1 + 4 * (size_t)v, 4 * sizeof(float));
            encode_skin_weights(all, count, weights);
            memcpy(dst, weights + (a->semantic == KILN_SEMANTIC_WEIGHTS1 ? 4 : 0), 8);
            break;
        }
        default:
            break;
        }
    }
}

/* Vertices packed block by block on the asset's threads (disjoint outputs). */
#define PACK_BLOCK_VERTICES 65536u

typedef struct pack_job {
    const ir_mesh *mesh;
    const encoded_vertices *layout;
    const position_quantizer *quantizer;
    uint8_t *vertices;
} pack_job;

static void pack_block(void *ctx, uint32_t block) {
    const pack_job *job = ctx;
    uint32_t first = block * PACK_BLOCK_VERTICES;
    uint32_t end = job->mesh->vertex_count - first < PACK_BLOCK_VERTICES
                       ? job->mesh->vertex_count
                       : first + PACK_BLOCK_VERTICES;
    for (uint32_t v = first; v < end; v++)
        pack_vertex(job->mesh, job->layout, job->quantizer, v,
                    job->vertices + (size_t)v * job->layout->stride);
}

bool encode_mesh_vertices(const ir_mesh *mesh, bool quantize_positions, unsigned threads,
                          encoded_vertices *out) {
    memset(out, 0, sizeof *out);
    choose_layout(mesh, quantize_positions, out);
    /* Over the box of level 0: every level lies within it. */
    uint32_t level0_count = 0;
    for (uint32_t s = 0; s < mesh->submesh_count; s++)
        level0_count += mesh->submeshes[s].index_count;
    geometry_bounds_on(threads, mesh->positions, mesh->vertex_count, mesh->indices, level0_count,
                       out->aabb_min, out->aabb_max, out->sphere);
    position_quantizer quantizer = {{0, 0, 0}, {1, 1, 1}};
    if (out->attributes[0].format == KILN_VFORMAT_UNORM16X4)
        for (int k = 0; k < 3; k++) {
            quantizer.offset[k] = out->aabb_min[k];
            quantizer.scale[k] = out->aabb_max[k] - out->aabb_min[k];
        }
    memcpy(out->position_offset, quantizer.offset, sizeof out->position_offset);
    memcpy(out->position_scale, quantizer.scale, sizeof out->position_scale);
    out->size = (size_t)mesh->vertex_count * out->stride;
    out->data = calloc(out->size ? out->size : 1, 1);
    if (out->data == NULL)
        return false;
    pack_job job = {mesh, out, &quantizer, out->data};
    uint32_t blocks =
        (uint32_t)(((uint64_t)mesh->vertex_count + PACK_BLOCK_VERTICES - 1) / PACK_BLOCK_VERTICES);
    parallel_for(threads, blocks, pack_block, &job);
    return true;
}

void encoded_vertices_free(encoded_vertices *vertices) {
    free(vertices->data);
    memset(vertices, 0, sizeof *vertices);
}

bool encoded_vertices_to_streams(encoded_vertices *vertices, uint32_t vertex_count) {
    size_t padded[KILN_SEMANTIC_COUNT_];
    size_t total = 0;
    for (uint32_t i = 0; i < vertices->attribute_count; i++) {
        size_t size = kiln_vertex_format_size((kiln_vertex_format)vertices->attributes[i].format);
        padded[i] = ((size_t)vertex_count * size + 15u) & ~(size_t)15u;
        total += padded[i];
    }
    uint8_t *streams = calloc(total ? total : 1, 1); /* zero padding */
    if (streams == NULL)
        return false;
    uint8_t *stream = streams;
    for (uint32_t i = 0; i < vertices->attribute_count; i++) {
        kiln_vertex_attribute *a = &vertices->attributes[i];
        size_t size = kiln_vertex_format_size((kiln_vertex_format)a->format);
        for (uint32_t v = 0; v < vertex_count; v++)
            memcpy(stream + (size_t)v * size,
                   vertices->data + (size_t)v * vertices->stride + a->offset, size);
        a->stream = (uint16_t)i;
        a->offset = 0;
        stream += padded[i];
    }
    free(vertices->data);
    vertices->data = streams;
    vertices->size = total;
    vertices->streams = true;
    return true;
}
