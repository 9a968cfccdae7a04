/* test_anim.c — animation clips (docs/formats/kanim.md): glTF animations
 * imported, written as .kanim, read back by the runtime view and sampled;
 * every sampled value at many times against an independent evaluation of the
 * glTF data written here (glTF 2.0 Appendix C in double precision, reading
 * the accessors itself); poses applied to a scene instance against a
 * recursive evaluation; bad animations refused with their glTF path; reader
 * rules refused on damaged files. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cook/process/process.h"
#include "cook/write/write.h"
#include "test_import.h"

/* ---------------------------------------------------------------------------
 * Files held aligned
 * ------------------------------------------------------------------------- */

typedef struct held {
    void *block;
    kiln_file file;
} held;

static kiln_result hold(held *h, const bytebuf *bytes, const char *name, kiln_error *err) {
    memset(h, 0, sizeof *h);
    assert_int_equal(posix_memalign(&h->block, 16, bytes->size ? bytes->size : 16), 0);
    memcpy(h->block, bytes->data, bytes->size);
    return kiln_file_from_memory(&h->file, h->block, bytes->size, name, KILN_OPEN_VERIFY_CHECKSUM,
                                 err);
}

static void release(held *h) {
    kiln_file_close(&h->file);
    free(h->block);
}

static cook_settings settings;
/* anim.reduce and anim.quantize for the next cook() (process_animations). */
static cook_anim_tolerance next_reduce;
static bool next_quantize;

static cook_context context(const char *source_path) {
    cook_settings_default(&settings);
    settings.anim_reduce = next_reduce;
    settings.anim_quantize = next_quantize;
    cook_context ctx = {.input_root = ".",
                        .source_path = source_path,
                        .ref = "models/anim",
                        .source = (const uint8_t *)"{}",
                        .source_size = 2,
                        .settings = &settings};
    return ctx;
}

/* The asset's .kanim and .kscene, opened and validated deeply. */
typedef struct cooked {
    bytebuf anim_bytes, scene_bytes;
    held anim_file, scene_file;
    kiln_anim_view anim;
    kiln_scene_view scene;
} cooked;

static void cook(cooked *c, ir_asset *asset, const char *source_path) {
    memset(c, 0, sizeof *c);
    cook_context ctx = context(source_path);
    assert_true(process_animations(asset, &settings));
    uint64_t *meshes = calloc(asset->mesh_count + 1, sizeof *meshes);
    for (uint32_t m = 0; m < asset->mesh_count; m++)
        meshes[m] = 1000 + m;
    assert_true(write_kanim(&ctx, asset, 42, "gltf", &c->anim_bytes));
    assert_true(write_kscene(&ctx, asset, meshes, 0, "gltf", &c->scene_bytes));
    free(meshes);
    kiln_error err;
    if (hold(&c->anim_file, &c->anim_bytes, "t.kanim", &err) != KILN_OK ||
        kiln_anim_view_get(&c->anim_file.file, KILN_OPEN_DEEP, &c->anim, &err) != KILN_OK)
        fail_msg("%s: kanim: %s", source_path, err.message);
    if (hold(&c->scene_file, &c->scene_bytes, "t.kscene", &err) != KILN_OK ||
        kiln_scene_view_get(&c->scene_file.file, KILN_OPEN_DEEP, &c->scene, &err) != KILN_OK)
        fail_msg("%s: kscene: %s", source_path, err.message);
}

static void uncook(cooked *c) {
    release(&c->anim_file);
    release(&c->scene_file);
    bytebuf_free(&c->anim_bytes);
    bytebuf_free(&c->scene_bytes);
}

/* ---------------------------------------------------------------------------
 * An independent glTF reader and evaluator (double precision)
 * ------------------------------------------------------------------------- */

typedef struct gdoc {
    json_t *root;
    uint8_t *file;  /* the .gltf or .glb bytes */
    uint8_t **bins; /* per buffer: its bytes (into file for a GLB) */
    size_t buffer_count;
} gdoc;

static void gdoc_load(gdoc *d, const char *path) {
    memset(d, 0, sizeof *d);
    size_t size;
    d->file = test_read_file(path, &size);
    json_error_t error;
    const uint8_t *bin = NULL;
    if (size >= 20 && memcmp(d->file, "glTF", 4) == 0) {
        uint32_t length;
        memcpy(&length, d->file + 12, 4);
        d->root = json_loadb((const char *)d->file + 20, length, 0, &error);
        bin = d->file + 20 + length + 8;
    } else {
        d->root = json_loadb((const char *)d->file, size, 0, &error);
    }
    assert_non_null(d->root);
    const json_t *buffers = json_object_get(d->root, "buffers");
    d->buffer_count = json_array_size(buffers);
    d->bins = calloc(d->buffer_count + 1, sizeof *d->bins);
    for (size_t b = 0; b < d->buffer_count; b++) {
        const char *uri = json_string_value(json_object_get(json_array_get(buffers, b), "uri"));
        if (uri == NULL) {
            d->bins[b] = (uint8_t *)bin;
            continue;
        }
        assert_true(strncmp(uri, "data:", 5) != 0); /* the corpus files used have .bin files */
        char *dir = strdup(path);
        char *slash = strrchr(dir, '/');
        *slash = '\0';
        char *bin_path = test_path_join(dir, uri);
        size_t bin_size;
        d->bins[b] = test_read_file(bin_path, &bin_size);
        free(bin_path);
        free(dir);
    }
}

static void gdoc_free(gdoc *d) {
    const json_t *buffers = json_object_get(d->root, "buffers");
    for (size_t b = 0; b < d->buffer_count; b++)
        if (json_object_get(json_array_get(buffers, b), "uri") != NULL)
            free(d->bins[b]);
    free(d->bins);
    free(d->file);
    json_decref(d->root);
}

static size_t geti(const json_t *obj, const char *key, size_t fallback) {
    const json_t *v = json_object_get(obj, key);
    return v != NULL ? (size_t)json_integer_value(v) : fallback;
}

/* Accessor `index` as doubles (FLOAT, or normalised integers per glTF 3.11). */
static double *gdoc_accessor(const gdoc *d, size_t index, size_t *count, size_t *components) {
    const json_t *a = json_array_get(json_object_get(d->root, "accessors"), index);
    const char *type = json_string_value(json_object_get(a, "type"));
    size_t n = geti(a, "count", 0);
    size_t comps = strcmp(type, "SCALAR") == 0 ? 1
                   : strcmp(type, "VEC2") == 0 ? 2
                   : strcmp(type, "VEC3") == 0 ? 3
                                               : 4;
    unsigned ct = (unsigned)geti(a, "componentType", 0);
    size_t csize = ct == 5126 ? 4 : ct == 5122 || ct == 5123 ? 2 : 1;
    const json_t *view =
        json_array_get(json_object_get(d->root, "bufferViews"), geti(a, "bufferView", 0));
    assert_null(json_object_get(a, "sparse"));
    const uint8_t *base =
        d->bins[geti(view, "buffer", 0)] + geti(view, "byteOffset", 0) + geti(a, "byteOffset", 0);
    size_t stride = geti(view, "byteStride", comps * csize);
    double *out = calloc(n * comps + 1, sizeof *out);
    for (size_t e = 0; e < n; e++) {
        for (size_t c = 0; c < comps; c++) {
            const uint8_t *p = base + e * stride + c * csize;
            double v;
            if (ct == 5126) {
                float f;
                memcpy(&f, p, 4);
                v = f;
            } else if (ct == 5120) {
                v = fmax(*(const int8_t *)p / 127.0, -1.0);
            } else if (ct == 5121) {
                v = *p / 255.0;
            } else if (ct == 5122) {
                int16_t s;
                memcpy(&s, p, 2);
                v = fmax(s / 32767.0, -1.0);
            } else {
                uint16_t s;
                memcpy(&s, p, 2);
                v = s / 65535.0;
            }
            out[e * comps + c] = v;
        }
    }
    *count = n;
    *components = comps;
    return out;
}

/* glTF sampler `sampler` of animation `anim` at time t, `width` values per
 * key (the morph target count for weights), into out. Appendix C. */
