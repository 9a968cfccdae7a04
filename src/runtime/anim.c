/* anim.c — animation clips (docs/formats/kanim.md): the view over a .kanim
 * file, sampling into poses, blending, and applying a pose to a scene.
 *
 * kiln_anim_view_get checks every rule of kanim.md (cited as R<n>), so the
 * sampling calls index times, values and poses without checks of their own.
 * Sampling follows glTF 2.0 Appendix C: STEP holds key k on [t_k, t_k+1),
 * LINEAR interpolates (slerp on the shortest arc for rotations), CUBICSPLINE
 * is the Hermite spline p(s) = (2s^3 - 3s^2 + 1) v_k + d (s^3 - 2s^2 + s) b_k
 * + (-2s^3 + 3s^2) v_k+1 + d (s^3 - s^2) a_k+1 with d = t_k+1 - t_k and b_k,
 * a_k+1 the out and in tangents. Times before the first key give the first
 * key's value, after the last the last's. Nothing allocates. */
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "common/checked.h"
#include "kiln/kiln.h"
#include "runtime/anim_eval.h"
#include "runtime/internal.h"

/* ---------------------------------------------------------------------------
 * The view
 * ------------------------------------------------------------------------- */

typedef struct anim_chunks {
    const kiln_chunk_entry *desc, *clips, *channels, *times, *values, *morphs, *weights, *strings,
        *quantized, *errors;
} anim_chunks;

/* R3: each known chunk at most once; absent ones read as empty. */
static kiln_result find_chunks(const kiln_file *file, anim_chunks *c, kiln_error *err) {
    memset(c, 0, sizeof *c);
    const runtime_known_chunk known[] = {
        {KILN_CHUNK_ANIM_DESC, &c->desc},           {KILN_CHUNK_ANIM_CLIPS, &c->clips},
        {KILN_CHUNK_ANIM_CHANNELS, &c->channels},   {KILN_CHUNK_ANIM_TIMES, &c->times},
        {KILN_CHUNK_ANIM_VALUES, &c->values},       {KILN_CHUNK_ANIM_MORPHS, &c->morphs},
        {KILN_CHUNK_ANIM_WEIGHTS, &c->weights},     {KILN_CHUNK_ANIM_STRINGS, &c->strings},
        {KILN_CHUNK_ANIM_QUANTIZED, &c->quantized}, {KILN_CHUNK_ANIM_ERRORS, &c->errors},
    };
    return runtime_find_chunks(file, known, sizeof known / sizeof known[0], err);
}

/* R12: a string lies inside ASTR, holds no NUL and has one after it. */
static bool string_valid(const kiln_anim_view *v, uint32_t offset, uint32_t length) {
    return runtime_string_valid(v->strings, v->strings_size, offset, length);
}

static uint32_t path_components(uint8_t path) {
    return path == KILN_ANIM_ROTATION ? 4u : 3u;
}

/* R11: morph records by increasing node, their weight ranges tiling AWGT. */
static kiln_result check_morphs(const kiln_file *file, const kiln_anim_view *v, kiln_error *err) {
    uint32_t next = 0;
    for (uint32_t m = 0; m < v->morph_count; m++) {
        const kiln_anim_morph *r = &v->morphs[m];
        if (r->node >= v->node_count || (m > 0 && r->node <= v->morphs[m - 1].node) ||
            r->weight_count == 0 || r->weight_offset != next || r->reserved != 0 ||
            (uint64_t)r->weight_offset + r->weight_count > v->weight_count)
            return runtime_fail(err, KILN_ERR_CORRUPT, file->name,
                                "morph record %" PRIu32 " (node %" PRIu32 ", weights %" PRIu32
                                " +%" PRIu32 ") is out of order or range",
                                m, r->node, r->weight_offset, r->weight_count);
        next = r->weight_offset + r->weight_count;
    }
    if (next != v->weight_count)
        return runtime_fail(err, KILN_ERR_CORRUPT, file->name,
                            "morph records cover %" PRIu32 " of %" PRIu32 " weights", next,
                            v->weight_count);
    return KILN_OK;
}

static const kiln_anim_morph *find_morph(const kiln_anim_view *v, uint32_t node) {
    uint32_t lo = 0, hi = v->morph_count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (v->morphs[mid].node < node)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < v->morph_count && v->morphs[lo].node == node ? &v->morphs[lo] : NULL;
}

/* R8-R10 (R13 for quantized channels): channel i, lying in a clip spanning
 * [start, duration]. */
