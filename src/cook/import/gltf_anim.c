/*
 * gltf_anim.c — glTF animations into ir_animation, and every node's default
 * morph weights (ir_node.weights).
 *
 * Runs after gltf_check_animations, so every sampler and channel it reads
 * has passed the validator's rules (input SCALAR FLOAT with min/max, times
 * non-negative and strictly increasing, output format per path, output count
 * = keys x components x 3 for CUBICSPLINE, weights only on nodes whose mesh
 * has morph targets, one channel per node and path, unit rotations); reading
 * the data adds the non-finite check (gltf_read_floats).
 *
 * What is not cooked is named in a warning and kept in the clip's `dropped`
 * text for `kiln info`: KHR_animation_pointer channels, channels without a
 * target node, extensions on animations, samplers and channels, and samplers
 * no channel uses.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cook/import/gltf_internal.h"

/* Appends "<what>" to the clip's dropped list (space-separated). */
static bool add_dropped(gltf *g, ir_animation *clip, const char *what) {
    size_t old = clip->dropped ? strlen(clip->dropped) : 0, add = strlen(what);
    char *text = realloc(clip->dropped, old + add + 2);
    if (text == NULL)
        return gltf_out_of_memory(g);
    if (old > 0)
        text[old++] = ' ';
    memcpy(text + old, what, add + 1);
    clip->dropped = text;
    return true;
}

/* Extensions on an animation object: none is cooked. */
static bool drop_extensions(gltf *g, ir_animation *clip, const json_t *obj, const char *jpath) {
    const json_t *extensions = json_object_get(obj, "extensions");
    const char *name;
    const json_t *value;
    json_object_foreach((json_t *)extensions, name, value) {
        (void)value;
        gltf_warning(g, "%s.extensions.%s: not supported; not cooked", jpath, name);
        char what[GLTF_PATH_SIZE + 64];
        snprintf(what, sizeof what, "%s.extensions.%s", jpath, name);
        if (!add_dropped(g, clip, what))
            return false;
    }
    return true;
}

static uint32_t node_targets(gltf *g, int64_t node) {
    const json_t *obj = json_array_get(g->j_nodes, (size_t)node);
    const json_t *mesh = json_object_get(obj, "mesh");
    if (!json_is_integer(mesh) || json_integer_value(mesh) < 0 ||
        (size_t)json_integer_value(mesh) >= g->n_meshes)
        return 0;
    return g->mesh_targets[json_integer_value(mesh)];
}

/* Reads glTF sampler `s` of `anim` into `out` for a channel of `path`: 1, or
 * 0 after an error, or -1 when it has no data (a warning: not cooked). */
static int read_sampler(gltf *g, const json_t *anim, size_t a, size_t s, int path,
                        uint32_t components, ir_anim_sampler *out) {
    const json_t *sampler = json_array_get(json_object_get(anim, "samplers"), s);
    char spath[GLTF_PATH_SIZE], ipath[GLTF_PATH_SIZE], opath[GLTF_PATH_SIZE];
    gltf_pathf(spath, "animations[%zu].samplers[%zu]", a, s);
    gltf_pathf(ipath, "%s.input", spath);
    gltf_pathf(opath, "%s.output", spath);
    int64_t input = json_integer_value(json_object_get(sampler, "input"));
    int64_t output = json_integer_value(json_object_get(sampler, "output"));
    const char *interpolation = json_string_value(json_object_get(sampler, "interpolation"));
    out->interpolation = IR_INTERP_LINEAR;
    if (interpolation != NULL && strcmp(interpolation, "STEP") == 0)
        out->interpolation = IR_INTERP_STEP;
    else if (interpolation != NULL && strcmp(interpolation, "CUBICSPLINE") == 0)
        out->interpolation = IR_INTERP_CUBICSPLINE;
    out->components = components;
    out->key_count = g->accessors[input].count;
    if (!gltf_accessor_readable(g, (uint32_t)input) ||
        !gltf_accessor_readable(g, (uint32_t)output) ||
        (out->key_count > 1 && !gltf_accessor_stored(g, (uint32_t)input))) {
        gltf_warning(g,
                     "%s: no key data (a buffer without uri or BIN chunk, or times without a "
                     "bufferView); not cooked",
                     spath);
        return -1;
    }
    if (out->key_count == 0) {
        gltf_error(g, "%s: accessors[%lld] has no keys", ipath, (long long)input);
        return 0;
    }
    if (!gltf_read_floats(g, (uint32_t)input, ipath, &out->times) ||
        !gltf_read_floats(g, (uint32_t)output, opath, &out->values))
        return 0;
    /* The validator's checks, repeated on the data read: the IR's invariants
     * must hold even for an accessor whose data it could not check (zeros). */
    for (uint32_t k = 0; k < out->key_count; k++) {
        if (!(out->times[k] >= 0.0f) || (k > 0 && !(out->times[k] > out->times[k - 1]))) {
            gltf_error(g, "%s: accessors[%lld] times must be non-negative and increase (key %u)",
                       ipath, (long long)input, k);
            return 0;
        }
    }
    size_t groups = out->interpolation == IR_INTERP_CUBICSPLINE ? 3 : 1;
    size_t n = (size_t)out->key_count * groups;
    if ((size_t)g->accessors[output].count * g->accessors[output].components != n * components) {
        gltf_error(g, "%s: accessors[%lld] holds %u values; %zu expected", opath, (long long)output,
                   g->accessors[output].count * g->accessors[output].components, n * components);
        return 0;
    }
    if (path == IR_ANIM_ROTATION && out->interpolation != IR_INTERP_CUBICSPLINE) {
        for (size_t k = 0; k < n; k++) {
            float *q = out->values + 4 * k;
            double length = sqrt((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] +
                                 (double)q[3] * q[3]);
            if (!(length > 1e-6)) {
                gltf_error(g, "%s: accessors[%lld] rotation %zu is zero", opath, (long long)output,
                           k);
                return 0;
            }
            for (int c = 0; c < 4; c++)
                q[c] = (float)(q[c] / length);
        }
    }
    return 1;
}

