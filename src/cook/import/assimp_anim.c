/*
 * assimp_anim.c — assimp's animations (aiAnimation) into ir_animation, for
 * every format assimp reads (FBX, COLLADA, X, 3DS, ASE, LWS, BVH, MD5, ...).
 *
 * Clips: every aiAnimation in order, named by mName ("animation_<i>" when
 * empty). Times: a key's mTime is in ticks; seconds = ticks / mTicksPerSecond,
 * and a clip without ticks per second (0: the 3DS reader, for one) is taken at
 * 25 per second, the rate assimp's own viewer assumes, with a warning (as is a
 * negative or non-finite rate). assimp's clip runs from tick 0 to mDuration.
 *
 * Channels: an aiNodeAnim drives the node of its mNodeName: the first node of
 * that name in depth-first order, which is the node assimp's own FindNode
 * returns and the IR node order (assimp.c: node `source` = that position).
 * A name several nodes share is a warning (once per name); a name no node has
 * is a warning and the channel is not cooked. Its position, rotation and
 * scaling keys (each with its own times) become up to three IR channels,
 * translation, rotation, scale, in that order; a kind without keys leaves that
 * part of the node at its rest value. assimp 5.2 (Debian 12) has no
 * interpolation in its keys (aiVectorKey.mInterpolation came with 5.3): every
 * channel is LINEAR, rotations by shortest-arc slerp, as aiQuaternion::
 * Interpolate and assimp's viewer evaluate them. aiQuaternion is w, x, y, z;
 * the IR's x, y, z, w, normalised. A second aiNodeAnim of a clip for a node
 * already driven is a warning and not cooked.
 *
 * Outside a channel's keys kiln holds the nearest key (its sampler's rule).
 * That is mPreState / mPostState aiAnimBehaviour_CONSTANT, and what assimp's
 * readers mean by aiAnimBehaviour_DEFAULT in practice (every reader in 5.2
 * leaves DEFAULT, and assimp's viewer holds the nearest key too, though
 * anim.h describes DEFAULT as the node's own transform); LINEAR (extrapolate)
 * and REPEAT are named in a warning and in the clip's dropped list, and the
 * channel is cooked holding its end keys.
 *
 * So that the cooked clip covers assimp's [0, mDuration]: when its earliest
 * key is after 0, the channel holding it gets a copy of its first key at 0, and
 * when its latest key is before mDuration, the channel holding that one gets a
 * copy of its last key at mDuration: both hold values it had anyway. A
 * clip with keys before 0 (LightWave's pre-behaviour keys) is shifted so its
 * earliest key is at 0, with a warning. An mDuration before the last key is a
 * warning; the clip ends at its last key.
 *
 * Keys with the same time as the key before (a jump) keep both: the later
 * one moves to the next float after it. A channel kind with a time that goes
 * back, a time or value that is not finite, or a zero rotation is a warning
 * and is not cooked.
 *
 * Not cooked, each named in a warning and in the clip's dropped list (for
 * `kiln info`): aiMeshAnim (mesh replacement) and aiMeshMorphAnim (morph
 * weights: the assimp importer cooks no morph targets yet) channels, node
 * channels for nodes that do not exist or are driven twice, and the channel
 * kinds above that cannot be used.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <assimp/scene.h>

#include "common/fnv.h"
#include "cook/import/assimp_internal.h"

#define ASSIMP_DEFAULT_TICKS_PER_SECOND 25.0
/* Key times beyond this many seconds (1e30) are refused: shifted, they stay finite floats. */
#define ANIM_MAX_SECONDS 1e30

/* Node names → the first IR node of that name (depth-first) and how many
 * share it; open addressing, at most half full. */
typedef struct anim_name {
    const char *name; /* NULL: empty slot; the IR node's name, "" for none */
    size_t length;
    uint32_t node;
    uint32_t count;
    bool warned;
} anim_name;

typedef struct anim_state {
    cook_context *ctx;
    const char *path;
    ir_asset *out;
    anim_name *names;
    size_t names_cap;
    uint32_t *seen_clip; /* per IR node: 1 + the clip that drives it last */
    uint8_t *seen_paths; /* per IR node: bits of the paths that clip drives */
    /* the clip being converted */
    uint32_t clip;
    const char *clip_name;
    double ticks;
    double **seconds; /* per sampler of the clip: its key times in seconds */
    uint32_t pending; /* the sampler make_sampler fills */
    double shift;     /* seconds added to every time of the clip */
    uint32_t nudged;
} anim_state;

