/* Hot reload in the asset manager (kiln/manager.h): kiln_manager_reload,
 * kiln_manager_refresh and kiln_manager_watch on a runtime folder the real
 * cooker rewrites (kiln build into the same output, which replaces changed
 * files by rename and assets.kman last). Checked: the ref stays and its data
 * is the new file's (index counts computed here from the OBJ written), the
 * engine makes the new objects and destroys the old ones two pumps later,
 * the old data stays readable until then, dependents are told, a changed
 * dependency list loads the new dependency and releases the old one, a bad
 * new file keeps the old data and says why, a refresh finds a new asset, and
 * the watch notices a rebuild. */
#include <inttypes.h>
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

/* ---------------------------------------------------------------------------
 * A source folder and its runtime folder, cooked by the kiln command
 * ------------------------------------------------------------------------- */

typedef test_project project;

static void write_text(const project *p, const char *name, const char *text) {
    char *path = test_path_join(p->props, name);
    test_write_file(path, text, strlen(text));
    free(path);
}

static void cook(const project *p) {
    test_project_cook(p);
}

/* props/crate.{obj,mtl,png} from the examples, cooked. */
static project make_project(const char *name) {
    project p = test_project_new(name, "reload_out");
    static const char *const files[] = {"crate.obj", "crate.mtl", "crate.png"};
    for (int i = 0; i < 3; i++) {
        char from[256], to[64];
        snprintf(from, sizeof from, "%s/%s", EXAMPLES "/props", files[i]);
        snprintf(to, sizeof to, "props/%s", files[i]);
        test_project_copy(&p, from, to);
    }
    cook(&p);
    return p;
}

/* A crate that is `triangles` triangles (a fan), using material "wood":
 * 3 * triangles indices once cooked (no vertex is shared across faces that
 * differ, and welding keeps the count of indices). */
static void write_fan(const project *p, int triangles) {
    char text[4096];
    size_t at = (size_t)snprintf(text, sizeof text, "mtllib crate.mtl\no crate\nv 0 0 0\n");
    for (int i = 0; i <= triangles; i++)
        at += (size_t)snprintf(text + at, sizeof text - at, "v %d 1 0\n", i + 1);
    at += (size_t)snprintf(text + at, sizeof text - at, "usemtl wood\n");
    for (int i = 0; i < triangles; i++)
        at += (size_t)snprintf(text + at, sizeof text - at, "f 1 %d %d\n", i + 2, i + 3);
    write_text(p, "crate.obj", text);
}

/* A manager whose engine makes objects, counting, and records reload events. */
static kiln_manager *make_manager(test_engine *engine, uint32_t workers) {
    return test_manager_new(engine, TEST_ENGINE_OBJECTS | TEST_ENGINE_RELOADED, NULL, workers);
}

/* Indices of a mesh's full detail: level 0 of every submesh (the file also
 * holds the simplified levels). */
static uint32_t triangles_of(const kiln_asset *a) {
    uint32_t indices = 0;
    for (uint32_t s = 0; s < a->mesh.desc->submesh_count; s++)
        indices += kiln_mesh_lod(&a->mesh, s, 0)->index_count;
    return indices / 3;
}

/* The dependency of `a` of kind `kind`, or NULL. */
static const kiln_asset *dependency_of(kiln_manager *m, const kiln_asset *a, kiln_asset_kind kind) {
    for (uint32_t i = 0; i < a->dependency_count; i++) {
        const kiln_asset *d = kiln_asset_get(m, a->dependencies[i].ref);
        if (d != NULL && d->kind == kind)
            return d;
    }
    return NULL;
}

/* ---------------------------------------------------------------------------
 * Packs: a tiny PNG to change the crate's texture with, and replacing a pack
 * file the way the cooker does (a new file renamed over the old one)
 * ------------------------------------------------------------------------- */

static uint32_t crc32_of(const uint8_t *p, size_t n) {
    uint32_t crc = ~0u;
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++)
            crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

static size_t put_be32(uint8_t *at, uint32_t v) {
    at[0] = (uint8_t)(v >> 24);
    at[1] = (uint8_t)(v >> 16);
    at[2] = (uint8_t)(v >> 8);
    at[3] = (uint8_t)v;
    return 4;
}

static size_t png_chunk(uint8_t *at, const char *type, const uint8_t *data, size_t size) {
    size_t n = put_be32(at, (uint32_t)size);
    memcpy(at + n, type, 4);
    if (size > 0)
        memcpy(at + n + 4, data, size);
    n += 4 + size;
    return n + put_be32(at + n, crc32_of(at + 4, size + 4));
}

