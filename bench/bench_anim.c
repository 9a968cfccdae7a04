/*
 * bench_anim.c — sampling an animation clip every frame: libkiln's
 * kiln_anim_sample over a cooked .kanim against the straightforward
 * per-channel evaluation an engine without a cooker does over glTF accessors.
 *
 *   bench_anim [--joints N] [--keys K] [--seconds S]      (default 100, 301, 3)
 *              [--smooth 0|1] [--quantize 0|1]              (default 0, 0)
 *
 * The clip: N joints in a chain, each with a translation, rotation and scale
 * channel, LINEAR, K keys at 30 keys per second (the default: 10 s), values
 * from a fixed-seed generator: independent random values per key, or with
 * --smooth 1 sines (what sampled motion looks like: neighbouring rotation
 * keys a few degrees apart). --quantize 1 cooks it with anim.quantize (the
 * accessor side keeps the float keys; the poses then agree to 2e-4). It is built as IR, written by
 * the cooker's writers (.kscene and .kanim) and opened with the runtime exactly as a game would.
 * The same keys are also laid out as a glTF binary buffer would hold them: per sampler an input
 * accessor (times) and an output accessor (values), with byteOffset / byteStride / componentType
 * described by accessor records.
 *
 *   sampler    kiln_anim_sampler_sample(sampler, t, pose): the clip prepared
 *              once (channels grouped by key times and path, a cursor per
 *              group, rotations slerped four at a time); must give
 *              kiln_anim_sample's pose bit for bit (checked)
 *   kiln       kiln_anim_sample(view, clip, t, cursors, pose): one call per
 *              frame, key cursors kept between frames (forward playback)
 *   accessor   per channel and frame: a binary search over the input
 *              accessor's times, each read through a generic accessor reader
 *              (component type, normalisation, stride: what glTF loaders'
 *              read_float helpers do), then the two output elements read the
 *              same way and interpolated (slerp for rotations)
 *
 * Frames advance at 60 Hz through the clip, wrapping. Both produce the same
 * pose to 1e-5 (checked before timing). One core, timed in this thread's CPU
 * time (a busy machine does not count against either); the figure is joints
 * (three channels each) sampled per second, best of 5 runs of S/5 seconds.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "cook/process/process.h"
#include "cook/write/write.h"
#include "kiln/kiln.h"

static volatile float sink;

static uint64_t rng_state = 1;
static float rng_unit(void) { /* [-1, 1) */
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (float)((rng_state >> 40) / 8388608.0 - 1.0);
}

/* ---- the glTF-style layout and its generic reader ------------------------ */

typedef struct accessor {
    size_t offset; /* into the buffer */
    uint32_t stride;
    uint32_t component_type; /* 5126 FLOAT here; the reader handles the rest */
    uint32_t components;
    uint32_t count;
    int normalized;
} accessor;

/* cgltf_accessor_read_float-style: element `index` into out[components]. */
static void read_element(const uint8_t *buffer, const accessor *a, uint32_t index, float *out) {
    const uint8_t *p = buffer + a->offset + (size_t)a->stride * index;
    for (uint32_t c = 0; c < a->components; c++) {
        switch (a->component_type) {
        case 5126: {
            float f;
            memcpy(&f, p + 4 * c, 4);
            out[c] = f;
            break;
        }
        case 5123: {
            uint16_t v;
            memcpy(&v, p + 2 * c, 2);
            out[c] = a->normalized ? v / 65535.0f : v;
            break;
        }
        case 5122: {
            int16_t v;
            memcpy(&v, p + 2 * c, 2);
            out[c] = a->normalized ? fmaxf(v / 32767.0f, -1.0f) : v;
            break;
        }
        default:
            out[c] = a->normalized ? p[c] / 255.0f : p[c];
            break;
        }
    }
}

typedef struct gchannel {
    accessor input, output;
    int path; /* 0 T, 1 R, 2 S */
    uint32_t node;
} gchannel;