static void gdoc_evaluate(const gdoc *d, size_t anim, size_t sampler, bool rotation, size_t width,
                          double t, double *out) {
    const json_t *s = json_array_get(
        json_object_get(json_array_get(json_object_get(d->root, "animations"), anim), "samplers"),
        sampler);
    const char *interp = json_string_value(json_object_get(s, "interpolation"));
    int mode = interp == NULL || strcmp(interp, "LINEAR") == 0 ? 0
               : strcmp(interp, "STEP") == 0                   ? 1
                                                               : 2;
    size_t n, one, count, comps;
    double *times = gdoc_accessor(d, geti(s, "input", 0), &n, &one);
    double *values = gdoc_accessor(d, geti(s, "output", 0), &count, &comps);
    size_t groups = mode == 2 ? 3 : 1;
    assert_int_equal(count * comps, n * width * groups);
    /* value / in tangent / out tangent of key k */
#define V(k) (values + ((k)*groups + (mode == 2 ? 1 : 0)) * width)
#define A(k) (values + ((k)*groups + 0) * width)
#define B(k) (values + ((k)*groups + 2) * width)
    if (n == 1 || t <= times[0] || t >= times[n - 1]) {
        size_t k = n == 1 || t <= times[0] ? 0 : n - 1;
        memcpy(out, V(k), width * sizeof *out);
    } else {
        size_t k = 0;
        while (!(times[k] <= t && t < times[k + 1]))
            k++;
        double dt = times[k + 1] - times[k], u = (t - times[k]) / dt;
        if (mode == 1) {
            memcpy(out, V(k), width * sizeof *out);
        } else if (mode == 0 && rotation) {
            double a[4], b[4], dot = 0, la = 0, lb = 0;
            for (int j = 0; j < 4; j++) {
                la += V(k)[j] * V(k)[j];
                lb += V(k + 1)[j] * V(k + 1)[j];
            }
            for (int j = 0; j < 4; j++) {
                a[j] = V(k)[j] / sqrt(la);
                b[j] = V(k + 1)[j] / sqrt(lb);
                dot += a[j] * b[j];
            }
            if (dot < 0) { /* the shortest arc */
                dot = -dot;
                for (int j = 0; j < 4; j++)
                    b[j] = -b[j];
            }
            double wa = 1 - u, wb = u;
            if (dot < 1 - 1e-9) {
                double theta = acos(dot);
                wa = sin((1 - u) * theta) / sin(theta);
                wb = sin(u * theta) / sin(theta);
            }
            for (int j = 0; j < 4; j++)
                out[j] = wa * a[j] + wb * b[j];
        } else if (mode == 0) {
            for (size_t j = 0; j < width; j++)
                out[j] = (1 - u) * V(k)[j] + u * V(k + 1)[j];
        } else {
            double u2 = u * u, u3 = u2 * u;
            for (size_t j = 0; j < width; j++)
                out[j] = (2 * u3 - 3 * u2 + 1) * V(k)[j] + dt * (u3 - 2 * u2 + u) * B(k)[j] +
                         (-2 * u3 + 3 * u2) * V(k + 1)[j] + dt * (u3 - u2) * A(k + 1)[j];
        }
    }
    if (rotation) {
        double l = sqrt(out[0] * out[0] + out[1] * out[1] + out[2] * out[2] + out[3] * out[3]);
        for (int j = 0; j < 4; j++)
            out[j] /= l;
    }
#undef V
#undef A
#undef B
    free(times);
    free(values);
}

/* The key times of a sampler, to probe at, around and between. */
static double *gdoc_times(const gdoc *d, size_t anim, size_t sampler, size_t *n) {
    const json_t *s = json_array_get(
        json_object_get(json_array_get(json_object_get(d->root, "animations"), anim), "samplers"),
        sampler);
    size_t one;
    return gdoc_accessor(d, geti(s, "input", 0), n, &one);
}

/* ---------------------------------------------------------------------------
 * Corpus models: every channel at many times
 * ------------------------------------------------------------------------- */

/* How far apart a sampled value and the reference are, as the cooker
 * measures (kanim.md, AERR): translation distance, rotation angle (radians),
 * else the largest component difference. */
static double path_difference(uint8_t path, uint32_t components, const float *got,
                              const double *want) {
    double worst = 0.0, sum = 0.0;
    if (path == KILN_ANIM_ROTATION) {
        double lg = 0, lw = 0, dot = 0;
        for (int j = 0; j < 4; j++) {
            lg += (double)got[j] * got[j];
            lw += want[j] * want[j];
        }
        for (int j = 0; j < 4; j++)
            dot += got[j] / sqrt(lg) * (want[j] / sqrt(lw));
        return 2.0 * acos(fmin(1.0, fabs(dot)));
    }
    for (uint32_t j = 0; j < components; j++) {
        double d = fabs(got[j] - want[j]);
        worst = fmax(worst, d);
        sum += d * d;
    }
    return path == KILN_ANIM_TRANSLATION ? sqrt(sum) : worst;
}

/* What compare_model checks besides the samples: with anim.reduce or
 * anim.quantize, each path's difference is bounded instead of 1e-5 per
 * component, and the worst difference over the cooker's measuring times
 * (source keys, quarter points) is recomputed per clip. */
typedef struct compare_mode {
    bool compressed;
    double allowed[4];     /* per path, over the clip's stored error; 0 unless reduced */
    double (*measured)[4]; /* per clip: the recomputed worst error, or NULL */
    uint64_t *bytes;       /* the .kanim's size, or NULL */
} compare_mode;

static size_t compare_model_mode(const char *relative, const compare_mode *mode) {
    const char *corpus = test_corpus_dir();
    test_import r;
    test_import_file(&r, import_gltf, corpus, relative);
    test_import_expect_ok(&r);
    char *path = test_path_join(corpus, relative);
    gdoc d;
    gdoc_load(&d, path);
    free(path);
    cooked c;
    cook(&c, &r.asset, relative);
    if (mode->bytes != NULL)
        *mode->bytes = c.anim_bytes.size;
    const json_t *anims = json_object_get(d.root, "animations");
    assert_int_equal(c.anim.clip_count, json_array_size(anims));
    assert_non_null(c.anim.errors);
    size_t probes = 0;
    for (uint32_t a = 0; a < c.anim.clip_count; a++) {
        const json_t *anim = json_array_get(anims, a);
        const json_t *channels = json_object_get(anim, "channels");
        const kiln_anim_clip *clip = &c.anim.clips[a];
        assert_int_equal(clip->channel_count, json_array_size(channels));
        const char *name = json_string_value(json_object_get(anim, "name"));
        if (name != NULL)
            assert_string_equal(kiln_anim_clip_name(&c.anim, a), name);
        for (uint32_t k = 0; k < clip->channel_count; k++) {
            const kiln_anim_channel *ch = &c.anim.channels[clip->first_channel + k];
            const json_t *gch = json_array_get(channels, k);
            const json_t *target = json_object_get(gch, "target");
            const char *gpath = json_string_value(json_object_get(target, "path"));
            assert_int_equal(ch->source_node, geti(target, "node", 0));
            assert_int_equal(c.scene.nodes[ch->node].source, ch->source_node);
            assert_string_equal(kiln_anim_path_str((kiln_anim_path)ch->path), gpath);
            size_t sampler = geti(gch, "sampler", 0);
            size_t n;
            double *times = gdoc_times(&d, a, sampler, &n);
            /* Probes: before the first key, each key, quarter points between
             * keys, after the last; forward then backward (cursor reuse and
             * the binary search both). */
            size_t probe_count = 4 * n + 2;
            double *at = calloc(probe_count, sizeof *at);
            size_t p = 0;
            at[p++] = times[0] - 0.5;
            for (size_t key = 0; key < n; key++) {
                at[p++] = times[key];
                double next = key + 1 < n ? times[key + 1] : times[key] + 1.0;
                for (int q = 1; q <= 3; q++)
                    at[p++] = times[key] + (next - times[key]) * q / 4.0;
            }
            at[p++] = times[n - 1] + 2.0;
            uint32_t cursor = 0;
            for (int pass = 0; pass < 2; pass++) {
                for (size_t i = 0; i < p; i++) {
                    double t = pass == 0 ? at[i] : at[p - 1 - i];
                    float got[64];
                    double want[64];
                    assert_true(ch->components <= 64);
                    kiln_anim_sample_channel(&c.anim, clip->first_channel + k, (float)t, &cursor,
                                             got);
                    /* The evaluator gets the float time the runtime saw. */
                    gdoc_evaluate(&d, a, sampler, ch->path == KILN_ANIM_ROTATION, ch->components,
                                  (double)(float)t, want);
                    if (!mode->compressed) {
                        for (uint32_t j = 0; j < ch->components; j++)
                            if (fabs(got[j] - want[j]) > 1e-5)
                                fail_msg("%s animations[%u].channels[%u] at t=%.9g component %u: "
                                         "%.9g, expected %.9g",
                                         relative, a, k, t, j, (double)got[j], want[j]);
                    } else {
                        const float *stored = &c.anim.errors[a].translation;
                        double diff = path_difference(ch->path, ch->components, got, want);
                        /* float sampling: 1e-5 a component, ~3e-5 rad */
                        double slack = ch->path == KILN_ANIM_ROTATION ? 3e-5 : 2e-5;
                        double bound =
                            fmax(mode->allowed[ch->path], (double)stored[ch->path]) + slack;
                        if (diff > bound)
                            fail_msg("%s animations[%u].channels[%u] (%s) at t=%.9g: off by "
                                     "%.9g, allowed %.9g",
                                     relative, a, k, kiln_anim_path_str((kiln_anim_path)ch->path),
                                     t, diff, bound);
                        /* the cooker's measuring times: source keys, quarter points */
                        if (mode->measured != NULL && i > 0 && i + 1 < p)
                            mode->measured[a][ch->path] = fmax(mode->measured[a][ch->path], diff);
                    }
                    probes++;
                }
            }
            free(at);
            free(times);
        }
    }
    uncook(&c);
    gdoc_free(&d);
    test_import_free(&r);
    return probes;
}

static size_t compare_model(const char *relative) {
    compare_mode exact = {0};
    return compare_model_mode(relative, &exact);
}

static void corpus_clips_sample_like_the_gltf_reference(void **state) {
    (void)state;
    if (test_skip_without_corpus("corpus_clips_sample_like_the_gltf_reference"))
        skip();
    const char *models[] = {
        "gltf/InterpolationTest/glTF/InterpolationTest.gltf",
        "gltf/InterpolationTest/glTF-Binary/InterpolationTest.glb",
        "gltf/BoxAnimated/glTF/BoxAnimated.gltf",
        "gltf/AnimatedMorphCube/glTF/AnimatedMorphCube.gltf",
        "gltf/SimpleMorph/glTF/SimpleMorph.gltf",
        "gltf/CesiumMilkTruck/glTF/CesiumMilkTruck.gltf",
        "gltf/Fox/glTF/Fox.gltf",
        "gltf/RiggedSimple/glTF/RiggedSimple.gltf",
        "gltf/SimpleSkin/glTF/SimpleSkin.gltf",
    };
    size_t total = 0;
    for (size_t m = 0; m < sizeof models / sizeof models[0]; m++) {
        char *path = test_path_join(test_corpus_dir(), models[m]);
        FILE *f = fopen(path, "rb");
        free(path);
        if (f == NULL)
            fail_msg("corpus model %s is missing", models[m]);
        fclose(f);
        total += compare_model(models[m]);
    }
    printf("corpus: %zu samples compared\n", total);
}

