/* manager_internal.h — the asset manager's private state (not public).
 *
 * One mutex guards everything but the lock-free reads of kiln_asset_get: the
 * slot pages and scope table never move once allocated (freed only by
 * kiln_manager_destroy), and each slot's and scope's tag is atomic, written
 * with release after the data it publishes.
 *
 * A slot's data (its kiln_asset, file bytes, texels, dependency array) is a
 * mgr_data: the slot's own one for the first load, a separately allocated
 * one per reload. What kiln_asset_get returns is the slot's `shown` pointer;
 * data once shown is never written again. A reload builds new data aside,
 * shows it, and retires the old data to the manager's retired list, which
 * kiln_manager_pump frees two pumps later (the readers' grace period). */
#ifndef KILN_RUNTIME_MANAGER_INTERNAL_H
#define KILN_RUNTIME_MANAGER_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <sys/types.h>

#include "kiln/manager.h"

typedef struct mgr_dev_hooks mgr_dev_hooks; /* manager_parts.h */

#define MGR_PAGE_SHIFT 8u
#define MGR_PAGE_SLOTS (1u << MGR_PAGE_SHIFT)
#define MGR_MAX_MOUNTS 32u
#define MGR_DCTX_POOL 8u

/* Slot states (the tag's low 8 bits; generation above). */
enum {
    SLOT_FREE = 0,
    SLOT_QUEUED,    /* in the heap, nobody loading */
    SLOT_LOADING,   /* a loader reads it, unlocked */
    SLOT_LOADED,    /* read; waiting for dependencies, then its upload */
    SLOT_UPLOADING, /* a thread runs the engine callbacks, unlocked */
    SLOT_READY,
    SLOT_FAILED
};

typedef struct mgr_reach {
    uint32_t scope; /* scope index */
    uint32_t count; /* paths: a direct hold, and one per reaching parent */
    bool direct;
} mgr_reach;

/* A mount's manifest, mapped. Data points into its strings (asset.ref and
 * asset.path), so a manifest a refresh replaced lives on until no data uses
 * it. A pack mount's manifest owns the pack it was read from: data read from
 * a pack points into its mapping too, so a replaced pack stays mapped as long
 * as its manifest does. */
typedef struct mgr_manifest {
    kiln_file file;
    kiln_manifest_view view;
    kiln_pack pack; /* a pack mount's (all zero for a folder's) */
    uint32_t users; /* mgr_data whose strings point into it */
    bool replaced;  /* a refresh mapped a newer one */
} mgr_manifest;

/* What identifies a folder file's version without reading it: the cooker
 * replaces files by rename, so a new version is a new inode with its own
 * change time. All zero for a pack's file. */
typedef struct mgr_file_id {
    uint64_t dev, ino, size;
    int64_t mtime_ns, ctime_ns;
} mgr_file_id;

/* One version of a slot's data (see the header comment). */
typedef struct mgr_data {
    kiln_asset asset;
    mgr_manifest *manifest; /* counted: asset.ref and asset.path are its strings */
    void *file_memory;      /* a folder file's bytes: a mapping of it, or a copy */
    size_t file_memory_size;
    bool file_mapped; /* file_memory is a mapping (munmap), else manager memory */
    void *staging;    /* inflated texels, owned unless staging_engine */
    size_t staging_size;
    bool staging_engine;
    kiln_asset_dependency *deps; /* holds on the dependencies */
    uint32_t dep_capacity;
    mgr_file_id file_id;
    bool allocated;       /* a reload's (mgr_alloc), not a slot's own */
    uint64_t retire_pump; /* retired: freed once m->pumps reaches it */
    struct mgr_data *next_retired;
} mgr_data;

typedef struct mgr_slot {
    _Atomic uint64_t tag;              /* generation << 8 | state */
    _Atomic(const kiln_asset *) shown; /* what kiln_asset_get returns when READY */
    mgr_data own;
    /* Everything below is guarded by the manager's lock. */
    mgr_data *data; /* the current data: &own, or a reload's */
    bool reloading; /* a reload of this slot is under way (one at a time) */
    bool reload_failed;
    kiln_error reload_error; /* the last failed reload's reason */
    uint32_t reloads;        /* reloads applied */
    bool checked;            /* a refresh looked at it: checked_* are set */
    mgr_file_id checked_id;  /* the file version the last refresh acted on */
    const mgr_manifest *checked_manifest;
    uint32_t generation;
    uint32_t refs; /* holds: scopes and parent assets */
    uint32_t pins; /* operations under way without the lock */
    uint32_t mount;
    kiln_asset_kind expected_kind;
    uint64_t key;
    const char *path;
    uint32_t *dependents; /* loaded slots waiting for this one */
    uint32_t dependent_count, dependent_capacity;
    uint32_t pending; /* dependencies not ready yet */
    mgr_reach *reach;
    uint32_t reach_count, reach_capacity;
    int32_t priority;
    uint64_t sequence;
    uint32_t heap_index; /* UINT32_MAX when not queued */
    uint32_t next_free;
    bool in_finish; /* on the finish list */
    kiln_error error;
    /* The nesting graph (manager_graph.c): scenes and animations. */
    mgr_data *reload_data; /* while reloading: the new data, whose holds are made */
    uint32_t nest;         /* >= the longest chain of nesting holds above it */
    uint64_t graph_epoch;  /* the walk that set the three below */
    uint32_t graph_height; /* longest chain of nesting holds below it */
    uint32_t graph_next;   /* the dependency through which it reaches the walk's target */
    bool graph_reaches;
} mgr_slot;

