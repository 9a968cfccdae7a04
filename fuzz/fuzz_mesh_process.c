/* fuzz_mesh_process.c — the mesh process stage (process_mesh: weld, dropped
 * degenerate triangles, vertex cache order, LODs with either simplifier and
 * their chunked path, meshlets, the fetch remap) on meshes built from bytes.
 * The first bytes pick the settings, the rest the mesh (layout below; the
 * seeds are written by fuzz/mesh_process_seeds.py). Positions are finite, as
 * the model driver's IR check guarantees (drivers/model.c): small integers
 * times a power of two, so coincident, collinear and flat cases are common.
 * What the stage returns must hold together: every index of every level in
 * range, each level's range inside the index buffer and no larger than the
 * level before unless marked reused, meshlets within their limits and every
 * meshlet reference in range (else abort).
 *
 * Layout (a byte past the end reads as 0):
 *   0  simplifier (% 3: meshopt, kiln, auto), bits 2-3 mesh.lods, bit 4
 *      meshlets, bit 5 meshlet builder (kiln, meshopt), bit 6 vertex cache
 *      (meshopt, kiln), bit 7 threads (1, 2)
 *   1  chunk triangles: 64 * (1 + b % 16)
 *   2  meshlet vertices: 3 + b % 253;  3  meshlet triangles: 4 * (1 + b % 128)
 *   4  bit 0 texcoords, bit 1 normals, bit 2 mesh.normals keep, bit 3 a normal
 *      map (tangents), bit 4 one byte per vertex (z over a grid of rows
 *      `width` long) or three (x, y, z), bits 5-7 the scale: 2^(6 * k - 21)
 *   5, 6  vertex count: 3 + (b5 | b6 << 8) % 2048
 *   7  submeshes: 1 + b % 4; grid row width: 2 + (b >> 2) % 62
 *   then the positions (each coordinate (b % 16) - 8), texcoords (2 bytes per
 *   vertex, each b / 16), normals (1 byte per vertex, a unit vector of a
 *   table), then per submesh: a kind byte (% 4: raw triangles, raw triangles,
 *   grid triangles, then lines or points by bit 2), two count bytes
 *   (% 1536 primitives or grid quads), and its indices: raw indices are 1
 *   byte (vertex count <= 256) or 2, modulo the vertex count; grid quads start
 *   at a 2-byte vertex and take one byte of flags per quad (bit 0 left out,
 *   bit 1 flipped, bit 2 the other diagonal, bit 3 a flipped duplicate too,
 *   bit 4 a corner moved to vertex 0: a non-manifold fan). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cook/process/process.h"
#include "fuzz_aligned.h"

#define MAX_VERTICES 2048
#define MAX_PRIMITIVES 1536
#define MAX_SUBMESHES 4

typedef struct reader {
    const uint8_t *data;
    size_t size, at;
} reader;

static uint8_t next_byte(reader *r) {
    return r->at < r->size ? r->data[r->at++] : 0;
}

static uint32_t next_u16(reader *r) {
    uint32_t lo = next_byte(r);
    return lo | (uint32_t)next_byte(r) << 8;
}

static void check(bool ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "fuzz_mesh_process: %s\n", what);
        abort();
    }
}

static void read_settings(reader *r, cook_settings *settings) {
    cook_settings_default(settings);
    uint8_t b = next_byte(r);
    const cook_mesh_simplifier simplifiers[3] = {COOK_SIMPLIFIER_MESHOPT, COOK_SIMPLIFIER_KILN,
                                                 COOK_SIMPLIFIER_AUTO};
    settings->mesh_simplifier = simplifiers[b % 3];
    settings->mesh_lods = (b >> 2) & 3;
    settings->mesh_meshlets = (b >> 4) & 1;
    settings->mesh_meshlet_builder =
        (b >> 5) & 1 ? COOK_MESHLET_BUILDER_MESHOPT : COOK_MESHLET_BUILDER_KILN;
    settings->mesh_vertex_cache = (b >> 6) & 1 ? COOK_VERTEX_CACHE_KILN : COOK_VERTEX_CACHE_MESHOPT;
    settings->threads = 1 + (b >> 7);
    settings->mesh_chunk_triangles = 64 * (1 + next_byte(r) % 16u);
    settings->mesh_meshlet_vertices = 3 + next_byte(r) % 253u;
    settings->mesh_meshlet_triangles = 4 * (1 + next_byte(r) % 128u);
}

/* Unit normals: the axes and a few diagonals (ir.h wants unit length). */
static const float normal_table[8][3] = {
    {1, 0, 0}, {-1, 0, 0}, {0, 1, 0},          {0, -1, 0},
    {0, 0, 1}, {0, 0, -1}, {0.6f, 0.8f, 0.0f}, {0.0f, -0.6f, 0.8f},
};