/* ---------------------------------------------------------------------------
 * anim.reduce, anim.quantize and shared key times (kanim.md version 2)
 * ------------------------------------------------------------------------- */

static const char *const compress_models[] = {
    "gltf/Fox/glTF/Fox.gltf",
    "gltf/CesiumMilkTruck/glTF/CesiumMilkTruck.gltf",
    "gltf/BoxAnimated/glTF/BoxAnimated.gltf",
    "gltf/InterpolationTest/glTF/InterpolationTest.gltf",
    "gltf/RiggedSimple/glTF/RiggedSimple.gltf",
};
#define COMPRESS_MODELS (sizeof compress_models / sizeof compress_models[0])

/* The recomputed worst error equals the stored one up to float sampling. */
static void expect_measured(const char *model, const kiln_anim_view *anim, double (*measured)[4]) {
    for (uint32_t a = 0; a < anim->clip_count && a < 64; a++) {
        const float *stored = &anim->errors[a].translation;
        for (int k = 0; k < 4; k++)
            if (fabs(measured[a][k] - stored[k]) > 1e-5 + 0.01 * stored[k])
                fail_msg("%s clip %u path %d: stored error %.9g, recomputed %.9g", model, a, k,
                         (double)stored[k], measured[a][k]);
    }
}

/* Cooks `model` with the options and re-reads its errors for
 * expect_measured (a second cook: compare_model_mode frees its own). */
static void cook_model(const char *model, cooked *c, test_import *r) {
    test_import_file(r, import_gltf, test_corpus_dir(), model);
    test_import_expect_ok(r);
    cook(c, &r->asset, model);
}

static void reduce_keeps_every_sample_within_the_tolerance(void **state) {
    (void)state;
    if (test_skip_without_corpus("reduce_keeps_every_sample_within_the_tolerance"))
        skip();
    const double tolerances[][4] = {{1e-4, 5e-4, 1e-4, 1e-3}, {0.01, 0.02, 0.01, 0.01}};
    for (size_t t = 0; t < 2; t++) {
        for (size_t m = 0; m < COMPRESS_MODELS; m++) {
            next_reduce = (cook_anim_tolerance){.on = true,
                                                .translation = (float)tolerances[t][0],
                                                .rotation = (float)tolerances[t][1],
                                                .scale = (float)tolerances[t][2],
                                                .weights = (float)tolerances[t][3]};
            double measured[64][4] = {{0}};
            uint64_t reduced = 0, exact = 0;
            compare_mode mode = {.compressed = true, .measured = measured, .bytes = &reduced};
            for (int k = 0; k < 4; k++)
                mode.allowed[k] = tolerances[t][k];
            compare_model_mode(compress_models[m], &mode);
            cooked c;
            test_import r;
            cook_model(compress_models[m], &c, &r);
            next_reduce = (cook_anim_tolerance){0};
            for (uint32_t a = 0; a < c.anim.clip_count; a++) {
                const float *stored = &c.anim.errors[a].translation;
                for (int k = 0; k < 4; k++)
                    if (!((double)stored[k] <= tolerances[t][k] * (1 + 1e-6)))
                        fail_msg("%s clip %u: error %.9g over the tolerance %.9g",
                                 compress_models[m], a, (double)stored[k], tolerances[t][k]);
            }
            expect_measured(compress_models[m], &c.anim, measured);
            uncook(&c);
            test_import_free(&r);
            compare_mode plain = {.bytes = &exact};
            compare_model_mode(compress_models[m], &plain);
            printf("reduce %g: %s %llu -> %llu bytes\n", tolerances[t][0], compress_models[m],
                   (unsigned long long)exact, (unsigned long long)reduced);
            /* Small clips may grow: channels reduced apart no longer share
             * their times (BENCHMARKS.md section 14). */
            if (strstr(compress_models[m], "Fox") != NULL ||
                strstr(compress_models[m], "CesiumMilkTruck") != NULL)
                assert_true(reduced < exact * 9 / 10);
        }
    }
}

/* Decodes a quantized key as kanim.md says, written here from the spec. */
static void spec_decode(const kiln_anim_view *v, const kiln_anim_channel *ch, uint32_t key,
                        double *out) {
    const uint16_t *w = v->quantized + ch->value_offset + (size_t)key * 3;
    if (ch->path == KILN_ANIM_ROTATION) {
        int largest = (w[0] >> 15) | ((w[1] >> 15) << 1);
        double c[3], sum = 0;
        for (int k = 0; k < 3; k++) {
            c[k] = ((w[k] & 0x7fff) * (2.0 / 32767) - 1) * 0.70710678;
            sum += c[k] * c[k];
        }
        for (int k = 0, j = 0; k < 4; k++)
            out[k] = k == largest ? sqrt(fmax(0, 1 - sum)) : c[j++];
    } else {
        const float *range = v->values + ch->range_offset;
        for (int k = 0; k < 3; k++)
            out[k] = range[k] + (double)w[k] * range[3 + k];
    }
}

static void quantize_error_is_within_its_bound_and_reported(void **state) {
    (void)state;
    if (test_skip_without_corpus("quantize_error_is_within_its_bound_and_reported"))
        skip();
    for (size_t m = 0; m < COMPRESS_MODELS; m++) {
        next_quantize = true;
        double measured[64][4] = {{0}};
        uint64_t quantized = 0, exact = 0;
        compare_mode mode = {.compressed = true, .measured = measured, .bytes = &quantized};
        compare_model_mode(compress_models[m], &mode);
        cooked c;
        test_import r;
        cook_model(compress_models[m], &c, &r);
        next_quantize = false;
        expect_measured(compress_models[m], &c.anim, measured);
        uint32_t count = 0;
        for (uint32_t a = 0; a < c.anim.clip_count; a++) {
            const kiln_anim_clip *clip = &c.anim.clips[a];
            double bound[4] = {0, 1.5e-4, 0, 0}; /* kanim.md: rotation ~1e-4 rad */
            for (uint32_t k = 0; k < clip->channel_count; k++) {
                uint32_t i = clip->first_channel + k;
                const kiln_anim_channel *ch = &c.anim.channels[i];
                bool want =
                    ch->path != KILN_ANIM_WEIGHTS && ch->interpolation != KILN_ANIM_CUBICSPLINE;
                assert_int_equal(ch->encoding, want ? KILN_ANIM_QUANTIZED : KILN_ANIM_FLOAT);
                if (!want)
                    continue;
                count++;
                if (ch->path != KILN_ANIM_ROTATION) { /* step / 2 a component */
                    const float *range = c.anim.values + ch->range_offset;
                    double half = 0, sum = 0, big = 0;
                    for (int j = 0; j < 3; j++) {
                        half = fmax(half, range[3 + j] / 2);
                        sum += range[3 + j] * range[3 + j] / 4;
                        big = fmax(big, fabs(range[j]) + 65535.0 * range[3 + j]);
                    }
                    double rounding = 4e-7 * big;
                    double b = ch->path == KILN_ANIM_TRANSLATION ? sqrt(sum) : half;
                    bound[ch->path] = fmax(bound[ch->path], b + rounding);
                }
                /* the spec's decoder gives what the runtime samples at each key */
                for (uint32_t key = 0; key < ch->key_count; key++) {
                    double want_v[4];
                    float got[4];
                    uint32_t cursor = 0;
                    spec_decode(&c.anim, ch, key, want_v);
                    kiln_anim_sample_channel(&c.anim, i, c.anim.times[ch->time_offset + key],
                                             &cursor, got);
                    for (uint32_t j = 0; j < ch->components; j++)
                        assert_float_equal(got[j], want_v[j], 2e-6);
                }
            }
            const float *stored = &c.anim.errors[a].translation;
            for (int k = 0; k < 4; k++)
                if (!((double)stored[k] <= bound[k]))
                    fail_msg("%s clip %u path %d: error %.9g over the spec's bound %.9g",
                             compress_models[m], a, k, (double)stored[k], bound[k]);
        }
        assert_true(count > 0 || strstr(compress_models[m], "InterpolationTest") != NULL);
        uncook(&c);
        test_import_free(&r);
        compare_mode plain = {.bytes = &exact};
        compare_model_mode(compress_models[m], &plain);
        printf("quantize: %s %llu -> %llu bytes\n", compress_models[m], (unsigned long long)exact,
               (unsigned long long)quantized);
        if (strstr(compress_models[m], "Fox") != NULL) /* tiny clips: chunk overhead */
            assert_true(quantized < exact / 2);
    }
}

/* Rewrites a cooked .kanim with one time range per channel (what version 1
 * wrote): the same file but for ATIM and the channels' time offsets. */
