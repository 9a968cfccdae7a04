/* One asset through the whole pipeline, read back through the runtime. */
#include <dirent.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <xxhash.h>

#include "cook/drivers/drivers.h"
#include "cook/inspect/inspect.h"
#include "test_support.h"

static const char QUAD_OBJ[] = "mtllib quad.mtl\n"
                               "v 0 0 0\nv 2 0 0\nv 2 1 0\nv 0 1 0\nv 0 0 -1\nv 1 0 -1\nv 0 -1 -1\n"
                               "vt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\n"
                               "g front\n"
                               "usemtl red\n"
                               "f 1/1 2/2 3/3 4/4\n"
                               "g back\n"
                               "usemtl blue\n"
                               "f 5/1 6/2 7/3\n";
static const char QUAD_MTL[] = "newmtl red\nKd 1 0 0\nnewmtl blue\nKd 0 0 1\n";

typedef struct cooked {
    char *input;
    char *output;
    cook_settings settings;
    cook_asset_result result;
} cooked;

static void cook_one(cooked *c, const char *name, const char *obj, const char *mtl, bool verify) {
    char dir[64];
    snprintf(dir, sizeof dir, "pipeline_%s", name);
    c->input = test_make_temp_dir(dir);
    c->output = test_path_join(c->input, "out");
    char *models = test_path_join(c->input, "models");
    mkdir(models, 0755);
    char *obj_path = test_path_join(models, "quad.obj");
    char *mtl_path = test_path_join(models, "quad.mtl");
    test_write_file(obj_path, obj, strlen(obj));
    if (mtl != NULL)
        test_write_file(mtl_path, mtl, strlen(mtl));
    free(models);
    free(obj_path);
    free(mtl_path);
    cook_settings_default(&c->settings);
    cook_request request = {
        .input_root = c->input,
        .output_root = c->output,
        .source_path = "models/quad.obj",
        .importer = cook_registry_match("models/quad.obj"),
        .settings = &c->settings,
        .verify = verify,
    };
    assert_non_null(request.importer);
    cook_asset(&request, &c->result);
}

static void cooked_free(cooked *c) {
    cook_asset_result_free(&c->result);
    free(c->input);
    free(c->output);
}

