/*
 * kiln/manager.h — libkiln's asset manager: handles, refs, scopes, mounts,
 * dependencies, synchronous and asynchronous loading, engine upload callbacks.
 *
 * Built on the views of kiln.h. Plain C, no third-party headers, no global
 * state: every manager is an object of its own, and every function may be
 * called from any thread (the manager locks what it shares; kiln_asset_get
 * takes no lock). Every allocation goes through the allocator hooks given at
 * creation. Nothing read from a file is trusted: a missing or corrupt cooked
 * file is a failed ref with a message, never a crash. docs/runtime.md
 * describes how an engine integrates it.
 */
#ifndef KILN_MANAGER_H
#define KILN_MANAGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kiln/kiln.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------
 * Handles: the 64-bit FNV-1a hash of an asset's canonical ref
 * ------------------------------------------------------------------------- */

/* A handle names an asset: kiln_ref_hash of its canonical ref, the hash the
 * cooker writes into assets.kman ("props/crate", "props/crate/materials").
 * At run time: kiln_ref_hash(ref). For a string literal of up to 128 bytes,
 * KILN_HANDLE("props/crate") is a constant expression C compilers fold (it may
 * initialise a static; in C++ it is constexpr); a longer literal falls back
 * to kiln_ref_hash at run time. Only string literals are accepted. */
typedef uint64_t kiln_handle;

#define KILN_HANDLE(literal)                                                                       \
    (sizeof("" literal) - 1 <= 128 ? (KILN_HASH128_(0xcbf29ce484222325ull, "" literal))            \
                                   : kiln_ref_hash("" literal))

/* Implementation of KILN_HANDLE: one FNV-1a step per byte, 128 steps, steps
 * past the end multiplying by 1 (x ^ 0 == x). One bracket level per step keeps
 * the expression under compilers' nesting limits. */
#define KILN_HASH_IN_(s, i) ((i) < sizeof(s) - 1)
#define KILN_HASH1_(h, s, i)                                                                       \
    (h ^ (KILN_HASH_IN_(s, i) ? (uint64_t)(unsigned char)(s)[KILN_HASH_IN_(s, i) ? (i) : 0]        \
                              : (uint64_t)0)) *                                                    \
        (KILN_HASH_IN_(s, i) ? 0x100000001b3ull : 1ull)
#define KILN_HASH4_(h, s, i)                                                                       \
    KILN_HASH1_(KILN_HASH1_(KILN_HASH1_(KILN_HASH1_(h, s, i), s, (i) + 1), s, (i) + 2), s, (i) + 3)
#define KILN_HASH16_(h, s, i)                                                                      \
    KILN_HASH4_(KILN_HASH4_(KILN_HASH4_(KILN_HASH4_(h, s, i), s, (i) + 4), s, (i) + 8), s, (i) + 12)
#define KILN_HASH64_(h, s, i)                                                                      \
    KILN_HASH16_(KILN_HASH16_(KILN_HASH16_(KILN_HASH16_(h, s, i), s, (i) + 16), s, (i) + 32), s,   \
                 (i) + 48)
#define KILN_HASH128_(h, s) KILN_HASH64_(KILN_HASH64_(h, s, 0), s, 64)

/* ---------------------------------------------------------------------------
 * Refs and scopes
 * ------------------------------------------------------------------------- */

/* A scope: the lifetime of what is loaded into it. The permanent and the
 * transient scope exist from creation; level scopes are made and destroyed
 * by the game (kiln_scope_create / kiln_scope_destroy). 0 is no scope. */
typedef uint32_t kiln_scope;
#define KILN_SCOPE_PERMANENT ((kiln_scope)0x00010000u) /* until kiln_manager_destroy */
#define KILN_SCOPE_TRANSIENT ((kiln_scope)0x00010001u) /* emptied by kiln_scope_clear */

