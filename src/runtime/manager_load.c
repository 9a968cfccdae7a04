/*
 * manager_load.c — loading assets: resolving handles into holds, reading and
 * validating files (a worker or the caller, without the lock), linking
 * dependencies, the engine's upload, the priority queue, the workers and
 * kiln_manager_pump.
 *
 * A slot goes QUEUED -> LOADING (read, validate, inflate; unlocked, pinned)
 * -> LOADED (dependencies linked; waiting for them) -> UPLOADING (engine
 * create callbacks; unlocked, pinned) -> READY, or FAILED from any step (an
 * asset the engine creates nothing for goes from LOADED to READY as soon as
 * its dependencies are, on the thread that got it there); a
 * failed dependency fails the assets waiting for it. Dependencies go from a
 * kind to a lower one (animation -> scene -> mesh -> material -> texture; a
 * shader has none; the kind is checked against both the manifest and the
 * file), except a level's: its placed scenes and its components' assets,
 * which may be scenes (levels too) or anything. Those could close a cycle,
 * so before a scene or an animation holds a scene or an animation,
 * manager_graph.c checks that the hold closes no cycle and nests scenes at
 * most MGR_MAX_NESTING deep, failing the asset naming the cycle otherwise.
 * The graph of holds therefore stays acyclic and shallow, and a synchronous
 * load can drive its dependencies recursively.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_createDCtx_advanced: the allocator hooks */
#include <zstd.h>

#include "common/checked.h"
#include "runtime/internal.h"
#include "runtime/manager_dev.h"
#include "runtime/manager_load.h"

/* ---------------------------------------------------------------------------
 * The queue: a max-heap by priority, first come first served within one
 * ------------------------------------------------------------------------- */

static bool heap_above(kiln_manager *m, uint32_t a, uint32_t b) {
    const mgr_slot *x = mgr_slot_at(m, a), *y = mgr_slot_at(m, b);
    return x->priority != y->priority ? x->priority > y->priority : x->sequence < y->sequence;
}

static void heap_set(kiln_manager *m, uint32_t at, uint32_t index) {
    m->heap[at] = index;
    mgr_slot_at(m, index)->heap_index = at;
}

static void heap_fix(kiln_manager *m, uint32_t at) {
    uint32_t index = m->heap[at];
    while (at > 0 && heap_above(m, index, m->heap[(at - 1) / 2])) {
        heap_set(m, at, m->heap[(at - 1) / 2]);
        at = (at - 1) / 2;
    }
    for (;;) {
        uint32_t child = 2 * at + 1;
        if (child >= m->heap_count)
            break;
        if (child + 1 < m->heap_count && heap_above(m, m->heap[child + 1], m->heap[child]))
            child++;
        if (!heap_above(m, m->heap[child], index))
            break;
        heap_set(m, at, m->heap[child]);
        at = child;
    }
    heap_set(m, at, index);
}

static void heap_push(kiln_manager *m, uint32_t index, int32_t priority) {
    mgr_slot *s = mgr_slot_at(m, index);
    s->priority = priority;
    s->sequence = m->sequence++;
    m->heap[m->heap_count] = index;
    s->heap_index = m->heap_count++;
    heap_fix(m, s->heap_index);
}

void mgr_heap_remove(kiln_manager *m, uint32_t index) {
    mgr_slot *s = mgr_slot_at(m, index);
    uint32_t at = s->heap_index;
    s->heap_index = UINT32_MAX;
    uint32_t last = m->heap[--m->heap_count];
    if (at < m->heap_count) {
        m->heap[at] = last;
        mgr_slot_at(m, last)->heap_index = at;
        heap_fix(m, at);
    }
}

static void heap_raise(kiln_manager *m, uint32_t index, int32_t priority) {
    mgr_slot *s = mgr_slot_at(m, index);
    if (s->heap_index != UINT32_MAX && priority > s->priority) {
        s->priority = priority;
        heap_fix(m, s->heap_index);
    }
}

/* ---------------------------------------------------------------------------
 * The finish list: loaded slots whose dependencies are all ready
 * ------------------------------------------------------------------------- */

static void finish_push(kiln_manager *m, uint32_t index) {
    mgr_slot *s = mgr_slot_at(m, index);
    if (!s->in_finish) {
        s->in_finish = true;
        m->finish[m->finish_count++] = index;
    }
}

void mgr_finish_remove(kiln_manager *m, uint32_t index) {
    for (uint32_t i = 0; i < m->finish_count; i++) {
        if (m->finish[i] == index) {
            m->finish[i] = m->finish[--m->finish_count];
            break;
        }
    }
    mgr_slot_at(m, index)->in_finish = false;
}

/* ---------------------------------------------------------------------------
 * Reading, validating, inflating (unlocked: the slot is pinned and LOADING,
 * so only this thread touches its asset fields)
 * ------------------------------------------------------------------------- */

void mgr_data_release_staging(kiln_manager *m, mgr_data *d) {
    if (d->staging == NULL)
        return;
    if (d->staging_engine) {
        if (m->engine.release_staging != NULL)
            m->engine.release_staging(m->engine.user, d->staging, d->staging_size);
    } else {
        mgr_free(m, d->staging, d->staging_size);
    }
    d->staging = NULL;
    d->staging_size = 0;
    d->staging_engine = false;
    d->asset.texels = NULL;
    d->asset.texel_bytes = 0;
}

void mgr_release_staging(kiln_manager *m, mgr_slot *s) {
    mgr_data_release_staging(m, s->data);
}

static bool wants_texels(const kiln_manager *m) {
    return m->engine.create_texture != NULL || (m->flags & KILN_MANAGER_KEEP_TEXELS) != 0;
}

/* Zstd's memory through the allocator hooks: its free passes no size, so
 * each block starts with its size (16 bytes keep the alignment). */
static void *zstd_alloc(void *opaque, size_t size) {
    if (size > SIZE_MAX - 16)
        return NULL;
    uint8_t *block = mgr_alloc(opaque, size + 16, 16);
    if (block == NULL)
        return NULL;
    memcpy(block, &size, sizeof size);
    return block + 16;
}

static void zstd_free(void *opaque, void *address) {
    if (address == NULL)
        return;
    uint8_t *block = (uint8_t *)address - 16;
    size_t size;
    memcpy(&size, block, sizeof size);
    mgr_free(opaque, block, size + 16);
}

/* A decompression context from the manager's pool, or a new one. */
static ZSTD_DCtx *dctx_take(kiln_manager *m) {
    ZSTD_DCtx *dctx = NULL;
    pthread_mutex_lock(&m->lock);
    if (m->dctx_count > 0)
        dctx = m->dctx_pool[--m->dctx_count];
    pthread_mutex_unlock(&m->lock);
    if (dctx == NULL)
        dctx = ZSTD_createDCtx_advanced((ZSTD_customMem){zstd_alloc, zstd_free, m});
    return dctx;
}

static void dctx_give(kiln_manager *m, ZSTD_DCtx *dctx) {
    if (dctx == NULL)
        return;
    pthread_mutex_lock(&m->lock);
    if (m->dctx_count < MGR_DCTX_POOL) {
        m->dctx_pool[m->dctx_count++] = dctx;
        dctx = NULL;
    }
    pthread_mutex_unlock(&m->lock);
    ZSTD_freeDCtx(dctx);
}

void mgr_free_dctx_pool(kiln_manager *m) {
    while (m->dctx_count > 0)
        ZSTD_freeDCtx(m->dctx_pool[--m->dctx_count]);
}

static uint64_t read_u64(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* kiln_ktx2_read_level with the manager's decompression context (whose
 * memory comes from the hooks). The view has validated the level index. */