static bool anim_oom(anim_state *st) {
    diag_error(st->ctx->diag, st->path, 0, "out of memory");
    return false;
}

static bool build_names(anim_state *st) {
    const ir_asset *out = st->out;
    size_t cap = 16;
    while (cap < (size_t)out->node_count * 2)
        cap *= 2;
    st->names = calloc(cap, sizeof *st->names);
    if (st->names == NULL)
        return false;
    st->names_cap = cap;
    for (uint32_t i = 0; i < out->node_count; i++) {
        const ir_node *node = &out->nodes[i];
        if (node->source < 0)
            continue; /* made by the cooker (a camera's frame): not assimp's */
        const char *name = node->name ? node->name : "";
        size_t length = strlen(name);
        size_t j = (size_t)fnv1a64(name, length) & (cap - 1);
        for (; st->names[j].name != NULL; j = (j + 1) & (cap - 1))
            if (st->names[j].length == length && memcmp(st->names[j].name, name, length) == 0)
                break;
        if (st->names[j].name == NULL)
            st->names[j] = (anim_name){name, length, i, 0, false};
        else if (node->source < st->out->nodes[st->names[j].node].source)
            st->names[j].node = i; /* the first in depth-first order */
        st->names[j].count++;
    }
    return true;
}

static anim_name *find_name(anim_state *st, const struct aiString *name) {
    size_t length = aimp_string_length(name);
    size_t mask = st->names_cap - 1;
    for (size_t j = (size_t)fnv1a64(name->data, length) & mask; st->names[j].name != NULL;
         j = (j + 1) & mask)
        if (st->names[j].length == length && memcmp(st->names[j].name, name->data, length) == 0)
            return &st->names[j];
    return NULL;
}

/* Appends `what` to the clip's dropped list (space-separated). */
static bool add_dropped(anim_state *st, ir_animation *clip, const char *what) {
    size_t old = clip->dropped ? strlen(clip->dropped) : 0, add = strlen(what);
    char *text = realloc(clip->dropped, old + add + 2);
    if (text == NULL)
        return anim_oom(st);
    if (old > 0)
        text[old++] = ' ';
    memcpy(text + old, what, add + 1);
    clip->dropped = text;
    return true;
}

/* "mChannels[3](Bone_01)": the channel and its node's name, blanks made '_'
 * so the dropped list stays space-separated. */
static void channel_label(char *label, size_t size, unsigned c, const struct aiString *name) {
    int n =
        snprintf(label, size, "mChannels[%u](%.*s)", c, (int)aimp_string_length(name), name->data);
    for (size_t i = 0; n > 0 && i < (size_t)n && i < size && label[i] != '\0'; i++)
        if ((unsigned char)label[i] <= ' ')
            label[i] = '_';
}

/* ---------------------------------------------------------------------------
 * One kind of key of one channel
 * ------------------------------------------------------------------------- */

/* The keys of one kind, read out of assimp's arrays: times in ticks, values
 * (3 per key, or 4 as x y z w). */
typedef struct raw_keys {
    uint32_t count;
    uint32_t components;
    double *ticks;
    float *values;
} raw_keys;

static void raw_free(raw_keys *raw) {
    free(raw->ticks);
    free(raw->values);
    memset(raw, 0, sizeof *raw);
}

static bool read_vector_keys(const struct aiVectorKey *keys, unsigned count, raw_keys *raw) {
    raw->count = count;
    raw->components = 3;
    raw->ticks = malloc((count ? count : 1) * sizeof *raw->ticks);
    raw->values = malloc((count ? count : 1) * 3 * sizeof *raw->values);
    if (raw->ticks == NULL || raw->values == NULL)
        return false;
    for (unsigned k = 0; k < count; k++) {
        raw->ticks[k] = keys[k].mTime;
        raw->values[3 * (size_t)k] = (float)keys[k].mValue.x;
        raw->values[3 * (size_t)k + 1] = (float)keys[k].mValue.y;
        raw->values[3 * (size_t)k + 2] = (float)keys[k].mValue.z;
    }
    return true;
}

static bool read_quat_keys(const struct aiQuatKey *keys, unsigned count, raw_keys *raw) {
    raw->count = count;
    raw->components = 4;
    raw->ticks = malloc((count ? count : 1) * sizeof *raw->ticks);
    raw->values = malloc((count ? count : 1) * 4 * sizeof *raw->values);
    if (raw->ticks == NULL || raw->values == NULL)
        return false;
    for (unsigned k = 0; k < count; k++) {
        float *q = raw->values + 4 * (size_t)k;
        raw->ticks[k] = keys[k].mTime; /* aiQuaternion is w, x, y, z */
        q[0] = (float)keys[k].mValue.x;
        q[1] = (float)keys[k].mValue.y;
        q[2] = (float)keys[k].mValue.z;
        q[3] = (float)keys[k].mValue.w;
    }
    return true;
}