typedef struct mesh_shape {
    bool texcoords, normals, normal_map, keep_normals, per_coordinate;
    float scale;
    uint32_t submeshes;
    uint32_t width; /* of a grid row, in vertices */
} mesh_shape;

static bool read_vertices(reader *r, ir_mesh *mesh, mesh_shape *shape) {
    uint8_t flags = next_byte(r);
    shape->texcoords = flags & 1;
    shape->normals = flags & 2;
    shape->keep_normals = flags & 4;
    shape->normal_map = flags & 8;
    shape->per_coordinate = flags & 16;
    shape->scale = ldexpf(1.0f, 6 * (flags >> 5) - 21);
    uint32_t n = 3 + next_u16(r) % MAX_VERTICES;
    mesh->vertex_count = n;
    mesh->positions = malloc((size_t)n * 3 * sizeof(float));
    if (mesh->positions == NULL)
        return false;
    uint8_t layout = next_byte(r);
    shape->submeshes = 1 + layout % MAX_SUBMESHES;
    shape->width = 2 + (layout >> 2) % 62u;
    for (uint32_t v = 0; v < n; v++) {
        float *p = mesh->positions + 3 * (size_t)v;
        if (shape->per_coordinate) {
            for (int k = 0; k < 3; k++)
                p[k] = (float)((int)(next_byte(r) % 16) - 8) * shape->scale;
        } else {
            p[0] = (float)(v % shape->width) * shape->scale;
            p[1] = (float)(v / shape->width) * shape->scale;
            p[2] = (float)((int)(next_byte(r) % 16) - 8) * shape->scale;
        }
    }
    if (shape->texcoords) {
        mesh->texcoords[0] = malloc((size_t)n * 2 * sizeof(float));
        if (mesh->texcoords[0] == NULL)
            return false;
        for (size_t i = 0; i < (size_t)n * 2; i++)
            mesh->texcoords[0][i] = (float)next_byte(r) / 16.0f;
    }
    if (shape->normals) {
        mesh->normals = malloc((size_t)n * 3 * sizeof(float));
        if (mesh->normals == NULL)
            return false;
        for (uint32_t v = 0; v < n; v++)
            memcpy(mesh->normals + 3 * (size_t)v, normal_table[next_byte(r) % 8],
                   3 * sizeof(float));
    }
    return true;
}

static uint32_t next_index(reader *r, uint32_t vertex_count) {
    uint32_t i = vertex_count <= 256 ? next_byte(r) : next_u16(r);
    return i % vertex_count;
}

/* Appends a triangle, or nothing when out of room. */
static void put_triangle(uint32_t *indices, uint32_t *used, uint32_t cap, uint32_t a, uint32_t b,
                         uint32_t c) {
    if (*used + 3 <= cap) {
        indices[*used] = a;
        indices[*used + 1] = b;
        indices[*used + 2] = c;
        *used += 3;
    }
}

/* A submesh's indices, appended at mesh->index_count (room for
 * MAX_PRIMITIVES * 6 more). */