static void slerp_ref(const float *a, const float *b, float s, float *out) {
    float bb[4] = {b[0], b[1], b[2], b[3]};
    float dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    if (dot < 0) {
        dot = -dot;
        for (int k = 0; k < 4; k++)
            bb[k] = -bb[k];
    }
    float wa = 1 - s, wb = s;
    if (dot < 0.9995f) {
        float th = acosf(dot), sn = sinf(th);
        wa = sinf((1 - s) * th) / sn;
        wb = sinf(s * th) / sn;
    }
    float l = 0;
    for (int k = 0; k < 4; k++) {
        out[k] = wa * a[k] + wb * bb[k];
        l += out[k] * out[k];
    }
    l = sqrtf(l);
    for (int k = 0; k < 4; k++)
        out[k] /= l;
}

static void sample_accessors(const uint8_t *buffer, const gchannel *channels, uint32_t count,
                             float t, kiln_scene_transform *pose) {
    for (uint32_t c = 0; c < count; c++) {
        const gchannel *ch = &channels[c];
        float first, last;
        read_element(buffer, &ch->input, 0, &first);
        read_element(buffer, &ch->input, ch->input.count - 1, &last);
        float *out = ch->path == 0   ? pose[ch->node].translation
                     : ch->path == 1 ? pose[ch->node].rotation
                                     : pose[ch->node].scale;
        if (t <= first || t >= last) {
            read_element(buffer, &ch->output, t <= first ? 0 : ch->output.count - 1, out);
            continue;
        }
        uint32_t lo = 0, hi = ch->input.count - 1;
        while (hi - lo > 1) {
            uint32_t mid = (lo + hi) / 2;
            float tm;
            read_element(buffer, &ch->input, mid, &tm);
            if (tm <= t)
                lo = mid;
            else
                hi = mid;
        }
        float t0, t1, a[4], b[4];
        read_element(buffer, &ch->input, lo, &t0);
        read_element(buffer, &ch->input, lo + 1, &t1);
        read_element(buffer, &ch->output, lo, a);
        read_element(buffer, &ch->output, lo + 1, b);
        float s = (t - t0) / (t1 - t0);
        if (ch->path == 1)
            slerp_ref(a, b, s, out);
        else
            for (int k = 0; k < 3; k++)
                out[k] = a[k] + s * (b[k] - a[k]);
    }
}

