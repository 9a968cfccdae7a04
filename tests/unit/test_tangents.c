/* process_generate_tangents: MikkTSpace-compatible tangents. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cook/drivers/drivers.h"
#include "test_support.h"

static float dot3(const float *a, const float *b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void *copy_of(const void *data, size_t size) {
    void *copy = malloc(size);
    assert_non_null(copy);
    memcpy(copy, data, size);
    return copy;
}

/* A mesh with positions, normals and texcoords[0] (uv may be NULL). */
static void make_mesh(ir_mesh *mesh, uint32_t vertex_count, const float *positions,
                      const float *normals, const float *uv, uint32_t index_count,
                      const uint32_t *indices) {
    memset(mesh, 0, sizeof *mesh);
    mesh->vertex_count = vertex_count;
    mesh->positions = copy_of(positions, (size_t)vertex_count * 3 * sizeof(float));
    if (normals != NULL)
        mesh->normals = copy_of(normals, (size_t)vertex_count * 3 * sizeof(float));
    if (uv != NULL)
        mesh->texcoords[0] = copy_of(uv, (size_t)vertex_count * 2 * sizeof(float));
    mesh->index_count = index_count;
    mesh->indices = copy_of(indices, (size_t)index_count * sizeof(uint32_t));
}

static void assert_tangent(const float *t, float x, float y, float z, float w) {
    if (fabsf(t[0] - x) > 1e-5f || fabsf(t[1] - y) > 1e-5f || fabsf(t[2] - z) > 1e-5f || t[3] != w)
        fail_msg("tangent (%g %g %g %g), expected (%g %g %g %g)", t[0], t[1], t[2], t[3], x, y, z,
                 w);
}

/* Every tangent finite, unit, orthogonal to its normal, w = ±1. */
static void assert_tangents_well_formed(const ir_mesh *mesh) {
    assert_non_null(mesh->tangents);
    for (uint32_t v = 0; v < mesh->vertex_count; v++) {
        const float *t = mesh->tangents + 4 * (size_t)v;
        const float *n = mesh->normals + 3 * (size_t)v;
        for (int k = 0; k < 4; k++)
            if (!isfinite(t[k]))
                fail_msg("vertex %u: tangent component %d is %g", v, k, t[k]);
        if (fabsf(dot3(t, t) - 1.0f) > 1e-4f)
            fail_msg("vertex %u: tangent length^2 %g", v, dot3(t, t));
        if (fabsf(dot3(t, n)) > 1e-4f * sqrtf(dot3(n, n)))
            fail_msg("vertex %u: tangent . normal = %g", v, dot3(t, n));
        if (t[3] != 1.0f && t[3] != -1.0f)
            fail_msg("vertex %u: w = %g", v, t[3]);
    }
}

/* The unit quad in the z = 0 plane, normal +z; corners (0,0) (1,0) (1,1) (0,1),
 * two counter-clockwise triangles sharing the diagonal. */
static const float quad_positions[] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
static const float quad_normals[] = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
static const uint32_t quad_indices[] = {0, 1, 2, 0, 2, 3};

static void quad_with_uv(const float *uv, float x, float y, float z, float w) {
    ir_mesh mesh;
    make_mesh(&mesh, 4, quad_positions, quad_normals, uv, 6, quad_indices);
    assert_true(process_generate_tangents(&mesh, 0));
    assert_int_equal(mesh.vertex_count, 4);
    assert_tangents_well_formed(&mesh);
    for (uint32_t v = 0; v < 4; v++)
        assert_tangent(mesh.tangents + 4 * v, x, y, z, w);
    ir_mesh_free(&mesh);
}

static void flat_quad_with_standard_uvs(void **state) {
    (void)state;
    /* glTF's (and the IR's) UV convention: origin top left, v down, so the
     * image is upright on the quad when v = 1 - y. */
    static const float uv[] = {0, 1, 1, 1, 1, 0, 0, 0};
    quad_with_uv(uv, 1, 0, 0, 1);
}

static void flat_quad_with_u_mirrored(void **state) {
    (void)state;
    static const float uv[] = {1, 1, 0, 1, 0, 0, 1, 0};
    quad_with_uv(uv, -1, 0, 0, -1);
}

static void flat_quad_with_v_flipped(void **state) {
    (void)state;
    static const float uv[] = {0, 0, 1, 0, 1, 1, 0, 1};
    quad_with_uv(uv, 1, 0, 0, -1);
}

static void flat_quad_with_uv_rotated(void **state) {
    (void)state;
    /* u grows along +y, v (down the image) along +x: tangent +y, and the
     * bitangent (up the image) is -x = cross(z, y). */
    static const float uv[] = {0, 0, 0, 1, 1, 1, 1, 0};
    quad_with_uv(uv, 0, 1, 0, 1);
}

static void nothing_without_uvs_or_normals(void **state) {
    (void)state;
    static const float uv[] = {0, 1, 1, 1, 1, 0, 0, 0};
    ir_mesh mesh;
    make_mesh(&mesh, 4, quad_positions, quad_normals, NULL, 6, quad_indices);
    assert_true(process_generate_tangents(&mesh, 0));
    assert_null(mesh.tangents);
    ir_mesh_free(&mesh);

    make_mesh(&mesh, 4, quad_positions, NULL, uv, 6, quad_indices);
    assert_true(process_generate_tangents(&mesh, 0));
    assert_null(mesh.tangents);
    ir_mesh_free(&mesh);

    /* Only set 0 exists. */
    make_mesh(&mesh, 4, quad_positions, quad_normals, uv, 6, quad_indices);
    assert_true(process_generate_tangents(&mesh, 1));
    assert_null(mesh.tangents);
    assert_true(process_generate_tangents(&mesh, 7));
    assert_null(mesh.tangents);

    /* Tangents already there are kept. */
    float *given = calloc(16, sizeof *given);
    assert_non_null(given);
    mesh.tangents = given;
    assert_true(process_generate_tangents(&mesh, 0));
    assert_ptr_equal(mesh.tangents, given);
    assert_true(mesh.tangents[0] == 0.0f);
    ir_mesh_free(&mesh);
}

