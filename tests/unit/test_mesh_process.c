/* The mesh process stage: weld, ordering, levels of detail, meshlets. */
#include <math.h>
#include <meshoptimizer.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cook/drivers/drivers.h"
#include "test_support.h"

/* A bumpy grid of n x n quads split into two submeshes (left and right
 * halves), with every triangle's corners duplicated as a triangle soup would
 * have them, so welding has work to do. */

/* The .kmesh a mesh cooks to: vertices encoded on ctx's threads, then written. */
static bool kmesh_bytes(const cook_context *ctx, const ir_mesh *mesh, bytebuf *out) {
    encoded_vertices vertices;
    bool ok = encode_mesh_vertices(mesh, ctx->settings->mesh_quantize_positions,
                                   ctx->settings->threads, &vertices) &&
              write_kmesh(ctx, mesh, &vertices, 2, "obj", out);
    encoded_vertices_free(&vertices);
    return ok;
}

static bool append_to_bytebuf(void *buf, const void *data, size_t size) {
    bytebuf_append(buf, data, size);
    return !((bytebuf *)buf)->failed;
}

static void make_grid(ir_mesh *mesh, uint32_t n) {
    memset(mesh, 0, sizeof *mesh);
    uint32_t triangles = 2 * n * n;
    mesh->vertex_count = 3 * triangles;
    mesh->positions = malloc((size_t)mesh->vertex_count * 3 * sizeof(float));
    mesh->texcoords[0] = malloc((size_t)mesh->vertex_count * 2 * sizeof(float));
    mesh->index_count = 3 * triangles;
    mesh->indices = malloc((size_t)mesh->index_count * sizeof(uint32_t));
    uint32_t v = 0;
    for (uint32_t half = 0; half < 2; half++) {
        for (uint32_t y = 0; y < n; y++) {
            for (uint32_t x = half * n / 2; x < (half + 1) * n / 2; x++) {
                const uint32_t corners[6][2] = {{x, y}, {x + 1, y},     {x + 1, y + 1},
                                                {x, y}, {x + 1, y + 1}, {x, y + 1}};
                for (int c = 0; c < 6; c++) {
                    float px = (float)corners[c][0], py = (float)corners[c][1];
                    float *p = mesh->positions + 3 * (size_t)v;
                    p[0] = px;
                    p[1] = py;
                    p[2] = 0.3f * sinf(px * 0.7f) * cosf(py * 0.5f);
                    mesh->texcoords[0][2 * (size_t)v] = px / (float)n;
                    mesh->texcoords[0][2 * (size_t)v + 1] = py / (float)n;
                    mesh->indices[v] = v;
                    v++;
                }
            }
        }
    }
    mesh->submesh_count = 2;
    mesh->submeshes = calloc(2, sizeof *mesh->submeshes);
    mesh->submeshes[0] = (ir_submesh){.index_offset = 0, .index_count = mesh->index_count / 2};
    mesh->submeshes[1] = (ir_submesh){
        .index_offset = mesh->index_count / 2, .index_count = mesh->index_count / 2, .material = 1};
}

/* Runs the whole stage like the pipeline does. */
static void process_grid(ir_mesh *mesh, uint32_t n, const cook_settings *settings) {
    make_grid(mesh, n);
    cook_diag diag = {0};
    cook_context ctx = {.source_path = "grid.obj", .settings = settings, .diag = &diag};
    ir_asset asset = {0};
    assert_true(process_mesh(&ctx, mesh, &asset));
    assert_int_equal(diag.errors, 0);
    diag_free(&diag);
}

static void weld_merges_corners_shared_in_every_stream(void **state) {
    (void)state;
    ir_mesh mesh;
    make_grid(&mesh, 8);
    assert_true(process_weld(&mesh));
    assert_int_equal(mesh.vertex_count, 9 * 9); /* even across the two submeshes */
    assert_int_equal(mesh.index_count, 3 * 2 * 64);
    for (uint32_t i = 0; i < mesh.index_count; i++)
        assert_true(mesh.indices[i] < mesh.vertex_count);
    ir_mesh_free(&mesh);
}

/* Triangles with two corners on one vertex and repeats of a triangle in its
 * submesh (in any rotation, same winding) go; a mirrored one (the other
 * facing) and the same corners in another submesh stay; ranges stay packed. */
static void degenerate_and_repeated_triangles_are_dropped(void **state) {
    (void)state;
    ir_mesh mesh;
    memset(&mesh, 0, sizeof mesh);
    const uint32_t indices[] = {
        0, 1, 2, /* kept */
        1, 2, 0, /* the same, rotated: dropped */
        0, 2, 1, /* the other winding: kept */
        3, 3, 4, /* degenerate: dropped */
        0, 1, 2, /* repeat: dropped */
        2, 3, 4, /* kept */
        /* submesh 1 */
        0, 1, 2, /* kept: another submesh */
        5, 5, 5, /* dropped */
    };
    mesh.vertex_count = 6;
    mesh.positions = calloc(6 * 3, sizeof(float));
    mesh.index_count = sizeof indices / sizeof indices[0];
    mesh.indices = malloc(sizeof indices);
    memcpy(mesh.indices, indices, sizeof indices);
    mesh.submesh_count = 2;
    mesh.submeshes = calloc(2, sizeof *mesh.submeshes);
    mesh.submeshes[0] = (ir_submesh){0, 18, 0, KILN_TOPOLOGY_TRIANGLES, NULL, 0, 0};
    mesh.submeshes[1] = (ir_submesh){18, 6, 1, KILN_TOPOLOGY_TRIANGLES, NULL, 0, 0};
    uint64_t degenerate, repeated;
    assert_true(process_drop_degenerate(&mesh, &degenerate, &repeated));
    assert_int_equal(degenerate, 2);
    assert_int_equal(repeated, 2);
    const uint32_t expected[] = {0, 1, 2, 0, 2, 1, 2, 3, 4, 0, 1, 2};
    assert_int_equal(mesh.index_count, 12);
    assert_memory_equal(mesh.indices, expected, sizeof expected);
    assert_int_equal(mesh.submeshes[0].index_offset, 0);
    assert_int_equal(mesh.submeshes[0].index_count, 9);
    assert_int_equal(mesh.submeshes[1].index_offset, 9);
    assert_int_equal(mesh.submeshes[1].index_count, 3);
    ir_mesh_free(&mesh);
}

/* The reference for the pass below: a triangle is dropped when two corners
 * coincide or when an earlier kept one has the same corners in the same
 * winding (any rotation), compared pairwise. */
static bool same_triangle(const uint32_t *a, const uint32_t *b) {
    for (int r = 0; r < 3; r++)
        if (a[0] == b[r] && a[1] == b[(r + 1) % 3] && a[2] == b[(r + 2) % 3])
            return true;
    return false;
}

/* A fan of 3,000 triangles around vertex 0, each twice and some rotated or
 * collapsed: one vertex is every triangle's smallest corner, which sends the
 * pass from its per-vertex chains to its hash table half-way. Kept triangles
 * and counts must match the pairwise reference exactly. */
static void degenerate_pass_on_a_fan_matches_a_pairwise_reference(void **state) {
    (void)state;
    enum { FAN = 3000 };
    ir_mesh mesh;
    memset(&mesh, 0, sizeof mesh);
    uint32_t count = 0, *source = malloc(2 * FAN * 3 * sizeof *source);
    assert_non_null(source);
    for (uint32_t i = 1; i <= FAN; i++) {
        uint32_t t[3] = {0, i, i + 1};
        if (i % 7 == 0)
            t[2] = i; /* degenerate */
        memcpy(source + count, t, sizeof t);
        count += 3;
        /* and again later, rotated every other time */
        uint32_t r[3] = {t[1], t[2], t[0]};
        memcpy(source + count, i % 2 ? r : t, sizeof t);
        count += 3;
    }
    uint32_t *expected = malloc(count * sizeof *expected), kept = 0;
    uint64_t want_degenerate = 0, want_repeated = 0;
    for (uint32_t at = 0; at < count; at += 3) {
        const uint32_t *t = source + at;
        if (t[0] == t[1] || t[1] == t[2] || t[0] == t[2]) {
            want_degenerate++;
            continue;
        }
        bool seen = false;
        for (uint32_t k = 0; k < kept && !seen; k += 3)
            seen = same_triangle(expected + k, t);
        if (seen) {
            want_repeated++;
            continue;
        }
        memcpy(expected + kept, t, 3 * sizeof *t);
        kept += 3;
    }
    mesh.vertex_count = FAN + 2;
    mesh.positions = calloc((size_t)mesh.vertex_count * 3, sizeof(float));
    mesh.indices = source;
    mesh.index_count = count;
    mesh.submesh_count = 1;
    mesh.submeshes = calloc(1, sizeof *mesh.submeshes);
    mesh.submeshes[0] = (ir_submesh){0, count, 0, KILN_TOPOLOGY_TRIANGLES, NULL, 0, 0};
    uint64_t degenerate, repeated;
    assert_true(process_drop_degenerate(&mesh, &degenerate, &repeated));
    assert_int_equal(degenerate, want_degenerate);
    assert_int_equal(repeated, want_repeated);
    assert_int_equal(mesh.index_count, kept);
    assert_int_equal(mesh.submeshes[0].index_count, kept);
    assert_memory_equal(mesh.indices, expected, kept * sizeof *expected);
    free(expected);
    ir_mesh_free(&mesh);
}

