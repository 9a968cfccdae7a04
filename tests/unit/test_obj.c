/* test_obj.c — the OBJ importer (import_obj), the MTL reader (import_mtl) and
 * the number scanner they share. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "test_import.h"
#include "test_support.h"

#include "cook/drivers/drivers.h"

/* ---------------------------------------------------------------------------
 * Helpers
 * ------------------------------------------------------------------------- */

/* The importer under test, called as the pipeline calls it. */
static void import_bytes(test_import *r, const char *root, const char *source_path,
                         const void *bytes, size_t size) {
    test_import_bytes(r, import_obj, root, source_path, bytes, size);
}

/* The root-relative file of a material slot's image, or NULL for none. */
static const char *tex_path(const test_import *r, const ir_material *m, ir_texture_slot slot) {
    int32_t image = m->textures[slot].image;
    if (image < 0)
        return NULL;
    assert_true((uint32_t)image < r->asset.image_count);
    return r->asset.images[image].path;
}

static void import_text_as(test_import *r, const char *dir, const char *source_path,
                           const char *text) {
    import_bytes(r, dir, source_path, text, strlen(text));
}

static void import_text(test_import *r, const char *dir, const char *text) {
    import_text_as(r, dir, "model.obj", text);
}

/* The import failed with exactly one error starting with `prefix`
 * (e.g. "model.obj:3: error: "), which also holds `words`. */
static void expect_error(const test_import *r, const char *prefix, const char *words) {
    if (r->ok)
        fail_msg("import succeeded, expected \"%s\"\n%s", prefix, test_import_messages(r));
    const char *line = strstr(test_import_messages(r), prefix);
    if (line == NULL || r->diag.errors != 1)
        fail_msg("expected one error \"%s\", got:\n%s", prefix, test_import_messages(r));
    const char *end = strchr(line, '\n');
    if (words != NULL && (strstr(line, words) == NULL || strstr(line, words) > end))
        fail_msg("error lacks \"%s\":\n%s", words, test_import_messages(r));
    assert_int_equal(r->asset.mesh_count, 0);
    assert_null(r->asset.meshes);
}

static int count_occurrences(const char *text, const char *word) {
    int n = 0;
    for (const char *p = strstr(text, word); p != NULL; p = strstr(p + 1, word))
        n++;
    return n;
}

static char *fresh_dir(const char *name) {
    char label[96];
    snprintf(label, sizeof label, "obj_%s", name);
    return test_make_temp_dir(label);
}

static void write_in(const char *dir, const char *relative, const char *text) {
    test_write_in(dir, relative, text, strlen(text));
}

static const ir_mesh *only_mesh(const test_import *r) {
    assert_int_equal(r->asset.mesh_count, 1);
    test_check_asset(&r->asset);
    return &r->asset.meshes[0];
}

/* Area of triangle t of a mesh whose positions lie in z = 0, signed about +z. */
static double triangle_area_z(const ir_mesh *mesh, uint32_t t) {
    const float *a = mesh->positions + 3 * (size_t)mesh->indices[3 * t];
    const float *b = mesh->positions + 3 * (size_t)mesh->indices[3 * t + 1];
    const float *c = mesh->positions + 3 * (size_t)mesh->indices[3 * t + 2];
    return 0.5 * (((double)b[0] - a[0]) * ((double)c[1] - a[1]) -
                  ((double)b[1] - a[1]) * ((double)c[0] - a[0]));
}

/* ---------------------------------------------------------------------------
 * Geometry
 * ------------------------------------------------------------------------- */