static void unshare_times(const kiln_file *file, const kiln_anim_view *v, bytebuf *out) {
    kiln_anim_channel *channels = malloc((v->channel_count + 1) * sizeof *channels);
    bytebuf times = {0};
    for (uint32_t i = 0; i < v->channel_count; i++) {
        channels[i] = v->channels[i];
        channels[i].time_offset = (uint32_t)(times.size / sizeof(float));
        bytebuf_append(&times, v->times + v->channels[i].time_offset,
                       v->channels[i].key_count * sizeof(float));
    }
    kiln_anim_desc desc = *v->desc;
    desc.time_count = (uint32_t)(times.size / sizeof(float));
    container_writer writer;
    container_begin(&writer, KILN_KIND_ANIM, file->kind_version);
    for (uint32_t k = 0; k < file->chunk_count; k++) {
        const kiln_chunk_entry *e = &file->chunks[k];
        const void *data = file->data + e->offset;
        size_t size = (size_t)e->size;
        if (e->fourcc == KILN_CHUNK_ANIM_DESC) {
            data = &desc;
        } else if (e->fourcc == KILN_CHUNK_ANIM_CHANNELS) {
            data = channels;
        } else if (e->fourcc == KILN_CHUNK_ANIM_TIMES) {
            data = times.data;
            size = times.size;
        }
        container_add_chunk(&writer, e->fourcc, data, size);
    }
    assert_true(container_finish(&writer, out));
    free(channels);
    bytebuf_free(&times);
}

static void equal_key_times_are_stored_once(void **state) {
    (void)state;
    if (test_skip_without_corpus("equal_key_times_are_stored_once"))
        skip();
    for (size_t m = 0; m < COMPRESS_MODELS; m++) {
        for (int quantize = 0; quantize < 2; quantize++) {
            next_quantize = quantize != 0;
            cooked c;
            test_import r;
            cook_model(compress_models[m], &c, &r);
            next_quantize = false;
            uint64_t keys = 0;
            for (uint32_t a = 0; a < c.anim.clip_count; a++) {
                const kiln_anim_clip *clip = &c.anim.clips[a];
                for (uint32_t i = clip->first_channel;
                     i < clip->first_channel + clip->channel_count; i++) {
                    const kiln_anim_channel *x = &c.anim.channels[i];
                    keys += x->key_count;
                    for (uint32_t j = clip->first_channel; j < i; j++) {
                        const kiln_anim_channel *y = &c.anim.channels[j];
                        if (x->key_count == y->key_count &&
                            memcmp(c.anim.times + x->time_offset, c.anim.times + y->time_offset,
                                   x->key_count * sizeof(float)) == 0)
                            assert_int_equal(x->time_offset, y->time_offset);
                    }
                }
            }
            bytebuf unshared = {0};
            unshare_times(&c.anim_file.file, &c.anim, &unshared);
            held h;
            kiln_error err;
            kiln_anim_view u;
            if (hold(&h, &unshared, "unshared.kanim", &err) != KILN_OK ||
                kiln_anim_view_get(&h.file, KILN_OPEN_DEEP, &u, &err) != KILN_OK)
                fail_msg("%s unshared: %s", compress_models[m], err.message);
            assert_int_equal(u.desc->time_count, keys);
            if (strstr(compress_models[m], "Fox") != NULL) {
                assert_true(c.anim.desc->time_count < keys);
                assert_true(c.anim_bytes.size < unshared.size);
            }
            if (quantize == 0)
                printf("shared times: %s %zu bytes, %zu unshared\n", compress_models[m],
                       c.anim_bytes.size, unshared.size);
            for (uint32_t i = 0; i < c.anim.channel_count; i++) {
                const kiln_anim_channel *ch = &c.anim.channels[i];
                const float *t = c.anim.times + ch->time_offset;
                uint32_t cursor_a = 0, cursor_b = 0;
                for (uint32_t k = 0; k + 1 < ch->key_count || k == 0; k++) {
                    for (int q = 0; q < 5; q++) {
                        float time = ch->key_count > 1 ? t[k] + (t[k + 1] - t[k]) * (float)q / 4.0f
                                                       : t[0] + (float)q - 2.0f;
                        float got[64], want[64];
                        assert_true(ch->components <= 64);
                        kiln_anim_sample_channel(&c.anim, i, time, &cursor_a, got);
                        kiln_anim_sample_channel(&u, i, time, &cursor_b, want);
                        assert_memory_equal(got, want, ch->components * sizeof(float));
                    }
                    if (ch->key_count == 1)
                        break;
                }
            }
            release(&h);
            bytebuf_free(&unshared);
            uncook(&c);
            test_import_free(&r);
        }
    }
}

/* The same file written as version 1 (no AQNT, no AERR, quant_count 0):
 * read, sampling bit for bit like the version 2 file; version 1 with a
 * version 2 chunk is refused. */
static void rewrite_as_version_1(const kiln_file *file, bool keep_errors, bytebuf *out) {
    container_writer writer;
    container_begin(&writer, KILN_KIND_ANIM, 1);
    for (uint32_t k = 0; k < file->chunk_count; k++) {
        const kiln_chunk_entry *e = &file->chunks[k];
        if (e->fourcc == KILN_CHUNK_ANIM_QUANTIZED ||
            (e->fourcc == KILN_CHUNK_ANIM_ERRORS && !keep_errors))
            continue;
        container_add_chunk(&writer, e->fourcc, file->data + e->offset, (size_t)e->size);
    }
    assert_true(container_finish(&writer, out));
}

static void version_1_files_are_still_read(void **state) {
    (void)state;
    if (test_skip_without_corpus("version_1_files_are_still_read"))
        skip();
    cooked c;
    test_import r;
    cook_model("gltf/InterpolationTest/glTF/InterpolationTest.gltf", &c, &r);
    assert_int_equal(c.anim_file.file.kind_version, 2);
    for (int keep = 0; keep < 2; keep++) {
        bytebuf old = {0};
        rewrite_as_version_1(&c.anim_file.file, keep != 0, &old);
        held h;
        kiln_error err;
        kiln_anim_view v;
        assert_int_equal(hold(&h, &old, "v1.kanim", &err), KILN_OK);
        assert_int_equal(h.file.kind_version, 1);
        kiln_result result = kiln_anim_view_get(&h.file, KILN_OPEN_DEEP, &v, &err);
        if (keep) {
            assert_int_equal(result, KILN_ERR_CORRUPT);
            assert_non_null(strstr(err.message, "version 1"));
        } else {
            assert_int_equal(result, KILN_OK);
            assert_null(v.errors);
            for (uint32_t i = 0; i < v.channel_count; i++) {
                for (int q = -4; q < 40; q++) {
                    float time = (float)q * 0.1f, got[64], want[64];
                    uint32_t cursor_a = 0, cursor_b = 0;
                    kiln_anim_sample_channel(&c.anim, i, time, &cursor_a, want);
                    kiln_anim_sample_channel(&v, i, time, &cursor_b, got);
                    assert_memory_equal(got, want, c.anim.channels[i].components * sizeof(float));
                }
            }
        }
        release(&h);
        bytebuf_free(&old);
    }
    /* A version this reader does not know. */
    bytebuf future = {0};
    container_writer writer;
    container_begin(&writer, KILN_KIND_ANIM, 3);
    for (uint32_t k = 0; k < c.anim_file.file.chunk_count; k++) {
        const kiln_chunk_entry *e = &c.anim_file.file.chunks[k];
        container_add_chunk(&writer, e->fourcc, c.anim_file.file.data + e->offset, (size_t)e->size);
    }
    assert_true(container_finish(&writer, &future));
    held h;
    kiln_error err;
    kiln_anim_view v;
    assert_int_equal(hold(&h, &future, "v3.kanim", &err), KILN_OK);
    assert_int_equal(kiln_anim_view_get(&h.file, 0, &v, &err), KILN_ERR_UNSUPPORTED);
    assert_non_null(strstr(err.message, "versions 1 and 2"));
    release(&h);
    bytebuf_free(&future);
    uncook(&c);
    test_import_free(&r);
}

