/* kiln_mesh_view_get: one test per kmesh.md rule, plus the vertex helpers. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cook/drivers/drivers.h"
#include "kiln/kiln.h"
#include "test_support.h"

/* The pieces of a mesh file, valid as made by sample_mesh(); a test breaks one
 * thing and builds. Chunk sizes are separate from the descriptor's counts so
 * the two can disagree. A size of SIZE_MAX leaves that chunk out. */
typedef struct mesh_parts {
    uint32_t kind;
    uint16_t kind_version;
    kiln_mesh_desc desc;
    kiln_vertex_attribute attributes[10];
    uint8_t vertices[4 * 16];
    uint8_t indices[6 * 4];
    kiln_submesh submeshes[3];
    kiln_lod lods[6];
    kiln_meshlet meshlets[2];
    uint32_t meshlet_vertices[6];
    uint8_t meshlet_triangles[6];
    size_t desc_bytes, attribute_bytes, vertex_bytes, index_bytes, submesh_bytes, lod_bytes,
        meshlet_bytes, meshlet_vertex_bytes, meshlet_triangle_bytes;
    bool duplicate_desc, unknown_chunk;
    const uint8_t *names; /* an SNAM chunk, or NULL */
    size_t names_bytes;
} mesh_parts;

#define OMIT SIZE_MAX

/* A unit quad in two submeshes: position f32x3 + octahedral normal, stride 16,
 * 16-bit indices, two material slots, one level of detail, one meshlet per
 * submesh. */
static void sample_mesh(mesh_parts *p) {
    static const float positions[4][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}};
    static const uint16_t indices[6] = {0, 1, 2, 0, 2, 3};
    memset(p, 0, sizeof *p);
    p->kind = KILN_KIND_MESH;
    p->kind_version = KILN_MESH_VERSION;
    p->desc.vertex_count = 4;
    p->desc.index_count = 6;
    p->desc.index_size = 2;
    p->desc.submesh_count = 2;
    p->desc.attribute_count = 2;
    p->desc.vertex_stride = 16;
    p->desc.material_count = 2;
    p->desc.aabb_max[0] = p->desc.aabb_max[1] = 1.0f;
    p->desc.sphere[0] = p->desc.sphere[1] = 0.5f;
    p->desc.sphere[3] = 0.75f;
    p->attributes[0] = (kiln_vertex_attribute){KILN_SEMANTIC_POSITION, KILN_VFORMAT_F32X3, 0, 0};
    p->attributes[1] =
        (kiln_vertex_attribute){KILN_SEMANTIC_NORMAL, KILN_VFORMAT_OCT_SNORM16X2, 0, 12};
    for (int v = 0; v < 4; v++)
        memcpy(p->vertices + 16 * v, positions[v], 12); /* normal (0, 0) is +Z */
    memcpy(p->indices, indices, sizeof indices);
    p->submeshes[0].index_count = 3;
    p->submeshes[0].aabb_max[0] = p->submeshes[0].aabb_max[1] = 1.0f;
    p->submeshes[1].index_offset = 3;
    p->submeshes[1].index_count = 3;
    p->submeshes[1].material_slot = 1;
    p->desc.lod_count = 1;
    p->lods[0] = (kiln_lod){.index_offset = 0, .index_count = 3};
    p->lods[1] = (kiln_lod){.index_offset = 3, .index_count = 3};
    static const uint32_t meshlet_vertices[6] = {0, 1, 2, 0, 2, 3};
    static const uint8_t meshlet_triangles[6] = {0, 1, 2, 0, 1, 2};
    memcpy(p->meshlet_vertices, meshlet_vertices, sizeof meshlet_vertices);
    memcpy(p->meshlet_triangles, meshlet_triangles, sizeof meshlet_triangles);
    p->desc.meshlet_count = 2;
    p->desc.meshlet_vertex_count = 6;
    p->desc.meshlet_triangle_count = 2;
    p->desc.meshlet_max_vertices = 64;
    p->desc.meshlet_max_triangles = 124;
    for (int m = 0; m < 2; m++) {
        p->meshlets[m].vertex_offset = 3 * (uint32_t)m;
        p->meshlets[m].triangle_offset = (uint32_t)m;
        p->meshlets[m].vertex_count = 3;
        p->meshlets[m].triangle_count = 1;
        p->meshlets[m].radius = 1.0f;
        p->meshlets[m].cone_axis[2] = 1.0f;
        p->submeshes[m].meshlet_offset = (uint32_t)m;
        p->submeshes[m].meshlet_count = 1;
    }
    p->desc_bytes = sizeof p->desc;
    p->attribute_bytes = 2 * sizeof(kiln_vertex_attribute);
    p->vertex_bytes = sizeof p->vertices;
    p->index_bytes = 6 * 2;
    p->submesh_bytes = 2 * sizeof(kiln_submesh);
    p->lod_bytes = 2 * sizeof(kiln_lod);
    p->meshlet_bytes = 2 * sizeof(kiln_meshlet);
    p->meshlet_vertex_bytes = sizeof meshlet_vertices;
    p->meshlet_triangle_bytes = sizeof meshlet_triangles;
}

static void add_part(container_writer *writer, uint32_t fourcc, const void *data, size_t size) {
    if (size != OMIT)
        container_add_chunk(writer, fourcc, data, size);
}

/* A built and opened mesh; the view points into `bytes`. */
typedef struct opened_mesh {
    uint8_t *bytes;
    kiln_file file;
    kiln_mesh_view view;
    kiln_error err;
} opened_mesh;

