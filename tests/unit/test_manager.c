/* The asset manager (kiln/manager.h): refs and generations, scopes and
 * reference counts, dependencies, mounts and overrides, budgets, requests
 * (priorities, cancel, callbacks), engine callbacks and staging, allocator
 * hooks, and bad input. The inputs are the bundled examples, cooked here by
 * the kiln command (folder and pack). */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "kiln/manager.h"
#include "manager_fixture.h"

#define EXAMPLES KILN_EXAMPLES_DIR

static char *cook(const char *name, const char *input, bool pack) {
    char *dir = test_make_temp_dir(name);
    char *out = test_path_join(dir, "runtime");
    char *argv[] = {"kiln", "build",       "-q", "-j", "1",
                    "-i",   (char *)input, "-o", out,  pack ? "--pack" : "-q",
                    NULL};
    assert_int_equal(cli_main(10, argv), 0);
    free(dir);
    return out;
}

static char *pack_of(const char *out) {
    size_t length = strlen(out) + 6;
    char *path = malloc(length);
    snprintf(path, length, "%s.kpak", out);
    return path;
}

typedef test_alloc_log alloc_log;

/* A manager whose engine (when given) makes and stages objects, counting. */
static kiln_manager *make_manager(test_engine *engine, alloc_log *alloc, uint32_t workers) {
    return test_manager_new(engine, TEST_ENGINE_OBJECTS | TEST_ENGINE_STAGING, alloc, workers);
}

static char *shared_out;  /* the examples cooked once */
static char *shared_pack; /* and packed */

static int setup_all(void **state) {
    (void)state;
    shared_out = cook("manager_examples", EXAMPLES, true);
    shared_pack = pack_of(shared_out);
    return 0;
}

static int teardown_all(void **state) {
    (void)state;
    free(shared_out);
    free(shared_pack);
    return 0;
}

static uint64_t file_size(const char *dir, const char *name) {
    char *path = test_path_join(dir, name);
    size_t size;
    free(test_read_file(path, &size));
    free(path);
    return size;
}

/* ---------------------------------------------------------------------------
 * Tests
 * ------------------------------------------------------------------------- */

static void handles_are_ref_hashes(void **state) {
    (void)state;
    assert_true(KILN_HANDLE("props/crate") == kiln_ref_hash("props/crate"));
    assert_true(KILN_HANDLE("") == kiln_ref_hash(""));
    static const kiln_handle scene = KILN_HANDLE("props/crate/scene");
    assert_true(scene == kiln_ref_hash("props/crate/scene"));
}

static void sync_load_brings_dependencies(void **state) {
    (void)state;
    test_engine engine = {0};
    alloc_log alloc = {0};
    kiln_manager *m = make_manager(&engine, &alloc, 0);
    kiln_error err;
    uint32_t mount = 99;
    assert_int_equal(kiln_manager_mount(m, shared_out, &mount, &err), KILN_OK);
    assert_int_equal(mount, 0);
    kiln_scope level;
    assert_int_equal(kiln_scope_create(m, "level1", 0, &level, &err), KILN_OK);
    kiln_ref scene;
    assert_int_equal(kiln_manager_load(m, level, KILN_HANDLE("props/crate/scene"), &scene, &err),
                     KILN_OK);
    const kiln_asset *a = kiln_asset_get(m, scene);
    assert_non_null(a);
    assert_int_equal(a->kind, KILN_ASSET_SCENE);
    assert_string_equal(a->ref, "props/crate/scene");
    assert_string_equal(a->path, "props/crate.kscene");
    assert_int_equal(kiln_asset_state_of(m, scene, &err), KILN_ASSET_READY);
    assert_int_equal(a->scene.node_count, 1);
    /* scene -> mesh and material table; mesh -> the same table; table -> texture. */
    assert_int_equal(a->dependency_count, 2);
    const kiln_asset *mesh = NULL, *table = NULL;
    for (uint32_t i = 0; i < a->dependency_count; i++) {
        const kiln_asset *d = kiln_asset_get(m, a->dependencies[i].ref);
        assert_non_null(d);
        if (d->kind == KILN_ASSET_MESH)
            mesh = d;
        if (d->kind == KILN_ASSET_MATERIAL)
            table = d;
    }
    assert_non_null(mesh);
    assert_non_null(table);
    assert_int_equal(mesh->mesh.desc->index_count, 36);
    assert_int_equal(mesh->dependency_count, 1);
    assert_ptr_equal(kiln_asset_get(m, mesh->dependencies[0].ref), table);
    assert_int_equal(table->materials.material_count, 2);
    assert_int_equal(table->dependency_count, 1);
    const kiln_asset *texture = kiln_asset_get(m, table->dependencies[0].ref);
    assert_non_null(texture);
    assert_int_equal(texture->kind, KILN_ASSET_TEXTURE);
    assert_int_equal(texture->texture.width, 64);
    assert_true(texture->dependencies == NULL || texture->dependency_count == 0);
    /* Engine objects: one mesh (two buffers), one texture from engine staging. */
    assert_int_equal(engine.buffers, 2);
    assert_ptr_not_equal(mesh->engine_buffers[0], NULL);
    assert_int_equal(engine.textures, 1);
    assert_true(engine.staging_matched);
    assert_non_null(texture->engine_texture);
    assert_null(texture->texels); /* handed to the engine */

    /* Stats: four files, counted once. */
    kiln_manager_stats stats;
    assert_int_equal(kiln_manager_stats_get(m, &stats, &err), KILN_OK);
    uint64_t files =
        file_size(shared_out, "props/crate.kscene") + file_size(shared_out, "props/crate.kmesh") +
        file_size(shared_out, "props/crate.kmat") + file_size(shared_out, "props/crate/crate.ktx2");
    assert_int_equal(stats.assets, 4);
    assert_int_equal(stats.ready, 4);
    assert_int_equal(stats.bytes, files);
    assert_int_equal(stats.scope_count, 3);
    bool seen = false;
    for (uint32_t i = 0; i < stats.scope_count; i++) {
        if (stats.scopes[i].scope == level) {
            seen = true;
            assert_string_equal(stats.scopes[i].name, "level1");
            assert_int_equal(stats.scopes[i].assets, 4);
            assert_int_equal(stats.scopes[i].holds, 1);
            assert_int_equal(stats.scopes[i].bytes, files);
        }
    }
    assert_true(seen);

    /* Loading again is the same ref; nothing is loaded twice. */
    kiln_ref again;
    assert_int_equal(kiln_manager_load_ref(m, level, "props/crate/scene", &again, &err), KILN_OK);
    assert_memory_equal(&again, &scene, sizeof again);
    assert_int_equal(engine.buffers, 2);

    assert_int_equal(kiln_scope_destroy(m, level, &err), KILN_OK);
    assert_null(kiln_asset_get(m, scene));
    assert_int_equal(kiln_asset_state_of(m, scene, &err), KILN_ASSET_NONE);
    assert_int_equal(engine.buffers_destroyed, 2);
    assert_int_equal(engine.textures_destroyed, 1);
    assert_int_equal(kiln_manager_stats_get(m, &stats, &err), KILN_OK);
    assert_int_equal(stats.assets, 0);
    assert_int_equal(stats.bytes, 0);
    kiln_manager_destroy(m);
    assert_true(alloc.allocations > 0);
    assert_int_equal(alloc.allocations, alloc.frees);
    assert_int_equal(alloc.outstanding, 0);
}