static void read_submesh(reader *r, ir_mesh *mesh, const mesh_shape *shape, ir_submesh *sub) {
    uint8_t kind = next_byte(r);
    uint32_t count = next_u16(r) % MAX_PRIMITIVES;
    uint32_t n = mesh->vertex_count, *out = mesh->indices + mesh->index_count, used = 0;
    *sub = (ir_submesh){.index_offset = mesh->index_count, .topology = KILN_TOPOLOGY_TRIANGLES};
    if (kind % 4 == 3) {
        sub->topology = (kind & 4) ? KILN_TOPOLOGY_LINES : KILN_TOPOLOGY_POINTS;
        uint32_t corners = kiln_topology_index_count(sub->topology);
        for (uint32_t i = 0; i < count * corners; i++)
            out[used++] = next_index(r, n);
    } else if (kind % 4 == 2) {
        uint32_t start = next_u16(r) % n, w = shape->width, cap = MAX_PRIMITIVES * 6;
        for (uint32_t q = 0; q < count; q++) {
            uint8_t flags = next_byte(r);
            uint32_t a = start + (q / (w - 1)) * w + q % (w - 1), b = a + 1, c = a + w, d = c + 1;
            a %= n, b %= n, c %= n, d %= n;
            if (flags & 16)
                a = 0;
            if (flags & 1)
                continue;
            uint32_t t[6] = {a, b, d, a, d, c};
            if (flags & 4)
                memcpy(t, (uint32_t[6]){a, b, c, b, d, c}, sizeof t);
            for (int k = 0; k < 6; k += 3) {
                bool flip = flags & 2;
                put_triangle(out, &used, cap, t[k], flip ? t[k + 2] : t[k + 1],
                             flip ? t[k + 1] : t[k + 2]);
                if (flags & 8)
                    put_triangle(out, &used, cap, t[k], flip ? t[k + 1] : t[k + 2],
                                 flip ? t[k + 2] : t[k + 1]);
            }
        }
    } else {
        for (uint32_t i = 0; i < count * 3; i++)
            out[used++] = next_index(r, n);
    }
    sub->index_count = used;
    mesh->index_count += used;
}

/* Whether every vertex `lod` draws is one its submesh's level 0 draws (a
 * level drawing another submesh's vertex would draw that submesh's texcoords
 * and normals). `used` has room for a flag per vertex. */
static bool uses_only(const ir_mesh *mesh, const ir_lod *level0, const ir_lod *lod, bool *used) {
    memset(used, 0, mesh->vertex_count * sizeof *used);
    for (uint32_t i = 0; i < level0->index_count; i++)
        used[mesh->indices[level0->index_offset + i]] = true;
    for (uint32_t i = 0; i < lod->index_count; i++)
        if (!used[mesh->indices[lod->index_offset + i]])
            return false;
    return true;
}

static void check_levels(const ir_mesh *mesh, uint32_t levels) {
    bool *used = malloc(mesh->vertex_count * sizeof *used + 1);
    check(used != NULL, "out of memory");
    for (uint32_t i = 0; i < mesh->index_count; i++)
        check(mesh->indices[i] < mesh->vertex_count, "index out of range");
    check(levels == 0 || mesh->lod_count == levels, "lod count");
    for (uint32_t s = 0; s < mesh->submesh_count; s++) {
        const ir_submesh *sub = &mesh->submeshes[s];
        uint32_t corners = kiln_topology_index_count(sub->topology);
        check(sub->index_offset <= mesh->index_count &&
                  sub->index_count <= mesh->index_count - sub->index_offset,
              "submesh range");
        check(sub->index_count % corners == 0, "submesh count");
        for (uint32_t l = 0; mesh->lods != NULL && l < mesh->lod_count; l++) {
            const ir_lod *lod = &mesh->lods[(size_t)s * mesh->lod_count + l];
            check(lod->index_offset <= mesh->index_count &&
                      lod->index_count <= mesh->index_count - lod->index_offset,
                  "level range");
            check(lod->index_count % corners == 0, "level count");
            if (l == 0) {
                check(lod->index_offset == sub->index_offset &&
                          lod->index_count == sub->index_count && !lod->reused &&
                          lod->error == 0.0f,
                      "level 0 is not the submesh");
                continue;
            }
            const ir_lod *before = lod - 1;
            check(isfinite(lod->error) && lod->error >= before->error, "level error");
            if (lod->reused)
                check(lod->index_offset == before->index_offset &&
                          lod->index_count == before->index_count,
                      "a reused level is not the one before");
            else {
                check(lod->index_count <= before->index_count, "a level grew");
                check(uses_only(mesh, lod - l, lod, used),
                      "a level draws another submesh's vertex");
            }
        }
    }
    free(used);
}