static kiln_result check_channel(const kiln_file *file, const kiln_anim_view *v, uint32_t i,
                                 const kiln_anim_clip *clip, bool deep, kiln_error *err) {
    const char *name = file->name;
    const kiln_anim_channel *c = &v->channels[i];
    if (c->node >= v->node_count || c->path >= KILN_ANIM_PATH_COUNT_ ||
        c->interpolation >= KILN_ANIM_INTERPOLATION_COUNT_ ||
        c->encoding >= KILN_ANIM_ENCODING_COUNT_ || c->reserved[0] != 0 || c->reserved[1] != 0 ||
        c->reserved[2] != 0) /* R8 */
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "channel %" PRIu32 ": node %" PRIu32 " of %" PRIu32
                            ", path %u, interpolation %u, encoding %u",
                            i, c->node, v->node_count, (unsigned)c->path,
                            (unsigned)c->interpolation, (unsigned)c->encoding);
    bool quantized = c->encoding == KILN_ANIM_QUANTIZED;
    if (c->path == KILN_ANIM_WEIGHTS) { /* R8 */
        const kiln_anim_morph *m = find_morph(v, c->node);
        if (m == NULL || m->weight_offset != c->weight_offset || m->weight_count != c->components ||
            quantized)
            return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                "channel %" PRIu32 " animates weights %" PRIu32
                                " +%u of node %" PRIu32 ", which has no such morph weights",
                                i, c->weight_offset, (unsigned)c->components, c->node);
    } else if (c->components != path_components(c->path) ||
               (c->weight_offset != 0 && !(quantized && c->path != KILN_ANIM_ROTATION))) {
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "channel %" PRIu32 " has %u components for path %u", i,
                            (unsigned)c->components, (unsigned)c->path);
    }
    if (quantized && c->interpolation == KILN_ANIM_CUBICSPLINE) /* R13 */
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "channel %" PRIu32 " is quantized and CUBICSPLINE", i);
    uint64_t values = (uint64_t)c->key_count * c->components *
                      (c->interpolation == KILN_ANIM_CUBICSPLINE ? 3u : 1u);
    uint64_t words = quantized ? (uint64_t)c->key_count * 3u : 0u;
    if (c->key_count == 0 || (uint64_t)c->time_offset + c->key_count > v->desc->time_count ||
        (quantized ? (uint64_t)c->value_offset + words > v->quant_count
                   : (uint64_t)c->value_offset + values > v->desc->value_count)) /* R9, R13 */
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "channel %" PRIu32 ": %" PRIu32 " keys at time %" PRIu32
                            ", values at %" PRIu32 ", outside the key tables",
                            i, c->key_count, c->time_offset, c->value_offset);
    if (quantized && c->path != KILN_ANIM_ROTATION) { /* R13: min xyz, step xyz */
        const float *range = v->values + c->range_offset;
        if ((uint64_t)c->range_offset + 6u > v->desc->value_count ||
            !runtime_all_finite(range, 6) || !(range[3] >= 0.0f) || !(range[4] >= 0.0f) ||
            !(range[5] >= 0.0f))
            return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                "channel %" PRIu32 ": its range at %" PRIu32
                                " is outside AVAL, not finite or has a negative step",
                                i, c->range_offset);
    }
    const float *t = v->times + c->time_offset;
    for (uint32_t k = 0; k < c->key_count; k++) { /* R10 */
        if (!isfinite(t[k]) || t[k] < clip->start || t[k] > clip->duration ||
            (k > 0 && !(t[k] > t[k - 1])))
            return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                "channel %" PRIu32 " key %" PRIu32
                                " time %g is not finite, increasing and within its clip",
                                i, k, (double)t[k]);
    }
    if (deep && !quantized &&
        !runtime_all_finite(v->values + c->value_offset, (size_t)values)) /* R10 */
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "channel %" PRIu32 " has a non-finite value", i);
    return KILN_OK;
}