static kiln_result read_level(const kiln_ktx2_view *v, uint32_t level, ZSTD_DCtx *dctx,
                              uint8_t *dst, uint64_t expected, kiln_error *err) {
    const uint8_t *e = v->data + 80 + (size_t)level * 24; /* KTX2 header, level entries */
    uint64_t offset = read_u64(e), length = read_u64(e + 8);
    if (!range_inside(offset, length, v->size))
        return runtime_fail(err, KILN_ERR_TRUNCATED, v->name,
                            "KTX2: level %" PRIu32 " out of range", level);
    if (v->supercompression == KILN_KTX2_SUPERCOMPRESSION_NONE) {
        if (length < expected)
            return runtime_fail(err, KILN_ERR_CORRUPT, v->name,
                                "KTX2: level %" PRIu32 " is %" PRIu64 " bytes, expected %" PRIu64,
                                level, length, expected);
        memcpy(dst, v->data + offset, (size_t)expected);
        return KILN_OK;
    }
    unsigned long long content = ZSTD_getFrameContentSize(v->data + offset, (size_t)length);
    if (content != ZSTD_CONTENTSIZE_UNKNOWN && content != expected)
        return runtime_fail(err, KILN_ERR_CORRUPT, v->name,
                            "KTX2: level %" PRIu32
                            " Zstd frame declares %llu bytes, expected %" PRIu64,
                            level, content, expected);
    size_t got = ZSTD_decompressDCtx(dctx, dst, (size_t)expected, v->data + offset, (size_t)length);
    if (ZSTD_isError(got))
        return runtime_fail(err, KILN_ERR_CORRUPT, v->name, "KTX2: level %" PRIu32 ": Zstd: %s",
                            level, ZSTD_getErrorName(got));
    if (got != expected)
        return runtime_fail(err, KILN_ERR_CORRUPT, v->name,
                            "KTX2: level %" PRIu32 " inflates to %zu bytes, expected %" PRIu64,
                            level, got, expected);
    return KILN_OK;
}

static kiln_result inflate_texture(kiln_manager *m, mgr_slot *s, kiln_error *err) {
    const kiln_ktx2_view *v = &s->data->asset.texture;
    if (v->levels > KILN_ASSET_MAX_LEVELS)
        return runtime_fail(err, KILN_ERR_UNSUPPORTED, v->name, "%" PRIu32 " levels, at most %d",
                            v->levels, KILN_ASSET_MAX_LEVELS);
    uint64_t total = 0;
    for (uint32_t l = 0; l < v->levels; l++) {
        s->data->asset.level_offsets[l] = total;
        uint64_t size = kiln_ktx2_level_size(v, l);
        if (!checked_add_u64(total, align_up_u64(size, 16), &total) || total > SIZE_MAX)
            return runtime_fail(err, KILN_ERR_CORRUPT, v->name, "levels do not fit in memory");
    }
    void *staging = NULL;
    if (m->engine.texture_staging != NULL)
        staging = m->engine.texture_staging(m->engine.user, &s->data->asset, (size_t)total);
    s->data->staging_engine = staging != NULL;
    if (staging == NULL)
        staging = mgr_alloc(m, (size_t)total, 16);
    if (staging == NULL)
        return runtime_fail(err, KILN_ERR_OUT_OF_MEMORY, v->name,
                            "cannot allocate %" PRIu64 " bytes for the levels", total);
    s->data->staging = staging;
    s->data->staging_size = (size_t)total;
    ZSTD_DCtx *dctx = NULL;
    if (v->supercompression != KILN_KTX2_SUPERCOMPRESSION_NONE && (dctx = dctx_take(m)) == NULL)
        return runtime_fail(err, KILN_ERR_OUT_OF_MEMORY, v->name, "cannot allocate a Zstd context");
    kiln_result r = KILN_OK;
    for (uint32_t l = 0; l < v->levels && r == KILN_OK; l++)
        r = read_level(v, l, dctx, (uint8_t *)staging + s->data->asset.level_offsets[l],
                       kiln_ktx2_level_size(v, l), err);
    dctx_give(m, dctx);
    return r;
}

static kiln_result read_asset(kiln_manager *m, mgr_slot *s, const mgr_mount *mt, kiln_error *err) {
    const char *name = s->path;
    const void *data;
    size_t size;
    if (mt->is_pack) {
        kiln_pack_item item;
        /* The pack of the manifest that named it (a replaced pack stays
         * mapped while data from it is alive). */
        if (kiln_pack_find(&s->data->manifest->pack, s->path, &item) != KILN_OK)
            return runtime_fail(err, KILN_ERR_NOT_FOUND, name,
                                "the manifest names it, but the pack %s has no such file",
                                mt->name);
        data = item.data;
        size = (size_t)item.size;
    } else {
        size_t length = mt->dir_length + 1 + strlen(s->path) + 1;
        char *path = mgr_alloc(m, length, 1);
        if (path == NULL)
            return runtime_fail(err, KILN_ERR_OUT_OF_MEMORY, name, "out of memory");
        snprintf(path, length, "%s/%s", mt->dir, s->path);
        void *memory = NULL;
        bool mapped = false;
        kiln_result r =
            mgr_read_file(m, name, path, &memory, &size, &mapped, &s->data->file_id, err);
        mgr_free(m, path, length);
        if (r != KILN_OK)
            return r;
        s->data->file_memory = memory;
        s->data->file_memory_size = size;
        s->data->file_mapped = mapped;
        data = memory;
    }
    s->data->asset.file_bytes = size;
    uint32_t flags = m->open_flags;
    kiln_result r;
    switch (s->expected_kind) {
    case KILN_ASSET_TEXTURE:
        r = kiln_ktx2_view_get(&s->data->asset.texture, data, size, name, err);
        if (r == KILN_OK && wants_texels(m))
            r = inflate_texture(m, s, err);
        return r;
    case KILN_ASSET_MESH:
    case KILN_ASSET_MATERIAL:
    case KILN_ASSET_SCENE:
    case KILN_ASSET_ANIMATION:
    case KILN_ASSET_SHADER:
        r = kiln_file_from_memory(&s->data->asset.file, data, size, name, flags, err);
        if (r != KILN_OK)
            return r;
        if (s->expected_kind == KILN_ASSET_MESH)
            return kiln_mesh_view_get(&s->data->asset.file, flags, &s->data->asset.mesh, err);
        if (s->expected_kind == KILN_ASSET_MATERIAL)
            return kiln_material_view_get(&s->data->asset.file, flags, &s->data->asset.materials,
                                          err);
        if (s->expected_kind == KILN_ASSET_ANIMATION)
            return kiln_anim_view_get(&s->data->asset.file, flags, &s->data->asset.anim, err);
        if (s->expected_kind == KILN_ASSET_SHADER)
            return kiln_shader_view_get(&s->data->asset.file, flags, &s->data->asset.shader, err);
        return kiln_scene_view_get(&s->data->asset.file, flags, &s->data->asset.scene, err);
    default:
        return runtime_fail(err, KILN_ERR_UNSUPPORTED, name,
                            "%s assets are not loaded by this libkiln",
                            kiln_asset_kind_str(s->expected_kind));
    }
}

/* ---------------------------------------------------------------------------
 * States (lock held)
 * ------------------------------------------------------------------------- */

static void fail_slot(kiln_manager *m, uint32_t index);

/* Frees a failed slot's file and texels (its views go with them). */
static void drop_data(kiln_manager *m, mgr_slot *s) {
    mgr_release_staging(m, s);
    mgr_file_memory_free(m, s->data);
    memset(&s->data->asset.file, 0, sizeof s->data->asset.file);
    memset(&s->data->asset.mesh, 0, sizeof s->data->asset.mesh);
    memset(&s->data->asset.materials, 0, sizeof s->data->asset.materials);
    memset(&s->data->asset.scene, 0, sizeof s->data->asset.scene);
    memset(&s->data->asset.anim, 0, sizeof s->data->asset.anim);
    memset(&s->data->asset.shader, 0, sizeof s->data->asset.shader);
    memset(&s->data->asset.texture, 0, sizeof s->data->asset.texture);
    mgr_set_bytes(m, s, 0);
}

/* "<who>: needs <ref>, which failed: <why>". When the dependency's own
 * message does not fit (a long chain of "needs"), its root cause does: the
 * part after its last "which failed: ". */
static kiln_result fail_needs(kiln_error *err, kiln_result code, const char *who, const char *ref,
                              const char *why) {
    static const char needs[] = ", which failed: ";
    const char *cause = why;
    if (strlen(who) + strlen(ref) + strlen(why) + 32 >= sizeof err->message) {
        for (const char *at = strstr(why, needs); at != NULL; at = strstr(at + 1, needs))
            cause = at + sizeof needs - 1;
    }
    return runtime_fail(err, code != KILN_OK ? code : KILN_ERR_CORRUPT, who,
                        "needs %s, which failed: %s%s", ref, cause == why ? "" : "... ", cause);
}