typedef struct triangle {
    uint32_t v[3];
} triangle;

/* A triangle turned so that its smallest corner comes first (its winding
 * kept), as a sort key. */
static triangle canonical(uint32_t a, uint32_t b, uint32_t c) {
    if (b < a && b < c)
        return (triangle){{b, c, a}};
    if (c < a && c < b)
        return (triangle){{c, a, b}};
    return (triangle){{a, b, c}};
}

static int compare_triangles(const void *x, const void *y) {
    const triangle *a = x, *b = y;
    for (int k = 0; k < 3; k++)
        if (a->v[k] != b->v[k])
            return a->v[k] < b->v[k] ? -1 : 1;
    return 0;
}

/* A triangle submesh's meshlets hold its level 0's triangles, each once, in
 * their winding. */
static void check_meshlet_cover(const ir_mesh *mesh, const ir_submesh *sub) {
    uint32_t count = sub->index_count / 3, in_meshlets = 0;
    for (uint32_t m = 0; m < sub->meshlet_count; m++)
        in_meshlets += mesh->meshlets[sub->meshlet_offset + m].triangle_count;
    check(in_meshlets == count, "meshlets do not hold the submesh's triangle count");
    triangle *level0 = malloc((count + 1) * sizeof *level0);
    triangle *built = malloc((count + 1) * sizeof *built);
    check(level0 != NULL && built != NULL, "out of memory");
    const uint32_t *indices = mesh->indices + sub->index_offset;
    for (uint32_t t = 0; t < count; t++)
        level0[t] = canonical(indices[3 * t], indices[3 * t + 1], indices[3 * t + 2]);
    uint32_t t = 0;
    for (uint32_t m = 0; m < sub->meshlet_count; m++) {
        const ir_meshlet *meshlet = &mesh->meshlets[sub->meshlet_offset + m];
        const uint32_t *vertices = mesh->meshlet_vertices + meshlet->vertex_offset;
        const uint8_t *local = mesh->meshlet_triangles + 3 * (size_t)meshlet->triangle_offset;
        for (uint32_t k = 0; k < meshlet->triangle_count; k++, local += 3)
            built[t++] = canonical(vertices[local[0]], vertices[local[1]], vertices[local[2]]);
    }
    qsort(level0, count, sizeof *level0, compare_triangles);
    qsort(built, count, sizeof *built, compare_triangles);
    check(memcmp(level0, built, count * sizeof *level0) == 0,
          "meshlets' triangles are not level 0's");
    free(level0);
    free(built);
}