static kiln_result open_mesh(const mesh_parts *p, uint32_t flags, opened_mesh *out) {
    container_writer writer;
    container_begin(&writer, p->kind, p->kind_version);
    add_part(&writer, KILN_CHUNK_MESH_DESC, &p->desc, p->desc_bytes);
    if (p->duplicate_desc)
        add_part(&writer, KILN_CHUNK_MESH_DESC, &p->desc, p->desc_bytes);
    add_part(&writer, KILN_CHUNK_MESH_ATTRS, p->attributes, p->attribute_bytes);
    if (p->unknown_chunk)
        add_part(&writer, KILN_FOURCC('L', 'O', 'D', '9'), "later", 5);
    add_part(&writer, KILN_CHUNK_MESH_VERTICES, p->vertices, p->vertex_bytes);
    add_part(&writer, KILN_CHUNK_MESH_INDICES, p->indices, p->index_bytes);
    add_part(&writer, KILN_CHUNK_MESH_SUBMESHES, p->submeshes, p->submesh_bytes);
    add_part(&writer, KILN_CHUNK_MESH_LODS, p->lods, p->lod_bytes);
    if (p->names != NULL)
        add_part(&writer, KILN_CHUNK_MESH_SUBMESH_NAMES, p->names, p->names_bytes);
    add_part(&writer, KILN_CHUNK_MESH_MESHLETS, p->meshlets, p->meshlet_bytes);
    add_part(&writer, KILN_CHUNK_MESH_MESHLET_VERTICES, p->meshlet_vertices,
             p->meshlet_vertex_bytes);
    add_part(&writer, KILN_CHUNK_MESH_MESHLET_TRIANGLES, p->meshlet_triangles,
             p->meshlet_triangle_bytes);
    bytebuf buf = {0};
    assert_true(container_finish(&writer, &buf));

    void *block = NULL;
    assert_int_equal(posix_memalign(&block, 16, buf.size), 0);
    memcpy(block, buf.data, buf.size);
    out->bytes = block;
    assert_int_equal(kiln_file_from_memory(&out->file, out->bytes, buf.size, "quad.kmesh",
                                           KILN_OPEN_VERIFY_CHECKSUM, &out->err),
                     KILN_OK);
    bytebuf_free(&buf);
    return kiln_mesh_view_get(&out->file, flags, &out->view, &out->err);
}

static void close_mesh(opened_mesh *m) {
    kiln_file_close(&m->file);
    free(m->bytes);
}

/* Builds, expects `expected` with `fragment` in the message, and that a failed
 * view is left empty. */
static void expect_mesh(const mesh_parts *p, uint32_t flags, kiln_result expected,
                        const char *fragment) {
    opened_mesh m;
    kiln_result result = open_mesh(p, flags, &m);
    if (result != expected || (fragment != NULL && strstr(m.err.message, fragment) == NULL))
        fail_msg("got %s \"%s\", expected %s with \"%s\"", kiln_result_str(result), m.err.message,
                 kiln_result_str(expected), fragment ? fragment : "");
    if (result != KILN_OK)
        assert_null(m.view.desc);
    close_mesh(&m);
}

/* ---------------------------------------------------------------------------
 * Accepted meshes
 * ------------------------------------------------------------------------- */

static void mesh_view_accepts_valid_mesh(void **state) {
    (void)state;
    mesh_parts p;
    sample_mesh(&p);
    opened_mesh m;
    assert_int_equal(open_mesh(&p, KILN_OPEN_DEEP, &m), KILN_OK);
    assert_int_equal(m.err.code, KILN_OK);
    const kiln_mesh_view *v = &m.view;
    assert_int_equal(v->desc->vertex_count, 4);
    assert_int_equal(v->vertex_bytes, 64);
    assert_int_equal(v->index_bytes, 12);
    assert_int_equal(((const uint16_t *)v->indices)[5], 3);
    assert_int_equal(v->submeshes[1].material_slot, 1);
    float corner[3];
    memcpy(corner, (const uint8_t *)v->vertices + 2 * 16, sizeof corner);
    assert_true(corner[0] == 1.0f && corner[1] == 1.0f);
    const kiln_vertex_attribute *normal = kiln_mesh_find_attribute(v, KILN_SEMANTIC_NORMAL);
    assert_non_null(normal);
    assert_int_equal(normal->offset, 12);
    assert_null(kiln_mesh_find_attribute(v, KILN_SEMANTIC_TANGENT));
    assert_null(kiln_mesh_find_attribute(NULL, KILN_SEMANTIC_POSITION));
    close_mesh(&m);
}

static void mesh_view_accepts_32_bit_indices(void **state) {
    (void)state;
    mesh_parts p;
    sample_mesh(&p);
    static const uint32_t indices[6] = {0, 1, 2, 0, 2, 3};
    memcpy(p.indices, indices, sizeof indices);
    p.desc.index_size = 4;
    p.index_bytes = sizeof indices;
    expect_mesh(&p, KILN_OPEN_DEEP, KILN_OK, NULL);
}

/* kmesh.md R19: a data chunk with nothing in it may be left out. */
static void mesh_view_accepts_empty_mesh_without_data_chunks(void **state) {
    (void)state;
    mesh_parts p;
    sample_mesh(&p);
    p.desc.vertex_count = p.desc.index_count = p.desc.submesh_count = 0;
    p.desc.material_count = 0;
    p.desc.meshlet_count = p.desc.meshlet_vertex_count = p.desc.meshlet_triangle_count = 0;
    p.lod_bytes = p.meshlet_bytes = p.meshlet_vertex_bytes = p.meshlet_triangle_bytes = OMIT;
    memset(p.desc.aabb_max, 0, sizeof p.desc.aabb_max);
    memset(p.desc.sphere, 0, sizeof p.desc.sphere);
    p.vertex_bytes = p.index_bytes = p.submesh_bytes = OMIT;
    opened_mesh m;
    assert_int_equal(open_mesh(&p, KILN_OPEN_DEEP, &m), KILN_OK);
    assert_null(m.view.vertices);
    assert_null(m.view.indices);
    assert_null(m.view.submeshes);
    assert_int_equal(m.view.vertex_bytes, 0);
    close_mesh(&m);
}

static void mesh_view_skips_unknown_chunks(void **state) {
    (void)state;
    mesh_parts p;
    sample_mesh(&p);
    p.unknown_chunk = true;
    expect_mesh(&p, KILN_OPEN_DEEP, KILN_OK, NULL);
}