static void obj_imports_a_triangle(void **state) {
    (void)state;
    char *dir = fresh_dir("triangle");
    test_import r;
    import_text(&r, dir, "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    test_import_expect_ok(&r);
    const ir_mesh *mesh = only_mesh(&r);
    assert_int_equal(mesh->vertex_count, 3);
    assert_int_equal(mesh->index_count, 3);
    assert_int_equal(mesh->indices[0], 0);
    assert_int_equal(mesh->indices[1], 1);
    assert_int_equal(mesh->indices[2], 2);
    assert_true(mesh->positions[3] == 1.0f && mesh->positions[7] == 1.0f);
    assert_null(mesh->normals);
    assert_null(mesh->texcoords[0]);
    assert_null(mesh->colors);
    assert_string_equal(mesh->name, "model"); /* no 'o': the file's stem */
    assert_int_equal(mesh->submesh_count, 1);
    assert_int_equal(r.asset.material_count, 1);
    assert_string_equal(r.asset.materials[0].name, "default");
    assert_true(r.asset.materials[0].metallic == 0.0f);
    assert_int_equal(r.diag.warnings, 0);
    test_import_free(&r);
    free(dir);
}

static void obj_triangulates_quads_and_ngons(void **state) {
    (void)state;
    char *dir = fresh_dir("ngon");
    test_import r;
    /* A quad and a regular hexagon, both counter-clockwise in z = 0. */
    import_text(&r, dir,
                "v 0 0 0\nv 2 0 0\nv 2 1 0\nv 0 1 0\n"
                "v 10 0 0\nv 11 0 0\nv 11.5 0.866 0\nv 11 1.732 0\nv 10 1.732 0\nv 9.5 0.866 0\n"
                "f 1 2 3 4\nf 5 6 7 8 9 10\n");
    test_import_expect_ok(&r);
    const ir_mesh *mesh = only_mesh(&r);
    assert_int_equal(mesh->index_count, 3 * (2 + 4));
    assert_int_equal(mesh->vertex_count, 10);
    double quad = 0.0, hexagon = 0.0;
    for (uint32_t t = 0; t < 6; t++) {
        double area = triangle_area_z(mesh, t);
        assert_true(area > 0.0); /* winding kept */
        *(t < 2 ? &quad : &hexagon) += area;
    }
    assert_true(fabs(quad - 2.0) < 1e-6);
    assert_true(fabs(hexagon - 1.5 * 1.732) < 1e-3); /* 3 * sqrt(3) / 2 */
    test_import_free(&r);
    free(dir);
}

static void obj_triangulates_concave_quad(void **state) {
    (void)state;
    char *dir = fresh_dir("concave_quad");
    test_import r;
    /* An arrowhead whose reflex corner is vertex 4: a fan from vertex 1 would
     * put a flipped triangle outside the face. */
    import_text(&r, dir, "v 0 0 0\nv 4 2 0\nv 0 4 0\nv 1 2 0\nf 1 2 3 4\n");
    test_import_expect_ok(&r);
    const ir_mesh *mesh = only_mesh(&r);
    assert_int_equal(mesh->index_count, 6);
    double sum = 0.0;
    for (uint32_t t = 0; t < 2; t++) {
        double area = triangle_area_z(mesh, t);
        assert_true(area > 0.0);
        sum += area;
    }
    assert_true(fabs(sum - 6.0) < 1e-6); /* the polygon's area: 8 - 2 */
    test_import_free(&r);
    free(dir);
}

static void obj_triangulates_concave_ngon_covering_its_area(void **state) {
    (void)state;
    char *dir = fresh_dir("concave_ngon");
    test_import r;
    /* An L (area 5) given clockwise, in the plane x = 3. */
    import_text(&r, dir, "v 3 0 0\nv 3 0 3\nv 3 1 3\nv 3 1 1\nv 3 3 1\nv 3 3 0\nf 1 2 3 4 5 6\n");
    test_import_expect_ok(&r);
    const ir_mesh *mesh = only_mesh(&r);
    assert_int_equal(mesh->index_count, 12);
    double sum = 0.0;
    for (uint32_t t = 0; t < 4; t++) {
        const float *a = mesh->positions + 3 * (size_t)mesh->indices[3 * t];
        const float *b = mesh->positions + 3 * (size_t)mesh->indices[3 * t + 1];
        const float *c = mesh->positions + 3 * (size_t)mesh->indices[3 * t + 2];
        /* x component of (b - a) x (c - a): the L runs clockwise about +x,
         * so every triangle must too. */
        double cross_x = ((double)b[1] - a[1]) * ((double)c[2] - a[2]) -
                         ((double)b[2] - a[2]) * ((double)c[1] - a[1]);
        assert_true(cross_x < 0.0);
        sum -= 0.5 * cross_x;
    }
    assert_true(fabs(sum - 5.0) < 1e-6);
    test_import_free(&r);
    free(dir);
}

static void obj_welds_corners_by_position_texcoord_and_normal(void **state) {
    (void)state;
    char *dir = fresh_dir("weld");
    test_import r;
    /* Two triangles sharing an edge; the shared corners agree in v/vt/vn
     * except vertex 3, which the second face uses with another vt. */
    import_text(&r, dir,
                "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\n"
                "vt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nvt 0.5 0.5\n"
                "vn 0 0 2\n"
                "f 1/1/1 2/2/1 3/3/1\nf 1/1/1 3/5/1 4/4/1\n");
    test_import_expect_ok(&r);
    const ir_mesh *mesh = only_mesh(&r);
    assert_int_equal(mesh->vertex_count, 5);
    assert_int_equal(mesh->index_count, 6);
    assert_int_equal(mesh->indices[3], mesh->indices[0]);
    assert_true(mesh->indices[4] != mesh->indices[2]);
    assert_non_null(mesh->normals);
    assert_true(mesh->normals[2] == 1.0f); /* normalised */
    assert_non_null(mesh->texcoords[0]);
    test_import_free(&r);
    free(dir);
}

static void obj_accepts_every_corner_form_and_mixed_faces(void **state) {
    (void)state;
    char *dir = fresh_dir("forms");
    test_import r;
    import_text(&r, dir,
                "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvt 0.25 0.75\nvn 0 0 1\n"
                "f 1 2 3\n"
                "f 1/1 2/1 3/1\n"
                "f 1//1 2//1 3//1\n"
                "f 1/1/1 2/1/1 3/1/1\n"
                "f 1/1 3/1/1 4\n");
    test_import_expect_ok(&r);
    const ir_mesh *mesh = only_mesh(&r);
    assert_int_equal(mesh->index_count, 15);
    /* (v), (v,vt), (v,vn), (v,vt,vn) for vertices 1-3, plus 4. */
    assert_int_equal(mesh->vertex_count, 13);
    /* Some corners lack a normal: none at all, the pipeline generates them. */
    assert_null(mesh->normals);
    assert_non_null(mesh->texcoords[0]);
    /* Vertex 0 is corner "1": no vt -> 0,0; vertex 3 is "1/1": flipped v. */
    assert_true(mesh->texcoords[0][0] == 0.0f && mesh->texcoords[0][1] == 0.0f);
    assert_true(mesh->texcoords[0][6] == 0.25f && mesh->texcoords[0][7] == 0.25f);
    assert_non_null(strstr(test_import_messages(&r), "some face corners have no normal"));
    test_import_free(&r);
    free(dir);
}

static void obj_flips_texcoord_v_to_a_top_left_origin(void **state) {
    (void)state;
    char *dir = fresh_dir("flip");
    test_import r;
    import_text(&r, dir,
                "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt 1 0.25\nvt 0 1 0.5\nf 1/1 2/2 3/3\n");
    test_import_expect_ok(&r);
    const ir_mesh *mesh = only_mesh(&r);
    const float *uv = mesh->texcoords[0];
    assert_true(uv[1] == 1.0f && uv[2] == 1.0f && uv[3] == 0.75f && uv[5] == 0.0f);
    test_import_free(&r);
    free(dir);
}

static void obj_resolves_negative_indices(void **state) {
    (void)state;
    char *dir = fresh_dir("negative");
    test_import r;
    import_text(&r, dir,
                "v 0 0 0\nv 1 0 0\nv 0 1 0\nf -3 -2 -1\n"
                "v 5 0 0\nv 6 0 0\nv 5 1 0\nvt 0 0\nvn 0 0 1\nf -3/-1/-1 -2/-1/-1 -1/1/1\n");
    test_import_expect_ok(&r);
    const ir_mesh *mesh = only_mesh(&r);
    assert_int_equal(mesh->index_count, 6);
    assert_true(mesh->positions[3 * mesh->indices[3]] == 5.0f);
    assert_true(mesh->positions[3 * mesh->indices[5] + 1] == 1.0f);
    assert_true(mesh->positions[3 * mesh->indices[2] + 1] == 1.0f);
    test_import_free(&r);
    free(dir);
}

/* Indices of fewer than 8 digits are read eight bytes at a time, longer ones
 * and those in the file's last 8 bytes digit by digit: the same values. */
static void obj_reads_indices_of_every_length(void **state) {
    (void)state;
    char *dir = fresh_dir("index_lengths");
    test_import r;
    import_text(&r, dir,
                "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\n"
                "f 0000002 00000003 -0000001\nf +1 000000000002 4\nf 1 3 4");
    test_import_expect_ok(&r);
    const ir_mesh *mesh = only_mesh(&r);
    assert_int_equal(mesh->index_count, 9);
    static const float expected[9][2] = {{1, 0}, {0, 1}, {1, 1}, {0, 0}, {1, 0},
                                         {1, 1}, {0, 0}, {0, 1}, {1, 1}};
    for (int i = 0; i < 9; i++) {
        assert_true(mesh->positions[3 * mesh->indices[i]] == expected[i][0]);
        assert_true(mesh->positions[3 * mesh->indices[i] + 1] == expected[i][1]);
    }
    test_import_free(&r);
    import_text(&r, dir, "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 1234567\n");
    expect_error(&r, "model.obj:4: error: ", "face uses vertex 1234567, but only 3 vertices");
    test_import_free(&r);
    import_text(&r, dir, "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 12345678\n");
    expect_error(&r, "model.obj:4: error: ", "face uses vertex 12345678, but only 3 vertices");
    test_import_free(&r);
    import_text(&r, dir, "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 -0000004\n");
    expect_error(&r, "model.obj:4: error: ", "relative vertex index -4 points before the first");
    test_import_free(&r);
    free(dir);
}

static void obj_reads_vertex_colors_defaulting_missing_ones_to_white(void **state) {
    (void)state;
    char *dir = fresh_dir("colors");
    test_import r;
    import_text(&r, dir,
                "v 0 0 0\nv 1 0 0 1 0 0\nv 0 1 0 0 0.5 1\nv 1 1 0 1.0\nf 1 2 3\nf 2 4 3\n");
    test_import_expect_ok(&r);
    const ir_mesh *mesh = only_mesh(&r);
    assert_non_null(mesh->colors);
    const float white[4] = {1, 1, 1, 1}, red[4] = {1, 0, 0, 1}, blue[4] = {0, 0.5f, 1, 1};
    assert_memory_equal(mesh->colors + 0, white, sizeof white);
    assert_memory_equal(mesh->colors + 4, red, sizeof red);
    assert_memory_equal(mesh->colors + 8, blue, sizeof blue);
    assert_memory_equal(mesh->colors + 12, white, sizeof white); /* "v x y z w" */
    test_import_free(&r);
    free(dir);
}

static void obj_parses_leading_dot_and_exponent_numbers(void **state) {
    (void)state;
    char *dir = fresh_dir("numbers");
    test_import r;
    import_text(&r, dir, "v .5 -.5 +1e-3\nv 2.5E+2 -0 1.\nv 0.1 3 .8e-1\nf 1 2 3\n");
    test_import_expect_ok(&r);
    const ir_mesh *mesh = only_mesh(&r);
    const float expected[9] = {0.5f, -0.5f, 0.001f, 250.0f, -0.0f, 1.0f, 0.1f, 3.0f, 0.08f};
    for (int i = 0; i < 9; i++)
        if (mesh->positions[i] != expected[i])
            fail_msg("value %d: %.9g, expected %.9g", i, mesh->positions[i], expected[i]);
    test_import_free(&r);
    free(dir);
}

static void scan_number_is_correctly_rounded(void **state) {
    (void)state;
    static const char *const fixed[] = {"0.517982",
                                        "8219.830078",
                                        ".5",
                                        "-.5",
                                        "1e-3",
                                        "2.5E+2",
                                        "+1",
                                        "0.1",
                                        "1e22",
                                        "1e23",
                                        "9007199254740993",
                                        "123456789012345678901234567890",
                                        "3.14159265358979323846264338",
                                        "1.7976931348623157e308",
                                        "4.9e-324",
                                        "2.2250738585072014e-308",
                                        "1e400",
                                        "1e-400",
                                        "0.000000000000000000000000000001",
                                        "00000001.5000000",
                                        "-0.0"};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        const char *cursor = fixed[i];
        double value;
        assert_true(import_scan_number(&cursor, fixed[i] + strlen(fixed[i]), &value));
        assert_ptr_equal(cursor, fixed[i] + strlen(fixed[i]));
        double expected = strtod(fixed[i], NULL);
        if (memcmp(&value, &expected, sizeof value) != 0)
            fail_msg("%s: %.17g, strtod says %.17g", fixed[i], value, expected);
    }
    uint64_t seed = 88172645463325252ull;
    for (int round = 0; round < 20000; round++) {
        char text[64];
        int n = 0;
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        int digits = 1 + (int)(seed % 20), point = (int)((seed >> 8) % (uint64_t)(digits + 1));
        if ((seed >> 16) & 1)
            text[n++] = '-';
        for (int d = 0; d < digits; d++) {
            if (d == point)
                text[n++] = '.';
            text[n++] = (char)('0' + (seed >> (20 + 2 * (d % 20))) % 10);
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        }
        if ((seed >> 40) % 3 == 0)
            n += snprintf(text + n, sizeof text - (size_t)n, "e%d", (int)((seed >> 44) % 61) - 30);
        text[n] = '\0';
        const char *cursor = text;
        double value;
        assert_true(import_scan_number(&cursor, text + n, &value));
        assert_ptr_equal(cursor, text + n);
        double expected = strtod(text, NULL);
        if (memcmp(&value, &expected, sizeof value) != 0)
            fail_msg("%s: %.17g, strtod says %.17g", text, value, expected);
    }
}

/* Numbers followed by more text, as in a file: the path for short plain
 * decimals reads them (it needs a few bytes past the number), and must stop
 * where the general one does with strtod's value: digit counts around its
 * limits (7 and 8 on a side, 15 and 16 in all), every terminator that ends
 * or continues a number, signs, zeros. */