/* weld_vertex_remap against meshoptimizer's own remap: `vertices` vertices
 * drawn from `distinct` ones in three streams (sizes 12, 8 and 4), one
 * stream differing in a single byte for some, with unused vertices (the last
 * 100) and repeated indices: the same numbers and the same count, on
 * `threads` threads. */
static void check_weld_against_meshoptimizer(uint32_t vertices, uint32_t distinct,
                                             uint32_t index_count, unsigned threads) {
    float *positions = malloc((size_t)vertices * 3 * sizeof *positions);
    uint16_t *joints = malloc((size_t)vertices * 4 * sizeof *joints);
    uint8_t *flags = malloc((size_t)vertices * 4);
    uint32_t *indices = malloc(index_count * sizeof *indices);
    uint32_t *ours = malloc(vertices * sizeof *ours), *theirs = malloc(vertices * sizeof *theirs);
    assert_true(positions && joints && flags && indices && ours && theirs);
    srand(11);
    for (uint32_t v = 0; v < vertices; v++) {
        uint32_t d = (uint32_t)rand() % distinct;
        for (int k = 0; k < 3; k++)
            positions[3 * v + (uint32_t)k] = (float)d + 0.25f * (float)k;
        for (int k = 0; k < 4; k++)
            joints[4 * v + (uint32_t)k] = (uint16_t)(d % 5 + (uint32_t)k);
        memset(flags + 4 * v, 0, 4);
        flags[4 * v + 3] = (uint8_t)(d % 3 == 0 && rand() % 2); /* one byte apart */
    }
    for (uint32_t i = 0; i < index_count; i++)
        indices[i] = (uint32_t)rand() % (vertices - 100); /* the last 100 unused */
    weld_stream streams[] = {
        {(const uint8_t *)positions, 12}, {(const uint8_t *)joints, 8}, {flags, 4}};
    struct meshopt_Stream meshopt_streams[] = {{positions, 12, 12}, {joints, 8, 8}, {flags, 4, 4}};
    size_t expected = meshopt_generateVertexRemapMulti(theirs, indices, index_count, vertices,
                                                       meshopt_streams, 3);
    size_t unique = weld_vertex_remap_on(threads, ours, indices, index_count, vertices, streams, 3);
    assert_true(expected > distinct / 2 && expected < 2 * distinct);
    assert_int_equal(unique, expected);
    assert_memory_equal(ours, theirs, vertices * sizeof *ours);
    /* A stream whose size is not whole 4-byte words is refused. */
    weld_stream odd = {flags, 3};
    assert_int_equal(weld_vertex_remap_on(threads, ours, indices, index_count, vertices, &odd, 1),
                     SIZE_MAX);
    free(positions);
    free(joints);
    free(flags);
    free(indices);
    free(ours);
    free(theirs);
}

static void weld_remap_matches_meshoptimizer(void **state) {
    (void)state;
    check_weld_against_meshoptimizer(20000, 600, 3 * 9000, 1);
}

/* Several blocks of vertices (of weld.c's 65,536) and classes spread over
 * every part, welded on four threads. */
static void weld_remap_on_threads_matches_meshoptimizer(void **state) {
    (void)state;
    check_weld_against_meshoptimizer(200000, 50000, 3 * 90000, 4);
}

static void optimized_order_improves_the_vertex_cache(void **state) {
    (void)state;
    ir_mesh mesh;
    make_grid(&mesh, 64);
    assert_true(process_weld(&mesh));
    /* Scramble triangle order first, so there is something to optimise. */
    uint32_t triangles = mesh.index_count / 3;
    srand(7);
    for (uint32_t t = triangles / 2 - 1; t > 0; t--) {
        uint32_t u = (uint32_t)rand() % (t + 1);
        for (int k = 0; k < 3; k++) {
            uint32_t swap = mesh.indices[3 * t + (uint32_t)k];
            mesh.indices[3 * t + (uint32_t)k] = mesh.indices[3 * u + (uint32_t)k];
            mesh.indices[3 * u + (uint32_t)k] = swap;
        }
    }
    struct meshopt_VertexCacheStatistics before =
        meshopt_analyzeVertexCache(mesh.indices, mesh.index_count, mesh.vertex_count, 16, 0, 0);
    cook_settings settings;
    cook_settings_default(&settings);
    assert_true(process_optimize_order(&mesh, &settings));
    struct meshopt_VertexCacheStatistics after =
        meshopt_analyzeVertexCache(mesh.indices, mesh.index_count, mesh.vertex_count, 16, 0, 0);
    print_message("ACMR %.3f -> %.3f\n", (double)before.acmr, (double)after.acmr);
    assert_true(after.acmr < before.acmr * 0.75f);
    ir_mesh_free(&mesh);
}

static void fetch_order_drops_unused_vertices(void **state) {
    (void)state;
    ir_mesh mesh;
    make_grid(&mesh, 4);
    assert_true(process_weld(&mesh));
    uint32_t before = mesh.vertex_count;
    mesh.index_count = mesh.submeshes[0].index_count; /* the right half goes unused */
    mesh.submesh_count = 1;
    assert_true(process_optimize_fetch(&mesh));
    assert_true(mesh.vertex_count < before);
    /* First use order: each new index is at most one above the largest seen. */
    uint32_t next = 0;
    for (uint32_t i = 0; i < mesh.index_count; i++) {
        assert_true(mesh.indices[i] <= next);
        if (mesh.indices[i] == next)
            next++;
    }
    assert_int_equal(next, mesh.vertex_count);
    ir_mesh_free(&mesh);
}

/* Every reduced level: smaller than the one before, near its target ratio,
 * indices in range, errors reported and adding up. */
static void check_lods(const ir_mesh *mesh, const cook_settings *settings) {
    assert_int_equal(mesh->lod_count, 3);
    for (uint32_t s = 0; s < mesh->submesh_count; s++) {
        const ir_lod *levels = &mesh->lods[s * mesh->lod_count];
        assert_int_equal(levels[0].index_offset, mesh->submeshes[s].index_offset);
        assert_int_equal(levels[0].index_count, mesh->submeshes[s].index_count);
        for (uint32_t l = 1; l < mesh->lod_count; l++) {
            assert_false(levels[l].reused);
            assert_true(levels[l].index_count < levels[l - 1].index_count);
            assert_true(levels[l].index_count % 3 == 0);
            assert_true(levels[l].error >= 0.0f && levels[l].error < 0.05f);
            /* Cascaded levels add up their errors. */
            assert_true(levels[l].error >= levels[l - 1].error);
            /* About the asked-for ratio (0.5, 0.25), never far above it. */
            double ratio = (double)levels[l].index_count / levels[0].index_count;
            assert_true(ratio <= settings->mesh_lod_ratios[l - 1] * 1.1);
            assert_true(levels[l].index_offset + levels[l].index_count <= mesh->index_count);
        }
    }
    for (uint32_t i = 0; i < mesh->index_count; i++)
        assert_true(mesh->indices[i] < mesh->vertex_count);
}

static void lods_reduce_each_submesh_and_stay_in_range(void **state) {
    (void)state;
    cook_settings settings;
    cook_settings_default(&settings);
    settings.mesh_meshlets = false;
    ir_mesh mesh;
    process_grid(&mesh, 64, &settings);
    check_lods(&mesh, &settings);
    ir_mesh_free(&mesh);
}

static void lod_that_cannot_be_reduced_is_marked_reused(void **state) {
    (void)state;
    cook_settings settings;
    cook_settings_default(&settings);
    settings.mesh_meshlets = false;
    ir_mesh mesh;
    process_grid(&mesh, 1, &settings); /* two triangles per submesh: nothing to remove */
    for (uint32_t s = 0; s < mesh.submesh_count; s++) {
        const ir_lod *levels = &mesh.lods[s * mesh.lod_count];
        for (uint32_t l = 1; l < mesh.lod_count; l++) {
            assert_true(levels[l].reused);
            assert_int_equal(levels[l].index_offset, levels[l - 1].index_offset);
            assert_int_equal(levels[l].index_count, levels[l - 1].index_count);
        }
    }
    ir_mesh_free(&mesh);
}

/* A triangle as its sorted vertex triple packed in 63 bits. */
static uint64_t triangle_key(uint32_t a, uint32_t b, uint32_t c) {
    uint32_t swap;
    if (a > b) {
        swap = a;
        a = b;
        b = swap;
    }
    if (b > c) {
        swap = b;
        b = c;
        c = swap;
    }
    if (a > b) {
        swap = a;
        a = b;
        b = swap;
    }
    return ((uint64_t)a << 42) | ((uint64_t)b << 21) | c;
}