static void check_meshlets(const ir_mesh *mesh) {
    for (uint32_t i = 0; i < mesh->meshlet_vertex_count; i++)
        check(mesh->meshlet_vertices[i] < mesh->vertex_count, "meshlet vertex out of range");
    for (uint32_t s = 0; s < mesh->submesh_count; s++) {
        const ir_submesh *sub = &mesh->submeshes[s];
        check(sub->meshlet_offset <= mesh->meshlet_count &&
                  sub->meshlet_count <= mesh->meshlet_count - sub->meshlet_offset,
              "submesh meshlet range");
    }
    for (uint32_t m = 0; m < mesh->meshlet_count; m++) {
        const ir_meshlet *meshlet = &mesh->meshlets[m];
        check(meshlet->vertex_count <= mesh->meshlet_max_vertices &&
                  meshlet->triangle_count <= mesh->meshlet_max_triangles,
              "meshlet over its limits");
        check(meshlet->vertex_offset <= mesh->meshlet_vertex_count &&
                  meshlet->vertex_count <= mesh->meshlet_vertex_count - meshlet->vertex_offset,
              "meshlet vertex range");
        check(meshlet->triangle_offset <= mesh->meshlet_triangle_count &&
                  meshlet->triangle_count <=
                      mesh->meshlet_triangle_count - meshlet->triangle_offset,
              "meshlet triangle range");
        const uint8_t *local = mesh->meshlet_triangles + 3 * (size_t)meshlet->triangle_offset;
        for (size_t k = 0; k < 3 * (size_t)meshlet->triangle_count; k++)
            check(local[k] < meshlet->vertex_count, "meshlet local index out of range");
    }
    for (uint32_t s = 0; s < mesh->submesh_count; s++)
        if (mesh->submeshes[s].topology == KILN_TOPOLOGY_TRIANGLES)
            check_meshlet_cover(mesh, &mesh->submeshes[s]);
}

/* FUZZ_VERBOSE=1: what an input became, to check that a seed reaches what
 * it was written for. */
static void describe(const ir_mesh *mesh, const cook_settings *settings) {
    fprintf(stderr, "simplifier %s, chunks of %u, %u vertices, %u indices, %u meshlets\n",
            cook_mesh_simplifier_names[settings->mesh_simplifier], settings->mesh_chunk_triangles,
            mesh->vertex_count, mesh->index_count, mesh->meshlet_count);
    for (uint32_t s = 0; s < mesh->submesh_count; s++) {
        fprintf(stderr, "  submesh %u (topology %d):", s, (int)mesh->submeshes[s].topology);
        for (uint32_t l = 0; l < mesh->lod_count; l++) {
            const ir_lod *lod = &mesh->lods[(size_t)s * mesh->lod_count + l];
            fprintf(stderr, " %u%s (error %.9g)",
                    lod->index_count / kiln_topology_index_count(mesh->submeshes[s].topology),
                    lod->reused ? " (reused)" : "", lod->error);
        }
        fprintf(stderr, "\n");
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    reader r = {data, size, 0};
    cook_settings settings;
    read_settings(&r, &settings);
    ir_mesh mesh = {0};
    mesh_shape shape = {0};
    bool built = read_vertices(&r, &mesh, &shape);
    uint32_t submeshes = built ? shape.submeshes : 1;
    mesh.indices = malloc((size_t)submeshes * MAX_PRIMITIVES * 6 * sizeof *mesh.indices);
    mesh.submeshes = calloc(submeshes, sizeof *mesh.submeshes);
    if (built && mesh.indices != NULL && mesh.submeshes != NULL) {
        mesh.submesh_count = submeshes;
        for (uint32_t s = 0; s < submeshes; s++)
            read_submesh(&r, &mesh, &shape, &mesh.submeshes[s]);
        settings.mesh_normals = shape.keep_normals ? COOK_NORMALS_KEEP : settings.mesh_normals;
        /* One material; with a normal map its texcoord set 0 asks for tangents. */
        char material_name[] = "fuzz";
        ir_material material = {.name = material_name};
        for (int slot = 0; slot < IR_SLOT_COUNT; slot++)
            material.textures[slot].image = -1;
        if (shape.normal_map)
            material.textures[IR_SLOT_NORMAL].image = 0;
        ir_asset asset = {.materials = &material, .material_count = 1};
        cook_diag diag = {0};
        cook_context ctx = {.source_path = "fuzz.mesh", .settings = &settings, .diag = &diag};
        check(process_mesh(&ctx, &mesh, &asset), "process_mesh failed");
        if (getenv("FUZZ_VERBOSE") != NULL)
            describe(&mesh, &settings);
        check_levels(&mesh, settings.mesh_lods > 0 ? settings.mesh_lods + 1 : 0);
        if (settings.mesh_meshlets)
            check_meshlets(&mesh);
        diag_free(&diag);
    }
    ir_mesh_free(&mesh);
    return 0;
}