static void scan_number_in_text_matches_strtod(void **state) {
    (void)state;
    static const char terminators[] = " \n/#eE.x+-0\t";
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    for (int round = 0; round < 200000; round++) {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        char text[96];
        int n = 0;
        int sign = (int)(seed % 3), whole = (int)((seed >> 2) % 11),
            fraction = (int)((seed >> 6) % 11), point = (int)((seed >> 10) % 4) != 0;
        if (sign > 0)
            text[n++] = sign == 1 ? '-' : '+';
        uint64_t digits = seed * 6364136223846793005ull + 1442695040888963407ull;
        for (int d = 0; d < whole; d++, digits = digits * 6364136223846793005ull + 1)
            text[n++] = (char)('0' + (digits >> 59) % 10 * ((seed >> 14) % 5 != 0));
        if (point)
            text[n++] = '.';
        for (int d = 0; point && d < fraction; d++, digits = digits * 6364136223846793005ull + 1)
            text[n++] = (char)('0' + (digits >> 59) % 10);
        text[n++] = terminators[(seed >> 17) % (sizeof terminators - 1)];
        if (text[n - 1] == 'e' && (seed >> 23) % 2)
            n += snprintf(text + n, sizeof text - (size_t)n, "%d", (int)((seed >> 24) % 41) - 20);
        memset(text + n, ' ', 24);
        n += 24;
        text[n] = '\0';

        char *stop = NULL;
        double expected = strtod(text, &stop);
        const char *cursor = text;
        double value;
        bool scanned = import_scan_number(&cursor, text + n, &value);
        if (stop == text) { /* no number: neither reads one */
            assert_false(scanned);
            continue;
        }
        if (!scanned || cursor != stop || memcmp(&value, &expected, sizeof value) != 0)
            fail_msg("'%.*s': %s %.17g up to %d, strtod %.17g up to %d", (int)(stop - text + 4),
                     text, scanned ? "read" : "refused", value, (int)(cursor - text), expected,
                     (int)(stop - text));
    }
}

/* Found by fuzz_obj (tests/fuzz/regressions/obj/): a number of 96 or more
 * characters made the parser form a pointer past its 96-byte buffer
 * (undefined behaviour clang's UBSan reports; gcc's does not). It is read
 * from its digits instead, close to what strtod says. */
static void scan_number_reads_numbers_longer_than_its_buffer(void **state) {
    (void)state;
    char text[200];
    for (size_t length = 90; length < sizeof text - 8; length += 7) {
        size_t n = 0;
        text[n++] = '1';
        text[n++] = '.';
        for (; n < length; n++)
            text[n] = (char)('0' + n % 10);
        n += (size_t)snprintf(text + n, sizeof text - n, "e-5");
        const char *cursor = text;
        double value;
        assert_true(import_scan_number(&cursor, text + n, &value));
        assert_ptr_equal(cursor, text + n);
        double expected = strtod(text, NULL);
        if (fabs(value - expected) > 1e-15 * fabs(expected))
            fail_msg("%zu characters: %.17g, strtod says %.17g", n, value, expected);
    }
}

static void scan_number_reads_nan_and_infinity_spellings(void **state) {
    (void)state;
    static const char *const nans[] = {"nan", "-nan", "NaN", "1.#IND", "-1.#IND", "1.#QNAN"};
    static const char *const infs[] = {"inf", "-inf", "Infinity", "1.#INF", "-1.#INF00"};
    double value;
    for (size_t i = 0; i < sizeof nans / sizeof nans[0]; i++) {
        const char *cursor = nans[i];
        assert_true(import_scan_number(&cursor, nans[i] + strlen(nans[i]), &value));
        assert_true(isnan(value));
        assert_ptr_equal(cursor, nans[i] + strlen(nans[i]));
    }
    for (size_t i = 0; i < sizeof infs / sizeof infs[0]; i++) {
        const char *cursor = infs[i];
        assert_true(import_scan_number(&cursor, infs[i] + strlen(infs[i]), &value));
        assert_true(isinf(value));
        assert_ptr_equal(cursor, infs[i] + strlen(infs[i]));
    }
    static const char *const bad[] = {"", "-", ".", "e5", "x1", "+.e1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *cursor = bad[i];
        assert_false(import_scan_number(&cursor, bad[i] + strlen(bad[i]), &value));
    }
    /* "1e" and "2.5x": a number, then something the caller must reject. */
    const char *text = "1e";
    assert_true(import_scan_number(&text, text + 2, &value));
    assert_true(value == 1.0 && *text == 'e');
}

/* ---------------------------------------------------------------------------
 * Text handling
 * ------------------------------------------------------------------------- */

static void obj_skips_comments_blank_lines_and_crlf(void **state) {
    (void)state;
    char *dir = fresh_dir("crlf");
    test_import r;
    import_text(&r, dir,
                "\xef\xbb\xbf# header\r\n\r\n   \t\r\n  # indented comment\r\n"
                "v 0 0 0 # trailing comment\r\nv 1 0 0\r\n\tv 0 1 0\r\n"
                "s 1\r\ng group one\r\no thing\r\nf 1 2 3 # done\r\n\x1a");
    test_import_expect_ok(&r);
    const ir_mesh *mesh = only_mesh(&r);
    assert_int_equal(mesh->index_count, 3);
    assert_string_equal(mesh->name, "thing");
    assert_int_equal(r.diag.warnings, 0);
    test_import_free(&r);
    free(dir);
}

static void obj_joins_lines_ending_in_a_backslash(void **state) {
    (void)state;
    char *dir = fresh_dir("continuation");
    test_import r;
    import_text(&r, dir, "v 0 \\\n0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nf 1 2 \\\r\n 4 \\\n3\nf 1 2 x\n");
    /* The continued face spans lines 6-8; line 9 has the error. */
    expect_error(&r, "model.obj:9: error: ", "malformed face corner 'x'");
    test_import_free(&r);
    import_text(&r, dir, "v 0 \\\n0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nf 1 2 \\\r\n 4 \\\n3\n");
    test_import_expect_ok(&r);
    assert_int_equal(only_mesh(&r)->index_count, 6);
    test_import_free(&r);
    free(dir);
}

static void obj_warns_once_per_unknown_statement(void **state) {
    (void)state;
    char *dir = fresh_dir("unknown");
    test_import r;
    import_text(&r, dir,
                "v 0 0 0\nv 1 0 0\nv 0 1 0\nvp 0.5\ncstype bezier\nvp 0.2\nt crease 2/1/0 1 2\n"
                "f 1 2 3\n");
    test_import_expect_ok(&r);
    assert_int_equal(r.diag.warnings, 3);
    assert_non_null(
        strstr(test_import_messages(&r), "model.obj:4: warning: unsupported statement 'vp'"));
    assert_non_null(
        strstr(test_import_messages(&r), "model.obj:5: warning: unsupported statement 'cstype'"));
    assert_non_null(
        strstr(test_import_messages(&r), "model.obj:7: warning: unsupported statement 't'"));
    test_import_free(&r);
    free(dir);
}

/* ---------------------------------------------------------------------------
 * Materials
 * ------------------------------------------------------------------------- */

static const char GROUPED_OBJ[] = "mtllib lib.mtl\n"
                                  "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\n"
                                  "f 1 2 3\n" /* before any usemtl: default */
                                  "usemtl blue\nf 2 4 3\n"
                                  "usemtl red\nf 1 2 4\n"
                                  "usemtl blue\nf 1 4 3\n"
                                  "usemtl ghost\nf 3 2 1\n" /* not in the library: default */
                                  "usemtl red\n"            /* no face follows */
                                  "usemtl unused_here\n";

static const char GROUPED_MTL[] = "newmtl red\nKd 1 0 0\n"
                                  "newmtl green\nKd 0 1 0\n"
                                  "newmtl blue\nKd 0 0 1\n"
                                  "newmtl unused_here\n";

static void obj_groups_faces_into_one_submesh_per_material(void **state) {
    (void)state;
    char *dir = fresh_dir("grouping");
    write_in(dir, "lib.mtl", GROUPED_MTL);
    test_import r;
    import_text(&r, dir, GROUPED_OBJ);
    test_import_expect_ok(&r);
    const ir_mesh *mesh = only_mesh(&r);
    /* Slots in order of first use by a face: default, blue, red. */
    assert_int_equal(r.asset.material_count, 3);
    assert_string_equal(r.asset.materials[0].name, "default");
    assert_string_equal(r.asset.materials[1].name, "blue");
    assert_string_equal(r.asset.materials[2].name, "red");
    assert_true(r.asset.materials[1].base_color[2] == 1.0f);
    assert_true(r.asset.materials[1].base_color[0] == 0.0f);
    assert_int_equal(mesh->submesh_count, 3);
    const uint32_t expected_counts[3] = {6, 6, 3};
    for (uint32_t s = 0; s < 3; s++) {
        assert_int_equal(mesh->submeshes[s].material, s);
        assert_int_equal(mesh->submeshes[s].index_count, expected_counts[s]);
    }
    /* Within a submesh, faces keep their file order: default = faces 1, 5. */
    const float *p = mesh->positions;
    assert_true(p[3 * mesh->indices[0]] == 0.0f && p[3 * mesh->indices[1]] == 1.0f);
    assert_true(p[3 * mesh->indices[3] + 1] == 1.0f); /* face 5 starts at vertex 3 */
    assert_int_equal(count_occurrences(test_import_messages(&r), "warning"), 1);
    assert_non_null(strstr(test_import_messages(&r), "model.obj:13: warning: material 'ghost'"));
    assert_int_equal(r.dependencies.count, 1);
    assert_string_equal(r.dependencies.items[0], "lib.mtl");
    test_import_free(&r);
    free(dir);
}