/* s->error is filled; every asset waiting for it fails too. */
static void fail_slot(kiln_manager *m, uint32_t index) {
    mgr_slot *s = mgr_slot_at(m, index);
    if (s->in_finish)
        mgr_finish_remove(m, index);
    drop_data(m, s);
    mgr_set_state(s, SLOT_FAILED);
    uint32_t count = s->dependent_count;
    s->dependent_count = 0;
    for (uint32_t i = 0; i < count; i++) {
        mgr_slot *d = mgr_slot_at(m, s->dependents[i]);
        if (mgr_slot_state(d) != SLOT_LOADED)
            continue;
        fail_needs(&d->error, s->error.code, d->path, s->data->asset.ref, s->error.message);
        fail_slot(m, s->dependents[i]);
    }
    pthread_cond_broadcast(&m->done);
}

static void done_loading(kiln_manager *m, uint32_t index);

static void ready_slot(kiln_manager *m, uint32_t index) {
    mgr_slot *s = mgr_slot_at(m, index);
    atomic_store_explicit(&s->shown, &s->data->asset, memory_order_relaxed); /* tag releases it */
    mgr_set_state(s, SLOT_READY);
    uint32_t count = s->dependent_count;
    s->dependent_count = 0;
    for (uint32_t i = 0; i < count; i++) {
        mgr_slot *d = mgr_slot_at(m, s->dependents[i]);
        if (mgr_slot_state(d) == SLOT_LOADED && d->pending > 0 && --d->pending == 0)
            done_loading(m, s->dependents[i]);
    }
    pthread_cond_broadcast(&m->done);
}

/* Whether finishing a slot calls the engine (so waits for a pump or the
 * synchronous loader's thread). */
static bool needs_upload(const kiln_manager *m, const mgr_slot *s) {
    if (s->data->asset.kind == KILN_ASSET_MESH)
        return m->engine.create_buffer != NULL;
    if (s->data->asset.kind == KILN_ASSET_TEXTURE)
        return s->data->staging != NULL && m->engine.create_texture != NULL;
    return false;
}

/* A loaded slot whose dependencies are all ready (lock held): ready at once
 * when the engine has nothing to create for it (on whatever thread got here,
 * a worker included), else on the finish list for the upload. */
static void done_loading(kiln_manager *m, uint32_t index) {
    mgr_slot *s = mgr_slot_at(m, index);
    if (needs_upload(m, s)) {
        finish_push(m, index);
        return;
    }
    if (s->data->staging != NULL) { /* kept texels (KILN_MANAGER_KEEP_TEXELS) */
        s->data->asset.texels = s->data->staging;
        s->data->asset.texel_bytes = s->data->staging_size;
    }
    ready_slot(m, index);
}

/* ---------------------------------------------------------------------------
 * Dependencies (lock held)
 * ------------------------------------------------------------------------- */

typedef struct dep_list {
    kiln_handle handles[64];
    kiln_asset_kind kinds[64];
    uint32_t count;
    kiln_handle *more; /* beyond 64 */
    kiln_asset_kind *more_kinds;
    uint32_t more_count, more_capacity, more_kinds_capacity;
} dep_list;

static bool dep_add(kiln_manager *m, void *to, kiln_handle handle, kiln_asset_kind kind) {
    dep_list *list = to;
    if (handle == 0)
        return true;
    for (uint32_t i = 0; i < list->count; i++)
        if (list->handles[i] == handle)
            return true;
    for (uint32_t i = 0; i < list->more_count; i++)
        if (list->more[i] == handle)
            return true;
    if (list->count < 64) {
        list->handles[list->count] = handle;
        list->kinds[list->count++] = kind;
        return true;
    }
    if (!mgr_grow(m, (void **)&list->more, &list->more_capacity, list->more_count + 1,
                  sizeof *list->more) ||
        !mgr_grow(m, (void **)&list->more_kinds, &list->more_kinds_capacity, list->more_count + 1,
                  sizeof *list->more_kinds))
        return false;
    list->more[list->more_count] = handle;
    list->more_kinds[list->more_count++] = kind;
    return true;
}

static void dep_get(const dep_list *list, uint32_t i, kiln_handle *handle, kiln_asset_kind *kind) {
    if (i < list->count) {
        *handle = list->handles[i];
        *kind = list->kinds[i];
    } else {
        *handle = list->more[i - list->count];
        *kind = list->more_kinds[i - list->count];
    }
}

/* A mesh's material table: row 0 of "<ref>/material_0", or, for a mesh named
 * "<source>/mesh_N", of "<source>/material_0", when the manifest has it. */
static kiln_handle mesh_material_table(kiln_manager *m, const char *ref) {
    char name[1024];
    size_t length = strlen(ref);
    const char *slash = strrchr(ref, '/');
    for (int attempt = 0; attempt < 2; attempt++) {
        size_t keep = length;
        if (attempt == 1) {
            if (slash == NULL || strncmp(slash + 1, "mesh_", 5) != 0)
                break;
            keep = (size_t)(slash - ref);
        }
        if (keep + sizeof "/material_0" > sizeof name)
            break;
        memcpy(name, ref, keep);
        memcpy(name + keep, "/material_0", sizeof "/material_0");
        kiln_handle handle = kiln_ref_hash(name);
        uint32_t mount;
        const kiln_manifest_entry *entry;
        if (mgr_resolve(m, handle, &mount, &entry) && entry->kind == KILN_ASSET_MATERIAL)
            return handle;
    }
    return 0;
}

/* The handles an asset's file names: KILN_OK, or the failure in `err`. */
static kiln_result collect_deps(kiln_manager *m, mgr_slot *s, dep_list *list, kiln_error *err) {
    bool ok = true;
    switch (s->data->asset.kind) {
    case KILN_ASSET_SCENE: {
        const kiln_scene_view *v = &s->data->asset.scene;
        for (uint32_t i = 0; ok && i < v->desc->mesh_count; i++)
            ok = dep_add(m, list, v->meshes[i], KILN_ASSET_MESH);
        for (uint32_t i = 0; ok && i < v->desc->material_count; i++)
            ok = dep_add(m, list, v->materials[i], KILN_ASSET_MATERIAL);
        if (ok) /* a level: its placed scenes and its components' assets */
            return mgr_level_deps(m, &s->data->asset, dep_add, list, err);
        break;
    }
    case KILN_ASSET_ANIMATION: /* the scene its channels target, and so its meshes */
        ok = dep_add(m, list, s->data->asset.anim.desc->scene, KILN_ASSET_SCENE);
        break;
    case KILN_ASSET_MESH:
        ok = dep_add(m, list, mesh_material_table(m, s->data->asset.ref), KILN_ASSET_MATERIAL);
        break;
    case KILN_ASSET_MATERIAL: {
        const kiln_material_view *v = &s->data->asset.materials;
        for (uint32_t i = 0; ok && i < v->material_count; i++)
            for (uint32_t t = 0; ok && t < KILN_MATERIAL_SLOT_COUNT; t++)
                ok = dep_add(m, list, v->materials[i].textures[t].texture, KILN_ASSET_TEXTURE);
        break;
    }
    default:
        break;
    }
    return ok ? KILN_OK : runtime_fail(err, KILN_ERR_OUT_OF_MEMORY, s->path, "out of memory");
}

/* A level's missing dependency: says which node names it. */
static void note_origin(const mgr_slot *s, kiln_handle handle, kiln_error *err) {
    char where[192];
    if (!mgr_level_dep_origin(&s->data->asset, handle, where, sizeof where))
        return;
    if (err->code == KILN_ERR_NOT_FOUND) {
        runtime_fail(err, KILN_ERR_NOT_FOUND, s->path,
                     "needs 0x%016" PRIx64 ", which no mounted manifest has: %s", handle, where);
        return;
    }
    size_t used = strlen(err->message);
    if (used + 4 < sizeof err->message)
        snprintf(err->message + used, sizeof err->message - used, " (%s)", where);
}