/* Clips and shader programs are assets too: a shader program has no
 * dependencies; a clip file brings the scene its channels target (and that
 * scene's meshes), so loading "<model>/anim" is enough to play it. */
static void animations_and_shaders_load(void **state) {
    (void)state;
    kiln_manager *m = make_manager(NULL, NULL, 0);
    kiln_error err;
    uint32_t mount;
    assert_int_equal(kiln_manager_mount(m, shared_out, &mount, &err), KILN_OK);
    kiln_scope level;
    assert_int_equal(kiln_scope_create(m, "level1", 0, &level, &err), KILN_OK);
    kiln_ref shader;
    assert_int_equal(
        kiln_manager_load(m, level, KILN_HANDLE("shaders/post/blur.comp"), &shader, &err), KILN_OK);
    const kiln_asset *a = kiln_asset_get(m, shader);
    assert_non_null(a);
    assert_int_equal(a->kind, KILN_ASSET_SHADER);
    assert_string_equal(a->path, "shaders/post/blur.comp.kshader");
    assert_int_equal(a->shader.stage_count, 1);
    assert_int_equal(a->shader.stages[0].stage, KILN_SHADER_STAGE_COMPUTE);
    assert_true(a->dependencies == NULL || a->dependency_count == 0);

    if (!test_skip_without_corpus("animations_and_shaders_load (clips)")) {
        char *dir = test_make_temp_dir("manager_clips");
        char *input = test_path_join(dir, "in");
        assert_int_equal(mkdir(input, 0755), 0);
        char *source =
            test_path_join(test_corpus_dir(), "gltf/BoxAnimated/glTF-Binary/BoxAnimated.glb");
        char *copy = test_path_join(input, "BoxAnimated.glb");
        size_t size;
        uint8_t *bytes = test_read_file(source, &size);
        test_write_file(copy, bytes, size);
        free(bytes);
        char *out = cook("manager_clips_cooked", input, false);
        assert_int_equal(kiln_manager_mount(m, out, &mount, &err), KILN_OK);
        kiln_ref clips;
        /* Refs are canonical: lower case. */
        assert_int_equal(kiln_manager_load(m, level, KILN_HANDLE("boxanimated/anim"), &clips, &err),
                         KILN_OK);
        a = kiln_asset_get(m, clips);
        assert_non_null(a);
        assert_int_equal(a->kind, KILN_ASSET_ANIMATION);
        assert_true(a->anim.clip_count >= 1);
        assert_int_equal(a->dependency_count, 1);
        const kiln_asset *scene = kiln_asset_get(m, a->dependencies[0].ref);
        assert_non_null(scene);
        assert_int_equal(scene->kind, KILN_ASSET_SCENE);
        assert_string_equal(scene->ref, "boxanimated/scene");
        assert_int_equal(scene->scene.node_count, a->anim.node_count);
        assert_int_equal(scene->dependency_count,
                         scene->scene.desc->mesh_count + scene->scene.desc->material_count);
        free(out);
        free(copy);
        free(source);
        free(input);
        free(dir);
    }
    assert_int_equal(kiln_scope_destroy(m, level, &err), KILN_OK);
    assert_null(kiln_asset_get(m, shader));
    kiln_manager_destroy(m);
}

static void shared_across_scopes_and_refcounted(void **state) {
    (void)state;
    test_engine engine = {0};
    kiln_manager *m = make_manager(&engine, NULL, 0);
    kiln_error err;
    assert_int_equal(kiln_manager_mount(m, shared_out, NULL, &err), KILN_OK);
    kiln_scope a, b;
    assert_int_equal(kiln_scope_create(m, "a", 0, &a, &err), KILN_OK);
    assert_int_equal(kiln_scope_create(m, "b", 0, &b, &err), KILN_OK);
    kiln_ref in_a, in_b, row1;
    assert_int_equal(kiln_manager_load_ref(m, a, "props/pebble", &in_a, &err), KILN_OK);
    assert_int_equal(kiln_manager_load_ref(m, b, "props/pebble", &in_b, &err), KILN_OK);
    assert_int_equal(in_a.slot, in_b.slot);
    assert_int_not_equal(in_a.scope, in_b.scope);
    assert_int_equal(engine.buffers, 2); /* one mesh, loaded once */
    /* Two rows of one table are one asset. */
    kiln_ref row0;
    assert_int_equal(kiln_manager_load_ref(m, a, "props/crate/wood", &row0, &err), KILN_OK);
    assert_int_equal(kiln_manager_load_ref(m, b, "props/crate/metal", &row1, &err), KILN_OK);
    assert_int_equal(row0.slot, row1.slot);

    assert_int_equal(kiln_scope_destroy(m, a, &err), KILN_OK);
    assert_null(kiln_asset_get(m, in_a)); /* a's refs are stale */
    assert_non_null(kiln_asset_get(m, in_b));
    assert_int_equal(engine.buffers_destroyed, 0);
    /* A new scope may reuse a's table entry: a's old refs stay stale. */
    kiln_scope c;
    assert_int_equal(kiln_scope_create(m, "c", 0, &c, &err), KILN_OK);
    assert_int_not_equal(c, a);
    assert_null(kiln_asset_get(m, in_a));
    assert_int_equal(kiln_scope_destroy(m, b, &err), KILN_OK);
    assert_null(kiln_asset_get(m, in_b));
    assert_int_equal(engine.buffers_destroyed, 2);
    assert_int_equal(engine.textures_destroyed, 1);
    /* Reloading gives the slot a new generation: the old refs stay stale. */
    kiln_ref fresh;
    assert_int_equal(kiln_manager_load_ref(m, c, "props/pebble", &fresh, &err), KILN_OK);
    assert_null(kiln_asset_get(m, in_b));
    assert_non_null(kiln_asset_get(m, fresh));
    if (fresh.slot == in_b.slot)
        assert_int_not_equal(fresh.generation, in_b.generation);
    kiln_manager_destroy(m);
    assert_int_equal(engine.buffers_destroyed, 4);
}

