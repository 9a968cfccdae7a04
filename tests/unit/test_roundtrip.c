/* Round trip: every source triangle comes back out of the cooked mesh.
 *
 * For each corpus model an importer claims (and the corpus expects to cook),
 * the source is imported once as the reference, then cooked through the whole
 * pipeline and read back through the runtime. Level 0 of every submesh must
 * hold the source's triangles (corner positions, winding kept) within the
 * quantisation error: each cooked one is a source one, and each source one
 * with area is cooked (the cooker drops those with two corners on one
 * welded vertex and the repeats); every corner whose source had a normal
 * must decode within 1 degree of it. Welding, reordering and vertex
 * renumbering may change everything else. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cook/drivers/drivers.h"
#include "test_import.h"
#include "test_support.h"

/* One triangle reduced to what must survive: its three corners' positions
 * (rotated so the smallest corner comes first, which keeps the winding) and
 * their normals. */
typedef struct corner_triangle {
    float p[3][3];
    float n[3][3];
    bool has_normals;
} corner_triangle;

static int compare_corner(const float a[3], const float b[3]) {
    for (int k = 0; k < 3; k++)
        if (a[k] != b[k])
            return a[k] < b[k] ? -1 : 1;
    return 0;
}

static void canonical_rotation(corner_triangle *t) {
    int first = 0;
    for (int c = 1; c < 3; c++)
        if (compare_corner(t->p[c], t->p[first]) < 0)
            first = c;
    corner_triangle rotated = *t;
    for (int c = 0; c < 3; c++) {
        memcpy(rotated.p[c], t->p[(first + c) % 3], sizeof rotated.p[c]);
        memcpy(rotated.n[c], t->n[(first + c) % 3], sizeof rotated.n[c]);
    }
    *t = rotated;
}

static int compare_triangles(const void *a, const void *b) {
    const corner_triangle *ta = a, *tb = b;
    for (int c = 0; c < 3; c++) {
        int r = compare_corner(ta->p[c], tb->p[c]);
        if (r != 0)
            return r;
    }
    return 0;
}

/* With quantised positions the source is snapped to the cooked grid exactly
 * as the cooker does (q = round(clamp((p - offset) / scale) * 65535)) and
 * compared with the stored q, so the check is exact in both cases. */
typedef struct snap {
    bool quantized;
    float offset[3];
    float scale[3];
} snap;

static void snap_position(const snap *s, const float in[3], float out[3]) {
    for (int k = 0; k < 3; k++) {
        if (!s->quantized) {
            out[k] = in[k];
            continue;
        }
        float unit = s->scale[k] > 0.0f ? (in[k] - s->offset[k]) / s->scale[k] : 0.0f;
        unit = unit < 0.0f ? 0.0f : (unit > 1.0f ? 1.0f : unit);
        out[k] = (float)lrintf(unit * 65535.0f);
    }
}

static corner_triangle *source_triangles(const ir_mesh *mesh, const ir_submesh *sub,
                                         const snap *s) {
    uint32_t count = sub->index_count / 3;
    corner_triangle *out = calloc(count ? count : 1, sizeof *out);
    for (uint32_t t = 0; t < count; t++) {
        for (int c = 0; c < 3; c++) {
            uint32_t v = mesh->indices[sub->index_offset + 3 * t + (uint32_t)c];
            snap_position(s, mesh->positions + 3 * (size_t)v, out[t].p[c]);
            if (mesh->normals != NULL)
                memcpy(out[t].n[c], mesh->normals + 3 * (size_t)v, sizeof out[t].n[c]);
        }
        out[t].has_normals = mesh->normals != NULL;
        canonical_rotation(&out[t]);
    }
    qsort(out, count, sizeof *out, compare_triangles);
    return out;
}

static corner_triangle *cooked_triangles(const kiln_mesh_view *view, const kiln_submesh *sub,
                                         const snap *s) {
    uint32_t count = sub->index_count / 3;
    corner_triangle *out = calloc(count ? count : 1, sizeof *out);
    const kiln_vertex_attribute *normal = kiln_mesh_find_attribute(view, KILN_SEMANTIC_NORMAL);
    for (uint32_t t = 0; t < count; t++) {
        for (int c = 0; c < 3; c++) {
            uint32_t i = sub->index_offset + 3 * t + (uint32_t)c;
            uint32_t v = view->desc->index_size == 2 ? ((const uint16_t *)view->indices)[i]
                                                     : ((const uint32_t *)view->indices)[i];
            if (s->quantized) {
                uint16_t q[4];
                memcpy(q, (const uint8_t *)view->vertices + (size_t)v * view->desc->vertex_stride,
                       sizeof q); /* position is the first attribute */
                for (int k = 0; k < 3; k++)
                    out[t].p[c][k] = q[k];
            } else {
                kiln_mesh_position(view, v, out[t].p[c]);
            }
            if (normal != NULL) {
                int16_t oct[2];
                memcpy(oct,
                       (const uint8_t *)view->vertices + (size_t)v * view->desc->vertex_stride +
                           normal->offset,
                       sizeof oct);
                kiln_oct_decode(oct, out[t].n[c]);
            }
        }
        out[t].has_normals = normal != NULL;
        canonical_rotation(&out[t]);
    }
    qsort(out, count, sizeof *out, compare_triangles);
    return out;
}