/* ---------------------------------------------------------------------------
 * Kind and chunks (R1-R5)
 * ------------------------------------------------------------------------- */

static void mesh_view_rejects_other_kinds(void **state) {
    (void)state;
    mesh_parts p;
    sample_mesh(&p);
    p.kind = KILN_FOURCC('T', 'E', 'X', 'R');
    expect_mesh(&p, 0, KILN_ERR_BAD_MAGIC, "quad.kmesh: not a mesh (kind 'TEXR'");
}

static void mesh_view_rejects_unsupported_version(void **state) {
    (void)state;
    mesh_parts p;
    sample_mesh(&p);
    p.kind_version = KILN_MESH_VERSION + 1;
    expect_mesh(&p, 0, KILN_ERR_UNSUPPORTED, "mesh version 6 is not supported");
    /* Version 2 had no topology, version 3 no joints1/weights1; this build
     * reads its own version only. */
    sample_mesh(&p);
    p.kind_version = 2;
    expect_mesh(&p, 0, KILN_ERR_UNSUPPORTED,
                "mesh version 2 is not supported (this build reads version 5)");
    sample_mesh(&p);
    p.kind_version = 3;
    expect_mesh(&p, 0, KILN_ERR_UNSUPPORTED,
                "mesh version 3 is not supported (this build reads version 5)");
    sample_mesh(&p);
    p.kind_version = 4; /* no morph targets: must be cooked again (kmesh.md R2) */
    expect_mesh(&p, 0, KILN_ERR_UNSUPPORTED,
                "mesh version 4 is not supported (this build reads version 5)");
}

static void mesh_view_rejects_duplicate_chunk(void **state) {
    (void)state;
    mesh_parts p;
    sample_mesh(&p);
    p.duplicate_desc = true;
    expect_mesh(&p, 0, KILN_ERR_CORRUPT, "chunk 1 is a second MDSC chunk");
}

static void mesh_view_rejects_missing_or_short_descriptor(void **state) {
    (void)state;
    mesh_parts p;
    sample_mesh(&p);
    p.desc_bytes = OMIT;
    expect_mesh(&p, 0, KILN_ERR_CORRUPT, "no MDSC");
    sample_mesh(&p);
    p.desc_bytes = sizeof p.desc - 4;
    expect_mesh(&p, 0, KILN_ERR_CORRUPT, "MDSC chunk is 124 bytes, expected 128");
}

static void mesh_view_rejects_flags_and_reserved(void **state) {
    (void)state;
    mesh_parts p;
    sample_mesh(&p);
    p.desc.flags = 2; /* R5: bit 0 (streams) is the only one known */
    expect_mesh(&p, 0, KILN_ERR_UNSUPPORTED, "unknown mesh flags 0x2");
    sample_mesh(&p);
    p.desc.flags = KILN_MESH_FLAG_STREAMS; /* R10: an interleaved table is not streams */
    expect_mesh(&p, 0, KILN_ERR_CORRUPT,
                "attribute 1 (normal) has stream 0 and offset 12; with separate streams it must "
                "be stream 1 at offset 0");
    sample_mesh(&p);
    p.desc.morph_attributes = 1; /* R21: attributes without targets */
    expect_mesh(&p, 0, KILN_ERR_CORRUPT, "0 morph targets with morph attributes 0x1");
    sample_mesh(&p);
    p.desc.morph_target_count = 2; /* R21: targets without attributes */
    expect_mesh(&p, 0, KILN_ERR_CORRUPT, "2 morph targets with morph attributes 0x0");
    sample_mesh(&p);
    p.desc.morph_target_count = 1;
    p.desc.morph_attributes = 8; /* an unknown attribute bit */
    expect_mesh(&p, 0, KILN_ERR_CORRUPT, "morph attributes 0x8");
    sample_mesh(&p);
    p.desc.morph_target_count = 1; /* R9: no MDLT for the declared deltas */
    p.desc.morph_attributes = KILN_MORPH_POSITION;
    expect_mesh(&p, 0, KILN_ERR_CORRUPT, "MDLT chunk is 0 bytes");
}

/* ---------------------------------------------------------------------------
 * Descriptor (R6-R8)
 * ------------------------------------------------------------------------- */

static void mesh_view_rejects_bad_index_size(void **state) {
    (void)state;
    mesh_parts p;
    sample_mesh(&p);
    p.desc.index_size = 3;
    p.index_bytes = 18;
    expect_mesh(&p, 0, KILN_ERR_CORRUPT, "index_size is 3, expected 2 or 4");
}

/* R6 no longer asks for a multiple of 3: a line submesh after a triangle one
 * makes 5 indices. The submesh ranges still have to fit (R13). */
static void mesh_view_index_count_follows_the_submeshes(void **state) {
    (void)state;
    mesh_parts p;
    sample_mesh(&p);
    p.desc.index_count = 5;
    p.index_bytes = 10;
    expect_mesh(&p, 0, KILN_ERR_CORRUPT,
                "submesh 1 indices 3+3 are not whole triangles inside index_count 5");
    p.submeshes[1].topology = KILN_TOPOLOGY_LINES;
    p.submeshes[1].index_count = 2;
    p.submeshes[1].meshlet_count = 0;
    p.lods[1].index_count = 2;
    expect_mesh(&p, KILN_OPEN_DEEP, KILN_OK, NULL);
}

static void mesh_view_rejects_bad_stride(void **state) {
    (void)state;
    mesh_parts p;
    sample_mesh(&p);
    p.desc.vertex_stride = 18;
    expect_mesh(&p, 0, KILN_ERR_CORRUPT, "vertex_stride 18");
    sample_mesh(&p);
    p.desc.vertex_stride = 0;
    expect_mesh(&p, 0, KILN_ERR_CORRUPT, "vertex_stride 0");
}