static void pipeline_cooks_obj_into_a_valid_kmesh(void **state) {
    (void)state;
    cooked c;
    cook_one(&c, "valid", QUAD_OBJ, QUAD_MTL, true);
    if (!c.result.ok)
        fail_msg("cook failed: %.*s", (int)c.result.diag.text.size,
                 (const char *)c.result.diag.text.data);
    assert_int_equal(c.result.outputs.count, 3); /* the mesh, its material table, the scene */
    assert_string_equal(c.result.outputs.items[0], "models/quad.kmesh");
    assert_string_equal(c.result.outputs.items[1], "models/quad.kmat");
    assert_string_equal(c.result.outputs.items[2], "models/quad.kscene");
    assert_int_equal(c.result.dependencies.count, 1);
    assert_string_equal(c.result.dependencies.items[0], "models/quad.mtl");
    assert_int_equal(c.result.triangles, 3);

    char *path = test_path_join(c.output, "models/quad.kmesh");
    kiln_file file;
    kiln_error err;
    assert_int_equal(kiln_file_map(&file, path, KILN_OPEN_VERIFY_CHECKSUM, &err), KILN_OK);
    kiln_mesh_view view;
    assert_int_equal(kiln_mesh_view_get(&file, KILN_OPEN_DEEP, &view, &err), KILN_OK);
    assert_int_equal(view.desc->index_count, 9);
    assert_int_equal(view.desc->index_size, 2);
    assert_int_equal(view.desc->submesh_count, 2);
    assert_int_equal(view.desc->material_count, 2);
    assert_int_equal(view.submeshes[0].material_slot, 0);
    assert_int_equal(view.submeshes[0].index_count, 6);
    assert_int_equal(view.submeshes[1].material_slot, 1);
    assert_int_equal(view.submeshes[1].index_offset, 6);
    /* Named by their OBJ groups (the SNAM chunk). */
    assert_string_equal(kiln_mesh_submesh_name(&view, 0), "front");
    assert_string_equal(kiln_mesh_submesh_name(&view, 1), "back");
    assert_true(view.desc->aabb_min[2] == -1.0f && view.desc->aabb_max[0] == 2.0f);
    /* The first submesh lies in z = 0; its bounds know nothing of the second. */
    assert_true(view.submeshes[0].aabb_min[2] == 0.0f);

    /* Every triangle's positions come back exactly (positions are f32). */
    const kiln_vertex_attribute *position = kiln_mesh_find_attribute(&view, KILN_SEMANTIC_POSITION);
    const kiln_vertex_attribute *normal = kiln_mesh_find_attribute(&view, KILN_SEMANTIC_NORMAL);
    assert_non_null(position);
    assert_non_null(normal); /* generated: the OBJ has none */
    assert_non_null(kiln_mesh_find_attribute(&view, KILN_SEMANTIC_TEXCOORD0));
    const uint16_t *indices = view.indices;
    float area_z0 = 0.0f;
    for (uint32_t t = 0; t < 2; t++) {
        float p[3][3];
        for (int k = 0; k < 3; k++) {
            const uint8_t *vertex = (const uint8_t *)view.vertices +
                                    (size_t)indices[3 * t + (uint32_t)k] * view.desc->vertex_stride;
            memcpy(p[k], vertex + position->offset, sizeof p[k]);
            assert_true(p[k][2] == 0.0f);
            float n[3];
            kiln_oct_decode((const int16_t *)(const void *)(vertex + normal->offset), n);
            assert_true(n[2] > 0.99f); /* the quad faces +z (counter-clockwise) */
        }
        area_z0 += 0.5f * fabsf((p[1][0] - p[0][0]) * (p[2][1] - p[0][1]) -
                                (p[2][0] - p[0][0]) * (p[1][1] - p[0][1]));
    }
    assert_true(fabsf(area_z0 - 2.0f) < 1e-6f);

    size_t meta_size = 0;
    const char *meta = kiln_file_metadata(&file, &meta_size);
    assert_non_null(meta);
    char *text = strndup(meta, meta_size);
    assert_non_null(strstr(text, "\"source\":\"models/quad.obj\""));
    assert_non_null(strstr(text, "\"ref\":\"models/quad\""));
    assert_non_null(strstr(text, "\"importer\":\"obj\""));
    assert_non_null(strstr(text, "\"dependencies\":[\"models/quad.mtl\"]"));
    free(text);
    kiln_file_close(&file);
    free(path);
    cooked_free(&c);
}

/* What request.source_read was handed. */
typedef struct source_seen {
    int calls;
    size_t size;
    uint64_t xxh3;
} source_seen;

static void note_source(void *ctx, const uint8_t *bytes, size_t size) {
    source_seen *seen = ctx;
    seen->calls++;
    seen->size = size;
    seen->xxh3 = XXH3_64bits(bytes, size);
}

/* The source is hashed once, beside the build's own hash of it (two threads
 * here), and every output's META names that hash: the mesh, the material
 * table and the scene. */
/* A written file's verification on two threads (the checksum and the deep
 * read side by side) gives the one-pass verdict and error: for the cooked
 * mesh, for one with its last byte damaged (the checksum), one with an index
 * past the vertices and its checksum made right again (the deep read), and
 * one cut short (the structure). */