static void transient_and_permanent_scopes(void **state) {
    (void)state;
    kiln_manager *m = make_manager(NULL, NULL, 0);
    kiln_error err;
    assert_int_equal(kiln_manager_mount(m, shared_out, NULL, &err), KILN_OK);
    kiln_ref p, t;
    assert_int_equal(kiln_manager_load_ref(m, KILN_SCOPE_PERMANENT, "props/rock", &p, &err),
                     KILN_OK);
    assert_int_equal(kiln_manager_load_ref(m, KILN_SCOPE_TRANSIENT, "props/sign", &t, &err),
                     KILN_OK);
    assert_int_equal(kiln_scope_destroy(m, KILN_SCOPE_PERMANENT, &err), KILN_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "permanent"));
    assert_int_equal(kiln_scope_destroy(m, KILN_SCOPE_TRANSIENT, &err), KILN_ERR_INVALID_ARGUMENT);
    assert_int_equal(kiln_scope_clear(m, KILN_SCOPE_TRANSIENT, &err), KILN_OK);
    assert_null(kiln_asset_get(m, t));
    assert_non_null(kiln_asset_get(m, p));
    /* The transient scope is usable again. */
    assert_int_equal(kiln_manager_load_ref(m, KILN_SCOPE_TRANSIENT, "props/sign", &t, &err),
                     KILN_OK);
    assert_non_null(kiln_asset_get(m, t));
    kiln_manager_destroy(m);
}

static void pack_mount_loads_in_place(void **state) {
    (void)state;
    test_engine engine = {0};
    kiln_manager *m = make_manager(&engine, NULL, 0);
    kiln_error err;
    assert_int_equal(kiln_manager_mount(m, shared_pack, NULL, &err), KILN_OK);
    assert_int_equal(kiln_manager_mount(m, shared_pack, NULL, &err), KILN_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "already mounted"));
    kiln_scope level;
    assert_int_equal(kiln_scope_create(m, "level", 0, &level, &err), KILN_OK);
    const char *scenes[] = {"props/crate/scene", "props/rock/scene", "props/pebble/scene",
                            "props/sign/scene", "level/column/scene"};
    for (size_t i = 0; i < 5; i++) {
        kiln_ref ref;
        assert_int_equal(kiln_manager_load_ref(m, level, scenes[i], &ref, &err), KILN_OK);
        assert_non_null(kiln_asset_get(m, ref));
    }
    kiln_manager_stats stats;
    assert_int_equal(kiln_manager_stats_get(m, &stats, &err), KILN_OK);
    assert_int_equal(stats.assets, 16); /* 5 scenes, 5 meshes, 5 tables, 1 texture */
    assert_int_equal(engine.buffers, 10);
    assert_int_equal(engine.textures, 1);
    kiln_manager_destroy(m);
    assert_int_equal(engine.buffers_destroyed, 10);
}

static void later_mounts_override(void **state) {
    (void)state;
    /* A "patch": props/crate.obj replaced by one triangle, cooked alone. */
    char *src = test_make_temp_dir("manager_patch_src");
    char *props = test_path_join(src, "props");
    assert_int_equal(mkdir(props, 0755), 0);
    char *obj = test_path_join(props, "crate.obj");
    const char *triangle = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
    test_write_file(obj, triangle, strlen(triangle));
    char *patch = cook("manager_patch", src, false);

    kiln_manager *m = make_manager(NULL, NULL, 0);
    kiln_error err;
    assert_int_equal(kiln_manager_mount(m, shared_pack, NULL, &err), KILN_OK);
    uint32_t index;
    assert_int_equal(kiln_manager_mount(m, patch, &index, &err), KILN_OK);
    assert_int_equal(index, 1);
    assert_int_equal(kiln_manager_mount(m, patch, NULL, &err), KILN_ERR_INVALID_ARGUMENT);
    kiln_ref crate, rock;
    assert_int_equal(kiln_manager_load_ref(m, KILN_SCOPE_PERMANENT, "props/crate", &crate, &err),
                     KILN_OK);
    const kiln_asset *a = kiln_asset_get(m, crate);
    assert_int_equal(a->mount, 1);
    assert_int_equal(a->mesh.desc->index_count, 3);
    /* Its material table is the patch's too (the patch's crate has no texture). */
    for (uint32_t i = 0; i < a->dependency_count; i++) {
        const kiln_asset *d = kiln_asset_get(m, a->dependencies[i].ref);
        assert_int_equal(d->mount, 1);
        assert_int_equal(d->dependency_count, 0);
    }
    assert_int_equal(kiln_manager_load_ref(m, KILN_SCOPE_PERMANENT, "props/rock", &rock, &err),
                     KILN_OK);
    assert_int_equal(kiln_asset_get(m, rock)->mount, 0);
    kiln_manager_destroy(m);
    free(patch);
    free(obj);
    free(props);
    free(src);
}