static void second_uv_set_is_used_when_asked(void **state) {
    (void)state;
    static const float uv0[] = {0, 1, 1, 1, 1, 0, 0, 0};
    static const float uv1[] = {1, 1, 0, 1, 0, 0, 1, 0}; /* u mirrored */
    ir_mesh mesh;
    make_mesh(&mesh, 4, quad_positions, quad_normals, uv0, 6, quad_indices);
    mesh.texcoords[1] = copy_of(uv1, sizeof uv1);
    assert_true(process_generate_tangents(&mesh, 1));
    for (uint32_t v = 0; v < 4; v++)
        assert_tangent(mesh.tangents + 4 * v, -1, 0, 0, -1);
    ir_mesh_free(&mesh);
}

/* Two quads side by side sharing the middle column of vertices (1, y), the
 * right one with its UVs mirrored in u about that column, as a symmetric model
 * reusing half a texture would. */
static void mirrored_uvs_split_the_shared_vertices(void **state) {
    (void)state;
    static const float positions[] = {0, 0, 0, 1, 0, 0, 2, 0, 0, 0, 1, 0, 1, 1, 0, 2, 1, 0};
    static const float normals[] = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
    /* u = x on the left, u = 2 - x on the right; v = 1 - y */
    static const float uv[] = {0, 1, 1, 1, 0, 1, 0, 0, 1, 0, 0, 0};
    static const uint32_t indices[] = {0, 1, 4, 0, 4, 3, 1, 2, 5, 1, 5, 4};
    static const float colors[] = {0, 0, 0, 1, 1, 0, 0, 1, 2, 0, 0, 1,
                                   3, 0, 0, 1, 4, 0, 0, 1, 5, 0, 0, 1};
    ir_mesh mesh;
    make_mesh(&mesh, 6, positions, normals, uv, 12, indices);
    mesh.colors = copy_of(colors, sizeof colors);
    assert_true(process_generate_tangents(&mesh, 0));
    assert_int_equal(mesh.vertex_count, 8); /* vertices 1 and 4 got a twin each */
    assert_tangents_well_formed(&mesh);
    for (uint32_t c = 0; c < 12; c++) {
        uint32_t v = mesh.indices[c], original = indices[c];
        /* a copy carries all of its source's streams */
        assert_memory_equal(mesh.positions + 3 * v, positions + 3 * original, 3 * sizeof(float));
        assert_memory_equal(mesh.normals + 3 * v, normals + 3 * original, 3 * sizeof(float));
        assert_memory_equal(mesh.texcoords[0] + 2 * v, uv + 2 * original, 2 * sizeof(float));
        assert_memory_equal(mesh.colors + 4 * v, colors + 4 * original, 4 * sizeof(float));
        if (c < 6)
            assert_tangent(mesh.tangents + 4 * v, 1, 0, 0, 1); /* left: u along +x */
        else
            assert_tangent(mesh.tangents + 4 * v, -1, 0, 0, -1); /* right: u along -x */
    }
    /* Unsplit vertices keep their index; the left side keeps the originals. */
    assert_int_equal(mesh.indices[0], 0);
    assert_int_equal(mesh.indices[1], 1);
    assert_int_equal(mesh.indices[2], 4);
    assert_int_equal(mesh.indices[7], 2);
    assert_true(mesh.indices[6] >= 6 && mesh.indices[11] >= 6);
    assert_int_not_equal(mesh.indices[6], mesh.indices[11]);
    ir_mesh_free(&mesh);
}

static void smooth_across_a_shared_vertex_of_one_handedness(void **state) {
    (void)state;
    /* A roof: two quads meeting at a ridge along y at x = 1, z = 1. UVs are
     * continuous (u = x). The ridge vertices get the angle-weighted average
     * of both slopes' u directions, which is +x; no split. */
    static const float s = 0.70710678f;
    static const float positions[] = {0, 0, 0, 1, 0, 1, 2, 0, 0, 0, 1, 0, 1, 1, 1, 2, 1, 0};
    static const float normals[] = {-s, 0, s, 0, 0, 1, s, 0, s, -s, 0, s, 0, 0, 1, s, 0, s};
    static const float uv[] = {0, 1, 1, 1, 2, 1, 0, 0, 1, 0, 2, 0};
    static const uint32_t indices[] = {0, 1, 4, 0, 4, 3, 1, 2, 5, 1, 5, 4};
    ir_mesh mesh;
    make_mesh(&mesh, 6, positions, normals, uv, 12, indices);
    assert_true(process_generate_tangents(&mesh, 0));
    assert_int_equal(mesh.vertex_count, 6);
    assert_tangents_well_formed(&mesh);
    assert_tangent(mesh.tangents + 4 * 1, 1, 0, 0, 1);
    assert_tangent(mesh.tangents + 4 * 4, 1, 0, 0, 1);
    assert_tangent(mesh.tangents + 4 * 0, s, 0, s, 1);
    assert_tangent(mesh.tangents + 4 * 2, s, 0, -s, 1);
    ir_mesh_free(&mesh);
}