/* A loaded (or loading) asset as a scope holds it: a small value, never a
 * pointer. kiln_asset_get(manager, ref) gives the asset's current data, or
 * NULL once the ref is stale: its scope was destroyed or cleared and the
 * asset unloaded (the slot's generation no longer matches). A stale ref never
 * reaches freed memory. A ref names a slot, not the data, so the data may
 * move under it (an in-place reload) while the ref stays. All zero is no
 * ref. A dependency's ref (kiln_asset.dependencies) has scope 0: it is valid
 * while the asset holding it is. */
typedef struct kiln_ref {
    kiln_scope scope;
    uint32_t slot;
    uint32_t generation;
} kiln_ref;

typedef enum kiln_asset_state {
    KILN_ASSET_NONE = 0,    /* no such ref, or stale */
    KILN_ASSET_QUEUED = 1,  /* waiting for a loader */
    KILN_ASSET_LOADING = 2, /* being read, validated, inflated, or its dependencies */
    KILN_ASSET_READY = 3,
    KILN_ASSET_FAILED = 4 /* kiln_asset_state fills the reason */
} kiln_asset_state;

/* "none", "queued", "loading", "ready", "failed". Never NULL. */
const char *kiln_asset_state_str(kiln_asset_state state);

/* ---------------------------------------------------------------------------
 * Loaded assets
 * ------------------------------------------------------------------------- */

#define KILN_ASSET_MAX_LEVELS 32

/* An asset's other assets, held by it and loaded with it: a mesh's material
 * table, a material table's textures, a scene's meshes and material tables,
 * a clip file's scene, and a level's placed scenes and the assets its
 * components' refs name. A level naming itself, directly or through other
 * levels, fails with a message naming the cycle (docs/runtime.md). */
typedef struct kiln_asset_dependency {
    kiln_handle handle;
    kiln_ref ref; /* scope 0 */
} kiln_asset_dependency;

/* A cooked file held by the manager. The unit of loading is the file: the
 * rows of one material table are one asset, whichever row's handle loaded it.
 * Read-only for the caller; valid while a ref to it is (until its scope is
 * destroyed or cleared, or the manager destroyed), and, once a hot reload
 * replaced it, until the second kiln_manager_pump after that (see Hot
 * reload below). */
typedef struct kiln_asset {
    kiln_handle handle;   /* the handle that first loaded it */
    kiln_asset_kind kind; /* mesh, material (a whole table), texture, scene, animation, shader */
    const char *ref;      /* the manifest's ref string of `handle` */
    const char *path;     /* the cooked file, relative to its mount */
    uint32_t mount;       /* index of the mount it came from (kiln_manager_mount) */
    uint64_t file_bytes;  /* size of the cooked file */
    uint64_t bytes;       /* charged to the scopes holding it: file_bytes + texels kept */
    /* The views (the one of `kind` is filled). */
    kiln_file file; /* every kind but texture: the container (its bytes are the manager's:
                       a folder file read or mapped, see KILN_MANAGER_MAP_FILES; a pack's) */
    kiln_mesh_view mesh;
    kiln_material_view materials;
    kiln_scene_view scene;
    kiln_anim_view anim;     /* an animation's clips; its scene is a dependency */
    kiln_shader_view shader; /* a shader program's stages and reflection */
    kiln_ktx2_view texture;
    /* A texture's levels inflated, level i at level_offsets[i], when the
     * manager keeps them (KILN_MANAGER_KEEP_TEXELS and no create_texture);
     * NULL otherwise. */
    const void *texels;
    uint64_t texel_bytes;
    uint64_t level_offsets[KILN_ASSET_MAX_LEVELS];
    /* The VkFormat of those levels (and of create_texture's texels): the
     * file's texture.vk_format, or for a UASTC file (vk_format 0) the format
     * the manager transcoded it to, from kiln_manager_desc.gpu_formats: 4x4
     * blocks of BC7, ASTC, ETC2 RGBA8 or BC3 (16 bytes) or ETC1 or BC1 (8
     * bytes), or RGBA8 texels (docs/runtime.md, "UASTC textures"). */
    uint32_t texels_vk_format;
    /* What the engine callbacks returned: a mesh's vertex and index buffers;
     * a texture's object. NULL without callbacks. */
    void *engine_buffers[2];
    void *engine_texture;
    const kiln_asset_dependency *dependencies;
    uint32_t dependency_count;
} kiln_asset;