static void bad_input_fails_refs_with_messages(void **state) {
    (void)state;
    char *out = cook("manager_bad", EXAMPLES, false);
    /* Missing, truncated and corrupt cooked files. */
    char *rock = test_path_join(out, "props/rock.kmesh");
    assert_int_equal(unlink(rock), 0);
    char *pebble = test_path_join(out, "props/pebble.kmesh");
    test_write_file(pebble, "KILN", 4);
    char *texture = test_path_join(out, "props/crate/crate.ktx2");
    size_t size;
    uint8_t *bytes = test_read_file(texture, &size);
    memset(bytes + 20, 0xff, 40); /* the header's dimensions and levels */
    test_write_file(texture, bytes, size);
    free(bytes);

    test_engine engine = {0};
    kiln_manager *m = make_manager(&engine, NULL, 0);
    kiln_error err;
    assert_int_equal(kiln_manager_mount(m, out, NULL, &err), KILN_OK);
    kiln_scope level;
    assert_int_equal(kiln_scope_create(m, "level", 0, &level, &err), KILN_OK);

    kiln_ref ref;
    assert_int_equal(kiln_manager_load_ref(m, level, "props/rock", &ref, &err), KILN_ERR_IO);
    assert_non_null(strstr(err.message, "rock.kmesh"));
    assert_int_not_equal(ref.slot, 0); /* a failed ref */
    assert_null(kiln_asset_get(m, ref));
    kiln_error why;
    assert_int_equal(kiln_asset_state_of(m, ref, &why), KILN_ASSET_FAILED);
    assert_string_equal(why.message, err.message);

    assert_int_equal(kiln_manager_load_ref(m, level, "props/pebble", &ref, &err),
                     KILN_ERR_TRUNCATED);
    assert_non_null(strstr(err.message, "pebble.kmesh"));

    /* A corrupt texture fails its table, the mesh and the scene above. */
    assert_int_not_equal(kiln_manager_load_ref(m, level, "props/crate/scene", &ref, &err), KILN_OK);
    assert_non_null(strstr(err.message, "crate.ktx2"));
    assert_int_equal(kiln_asset_state_of(m, ref, &why), KILN_ASSET_FAILED);
    assert_int_equal(engine.textures, 0);

    /* Unknown handles name the handle, and the ref when given. */
    assert_int_equal(kiln_manager_load_ref(m, level, "props/nope", &ref, &err), KILN_ERR_NOT_FOUND);
    char hex[32];
    snprintf(hex, sizeof hex, "0x%016" PRIx64, kiln_ref_hash("props/nope"));
    assert_non_null(strstr(err.message, hex));
    assert_non_null(strstr(err.message, "'props/nope'"));
    assert_int_equal(ref.slot, 0);
    assert_int_equal(kiln_manager_load(m, level, 0x1234, &ref, &err), KILN_ERR_NOT_FOUND);
    assert_non_null(strstr(err.message, "0x0000000000001234"));

    /* Scopes: destroyed twice, loading into a dead one. */
    assert_int_equal(kiln_scope_destroy(m, level, &err), KILN_OK);
    assert_int_equal(kiln_scope_destroy(m, level, &err), KILN_ERR_INVALID_ARGUMENT);
    assert_non_null(strstr(err.message, "not alive"));
    assert_int_equal(kiln_manager_load_ref(m, level, "props/sign", &ref, &err),
                     KILN_ERR_INVALID_ARGUMENT);
    assert_int_equal(kiln_scope_destroy(m, 0, &err), KILN_ERR_INVALID_ARGUMENT);
    assert_int_equal(kiln_scope_destroy(m, 0xffffffffu, &err), KILN_ERR_INVALID_ARGUMENT);

    /* Mounts that are not there or hold no manifest. */
    assert_int_equal(kiln_manager_mount(m, "/nonexistent/kiln", NULL, &err), KILN_ERR_IO);
    char *empty = test_make_temp_dir("manager_empty");
    assert_int_not_equal(kiln_manager_mount(m, empty, NULL, &err), KILN_OK);
    assert_non_null(strstr(err.message, "assets.kman"));

    /* Garbage refs are stale, not crashes. */
    kiln_ref junk = {0xdeadbeefu, 0xffffffffu, 7};
    assert_null(kiln_asset_get(m, junk));
    junk = (kiln_ref){0, 3, 12345};
    assert_null(kiln_asset_get(m, junk));
    assert_int_equal(kiln_asset_state_of(m, junk, &err), KILN_ASSET_NONE);
    kiln_manager_destroy(m);
    assert_int_equal(engine.staging_given, engine.staging_released);
    free(empty);
    free(texture);
    free(pebble);
    free(rock);
    free(out);
}

static void engine_failure_fails_the_asset(void **state) {
    (void)state;
    test_engine engine = {0};
    engine.fail_textures = true;
    kiln_manager *m = make_manager(&engine, NULL, 0);
    kiln_error err;
    assert_int_equal(kiln_manager_mount(m, shared_out, NULL, &err), KILN_OK);
    kiln_ref ref;
    assert_int_equal(kiln_manager_load_ref(m, KILN_SCOPE_PERMANENT, "props/crate", &ref, &err),
                     KILN_ERR_IO);
    assert_non_null(strstr(err.message, "device lost"));
    kiln_manager_destroy(m);
    assert_int_equal(engine.staging_given, engine.staging_released);
}