static void verification_on_two_threads_matches_one_pass(void **state) {
    (void)state;
    cooked c;
    cook_one(&c, "verify_halves", QUAD_OBJ, QUAD_MTL, false);
    assert_true(c.result.ok);
    char *path = test_path_join(c.output, "models/quad.kmesh");
    size_t size = 0;
    uint8_t *good = test_read_file(path, &size);
    assert_non_null(good);
    for (int damage = 0; damage < 4; damage++) {
        uint8_t *bytes = malloc(size);
        memcpy(bytes, good, size);
        size_t length = size;
        if (damage == 1)
            bytes[size - 1] ^= 0x5a;
        if (damage == 2) {
            kiln_file file;
            kiln_error err;
            kiln_chunk indices;
            assert_int_equal(kiln_file_from_memory(&file, bytes, size, "quad", 0, &err), KILN_OK);
            assert_int_equal(kiln_file_find_chunk(&file, KILN_CHUNK_MESH_INDICES, &indices),
                             KILN_OK);
            uint16_t past = 0xffff; /* 16-bit indices: the quad has 7 vertices */
            memcpy(bytes + ((const uint8_t *)indices.data - bytes), &past, sizeof past);
            kiln_file_close(&file);
            size_t at = offsetof(kiln_container_header, checksum);
            memset(bytes + at, 0, sizeof(uint64_t));
            uint64_t checksum = XXH3_64bits(bytes, size);
            memcpy(bytes + at, &checksum, sizeof checksum);
        }
        if (damage == 3)
            length = size / 2;
        test_write_file(path, bytes, length);
        kiln_error one = {0}, two = {0};
        bool one_pass = inspect_container_file(path, KILN_ASSET_MESH, &one);
        bool halves = inspect_container_file_on(2, path, KILN_ASSET_MESH, &two);
        assert_int_equal(one_pass, damage == 0);
        assert_int_equal(halves, one_pass);
        assert_int_equal(two.code, one.code);
        assert_string_equal(two.message, one.message);
        free(bytes);
    }
    free(good);
    free(path);
    cooked_free(&c);
}

static void every_output_names_the_source_hash(void **state) {
    (void)state;
    char *input = test_make_temp_dir("pipeline_source_hash");
    char *output = test_path_join(input, "out");
    char *obj_path = test_path_join(input, "quad.obj");
    char *mtl_path = test_path_join(input, "quad.mtl");
    test_write_file(obj_path, QUAD_OBJ, strlen(QUAD_OBJ));
    test_write_file(mtl_path, QUAD_MTL, strlen(QUAD_MTL));
    cook_settings settings;
    cook_settings_default(&settings);
    settings.threads = 2;
    source_seen seen = {0};
    cook_request request = {
        .input_root = input,
        .output_root = output,
        .source_path = "quad.obj",
        .importer = cook_registry_match("quad.obj"),
        .settings = &settings,
        .source_read = note_source,
        .source_read_ctx = &seen,
    };
    cook_asset_result result;
    assert_true(cook_asset(&request, &result));
    uint64_t expected = XXH3_64bits(QUAD_OBJ, strlen(QUAD_OBJ));
    assert_int_equal(seen.calls, 1);
    assert_int_equal(seen.size, strlen(QUAD_OBJ));
    assert_true(seen.xxh3 == expected);
    char named[64];
    snprintf(named, sizeof named, "\"source_hash\":\"xxh3-64:%016llx\"",
             (unsigned long long)expected);
    assert_int_equal(result.outputs.count, 3);
    for (size_t i = 0; i < result.outputs.count; i++) {
        char *path = test_path_join(output, result.outputs.items[i]);
        kiln_file file;
        kiln_error err;
        assert_int_equal(kiln_file_map(&file, path, KILN_OPEN_VERIFY_CHECKSUM, &err), KILN_OK);
        size_t meta_size = 0;
        const char *meta = kiln_file_metadata(&file, &meta_size);
        assert_non_null(meta);
        char *text = strndup(meta, meta_size);
        if (strstr(text, named) == NULL)
            fail_msg("%s: META lacks %s: %s", result.outputs.items[i], named, text);
        free(text);
        kiln_file_close(&file);
        free(path);
    }
    cook_asset_result_free(&result);
    free(obj_path);
    free(mtl_path);
    free(output);
    free(input);
}

