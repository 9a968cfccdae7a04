/* A level's dependencies in the asset manager (kiln/manager.h): the scenes a
 * level's nodes place and the assets its components' refs name load with
 * it, are held by it (shared across scopes, released with it) and tell it
 * of their reloads; cycles (a level naming itself, two naming each other,
 * whether the cooker made them through components or the links were
 * patched into the bytes) and chains nested too deep fail the level with a
 * message naming them, synchronously and asynchronously, leaving nothing
 * loaded. The inputs are small trees cooked here by the kiln command; the
 * expected dependencies are computed here from the refs the levels name. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "kiln/manager.h"
#include "manager_fixture.h"

#define EXAMPLES KILN_EXAMPLES_DIR

/* ---------------------------------------------------------------------------
 * The tree: models, a texture, levels
 * ------------------------------------------------------------------------- */

static test_project tree;
static char *out_dir; /* tree.out */

static void write_src(const char *name, const char *text) {
    test_project_write_text(&tree, name, text);
}

static void copy_src(const char *from, const char *name) {
    test_project_copy(&tree, from, name);
}

static const char triangle[] = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";

static void cook(void) {
    test_project_cook(&tree);
}

/* The town places crate, rock twice (one scene, shared), and names a
 * texture and the pebble in components (the texture twice, once inside a
 * list); a "hash" without a "ref" and ref-like text inside a string name
 * nothing. The cycles: a <-> b and self through components (the cooker
 * allows both); p, q and r place lv/x (a model), patched below into links
 * to levels. d00 -> d01 -> ... -> d33 is a chain of 33 holds of a level by
 * a level (d33 places nothing). */
static int setup_all(void **state) {
    (void)state;
    tree = test_project_new("level_deps_src", "level_deps_out");
    out_dir = tree.out;
    copy_src(EXAMPLES "/props/crate.obj", "m/crate.obj");
    copy_src(EXAMPLES "/props/crate.mtl", "m/crate.mtl");
    copy_src(EXAMPLES "/props/crate.png", "m/crate.png");
    copy_src(EXAMPLES "/props/rock.obj", "m/rock.obj");
    copy_src(EXAMPLES "/props/pebble.obj", "m/pebble.obj");
    copy_src(EXAMPLES "/props/crate.png", "tex/decal.png");
    write_src("lv/x.obj", triangle);
    write_src("m/lonely.obj", triangle);
    write_src("lv/town.level", "entities:\n"
                               "  - name: crate\n    asset: m/crate.obj\n"
                               "  - name: rock\n    asset: m/rock.obj\n    translation: [1, 0, 0]\n"
                               "  - name: rock2\n    asset: m/rock.obj\n    parent: rock\n"
                               "  - name: sign\n"
                               "    components:\n"
                               "      decal: {ref: tex/decal.png, size: 2}\n"
                               "      prop: {ref: m/pebble.obj}\n"
                               "      more: {list: [1, {ref: tex/decal.png}, [true, null]]}\n"
                               "      meta: {hash: \"0123456789abcdef\"}\n"
                               "      text: '\"ref\":\"x\",\"hash\":\"0123456789abcdef\"'\n");
    write_src("lv/a.level", "entities:\n  - name: door\n    components:\n"
                            "      to: {ref: lv/b.level}\n");
    write_src("lv/b.level", "entities:\n  - name: door\n    asset: m/crate.obj\n"
                            "    components:\n      to: {ref: lv/a.level}\n");
    write_src("lv/self.level", "entities:\n  - name: loop\n    components:\n"
                               "      again: {ref: lv/self.level}\n");
    write_src("lv/p.level", "entities:\n  - name: me\n    asset: lv/x.obj\n");
    write_src("lv/q.level", "entities:\n  - name: to_r\n    asset: lv/x.obj\n");
    write_src("lv/r.level", "entities:\n  - name: to_q\n    asset: lv/x.obj\n");
    write_src("lv/solo.level", "entities:\n  - name: crate\n    asset: m/crate.obj\n");
    write_src("lv/lonely.level", "entities:\n  - name: alone\n    asset: m/lonely.obj\n"
                                 "    components:\n      d: {ref: tex/decal.png}\n");
    write_src("lv/bad.level", "entities:\n  - name: sign\n    components:\n"
                              "      d: {ref: tex/decal.png}\n");
    for (int i = 0; i <= 33; i++) {
        char name[64], text[256];
        snprintf(name, sizeof name, "deep/d%02d.level", i);
        if (i < 33)
            snprintf(
                text, sizeof text,
                "entities:\n  - name: n\n    components:\n      next: {ref: deep/d%02d.level}\n",
                i + 1);
        else
            snprintf(text, sizeof text, "entities:\n  - name: n\n");
        write_src(name, text);
    }
    cook();
    return 0;
}

static int teardown_all(void **state) {
    (void)state;
    test_project_free(&tree);
    return 0;
}

