/*
 * ir_wire.c — an importer's ir_asset as bytes, to bring it back from a child
 * process (isolate.h), and the little-endian primitives of that protocol.
 *
 * The reader treats its input as hostile: the child ran a library on an
 * untrusted file and may have been corrupted by it. Every count is bounded by
 * the bytes left before anything is allocated for it, every index and
 * reference is checked, every float must be finite and image paths must be
 * plain paths relative to the input root; what passes holds the invariants of
 * ir.h that later stages index memory by.
 *
 * Layout, version 7 (u32/u64 little-endian, f32 as its bits, strings as a u32
 * length and bytes with UINT32_MAX for NULL):
 *   u32 version, u32 mesh_count, material_count, node_count, image_count
 *   mesh:     string name, u32 vertex_count, u32 streams (STREAM_* bits),
 *             each stream present in bit order (positions 3 f32, normals 3,
 *             tangents 4, texcoords 0 and 1 2 each, colors 4, joints 4 u16,
 *             weights 4 f32, joints1 4 u16, weights1 4 f32 per vertex),
 *             u32 target_count, u32 target_attributes (bits 0 positions,
 *             1 normals, 2 tangents; 0 exactly without targets), per
 *             target string name and each attribute's deltas in bit order
 *             (3 f32 per vertex),
 *             u32 index_count, indices,
 *             u32 submesh_count, per submesh index_offset, index_count,
 *             material, topology, string name
 *   material: string name, f32 base_color[4] metallic roughness emissive[3]
 *             normal_scale occlusion_strength, u32 alpha_mode, f32
 *             alpha_cutoff, u8 double_sided, u8 unlit, u8 unnamed, f32 specular_color[3]
 *             specular, per slot (IR_SLOT_COUNT) i32 image, u32 texcoord, f32
 *             offset[2] rotation scale[2], u8 wrap_s wrap_t mag_filter
 *             min_filter mip_filter, string dropped_extensions
 *   node:     string name, i32 parent, mesh, skin, f32 translation[3]
 *             rotation[4] scale[3] matrix[16], i32 source, string extras,
 *             i32 camera, i32 light, u32 instance_offset, u32 instance_count,
 *             u32 weight_count (its mesh's target count) and the weights
 *   image:    string name, string path, string label, u8 embedded, then
 *             (embedded) a u64 size and the bytes
 *   then:     u32 scene_count, u32 default_scene, per scene string name,
 *             u32 root_count and the roots (node indices)
 *   then:     u32 camera_count, per camera string name, u32 type, f32 yfov
 *             aspect xmag ymag znear zfar; u32 light_count, per light string
 *             name, u32 type, f32 color[3] intensity range inner_cone
 *             outer_cone; u32 instance_count, per instance f32
 *             translation[3] rotation[4] scale[3]
 *   then:     u32 skin_count, per skin string name, i32 skeleton, i32
 *             source, u32 joint_count, the joints (node indices), 16 f32
 *             per joint (inverse bind matrices); node.skin indexes them
 *   then:     u32 animation_count, per clip string name, string dropped,
 *             u32 sampler_count, per sampler u32 key_count, u32 components,
 *             u32 interpolation, key_count f32 times, then key_count x
 *             components (x3 for CUBICSPLINE) f32 values; u32 channel_count,
 *             per channel u32 node, u32 path, u32 sampler
 * Version 3 added cameras, lights and instances, version 4 joints1/weights1
 * and the skins, version 5 morph targets and node weights, version 6 the
 * animations.
 * LODs and meshlets are not part of it: importers do not build them.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/checked.h"
#include "common/path.h"
#include "cook/import/isolate.h"

#define STREAM_POSITIONS (1u << 0)
#define STREAM_NORMALS (1u << 1)
#define STREAM_TANGENTS (1u << 2)
#define STREAM_TEXCOORD0 (1u << 3)
#define STREAM_TEXCOORD1 (1u << 4)
#define STREAM_COLORS (1u << 5)
#define STREAM_JOINTS (1u << 6)
#define STREAM_WEIGHTS (1u << 7)
#define STREAM_JOINTS1 (1u << 8)
#define STREAM_WEIGHTS1 (1u << 9)
#define STREAM_ALL ((1u << 10) - 1)

#define WIRE_NULL_STRING UINT32_MAX

/* Smallest encodings, to bound counts by the bytes left. */
#define MESH_MIN_BYTES                                                                             \
    28u /* name, vertex_count, streams, target_count and attributes, index_count, submesh_count */
#define MATERIAL_MIN_BYTES (4u + 11u * 4u + 8u + 3u + 16u + IR_SLOT_COUNT * 33u + 4u)
#define NODE_MIN_BYTES (4u + 12u + 26u * 4u + 8u + 16u + 4u)
#define CAMERA_BYTES (4u + 4u + 6u * 4u) /* with an empty name */
#define LIGHT_BYTES (4u + 4u + 7u * 4u)
#define INSTANCE_BYTES (10u * 4u)
#define SCENE_MIN_BYTES 8u
#define SKIN_MIN_BYTES (4u + 12u + 4u + 64u)
#define IMAGE_MIN_BYTES 13u
#define SUBMESH_BYTES 20u
#define CLIP_MIN_BYTES 16u
#define SAMPLER_MIN_BYTES 20u /* one key of one component */
#define CHANNEL_BYTES 12u

/* ---------------------------------------------------------------------------
 * Primitives
 * ------------------------------------------------------------------------- */

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define WIRE_HOST_IS_LITTLE_ENDIAN 1
#else
#define WIRE_HOST_IS_LITTLE_ENDIAN 0
#endif

/* `count` values of `width` bytes (2 or 4) as little-endian bytes. */
static void put_words(bytebuf *out, const void *values, size_t count, size_t width) {
    size_t bytes;
    if (!checked_mul_size(count, width, &bytes)) {
        out->failed = true;
        return;
    }
    if (WIRE_HOST_IS_LITTLE_ENDIAN) {
        bytebuf_append(out, values, bytes);
        return;
    }
    const uint8_t *p = values;
    for (size_t i = 0; i < count; i++, p += width)
        for (size_t b = width; b-- > 0;)
            bytebuf_append(out, p + b, 1);
}

static bool take(wire_reader *in, size_t bytes, const uint8_t **at) {
    if (in->failed || bytes > in->size - in->pos) {
        in->failed = true;
        return false;
    }
    *at = in->data + in->pos;
    in->pos += bytes;
    return true;
}