/* Takes back a dependency slot find_or_create made that nothing holds. */
static void drop_unheld(kiln_manager *m, uint32_t dep) {
    mgr_slot *d = mgr_slot_at(m, dep);
    if (d->refs == 0 && d->pins == 0) {
        d->refs = 1;
        mgr_release(m, dep);
    }
}

/* The slot for a dependency or a direct load of `handle` wanted as `kind`
 * (KILN_ASSET_INVALID: any kind), created and queued at `priority` when new.
 * 0 with `err` filled when it cannot be. */
static uint32_t find_or_create(kiln_manager *m, kiln_handle handle, kiln_asset_kind kind,
                               int32_t priority, bool queue, kiln_error *err, const char *who,
                               const char *ref_string) {
    uint32_t mount;
    const kiln_manifest_entry *entry;
    if (!mgr_resolve(m, handle, &mount, &entry)) {
        if (ref_string != NULL)
            runtime_fail(err, KILN_ERR_NOT_FOUND, who,
                         "unknown handle 0x%016" PRIx64 " ('%s'): no mounted manifest has it",
                         handle, ref_string);
        else if (kind != KILN_ASSET_INVALID)
            runtime_fail(err, KILN_ERR_NOT_FOUND, who,
                         "needs %s 0x%016" PRIx64 ", which no mounted manifest has",
                         kiln_asset_kind_str(kind), handle);
        else
            runtime_fail(err, KILN_ERR_NOT_FOUND, who,
                         "unknown handle 0x%016" PRIx64 ": no mounted manifest has it", handle);
        return 0;
    }
    const char *path = kiln_manifest_path(&mgr_mount_at(m, mount)->man->view, entry);
    if (kind != KILN_ASSET_INVALID && entry->kind != kind) {
        runtime_fail(err, KILN_ERR_CORRUPT, who, "'%s' is a %s in the manifest, not a %s",
                     kiln_manifest_ref(&mgr_mount_at(m, mount)->man->view, entry),
                     kiln_asset_kind_str((kiln_asset_kind)entry->kind), kiln_asset_kind_str(kind));
        return 0;
    }
    uint32_t index = mgr_map_find(m, mount, path);
    if (index != 0 && mgr_slot_at(m, index)->refs == 0 &&
        mgr_slot_state(mgr_slot_at(m, index)) == SLOT_FAILED) {
        /* A load cancelled when its last hold went, kept only by a pin (a
         * thread waiting on it, a reload looking it up) until the pin goes:
         * dead, so it leaves the map and a new slot loads the file. */
        mgr_map_remove(m, index);
        index = 0;
    }
    if (index != 0) {
        mgr_slot *s = mgr_slot_at(m, index);
        if (s->expected_kind != entry->kind) {
            runtime_fail(err, KILN_ERR_CORRUPT, who,
                         "%s is named as a %s and as a %s by the manifest", path,
                         kiln_asset_kind_str(s->expected_kind),
                         kiln_asset_kind_str((kiln_asset_kind)entry->kind));
            return 0;
        }
        if (queue)
            heap_raise(m, index, priority);
        return index;
    }
    index = mgr_slot_create(m, mount, entry, handle);
    if (index == 0) {
        runtime_fail(err, KILN_ERR_OUT_OF_MEMORY, who,
                     "cannot load %s: the asset table is full (max_assets) or out of memory", path);
        return 0;
    }
    mgr_slot *s = mgr_slot_at(m, index);
    s->priority = priority;
    if (queue) {
        heap_push(m, index, priority);
        pthread_cond_signal(&m->work);
    }
    return index;
}

/* After a read (lock held): link the dependencies, charge the bytes, and
 * move to LOADED (finish list when nothing is pending) or FAILED. */
static void publish(kiln_manager *m, uint32_t index, kiln_result read) {
    mgr_slot *s = mgr_slot_at(m, index);
    if (read != KILN_OK) {
        fail_slot(m, index);
        return;
    }
    dep_list list;
    list.count = 0;
    list.more = NULL;
    list.more_kinds = NULL;
    list.more_count = list.more_capacity = list.more_kinds_capacity = 0;
    bool ok = collect_deps(m, s, &list, &s->error) == KILN_OK;
    uint32_t total = list.count + list.more_count;
    if (ok && total > 0 &&
        !mgr_grow(m, (void **)&s->data->deps, &s->data->dep_capacity, total,
                  sizeof *s->data->deps)) {
        ok = false;
        runtime_fail(&s->error, KILN_ERR_OUT_OF_MEMORY, s->path, "out of memory");
    }
    for (uint32_t i = 0; ok && i < total; i++) {
        kiln_handle handle;
        kiln_asset_kind kind;
        dep_get(&list, i, &handle, &kind);
        uint32_t dep = find_or_create(m, handle, kind, s->priority, true, &s->error, s->path, NULL);
        if (dep == 0) {
            note_origin(s, handle, &s->error);
            ok = false;
            break;
        }
        if (!mgr_graph_check(m, index, dep, &s->error)) {
            drop_unheld(m, dep);
            ok = false;
            break;
        }
        mgr_slot *d = mgr_slot_at(m, dep);
        d->refs++;
        s->data->deps[s->data->asset.dependency_count++] =
            (kiln_asset_dependency){handle, {0, dep, d->generation}};
        s->data->asset.dependencies = s->data->deps;
        mgr_graph_linked(m, index, dep);
        for (uint32_t r = 0; ok && r < s->reach_count; r++)
            ok = mgr_reach_add(m, dep, s->reach[r].scope, false);
        if (!ok)
            runtime_fail(&s->error, KILN_ERR_OUT_OF_MEMORY, s->path, "out of memory");
    }
    mgr_free(m, list.more, (size_t)list.more_capacity * sizeof *list.more);
    mgr_free(m, list.more_kinds, (size_t)list.more_kinds_capacity * sizeof *list.more_kinds);
    if (!ok) {
        fail_slot(m, index);
        return;
    }
    uint64_t bytes =
        s->data->asset.file_bytes + (s->data->staging != NULL ? s->data->staging_size : 0);
    mgr_set_bytes(m, s, bytes);
    mgr_set_state(s, SLOT_LOADED);
    s->pending = 0;
    for (uint32_t i = 0; i < s->data->asset.dependency_count; i++) {
        uint32_t dep = s->data->deps[i].ref.slot;
        mgr_slot *d = mgr_slot_at(m, dep);
        uint32_t state = mgr_slot_state(d);
        if (state == SLOT_READY)
            continue;
        if (state == SLOT_FAILED) {
            fail_needs(&s->error, d->error.code, s->path, d->data->asset.ref, d->error.message);
            fail_slot(m, index);
            return;
        }
        if (!mgr_grow(m, (void **)&d->dependents, &d->dependent_capacity, d->dependent_count + 1,
                      sizeof *d->dependents)) {
            runtime_fail(&s->error, KILN_ERR_OUT_OF_MEMORY, s->path, "out of memory");
            fail_slot(m, index);
            return;
        }
        d->dependents[d->dependent_count++] = index;
        s->pending++;
    }
    if (s->pending == 0)
        done_loading(m, index);
    pthread_cond_broadcast(&m->done);
}

/* ---------------------------------------------------------------------------
 * The engine's upload (unlocked: the slot is pinned and UPLOADING)
 * ------------------------------------------------------------------------- */

static kiln_result upload(kiln_manager *m, mgr_slot *s, kiln_error *err) {
    const kiln_engine_callbacks *e = &m->engine;
    kiln_asset *a = &s->data->asset;
    if (a->kind == KILN_ASSET_MESH && e->create_buffer != NULL) {
        kiln_result r = e->create_buffer(e->user, a, KILN_BUFFER_VERTICES, a->mesh.vertices,
                                         a->mesh.vertex_bytes, &a->engine_buffers[0], err);
        if (r == KILN_OK)
            r = e->create_buffer(e->user, a, KILN_BUFFER_INDICES, a->mesh.indices,
                                 a->mesh.index_bytes, &a->engine_buffers[1], err);
        if (r != KILN_OK && err->message[0] == '\0')
            runtime_fail(err, r, s->path, "the engine's create_buffer failed");
        return r;
    }
    if (a->kind == KILN_ASSET_TEXTURE && s->data->staging != NULL) {
        if (e->create_texture != NULL) {
            kiln_result r = e->create_texture(e->user, a, s->data->staging, s->data->staging_size,
                                              &a->engine_texture, err);
            if (r != KILN_OK) {
                if (err->message[0] == '\0')
                    runtime_fail(err, r, s->path, "the engine's create_texture failed");
                return r;
            }
            if (s->data->staging_engine) { /* the engine's memory is the engine's again */
                s->data->staging = NULL;
                s->data->staging_size = 0;
                s->data->staging_engine = false;
            }
            /* Our own staging is freed under the lock (the bytes change). */
        } else {
            a->texels = s->data->staging;
            a->texel_bytes = s->data->staging_size;
        }
    }
    return KILN_OK;
}