/* ---------------------------------------------------------------------------
 * Creating a manager: allocator and engine callbacks
 * ------------------------------------------------------------------------- */

/* Every allocation of a manager goes through these (both NULL: the C
 * library's aligned_alloc and free); folder files mapped with
 * KILN_MANAGER_MAP_FILES are not allocations. With both NULL, the memory
 * folder files are read into is kept when freed and reused for the next
 * files of its size, at most as much as was ever in use at once, until
 * kiln_manager_destroy (docs/runtime.md, Memory); with hooks, every block
 * goes back to `free` when its asset goes.
 * `alignment` is a power of two, at most 64; `size` in free is the size that
 * was allocated. Called from any thread. */
typedef struct kiln_allocator {
    void *(*alloc)(void *user, size_t size, size_t alignment);
    void (*free)(void *user, void *memory, size_t size);
    void *user;
} kiln_allocator;

typedef enum kiln_buffer_usage {
    KILN_BUFFER_VERTICES = 0,
    KILN_BUFFER_INDICES = 1
} kiln_buffer_usage;

/* ---------------------------------------------------------------------------
 * Hot reload events
 * ------------------------------------------------------------------------- */

typedef enum kiln_reload_kind {
    /* The asset's new data is in place: `asset` is it (what kiln_asset_get
     * returns from now on), `previous` the data it replaced (its engine
     * objects are destroyed when it is freed, two pumps later). */
    KILN_RELOAD_APPLIED = 0,
    /* The new file could not be loaded (missing, corrupt, a dependency
     * failed, no longer in the manifest): the old data stays and the ref
     * stays ready. `asset` is the old data; `result` and `error` say why
     * (kiln_asset_reload_status reports it too until a reload succeeds). */
    KILN_RELOAD_FAILED = 1,
    /* `dependency`, one of `asset`'s dependencies, was reloaded: e.g. a
     * material table whose texture (or a scene whose mesh) has new data and
     * a new engine object, which the engine rebinds. */
    KILN_RELOAD_DEPENDENCY = 2
} kiln_reload_kind;

typedef struct kiln_reload_event {
    kiln_reload_kind kind;
    kiln_handle handle;           /* of `asset` (the handle that first loaded it) */
    const kiln_asset *asset;      /* the asset's current data */
    const kiln_asset *previous;   /* APPLIED: the replaced data; else NULL */
    const kiln_asset *dependency; /* DEPENDENCY: the dependency's new data; else NULL */
    kiln_result result;           /* FAILED: why; else KILN_OK */
    const kiln_error *error;      /* FAILED: the message; else NULL */
} kiln_reload_event;

/* The engine's side of uploading, all optional. create_* get data ready to
 * copy and return the engine's object (kept in the asset) or fill `err` and
 * fail the asset. They run on the thread that finishes the load: the one
 * calling kiln_manager_load, or kiln_manager_pump for a requested load (or
 * the reload: kiln_manager_reload's, _refresh's or the pump's caller).
 * destroy_* run on the thread that releases the asset's last hold (destroying
 * or clearing a scope, kiln_manager_destroy), or, for the objects of data a
 * reload replaced, on kiln_manager_pump's, two pumps after the replacement.
 * texture_staging runs on a loader thread (a worker for requested loads, the
 * reloading thread for a reload), so it must be thread-safe:
 * it returns `size` bytes (16-byte aligned) the levels are inflated straight
 * into, e.g. a mapped staging buffer, or NULL to let the manager allocate.
 * Memory it gave is the engine's again once create_texture is called with it;
 * if the load fails or is cancelled first, release_staging gets it back.
 * Callbacks must not call the manager. */
