/* test_assimp_anim.c — assimp's animations (import/assimp_anim.c) cooked to
 * .kanim.
 *
 * * Models of Debian's assimp-testmodels package (FBX, COLLADA, X, 3DS) cooked
 *   by `kiln build` (the isolated importer, the IR wire, the model driver):
 *   clip names, durations and channel counts, and every channel sampled by
 *   the runtime (kiln_anim_sample on the cooked .kanim into a pose of the
 *   cooked .kscene) at every key, between keys and outside them, against an
 *   evaluation written here of the keys assimp itself gives for the same
 *   file in this process (linear for vectors, shortest-arc slerp in double
 *   precision, the nearest key held outside, ticks over mTicksPerSecond or
 *   25), within 1e-5 relative. Skipped, saying so, when the package is not
 *   installed (KILN_ASSIMP_MODELS names another folder).
 * * A hand-written .x file (no ticks per second, a channel naming a missing
 *   node) through the isolated importer.
 * * Hand-built aiScenes for what no test model has: shared names, jumps,
 *   negative times, unusable keys, pre/post states, mesh and morph
 *   animations, the clip's [0, mDuration] cover. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <assimp/cimport.h>
#include <assimp/config.h>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include "cli/cli.h"
#include "test_import.h"
#include "test_support.h"

#define DEFAULT_MODELS "/usr/share/assimp/models" /* Debian's assimp-testmodels */

static const char *models_dir(void) {
    const char *env = getenv("KILN_ASSIMP_MODELS");
    return env != NULL && env[0] != '\0' ? env : DEFAULT_MODELS;
}