/* ---------------------------------------------------------------------------
 * Patching a cooked level: its links, its components' text
 * ------------------------------------------------------------------------- */

typedef struct cooked {
    char *path;
    uint8_t *bytes;
    size_t size;
    size_t links;   /* offset of SLNK */
    size_t strings; /* offset of SSTR */
} cooked;

static cooked open_cooked(const char *name) {
    cooked c;
    c.path = test_path_join(out_dir, name);
    kiln_file file;
    kiln_scene_view view;
    kiln_error err;
    assert_int_equal(kiln_file_map(&file, c.path, 0, &err), KILN_OK);
    assert_int_equal(kiln_scene_view_get(&file, 0, &view, &err), KILN_OK);
    assert_non_null(view.links);
    c.links = (size_t)((const uint8_t *)view.links - file.data);
    c.strings = (size_t)((const uint8_t *)view.strings - file.data);
    kiln_file_close(&file);
    c.bytes = test_read_file(c.path, &c.size);
    return c;
}

/* Written back without the checksum (flag 0, checksum 0: container R7). */
static void save_cooked(cooked *c) {
    uint32_t flags;
    memcpy(&flags, c->bytes + 12, 4);
    flags &= ~1u;
    memcpy(c->bytes + 12, &flags, 4);
    memset(c->bytes + 32, 0, 8);
    test_write_file(c->path, c->bytes, c->size);
    free(c->path);
    free(c->bytes);
}

/* Node `node`'s link now places `ref` (as long as the one it replaces). */
static void patch_link(const char *file, uint32_t node, const char *ref) {
    cooked c = open_cooked(file);
    uint8_t *link = c.bytes + c.links + (size_t)node * 32;
    uint32_t offset, length;
    memcpy(&offset, link + 8, 4);
    memcpy(&length, link + 12, 4);
    assert_int_equal(length, strlen(ref));
    memcpy(c.bytes + c.strings + offset, ref, length);
    uint64_t hash = kiln_ref_hash(ref);
    memcpy(link, &hash, 8);
    save_cooked(&c);
}

/* Replaces the first `from` in node 0's components by `to` (same length). */
static void patch_components(const char *file, const char *from, const char *to) {
    cooked c = open_cooked(file);
    uint32_t offset, length;
    memcpy(&offset, c.bytes + c.links + 16, 4);
    memcpy(&length, c.bytes + c.links + 20, 4);
    char *text = (char *)c.bytes + c.strings + offset;
    assert_int_equal(strlen(from), strlen(to));
    char *at = strstr(text, from);
    assert_non_null(at);
    assert_true(at + strlen(from) <= text + length);
    memcpy(at, to, strlen(to));
    save_cooked(&c);
}

/* ---------------------------------------------------------------------------
 * Manager, allocator and reload events
 * ------------------------------------------------------------------------- */

/* The counting allocator, and an engine that only records reload events. */
typedef struct log {
    test_alloc_log alloc;
    test_engine engine;
} log_t;

static kiln_manager *make_manager(log_t *log, uint32_t workers) {
    kiln_manager *m = test_manager_new(&log->engine, TEST_ENGINE_RELOADED, &log->alloc, workers);
    kiln_error err;
    assert_int_equal(kiln_manager_mount(m, out_dir, NULL, &err), KILN_OK);
    return m;
}

/* Destroys the manager; every allocation was given back. */
static void end_manager(kiln_manager *m, log_t *log) {
    kiln_manager_destroy(m);
    test_alloc_all_freed(&log->alloc);
}

/* A new scope `name` into which `ref` loads (synchronously, it must). */
static kiln_scope scope_holding(kiln_manager *m, const char *name, const char *ref,
                                kiln_ref *loaded) {
    kiln_error err;
    kiln_scope scope;
    assert_int_equal(kiln_scope_create(m, name, 0, &scope, &err), KILN_OK);
    assert_int_equal(kiln_manager_load_ref(m, scope, ref, loaded, &err), KILN_OK);
    return scope;
}

/* The dependency of `a` whose handle is kiln_ref_hash(ref), or NULL. */
static const kiln_asset_dependency *dependency(const kiln_asset *a, const char *ref) {
    for (uint32_t i = 0; i < a->dependency_count; i++)
        if (a->dependencies[i].handle == kiln_ref_hash(ref))
            return &a->dependencies[i];
    return NULL;
}

/* ---------------------------------------------------------------------------
 * Tests
 * ------------------------------------------------------------------------- */

