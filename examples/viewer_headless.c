/*
 * viewer_headless.c — libkiln's asset manager end to end, with no window.
 *
 *   viewer_headless RUNTIME [RUNTIME...]
 *
 * Each RUNTIME is a cooked folder (holding assets.kman) or a .kpak; later
 * ones override earlier ones. The viewer mounts them, requests every scene
 * the manifests list into one level scope (read, validated and inflated by
 * two worker threads), waits and pumps until all are done, prints what loaded (meshes
 * and triangles, material tables, textures with their formats and mips, and
 * the bytes the scope holds), then destroys the scope. The "engine" here only
 * counts what it would upload. It uses the public headers alone; see
 * docs/runtime.md for the walkthrough.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "kiln/kiln.h"
#include "kiln/manager.h"

/* ---- the engine's side: what a renderer would do with the data ---------- */

typedef struct engine {
    uint64_t buffer_bytes, texture_bytes;
    uint32_t buffers, textures;
} engine;

static kiln_result create_buffer(void *user, const kiln_asset *asset, kiln_buffer_usage usage,
                                 const void *data, size_t size, void **object, kiln_error *err) {
    engine *e = user;
    (void)asset, (void)usage, (void)data, (void)err;
    /* A renderer would copy `data` into a GPU buffer here. */
    e->buffers++;
    e->buffer_bytes += size;
    *object = (void *)(uintptr_t)e->buffers; /* its handle, kept in asset->engine_buffers */
    return KILN_OK;
}

static void destroy_buffer(void *user, const kiln_asset *asset, void *object) {
    (void)user, (void)asset, (void)object;
}

static kiln_result create_texture(void *user, const kiln_asset *asset, const void *texels,
                                  size_t size, void **object, kiln_error *err) {
    engine *e = user;
    (void)asset, (void)texels, (void)err;
    /* Level i of the inflated texels is at asset->level_offsets[i]. */
    e->textures++;
    e->texture_bytes += size;
    *object = (void *)(uintptr_t)e->textures;
    return KILN_OK;
}

static void destroy_texture(void *user, const kiln_asset *asset, void *object) {
    (void)user, (void)asset, (void)object;
}

/* ---- finding the scenes: the manifests list every ref ------------------- */

typedef struct scene_list {
    kiln_handle handles[256];
    char refs[256][128];
    uint32_t count;
} scene_list;

static void list_scenes(const char *runtime, scene_list *out) {
    struct stat st;
    kiln_pack pack = {0};
    kiln_file file = {0};
    kiln_error err;
    kiln_result r;
    if (stat(runtime, &st) == 0 && S_ISDIR(st.st_mode)) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", runtime, KILN_MANIFEST_FILE_NAME);
        r = kiln_file_map(&file, path, 0, &err);
    } else {
        r = kiln_pack_open(&pack, runtime, &err);
        if (r == KILN_OK)
            r = kiln_pack_manifest(&pack, &file, 0, &err);
    }
    kiln_manifest_view manifest;
    if (r == KILN_OK && kiln_manifest_view_get(&file, &manifest, &err) == KILN_OK) {
        for (uint32_t i = 0; i < manifest.entry_count && out->count < 256; i++) {
            const kiln_manifest_entry *e = &manifest.entries[i];
            if (e->kind != KILN_ASSET_SCENE)
                continue;
            bool seen = false; /* an overriding mount lists it again */
            for (uint32_t j = 0; j < out->count; j++)
                seen = seen || out->handles[j] == e->hash;
            if (seen)
                continue;
            out->handles[out->count] = e->hash;
            snprintf(out->refs[out->count], sizeof out->refs[0], "%s",
                     kiln_manifest_ref(&manifest, e));
            out->count++;
        }
    }
    kiln_file_close(&file);
    kiln_pack_close(&pack);
}

/* ---- printing what loaded ----------------------------------------------- */

typedef struct seen_set {
    uint32_t slots[1024];
    uint32_t count;
    uint32_t meshes, tables, textures;
    uint64_t triangles;
} seen_set;