/* The keys as an IR sampler: 1, or 0 when they cannot be used (a warning
 * naming `label` and `kind`), or -1 out of memory. */
static int make_sampler(anim_state *st, raw_keys *raw, const char *label, const char *kind,
                        ir_anim_sampler *out) {
    uint32_t n = raw->count;
    for (uint32_t k = 0; k < n; k++) {
        bool finite = isfinite(raw->ticks[k]);
        for (uint32_t c = 0; finite && c < raw->components; c++)
            finite = isfinite(raw->values[(size_t)k * raw->components + c]);
        if (!finite) {
            diag_warning(st->ctx->diag, st->path, 0,
                         "animation '%s' %s.%s[%u]: a time or value that is not finite; these "
                         "keys are not cooked",
                         st->clip_name, label, kind, k);
            return 0;
        }
        if (k > 0 && raw->ticks[k] < raw->ticks[k - 1]) {
            diag_warning(st->ctx->diag, st->path, 0,
                         "animation '%s' %s.%s[%u]: time %g ticks is before the key before it "
                         "(%g); these keys are not cooked",
                         st->clip_name, label, kind, k, raw->ticks[k], raw->ticks[k - 1]);
            return 0;
        }
    }
    if (raw->components == 4) {
        for (uint32_t k = 0; k < n; k++) {
            float *q = raw->values + 4 * (size_t)k;
            double length = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] +
                                 (double)q[3] * q[3]);
            if (!(length > 1e-6)) {
                diag_warning(st->ctx->diag, st->path, 0,
                             "animation '%s' %s.%s[%u]: a zero rotation; these keys are not "
                             "cooked",
                             st->clip_name, label, kind, k);
                return 0;
            }
            for (int c = 0; c < 4; c++)
                q[c] = (float)(q[c] / length);
        }
    }
    /* Seconds, shifted once the clip's earliest key is known (finish_times). */
    for (uint32_t k = 0; k < n; k++) {
        double seconds = raw->ticks[k] / st->ticks;
        if (!(fabs(seconds) <= ANIM_MAX_SECONDS)) {
            diag_warning(st->ctx->diag, st->path, 0,
                         "animation '%s' %s.%s[%u]: time %g ticks is out of range in seconds; "
                         "these keys are not cooked",
                         st->clip_name, label, kind, k, raw->ticks[k]);
            return 0;
        }
        raw->ticks[k] = seconds;
    }
    st->seconds[st->pending] = raw->ticks; /* taken */
    raw->ticks = NULL;
    out->values = raw->values; /* taken */
    raw->values = NULL;
    out->key_count = n;
    out->components = raw->components;
    out->interpolation = IR_INTERP_LINEAR;
    return 1;
}

/* ---------------------------------------------------------------------------
 * Clips
 * ------------------------------------------------------------------------- */

static const char *behaviour_name(int state) {
    switch (state) {
    case aiAnimBehaviour_LINEAR:
        return "LINEAR";
    case aiAnimBehaviour_REPEAT:
        return "REPEAT";
    default:
        return NULL;
    }
}

/* Pre/post states kiln does not have: named, and the channel holds its ends. */
static bool check_states(anim_state *st, ir_animation *clip, const struct aiNodeAnim *channel,
                         const char *label) {
    const int states[2] = {(int)channel->mPreState, (int)channel->mPostState};
    static const char *const fields[2] = {"mPreState", "mPostState"};
    for (int s = 0; s < 2; s++) {
        if (states[s] == aiAnimBehaviour_DEFAULT || states[s] == aiAnimBehaviour_CONSTANT)
            continue;
        const char *name = behaviour_name(states[s]);
        char number[16];
        snprintf(number, sizeof number, "%d", states[s]);
        diag_warning(st->ctx->diag, st->path, 0,
                     "animation '%s' %s: %s %s is not supported; the channel holds its %s key "
                     "instead",
                     st->clip_name, label, fields[s], name ? name : number,
                     s == 0 ? "first" : "last");
        char what[300];
        int length =
            snprintf(what, sizeof what, "%s.%s=%s", label, fields[s], name ? name : number);
        if (length < 0 || (size_t)length >= sizeof what) /* a very long node name: mark the cut */
            memcpy(what + sizeof what - 4, "...", 4);
        if (!add_dropped(st, clip, what))
            return false;
    }
    return true;
}