typedef struct kiln_engine_callbacks {
    void *user;
    kiln_result (*create_buffer)(void *user, const kiln_asset *asset, kiln_buffer_usage usage,
                                 const void *data, size_t size, void **object, kiln_error *err);
    void (*destroy_buffer)(void *user, const kiln_asset *asset, void *object);
    void *(*texture_staging)(void *user, const kiln_asset *asset, size_t size);
    void (*release_staging)(void *user, void *memory, size_t size);
    /* texels: every level, level i at asset->level_offsets[i], `size` bytes. */
    kiln_result (*create_texture)(void *user, const kiln_asset *asset, const void *texels,
                                  size_t size, void **object, kiln_error *err);
    void (*destroy_texture)(void *user, const kiln_asset *asset, void *object);
    /* Optional: told of each reload (kiln_manager_reload, _refresh, or the
     * watch in kiln_manager_pump), on the thread that applied it, after the
     * engine objects of the new data were created (create_* above, with the
     * new data). Like the others it runs under the manager's lock and must
     * not call the manager; the pointers in the event are valid during the
     * call (and, the asset's, as kiln_asset_get's are). */
    void (*reloaded)(void *user, const kiln_reload_event *event);
} kiln_engine_callbacks;

/* kiln_manager_desc.flags. Folder files are read into memory from the
 * allocator hooks. With KILN_MANAGER_MAP_FILES, those of 64 KiB and more are
 * mapped instead (read-only, private, every page populated by the loading
 * thread): no copy and no fresh memory, but a mapping to set up and tear
 * down per file; which is faster depends on the machine (BENCHMARKS.md
 * section 12). The cooker replaces files by rename, so a mapped file keeps
 * its bytes until a reload maps the new one; a file truncated in place while
 * mapped raises SIGBUS when read, and one rewritten in place changes under
 * the validated views (as a pack's or kiln_file_map's file would), so map
 * only folders written by rename. A mapped file counts its size in the
 * asset's and scopes' bytes and budgets as a read one does
 * (kiln_manager_stats.mapped_bytes says how much is mapped). Smaller files,
 * and any the process cannot map, are read. */
#define KILN_MANAGER_KEEP_TEXELS 0x1u /* without create_texture, keep inflated levels */
#define KILN_MANAGER_MAP_FILES 0x2u   /* map folder files of 64 KiB and more, not read them */

/* kiln_manager_desc.gpu_formats: the block formats the engine's GPU
 * samples. A UASTC texture is transcoded to the first of BC7, ASTC 4x4 (then
 * the formats of the other bits, as transcoders for them exist) the mask
 * names, else to RGBA8, which every GPU samples. */
#define KILN_GPU_BC7 0x1u      /* BC7 (BPTC): desktop GPUs */
#define KILN_GPU_ASTC_4X4 0x2u /* ASTC 4x4 LDR: mobile GPUs, Apple */
#define KILN_GPU_ETC2 0x4u     /* ETC2 RGBA8 / ETC1: OpenGL ES 3 and Vulkan mobile */
#define KILN_GPU_BC1_BC3 0x8u  /* BC1 and BC3: older desktop GPUs */

typedef struct kiln_manager_desc {
    kiln_allocator allocator;
    kiln_engine_callbacks engine;
    uint32_t worker_threads;   /* loaders for requested loads; 0: kiln_manager_pump loads them */
    uint32_t max_assets;       /* assets loaded at once; 0: 65536 */
    uint32_t max_scopes;       /* scopes alive at once, the two built-in included; 0: 256 */
    uint32_t open_flags;       /* KILN_OPEN_* for every file (checksum, deep checks) */
    uint32_t flags;            /* KILN_MANAGER_* */
    uint64_t permanent_budget; /* bytes; 0: unlimited */
    uint64_t transient_budget;
    uint32_t gpu_formats; /* KILN_GPU_*: what UASTC textures become; 0: RGBA8 */
} kiln_manager_desc;