static double angle_degrees(const float a[3], const float b[3]) {
    double cx = (double)a[1] * b[2] - (double)a[2] * b[1];
    double cy = (double)a[2] * b[0] - (double)a[0] * b[2];
    double cz = (double)a[0] * b[1] - (double)a[1] * b[0];
    double dot = (double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2];
    return atan2(sqrt(cx * cx + cy * cy + cz * cz), dot) * 180.0 / M_PI;
}

/* The run of triangles in sorted[0..count) whose corners' positions equal
 * `t`'s: its first index and length (0 when none). */
static uint32_t equal_run(const corner_triangle *sorted, uint32_t count, const corner_triangle *t,
                          uint32_t *first) {
    uint32_t low = 0, high = count;
    while (low < high) {
        uint32_t mid = low + (high - low) / 2;
        if (compare_triangles(&sorted[mid], t) < 0)
            low = mid + 1;
        else
            high = mid;
    }
    uint32_t end = low;
    while (end < count && compare_triangles(&sorted[end], t) == 0)
        end++;
    *first = low;
    return end - low;
}

/* Two corners at one position: a triangle the cooker may drop after welding
 * (when the corners are the same vertex in every stream). */
static bool covers_no_area(const corner_triangle *t) {
    return compare_corner(t->p[0], t->p[1]) == 0 || compare_corner(t->p[1], t->p[2]) == 0 ||
           compare_corner(t->p[0], t->p[2]) == 0;
}

typedef struct roundtrip_stats {
    uint32_t models;
    uint64_t triangles;
    double worst_normal_degrees;
    char worst_where[512];
} roundtrip_stats;

/* Compares one source mesh with its cooked file; returns false with a message. */
static bool compare_mesh(const char *name, const ir_mesh *source, const char *cooked_path,
                         bool quantized, roundtrip_stats *stats) {
    kiln_file file;
    kiln_error err;
    if (kiln_file_map(&file, cooked_path, KILN_OPEN_VERIFY_CHECKSUM, &err) != KILN_OK) {
        print_error("%s: %s\n", name, err.message);
        return false;
    }
    kiln_mesh_view view;
    bool ok = kiln_mesh_view_get(&file, KILN_OPEN_DEEP, &view, &err) == KILN_OK;
    if (!ok)
        print_error("%s: %s\n", name, err.message);
    ok = ok && view.desc->submesh_count == source->submesh_count;
    snap s = {.quantized = quantized};
    if (ok && quantized) {
        const kiln_vertex_attribute *position =
            kiln_mesh_find_attribute(&view, KILN_SEMANTIC_POSITION);
        ok = position->format == KILN_VFORMAT_UNORM16X4 && position->offset == 0;
        memcpy(s.offset, view.desc->position_offset, sizeof s.offset);
        memcpy(s.scale, view.desc->position_scale, sizeof s.scale);
    }
    for (uint32_t sm = 0; ok && sm < source->submesh_count; sm++) {
        const ir_submesh *src_sub = &source->submeshes[sm];
        const kiln_submesh *cooked_sub = &view.submeshes[sm];
        /* The cooker drops triangles that draw nothing new (two corners on one
         * welded vertex, or a repeat of a triangle of the submesh): never more
         * than the source has. */
        if (cooked_sub->material_slot != src_sub->material ||
            cooked_sub->index_count > src_sub->index_count) {
            print_error("%s: submesh %u: %u indices (slot %u), source %u (slot %u)\n", name, sm,
                        cooked_sub->index_count, cooked_sub->material_slot, src_sub->index_count,
                        src_sub->material);
            ok = false;
            break;
        }
        corner_triangle *a = source_triangles(source, src_sub, &s);
        corner_triangle *b = cooked_triangles(&view, cooked_sub, &s);
        uint32_t count = src_sub->index_count / 3, cooked_count = cooked_sub->index_count / 3;
        /* Every cooked triangle is a source triangle, unmoved... */
        for (uint32_t t = 0; ok && t < cooked_count; t++) {
            uint32_t first;
            if (equal_run(a, count, &b[t], &first) == 0) {
                print_error("%s: submesh %u cooked triangle %u is no source triangle (moved)\n",
                            name, sm, t);
                ok = false;
            }
        }
        /* ...and every source triangle with area is among them, its corners'
         * normals within the closest cooked copy's. */
        for (uint32_t t = 0; ok && t < count; t++) {
            uint32_t first, run = equal_run(b, cooked_count, &a[t], &first);
            if (run == 0 && !covers_no_area(&a[t])) {
                print_error("%s: submesh %u triangle %u was dropped or moved\n", name, sm, t);
                ok = false;
            }
            if (run == 0 || !a[t].has_normals || !b[first].has_normals)
                continue;
            double best = 360.0;
            for (uint32_t j = first; j < first + run; j++) {
                double worst = 0.0;
                for (int c = 0; c < 3; c++) {
                    float length = sqrtf(a[t].n[c][0] * a[t].n[c][0] + a[t].n[c][1] * a[t].n[c][1] +
                                         a[t].n[c][2] * a[t].n[c][2]);
                    double angle = angle_degrees(a[t].n[c], b[j].n[c]);
                    if (fabsf(length - 1.0f) < 1e-3f && angle > worst)
                        worst = angle; /* unit source normals only */
                }
                if (worst < best)
                    best = worst;
            }
            if (best > stats->worst_normal_degrees) {
                stats->worst_normal_degrees = best;
                snprintf(stats->worst_where, sizeof stats->worst_where, "%s submesh %u triangle %u",
                         name, sm, t);
            }
        }
        stats->triangles += count;
        free(a);
        free(b);
    }
    kiln_file_close(&file);
    return ok;
}