/* ---------------------------------------------------------------------------
 * Attributes (R9, R13-R15)
 * ------------------------------------------------------------------------- */

static void mesh_view_rejects_attribute_chunk_size_mismatch(void **state) {
    (void)state;
    mesh_parts p;
    sample_mesh(&p);
    p.desc.attribute_count = 3;
    expect_mesh(&p, 0, KILN_ERR_CORRUPT, "MATR chunk is 16 bytes, expected 3 x 8");
}

static void mesh_view_rejects_invalid_attributes(void **state) {
    (void)state;
    struct {
        kiln_vertex_attribute attribute;
        const char *fragment;
    } cases[] = {
        {{0, KILN_VFORMAT_F32X4, 0, 0}, "invalid semantic 0"},
        {{KILN_SEMANTIC_COUNT_, KILN_VFORMAT_F32X4, 0, 0}, "invalid semantic 11"},
        {{KILN_SEMANTIC_TANGENT, 0, 0, 0}, "(tangent) has invalid format 0"},
        {{KILN_SEMANTIC_TANGENT, KILN_VFORMAT_COUNT_, 0, 0}, "invalid format 12"},
        {{KILN_SEMANTIC_COLOR0, KILN_VFORMAT_UNORM8X4, 1, 12}, "uses stream 1"},
        {{KILN_SEMANTIC_COLOR0, KILN_VFORMAT_UNORM8X4, 0, 14}, "does not fit"},
        {{KILN_SEMANTIC_COLOR0, KILN_VFORMAT_UNORM16X4, 0, 12}, "does not fit"},
        {{KILN_SEMANTIC_COLOR0, KILN_VFORMAT_U8X4, 0, 65532}, "does not fit"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mesh_parts p;
        sample_mesh(&p);
        p.attributes[1] = cases[i].attribute;
        expect_mesh(&p, 0, KILN_ERR_CORRUPT, cases[i].fragment);
    }
}

static void mesh_view_rejects_duplicate_semantic(void **state) {
    (void)state;
    mesh_parts p;
    sample_mesh(&p);
    p.attributes[1] = (kiln_vertex_attribute){KILN_SEMANTIC_POSITION, KILN_VFORMAT_F32X3, 0, 0};
    expect_mesh(&p, 0, KILN_ERR_CORRUPT, "attribute 1 repeats semantic position");
}

static void mesh_view_rejects_missing_position(void **state) {
    (void)state;
    mesh_parts p;
    sample_mesh(&p);
    p.attributes[0] = (kiln_vertex_attribute){KILN_SEMANTIC_TEXCOORD0, KILN_VFORMAT_F32X2, 0, 0};
    expect_mesh(&p, 0, KILN_ERR_CORRUPT, "no position attribute");
    sample_mesh(&p);
    p.attributes[0].format = KILN_VFORMAT_F32X4; /* 16 bytes: overlaps, but fits the stride */
    p.attributes[1].offset = 0;
    expect_mesh(&p, 0, KILN_ERR_CORRUPT, "position is f32x4; it must be f32x3 or unorm16x4");
}

/* ---------------------------------------------------------------------------
 * Data chunk sizes (R10-R12)
 * ------------------------------------------------------------------------- */

static void mesh_view_rejects_data_chunk_size_mismatch(void **state) {
    (void)state;
    mesh_parts p;
    sample_mesh(&p);
    p.vertex_bytes = 48;
    expect_mesh(&p, 0, KILN_ERR_CORRUPT, "VTX0 chunk is 48 bytes, expected 4 x 16");
    sample_mesh(&p);
    p.desc.vertex_count = 0xffffffffu; /* 64 GiB of vertices in a 1 KiB file */
    expect_mesh(&p, 0, KILN_ERR_CORRUPT, "expected 4294967295 x 16");
    sample_mesh(&p);
    p.index_bytes = OMIT;
    expect_mesh(&p, 0, KILN_ERR_CORRUPT, "IDX  chunk is 0 bytes, expected 6 x 2");
    sample_mesh(&p);
    p.submesh_bytes = 64;
    expect_mesh(&p, 0, KILN_ERR_CORRUPT, "SUBM chunk is 64 bytes, expected 2 x 64");
}

/* ---------------------------------------------------------------------------
 * Submeshes and bounds (R16-R17)
 * ------------------------------------------------------------------------- */

static void mesh_view_rejects_submesh_range_past_end(void **state) {
    (void)state;
    mesh_parts p;
    sample_mesh(&p);
    p.submeshes[1].index_count = 6;
    expect_mesh(&p, 0, KILN_ERR_CORRUPT,
                "submesh 1 indices 3+6 are not whole triangles inside index_count 6");
    sample_mesh(&p);
    /* 0xffffffff is a multiple of 3; offset + count wraps in 32 bits. */
    p.submeshes[1].index_offset = 0xffffffffu;
    expect_mesh(&p, 0, KILN_ERR_CORRUPT, "are not whole triangles inside index_count 6");
}

static void mesh_view_rejects_partial_triangle_submesh(void **state) {
    (void)state;
    mesh_parts p;
    sample_mesh(&p);
    p.submeshes[1].index_count = 2;
    expect_mesh(&p, 0, KILN_ERR_CORRUPT, "submesh 1 indices 3+2 are not whole triangles");
}

/* ---------------------------------------------------------------------------
 * Topologies (R13, R15)
 * ------------------------------------------------------------------------- */

/* The quad's 6 indices as three submeshes: a triangle (0 1 2), a line (0 2)
 * and a point (3), each with its one level; meshlets for the triangle only. */
static void mixed_topology_mesh(mesh_parts *p) {
    sample_mesh(p);
    static const uint16_t indices[6] = {0, 1, 2, 0, 2, 3};
    memcpy(p->indices, indices, sizeof indices);
    p->desc.submesh_count = 3;
    p->desc.material_count = 3;
    p->submeshes[1].topology = KILN_TOPOLOGY_LINES;
    p->submeshes[1].index_count = 2;
    p->submeshes[1].meshlet_offset = 1;
    p->submeshes[1].meshlet_count = 0;
    p->submeshes[2] = (kiln_submesh){.index_offset = 5,
                                     .index_count = 1,
                                     .material_slot = 2,
                                     .topology = KILN_TOPOLOGY_POINTS,
                                     .meshlet_offset = 1};
    p->lods[1] = (kiln_lod){.index_offset = 3, .index_count = 2};
    p->lods[2] = (kiln_lod){.index_offset = 5, .index_count = 1};
    p->desc.meshlet_count = 1;
    p->desc.meshlet_vertex_count = 3;
    p->desc.meshlet_triangle_count = 1;
    p->submesh_bytes = 3 * sizeof(kiln_submesh);
    p->lod_bytes = 3 * sizeof(kiln_lod);
    p->meshlet_bytes = sizeof(kiln_meshlet);
    p->meshlet_vertex_bytes = 3 * sizeof(uint32_t);
    p->meshlet_triangle_bytes = 3;
}

static void mesh_view_exposes_topologies(void **state) {
    (void)state;
    mesh_parts p;
    mixed_topology_mesh(&p);
    opened_mesh m;
    assert_int_equal(open_mesh(&p, KILN_OPEN_DEEP, &m), KILN_OK);
    static const kiln_topology expected[3] = {KILN_TOPOLOGY_TRIANGLES, KILN_TOPOLOGY_LINES,
                                              KILN_TOPOLOGY_POINTS};
    static const uint32_t sizes[3] = {3, 2, 1};
    static const char *const names[3] = {"triangles", "lines", "points"};
    for (uint32_t s = 0; s < 3; s++) {
        kiln_topology topology = (kiln_topology)m.view.submeshes[s].topology;
        assert_int_equal(topology, expected[s]);
        assert_int_equal(kiln_topology_index_count(topology), sizes[s]);
        assert_string_equal(kiln_topology_str(topology), names[s]);
    }
    assert_int_equal(kiln_mesh_lod(&m.view, 2, 0)->index_offset, 5);
    assert_int_equal(kiln_topology_index_count(KILN_TOPOLOGY_COUNT_), 0);
    assert_string_equal(kiln_topology_str((kiln_topology)7), "invalid");
    close_mesh(&m);
    /* The field is the low half of what was version 2's u32 flags. */
    assert_int_equal(offsetof(kiln_submesh, topology), 12);
    assert_int_equal(offsetof(kiln_submesh, flags), 14);
    assert_int_equal(offsetof(kiln_submesh, aabb_min), 16);
}

static void mesh_view_rejects_unknown_topology(void **state) {
    (void)state;
    mesh_parts p;
    mixed_topology_mesh(&p);
    p.submeshes[2].topology = KILN_TOPOLOGY_COUNT_;
    expect_mesh(&p, 0, KILN_ERR_CORRUPT, "submesh 2 has unknown topology 3");
    mixed_topology_mesh(&p);
    p.submeshes[0].topology = 0xffff;
    expect_mesh(&p, 0, KILN_ERR_CORRUPT, "submesh 0 has unknown topology 65535");
}

static void mesh_view_counts_whole_primitives_per_topology(void **state) {
    (void)state;
    mesh_parts p;
    mixed_topology_mesh(&p);
    p.submeshes[1].index_count = 3; /* a line and a half */
    p.lods[1].index_count = 3;
    expect_mesh(&p, 0, KILN_ERR_CORRUPT,
                "submesh 1 indices 3+3 are not whole lines inside index_count 6");
    mixed_topology_mesh(&p);
    p.lods[1].index_count = 1; /* level 0 must still be the submesh's range */
    expect_mesh(&p, 0, KILN_ERR_CORRUPT, "submesh 1 level 0 indices 3+1 are not whole lines");
    /* Points: any count; a triangle submesh after them needs no aligned offset. */
    mixed_topology_mesh(&p);
    p.submeshes[0].topology = KILN_TOPOLOGY_POINTS;
    p.submeshes[0].index_count = 1;
    p.submeshes[0].meshlet_count = 0;
    p.lods[0].index_count = 1;
    p.submeshes[2].topology = KILN_TOPOLOGY_TRIANGLES;
    p.submeshes[2].index_offset = 1;
    p.submeshes[2].index_count = 3;
    p.submeshes[2].meshlet_offset = 0;
    p.submeshes[2].meshlet_count = 1;
    p.lods[2] = (kiln_lod){.index_offset = 1, .index_count = 3};
    expect_mesh(&p, KILN_OPEN_DEEP, KILN_OK, NULL);
}

static void mesh_view_rejects_meshlets_of_lines_or_points(void **state) {
    (void)state;
    mesh_parts p;
    mixed_topology_mesh(&p);
    p.submeshes[1].meshlet_offset = 0;
    p.submeshes[1].meshlet_count = 1;
    expect_mesh(&p, 0, KILN_ERR_CORRUPT,
                "submesh 1 draws lines but has 1 meshlets; meshlets hold triangles");
}

/* SNAM (kmesh.md R20): a name per submesh or none; an offset into the
 * offsets, past the end, or at a string without its NUL is refused. */
static void mesh_view_names_submeshes(void **state) {
    (void)state;
    mesh_parts p;
    sample_mesh(&p);
    /* Two submeshes: "left" and unnamed. */
    uint8_t names[8 + 5] = {8, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 'l', 'e', 'f', 't', 0};
    p.names = names;
    p.names_bytes = sizeof names;
    opened_mesh m;
    assert_int_equal(open_mesh(&p, 0, &m), KILN_OK);
    assert_string_equal(kiln_mesh_submesh_name(&m.view, 0), "left");
    assert_null(kiln_mesh_submesh_name(&m.view, 1));
    assert_null(kiln_mesh_submesh_name(&m.view, 2));
    close_mesh(&m);
    names[0] = 4; /* inside the offsets */
    expect_mesh(&p, 0, KILN_ERR_CORRUPT, "submesh 0's name");
    names[0] = 13; /* past the end */
    expect_mesh(&p, 0, KILN_ERR_CORRUPT, "submesh 0's name");
    names[0] = 8;
    names[12] = 'x'; /* no NUL */
    expect_mesh(&p, 0, KILN_ERR_CORRUPT, "submesh 0's name");
    p.names_bytes = 7; /* shorter than the offsets */
    expect_mesh(&p, 0, KILN_ERR_CORRUPT, "too small");
    /* Without SNAM, no submesh has a name. */
    p.names = NULL;
    assert_int_equal(open_mesh(&p, 0, &m), KILN_OK);
    assert_null(kiln_mesh_submesh_name(&m.view, 0));
    close_mesh(&m);
}

static void mesh_view_rejects_material_slot_out_of_range(void **state) {
    (void)state;
    mesh_parts p;
    sample_mesh(&p);
    p.submeshes[1].material_slot = 2;
    expect_mesh(&p, 0, KILN_ERR_CORRUPT, "submesh 1 uses material slot 2 but the mesh has 2");
}

static void mesh_view_rejects_submesh_flags_and_meshlet_range(void **state) {
    (void)state;
    mesh_parts p;
    sample_mesh(&p);
    p.submeshes[0].flags = 4;
    expect_mesh(&p, 0, KILN_ERR_UNSUPPORTED, "submesh 0 has unknown flags 0x4");
    sample_mesh(&p);
    p.submeshes[1].meshlet_count = 2;
    expect_mesh(&p, 0, KILN_ERR_CORRUPT, "submesh 1 meshlets 1+2 run past meshlet_count 2");
    sample_mesh(&p);
    p.submeshes[1].meshlet_offset = UINT32_MAX;
    expect_mesh(&p, 0, KILN_ERR_CORRUPT, "run past meshlet_count");
}

/* ---------------------------------------------------------------------------
 * Levels of detail (R15) and meshlets (R16, R17)
 * ------------------------------------------------------------------------- */

static void mesh_view_exposes_lods_and_meshlets(void **state) {
    (void)state;
    mesh_parts p;
    sample_mesh(&p);
    opened_mesh m;
    assert_int_equal(open_mesh(&p, KILN_OPEN_DEEP, &m), KILN_OK);
    const kiln_lod *lod = kiln_mesh_lod(&m.view, 1, 0);
    assert_non_null(lod);
    assert_int_equal(lod->index_offset, 3);
    assert_null(kiln_mesh_lod(&m.view, 1, 1));
    assert_null(kiln_mesh_lod(&m.view, 2, 0));
    assert_int_equal(m.view.meshlets[1].vertex_offset, 3);
    assert_int_equal(m.view.meshlet_vertices[5], 3);
    assert_int_equal(m.view.meshlet_triangles[5], 2);
    close_mesh(&m);
}

static void mesh_view_rejects_bad_lods(void **state) {
    (void)state;
    mesh_parts p;
    sample_mesh(&p);
    p.desc.lod_count = 0;
    expect_mesh(&p, 0, KILN_ERR_CORRUPT, "lod_count 0 is outside 1..8");
    sample_mesh(&p);
    p.desc.lod_count = 2; /* the chunk still holds one level per submesh */
    expect_mesh(&p, 0, KILN_ERR_CORRUPT, "LODS chunk is 32 bytes");
    sample_mesh(&p);
    p.lods[1].index_offset = 0;
    expect_mesh(&p, 0, KILN_ERR_CORRUPT, "submesh 1 level 0 is not the submesh's range");
    sample_mesh(&p);
    p.lods[0].index_count = 9;
    expect_mesh(&p, 0, KILN_ERR_CORRUPT, "level 0 indices 0+9 are not whole triangles");
    sample_mesh(&p);
    p.lods[0].error = NAN;
    expect_mesh(&p, 0, KILN_ERR_CORRUPT, "error is negative or not finite");
    sample_mesh(&p);
    p.lods[0].flags = 2;
    expect_mesh(&p, 0, KILN_ERR_UNSUPPORTED, "unknown flags 0x2");
}

static void mesh_view_rejects_bad_meshlets(void **state) {
    (void)state;
    mesh_parts p;
    sample_mesh(&p);
    p.desc.meshlet_max_vertices = 256;
    expect_mesh(&p, 0, KILN_ERR_CORRUPT, "meshlet limits 256 vertices");
    /* Meshlet entries are data (R16): the deep check finds them, the O(1)
     * load does not read them. */
    sample_mesh(&p);
    p.meshlets[1].vertex_count = 65;
    expect_mesh(&p, KILN_OPEN_DEEP, KILN_ERR_CORRUPT, "above the limits 64/124");
    expect_mesh(&p, 0, KILN_OK, NULL);
    sample_mesh(&p);
    p.meshlets[1].triangle_offset = 2;
    expect_mesh(&p, KILN_OPEN_DEEP, KILN_ERR_CORRUPT, "meshlet 1 ranges run past MLVX or MLTR");
    expect_mesh(&p, 0, KILN_OK, NULL);
    sample_mesh(&p);
    p.meshlets[0].cone_cutoff = INFINITY;
    expect_mesh(&p, KILN_OPEN_DEEP, KILN_ERR_CORRUPT, "meshlet 0 bounds or cone are not finite");
    sample_mesh(&p);
    p.desc.meshlet_triangle_count = 3;
    expect_mesh(&p, 0, KILN_ERR_CORRUPT, "MLTR chunk is 6 bytes");
}

static void mesh_view_deep_check_finds_bad_meshlet_indices(void **state) {
    (void)state;
    mesh_parts p;
    sample_mesh(&p);
    p.meshlet_vertices[4] = 4;
    expect_mesh(&p, 0, KILN_OK, NULL);
    expect_mesh(&p, KILN_OPEN_DEEP, KILN_ERR_CORRUPT, "meshlet vertex 4 is 4");
    sample_mesh(&p);
    p.meshlet_triangles[4] = 3;
    expect_mesh(&p, KILN_OPEN_DEEP, KILN_ERR_CORRUPT, "meshlet 1 local index 3");
}

static void quantized_positions_and_signed_tangents_decode(void **state) {
    (void)state;
    mesh_parts p;
    sample_mesh(&p);
    /* Position as unorm16x4 over the box [-1, 3] in x: q = 49151 -> 2.0. */
    p.attributes[0].format = KILN_VFORMAT_UNORM16X4;
    p.attributes[1].offset = 8;
    p.desc.position_offset[0] = -1.0f;
    p.desc.position_scale[0] = 4.0f;
    const uint16_t q[4] = {49151, 0, 0, 0};
    memcpy(p.vertices + 16, q, sizeof q);
    opened_mesh m;
    assert_int_equal(open_mesh(&p, 0, &m), KILN_OK);
    float position[3];
    kiln_mesh_position(&m.view, 1, position);
    assert_true(fabsf(position[0] - 2.0f) < 1e-4f);
    close_mesh(&m);

    const float tangent[3] = {0.6f, 0.0f, -0.8f};
    for (int sign = -1; sign <= 1; sign += 2) {
        int16_t encoded[2];
        float decoded[4];
        encode_oct_signed_snorm16(tangent, (float)sign, encoded);
        kiln_oct_signed_decode(encoded, decoded);
        assert_true(decoded[3] == (float)sign);
        for (int k = 0; k < 3; k++)
            assert_true(fabsf(decoded[k] - tangent[k]) < 1e-3f);
    }
    /* y = -1 with w = -1 must not collapse to the signless 0. */
    int16_t encoded[2];
    float decoded[4];
    encode_oct_signed_snorm16((const float[3]){0.0f, -1.0f, 0.0f}, -1.0f, encoded);
    kiln_oct_signed_decode(encoded, decoded);
    assert_true(decoded[3] == -1.0f);
    assert_true(decoded[1] < -0.999f);
}

static void mesh_view_rejects_non_finite_bounds(void **state) {
    (void)state;
    mesh_parts p;
    sample_mesh(&p);
    p.desc.aabb_min[1] = NAN;
    expect_mesh(&p, 0, KILN_ERR_CORRUPT, "mesh bounds");
    sample_mesh(&p);
    p.desc.sphere[3] = -1.0f;
    expect_mesh(&p, 0, KILN_ERR_CORRUPT, "mesh bounds");
    sample_mesh(&p);
    p.submeshes[1].sphere[0] = INFINITY;
    expect_mesh(&p, 0, KILN_ERR_CORRUPT, "submesh 1 bounds");
    sample_mesh(&p);
    p.submeshes[0].aabb_min[2] = 1.0f; /* min above max */
    expect_mesh(&p, 0, KILN_ERR_CORRUPT, "submesh 0 bounds");
}

/* ---------------------------------------------------------------------------
 * Deep checks (R18)
 * ------------------------------------------------------------------------- */

static void mesh_view_deep_check_finds_index_out_of_range(void **state) {
    (void)state;
    mesh_parts p;
    sample_mesh(&p);
    uint16_t bad = 4; /* == vertex_count */
    memcpy(p.indices + 2 * 4, &bad, 2);
    /* The fast path does not read indices: O(chunks), not O(indices). */
    expect_mesh(&p, 0, KILN_OK, NULL);
    expect_mesh(&p, KILN_OPEN_DEEP, KILN_ERR_CORRUPT, "index 4 is 4, not below vertex_count 4");

    uint32_t indices[6] = {0, 1, 2, 0, 2, 0x80000000u};
    memcpy(p.indices, indices, sizeof indices);
    p.desc.index_size = 4;
    p.index_bytes = sizeof indices;
    expect_mesh(&p, KILN_OPEN_DEEP, KILN_ERR_CORRUPT, "index 5 is 2147483648");
}

static void mesh_view_rejects_bad_arguments(void **state) {
    (void)state;
    kiln_file file;
    memset(&file, 0, sizeof file);
    kiln_mesh_view view;
    kiln_error err;
    assert_int_equal(kiln_mesh_view_get(&file, 0, &view, &err), KILN_ERR_INVALID_ARGUMENT);
    assert_int_equal(kiln_mesh_view_get(NULL, 0, &view, NULL), KILN_ERR_INVALID_ARGUMENT);
    mesh_parts p;
    sample_mesh(&p);
    opened_mesh m;
    assert_int_equal(open_mesh(&p, 0x40, &m), KILN_ERR_INVALID_ARGUMENT);
    close_mesh(&m);
}

/* ---------------------------------------------------------------------------
 * Vertex helpers
 * ------------------------------------------------------------------------- */

static void vertex_format_sizes_and_names(void **state) {
    (void)state;
    static const uint32_t sizes[KILN_VFORMAT_COUNT_] = {0, 8, 12, 16, 4, 4, 4, 8, 8, 4, 8, 4};
    for (int f = 0; f < KILN_VFORMAT_COUNT_; f++)
        assert_int_equal(kiln_vertex_format_size((kiln_vertex_format)f), sizes[f]);
    assert_int_equal(kiln_vertex_format_size((kiln_vertex_format)99), 0);
    assert_string_equal(kiln_vertex_format_str(KILN_VFORMAT_OCT_SNORM16X2), "oct_snorm16x2");
    assert_string_equal(kiln_vertex_format_str(KILN_VFORMAT_U16X4), "u16x4");
    assert_string_equal(kiln_vertex_format_str(KILN_VFORMAT_OCT_SIGNED_SNORM16X2),
                        "oct_signed_snorm16x2");
    assert_string_equal(kiln_vertex_format_str((kiln_vertex_format)12), "invalid");
    assert_string_equal(kiln_vertex_semantic_str(KILN_SEMANTIC_POSITION), "position");
    assert_string_equal(kiln_vertex_semantic_str(KILN_SEMANTIC_WEIGHTS0), "weights0");
    assert_string_equal(kiln_vertex_semantic_str(KILN_SEMANTIC_INVALID), "invalid");
    assert_string_equal(kiln_vertex_semantic_str((kiln_vertex_semantic)-1), "invalid");
}

static void assert_vector_near(const float actual[3], float x, float y, float z, float tolerance) {
    if (fabsf(actual[0] - x) > tolerance || fabsf(actual[1] - y) > tolerance ||
        fabsf(actual[2] - z) > tolerance)
        fail_msg("(%g, %g, %g) is not (%g, %g, %g)", actual[0], actual[1], actual[2], x, y, z);
}

static void oct_decode_known_vectors(void **state) {
    (void)state;
    float v[3];
    kiln_oct_decode((const int16_t[2]){0, 0}, v);
    assert_vector_near(v, 0, 0, 1, 0);
    kiln_oct_decode((const int16_t[2]){32767, 0}, v);
    assert_vector_near(v, 1, 0, 0, 0);
    kiln_oct_decode((const int16_t[2]){0, -32767}, v);
    assert_vector_near(v, 0, -1, 0, 0);
    kiln_oct_decode((const int16_t[2]){32767, 32767}, v);
    assert_vector_near(v, 0, 0, -1, 0);
    kiln_oct_decode((const int16_t[2]){-32768, -32768}, v); /* clamps like -32767 */
    assert_vector_near(v, 0, 0, -1, 0);
}

static void oct_decode_inverts_encoder(void **state) {
    (void)state;
    int16_t encoded[2];
    encode_oct_snorm16((const float[3]){0, 0, -1}, encoded);
    assert_int_equal(encoded[0], 32767);
    assert_int_equal(encoded[1], 32767);

    /* Directions over the whole sphere, poles and fold edges included. The
     * chord |n - decoded| is the angle in radians at this scale (a dot product
     * near 1 would drown in float rounding). */
    float worst = 0.0f;
    for (int i = 0; i <= 64; i++) {
        for (int j = 0; j < 128; j++) {
            float theta = (float)M_PI * (float)i / 64.0f;
            float phi = 2.0f * (float)M_PI * (float)j / 128.0f;
            float n[3] = {sinf(theta) * cosf(phi), sinf(theta) * sinf(phi), cosf(theta)};
            float decoded[3];
            encode_oct_snorm16(n, encoded);
            kiln_oct_decode(encoded, decoded);
            float length =
                sqrtf(decoded[0] * decoded[0] + decoded[1] * decoded[1] + decoded[2] * decoded[2]);
            assert_true(fabsf(length - 1.0f) < 1e-5f);
            float dx = n[0] - decoded[0], dy = n[1] - decoded[1], dz = n[2] - decoded[2];
            float chord = sqrtf(dx * dx + dy * dy + dz * dz);
            if (chord > worst)
                worst = chord;
        }
    }
    /* 16-bit octahedral error stays well under 0.01 degrees. */
    printf("oct16 worst error: %.5f degrees\n", (double)worst * 180.0 / M_PI);
    assert_true(worst < 0.01f * (float)M_PI / 180.0f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(mesh_view_accepts_valid_mesh),
        cmocka_unit_test(mesh_view_accepts_32_bit_indices),
        cmocka_unit_test(mesh_view_accepts_empty_mesh_without_data_chunks),
        cmocka_unit_test(mesh_view_skips_unknown_chunks),
        cmocka_unit_test(mesh_view_rejects_other_kinds),
        cmocka_unit_test(mesh_view_rejects_unsupported_version),
        cmocka_unit_test(mesh_view_rejects_duplicate_chunk),
        cmocka_unit_test(mesh_view_rejects_missing_or_short_descriptor),
        cmocka_unit_test(mesh_view_rejects_flags_and_reserved),
        cmocka_unit_test(mesh_view_rejects_bad_index_size),
        cmocka_unit_test(mesh_view_index_count_follows_the_submeshes),
        cmocka_unit_test(mesh_view_rejects_bad_stride),
        cmocka_unit_test(mesh_view_rejects_attribute_chunk_size_mismatch),
        cmocka_unit_test(mesh_view_rejects_invalid_attributes),
        cmocka_unit_test(mesh_view_rejects_duplicate_semantic),
        cmocka_unit_test(mesh_view_rejects_missing_position),
        cmocka_unit_test(mesh_view_rejects_data_chunk_size_mismatch),
        cmocka_unit_test(mesh_view_rejects_submesh_range_past_end),
        cmocka_unit_test(mesh_view_rejects_partial_triangle_submesh),
        cmocka_unit_test(mesh_view_exposes_topologies),
        cmocka_unit_test(mesh_view_rejects_unknown_topology),
        cmocka_unit_test(mesh_view_counts_whole_primitives_per_topology),
        cmocka_unit_test(mesh_view_rejects_meshlets_of_lines_or_points),
        cmocka_unit_test(mesh_view_names_submeshes),
        cmocka_unit_test(mesh_view_rejects_material_slot_out_of_range),
        cmocka_unit_test(mesh_view_rejects_submesh_flags_and_meshlet_range),
        cmocka_unit_test(mesh_view_exposes_lods_and_meshlets),
        cmocka_unit_test(mesh_view_rejects_bad_lods),
        cmocka_unit_test(mesh_view_rejects_bad_meshlets),
        cmocka_unit_test(mesh_view_deep_check_finds_bad_meshlet_indices),
        cmocka_unit_test(quantized_positions_and_signed_tangents_decode),
        cmocka_unit_test(mesh_view_rejects_non_finite_bounds),
        cmocka_unit_test(mesh_view_deep_check_finds_index_out_of_range),
        cmocka_unit_test(mesh_view_rejects_bad_arguments),
        cmocka_unit_test(vertex_format_sizes_and_names),
        cmocka_unit_test(oct_decode_known_vectors),
        cmocka_unit_test(oct_decode_inverts_encoder),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