/* A 4x4 RGBA8 PNG of one colour (stored deflate) as props/crate.png. */
static void write_tiny_png(const project *p, uint8_t r, uint8_t g, uint8_t b) {
    enum { W = 4, H = 4, RAW = H * (1 + 4 * W) };
    uint8_t raw[RAW];
    for (int y = 0; y < H; y++) {
        uint8_t *row = raw + y * (1 + 4 * W);
        row[0] = 0;
        for (int x = 0; x < W; x++) {
            row[1 + 4 * x] = r;
            row[2 + 4 * x] = g;
            row[3 + 4 * x] = b;
            row[4 + 4 * x] = 255;
        }
    }
    uint8_t z[7 + RAW + 4] = {0x78, 0x01, 0x01, (uint8_t)RAW, 0, (uint8_t)~RAW, 0xff};
    memcpy(z + 7, raw, RAW);
    uint32_t s1 = 1, s2 = 0;
    for (size_t i = 0; i < RAW; i++) {
        s1 = (s1 + raw[i]) % 65521u;
        s2 = (s2 + s1) % 65521u;
    }
    put_be32(z + 7 + RAW, s2 << 16 | s1);
    uint8_t png[256];
    size_t n = 8;
    memcpy(png, "\x89PNG\r\n\x1a\n", 8);
    const uint8_t ihdr[13] = {0, 0, 0, W, 0, 0, 0, H, 8, 6, 0, 0, 0};
    n += png_chunk(png + n, "IHDR", ihdr, sizeof ihdr);
    n += png_chunk(png + n, "IDAT", z, sizeof z);
    n += png_chunk(png + n, "IEND", NULL, 0);
    char *path = test_path_join(p->props, "crate.png");
    test_write_file(path, png, n);
    free(path);
}

static void cook_pack(const project *p) {
    char *argv[] = {"kiln", "build", "-q", "-j", "1", "--pack", "-i", p->src, "-o", p->out, NULL};
    assert_int_equal(cli_main(10, argv), 0);
}

static char *pack_path(const project *p) {
    size_t length = strlen(p->out) + 6;
    char *pack = malloc(length);
    snprintf(pack, length, "%s.kpak", p->out);
    return pack;
}

/* Puts `size` bytes at `path` as the cooker does: a new file renamed over it
 * (the old mapping keeps the old inode's bytes). */
static void replace_file(const char *path, const void *bytes, size_t size) {
    size_t length = strlen(path) + 8;
    char *tmp = malloc(length);
    snprintf(tmp, length, "%s.new", path);
    test_write_file(tmp, bytes, size);
    assert_int_equal(rename(tmp, path), 0);
    free(tmp);
}

static const kiln_asset *texture_of(kiln_manager *m, const kiln_asset *mesh) {
    const kiln_asset *table = dependency_of(m, mesh, KILN_ASSET_MATERIAL);
    assert_non_null(table);
    const kiln_asset *texture = dependency_of(m, table, KILN_ASSET_TEXTURE);
    assert_non_null(texture);
    return texture;
}

/* ---------------------------------------------------------------------------
 * Tests
 * ------------------------------------------------------------------------- */