static void degenerate_input_gives_finite_unit_tangents(void **state) {
    (void)state;
    static const float positions[] = {
        0, 0, 0, 1, 0, 0, 0, 1, 0, /* 0-2: all UVs equal */
        5, 0, 0, 6, 0, 0, 7, 0, 0, /* 3-5: collinear positions, proper UVs */
        9, 9, 9, 9, 9, 9, 9, 9, 9, /* 6-8: one point */
        0, 0, 0, 1, 0, 0, 0, 1, 0, /* 9-11: UVs on a line */
        3, 3, 3,                   /* 12: only in a triangle repeating it */
        4, 4, 4,                   /* 13: unreferenced */
    };
    static const float normals[] = {
        0, 0, 1, 0, 0, 1, 0, 0, 1,  0, 1, 0,  0, 1, 0,  0,    1,    0, 1, 0, 0,
        1, 0, 0, 1, 0, 0, 0, 0, -1, 0, 0, -1, 0, 0, -1, 0.6f, 0.8f, 0, 0, 0, 1,
    };
    static const float uv[] = {
        0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0,    0,    1, 0, 0, 1, 0, 0,
        1,    0,    0,    1,    0,    0,    0.5f, 0.5f, 1, 1, 0, 0, 0, 0,
    };
    static const uint32_t indices[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 12, 0, 1, 1, 2};
    ir_mesh mesh;
    make_mesh(&mesh, 14, positions, normals, uv, 18, indices);
    assert_true(process_generate_tangents(&mesh, 0));
    assert_tangents_well_formed(&mesh);
    ir_mesh_free(&mesh);

    /* NaN in the input stays out of the output. */
    float bad_uv[8];
    memcpy(bad_uv, uv, sizeof bad_uv);
    bad_uv[2] = NAN;
    float bad_positions[12];
    memcpy(bad_positions, quad_positions, sizeof bad_positions);
    bad_positions[7] = NAN;
    make_mesh(&mesh, 4, bad_positions, quad_normals, bad_uv, 6, quad_indices);
    assert_true(process_generate_tangents(&mesh, 0));
    assert_tangents_well_formed(&mesh);
    ir_mesh_free(&mesh);
}

static void uv_degenerate_corners_do_not_split(void **state) {
    (void)state;
    /* A triangle with zero UV area comes first and shares the quad's bottom
     * edge. It carries no UV direction (MikkTSpace gives its own corners no
     * tangent), so it must neither disturb the quad's frames nor split the
     * shared vertices; its lone vertex gets a fallback perpendicular to z. */
    static const float positions[] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0.5f, -1, 0};
    static const float normals[] = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
    static const float uv[] = {0, 1, 1, 1, 1, 0, 0, 0, 0.5f, 1};
    static const uint32_t indices[] = {1, 0, 4, 0, 1, 2, 0, 2, 3};
    ir_mesh mesh;
    make_mesh(&mesh, 5, positions, normals, uv, 9, indices);
    assert_true(process_generate_tangents(&mesh, 0));
    assert_int_equal(mesh.vertex_count, 5);
    assert_memory_equal(mesh.indices, indices, sizeof indices);
    assert_tangents_well_formed(&mesh);
    for (uint32_t v = 0; v < 5; v++)
        assert_tangent(mesh.tangents + 4 * v, 1, 0, 0, 1);
    ir_mesh_free(&mesh);
}

/* A flat disc of many thin triangles around one centre vertex, planar UVs:
 * the centre's group is larger than the quadratic opposite-direction check
 * handles, and everything is +x anyway. */
static void high_valence_vertex(void **state) {
    (void)state;
    enum { RIM = 3000 };
    float *positions = malloc((RIM + 1) * 3 * sizeof *positions);
    float *normals = malloc((RIM + 1) * 3 * sizeof *normals);
    float *uv = malloc((RIM + 1) * 2 * sizeof *uv);
    uint32_t *indices = malloc(RIM * 3 * sizeof *indices);
    assert_true(positions && normals && uv && indices);
    for (uint32_t v = 0; v <= RIM; v++) {
        float a = 2.0f * 3.14159265f * (float)v / RIM;
        float x = v == RIM ? 0.0f : cosf(a), y = v == RIM ? 0.0f : sinf(a);
        positions[3 * v] = x, positions[3 * v + 1] = y, positions[3 * v + 2] = 0;
        normals[3 * v] = 0, normals[3 * v + 1] = 0, normals[3 * v + 2] = 1;
        uv[2 * v] = 0.5f + 0.5f * x, uv[2 * v + 1] = 0.5f - 0.5f * y;
    }
    for (uint32_t i = 0; i < RIM; i++) {
        indices[3 * i] = RIM;
        indices[3 * i + 1] = i;
        indices[3 * i + 2] = (i + 1) % RIM;
    }
    ir_mesh mesh;
    make_mesh(&mesh, RIM + 1, positions, normals, uv, RIM * 3, indices);
    assert_true(process_generate_tangents(&mesh, 0));
    assert_int_equal(mesh.vertex_count, RIM + 1);
    assert_tangents_well_formed(&mesh);
    static const float x_axis[3] = {1, 0, 0};
    for (uint32_t v = 0; v <= RIM; v++) {
        /* float UVs of slivers: direction good to about 1e-5 */
        assert_true(dot3(mesh.tangents + 4 * v, x_axis) > 0.99999f);
        assert_true(mesh.tangents[4 * v + 3] == 1.0f);
    }
    assert_tangent(mesh.tangents + 4 * RIM, 1, 0, 0, 1);
    ir_mesh_free(&mesh);
    free(positions);
    free(normals);
    free(uv);
    free(indices);
}