static void budgets_refuse_and_report(void **state) {
    (void)state;
    kiln_manager *m = make_manager(NULL, NULL, 0);
    kiln_error err;
    assert_int_equal(kiln_manager_mount(m, shared_out, NULL, &err), KILN_OK);
    uint64_t crate = file_size(shared_out, "props/crate.kmesh") +
                     file_size(shared_out, "props/crate.kmat") +
                     file_size(shared_out, "props/crate/crate.ktx2");
    kiln_scope small, exact;
    assert_int_equal(kiln_scope_create(m, "small", crate - 1, &small, &err), KILN_OK);
    assert_int_equal(kiln_scope_create(m, "exact", crate, &exact, &err), KILN_OK);
    kiln_ref ref;
    assert_int_equal(kiln_manager_load_ref(m, small, "props/crate", &ref, &err),
                     KILN_ERR_OUT_OF_MEMORY);
    assert_non_null(strstr(err.message, "small"));
    assert_non_null(strstr(err.message, "budget"));
    assert_int_equal(ref.slot, 0);
    kiln_manager_stats stats;
    assert_int_equal(kiln_manager_stats_get(m, &stats, &err), KILN_OK);
    assert_int_equal(stats.assets, 0); /* refused: nothing kept */
    assert_int_equal(kiln_manager_load_ref(m, exact, "props/crate", &ref, &err), KILN_OK);
    assert_int_equal(kiln_manager_stats_get(m, &stats, &err), KILN_OK);
    for (uint32_t i = 0; i < stats.scope_count; i++) {
        if (stats.scopes[i].scope == exact) {
            assert_int_equal(stats.scopes[i].bytes, crate);
            assert_int_equal(stats.scopes[i].budget, crate);
            assert_int_equal(stats.scopes[i].assets, 3);
        }
    }
    /* Full: one more asset is refused, what it holds stays. */
    assert_int_equal(kiln_manager_load_ref(m, exact, "props/rock", &ref, &err),
                     KILN_ERR_OUT_OF_MEMORY);
    kiln_ref again;
    assert_int_equal(kiln_manager_load_ref(m, exact, "props/crate", &again, &err), KILN_OK);
    kiln_manager_destroy(m);
}

typedef struct done_log {
    int calls;
    kiln_result results[16];
    kiln_ref refs[16];
} done_log;

static void on_done(void *user, kiln_ref ref, kiln_result result, const kiln_error *err) {
    done_log *log = user;
    assert_non_null(err);
    if (log->calls < 16) {
        log->results[log->calls] = result;
        log->refs[log->calls] = ref;
    }
    log->calls++;
}

static void requests_complete_through_pump(void **state) {
    (void)state;
    test_engine engine = {0};
    kiln_manager *m = make_manager(&engine, NULL, 2);
    kiln_error err;
    assert_int_equal(kiln_manager_mount(m, shared_pack, NULL, &err), KILN_OK);
    kiln_scope level;
    assert_int_equal(kiln_scope_create(m, "level", 0, &level, &err), KILN_OK);
    done_log done = {0};
    kiln_ref scene, missing;
    assert_int_equal(kiln_manager_request(m, level, KILN_HANDLE("props/crate/scene"), 0, on_done,
                                          &done, &scene, &err),
                     KILN_OK);
    assert_int_not_equal(scene.slot, 0);
    assert_int_equal(kiln_manager_request(m, level, KILN_HANDLE("props/missing"), 0, on_done, &done,
                                          &missing, &err),
                     KILN_ERR_NOT_FOUND);
    /* Engine callbacks run in pump, on this thread: nothing before. */
    assert_int_equal(engine.buffers, 0);
    while (done.calls == 0)
        kiln_manager_pump(m);
    assert_int_equal(done.calls, 1);
    assert_int_equal(done.results[0], KILN_OK);
    assert_memory_equal(&done.refs[0], &scene, sizeof scene);
    assert_non_null(kiln_asset_get(m, scene));
    assert_int_equal(kiln_asset_state_of(m, scene, &err), KILN_ASSET_READY);
    assert_int_equal(engine.buffers, 2);
    assert_int_equal(engine.textures, 1);
    /* A request for what is ready completes at the next pump. */
    kiln_ref mesh;
    assert_int_equal(
        kiln_manager_request(m, level, KILN_HANDLE("props/crate"), 0, on_done, &done, &mesh, &err),
        KILN_OK);
    assert_non_null(kiln_asset_get(m, mesh));
    assert_int_equal(kiln_manager_pump(m), 1);
    assert_int_equal(done.calls, 2);
    kiln_manager_destroy(m);
}

/* Every distinct file of a cooked folder's manifest: one handle each. */
static uint32_t manifest_files(const char *dir, kiln_handle *handles, uint32_t capacity) {
    char *path = test_path_join(dir, KILN_MANIFEST_FILE_NAME);
    kiln_file file;
    kiln_manifest_view view;
    kiln_error err;
    assert_int_equal(kiln_file_map(&file, path, 0, &err), KILN_OK);
    assert_int_equal(kiln_manifest_view_get(&file, &view, &err), KILN_OK);
    uint32_t count = 0;
    for (uint32_t i = 0; i < view.entry_count; i++) {
        const char *file_path = kiln_manifest_path(&view, &view.entries[i]);
        bool seen = false; /* the rows of a material table share its file */
        for (uint32_t j = 0; j < i && !seen; j++)
            seen = strcmp(kiln_manifest_path(&view, &view.entries[j]), file_path) == 0;
        if (!seen && count < capacity)
            handles[count++] = view.entries[i].hash;
    }
    kiln_file_close(&file);
    free(path);
    return count;
}

static void count_done(void *user, kiln_ref ref, kiln_result result, const kiln_error *err) {
    int *calls = user;
    (void)ref;
    assert_int_equal(result, KILN_OK);
    assert_non_null(err);
    (*calls)++;
}