static void reload_in_place(void **state) {
    (void)state;
    project p = make_project("reload_in_place");
    test_engine engine = {0};
    kiln_manager *m = make_manager(&engine, 0);
    kiln_error err;
    assert_int_equal(kiln_manager_mount(m, p.out, NULL, &err), KILN_OK);
    kiln_scope level;
    assert_int_equal(kiln_scope_create(m, "level", 0, &level, &err), KILN_OK);
    kiln_ref scene, mesh;
    assert_int_equal(kiln_manager_load_ref(m, level, "props/crate/scene", &scene, &err), KILN_OK);
    assert_int_equal(kiln_manager_load_ref(m, level, "props/crate", &mesh, &err), KILN_OK);
    const kiln_asset *old = kiln_asset_get(m, mesh);
    assert_non_null(old);
    assert_int_equal(triangles_of(old), 12); /* the example cube: 6 faces of 2 */
    assert_int_equal(engine.buffers, 2);
    void *old_vertices = old->engine_buffers[0];

    /* Not loaded: nothing to do. */
    assert_int_equal(kiln_manager_reload(m, KILN_HANDLE("props/nothing"), &err), KILN_OK);

    write_fan(&p, 5);
    cook(&p);
    assert_int_equal(kiln_manager_reload(m, KILN_HANDLE("props/crate"), &err), KILN_OK);
    const kiln_asset *now = kiln_asset_get(m, mesh);
    assert_non_null(now);
    assert_ptr_not_equal(now, old);
    assert_int_equal(triangles_of(now), 5);
    assert_int_equal(kiln_asset_state_of(m, mesh, &err), KILN_ASSET_READY);
    assert_string_equal(now->ref, "props/crate");
    /* New engine objects; the old ones live on with the old data. */
    assert_int_equal(engine.buffers, 4);
    assert_int_equal(engine.buffers_destroyed, 0);
    assert_ptr_not_equal(now->engine_buffers[0], old_vertices);
    assert_int_equal(engine.reload.applied, 1);
    assert_true(engine.reload.last_applied == KILN_HANDLE("props/crate"));
    assert_ptr_equal(engine.reload.last_previous, old);
    assert_ptr_equal(engine.reload.last_asset, now);
    /* The scene holding the mesh was told; the scene's dependency ref
     * reaches the new data. */
    assert_true(test_reload_told(&engine.reload, "props/crate/scene"));
    assert_ptr_equal(dependency_of(m, kiln_asset_get(m, scene), KILN_ASSET_MESH), now);
    kiln_manager_stats stats;
    assert_int_equal(kiln_manager_stats_get(m, &stats, &err), KILN_OK);
    assert_int_equal(stats.reloads, 1);
    assert_int_equal(stats.reload_failures, 0);
    assert_int_equal(stats.retired, 1);
    assert_int_equal(stats.assets, 4);
    /* The scope's bytes follow the new file. */
    char *path = test_path_join(p.out, "props/crate.kmesh");
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    free(path);
    assert_int_equal(now->file_bytes, (uint64_t)st.st_size);

    /* The old data stays readable until the second pump. */
    kiln_manager_pump(m);
    assert_int_equal(triangles_of(old), 12);
    assert_ptr_equal(old->engine_buffers[0], old_vertices);
    assert_int_equal(engine.buffers_destroyed, 0);
    kiln_manager_pump(m);
    assert_int_equal(engine.buffers_destroyed, 2);
    assert_int_equal(kiln_manager_stats_get(m, &stats, &err), KILN_OK);
    assert_int_equal(stats.retired, 0);
    assert_int_equal(kiln_asset_reload_status(m, mesh, &err), KILN_OK);

    /* Stale refs stay safe: the scope's destruction unloads everything. */
    assert_int_equal(kiln_scope_destroy(m, level, &err), KILN_OK);
    assert_null(kiln_asset_get(m, mesh));
    assert_int_equal(kiln_asset_reload_status(m, mesh, &err), KILN_ERR_INVALID_ARGUMENT);
    assert_int_equal(kiln_manager_reload(m, KILN_HANDLE("props/crate"), &err), KILN_OK);
    assert_int_equal(engine.buffers, engine.buffers_destroyed);
    assert_int_equal(engine.textures, engine.textures_destroyed);
    kiln_manager_destroy(m);
    test_project_free(&p);
}

static void failed_reload_keeps_old_data(void **state) {
    (void)state;
    project p = make_project("reload_failed");
    test_engine engine = {0};
    kiln_manager *m = make_manager(&engine, 0);
    kiln_error err;
    assert_int_equal(kiln_manager_mount(m, p.out, NULL, &err), KILN_OK);
    kiln_ref mesh;
    assert_int_equal(kiln_manager_load_ref(m, KILN_SCOPE_PERMANENT, "props/crate", &mesh, &err),
                     KILN_OK);
    const kiln_asset *old = kiln_asset_get(m, mesh);
    char *path = test_path_join(p.out, "props/crate.kmesh");

    /* Corrupt. */
    test_write_file(path, "KILN", 4);
    kiln_result r = kiln_manager_reload(m, KILN_HANDLE("props/crate"), &err);
    assert_int_not_equal(r, KILN_OK);
    assert_non_null(strstr(err.message, "crate.kmesh"));
    assert_ptr_equal(kiln_asset_get(m, mesh), old);
    assert_int_equal(triangles_of(old), 12);
    assert_int_equal(kiln_asset_state_of(m, mesh, &err), KILN_ASSET_READY);
    assert_int_equal(engine.reload.failed, 1);
    assert_int_equal(engine.reload.failure_code, r);
    assert_true(engine.reload.last_failed == KILN_HANDLE("props/crate"));
    kiln_error status;
    assert_int_equal(kiln_asset_reload_status(m, mesh, &status), r);
    assert_non_null(strstr(status.message, "crate.kmesh"));
    assert_int_equal(engine.buffers, 2); /* nothing created for a file that did not read */

    /* Missing. */
    assert_int_equal(unlink(path), 0);
    assert_int_equal(kiln_manager_reload(m, KILN_HANDLE("props/crate"), &err), KILN_ERR_IO);
    assert_non_null(strstr(err.message, "cannot open"));
    assert_ptr_equal(kiln_asset_get(m, mesh), old);
    assert_int_equal(engine.reload.failed, 2);

    /* Rebuilt: the next reload applies and clears the status. */
    write_fan(&p, 2);
    cook(&p);
    assert_int_equal(kiln_manager_reload(m, KILN_HANDLE("props/crate"), &err), KILN_OK);
    assert_int_equal(triangles_of(kiln_asset_get(m, mesh)), 2);
    assert_int_equal(kiln_asset_reload_status(m, mesh, &status), KILN_OK);
    kiln_manager_stats stats;
    assert_int_equal(kiln_manager_stats_get(m, &stats, &err), KILN_OK);
    assert_int_equal(stats.reloads, 1);
    assert_int_equal(stats.reload_failures, 2);
    kiln_manager_destroy(m);
    assert_int_equal(engine.buffers, engine.buffers_destroyed);
    free(path);
    test_project_free(&p);
}