static void welded_duplicates_share_a_frame(void **state) {
    (void)state;
    /* Two flat quads side by side, each with its own copies of the shared
     * column x = 1 (same position, normal and uv: an importer does this when
     * another stream differs). The right quad's UVs are sheared, so its u runs
     * along (1, 1). MikkTSpace welds the copies, so both get the angle-weighted
     * blend of the two sides: 90 degrees of +x and 90 degrees of (1, 1), i.e.
     * the direction at 22.5 degrees. */
    static const float positions[] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0,
                                      1, 0, 0, 2, 0, 0, 1, 1, 0, 2, 1, 0};
    static const float normals[] = {0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1,
                                    0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1};
    /* left: u = x, v = 1 - y; right: u = x, v = 1 - y + (x - 1) */
    static const float uv[] = {0, 1, 1, 1, 0, 0, 1, 0, 1, 1, 2, 2, 1, 0, 2, 1};
    static const uint32_t indices[] = {0, 1, 3, 0, 3, 2, 4, 5, 7, 4, 7, 6};
    ir_mesh mesh;
    make_mesh(&mesh, 8, positions, normals, uv, 12, indices);
    assert_true(process_generate_tangents(&mesh, 0));
    assert_int_equal(mesh.vertex_count, 8);
    assert_tangents_well_formed(&mesh);
    static const uint32_t column[] = {1, 3, 4, 6};
    for (int i = 0; i < 4; i++)
        assert_tangent(mesh.tangents + 4 * column[i], 0.92387953f, 0.38268343f, 0, 1);
    assert_tangent(mesh.tangents + 4 * 0, 1, 0, 0, 1);
    assert_tangent(mesh.tangents + 4 * 5, 0.70710678f, 0.70710678f, 0, 1);
    ir_mesh_free(&mesh);
}

/* A cylinder side with a UV seam: smooth normals, u around, v along the
 * axis; all tangents follow the circumference. */
static void cylinder_tangents_follow_u(void **state) {
    (void)state;
    enum { SEGMENTS = 16 };
    float positions[(SEGMENTS + 1) * 2 * 3], normals[(SEGMENTS + 1) * 2 * 3];
    float uv[(SEGMENTS + 1) * 2 * 2];
    uint32_t indices[SEGMENTS * 6];
    for (uint32_t i = 0; i <= SEGMENTS; i++) {
        float a = 2.0f * 3.14159265f * (float)i / SEGMENTS;
        for (uint32_t r = 0; r < 2; r++) {
            uint32_t v = 2 * i + r;
            positions[3 * v] = cosf(a);
            positions[3 * v + 1] = sinf(a);
            positions[3 * v + 2] = (float)r;
            normals[3 * v] = cosf(a);
            normals[3 * v + 1] = sinf(a);
            normals[3 * v + 2] = 0;
            uv[2 * v] = (float)i / SEGMENTS;
            uv[2 * v + 1] = 1.0f - (float)r;
        }
    }
    for (uint32_t i = 0; i < SEGMENTS; i++) {
        uint32_t a = 2 * i, b = 2 * i + 2;
        uint32_t *q = indices + 6 * i;
        q[0] = a, q[1] = b, q[2] = b + 1, q[3] = a, q[4] = b + 1, q[5] = a + 1;
    }
    ir_mesh mesh;
    make_mesh(&mesh, (SEGMENTS + 1) * 2, positions, normals, uv, SEGMENTS * 6, indices);
    assert_true(process_generate_tangents(&mesh, 0));
    assert_int_equal(mesh.vertex_count, (SEGMENTS + 1) * 2);
    assert_tangents_well_formed(&mesh);
    for (uint32_t v = 0; v < mesh.vertex_count; v++) {
        const float *n = mesh.normals + 3 * v;
        float around[3] = {-n[1], n[0], 0};
        assert_true(dot3(mesh.tangents + 4 * v, around) > 0.9999f);
        assert_true(mesh.tangents[4 * v + 3] == 1.0f);
    }
    ir_mesh_free(&mesh);
}

/* ---------------------------------------------------------------------------
 * Corpus: the glTF sample models that store TANGENT, imported with
 * import_gltf, their tangents stripped, regenerated and compared. A model the
 * importer refuses for reasons beside its geometry is read by a small
 * purpose-built reader (JSON + external .bin, float attributes) instead.
 * KILN_TANGENT_DUMP=1 in the environment lists every compared vertex off by
 * more than 1 degree.
 * ------------------------------------------------------------------------- */

typedef enum { J_NULL, J_BOOL, J_NUMBER, J_STRING, J_ARRAY, J_OBJECT } json_type;

typedef struct json {
    json_type type;
    double number;
    char *string;
    struct json *items; /* array items or object values */
    char **keys;        /* object keys */
    size_t count;
} json;

static void json_free(json *j) {
    free(j->string);
    for (size_t i = 0; i < j->count; i++) {
        json_free(j->items + i);
        if (j->keys != NULL)
            free(j->keys[i]);
    }
    free(j->items);
    free(j->keys);
}

static void json_space(const char **s) {
    while (isspace((unsigned char)**s))
        (*s)++;
}

static char *json_parse_string(const char **s) {
    assert_int_equal(**s, '"');
    (*s)++;
    size_t cap = 16, size = 0;
    char *out = malloc(cap);
    assert_non_null(out);
    while (**s != '"') {
        assert_int_not_equal(**s, '\0');
        char c = *(*s)++;
        if (c == '\\') {
            c = *(*s)++;
            if (c == 'u') {
                *s += 4; /* no non-ASCII names are looked up */
                c = '?';
            } else if (c == 'n') {
                c = '\n';
            } else if (c == 't') {
                c = '\t';
            } else if (c == 'r' || c == 'b' || c == 'f') {
                c = ' ';
            }
        }
        if (size + 2 > cap) {
            cap *= 2;
            out = realloc(out, cap);
            assert_non_null(out);
        }
        out[size++] = c;
    }
    (*s)++;
    out[size] = '\0';
    return out;
}

