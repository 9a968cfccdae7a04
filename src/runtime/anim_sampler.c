/* anim_sampler.c — a clip prepared for sampling every frame
 * (kiln_anim_sampler_*; docs/libkiln.md, Animation).
 *
 * The idea is ozz-animation's sampling job: lay the work out by kind rather
 * than by channel. The clip's LINEAR translation, rotation and scale
 * channels (float or quantized) are grouped by (key times, path, encoding)
 * at init; a group keeps one key cursor, so one search per group and frame
 * finds the interval for all its channels, and its channels are arrays
 * (target node, first key, quantized range). Per frame a group is a loop
 * without branches: translations and scales lerp, rotations slerp four at a
 * time in vector lanes, with the slerp's polynomial coefficients (which
 * depend on the shared fraction only) computed once per group. Every other
 * channel (STEP, CUBICSPLINE, weights) is evaluated as kiln_anim_sample
 * does, with its own cursor. The arithmetic is anim_eval.h's, operation for
 * operation, so the pose is kiln_anim_sample's bit for bit (where two
 * channels drive one property, which glTF forbids, the winner may differ). */
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kiln/kiln.h"
#include "runtime/anim_eval.h"
#include "runtime/internal.h"

typedef struct anim_group {
    uint32_t time_offset, key_count; /* the key times its channels share */
    uint32_t cursor;
    uint32_t first, count; /* its channels: nodes[first ..], offsets[first ..] */
    uint16_t path;         /* KILN_ANIM_TRANSLATION, ROTATION or SCALE */
    uint16_t encoding;     /* KILN_ANIM_FLOAT or QUANTIZED */
} anim_group;

struct kiln_anim_sampler {
    kiln_anim_view view;
    uint32_t group_count, other_count;
    anim_group *groups;
    uint32_t *nodes;   /* per grouped channel: its node */
    uint32_t *offsets; /* per grouped channel: its first value (AVAL) or u16 (AQNT) */
    uint32_t *ranges;  /* per grouped quantized translation or scale: its range in AVAL */
    uint32_t *others;  /* the other channels, by index in view.channels, clip order */
    uint32_t *other_cursors;
};

/* Bytes per channel: a group, node, offset, other, other cursor, and the
 * group of each channel while the sampler is built. */
#define PER_CHANNEL (sizeof(anim_group) + 6 * sizeof(uint32_t))

/* LINEAR translations, rotations and scales, float or quantized (whose
 * keys are always LINEAR or STEP vec3 and rotations). */
static bool is_grouped(const kiln_anim_channel *c) {
    return c->interpolation == KILN_ANIM_LINEAR && c->path != KILN_ANIM_WEIGHTS;
}

size_t kiln_anim_sampler_size(const kiln_anim_view *view, uint32_t clip) {
    if (view == NULL || clip >= view->clip_count)
        return 0;
    size_t count = view->clips[clip].channel_count;
    if (count > (SIZE_MAX - sizeof(kiln_anim_sampler)) / PER_CHANNEL)
        return 0;
    return sizeof(kiln_anim_sampler) + count * PER_CHANNEL;
}