static void obj_reads_several_material_libraries_with_spaces_in_names(void **state) {
    (void)state;
    char *dir = fresh_dir("mtllibs");
    write_in(dir, "my materials.mtl", "newmtl a\nKd 0.5 0.5 0.5\n");
    write_in(dir, "more.MTL", "newmtl b\nKd 0.25 0.25 0.25\n");
    write_in(dir, "last.mtl", "newmtl c\nKd 0.125 0.125 0.125\n");
    test_import r;
    import_text(&r, dir,
                "mtllib my materials.mtl more.MTL missing.mtl\nmtllib last.mtl\n"
                "v 0 0 0\nv 1 0 0\nv 0 1 0\n"
                "usemtl c\nf 1 2 3\nusemtl a\nf 1 2 3\nusemtl b\nf 1 2 3\n");
    test_import_expect_ok(&r);
    only_mesh(&r);
    assert_int_equal(r.asset.material_count, 3);
    assert_string_equal(r.asset.materials[0].name, "c");
    assert_string_equal(r.asset.materials[1].name, "a");
    assert_string_equal(r.asset.materials[2].name, "b");
    assert_true(r.asset.materials[1].base_color[0] == 0.5f);
    assert_int_equal(r.diag.warnings, 1);
    assert_non_null(strstr(test_import_messages(&r),
                           "model.obj:1: warning: cannot read material library "
                           "'missing.mtl'"));
    assert_int_equal(r.dependencies.count, 3);
    test_import_free(&r);
    free(dir);
}

static void obj_resolves_usemtl_against_a_later_mtllib(void **state) {
    (void)state;
    char *dir = fresh_dir("late_mtllib");
    write_in(dir, "late.mtl", "newmtl red\nKd 1 0 0\n");
    test_import r;
    import_text(&r, dir, "v 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl red\nf 1 2 3\nmtllib late.mtl\n");
    test_import_expect_ok(&r);
    assert_int_equal(r.asset.material_count, 1);
    assert_string_equal(r.asset.materials[0].name, "red");
    assert_true(r.asset.materials[0].base_color[1] == 0.0f);
    assert_int_equal(r.diag.warnings, 0);
    test_import_free(&r);
    free(dir);
}

/* A file naming more libraries than any real one: the first 256 are tried,
 * the rest ignored with one warning (no lookup or file probe each). */
static void obj_caps_the_number_of_material_libraries(void **state) {
    (void)state;
    char *dir = fresh_dir("many_mtllibs");
    write_in(dir, "l299.mtl", "newmtl red\nKd 1 0 0\n");
    bytebuf text = {0};
    for (int i = 0; i < 300; i++)
        bytebuf_printf(&text, "mtllib l%d.mtl\n", i);
    bytebuf_printf(&text, "v 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl red\nf 1 2 3\n");
    bytebuf_append(&text, "", 1);
    test_import r;
    import_text(&r, dir, (const char *)text.data);
    test_import_expect_ok(&r);
    assert_int_equal(r.diag.warnings, 256 + 1); /* 256 missing, then the cap once */
    assert_non_null(strstr(test_import_messages(&r),
                           "model.obj:257: warning: more than 256 material libraries; "
                           "'l256.mtl' and later ones are ignored"));
    assert_string_equal(r.asset.materials[0].name, "default"); /* l299.mtl was never read */
    test_import_free(&r);
    bytebuf_free(&text);
    free(dir);
}

static void obj_warns_about_a_missing_material_library_and_cooks(void **state) {
    (void)state;
    char *dir = fresh_dir("missing_mtl");
    test_import r;
    import_text(&r, dir, "mtllib nowhere.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl red\nf 1 2 3\n");
    test_import_expect_ok(&r);
    only_mesh(&r);
    assert_int_equal(r.asset.material_count, 1);
    assert_string_equal(r.asset.materials[0].name, "default");
    assert_int_equal(r.diag.warnings, 1); /* the library, not also each name */
    assert_non_null(strstr(test_import_messages(&r), "model.obj:1: warning:"));
    test_import_free(&r);
    free(dir);
}

static void mtl_converts_phong_parameters_to_metallic_roughness(void **state) {
    (void)state;
    char *dir = fresh_dir("mtl_values");
    write_in(dir, "m.mtl",
             "# comment\n"
             "newmtl plain\n  Kd 0.8 0.6 0.4\n  Ns 0\n  Ka 1 1 1\n  illum 2\n"
             "newmtl glassy\nKd 0.5\nd 0.25\nTr 0.9\nNs 98\nKe 0.1 0.2 -1\n"
             "newmtl tr_only\nTr 0.75\n"
             "newmtl pbr\nKd 2 -1 0.5\nPr 0.3\nPm 0.7\nNs 1000\n"
             "newmtl odd\nKd spectral x.rfl\nNs lots\nfrobnicate 1\nfrobnicate 2\n");
    test_import r;
    import_text(&r, dir,
                "mtllib m.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\n"
                "usemtl plain\nf 1 2 3\nusemtl glassy\nf 1 2 3\nusemtl tr_only\nf 1 2 3\n"
                "usemtl pbr\nf 1 2 3\nusemtl odd\nf 1 2 3\n");
    test_import_expect_ok(&r);
    assert_int_equal(r.asset.material_count, 5);
    const ir_material *plain = &r.asset.materials[0], *glassy = &r.asset.materials[1];
    const ir_material *tr_only = &r.asset.materials[2], *pbr = &r.asset.materials[3];
    const ir_material *odd = &r.asset.materials[4];
    assert_true(plain->base_color[0] == 0.8f && plain->base_color[2] == 0.4f);
    assert_true(plain->base_color[3] == 1.0f && plain->alpha_mode == IR_ALPHA_OPAQUE);
    assert_true(plain->roughness == 1.0f && plain->metallic == 0.0f);
    assert_true(glassy->base_color[1] == 0.5f && glassy->base_color[3] == 0.25f); /* d wins */
    assert_int_equal(glassy->alpha_mode, IR_ALPHA_BLEND);
    assert_true(fabsf(glassy->roughness - 0.14142136f) < 1e-6f); /* sqrt(2 / 100) */
    assert_true(glassy->emissive[0] == 0.1f && glassy->emissive[1] == 0.2f &&
                glassy->emissive[2] == 0.0f);
    assert_true(tr_only->base_color[3] == 0.25f && tr_only->alpha_mode == IR_ALPHA_BLEND);
    assert_true(pbr->base_color[0] == 1.0f && pbr->base_color[1] == 0.0f);
    assert_true(pbr->roughness == 0.3f && pbr->metallic == 0.7f); /* Pr beats Ns */
    assert_true(odd->base_color[0] == 1.0f && odd->roughness == 1.0f);
    const char *text = test_import_messages(&r);
    assert_non_null(strstr(text, "m.mtl:21: warning: 'Kd spectral' colours are not supported"));
    assert_non_null(strstr(text, "m.mtl:22: warning: 'Ns' has a missing or malformed value"));
    assert_non_null(strstr(text, "m.mtl:23: warning: unsupported statement 'frobnicate'"));
    assert_int_equal(r.diag.warnings, 3); /* Ka 1 1 1 says nothing */
    test_import_free(&r);
    free(dir);
}

static void mtl_skips_texture_options_and_keeps_file_names_with_spaces(void **state) {
    (void)state;
    char *dir = fresh_dir("mtl_textures");
    write_in(dir, "m/tex/texture 01.png", "x");
    write_in(dir, "m/tex/n.png", "x");
    write_in(dir, "m/tex/alpha.png", "x");
    write_in(dir, "m/tex/glow.png", "x");
    write_in(dir, "m/tex/orm.png", "x");
    write_in(dir, "m/tex/rough.png", "x");
    write_in(
        dir, "m/m.mtl",
        "newmtl a\n"
        "map_Kd -s 1 1 1 -o 0.5 -clamp on -blendu off tex/texture 01.png\n"
        "map_bump -imfchan r tex/n.png -bm 0.5\n"
        "map_d -mm 0 1 tex\\alpha.png\n"
        "map_Ke -texres 512 tex/glow.png\n"
        "map_Pr tex/rough.png\n"
        "map_ORM -type sphere tex/orm.png\n"
        "map_Ks ignored.png\n"
        "newmtl b\nbump -bm 2 tex/missing.png\nmap_Kd ../../outside.png\nmap_Pr tex/rough.png\n");
    test_import r;
    import_text(&r, dir,
                "mtllib m/m.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl a\nf 1 2 3\n"
                "usemtl b\nf 1 2 3\n");
    test_import_expect_ok(&r);
    const ir_material *a = &r.asset.materials[0], *b = &r.asset.materials[1];
    assert_string_equal(tex_path(&r, a, IR_SLOT_BASE_COLOR), "m/tex/texture 01.png");
    assert_string_equal(tex_path(&r, a, IR_SLOT_NORMAL), "m/tex/n.png");
    assert_true(a->normal_scale == 0.5f);
    assert_string_equal(tex_path(&r, a, IR_SLOT_ALPHA), "m/tex/alpha.png");
    assert_int_equal(a->alpha_mode, IR_ALPHA_BLEND);
    assert_string_equal(tex_path(&r, a, IR_SLOT_EMISSIVE), "m/tex/glow.png");
    assert_true(a->emissive[0] == 1.0f);
    /* map_ORM beats map_Pr whatever the order, and fills occlusion too. */
    assert_string_equal(tex_path(&r, a, IR_SLOT_METALLIC_ROUGHNESS), "m/tex/orm.png");
    assert_string_equal(tex_path(&r, a, IR_SLOT_OCCLUSION), "m/tex/orm.png");
    assert_int_equal(a->textures[IR_SLOT_OCCLUSION].image,
                     a->textures[IR_SLOT_METALLIC_ROUGHNESS].image);
    /* One image per file: a's (overridden) map_Pr and b's are one image. */
    uint32_t rough_images = 0;
    for (uint32_t i = 0; i < r.asset.image_count; i++)
        rough_images += strcmp(r.asset.images[i].path, "m/tex/rough.png") == 0;
    assert_int_equal(rough_images, 1);
    assert_true(a->metallic == 1.0f && a->roughness == 1.0f);
    /* b: missing texture and escaping path are warnings with empty slots. */
    assert_null(tex_path(&r, b, IR_SLOT_NORMAL));
    assert_true(b->normal_scale == 1.0f);
    assert_null(tex_path(&r, b, IR_SLOT_BASE_COLOR));
    assert_string_equal(tex_path(&r, b, IR_SLOT_METALLIC_ROUGHNESS), "m/tex/rough.png");
    assert_true(b->metallic == 0.0f && b->roughness == 1.0f); /* a roughness-only map */
    assert_int_equal(r.diag.warnings, 3);
    assert_non_null(strstr(test_import_messages(&r),
                           "m/m.mtl:8: warning: material 'a': map_Ks 'ignored.png' is not cooked"));
    assert_non_null(
        strstr(test_import_messages(&r), "m/m.mtl:10: warning: texture 'tex/missing.png'"));
    assert_non_null(
        strstr(test_import_messages(&r), "m/m.mtl:11: warning: texture '../../outside.png'"));
    /* Dependencies: the library and each texture found. */
    assert_true(strlist_contains(&r.dependencies, "m/m.mtl"));
    assert_true(strlist_contains(&r.dependencies, "m/tex/texture 01.png"));
    assert_false(strlist_contains(&r.dependencies, "ignored.png"));
    test_import_free(&r);
    free(dir);
}

