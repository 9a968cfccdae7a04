/*
 * manager_read.c — reading one asset, kind by kind (lock not held: the slot
 * is pinned and LOADING, so only the reading thread touches its asset
 * fields): the file's bytes from a pack or a folder, the view of its kind,
 * a texture's levels inflated into staging memory (Zstd contexts pooled),
 * and, for a development runtime connected to a cook server, the cook of a
 * file that is missing or stale. Also what a read file names (its
 * dependencies, by kind), collected under the lock by manager_load.c.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_createDCtx_advanced: the allocator hooks */
#include <zstd.h>

#include "common/checked.h"
#include "common/ktx2_format.h"
#include "runtime/internal.h"
#include "runtime/manager_parts.h"

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

/* ---- UASTC transcoding ------------------------------------------------------ */

/* What a UASTC texture becomes, in order of preference: the first row whose
 * bit the engine set, else RGBA8; ETC2 and BC1/BC3 take the opaque (8-byte)
 * block where the file has no alpha (its DFD channel is RGB). */
static const struct {
    uint32_t gpu_format;
    kiln_transcode_target opaque, alpha;
} transcode_preference[] = {
    {KILN_GPU_BC7, KILN_TRANSCODE_BC7, KILN_TRANSCODE_BC7},
    {KILN_GPU_ASTC_4X4, KILN_TRANSCODE_ASTC_4X4, KILN_TRANSCODE_ASTC_4X4},
    {KILN_GPU_ETC2, KILN_TRANSCODE_ETC1_RGB, KILN_TRANSCODE_ETC2_RGBA8},
    {KILN_GPU_BC1_BC3, KILN_TRANSCODE_BC1, KILN_TRANSCODE_BC3},
};

static kiln_transcode_target transcode_target(uint32_t gpu_formats, const kiln_ktx2_view *v) {
    bool alpha = v->dfd_channel == KTX2_DF_CHANNEL_UASTC_RGBA;
    for (size_t i = 0; i < sizeof transcode_preference / sizeof transcode_preference[0]; i++)
        if (gpu_formats & transcode_preference[i].gpu_format)
            return alpha ? transcode_preference[i].alpha : transcode_preference[i].opaque;
    return KILN_TRANSCODE_RGBA8;
}

static bool is_uastc(const kiln_ktx2_view *v) {
    return v->vk_format == KTX2_VK_FORMAT_UNDEFINED && v->dfd_color_model == KTX2_DF_MODEL_UASTC;
}

/* Images in a level: layers, faces and z slices, each width x height. */
static uint64_t level_images(const kiln_ktx2_view *v, uint32_t level) {
    uint32_t width, height, depth;
    kiln_ktx2_level_extent(v, level, &width, &height, &depth);
    return (uint64_t)(v->layers > 0 ? v->layers : 1) * v->faces * depth;
}

/* Bytes of a level once transcoded; 0 when it does not fit. */
static uint64_t transcoded_level_size(const kiln_ktx2_view *v, uint32_t level,
                                      kiln_transcode_target target) {
    uint32_t width, height, depth;
    kiln_ktx2_level_extent(v, level, &width, &height, &depth);
    uint64_t image = kiln_uastc_transcoded_size(target, width, height), size;
    return checked_mul_u64(image, level_images(v, level), &size) ? size : 0;
}

/* The level's UASTC images (`blocks`, as inflated) into `dst`, image by
 * image; `dst` may be `blocks` when the target's blocks are UASTC's size. */
static kiln_result transcode_level(const kiln_ktx2_view *v, uint32_t level,
                                   kiln_transcode_target target, const uint8_t *blocks,
                                   uint8_t *dst, kiln_error *err) {
    uint32_t width, height, depth;
    kiln_ktx2_level_extent(v, level, &width, &height, &depth);
    size_t in_size = (size_t)(kiln_ktx2_level_size(v, level) / level_images(v, level));
    size_t out_size = kiln_uastc_transcoded_size(target, width, height);
    char name[160];
    snprintf(name, sizeof name, "%s level %" PRIu32, v->name, level);
    bool srgb = v->color_space == KILN_COLOR_SPACE_SRGB;
    for (uint64_t i = 0; i < level_images(v, level); i++) {
        kiln_result r = kiln_uastc_transcode(blocks + i * in_size, in_size, width, height, srgb,
                                             target, dst + i * out_size, out_size, name, err);
        if (r != KILN_OK)
            return r;
    }
    return KILN_OK;
}