static bool import_animation(gltf *g, size_t a, const int32_t *node_map, ir_animation *clip) {
    const json_t *anim = json_array_get(g->j_animations, a);
    const json_t *channels = json_object_get(anim, "channels");
    const json_t *samplers = json_object_get(anim, "samplers");
    char jpath[GLTF_PATH_SIZE];
    gltf_pathf(jpath, "animations[%zu]", a);
    clip->name = gltf_name(g, anim, "animation", a);
    if (clip->name == NULL || !drop_extensions(g, clip, anim, jpath))
        return false;
    size_t channel_count = json_array_size(channels), sampler_count = json_array_size(samplers);
    /* One IR sampler per glTF sampler and path (a sampler shared by channels
     * of one path is read once). */
    int64_t *sampler_map = malloc((sampler_count ? sampler_count : 1) * sizeof *sampler_map);
    clip->channels = calloc(channel_count ? channel_count : 1, sizeof *clip->channels);
    clip->samplers = calloc(channel_count ? channel_count : 1, sizeof *clip->samplers);
    if (sampler_map == NULL || clip->channels == NULL || clip->samplers == NULL) {
        free(sampler_map);
        return gltf_out_of_memory(g);
    }
    for (size_t s = 0; s < sampler_count; s++)
        sampler_map[s] = -1;
    bool ok = true;
    for (size_t s = 0; ok && s < sampler_count; s++) {
        char spath[GLTF_PATH_SIZE];
        gltf_pathf(spath, "%s.samplers[%zu]", jpath, s);
        ok = drop_extensions(g, clip, json_array_get(samplers, s), spath);
    }
    static const char *const paths[] = {"translation", "rotation", "scale", "weights"};
    for (size_t c = 0; ok && c < channel_count; c++) {
        const json_t *channel = json_array_get(channels, c);
        const json_t *target = json_object_get(channel, "target");
        char cpath[GLTF_PATH_SIZE];
        gltf_pathf(cpath, "%s.channels[%zu]", jpath, c);
        const char *path_name = json_string_value(json_object_get(target, "path"));
        const json_t *node_value = json_object_get(target, "node");
        size_t s = (size_t)json_integer_value(json_object_get(channel, "sampler"));
        ok = drop_extensions(g, clip, channel, cpath);
        char tpath[GLTF_PATH_SIZE];
        gltf_pathf(tpath, "%s.target", cpath);
        ok = ok && drop_extensions(g, clip, target, tpath);
        int path = -1;
        for (int k = 0; k < 4; k++)
            if (path_name != NULL && strcmp(path_name, paths[k]) == 0)
                path = k;
        if (ok && path < 0) { /* "pointer": KHR_animation_pointer */
            gltf_warning(g, "%s: a '%s' channel (KHR_animation_pointer) is not cooked", cpath,
                         path_name ? path_name : "");
            ok = add_dropped(g, clip, cpath);
            continue;
        }
        if (ok && !json_is_integer(node_value)) {
            gltf_warning(g, "%s.target: no node to animate; the channel is not cooked", cpath);
            ok = add_dropped(g, clip, cpath);
            continue;
        }
        if (!ok)
            break;
        int64_t node = json_integer_value(node_value);
        uint32_t components = path == IR_ANIM_WEIGHTS    ? node_targets(g, node)
                              : path == IR_ANIM_ROTATION ? 4u
                                                         : 3u;
        /* A sampler shared by channels of different paths is read per path. */
        if (sampler_map[s] < 0 || clip->samplers[sampler_map[s]].components != components) {
            ir_anim_sampler *sampler = &clip->samplers[clip->sampler_count];
            int read = read_sampler(g, anim, a, s, path, components, sampler);
            if (read != 1) {
                free(sampler->times);
                free(sampler->values);
                memset(sampler, 0, sizeof *sampler);
                ok = read < 0 && add_dropped(g, clip, cpath);
                if (ok)
                    continue;
                break;
            }
            sampler_map[s] = clip->sampler_count++;
        }
        ir_anim_channel *out = &clip->channels[clip->channel_count++];
        if (node_map[node] < 0) {
            gltf_error(g, "%s.target.node: node %lld was not imported", cpath, (long long)node);
            ok = false;
            break;
        }
        out->node = (uint32_t)node_map[node];
        out->path = (ir_anim_path)path;
        out->sampler = (uint32_t)sampler_map[s];
    }
    for (size_t s = 0; ok && s < sampler_count; s++) {
        bool used = false;
        for (size_t c = 0; c < channel_count && !used; c++)
            used = (size_t)json_integer_value(
                       json_object_get(json_array_get(channels, c), "sampler")) == s;
        if (!used) {
            char spath[GLTF_PATH_SIZE];
            gltf_pathf(spath, "%s.samplers[%zu]", jpath, s);
            gltf_warning(g, "%s: no channel uses this sampler; not cooked", spath);
            ok = add_dropped(g, clip, spath);
        }
    }
    free(sampler_map);
    return ok;
}