/* Statements kiln's material has no place for are named in a warning each
 * and recorded in the material's dropped list, unless their value says
 * nothing (Ka, which exporters always write); Ks becomes the specular
 * factors (black: the defaults). */
static void mtl_names_the_statements_it_does_not_cook(void **state) {
    (void)state;
    char *dir = fresh_dir("mtl_dropped");
    write_in(dir, "m.mtl",
             "newmtl quiet\nKa 0 0 0\nKs 0.0 0.0 0.0\nNs 50\nillum 2\n"
             "newmtl shiny\nKs 0.5 0.5 0.5\nmap_Ks -s 2 2 1 spec.png\nmap_Ns gloss.png\n"
             "map_Ka ao.png\ndisp -mm 0 1 height.png\nmap_disp d.png\nKa 0.2\n");
    test_import r;
    import_text(&r, dir,
                "mtllib m.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl quiet\nf 1 2 3\n"
                "usemtl shiny\nf 1 2 3\n");
    test_import_expect_ok(&r);
    const char *text = test_import_messages(&r);
    assert_null(strstr(text, "'quiet'"));
    assert_null(strstr(text, "Ks '0.5 0.5 0.5'"));
    const ir_material *quiet = &r.asset.materials[0], *shiny = &r.asset.materials[1];
    assert_true(quiet->specular == 1.0f && quiet->specular_color[0] == 1.0f);
    assert_true(shiny->specular == 0.5f && shiny->specular_color[0] == 1.0f &&
                shiny->specular_color[1] == 1.0f && shiny->specular_color[2] == 1.0f);
    assert_null(quiet->dropped_extensions);
    assert_string_equal(shiny->dropped_extensions, "map_Ks map_Ns map_Ka disp map_disp");
    assert_non_null(strstr(text, "m.mtl:8: warning: material 'shiny': map_Ks '-s 2 2 1 spec.png'"));
    assert_non_null(strstr(text, "m.mtl:9: warning: material 'shiny': map_Ns 'gloss.png'"));
    assert_non_null(strstr(text, "m.mtl:10: warning: material 'shiny': map_Ka 'ao.png'"));
    assert_non_null(strstr(text, "m.mtl:11: warning: material 'shiny': disp '-mm 0 1 height.png'"));
    assert_non_null(strstr(text, "m.mtl:12: warning: material 'shiny': map_disp 'd.png'"));
    assert_null(strstr(text, "Ka '0.2'")); /* exporters write Ka everywhere */
    assert_int_equal(r.diag.warnings, 5);
    test_import_free(&r);
    free(dir);
}

static void mtl_resolves_textures_relative_to_its_own_folder(void **state) {
    (void)state;
    char *dir = fresh_dir("mtl_folders");
    write_in(dir, "shared/lib.mtl", "newmtl x\nmap_Kd img/wood.png\n");
    write_in(dir, "shared/img/wood.png", "x");
    test_import r;
    import_text_as(&r, dir, "models/crate/crate.obj",
                   "mtllib ../../shared/lib.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl x\nf 1 2 3\n");
    test_import_expect_ok(&r);
    assert_string_equal(tex_path(&r, &r.asset.materials[0], IR_SLOT_BASE_COLOR),
                        "shared/img/wood.png");
    test_import_free(&r);
    free(dir);
}

/* ---------------------------------------------------------------------------
 * Errors and odd input
 * ------------------------------------------------------------------------- */

static void obj_rejects_zero_index_with_line_number(void **state) {
    (void)state;
    char *dir = fresh_dir("zero");
    test_import r;
    import_text(&r, dir, "v 0 0 0\nv 1 0 0\nv 0 1 0\n\nf 1 2 3\nf 1 0 3\n");
    expect_error(&r, "model.obj:6: error: ", "index 0");
    test_import_free(&r);
    import_text(&r, dir, "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nf 1/1 2/0 3/1\n");
    expect_error(&r, "model.obj:5: error: ", "texture coordinate index 0");
    test_import_free(&r);
    free(dir);
}

static void obj_rejects_out_of_range_indices_with_line_number(void **state) {
    (void)state;
    char *dir = fresh_dir("range");
    test_import r;
    import_text(&r, dir, "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n");
    expect_error(&r, "model.obj:4: error: ", "vertex 4");
    test_import_free(&r);
    import_text(&r, dir, "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 -4\n");
    expect_error(&r, "model.obj:4: error: ", "relative vertex index -4");
    test_import_free(&r);
    import_text(&r, dir, "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nf 1/-2 2/1 3/1\n");
    expect_error(&r, "model.obj:5: error: ", "relative texture coordinate index -2");
    test_import_free(&r);
    import_text(&r, dir, "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 99999999999999999999999\n");
    expect_error(&r, "model.obj:4: error: ", "only 3 vertices");
    test_import_free(&r);
    /* A face referring to a vertex defined after it. */
    import_text(&r, dir, "v 0 0 0\nv 1 0 0\nf 1 2 3\nv 0 1 0\n");
    expect_error(&r, "model.obj:3: error: ", "defined before it");
    test_import_free(&r);
    free(dir);
}

static void obj_ignores_normal_and_texcoord_indices_beyond_those_defined(void **state) {
    (void)state;
    char *dir = fresh_dir("missing_attributes");
    test_import r;
    /* Exporters write vn indices without any vn (corpus catmark_torus). */
    import_text(&r, dir, "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/1/1 2/2/2 3/3/3\nf 1//4 2//5 3//6\n");
    test_import_expect_ok(&r);
    const ir_mesh *mesh = only_mesh(&r);
    assert_null(mesh->normals);
    assert_null(mesh->texcoords[0]);
    assert_int_equal(r.diag.warnings, 2); /* once for vt, once for vn */
    assert_non_null(
        strstr(test_import_messages(&r), "model.obj:4: warning: face uses texture coordinate 1"));
    assert_non_null(strstr(test_import_messages(&r), "model.obj:4: warning: face uses normal 1"));
    test_import_free(&r);
    free(dir);
}

static void obj_rejects_faces_with_fewer_than_three_corners(void **state) {
    (void)state;
    char *dir = fresh_dir("short_face");
    test_import r;
    import_text(&r, dir, "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\nf 1 2\n");
    expect_error(&r, "model.obj:5: error: ", "2 corners");
    test_import_free(&r);
    import_text(&r, dir, "v 0 0 0\nf\n");
    expect_error(&r, "model.obj:2: error: ", "0 corners");
    test_import_free(&r);
    free(dir);
}

static void obj_rejects_malformed_numbers_and_corners(void **state) {
    (void)state;
    char *dir = fresh_dir("malformed");
    static const struct {
        const char *text;
        const char *prefix;
        const char *words;
    } cases[] = {
        {"v 0 0 0\nv 1 0 0\nv 0 1,5 0\nf 1 2 3\n", "model.obj:3: error: ", "'1,5' is not a number"},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0x\n", "model.obj:3: error: ", "'0x' is not a number"},
        {"v 0 0\n", "model.obj:1: error: ", "found 2 values"},
        {"v 0 0 0 0 0\n", "model.obj:1: error: ", "found 5 values"},
        {"v 1 2 3 4 5 6 7\n", "model.obj:1: error: ", "more than 6 values"},
        {"vn 0 1\n", "model.obj:1: error: ", "'vn' needs x y z"},
        {"vt\n", "model.obj:1: error: ", "'vt' needs at least one value"},
        {"vt 0 -e\n", "model.obj:1: error: ", "'-e' is not a number"},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3/\nf 1/2/3/4 2 3\n",
         "model.obj:5: error: ", "'1/2/3/4'"},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 a\n", "model.obj:4: error: ", "'a'"},
        {"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3-\n", "model.obj:4: error: ", "'3-'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        test_import r;
        import_text(&r, dir, cases[i].text);
        expect_error(&r, cases[i].prefix, cases[i].words);
        test_import_free(&r);
    }
    free(dir);
}