static void dependency_swap_loads_new_and_releases_old(void **state) {
    (void)state;
    project p = make_project("reload_swap");
    test_engine engine = {0};
    kiln_manager *m = make_manager(&engine, 1);
    kiln_error err;
    assert_int_equal(kiln_manager_mount(m, p.out, NULL, &err), KILN_OK);
    kiln_scope level;
    assert_int_equal(kiln_scope_create(m, "level", 0, &level, &err), KILN_OK);
    kiln_ref table;
    assert_int_equal(kiln_manager_load_ref(m, level, "props/crate/materials", &table, &err),
                     KILN_OK);
    const kiln_asset *t = kiln_asset_get(m, table);
    assert_int_equal(t->dependency_count, 1);
    const kiln_asset *texture = kiln_asset_get(m, t->dependencies[0].ref);
    assert_string_equal(texture->ref, "props/crate/crate");
    kiln_ref old_texture = t->dependencies[0].ref;
    assert_int_equal(engine.textures, 1);

    /* The table now names another texture (the same picture under another
     * name; the old one leaves the sources, so the cooker removes it). */
    char *from = test_path_join(p.props, "crate.png");
    char *to = test_path_join(p.props, "planks.png");
    assert_int_equal(rename(from, to), 0);
    write_text(&p, "crate.mtl",
               "newmtl wood\nKd 0.8 0.6 0.4\nmap_Kd planks.png\n"
               "newmtl metal\nKd 0.6 0.6 0.65\n");
    cook(&p);
    kiln_manager_stats before;
    assert_int_equal(kiln_manager_stats_get(m, &before, &err), KILN_OK);
    assert_int_equal(kiln_manager_refresh(m, &err), KILN_OK);
    assert_int_equal(engine.reload.failed, 0); /* the old texture, released, is not checked */
    t = kiln_asset_get(m, table);
    assert_int_equal(t->dependency_count, 1);
    const kiln_asset *planks = kiln_asset_get(m, t->dependencies[0].ref);
    assert_non_null(planks);
    assert_string_equal(planks->ref, "props/crate/planks");
    assert_non_null(planks->engine_texture);
    assert_int_equal(engine.textures, 2);
    /* The old texture is held by the old table until the second pump. */
    assert_non_null(kiln_asset_get(m, old_texture));
    assert_int_equal(engine.textures_destroyed, 0);
    kiln_manager_pump(m);
    kiln_manager_pump(m);
    assert_null(kiln_asset_get(m, old_texture));
    assert_int_equal(engine.textures_destroyed, 1);
    kiln_manager_stats stats;
    assert_int_equal(kiln_manager_stats_get(m, &stats, &err), KILN_OK);
    assert_int_equal(stats.assets, 2);
    assert_int_equal(stats.refreshes, before.refreshes + 1);
    /* The scope's bytes: the table and the new texture, once each. */
    bool found = false;
    for (uint32_t i = 0; i < stats.scope_count; i++) {
        if (stats.scopes[i].scope == level) {
            found = true;
            assert_int_equal(stats.scopes[i].assets, 2);
            assert_int_equal(stats.scopes[i].bytes, t->bytes + planks->bytes);
        }
    }
    assert_true(found);
    kiln_manager_destroy(m);
    assert_int_equal(engine.textures, engine.textures_destroyed);
    free(from);
    free(to);
    test_project_free(&p);
}