int main(int argc, char **argv) {
    uint32_t joints = 100, keys = 301;
    double seconds = 3.0;
    bool smooth = false, quantize = false;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--joints") == 0)
            joints = (uint32_t)atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--keys") == 0)
            keys = (uint32_t)atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--seconds") == 0)
            seconds = atof(argv[i + 1]);
        else if (strcmp(argv[i], "--smooth") == 0)
            smooth = atoi(argv[i + 1]) != 0;
        else if (strcmp(argv[i], "--quantize") == 0)
            quantize = atoi(argv[i + 1]) != 0;
    }
    if (joints == 0 || keys < 2) {
        fprintf(stderr, "bench_anim: --joints >= 1, --keys >= 2\n");
        return 2;
    }
    /* IR: a chain of joints, one clip of 3 channels per joint. */
    ir_asset asset = {0};
    asset.nodes = calloc(joints, sizeof *asset.nodes);
    asset.node_count = joints;
    asset.animations = calloc(1, sizeof *asset.animations);
    asset.animation_count = 1;
    ir_animation *clip = asset.animations;
    clip->name = cook_strdup("clip");
    clip->samplers = calloc(3 * (size_t)joints, sizeof *clip->samplers);
    clip->channels = calloc(3 * (size_t)joints, sizeof *clip->channels);
    clip->sampler_count = clip->channel_count = 3 * joints;
    bytebuf buffer = {0};
    gchannel *gchannels = calloc(3 * (size_t)joints, sizeof *gchannels);
    for (uint32_t j = 0; j < joints; j++) {
        ir_node_init(&asset.nodes[j]);
        asset.nodes[j].parent = (int32_t)j - 1;
        asset.nodes[j].source = (int32_t)j;
        char name[32];
        snprintf(name, sizeof name, "joint%u", j);
        asset.nodes[j].name = cook_strdup(name);
        for (int p = 0; p < 3; p++) {
            uint32_t c = 3 * j + (uint32_t)p, n = p == 1 ? 4 : 3;
            /* --smooth 1: each component a sine of its own phase and rate
             * (up to ~1 radian a second), as motion sampled at 30 keys/s is;
             * else independent random values per key. */
            float phase[4], freq[4];
            for (int q = 0; q < 4; q++) {
                phase[q] = 6.2831853f * rng_unit();
                freq[q] = (0.2f + rng_unit()) / 30.0f * 3.0f;
            }
            ir_anim_sampler *s = &clip->samplers[c];
            s->key_count = keys;
            s->components = n;
            s->interpolation = IR_INTERP_LINEAR;
            s->times = malloc(keys * sizeof(float));
            s->values = malloc((size_t)keys * n * sizeof(float));
            for (uint32_t k = 0; k < keys; k++) {
                s->times[k] = (float)k / 30.0f;
                float *v = s->values + (size_t)k * n;
                for (uint32_t q = 0; q < n; q++)
                    v[q] =
                        (p == 2 ? 1.0f : 0.0f) +
                        (smooth ? 0.3f * sinf(phase[q] + (float)k * freq[q]) : 0.3f * rng_unit());
                if (p == 1) {
                    float l = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3]);
                    for (int q = 0; q < 4; q++)
                        v[q] /= l;
                }
            }
            clip->channels[c] = (ir_anim_channel){.node = j, .path = (ir_anim_path)p, .sampler = c};
            gchannel *g = &gchannels[c];
            g->path = p;
            g->node = j;
            g->input = (accessor){buffer.size, 4, 5126, 1, keys, 0};
            bytebuf_append(&buffer, s->times, keys * sizeof(float));
            g->output = (accessor){buffer.size, 4 * n, 5126, n, keys, 0};
            bytebuf_append(&buffer, s->values, (size_t)keys * n * sizeof(float));
        }
    }
    cook_settings settings;
    cook_settings_default(&settings);
    settings.anim_quantize = quantize; /* --quantize 1: sample quantized keys */
    if (!process_animations(&asset, &settings))
        return 1;
    cook_context ctx = {.input_root = ".",
                        .source_path = "bench.gltf",
                        .ref = "bench",
                        .source = (const uint8_t *)"{}",
                        .source_size = 2,
                        .settings = &settings};
    bytebuf anim_bytes = {0}, scene_bytes = {0};
    uint64_t no_mesh = 0;
    if (!write_kanim(&ctx, &asset, 1, "bench", &anim_bytes) ||
        !write_kscene(&ctx, &asset, &no_mesh, 0, "bench", &scene_bytes)) {
        fprintf(stderr, "bench_anim: writing failed\n");
        return 1;
    }
    void *anim_block, *scene_block;
    if (posix_memalign(&anim_block, 16, anim_bytes.size) != 0 ||
        posix_memalign(&scene_block, 16, scene_bytes.size) != 0)
        return 1;
    memcpy(anim_block, anim_bytes.data, anim_bytes.size);
    memcpy(scene_block, scene_bytes.data, scene_bytes.size);
    kiln_file anim_file, scene_file;
    kiln_anim_view anim;
    kiln_scene_view scene;
    kiln_error err;
    if (kiln_file_from_memory(&anim_file, anim_block, anim_bytes.size, "bench.kanim", 0, &err) ||
        kiln_anim_view_get(&anim_file, KILN_OPEN_DEEP, &anim, &err) ||
        kiln_file_from_memory(&scene_file, scene_block, scene_bytes.size, "bench.kscene", 0,
                              &err) ||
        kiln_scene_view_get(&scene_file, 0, &scene, &err)) {
        fprintf(stderr, "bench_anim: %s\n", err.message);
        return 1;
    }
    /* The chain's node i is file node i (a chain is its own depth-first order). */
    kiln_scene_transform *pose_a = calloc(joints, sizeof *pose_a);
    kiln_scene_transform *pose_b = calloc(joints, sizeof *pose_b);
    float weights[1];
    kiln_anim_pose pose = {pose_a, weights};
    kiln_anim_pose_rest(&anim, &scene, &pose, &err);
    memcpy(pose_b, pose_a, joints * sizeof *pose_b);
    uint32_t *cursors = calloc(3 * (size_t)joints, sizeof *cursors);
    kiln_scene_transform *pose_c = calloc(joints, sizeof *pose_c);
    memcpy(pose_c, pose_a, joints * sizeof *pose_c);
    kiln_anim_pose pose_s = {pose_c, weights};
    size_t sampler_size = kiln_anim_sampler_size(&anim, 0);
    void *sampler_memory = malloc(sampler_size);
    kiln_anim_sampler *sampler = NULL;
    if (kiln_anim_sampler_init(&anim, 0, sampler_memory, sampler_size, &sampler, &err) != KILN_OK) {
        fprintf(stderr, "bench_anim: %s\n", err.message);
        return 1;
    }
    float length = (float)(keys - 1) / 30.0f;
    /* Same pose from both, at many times. */
    double worst = 0;
    for (uint32_t f = 0; f < 2000; f++) {
        float t = fmodf((float)f / 60.0f, length + 0.5f) - 0.2f;
        kiln_anim_sample(&anim, 0, t, cursors, &pose, &err);
        kiln_anim_sampler_sample(sampler, t, &pose_s);
        if (memcmp(pose_a, pose_c, joints * sizeof *pose_c) != 0) {
            fprintf(stderr, "bench_anim: the sampler's pose differs from kiln_anim_sample's\n");
            return 1;
        }
        sample_accessors(buffer.data, gchannels, 3 * joints, t, pose_b);
        for (uint32_t j = 0; j < joints; j++) {
            const float *x = &pose_a[j].translation[0], *y = &pose_b[j].translation[0];
            double same = 0, flipped = 0; /* q and -q are one rotation */
            for (int k = 0; k < 10; k++) {
                bool rotation = k >= 3 && k < 7;
                worst = rotation ? worst : fmax(worst, fabs((double)x[k] - y[k]));
                same = rotation ? fmax(same, fabs((double)x[k] - y[k])) : same;
                flipped = rotation ? fmax(flipped, fabs((double)x[k] + y[k])) : flipped;
            }
            worst = fmax(worst, fmin(same, flipped));
        }
    }
    if (worst > (quantize ? 2e-4 : 1e-5)) {
        fprintf(stderr, "bench_anim: the two evaluations differ by %g\n", worst);
        return 1;
    }
    printf("anim sampling: %u joints x 3 LINEAR channels, %u keys each (%.1f s at 30 keys/s, "
           "%s keys%s), frames at 60 Hz; one core (thread CPU time); .kanim %zu bytes; poses "
           "agree to %.1e\n",
           joints, keys, (double)length, smooth ? "smooth" : "random",
           quantize ? ", quantized" : "", anim_bytes.size, worst);
    printf("  %-10s %14s %14s %10s\n", "method", "ns/frame", "joints/s", "speed-up");
    double best[3] = {1e30, 1e30, 1e30};
    for (int run = 0; run < 5; run++) {
        for (int m = 0; m < 3; m++) {
            uint64_t frames = 0;
            double start = bench_thread_seconds(), now = start;
            memset(cursors, 0, 3 * (size_t)joints * sizeof *cursors);
            while (now - start < seconds / 5) {
                for (int batch = 0; batch < 64; batch++, frames++) {
                    float t = fmodf((float)frames / 60.0f, length);
                    if (m == 0)
                        kiln_anim_sample(&anim, 0, t, cursors, &pose, &err);
                    else if (m == 1)
                        sample_accessors(buffer.data, gchannels, 3 * joints, t, pose_b);
                    else
                        kiln_anim_sampler_sample(sampler, t, &pose_s);
                }
                now = bench_thread_seconds();
            }
            sink += pose_a[joints / 2].rotation[0] + pose_b[joints / 2].rotation[0] +
                    pose_c[joints / 2].rotation[0];
            double per_frame = (now - start) / (double)frames;
            if (per_frame < best[m])
                best[m] = per_frame;
        }
    }
    const char *names[3] = {"kiln", "accessor", "sampler"};
    for (int m = 0; m < 3; m++)
        printf("  %-10s %14.0f %14.3g %9.1fx\n", names[m], best[m] * 1e9, joints / best[m],
               best[1] / best[m]);
    kiln_file_close(&anim_file);
    kiln_file_close(&scene_file);
    free(anim_block);
    free(scene_block);
    free(pose_a);
    free(pose_b);
    free(pose_c);
    free(sampler_memory);
    free(cursors);
    free(gchannels);
    bytebuf_free(&buffer);
    bytebuf_free(&anim_bytes);
    bytebuf_free(&scene_bytes);
    ir_asset_free(&asset);
    return 0;
}