static void obj_rejects_binary_content_as_not_text(void **state) {
    (void)state;
    char *dir = fresh_dir("binary");
    test_import r;
    static const char with_nul[] = "v 0 0 0\nv 1 0 0\nv 0 1\0 0\nf 1 2 3\n";
    import_bytes(&r, dir, "model.obj", with_nul, sizeof with_nul - 1);
    expect_error(&r, "model.obj:3: error: ", "not a text OBJ file");
    test_import_free(&r);
    static const unsigned char png[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13};
    import_bytes(&r, dir, "model.obj", png, sizeof png);
    expect_error(&r, "model.obj:1: error: ", "not a text OBJ file");
    test_import_free(&r);
    static const char in_comment_then_statement[] = "# ok\nv 0 0 0\n\x01\x02garbage\n";
    import_bytes(&r, dir, "model.obj", in_comment_then_statement,
                 sizeof in_comment_then_statement - 1);
    expect_error(&r, "model.obj:3: error: ", "not a text OBJ file");
    test_import_free(&r);
    static const char in_trailing_comment[] = "v 0 0 0\nv 1 0 0 # \x01\n";
    import_bytes(&r, dir, "model.obj", in_trailing_comment, sizeof in_trailing_comment - 1);
    expect_error(&r, "model.obj:2: error: ", "not a text OBJ file");
    test_import_free(&r);
    free(dir);
}

static void obj_drops_faces_using_nan_positions_with_a_warning(void **state) {
    (void)state;
    char *dir = fresh_dir("nan");
    test_import r;
    import_text(&r, dir,
                "v nan 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nv 1.#IND 0 0\nv 0 0 1e39\n"
                "f 1 2 3\nf 2 4 3\nf 5 2 4\nf 2 4 6\n");
    test_import_expect_ok(&r);
    const ir_mesh *mesh = only_mesh(&r);
    assert_int_equal(mesh->index_count, 3);
    assert_int_equal(mesh->vertex_count, 3);
    assert_non_null(
        strstr(test_import_messages(&r), "model.obj:1: warning: vertex position is not a finite"));
    assert_non_null(strstr(test_import_messages(&r), "model.obj:7: warning: 3 faces dropped"));
    assert_int_equal(r.diag.warnings, 2);
    test_import_free(&r);
    import_text(&r, dir, "v inf 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    expect_error(&r, "model.obj:4: error: ", "not a finite number");
    test_import_free(&r);
    free(dir);
}

static void obj_sanitises_nan_texcoords_and_normals(void **state) {
    (void)state;
    char *dir = fresh_dir("nan_attributes");
    test_import r;
    import_text(&r, dir,
                "v 0 0 0\nv 1 0 0\nv 0 1 0\nvt nan 0.5\nvt 1 0\nvt 0 1\n"
                "vn 0 0 1\nvn 0 0 0\nvn -nan 1 0\n"
                "f 1/1/1 2/2/2 3/3/3\n");
    test_import_expect_ok(&r);
    const ir_mesh *mesh = only_mesh(&r);
    assert_true(mesh->texcoords[0][0] == 0.0f && mesh->texcoords[0][1] == 0.5f);
    assert_non_null(mesh->normals);
    /* The unusable normals take the face's: +z. */
    for (int v = 0; v < 3; v++)
        assert_true(mesh->normals[3 * v + 2] == 1.0f);
    assert_non_null(
        strstr(test_import_messages(&r), "model.obj:4: warning: texture coordinate is not"));
    assert_non_null(
        strstr(test_import_messages(&r), "2 vertex normals are zero or not a finite number"));
    test_import_free(&r);
    free(dir);
}

/* import_obj with the work spread on two threads. */
static bool import_on_two_threads(cook_context *ctx, ir_asset *out) {
    cook_settings settings = *ctx->settings;
    settings.threads = 2;
    cook_context copy = *ctx;
    copy.settings = &settings;
    bool ok = import_obj(&copy, out);
    ctx->dependencies = copy.dependencies;
    ctx->absent = copy.absent;
    ctx->references = copy.references;
    return ok;
}

/* A strip of more vertices than one block of the stream gathering holds
 * (obj_streams.c), on two threads: every vertex's position, flipped texture
 * coordinate and unit normal come from its own v, vt and vn, and unusable
 * normals in later blocks are all found and counted. */
static void streams_of_many_vertices_on_two_threads(void **state) {
    (void)state;
    enum { N = 100000 };
    static const uint32_t unusable[3] = {70000, 80000, 99998}; /* 0-based vertices */
    size_t cap = (size_t)N * 96, used = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    for (uint32_t i = 0; i < N; i++) {
        bool bad = i == unusable[0] || i == unusable[1] || i == unusable[2];
        used += (size_t)snprintf(text + used, cap - used, "v %u 0 %u\nvt %u 0.25\nvn %s\n", i,
                                 i % 7, i % 2,
                                 !bad               ? "0 3 0"
                                 : i == unusable[1] ? "nan 0 0"
                                                    : "0 0 0");
    }
    for (uint32_t i = 1; i + 2 <= N; i++)
        used += (size_t)snprintf(text + used, cap - used, "f %u/%u/%u %u/%u/%u %u/%u/%u\n", i, i, i,
                                 i + 1, i + 1, i + 1, i + 2, i + 2, i + 2);
    char *dir = fresh_dir("many_vertices");
    test_import r;
    test_import_bytes(&r, import_on_two_threads, dir, "model.obj", text, used);
    test_import_expect_ok(&r);
    const ir_mesh *mesh = only_mesh(&r);
    assert_int_equal(mesh->vertex_count, N); /* first used in file order */
    assert_non_null(mesh->texcoords[0]);
    assert_non_null(mesh->normals);
    for (uint32_t v = 0; v < N; v++) {
        assert_true(mesh->positions[3 * v] == (float)v && mesh->positions[3 * v + 1] == 0.0f &&
                    mesh->positions[3 * v + 2] == (float)(v % 7));
        assert_true(mesh->texcoords[0][2 * v] == (float)(v % 2) &&
                    mesh->texcoords[0][2 * v + 1] == 0.75f);
        const float *n = mesh->normals + 3 * v;
        if (v != unusable[0] && v != unusable[1] && v != unusable[2])
            assert_true(n[0] == 0.0f && n[1] == 1.0f && n[2] == 0.0f);
        else /* the faces' normal instead */
            assert_true(fabsf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2] - 1.0f) < 1e-5f);
    }
    assert_non_null(
        strstr(test_import_messages(&r), "3 vertex normals are zero or not a finite number"));
    test_import_free(&r);
    free(dir);
    free(text);
}

/* Submesh `s`'s level-0 indices' positions, as "x,y,z" tokens joined by spaces:
 * which vertex each index names, whatever the vertex numbering. */
static void expect_positions(const ir_mesh *mesh, uint32_t s, const char *expected) {
    const ir_submesh *sub = &mesh->submeshes[s];
    char text[512] = "";
    size_t used = 0;
    for (uint32_t i = 0; i < sub->index_count; i++) {
        const float *p = mesh->positions + 3 * mesh->indices[sub->index_offset + i];
        used += (size_t)snprintf(text + used, sizeof text - used, "%s%g,%g,%g", i ? " " : "",
                                 (double)p[0], (double)p[1], (double)p[2]);
    }
    if (strcmp(text, expected) != 0)
        fail_msg("submesh %u: \"%s\", expected \"%s\"", s, text, expected);
}