/* Appends a sampler and its channel to the clip (arrays sized by the caller). */
static void add_channel(ir_animation *clip, uint32_t node, ir_anim_path path,
                        ir_anim_sampler *sampler) {
    clip->samplers[clip->sampler_count] = *sampler;
    clip->channels[clip->channel_count++] =
        (ir_anim_channel){.node = node, .path = path, .sampler = clip->sampler_count++};
    memset(sampler, 0, sizeof *sampler);
}

/* The node channel `c` of the clip: up to three IR channels. */
static bool convert_channel(anim_state *st, ir_animation *clip, const struct aiAnimation *anim,
                            unsigned c) {
    const struct aiNodeAnim *channel = anim->mChannels[c];
    char label[320];
    if (channel == NULL) {
        snprintf(label, sizeof label, "mChannels[%u]", c);
        diag_warning(st->ctx->diag, st->path, 0, "animation '%s' %s: no channel; not cooked",
                     st->clip_name, label);
        return add_dropped(st, clip, label);
    }
    channel_label(label, sizeof label, c, &channel->mNodeName);
    anim_name *entry = find_name(st, &channel->mNodeName);
    if (entry == NULL) {
        diag_warning(st->ctx->diag, st->path, 0,
                     "animation '%s' mChannels[%u]: no node is named '%.*s'; the channel is not "
                     "cooked",
                     st->clip_name, c, (int)aimp_string_length(&channel->mNodeName),
                     channel->mNodeName.data);
        return add_dropped(st, clip, label);
    }
    if (entry->count > 1 && !entry->warned) {
        diag_warning(st->ctx->diag, st->path, 0,
                     "%u nodes are named '%s': animation channels naming it drive the first in "
                     "depth-first order (as assimp's FindNode)",
                     entry->count, entry->name);
        entry->warned = true;
    }
    uint32_t node = entry->node;
    if (st->seen_clip[node] != st->clip + 1) {
        st->seen_clip[node] = st->clip + 1;
        st->seen_paths[node] = 0;
    }
    if (st->seen_paths[node] != 0) {
        diag_warning(st->ctx->diag, st->path, 0,
                     "animation '%s' mChannels[%u]: node '%s' is already driven by an earlier "
                     "channel; not cooked",
                     st->clip_name, c, entry->name);
        return add_dropped(st, clip, label);
    }
    if (!check_states(st, clip, channel, label))
        return false;
    struct {
        unsigned count;
        const void *keys;
        const char *kind;
        ir_anim_path path;
    } kinds[3] = {
        {channel->mNumPositionKeys, channel->mPositionKeys, "mPositionKeys", IR_ANIM_TRANSLATION},
        {channel->mNumRotationKeys, channel->mRotationKeys, "mRotationKeys", IR_ANIM_ROTATION},
        {channel->mNumScalingKeys, channel->mScalingKeys, "mScalingKeys", IR_ANIM_SCALE},
    };
    for (int k = 0; k < 3; k++) {
        if (kinds[k].count == 0 || kinds[k].keys == NULL)
            continue;
        raw_keys raw = {0};
        bool read = kinds[k].path == IR_ANIM_ROTATION
                        ? read_quat_keys(kinds[k].keys, kinds[k].count, &raw)
                        : read_vector_keys(kinds[k].keys, kinds[k].count, &raw);
        ir_anim_sampler sampler = {0};
        st->pending = clip->sampler_count;
        int made = read ? make_sampler(st, &raw, label, kinds[k].kind, &sampler) : -1;
        raw_free(&raw);
        if (made < 0)
            return anim_oom(st);
        if (made == 0) {
            char what[400];
            snprintf(what, sizeof what, "%s.%s", label, kinds[k].kind);
            if (!add_dropped(st, clip, what))
                return false;
            continue;
        }
        st->pending++;
        add_channel(clip, node, kinds[k].path, &sampler);
        st->seen_paths[node] |= (uint8_t)(1u << kinds[k].path);
    }
    return true;
}

/* Every sampler's times as floats, shifted so that the clip's earliest key
 * is not before 0; a key at (or, as a float, at) the time of the key before
 * it moves to the next float. */