kiln_result kiln_anim_view_get(const kiln_file *file, uint32_t flags, kiln_anim_view *view,
                               kiln_error *err) {
    if (view != NULL)
        memset(view, 0, sizeof *view);
    if (file == NULL || file->data == NULL || view == NULL)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln",
                            "kiln_anim_view_get needs an open file and a view");
    if ((flags & ~(uint32_t)(KILN_OPEN_VERIFY_CHECKSUM | KILN_OPEN_DEEP)) != 0)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, file->name, "unknown flags 0x%" PRIx32,
                            flags);
    const char *name = file->name;
    if (file->kind != KILN_KIND_ANIM) { /* R1 */
        char fourcc[5];
        kiln_fourcc_str(file->kind, fourcc);
        return runtime_fail(err, KILN_ERR_BAD_MAGIC, name,
                            "not an animation file (kind '%s', expected 'ANIM')", fourcc);
    }
    if (runtime_require_plain(file, err) != KILN_OK) /* container.md R24 */
        return KILN_ERR_UNSUPPORTED;
    if (file->kind_version != 1 && file->kind_version != KILN_ANIM_VERSION) /* R2 */
        return runtime_fail(err, KILN_ERR_UNSUPPORTED, name,
                            "animation version %u is not supported (this build reads versions 1 "
                            "and %u)",
                            (unsigned)file->kind_version, KILN_ANIM_VERSION);
    anim_chunks c;
    kiln_result r = find_chunks(file, &c, err);
    if (r != KILN_OK)
        return r;
    if (c.desc == NULL || c.desc->size != sizeof(kiln_anim_desc)) /* R4 */
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "no ADSC chunk of %zu bytes (animation descriptor)",
                            sizeof(kiln_anim_desc));
    const kiln_anim_desc *d = (const kiln_anim_desc *)(const void *)(file->data + c.desc->offset);
    if (d->flags != 0) /* R5 */
        return runtime_fail(err, KILN_ERR_UNSUPPORTED, name, "unknown animation flags 0x%" PRIx32,
                            d->flags);
    for (int k = 0; k < 4; k++)
        if (d->reserved[k] != 0) /* R5 */
            return runtime_fail(err, KILN_ERR_CORRUPT, name, "descriptor reserved words are not 0");
    uint32_t error_count = c.errors != NULL && c.errors->size > 0 ? d->clip_count : 0;
    if (file->kind_version == 1 &&
        (d->quant_count != 0 || c.quantized != NULL || c.errors != NULL)) /* R5 */
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "version 1 file with quantized keys or clip errors");
    kiln_anim_view v = {.desc = d,
                        .clip_count = d->clip_count,
                        .channel_count = d->channel_count,
                        .morph_count = d->morph_count,
                        .weight_count = d->weight_count,
                        .node_count = d->node_count,
                        .strings_size = d->strings_size,
                        .quant_count = d->quant_count};
    const void *quantized = NULL, *errors = NULL;
    const void *clips = NULL, *channels = NULL, *times = NULL, *values = NULL, *morphs = NULL,
               *weights = NULL, *strings = NULL;
    if ((r = runtime_sized_chunk(file, c.clips, d->clip_count, sizeof(kiln_anim_clip), "ACLP",
                                 &clips, err)) != KILN_OK ||
        (r = runtime_sized_chunk(file, c.channels, d->channel_count, sizeof(kiln_anim_channel),
                                 "ACHN", &channels, err)) != KILN_OK ||
        (r = runtime_sized_chunk(file, c.times, d->time_count, sizeof(float), "ATIM", &times,
                                 err)) != KILN_OK ||
        (r = runtime_sized_chunk(file, c.values, d->value_count, sizeof(float), "AVAL", &values,
                                 err)) != KILN_OK ||
        (r = runtime_sized_chunk(file, c.morphs, d->morph_count, sizeof(kiln_anim_morph), "AMPH",
                                 &morphs, err)) != KILN_OK ||
        (r = runtime_sized_chunk(file, c.weights, d->weight_count, sizeof(float), "AWGT", &weights,
                                 err)) != KILN_OK ||
        (r = runtime_sized_chunk(file, c.strings, d->strings_size, 1, "ASTR", &strings, err)) !=
            KILN_OK ||
        (r = runtime_sized_chunk(file, c.quantized, d->quant_count, sizeof(uint16_t), "AQNT",
                                 &quantized, err)) != KILN_OK ||
        (r = runtime_sized_chunk(file, c.errors, error_count, sizeof(kiln_anim_clip_error), "AERR",
                                 &errors, err)) != KILN_OK)
        return r; /* R6 */
    v.quantized = quantized;
    v.errors = errors;
    if (errors != NULL) {
        const float *e = (const float *)errors;
        for (size_t k = 0; k < (size_t)error_count * 4; k++)
            if (!isfinite(e[k]) || e[k] < 0.0f) /* R14 */
                return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                    "clip %zu's error is negative or not finite", k / 4);
    }
    v.clips = clips;
    v.channels = channels;
    v.times = times;
    v.values = values;
    v.morphs = morphs;
    v.weights = weights;
    v.strings = strings;
    if ((r = check_morphs(file, &v, err)) != KILN_OK) /* R11 */
        return r;
    if (v.weight_count > 0 && !runtime_all_finite(v.weights, v.weight_count)) /* R11 */
        return runtime_fail(err, KILN_ERR_CORRUPT, name, "a default morph weight is not finite");
    bool deep = (flags & KILN_OPEN_DEEP) != 0;
    uint32_t next = 0;
    for (uint32_t i = 0; i < v.clip_count; i++) { /* R7 */
        const kiln_anim_clip *clip = &v.clips[i];
        if (clip->first_channel != next ||
            (uint64_t)clip->first_channel + clip->channel_count > v.channel_count)
            return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                "clip %" PRIu32 " has channels %" PRIu32 " +%" PRIu32
                                "; expected to start at %" PRIu32,
                                i, clip->first_channel, clip->channel_count, next);
        next += clip->channel_count;
        if (!string_valid(&v, clip->name_offset, clip->name_length) ||
            (clip->dropped_length == 0
                 ? clip->dropped_offset != 0
                 : !string_valid(&v, clip->dropped_offset, clip->dropped_length))) /* R12 */
            return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                "clip %" PRIu32 " has a string outside ASTR", i);
        if (!isfinite(clip->start) || !isfinite(clip->duration) || clip->start < 0.0f ||
            clip->start > clip->duration ||
            (clip->channel_count == 0 && (clip->start != 0.0f || clip->duration != 0.0f)))
            return runtime_fail(err, KILN_ERR_CORRUPT, name, "clip %" PRIu32 " spans %g .. %g", i,
                                (double)clip->start, (double)clip->duration);
        for (uint32_t k = 0; k < clip->channel_count; k++)
            if ((r = check_channel(file, &v, clip->first_channel + k, clip, deep, err)) != KILN_OK)
                return r;
    }
    if (next != v.channel_count) /* R7 */
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "clips hold %" PRIu32 " of %" PRIu32 " channels", next,
                            v.channel_count);
    *view = v;
    return KILN_OK;
}