/* ---------------------------------------------------------------------------
 * Driving a slot to READY or FAILED (lock held, slot pinned by the caller)
 * ------------------------------------------------------------------------- */

static void ensure_ready(kiln_manager *m, uint32_t index) {
    for (;;) {
        mgr_slot *s = mgr_slot_at(m, index);
        switch (mgr_slot_state(s)) {
        case SLOT_READY:
        case SLOT_FAILED:
        case SLOT_FREE:
            return;
        case SLOT_QUEUED: {
            if (s->heap_index != UINT32_MAX)
                mgr_heap_remove(m, index);
            mgr_set_state(s, SLOT_LOADING);
            const mgr_mount *mt = mgr_mount_at(m, s->mount);
            pthread_mutex_unlock(&m->lock);
            kiln_result r = read_asset(m, s, mt, &s->error);
            pthread_mutex_lock(&m->lock);
            publish(m, index, r);
            break;
        }
        case SLOT_LOADING:
        case SLOT_UPLOADING:
            pthread_cond_wait(&m->done, &m->lock);
            break;
        case SLOT_LOADED:
            if (s->pending > 0) {
                for (uint32_t i = 0; i < s->data->asset.dependency_count; i++) {
                    uint32_t dep = s->data->deps[i].ref.slot;
                    mgr_slot_at(m, dep)->pins++;
                    ensure_ready(m, dep);
                    mgr_unpin(m, dep);
                    if (mgr_slot_state(s) != SLOT_LOADED)
                        break; /* a dependency failed, and so did this */
                }
                break;
            }
            if (s->in_finish)
                mgr_finish_remove(m, index);
            mgr_set_state(s, SLOT_UPLOADING);
            pthread_mutex_unlock(&m->lock);
            kiln_error err;
            err.code = KILN_OK;
            err.message[0] = '\0';
            kiln_result r = upload(m, s, &err);
            pthread_mutex_lock(&m->lock);
            if (r != KILN_OK) {
                s->error = err;
                s->error.code = r;
                fail_slot(m, index);
            } else {
                if (s->data->staging != NULL && s->data->asset.texels == NULL) {
                    mgr_release_staging(m, s); /* ours, copied by create_texture */
                }
                mgr_set_bytes(m, s,
                              s->data->asset.file_bytes +
                                  (s->data->asset.texels != NULL ? s->data->staging_size : 0));
                ready_slot(m, index);
            }
            break;
        }
    }
}

/* ---------------------------------------------------------------------------
 * Holds: a scope's direct loads (lock held)
 * ------------------------------------------------------------------------- */

static uint64_t file_size_estimate(kiln_manager *m, kiln_handle handle) {
    uint32_t mount;
    const kiln_manifest_entry *entry;
    if (!mgr_resolve(m, handle, &mount, &entry))
        return 0;
    const mgr_mount *mt = mgr_mount_at(m, mount);
    const char *path = kiln_manifest_path(&mt->man->view, entry);
    kiln_pack_item item;
    if (mt->is_pack)
        return kiln_pack_find(&mt->man->pack, path, &item) == KILN_OK ? item.size : 0;
    return 0; /* a folder file's size is known once read */
}

/* Adds `scope`'s hold on `handle` (a no-op when it already holds it):
 * the slot index, or 0 with `err` filled. *added says whether it is new. */
static uint32_t hold(kiln_manager *m, kiln_scope scope, kiln_handle handle, int32_t priority,
                     bool queue, const char *ref_string, bool *added, kiln_error *err) {
    *added = false;
    mgr_scope *sc = mgr_scope_find(m, scope);
    if (sc == NULL) {
        runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln manager",
                     "loading into scope 0x%08" PRIx32
                     ": not alive (already destroyed, or never created)",
                     scope);
        return 0;
    }
    uint32_t scope_index = scope & 0xffffu;
    if (sc->budget != 0) {
        uint64_t estimate = file_size_estimate(m, handle);
        if (sc->bytes + estimate > sc->budget) {
            runtime_fail(err, KILN_ERR_OUT_OF_MEMORY, sc->name,
                         "budget of %" PRIu64 " bytes: the scope holds %" PRIu64
                         ", '%s' needs %" PRIu64 " more",
                         sc->budget, sc->bytes, ref_string ? ref_string : "the asset", estimate);
            return 0;
        }
    }
    const char *who = ref_string != NULL ? ref_string : "kiln manager";
    uint32_t index =
        find_or_create(m, handle, KILN_ASSET_INVALID, priority, queue, err, who, ref_string);
    if (index == 0)
        return 0;
    mgr_slot *s = mgr_slot_at(m, index);
    for (uint32_t i = 0; i < s->reach_count; i++)
        if (s->reach[i].scope == scope_index && s->reach[i].direct)
            return index; /* already held by this scope */
    if (!mgr_grow(m, (void **)&sc->holds, &sc->hold_capacity, sc->hold_count + 1,
                  sizeof *sc->holds) ||
        !mgr_reach_add(m, index, scope_index, true)) {
        if (s->refs == 0 && s->pins == 0) {
            s->refs = 1;
            mgr_release(m, index);
        }
        runtime_fail(err, KILN_ERR_OUT_OF_MEMORY, who, "out of memory");
        return 0;
    }
    s->refs++;
    sc->holds[sc->hold_count++] = index;
    *added = true;
    return index;
}

/* Takes back a hold `hold` added, for a budget refusal (lock held). */
static void unhold(kiln_manager *m, kiln_scope scope, uint32_t index) {
    mgr_scope *sc = mgr_scope_find(m, scope);
    if (sc == NULL)
        return;
    for (uint32_t i = sc->hold_count; i-- > 0;) {
        if (sc->holds[i] == index) {
            sc->holds[i] = sc->holds[--sc->hold_count];
            mgr_reach_remove(m, index, scope & 0xffffu, true);
            mgr_release(m, index);
            return;
        }
    }
}

static bool over_budget(kiln_manager *m, kiln_scope scope, kiln_error *err, const char *ref) {
    mgr_scope *sc = mgr_scope_find(m, scope);
    if (sc == NULL || sc->budget == 0 || sc->bytes <= sc->budget)
        return false;
    runtime_fail(err, KILN_ERR_OUT_OF_MEMORY, sc->name,
                 "budget of %" PRIu64 " bytes: loading '%s' would take it to %" PRIu64, sc->budget,
                 ref, sc->bytes);
    return true;
}

/* ---------------------------------------------------------------------------
 * Public loading calls
 * ------------------------------------------------------------------------- */

static kiln_result load(kiln_manager *m, kiln_scope scope, kiln_handle handle,
                        const char *ref_string, kiln_ref *ref, kiln_error *err) {
    if (ref != NULL)
        memset(ref, 0, sizeof *ref);
    if (m == NULL || ref == NULL)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln manager",
                            "loading needs a manager and a ref");
    pthread_mutex_lock(&m->lock);
    bool added;
    kiln_error local;
    kiln_error *e = err != NULL ? err : &local;
    uint32_t index = hold(m, scope, handle, 0, false, ref_string, &added, e);
    if (index == 0) {
        pthread_mutex_unlock(&m->lock);
        return e->code;
    }
    mgr_slot *s = mgr_slot_at(m, index);
    s->pins++;
    ensure_ready(m, index);
    kiln_result result = KILN_OK;
    if (mgr_slot_state(s) == SLOT_FAILED) {
        *e = s->error;
        result = s->error.code != KILN_OK ? s->error.code : KILN_ERR_CORRUPT;
        *ref = (kiln_ref){scope, index, s->generation};
    } else if (mgr_slot_state(s) == SLOT_READY && added &&
               over_budget(m, scope, e, s->data->asset.ref)) {
        result = KILN_ERR_OUT_OF_MEMORY;
        unhold(m, scope, index);
    } else if (mgr_slot_state(s) == SLOT_READY) {
        *ref = (kiln_ref){scope, index, s->generation};
        runtime_succeed(err);
    } else { /* released under us: the scope went while loading */
        result = runtime_fail(e, KILN_ERR_INVALID_ARGUMENT, "kiln manager",
                              "scope 0x%08" PRIx32 " was destroyed during the load", scope);
    }
    mgr_unpin(m, index);
    pthread_mutex_unlock(&m->lock);
    return result;
}