static bool first_time(seen_set *seen, kiln_ref ref) {
    for (uint32_t i = 0; i < seen->count; i++)
        if (seen->slots[i] == ref.slot)
            return false;
    if (seen->count < 1024)
        seen->slots[seen->count++] = ref.slot;
    return true;
}

/* Prints `ref` and, below it, its dependencies not printed yet; a level's
 * dependencies printed before (shared with another level) are named again. */
static void print_asset(const kiln_manager *m, kiln_ref ref, int depth, bool of_level,
                        seen_set *seen) {
    const kiln_asset *a = kiln_asset_get(m, ref);
    if (a == NULL)
        return;
    if (!first_time(seen, ref)) {
        if (of_level)
            printf("%*s%s (listed above)\n", depth * 2, "", a->ref);
        return;
    }
    printf("%*s%s (%s, %" PRIu64 " bytes): ", depth * 2, "", a->ref, a->path, a->bytes);
    switch (a->kind) {
    case KILN_ASSET_SCENE:
        if (a->scene.links != NULL) {
            /* A level: its entities place scenes and name assets in their
             * components; the manager loaded all of them with it, as its
             * dependencies (listed below it). */
            printf("level, %" PRIu32 " entities, %" PRIu32 " dependencies\n", a->scene.node_count,
                   a->dependency_count);
            for (uint32_t n = 0; n < a->scene.node_count; n++) {
                const char *placed;
                size_t length;
                kiln_scene_node_link(&a->scene, n, &placed);
                const char *components = kiln_scene_node_components(&a->scene, n, &length);
                if (placed != NULL || components != NULL)
                    printf("%*s  entity '%s'%s%s%s%.*s\n", depth * 2, "",
                           kiln_scene_node_name(&a->scene, n), placed ? " places " : "",
                           placed ? placed : "", components ? ", components " : "", (int)length,
                           components ? components : "");
            }
            break;
        }
        printf("scene, %" PRIu32 " nodes, %" PRIu32 " meshes\n", a->scene.node_count,
               a->scene.desc->mesh_count);
        break;
    case KILN_ASSET_MESH: {
        uint64_t triangles = 0;
        for (uint32_t s = 0; s < a->mesh.desc->submesh_count; s++)
            if (a->mesh.submeshes[s].topology == KILN_TOPOLOGY_TRIANGLES)
                triangles += a->mesh.submeshes[s].index_count / 3;
        printf("mesh, %" PRIu32 " vertices, %" PRIu64 " triangles, %" PRIu32 " submeshes\n",
               a->mesh.desc->vertex_count, triangles, a->mesh.desc->submesh_count);
        seen->meshes++;
        seen->triangles += triangles;
        break;
    }
    case KILN_ASSET_MATERIAL:
        printf("material table, %" PRIu32 " materials\n", a->materials.material_count);
        seen->tables++;
        break;
    case KILN_ASSET_TEXTURE:
        printf("texture %" PRIu32 "x%" PRIu32 ", %s, %" PRIu32 " mips%s\n", a->texture.width,
               a->texture.height, kiln_ktx2_format_str(a->texture.vk_format), a->texture.levels,
               a->texture.faces == 6 ? ", cubemap" : "");
        seen->textures++;
        break;
    default:
        printf("%s\n", kiln_asset_kind_str(a->kind));
        break;
    }
    for (uint32_t d = 0; d < a->dependency_count; d++)
        print_asset(m, a->dependencies[d].ref, depth + 1,
                    a->kind == KILN_ASSET_SCENE && a->scene.links != NULL, seen);
}

static void print_scope(kiln_manager *m, kiln_scope scope, const char *when) {
    kiln_manager_stats stats;
    kiln_error err;
    if (kiln_manager_stats_get(m, &stats, &err) != KILN_OK)
        return;
    for (uint32_t i = 0; i < stats.scope_count && i < KILN_STATS_MAX_SCOPES; i++)
        if (stats.scopes[i].scope == scope)
            printf("%s: scope '%s' holds %" PRIu32 " assets, %" PRIu64 " bytes (%" PRIu32
                   " loaded directly)\n",
                   when, stats.scopes[i].name, stats.scopes[i].assets, stats.scopes[i].bytes,
                   stats.scopes[i].holds);
    printf("%s: the manager has %" PRIu32 " assets loaded, %" PRIu64 " bytes\n", when, stats.assets,
           stats.bytes);
}