static bool is_file(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* ---------------------------------------------------------------------------
 * assimp's keys, evaluated here
 * ------------------------------------------------------------------------- */

/* The interval of `ticks` in times[0..n): *k and the fraction, or the held
 * end key (fraction 0). */
static void find_interval(const double *times, unsigned n, double ticks, unsigned *k, double *s) {
    *s = 0.0;
    if (n == 1 || ticks <= times[0]) {
        *k = 0;
        return;
    }
    if (ticks >= times[n - 1]) {
        *k = n - 1;
        return;
    }
    unsigned i = 0;
    while (i + 1 < n && times[i + 1] <= ticks)
        i++;
    *k = i;
    *s = (ticks - times[i]) / (times[i + 1] - times[i]);
}

static void eval_vector(const struct aiVectorKey *keys, unsigned n, double ticks, double out[3]) {
    double *times = malloc(n * sizeof *times);
    assert_non_null(times);
    for (unsigned i = 0; i < n; i++)
        times[i] = keys[i].mTime;
    unsigned k;
    double s;
    find_interval(times, n, ticks, &k, &s);
    free(times);
    const struct aiVector3D *a = &keys[k].mValue, *b = &keys[k + (s > 0.0)].mValue;
    out[0] = a->x + s * ((double)b->x - a->x);
    out[1] = a->y + s * ((double)b->y - a->y);
    out[2] = a->z + s * ((double)b->z - a->z);
}

/* x y z w, unit. */
static void quat_of(const struct aiQuaternion *q, double out[4]) {
    double l =
        sqrt((double)q->x * q->x + (double)q->y * q->y + (double)q->z * q->z + (double)q->w * q->w);
    out[0] = q->x / l;
    out[1] = q->y / l;
    out[2] = q->z / l;
    out[3] = q->w / l;
}

static void eval_quat(const struct aiQuatKey *keys, unsigned n, double ticks, double out[4]) {
    double *times = malloc(n * sizeof *times);
    assert_non_null(times);
    for (unsigned i = 0; i < n; i++)
        times[i] = keys[i].mTime;
    unsigned k;
    double s;
    find_interval(times, n, ticks, &k, &s);
    free(times);
    double a[4], b[4];
    quat_of(&keys[k].mValue, a);
    quat_of(&keys[k + (s > 0.0)].mValue, b);
    double dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    if (dot < 0.0) { /* the shortest arc */
        dot = -dot;
        for (int c = 0; c < 4; c++)
            b[c] = -b[c];
    }
    double wa = 1.0 - s, wb = s;
    if (dot < 1.0 - 1e-12) {
        double theta = acos(dot > 1.0 ? 1.0 : dot);
        wa = sin((1.0 - s) * theta) / sin(theta);
        wb = sin(s * theta) / sin(theta);
    }
    double l = 0.0;
    for (int c = 0; c < 4; c++) {
        out[c] = wa * a[c] + wb * b[c];
        l += out[c] * out[c];
    }
    for (int c = 0; c < 4; c++)
        out[c] /= sqrt(l);
}

/* Depth-first positions: node `name`'s first, as assimp's FindNode finds it. */
static void dfs(const struct aiNode *node, const struct aiNode **order, unsigned *count) {
    order[(*count)++] = node;
    for (unsigned c = 0; c < node->mNumChildren; c++)
        dfs(node->mChildren[c], order, count);
}

static unsigned count_nodes(const struct aiNode *node) {
    unsigned n = 1;
    for (unsigned c = 0; c < node->mNumChildren; c++)
        n += count_nodes(node->mChildren[c]);
    return n;
}

static int first_named(const struct aiNode **order, unsigned count, const struct aiString *name) {
    for (unsigned i = 0; i < count; i++)
        if (order[i]->mName.length == name->length &&
            memcmp(order[i]->mName.data, name->data, name->length) == 0)
            return (int)i;
    return -1;
}

/* ---------------------------------------------------------------------------
 * Test models through `kiln build`
 * ------------------------------------------------------------------------- */

typedef struct loaded {
    kiln_file file;
    bool open;
} loaded;

static void load(loaded *l, const char *dir, const char *stem, const char *ext) {
    char name[512];
    snprintf(name, sizeof name, "%s%s", stem, ext);
    char *path = test_path_join(dir, name);
    kiln_error err;
    if (kiln_file_load(&l->file, path, KILN_OPEN_VERIFY_CHECKSUM, &err) != KILN_OK)
        fail_msg("%s: %s", path, err.message);
    l->open = true;
    free(path);
}

static int compare_doubles(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static bool close_enough(double got, double want) {
    return fabs(got - want) <= 1e-5 * fmax(1.0, fabs(want));
}

typedef struct model_totals {
    size_t clips, channels, samples;
    double worst; /* largest |got - want| / max(1, |want|) */
} model_totals;

/* One cooked test model against assimp's own reading of the same file. */
static void compare_model(const char *models, const char *out_dir, const char *relative,
                          model_totals *totals) {
    char *source = test_path_join(models, relative);
    struct aiPropertyStore *props = aiCreatePropertyStore();
    /* the properties kiln's importer sets (assimp.c): the same node graph */
    aiSetImportPropertyInteger(props, AI_CONFIG_IMPORT_NO_SKELETON_MESHES, 1);
    aiSetImportPropertyInteger(props, AI_CONFIG_IMPORT_FBX_PRESERVE_PIVOTS, 0);
    const struct aiScene *scene = aiImportFileExWithProperties(
        source, aiProcess_Triangulate | aiProcess_JoinIdenticalVertices | aiProcess_SortByPType,
        NULL, props);
    aiReleasePropertyStore(props);
    if (scene == NULL)
        fail_msg("%s: assimp: %s", source, aiGetErrorString());
    assert_true(scene->mNumAnimations > 0);
    unsigned node_total = count_nodes(scene->mRootNode), node_count = 0;
    const struct aiNode **order = calloc(node_total, sizeof *order);
    assert_non_null(order);
    dfs(scene->mRootNode, order, &node_count);

    const char *base = strrchr(relative, '/') ? strrchr(relative, '/') + 1 : relative;
    char stem[256];
    snprintf(stem, sizeof stem, "%.*s", (int)(strrchr(base, '.') - base), base);
    loaded anim_file = {0}, scene_file = {0};
    load(&anim_file, out_dir, stem, ".kanim");
    load(&scene_file, out_dir, stem, ".kscene");
    kiln_anim_view anim;
    kiln_scene_view sv;
    kiln_error err;
    if (kiln_anim_view_get(&anim_file.file, KILN_OPEN_DEEP, &anim, &err) != KILN_OK ||
        kiln_scene_view_get(&scene_file.file, KILN_OPEN_DEEP, &sv, &err) != KILN_OK)
        fail_msg("%s: %s", relative, err.message);
    assert_int_equal(anim.clip_count, scene->mNumAnimations);
    kiln_scene_transform *local = calloc(sv.node_count + 1, sizeof *local);
    kiln_anim_pose pose = {.local = local, .weights = NULL};
    assert_non_null(local);

    for (uint32_t a = 0; a < anim.clip_count; a++) {
        const struct aiAnimation *clip = scene->mAnimations[a];
        const kiln_anim_clip *kc = &anim.clips[a];
        char fallback[32];
        snprintf(fallback, sizeof fallback, "animation_%u", a);
        assert_string_equal(kiln_anim_clip_name(&anim, a),
                            clip->mName.length > 0 ? clip->mName.data : fallback);
        assert_string_equal(kiln_anim_clip_dropped(&anim, a), "");
        double tps = clip->mTicksPerSecond > 0.0 ? clip->mTicksPerSecond : 25.0;
        /* Channel counts: one per key kind present, in channel order T R S. */
        uint32_t expected_channels = 0;
        double last = 0.0;
        for (unsigned c = 0; c < clip->mNumChannels; c++) {
            const struct aiNodeAnim *ch = clip->mChannels[c];
            expected_channels +=
                (ch->mNumPositionKeys > 0) + (ch->mNumRotationKeys > 0) + (ch->mNumScalingKeys > 0);
            if (ch->mNumPositionKeys > 0)
                last = fmax(last, ch->mPositionKeys[ch->mNumPositionKeys - 1].mTime);
            if (ch->mNumRotationKeys > 0)
                last = fmax(last, ch->mRotationKeys[ch->mNumRotationKeys - 1].mTime);
            if (ch->mNumScalingKeys > 0)
                last = fmax(last, ch->mScalingKeys[ch->mNumScalingKeys - 1].mTime);
        }
        assert_int_equal(kc->channel_count, expected_channels);
        /* The clip covers assimp's [0, mDuration]. */
        double duration = fmax(clip->mDuration, last) / tps;
        if (kc->start != 0.0f || fabs(kc->duration - duration) > 1e-6 * fmax(1.0, duration))
            fail_msg("%s clip %u: %g .. %g s, expected 0 .. %g", relative, a, (double)kc->start,
                     (double)kc->duration, duration);

        /* Which assimp keys each cooked channel holds. */
        typedef struct source_channel {
            const struct aiNodeAnim *anim;
            int path;
        } source_channel;
        source_channel *sources = calloc(kc->channel_count + 1, sizeof *sources);
        assert_non_null(sources);
        uint32_t k = 0;
        for (unsigned c = 0; c < clip->mNumChannels; c++) {
            const struct aiNodeAnim *ch = clip->mChannels[c];
            int node = first_named(order, node_count, &ch->mNodeName);
            assert_true(node >= 0);
            const unsigned counts[3] = {ch->mNumPositionKeys, ch->mNumRotationKeys,
                                        ch->mNumScalingKeys};
            for (int p = 0; p < 3; p++) {
                if (counts[p] == 0)
                    continue;
                const kiln_anim_channel *kch = &anim.channels[kc->first_channel + k];
                assert_int_equal(kch->path, p);
                assert_int_equal(kch->interpolation, KILN_ANIM_LINEAR);
                assert_int_equal(kch->source_node, node);
                assert_int_equal(sv.nodes[kch->node].source, node);
                const char *name = sv.strings + sv.nodes[kch->node].name_offset;
                assert_memory_equal(name, ch->mNodeName.data, ch->mNodeName.length);
                sources[k++] = (source_channel){ch, p};
            }
        }

        /* Probe times: every key, the points between keys, and either side
         * of the clip; forward, then backward. */
        size_t cap = 64, count = 0;
        double *probes = malloc(cap * sizeof *probes);
        assert_non_null(probes);
#define PROBE(t)                                                                                   \
    do {                                                                                           \
        if (count == cap) {                                                                        \
            cap *= 2;                                                                              \
            probes = realloc(probes, cap * sizeof *probes);                                        \
            assert_non_null(probes);                                                               \
        }                                                                                          \
        probes[count++] = (t);                                                                     \
    } while (0)
        PROBE(-0.25);
        PROBE(duration + 0.25);
        for (int i = 0; i <= 64; i++)
            PROBE(duration * i / 64.0);
        for (uint32_t c = 0; c < kc->channel_count; c++) {
            const struct aiNodeAnim *ch = sources[c].anim;
            unsigned n = sources[c].path == 0   ? ch->mNumPositionKeys
                         : sources[c].path == 1 ? ch->mNumRotationKeys
                                                : ch->mNumScalingKeys;
            for (unsigned key = 0; key < n; key++) {
                double t = (sources[c].path == 0   ? ch->mPositionKeys[key].mTime
                            : sources[c].path == 1 ? ch->mRotationKeys[key].mTime
                                                   : ch->mScalingKeys[key].mTime) /
                           tps;
                double next = key + 1 < n
                                  ? (sources[c].path == 0   ? ch->mPositionKeys[key + 1].mTime
                                     : sources[c].path == 1 ? ch->mRotationKeys[key + 1].mTime
                                                            : ch->mScalingKeys[key + 1].mTime) /
                                        tps
                                  : t + 0.5;
                PROBE(t);
                PROBE(t + (next - t) * 0.3);
                PROBE(t + (next - t) * 0.75);
            }
        }
#undef PROBE
        qsort(probes, count, sizeof *probes, compare_doubles);
        uint32_t *cursors = calloc(kc->channel_count + 1, sizeof *cursors);
        assert_non_null(cursors);
        if (kiln_anim_pose_rest(&anim, &sv, &pose, &err) != KILN_OK)
            fail_msg("%s: %s", relative, err.message);
        for (int pass = 0; pass < 2; pass++) {
            for (size_t i = 0; i < count; i++) {
                float t = (float)(pass == 0 ? probes[i] : probes[count - 1 - i]);
                if (kiln_anim_sample(&anim, a, t, cursors, &pose, &err) != KILN_OK)
                    fail_msg("%s: %s", relative, err.message);
                double ticks = (double)t * tps; /* the time the runtime saw */
                for (uint32_t c = 0; c < kc->channel_count; c++) {
                    const kiln_anim_channel *kch = &anim.channels[kc->first_channel + c];
                    const struct aiNodeAnim *ch = sources[c].anim;
                    const kiln_scene_transform *got = &local[kch->node];
                    double want[4];
                    const float *have;
                    int n = 3;
                    if (sources[c].path == 0) {
                        eval_vector(ch->mPositionKeys, ch->mNumPositionKeys, ticks, want);
                        have = got->translation;
                    } else if (sources[c].path == 2) {
                        eval_vector(ch->mScalingKeys, ch->mNumScalingKeys, ticks, want);
                        have = got->scale;
                    } else {
                        eval_quat(ch->mRotationKeys, ch->mNumRotationKeys, ticks, want);
                        have = got->rotation;
                        n = 4;
                        double dot = 0.0;
                        for (int j = 0; j < 4; j++)
                            dot += have[j] * want[j];
                        if (dot < 0.0) /* q and -q are one rotation */
                            for (int j = 0; j < 4; j++)
                                want[j] = -want[j];
                    }
                    for (int j = 0; j < n; j++)
                        totals->worst =
                            fmax(totals->worst, fabs(have[j] - want[j]) / fmax(1.0, fabs(want[j])));
                    for (int j = 0; j < n; j++)
                        if (!close_enough(have[j], want[j]))
                            fail_msg("%s clip %u ('%s') channel %u (node '%s', path %d) at "
                                     "t=%.9g s component %d: %.9g, assimp's keys give %.9g",
                                     relative, a, kiln_anim_clip_name(&anim, a), c,
                                     ch->mNodeName.data, sources[c].path, (double)t, j,
                                     (double)have[j], want[j]);
                    totals->samples++;
                }
            }
        }
        totals->channels += kc->channel_count;
        totals->clips++;
        free(cursors);
        free(probes);
        free(sources);
    }
    free(local);
    kiln_file_close(&anim_file.file);
    kiln_file_close(&scene_file.file);
    free(order);
    aiReleaseImport(scene);
    free(source);
}

static void testmodels_sample_like_assimps_keys(void **state) {
    (void)state;
    const char *models = models_dir();
    /* FBX, COLLADA (keys starting after 0), X (three clips, one of a
     * single key each; a first key after tick 0), 3DS (no ticks per second). */
    static const char *const files[] = {
        "FBX/animation_with_skeleton.fbx",
        "FBX/huesitos.fbx",
        "Collada/box_nested_animation.dae",
        "Collada/anims_with_full_rotations_between_keys.DAE",
        "X/Testwuson.X",
        "X/anim_test.x",
        "3DS/RotatingCube.3DS",
    };
    size_t n = sizeof files / sizeof files[0];
    for (size_t i = 0; i < n; i++) {
        char *path = test_path_join(models, files[i]);
        bool present = is_file(path);
        free(path);
        if (!present) {
            printf("[  SKIPPED ] testmodels_sample_like_assimps_keys: %s/%s is missing; install "
                   "Debian's assimp-testmodels (scripts/packages/test.txt) or set "
                   "KILN_ASSIMP_MODELS\n",
                   models, files[i]);
            skip();
        }
    }
    /* Copies in an input folder of their own, cooked by the kiln command. */
    char *dir = test_make_temp_dir("assimp_anim_models");
    char *in = test_path_join(dir, "in"), *out = test_path_join(dir, "out");
    assert_int_equal(mkdir(in, 0755), 0);
    for (size_t i = 0; i < n; i++) {
        char *path = test_path_join(models, files[i]);
        size_t size;
        uint8_t *bytes = test_read_file(path, &size);
        const char *base = strrchr(files[i], '/') + 1;
        test_write_in(in, base, bytes, size);
        free(bytes);
        free(path);
    }
    char *argv[] = {"kiln", "build", "-q", "-j", "2", "-i", in, "-o", out, NULL};
    assert_int_equal(cli_main(9, argv), 0);
    model_totals totals = {0};
    for (size_t i = 0; i < n; i++)
        compare_model(models, out, files[i], &totals);
    printf("assimp-testmodels: %zu models, %zu clips, %zu channels, %zu samples compared, worst "
           "relative difference %.3g\n",
           n, totals.clips, totals.channels, totals.samples, totals.worst);
    free(in);
    free(out);
    free(dir);
}

/* ---------------------------------------------------------------------------
 * A hand-written .x file through the isolated importer
 * ------------------------------------------------------------------------- */

/* No AnimTicksPerSecond (assimp reads 0), and a channel for "Ghost", which
 * no frame is. */
static const char GHOST_X[] = "xof 0303txt 0032\n"
                              "Frame Root {\n"
                              "  FrameTransformMatrix {\n"
                              "    1.0,0.0,0.0,0.0,0.0,1.0,0.0,0.0,0.0,0.0,1.0,0.0,0.0,0.0,0.0,"
                              "1.0;;\n"
                              "  }\n"
                              "  Mesh Tri {\n"
                              "    3;\n"
                              "    0.0;0.0;0.0;,\n"
                              "    1.0;0.0;0.0;,\n"
                              "    0.0;1.0;0.0;;\n"
                              "    1;\n"
                              "    3;0,1,2;;\n"
                              "  }\n"
                              "}\n"
                              "AnimationSet Move {\n"
                              "  Animation {\n"
                              "    { Ghost }\n"
                              "    AnimationKey {\n"
                              "      2;\n"
                              "      2;\n"
                              "      0;3;0.0,0.0,0.0;;,\n"
                              "      10;3;1.0,2.0,3.0;;;\n"
                              "    }\n"
                              "  }\n"
                              "  Animation {\n"
                              "    { Root }\n"
                              "    AnimationKey {\n"
                              "      2;\n"
                              "      3;\n"
                              "      0;3;0.0,0.0,0.0;;,\n"
                              "      5;3;1.0,0.0,0.0;;,\n"
                              "      10;3;2.0,0.0,0.0;;;\n"
                              "    }\n"
                              "  }\n"
                              "}\n";

static bool assimp_isolated(cook_context *ctx, ir_asset *out) {
    return import_run(ctx, import_assimp, out);
}

static const ir_anim_channel *channel_of(const ir_animation *clip, uint32_t node,
                                         ir_anim_path path) {
    for (uint32_t c = 0; c < clip->channel_count; c++)
        if (clip->channels[c].node == node && clip->channels[c].path == path)
            return &clip->channels[c];
    return NULL;
}

static void missing_node_and_zero_ticks_in_an_x_file(void **state) {
    (void)state;
    char *dir = test_make_temp_dir("assimp_anim_ghost");
    test_import r;
    test_import_bytes(&r, assimp_isolated, dir, "ghost.x", GHOST_X, sizeof GHOST_X - 1);
    test_import_expect_ok(&r);
    test_expect_message(&r, ": warning: ", "animation 'Move' gives no ticks per second");
    test_expect_message(&r, ": warning: ", "no node is named 'Ghost'");
    assert_int_equal(r.asset.animation_count, 1);
    const ir_animation *clip = &r.asset.animations[0];
    assert_string_equal(clip->name, "Move");
    assert_string_equal(clip->dropped, "mChannels[0](Ghost)");
    uint32_t root = UINT32_MAX;
    for (uint32_t i = 0; i < r.asset.node_count; i++)
        if (r.asset.nodes[i].name != NULL && strcmp(r.asset.nodes[i].name, "Root") == 0)
            root = i;
    assert_true(root != UINT32_MAX);
    const ir_anim_channel *t = channel_of(clip, root, IR_ANIM_TRANSLATION);
    assert_non_null(t);
    const ir_anim_sampler *s = &clip->samplers[t->sampler];
    /* 0, 5 and 10 ticks at assimp's default 25 per second */
    assert_int_equal(s->key_count, 3);
    assert_float_equal(s->times[0], 0.0f, 0.0f);
    assert_float_equal(s->times[1], 0.2f, 1e-7f);
    assert_float_equal(s->times[2], 0.4f, 1e-7f);
    assert_float_equal(s->values[6], 2.0f, 0.0f);
    assert_int_equal(s->interpolation, IR_INTERP_LINEAR);
    test_import_free(&r);
    free(dir);
}

/* ---------------------------------------------------------------------------
 * Hand-built aiScenes
 * ------------------------------------------------------------------------- */

static void set_name(struct aiString *s, const char *text) {
    memset(s, 0, sizeof *s);
    s->length = (ai_uint32)strlen(text);
    memcpy(s->data, text, s->length);
}

/* IR nodes as assimp.c makes them: depth-first, `source` their position;
 * node 5 is one the cooker made (a camera's frame: source -1). */
static void make_nodes(ir_asset *asset) {
    static const char *const names[] = {"root", "arm", "arm", "hand", NULL, "frame"};
    static const int32_t parents[] = {-1, 0, 0, 2, 3, 3};
    memset(asset, 0, sizeof *asset);
    asset->nodes = calloc(6, sizeof *asset->nodes);
    assert_non_null(asset->nodes);
    asset->node_count = 6;
    for (int i = 0; i < 6; i++) {
        ir_node_init(&asset->nodes[i]);
        asset->nodes[i].name = names[i] ? cook_strdup(names[i]) : NULL;
        asset->nodes[i].parent = parents[i];
        asset->nodes[i].source = i < 5 ? i : -1;
    }
}

typedef struct built {
    cook_settings settings;
    cook_diag diag;
    ir_asset asset;
    bool ok;
} built;

static void convert(built *b, const struct aiScene *scene) {
    memset(b, 0, sizeof *b);
    cook_settings_default(&b->settings);
    make_nodes(&b->asset);
    cook_context ctx = {.input_root = ".",
                        .source_path = "hand.fbx",
                        .ref = "test",
                        .source = (const uint8_t *)"",
                        .settings = &b->settings,
                        .diag = &b->diag};
    b->ok = import_assimp_animations(&ctx, "hand.fbx", scene, &b->asset);
}

static const char *messages(const built *b) {
    return b->diag.text.data ? (const char *)b->diag.text.data : "";
}

static void expect_line(const built *b, const char *kind, const char *words) {
    const char *text = messages(b);
    for (const char *line = text; *line != '\0';) {
        const char *end = strchr(line, '\n');
        size_t length = end ? (size_t)(end - line) : strlen(line);
        char *copy = malloc(length + 1);
        memcpy(copy, line, length);
        copy[length] = '\0';
        bool found = strstr(copy, kind) != NULL && strstr(copy, words) != NULL;
        free(copy);
        if (found)
            return;
        line += length + (end != NULL);
    }
    fail_msg("no %s line with \"%s\" in:\n%s", kind, words, text);
}

static void release(built *b) {
    ir_asset_free(&b->asset);
    diag_free(&b->diag);
}

static void check_times(const ir_anim_sampler *s, const float *expected, uint32_t n) {
    assert_int_equal(s->key_count, n);
    for (uint32_t k = 0; k < n; k++)
        if (s->times[k] != expected[k])
            fail_msg("key %u at %.9g s, expected %.9g", k, (double)s->times[k],
                     (double)expected[k]);
}

/* Keys at 5, 10, 10 (a jump) and 20 ticks, 10 per second, a clip of 30
 * ticks, on a name two nodes share; rotations w x y z. */
static void keys_become_seconds_on_the_first_node_of_the_name(void **state) {
    (void)state;
    struct aiVectorKey positions[4] = {
        {5.0, {1, 2, 3}}, {10.0, {2, 2, 3}}, {10.0, {7, 0, 0}}, {20.0, {8, 0, 0}}};
    struct aiQuatKey rotations[2] = {{0.0, {0.8f, 0.0f, 0.6f, 0.0f}},
                                     {20.0, {0.0f, 2.0f, 0.0f, 0.0f}}}; /* w x y z, unnormalised */
    struct aiNodeAnim channel = {0};
    set_name(&channel.mNodeName, "arm");
    channel.mNumPositionKeys = 4;
    channel.mPositionKeys = positions;
    channel.mNumRotationKeys = 2;
    channel.mRotationKeys = rotations;
    struct aiNodeAnim *channels[1] = {&channel};
    struct aiAnimation anim = {0};
    set_name(&anim.mName, "wave");
    anim.mTicksPerSecond = 10.0;
    anim.mDuration = 30.0;
    anim.mNumChannels = 1;
    anim.mChannels = channels;
    struct aiAnimation *anims[1] = {&anim};
    struct aiScene scene = {0};
    scene.mNumAnimations = 1;
    scene.mAnimations = anims;
    built b;
    convert(&b, &scene);
    assert_true(b.ok);
    assert_int_equal(b.diag.errors, 0);
    expect_line(&b, ": warning: ", "2 nodes are named 'arm'");
    expect_line(&b, ": note: ", "1 keys at the time of the key before them");
    assert_int_equal(b.asset.animation_count, 1);
    const ir_animation *clip = &b.asset.animations[0];
    assert_string_equal(clip->name, "wave");
    assert_null(clip->dropped);
    assert_int_equal(clip->channel_count, 2);
    assert_int_equal(clip->channels[0].node, 1); /* the first 'arm' depth-first */
    assert_int_equal(clip->channels[0].path, IR_ANIM_TRANSLATION);
    assert_int_equal(clip->channels[1].node, 1);
    assert_int_equal(clip->channels[1].path, IR_ANIM_ROTATION);
    /* Translation: the jump moved one float later, and (holding the clip's
     * latest key, with the rotation's as late) a copy of the last key at
     * mDuration, 3 s. */
    const ir_anim_sampler *t = &clip->samplers[clip->channels[0].sampler];
    const float times[5] = {0.5f, 1.0f, nextafterf(1.0f, 2.0f), 2.0f, 3.0f};
    check_times(t, times, 5);
    const float values[15] = {1, 2, 3, 2, 2, 3, 7, 0, 0, 8, 0, 0, 8, 0, 0};
    assert_memory_equal(t->values, values, sizeof values);
    assert_int_equal(t->interpolation, IR_INTERP_LINEAR);
    /* Rotation: x y z w, normalised; already starts at 0, so no key added. */
    const ir_anim_sampler *r = &clip->samplers[clip->channels[1].sampler];
    const float rtimes[2] = {0.0f, 2.0f};
    check_times(r, rtimes, 2);
    const float q[8] = {0.0f, 0.6f, 0.0f, 0.8f, 1.0f, 0.0f, 0.0f, 0.0f};
    for (int i = 0; i < 8; i++)
        assert_float_equal(r->values[i], q[i], 1e-7f);
    release(&b);

    /* The clip starting after 0: the earliest key is copied to 0. */
    rotations[0].mTime = 2.0;
    anim.mDuration = 20.0;
    convert(&b, &scene);
    assert_true(b.ok);
    clip = &b.asset.animations[0];
    const float rtimes2[3] = {0.0f, 0.2f, 2.0f};
    check_times(&clip->samplers[clip->channels[1].sampler], rtimes2, 3);
    const float times2[4] = {0.5f, 1.0f, nextafterf(1.0f, 2.0f), 2.0f};
    check_times(&clip->samplers[clip->channels[0].sampler], times2, 4);
    assert_float_equal(clip->samplers[clip->channels[1].sampler].values[1], 0.6f, 1e-7f);
    assert_float_equal(clip->samplers[clip->channels[1].sampler].values[5], 0.6f, 1e-7f);
    release(&b);
}

/* Everything that cannot be cooked is named, and the rest still is. */
static void what_does_not_map_is_named(void **state) {
    (void)state;
    struct aiVectorKey good[2] = {{0.0, {0, 0, 0}}, {25.0, {1, 1, 1}}};
    struct aiVectorKey nan_key[2] = {{0.0, {0, 0, 0}}, {25.0, {NAN, 1, 1}}};
    struct aiVectorKey back[3] = {{0.0, {1, 1, 1}}, {20.0, {2, 2, 2}}, {10.0, {3, 3, 3}}};
    struct aiQuatKey zero[1] = {{0.0, {0.0f, 0.0f, 0.0f, 0.0f}}};
    struct aiQuatKey unit[1] = {{0.0, {1.0f, 0.0f, 0.0f, 0.0f}}};
    struct aiNodeAnim missing = {0}, made = {0}, hand = {0}, hand_again = {0}, root = {0};
    set_name(&missing.mNodeName, "Left Hand");
    missing.mNumPositionKeys = 2;
    missing.mPositionKeys = good;
    set_name(&made.mNodeName, "frame"); /* a node the cooker made, not assimp's */
    made.mNumPositionKeys = 2;
    made.mPositionKeys = good;
    set_name(&hand.mNodeName, "hand");
    hand.mNumPositionKeys = 2;
    hand.mPositionKeys = nan_key;
    hand.mNumRotationKeys = 1;
    hand.mRotationKeys = unit;
    set_name(&hand_again.mNodeName, "hand");
    hand_again.mNumScalingKeys = 2;
    hand_again.mScalingKeys = good;
    set_name(&root.mNodeName, "root");
    root.mNumPositionKeys = 2;
    root.mPositionKeys = good;
    root.mNumRotationKeys = 1;
    root.mRotationKeys = zero;
    root.mNumScalingKeys = 3;
    root.mScalingKeys = back;
    root.mPreState = aiAnimBehaviour_LINEAR;
    root.mPostState = aiAnimBehaviour_REPEAT;
    struct aiNodeAnim *channels[6] = {&missing, &made, &hand, &hand_again, &root, NULL};
    struct aiMeshAnim mesh_anim = {0};
    struct aiMeshMorphAnim morph_anim = {0};
    struct aiMeshAnim *mesh_channels[2] = {&mesh_anim, &mesh_anim};
    struct aiMeshMorphAnim *morph_channels[1] = {&morph_anim};
    struct aiAnimation anim = {0}; /* unnamed, no ticks per second */
    anim.mDuration = 25.0;
    anim.mNumChannels = 6;
    anim.mChannels = channels;
    anim.mNumMeshChannels = 2;
    anim.mMeshChannels = mesh_channels;
    anim.mNumMorphMeshChannels = 1;
    anim.mMorphMeshChannels = morph_channels;
    struct aiAnimation *anims[2] = {NULL, &anim};
    struct aiScene scene = {0};
    scene.mNumAnimations = 2;
    scene.mAnimations = anims;
    built b;
    convert(&b, &scene);
    assert_true(b.ok);
    assert_int_equal(b.diag.errors, 0);
    assert_int_equal(b.asset.animation_count, 2);
    assert_string_equal(b.asset.animations[0].name, "animation_0");
    assert_int_equal(b.asset.animations[0].channel_count, 0);
    assert_string_equal(b.asset.animations[0].dropped, "mAnimations[0]");
    expect_line(&b, ": warning: ", "mAnimations[0]: no animation; an empty clip");
    const ir_animation *clip = &b.asset.animations[1];
    assert_string_equal(clip->name, "animation_1");
    assert_string_equal(clip->dropped,
                        "mChannels[0](Left_Hand) mChannels[1](frame) "
                        "mChannels[2](hand).mPositionKeys mChannels[3](hand) "
                        "mChannels[4](root).mPreState=LINEAR mChannels[4](root).mPostState=REPEAT "
                        "mChannels[4](root).mRotationKeys mChannels[4](root).mScalingKeys "
                        "mChannels[5] mMeshChannels[0] mMeshChannels[1] mMorphMeshChannels[0]");
    expect_line(&b, ": warning: ", "animation 'animation_1' gives no ticks per second");
    expect_line(&b, ": warning: ", "no node is named 'Left Hand'");
    expect_line(&b, ": warning: ", "no node is named 'frame'");
    expect_line(&b, ": warning: ", "mPositionKeys[1]: a time or value that is not finite");
    expect_line(&b, ": warning: ", "node 'hand' is already driven by an earlier channel");
    expect_line(&b, ": warning: ", "mPreState LINEAR is not supported");
    expect_line(&b, ": warning: ", "mPostState REPEAT is not supported");
    expect_line(&b, ": warning: ", "mRotationKeys[0]: a zero rotation");
    expect_line(&b, ": warning: ", "mScalingKeys[2]: time 10 ticks is before the key before it");
    expect_line(&b, ": warning: ", "2 mesh animation channels (aiMeshAnim) are not cooked");
    expect_line(&b, ": warning: ", "1 morph weight channels (aiMeshMorphAnim) are not cooked");
    /* What is left: hand's rotation, root's translation at 25 per second. */
    assert_int_equal(clip->channel_count, 2);
    assert_int_equal(clip->channels[0].node, 3);
    assert_int_equal(clip->channels[0].path, IR_ANIM_ROTATION);
    assert_int_equal(clip->channels[1].node, 0);
    assert_int_equal(clip->channels[1].path, IR_ANIM_TRANSLATION);
    const float times[2] = {0.0f, 1.0f};
    check_times(&clip->samplers[clip->channels[1].sampler], times, 2);
    /* hand's one rotation key (root's translation ends at mDuration already) */
    const float one[1] = {0.0f};
    check_times(&clip->samplers[clip->channels[0].sampler], one, 1);
    release(&b);
}

/* Keys before 0 shift the clip; unusable rates fall back to 25; an
 * mDuration before the last key is named; no animation array. */
static void times_out_of_the_ordinary(void **state) {
    (void)state;
    struct aiVectorKey early[3] = {{-10.0, {0, 0, 0}}, {0.0, {1, 0, 0}}, {10.0, {2, 0, 0}}};
    struct aiNodeAnim channel = {0};
    set_name(&channel.mNodeName, "hand");
    channel.mNumPositionKeys = 3;
    channel.mPositionKeys = early;
    struct aiNodeAnim *channels[1] = {&channel};
    struct aiAnimation anim = {0};
    set_name(&anim.mName, "early");
    anim.mTicksPerSecond = 10.0;
    anim.mDuration = 5.0; /* before the last key */
    anim.mNumChannels = 1;
    anim.mChannels = channels;
    struct aiAnimation nan_rate = anim;
    set_name(&nan_rate.mName, "nan rate");
    nan_rate.mTicksPerSecond = NAN;
    nan_rate.mDuration = -1.0; /* assimp's unset duration */
    struct aiAnimation *anims[2] = {&anim, &nan_rate};
    struct aiScene scene = {0};
    scene.mNumAnimations = 2;
    scene.mAnimations = anims;
    built b;
    convert(&b, &scene);
    assert_true(b.ok);
    expect_line(&b, ": warning: ", "animation 'early' has keys before time 0 (from -1 s)");
    expect_line(&b, ": warning: ", "animation 'early': mDuration 5 ticks is before its last key");
    expect_line(&b, ": warning: ", "animation 'nan rate': ticks per second nan is not usable");
    const float shifted[3] = {0.0f, 1.0f, 2.0f};
    check_times(&b.asset.animations[0].samplers[0], shifted, 3);
    const float slow[3] = {0.0f, 0.4f, 0.8f}; /* -10..10 ticks at 25, shifted by 0.4 */
    const ir_anim_sampler *s = &b.asset.animations[1].samplers[0];
    assert_int_equal(s->key_count, 3);
    for (int k = 0; k < 3; k++)
        assert_float_equal(s->times[k], slow[k], 1e-7f);
    release(&b);

    scene.mAnimations = NULL; /* a count without an array */
    convert(&b, &scene);
    assert_true(b.ok);
    assert_int_equal(b.asset.animation_count, 0);
    expect_line(&b, ": warning: ", "2 animations without an animation array");
    release(&b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(keys_become_seconds_on_the_first_node_of_the_name),
        cmocka_unit_test(what_does_not_map_is_named),
        cmocka_unit_test(times_out_of_the_ordinary),
        cmocka_unit_test(missing_node_and_zero_ticks_in_an_x_file),
        cmocka_unit_test(testmodels_sample_like_assimps_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