/* A development runtime asks its cook server for what it cannot load
 * (manager_dev.c); a shipping one has no such step. */
static kiln_result load_or_cook(kiln_manager *m, kiln_scope scope, kiln_handle handle,
                                const char *ref_string, kiln_ref *ref, kiln_error *err) {
    kiln_result result = load(m, scope, handle, ref_string, ref, err);
#if defined(KILN_RUNTIME_DEV) && KILN_RUNTIME_DEV
    if (result != KILN_OK)
        result = mgr_dev_cook_missing(m, scope, handle, ref_string, ref, err, result, load);
#endif
    return result;
}

kiln_result kiln_manager_load(kiln_manager *m, kiln_scope scope, kiln_handle handle, kiln_ref *ref,
                              kiln_error *err) {
    return load_or_cook(m, scope, handle, NULL, ref, err);
}

kiln_result kiln_manager_load_ref(kiln_manager *m, kiln_scope scope, const char *ref_string,
                                  kiln_ref *ref, kiln_error *err) {
    if (ref_string == NULL) {
        if (ref != NULL)
            memset(ref, 0, sizeof *ref);
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln manager", "no ref string");
    }
    return load_or_cook(m, scope, kiln_ref_hash(ref_string), ref_string, ref, err);
}

kiln_result kiln_manager_request(kiln_manager *m, kiln_scope scope, kiln_handle handle,
                                 int32_t priority, kiln_load_callback callback, void *user,
                                 kiln_ref *ref, kiln_error *err) {
    if (ref != NULL)
        memset(ref, 0, sizeof *ref);
    if (m == NULL || ref == NULL)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln manager",
                            "kiln_manager_request needs a manager and a ref");
    kiln_error local;
    kiln_error *e = err != NULL ? err : &local;
    pthread_mutex_lock(&m->lock);
    if (callback != NULL && !mgr_grow(m, (void **)&m->requests, &m->request_capacity,
                                      m->request_count + 1, sizeof *m->requests)) {
        pthread_mutex_unlock(&m->lock);
        return runtime_fail(err, KILN_ERR_OUT_OF_MEMORY, "kiln manager", "out of memory");
    }
    bool added;
    uint32_t index = hold(m, scope, handle, priority, true, NULL, &added, e);
    if (index == 0) {
        pthread_mutex_unlock(&m->lock);
        return e->code;
    }
    mgr_slot *s = mgr_slot_at(m, index);
    *ref = (kiln_ref){scope, index, s->generation};
    if (callback != NULL)
        m->requests[m->request_count++] = (mgr_request){scope, *ref, callback, user};
    pthread_mutex_unlock(&m->lock);
    return runtime_succeed(err);
}

uint32_t kiln_manager_pump(kiln_manager *m) {
    if (m == NULL)
        return 0;
    uint32_t called = 0;
    pthread_mutex_lock(&m->lock);
    /* Hot reload: this pump ends the grace period of data replaced two
     * pumps ago; a watched folder whose manifest changed is refreshed. */
    m->pumps++;
    mgr_retired_free(m, false);
    if (mgr_watch_poll(m)) {
        kiln_error ignored; /* reported through the reloaded callback and the status */
        mgr_refresh(m, &ignored);
    }
    /* Without workers, the queue is loaded here. */
    while (m->thread_count == 0 && m->heap_count > 0) {
        uint32_t index = m->heap[0];
        mgr_slot_at(m, index)->pins++;
        ensure_ready(m, index);
        mgr_unpin(m, index);
    }
    /* Uploads, dependencies first: finishing one may put its dependents on
     * the list. */
    while (m->finish_count > 0) {
        uint32_t index = m->finish[m->finish_count - 1];
        mgr_slot_at(m, index)->pins++;
        ensure_ready(m, index); /* takes it off the list, uploads */
        mgr_slot *s = mgr_slot_at(m, index);
        if (s->in_finish) /* finished by another thread meanwhile */
            mgr_finish_remove(m, index);
        mgr_unpin(m, index);
    }
    /* Completion callbacks. */
    for (uint32_t i = 0; i < m->request_count;) {
        mgr_request q = m->requests[i];
        mgr_slot *s = mgr_slot_at(m, q.ref.slot);
        bool alive =
            s != NULL && s->generation == q.ref.generation && mgr_scope_find(m, q.scope) != NULL;
        uint32_t state = alive ? mgr_slot_state(s) : SLOT_FREE;
        if (alive && state != SLOT_READY && state != SLOT_FAILED) {
            i++;
            continue;
        }
        m->requests[i] = m->requests[--m->request_count];
        if (!alive)
            continue;
        kiln_error err;
        kiln_result result;
        if (state == SLOT_FAILED) {
            err = s->error;
            result = err.code != KILN_OK ? err.code : KILN_ERR_CORRUPT;
        } else if (over_budget(m, q.scope, &err, s->data->asset.ref)) {
            result = KILN_ERR_OUT_OF_MEMORY;
            unhold(m, q.scope, q.ref.slot);
        } else {
            result = runtime_succeed(&err);
        }
        pthread_mutex_unlock(&m->lock);
        q.callback(q.user, q.ref, result, &err);
        called++;
        pthread_mutex_lock(&m->lock);
        /* Entry i now holds what was last (or the list changed while
         * unlocked: what this pass misses, the next pump delivers). */
    }
    pthread_mutex_unlock(&m->lock);
    return called;
}

/* ---------------------------------------------------------------------------
 * Workers
 * ------------------------------------------------------------------------- */

#if defined(KILN_RUNTIME_DEV) && KILN_RUNTIME_DEV
/* Cooking on demand for a requested load (a worker, lock not held; the slot
 * is pinned and LOADING, its read just failed with `failed`): when a cook
 * server is connected and the slot is still wanted, asks it to cook the
 * slot's ref (mgr_dev_cook, which maps the output folder's manifest again),
 * then reads the file again. A scope destroyed meanwhile only drops the
 * request: the caller sees refs == 0 and fails the slot as cancelled (the
 * pin kept it alive while the worker waited). */
static kiln_result cook_and_read(kiln_manager *m, uint32_t index, kiln_result failed) {
    mgr_slot *s = mgr_slot_at(m, index);
    char name[1024];
    pthread_mutex_lock(&m->lock);
    const mgr_mount *mt = mgr_mount_at(m, s->mount);
    bool ask = m->dev != NULL && s->refs > 0 && !mt->is_pack && s->data->asset.ref != NULL &&
               strlen(s->data->asset.ref) < sizeof name;
    if (ask)
        memcpy(name, s->data->asset.ref, strlen(s->data->asset.ref) + 1);
    pthread_mutex_unlock(&m->lock);
    if (!ask)
        return failed;
    kiln_error err;
    memset(&err, 0, sizeof err);
    kiln_result r = mgr_dev_cook(m, name, failed, &err);
    pthread_mutex_lock(&m->lock);
    if (s->refs == 0) { /* cancelled while the server cooked */
        pthread_mutex_unlock(&m->lock);
        return failed;
    }
    if (r != KILN_OK) {
        s->error = err;
        pthread_mutex_unlock(&m->lock);
        return r;
    }
    /* The cook is read at the path the slot was made for: the manifest
     * mapped after the cook must still name it for the ref. */
    const kiln_manifest_view *view = &mt->man->view;
    const kiln_manifest_entry *e = kiln_manifest_find(view, s->data->asset.handle);
    if (e == NULL || e->kind != s->expected_kind ||
        strcmp(kiln_manifest_path(view, e), s->path) != 0) {
        r = runtime_fail(&s->error, KILN_ERR_NOT_FOUND, s->path,
                         "cooked on demand, but %s now names '%s' differently: request it again",
                         mt->name, name);
        pthread_mutex_unlock(&m->lock);
        return r;
    }
    drop_data(m, s); /* what the failed read left, if anything */
    memset(&s->error, 0, sizeof s->error);
    pthread_mutex_unlock(&m->lock);
    return read_asset(m, s, mt, &s->error);
}
#endif