typedef struct mgr_scope {
    _Atomic uint32_t id; /* generation << 16 | index while alive, else 0 */
    uint32_t generation;
    char name[32];
    uint64_t budget;
    uint64_t bytes;
    uint32_t assets;
    uint32_t *holds;
    uint32_t hold_count, hold_capacity;
} mgr_scope;

typedef struct mgr_mount {
    bool is_pack;
    char *dir; /* folder mounts */
    size_t dir_length;
    char *pack_path; /* pack mounts: the path mounted, opened again when replaced */
    size_t pack_path_length;
    mgr_manifest *man;       /* the current manifest (and a pack mount's pack) */
    mgr_file_id manifest_id; /* of a folder's assets.kman, or of the pack file, when mapped */
    /* A folder's manifest refreshes (mgr_refresh_manifest), which map with the
     * lock released: how many began, the newest one installed, how many are
     * mapping now. */
    uint64_t manifest_refreshes, manifest_installed;
    uint32_t manifest_mapping;
    int watch; /* inotify watch descriptor, -1: none */
    dev_t dev;
    ino_t ino;
    char name[128];
} mgr_mount;

typedef struct mgr_request {
    kiln_scope scope;
    kiln_ref ref;
    kiln_load_callback callback;
    void *user;
} mgr_request;

/* A freed block of file memory kept for reuse (manager_files.c), its
 * header written into the block itself. */
typedef struct mgr_file_block mgr_file_block;
#define MGR_FILE_CLASSES 144u /* 4 size classes a doubling, 4 KiB .. 2^47 */

/* The file-memory cache (manager_files.c): with the default allocator, the
 * blocks that held folder files' bytes are kept when freed and reused for the
 * next files of their size class, so a level loaded after another one reads
 * into memory that is already mapped. In-use plus kept bytes never exceed the
 * peak of in-use bytes. Its mutex is a leaf: taken with or without m->lock,
 * it takes nothing while held. */
typedef struct mgr_file_cache {
    bool enabled; /* false: the user's allocator hooks get every block */
    pthread_mutex_t lock;
    mgr_file_block *lists[MGR_FILE_CLASSES]; /* kept blocks by class, newest first */
    mgr_file_block *oldest, *newest;         /* every kept block, by age */
    uint64_t in_use, kept, peak;             /* bytes, of cached classes */
} mgr_file_cache;

struct kiln_manager {
    kiln_allocator allocator;
    kiln_engine_callbacks engine;
    uint32_t open_flags;
    uint32_t flags;
    uint32_t gpu_formats; /* KILN_GPU_*: what UASTC textures are transcoded to */
    pthread_mutex_t lock;
    pthread_cond_t work; /* a job was queued, or stop */
    pthread_cond_t done; /* a slot left LOADING or UPLOADING */
    pthread_cond_t idle; /* the queue ran dry: kiln_manager_wait (CLOCK_MONOTONIC) */
    bool stop;
    uint32_t loading;      /* slots a loader is reading (LOADING), unlocked */
    uint32_t idle_waiters; /* threads in kiln_manager_wait */
    /* Slots: pages allocated on demand, never freed before destroy. */
    uint32_t slot_capacity; /* a multiple of MGR_PAGE_SLOTS; slot 0 unused */
    _Atomic(mgr_slot *) *pages;
    uint32_t page_count;
    uint32_t slots_used; /* highest slot index handed out + 1 */
    uint32_t free_slots; /* free list head, 0: empty */
    uint32_t live_slots;
    /* Open-addressing map from file key to slot index (0: empty). */
    uint32_t *map;
    uint32_t map_mask;
    /* Queue: a max-heap of slot indices by (priority, -sequence). */
    uint32_t *heap;
    uint32_t heap_count;
    uint64_t sequence;
    /* Loaded slots with every dependency ready: pump uploads them. */
    uint32_t *finish;
    uint32_t finish_count;
    /* Requests with callbacks, delivered by pump. `settled`: a slot became
     * ready or failed, or a request named one that already was, since pump
     * last looked: only then does it walk the requests. */
    mgr_request *requests;
    uint32_t request_count, request_capacity;
    bool settled;
    /* Scopes: a fixed table. */
    mgr_scope *scopes;
    uint32_t scope_capacity;
    /* Mounts. */
    mgr_mount *mounts[MGR_MAX_MOUNTS];
    uint32_t mount_count;
    /* Workers. */
    pthread_t *threads;
    uint32_t thread_count, thread_capacity;
    /* Zstd decompression contexts (ZSTD_DCtx *), reused by loaders. */
    void *dctx_pool[MGR_DCTX_POOL];
    uint32_t dctx_count;
    /* Hot reload: retired data (freed by pump once m->pumps reaches its
     * retire_pump), the pump count, counters, and the folder watch. */
    mgr_data *retired;
    uint64_t pumps;
    uint64_t reloads, reload_failures, refreshes;
    int watch_fd; /* inotify descriptor, -1: not watching */
    bool watch_dirty;
    uint64_t watch_last_ns; /* monotonic time of the last event not on assets.kman */
    uint64_t graph_epoch;   /* walks of the nesting graph (manager_graph.c) */
    /* Cooking on demand (manager_dev.c, KILN_RUNTIME_DEV only); NULL: none.
     * dev_hooks is set with dev, once, by kiln_manager_connect_cooker. */
    struct mgr_dev *dev;
    _Atomic(const struct mgr_dev_hooks *) dev_hooks;
    mgr_file_cache files; /* manager_files.c */
};

#endif /* KILN_RUNTIME_MANAGER_INTERNAL_H */