typedef struct kiln_manager kiln_manager;

kiln_result kiln_manager_create(const kiln_manager_desc *desc, kiln_manager **manager,
                                kiln_error *err);
/* Stops the workers, releases every asset (destroy callbacks) and mount. */
void kiln_manager_destroy(kiln_manager *manager);

/* Mounts a runtime folder (holding assets.kman) or a .kpak. Handles resolve
 * through the mounts newest first: a later mount overrides an earlier one (a
 * patch pack over the base pack). Assets already loaded keep their file.
 * Mounting the same folder or pack twice is an error. *index (may be NULL)
 * receives the mount's index. */
kiln_result kiln_manager_mount(kiln_manager *manager, const char *path, uint32_t *index,
                               kiln_error *err);

/* ---------------------------------------------------------------------------
 * Scopes
 * ------------------------------------------------------------------------- */

/* A level scope named `name` (for stats and messages) with a budget in bytes
 * (0: unlimited): a load that would take the scope's bytes (every asset it
 * reaches, counted once) over its budget fails with KILN_ERR_OUT_OF_MEMORY. */
kiln_result kiln_scope_create(kiln_manager *manager, const char *name, uint64_t budget,
                              kiln_scope *scope, kiln_error *err);
/* Releases everything the scope holds (an asset no other scope holds is
 * unloaded, its loads cancelled, their callbacks dropped) and ends it: its
 * refs go stale. The built-in scopes cannot be destroyed; a scope destroyed
 * twice is an error. */
kiln_result kiln_scope_destroy(kiln_manager *manager, kiln_scope scope, kiln_error *err);
/* Releases everything the scope holds, as destroying does, and keeps the
 * scope and its id: the transient scope's way of being emptied. Its old refs
 * go stale as their assets are unloaded (one another scope still holds stays
 * readable through them). */
kiln_result kiln_scope_clear(kiln_manager *manager, kiln_scope scope, kiln_error *err);

/* ---------------------------------------------------------------------------
 * Loading
 * ------------------------------------------------------------------------- */

/* Loads `handle` and its dependencies into `scope` and returns when they are
 * ready or failed. An asset already loaded (into any scope) is shared, never
 * loaded twice; one being loaded by a worker is waited for. *ref is set
 * whenever the asset could be named (a failed load gives a failed ref whose
 * state and message kiln_asset_state reports); it is zero when the handle is
 * unknown to every mount, the scope is not alive or its budget refuses. */
kiln_result kiln_manager_load(kiln_manager *manager, kiln_scope scope, kiln_handle handle,
                              kiln_ref *ref, kiln_error *err);
/* The same by ref string ("props/crate"): messages name it. */
kiln_result kiln_manager_load_ref(kiln_manager *manager, kiln_scope scope, const char *ref_string,
                                  kiln_ref *ref, kiln_error *err);

/* Called by kiln_manager_pump, on its caller's thread, when a requested load
 * ends: result KILN_OK with the asset ready, or the failure and its message.
 * It runs without the manager's lock, so it may call the manager. */
typedef void (*kiln_load_callback)(void *user, kiln_ref ref, kiln_result result,
                                   const kiln_error *err);

/* Requests `handle` and its dependencies asynchronously: *ref is set at once
 * (state queued, or ready when it already was); workers read, validate and
 * inflate, highest `priority` first (dependencies inherit it; a second request
 * raises a queued asset's priority); kiln_manager_pump finishes the loads
 * (engine create callbacks) and calls `callback` (may be NULL). Destroying
 * the scope cancels what only it wanted and drops its callbacks. */
kiln_result kiln_manager_request(kiln_manager *manager, kiln_scope scope, kiln_handle handle,
                                 int32_t priority, kiln_load_callback callback, void *user,
                                 kiln_ref *ref, kiln_error *err);