kiln_result kiln_anim_sampler_init(const kiln_anim_view *view, uint32_t clip, void *memory,
                                   size_t size, kiln_anim_sampler **sampler, kiln_error *err) {
    size_t need = kiln_anim_sampler_size(view, clip);
    if (need == 0 || memory == NULL || sampler == NULL || size < need || (uintptr_t)memory % 8 != 0)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln",
                            "kiln_anim_sampler_init: clip %" PRIu32 " of %" PRIu32
                            ", %zu bytes at %p (%zu needed, aligned to 8)",
                            clip, view != NULL ? view->clip_count : 0, size, memory, need);
    const kiln_anim_clip *cl = &view->clips[clip];
    const kiln_anim_channel *channels = view->channels + cl->first_channel;
    uint32_t count = cl->channel_count;
    kiln_anim_sampler *s = memory;
    memset(s, 0, sizeof *s);
    s->view = *view;
    s->groups = (anim_group *)(void *)(s + 1);
    s->nodes = (uint32_t *)(void *)(s->groups + count);
    s->offsets = s->nodes + count;
    s->ranges = s->offsets + count;
    s->others = s->ranges + count;
    s->other_cursors = s->others + count;
    uint32_t *group_of = s->other_cursors + count;
    /* The groups, in order of their first channel; each channel's group. */
    for (uint32_t k = 0; k < count; k++) {
        const kiln_anim_channel *c = &channels[k];
        if (!is_grouped(c)) {
            s->other_cursors[s->other_count] = 0;
            s->others[s->other_count++] = cl->first_channel + k;
            continue;
        }
        uint32_t g = 0;
        while (g < s->group_count &&
               (s->groups[g].time_offset != c->time_offset ||
                s->groups[g].key_count != c->key_count || s->groups[g].path != c->path ||
                s->groups[g].encoding != c->encoding))
            g++;
        if (g == s->group_count)
            s->groups[s->group_count++] = (anim_group){.time_offset = c->time_offset,
                                                       .key_count = c->key_count,
                                                       .path = c->path,
                                                       .encoding = c->encoding};
        s->groups[g].count++;
        group_of[k] = g;
    }
    /* Each group's channels, contiguous and in clip order. */
    uint32_t at = 0;
    for (uint32_t g = 0; g < s->group_count; g++) {
        s->groups[g].first = at;
        at += s->groups[g].count;
        s->groups[g].count = 0;
    }
    for (uint32_t k = 0; k < count; k++) {
        if (!is_grouped(&channels[k]))
            continue;
        anim_group *g = &s->groups[group_of[k]];
        s->nodes[g->first + g->count] = channels[k].node;
        s->offsets[g->first + g->count] = channels[k].value_offset;
        s->ranges[g->first + g->count] = channels[k].range_offset;
        g->count++;
    }
    *sampler = s;
    return KILN_OK;
}

/* Translations or scales of group g at position p: anim_eval.h's LINEAR
 * vec3 case. */
static void sample_vec3(const kiln_anim_sampler *s, const anim_group *g, key_position p,
                        size_t field, kiln_anim_pose *pose) {
    const float *values = s->view.values + (size_t)p.key * 3;
    const uint32_t *nodes = s->nodes + g->first, *offsets = s->offsets + g->first;
    float t = p.s;
    for (uint32_t i = 0; i < g->count; i++) {
        const float *v0 = values + offsets[i];
        float *out = (float *)(void *)((char *)&pose->local[nodes[i]] + field);
        if (p.between) {
            for (int j = 0; j < 3; j++)
                out[j] = v0[j] + t * (v0[3 + j] - v0[j]);
        } else {
            for (int j = 0; j < 3; j++)
                out[j] = v0[j];
        }
    }
}

/* Quantized translations or scales: anim_eval.h's quantized vec3 case. */
static void sample_vec3_quantized(const kiln_anim_sampler *s, const anim_group *g, key_position p,
                                  size_t field, kiln_anim_pose *pose) {
    const uint16_t *keys = s->view.quantized + (size_t)p.key * 3;
    const uint32_t *nodes = s->nodes + g->first, *offsets = s->offsets + g->first;
    const uint32_t *ranges = s->ranges + g->first;
    float t = p.s;
    for (uint32_t i = 0; i < g->count; i++) {
        const uint16_t *q = keys + offsets[i];
        const float *range = s->view.values + ranges[i];
        float *out = (float *)(void *)((char *)&pose->local[nodes[i]] + field);
        if (p.between) {
            float a[3], b[3];
            decode_vec3(q, range, a);
            decode_vec3(q + 3, range, b);
            for (int j = 0; j < 3; j++)
                out[j] = a[j] + t * (b[j] - a[j]);
        } else {
            decode_vec3(q, range, out);
        }
    }
}

#if defined(__GNUC__)
typedef float lanes __attribute__((vector_size(16)));
typedef int32_t lane_mask __attribute__((vector_size(16)));

static inline lanes broadcast(float x) {
    return (lanes){x, x, x, x};
}
static inline lanes select_lanes(lane_mask m, lanes a, lanes b) {
    return (lanes)(((lane_mask)a & m) | ((lane_mask)b & ~m));
}