static void wait_then_one_pump_delivers_everything(void **state) {
    (void)state;
    test_engine engine = {0};
    kiln_manager *m = make_manager(&engine, NULL, 2);
    kiln_error err;
    assert_int_equal(kiln_manager_mount(m, shared_out, NULL, &err), KILN_OK);
    kiln_handle handles[256];
    uint32_t count = manifest_files(shared_out, handles, 256);
    assert_true(count > 16); /* more than one of pump's batches of callbacks */
    kiln_scope level;
    assert_int_equal(kiln_scope_create(m, "level", 0, &level, &err), KILN_OK);
    static kiln_ref refs[256];
    int calls = 0;
    for (uint32_t i = 0; i < count; i++)
        assert_int_equal(
            kiln_manager_request(m, level, handles[i], 0, count_done, &calls, &refs[i], &err),
            KILN_OK);
    assert_true(kiln_manager_wait(m, 600000));
    /* The workers are idle: nothing queued or being read. Meshes and
     * textures wait for their upload, which only a pump does. */
    kiln_manager_stats stats;
    assert_int_equal(kiln_manager_stats_get(m, &stats, &err), KILN_OK);
    assert_int_equal(stats.queued, 0);
    assert_int_equal(stats.failed, 0);
    assert_int_equal(stats.ready + stats.loading, stats.assets);
    assert_int_equal(engine.buffers, 0);
    assert_int_equal(calls, 0);
    assert_int_equal(kiln_manager_pump(m), count);
    assert_int_equal(calls, (int)count);
    for (uint32_t i = 0; i < count; i++)
        assert_non_null(kiln_asset_get(m, refs[i]));
    assert_int_equal(kiln_manager_stats_get(m, &stats, &err), KILN_OK);
    assert_int_equal(stats.ready, stats.assets);
    assert_int_equal(kiln_manager_pump(m), 0); /* nothing delivered twice */
    assert_true(kiln_manager_wait(m, 0));      /* idle: no wait */
    kiln_manager_destroy(m);
    /* Without workers the pump loads: wait says so at once. */
    m = make_manager(NULL, NULL, 0);
    assert_int_equal(kiln_manager_mount(m, shared_out, NULL, &err), KILN_OK);
    calls = 0;
    kiln_ref ref;
    assert_int_equal(kiln_manager_request(m, KILN_SCOPE_PERMANENT, KILN_HANDLE("props/crate/scene"),
                                          0, count_done, &calls, &ref, &err),
                     KILN_OK);
    assert_true(kiln_manager_wait(m, 600000));
    assert_int_equal(kiln_asset_state_of(m, ref, &err), KILN_ASSET_QUEUED);
    assert_int_equal(kiln_manager_pump(m), 1);
    assert_non_null(kiln_asset_get(m, ref));
    kiln_manager_destroy(m);
    assert_true(kiln_manager_wait(NULL, 10));
}

/* A texture_staging that holds its loader until told to go on. */
typedef struct held_loader {
    atomic_int entered, release;
} held_loader;

static void *held_staging(void *user, const kiln_asset *asset, size_t size) {
    held_loader *h = user;
    (void)asset;
    (void)size;
    atomic_store(&h->entered, 1);
    while (atomic_load(&h->release) == 0)
        usleep(1000);
    return NULL; /* the manager allocates */
}

static double monotonic_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void wait_times_out_while_a_worker_reads(void **state) {
    (void)state;
    held_loader held;
    atomic_init(&held.entered, 0);
    atomic_init(&held.release, 0);
    kiln_manager_desc desc = {0};
    desc.worker_threads = 1;
    desc.flags = KILN_MANAGER_KEEP_TEXELS;
    desc.engine = (kiln_engine_callbacks){.user = &held, .texture_staging = held_staging};
    kiln_manager *m;
    kiln_error err;
    assert_int_equal(kiln_manager_create(&desc, &m, &err), KILN_OK);
    assert_int_equal(kiln_manager_mount(m, shared_out, NULL, &err), KILN_OK);
    kiln_ref texture;
    assert_int_equal(kiln_manager_request(m, KILN_SCOPE_PERMANENT, KILN_HANDLE("props/crate/crate"),
                                          0, NULL, NULL, &texture, &err),
                     KILN_OK);
    while (atomic_load(&held.entered) == 0)
        usleep(1000);
    /* The worker is inside the load: the wait runs out. */
    double start = monotonic_seconds();
    assert_false(kiln_manager_wait(m, 30));
    assert_true(monotonic_seconds() - start >= 0.029);
    assert_false(kiln_manager_wait(m, 0));
    assert_int_equal(kiln_asset_state_of(m, texture, &err), KILN_ASSET_LOADING);
    atomic_store(&held.release, 1);
    assert_true(kiln_manager_wait(m, 600000));
    assert_non_null(kiln_asset_get(m, texture)); /* nothing to create: ready on the worker */
    kiln_manager_destroy(m);
}

/* A callback that destroys the other scope: that scope's callbacks, even
 * those the same pump had taken off the list, are dropped. */
typedef struct two_scopes {
    kiln_manager *m;
    kiln_scope scopes[2];
    int calls[2];
    bool destroyed;
} two_scopes;

static void destroy_the_other(void *user, kiln_ref ref, kiln_result result, const kiln_error *err) {
    two_scopes *t = user;
    (void)err;
    assert_int_equal(result, KILN_OK);
    int mine = ref.scope == t->scopes[0] ? 0 : 1;
    assert_int_equal(ref.scope, t->scopes[mine]);
    t->calls[mine]++;
    if (!t->destroyed) {
        kiln_error e;
        assert_int_equal(kiln_scope_destroy(t->m, t->scopes[1 - mine], &e), KILN_OK);
        t->destroyed = true;
    }
}

static void callbacks_of_a_scope_destroyed_by_a_callback_are_dropped(void **state) {
    (void)state;
    two_scopes t = {0};
    t.m = make_manager(NULL, NULL, 2);
    kiln_error err;
    assert_int_equal(kiln_manager_mount(t.m, shared_out, NULL, &err), KILN_OK);
    const char *refs[] = {"props/crate/scene", "props/rock/scene", "props/pebble/scene"};
    for (int s = 0; s < 2; s++) {
        assert_int_equal(kiln_scope_create(t.m, "level", 0, &t.scopes[s], &err), KILN_OK);
        for (int i = 0; i < 3; i++) {
            kiln_ref r;
            assert_int_equal(kiln_manager_request(t.m, t.scopes[s], kiln_ref_hash(refs[i]), 0,
                                                  destroy_the_other, &t, &r, &err),
                             KILN_OK);
        }
    }
    assert_true(kiln_manager_wait(t.m, 600000));
    assert_int_equal(kiln_manager_pump(t.m), 3);
    /* One scope got its three callbacks, the other none. */
    assert_true((t.calls[0] == 3 && t.calls[1] == 0) || (t.calls[0] == 0 && t.calls[1] == 3));
    assert_int_equal(kiln_manager_pump(t.m), 0);
    kiln_manager_destroy(t.m);
}

/* kiln_manager_request_ref: a known ref is a request by its handle (the same
 * slot, loaded by the pump without workers); an unknown one fails at once
 * naming the ref, with no cook server connected (as in a shipping libkiln). */