/* Damaged version 2 fields: each refused with its rule's message. */
static void damaged_quantized_files_are_refused(void **state) {
    (void)state;
    if (test_skip_without_corpus("damaged_quantized_files_are_refused"))
        skip();
    next_quantize = true;
    cooked c;
    test_import r;
    cook_model("gltf/Fox/glTF/Fox.gltf", &c, &r);
    next_quantize = false;
    const uint8_t *base = c.anim_file.file.data;
    size_t channels = (size_t)((const uint8_t *)c.anim.channels - base);
    size_t errors = (size_t)((const uint8_t *)c.anim.errors - base);
    size_t desc = (size_t)((const uint8_t *)c.anim.desc - base);
    uint32_t translation = UINT32_MAX, rotation = UINT32_MAX;
    for (uint32_t i = 0; i < c.anim.channel_count; i++) {
        if (c.anim.channels[i].encoding != KILN_ANIM_QUANTIZED)
            continue;
        if (c.anim.channels[i].path == KILN_ANIM_TRANSLATION && translation == UINT32_MAX)
            translation = i;
        if (c.anim.channels[i].path == KILN_ANIM_ROTATION && rotation == UINT32_MAX)
            rotation = i;
    }
    assert_true(translation != UINT32_MAX && rotation != UINT32_MAX);
    float minus = -1.0f, nan = NAN;
    uint32_t minus_bits, nan_bits;
    memcpy(&minus_bits, &minus, 4);
    memcpy(&nan_bits, &nan, 4);
    const struct {
        size_t offset;
        uint32_t value, size;
        const char *message;
    } cases[] = {
        {channels + translation * 32 + 28, 2, 1, "encoding 2"},
        {channels + rotation * 32 + 9, 2, 1, "quantized and CUBICSPLINE"},
        {channels + translation * 32 + 24, 0x7fffffff, 4, "range"},
        {channels + rotation * 32 + 20, c.anim.quant_count, 4, "outside the key tables"},
        {channels + rotation * 32 + 24, 6, 4, "components"},  /* a rotation has no range */
        {channels + translation * 32 + 29, 1, 1, "encoding"}, /* reserved byte */
        {errors + 4, minus_bits, 4, "negative or not finite"},
        {errors, nan_bits, 4, "negative or not finite"},
        {desc + 44, c.anim.quant_count + 1, 4, "AQNT"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        bytebuf copy = {0};
        bytebuf_append(&copy, c.anim_bytes.data, c.anim_bytes.size);
        memcpy(copy.data + cases[k].offset, &cases[k].value, cases[k].size);
        held h;
        kiln_error err;
        kiln_anim_view view;
        memset(&h, 0, sizeof h);
        assert_int_equal(posix_memalign(&h.block, 16, copy.size), 0);
        memcpy(h.block, copy.data, copy.size);
        assert_int_equal(kiln_file_from_memory(&h.file, h.block, copy.size, "bad.kanim", 0, &err),
                         KILN_OK);
        kiln_result result = kiln_anim_view_get(&h.file, KILN_OPEN_DEEP, &view, &err);
        if (result == KILN_OK || strstr(err.message, cases[k].message) == NULL)
            fail_msg("case %zu: %s, expected '%s'", k, result == KILN_OK ? "accepted" : err.message,
                     cases[k].message);
        release(&h);
        bytebuf_free(&copy);
    }
    uncook(&c);
    test_import_free(&r);
}

/* ---------------------------------------------------------------------------
 * Hand-made clips: sign flips, one key, clamping, blending, applying
 * ------------------------------------------------------------------------- */

/* Two nodes (root 0, child 1 with a mesh of 2 morph targets) and one clip:
 * rotation LINEAR on node 0 whose second key is the first's far side (a sign
 * flip), translation STEP with one key on node 1, weights CUBICSPLINE. */
static void small_asset(ir_asset *asset) {
    memset(asset, 0, sizeof *asset);
    asset->nodes = calloc(2, sizeof *asset->nodes);
    asset->node_count = 2;
    for (int i = 0; i < 2; i++) {
        ir_node_init(&asset->nodes[i]);
        asset->nodes[i].name = cook_strdup(i ? "child" : "root");
        asset->nodes[i].source = i;
    }
    asset->nodes[1].parent = 0;
    asset->nodes[1].translation[0] = 5.0f;
    asset->nodes[1].weight_count = 2;
    asset->nodes[1].weights = calloc(2, sizeof(float));
    asset->nodes[1].weights[1] = 0.25f;
    asset->animations = calloc(1, sizeof *asset->animations);
    asset->animation_count = 1;
    ir_animation *a = asset->animations;
    a->name = cook_strdup("move");
    a->samplers = calloc(3, sizeof *a->samplers);
    a->channels = calloc(3, sizeof *a->channels);
    a->sampler_count = a->channel_count = 3;
    /* rotation about z by 0 then 170 degrees, the second stored negated */
    ir_anim_sampler *s = &a->samplers[0];
    s->key_count = 2;
    s->components = 4;
    s->interpolation = IR_INTERP_LINEAR;
    s->times = malloc(2 * sizeof(float));
    s->values = malloc(8 * sizeof(float));
    s->times[0] = 1.0f;
    s->times[1] = 3.0f;
    float half = 170.0f * 3.14159265358979f / 360.0f;
    float keys[8] = {0, 0, 0, 1, 0, 0, -sinf(half), -cosf(half)};
    memcpy(s->values, keys, sizeof keys);
    a->channels[0] = (ir_anim_channel){.node = 0, .path = IR_ANIM_ROTATION, .sampler = 0};
    s = &a->samplers[1];
    s->key_count = 1;
    s->components = 3;
    s->interpolation = IR_INTERP_STEP;
    s->times = malloc(sizeof(float));
    s->values = malloc(3 * sizeof(float));
    s->times[0] = 2.0f;
    s->values[0] = 7.0f;
    s->values[1] = 8.0f;
    s->values[2] = 9.0f;
    a->channels[1] = (ir_anim_channel){.node = 1, .path = IR_ANIM_TRANSLATION, .sampler = 1};
    s = &a->samplers[2];
    s->key_count = 2;
    s->components = 2;
    s->interpolation = IR_INTERP_CUBICSPLINE;
    s->times = malloc(2 * sizeof(float));
    s->values = malloc(12 * sizeof(float));
    s->times[0] = 0.0f;
    s->times[1] = 2.0f;
    /* key 0: in (9, 9), value (0, 1), out (1, -1); key 1: in (2, 0), value (1, 0), out (9, 9) */
    float w[12] = {9, 9, 0, 1, 1, -1, 2, 0, 1, 0, 9, 9};
    memcpy(s->values, w, sizeof w);
    a->channels[2] = (ir_anim_channel){.node = 1, .path = IR_ANIM_WEIGHTS, .sampler = 2};
}

static void hand_made_clip_samples_exactly(void **state) {
    (void)state;
    ir_asset asset;
    small_asset(&asset);
    cooked c;
    cook(&c, &asset, "models/anim.gltf");
    assert_int_equal(c.anim.clip_count, 1);
    assert_int_equal(c.anim.weight_count, 2);
    assert_int_equal(c.anim.morph_count, 1);
    const kiln_anim_clip *clip = &c.anim.clips[0];
    assert_float_equal(clip->start, 0.0f, 0.0f);
    assert_float_equal(clip->duration, 3.0f, 0.0f);
    kiln_scene_transform local[2];
    float weights[2];
    kiln_anim_pose pose = {local, weights};
    kiln_error err;
    assert_int_equal(kiln_anim_pose_rest(&c.anim, &c.scene, &pose, &err), KILN_OK);
    assert_float_equal(weights[1], 0.25f, 0.0f);
    assert_float_equal(local[1].translation[0], 5.0f, 0.0f);
    uint32_t cursors[3] = {0, 0, 0};
    for (int i = -2; i <= 20; i++) {
        double t = i * 0.25;
        assert_int_equal(kiln_anim_sample(&c.anim, 0, (float)t, cursors, &pose, &err), KILN_OK);
        /* Rotation: the second key is stored as -q(170 degrees about z);
         * the shortest arc from the identity is +170 degrees (not -190), with
         * the first key's sign; after the last key, the key as stored. */
        double u = t <= 1 ? 0 : t >= 3 ? 1 : (t - 1) / 2;
        double angle = u * 170.0 * 3.14159265358979 / 180.0;
        double want_q[4] = {0, 0, sin(angle / 2), cos(angle / 2)};
        if (t >= 3)
            for (int k = 0; k < 4; k++)
                want_q[k] = -want_q[k];
        for (int k = 0; k < 4; k++)
            assert_float_equal(local[0].rotation[k], want_q[k], 1e-5);
        /* One STEP key: always that key. */
        assert_float_equal(local[1].translation[0], 7.0f, 0.0f);
        assert_float_equal(local[1].translation[2], 9.0f, 0.0f);
        /* Cubic weights, d = 2: p = h00 v0 + d h10 b0 + h01 v1 + d h11 a1 */
        double s = t <= 0 ? 0 : t >= 2 ? 1 : t / 2;
        double h00 = 2 * s * s * s - 3 * s * s + 1, h10 = s * s * s - 2 * s * s + s;
        double h01 = -2 * s * s * s + 3 * s * s, h11 = s * s * s - s * s;
        double w0 = h00 * 0 + 2 * h10 * 1 + h01 * 1 + 2 * h11 * 2;
        double w1 = h00 * 1 + 2 * h10 * -1 + h01 * 0 + 2 * h11 * 0;
        assert_float_equal(weights[0], w0, 1e-5);
        assert_float_equal(weights[1], w1, 1e-5);
    }
    /* Blend halfway between the rest pose and the pose at t = 3. */
    kiln_scene_transform rest_local[2], mixed_local[2];
    float rest_weights[2], mixed_weights[2];
    kiln_anim_pose rest = {rest_local, rest_weights}, mixed = {mixed_local, mixed_weights};
    assert_int_equal(kiln_anim_pose_rest(&c.anim, &c.scene, &rest, &err), KILN_OK);
    assert_int_equal(kiln_anim_sample(&c.anim, 0, 3.0f, NULL, &pose, &err), KILN_OK);
    kiln_anim_pose_blend(&rest, &pose, 0.5f, 2, 2, &mixed);
    double angle = 85.0 * 3.14159265358979 / 180.0; /* half of the short arc */
    assert_float_equal(mixed_local[0].rotation[2], sin(angle / 2), 1e-6);
    assert_float_equal(mixed_local[0].rotation[3], cos(angle / 2), 1e-6);
    assert_float_equal(mixed_local[1].translation[0], 6.0f, 1e-6);
    assert_float_equal(mixed_weights[1], 0.125f, 1e-6);
    /* Applied to an instance: node 1's world = node 0's rotation, then its translation. */
    size_t size = kiln_scene_instance_size(&c.scene);
    void *memory;
    assert_int_equal(posix_memalign(&memory, 16, size), 0);
    kiln_scene_instance instance;
    assert_int_equal(kiln_scene_instance_init(&instance, &c.scene, memory, size, &err), KILN_OK);
    assert_int_equal(kiln_anim_apply(&c.anim, 0, &pose, &instance, &err), KILN_OK);
    assert_int_equal(kiln_scene_update(&instance), 2);
    const float *world = kiln_scene_world(&instance, 1);
    double a170 = 170.0 * 3.14159265358979 / 180.0; /* about z */
    assert_float_equal(world[12], 7 * cos(a170) - 8 * sin(a170), 1e-5);
    assert_float_equal(world[13], 7 * sin(a170) + 8 * cos(a170), 1e-5);
    assert_float_equal(world[14], 9.0f, 1e-5);
    free(memory);
    /* Out-of-range arguments are errors, not crashes. */
    assert_int_equal(kiln_anim_sample(&c.anim, 1, 0.0f, NULL, &pose, &err),
                     KILN_ERR_INVALID_ARGUMENT);
    uint32_t found = 9;
    assert_int_equal(kiln_anim_find_clip(&c.anim, "move", &found), KILN_OK);
    assert_int_equal(found, 0);
    assert_int_equal(kiln_anim_find_clip(&c.anim, "jump", &found), KILN_ERR_NOT_FOUND);
    uncook(&c);
    ir_asset_free(&asset);
}

/* Every reader rule refuses a damaged copy; truncations and bit flips never
 * crash. */
/* ---------------------------------------------------------------------------
 * The prepared sampler (kiln_anim_sampler_*)
 * ------------------------------------------------------------------------- */

static uint64_t rng = 0x9e3779b97f4a7c15u;
static double unit(void) { /* [-1, 1) */
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (double)(rng >> 11) / 4503599627370496.0 - 1.0;
}

/* A chain of `joints` nodes, each with LINEAR translation, rotation and scale
 * channels over the same `keys` times (so the cooker shares them): random
 * values, rotations at random (wide arcs and sign flips between keys). */
#define CHAIN_KEYS 9
static void random_chain(ir_asset *asset, uint32_t joints) {
    memset(asset, 0, sizeof *asset);
    asset->nodes = calloc(joints, sizeof *asset->nodes);
    asset->node_count = joints;
    for (uint32_t i = 0; i < joints; i++) {
        ir_node_init(&asset->nodes[i]);
        char name[16];
        snprintf(name, sizeof name, "j%u", i);
        asset->nodes[i].name = cook_strdup(name);
        asset->nodes[i].source = (int32_t)i;
        asset->nodes[i].parent = (int32_t)i - 1;
    }
    asset->animations = calloc(1, sizeof *asset->animations);
    asset->animation_count = 1;
    ir_animation *a = asset->animations;
    a->name = cook_strdup("random");
    a->sampler_count = a->channel_count = 3 * joints;
    a->samplers = calloc(a->sampler_count, sizeof *a->samplers);
    a->channels = calloc(a->channel_count, sizeof *a->channels);
    for (uint32_t c = 0; c < a->channel_count; c++) {
        ir_anim_sampler *sm = &a->samplers[c];
        uint32_t path = c % 3, width = path == IR_ANIM_ROTATION ? 4 : 3;
        sm->key_count = CHAIN_KEYS;
        sm->components = width;
        sm->interpolation = IR_INTERP_LINEAR;
        sm->times = malloc(CHAIN_KEYS * sizeof(float));
        sm->values = malloc(CHAIN_KEYS * width * sizeof(float));
        for (uint32_t k = 0; k < CHAIN_KEYS; k++) {
            sm->times[k] = 0.25f + 0.5f * (float)k + (k % 3 == 1 ? 0.125f : 0.0f);
            double q[4], length = 0;
            for (uint32_t j = 0; j < width; j++) {
                q[j] = unit() * (path == IR_ANIM_SCALE ? 0.5 : 2.0) + (path == IR_ANIM_SCALE);
                length += q[j] * q[j];
            }
            for (uint32_t j = 0; j < width; j++)
                sm->values[k * width + j] =
                    (float)(path == IR_ANIM_ROTATION ? q[j] / sqrt(length) : q[j]);
        }
        a->channels[c] = (ir_anim_channel){.node = c / 3, .path = path, .sampler = c};
    }
}

/* An IR LINEAR channel at time t in double precision (glTF Appendix C;
 * the shortest arc from key k's sign), into out. */
static void reference_linear(const ir_anim_sampler *sm, bool rotation, double t, double *out) {
    uint32_t n = sm->key_count, w = sm->components;
    const float *v = sm->values;
    if (t <= sm->times[0] || t >= sm->times[n - 1]) {
        uint32_t k = t <= sm->times[0] ? 0 : n - 1;
        for (uint32_t j = 0; j < w; j++)
            out[j] = v[k * w + j];
        return;
    }
    uint32_t k = 0;
    while (!(sm->times[k] <= t && t < sm->times[k + 1]))
        k++;
    double u = (t - sm->times[k]) / ((double)sm->times[k + 1] - sm->times[k]);
    const float *a = v + k * w, *b = a + w;
    if (!rotation) {
        for (uint32_t j = 0; j < w; j++)
            out[j] = (1 - u) * a[j] + u * b[j];
        return;
    }
    double dot = 0, sign = 1;
    for (int j = 0; j < 4; j++)
        dot += (double)a[j] * b[j];
    if (dot < 0) {
        dot = -dot;
        sign = -1;
    }
    double wa = 1 - u, wb = u;
    if (dot < 1 - 1e-12) {
        double theta = acos(fmin(dot, 1.0));
        wa = sin((1 - u) * theta) / sin(theta);
        wb = sin(u * theta) / sin(theta);
    }
    for (int j = 0; j < 4; j++)
        out[j] = wa * a[j] + sign * wb * b[j];
}

/* Times to sample at: random jumps (before the first key to after the last),
 * forward play at 60 Hz over two and a half loops (wrapping), then backward. */
static size_t probe_times(float start, float duration, float *at, size_t cap) {
    size_t n = 0;
    for (int i = 0; i < 200 && n < cap; i++)
        at[n++] = start - 0.5f + (float)((unit() + 1) / 2 * (duration - start + 1.0));
    for (int f = 0; f < 60 * 2.5 * (duration + 0.1) && n < cap; f++)
        at[n++] = fmodf((float)f / 60.0f, duration + 0.1f);
    for (float t = duration + 0.2f; t > start - 0.3f && n < cap; t -= 1.0f / 60)
        at[n++] = t;
    return n;
}

/* The sampler's pose equals kiln_anim_sample's (no cursors) bit for bit at
 * every probe, and both are the reference's within float rounding. */
static void expect_sampler_matches(const kiln_anim_view *anim, const kiln_scene_view *scene,
                                   const ir_asset *source, const char *what) {
    uint32_t nodes = anim->node_count, weights = anim->weight_count;
    kiln_scene_transform *la = calloc(nodes + 1, sizeof *la), *lb = calloc(nodes + 1, sizeof *lb);
    float *wa = calloc(weights + 1, sizeof *wa), *wb = calloc(weights + 1, sizeof *wb);
    kiln_anim_pose a = {la, wa}, b = {lb, wb};
    kiln_error err;
    float at[2048];
    for (uint32_t clip = 0; clip < anim->clip_count; clip++) {
        size_t size = kiln_anim_sampler_size(anim, clip);
        assert_true(size > 0);
        void *memory;
        assert_int_equal(posix_memalign(&memory, 8, size), 0);
        kiln_anim_sampler *sampler = NULL;
        assert_int_equal(kiln_anim_sampler_init(anim, clip, memory, size, &sampler, &err), KILN_OK);
        assert_int_equal(kiln_anim_pose_rest(anim, scene, &a, &err), KILN_OK);
        assert_int_equal(kiln_anim_pose_rest(anim, scene, &b, &err), KILN_OK);
        const kiln_anim_clip *cl = &anim->clips[clip];
        size_t count = probe_times(cl->start, cl->duration, at, sizeof at / sizeof at[0]);
        for (size_t i = 0; i < count; i++) {
            kiln_anim_sampler_sample(sampler, at[i], &a);
            assert_int_equal(kiln_anim_sample(anim, clip, at[i], NULL, &b, &err), KILN_OK);
            if (memcmp(la, lb, nodes * sizeof *la) != 0 ||
                (weights > 0 && memcmp(wa, wb, weights * sizeof *wa) != 0))
                fail_msg("%s clip %u at t=%.9g: the sampler's pose is not kiln_anim_sample's", what,
                         clip, (double)at[i]);
            for (uint32_t k = 0; source != NULL && k < cl->channel_count; k++) {
                const ir_anim_channel *ch = &source->animations[clip].channels[k];
                const kiln_anim_channel *kc = &anim->channels[cl->first_channel + k];
                double want[4];
                reference_linear(&source->animations[clip].samplers[ch->sampler],
                                 ch->path == IR_ANIM_ROTATION, at[i], want);
                const float *got = kc->path == KILN_ANIM_ROTATION ? la[kc->node].rotation
                                   : kc->path == KILN_ANIM_SCALE  ? la[kc->node].scale
                                                                  : la[kc->node].translation;
                for (uint32_t j = 0; j < kc->components; j++)
                    if (fabs(got[j] - want[j]) > 1e-5)
                        fail_msg("%s channel %u at t=%.9g component %u: %.9g, expected %.9g", what,
                                 k, (double)at[i], j, (double)got[j], want[j]);
            }
        }
        free(memory);
    }
    free(la);
    free(lb);
    free(wa);
    free(wb);
}

static void sampler_gives_kiln_anim_sample_pose(void **state) {
    (void)state;
    /* 1, 4, 7 and 9 joints: full and short sets of four rotations. */
    const uint32_t sizes[] = {1, 4, 7, 9};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        ir_asset asset;
        random_chain(&asset, sizes[i]);
        cooked c;
        cook(&c, &asset, "models/chain.gltf");
        char what[32];
        snprintf(what, sizeof what, "%u-joint chain", sizes[i]);
        expect_sampler_matches(&c.anim, &c.scene, &asset, what);
        uncook(&c);
        ir_asset_free(&asset);
    }
    /* STEP, CUBICSPLINE and weights: evaluated as kiln_anim_sample does. */
    ir_asset asset;
    small_asset(&asset);
    cooked c;
    cook(&c, &asset, "models/anim.gltf");
    expect_sampler_matches(&c.anim, &c.scene, NULL, "hand-made clip");
    uncook(&c);
    ir_asset_free(&asset);
    if (test_skip_without_corpus("sampler_gives_kiln_anim_sample_pose (corpus part)"))
        return;
    /* Corpus clips, exact and quantized (quantized channels are not grouped). */
    const char *models[] = {"gltf/Fox/glTF/Fox.gltf",
                            "gltf/CesiumMilkTruck/glTF/CesiumMilkTruck.gltf",
                            "gltf/InterpolationTest/glTF/InterpolationTest.gltf",
                            "gltf/AnimatedMorphCube/glTF/AnimatedMorphCube.gltf"};
    for (int quantize = 0; quantize < 2; quantize++) {
        next_quantize = quantize != 0;
        for (size_t m = 0; m < sizeof models / sizeof models[0]; m++) {
            test_import r;
            cook_model(models[m], &c, &r);
            expect_sampler_matches(&c.anim, &c.scene, NULL, models[m]);
            uncook(&c);
            test_import_free(&r);
        }
    }
    next_quantize = false;
}