/* slerp_unit (anim_eval.h) on four key pairs at once, lane l from
 * a[l] and b[l], operation for operation; cs and cd are its coefficients
 * u[i] * s^2 - v[i] and u[i] * (1 - s)^2 - v[i], shared by the group. */
static void slerp_lanes(const float *const a[4], const float *const b[4], float s, const float *cs,
                        const float *cd, float *const out[4]) {
    lanes q[2][4];
    for (int c = 0; c < 4; c++) {
        q[0][c] = (lanes){a[0][c], a[1][c], a[2][c], a[3][c]};
        q[1][c] = (lanes){b[0][c], b[1][c], b[2][c], b[3][c]};
    }
    lanes dot = q[0][0] * q[1][0] + q[0][1] * q[1][1] + q[0][2] * q[1][2] + q[0][3] * q[1][3];
    lanes one = broadcast(1.0f);
    lanes sign = select_lanes(dot < broadcast(0.0f), broadcast(-1.0f), one);
    dot *= sign;
    lanes xm1 = dot - one;
    lane_mask near = xm1 >= broadcast(-0.01f);
    lanes wa = broadcast(1.0f - s), wb = sign * broadcast(s);
    lanes result[4] = {one, one, one, one}; /* each lane set below */
    bool any_near = near[0] | near[1] | near[2] | near[3];
    bool any_far = !(near[0] & near[1] & near[2] & near[3]);
    if (any_near) {
        lanes ws = one, wd = one;
        for (int i = 3; i >= 0; i--) {
            ws = one + broadcast(cs[i]) * xm1 * ws;
            wd = one + broadcast(cd[i]) * xm1 * wd;
        }
        lanes ka = wa * wd, kb = wb * ws;
        for (int c = 0; c < 4; c++)
            result[c] = ka * q[0][c] + kb * q[1][c];
    }
    if (any_far) {
        lanes ws = one, wd = one;
        for (int i = 7; i >= 0; i--) {
            ws = one + broadcast(cs[i]) * xm1 * ws;
            wd = one + broadcast(cd[i]) * xm1 * wd;
        }
        lanes ka = wa * wd, kb = wb * ws, far[4];
        for (int c = 0; c < 4; c++)
            far[c] = ka * q[0][c] + kb * q[1][c];
        lanes length2 = far[0] * far[0] + far[1] * far[1] + far[2] * far[2] + far[3] * far[3];
        lanes scale = broadcast(1.5f) - broadcast(0.5f) * length2;
        for (int c = 0; c < 4; c++)
            result[c] = any_near ? select_lanes(near, result[c], far[c] * scale) : far[c] * scale;
    }
    for (int l = 0; l < 4; l++) {
        if (out[l] != NULL) {
            for (int c = 0; c < 4; c++)
                out[l][c] = result[c][l];
        }
    }
}
#endif

/* The key pair of grouped rotation i at key `key`: float keys in place,
 * quantized ones decoded into a and b. */
static void rotation_keys(const kiln_anim_sampler *s, const anim_group *g, uint32_t i, uint32_t key,
                          float a[4], float b[4], const float **pa, const float **pb) {
    uint32_t offset = s->offsets[g->first + i];
    if (g->encoding == KILN_ANIM_QUANTIZED) {
        const uint16_t *q = s->view.quantized + offset + (size_t)key * 3;
        decode_rotation(q, a);
        decode_rotation(q + 3, b);
        *pa = a;
        *pb = b;
    } else {
        *pa = s->view.values + offset + (size_t)key * 4;
        *pb = *pa + 4;
    }
}