const char *kiln_anim_clip_name(const kiln_anim_view *view, uint32_t clip) {
    if (view == NULL || clip >= view->clip_count)
        return "";
    return view->strings + view->clips[clip].name_offset;
}

const char *kiln_anim_clip_dropped(const kiln_anim_view *view, uint32_t clip) {
    if (view == NULL || clip >= view->clip_count || view->clips[clip].dropped_length == 0)
        return "";
    return view->strings + view->clips[clip].dropped_offset;
}

kiln_result kiln_anim_find_clip(const kiln_anim_view *view, const char *name, uint32_t *clip) {
    if (view == NULL || name == NULL || clip == NULL)
        return KILN_ERR_INVALID_ARGUMENT;
    for (uint32_t i = 0; i < view->clip_count; i++) {
        if (strcmp(kiln_anim_clip_name(view, i), name) == 0) {
            *clip = i;
            return KILN_OK;
        }
    }
    return KILN_ERR_NOT_FOUND;
}

const char *kiln_anim_path_str(kiln_anim_path path) {
    static const char *const names[] = {"translation", "rotation", "scale", "weights"};
    return (unsigned)path < KILN_ANIM_PATH_COUNT_ ? names[path] : "unknown";
}

const char *kiln_anim_interpolation_str(kiln_anim_interpolation interpolation) {
    static const char *const names[] = {"linear", "step", "cubicspline"};
    return (unsigned)interpolation < KILN_ANIM_INTERPOLATION_COUNT_ ? names[interpolation]
                                                                    : "unknown";
}

/* ---------------------------------------------------------------------------
 * Sampling
 * ------------------------------------------------------------------------- */

void kiln_anim_sample_channel(const kiln_anim_view *view, uint32_t channel, float time,
                              uint32_t *cursor, float *out) {
    const kiln_anim_channel *c = &view->channels[channel];
    key_position p =
        locate(view->times + c->time_offset, c->key_count, time, cursor != NULL ? *cursor : 0);
    if (cursor != NULL)
        *cursor = cursor_of(p, c->key_count);
    evaluate(view, c, p, out);
}

