/* scene_units.c — scene.scale and scene.up: one conversion C = s·R (a
 * uniform scale s, R the rotation taking a Z-up source to kiln's Y-up, or
 * none) put in front of every root node, so that every world transform the
 * scene gives becomes C·W. Meshes, cameras, lights, skins and instances are
 * all placed through the nodes, so they all follow; vertex data is not
 * touched. A root's local transform T·Q·S becomes (s·R·t)·(R·Q)·(s·S) (s is a
 * scalar, so it commutes with the rotations), and so do the keys of every
 * clip channel that animates a root (CUBICSPLINE tangents too: the map is
 * linear). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cook/process/process.h"

/* -90 degrees about X: (x, y, z) -> (x, z, -y), Z up becomes Y up. */
static const float z_up_rotation[4] = {-0.70710678118654752f, 0.0f, 0.0f, 0.70710678118654752f};

static void quat_mul(const float a[4], const float b[4], float out[4]) {
    float r[4] = {
        a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
        a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
        a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
        a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
    };
    memcpy(out, r, sizeof r);
}

/* v = s·R·v, R given as its quaternion, or no rotation. */
static void convert_point(const scene_units *c, float v[3]) {
    float x = v[0], y = v[1], z = v[2];
    if (c->z_up) { /* exact for the quarter turn: no rounding of cos/sin */
        v[1] = z;
        v[2] = -y;
    }
    v[0] = x * c->scale;
    v[1] *= c->scale;
    v[2] *= c->scale;
}

static void convert_rotation(const scene_units *c, float q[4]) {
    if (c->z_up)
        quat_mul(z_up_rotation, q, q);
}

/* out = C·m, both column-major 4x4. */
static void convert_matrix(const scene_units *c, float m[16]) {
    for (int column = 0; column < 4; column++)
        convert_point(c, m + 4 * column); /* the upper three rows of each column */
}

static void convert_keys(const scene_units *c, ir_anim_path path, ir_anim_sampler *s) {
    size_t values = (size_t)s->key_count * (s->interpolation == IR_INTERP_CUBICSPLINE ? 3u : 1u);
    for (size_t k = 0; k < values; k++) {
        float *v = s->values + k * s->components;
        if (path == IR_ANIM_TRANSLATION)
            convert_point(c, v);
        else if (path == IR_ANIM_ROTATION)
            convert_rotation(c, v);
        else if (path == IR_ANIM_SCALE)
            for (int i = 0; i < 3; i++)
                v[i] *= c->scale;
    }
}

bool process_scene_units(ir_asset *asset, const scene_units *c, char *problem,
                         size_t problem_size) {
    if (c->scale == 1.0f && !c->z_up)
        return true;
    /* A root's channels first: a sampler another node's channel shares
     * would be converted for both. */
    for (uint32_t a = 0; a < asset->animation_count; a++) {
        ir_animation *anim = &asset->animations[a];
        for (uint32_t i = 0; i < anim->channel_count; i++) {
            const ir_anim_channel *ch = &anim->channels[i];
            if (ch->node >= asset->node_count || asset->nodes[ch->node].parent >= 0 ||
                ch->path == IR_ANIM_WEIGHTS)
                continue;
            for (uint32_t j = 0; j < anim->channel_count; j++) {
                if (j != i && anim->channels[j].sampler == ch->sampler) {
                    snprintf(problem, problem_size,
                             "animation '%s': root node '%s' shares its keys with another "
                             "channel, which scene.scale and scene.up cannot convert apart",
                             anim->name ? anim->name : "", asset->nodes[ch->node].name);
                    return false;
                }
            }
        }
    }
    for (uint32_t n = 0; n < asset->node_count; n++) {
        ir_node *node = &asset->nodes[n];
        if (node->parent >= 0)
            continue;
        convert_point(c, node->translation);
        convert_rotation(c, node->rotation);
        for (int i = 0; i < 3; i++)
            node->scale[i] *= c->scale;
        convert_matrix(c, node->matrix);
    }
    for (uint32_t a = 0; a < asset->animation_count; a++) {
        ir_animation *anim = &asset->animations[a];
        for (uint32_t i = 0; i < anim->channel_count; i++) {
            const ir_anim_channel *ch = &anim->channels[i];
            if (ch->node < asset->node_count && asset->nodes[ch->node].parent < 0 &&
                ch->sampler < anim->sampler_count)
                convert_keys(c, ch->path, &anim->samplers[ch->sampler]);
        }
    }
    return true;
}