static void level_holds_placed_scenes_and_component_assets(void **state) {
    (void)state;
    log_t log = {0};
    kiln_manager *m = make_manager(&log, 0);
    kiln_error err;
    kiln_scope scope;
    assert_int_equal(kiln_scope_create(m, "town", 0, &scope, &err), KILN_OK);
    kiln_ref town;
    assert_int_equal(kiln_manager_load_ref(m, scope, "lv/town/scene", &town, &err), KILN_OK);
    const kiln_asset *a = kiln_asset_get(m, town);
    assert_non_null(a);
    assert_non_null(a->scene.links);
    /* What the level names, each once: the crate and rock scenes placed
     * (rock twice), the decal (twice) and the pebble's scene in components;
     * nothing for the bare "hash" or the text. */
    static const char *const expected[] = {"m/crate/scene", "m/rock/scene", "tex/decal",
                                           "m/pebble/scene"};
    static const kiln_asset_kind kinds[] = {KILN_ASSET_SCENE, KILN_ASSET_SCENE, KILN_ASSET_TEXTURE,
                                            KILN_ASSET_SCENE};
    assert_int_equal(a->dependency_count, 4);
    for (int i = 0; i < 4; i++) {
        const kiln_asset_dependency *d = dependency(a, expected[i]);
        assert_non_null(d);
        assert_int_equal(d->ref.scope, 0);
        const kiln_asset *dep = kiln_asset_get(m, d->ref);
        assert_non_null(dep);
        assert_string_equal(dep->ref, expected[i]);
        assert_int_equal(dep->kind, kinds[i]);
    }
    /* A placed scene brings its own: the crate's mesh, table and texture. */
    const kiln_asset *crate = kiln_asset_get(m, dependency(a, "m/crate/scene")->ref);
    assert_int_equal(crate->dependency_count, 2);
    /* The scope reaches the level, 3 scenes, the decal, and the models'
     * meshes and tables (crate: mesh, table, texture; rock and pebble: a
     * mesh each, and a table when their source has materials). */
    kiln_manager_stats stats;
    assert_int_equal(kiln_manager_stats_get(m, &stats, &err), KILN_OK);
    assert_int_equal(stats.failed, 0);
    assert_int_equal(stats.ready, stats.assets);
    bool seen = false;
    for (uint32_t i = 0; i < stats.scope_count; i++) {
        if (stats.scopes[i].scope != scope)
            continue;
        seen = true;
        assert_int_equal(stats.scopes[i].holds, 1);
        assert_int_equal(stats.scopes[i].assets, stats.assets);
        assert_int_equal(stats.scopes[i].bytes, stats.bytes);
    }
    assert_true(seen);
    assert_int_equal(kiln_scope_destroy(m, scope, &err), KILN_OK);
    assert_null(kiln_asset_get(m, town));
    assert_int_equal(test_live_assets(m), 0);
    end_manager(m, &log);
}

static void dependencies_are_shared_across_scopes(void **state) {
    (void)state;
    log_t log = {0};
    kiln_manager *m = make_manager(&log, 0);
    kiln_error err;
    kiln_scope one, two;
    assert_int_equal(kiln_scope_create(m, "one", 0, &one, &err), KILN_OK);
    assert_int_equal(kiln_scope_create(m, "two", 0, &two, &err), KILN_OK);
    kiln_ref crate, town, solo;
    assert_int_equal(kiln_manager_load_ref(m, two, "m/crate/scene", &crate, &err), KILN_OK);
    uint32_t alone = test_live_assets(m); /* the crate scene and what it holds */
    assert_int_equal(kiln_manager_load_ref(m, one, "lv/town/scene", &town, &err), KILN_OK);
    assert_int_equal(kiln_manager_load_ref(m, one, "lv/solo/scene", &solo, &err), KILN_OK);
    const kiln_asset *t = kiln_asset_get(m, town), *s = kiln_asset_get(m, solo);
    /* One crate scene: the scope's load and both levels' dependency. */
    kiln_ref from_town = dependency(t, "m/crate/scene")->ref;
    kiln_ref from_solo = dependency(s, "m/crate/scene")->ref;
    assert_int_equal(from_town.slot, crate.slot);
    assert_int_equal(from_solo.slot, crate.slot);
    assert_ptr_equal(kiln_asset_get(m, from_town), kiln_asset_get(m, crate));
    kiln_ref rock = dependency(t, "m/rock/scene")->ref;
    assert_non_null(kiln_asset_get(m, rock));
    /* Scope one goes: the levels, the rock and the others only the town
     * held go; the crate and its own stay, readable through scope two. */
    assert_int_equal(kiln_scope_destroy(m, one, &err), KILN_OK);
    assert_null(kiln_asset_get(m, town));
    assert_null(kiln_asset_get(m, rock));
    assert_non_null(kiln_asset_get(m, crate));
    assert_int_equal(test_live_assets(m), alone);
    assert_int_equal(kiln_scope_destroy(m, two, &err), KILN_OK);
    assert_int_equal(test_live_assets(m), 0);
    end_manager(m, &log);
}

/* Waits (at most 20 s) until nothing is loaded: a dependency a worker was
 * reading when its last holder went is freed once the worker is done. */