/* Where translation, rotation and scale lie in a kiln_scene_transform. */
static const size_t path_field[3] = {offsetof(kiln_scene_transform, translation),
                                     offsetof(kiln_scene_transform, rotation),
                                     offsetof(kiln_scene_transform, scale)};

/* Channels sharing a time range (kanim.md: the cooker shares equal times)
 * share the search too: the position found for one serves the next while
 * its range is the same. */
kiln_result kiln_anim_sample(const kiln_anim_view *view, uint32_t clip, float time,
                             uint32_t *cursors, kiln_anim_pose *pose, kiln_error *err) {
    if (view == NULL || pose == NULL || clip >= view->clip_count)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln",
                            "kiln_anim_sample: clip %" PRIu32 " of %" PRIu32, clip,
                            view != NULL ? view->clip_count : 0);
    const kiln_anim_clip *cl = &view->clips[clip];
    const kiln_anim_channel *channels = view->channels + cl->first_channel;
    uint32_t range_offset = UINT32_MAX, range_count = 0, cursor = 0;
    key_position p = {0, false, 0.0f, 0.0f};
    for (uint32_t k = 0; k < cl->channel_count; k++) {
        const kiln_anim_channel *c = &channels[k];
        if (c->time_offset != range_offset || c->key_count != range_count) {
            range_offset = c->time_offset;
            range_count = c->key_count;
            p = locate(view->times + range_offset, range_count, time,
                       cursors != NULL ? cursors[k] : 0);
            cursor = cursor_of(p, range_count);
        }
        if (cursors != NULL)
            cursors[k] = cursor;
        float *out = c->path == KILN_ANIM_WEIGHTS
                         ? pose->weights + c->weight_offset
                         : (float *)(void *)((char *)&pose->local[c->node] + path_field[c->path]);
        evaluate(view, c, p, out);
    }
    return KILN_OK;
}

kiln_result kiln_anim_pose_rest(const kiln_anim_view *view, const kiln_scene_view *scene,
                                kiln_anim_pose *pose, kiln_error *err) {
    if (view == NULL || scene == NULL || pose == NULL || scene->node_count != view->node_count)
        return runtime_fail(
            err, KILN_ERR_INVALID_ARGUMENT, "kiln",
            "kiln_anim_pose_rest: the scene has %" PRIu32 " nodes, the clips animate %" PRIu32,
            scene != NULL ? scene->node_count : 0, view != NULL ? view->node_count : 0);
    if (view->node_count > 0)
        memcpy(pose->local, scene->transforms, view->node_count * sizeof *pose->local);
    if (view->weight_count > 0)
        memcpy(pose->weights, view->weights, view->weight_count * sizeof *pose->weights);
    return KILN_OK;
}

void kiln_anim_pose_blend(const kiln_anim_pose *a, const kiln_anim_pose *b, float t,
                          uint32_t node_count, uint32_t weight_count, kiln_anim_pose *out) {
    for (uint32_t i = 0; i < node_count; i++) {
        const kiln_scene_transform *x = &a->local[i], *y = &b->local[i];
        kiln_scene_transform r;
        for (int k = 0; k < 3; k++) {
            r.translation[k] = x->translation[k] + t * (y->translation[k] - x->translation[k]);
            r.scale[k] = x->scale[k] + t * (y->scale[k] - x->scale[k]);
        }
        slerp(x->rotation, y->rotation, t, r.rotation);
        out->local[i] = r;
    }
    for (uint32_t k = 0; k < weight_count; k++)
        out->weights[k] = a->weights[k] + t * (b->weights[k] - a->weights[k]);
}

kiln_result kiln_anim_apply(const kiln_anim_view *view, uint32_t clip, const kiln_anim_pose *pose,
                            kiln_scene_instance *instance, kiln_error *err) {
    if (view == NULL || pose == NULL || instance == NULL || clip >= view->clip_count ||
        instance->node_count != view->node_count)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln",
                            "kiln_anim_apply: clip %" PRIu32 " of %" PRIu32
                            ", or the instance's nodes are not the clips'",
                            clip, view != NULL ? view->clip_count : 0);
    const kiln_anim_clip *cl = &view->clips[clip];
    for (uint32_t k = 0; k < cl->channel_count; k++) {
        const kiln_anim_channel *c = &view->channels[cl->first_channel + k];
        if (c->path == KILN_ANIM_WEIGHTS)
            continue;
        kiln_result r = kiln_scene_set_local(instance, c->node, &pose->local[c->node], err);
        if (r != KILN_OK)
            return r;
    }
    return KILN_OK;
}