static void refresh_finds_new_assets_and_only_changed_files(void **state) {
    (void)state;
    project p = make_project("reload_refresh");
    test_engine engine = {0};
    kiln_manager *m = make_manager(&engine, 0);
    kiln_error err;
    assert_int_equal(kiln_manager_mount(m, p.out, NULL, &err), KILN_OK);
    kiln_ref scene, rock;
    assert_int_equal(
        kiln_manager_load_ref(m, KILN_SCOPE_PERMANENT, "props/crate/scene", &scene, &err), KILN_OK);
    assert_int_equal(kiln_manager_load_ref(m, KILN_SCOPE_TRANSIENT, "props/rock", &rock, &err),
                     KILN_ERR_NOT_FOUND);

    /* Nothing changed: nothing reloads. */
    assert_int_equal(kiln_manager_refresh(m, &err), KILN_OK);
    assert_int_equal(engine.reload.applied, 0);

    /* A new model; the crate's texture is untouched. */
    test_project_copy(&p, EXAMPLES "/props/rock.obj", "props/rock.obj");
    cook(&p);
    assert_int_equal(kiln_manager_refresh(m, &err), KILN_OK);
    assert_int_equal(engine.reload.applied, 0); /* the crate's files were not rewritten */
    assert_int_equal(kiln_manager_load_ref(m, KILN_SCOPE_TRANSIENT, "props/rock", &rock, &err),
                     KILN_OK);
    assert_non_null(kiln_asset_get(m, rock));

    /* The crate's mesh changes: the model's files are rewritten (mesh,
     * table, scene), its texture is not. */
    int textures = engine.textures;
    write_fan(&p, 3);
    cook(&p);
    assert_int_equal(kiln_manager_refresh(m, &err), KILN_OK);
    assert_true(engine.reload.applied >= 1);
    assert_int_equal(engine.textures, textures);
    const kiln_asset *s = kiln_asset_get(m, scene);
    const kiln_asset *mesh = dependency_of(m, s, KILN_ASSET_MESH);
    assert_non_null(mesh);
    assert_int_equal(triangles_of(mesh), 3);

    /* The rock leaves the sources: its loaded data stays, its reload fails,
     * once. */
    char *rock_source = test_path_join(p.props, "rock.obj");
    assert_int_equal(unlink(rock_source), 0);
    free(rock_source);
    cook(&p);
    int failed = engine.reload.failed;
    assert_int_not_equal(kiln_manager_refresh(m, &err), KILN_OK);
    /* The mesh, then its material table, which it still holds. */
    assert_int_equal(engine.reload.failed, failed + 2);
    failed = engine.reload.failed;
    assert_true(engine.reload.last_failed == KILN_HANDLE("props/rock/materials"));
    assert_non_null(kiln_asset_get(m, rock));
    assert_int_not_equal(kiln_asset_reload_status(m, rock, &err), KILN_OK);
    assert_non_null(strstr(err.message, "props/rock"));
    assert_int_equal(kiln_manager_refresh(m, &err), KILN_OK); /* reported once */
    assert_int_equal(engine.reload.failed, failed);
    kiln_manager_destroy(m);
    assert_int_equal(engine.buffers, engine.buffers_destroyed);
    assert_int_equal(engine.textures, engine.textures_destroyed);
    test_project_free(&p);
}

static void pack_assets_reload_from_the_pack(void **state) {
    (void)state;
    project p = make_project("reload_pack");
    char *argv[] = {"kiln", "build", "-q", "-j", "1", "--pack", "-i", p.src, "-o", p.out, NULL};
    assert_int_equal(cli_main(10, argv), 0);
    size_t length = strlen(p.out) + 6;
    char *pack = malloc(length);
    snprintf(pack, length, "%s.kpak", p.out);
    test_engine engine = {0};
    kiln_manager *m = make_manager(&engine, 0);
    kiln_error err;
    assert_int_equal(kiln_manager_mount(m, pack, NULL, &err), KILN_OK);
    kiln_ref mesh;
    assert_int_equal(kiln_manager_load_ref(m, KILN_SCOPE_PERMANENT, "props/crate", &mesh, &err),
                     KILN_OK);
    assert_int_equal(kiln_manager_refresh(m, &err), KILN_OK); /* packs are skipped */
    assert_int_equal(engine.reload.applied, 0);
    const kiln_asset *old = kiln_asset_get(m, mesh);
    assert_int_equal(kiln_manager_reload(m, KILN_HANDLE("props/crate"), &err), KILN_OK);
    assert_int_equal(engine.reload.applied, 1);
    assert_ptr_not_equal(kiln_asset_get(m, mesh), old);
    assert_int_equal(triangles_of(kiln_asset_get(m, mesh)), 12);
    kiln_manager_destroy(m);
    assert_int_equal(engine.buffers, engine.buffers_destroyed);
    free(pack);
    test_project_free(&p);
}