static bool finish_times(anim_state *st, ir_animation *clip) {
    double earliest = 0.0;
    for (uint32_t s = 0; s < clip->sampler_count; s++)
        earliest = fmin(earliest, st->seconds[s][0]);
    double shift = -earliest;
    if (shift > 0.0)
        diag_warning(st->ctx->diag, st->path, 0,
                     "animation '%s' has keys before time 0 (from %g s): the clip is shifted by "
                     "%g s so it starts at 0",
                     st->clip_name, earliest, shift);
    st->shift = shift;
    st->nudged = 0;
    for (uint32_t s = 0; s < clip->sampler_count; s++) {
        ir_anim_sampler *sampler = &clip->samplers[s];
        const double *seconds = st->seconds[s];
        sampler->times = malloc(sampler->key_count * sizeof *sampler->times);
        if (sampler->times == NULL)
            return anim_oom(st);
        for (uint32_t k = 0; k < sampler->key_count; k++) {
            float t = (float)(seconds[k] + shift);
            if (k == 0 && t < 0.0f) /* the shift's rounding */
                t = 0.0f;
            if (k > 0 && !(t > sampler->times[k - 1])) { /* a jump, or closer than a float */
                t = nextafterf(sampler->times[k - 1], INFINITY);
                st->nudged++;
            }
            sampler->times[k] = t;
        }
    }
    if (st->nudged > 0)
        diag_note(st->ctx->diag, st->path, 0,
                  "animation '%s': %u keys at the time of the key before them (a jump) moved to "
                  "the next representable time",
                  st->clip_name, st->nudged);
    return true;
}

/* Inserts a copy of key `from` (0 or the last) of `s` at `time`, first or
 * last. */
static bool hold_key(ir_anim_sampler *s, bool at_end, float time) {
    size_t c = s->components, n = s->key_count;
    float *times = realloc(s->times, (n + 1) * sizeof *times);
    if (times == NULL)
        return false;
    s->times = times;
    float *values = realloc(s->values, (n + 1) * c * sizeof *values);
    if (values == NULL)
        return false;
    s->values = values;
    if (at_end) {
        times[n] = time;
        memcpy(values + n * c, values + (n - 1) * c, c * sizeof *values);
    } else {
        memmove(times + 1, times, n * sizeof *times);
        memmove(values + c, values, n * c * sizeof *values);
        times[0] = time;
    }
    s->key_count++;
    return true;
}

/* The clip's channels cover [0, end]: a held key at either end when needed. */
static bool cover_clip(anim_state *st, ir_animation *clip, double end_seconds,
                       const struct aiAnimation *anim) {
    if (clip->sampler_count == 0)
        return true;
    uint32_t first = 0, last = 0;
    for (uint32_t s = 1; s < clip->sampler_count; s++) {
        const ir_anim_sampler *a = &clip->samplers[s];
        if (a->times[0] < clip->samplers[first].times[0])
            first = s;
        if (a->times[a->key_count - 1] >
            clip->samplers[last].times[clip->samplers[last].key_count - 1])
            last = s;
    }
    if (clip->samplers[first].times[0] > 0.0f && !hold_key(&clip->samplers[first], false, 0.0f))
        return anim_oom(st);
    const ir_anim_sampler *l = &clip->samplers[last];
    float latest = l->times[l->key_count - 1];
    if (!isfinite(end_seconds))
        return true;
    float end = (float)end_seconds;
    if (isfinite(end) && end > latest) {
        if (!hold_key(&clip->samplers[last], true, end))
            return anim_oom(st);
    } else if (end_seconds < (double)latest * (1.0 - 1e-6) - 1e-6) {
        diag_warning(st->ctx->diag, st->path, 0,
                     "animation '%s': mDuration %g ticks is before its last key (%g s); the "
                     "clip ends at its last key",
                     st->clip_name, anim->mDuration, (double)latest);
    }
    return true;
}