static void *worker_main(void *arg) {
    kiln_manager *m = arg;
    pthread_mutex_lock(&m->lock);
    for (;;) {
        while (!m->stop && m->heap_count == 0)
            pthread_cond_wait(&m->work, &m->lock);
        if (m->stop)
            break;
        uint32_t index = m->heap[0];
        mgr_heap_remove(m, index);
        mgr_slot *s = mgr_slot_at(m, index);
        mgr_set_state(s, SLOT_LOADING);
        s->pins++;
        const mgr_mount *mt = mgr_mount_at(m, s->mount);
        pthread_mutex_unlock(&m->lock);
        kiln_result r = read_asset(m, s, mt, &s->error);
#if defined(KILN_RUNTIME_DEV) && KILN_RUNTIME_DEV
        if (r == KILN_ERR_NOT_FOUND || r == KILN_ERR_IO)
            r = cook_and_read(m, index, r);
#endif
        pthread_mutex_lock(&m->lock);
        if (s->refs > 0) {
            publish(m, index, r);
        } else { /* cancelled: out of LOADING for anyone waiting; unpin frees it */
            runtime_fail(&s->error, KILN_ERR_INVALID_ARGUMENT, s->path,
                         "cancelled: no scope holds it any more");
            fail_slot(m, index);
        }
        mgr_unpin(m, index);
    }
    pthread_mutex_unlock(&m->lock);
    return NULL;
}

kiln_result mgr_start_workers(kiln_manager *m, uint32_t count, kiln_error *err) {
    if (count == 0)
        return KILN_OK;
    m->threads = mgr_calloc(m, count, sizeof *m->threads);
    if (m->threads == NULL)
        return runtime_fail(err, KILN_ERR_OUT_OF_MEMORY, "kiln manager", "out of memory");
    m->thread_capacity = count;
    for (uint32_t i = 0; i < count; i++) {
        if (pthread_create(&m->threads[i], NULL, worker_main, m) != 0) {
            mgr_stop_workers(m);
            return runtime_fail(err, KILN_ERR_OUT_OF_MEMORY, "kiln manager",
                                "cannot start worker %" PRIu32, i);
        }
        m->thread_count = i + 1;
    }
    return KILN_OK;
}

void mgr_stop_workers(kiln_manager *m) {
    if (m->threads == NULL)
        return;
    pthread_mutex_lock(&m->lock);
    m->stop = true;
    pthread_cond_broadcast(&m->work);
    pthread_mutex_unlock(&m->lock);
    for (uint32_t i = 0; i < m->thread_count; i++)
        pthread_join(m->threads[i], NULL);
    mgr_free(m, m->threads, (size_t)m->thread_capacity * sizeof *m->threads);
    m->threads = NULL;
    m->thread_count = 0;
}

/* ---------------------------------------------------------------------------
 * Reloading in place (lock held; the slot is pinned and READY)
 * ------------------------------------------------------------------------- */

kiln_result mgr_reload_fail(kiln_manager *m, uint32_t index, const kiln_error *why,
                            kiln_error *err) {
    mgr_slot *s = mgr_slot_at(m, index);
    s->reload_failed = true;
    s->reload_error = *why;
    if (s->reload_error.code == KILN_OK)
        s->reload_error.code = KILN_ERR_CORRUPT;
    m->reload_failures++;
    kiln_reload_event event = {.kind = KILN_RELOAD_FAILED,
                               .handle = s->data->asset.handle,
                               .asset = &s->data->asset,
                               .result = s->reload_error.code,
                               .error = &s->reload_error};
    mgr_notify(m, &event);
    if (err != NULL)
        *err = s->reload_error;
    return s->reload_error.code;
}

/* Reads the slot's file into `n` (unlocked), links and loads its
 * dependencies, and runs the engine's create callbacks for it (unlocked).
 * KILN_OK, or the failure in `why`; `n` holds whatever it got either way.
 * *unchanged: the file has the old data's bytes, and nothing more was done. */
static kiln_result reload_build(kiln_manager *m, uint32_t index, const mgr_mount *mt, mgr_data *n,
                                bool force, bool *unchanged, kiln_error *why) {
    mgr_slot *s = mgr_slot_at(m, index);
    mgr_slot tmp;
    memset(&tmp, 0, sizeof tmp);
    tmp.data = n;
    tmp.path = n->asset.path;
    tmp.expected_kind = s->expected_kind;
    tmp.mount = s->mount;
    pthread_mutex_unlock(&m->lock);
    kiln_result r = read_asset(m, &tmp, mt, why);
    pthread_mutex_lock(&m->lock);
    if (r != KILN_OK)
        return r;
    /* A folder file rewritten with the same bytes (a recook that changed
     * nothing in it) is not applied: no engine objects are remade. */
    const mgr_data *old = s->data;
    if (!force && n->file_memory != NULL && old->file_memory != NULL &&
        n->file_memory_size == old->file_memory_size &&
        memcmp(n->file_memory, old->file_memory, n->file_memory_size) == 0) {
        *unchanged = true;
        return KILN_OK;
    }
    dep_list list;
    list.count = 0;
    list.more = NULL;
    list.more_kinds = NULL;
    list.more_count = list.more_capacity = list.more_kinds_capacity = 0;
    r = collect_deps(m, &tmp, &list, why);
    uint32_t total = list.count + list.more_count;
    if (r == KILN_OK && total > 0 &&
        !mgr_grow(m, (void **)&n->deps, &n->dep_capacity, total, sizeof *n->deps))
        r = runtime_fail(why, KILN_ERR_OUT_OF_MEMORY, n->asset.path, "out of memory");
    /* The new data's holds are part of the graph from now on (the caller
     * clears this when it shows or drops the data). */
    s->reload_data = n;
    for (uint32_t i = 0; r == KILN_OK && i < total; i++) {
        kiln_handle handle;
        kiln_asset_kind kind;
        dep_get(&list, i, &handle, &kind);
        uint32_t dep =
            find_or_create(m, handle, kind, s->priority, false, why, n->asset.path, NULL);
        if (dep == 0) {
            note_origin(&tmp, handle, why);
            r = why->code != KILN_OK ? why->code : KILN_ERR_NOT_FOUND;
            break;
        }
        if (!mgr_graph_check(m, index, dep, why)) {
            drop_unheld(m, dep);
            r = why->code;
            break;
        }
        mgr_slot *d = mgr_slot_at(m, dep);
        d->refs++;
        n->deps[n->asset.dependency_count++] =
            (kiln_asset_dependency){handle, {0, dep, d->generation}};
        n->asset.dependencies = n->deps;
        mgr_graph_linked(m, index, dep);
    }
    mgr_free(m, list.more, (size_t)list.more_capacity * sizeof *list.more);
    mgr_free(m, list.more_kinds, (size_t)list.more_kinds_capacity * sizeof *list.more_kinds);
    /* New dependencies load here, synchronously (our holds keep them). */
    for (uint32_t i = 0; r == KILN_OK && i < n->asset.dependency_count; i++) {
        uint32_t dep = n->deps[i].ref.slot;
        mgr_slot *d = mgr_slot_at(m, dep);
        d->pins++;
        ensure_ready(m, dep);
        if (mgr_slot_state(d) != SLOT_READY)
            r = fail_needs(why, d->error.code, n->asset.path,
                           d->data->asset.ref != NULL ? d->data->asset.ref : "a dependency",
                           d->error.message);
        mgr_unpin(m, dep);
    }
    if (r != KILN_OK)
        return r;
    if (needs_upload(m, &tmp)) {
        pthread_mutex_unlock(&m->lock);
        kiln_error e;
        e.code = KILN_OK;
        e.message[0] = '\0';
        r = upload(m, &tmp, &e);
        pthread_mutex_lock(&m->lock);
        if (r != KILN_OK) {
            *why = e;
            why->code = r;
            return r;
        }
        if (n->staging != NULL && n->asset.texels == NULL)
            mgr_data_release_staging(m, n); /* ours, copied by create_texture */
    } else if (n->staging != NULL) {        /* kept texels (KILN_MANAGER_KEEP_TEXELS) */
        n->asset.texels = n->staging;
        n->asset.texel_bytes = n->staging_size;
    }
    n->asset.bytes = n->asset.file_bytes + (n->asset.texels != NULL ? n->staging_size : 0);
    return KILN_OK;
}