static void watch_notices_a_rebuild(void **state) {
    (void)state;
    project p = make_project("reload_watch");
    test_engine engine = {0};
    kiln_manager *m = make_manager(&engine, 2);
    kiln_error err;
    assert_int_equal(kiln_manager_mount(m, p.out, NULL, &err), KILN_OK);
#ifndef __linux__
    assert_int_equal(kiln_manager_watch(m, true, &err), KILN_ERR_UNSUPPORTED);
    kiln_manager_destroy(m);
    test_project_free(&p);
    return;
#else
    assert_int_equal(kiln_manager_watch(m, true, &err), KILN_OK);
    assert_int_equal(kiln_manager_watch(m, true, &err), KILN_OK); /* twice is fine */
    kiln_ref mesh;
    assert_int_equal(kiln_manager_load_ref(m, KILN_SCOPE_PERMANENT, "props/crate", &mesh, &err),
                     KILN_OK);
    for (int i = 0; i < 3; i++)
        kiln_manager_pump(m);
    assert_int_equal(engine.reload.applied, 0);
    write_fan(&p, 4);
    cook(&p);
    /* Poll as a game loop would (bounded; no timing is asserted). */
    const kiln_asset *a = kiln_asset_get(m, mesh);
    for (int i = 0; i < 1000 && triangles_of(a) != 4; i++) {
        kiln_manager_pump(m);
        struct timespec pause = {0, 5 * 1000 * 1000};
        nanosleep(&pause, NULL);
        a = kiln_asset_get(m, mesh);
    }
    assert_int_equal(triangles_of(a), 4);
    assert_true(engine.reload.applied >= 1); /* the mesh, and its table when its rows changed */
    /* Stopped: a rebuild is not noticed. */
    assert_int_equal(kiln_manager_watch(m, false, &err), KILN_OK);
    write_fan(&p, 6);
    cook(&p);
    for (int i = 0; i < 30; i++)
        kiln_manager_pump(m);
    assert_int_equal(triangles_of(kiln_asset_get(m, mesh)), 4);
    kiln_manager_destroy(m);
    assert_int_equal(engine.buffers, engine.buffers_destroyed);
    test_project_free(&p);
#endif
}

/* A pack replaced on disk with one where only the texture changed: refresh
 * opens the new pack, reloads the texture alone (one APPLIED event, its
 * material told), keeps every other asset's data, which still points into
 * the old pack's mapping and stays readable; the replaced texture is freed
 * two pumps later. */