static void requests_by_ref(void **state) {
    (void)state;
    test_engine engine = {0};
    kiln_manager *m = make_manager(&engine, NULL, 0);
    kiln_error err;
    assert_int_equal(kiln_manager_mount(m, shared_pack, NULL, &err), KILN_OK);
    done_log done = {0};
    kiln_ref by_ref, by_handle, unknown;
    assert_int_equal(kiln_manager_request_ref(m, KILN_SCOPE_TRANSIENT, "props/crate/scene", 0,
                                              on_done, &done, &by_ref, &err),
                     KILN_OK);
    assert_int_equal(kiln_manager_request(m, KILN_SCOPE_TRANSIENT, KILN_HANDLE("props/crate/scene"),
                                          0, NULL, NULL, &by_handle, &err),
                     KILN_OK);
    assert_memory_equal(&by_ref, &by_handle, sizeof by_ref);
    assert_int_equal(kiln_asset_state_of(m, by_ref, &err), KILN_ASSET_QUEUED);
    assert_int_equal(kiln_manager_pump(m), 1); /* no workers: the pump loads */
    assert_int_equal(done.results[0], KILN_OK);
    assert_string_equal(kiln_asset_get(m, by_ref)->ref, "props/crate/scene");
    assert_int_equal(kiln_manager_request_ref(m, KILN_SCOPE_TRANSIENT, "props/nothing", 0, on_done,
                                              &done, &unknown, &err),
                     KILN_ERR_NOT_FOUND);
    assert_non_null(strstr(err.message, "'props/nothing'"));
    assert_int_equal(unknown.slot, 0);
    assert_int_equal(
        kiln_manager_request_ref(m, KILN_SCOPE_TRANSIENT, NULL, 0, NULL, NULL, &unknown, &err),
        KILN_ERR_INVALID_ARGUMENT);
    assert_int_equal(kiln_manager_pump(m), 0);
    assert_int_equal(done.calls, 1);
    kiln_manager_destroy(m);
}

static void ready_without_pump_when_nothing_to_create(void **state) {
    (void)state;
    kiln_manager *m = make_manager(NULL, NULL, 2); /* no engine callbacks */
    kiln_error err;
    assert_int_equal(kiln_manager_mount(m, shared_out, NULL, &err), KILN_OK);
    done_log done = {0};
    kiln_ref scene;
    assert_int_equal(kiln_manager_request(m, KILN_SCOPE_PERMANENT, KILN_HANDLE("props/crate/scene"),
                                          0, on_done, &done, &scene, &err),
                     KILN_OK);
    /* The workers finish it alone: no pump is called until it is ready. */
    for (int i = 0; i < 600000 && kiln_asset_get(m, scene) == NULL; i++)
        usleep(100);
    assert_non_null(kiln_asset_get(m, scene));
    assert_int_equal(done.calls, 0); /* callbacks wait for the pump */
    assert_int_equal(kiln_manager_pump(m), 1);
    assert_int_equal(done.results[0], KILN_OK);
    kiln_manager_destroy(m);
}

static void priorities_order_the_queue(void **state) {
    (void)state;
    test_engine engine = {0};
    kiln_manager *m = make_manager(&engine, NULL, 0); /* pump loads: one at a time, in order */
    kiln_error err;
    assert_int_equal(kiln_manager_mount(m, shared_out, NULL, &err), KILN_OK);
    kiln_ref r;
    assert_int_equal(kiln_manager_request(m, KILN_SCOPE_PERMANENT, KILN_HANDLE("props/rock"), 1,
                                          NULL, NULL, &r, &err),
                     KILN_OK);
    assert_int_equal(kiln_asset_state_of(m, r, &err), KILN_ASSET_QUEUED);
    assert_int_equal(kiln_manager_request(m, KILN_SCOPE_PERMANENT, KILN_HANDLE("props/pebble"), 5,
                                          NULL, NULL, &r, &err),
                     KILN_OK);
    assert_int_equal(kiln_manager_request(m, KILN_SCOPE_PERMANENT, KILN_HANDLE("props/sign"), 3,
                                          NULL, NULL, &r, &err),
                     KILN_OK);
    /* A second request raises rock above the others. */
    assert_int_equal(kiln_manager_request(m, KILN_SCOPE_TRANSIENT, KILN_HANDLE("props/rock"), 9,
                                          NULL, NULL, &r, &err),
                     KILN_OK);
    kiln_manager_pump(m);
    assert_int_equal(engine.order_count, 3);
    assert_string_equal(engine.order[0], "props/rock");
    assert_string_equal(engine.order[1], "props/pebble");
    assert_string_equal(engine.order[2], "props/sign");
    kiln_manager_destroy(m);
}

static void destroying_a_scope_cancels_its_requests(void **state) {
    (void)state;
    test_engine engine = {0};
    kiln_manager *m = make_manager(&engine, NULL, 0);
    kiln_error err;
    assert_int_equal(kiln_manager_mount(m, shared_out, NULL, &err), KILN_OK);
    kiln_scope level, keep;
    assert_int_equal(kiln_scope_create(m, "level", 0, &level, &err), KILN_OK);
    assert_int_equal(kiln_scope_create(m, "keep", 0, &keep, &err), KILN_OK);
    done_log done = {0};
    kiln_ref a, b, c;
    assert_int_equal(kiln_manager_request(m, level, KILN_HANDLE("props/crate/scene"), 0, on_done,
                                          &done, &a, &err),
                     KILN_OK);
    assert_int_equal(
        kiln_manager_request(m, level, KILN_HANDLE("props/rock"), 0, on_done, &done, &b, &err),
        KILN_OK);
    assert_int_equal(
        kiln_manager_request(m, keep, KILN_HANDLE("props/rock"), 0, on_done, &done, &c, &err),
        KILN_OK);
    assert_int_equal(kiln_scope_destroy(m, level, &err), KILN_OK);
    kiln_manager_stats stats;
    assert_int_equal(kiln_manager_stats_get(m, &stats, &err), KILN_OK);
    assert_int_equal(stats.queued, 1); /* rock: keep still wants it */
    assert_int_equal(kiln_manager_pump(m), 1);
    assert_int_equal(done.calls, 1);
    assert_memory_equal(&done.refs[0], &c, sizeof c);
    assert_null(kiln_asset_get(m, a));
    assert_null(kiln_asset_get(m, b));
    assert_non_null(kiln_asset_get(m, c));
    assert_int_equal(engine.textures, 0); /* the crate was never loaded */
    assert_int_equal(engine.buffers, 2);
    kiln_manager_destroy(m);
}