/* `values` holds count * width bytes; zeros after a short read. */
static void get_words(wire_reader *in, void *values, size_t count, size_t width) {
    size_t bytes = count * width;
    const uint8_t *at;
    if (!take(in, bytes, &at)) {
        memset(values, 0, bytes);
        return;
    }
    if (WIRE_HOST_IS_LITTLE_ENDIAN) {
        memcpy(values, at, bytes);
        return;
    }
    uint8_t *p = values;
    for (size_t i = 0; i < count; i++, p += width, at += width)
        for (size_t b = 0; b < width; b++)
            p[width - 1 - b] = at[b];
}

void wire_put_u8(bytebuf *out, uint8_t value) {
    bytebuf_append(out, &value, 1);
}

void wire_put_u32(bytebuf *out, uint32_t value) {
    put_words(out, &value, 1, 4);
}

void wire_put_u64(bytebuf *out, uint64_t value) {
    wire_put_u32(out, (uint32_t)value);
    wire_put_u32(out, (uint32_t)(value >> 32));
}

void wire_put_f32s(bytebuf *out, const float *values, size_t count) {
    put_words(out, values, count, 4);
}

void wire_put_string(bytebuf *out, const char *text) {
    if (text == NULL) {
        wire_put_u32(out, WIRE_NULL_STRING);
        return;
    }
    size_t length = strlen(text);
    if (length >= WIRE_NULL_STRING) {
        out->failed = true;
        return;
    }
    wire_put_u32(out, (uint32_t)length);
    bytebuf_append(out, text, length);
}

void wire_put_blob(bytebuf *out, const void *data, size_t size) {
    wire_put_u64(out, size);
    bytebuf_append(out, data, size);
}

uint8_t wire_get_u8(wire_reader *in) {
    const uint8_t *at;
    return take(in, 1, &at) ? at[0] : 0;
}

uint32_t wire_get_u32(wire_reader *in) {
    uint32_t value = 0;
    get_words(in, &value, 1, 4);
    return in->failed ? 0 : value;
}

uint64_t wire_get_u64(wire_reader *in) {
    uint64_t low = wire_get_u32(in);
    uint64_t high = wire_get_u32(in);
    return low | high << 32;
}

void wire_get_f32s(wire_reader *in, float *values, size_t count) {
    get_words(in, values, count, 4);
}

size_t wire_left(const wire_reader *in) {
    return in->failed ? 0 : in->size - in->pos;
}

uint32_t wire_get_count(wire_reader *in, size_t min_item_bytes) {
    uint32_t count = wire_get_u32(in);
    if (!in->failed && count > wire_left(in) / min_item_bytes)
        in->failed = true;
    return in->failed ? 0 : count;
}

bool wire_get_string(wire_reader *in, char **text) {
    *text = NULL;
    uint32_t length = wire_get_u32(in);
    if (in->failed || length == WIRE_NULL_STRING)
        return !in->failed;
    const uint8_t *at;
    if (!take(in, length, &at) || memchr(at, '\0', length) != NULL) {
        in->failed = true;
        return false;
    }
    *text = malloc((size_t)length + 1);
    if (*text == NULL)
        return false;
    memcpy(*text, at, length);
    (*text)[length] = '\0';
    return true;
}

bool wire_get_blob(wire_reader *in, const uint8_t **data, size_t *size) {
    *data = NULL;
    *size = 0;
    uint64_t length = wire_get_u64(in);
    if (in->failed || length > wire_left(in)) {
        in->failed = true;
        return false;
    }
    *size = (size_t)length;
    return take(in, *size, data);
}

/* ---------------------------------------------------------------------------
 * Writing
 * ------------------------------------------------------------------------- */

static void put_i32(bytebuf *out, int32_t value) {
    wire_put_u32(out, (uint32_t)value);
}

static uint32_t mesh_streams(const ir_mesh *mesh) {
    return (mesh->positions ? STREAM_POSITIONS : 0) | (mesh->normals ? STREAM_NORMALS : 0) |
           (mesh->tangents ? STREAM_TANGENTS : 0) | (mesh->texcoords[0] ? STREAM_TEXCOORD0 : 0) |
           (mesh->texcoords[1] ? STREAM_TEXCOORD1 : 0) | (mesh->colors ? STREAM_COLORS : 0) |
           (mesh->joints ? STREAM_JOINTS : 0) | (mesh->weights ? STREAM_WEIGHTS : 0) |
           (mesh->joints1 ? STREAM_JOINTS1 : 0) | (mesh->weights1 ? STREAM_WEIGHTS1 : 0);
}

static bool write_mesh(const ir_mesh *mesh, bytebuf *out) {
    if (mesh->lods != NULL || mesh->lod_count != 0 || mesh->meshlets != NULL ||
        mesh->meshlet_count != 0 || mesh->meshlet_vertices != NULL ||
        mesh->meshlet_triangles != NULL)
        return false; /* built by process steps, never by an importer */
    size_t n = mesh->vertex_count;
    wire_put_string(out, mesh->name);
    wire_put_u32(out, mesh->vertex_count);
    wire_put_u32(out, mesh_streams(mesh));
    const float *floats[] = {mesh->positions,    mesh->normals,      mesh->tangents,
                             mesh->texcoords[0], mesh->texcoords[1], mesh->colors};
    const size_t widths[] = {3, 3, 4, 2, 2, 4};
    for (size_t s = 0; s < sizeof widths / sizeof widths[0]; s++)
        if (floats[s] != NULL)
            wire_put_f32s(out, floats[s], n * widths[s]);
    if (mesh->joints != NULL)
        put_words(out, mesh->joints, n * 4, 2);
    if (mesh->weights != NULL)
        wire_put_f32s(out, mesh->weights, n * 4);
    if (mesh->joints1 != NULL)
        put_words(out, mesh->joints1, n * 4, 2);
    if (mesh->weights1 != NULL)
        wire_put_f32s(out, mesh->weights1, n * 4);
    uint32_t attributes = ir_mesh_morph_attributes(mesh);
    wire_put_u32(out, attributes != 0 ? mesh->target_count : 0);
    wire_put_u32(out, attributes);
    for (uint32_t t = 0; attributes != 0 && t < mesh->target_count; t++) {
        ir_morph_target *target = &mesh->targets[t];
        wire_put_string(out, target->name);
        for (int k = 0; k < 3; k++) {
            float *stream = *ir_morph_stream(target, k);
            if ((attributes >> k & 1u) != 0 && stream == NULL)
                return false; /* ir.h: every target has the same streams */
            if ((attributes >> k & 1u) != 0)
                wire_put_f32s(out, stream, n * 3);
        }
    }
    wire_put_u32(out, mesh->index_count);
    put_words(out, mesh->indices, mesh->index_count, 4);
    wire_put_u32(out, mesh->submesh_count);
    for (uint32_t s = 0; s < mesh->submesh_count; s++) {
        const ir_submesh *sub = &mesh->submeshes[s];
        if (sub->meshlet_offset != 0 || sub->meshlet_count != 0)
            return false;
        wire_put_u32(out, sub->index_offset);
        wire_put_u32(out, sub->index_count);
        wire_put_u32(out, sub->material);
        wire_put_u32(out, (uint32_t)sub->topology);
        wire_put_string(out, sub->name);
    }
    return true;
}