static kiln_result inflate_texture(kiln_manager *m, mgr_slot *s, kiln_error *err) {
    const kiln_ktx2_view *v = &s->data->asset.texture;
    if (v->levels > KILN_ASSET_MAX_LEVELS)
        return runtime_fail(err, KILN_ERR_UNSUPPORTED, v->name, "%" PRIu32 " levels, at most %d",
                            v->levels, KILN_ASSET_MAX_LEVELS);
    bool uastc = is_uastc(v);
    kiln_transcode_target target = transcode_target(m->gpu_formats, v);
    s->data->asset.texels_vk_format =
        uastc ? kiln_uastc_transcode_vk_format(target, v->color_space == KILN_COLOR_SPACE_SRGB)
              : v->vk_format;
    /* Targets with UASTC's 16-byte blocks (BC7, ASTC, ETC2 RGBA8, BC3)
     * replace its blocks in place; RGBA8 texels are larger and 8-byte blocks
     * (ETC1, BC1) would leave the level's space too small for its UASTC
     * bytes, so those levels are inflated into scratch memory first. */
    bool in_place = !uastc || kiln_uastc_transcoded_size(target, 4, 4) == 16;
    uint64_t total = 0, scratch_size = 0;
    for (uint32_t l = 0; l < v->levels; l++) {
        s->data->asset.level_offsets[l] = total;
        uint64_t size = uastc ? transcoded_level_size(v, l, target) : kiln_ktx2_level_size(v, l);
        if (!in_place && kiln_ktx2_level_size(v, l) > scratch_size)
            scratch_size = kiln_ktx2_level_size(v, l);
        if ((uastc && size == 0) || !checked_add_u64(total, align_up_u64(size, 16), &total) ||
            total > SIZE_MAX)
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
    uint8_t *scratch = NULL;
    if (scratch_size > 0 && (scratch = mgr_alloc(m, (size_t)scratch_size, 16)) == NULL) {
        dctx_give(m, dctx);
        return runtime_fail(err, KILN_ERR_OUT_OF_MEMORY, v->name,
                            "cannot allocate %" PRIu64 " bytes to transcode a level", scratch_size);
    }
    kiln_result r = KILN_OK;
    for (uint32_t l = 0; l < v->levels && r == KILN_OK; l++) {
        uint8_t *level = (uint8_t *)staging + s->data->asset.level_offsets[l];
        uint8_t *inflated = in_place ? level : scratch;
        r = read_level(v, l, dctx, inflated, kiln_ktx2_level_size(v, l), err);
        if (r == KILN_OK && uastc)
            r = transcode_level(v, l, target, inflated, level, err);
    }
    if (scratch != NULL)
        mgr_free(m, scratch, (size_t)scratch_size);
    dctx_give(m, dctx);
    return r;
}

/* A file with compressed chunks (container.md, Encoded chunks) is expanded
 * into manager memory, which replaces the bytes read (a pack's stay mapped):
 * the views, and so the engine's upload callbacks, see the same bytes as for
 * a file cooked without compression. */
static kiln_result expand_encoded(kiln_manager *m, mgr_slot *s, uint32_t flags, kiln_error *err) {
    kiln_file *file = &s->data->asset.file;
    size_t size, capacity;
    kiln_result r = kiln_file_expanded_size(file, &size, &capacity, err);
    if (r != KILN_OK)
        return r;
    uint8_t *expanded = mgr_file_alloc(m, capacity);
    if (expanded == NULL)
        return runtime_fail(err, KILN_ERR_OUT_OF_MEMORY, file->name,
                            "cannot allocate %zu bytes to decode the compressed chunks", capacity);
    r = kiln_file_expand(file, expanded, capacity, err);
    char name[sizeof file->name];
    memcpy(name, file->name, sizeof name);
    kiln_file_close(file);
    mgr_file_memory_free(m, s->data); /* the compressed bytes (none from a pack) */
    s->data->file_memory = expanded;
    s->data->file_memory_size = capacity;
    s->data->asset.file_bytes = size;
    if (r != KILN_OK)
        return r;
    return kiln_file_from_memory(file, expanded, size, name, flags, err);
}

kiln_result mgr_read_asset(kiln_manager *m, mgr_slot *s, const mgr_mount *mt, kiln_error *err) {
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
        if (r == KILN_OK && kiln_file_has_encoded_chunks(&s->data->asset.file))
            r = expand_encoded(m, s, flags, err);
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

/* Frees a failed slot's file and texels (its views go with them). */
void mgr_drop_data(kiln_manager *m, mgr_slot *s) {
    mgr_data_release_staging(m, s->data);
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

/* ---------------------------------------------------------------------------
 * Dependencies (lock held)
 * ------------------------------------------------------------------------- */

void mgr_dep_list_init(mgr_dep_list *list) {
    memset(list, 0, sizeof *list);
}

uint32_t mgr_dep_count(const mgr_dep_list *list) {
    return list->count + list->more_count;
}

void mgr_dep_list_free(kiln_manager *m, mgr_dep_list *list) {
    mgr_free(m, list->more, (size_t)list->more_capacity * sizeof *list->more);
    mgr_free(m, list->more_kinds, (size_t)list->more_kinds_capacity * sizeof *list->more_kinds);
    mgr_dep_list_init(list);
}

static bool dep_add(kiln_manager *m, void *to, kiln_handle handle, kiln_asset_kind kind) {
    mgr_dep_list *list = to;
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

void mgr_dep_get(const mgr_dep_list *list, uint32_t i, kiln_handle *handle, kiln_asset_kind *kind) {
    if (i < list->count) {
        *handle = list->handles[i];
        *kind = list->kinds[i];
    } else {
        *handle = list->more[i - list->count];
        *kind = list->more_kinds[i - list->count];
    }
}

/* A mesh's material table: "<ref>/materials", or, for a mesh named
 * "<source>/mesh_N", "<source>/materials", when the manifest has it
 * (kman.md: the table's own ref). */
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
        if (keep + sizeof "/materials" > sizeof name)
            break;
        memcpy(name, ref, keep);
        memcpy(name + keep, "/materials", sizeof "/materials");
        kiln_handle handle = kiln_ref_hash(name);
        uint32_t mount;
        const kiln_manifest_entry *entry;
        if (mgr_resolve(m, handle, &mount, &entry) && entry->kind == KILN_ASSET_MATERIAL)
            return handle;
    }
    return 0;
}

/* The handles an asset's file names: KILN_OK, or the failure in `err`. */
kiln_result mgr_collect_deps(kiln_manager *m, mgr_slot *s, mgr_dep_list *list, kiln_error *err) {
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
void mgr_note_origin(const mgr_slot *s, kiln_handle handle, kiln_error *err) {
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

/* ---------------------------------------------------------------------------
 * Workers
 * ------------------------------------------------------------------------- */

/* Cooking on demand for a load (a worker, or the thread loading it: a
 * synchronous load, or kiln_manager_pump without workers; lock not held; the
 * slot is pinned and LOADING, its read just failed with `failed`): when a cook
 * server is connected and the slot is still wanted, asks it to cook the
 * slot's ref (the dev hook `cook`, which maps the output folder's manifest
 * again),
 * then reads the file again. A scope destroyed meanwhile only drops the
 * request: the caller sees refs == 0 and fails the slot as cancelled (the
 * pin kept it alive while the worker waited). */
static kiln_result cook_and_read(kiln_manager *m, const mgr_dev_hooks *dev, uint32_t index,
                                 kiln_result failed) {
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
    kiln_result r = dev->cook(m, name, failed, &err);
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
    mgr_drop_data(m, s); /* what the failed read left, if anything */
    memset(&s->error, 0, sizeof s->error);
    pthread_mutex_unlock(&m->lock);
    return mgr_read_asset(m, s, mt, &s->error);
}

/* A slot's first read of its file (lock not held; the slot pinned and
 * LOADING), on whichever thread loads it. A development runtime connected
 * to a cook server first lets the server bring the file up to date (the
 * dev hook `fresh`), and has the file cooked when it cannot be read
 * (cook_and_read); a shipping one, or one not connected, only reads. */
kiln_result mgr_read_slot(kiln_manager *m, uint32_t index, const mgr_mount *mt) {
    mgr_slot *s = mgr_slot_at(m, index);
    const mgr_dev_hooks *dev = mgr_cook_server_hooks(m);
    if (dev == NULL)
        return mgr_read_asset(m, s, mt, &s->error);
    kiln_error why;
    kiln_result fresh = dev->fresh(m, index, &why);
    kiln_result r = mgr_read_asset(m, s, mt, &s->error);
    if (r != KILN_OK && fresh != KILN_OK) { /* no older file either: the cook's failure */
        pthread_mutex_lock(&m->lock);
        s->error = why;
        pthread_mutex_unlock(&m->lock);
        return fresh;
    }
    if (r == KILN_ERR_NOT_FOUND || r == KILN_ERR_IO)
        r = cook_and_read(m, dev, index, r);
    return r;
}