/* A hash taken of other bytes than the context's source is not used. */
static void a_stale_source_hash_is_worked_out_again(void **state) {
    (void)state;
    static const uint8_t bytes[] = "v 0 0 0\n";
    cook_context ctx = {.source = bytes, .source_size = sizeof bytes - 1};
    ctx.source_hash.bytes = bytes;
    ctx.source_hash.size = sizeof bytes - 1;
    ctx.source_hash.xxh3 = 42;
    assert_true(cook_source_hash(&ctx) == 42); /* taken of these very bytes */
    ctx.source_size = 3;                       /* a driver's narrower view */
    assert_true(cook_source_hash(&ctx) == XXH3_64bits(bytes, 3));
    ctx.source = NULL; /* released */
    ctx.source_size = 0;
    assert_true(cook_source_hash(&ctx) == XXH3_64bits(NULL, 0));
}

/* A driver that frees the source early (cook_release_source) still names
 * the file's hash in the META of what it writes afterwards. */
static void a_released_source_keeps_its_hash(void **state) {
    (void)state;
    static const char text[] = "v 0 0 0\n";
    uint8_t *bytes = malloc(sizeof text);
    assert_non_null(bytes);
    memcpy(bytes, text, sizeof text);
    cook_context ctx = {.source = bytes, .source_size = sizeof text - 1, .source_buffer = bytes};
    ctx.source_hash.bytes = bytes;
    ctx.source_hash.size = sizeof text - 1;
    ctx.source_hash.xxh3 = XXH3_64bits(text, sizeof text - 1);
    cook_release_source(&ctx); /* ASan: nothing reads the freed bytes */
    assert_null(ctx.source);
    assert_null(ctx.source_buffer);
    assert_int_equal(ctx.source_size, 0);
    assert_true(cook_source_hash(&ctx) == XXH3_64bits(text, sizeof text - 1));
    assert_true(cook_source_hash(&ctx) != XXH3_64bits(NULL, 0));
}

/* A hash taken of other bytes is not kept by the release: what is left is
 * the hash of nothing, as before. */
static void a_released_source_drops_a_stale_hash(void **state) {
    (void)state;
    uint8_t *bytes = malloc(8);
    assert_non_null(bytes);
    memcpy(bytes, "v 0 0 0\n", 8);
    static const uint8_t other[] = "other";
    cook_context ctx = {.source = bytes, .source_size = 8, .source_buffer = bytes};
    ctx.source_hash.bytes = other;
    ctx.source_hash.size = 5;
    ctx.source_hash.xxh3 = 42;
    cook_release_source(&ctx);
    assert_true(cook_source_hash(&ctx) == XXH3_64bits(NULL, 0));
}