static void json_parse(const char **s, json *out) {
    memset(out, 0, sizeof *out);
    json_space(s);
    char c = **s;
    if (c == '{' || c == '[') {
        out->type = c == '{' ? J_OBJECT : J_ARRAY;
        (*s)++;
        size_t cap = 0;
        json_space(s);
        if (**s == (c == '{' ? '}' : ']')) {
            (*s)++;
            return;
        }
        for (;;) {
            if (out->count == cap) {
                cap = cap ? cap * 2 : 8;
                out->items = realloc(out->items, cap * sizeof *out->items);
                assert_non_null(out->items);
                if (c == '{') {
                    out->keys = realloc(out->keys, cap * sizeof *out->keys);
                    assert_non_null(out->keys);
                }
            }
            if (c == '{') {
                json_space(s);
                out->keys[out->count] = json_parse_string(s);
                json_space(s);
                assert_int_equal(*(*s)++, ':');
            }
            json_parse(s, out->items + out->count);
            out->count++;
            json_space(s);
            char next = *(*s)++;
            if (next == ',')
                continue;
            assert_int_equal(next, c == '{' ? '}' : ']');
            return;
        }
    } else if (c == '"') {
        out->type = J_STRING;
        out->string = json_parse_string(s);
    } else if (strncmp(*s, "true", 4) == 0 || strncmp(*s, "false", 5) == 0) {
        out->type = J_BOOL;
        out->number = c == 't';
        *s += c == 't' ? 4 : 5;
    } else if (strncmp(*s, "null", 4) == 0) {
        *s += 4;
    } else {
        char *end;
        out->type = J_NUMBER;
        out->number = strtod(*s, &end);
        assert_true(end != *s);
        *s = end;
    }
}

static const json *json_get(const json *object, const char *key) {
    if (object == NULL || object->type != J_OBJECT)
        return NULL;
    for (size_t i = 0; i < object->count; i++)
        if (strcmp(object->keys[i], key) == 0)
            return object->items + i;
    return NULL;
}

static const json *json_at(const json *array, size_t index) {
    if (array == NULL || array->type != J_ARRAY || index >= array->count)
        return NULL;
    return array->items + index;
}

static double json_number(const json *j, double fallback) {
    return j != NULL && j->type == J_NUMBER ? j->number : fallback;
}

typedef struct gltf_file {
    json root;
    uint8_t **buffers;
    size_t *buffer_sizes;
    size_t buffer_count;
} gltf_file;

static bool gltf_load(const char *path, gltf_file *file) {
    memset(file, 0, sizeof *file);
    size_t size;
    uint8_t *text = test_read_file(path, &size);
    const char *cursor = (const char *)text;
    json_parse(&cursor, &file->root);
    free(text);
    const json *buffers = json_get(&file->root, "buffers");
    file->buffer_count = buffers != NULL ? buffers->count : 0;
    file->buffers = calloc(file->buffer_count + 1, sizeof *file->buffers);
    file->buffer_sizes = calloc(file->buffer_count + 1, sizeof *file->buffer_sizes);
    assert_true(file->buffers != NULL && file->buffer_sizes != NULL);
    char *dir = strdup(path);
    assert_non_null(dir);
    *strrchr(dir, '/') = '\0';
    for (size_t i = 0; i < file->buffer_count; i++) {
        const json *uri = json_get(json_at(buffers, i), "uri");
        if (uri == NULL || uri->type != J_STRING || strncmp(uri->string, "data:", 5) == 0) {
            free(dir);
            return false; /* only external .bin files here */
        }
        char *bin = test_path_join(dir, uri->string);
        file->buffers[i] = test_read_file(bin, &file->buffer_sizes[i]);
        free(bin);
    }
    free(dir);
    return true;
}

static void gltf_free(gltf_file *file) {
    for (size_t i = 0; i < file->buffer_count; i++)
        free(file->buffers[i]);
    free(file->buffers);
    free(file->buffer_sizes);
    json_free(&file->root);
}

/* Accessor `index` as floats (float components only) or, for indices,
 * unsigned integers widened to uint32. Returns the element count. */
static uint32_t gltf_read(const gltf_file *file, const json *accessor_index, uint32_t components,
                          float **floats, uint32_t **uints) {
    assert_non_null(accessor_index);
    const json *accessor =
        json_at(json_get(&file->root, "accessors"), (size_t)accessor_index->number);
    assert_non_null(accessor);
    assert_null(json_get(accessor, "sparse"));
    const json *view = json_at(json_get(&file->root, "bufferViews"),
                               (size_t)json_number(json_get(accessor, "bufferView"), -1));
    assert_non_null(view);
    uint32_t count = (uint32_t)json_number(json_get(accessor, "count"), 0);
    uint32_t type = (uint32_t)json_number(json_get(accessor, "componentType"), 0);
    size_t component_size = type == 5126 || type == 5125 ? 4 : (type == 5123 ? 2 : 1);
    size_t stride = (size_t)json_number(json_get(view, "byteStride"), 0);
    if (stride == 0)
        stride = component_size * components;
    size_t buffer = (size_t)json_number(json_get(view, "buffer"), 0);
    size_t offset = (size_t)json_number(json_get(view, "byteOffset"), 0) +
                    (size_t)json_number(json_get(accessor, "byteOffset"), 0);
    assert_true(buffer < file->buffer_count);
    if (count > 0)
        assert_true(offset + stride * (count - 1) + component_size * components <=
                    file->buffer_sizes[buffer]);
    const uint8_t *data = file->buffers[buffer] + offset;
    if (floats != NULL) {
        assert_int_equal(type, 5126);
        *floats = malloc((size_t)count * components * sizeof **floats + 1);
        assert_non_null(*floats);
        for (uint32_t i = 0; i < count; i++)
            memcpy(*floats + (size_t)i * components, data + i * stride, components * 4);
    } else {
        *uints = malloc((size_t)count * sizeof **uints + 1);
        assert_non_null(*uints);
        for (uint32_t i = 0; i < count; i++) {
            const uint8_t *p = data + i * stride;
            if (type == 5125) {
                memcpy(*uints + i, p, 4);
            } else if (type == 5123) {
                uint16_t u;
                memcpy(&u, p, 2);
                (*uints)[i] = u;
            } else {
                assert_int_equal(type, 5121);
                (*uints)[i] = *p;
            }
        }
    }
    return count;
}