/* The same by ref string ("props/crate"): messages name it (an unknown one
 * fails at once with KILN_ERR_NOT_FOUND naming it). In a development runtime
 * connected to a cook server (kiln_manager_connect_cooker), a ref no mounted
 * manifest names yet (a source added since the last cook) is not an error:
 * the server is asked to cook it, without waiting, and KILN_OK returns with
 * *ref zero (there is no asset to name until the manifest does); a later
 * kiln_manager_pump reads the server's reply and requests the cooked asset
 * by its handle into `scope`, and `callback` (if any) gets its ref when it
 * is ready, or the server's message if the cook failed. Destroying `scope`
 * before the reply drops the request without a callback. */
kiln_result kiln_manager_request_ref(kiln_manager *manager, kiln_scope scope,
                                     const char *ref_string, int32_t priority,
                                     kiln_load_callback callback, void *user, kiln_ref *ref,
                                     kiln_error *err);

/* Loading by stable asset ID (kiln_asset_id, a source's ID that survives
 * moves): the ID is looked up in the mounted manifests, the last mounted
 * first, and its asset's main ref (the source's own ref, or <ref>/scene for
 * a model of several meshes and a level) is loaded or requested as by
 * kiln_manager_load / kiln_manager_request. An ID no manifest names fails
 * with KILN_ERR_NOT_FOUND naming it (a cook server cannot cook an ID: it
 * needs the ref). */
kiln_result kiln_manager_load_id(kiln_manager *manager, kiln_scope scope, kiln_asset_id id,
                                 kiln_ref *ref, kiln_error *err);
kiln_result kiln_manager_request_id(kiln_manager *manager, kiln_scope scope, kiln_asset_id id,
                                    int32_t priority, kiln_load_callback callback, void *user,
                                    kiln_ref *ref, kiln_error *err);

/* Finishes the requested loads whose reading is done (engine create
 * callbacks) and calls their completion callbacks, on the calling thread;
 * without workers it also does the loading (and, in a development runtime,
 * waits there for the cooks those loads ask for, see
 * kiln_manager_connect_cooker). It also frees the data hot
 * reloads replaced two pumps ago, and, while kiln_manager_watch is on,
 * refreshes when the cooker finished a build. Returns how many completion
 * callbacks it called. Call it once a frame, between frames. */
uint32_t kiln_manager_pump(kiln_manager *manager);

/* Blocks until the workers have nothing left to do (nothing queued, nothing
 * being read: the next kiln_manager_pump finishes and delivers everything
 * requested so far) or `timeout_ms` passed, without using a core meanwhile.
 * Returns true when they are idle (at once with no workers: the pump loads),
 * false on the timeout. A loading screen's loop: wait with its frame time as
 * the timeout, pump, draw. The workers never wait for a pump, so engine
 * uploads and callbacks come with the pump that follows. */
bool kiln_manager_wait(kiln_manager *manager, uint32_t timeout_ms);

/* The asset's data when `ref` is ready, else NULL (queued, loading, failed,
 * stale, or zero). Lock-free: a few loads, no call. */
const kiln_asset *kiln_asset_get(const kiln_manager *manager, kiln_ref ref);

/* A ref's state; for a failed ref `err` (may be NULL) gets the reason. */
kiln_asset_state kiln_asset_state_of(kiln_manager *manager, kiln_ref ref, kiln_error *err);

/* ---------------------------------------------------------------------------
 * Hot reload (development)
 *
 * A reload replaces a loaded asset's data in place: its refs do not change,
 * kiln_asset_get returns the new data, the engine's create callbacks make the
 * new objects, the assets holding it get a KILN_RELOAD_DEPENDENCY event, and
 * a changed dependency list loads the new dependencies and releases the old
 * ones. The new file is read, validated, inflated and its dependencies
 * loaded on the calling thread, without the manager's lock; only then is
 * the new data shown. A reload that fails keeps the old data (the ref stays
 * ready) and reports why.
 *
 * Pointer lifetime: data kiln_asset_get returned stays valid until the
 * second kiln_manager_pump that starts after a reload replaced it (then it
 * is freed and its engine objects destroyed), or until the asset is
 * unloaded, whichever comes first. A game that uses what kiln_asset_get
 * gives within a frame and pumps once a frame is safe; one that never pumps
 * keeps replaced data until kiln_manager_destroy.
 * ------------------------------------------------------------------------- */