static void write_material(const ir_material *m, bytebuf *out) {
    wire_put_string(out, m->name);
    wire_put_f32s(out, m->base_color, 4);
    const float scalars[] = {m->metallic, m->roughness};
    wire_put_f32s(out, scalars, 2);
    wire_put_f32s(out, m->emissive, 3);
    const float scales[] = {m->normal_scale, m->occlusion_strength};
    wire_put_f32s(out, scales, 2);
    wire_put_u32(out, (uint32_t)m->alpha_mode);
    wire_put_f32s(out, &m->alpha_cutoff, 1);
    wire_put_u8(out, m->double_sided);
    wire_put_u8(out, m->unlit);
    wire_put_u8(out, m->unnamed);
    wire_put_f32s(out, m->specular_color, 3);
    wire_put_f32s(out, &m->specular, 1);
    for (int s = 0; s < IR_SLOT_COUNT; s++) {
        const ir_texture_ref *t = &m->textures[s];
        put_i32(out, t->image);
        wire_put_u32(out, t->texcoord);
        wire_put_f32s(out, t->offset, 2);
        wire_put_f32s(out, &t->rotation, 1);
        wire_put_f32s(out, t->scale, 2);
        const uint8_t sampler[] = {t->wrap_s, t->wrap_t, t->mag_filter, t->min_filter,
                                   t->mip_filter};
        for (size_t k = 0; k < sizeof sampler; k++)
            wire_put_u8(out, sampler[k]);
    }
    wire_put_string(out, m->dropped_extensions);
}

static void write_node(const ir_node *node, bytebuf *out) {
    wire_put_string(out, node->name);
    put_i32(out, node->parent);
    put_i32(out, node->mesh);
    put_i32(out, node->skin);
    wire_put_f32s(out, node->translation, 3);
    wire_put_f32s(out, node->rotation, 4);
    wire_put_f32s(out, node->scale, 3);
    wire_put_f32s(out, node->matrix, 16);
    put_i32(out, node->source);
    wire_put_string(out, node->extras);
    put_i32(out, node->camera);
    put_i32(out, node->light);
    wire_put_u32(out, node->instance_offset);
    wire_put_u32(out, node->instance_count);
    wire_put_u32(out, node->weight_count);
    wire_put_f32s(out, node->weights, node->weight_count);
}

static void write_image(const ir_image *image, bytebuf *out) {
    wire_put_string(out, image->name);
    wire_put_string(out, image->path);
    wire_put_string(out, image->label);
    wire_put_u8(out, image->bytes != NULL);
    if (image->bytes != NULL)
        wire_put_blob(out, image->bytes, image->size);
}

bool ir_wire_write(const ir_asset *asset, bytebuf *out) {
    wire_put_u32(out, IR_WIRE_VERSION);
    wire_put_u32(out, asset->mesh_count);
    wire_put_u32(out, asset->material_count);
    wire_put_u32(out, asset->node_count);
    wire_put_u32(out, asset->image_count);
    for (uint32_t i = 0; i < asset->mesh_count; i++)
        if (!write_mesh(&asset->meshes[i], out))
            return false;
    for (uint32_t i = 0; i < asset->material_count; i++)
        write_material(&asset->materials[i], out);
    for (uint32_t i = 0; i < asset->node_count; i++)
        write_node(&asset->nodes[i], out);
    for (uint32_t i = 0; i < asset->image_count; i++)
        write_image(&asset->images[i], out);
    wire_put_u32(out, asset->scene_count);
    wire_put_u32(out, asset->default_scene);
    for (uint32_t i = 0; i < asset->scene_count; i++) {
        wire_put_string(out, asset->scenes[i].name);
        wire_put_u32(out, asset->scenes[i].root_count);
        put_words(out, asset->scenes[i].roots, asset->scenes[i].root_count, 4);
    }
    wire_put_u32(out, asset->camera_count);
    for (uint32_t i = 0; i < asset->camera_count; i++) {
        const ir_camera *c = &asset->cameras[i];
        const float values[6] = {c->yfov, c->aspect, c->xmag, c->ymag, c->znear, c->zfar};
        wire_put_string(out, c->name);
        wire_put_u32(out, (uint32_t)c->type);
        wire_put_f32s(out, values, 6);
    }
    wire_put_u32(out, asset->light_count);
    for (uint32_t i = 0; i < asset->light_count; i++) {
        const ir_light *l = &asset->lights[i];
        wire_put_string(out, l->name);
        wire_put_u32(out, (uint32_t)l->type);
        wire_put_f32s(out, l->color, 3);
        const float values[4] = {l->intensity, l->range, l->inner_cone, l->outer_cone};
        wire_put_f32s(out, values, 4);
    }
    wire_put_u32(out, asset->instance_count);
    for (uint32_t i = 0; i < asset->instance_count; i++) {
        const ir_instance *t = &asset->instances[i];
        wire_put_f32s(out, t->translation, 3);
        wire_put_f32s(out, t->rotation, 4);
        wire_put_f32s(out, t->scale, 3);
    }
    wire_put_u32(out, asset->skin_count);
    for (uint32_t i = 0; i < asset->skin_count; i++) {
        const ir_skin *skin = &asset->skins[i];
        wire_put_string(out, skin->name);
        put_i32(out, skin->skeleton);
        put_i32(out, skin->source);
        wire_put_u32(out, skin->joint_count);
        put_words(out, skin->joints, skin->joint_count, 4);
        wire_put_f32s(out, skin->inverse_bind, (size_t)skin->joint_count * 16);
    }
    wire_put_u32(out, asset->animation_count);
    for (uint32_t i = 0; i < asset->animation_count; i++) {
        const ir_animation *clip = &asset->animations[i];
        wire_put_string(out, clip->name);
        wire_put_string(out, clip->dropped);
        wire_put_u32(out, clip->sampler_count);
        for (uint32_t s = 0; s < clip->sampler_count; s++) {
            const ir_anim_sampler *sampler = &clip->samplers[s];
            size_t groups = sampler->interpolation == IR_INTERP_CUBICSPLINE ? 3 : 1;
            wire_put_u32(out, sampler->key_count);
            wire_put_u32(out, sampler->components);
            wire_put_u32(out, (uint32_t)sampler->interpolation);
            wire_put_f32s(out, sampler->times, sampler->key_count);
            wire_put_f32s(out, sampler->values,
                          (size_t)sampler->key_count * sampler->components * groups);
        }
        wire_put_u32(out, clip->channel_count);
        for (uint32_t c = 0; c < clip->channel_count; c++) {
            wire_put_u32(out, clip->channels[c].node);
            wire_put_u32(out, (uint32_t)clip->channels[c].path);
            wire_put_u32(out, clip->channels[c].sampler);
        }
    }
    return !out->failed;
}

