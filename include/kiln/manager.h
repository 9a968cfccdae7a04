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
 * cooker writes into assets.kman ("props/crate", "props/crate/material_0").
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
 * table, a material table's textures, a scene's meshes and material tables. */
typedef struct kiln_asset_dependency {
    kiln_handle handle;
    kiln_ref ref; /* scope 0 */
} kiln_asset_dependency;

/* A cooked file held by the manager. The unit of loading is the file: the
 * rows of one material table are one asset, whichever row's handle loaded it.
 * Read-only for the caller; valid while a ref to it is (until its scope is
 * destroyed or cleared, or the manager destroyed). */
typedef struct kiln_asset {
    kiln_handle handle;   /* the handle that first loaded it */
    kiln_asset_kind kind; /* mesh, material (a whole table), texture, scene, animation, shader */
    const char *ref;      /* the manifest's ref string of `handle` */
    const char *path;     /* the cooked file, relative to its mount */
    uint32_t mount;       /* index of the mount it came from (kiln_manager_mount) */
    uint64_t file_bytes;  /* size of the cooked file */
    uint64_t bytes;       /* charged to the scopes holding it: file_bytes + texels kept */
    /* The views (the one of `kind` is filled). */
    kiln_file file; /* every kind but texture: the container (its bytes are the manager's) */
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
 * library's aligned_alloc and free). `alignment` is a power of two, at most
 * 64; `size` in free is the size that was allocated. Called from any thread. */
typedef struct kiln_allocator {
    void *(*alloc)(void *user, size_t size, size_t alignment);
    void (*free)(void *user, void *memory, size_t size);
    void *user;
} kiln_allocator;

typedef enum kiln_buffer_usage {
    KILN_BUFFER_VERTICES = 0,
    KILN_BUFFER_INDICES = 1
} kiln_buffer_usage;

/* The engine's side of uploading, all optional. create_* get data ready to
 * copy and return the engine's object (kept in the asset) or fill `err` and
 * fail the asset. They run on the thread that finishes the load: the one
 * calling kiln_manager_load, or kiln_manager_pump for a requested load.
 * destroy_* run on the thread that releases the asset's last hold (destroying
 * or clearing a scope, kiln_manager_destroy). texture_staging runs on a
 * loader thread (a worker for requested loads), so it must be thread-safe:
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
} kiln_engine_callbacks;

/* kiln_manager_desc.flags */
#define KILN_MANAGER_KEEP_TEXELS 0x1u /* without create_texture, keep inflated levels */

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

/* Finishes the requested loads whose reading is done (engine create
 * callbacks) and calls their completion callbacks, on the calling thread;
 * without workers it also does the loading. Returns how many callbacks it
 * called. Call it once a frame. */
uint32_t kiln_manager_pump(kiln_manager *manager);

/* The asset's data when `ref` is ready, else NULL (queued, loading, failed,
 * stale, or zero). Lock-free: a few loads, no call. */
const kiln_asset *kiln_asset_get(const kiln_manager *manager, kiln_ref ref);

/* A ref's state; for a failed ref `err` (may be NULL) gets the reason. */
kiln_asset_state kiln_asset_state_of(kiln_manager *manager, kiln_ref ref, kiln_error *err);

/* ---------------------------------------------------------------------------
 * Cooking on demand (a development runtime: libkiln built with the CMake
 * option KILN_RUNTIME_DEV, which defines KILN_RUNTIME_DEV=1 for its users; a
 * shipping libkiln has none of it)
 * ------------------------------------------------------------------------- */

#if defined(KILN_RUNTIME_DEV) && KILN_RUNTIME_DEV
/* Connects the manager to a running `kiln watch --serve`, whose socket is
 * <output folder>/.kiln-serve (docs/runtime.md). From then on a synchronous
 * load (kiln_manager_load, kiln_manager_load_ref) of an asset no mounted
 * manifest knows, or whose cooked file cannot be read, asks the server to
 * cook it first (it cooks only when the file is missing or stale), then maps
 * the manifest of the folder mount that is the server's output folder again
 * and loads the result; the server's error message fails the load. Requested
 * loads are not cooked on demand. A manager connects once. */
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
    uint64_t bytes; /* of every asset, each counted once */
    uint32_t mounts;
    uint32_t scope_count;                           /* scopes alive */
    kiln_scope_stats scopes[KILN_STATS_MAX_SCOPES]; /* the first KILN_STATS_MAX_SCOPES */
} kiln_manager_stats;

kiln_result kiln_manager_stats_get(kiln_manager *manager, kiln_manager_stats *stats,
                                   kiln_error *err);

#ifdef __cplusplus
}
#endif

#endif /* KILN_MANAGER_H */