/* The game says the cooked file of `handle` changed: re-reads the loaded
 * asset's file (from the mount and path it was loaded from) and applies it
 * as described above, even when its bytes did not change (kiln_manager_refresh
 * skips those). KILN_OK when applied, or when no asset of `handle` is
 * loaded (nothing to do); a failed reload's code and message otherwise. An
 * asset from a pack is read again from the mount's current pack (the one
 * mounted, or the last kiln_manager_refresh opened). An
 * asset still loading is waited for; one that failed to load is an error
 * (destroy its scope and load it again). */
kiln_result kiln_manager_reload(kiln_manager *manager, kiln_handle handle, kiln_error *err);

/* Re-reads the manifest of every folder mount whose assets.kman changed (a
 * new handle then loads), opens again every pack mount whose file was
 * replaced (below), and reloads every loaded asset of a folder mount whose
 * file changed. A file's version is its identity on
 * disk (device, inode, size, modification and change time): the cooker
 * replaces files by rename, so a recooked file is a new inode even when its
 * size and (coarse) time match, and the check costs a stat per loaded asset,
 * not a read; a file rewritten with the bytes already loaded (a recook often
 * rewrites a model's untouched siblings) is not applied, so the engine
 * remakes nothing for it. An asset whose ref left the manifest, or whose
 * file vanished, keeps its data and fails its reload (once per change).
 * Assets no scope reaches any more (held only by replaced data) are not
 * checked. Returns the first failure (every asset is still tried);
 * kiln_manager_stats counts the reloads.
 * A pack mount whose file is another version (device, inode, size or times:
 * `kiln build --pack` renames a new file over it) is mapped anew with its
 * manifest, and each loaded asset whose entry changed (its ref names another
 * path or kind, or its file's bytes differ from those of the pack its data
 * came from) is reloaded from the new pack; the others keep their data, and
 * the old pack stays mapped until no data read from it is alive (replaced
 * data: the second pump after the reload, as above). A replacement that
 * cannot be opened fails the refresh and, once per version, the reload of
 * every asset loaded from the mount (status and KILN_RELOAD_FAILED event);
 * the old pack and data stay. Replace a pack by rename, never in place. */
kiln_result kiln_manager_refresh(kiln_manager *manager, kiln_error *err);

/* Starts (enable true) or stops watching the folder mounts, and the folders
 * holding the mounted packs (Linux inotify; elsewhere KILN_ERR_UNSUPPORTED).
 * While watching, kiln_manager_pump reads the file events without blocking
 * and runs kiln_manager_refresh when the cooker has replaced assets.kman (it
 * writes it last, after every cooked file) or a mounted pack (written or
 * renamed onto its name), or 100 ms after the last other change in a folder
 * mount's folder. Mounts added later are watched too. */
kiln_result kiln_manager_watch(kiln_manager *manager, bool enable, kiln_error *err);

/* KILN_OK when the ref's asset has had no failed reload since its last
 * successful one (or load); else the failed reload's code, with its message
 * in `err`. A stale ref is KILN_ERR_INVALID_ARGUMENT. */
kiln_result kiln_asset_reload_status(kiln_manager *manager, kiln_ref ref, kiln_error *err);

/* ---------------------------------------------------------------------------
 * Cooking on demand (the development runtime, libkiln-dev: pkg-config
 * kiln-dev or CMake kiln::runtime_dev, which define KILN_RUNTIME_DEV=1 for
 * their users; the shipping libkiln has none of it)
 * ------------------------------------------------------------------------- */