static void obj_imports_lines_and_points(void **state) {
    (void)state;
    char *dir = fresh_dir("lines");
    test_import r;
    /* l: a polyline of v or v/vt; p: any number of points. */
    import_text(&r, dir,
                "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nvt 0.5 0.5\n"
                "l 1/1 2/1 3/1 4/1\np 1 2\np 3\nl 4 1\n");
    test_import_expect_ok(&r);
    test_check_asset(&r.asset);
    assert_int_equal(r.diag.warnings, 0);
    const ir_mesh *mesh = only_mesh(&r);
    assert_int_equal(r.asset.material_count, 1);
    assert_int_equal(mesh->submesh_count, 2);
    assert_int_equal(mesh->submeshes[0].topology, KILN_TOPOLOGY_LINES);
    assert_int_equal(mesh->submeshes[1].topology, KILN_TOPOLOGY_POINTS);
    /* 1 2 3 4 as segments 1-2 2-3 3-4, then 4-1 (a corner without vt is another vertex) */
    expect_positions(mesh, 0, "0,0,0 1,0,0 1,0,0 0,1,0 0,1,0 1,1,0 1,1,0 0,0,0");
    expect_positions(mesh, 1, "0,0,0 1,0,0 0,1,0");
    assert_int_equal(mesh->index_count, 11);
    assert_non_null(mesh->texcoords[0]);
    assert_null(mesh->normals); /* no faces and no vn: none made up */
    test_import_free(&r);

    /* With faces: triangles first, then lines, then points, each by material;
     * the faces' normals stay, the line's vertices get +Z. */
    import_text(&r, dir,
                "v 0 0 0\nv 1 0 0\nv 0 1 0\nvn 0 1 0\n"
                "p 3\nl 1 2\nf 1//1 2//1 3//1\n");
    test_import_expect_ok(&r);
    test_check_asset(&r.asset);
    mesh = only_mesh(&r);
    assert_int_equal(mesh->submesh_count, 3);
    static const kiln_topology order[3] = {KILN_TOPOLOGY_TRIANGLES, KILN_TOPOLOGY_LINES,
                                           KILN_TOPOLOGY_POINTS};
    for (uint32_t s = 0; s < 3; s++)
        assert_int_equal(mesh->submeshes[s].topology, order[s]);
    expect_positions(mesh, 1, "0,0,0 1,0,0");
    assert_non_null(mesh->normals);
    assert_true(mesh->normals[3 * mesh->indices[0] + 1] == 1.0f);
    assert_true(mesh->normals[3 * mesh->indices[3] + 2] == 1.0f);
    assert_null(strstr(test_import_messages(&r), "normals are generated"));
    test_import_free(&r);

    /* Errors and drops: a line needs two vertices; a point on a non-finite
     * position is dropped like a face. */
    import_text(&r, dir, "v 0 0 0\nl 1\n");
    expect_error(&r, "model.obj:2: error: ", "'l' has 1 vertices; it needs at least 2");
    test_import_free(&r);
    import_text(&r, dir, "v 0 0 0\nv 1 0 0\nl 1 3\n");
    expect_error(&r, "model.obj:3: error: ", "line uses vertex 3, but only 2 vertices");
    test_import_free(&r);
    import_text(&r, dir, "v 0 0 0\nv nan 0 0\nv 2 0 0\np 1 2 3\nl 1 3 2\n");
    test_import_expect_ok(&r);
    mesh = only_mesh(&r);
    expect_positions(mesh, 0, "0,0,0 2,0,0"); /* segment 1-3; 3-2 dropped */
    expect_positions(mesh, 1, "0,0,0 2,0,0"); /* points 1 and 3 */
    assert_non_null(strstr(test_import_messages(&r),
                           "model.obj:4: warning: 2 points or line segments dropped"));
    test_import_free(&r);
    free(dir);
}

/* The corpus's tinyobjloader line-prim.obj and points-prim.obj shapes. */
static void obj_corpus_like_line_and_point_files_cook(void **state) {
    (void)state;
    char *dir = fresh_dir("corpus_like");
    const char *cube = "v 0 2 2\nv 0 0 2\nv 2 0 2\nv 2 2 2\nv 0 2 0\nv 0 0 0\nv 2 0 0\nv 2 2 0\n";
    char text[512];
    test_import r;
    snprintf(text, sizeof text, "%sg g0\nl 1 2 3 4\nl 5 6 7 8\n", cube);
    import_text(&r, dir, text);
    test_import_expect_ok(&r);
    assert_int_equal(only_mesh(&r)->index_count, 12); /* 3 + 3 segments */
    test_import_free(&r);
    snprintf(text, sizeof text, "%sp 1 2 3 4 5 6 7 8\n", cube);
    import_text(&r, dir, text);
    test_import_expect_ok(&r);
    assert_int_equal(only_mesh(&r)->index_count, 8);
    assert_int_equal(only_mesh(&r)->submeshes[0].topology, KILN_TOPOLOGY_POINTS);
    test_import_free(&r);
    free(dir);
}

/* A file of vertices alone is a point cloud; one without geometry fails. */
static void obj_vertices_alone_are_a_point_cloud(void **state) {
    (void)state;
    char *dir = fresh_dir("no_faces");
    test_import r;
    import_text(&r, dir, "v 0 0 0 1 0 0\nv 1 0 0 0 1 0\nv 1 0 0 0 1 0\n");
    test_import_expect_ok(&r);
    const ir_mesh *mesh = only_mesh(&r);
    assert_int_equal(mesh->submeshes[0].topology, KILN_TOPOLOGY_POINTS);
    expect_positions(mesh, 0, "0,0,0 1,0,0 1,0,0"); /* each v once, in file order */
    assert_non_null(mesh->colors);
    assert_non_null(strstr(test_import_messages(&r),
                           "note: no faces, lines or points: its 3 vertices are cooked as a "
                           "point cloud"));
    assert_int_equal(r.diag.warnings, 0);
    test_import_free(&r);
    import_text(&r, dir, "");
    expect_error(&r, "model.obj: error: ", "no geometry");
    test_import_free(&r);
    import_text(&r, dir, "v nan 0 0\n");
    expect_error(&r, "model.obj: error: ", "no vertex position is a finite number");
    test_import_free(&r);
    free(dir);
}

/* ---------------------------------------------------------------------------
 * Corpus
 * ------------------------------------------------------------------------- */

static void import_corpus_file(test_import *r, const char *relative) {
    const char *corpus = test_corpus_dir();
    char *path = test_path_join(corpus, relative);
    size_t size;
    uint8_t *bytes = test_read_file(path, &size);
    import_bytes(r, corpus, relative, bytes, size);
    free(bytes);
    free(path);
}

static void obj_corpus_rows_import_as_the_index_expects(void **state) {
    (void)state;
    if (test_skip_without_corpus("obj_corpus_rows_import_as_the_index_expects"))
        skip();
    test_corpus_row *index;
    size_t index_rows;
    char *index_text = test_corpus_index(&index, &index_rows);
    int rows = 0, failures = 0;
    for (size_t row = 0; row < index_rows; row++) {
        const char *fields[4] = {index[row].path, index[row].format, index[row].category,
                                 index[row].expect};
        if (strcmp(fields[1], "obj") != 0)
            continue;
        rows++;
        test_import r;
        import_corpus_file(&r, fields[0]);
        bool expect_success = strcmp(fields[3], "ok") == 0;
        if (expect_success && (!r.ok || r.diag.errors > 0)) {
            printf("%s: expected ok:\n%s", fields[0], test_import_messages(&r));
            failures++;
        } else if (!expect_success && (r.ok || r.diag.errors == 0)) {
            printf("%s: expected an error:\n%s", fields[0], test_import_messages(&r));
            failures++;
        }
        if (r.ok)
            test_check_asset(&r.asset);
        test_import_free(&r);
    }
    free(index);
    free(index_text);
    assert_true(rows >= 30);
    assert_int_equal(failures, 0);
}

static void obj_corpus_models_have_the_expected_counts(void **state) {
    (void)state;
    if (test_skip_without_corpus("obj_corpus_models_have_the_expected_counts"))
        skip();
    test_import r;
    /* cube.obj: 6 quads, each its own group (g front cube, ...); usemtl
     * white, white, red, white, green, white. */
    import_corpus_file(&r, "obj/tinyobjloader/cube.obj");
    test_import_expect_ok(&r);
    const ir_mesh *mesh = only_mesh(&r);
    assert_int_equal(mesh->index_count, 3 * 12);
    assert_int_equal(mesh->vertex_count, 8);
    assert_int_equal(r.asset.material_count, 3);
    assert_string_equal(r.asset.materials[0].name, "white");
    assert_string_equal(r.asset.materials[1].name, "red");
    assert_string_equal(r.asset.materials[2].name, "green");
    assert_true(r.asset.materials[1].base_color[0] == 1.0f &&
                r.asset.materials[1].base_color[1] == 0.0f);
    /* One submesh per (material, group), by material slot, then first use. */
    const char *groups[6] = {"front cube",  "back  cube", "top cube",
                             "bottom cube", "right cube", "left cube"};
    const uint32_t slots[6] = {0, 0, 0, 0, 1, 2};
    assert_int_equal(mesh->submesh_count, 6);
    for (uint32_t s = 0; s < 6; s++) {
        assert_int_equal(mesh->submeshes[s].index_count, 6);
        assert_int_equal(mesh->submeshes[s].index_offset, 6 * s);
        assert_int_equal(mesh->submeshes[s].material, slots[s]);
        assert_non_null(mesh->submeshes[s].name);
        assert_string_equal(mesh->submeshes[s].name, groups[s]);
    }
    test_import_free(&r);

    /* cornell_box_multimaterial.obj: 36 triangles (counted with awk over its
     * f lines); white 26, light 2, green 6, red 2 triangles; blue has no face
     * (its only face is commented out), so it is dropped. */
    import_corpus_file(&r, "obj/tinyobjloader/cornell_box_multimaterial.obj");
    test_import_expect_ok(&r);
    mesh = only_mesh(&r);
    assert_int_equal(mesh->index_count, 3 * 36);
    assert_int_equal(r.asset.material_count, 4);
    static const char *const names[4] = {"white", "light", "green", "red"};
    static const uint32_t triangles[4] = {26, 2, 6, 2};
    /* One submesh per (material, name): 9 objects (o lines), each of one
     * material; triangles per material summed over its submeshes. */
    assert_int_equal(mesh->submesh_count, 9);
    uint32_t per_material[4] = {0};
    for (uint32_t s = 0; s < mesh->submesh_count; s++) {
        assert_non_null(mesh->submeshes[s].name);
        assert_true(s == 0 || mesh->submeshes[s].material >= mesh->submeshes[s - 1].material);
        per_material[mesh->submeshes[s].material] += mesh->submeshes[s].index_count / 3;
    }
    for (uint32_t m = 0; m < 4; m++) {
        assert_string_equal(r.asset.materials[m].name, names[m]);
        assert_int_equal(per_material[m], triangles[m]);
    }
    test_import_free(&r);

    /* spider.obj: textured with Windows-style ".\" paths; one texture is
     * not shipped. */
    import_corpus_file(&r, "obj/spider/spider.obj");
    test_import_expect_ok(&r);
    only_mesh(&r);
    bool found_texture = false;
    for (uint32_t m = 0; m < r.asset.material_count; m++) {
        const char *path = tex_path(&r, &r.asset.materials[m], IR_SLOT_BASE_COLOR);
        if (path != NULL && strcmp(path, "obj/spider/SpiderTex.jpg") == 0)
            found_texture = true;
    }
    assert_true(found_texture);
    test_import_free(&r);

    /* leading-decimal-dot-issue-201.obj: "v .8e-1 -.7e+2 -5.532511". */
    import_corpus_file(&r, "obj/tinyobjloader/leading-decimal-dot-issue-201.obj");
    test_import_expect_ok(&r);
    mesh = only_mesh(&r);
    assert_true(mesh->positions[0] == 0.08f && mesh->positions[1] == -70.0f);
    test_import_free(&r);
}