static void wait_unloaded(kiln_manager *m) {
    for (int i = 0; i < 20000 && test_live_assets(m) != 0; i++) {
        kiln_manager_pump(m);
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
    assert_int_equal(test_live_assets(m), 0);
}

/* Loads `ref` synchronously into a new scope: fails, with a message holding
 * every one of `words`; destroying the scope leaves nothing loaded. */
static void sync_fails(kiln_manager *m, const char *ref, const char *const *words, int count) {
    kiln_error err;
    kiln_scope scope;
    assert_int_equal(kiln_scope_create(m, "cycle", 0, &scope, &err), KILN_OK);
    kiln_ref r;
    kiln_result result = kiln_manager_load_ref(m, scope, ref, &r, &err);
    assert_int_not_equal(result, KILN_OK);
    assert_int_equal(kiln_asset_state_of(m, r, &err), KILN_ASSET_FAILED);
    assert_null(kiln_asset_get(m, r));
    for (int i = 0; i < count; i++) {
        if (strstr(err.message, words[i]) == NULL)
            fail_msg("'%s' not in: %s", words[i], err.message);
    }
    assert_int_equal(kiln_scope_destroy(m, scope, &err), KILN_OK);
    assert_int_equal(test_live_assets(m), 0);
}

typedef struct done {
    int calls;
    kiln_result result;
    char message[KILN_ERROR_MESSAGE_MAX];
} done_t;

static void on_done(void *user, kiln_ref ref, kiln_result result, const kiln_error *err) {
    done_t *d = user;
    (void)ref;
    d->calls++;
    d->result = result;
    snprintf(d->message, sizeof d->message, "%s", err->message);
}

/* The same through kiln_manager_request: the callback comes (pumped for at
 * most 20 s) with the failure. */
static void async_fails(kiln_manager *m, const char *ref, const char *const *words, int count) {
    kiln_error err;
    kiln_scope scope;
    assert_int_equal(kiln_scope_create(m, "cycle", 0, &scope, &err), KILN_OK);
    done_t done = {0};
    kiln_ref r;
    assert_int_equal(
        kiln_manager_request(m, scope, kiln_ref_hash(ref), 0, on_done, &done, &r, &err), KILN_OK);
    for (int i = 0; i < 20000 && done.calls == 0; i++) {
        kiln_manager_pump(m);
        if (done.calls == 0)
            nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
    assert_int_equal(done.calls, 1);
    assert_int_not_equal(done.result, KILN_OK);
    assert_int_equal(kiln_asset_state_of(m, r, &err), KILN_ASSET_FAILED);
    for (int i = 0; i < count; i++) {
        if (strstr(done.message, words[i]) == NULL)
            fail_msg("'%s' not in: %s", words[i], done.message);
    }
    assert_int_equal(kiln_scope_destroy(m, scope, &err), KILN_OK);
    wait_unloaded(m);
}

static const char *const self_cycle[] = {"dependency cycle", "lv/self/scene -> lv/self/scene"};
static const char *const ab_cycle[] = {"dependency cycle", "lv/a/scene", "lv/b/scene"};

/* The cooker accepts levels whose components name each other or
 * themselves (each is cooked alone); the manager refuses to hold them. */
static void component_cycles_fail_sync(void **state) {
    (void)state;
    log_t log = {0};
    kiln_manager *m = make_manager(&log, 0);
    sync_fails(m, "lv/self/scene", self_cycle, 2);
    sync_fails(m, "lv/a/scene", ab_cycle, 3);
    sync_fails(m, "lv/b/scene", ab_cycle, 3);
    /* The failed ones are gone: the crate b places loads alone. */
    kiln_error err;
    kiln_ref crate;
    assert_int_equal(kiln_manager_load_ref(m, KILN_SCOPE_TRANSIENT, "m/crate/scene", &crate, &err),
                     KILN_OK);
    assert_int_equal(kiln_scope_clear(m, KILN_SCOPE_TRANSIENT, &err), KILN_OK);
    end_manager(m, &log);
}

static void component_cycles_fail_async(void **state) {
    (void)state;
    for (uint32_t workers = 0; workers <= 2; workers += 2) {
        log_t log = {0};
        kiln_manager *m = make_manager(&log, workers);
        async_fails(m, "lv/self/scene", self_cycle, 2);
        async_fails(m, "lv/a/scene", ab_cycle, 3);
        async_fails(m, "lv/b/scene", ab_cycle, 3);
        end_manager(m, &log);
    }
}

/* Links patched into the bytes (the cooker places models only): p places
 * itself, q places r and r places q. */
static void link_cycles_fail(void **state) {
    (void)state;
    patch_link("lv/p.kscene", 0, "lv/p/scene");
    patch_link("lv/q.kscene", 0, "lv/r/scene");
    patch_link("lv/r.kscene", 0, "lv/q/scene");
    static const char *const self[] = {"dependency cycle", "lv/p/scene -> lv/p/scene"};
    static const char *const qr[] = {"dependency cycle", "lv/q/scene", "lv/r/scene"};
    log_t log = {0};
    kiln_manager *m = make_manager(&log, 0);
    sync_fails(m, "lv/p/scene", self, 2);
    sync_fails(m, "lv/q/scene", qr, 3);
    sync_fails(m, "lv/r/scene", qr, 3);
    end_manager(m, &log);
    log_t log2 = {0};
    m = make_manager(&log2, 2);
    async_fails(m, "lv/p/scene", self, 2);
    async_fails(m, "lv/r/scene", qr, 3);
    end_manager(m, &log2);
}

/* Two scopes load the two halves of a cycle at the same time (workers):
 * both fail, neither waits forever, nothing stays. */
static void cycle_halves_in_two_scopes(void **state) {
    (void)state;
    log_t log = {0};
    kiln_manager *m = make_manager(&log, 2);
    kiln_error err;
    kiln_scope one, two;
    assert_int_equal(kiln_scope_create(m, "one", 0, &one, &err), KILN_OK);
    assert_int_equal(kiln_scope_create(m, "two", 0, &two, &err), KILN_OK);
    done_t da = {0}, db = {0};
    kiln_ref a, b;
    assert_int_equal(
        kiln_manager_request(m, one, kiln_ref_hash("lv/a/scene"), 0, on_done, &da, &a, &err),
        KILN_OK);
    assert_int_equal(
        kiln_manager_request(m, two, kiln_ref_hash("lv/b/scene"), 0, on_done, &db, &b, &err),
        KILN_OK);
    for (int i = 0; i < 20000 && (da.calls == 0 || db.calls == 0); i++) {
        kiln_manager_pump(m);
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
    assert_int_equal(da.calls, 1);
    assert_int_equal(db.calls, 1);
    assert_int_not_equal(da.result, KILN_OK);
    assert_int_not_equal(db.result, KILN_OK);
    assert_non_null(strstr(da.message, "dependency cycle"));
    assert_non_null(strstr(db.message, "dependency cycle"));
    /* A synchronous load of a failed half gives the failure, not a wait. */
    kiln_ref again;
    assert_int_not_equal(kiln_manager_load_ref(m, one, "lv/b/scene", &again, &err), KILN_OK);
    assert_non_null(strstr(err.message, "dependency cycle"));
    assert_int_equal(kiln_scope_destroy(m, one, &err), KILN_OK);
    assert_int_equal(kiln_scope_destroy(m, two, &err), KILN_OK);
    wait_unloaded(m);
    end_manager(m, &log);
}

/* d01 -> ... -> d33 is 32 holds of one level by another: it loads; d00
 * adds one more: it fails naming the limit, and d01 (loaded first, in
 * another scope) stays ready. */
static void nesting_is_bounded(void **state) {
    (void)state;
    log_t log = {0};
    kiln_manager *m = make_manager(&log, 0);
    kiln_error err;
    kiln_scope one;
    assert_int_equal(kiln_scope_create(m, "one", 0, &one, &err), KILN_OK);
    kiln_ref d01;
    assert_int_equal(kiln_manager_load_ref(m, one, "deep/d01/scene", &d01, &err), KILN_OK);
    const kiln_asset *a = kiln_asset_get(m, d01);
    for (int i = 1; i < 33; i++) { /* follow the chain down */
        assert_non_null(a);
        assert_int_equal(a->dependency_count, 1);
        a = kiln_asset_get(m, a->dependencies[0].ref);
    }
    assert_non_null(a);
    assert_string_equal(a->ref, "deep/d33/scene");
    assert_int_equal(a->dependency_count, 0);
    static const char *const words[] = {"deep/d00.kscene", "more than 32"};
    kiln_scope two;
    assert_int_equal(kiln_scope_create(m, "two", 0, &two, &err), KILN_OK);
    kiln_ref d00;
    assert_int_not_equal(kiln_manager_load_ref(m, two, "deep/d00/scene", &d00, &err), KILN_OK);
    for (int i = 0; i < 2; i++)
        if (strstr(err.message, words[i]) == NULL)
            fail_msg("'%s' not in: %s", words[i], err.message);
    assert_non_null(kiln_asset_get(m, d01));
    assert_int_equal(kiln_scope_destroy(m, two, &err), KILN_OK);
    assert_int_equal(kiln_scope_destroy(m, one, &err), KILN_OK);
    assert_int_equal(test_live_assets(m), 0);
    /* Alone, deep00 fails the same way, deep in the chain. */
    sync_fails(m, "deep/d00/scene", words + 1, 1);
    end_manager(m, &log);
}

/* A slot's nesting depth follows the holds there are, not the deepest it
 * ever had: d01 -> ... -> d33 loaded (d33 at depth 32, the limit) with d20
 * also held by a second scope; then the chain above d20 goes, once by a
 * reload of d01 that names nothing, once by its scope's destruction. d33
 * is then 13 holds below d20, so a reload that makes it name one more
 * level (deep/end) is a chain of 14, within the limit: applied. Before the
 * holds went, the same reload is refused for the chain of 33 it makes. */
static void nesting_depth_follows_released_holds(void **state) {
    (void)state;
    write_src("deep/end.level", "entities:\n  - name: n\n");
    cook();
    static const char d33_more[] =
        "entities:\n  - name: n\n    components:\n      next: {ref: deep/end.level}\n";
    for (int pass = 0; pass < 2; pass++) {
        log_t log = {0};
        kiln_manager *m = make_manager(&log, 0);
        kiln_error err;
        kiln_ref d01, d20;
        kiln_scope top = scope_holding(m, "top", "deep/d01/scene", &d01);
        kiln_scope mid = scope_holding(m, "mid", "deep/d20/scene", &d20);
        const kiln_asset *a = kiln_asset_get(m, d20);
        for (int i = 20; i < 33; i++)
            a = kiln_asset_get(m, a->dependencies[0].ref);
        assert_string_equal(a->ref, "deep/d33/scene");
        /* While d01 holds the chain: d33 naming one more is refused. */
        write_src("deep/d33.level", d33_more);
        cook();
        assert_int_not_equal(kiln_manager_reload(m, kiln_ref_hash("deep/d33/scene"), &err),
                             KILN_OK);
        assert_non_null(strstr(err.message, "more than 32"));
        assert_int_equal(log.engine.reload.failed, 1);
        write_src("deep/d33.level", "entities:\n  - name: n\n");
        cook();
        if (pass == 0) { /* d01 reloaded to name nothing: d02..d19 go */
            write_src("deep/d01.level", "entities:\n  - name: n\n");
            cook();
            assert_int_equal(kiln_manager_reload(m, kiln_ref_hash("deep/d01/scene"), &err),
                             KILN_OK);
            assert_int_equal(kiln_asset_get(m, d01)->dependency_count, 0);
            test_pump(m, 3); /* the old d01 data, holding d02, is freed */
        } else {             /* the scope holding d01 goes */
            assert_int_equal(kiln_scope_destroy(m, top, &err), KILN_OK);
        }
        assert_int_equal(test_live_assets(m), pass == 0 ? 15 : 14); /* (d01,) d20..d33 */
        write_src("deep/d33.level", d33_more);
        cook();
        assert_int_equal(kiln_manager_reload(m, kiln_ref_hash("deep/d33/scene"), &err), KILN_OK);
        a = kiln_asset_get(m, d20);
        for (int i = 20; i < 33; i++)
            a = kiln_asset_get(m, a->dependencies[0].ref);
        assert_int_equal(a->dependency_count, 1);
        assert_string_equal(kiln_asset_get(m, a->dependencies[0].ref)->ref, "deep/end/scene");
        /* The original tree back for the next pass and the other tests. */
        write_src("deep/d33.level", "entities:\n  - name: n\n");
        write_src("deep/d01.level", "entities:\n  - name: n\n    components:\n"
                                    "      next: {ref: deep/d02.level}\n");
        cook();
        if (pass == 0)
            assert_int_equal(kiln_scope_destroy(m, top, &err), KILN_OK);
        assert_int_equal(kiln_scope_destroy(m, mid, &err), KILN_OK);
        test_pump(m, 3);
        assert_int_equal(test_live_assets(m), 0);
        end_manager(m, &log);
    }
}

/* A missing dependency fails the level, as a missing mesh fails a model's
 * scene: a placed model whose file is gone, a component hash no manifest
 * has (the message names the node and the ref), components that are not
 * JSON. */
static void missing_or_bad_dependencies_fail_the_level(void **state) {
    (void)state;
    char *lonely = test_path_join(out_dir, "m/lonely.kscene");
    assert_int_equal(unlink(lonely), 0);
    free(lonely);
    static const char *const gone[] = {"lv/lonely.kscene", "needs m/lonely/scene, which failed",
                                       "m/lonely.kscene"};
    log_t log = {0};
    kiln_manager *m = make_manager(&log, 0);
    sync_fails(m, "lv/lonely/scene", gone, 3);
    /* The hash of tex/decal becomes one nothing has. */
    char hash[17];
    snprintf(hash, sizeof hash, "%016" PRIx64, kiln_ref_hash("tex/decal"));
    patch_components("lv/bad.kscene", hash, "0123456789abcdef");
    static const char *const unknown[] = {"0x0123456789abcdef", "which no mounted manifest has",
                                          "node 'sign'", "'tex/decal.png'"};
    sync_fails(m, "lv/bad/scene", unknown, 4);
    /* Not JSON, then a malformed hash. */
    patch_components("lv/bad.kscene", "\"hash\":", "\"hash\" ");
    static const char *const not_json[] = {"lv/bad.kscene", "node 0 'sign': components"};
    sync_fails(m, "lv/bad/scene", not_json, 2);
    patch_components("lv/bad.kscene", "\"hash\" \"0123", "\"hash\":\"01X3");
    static const char *const bad_hash[] = {"16 lower-case hex digits"};
    sync_fails(m, "lv/bad/scene", bad_hash, 1);
    end_manager(m, &log);
}

/* A linked scene's reload tells the level; a level reloaded into a cycle
 * keeps its old data and says why. */
static void reloads_tell_the_level_and_refuse_cycles(void **state) {
    (void)state;
    log_t log = {0};
    kiln_manager *m = make_manager(&log, 0);
    kiln_error err;
    kiln_scope scope;
    assert_int_equal(kiln_scope_create(m, "town", 0, &scope, &err), KILN_OK);
    kiln_ref town, solo;
    assert_int_equal(kiln_manager_load_ref(m, scope, "lv/town/scene", &town, &err), KILN_OK);
    assert_int_equal(kiln_manager_load_ref(m, scope, "lv/solo/scene", &solo, &err), KILN_OK);
    assert_int_equal(kiln_manager_reload(m, kiln_ref_hash("m/rock/scene"), &err), KILN_OK);
    assert_int_equal(log.engine.reload.dependency, 1);
    assert_true(log.engine.reload.dependency_of[0] == kiln_ref_hash("lv/town/scene"));
    assert_string_equal(log.engine.reload.dependency_refs[0], "m/rock/scene");
    assert_int_equal(kiln_manager_reload(m, kiln_ref_hash("tex/decal"), &err), KILN_OK);
    assert_int_equal(log.engine.reload.dependency, 2);
    assert_true(log.engine.reload.dependency_of[1] == kiln_ref_hash("lv/town/scene"));
    /* The crate scene: both levels hold it, both are told. */
    assert_int_equal(kiln_manager_reload(m, kiln_ref_hash("m/crate/scene"), &err), KILN_OK);
    assert_int_equal(log.engine.reload.dependency, 4);
    /* solo now names the town, which names nothing of solo: fine; then
     * the town names solo: a cycle, refused, the old town stays. */
    write_src("lv/solo.level", "entities:\n  - name: crate\n    asset: m/crate.obj\n"
                               "    components:\n      next: {ref: lv/town.level}\n");
    cook();
    assert_int_equal(kiln_manager_reload(m, kiln_ref_hash("lv/solo/scene"), &err), KILN_OK);
    const kiln_asset *s = kiln_asset_get(m, solo);
    assert_non_null(dependency(s, "lv/town/scene"));
    assert_int_equal(dependency(s, "lv/town/scene")->ref.slot, town.slot);
    write_src("lv/town.level", "entities:\n  - name: back\n    components:\n"
                               "      to: {ref: lv/solo.level}\n");
    cook();
    const kiln_asset *before = kiln_asset_get(m, town);
    assert_int_not_equal(kiln_manager_reload(m, kiln_ref_hash("lv/town/scene"), &err), KILN_OK);
    assert_non_null(strstr(err.message, "dependency cycle"));
    assert_non_null(strstr(err.message, "lv/town/scene -> lv/solo/scene -> lv/town/scene"));
    assert_int_equal(log.engine.reload.failed, 1);
    assert_ptr_equal(kiln_asset_get(m, town), before);
    assert_int_equal(kiln_asset_reload_status(m, town, &err), KILN_ERR_CORRUPT);
    assert_int_equal(kiln_scope_destroy(m, scope, &err), KILN_OK);
    test_pump(m, 3);
    assert_int_equal(test_live_assets(m), 0);
    end_manager(m, &log);
}

/* Components mutated at random (bytes from JSON's alphabet and beyond, no
 * NUL, the length kept so the file stays a valid scene): every load ends
 * ready or failed with a message, never a crash (ASan, UBSan) or a wait,
 * and leaves nothing loaded once its scope goes. A load that succeeds holds
 * only what the text still names by a ref's hash, all of it known. */
static void mutated_components_never_crash(void **state) {
    (void)state;
    cook(); /* lv/town.kscene as cooked (an earlier test may have recooked it) */
    cooked original = open_cooked("lv/town.kscene");
    uint32_t offset, length;
    uint32_t node = 0;
    for (; node < 4; node++) { /* the node with components: 'sign' */
        memcpy(&length, original.bytes + original.links + (size_t)node * 32 + 20, 4);
        if (length != 0)
            break;
    }
    assert_true(node < 4);
    memcpy(&offset, original.bytes + original.links + (size_t)node * 32 + 16, 4);
    size_t at = original.strings + offset;
    static const char alphabet[] = "{}[]:,\"\\ 0123456789abcdefrhtunlsxX-+.eE\x7f\xc3\xff\x01";
    log_t log = {0};
    kiln_manager *m = make_manager(&log, 0);
    unsigned seed = 12345u;
    int ready = 0, failed = 0;
    for (int round = 0; round < 600; round++) {
        cooked c = open_cooked("lv/town.kscene");
        memcpy(c.bytes, original.bytes, c.size);
        int edits = 1 + (int)(seed % 4);
        for (int e = 0; e < edits; e++) {
            seed = seed * 1103515245u + 12345u;
            size_t where = at + (seed >> 8) % length;
            seed = seed * 1103515245u + 12345u;
            c.bytes[where] = (uint8_t)alphabet[(seed >> 8) % (sizeof alphabet - 1)];
        }
        save_cooked(&c);
        kiln_error err;
        kiln_scope scope;
        assert_int_equal(kiln_scope_create(m, "fuzz", 0, &scope, &err), KILN_OK);
        kiln_ref r;
        kiln_result result = kiln_manager_load_ref(m, scope, "lv/town/scene", &r, &err);
        if (result == KILN_OK) {
            ready++;
            const kiln_asset *a = kiln_asset_get(m, r);
            assert_non_null(a);
            for (uint32_t d = 0; d < a->dependency_count; d++)
                assert_non_null(kiln_asset_get(m, a->dependencies[d].ref));
        } else {
            failed++;
            assert_true(err.message[0] != '\0');
            assert_int_equal(kiln_asset_state_of(m, r, &err), KILN_ASSET_FAILED);
        }
        assert_int_equal(kiln_scope_destroy(m, scope, &err), KILN_OK);
        assert_int_equal(test_live_assets(m), 0);
    }
    /* Both outcomes happen: some edits land in values, others break it. */
    assert_true(ready > 0);
    assert_true(failed > 0);
    test_write_file(original.path, original.bytes, original.size);
    free(original.path);
    free(original.bytes);
    end_manager(m, &log);
}

/* A refresh reloads a level before the scenes it holds: a model the level
 * no longer places, whose source (and so cooked file) is gone, is let go
 * with the level's old data, not reloaded and reported missing, even when
 * it was loaded before the level (a lower slot). */
static void refresh_reloads_levels_before_their_scenes(void **state) {
    (void)state;
    write_src("lv/drop.level", "entities:\n  - name: one\n    asset: m/gone.obj\n"
                               "  - name: two\n    asset: m/crate.obj\n");
    write_src("m/gone.obj", triangle);
    cook();
    log_t log = {0};
    kiln_manager *m = make_manager(&log, 0);
    kiln_error err;
    kiln_ref gone, drop;
    kiln_scope first = scope_holding(m, "first", "m/gone/scene", &gone);
    kiln_scope level = scope_holding(m, "level", "lv/drop/scene", &drop);
    assert_true(gone.slot < drop.slot);
    assert_int_equal(dependency(kiln_asset_get(m, drop), "m/gone/scene")->ref.slot, gone.slot);
    assert_int_equal(kiln_scope_destroy(m, first, &err), KILN_OK); /* the level holds it */
    write_src("lv/drop.level", "entities:\n  - name: two\n    asset: m/crate.obj\n");
    char *source = test_path_join(tree.src, "m/gone.obj");
    assert_int_equal(unlink(source), 0);
    free(source);
    cook();
    char *gone_file = test_path_join(out_dir, "m/gone.kscene");
    struct stat st;
    assert_int_not_equal(stat(gone_file, &st), 0); /* the cooker removed it */
    free(gone_file);
    assert_int_equal(kiln_manager_refresh(m, &err), KILN_OK);
    assert_int_equal(log.engine.reload.failed, 0);
    const kiln_asset *a = kiln_asset_get(m, drop);
    assert_non_null(a);
    assert_int_equal(a->dependency_count, 1);
    assert_null(dependency(a, "m/gone/scene"));
    assert_non_null(dependency(a, "m/crate/scene"));
    assert_int_equal(kiln_scope_destroy(m, level, &err), KILN_OK);
    test_pump(m, 3);
    assert_int_equal(test_live_assets(m), 0);
    end_manager(m, &log);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(level_holds_placed_scenes_and_component_assets),
        cmocka_unit_test(dependencies_are_shared_across_scopes),
        cmocka_unit_test(component_cycles_fail_sync),
        cmocka_unit_test(component_cycles_fail_async),
        cmocka_unit_test(link_cycles_fail),
        cmocka_unit_test(cycle_halves_in_two_scopes),
        cmocka_unit_test(nesting_is_bounded),
        cmocka_unit_test(nesting_depth_follows_released_holds),
        cmocka_unit_test(missing_or_bad_dependencies_fail_the_level),
        cmocka_unit_test(mutated_components_never_crash),
        cmocka_unit_test(reloads_tell_the_level_and_refuse_cycles),
        cmocka_unit_test(refresh_reloads_levels_before_their_scenes),
    };
    return cmocka_run_group_tests(tests, setup_all, teardown_all);
}