static void sampler_refuses_bad_arguments(void **state) {
    (void)state;
    ir_asset asset;
    random_chain(&asset, 3);
    cooked c;
    cook(&c, &asset, "models/chain.gltf");
    kiln_error err;
    kiln_anim_sampler *sampler = NULL;
    size_t size = kiln_anim_sampler_size(&c.anim, 0);
    assert_int_equal(kiln_anim_sampler_size(&c.anim, 1), 0);
    assert_int_equal(kiln_anim_sampler_size(NULL, 0), 0);
    uint64_t *memory = calloc(size / 8 + 2, 8);
    assert_int_equal(kiln_anim_sampler_init(&c.anim, 1, memory, size, &sampler, &err),
                     KILN_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "clip 1 of 1"));
    assert_int_equal(kiln_anim_sampler_init(&c.anim, 0, memory, size - 1, &sampler, &err),
                     KILN_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "needed"));
    assert_int_equal(kiln_anim_sampler_init(&c.anim, 0, (char *)memory + 4, size, &sampler, &err),
                     KILN_ERR_INVALID_ARGUMENT);
    assert_null(sampler);
    assert_int_equal(kiln_anim_sampler_init(&c.anim, 0, memory, size, &sampler, &err), KILN_OK);
    assert_ptr_equal(sampler, memory);
    free(memory);
    uncook(&c);
    ir_asset_free(&asset);
}