/* One triangle primitive with TANGENT as an ir_mesh (the reader's path);
 * false when it has none. *set receives the normal texture's UV set. */
static bool read_primitive(const gltf_file *file, const json *primitive, ir_mesh *mesh,
                           uint32_t *set) {
    const json *attributes = json_get(primitive, "attributes");
    if (json_get(attributes, "TANGENT") == NULL || json_number(json_get(primitive, "mode"), 4) != 4)
        return false;
    const json *material = json_at(json_get(&file->root, "materials"),
                                   (size_t)json_number(json_get(primitive, "material"), -1));
    *set = (uint32_t)json_number(json_get(json_get(material, "normalTexture"), "texCoord"), 0);
    memset(mesh, 0, sizeof *mesh);
    mesh->vertex_count =
        gltf_read(file, json_get(attributes, "POSITION"), 3, &mesh->positions, NULL);
    assert_int_equal(gltf_read(file, json_get(attributes, "NORMAL"), 3, &mesh->normals, NULL),
                     mesh->vertex_count);
    assert_int_equal(gltf_read(file, json_get(attributes, "TANGENT"), 4, &mesh->tangents, NULL),
                     mesh->vertex_count);
    static const char *const names[2] = {"TEXCOORD_0", "TEXCOORD_1"};
    for (int k = 0; k < 2; k++)
        if (json_get(attributes, names[k]) != NULL)
            assert_int_equal(
                gltf_read(file, json_get(attributes, names[k]), 2, &mesh->texcoords[k], NULL),
                mesh->vertex_count);
    if (json_get(primitive, "indices") != NULL) {
        mesh->index_count =
            gltf_read(file, json_get(primitive, "indices"), 1, NULL, &mesh->indices);
    } else {
        mesh->index_count = mesh->vertex_count;
        mesh->indices = malloc((size_t)mesh->index_count * sizeof *mesh->indices + 1);
        assert_non_null(mesh->indices);
        for (uint32_t i = 0; i < mesh->index_count; i++)
            mesh->indices[i] = i;
    }
    return true;
}

typedef struct agreement {
    uint32_t vertices; /* compared */
    uint32_t within_1deg, within_2deg;
    uint32_t mirrored; /* compared with stored w = -1 */
    uint32_t handedness_mismatches;
    uint32_t split;          /* source vertices we split into several */
    uint32_t no_gradient;    /* skipped: only in zero-UV-area triangles */
    uint32_t twins;          /* such vertices compared with a welded twin */
    uint32_t invalid_stored; /* skipped: stored tangent invalid or a placeholder */
    double worst_degrees;
} agreement;

static double angle_degrees(const float *a, const float *b) {
    double cosine = dot3(a, b) / sqrt((double)dot3(a, a) * (double)dot3(b, b));
    return acos(cosine > 1.0 ? 1.0 : (cosine < -1.0 ? -1.0 : cosine)) * 180.0 / M_PI;
}

static void print_agreement(const char *what, const agreement *a) {
    printf("%s %u vertices compared (%u mirrored, w = -1): %.2f%% within 1 deg, %.2f%% "
           "within 2 deg, worst %.3f deg, %u handedness mismatches; %u split, %u via welded "
           "twin; skipped %u without UV gradient, %u invalid stored\n",
           what, a->vertices, a->mirrored, a->vertices ? 100.0 * a->within_1deg / a->vertices : 0,
           a->vertices ? 100.0 * a->within_2deg / a->vertices : 0, a->worst_degrees,
           a->handedness_mismatches, a->split, a->twins, a->no_gradient, a->invalid_stored);
}

/* Strips `mesh`'s tangents, regenerates them from texcoords[set] and compares
 * them with the stripped ones, per source vertex. Frees the mesh. */