static bool convert_clip(anim_state *st, const struct aiAnimation *anim, uint32_t a,
                         ir_animation *clip) {
    char fallback[32];
    snprintf(fallback, sizeof fallback, "animation_%u", a);
    size_t name_length = anim ? aimp_string_length(&anim->mName) : 0;
    clip->name = malloc(name_length > 0 ? name_length + 1 : strlen(fallback) + 1);
    if (clip->name == NULL)
        return anim_oom(st);
    if (name_length > 0) {
        memcpy(clip->name, anim->mName.data, name_length);
        clip->name[name_length] = '\0';
    } else {
        strcpy(clip->name, fallback);
    }
    st->clip = a;
    st->clip_name = clip->name;
    if (anim == NULL) {
        diag_warning(st->ctx->diag, st->path, 0, "mAnimations[%u]: no animation; an empty clip", a);
        char what[32];
        snprintf(what, sizeof what, "mAnimations[%u]", a);
        return add_dropped(st, clip, what);
    }
    st->ticks = anim->mTicksPerSecond;
    if (!(isfinite(st->ticks) && st->ticks > 0.0)) {
        if (st->ticks == 0.0)
            diag_warning(st->ctx->diag, st->path, 0,
                         "animation '%s' gives no ticks per second; assimp's default, 25, is "
                         "used",
                         clip->name);
        else
            diag_warning(st->ctx->diag, st->path, 0,
                         "animation '%s': ticks per second %g is not usable; assimp's default, "
                         "25, is used",
                         clip->name, st->ticks);
        st->ticks = ASSIMP_DEFAULT_TICKS_PER_SECOND;
    }
    unsigned channels = anim->mChannels != NULL ? anim->mNumChannels : 0;
    if (anim->mNumChannels > 0 && anim->mChannels == NULL)
        diag_warning(st->ctx->diag, st->path, 0,
                     "animation '%s': %u channels without a channel array; not cooked", clip->name,
                     anim->mNumChannels);
    size_t slots = (size_t)channels * 3;
    clip->samplers = calloc(slots ? slots : 1, sizeof *clip->samplers);
    clip->channels = calloc(slots ? slots : 1, sizeof *clip->channels);
    if (clip->samplers == NULL || clip->channels == NULL)
        return anim_oom(st);
    st->seconds = calloc(slots ? slots : 1, sizeof *st->seconds);
    if (st->seconds == NULL)
        return anim_oom(st);
    bool ok = true;
    for (unsigned c = 0; ok && c < channels; c++)
        ok = convert_channel(st, clip, anim, c);
    ok = ok && finish_times(st, clip);
    for (size_t s = 0; s < slots; s++)
        free(st->seconds[s]);
    free(st->seconds);
    st->seconds = NULL;
    if (!ok)
        return false;
    double end = isfinite(anim->mDuration) && anim->mDuration >= 0.0
                     ? anim->mDuration / st->ticks + st->shift
                     : NAN;
    if (!cover_clip(st, clip, end, anim))
        return false;
    char what[64];
    if (anim->mNumMeshChannels > 0) {
        diag_warning(st->ctx->diag, st->path, 0,
                     "animation '%s': %u mesh animation channels (aiMeshAnim) are not cooked",
                     clip->name, anim->mNumMeshChannels);
        for (unsigned c = 0; c < anim->mNumMeshChannels; c++) {
            snprintf(what, sizeof what, "mMeshChannels[%u]", c);
            if (!add_dropped(st, clip, what))
                return false;
        }
    }
    if (anim->mNumMorphMeshChannels > 0) {
        diag_warning(st->ctx->diag, st->path, 0,
                     "animation '%s': %u morph weight channels (aiMeshMorphAnim) are not cooked",
                     clip->name, anim->mNumMorphMeshChannels);
        for (unsigned c = 0; c < anim->mNumMorphMeshChannels; c++) {
            snprintf(what, sizeof what, "mMorphMeshChannels[%u]", c);
            if (!add_dropped(st, clip, what))
                return false;
        }
    }
    return true;
}

bool import_assimp_animations(cook_context *ctx, const char *path, const struct aiScene *scene,
                              ir_asset *out) {
    if (scene->mNumAnimations == 0)
        return true;
    if (scene->mAnimations == NULL) {
        diag_warning(ctx->diag, path, 0, "%u animations without an animation array; not cooked",
                     scene->mNumAnimations);
        return true;
    }
    anim_state st = {.ctx = ctx, .path = path, .out = out};
    size_t nodes = out->node_count ? out->node_count : 1;
    st.seen_clip = calloc(nodes, sizeof *st.seen_clip);
    st.seen_paths = calloc(nodes, sizeof *st.seen_paths);
    out->animations = calloc(scene->mNumAnimations, sizeof *out->animations);
    bool ok = st.seen_clip != NULL && st.seen_paths != NULL && out->animations != NULL &&
              build_names(&st);
    if (!ok)
        anim_oom(&st);
    for (unsigned a = 0; ok && a < scene->mNumAnimations; a++) {
        out->animation_count++;
        ok = convert_clip(&st, scene->mAnimations[a], a, &out->animations[a]);
    }
    free(st.names);
    free(st.seen_clip);
    free(st.seen_paths);
    return ok;
}