static void damaged_kanim_files_are_refused(void **state) {
    (void)state;
    ir_asset asset;
    small_asset(&asset);
    cooked c;
    cook(&c, &asset, "models/anim.gltf");
    const kiln_chunk_entry *table = c.anim_file.file.chunks;
    uint32_t chunk_count = c.anim_file.file.chunk_count;
    size_t offsets[4] = {0};
    for (uint32_t i = 0; i < chunk_count; i++) {
        if (table[i].fourcc == KILN_CHUNK_ANIM_CHANNELS)
            offsets[0] = table[i].offset;
        if (table[i].fourcc == KILN_CHUNK_ANIM_TIMES)
            offsets[1] = table[i].offset;
        if (table[i].fourcc == KILN_CHUNK_ANIM_CLIPS)
            offsets[2] = table[i].offset;
        if (table[i].fourcc == KILN_CHUNK_ANIM_MORPHS)
            offsets[3] = table[i].offset;
    }
    struct {
        size_t offset;
        uint32_t value;
        const char *message;
    } cases[] = {
        {offsets[0] + 0, 2, "node 2 of 2"},  /* target out of range */
        {offsets[0] + 8, 0x0904, "path 4"},  /* unknown path */
        {offsets[0] + 32 + 12, 0, "0 keys"}, /* no keys */
        {offsets[0] + 32 + 16, 1000, "outside the key tables"},
        {offsets[0] + 64 + 24, 1, "no such morph weights"},
        {offsets[1] + 4, 0x3f800000u, "increasing"}, /* times 1, 1 */
        {offsets[2] + 8, 1, "expected to start at 0"},
        {offsets[3] + 0, 5, "out of order or range"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        bytebuf copy = {0};
        bytebuf_append(&copy, c.anim_bytes.data, c.anim_bytes.size);
        memcpy(copy.data + cases[k].offset, &cases[k].value, 4);
        held h;
        kiln_error err;
        kiln_anim_view view;
        memset(&h, 0, sizeof h);
        assert_int_equal(posix_memalign(&h.block, 16, copy.size), 0);
        memcpy(h.block, copy.data, copy.size);
        assert_int_equal(kiln_file_from_memory(&h.file, h.block, copy.size, "bad.kanim", 0, &err),
                         KILN_OK);
        kiln_result r = kiln_anim_view_get(&h.file, KILN_OPEN_DEEP, &view, &err);
        if (r == KILN_OK || strstr(err.message, cases[k].message) == NULL)
            fail_msg("case %zu: %s, expected '%s'", k, r == KILN_OK ? "accepted" : err.message,
                     cases[k].message);
        release(&h);
        bytebuf_free(&copy);
    }
    /* Not an animation file. */
    kiln_anim_view view;
    kiln_error err;
    assert_int_equal(kiln_anim_view_get(&c.scene_file.file, 0, &view, &err), KILN_ERR_BAD_MAGIC);
    /* Bit flips anywhere: refused or accepted, never a crash; accepted ones sample. */
    for (size_t bit = 0; bit < c.anim_bytes.size * 8; bit += 7) {
        bytebuf copy = {0};
        bytebuf_append(&copy, c.anim_bytes.data, c.anim_bytes.size);
        copy.data[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        held h;
        memset(&h, 0, sizeof h);
        assert_int_equal(posix_memalign(&h.block, 16, copy.size), 0);
        memcpy(h.block, copy.data, copy.size);
        if (kiln_file_from_memory(&h.file, h.block, copy.size, "flip.kanim", 0, &err) == KILN_OK &&
            kiln_anim_view_get(&h.file, KILN_OPEN_DEEP, &view, &err) == KILN_OK) {
            kiln_scene_transform local[64];
            float weights[64];
            kiln_anim_pose pose = {local, weights};
            if (view.node_count <= 64 && view.weight_count <= 64)
                for (uint32_t clip = 0; clip < view.clip_count; clip++)
                    for (int t = -1; t < 8; t++)
                        kiln_anim_sample(&view, clip, t * 0.5f, NULL, &pose, &err);
        }
        release(&h);
        bytebuf_free(&copy);
    }
    uncook(&c);
    ir_asset_free(&asset);
}

/* ---------------------------------------------------------------------------
 * Bad animations in glTF: each an error naming its path
 * ------------------------------------------------------------------------- */

/* A triangle with two morph targets on node 0, node 1 without a mesh, and a
 * buffer holding: [0] times 0 1 2, [12] times 0 2 1, [24] translations x3,
 * [60] rotations x3, [108] a NaN translation set, [144] times -1 0 1,
 * [156] positions x3 (the triangle and the targets' deltas). Accessors:
 * 0 times, 1 VEC3 x3, 2 VEC4 x3, 3 times 0 2 1, 4 NaN VEC3 x3, 5 times
 * -1 0 1, 6 VEC3 x1, 7 positions, 8 SCALAR x6 (weights), 9 VEC4 x3 as
 * translation. */
static void write_bad_model(const char *dir, const char *animations) {
    float data[39] = {0,  1, 2,                            /* times */
                      0,  2, 1,                            /* times out of order */
                      1,  0, 0, 2, 0, 0, 3, 0, 0,          /* translations */
                      0,  0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, /* rotations */
                      1,  2, 3, 1, 0, 3, 1, 2, 3,          /* translations, one made NaN below */
                      -1, 0, 1};                           /* a negative time */
    data[31] = NAN;                                        /* accessor 4's second element */
    float positions[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    bytebuf bin = {0};
    bytebuf_append(&bin, data, 39 * sizeof(float)); /* 156 bytes */
    bytebuf_append(&bin, positions, sizeof positions);
    char json[8192];
    snprintf(json, sizeof json,
             "{\"asset\":{\"version\":\"2.0\"},"
             "\"buffers\":[{\"uri\":\"a.bin\",\"byteLength\":%zu}],"
             "\"bufferViews\":[{\"buffer\":0,\"byteLength\":156},"
             "{\"buffer\":0,\"byteOffset\":156,\"byteLength\":36}],"
             "\"accessors\":["
             "{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"SCALAR\","
             "\"min\":[0],\"max\":[2]},"
             "{\"bufferView\":0,\"byteOffset\":24,\"componentType\":5126,\"count\":3,"
             "\"type\":\"VEC3\"},"
             "{\"bufferView\":0,\"byteOffset\":60,\"componentType\":5126,\"count\":3,"
             "\"type\":\"VEC4\"},"
             "{\"bufferView\":0,\"byteOffset\":12,\"componentType\":5126,\"count\":3,"
             "\"type\":\"SCALAR\",\"min\":[0],\"max\":[2]},"
             "{\"bufferView\":0,\"byteOffset\":108,\"componentType\":5126,\"count\":3,"
             "\"type\":\"VEC3\"},"
             "{\"bufferView\":0,\"byteOffset\":144,\"componentType\":5126,\"count\":3,"
             "\"type\":\"SCALAR\",\"min\":[-1],\"max\":[1]},"
             "{\"bufferView\":0,\"byteOffset\":24,\"componentType\":5126,\"count\":1,"
             "\"type\":\"VEC3\"},"
             "{\"bufferView\":1,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\","
             "\"min\":[0,0,0],\"max\":[1,1,0]},"
             "{\"bufferView\":0,\"componentType\":5126,\"count\":6,\"type\":\"SCALAR\"},"
             "{\"bufferView\":0,\"byteOffset\":60,\"componentType\":5126,\"count\":3,"
             "\"type\":\"VEC4\"}],"
             "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":7},"
             "\"targets\":[{\"POSITION\":7},{\"POSITION\":7}]}]}],"
             "\"nodes\":[{\"mesh\":0},{}],"
             "\"animations\":[%s]}",
             bin.size, animations);
    test_write_in(dir, "a.bin", bin.data, bin.size);
    test_write_in(dir, "m.gltf", json, strlen(json));
    bytebuf_free(&bin);
}

static void bad_animations_are_refused_with_their_path(void **state) {
    (void)state;
    char *dir = test_make_temp_dir("anim_bad");
    struct {
        const char *animations;
        const char *message; /* NULL: cooks */
    } cases[] = {
        /* the good base: translation, rotation, weights */
        {"{\"samplers\":[{\"input\":0,\"output\":1},{\"input\":0,\"output\":2},"
         "{\"input\":0,\"output\":8}],\"channels\":["
         "{\"sampler\":0,\"target\":{\"node\":1,\"path\":\"translation\"}},"
         "{\"sampler\":1,\"target\":{\"node\":1,\"path\":\"rotation\"}},"
         "{\"sampler\":2,\"target\":{\"node\":0,\"path\":\"weights\"}}]}",
         NULL},
        /* input / output count mismatch */
        {"{\"samplers\":[{\"input\":0,\"output\":6}],\"channels\":["
         "{\"sampler\":0,\"target\":{\"node\":1,\"path\":\"translation\"}}]}",
         "animations[0].channels[0].sampler: the output accessor 6 has 1 elements; 3 expected"},
        /* CUBICSPLINE needs 3 per key */
        {"{\"samplers\":[{\"input\":0,\"output\":1,\"interpolation\":\"CUBICSPLINE\"}],"
         "\"channels\":[{\"sampler\":0,\"target\":{\"node\":1,\"path\":\"translation\"}}]}",
         "animations[0].channels[0].sampler: the output accessor 1 has 3 elements; 9 expected"},
        /* non-increasing times */
        {"{\"samplers\":[{\"input\":3,\"output\":1}],\"channels\":["
         "{\"sampler\":0,\"target\":{\"node\":1,\"path\":\"translation\"}}]}",
         "animations[0].samplers[0].input: accessors[3] times do not increase"},
        /* negative time */
        {"{\"samplers\":[{\"input\":5,\"output\":1}],\"channels\":["
         "{\"sampler\":0,\"target\":{\"node\":1,\"path\":\"translation\"}}]}",
         "animations[0].samplers[0].input: accessors[5] time 0 is negative"},
        /* NaN key */
        {"{\"samplers\":[{\"input\":0,\"output\":4}],\"channels\":["
         "{\"sampler\":0,\"target\":{\"node\":1,\"path\":\"translation\"}}]}",
         "animations[0].samplers[0].output: accessors[4] element 1 holds a non-finite number"},
        /* target node out of range */
        {"{\"samplers\":[{\"input\":0,\"output\":1}],\"channels\":["
         "{\"sampler\":0,\"target\":{\"node\":7,\"path\":\"translation\"}}]}",
         "animations[0].channels[0].target.node"},
        /* unknown path */
        {"{\"samplers\":[{\"input\":0,\"output\":1}],\"channels\":["
         "{\"sampler\":0,\"target\":{\"node\":1,\"path\":\"colour\"}}]}",
         "animations[0].channels[0].target.path: 'colour' is not"},
        /* weights on a node without morph targets */
        {"{\"samplers\":[{\"input\":0,\"output\":8}],\"channels\":["
         "{\"sampler\":0,\"target\":{\"node\":1,\"path\":\"weights\"}}]}",
         "animations[0].channels[0].target: node 1 has no mesh with morph targets"},
        /* wrong accessor type */
        {"{\"samplers\":[{\"input\":0,\"output\":9}],\"channels\":["
         "{\"sampler\":0,\"target\":{\"node\":1,\"path\":\"translation\"}}]}",
         "animations[0].channels[0].sampler: the output accessor 9 is VEC4"},
        /* two channels on one target and path */
        {"{\"samplers\":[{\"input\":0,\"output\":1}],\"channels\":["
         "{\"sampler\":0,\"target\":{\"node\":1,\"path\":\"translation\"}},"
         "{\"sampler\":0,\"target\":{\"node\":1,\"path\":\"translation\"}}]}",
         "animations[0].channels[1].target: the same node and path as channel 0"},
        /* the sampler index out of range */
        {"{\"samplers\":[{\"input\":0,\"output\":1}],\"channels\":["
         "{\"sampler\":3,\"target\":{\"node\":1,\"path\":\"translation\"}}]}",
         "animations[0].channels[0].sampler"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        write_bad_model(dir, cases[k].animations);
        test_import r;
        test_import_file(&r, import_gltf, dir, "m.gltf");
        const char *messages = test_import_messages(&r);
        if (cases[k].message == NULL) {
            test_import_expect_ok(&r);
            assert_int_equal(r.asset.animation_count, 1);
            assert_int_equal(r.asset.animations[0].channel_count, 3);
            assert_int_equal(r.asset.nodes[0].weight_count, 2);
        } else if (r.ok || strstr(messages, cases[k].message) == NULL ||
                   strstr(messages, "m.gltf") == NULL) {
            fail_msg("case %zu: %s; expected an error with '%s'", k, r.ok ? "imported" : messages,
                     cases[k].message);
        }
        test_import_free(&r);
    }
    free(dir);
}

/* KHR_animation_pointer channels and extensions are named in a warning and
 * kept in the clip's dropped list; the rest of the clip cooks. */
static void uncooked_channels_are_named(void **state) {
    (void)state;
    char *dir = test_make_temp_dir("anim_dropped");
    write_bad_model(dir, "{\"name\":\"walk\",\"samplers\":[{\"input\":0,\"output\":1},"
                         "{\"input\":0,\"output\":8}],\"channels\":["
                         "{\"sampler\":0,\"target\":{\"node\":1,\"path\":\"translation\"}},"
                         "{\"sampler\":1,\"target\":{\"path\":\"pointer\",\"extensions\":"
                         "{\"KHR_animation_pointer\":{\"pointer\":\"/materials/0/alphaCutoff\"}}"
                         "}}],\"extensions\":{\"EXT_example\":{}}}");
    test_import r;
    test_import_file(&r, import_gltf, dir, "m.gltf");
    test_import_expect_ok(&r);
    const char *messages = test_import_messages(&r);
    assert_non_null(strstr(messages, "animations[0].channels[1]: a 'pointer' channel "
                                     "(KHR_animation_pointer) is not cooked"));
    assert_non_null(strstr(messages, "animations[0].extensions.EXT_example: not supported"));
    assert_int_equal(r.asset.animations[0].channel_count, 1);
    cooked c;
    cook(&c, &r.asset, "m.gltf");
    const char *dropped = kiln_anim_clip_dropped(&c.anim, 0);
    assert_non_null(strstr(dropped, "animations[0].channels[1]"));
    assert_non_null(strstr(dropped, "animations[0].extensions.EXT_example"));
    assert_string_equal(kiln_anim_clip_name(&c.anim, 0), "walk");
    uncook(&c);
    test_import_free(&r);
    free(dir);
}

/* The validator's own animation test files: each refused (or cooked) as it
 * says. */
static void validator_animation_files(void **state) {
    (void)state;
    if (test_skip_without_corpus("validator_animation_files"))
        skip();
    test_corpus_row *rows;
    size_t count, seen = 0;
    char *index = test_corpus_index(&rows, &count);
    for (size_t i = 0; i < count; i++) {
        if (strstr(rows[i].path, "gltf-validator/animation") == NULL)
            continue;
        test_import r;
        test_import_file(&r, import_gltf, test_corpus_dir(), rows[i].path);
        bool want_ok = strcmp(rows[i].expect, "ok") == 0;
        if (r.ok != want_ok)
            fail_msg("%s: %s", rows[i].path, r.ok ? "imported" : test_import_messages(&r));
        if (!want_ok && strstr(test_import_messages(&r), "animations") == NULL &&
            strstr(test_import_messages(&r), "accessors[") == NULL)
            fail_msg("%s: no glTF path in '%s'", rows[i].path, test_import_messages(&r));
        test_import_free(&r);
        seen++;
    }
    free(rows);
    free(index);
    assert_true(seen >= 10);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hand_made_clip_samples_exactly),
        cmocka_unit_test(sampler_gives_kiln_anim_sample_pose),
        cmocka_unit_test(sampler_refuses_bad_arguments),
        cmocka_unit_test(damaged_kanim_files_are_refused),
        cmocka_unit_test(bad_animations_are_refused_with_their_path),
        cmocka_unit_test(uncooked_channels_are_named),
        cmocka_unit_test(corpus_clips_sample_like_the_gltf_reference),
        cmocka_unit_test(reduce_keeps_every_sample_within_the_tolerance),
        cmocka_unit_test(quantize_error_is_within_its_bound_and_reported),
        cmocka_unit_test(equal_key_times_are_stored_once),
        cmocka_unit_test(damaged_quantized_files_are_refused),
        cmocka_unit_test(version_1_files_are_still_read),
        cmocka_unit_test(validator_animation_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