static int compare_keys(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Every triangle of each submesh's level 0 in exactly one of its meshlets,
 * local indices in range, limits kept, spheres containing their geometry. */
static void check_meshlets(const ir_mesh *mesh, uint32_t max_vertices, uint32_t max_triangles) {
    assert_int_equal(mesh->meshlet_max_vertices, max_vertices);
    assert_int_equal(mesh->meshlet_max_triangles, max_triangles);
    for (uint32_t s = 0; s < mesh->submesh_count; s++) {
        const ir_submesh *sub = &mesh->submeshes[s];
        uint32_t triangle_count = sub->index_count / 3;
        uint64_t *expected = malloc(triangle_count * sizeof *expected);
        uint64_t *found = malloc(triangle_count * sizeof *found);
        for (uint32_t t = 0; t < triangle_count; t++) {
            const uint32_t *tri = mesh->indices + sub->index_offset + 3 * t;
            expected[t] = triangle_key(tri[0], tri[1], tri[2]);
        }
        uint32_t found_count = 0;
        for (uint32_t m = sub->meshlet_offset; m < sub->meshlet_offset + sub->meshlet_count; m++) {
            const ir_meshlet *meshlet = &mesh->meshlets[m];
            assert_true(meshlet->vertex_count <= max_vertices);
            assert_true(meshlet->triangle_count <= max_triangles);
            assert_true(meshlet->vertex_offset + meshlet->vertex_count <=
                        mesh->meshlet_vertex_count);
            assert_true(meshlet->triangle_offset + meshlet->triangle_count <=
                        mesh->meshlet_triangle_count);
            for (uint32_t t = 0; t < meshlet->triangle_count; t++) {
                uint32_t v[3];
                for (int k = 0; k < 3; k++) {
                    uint8_t local =
                        mesh->meshlet_triangles[3 * (meshlet->triangle_offset + t) + (uint32_t)k];
                    assert_true(local < meshlet->vertex_count);
                    v[k] = mesh->meshlet_vertices[meshlet->vertex_offset + local];
                    assert_true(v[k] < mesh->vertex_count);
                    /* The bounding sphere contains the meshlet's geometry. */
                    const float *p = mesh->positions + 3 * (size_t)v[k];
                    float dx = p[0] - meshlet->center[0], dy = p[1] - meshlet->center[1],
                          dz = p[2] - meshlet->center[2];
                    assert_true(sqrtf(dx * dx + dy * dy + dz * dz) <=
                                meshlet->radius * 1.0001f + 1e-5f);
                }
                assert_true(found_count < triangle_count);
                found[found_count++] = triangle_key(v[0], v[1], v[2]);
            }
        }
        /* The same multiset: sorted, equal element by element. */
        assert_int_equal(found_count, triangle_count);
        qsort(expected, triangle_count, sizeof *expected, compare_keys);
        qsort(found, found_count, sizeof *found, compare_keys);
        assert_memory_equal(expected, found, triangle_count * sizeof *found);
        free(expected);
        free(found);
    }
}

static void meshlets_cover_every_triangle_once_within_limits(void **state) {
    (void)state;
    cook_settings settings;
    cook_settings_default(&settings);
    settings.mesh_meshlet_vertices = 32;
    settings.mesh_meshlet_triangles = 40;
    ir_mesh mesh;
    process_grid(&mesh, 32, &settings);
    check_meshlets(&mesh, 32, 40);
    ir_mesh_free(&mesh);
}

static void meshlet_limits_out_of_range_fall_back_to_defaults(void **state) {
    (void)state;
    cook_settings settings;
    cook_settings_default(&settings);
    settings.mesh_meshlet_vertices = 1000;
    settings.mesh_meshlet_triangles = 2;
    ir_mesh mesh;
    process_grid(&mesh, 4, &settings);
    assert_int_equal(mesh.meshlet_max_vertices, 64);
    assert_int_equal(mesh.meshlet_max_triangles, 124);
    ir_mesh_free(&mesh);
}

/* One triangle facing +z, with a normal, in material `material`. */
static void make_triangle_mesh(ir_mesh *mesh, uint32_t material) {
    static const float positions[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    static const float normals[9] = {0, 0, 1, 0, 0, 1, 0, 0, 1};
    memset(mesh, 0, sizeof *mesh);
    mesh->vertex_count = 3;
    mesh->positions = malloc(sizeof positions);
    memcpy(mesh->positions, positions, sizeof positions);
    mesh->normals = malloc(sizeof normals);
    memcpy(mesh->normals, normals, sizeof normals);
    mesh->index_count = 3;
    mesh->indices = malloc(3 * sizeof(uint32_t));
    for (uint32_t i = 0; i < 3; i++)
        mesh->indices[i] = i;
    mesh->submesh_count = 1;
    mesh->submeshes = calloc(1, sizeof *mesh->submeshes);
    mesh->submeshes[0] = (ir_submesh){.index_count = 3, .material = material};
}

static void chunks_cut_large_submeshes_into_even_ranges(void **state) {
    (void)state;
    cook_settings settings;
    cook_settings_default(&settings);
    settings.mesh_chunk_triangles = 100;
    ir_mesh mesh;
    make_grid(&mesh, 32); /* two submeshes of 1024 triangles */
    uint32_t count = 0;
    mesh_chunk *chunks = mesh_chunks(&mesh, mesh_chunk_size(&settings), &count);
    assert_non_null(chunks);
    assert_int_equal(count, 20);
    uint32_t next = 0;
    for (uint32_t c = 0; c < count; c++) {
        assert_int_equal(chunks[c].submesh, c / 10);
        assert_true(chunks[c].split);
        assert_int_equal(chunks[c].index_offset, next);
        /* 1024 / 10: 102 or 103 triangles each, contiguous. */
        assert_true(chunks[c].index_count == 3 * 102 || chunks[c].index_count == 3 * 103);
        next += chunks[c].index_count;
        if (c % 10 == 9)
            assert_int_equal(next, mesh.submeshes[c / 10].index_offset +
                                       mesh.submeshes[c / 10].index_count);
    }
    free(chunks);
    /* Fewer than two chunks' worth: one unsplit chunk per submesh. */
    settings.mesh_chunk_triangles = 513;
    chunks = mesh_chunks(&mesh, mesh_chunk_size(&settings), &count);
    assert_int_equal(count, 2);
    assert_false(chunks[0].split);
    assert_int_equal(chunks[1].index_offset, mesh.submeshes[1].index_offset);
    assert_int_equal(chunks[1].index_count, mesh.submeshes[1].index_count);
    free(chunks);
    ir_mesh_free(&mesh);
}

/* index_span_narrow: the least and greatest index, brute force here, and
 * whether the span is at most twice the count; none at all is narrow. */
static void index_span_is_the_least_and_greatest_index(void **state) {
    (void)state;
    uint32_t random = 99u, indices[301];
    for (size_t count = 0; count <= 300; count += 30) {
        for (size_t i = 0; i < count; i++) {
            random ^= random << 13;
            random ^= random >> 17;
            random ^= random << 5;
            /* Narrow spans near the top of the range, wide ones anywhere. */
            indices[i] = count % 60 ? UINT32_MAX - random % (uint32_t)count : random;
        }
        uint32_t least = UINT32_MAX, most = 0, lo, hi;
        for (size_t i = 0; i < count; i++) {
            if (indices[i] < least)
                least = indices[i];
            if (indices[i] > most)
                most = indices[i];
        }
        bool narrow = index_span_narrow(indices, count, &lo, &hi);
        assert_int_equal(lo, least);
        assert_int_equal(hi, most);
        assert_int_equal(narrow, count == 0 || (uint64_t)most - least + 1 <= 2 * (uint64_t)count);
    }
}

static void spatial_sort_keeps_triangles_and_groups_quadrants(void **state) {
    (void)state;
    ir_mesh mesh;
    make_grid(&mesh, 32); /* 32 x 32 quads: 2048 triangles over [0, 32]^2 */
    uint32_t triangles = mesh.index_count / 3;
    uint64_t *before = malloc(triangles * sizeof *before);
    uint64_t *after = malloc(triangles * sizeof *after);
    for (uint32_t t = 0; t < triangles; t++)
        before[t] =
            triangle_key(mesh.indices[3 * t], mesh.indices[3 * t + 1], mesh.indices[3 * t + 2]);
    assert_true(mesh_sort_spatially(mesh.positions, mesh.indices, mesh.index_count));
    for (uint32_t t = 0; t < triangles; t++)
        after[t] =
            triangle_key(mesh.indices[3 * t], mesh.indices[3 * t + 1], mesh.indices[3 * t + 2]);
    qsort(before, triangles, sizeof *before, compare_keys);
    qsort(after, triangles, sizeof *after, compare_keys);
    assert_memory_equal(before, after, triangles * sizeof *after);
    /* Along the Morton curve, each quarter of the triangles is one quadrant. */
    for (uint32_t quarter = 0; quarter < 4; quarter++) {
        float x0 = quarter & 1 ? 16.0f : 0.0f, y0 = quarter & 2 ? 16.0f : 0.0f;
        for (uint32_t i = quarter * mesh.index_count / 4; i < (quarter + 1) * mesh.index_count / 4;
             i++) {
            const float *p = mesh.positions + 3 * (size_t)mesh.indices[i];
            assert_true(p[0] >= x0 && p[0] <= x0 + 16.0f);
            assert_true(p[1] >= y0 && p[1] <= y0 + 16.0f);
        }
    }
    free(before);
    free(after);
    ir_mesh_free(&mesh);
}

/* No cracks: within each submesh's level, an edge only one triangle uses lies
 * on the submesh's outline (grid x in {x0, x1} or y in {0, n}). */
static void check_watertight(const ir_mesh *mesh, uint32_t n) {
    for (uint32_t s = 0; s < mesh->submesh_count; s++) {
        float x0 = (float)(s * n / 2), x1 = (float)((s + 1) * n / 2);
        for (uint32_t l = 0; l < mesh->lod_count; l++) {
            const ir_lod *lod = &mesh->lods[s * mesh->lod_count + l];
            const uint32_t *tri = mesh->indices + lod->index_offset;
            uint64_t *edges = malloc(lod->index_count * sizeof *edges);
            for (uint32_t i = 0; i < lod->index_count; i++) {
                uint32_t a = tri[i], b = tri[i % 3 == 2 ? i - 2 : i + 1];
                edges[i] = a < b ? (uint64_t)a << 32 | b : (uint64_t)b << 32 | a;
            }
            qsort(edges, lod->index_count, sizeof *edges, compare_keys);
            for (uint32_t i = 0; i < lod->index_count;) {
                uint32_t run = 1;
                while (i + run < lod->index_count && edges[i + run] == edges[i])
                    run++;
                assert_true(run <= 2);
                for (int end = 0; run == 1 && end < 2; end++) {
                    const float *p =
                        mesh->positions + 3 * (size_t)(uint32_t)(edges[i] >> (end ? 0 : 32));
                    assert_true(p[0] == x0 || p[0] == x1 || p[1] == 0.0f || p[1] == (float)n);
                }
                i += run;
            }
            free(edges);
        }
    }
}

/* Two processed meshes are the same, stream by stream and table by table. */
static void assert_same_mesh(const ir_mesh *a, const ir_mesh *b) {
    assert_int_equal(a->vertex_count, b->vertex_count);
    assert_memory_equal(a->positions, b->positions, 3 * sizeof(float) * a->vertex_count);
    assert_int_equal(a->index_count, b->index_count);
    assert_memory_equal(a->indices, b->indices, sizeof(uint32_t) * a->index_count);
    assert_memory_equal(a->lods, b->lods, sizeof(ir_lod) * a->submesh_count * a->lod_count);
    assert_int_equal(a->meshlet_count, b->meshlet_count);
    assert_memory_equal(a->meshlets, b->meshlets, sizeof(ir_meshlet) * a->meshlet_count);
    assert_int_equal(a->meshlet_vertex_count, b->meshlet_vertex_count);
    assert_memory_equal(a->meshlet_vertices, b->meshlet_vertices,
                        sizeof(uint32_t) * a->meshlet_vertex_count);
    assert_memory_equal(a->meshlet_triangles, b->meshlet_triangles,
                        3 * (size_t)a->meshlet_triangle_count);
    for (uint32_t s = 0; s < a->submesh_count; s++) {
        assert_int_equal(a->submeshes[s].meshlet_offset, b->submeshes[s].meshlet_offset);
        assert_int_equal(a->submeshes[s].meshlet_count, b->submeshes[s].meshlet_count);
    }
}

/* mesh.meshlet_builder: kiln (process/meshlet_build.c) through the cooker:
 * whole and in chunks, the same meshlets on 1 and 3 threads. */
static void kiln_meshlet_builder_in_the_cooker(void **state) {
    (void)state;
    cook_settings settings;
    cook_settings_default(&settings);
    settings.mesh_meshlet_builder = COOK_MESHLET_BUILDER_KILN;
    settings.mesh_meshlet_vertices = 32;
    settings.mesh_meshlet_triangles = 40;
    ir_mesh whole;
    process_grid(&whole, 32, &settings);
    check_meshlets(&whole, 32, 40);
    ir_mesh_free(&whole);

    settings.mesh_meshlet_vertices = 64;
    settings.mesh_meshlet_triangles = 124;
    settings.mesh_chunk_triangles = 1024; /* 4 chunks per submesh */
    ir_mesh one, three;
    settings.threads = 1;
    process_grid(&one, 64, &settings);
    settings.threads = 3;
    process_grid(&three, 64, &settings);
    check_meshlets(&three, 64, 124);
    assert_same_mesh(&one, &three);
    /* Not meshoptimizer's meshlets: the setting reached the builder. */
    settings.mesh_meshlet_builder = COOK_MESHLET_BUILDER_MESHOPT;
    ir_mesh meshopt;
    process_grid(&meshopt, 64, &settings);
    check_meshlets(&meshopt, 64, 124);
    assert_true(meshopt.meshlet_count != three.meshlet_count ||
                memcmp(meshopt.meshlet_vertices, three.meshlet_vertices,
                       sizeof(uint32_t) * three.meshlet_vertex_count) != 0);
    ir_mesh_free(&one);
    ir_mesh_free(&three);
    ir_mesh_free(&meshopt);
}

/* mesh.simplifier kiln: the same LOD guarantees, chunk seams watertight and
 * the same bytes on any thread count. */
static void kiln_simplifier_lods_are_watertight_and_deterministic(void **state) {
    (void)state;
    const uint32_t n = 64;
    cook_settings settings;
    cook_settings_default(&settings);
    settings.mesh_simplifier = COOK_SIMPLIFIER_KILN;
    settings.mesh_meshlets = false;
    ir_mesh whole;
    process_grid(&whole, n, &settings);
    check_lods(&whole, &settings);
    ir_mesh_free(&whole);
    settings.mesh_chunk_triangles = 1024; /* 4 chunks per submesh, borders locked */
    ir_mesh one, three;
    settings.threads = 1;
    process_grid(&one, n, &settings);
    settings.threads = 3;
    process_grid(&three, n, &settings);
    check_lods(&three, &settings);
    check_watertight(&three, n);
    assert_same_mesh(&one, &three);
    ir_mesh_free(&one);
    ir_mesh_free(&three);
}

/* Whether a and b hold the same indices (level 0 and every LOD) and LOD table. */
static bool same_levels(const ir_mesh *a, const ir_mesh *b) {
    return a->index_count == b->index_count && a->submesh_count == b->submesh_count &&
           a->lod_count == b->lod_count &&
           memcmp(a->indices, b->indices, sizeof(uint32_t) * a->index_count) == 0 &&
           memcmp(a->lods, b->lods, sizeof(ir_lod) * a->submesh_count * a->lod_count) == 0;
}

/* mesh.simplifier auto: meshoptimizer's levels on submeshes under
 * COOK_SIMPLIFIER_AUTO_TRIANGLES triangles, kiln's from there on (the two
 * differ on both grids, so either way round fails). */
static void auto_simplifier_picks_by_submesh_size(void **state) {
    (void)state;
    const uint32_t sizes[2] = {30, 32}; /* submeshes of 900 and 1,024 triangles */
    assert_int_equal(32 * 32, COOK_SIMPLIFIER_AUTO_TRIANGLES);
    for (int i = 0; i < 2; i++) {
        cook_settings settings;
        cook_settings_default(&settings);
        assert_int_equal(settings.mesh_simplifier, COOK_SIMPLIFIER_AUTO);
        settings.mesh_meshlets = false;
        ir_mesh chosen, meshopt, kiln;
        process_grid(&chosen, sizes[i], &settings);
        settings.mesh_simplifier = COOK_SIMPLIFIER_MESHOPT;
        process_grid(&meshopt, sizes[i], &settings);
        settings.mesh_simplifier = COOK_SIMPLIFIER_KILN;
        process_grid(&kiln, sizes[i], &settings);
        assert_false(same_levels(&meshopt, &kiln));
        assert_true(same_levels(&chosen, i == 0 ? &meshopt : &kiln));
        ir_mesh_free(&chosen);
        ir_mesh_free(&meshopt);
        ir_mesh_free(&kiln);
    }
}

/* Submesh `sub`'s level-0 triangles of a and b are the same set, compared
 * by their corners' positions (a and b may number vertices differently). */
static void assert_same_triangles(const ir_mesh *a, const ir_mesh *b, const ir_submesh *sub) {
    size_t count = sub->index_count / 3;
    uint64_t *keys[2];
    const ir_mesh *meshes[2] = {a, b};
    for (int m = 0; m < 2; m++) {
        keys[m] = malloc(count * sizeof *keys[m]);
        for (size_t t = 0; t < count; t++) {
            uint32_t corner[3];
            for (int k = 0; k < 3; k++) {
                /* grid positions are whole numbers below 2^10 in x and y */
                const float *p =
                    meshes[m]->positions +
                    3 * (size_t)meshes[m]->indices[sub->index_offset + 3 * t + (size_t)k];
                corner[k] = (uint32_t)p[0] << 10 | (uint32_t)p[1];
            }
            keys[m][t] = triangle_key(corner[0], corner[1], corner[2]);
        }
        qsort(keys[m], count, sizeof *keys[m], compare_keys);
    }
    assert_memory_equal(keys[0], keys[1], count * sizeof *keys[0]);
    free(keys[0]);
    free(keys[1]);
}

static void chunked_lods_and_meshlets_are_the_same_on_1_and_3_threads(void **state) {
    (void)state;
    const uint32_t n = 64; /* submeshes of 32 x 64 quads, 4096 triangles */
    cook_settings settings;
    cook_settings_default(&settings);
    settings.mesh_chunk_triangles = 1024; /* 4 chunks per submesh */
    ir_mesh one, three, whole;
    settings.threads = 1;
    process_grid(&one, n, &settings);
    settings.threads = 3;
    process_grid(&three, n, &settings);
    check_lods(&three, &settings);
    check_meshlets(&three, 64, 124);
    check_watertight(&three, n);

    assert_same_mesh(&one, &three);
    /* And the cooked files, byte for byte (vertex packing on 1 and 3 threads). */
    cook_diag diag = {0};
    cook_context ctx = {
        .source_path = "grid.obj", .ref = "grid.obj", .settings = &settings, .diag = &diag};
    bytebuf file_one = {0}, file_three = {0};
    settings.threads = 1;
    assert_true(kmesh_bytes(&ctx, &one, &file_one));
    settings.threads = 3;
    assert_true(kmesh_bytes(&ctx, &three, &file_three));
    assert_int_equal(file_one.size, file_three.size);
    assert_memory_equal(file_one.data, file_three.data, file_one.size);
    bytebuf_free(&file_one);
    bytebuf_free(&file_three);
    diag_free(&diag);

    /* The one pass gives what the steps give one after the other, each
     * reading level 0 as welded: LODs, meshlets, then order. */
    ir_mesh steps;
    make_grid(&steps, n);
    settings.threads = 1;
    assert_true(process_generate_normals(&steps));
    assert_true(process_weld(&steps));
    assert_true(process_build_lods(&steps, &settings));
    assert_true(process_build_meshlets(&steps, &settings));
    assert_true(process_optimize_order(&steps, &settings));
    assert_true(process_optimize_fetch(&steps));
    assert_same_mesh(&steps, &one);
    ir_mesh_free(&steps);

    /* Chunks change the reduced levels and level 0's order (the chunked path
     * did run), never level 0's triangles: the same positions, corner for
     * corner, in every submesh (vertex numbers differ with the fetch order). */
    settings.mesh_chunk_triangles = 0;
    process_grid(&whole, n, &settings);
    uint32_t level0 = whole.submeshes[1].index_offset + whole.submeshes[1].index_count;
    assert_int_equal(level0, three.submeshes[1].index_offset + three.submeshes[1].index_count);
    assert_true(memcmp(whole.indices, three.indices, sizeof(uint32_t) * level0) != 0);
    for (uint32_t sub = 0; sub < 2; sub++)
        assert_same_triangles(&whole, &three, &whole.submeshes[sub]);
    assert_true(whole.index_count != three.index_count ||
                memcmp(whole.indices, three.indices, sizeof(uint32_t) * whole.index_count) != 0);
    for (uint32_t l = 1; l < three.lod_count; l++)
        print_message("LOD %u: chunked %u triangles, error %.5f; whole %u, error %.5f\n", l,
                      three.lods[l].index_count / 3, (double)three.lods[l].error,
                      whole.lods[l].index_count / 3, (double)whole.lods[l].error);
    ir_mesh_free(&one);
    ir_mesh_free(&three);
    ir_mesh_free(&whole);
}

/* process_order_lods_meshlets_fetch joins the levels and finds the fetch
 * remap on whichever thread finishes the last order or LOD item, while
 * meshlets are still being built: the same mesh as the two steps one after
 * the other, on 1, 2 and 4 threads, with and without LODs and meshlets. */
static void fetch_in_the_pass_matches_fetch_after_it(void **state) {
    (void)state;
    const uint32_t n = 64;
    cook_settings settings;
    cook_settings_default(&settings);
    settings.mesh_chunk_triangles = 1024; /* 4 chunks per submesh */
    for (int variant = 0; variant < 3; variant++) {
        settings.mesh_lods = variant == 1 ? 0 : 2;
        settings.mesh_meshlets = variant != 2;
        ir_mesh steps;
        make_grid(&steps, n);
        settings.threads = 1;
        assert_true(process_weld(&steps));
        assert_true(process_order_lods_meshlets(&steps, &settings));
        assert_true(process_optimize_fetch(&steps));
        assert_true(steps.vertex_count < 3 * 2 * n * n); /* welded: corners shared */
        for (unsigned threads = 1; threads <= 4; threads *= 2) {
            ir_mesh pass;
            make_grid(&pass, n);
            settings.threads = threads;
            assert_true(process_weld_on(&pass, threads));
            assert_true(process_order_lods_meshlets_fetch(&pass, &settings));
            assert_same_mesh(&steps, &pass);
            assert_memory_equal(steps.texcoords[0], pass.texcoords[0],
                                2 * sizeof(float) * steps.vertex_count);
            assert_int_equal(steps.lod_count, pass.lod_count);
            ir_mesh_free(&pass);
        }
        ir_mesh_free(&steps);
    }
}

static void kmesh_vertex_packing_is_the_same_on_1_and_3_threads(void **state) {
    (void)state;
    ir_mesh mesh;
    make_grid(&mesh, 110); /* a soup of 72,600 vertices: two packing blocks */
    cook_settings settings;
    cook_settings_default(&settings);
    cook_diag diag = {0};
    cook_context ctx = {
        .source_path = "grid.obj", .ref = "grid.obj", .settings = &settings, .diag = &diag};
    bytebuf one = {0}, three = {0};
    settings.threads = 1;
    assert_true(kmesh_bytes(&ctx, &mesh, &one));
    settings.threads = 3;
    assert_true(kmesh_bytes(&ctx, &mesh, &three));
    assert_int_equal(one.size, three.size);
    assert_memory_equal(one.data, three.data, one.size);
    /* Laid out and written piece by piece (as the cooker writes it): the
     * same bytes. */
    encoded_vertices vertices;
    kmesh_layout layout;
    bytebuf streamed = {0};
    assert_true(encode_mesh_vertices(&mesh, settings.mesh_quantize_positions, 3, &vertices));
    assert_true(write_kmesh_layout(&ctx, &mesh, &vertices, 2, "obj", &layout));
    assert_int_equal(layout.container.file_size, one.size);
    assert_true(container_layout_write(&layout.container, append_to_bytebuf, &streamed));
    assert_int_equal(streamed.size, one.size);
    assert_memory_equal(streamed.data, one.data, one.size);
    kmesh_layout_free(&layout);
    encoded_vertices_free(&vertices);
    bytebuf_free(&streamed);
    /* Every vertex landed in its place: positions (f32x3 first) read back. */
    kiln_file file;
    kiln_mesh_view view;
    kiln_error err;
    assert_int_equal(kiln_file_from_memory(&file, three.data, three.size, NULL, 0, &err), KILN_OK);
    assert_int_equal(kiln_mesh_view_get(&file, 0, &view, &err), KILN_OK);
    assert_int_equal(view.desc->vertex_count, mesh.vertex_count);
    for (uint32_t v = 0; v < mesh.vertex_count; v++)
        assert_memory_equal((const uint8_t *)view.vertices + (size_t)v * view.desc->vertex_stride,
                            mesh.positions + 3 * (size_t)v, 12);
    kiln_file_close(&file);
    bytebuf_free(&one);
    bytebuf_free(&three);
    diag_free(&diag);
    ir_mesh_free(&mesh);
}

/* `mesh` written into `bytes` and opened with every check (kiln_file_close
 * and bytebuf_free are the caller's). */
static void open_cooked(const cook_context *ctx, const ir_mesh *mesh, bytebuf *bytes,
                        kiln_file *file, kiln_mesh_view *view) {
    kiln_error err;
    assert_true(kmesh_bytes(ctx, mesh, bytes));
    assert_int_equal(kiln_file_from_memory(file, bytes->data, bytes->size, NULL, 0, &err), KILN_OK);
    if (kiln_mesh_view_get(file, KILN_OPEN_DEEP, view, &err) != KILN_OK)
        fail_msg("%s", err.message);
}

/* The mesh's box and sphere, from the encoder's one pass over level 0 on
 * the threads: the box of the vertices level 0 uses (not of a vertex no
 * index names) and a sphere around its centre reaching the farthest of
 * them, computed here apart; the positions quantised over that box; the
 * same file on 1 and 4 threads. */
static void kmesh_bounds_are_level_0s_on_threads(void **state) {
    (void)state;
    ir_mesh mesh;
    make_grid(&mesh, 300); /* 540000 indices: three of the bounds' ranges */
    float *grown = realloc(mesh.positions, ((size_t)mesh.vertex_count + 1) * 3 * sizeof(float));
    assert_non_null(grown);
    mesh.positions = grown;
    float *far = mesh.positions + 3 * (size_t)mesh.vertex_count++;
    far[0] = far[1] = far[2] = -1000.0f; /* used by no index */
    float *uv = realloc(mesh.texcoords[0], (size_t)mesh.vertex_count * 2 * sizeof(float));
    assert_non_null(uv);
    mesh.texcoords[0] = uv;
    uv[2 * (size_t)mesh.vertex_count - 2] = uv[2 * (size_t)mesh.vertex_count - 1] = 0.0f;
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t i = 0; i < mesh.index_count; i++)
        for (int k = 0; k < 3; k++) {
            float v = mesh.positions[3 * (size_t)mesh.indices[i] + k];
            lo[k] = fminf(lo[k], v);
            hi[k] = fmaxf(hi[k], v);
        }
    double centre[3], farthest = 0.0;
    for (int k = 0; k < 3; k++)
        centre[k] = 0.5 * ((double)lo[k] + (double)hi[k]);
    for (uint32_t i = 0; i < mesh.index_count; i++) {
        const float *p = mesh.positions + 3 * (size_t)mesh.indices[i];
        double d = 0.0;
        for (int k = 0; k < 3; k++)
            d += (p[k] - centre[k]) * (p[k] - centre[k]);
        farthest = d > farthest ? d : farthest;
    }
    cook_settings settings;
    cook_settings_default(&settings);
    settings.mesh_quantize_positions = true; /* unorm16 over the box */
    cook_diag diag = {0};
    cook_context ctx = {
        .source_path = "grid.obj", .ref = "grid", .settings = &settings, .diag = &diag};
    bytebuf first = {0};
    for (unsigned threads = 1; threads <= 4; threads += 3) {
        settings.threads = threads;
        bytebuf bytes = {0};
        kiln_file file;
        kiln_mesh_view view;
        open_cooked(&ctx, &mesh, &bytes, &file, &view);
        for (int k = 0; k < 3; k++) {
            assert_true(view.desc->aabb_min[k] == lo[k]);
            assert_true(view.desc->aabb_max[k] == hi[k]);
            assert_true(view.desc->sphere[k] == (float)centre[k]);
            assert_true(view.desc->position_offset[k] == lo[k]);
            assert_true(view.desc->position_scale[k] == hi[k] - lo[k]);
        }
        assert_true(view.desc->sphere[3] >= sqrt(farthest));
        assert_true(view.desc->sphere[3] <= sqrt(farthest) * (1.0 + 1e-6));
        if (threads == 1) {
            bytebuf_append(&first, bytes.data, bytes.size);
        } else {
            assert_int_equal(bytes.size, first.size);
            assert_memory_equal(bytes.data, first.data, first.size);
        }
        kiln_file_close(&file);
        bytebuf_free(&bytes);
    }
    bytebuf_free(&first);
    ir_mesh_free(&mesh);
}

/* Each submesh's topology goes through the writer into the file and back out
 * of the runtime's view; a value the format does not know is refused. */
static void kmesh_round_trips_each_submesh_topology(void **state) {
    (void)state;
    static const float positions[12] = {0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0};
    static const uint32_t indices[6] = {0, 1, 2, 2, 3, 3};
    ir_mesh mesh = {.vertex_count = 4, .index_count = 6, .submesh_count = 3};
    mesh.positions = malloc(sizeof positions);
    mesh.indices = malloc(sizeof indices);
    mesh.submeshes = calloc(3, sizeof *mesh.submeshes);
    memcpy(mesh.positions, positions, sizeof positions);
    memcpy(mesh.indices, indices, sizeof indices);
    mesh.submeshes[0] = (ir_submesh){.index_count = 3};
    mesh.submeshes[1] = (ir_submesh){
        .index_offset = 3, .index_count = 2, .material = 1, .topology = KILN_TOPOLOGY_LINES};
    mesh.submeshes[2] =
        (ir_submesh){.index_offset = 5, .index_count = 1, .topology = KILN_TOPOLOGY_POINTS};
    cook_settings settings;
    cook_settings_default(&settings);
    cook_diag diag = {0};
    cook_context ctx = {
        .source_path = "mixed.obj", .ref = "mixed", .settings = &settings, .diag = &diag};
    bytebuf bytes = {0};
    kiln_file file;
    kiln_mesh_view view;
    kiln_error err;
    open_cooked(&ctx, &mesh, &bytes, &file, &view);
    assert_int_equal(file.kind_version, KILN_MESH_VERSION);
    assert_int_equal(view.desc->index_count, 6);
    static const kiln_topology expected[3] = {KILN_TOPOLOGY_TRIANGLES, KILN_TOPOLOGY_LINES,
                                              KILN_TOPOLOGY_POINTS};
    for (uint32_t s = 0; s < 3; s++) {
        assert_int_equal(view.submeshes[s].topology, expected[s]);
        assert_int_equal(view.submeshes[s].index_offset, mesh.submeshes[s].index_offset);
        assert_int_equal(view.submeshes[s].index_count, mesh.submeshes[s].index_count);
        assert_int_equal(view.submeshes[s].flags, 0);
    }
    /* The point submesh's bounds are its one point's. */
    assert_true(view.submeshes[2].aabb_min[0] == 0.0f && view.submeshes[2].aabb_max[1] == 1.0f);
    kiln_chunk subm;
    assert_int_equal(kiln_file_find_chunk(&file, KILN_CHUNK_MESH_SUBMESHES, &subm), KILN_OK);
    size_t topology_at = (size_t)((const uint8_t *)subm.data - bytes.data) +
                         2 * sizeof(kiln_submesh) + offsetof(kiln_submesh, topology);
    kiln_file_close(&file);
    bytes.data[topology_at] = KILN_TOPOLOGY_COUNT_;
    assert_int_equal(kiln_file_from_memory(&file, bytes.data, bytes.size, NULL, 0, &err), KILN_OK);
    assert_int_equal(kiln_mesh_view_get(&file, 0, &view, &err), KILN_ERR_CORRUPT);
    assert_non_null(strstr(err.message, "submesh 2 has unknown topology 3"));
    kiln_file_close(&file);
    bytebuf_free(&bytes);
    diag_free(&diag);
    ir_mesh_free(&mesh);
}

/* ---------------------------------------------------------------------------
 * Lines and points
 * ------------------------------------------------------------------------- */

#define LINE_VERTICES 9u
#define POINT_SIDE 16u /* a 16 x 16 x 16 cloud */

static void line_point(uint32_t i, float out[3]) {
    out[0] = (float)i;
    out[1] = -2.0f;
    out[2] = 0.1f * (float)(i % 3);
}

static void cloud_point(uint32_t i, float out[3]) {
    uint32_t x = i % POINT_SIDE, y = i / POINT_SIDE % POINT_SIDE, z = i / (POINT_SIDE * POINT_SIDE);
    /* A little jitter so the grid is not aligned with the simplifier's. */
    out[0] = 40.0f + (float)x + 0.13f * (float)((i * 7u) % 5u);
    out[1] = (float)y + 0.11f * (float)((i * 3u) % 7u);
    out[2] = (float)z;
}

/* The grid of make_grid(n) plus a polyline of LINE_VERTICES vertices (a line
 * list of its segments, last) and a point cloud (first): submeshes points,
 * grid left, grid right, lines, so the stage has to sort them. */
static void make_mixed(ir_mesh *mesh, uint32_t n) {
    make_grid(mesh, n);
    uint32_t grid_vertices = mesh->vertex_count, grid_indices = mesh->index_count;
    uint32_t points = POINT_SIDE * POINT_SIDE * POINT_SIDE;
    uint32_t line_indices = 2 * (LINE_VERTICES - 1);
    mesh->vertex_count += LINE_VERTICES + points;
    mesh->positions = realloc(mesh->positions, (size_t)mesh->vertex_count * 3 * sizeof(float));
    mesh->texcoords[0] =
        realloc(mesh->texcoords[0], (size_t)mesh->vertex_count * 2 * sizeof(float));
    uint32_t *indices = malloc((size_t)(points + grid_indices + line_indices) * sizeof *indices);
    for (uint32_t i = 0; i < LINE_VERTICES + points; i++) {
        float *p = mesh->positions + 3 * (size_t)(grid_vertices + i);
        if (i < LINE_VERTICES)
            line_point(i, p);
        else
            cloud_point(i - LINE_VERTICES, p);
        mesh->texcoords[0][2 * (size_t)(grid_vertices + i)] = 0.0f;
        mesh->texcoords[0][2 * (size_t)(grid_vertices + i) + 1] = 0.0f;
    }
    for (uint32_t i = 0; i < points; i++)
        indices[i] = grid_vertices + LINE_VERTICES + i;
    memcpy(indices + points, mesh->indices, grid_indices * sizeof *indices);
    for (uint32_t i = 0; i + 1 < LINE_VERTICES; i++) {
        indices[points + grid_indices + 2 * i] = grid_vertices + i;
        indices[points + grid_indices + 2 * i + 1] = grid_vertices + i + 1;
    }
    free(mesh->indices);
    mesh->indices = indices;
    mesh->index_count = points + grid_indices + line_indices;
    ir_submesh grid[2] = {mesh->submeshes[0], mesh->submeshes[1]};
    free(mesh->submeshes);
    mesh->submesh_count = 4;
    mesh->submeshes = calloc(4, sizeof *mesh->submeshes);
    mesh->submeshes[0] =
        (ir_submesh){.index_count = points, .material = 1, .topology = KILN_TOPOLOGY_POINTS};
    for (int h = 0; h < 2; h++) {
        mesh->submeshes[1 + h] = grid[h];
        mesh->submeshes[1 + h].index_offset += points;
    }
    mesh->submeshes[3] = (ir_submesh){.index_offset = points + grid_indices,
                                      .index_count = line_indices,
                                      .topology = KILN_TOPOLOGY_LINES};
}

static void topology_sort_puts_triangles_first_and_keeps_source_order(void **state) {
    (void)state;
    ir_mesh mesh;
    make_mixed(&mesh, 4);
    uint32_t points = POINT_SIDE * POINT_SIDE * POINT_SIDE, grid = 2 * 4 * 4 * 3;
    uint32_t first_point = mesh.indices[0], first_triangle = mesh.indices[points];
    uint32_t first_line = mesh.indices[points + grid];
    assert_int_equal(mesh_triangle_index_count(&mesh), 0);
    assert_true(process_sort_topology(&mesh));
    static const kiln_topology order[4] = {KILN_TOPOLOGY_TRIANGLES, KILN_TOPOLOGY_TRIANGLES,
                                           KILN_TOPOLOGY_LINES, KILN_TOPOLOGY_POINTS};
    uint32_t offset = 0;
    for (uint32_t s = 0; s < 4; s++) {
        assert_int_equal(mesh.submeshes[s].topology, order[s]);
        assert_int_equal(mesh.submeshes[s].index_offset, offset);
        offset += mesh.submeshes[s].index_count;
    }
    assert_int_equal(offset, mesh.index_count);
    assert_int_equal(mesh.submeshes[0].material, 0); /* grid left before grid right */
    assert_int_equal(mesh.submeshes[1].material, 1);
    assert_int_equal(mesh.indices[0], first_triangle);
    assert_int_equal(mesh.indices[grid], first_line);
    assert_int_equal(mesh.indices[grid + 2 * (LINE_VERTICES - 1)], first_point);
    assert_int_equal(mesh_triangle_index_count(&mesh), grid);
    ir_mesh_free(&mesh);
}

/* The largest distance from a point of `from` to the nearest point of `to`. */
static float brute_force_error(const ir_mesh *mesh, const ir_lod *from, const ir_lod *to) {
    float worst = 0.0f;
    for (uint32_t i = 0; i < from->index_count; i++) {
        const float *p = mesh->positions + 3 * (size_t)mesh->indices[from->index_offset + i];
        float best = INFINITY;
        for (uint32_t j = 0; j < to->index_count; j++) {
            const float *q = mesh->positions + 3 * (size_t)mesh->indices[to->index_offset + j];
            float dx = p[0] - q[0], dy = p[1] - q[1], dz = p[2] - q[2];
            float d = dx * dx + dy * dy + dz * dz;
            best = d < best ? d : best;
        }
        worst = best > worst ? best : worst;
    }
    return sqrtf(worst);
}

static void mixed_mesh_processes_each_topology_its_way(void **state) {
    (void)state;
    cook_settings settings;
    cook_settings_default(&settings);
    ir_mesh mesh;
    make_mixed(&mesh, 16);
    uint32_t grid_triangles = 2 * 16 * 16;
    cook_diag diag = {0};
    cook_context ctx = {
        .source_path = "mixed.obj", .ref = "mixed", .settings = &settings, .diag = &diag};
    ir_asset asset = {0};
    assert_true(process_mesh(&ctx, &mesh, &asset));
    assert_int_equal(diag.errors, 0);
    assert_int_equal(mesh.submesh_count, 4);
    assert_non_null(mesh.normals); /* generated from the triangles */
    const ir_submesh *lines = &mesh.submeshes[2], *points = &mesh.submeshes[3];
    assert_int_equal(lines->topology, KILN_TOPOLOGY_LINES);
    assert_int_equal(points->topology, KILN_TOPOLOGY_POINTS);
    assert_int_equal(mesh.submeshes[0].index_count + mesh.submeshes[1].index_count,
                     3 * grid_triangles);
    assert_int_equal(mesh.lod_count, 3);
    for (uint32_t i = 0; i < mesh.index_count; i++)
        assert_true(mesh.indices[i] < mesh.vertex_count);

    /* Triangles: reduced levels, meshlets covering every triangle. */
    for (uint32_t s = 0; s < 2; s++) {
        const ir_lod *levels = &mesh.lods[s * 3];
        assert_false(levels[1].reused);
        assert_true(levels[1].index_count < levels[0].index_count);
        assert_true(levels[1].index_count % 3 == 0 && levels[2].index_count % 3 == 0);
        assert_true(mesh.submeshes[s].meshlet_count > 0);
    }
    ir_mesh triangles_only = mesh;
    triangles_only.submesh_count = 2;
    check_meshlets(&triangles_only, 64, 124);

    /* Lines: the segments in source order, no reduced level, no meshlet. */
    assert_int_equal(lines->index_count, 2 * (LINE_VERTICES - 1));
    for (uint32_t i = 0; i < lines->index_count; i++) {
        float expected[3];
        line_point((i + 1) / 2, expected);
        assert_memory_equal(mesh.positions + 3 * (size_t)mesh.indices[lines->index_offset + i],
                            expected, sizeof expected);
    }
    const ir_lod *line_levels = &mesh.lods[2 * 3];
    for (uint32_t l = 1; l < 3; l++) {
        assert_true(line_levels[l].reused);
        assert_int_equal(line_levels[l].index_offset, lines->index_offset);
        assert_int_equal(line_levels[l].index_count, lines->index_count);
        assert_true(line_levels[l].error == 0.0f);
    }
    assert_int_equal(lines->meshlet_count, 0);

    /* Points: a chain about the asked ratios, errors adding up, no meshlet. */
    const ir_lod *point_levels = &mesh.lods[3 * 3];
    assert_int_equal(point_levels[0].index_count, POINT_SIDE * POINT_SIDE * POINT_SIDE);
    float scale = meshopt_simplifyScale(mesh.positions, mesh.vertex_count, 3 * sizeof(float));
    for (uint32_t l = 1; l < 3; l++) {
        assert_false(point_levels[l].reused);
        assert_true(point_levels[l].index_count > 0);
        assert_true(point_levels[l].index_count <=
                    (uint32_t)(point_levels[0].index_count * settings.mesh_lod_ratios[l - 1]));
        assert_true(point_levels[l].error > point_levels[l - 1].error);
        /* Each step's error is the farthest point's distance to the nearest kept one. */
        float step = point_levels[l].error - point_levels[l - 1].error;
        float expected = brute_force_error(&mesh, &point_levels[l - 1], &point_levels[l]) / scale;
        assert_true(fabsf(step - expected) <= 1e-5f + 1e-3f * expected);
    }
    assert_int_equal(points->meshlet_count, 0);

    /* What the runtime reads back. */
    bytebuf bytes = {0};
    kiln_file file;
    kiln_mesh_view view;
    open_cooked(&ctx, &mesh, &bytes, &file, &view);
    assert_int_equal(view.submeshes[3].topology, KILN_TOPOLOGY_POINTS);
    assert_true(kiln_mesh_lod(&view, 2, 2)->flags & KILN_LOD_FLAG_REUSED);
    kiln_file_close(&file);
    bytebuf_free(&bytes);
    diag_free(&diag);
    ir_mesh_free(&mesh);
}

/* A point cloud alone: no normals are made up for it, and its levels reduce. */
static void points_alone_keep_no_normals_and_reduce(void **state) {
    (void)state;
    uint32_t count = POINT_SIDE * POINT_SIDE * POINT_SIDE;
    ir_mesh mesh = {.vertex_count = count, .index_count = count, .submesh_count = 1};
    mesh.positions = malloc((size_t)count * 3 * sizeof(float));
    mesh.indices = malloc((size_t)count * sizeof(uint32_t));
    mesh.submeshes = calloc(1, sizeof *mesh.submeshes);
    for (uint32_t i = 0; i < count; i++) {
        cloud_point(i, mesh.positions + 3 * (size_t)i);
        mesh.indices[i] = count - 1 - i;
    }
    mesh.submeshes[0] = (ir_submesh){.index_count = count, .topology = KILN_TOPOLOGY_POINTS};
    cook_settings settings;
    cook_settings_default(&settings);
    settings.mesh_lods = 3;
    cook_diag diag = {0};
    cook_context ctx = {.source_path = "cloud.ply", .settings = &settings, .diag = &diag};
    ir_asset asset = {0};
    assert_true(process_mesh(&ctx, &mesh, &asset));
    assert_null(mesh.normals);
    assert_null(mesh.tangents);
    assert_int_equal(mesh.meshlet_count, 0);
    assert_int_equal(mesh.lod_count, 4);
    for (uint32_t l = 1; l < 4; l++) {
        assert_false(mesh.lods[l].reused);
        assert_true(mesh.lods[l].index_count < mesh.lods[l - 1].index_count);
    }
    /* Fetch order: the vertices in the order level 0 draws them. */
    for (uint32_t i = 0; i < count; i++)
        assert_int_equal(mesh.indices[i], i);
    diag_free(&diag);
    ir_mesh_free(&mesh);
}

/* Welding merges a point's vertex with a triangle's when every stream agrees
 * (the same data, whatever draws it), and keeps apart the ones that differ. */
static void weld_merges_identical_vertices_across_topologies(void **state) {
    (void)state;
    ir_mesh mesh;
    make_triangle_mesh(&mesh, 0);
    mesh.vertex_count = 5;
    mesh.positions = realloc(mesh.positions, 5 * 3 * sizeof(float));
    mesh.normals = realloc(mesh.normals, 5 * 3 * sizeof(float));
    memcpy(mesh.positions + 9, mesh.positions, 3 * sizeof(float));      /* = vertex 0 */
    memcpy(mesh.positions + 12, mesh.positions + 3, 3 * sizeof(float)); /* at vertex 1 */
    memcpy(mesh.normals + 9, mesh.normals, 3 * sizeof(float));
    memcpy(mesh.normals + 12, (const float[3]){1.0f, 0.0f, 0.0f}, 3 * sizeof(float));
    mesh.index_count = 5;
    mesh.indices = realloc(mesh.indices, 5 * sizeof(uint32_t));
    mesh.indices[3] = 3;
    mesh.indices[4] = 4;
    mesh.submesh_count = 2;
    mesh.submeshes = realloc(mesh.submeshes, 2 * sizeof *mesh.submeshes);
    mesh.submeshes[1] =
        (ir_submesh){.index_offset = 3, .index_count = 2, .topology = KILN_TOPOLOGY_POINTS};
    assert_true(process_weld(&mesh));
    assert_int_equal(mesh.vertex_count, 4);
    assert_int_equal(mesh.indices[3], mesh.indices[0]);
    assert_true(mesh.indices[4] != mesh.indices[1]);
    ir_mesh_free(&mesh);
}

static void merge_bakes_instances_and_mirrors(void **state) {
    (void)state;
    ir_asset asset = {0};
    asset.mesh_count = 2;
    asset.meshes = calloc(2, sizeof *asset.meshes);
    make_triangle_mesh(&asset.meshes[0], 1);
    make_triangle_mesh(&asset.meshes[1], 0);
    asset.material_count = 2;
    asset.materials = calloc(2, sizeof *asset.materials);
    ir_material_init(&asset.materials[0]);
    ir_material_init(&asset.materials[1]);
    /* Root translated by x+10; child A draws mesh 0 moved y+5 from it; child B
     * draws mesh 0 again mirrored in x (scale -1); node C draws mesh 1. */
    asset.node_count = 4;
    asset.nodes = calloc(4, sizeof *asset.nodes);
    for (int n = 0; n < 4; n++)
        ir_node_init(&asset.nodes[n]);
    asset.nodes[0].matrix[12] = 10.0f;
    asset.nodes[1].parent = 0;
    asset.nodes[1].mesh = 0;
    asset.nodes[1].matrix[13] = 5.0f;
    asset.nodes[2].parent = 0;
    asset.nodes[2].mesh = 0;
    asset.nodes[2].matrix[0] = -1.0f;
    asset.nodes[3].mesh = 1;
    cook_diag diag = {0};
    assert_true(process_merge_asset(&asset, &diag, "scene.gltf"));
    assert_int_equal(asset.mesh_count, 1);
    const ir_mesh *m = &asset.meshes[0];
    assert_int_equal(m->vertex_count, 9);
    /* One submesh per material, in material order: mesh 1's triangle first. */
    assert_int_equal(m->submesh_count, 2);
    assert_int_equal(m->submeshes[0].material, 0);
    assert_int_equal(m->submeshes[0].index_count, 3);
    assert_int_equal(m->submeshes[1].material, 1);
    assert_int_equal(m->submeshes[1].index_count, 6);
    /* Instance A: translated by (10, 5). */
    assert_true(m->positions[0] == 10.0f && m->positions[1] == 5.0f);
    assert_true(m->positions[3] == 11.0f);
    /* Instance B: mirrored, so its x runs to 9 and its winding is flipped to
     * keep facing +z (the normal keeps pointing +z). */
    assert_true(m->positions[3 * 4] == 9.0f);
    for (uint32_t t = 0; t < 3; t++) {
        const uint32_t *tri = m->indices + 3 * t;
        const float *a = m->positions + 3 * tri[0], *b = m->positions + 3 * tri[1],
                    *c = m->positions + 3 * tri[2];
        float cross_z = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
        assert_true(cross_z > 0.0f);
        assert_true(m->normals[3 * tri[0] + 2] > 0.99f);
    }
    assert_int_equal(diag.errors, 0);
    diag_free(&diag);
    ir_asset_free(&asset);
}

/* One default material and two root nodes drawing meshes 0 and 1. */
static void place_two_meshes(ir_asset *asset) {
    asset->material_count = 1;
    asset->materials = calloc(1, sizeof *asset->materials);
    ir_material_init(&asset->materials[0]);
    asset->node_count = 2;
    asset->nodes = calloc(2, sizeof *asset->nodes);
    ir_node_init(&asset->nodes[0]);
    ir_node_init(&asset->nodes[1]);
    asset->nodes[0].mesh = 0;
    asset->nodes[1].mesh = 1;
}

/* mesh.merge with a line mesh that has no normals: the triangles keep theirs
 * (the lines get +Z), the lines get their own submesh after the triangles, and
 * a mirroring node leaves the order of a segment's ends alone. */
static void merge_keeps_lines_apart_and_triangle_normals(void **state) {
    (void)state;
    ir_asset asset = {0};
    asset.mesh_count = 2;
    asset.meshes = calloc(2, sizeof *asset.meshes);
    ir_mesh *lines = &asset.meshes[0];
    static const float ends[6] = {0, 0, 0, 1, 2, 0};
    *lines = (ir_mesh){.vertex_count = 2, .index_count = 2, .submesh_count = 1};
    lines->positions = malloc(sizeof ends);
    memcpy(lines->positions, ends, sizeof ends);
    lines->indices = malloc(2 * sizeof(uint32_t));
    lines->indices[0] = 0;
    lines->indices[1] = 1;
    lines->submeshes = calloc(1, sizeof *lines->submeshes);
    lines->submeshes[0] = (ir_submesh){.index_count = 2, .topology = KILN_TOPOLOGY_LINES};
    make_triangle_mesh(&asset.meshes[1], 0);
    place_two_meshes(&asset);
    asset.nodes[0].matrix[0] = -1.0f; /* mirrored in x */
    cook_diag diag = {0};
    assert_true(process_merge_asset(&asset, &diag, "scene.gltf"));
    const ir_mesh *m = &asset.meshes[0];
    assert_int_equal(m->submesh_count, 2);
    assert_int_equal(m->submeshes[0].topology, KILN_TOPOLOGY_TRIANGLES);
    assert_int_equal(m->submeshes[0].index_count, 3);
    assert_int_equal(m->submeshes[1].topology, KILN_TOPOLOGY_LINES);
    assert_int_equal(m->submeshes[1].index_offset, 3);
    assert_non_null(m->normals);
    const uint32_t *segment = m->indices + 3;
    assert_true(m->positions[3 * segment[0]] == 0.0f && m->positions[3 * segment[1]] == -1.0f);
    assert_true(m->normals[3 * segment[1] + 2] == 1.0f);
    const uint32_t *tri = m->indices;
    assert_true(m->normals[3 * tri[0] + 2] == 1.0f);
    diag_free(&diag);
    ir_asset_free(&asset);
}

static void merge_keeps_skinned_meshes_apart_with_a_warning(void **state) {
    (void)state;
    ir_asset asset = {0};
    asset.mesh_count = 2;
    asset.meshes = calloc(2, sizeof *asset.meshes);
    make_triangle_mesh(&asset.meshes[0], 0);
    make_triangle_mesh(&asset.meshes[1], 0);
    place_two_meshes(&asset);
    asset.nodes[1].skin = 0;
    cook_diag diag = {0};
    asset.meshes[1].positions[0] = 42.0f; /* tells the skinned mesh apart */
    assert_true(process_merge_asset(&asset, &diag, "skinned.gltf"));
    /* The merged mesh (node 0's), then the skinned one, still drawn by node 1
     * and untouched (not baked into world space); the new root draws mesh 0. */
    assert_int_equal(asset.mesh_count, 2);
    assert_int_equal(asset.meshes[0].vertex_count, 3);
    assert_true(asset.meshes[0].positions[0] != 42.0f);
    assert_true(asset.meshes[1].positions[0] == 42.0f);
    assert_int_equal(asset.node_count, 3);
    assert_int_equal(asset.nodes[0].mesh, -1);
    assert_int_equal(asset.nodes[1].mesh, 1);
    assert_int_equal(asset.nodes[1].skin, 0);
    assert_int_equal(asset.nodes[2].mesh, 0);
    assert_int_equal(diag.warnings, 1);
    bytebuf_append(&diag.text, "", 1);
    assert_non_null(strstr((const char *)diag.text.data,
                           "1 skinned mesh not merged: kept as its own, drawn by its nodes"));
    diag_free(&diag);
    ir_asset_free(&asset);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(weld_merges_corners_shared_in_every_stream),
        cmocka_unit_test(kmesh_bounds_are_level_0s_on_threads),
        cmocka_unit_test(degenerate_and_repeated_triangles_are_dropped),
        cmocka_unit_test(degenerate_pass_on_a_fan_matches_a_pairwise_reference),
        cmocka_unit_test(weld_remap_matches_meshoptimizer),
        cmocka_unit_test(weld_remap_on_threads_matches_meshoptimizer),
        cmocka_unit_test(optimized_order_improves_the_vertex_cache),
        cmocka_unit_test(fetch_order_drops_unused_vertices),
        cmocka_unit_test(lods_reduce_each_submesh_and_stay_in_range),
        cmocka_unit_test(kiln_simplifier_lods_are_watertight_and_deterministic),
        cmocka_unit_test(auto_simplifier_picks_by_submesh_size),
        cmocka_unit_test(lod_that_cannot_be_reduced_is_marked_reused),
        cmocka_unit_test(meshlets_cover_every_triangle_once_within_limits),
        cmocka_unit_test(meshlet_limits_out_of_range_fall_back_to_defaults),
        cmocka_unit_test(kiln_meshlet_builder_in_the_cooker),
        cmocka_unit_test(chunks_cut_large_submeshes_into_even_ranges),
        cmocka_unit_test(spatial_sort_keeps_triangles_and_groups_quadrants),
        cmocka_unit_test(index_span_is_the_least_and_greatest_index),
        cmocka_unit_test(chunked_lods_and_meshlets_are_the_same_on_1_and_3_threads),
        cmocka_unit_test(fetch_in_the_pass_matches_fetch_after_it),
        cmocka_unit_test(kmesh_vertex_packing_is_the_same_on_1_and_3_threads),
        cmocka_unit_test(kmesh_round_trips_each_submesh_topology),
        cmocka_unit_test(topology_sort_puts_triangles_first_and_keeps_source_order),
        cmocka_unit_test(mixed_mesh_processes_each_topology_its_way),
        cmocka_unit_test(points_alone_keep_no_normals_and_reduce),
        cmocka_unit_test(weld_merges_identical_vertices_across_topologies),
        cmocka_unit_test(merge_bakes_instances_and_mirrors),
        cmocka_unit_test(merge_keeps_lines_apart_and_triangle_normals),
        cmocka_unit_test(merge_keeps_skinned_meshes_apart_with_a_warning),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