/* Shows `n` in place of the slot's data and retires the old one; `node` is
 * where the slot's own data moves when it is the one replaced. */
static void reload_apply(kiln_manager *m, uint32_t index, mgr_data *n, mgr_data *node) {
    mgr_slot *s = mgr_slot_at(m, index);
    mgr_data *old = s->data;
    const kiln_asset *previous = atomic_load_explicit(&s->shown, memory_order_relaxed);
    /* Every scope reaching the slot reaches the new dependencies, then no
     * longer the old ones (in this order, so a dependency in both stays
     * reached); the old data keeps its holds until it is freed. */
    bool ok = true;
    for (uint32_t r = 0; r < s->reach_count; r++)
        for (uint32_t i = 0; i < n->asset.dependency_count; i++)
            ok = mgr_reach_add(m, n->deps[i].ref.slot, s->reach[r].scope, false) && ok;
    for (uint32_t r = 0; r < s->reach_count; r++) {
        for (uint32_t i = 0; i < old->asset.dependency_count; i++)
            mgr_reach_remove(m, old->deps[i].ref.slot, s->reach[r].scope, false);
        mgr_scope *sc = &m->scopes[s->reach[r].scope];
        sc->bytes = sc->bytes - old->asset.bytes + n->asset.bytes;
    }
    (void)ok;             /* out of memory here only undercounts a scope's bytes */
    if (old == &s->own) { /* the own data stays as readers see it until the slot is reused */
        *node = s->own;
        node->allocated = true;
        old = node;
    } else {
        mgr_free(m, node, sizeof *node);
    }
    s->data = n;
    s->path = n->asset.path; /* the same path, in the current manifest */
    atomic_store_explicit(&s->shown, &n->asset, memory_order_release);
    s->reloads++;
    s->reload_failed = false;
    m->reloads++;
    kiln_reload_event event = {.kind = KILN_RELOAD_APPLIED,
                               .handle = n->asset.handle,
                               .asset = &n->asset,
                               .previous = previous,
                               .result = KILN_OK};
    mgr_notify(m, &event);
    /* The assets holding it learn that it changed. */
    for (uint32_t j = 1; j < m->slots_used && m->engine.reloaded != NULL; j++) {
        mgr_slot *t = mgr_slot_at(m, j);
        if (mgr_slot_state(t) != SLOT_READY)
            continue;
        for (uint32_t i = 0; i < t->data->asset.dependency_count; i++) {
            if (t->data->deps[i].ref.slot == index) {
                kiln_reload_event dep = {.kind = KILN_RELOAD_DEPENDENCY,
                                         .handle = t->data->asset.handle,
                                         .asset = &t->data->asset,
                                         .dependency = &n->asset,
                                         .result = KILN_OK};
                mgr_notify(m, &dep);
                break;
            }
        }
    }
    mgr_retire(m, old);
}

kiln_result mgr_reload_slot(kiln_manager *m, uint32_t index, bool force, kiln_error *err) {
    mgr_slot *s = mgr_slot_at(m, index);
    while (s->reloading) /* one reload of a slot at a time */
        pthread_cond_wait(&m->done, &m->lock);
    if (mgr_slot_state(s) != SLOT_READY || s->refs == 0)
        return runtime_succeed(err); /* unloaded meanwhile: nothing to reload */
    s->reloading = true;
    const mgr_mount *mt = mgr_mount_at(m, s->mount);
    kiln_error why;
    memset(&why, 0, sizeof why);
    kiln_result r = KILN_OK;
    const char *ref = s->data->asset.ref;
    const kiln_manifest_entry *entry = kiln_manifest_find(&mt->man->view, s->data->asset.handle);
    if (entry == NULL)
        r = runtime_fail(&why, KILN_ERR_NOT_FOUND, s->path,
                         "'%s' is no longer in the manifest of %s: the old data stays", ref,
                         mt->name);
    else if (strcmp(kiln_manifest_path(&mt->man->view, entry), s->path) != 0 ||
             entry->kind != s->expected_kind)
        r = runtime_fail(&why, KILN_ERR_INVALID_ARGUMENT, s->path,
                         "'%s' now names %s (a %s): the old data stays; unload and load it "
                         "again to follow it",
                         ref, kiln_manifest_path(&mt->man->view, entry),
                         kiln_asset_kind_str((kiln_asset_kind)entry->kind));
    mgr_data *n = NULL, *node = NULL;
    bool unchanged = false;
    if (r == KILN_OK) {
        n = mgr_calloc(m, 1, sizeof *n);
        node = mgr_calloc(m, 1, sizeof *node);
        if (n == NULL || node == NULL)
            r = runtime_fail(&why, KILN_ERR_OUT_OF_MEMORY, s->path, "out of memory");
    }
    if (r == KILN_OK) {
        n->allocated = true;
        n->manifest = mt->man;
        mt->man->users++;
        n->asset.handle = s->data->asset.handle;
        n->asset.kind = s->expected_kind;
        n->asset.ref = kiln_manifest_ref(&mt->man->view, entry);
        n->asset.path = kiln_manifest_path(&mt->man->view, entry);
        n->asset.mount = s->mount;
        r = reload_build(m, index, mt, n, force, &unchanged, &why);
        s->reload_data = NULL; /* shown (then s->data) or dropped below, under the lock */
    }
    bool wanted = s->refs > 0 && mgr_slot_state(s) == SLOT_READY;
    if (r == KILN_OK && unchanged)
        s->reload_failed = false; /* what is shown is what the file says */
    if (r == KILN_OK && wanted && !unchanged) {
        reload_apply(m, index, n, node);
    } else {
        if (n != NULL) {
            n->allocated = true;
            mgr_data_release(m, n);
        }
        mgr_free(m, node, sizeof *node);
        if (r != KILN_OK && wanted)
            mgr_reload_fail(m, index, &why, err);
        else
            r = KILN_OK;
    }
    s->reloading = false;
    pthread_cond_broadcast(&m->done);
    return r == KILN_OK ? runtime_succeed(err) : r;
}

kiln_result kiln_manager_reload(kiln_manager *m, kiln_handle handle, kiln_error *err) {
    if (m == NULL)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln manager",
                            "kiln_manager_reload needs a manager");
    pthread_mutex_lock(&m->lock);
    uint32_t index = 0;
    for (uint32_t i = m->mount_count; index == 0 && i-- > 0;) {
        const kiln_manifest_view *view = &mgr_mount_at(m, i)->man->view;
        const kiln_manifest_entry *entry = kiln_manifest_find(view, handle);
        if (entry != NULL)
            index = mgr_map_find(m, i, kiln_manifest_path(view, entry));
    }
    if (index == 0) { /* not loaded: nothing to reload */
        pthread_mutex_unlock(&m->lock);
        return runtime_succeed(err);
    }
    mgr_slot *s = mgr_slot_at(m, index);
    s->pins++;
    ensure_ready(m, index); /* one still loading is finished first */
    kiln_result r;
    if (s->refs == 0) /* unloaded (or its load cancelled) meanwhile */
        r = runtime_succeed(err);
    else if (mgr_slot_state(s) == SLOT_FAILED)
        r = runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, s->path,
                         "'%s' failed to load (%s): destroy its scope and load it again",
                         s->data->asset.ref, s->error.message);
    else
        r = mgr_reload_slot(m, index, true, err);
    mgr_unpin(m, index);
    pthread_mutex_unlock(&m->lock);
    return r;
}