static void compare_mesh(ir_mesh *mesh_in, uint32_t set, const char *label, agreement *total) {
    ir_mesh mesh = *mesh_in;
    memset(mesh_in, 0, sizeof *mesh_in);
    float *stored = mesh.tangents;
    mesh.tangents = NULL;
    assert_non_null(stored);
    assert_non_null(mesh.normals);
    uint32_t original_count = mesh.vertex_count;
    uint32_t *original_indices = malloc((size_t)mesh.index_count * 4 + 1);
    assert_non_null(original_indices);
    memcpy(original_indices, mesh.indices, (size_t)mesh.index_count * 4);

    assert_true(process_generate_tangents(&mesh, set));
    if (set > 1 || mesh.texcoords[set] == NULL) {
        /* No UVs (AnimatedMorphCube): nothing to generate from. */
        assert_null(mesh.tangents);
        printf("  %-34s no TEXCOORD_%u: no tangents generated (as required)\n", label, set);
        free(original_indices);
        free(stored);
        ir_mesh_free(&mesh);
        return;
    }
    assert_tangents_well_formed(&mesh);
    const float *uv_set = mesh.texcoords[set];

    /* Per source vertex: whether a triangle with non-zero UV area uses it, and
     * the output copy closest to the stored tangent (a vertex we split at a
     * mirror seam has one stored tangent but several frames). */
    uint8_t *gradient = calloc(original_count + 1, 1);
    uint32_t *best = malloc(((size_t)original_count + 1) * sizeof *best);
    uint32_t *copies = calloc((size_t)original_count + 1, sizeof *copies);
    uint8_t *seen = calloc((size_t)mesh.vertex_count + 1, 1);
    assert_true(gradient != NULL && best != NULL && copies != NULL && seen != NULL);
    for (uint32_t t = 0; t + 2 < mesh.index_count; t += 3) {
        const float *a = uv_set + 2 * (size_t)mesh.indices[t];
        const float *b = uv_set + 2 * (size_t)mesh.indices[t + 1];
        const float *c = uv_set + 2 * (size_t)mesh.indices[t + 2];
        float area = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
        if (area != 0.0f)
            for (int k = 0; k < 3; k++)
                gradient[original_indices[t + (uint32_t)k]] = 1;
    }
    for (uint32_t v = 0; v < original_count; v++)
        best[v] = UINT32_MAX;
    for (uint32_t c = 0; c < mesh.index_count; c++) {
        uint32_t v = mesh.indices[c], source = original_indices[c];
        if (seen[v])
            continue;
        seen[v] = 1;
        copies[source]++;
        const float *t = mesh.tangents + 4 * (size_t)v, *s = stored + 4 * (size_t)source;
        if (best[source] == UINT32_MAX) {
            best[source] = v;
            continue;
        }
        const float *b = mesh.tangents + 4 * (size_t)best[source];
        double score = angle_degrees(t, s) + ((t[3] < 0) != (s[3] < 0) ? 360.0 : 0.0);
        double best_score = angle_degrees(b, s) + ((b[3] < 0) != (s[3] < 0) ? 360.0 : 0.0);
        if (score < best_score)
            best[source] = v;
    }

    /* The same stored tangent on every vertex while the normals differ is a
     * placeholder, not a MikkTSpace result (VertexColorTest's second mesh
     * stores (1, 0, 0, 1) everywhere, even where that is the normal). */
    bool placeholder = original_count > 1;
    bool normals_vary = false;
    for (uint32_t v = 1; v < original_count; v++) {
        const float *s = stored + 4 * (size_t)v, *n = mesh.normals + 3 * (size_t)v;
        for (int k = 0; k < 4; k++)
            placeholder = placeholder && fabsf(s[k] - stored[k]) < 1e-6f;
        for (int k = 0; k < 3; k++)
            normals_vary = normals_vary || fabsf(n[k] - mesh.normals[k]) > 1e-3f;
    }
    agreement local = {0};
    if (placeholder && normals_vary) {
        printf("  %-34s TEXCOORD_%u stored TANGENT is one constant for all %u vertices: a "
               "placeholder, not compared\n",
               label, set, original_count);
        local.invalid_stored = original_count;
        for (uint32_t v = 0; v < original_count; v++)
            best[v] = UINT32_MAX; /* compare nothing */
    }
    uint32_t worst_vertex = UINT32_MAX;
    for (uint32_t source = 0; source < original_count; source++) {
        if (best[source] == UINT32_MAX)
            continue; /* unreferenced */
        const float *s = stored + 4 * (size_t)source;
        if (!gradient[source]) {
            /* Its own triangles have zero UV area. MikkTSpace welds it to any
             * vertex with the same position, normal and UV: compare with that
             * twin's stored tangent if one has a gradient (WaterBottle). */
            uint32_t twin = UINT32_MAX;
            for (uint32_t o = 0; o < original_count && twin == UINT32_MAX; o++)
                if (gradient[o] && best[o] != UINT32_MAX &&
                    memcmp(mesh.positions + 3 * (size_t)o, mesh.positions + 3 * (size_t)source,
                           3 * sizeof(float)) == 0 &&
                    memcmp(mesh.normals + 3 * (size_t)o, mesh.normals + 3 * (size_t)source,
                           3 * sizeof(float)) == 0 &&
                    memcmp(uv_set + 2 * (size_t)o, uv_set + 2 * (size_t)source,
                           2 * sizeof(float)) == 0)
                    twin = o;
            if (twin == UINT32_MAX) {
                local.no_gradient++;
                continue;
            }
            local.twins++;
            s = stored + 4 * (size_t)twin;
        }
        /* An exporter's placeholder where it found no UV gradient itself
         * (WaterBottle: vertices whose own triangles have zero UV area, which
         * MikkTSpace welds to an identical vertex elsewhere). */
        const float *n = mesh.normals + 3 * (size_t)source;
        if (!(fabsf(dot3(s, s) - 1.0f) < 0.01f && fabsf(dot3(s, n)) < 0.01f)) {
            local.invalid_stored++;
            continue;
        }
        local.split += copies[source] > 1;
        const float *t = mesh.tangents + 4 * (size_t)best[source];
        double degrees = angle_degrees(t, s);
        local.vertices++;
        local.within_1deg += degrees <= 1.0;
        local.within_2deg += degrees <= 2.0;
        local.handedness_mismatches += (t[3] < 0) != (s[3] < 0);
        local.mirrored += s[3] < 0;
        if (worst_vertex == UINT32_MAX || degrees > local.worst_degrees) {
            local.worst_degrees = degrees;
            worst_vertex = source;
        }
        if (getenv("KILN_TANGENT_DUMP") != NULL && (degrees > 1.0 || (t[3] < 0) != (s[3] < 0)))
            printf("    vertex %u: %.2f deg, ours (%.4f %.4f %.4f %+g) stored (%.4f %.4f %.4f "
                   "%+g)\n",
                   source, degrees, t[0], t[1], t[2], t[3], s[0], s[1], s[2], s[3]);
    }
    if (!(placeholder && normals_vary)) {
        char line[160];
        snprintf(line, sizeof line, "  %-34s TEXCOORD_%u", label, set);
        print_agreement(line, &local);
    }
    total->vertices += local.vertices;
    total->within_1deg += local.within_1deg;
    total->within_2deg += local.within_2deg;
    total->handedness_mismatches += local.handedness_mismatches;
    total->mirrored += local.mirrored;
    total->split += local.split;
    total->no_gradient += local.no_gradient;
    total->twins += local.twins;
    total->invalid_stored += local.invalid_stored;
    if (local.worst_degrees > total->worst_degrees)
        total->worst_degrees = local.worst_degrees;
    free(gradient);
    free(best);
    free(copies);
    free(seen);
    free(original_indices);
    free(stored);
    ir_mesh_free(&mesh);
}