/* Default morph weights of every node whose mesh has morph targets. */
static bool import_weights(gltf *g, ir_asset *out) {
    for (uint32_t i = 0; i < out->node_count; i++) {
        ir_node *node = &out->nodes[i];
        if (node->source < 0)
            continue;
        const json_t *obj = json_array_get(g->j_nodes, (size_t)node->source);
        const json_t *mesh_index = json_object_get(obj, "mesh");
        if (!json_is_integer(mesh_index))
            continue;
        size_t mesh = (size_t)json_integer_value(mesh_index);
        uint32_t count = mesh < g->n_meshes ? g->mesh_targets[mesh] : 0;
        if (count == 0)
            continue;
        node->weights = calloc(count, sizeof *node->weights);
        if (node->weights == NULL)
            return gltf_out_of_memory(g);
        node->weight_count = count;
        const json_t *weights = json_object_get(obj, "weights");
        if (weights == NULL)
            weights = json_object_get(json_array_get(g->j_meshes, mesh), "weights");
        if (json_array_size(weights) != count) {
            if (weights != NULL)
                gltf_warning(g, "meshes[%zu].weights: %zu weights for %u morph targets; zeros used",
                             mesh, json_array_size(weights), count);
            continue;
        }
        for (uint32_t k = 0; k < count; k++) {
            double w = json_number_value(json_array_get(weights, k));
            node->weights[k] = isfinite(w) ? (float)w : 0.0f;
        }
    }
    return true;
}

bool gltf_import_animations(gltf *g, ir_asset *out) {
    if (!import_weights(g, out))
        return false;
    if (g->n_animations == 0)
        return true;
    int32_t *node_map = malloc((g->n_nodes ? g->n_nodes : 1) * sizeof *node_map);
    out->animations = calloc(g->n_animations, sizeof *out->animations);
    if (node_map == NULL || out->animations == NULL) {
        free(node_map);
        return gltf_out_of_memory(g);
    }
    for (size_t i = 0; i < g->n_nodes; i++)
        node_map[i] = -1;
    for (uint32_t i = 0; i < out->node_count; i++)
        if (out->nodes[i].source >= 0 && (size_t)out->nodes[i].source < g->n_nodes)
            node_map[out->nodes[i].source] = (int32_t)i;
    bool ok = true;
    for (size_t a = 0; ok && a < g->n_animations; a++) {
        out->animation_count++;
        ok = import_animation(g, a, node_map, &out->animations[a]);
    }
    free(node_map);
    return ok && !g->stopped;
}