/* ---------------------------------------------------------------------------
 * Reading
 * ------------------------------------------------------------------------- */

typedef struct wire_decoder {
    wire_reader *in;
    const ir_asset *out; /* the counts references are checked against */
    char *reason;
    size_t reason_size;
    bool bad; /* reason is set */
} wire_decoder;

static bool reject(wire_decoder *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static bool reject(wire_decoder *d, const char *fmt, ...) {
    if (!d->bad) {
        va_list args;
        va_start(args, fmt);
        vsnprintf(d->reason, d->reason_size, fmt, args);
        va_end(args);
        d->bad = true;
    }
    return false;
}

/* After a group of reads: a short read, or no memory for a copy. */
static bool read_ok(wire_decoder *d, bool allocated, const char *what) {
    if (d->in->failed)
        return reject(d, "truncated or inconsistent %s", what);
    if (!allocated)
        return reject(d, "out of memory reading %s", what);
    return true;
}

static bool all_finite(const float *values, size_t count) {
    for (size_t i = 0; i < count; i++)
        if (!isfinite(values[i]))
            return false;
    return true;
}

/* A stream of n * width elements of `size` bytes, after checking that the
 * bytes are there (so a forged vertex count allocates nothing). */
static void *read_stream(wire_decoder *d, size_t n, size_t width, size_t size) {
    size_t bytes;
    if (!checked_mul_size(n, width * size, &bytes) || bytes > wire_left(d->in)) {
        d->in->failed = true;
        return NULL;
    }
    void *data = malloc(bytes ? bytes : 1);
    if (data != NULL)
        get_words(d->in, data, n * width, size);
    return data;
}

static bool read_mesh(wire_decoder *d, uint32_t index, ir_mesh *mesh) {
    wire_reader *in = d->in;
    bool named = wire_get_string(in, &mesh->name);
    mesh->vertex_count = wire_get_u32(in);
    uint32_t streams = wire_get_u32(in);
    if (!read_ok(d, named || in->failed, "mesh"))
        return false;
    size_t n = mesh->vertex_count;
    if ((streams & ~STREAM_ALL) != 0 || (n > 0 && !(streams & STREAM_POSITIONS)) ||
        !(streams & STREAM_JOINTS) != !(streams & STREAM_WEIGHTS) ||
        !(streams & STREAM_JOINTS1) != !(streams & STREAM_WEIGHTS1) ||
        ((streams & STREAM_JOINTS1) && !(streams & STREAM_JOINTS)))
        return reject(d, "mesh %u: streams 0x%x are not a valid set", index, streams);
    float **floats[] = {&mesh->positions,    &mesh->normals,      &mesh->tangents,
                        &mesh->texcoords[0], &mesh->texcoords[1], &mesh->colors};
    const size_t widths[] = {3, 3, 4, 2, 2, 4};
    for (size_t s = 0; s < sizeof widths / sizeof widths[0]; s++) {
        if (!(streams & (1u << s)))
            continue;
        *floats[s] = read_stream(d, n, widths[s], 4);
        if (!read_ok(d, *floats[s] != NULL, "vertex stream"))
            return false;
        if (!all_finite(*floats[s], n * widths[s]))
            return reject(d, "mesh %u: a vertex stream holds a number that is not finite", index);
    }
    if (streams & STREAM_JOINTS) {
        mesh->joints = read_stream(d, n, 4, 2);
        if (!read_ok(d, mesh->joints != NULL, "joints"))
            return false;
        mesh->weights = read_stream(d, n, 4, 4);
        if (!read_ok(d, mesh->weights != NULL, "weights"))
            return false;
        if (!all_finite(mesh->weights, n * 4))
            return reject(d, "mesh %u: a weight is not finite", index);
    }
    if (streams & STREAM_JOINTS1) {
        mesh->joints1 = read_stream(d, n, 4, 2);
        if (!read_ok(d, mesh->joints1 != NULL, "joints1"))
            return false;
        mesh->weights1 = read_stream(d, n, 4, 4);
        if (!read_ok(d, mesh->weights1 != NULL, "weights1"))
            return false;
        if (!all_finite(mesh->weights1, n * 4))
            return reject(d, "mesh %u: a weight is not finite", index);
    }
    uint32_t targets = wire_get_count(in, 4); /* a name at least */
    uint32_t attributes = wire_get_u32(in);
    if (!read_ok(d, true, "morph targets"))
        return false;
    if ((attributes & ~7u) != 0 || (targets == 0) != (attributes == 0))
        return reject(d, "mesh %u: %u morph targets with attributes 0x%x", index, targets,
                      attributes);
    if (targets > 0) {
        mesh->targets = calloc(targets, sizeof *mesh->targets);
        if (!read_ok(d, mesh->targets != NULL, "morph targets"))
            return false;
        mesh->target_count = targets;
    }
    for (uint32_t t = 0; t < targets; t++) {
        ir_morph_target *target = &mesh->targets[t];
        if (!read_ok(d, wire_get_string(in, &target->name), "morph target"))
            return false;
        for (int k = 0; k < 3; k++) {
            if ((attributes >> k & 1u) == 0)
                continue;
            float **stream = ir_morph_stream(target, k);
            *stream = read_stream(d, n, 3, 4);
            if (!read_ok(d, *stream != NULL, "morph deltas"))
                return false;
            if (!all_finite(*stream, n * 3))
                return reject(d, "mesh %u: morph target %u holds a delta that is not finite", index,
                              t);
        }
    }
    mesh->index_count = wire_get_u32(in);
    mesh->indices = read_stream(d, mesh->index_count, 1, 4);
    if (!read_ok(d, mesh->indices != NULL, "indices"))
        return false;
    for (uint32_t i = 0; i < mesh->index_count; i++)
        if (mesh->indices[i] >= mesh->vertex_count)
            return reject(d, "mesh %u: index %u is out of range (%u vertices)", index,
                          mesh->indices[i], mesh->vertex_count);
    mesh->submesh_count = wire_get_count(in, SUBMESH_BYTES);
    mesh->submeshes = calloc(mesh->submesh_count ? mesh->submesh_count : 1, sizeof(ir_submesh));
    if (!read_ok(d, mesh->submeshes != NULL, "submeshes"))
        return false;
    uint64_t covered = 0;
    for (uint32_t s = 0; s < mesh->submesh_count; s++) {
        ir_submesh *sub = &mesh->submeshes[s];
        sub->index_offset = wire_get_u32(in);
        sub->index_count = wire_get_u32(in);
        sub->material = wire_get_u32(in);
        uint32_t topology = wire_get_u32(in);
        bool has_name = wire_get_string(in, &sub->name);
        if (!read_ok(d, has_name, "submesh"))
            return false;
        if (topology >= KILN_TOPOLOGY_COUNT_)
            return reject(d, "mesh %u: submesh %u has topology %u", index, s, topology);
        sub->topology = (kiln_topology)topology;
        if (sub->index_offset != covered ||
            sub->index_count % kiln_topology_index_count(sub->topology) != 0 ||
            sub->index_count > mesh->index_count - covered ||
            sub->material >= d->out->material_count)
            return reject(d, "mesh %u: submesh %u is inconsistent", index, s);
        covered += sub->index_count;
    }
    if (covered != mesh->index_count)
        return reject(d, "mesh %u: submeshes do not cover its %u indices", index,
                      mesh->index_count);
    return true;
}

static int32_t get_i32(wire_reader *in) {
    return (int32_t)wire_get_u32(in);
}

static bool read_material(wire_decoder *d, uint32_t index, ir_material *m) {
    wire_reader *in = d->in;
    bool named = wire_get_string(in, &m->name);
    wire_get_f32s(in, m->base_color, 4);
    float scalars[2], scales[2];
    wire_get_f32s(in, scalars, 2);
    wire_get_f32s(in, m->emissive, 3);
    wire_get_f32s(in, scales, 2);
    m->metallic = scalars[0];
    m->roughness = scalars[1];
    m->normal_scale = scales[0];
    m->occlusion_strength = scales[1];
    uint32_t alpha_mode = wire_get_u32(in);
    wire_get_f32s(in, &m->alpha_cutoff, 1);
    uint8_t double_sided = wire_get_u8(in), unlit = wire_get_u8(in), unnamed = wire_get_u8(in);
    wire_get_f32s(in, m->specular_color, 3);
    wire_get_f32s(in, &m->specular, 1);
    bool floats_ok = all_finite(m->base_color, 4) && all_finite(scalars, 2) &&
                     all_finite(m->emissive, 3) && all_finite(scales, 2) &&
                     isfinite(m->alpha_cutoff) && all_finite(m->specular_color, 3) &&
                     isfinite(m->specular);
    for (int s = 0; s < IR_SLOT_COUNT; s++) {
        ir_texture_ref *t = &m->textures[s];
        t->image = get_i32(in);
        t->texcoord = wire_get_u32(in);
        wire_get_f32s(in, t->offset, 2);
        wire_get_f32s(in, &t->rotation, 1);
        wire_get_f32s(in, t->scale, 2);
        t->wrap_s = wire_get_u8(in);
        t->wrap_t = wire_get_u8(in);
        t->mag_filter = wire_get_u8(in);
        t->min_filter = wire_get_u8(in);
        t->mip_filter = wire_get_u8(in);
        floats_ok &= all_finite(t->offset, 2) && isfinite(t->rotation) && all_finite(t->scale, 2);
        bool sampler_ok = t->wrap_s < KILN_WRAP_COUNT_ && t->wrap_t < KILN_WRAP_COUNT_ &&
                          t->mag_filter < KILN_FILTER_COUNT_ &&
                          t->min_filter < KILN_FILTER_COUNT_ &&
                          t->mip_filter < KILN_MIP_FILTER_COUNT_;
        if (!in->failed && !sampler_ok)
            return reject(d, "material %u: texture slot %d has a sampler value out of range", index,
                          s);
        if (!in->failed &&
            (t->image < -1 || (t->image >= 0 && (uint32_t)t->image >= d->out->image_count) ||
             t->texcoord > 1))
            return reject(d, "material %u: texture slot %d names image %d of %u, UV set %u", index,
                          s, t->image, d->out->image_count, t->texcoord);
    }
    bool dropped = wire_get_string(in, &m->dropped_extensions);
    if (!read_ok(d, named && dropped, "material"))
        return false;
    if (alpha_mode > IR_ALPHA_BLEND || double_sided > 1 || unlit > 1 || unnamed > 1)
        return reject(d, "material %u: alpha mode %u or a flag is out of range", index, alpha_mode);
    if (!floats_ok)
        return reject(d, "material %u: a factor is not finite", index);
    m->alpha_mode = (ir_alpha_mode)alpha_mode;
    m->double_sided = double_sided != 0;
    m->unlit = unlit != 0;
    m->unnamed = unnamed != 0;
    return true;
}

static bool read_node(wire_decoder *d, uint32_t index, ir_node *node) {
    wire_reader *in = d->in;
    bool named = wire_get_string(in, &node->name);
    node->parent = get_i32(in);
    node->mesh = get_i32(in);
    node->skin = get_i32(in);
    wire_get_f32s(in, node->translation, 3);
    wire_get_f32s(in, node->rotation, 4);
    wire_get_f32s(in, node->scale, 3);
    wire_get_f32s(in, node->matrix, 16);
    node->source = get_i32(in);
    bool extras = named && wire_get_string(in, &node->extras);
    node->camera = get_i32(in);
    node->light = get_i32(in);
    node->instance_offset = wire_get_u32(in);
    node->instance_count = wire_get_u32(in);
    uint32_t weights = wire_get_u32(in);
    if (!read_ok(d, named && extras, "node"))
        return false;
    if (weights > 0) {
        node->weights = read_stream(d, weights, 1, 4);
        if (!read_ok(d, node->weights != NULL, "node weights"))
            return false;
        node->weight_count = weights;
        if (!all_finite(node->weights, weights))
            return reject(d, "node %u: a morph weight is not finite", index);
    }
    /* ir.h: parents come before their children, so -1 <= parent < index. */
    if (node->parent < -1 || (node->parent >= 0 && (uint32_t)node->parent >= index) ||
        node->mesh < -1 || (node->mesh >= 0 && (uint32_t)node->mesh >= d->out->mesh_count) ||
        node->skin < -1 || node->source < -1)
        return reject(d, "node %u: parent %d, mesh %d, skin %d or source %d is out of range", index,
                      node->parent, node->mesh, node->skin, node->source);
    uint32_t targets = node->mesh >= 0 ? d->out->meshes[node->mesh].target_count : 0;
    if (node->weight_count != targets) /* ir.h: one weight per morph target of its mesh */
        return reject(d, "node %u: %u morph weights for a mesh with %u morph targets", index,
                      node->weight_count, targets);
    if (!all_finite(node->translation, 3) || !all_finite(node->rotation, 4) ||
        !all_finite(node->scale, 3) || !all_finite(node->matrix, 16))
        return reject(d, "node %u: its transform is not finite", index);
    return true;
}

/* Cameras, lights and instances, then every node's references to them:
 * values as kscene.md R14-R16 want them (the writer copies them). */
static bool read_cameras_lights_instances(wire_decoder *d, ir_asset *out) {
    wire_reader *in = d->in;
    uint32_t cameras = wire_get_count(in, CAMERA_BYTES);
    if (!read_ok(d, true, "cameras"))
        return false;
    out->cameras =
        cameras > 0 ? calloc(cameras, sizeof *out->cameras) : NULL; /* NULL for none, as imported */
    if (!read_ok(d, cameras == 0 || out->cameras != NULL, "cameras"))
        return false;
    out->camera_count = cameras;
    for (uint32_t i = 0; i < cameras; i++) {
        ir_camera *c = &out->cameras[i];
        bool named = wire_get_string(in, &c->name);
        uint32_t type = wire_get_u32(in);
        float v[6];
        wire_get_f32s(in, v, 6);
        if (!read_ok(d, named, "camera"))
            return false;
        c->type = type == 1 ? IR_CAMERA_ORTHOGRAPHIC : IR_CAMERA_PERSPECTIVE;
        c->yfov = v[0];
        c->aspect = v[1];
        c->xmag = v[2];
        c->ymag = v[3];
        c->znear = v[4];
        c->zfar = v[5];
        bool ok = type <= 1 && all_finite(v, 6);
        if (type == 0)
            ok = ok && v[0] > 0 && v[1] >= 0 && v[4] > 0 && (v[5] == 0 || v[5] > v[4]);
        else
            ok = ok && v[2] != 0 && v[3] != 0 && v[4] >= 0 && v[5] > v[4];
        if (!ok)
            return reject(d, "camera %u: type %u or its values are invalid", i, type);
    }
    uint32_t lights = wire_get_count(in, LIGHT_BYTES);
    if (!read_ok(d, true, "lights"))
        return false;
    out->lights =
        lights > 0 ? calloc(lights, sizeof *out->lights) : NULL; /* NULL for none, as imported */
    if (!read_ok(d, lights == 0 || out->lights != NULL, "lights"))
        return false;
    out->light_count = lights;
    for (uint32_t i = 0; i < lights; i++) {
        ir_light *l = &out->lights[i];
        bool named = wire_get_string(in, &l->name);
        uint32_t type = wire_get_u32(in);
        float v[4];
        wire_get_f32s(in, l->color, 3);
        wire_get_f32s(in, v, 4);
        if (!read_ok(d, named, "light"))
            return false;
        l->type = type == 2 ? IR_LIGHT_SPOT : type == 1 ? IR_LIGHT_POINT : IR_LIGHT_DIRECTIONAL;
        l->intensity = v[0];
        l->range = v[1];
        l->inner_cone = v[2];
        l->outer_cone = v[3];
        bool ok =
            type <= 2 && all_finite(l->color, 3) && all_finite(v, 4) && v[0] >= 0 && v[1] >= 0;
        for (int k = 0; k < 3; k++)
            ok = ok && l->color[k] >= 0 && l->color[k] <= 1;
        if (type == 2)
            ok = ok && v[2] >= 0 && v[2] < v[3] && v[3] <= 1.5707964f;
        else
            ok = ok && v[2] == 0 && v[3] == 0;
        if (!ok)
            return reject(d, "light %u: type %u or its values are invalid", i, type);
    }
    uint32_t instances = wire_get_count(in, INSTANCE_BYTES);
    if (!read_ok(d, true, "instances"))
        return false;
    out->instances = instances > 0 ? calloc(instances, sizeof *out->instances)
                                   : NULL; /* NULL for none, as imported */
    if (!read_ok(d, instances == 0 || out->instances != NULL, "instances"))
        return false;
    out->instance_count = instances;
    for (uint32_t i = 0; i < instances; i++) {
        ir_instance *t = &out->instances[i];
        wire_get_f32s(in, t->translation, 3);
        wire_get_f32s(in, t->rotation, 4);
        wire_get_f32s(in, t->scale, 3);
        if (!read_ok(d, true, "instance"))
            return false;
        const float *q = t->rotation;
        float length2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
        if (!all_finite(t->translation, 3) || !all_finite(q, 4) || !all_finite(t->scale, 3) ||
            !(fabsf(length2 - 1.0f) <= 2e-3f))
            return reject(d, "instance %u: not finite, or its rotation is not a unit quaternion",
                          i);
    }
    for (uint32_t i = 0; i < out->node_count; i++) {
        const ir_node *n = &out->nodes[i];
        if (n->camera < -1 || (n->camera >= 0 && (uint32_t)n->camera >= cameras) || n->light < -1 ||
            (n->light >= 0 && (uint32_t)n->light >= lights) ||
            (uint64_t)n->instance_offset + n->instance_count > instances ||
            (n->instance_count == 0 && n->instance_offset != 0))
            return reject(d, "node %u: camera %d, light %d or instances %u +%u out of range", i,
                          n->camera, n->light, n->instance_offset, n->instance_count);
    }
    return true;
}

/* The scenes: each root a node without a parent, the default one of them. */
static bool read_scenes(wire_decoder *d, ir_asset *out) {
    wire_reader *in = d->in;
    uint32_t count = wire_get_count(in, SCENE_MIN_BYTES);
    uint32_t default_scene = wire_get_u32(in);
    if (!read_ok(d, true, "scenes"))
        return false;
    if (count == 0 ? default_scene != 0 : default_scene >= count)
        return reject(d, "default scene %u of %u", default_scene, count);
    out->scenes = calloc(count ? count : 1, sizeof *out->scenes);
    if (!read_ok(d, out->scenes != NULL, "scenes"))
        return false;
    out->scene_count = count;
    out->default_scene = default_scene;
    for (uint32_t i = 0; i < count; i++) {
        ir_scene *scene = &out->scenes[i];
        bool named = wire_get_string(in, &scene->name);
        uint32_t roots = wire_get_count(in, 4);
        if (!read_ok(d, named, "scene"))
            return false;
        scene->roots = read_stream(d, roots, 1, 4);
        if (!read_ok(d, scene->roots != NULL, "scene roots"))
            return false;
        scene->root_count = roots;
        for (uint32_t r = 0; r < roots; r++)
            if (scene->roots[r] >= out->node_count || out->nodes[scene->roots[r]].parent != -1)
                return reject(d, "scene %u: root %u is not a root node", i, scene->roots[r]);
    }
    return true;
}

/* The skins: joints distinct nodes, matrices finite; then every node's skin
 * in range. */
static bool read_skins(wire_decoder *d, ir_asset *out) {
    wire_reader *in = d->in;
    uint32_t count = wire_get_count(in, SKIN_MIN_BYTES);
    if (!read_ok(d, true, "skins"))
        return false;
    out->skins = calloc(count ? count : 1, sizeof *out->skins);
    uint32_t *mark = calloc(out->node_count ? out->node_count : 1, sizeof *mark);
    bool ok = read_ok(d, out->skins != NULL && mark != NULL, "skins");
    if (ok)
        out->skin_count = count;
    for (uint32_t i = 0; ok && i < count; i++) {
        ir_skin *skin = &out->skins[i];
        bool named = wire_get_string(in, &skin->name);
        skin->skeleton = get_i32(in);
        skin->source = get_i32(in);
        uint32_t joints = wire_get_count(in, 4 + 64);
        if (!(ok = read_ok(d, named, "skin")))
            break;
        skin->joints = read_stream(d, joints, 1, 4);
        skin->inverse_bind = read_stream(d, joints, 16, 4);
        if (!(ok = read_ok(d, skin->joints != NULL && skin->inverse_bind != NULL, "skin joints")))
            break;
        skin->joint_count = joints;
        if (joints == 0 || skin->skeleton < -1 ||
            (skin->skeleton >= 0 && (uint32_t)skin->skeleton >= out->node_count) ||
            skin->source < -1) {
            ok = reject(d, "skin %u: %u joints, skeleton %d or source %d out of range", i, joints,
                        skin->skeleton, skin->source);
            break;
        }
        for (uint32_t j = 0; ok && j < joints; j++) {
            uint32_t node = skin->joints[j];
            if (node >= out->node_count || mark[node] == i + 1)
                ok = reject(d, "skin %u: joint %u names node %u (out of range or twice)", i, j,
                            node);
            else
                mark[node] = i + 1;
        }
        if (ok && !all_finite(skin->inverse_bind, (size_t)joints * 16))
            ok = reject(d, "skin %u: an inverse bind matrix is not finite", i);
    }
    free(mark);
    for (uint32_t n = 0; ok && n < out->node_count; n++)
        if (out->nodes[n].skin >= 0 && (uint32_t)out->nodes[n].skin >= out->skin_count)
            ok = reject(d, "node %u: skin %d of %u", n, out->nodes[n].skin, out->skin_count);
    return ok;
}

/* One clip's sampler: keys as ir.h wants them (times finite, non-negative,
 * strictly increasing; values finite; LINEAR and STEP rotations unit). The
 * components are checked against the channels that use it. */
static bool read_sampler(wire_decoder *d, uint32_t clip, uint32_t index, ir_anim_sampler *s) {
    wire_reader *in = d->in;
    uint32_t keys = wire_get_count(in, 4);
    uint32_t components = wire_get_u32(in);
    uint32_t interpolation = wire_get_u32(in);
    if (!read_ok(d, true, "animation sampler"))
        return false;
    if (keys == 0 || components == 0 || components > 65535 || interpolation > IR_INTERP_CUBICSPLINE)
        return reject(d, "animation %u sampler %u: %u keys of %u components, interpolation %u",
                      clip, index, keys, components, interpolation);
    size_t groups = interpolation == IR_INTERP_CUBICSPLINE ? 3 : 1;
    s->times = read_stream(d, keys, 1, 4);
    if (!read_ok(d, s->times != NULL, "animation key times"))
        return false;
    s->values = read_stream(d, keys, (size_t)components * groups, 4);
    if (!read_ok(d, s->values != NULL, "animation key values"))
        return false;
    s->key_count = keys;
    s->components = components;
    s->interpolation = (ir_interpolation)interpolation;
    for (uint32_t k = 0; k < keys; k++)
        if (!isfinite(s->times[k]) || !(s->times[k] >= 0.0f) ||
            (k > 0 && !(s->times[k] > s->times[k - 1])))
            return reject(d,
                          "animation %u sampler %u: key %u time is not finite, negative or "
                          "not after the one before",
                          clip, index, k);
    size_t values = (size_t)keys * components * groups;
    if (!all_finite(s->values, values))
        return reject(d, "animation %u sampler %u: a value is not finite", clip, index);
    return true;
}

/* The animations: channels naming nodes, paths and samplers in range, with
 * the components their path wants, at most one per node and path. */
static bool read_animations(wire_decoder *d, ir_asset *out) {
    wire_reader *in = d->in;
    uint32_t count = wire_get_count(in, CLIP_MIN_BYTES);
    if (!read_ok(d, true, "animations"))
        return false;
    out->animations = count > 0 ? calloc(count, sizeof *out->animations) : NULL;
    /* per node: 1 + the clip whose channels last named it, and their paths */
    uint32_t *seen_clip = calloc(out->node_count ? out->node_count : 1, sizeof *seen_clip);
    uint8_t *seen_paths = calloc(out->node_count ? out->node_count : 1, 1);
    bool ok = read_ok(d, (count == 0 || out->animations != NULL) && seen_clip && seen_paths,
                      "animations");
    if (ok)
        out->animation_count = count;
    for (uint32_t a = 0; ok && a < count; a++) {
        ir_animation *clip = &out->animations[a];
        bool named = wire_get_string(in, &clip->name);
        bool dropped = named && wire_get_string(in, &clip->dropped);
        uint32_t samplers = wire_get_count(in, SAMPLER_MIN_BYTES);
        if (!(ok = read_ok(d, named && dropped, "animation")))
            break;
        clip->samplers = calloc(samplers ? samplers : 1, sizeof *clip->samplers);
        if (!(ok = read_ok(d, clip->samplers != NULL, "animation samplers")))
            break;
        clip->sampler_count = samplers;
        for (uint32_t s = 0; ok && s < samplers; s++)
            ok = read_sampler(d, a, s, &clip->samplers[s]);
        if (!ok)
            break;
        uint32_t channels = wire_get_count(in, CHANNEL_BYTES);
        if (!(ok = read_ok(d, true, "animation channels")))
            break;
        clip->channels = calloc(channels ? channels : 1, sizeof *clip->channels);
        if (!(ok = read_ok(d, clip->channels != NULL, "animation channels")))
            break;
        clip->channel_count = channels;
        for (uint32_t c = 0; ok && c < channels; c++) {
            ir_anim_channel *ch = &clip->channels[c];
            ch->node = wire_get_u32(in);
            uint32_t path = wire_get_u32(in);
            ch->sampler = wire_get_u32(in);
            if (!(ok = read_ok(d, true, "animation channel")))
                break;
            if (ch->node >= out->node_count || path > IR_ANIM_WEIGHTS || ch->sampler >= samplers) {
                ok = reject(d,
                            "animation %u channel %u: node %u, path %u or sampler %u out of "
                            "range",
                            a, c, ch->node, path, ch->sampler);
                break;
            }
            ch->path = (ir_anim_path)path;
            const ir_anim_sampler *s = &clip->samplers[ch->sampler];
            uint32_t want = path == IR_ANIM_WEIGHTS    ? out->nodes[ch->node].weight_count
                            : path == IR_ANIM_ROTATION ? 4u
                                                       : 3u;
            if (s->components != want) {
                ok = reject(d, "animation %u channel %u: %u components, %u expected", a, c,
                            s->components, want);
                break;
            }
            if (path == IR_ANIM_ROTATION && s->interpolation != IR_INTERP_CUBICSPLINE) {
                for (uint32_t k = 0; ok && k < s->key_count; k++) {
                    const float *q = s->values + 4 * (size_t)k;
                    double length2 = (double)q[0] * q[0] + (double)q[1] * q[1] +
                                     (double)q[2] * q[2] + (double)q[3] * q[3];
                    if (!(fabs(length2 - 1.0) <= 2e-3))
                        ok = reject(d,
                                    "animation %u channel %u: rotation key %u is not a unit "
                                    "quaternion",
                                    a, c, k);
                }
                if (!ok)
                    break;
            }
            if (seen_clip[ch->node] != a + 1) {
                seen_clip[ch->node] = a + 1;
                seen_paths[ch->node] = 0;
            }
            if (seen_paths[ch->node] & (1u << path)) {
                ok = reject(d, "animation %u channel %u: node %u's path %u is driven twice", a, c,
                            ch->node, path);
                break;
            }
            seen_paths[ch->node] |= (uint8_t)(1u << path);
        }
    }
    free(seen_clip);
    free(seen_paths);
    return ok;
}

static bool read_image(wire_decoder *d, uint32_t index, ir_image *image) {
    wire_reader *in = d->in;
    bool named = wire_get_string(in, &image->name);
    bool pathed = named && wire_get_string(in, &image->path);
    pathed = pathed && wire_get_string(in, &image->label);
    uint8_t embedded = wire_get_u8(in);
    if (!read_ok(d, named && pathed, "image"))
        return false;
    if (image->name == NULL || embedded > 1 || (embedded && image->path != NULL) ||
        (image->path != NULL && !path_is_plain_relative(image->path)))
        return reject(d,
                      "image %u: no name, or not exactly one of a plain relative path and "
                      "embedded bytes",
                      index);
    if (embedded) {
        const uint8_t *bytes;
        size_t size;
        if (!wire_get_blob(in, &bytes, &size))
            return read_ok(d, true, "image bytes");
        image->bytes = malloc(size ? size : 1);
        if (!read_ok(d, image->bytes != NULL, "image bytes"))
            return false;
        memcpy(image->bytes, bytes, size);
        image->size = size;
    }
    return true;
}

bool ir_wire_read(wire_reader *in, ir_asset *out, char *reason, size_t reason_size) {
    memset(out, 0, sizeof *out);
    wire_decoder d = {.in = in, .out = out, .reason = reason, .reason_size = reason_size};
    uint32_t version = wire_get_u32(in);
    if (!in->failed && version != IR_WIRE_VERSION) {
        reject(&d, "IR version %u, expected %u", version, IR_WIRE_VERSION);
        return false;
    }
    /* Every count is bounded by the bytes left before the arrays exist; the
     * counts are set only once the arrays are, so ir_asset_free always
     * matches what was allocated. */
    uint32_t meshes = wire_get_count(in, MESH_MIN_BYTES);
    uint32_t materials = wire_get_count(in, MATERIAL_MIN_BYTES);
    uint32_t nodes = wire_get_count(in, NODE_MIN_BYTES);
    uint32_t images = wire_get_count(in, IMAGE_MIN_BYTES);
    bool ok = read_ok(&d, true, "asset header");
    if (ok) {
        out->meshes = calloc(meshes ? meshes : 1, sizeof *out->meshes);
        out->materials = calloc(materials ? materials : 1, sizeof *out->materials);
        out->nodes = calloc(nodes ? nodes : 1, sizeof *out->nodes);
        out->images = calloc(images ? images : 1, sizeof *out->images);
        ok = read_ok(&d,
                     out->meshes != NULL && out->materials != NULL && out->nodes != NULL &&
                         out->images != NULL,
                     "asset");
        out->mesh_count = meshes;
        out->material_count = materials;
        out->node_count = nodes;
        out->image_count = images;
    }
    for (uint32_t i = 0; ok && i < meshes; i++)
        ok = read_mesh(&d, i, &out->meshes[i]);
    for (uint32_t i = 0; ok && i < materials; i++)
        ok = read_material(&d, i, &out->materials[i]);
    for (uint32_t i = 0; ok && i < nodes; i++)
        ok = read_node(&d, i, &out->nodes[i]);
    for (uint32_t i = 0; ok && i < images; i++)
        ok = read_image(&d, i, &out->images[i]);
    if (ok)
        ok = read_scenes(&d, out);
    if (ok)
        ok = read_cameras_lights_instances(&d, out);
    if (ok)
        ok = read_skins(&d, out);
    if (ok)
        ok = read_animations(&d, out);
    if (!ok) {
        ir_asset_free(out);
        memset(out, 0, sizeof *out);
    }
    return ok;
}