static void corpus_tangents_match_the_stored_ones(void **state) {
    (void)state;
    if (test_skip_without_corpus("corpus_tangents_match_the_stored_ones"))
        skip();
    /* The UV set is the one of the material's normal texture; MultiUVTest has
     * no normal texture and Blender exported its tangents from the second set.
     * Strict references were made by MikkTSpace (Blender's and Unity's glTF
     * exporters). AnisotropyBarnLamp's (3ds Max) are not: about 30% of them are
     * not perpendicular to the normals, so they were computed against other
     * normals; it is held to matching handedness and a looser angle. */
    static const struct {
        const char *path;
        int set; /* -1: the normal texture's */
        bool strict;
    } models[] = {
        {"gltf/AlphaBlendModeTest/glTF/AlphaBlendModeTest.gltf", -1, true},
        {"gltf/MultiUVTest/glTF/MultiUVTest.gltf", 1, true},
        {"gltf/VertexColorTest/glTF/VertexColorTest.gltf", -1, true},
        {"gltf/WaterBottle/glTF/WaterBottle.gltf", -1, true},
        {"gltf/AnimatedMorphCube/glTF/AnimatedMorphCube.gltf", -1, true},
        {"gltf/NormalTangentMirrorTest/glTF/NormalTangentMirrorTest.gltf", -1, true},
        {"gltf/AnisotropyBarnLamp/glTF-KTX2-Basisu/AnisotropyBarnLamp.gltf", -1, false},
    };
    agreement total = {0}, loose = {0};
    uint32_t models_read = 0;
    for (size_t m = 0; m < sizeof models / sizeof models[0]; m++) {
        const char *name = strrchr(models[m].path, '/') + 1;
        agreement *sink = models[m].strict ? &total : &loose;
        char *path = test_path_join(test_corpus_dir(), models[m].path);
        FILE *probe = fopen(path, "rb");
        if (probe == NULL) {
            printf("  %s: not in the corpus\n", models[m].path);
            free(path);
            continue;
        }
        fclose(probe);
        models_read++;
        /* Through the importer, as the pipeline sees the model. */
        size_t size;
        uint8_t *source = test_read_file(path, &size);
        cook_settings settings;
        cook_settings_default(&settings);
        cook_diag diag = {0};
        cook_context ctx = {
            .input_root = test_corpus_dir(),
            .source_path = models[m].path,
            .ref = "corpus",
            .source = source,
            .source_size = size,
            .settings = &settings,
            .diag = &diag,
        };
        ir_asset asset = {0};
        if (import_gltf(&ctx, &asset)) {
            for (uint32_t i = 0; i < asset.mesh_count; i++) {
                ir_mesh *mesh = asset.meshes + i;
                if (mesh->tangents == NULL || mesh->submesh_count == 0)
                    continue;
                uint32_t material = mesh->submeshes[0].material;
                uint32_t set = material < asset.material_count
                                   ? asset.materials[material].textures[IR_SLOT_NORMAL].texcoord
                                   : 0;
                char label[128];
                snprintf(label, sizeof label, "%.60s mesh %u", name, i);
                compare_mesh(mesh, models[m].set >= 0 ? (uint32_t)models[m].set : set, label, sink);
            }
        } else {
            /* The importer refuses the model for reasons beside its geometry
             * (AnisotropyBarnLamp: KTX2 images): read the geometry directly. */
            printf("  %s: import_gltf refused it; geometry read directly\n", name);
            gltf_file file;
            if (gltf_load(path, &file)) {
                const json *meshes = json_get(&file.root, "meshes");
                for (size_t i = 0; meshes != NULL && i < meshes->count; i++) {
                    const json *primitives = json_get(meshes->items + i, "primitives");
                    for (size_t p = 0; primitives != NULL && p < primitives->count; p++) {
                        ir_mesh mesh;
                        uint32_t set;
                        if (!read_primitive(&file, primitives->items + p, &mesh, &set))
                            continue;
                        char label[128];
                        snprintf(label, sizeof label, "%.60s mesh %zu/%zu", name, i, p);
                        compare_mesh(&mesh, models[m].set >= 0 ? (uint32_t)models[m].set : set,
                                     label, sink);
                    }
                }
            }
            gltf_free(&file);
        }
        ir_asset_free(&asset);
        diag_free(&diag);
        strlist_free(&ctx.dependencies);
        strlist_free(&ctx.absent);
        free(source);
        free(path);
    }
    assert_true(models_read >= 4);
    assert_true(total.vertices > 0);
    print_agreement("corpus (MikkTSpace-made):", &total);
    assert_true(total.within_1deg >= 0.99 * total.vertices);
    assert_int_equal(total.handedness_mismatches, 0);
    if (loose.vertices > 0) {
        print_agreement("corpus (other tools):", &loose);
        assert_true(loose.within_2deg >= 0.95 * loose.vertices);
        assert_int_equal(loose.handedness_mismatches, 0);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(flat_quad_with_standard_uvs),
        cmocka_unit_test(flat_quad_with_u_mirrored),
        cmocka_unit_test(flat_quad_with_v_flipped),
        cmocka_unit_test(flat_quad_with_uv_rotated),
        cmocka_unit_test(nothing_without_uvs_or_normals),
        cmocka_unit_test(second_uv_set_is_used_when_asked),
        cmocka_unit_test(mirrored_uvs_split_the_shared_vertices),
        cmocka_unit_test(smooth_across_a_shared_vertex_of_one_handedness),
        cmocka_unit_test(degenerate_input_gives_finite_unit_tangents),
        cmocka_unit_test(welded_duplicates_share_a_frame),
        cmocka_unit_test(uv_degenerate_corners_do_not_split),
        cmocka_unit_test(high_valence_vertex),
        cmocka_unit_test(cylinder_tangents_follow_u),
        cmocka_unit_test(corpus_tangents_match_the_stored_ones),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