static void replaced_pack_reloads_only_changed_entries(void **state) {
    (void)state;
    project p = make_project("reload_pack_swap");
    cook_pack(&p);
    char *pack = pack_path(&p);
    test_engine engine = {0};
    kiln_manager *m = make_manager(&engine, 2);
    kiln_error err;
    assert_int_equal(kiln_manager_mount(m, pack, NULL, &err), KILN_OK);
    kiln_scope level;
    assert_int_equal(kiln_scope_create(m, "level", 0, &level, &err), KILN_OK);
    kiln_ref scene, mesh;
    assert_int_equal(kiln_manager_load_ref(m, level, "props/crate/scene", &scene, &err), KILN_OK);
    assert_int_equal(kiln_manager_load_ref(m, level, "props/crate", &mesh, &err), KILN_OK);
    const kiln_asset *old_scene = kiln_asset_get(m, scene);
    const kiln_asset *old_mesh = kiln_asset_get(m, mesh);
    const kiln_asset *old_table = dependency_of(m, old_mesh, KILN_ASSET_MATERIAL);
    const kiln_asset *old_texture = texture_of(m, old_mesh);
    assert_int_equal(old_texture->texture.width, 64); /* the example's crate.png */
    kiln_handle texture_handle = old_texture->handle;
    assert_int_equal(engine.textures, 1);

    /* Nothing changed on disk: nothing happens. */
    assert_int_equal(kiln_manager_refresh(m, &err), KILN_OK);
    assert_int_equal(engine.reload.applied + engine.reload.failed, 0);

    write_tiny_png(&p, 200, 30, 90);
    cook_pack(&p);
    assert_int_equal(kiln_manager_refresh(m, &err), KILN_OK);
    assert_int_equal(engine.reload.applied, 1);
    assert_int_equal(engine.reload.failed, 0);
    assert_true(engine.reload.last_applied == texture_handle);
    assert_ptr_equal(engine.reload.last_previous, old_texture);
    const kiln_asset *new_texture = texture_of(m, kiln_asset_get(m, mesh));
    assert_ptr_not_equal(new_texture, old_texture);
    assert_int_equal(new_texture->texture.width, 4);
    assert_int_equal(new_texture->texture.height, 4);
    assert_int_equal(engine.textures, 2);
    assert_true(
        test_reload_told(&engine.reload, old_table->ref)); /* its material table learns it */
    /* Everything else kept its data (same pointers, no engine objects). */
    assert_ptr_equal(kiln_asset_get(m, scene), old_scene);
    assert_ptr_equal(kiln_asset_get(m, mesh), old_mesh);
    assert_ptr_equal(dependency_of(m, old_mesh, KILN_ASSET_MATERIAL), old_table);
    assert_int_equal(engine.buffers, 2);
    kiln_manager_stats stats;
    assert_int_equal(kiln_manager_stats_get(m, &stats, &err), KILN_OK);
    assert_int_equal(stats.reloads, 1);
    assert_int_equal(stats.refreshes, 1);
    assert_int_equal(stats.retired, 1);

    /* The old texture stays readable until the second pump; the data kept
     * from the old pack (the mesh's views point into its mapping) stays
     * readable for as long as it is loaded. */
    kiln_manager_pump(m);
    assert_int_equal(old_texture->texture.width, 64);
    assert_int_equal(engine.textures_destroyed, 0);
    kiln_manager_pump(m);
    assert_int_equal(engine.textures_destroyed, 1);
    for (int i = 0; i < 3; i++)
        kiln_manager_pump(m);
    assert_int_equal(triangles_of(kiln_asset_get(m, mesh)), 12);
    assert_int_equal(kiln_asset_get(m, scene)->scene.desc->mesh_count, 1);

    /* Refreshing again does nothing more. */
    assert_int_equal(kiln_manager_refresh(m, &err), KILN_OK);
    assert_int_equal(engine.reload.applied, 1);

    /* A new load after the swap reads the new pack; mounting the replaced
     * path again is still "already mounted". */
    assert_int_equal(kiln_manager_mount(m, pack, NULL, &err), KILN_ERR_INVALID_ARGUMENT);
    assert_int_equal(kiln_scope_destroy(m, level, &err), KILN_OK);
    assert_int_equal(kiln_manager_load_ref(m, KILN_SCOPE_TRANSIENT, "props/crate", &mesh, &err),
                     KILN_OK);
    assert_int_equal(texture_of(m, kiln_asset_get(m, mesh))->texture.width, 4);
    assert_int_equal(triangles_of(kiln_asset_get(m, mesh)), 12);
    kiln_manager_destroy(m);
    assert_int_equal(engine.buffers, engine.buffers_destroyed);
    assert_int_equal(engine.textures, engine.textures_destroyed);
    free(pack);
    test_project_free(&p);
}

/* A pack replaced by a corrupt one: refresh fails and says why, every asset
 * loaded from it reports a failed reload (once), and keeps serving its old
 * data; a good pack put back clears the status without reloading what did
 * not change. */