/* Imports `relative` (under the corpus) as the reference and cooks it. */
static bool roundtrip_model(const char *corpus, const char *relative, bool quantized,
                            roundtrip_stats *stats) {
    const cook_importer *importer = cook_registry_match(relative);
    if (importer == NULL || importer->import == NULL)
        return true; /* no importer yet for this format, or not a model */
    char *source_path = test_path_join(corpus, relative);
    uint8_t *bytes = NULL;
    size_t size = 0;
    char reason[256];
    assert_true(cook_read_file(source_path, (size_t)1 << 30, &bytes, &size, reason, sizeof reason));
    cook_settings settings;
    cook_settings_default(&settings);
    settings.mesh_quantize_positions = quantized;
    settings.texture_max_size = 64; /* the model's textures are cooked too; keep them small */
    settings.texture_quality = COOK_QUALITY_FAST;
    cook_diag diag = {0};
    cook_context ctx = {.input_root = corpus,
                        .source_path = relative,
                        .ref = "roundtrip",
                        .source = bytes,
                        .source_size = size,
                        .settings = &settings,
                        .diag = &diag};
    ir_asset reference = {0};
    bool imported = importer->import(&ctx, &reference) && diag.errors == 0;
    strlist_free(&ctx.dependencies);
    strlist_free(&ctx.absent);
    diag_free(&diag);
    free(bytes);
    free(source_path);
    if (!imported) {
        ir_asset_free(&reference);
        return true; /* failures are the corpus tests' business */
    }

    char *output = test_make_temp_dir(quantized ? "roundtrip_q" : "roundtrip");
    cook_request request = {.input_root = corpus,
                            .output_root = output,
                            .source_path = relative,
                            .importer = importer,
                            .settings = &settings};
    cook_asset_result result;
    bool ok = cook_asset(&request, &result);
    if (!ok)
        print_error("%s: cook failed: %s\n", relative, (const char *)result.diag.text.data);
    for (uint32_t m = 0; ok && m < reference.mesh_count; m++) {
        if (reference.meshes[m].index_count == 0)
            continue;
        char suffix[32];
        if (reference.mesh_count == 1)
            snprintf(suffix, sizeof suffix, ".kmesh");
        else
            snprintf(suffix, sizeof suffix, ".mesh%u.kmesh", m);
        char *cooked_relative = cook_output_path(relative, suffix);
        char *cooked = test_path_join(output, cooked_relative);
        ok = compare_mesh(relative, &reference.meshes[m], cooked, quantized, stats);
        free(cooked);
        free(cooked_relative);
    }
    stats->models++;
    cook_asset_result_free(&result);
    ir_asset_free(&reference);
    free(output);
    return ok;
}

static void roundtrip_corpus(bool quantized) {
    const char *corpus = test_corpus_dir();
    test_corpus_row *index;
    size_t index_rows;
    char *index_text = test_corpus_index(&index, &index_rows);
    roundtrip_stats stats = {0};
    uint32_t failures = 0;
    for (size_t row = 0; row < index_rows; row++) {
        const char *path = index[row].path;
        if (strcmp(index[row].expect, "ok") != 0)
            continue;
        if (!roundtrip_model(corpus, path, quantized, &stats))
            failures++;
    }
    print_message("round trip%s: %u models, %llu triangles, worst normal %.3f degrees (%s)\n",
                  quantized ? " (quantised positions)" : "", stats.models,
                  (unsigned long long)stats.triangles, stats.worst_normal_degrees,
                  stats.worst_where);
    assert_int_equal(failures, 0);
    assert_true(stats.models > 0);
    assert_true(stats.worst_normal_degrees < 1.0);
    free(index);
    free(index_text);
}

static void corpus_triangles_survive_cooking(void **state) {
    (void)state;
    if (test_skip_without_corpus("corpus_triangles_survive_cooking"))
        skip();
    roundtrip_corpus(false);
}

static void corpus_triangles_survive_quantised_cooking(void **state) {
    (void)state;
    if (test_skip_without_corpus("corpus_triangles_survive_quantised_cooking"))
        skip();
    roundtrip_corpus(true);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(corpus_triangles_survive_cooking),
        cmocka_unit_test(corpus_triangles_survive_quantised_cooking),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