static void workers_cancel_and_finish_cleanly(void **state) {
    (void)state;
    test_engine engine = {0};
    alloc_log alloc = {0};
    kiln_manager *m = make_manager(&engine, &alloc, 2);
    kiln_error err;
    assert_int_equal(kiln_manager_mount(m, shared_out, NULL, &err), KILN_OK);
    const char *refs[] = {"props/crate/scene", "props/rock/scene", "props/pebble/scene",
                          "props/sign/scene", "level/column/scene"};
    for (int round = 0; round < 20; round++) {
        kiln_scope level;
        assert_int_equal(kiln_scope_create(m, "level", 0, &level, &err), KILN_OK);
        for (int i = 0; i < 5; i++) {
            kiln_ref r;
            assert_int_equal(
                kiln_manager_request(m, level, kiln_ref_hash(refs[i]), i, NULL, NULL, &r, &err),
                KILN_OK);
        }
        if (round % 2 == 1)
            kiln_manager_pump(m);
        assert_int_equal(kiln_scope_destroy(m, level, &err), KILN_OK);
        kiln_manager_pump(m);
    }
    kiln_manager_destroy(m);
    assert_int_equal(engine.buffers, engine.buffers_destroyed);
    assert_int_equal(engine.textures, engine.textures_destroyed);
    assert_int_equal(engine.staging_given, engine.staging_released + engine.staging_consumed);
    assert_int_equal(alloc.outstanding, 0);
}

static void keep_texels_without_engine(void **state) {
    (void)state;
    kiln_manager_desc desc = {0};
    desc.flags = KILN_MANAGER_KEEP_TEXELS;
    kiln_manager *m;
    kiln_error err;
    assert_int_equal(kiln_manager_create(&desc, &m, &err), KILN_OK);
    assert_int_equal(kiln_manager_mount(m, shared_out, NULL, &err), KILN_OK);
    kiln_ref ref;
    assert_int_equal(
        kiln_manager_load_ref(m, KILN_SCOPE_PERMANENT, "props/crate/crate", &ref, &err), KILN_OK);
    const kiln_asset *t = kiln_asset_get(m, ref);
    assert_non_null(t->texels);
    assert_int_equal(t->texture.levels, 7);
    uint64_t sum = 0;
    for (uint32_t l = 0; l < t->texture.levels; l++) {
        assert_int_equal(t->level_offsets[l], sum);
        sum += (kiln_ktx2_level_size(&t->texture, l) + 15) / 16 * 16;
    }
    assert_int_equal(t->texel_bytes, sum);
    assert_int_equal(t->bytes, t->file_bytes + sum);
    kiln_manager_destroy(m);
}

static void bad_arguments(void **state) {
    (void)state;
    kiln_error err;
    kiln_manager *m = NULL;
    assert_int_equal(kiln_manager_create(NULL, &m, &err), KILN_ERR_INVALID_ARGUMENT);
    kiln_manager_desc desc = {0};
    desc.allocator.alloc = test_counting_allocator(NULL).alloc; /* no free */
    assert_int_equal(kiln_manager_create(&desc, &m, &err), KILN_ERR_INVALID_ARGUMENT);
    assert_null(m);
    desc = (kiln_manager_desc){0};
    desc.max_scopes = 1;
    assert_int_equal(kiln_manager_create(&desc, &m, &err), KILN_ERR_INVALID_ARGUMENT);
    kiln_manager_destroy(NULL);
    assert_null(kiln_asset_get(NULL, (kiln_ref){0}));
    assert_int_equal(kiln_manager_pump(NULL), 0);
    assert_string_equal(kiln_asset_state_str(KILN_ASSET_READY), "ready");
    assert_string_equal(kiln_asset_state_str((kiln_asset_state)42), "invalid");
    /* Scope table full. */
    desc.max_scopes = 3;
    assert_int_equal(kiln_manager_create(&desc, &m, &err), KILN_OK);
    kiln_scope s;
    assert_int_equal(kiln_scope_create(m, "one", 0, &s, &err), KILN_OK);
    assert_int_equal(kiln_scope_create(m, "two", 0, &s, &err), KILN_ERR_OUT_OF_MEMORY);
    kiln_manager_destroy(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(handles_are_ref_hashes),
        cmocka_unit_test(sync_load_brings_dependencies),
        cmocka_unit_test(animations_and_shaders_load),
        cmocka_unit_test(shared_across_scopes_and_refcounted),
        cmocka_unit_test(transient_and_permanent_scopes),
        cmocka_unit_test(pack_mount_loads_in_place),
        cmocka_unit_test(later_mounts_override),
        cmocka_unit_test(bad_input_fails_refs_with_messages),
        cmocka_unit_test(engine_failure_fails_the_asset),
        cmocka_unit_test(budgets_refuse_and_report),
        cmocka_unit_test(requests_complete_through_pump),
        cmocka_unit_test(wait_then_one_pump_delivers_everything),
        cmocka_unit_test(wait_times_out_while_a_worker_reads),
        cmocka_unit_test(callbacks_of_a_scope_destroyed_by_a_callback_are_dropped),
        cmocka_unit_test(requests_by_ref),
        cmocka_unit_test(ready_without_pump_when_nothing_to_create),
        cmocka_unit_test(priorities_order_the_queue),
        cmocka_unit_test(destroying_a_scope_cancels_its_requests),
        cmocka_unit_test(workers_cancel_and_finish_cleanly),
        cmocka_unit_test(keep_texels_without_engine),
        cmocka_unit_test(bad_arguments),
    };
    return cmocka_run_group_tests(tests, setup_all, teardown_all);
}