#if defined(KILN_RUNTIME_DEV) && KILN_RUNTIME_DEV
/* Connects the manager to a running `kiln watch --serve`, whose socket is
 * <output folder>/.kiln-serve (docs/runtime.md). From then on:
 * - Missing files. A load whose cooked file cannot be read (a synchronous
 *   load, a dependency, a requested load) asks the server to cook it, then
 *   maps the manifest of the folder mount that is the server's output folder
 *   again and reads the result; the server's error message fails the load.
 *   The thread that reads asks: the caller of kiln_manager_load, a worker,
 *   or, with no workers, the caller of kiln_manager_pump (which does the
 *   loading then, and so waits for the cook).
 * - Unknown refs. kiln_manager_load_ref of a ref no mounted manifest names
 *   has the server cook it, then loads it; kiln_manager_request_ref does the
 *   same without waiting (see it). A handle alone cannot be cooked: the
 *   server needs the ref.
 * - Stale files. Before reading a file of the server's output folder for the
 *   first time (each load from disk; not for assets already loaded, which
 *   hot reload keeps current), the reader asks the server whether it is up
 *   to date with its sources (one round trip, answered without a build when
 *   the watch has seen no change since its last round): a change the watch
 *   has not cooked yet is cooked first; a source whose last cook failed
 *   leaves the older file, which loads, with kiln_asset_reload_status
 *   reporting the cook's error until a reload succeeds.
 * Workers share one connection, one request at a time. Destroying the scope
 * during the cook cancels the request (dropped when the reply comes);
 * destroying the manager stops the wait. A manager connects once. */
kiln_result kiln_manager_connect_cooker(kiln_manager *manager, const char *socket_path,
                                        kiln_error *err);
#endif

/* ---------------------------------------------------------------------------
 * Statistics
 * ------------------------------------------------------------------------- */

#define KILN_STATS_MAX_SCOPES 64

typedef struct kiln_scope_stats {
    kiln_scope scope;
    char name[32];
    uint64_t bytes;  /* of every asset the scope reaches (its loads and their dependencies) */
    uint64_t budget; /* 0: unlimited */
    uint32_t assets; /* assets it reaches */
    uint32_t holds;  /* assets loaded into it directly */
} kiln_scope_stats;

typedef struct kiln_manager_stats {
    uint32_t assets; /* slots in use, any state */
    uint32_t ready, queued, loading, failed;
    uint64_t bytes;        /* of every asset, each counted once */
    uint64_t mapped_bytes; /* of `bytes`: folder files mapped, not allocated */
    uint32_t mounts;
    uint64_t reloads;          /* reloads applied */
    uint64_t reload_failures;  /* reloads that kept the old data */
    uint64_t refreshes;        /* manifests re-read by kiln_manager_refresh */
    uint64_t file_cache_bytes; /* file memory kept for reuse, in no asset (kiln_manager_trim) */
    uint64_t file_cache_bound; /* in-use plus kept file memory stays within this */
    uint32_t retired;          /* replaced data waiting for its second pump */
    uint32_t scope_count;      /* scopes alive */
    kiln_scope_stats scopes[KILN_STATS_MAX_SCOPES]; /* the first KILN_STATS_MAX_SCOPES */
} kiln_manager_stats;

kiln_result kiln_manager_stats_get(kiln_manager *manager, kiln_manager_stats *stats,
                                   kiln_error *err);

/* Gives back file memory the manager keeps for reuse (with the default
 * allocator, docs/runtime.md "Memory"): frees kept blocks, oldest first, until
 * at most `keep_bytes` are kept, and lowers the cache's bound to the file
 * memory in use plus what stays kept, so later loads keep only what they
 * need. Call it after unloading more than the next loads will take (a big
 * level left for small ones), or on memory pressure; 0 frees every kept
 * block. Assets and their data are untouched. Thread-safe; with allocator
 * hooks there is nothing kept and it does nothing. */
kiln_result kiln_manager_trim(kiln_manager *manager, uint64_t keep_bytes, kiln_error *err);

#ifdef __cplusplus
}
#endif

#endif /* KILN_MANAGER_H */