/* ---- the walkthrough ---------------------------------------------------- */

typedef struct progress {
    uint32_t done, failed;
} progress;

static void on_loaded(void *user, kiln_ref ref, kiln_result result, const kiln_error *err) {
    progress *p = user;
    (void)ref;
    p->done++;
    if (result != KILN_OK) {
        p->failed++;
        fprintf(stderr, "viewer: %s\n", err->message);
    }
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s RUNTIME_FOLDER_OR_PACK...\n", argv[0]);
        return 2;
    }
    engine gpu = {0};
    kiln_manager_desc desc = {0};
    desc.worker_threads = 2;
    desc.engine = (kiln_engine_callbacks){
        .user = &gpu,
        .create_buffer = create_buffer,
        .destroy_buffer = destroy_buffer,
        .create_texture = create_texture,
        .destroy_texture = destroy_texture,
    };
    kiln_manager *manager;
    kiln_error err;
    if (kiln_manager_create(&desc, &manager, &err) != KILN_OK) {
        fprintf(stderr, "viewer: %s\n", err.message);
        return 1;
    }
    scene_list scenes = {0};
    for (int i = 1; i < argc; i++) {
        if (kiln_manager_mount(manager, argv[i], NULL, &err) != KILN_OK) {
            fprintf(stderr, "viewer: %s\n", err.message);
            kiln_manager_destroy(manager);
            return 1;
        }
        list_scenes(argv[i], &scenes);
        printf("mounted %s\n", argv[i]);
    }

    kiln_scope level;
    if (kiln_scope_create(manager, "level", 0, &level, &err) != KILN_OK) {
        fprintf(stderr, "viewer: %s\n", err.message);
        kiln_manager_destroy(manager);
        return 1;
    }
    progress loaded = {0};
    kiln_ref refs[256];
    uint32_t requested = 0;
    for (uint32_t i = 0; i < scenes.count; i++) {
        if (kiln_manager_request(manager, level, scenes.handles[i], 0, on_loaded, &loaded,
                                 &refs[requested], &err) == KILN_OK)
            requested++;
        else
            fprintf(stderr, "viewer: %s: %s\n", scenes.refs[i], err.message);
    }
    /* A game pumps once a frame; here, until everything has arrived, waiting
     * for the workers between pumps (up to a frame's time) as a loading
     * screen does, rather than spinning. */
    while (loaded.done < requested) {
        kiln_manager_wait(manager, 16);
        kiln_manager_pump(manager);
    }

    /* Levels first: each shows what it holds; then the scenes no level
     * reached. */
    seen_set seen = {0};
    for (int levels = 1; levels >= 0; levels--) {
        for (uint32_t i = 0; i < requested; i++) {
            const kiln_asset *a = kiln_asset_get(manager, refs[i]);
            if (a != NULL && (a->scene.links != NULL) == (levels == 1))
                print_asset(manager, refs[i], 0, false, &seen);
        }
    }
    printf("loaded %" PRIu32 " scenes: %" PRIu32 " meshes (%" PRIu64 " triangles), %" PRIu32
           " material tables, %" PRIu32 " textures\n",
           requested - loaded.failed, seen.meshes, seen.triangles, seen.tables, seen.textures);
    printf("engine: %" PRIu32 " buffers (%" PRIu64 " bytes), %" PRIu32 " textures (%" PRIu64
           " bytes) created\n",
           gpu.buffers, gpu.buffer_bytes, gpu.textures, gpu.texture_bytes);
    print_scope(manager, level, "before");
    kiln_scope_destroy(manager, level, &err);
    print_scope(manager, level, "after destroying the scope");
    kiln_manager_destroy(manager);
    return loaded.failed > 0 ? 1 : 0;
}