/* Rotations of group g at position p: anim_eval.h's LINEAR rotation cases. */
static void sample_rotations(const kiln_anim_sampler *s, const anim_group *g, key_position p,
                             kiln_anim_pose *pose) {
    const uint32_t *nodes = s->nodes + g->first;
    if (!p.between) {
        for (uint32_t i = 0; i < g->count; i++) {
            float *out = pose->local[nodes[i]].rotation;
            uint32_t offset = s->offsets[g->first + i];
            if (g->encoding == KILN_ANIM_QUANTIZED)
                decode_rotation(s->view.quantized + offset + (size_t)p.key * 3, out);
            else
                memcpy(out, s->view.values + offset + (size_t)p.key * 4, 4 * sizeof(float));
        }
        return;
    }
#if defined(__GNUC__)
    /* slerp_unit's weights' polynomial coefficients, as it computes them. */
    static const float mu = 1.90110745351730037f;
    static const float u[8] = {1.0f / (1 * 3),  1.0f / (2 * 5),  1.0f / (3 * 7),  1.0f / (4 * 9),
                               1.0f / (5 * 11), 1.0f / (6 * 13), 1.0f / (7 * 15), mu / (8 * 17)};
    static const float v[8] = {1.0f / 3,  2.0f / 5,  3.0f / 7,  4.0f / 9,
                               5.0f / 11, 6.0f / 13, 7.0f / 15, mu * 8 / 17};
    float t = p.s, d = 1.0f - t, t2 = t * t, d2 = d * d, cs[8], cd[8];
    for (int i = 0; i < 8; i++) {
        cs[i] = u[i] * t2 - v[i];
        cd[i] = u[i] * d2 - v[i];
    }
    bool quantized = g->encoding == KILN_ANIM_QUANTIZED;
    const float *values = s->view.values + (size_t)p.key * 4;
    const uint32_t *offsets = s->offsets + g->first;
    for (uint32_t i = 0; i < g->count; i += 4) {
        const float *a[4], *b[4];
        float *out[4], decoded[4][2][4];
        for (uint32_t l = 0; l < 4; l++) {
            uint32_t at = i + l < g->count ? i + l : i; /* a short last set repeats one */
            if (quantized) {
                rotation_keys(s, g, at, p.key, decoded[l][0], decoded[l][1], &a[l], &b[l]);
            } else {
                a[l] = values + offsets[at];
                b[l] = a[l] + 4;
            }
            out[l] = i + l < g->count ? pose->local[nodes[at]].rotation : NULL;
        }
        slerp_lanes(a, b, t, cs, cd, out);
    }
#else
    for (uint32_t i = 0; i < g->count; i++) {
        float ka[4], kb[4];
        const float *a, *b;
        rotation_keys(s, g, i, p.key, ka, kb, &a, &b);
        slerp_unit(a, b, p.s, pose->local[nodes[i]].rotation);
    }
#endif
}

void kiln_anim_sampler_sample(kiln_anim_sampler *sampler, float time, kiln_anim_pose *pose) {
    const kiln_anim_view *view = &sampler->view;
    for (uint32_t g = 0; g < sampler->group_count; g++) {
        anim_group *group = &sampler->groups[g];
        key_position p =
            locate(view->times + group->time_offset, group->key_count, time, group->cursor);
        group->cursor = cursor_of(p, group->key_count);
        if (group->path == KILN_ANIM_ROTATION)
            sample_rotations(sampler, group, p, pose);
        else
            (group->encoding == KILN_ANIM_QUANTIZED ? sample_vec3_quantized : sample_vec3)(
                sampler, group, p,
                group->path == KILN_ANIM_TRANSLATION ? offsetof(kiln_scene_transform, translation)
                                                     : offsetof(kiln_scene_transform, scale),
                pose);
    }
    /* As kiln_anim_sample: neighbours with the same key times share a search. */
    uint32_t range_offset = UINT32_MAX, range_count = 0, cursor = 0;
    key_position p = {0, false, 0.0f, 0.0f};
    for (uint32_t k = 0; k < sampler->other_count; k++) {
        const kiln_anim_channel *c = &view->channels[sampler->others[k]];
        if (c->time_offset != range_offset || c->key_count != range_count) {
            range_offset = c->time_offset;
            range_count = c->key_count;
            p = locate(view->times + range_offset, range_count, time, sampler->other_cursors[k]);
            cursor = cursor_of(p, range_count);
        }
        sampler->other_cursors[k] = cursor;
        float *out = c->path == KILN_ANIM_WEIGHTS    ? pose->weights + c->weight_offset
                     : c->path == KILN_ANIM_ROTATION ? pose->local[c->node].rotation
                     : c->path == KILN_ANIM_SCALE    ? pose->local[c->node].scale
                                                     : pose->local[c->node].translation;
        evaluate(view, c, p, out);
    }
}