static void pipeline_reports_importer_errors_and_writes_nothing(void **state) {
    (void)state;
    cooked c;
    cook_one(&c, "broken", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n", NULL, false);
    assert_false(c.result.ok);
    assert_true(c.result.diag.errors > 0);
    assert_int_equal(c.result.outputs.count, 0);
    assert_non_null(strstr((const char *)c.result.diag.text.data, "models/quad.obj:4: error:"));
    char *path = test_path_join(c.output, "models/quad.kmesh");
    struct stat st;
    assert_int_not_equal(stat(path, &st), 0);
    free(path);
    cooked_free(&c);
}

static void pipeline_output_is_deterministic(void **state) {
    (void)state;
    cooked a, b;
    cook_one(&a, "det_a", QUAD_OBJ, QUAD_MTL, false);
    cook_one(&b, "det_b", QUAD_OBJ, QUAD_MTL, false);
    assert_true(a.result.ok && b.result.ok);
    char *pa = test_path_join(a.output, "models/quad.kmesh");
    char *pb = test_path_join(b.output, "models/quad.kmesh");
    size_t sa, sb;
    uint8_t *da = test_read_file(pa, &sa);
    uint8_t *db = test_read_file(pb, &sb);
    assert_int_equal(sa, sb);
    assert_memory_equal(da, db, sa);
    free(da);
    free(db);
    free(pa);
    free(pb);
    cooked_free(&a);
    cooked_free(&b);
}

/* A real importer test file's n-gon lists the same four corners over and over:
 * most of its triangles are degenerate and the first LOD drops them, so level
 * 2's target (a ratio of level 0) was above level 1's count and meshoptimizer
 * aborted the whole build (target_index_count <= index_count). */
static void face_revisiting_its_corners_cooks_with_shrinking_lods(void **state) {
    (void)state;
    const char obj[] = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\n"
                       "f 1 2 3 4 1 2 3 4 1 2 3 4 1 2 3 4 1 2 3 4 1 2 3 4\n";
    cooked c;
    cook_one(&c, "revisit", obj, NULL, true);
    if (!c.result.ok)
        fail_msg("cook failed: %.*s", (int)c.result.diag.text.size,
                 (const char *)c.result.diag.text.data);
    char *path = test_path_join(c.output, "models/quad.kmesh");
    kiln_file file;
    kiln_error err;
    uint32_t flags = KILN_OPEN_VERIFY_CHECKSUM | KILN_OPEN_DEEP;
    assert_int_equal(kiln_file_map(&file, path, flags, &err), KILN_OK);
    kiln_mesh_view view;
    assert_int_equal(kiln_mesh_view_get(&file, flags, &view, &err), KILN_OK);
    /* Every level is whole triangles and no larger than the one before. */
    for (uint32_t l = 0; l < view.desc->lod_count; l++) {
        assert_int_equal(view.lods[l].index_count % 3, 0);
        if (l > 0)
            assert_true(view.lods[l].index_count <= view.lods[l - 1].index_count);
    }
    kiln_file_close(&file);
    free(path);
    cooked_free(&c);
}

static void output_path_mirrors_the_source_tree(void **state) {
    (void)state;
    char *p = cook_output_path("models/props/Crate.OBJ", ".kmesh");
    assert_string_equal(p, "models/props/Crate.kmesh");
    free(p);
    p = cook_output_path("dir.v2/noext", ".kmesh");
    assert_string_equal(p, "dir.v2/noext.kmesh");
    free(p);
    p = cook_output_path(".hidden", ".kmesh");
    assert_string_equal(p, ".hidden.kmesh");
    free(p);
}

static void atomic_write_replaces_and_leaves_no_temporary(void **state) {
    (void)state;
    char *dir = test_make_temp_dir("atomic");
    char *path = test_path_join(dir, "a/b/file.bin");
    char reason[256];
    assert_true(write_file_atomic(path, "first", 5, reason, sizeof reason));
    assert_true(write_file_atomic(path, "second!", 7, reason, sizeof reason));
    size_t size;
    uint8_t *data = test_read_file(path, &size);
    assert_int_equal(size, 7);
    assert_memory_equal(data, "second!", 7);
    free(data);
    char *folder = test_path_join(dir, "a/b");
    DIR *d = opendir(folder);
    assert_non_null(d);
    int entries = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        entries += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    assert_int_equal(entries, 1);
    /* A folder that cannot be made (a file is in the way) is an error, not a crash. */
    char *blocked = test_path_join(dir, "a/b/file.bin/inner.bin");
    assert_false(write_file_atomic(blocked, "x", 1, reason, sizeof reason));
    assert_non_null(strstr(reason, "cannot"));
    free(blocked);
    free(folder);
    free(path);
    free(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(pipeline_cooks_obj_into_a_valid_kmesh),
        cmocka_unit_test(verification_on_two_threads_matches_one_pass),
        cmocka_unit_test(every_output_names_the_source_hash),
        cmocka_unit_test(a_stale_source_hash_is_worked_out_again),
        cmocka_unit_test(a_released_source_keeps_its_hash),
        cmocka_unit_test(a_released_source_drops_a_stale_hash),
        cmocka_unit_test(pipeline_reports_importer_errors_and_writes_nothing),
        cmocka_unit_test(pipeline_output_is_deterministic),
        cmocka_unit_test(face_revisiting_its_corners_cooks_with_shrinking_lods),
        cmocka_unit_test(output_path_mirrors_the_source_tree),
        cmocka_unit_test(atomic_write_replaces_and_leaves_no_temporary),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