/* ---------------------------------------------------------------------------
 * Robustness
 * ------------------------------------------------------------------------- */

static const char MUTATION_SEED_OBJ[] =
    "# seed\nmtllib seed.mtl\no seed\n"
    "v 0 0 0\nv 1 0 0\nv 1 1 0 0.5 0.5 0.5\nv 0 1 0\nv 0.5 .5 -1e-1\n"
    "vt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nvn 0 0 1\nvn 0 1 0\n"
    "g a\ns 1\nusemtl red\nf 1/1/1 2/2/1 3/3/1 4/4/1\n"
    "usemtl blue\nf -5//2 -4//2 \\\n -1//2\nf 1 2 5 4 3\n"
    "l 1 2\nusemtl nothing\nf 5/1 4/2 3/3\n";
static const char MUTATION_SEED_MTL[] = "newmtl red\nKd 1 0 0\nNs 10\nmap_Kd -s 1 1 1 tex.png\n"
                                        "newmtl blue\nKd 0 0 1\nd 0.5\nbump -bm 0.3 n.png\n";

static uint64_t next_random(uint64_t *seed) {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    return *seed;
}

/* Random edits (byte changes biased to syntax characters, deletions,
 * duplications, truncations) of `seed_text` into `buffer`; returns the size. */
static size_t mutate(const char *seed_text, char *buffer, size_t cap, uint64_t *seed) {
    static const char interesting[] = "/-+ .\n\r\\#0123456789eE\t\0fvnt";
    size_t size = strlen(seed_text);
    memcpy(buffer, seed_text, size);
    int edits = 1 + (int)(next_random(seed) % 4);
    for (int e = 0; e < edits && size > 0; e++) {
        uint64_t r = next_random(seed);
        size_t at = (size_t)(next_random(seed) % size);
        switch (r % 5) {
        case 0:
            buffer[at] = (char)(next_random(seed) & 0xff);
            break;
        case 1:
            buffer[at] = interesting[next_random(seed) % (sizeof interesting - 1)];
            break;
        case 2: { /* delete a run */
            size_t n = 1 + (size_t)(next_random(seed) % 8);
            if (n > size - at)
                n = size - at;
            memmove(buffer + at, buffer + at + n, size - at - n);
            size -= n;
            break;
        }
        case 3: { /* duplicate a run */
            size_t n = 1 + (size_t)(next_random(seed) % 16);
            if (n > size - at)
                n = size - at;
            if (size + n <= cap) {
                memmove(buffer + at + n, buffer + at, size - at);
                size += n;
            }
            break;
        }
        default:
            size = at;
            break; /* truncate */
        }
    }
    return size;
}

static void obj_survives_thousands_of_random_mutations(void **state) {
    (void)state;
    char *dir = fresh_dir("mutations");
    write_in(dir, "seed.mtl", MUTATION_SEED_MTL);
    write_in(dir, "tex.png", "x");
    char buffer[2048];
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    int succeeded = 0;
    for (int round = 0; round < 6000; round++) {
        size_t size = mutate(MUTATION_SEED_OBJ, buffer, sizeof buffer, &seed);
        test_import r;
        import_bytes(&r, dir, "seed.obj", buffer, size);
        if (r.ok) {
            assert_int_equal(r.diag.errors, 0);
            test_check_asset(&r.asset);
            succeeded++;
        } else {
            assert_true(r.diag.errors >= 1);
            assert_int_equal(r.asset.mesh_count, 0);
        }
        test_import_free(&r);
    }
    /* Plenty survive the edits, so the checks above saw real output. */
    assert_true(succeeded > 500);
    free(dir);
}

static void mtl_survives_thousands_of_random_mutations(void **state) {
    (void)state;
    char *dir = fresh_dir("mtl_mutations");
    write_in(dir, "tex.png", "x");
    char buffer[1024];
    uint64_t seed = 0x1234567887654321ull;
    for (int round = 0; round < 4000; round++) {
        size_t size = mutate(MUTATION_SEED_MTL, buffer, sizeof buffer, &seed);
        cook_settings settings;
        cook_settings_default(&settings);
        cook_diag diag = {0};
        cook_context ctx = {.input_root = dir,
                            .source_path = "seed.obj",
                            .ref = "seed",
                            .source = (const uint8_t *)"",
                            .settings = &settings,
                            .diag = &diag};
        ir_material *materials = NULL;
        uint32_t count = 0;
        ir_image *images = NULL;
        uint32_t image_count = 0;
        bool ok =
            import_mtl(&ctx, "seed.mtl", buffer, size, &materials, &count, &images, &image_count);
        assert_true(ok || diag.errors > 0);
        for (uint32_t i = 0; i < count; i++) {
            assert_non_null(materials[i].name);
            assert_true(materials[i].base_color[3] >= 0.0f && materials[i].base_color[3] <= 1.0f);
            assert_true(materials[i].roughness >= 0.0f && materials[i].roughness <= 1.0f);
            for (int t = 0; t < IR_SLOT_COUNT; t++)
                assert_true(materials[i].textures[t].image < (int32_t)image_count);
            ir_material_free(&materials[i]);
        }
        free(materials);
        ir_images_free(images, image_count);
        diag_free(&diag);
        strlist_free(&ctx.dependencies);
        strlist_free(&ctx.absent);
    }
    free(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(obj_imports_a_triangle),
        cmocka_unit_test(obj_triangulates_quads_and_ngons),
        cmocka_unit_test(obj_triangulates_concave_quad),
        cmocka_unit_test(obj_triangulates_concave_ngon_covering_its_area),
        cmocka_unit_test(obj_welds_corners_by_position_texcoord_and_normal),
        cmocka_unit_test(obj_accepts_every_corner_form_and_mixed_faces),
        cmocka_unit_test(obj_flips_texcoord_v_to_a_top_left_origin),
        cmocka_unit_test(obj_resolves_negative_indices),
        cmocka_unit_test(obj_reads_indices_of_every_length),
        cmocka_unit_test(obj_reads_vertex_colors_defaulting_missing_ones_to_white),
        cmocka_unit_test(obj_parses_leading_dot_and_exponent_numbers),
        cmocka_unit_test(scan_number_is_correctly_rounded),
        cmocka_unit_test(scan_number_in_text_matches_strtod),
        cmocka_unit_test(scan_number_reads_nan_and_infinity_spellings),
        cmocka_unit_test(scan_number_reads_numbers_longer_than_its_buffer),
        cmocka_unit_test(obj_skips_comments_blank_lines_and_crlf),
        cmocka_unit_test(obj_joins_lines_ending_in_a_backslash),
        cmocka_unit_test(obj_warns_once_per_unknown_statement),
        cmocka_unit_test(obj_groups_faces_into_one_submesh_per_material),
        cmocka_unit_test(obj_reads_several_material_libraries_with_spaces_in_names),
        cmocka_unit_test(obj_resolves_usemtl_against_a_later_mtllib),
        cmocka_unit_test(obj_caps_the_number_of_material_libraries),
        cmocka_unit_test(obj_warns_about_a_missing_material_library_and_cooks),
        cmocka_unit_test(mtl_converts_phong_parameters_to_metallic_roughness),
        cmocka_unit_test(mtl_skips_texture_options_and_keeps_file_names_with_spaces),
        cmocka_unit_test(mtl_names_the_statements_it_does_not_cook),
        cmocka_unit_test(mtl_resolves_textures_relative_to_its_own_folder),
        cmocka_unit_test(obj_rejects_zero_index_with_line_number),
        cmocka_unit_test(obj_rejects_out_of_range_indices_with_line_number),
        cmocka_unit_test(obj_ignores_normal_and_texcoord_indices_beyond_those_defined),
        cmocka_unit_test(obj_rejects_faces_with_fewer_than_three_corners),
        cmocka_unit_test(obj_rejects_malformed_numbers_and_corners),
        cmocka_unit_test(obj_rejects_binary_content_as_not_text),
        cmocka_unit_test(obj_drops_faces_using_nan_positions_with_a_warning),
        cmocka_unit_test(obj_sanitises_nan_texcoords_and_normals),
        cmocka_unit_test(streams_of_many_vertices_on_two_threads),
        cmocka_unit_test(obj_imports_lines_and_points),
        cmocka_unit_test(obj_corpus_like_line_and_point_files_cook),
        cmocka_unit_test(obj_vertices_alone_are_a_point_cloud),
        cmocka_unit_test(obj_corpus_rows_import_as_the_index_expects),
        cmocka_unit_test(obj_corpus_models_have_the_expected_counts),
        cmocka_unit_test(obj_survives_thousands_of_random_mutations),
        cmocka_unit_test(mtl_survives_thousands_of_random_mutations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