static void corrupt_replacement_pack_keeps_old_data(void **state) {
    (void)state;
    project p = make_project("reload_pack_corrupt");
    cook_pack(&p);
    char *pack = pack_path(&p);
    size_t good_size;
    uint8_t *good = test_read_file(pack, &good_size);
    test_engine engine = {0};
    kiln_manager *m = make_manager(&engine, 0);
    kiln_error err;
    assert_int_equal(kiln_manager_mount(m, pack, NULL, &err), KILN_OK);
    kiln_ref mesh;
    assert_int_equal(kiln_manager_load_ref(m, KILN_SCOPE_PERMANENT, "props/crate", &mesh, &err),
                     KILN_OK);
    const kiln_asset *old_mesh = kiln_asset_get(m, mesh);
    const kiln_asset *old_texture = texture_of(m, old_mesh);

    /* Truncated: the header says more bytes than the file has. */
    replace_file(pack, good, good_size / 2);
    kiln_result r = kiln_manager_refresh(m, &err);
    assert_int_not_equal(r, KILN_OK);
    assert_non_null(strstr(err.message, "cannot be opened"));
    assert_non_null(strstr(err.message, ".kpak"));
    assert_int_equal(engine.reload.failed, 3); /* mesh, material table, texture */
    assert_int_equal(engine.reload.applied, 0);
    kiln_error status;
    assert_int_equal(kiln_asset_reload_status(m, mesh, &status), r);
    assert_non_null(strstr(status.message, "cannot be opened"));
    assert_ptr_equal(kiln_asset_get(m, mesh), old_mesh);
    assert_int_equal(kiln_asset_state_of(m, mesh, &err), KILN_ASSET_READY);
    for (int i = 0; i < 3; i++)
        kiln_manager_pump(m);
    assert_int_equal(triangles_of(kiln_asset_get(m, mesh)), 12);
    assert_int_equal(texture_of(m, old_mesh)->texture.width, 64);
    assert_ptr_equal(texture_of(m, old_mesh), old_texture);
    /* Reported once per version. */
    assert_int_equal(kiln_manager_refresh(m, &err), KILN_OK);
    assert_int_equal(engine.reload.failed, 3);

    /* Garbage of the right size. */
    uint8_t *junk = malloc(good_size);
    memset(junk, 0x5a, good_size);
    replace_file(pack, junk, good_size);
    free(junk);
    assert_int_equal(kiln_manager_refresh(m, &err), KILN_ERR_BAD_MAGIC);
    assert_int_equal(engine.reload.failed, 6);
    assert_ptr_equal(kiln_asset_get(m, mesh), old_mesh);

    /* The good bytes again (a new file): nothing to reload, status clear. */
    replace_file(pack, good, good_size);
    assert_int_equal(kiln_manager_refresh(m, &err), KILN_OK);
    assert_int_equal(engine.reload.applied, 0);
    assert_int_equal(kiln_asset_reload_status(m, mesh, &status), KILN_OK);
    assert_ptr_equal(kiln_asset_get(m, mesh), old_mesh);
    kiln_manager_stats stats;
    assert_int_equal(kiln_manager_stats_get(m, &stats, &err), KILN_OK);
    assert_int_equal(stats.reload_failures, 6);
    assert_int_equal(stats.refreshes, 1);
    kiln_manager_destroy(m);
    assert_int_equal(engine.buffers, engine.buffers_destroyed);
    assert_int_equal(engine.textures, engine.textures_destroyed);
    free(good);
    free(pack);
    test_project_free(&p);
}

/* The watch notices a pack renamed over the mounted one. */
static void watch_notices_a_replaced_pack(void **state) {
    (void)state;
#ifdef __linux__
    project p = make_project("reload_pack_watch");
    cook_pack(&p);
    char *pack = pack_path(&p);
    test_engine engine = {0};
    kiln_manager *m = make_manager(&engine, 1);
    kiln_error err;
    assert_int_equal(kiln_manager_mount(m, pack, NULL, &err), KILN_OK);
    assert_int_equal(kiln_manager_watch(m, true, &err), KILN_OK);
    kiln_ref mesh;
    assert_int_equal(kiln_manager_load_ref(m, KILN_SCOPE_PERMANENT, "props/crate", &mesh, &err),
                     KILN_OK);
    for (int i = 0; i < 3; i++)
        kiln_manager_pump(m);
    assert_int_equal(engine.reload.applied, 0);
    write_tiny_png(&p, 10, 220, 40);
    cook_pack(&p);
    /* Poll as a game loop would (bounded; no timing is asserted). */
    for (int i = 0; i < 1000 && engine.reload.applied == 0; i++) {
        kiln_manager_pump(m);
        struct timespec pause = {0, 5 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    assert_int_equal(engine.reload.applied, 1);
    assert_int_equal(texture_of(m, kiln_asset_get(m, mesh))->texture.width, 4);
    kiln_manager_destroy(m);
    assert_int_equal(engine.textures, engine.textures_destroyed);
    free(pack);
    test_project_free(&p);
#endif
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reload_in_place),
        cmocka_unit_test(failed_reload_keeps_old_data),
        cmocka_unit_test(dependency_swap_loads_new_and_releases_old),
        cmocka_unit_test(refresh_finds_new_assets_and_only_changed_files),
        cmocka_unit_test(pack_assets_reload_from_the_pack),
        cmocka_unit_test(watch_notices_a_rebuild),
        cmocka_unit_test(replaced_pack_reloads_only_changed_entries),
        cmocka_unit_test(corrupt_replacement_pack_keeps_old_data),
        cmocka_unit_test(watch_notices_a_replaced_pack),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
