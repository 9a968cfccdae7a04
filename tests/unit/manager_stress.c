/*
 * manager_stress.c — the asset manager under concurrent use, built twice:
 * test_manager_stress (AddressSanitizer) and test_manager_tsan
 * (ThreadSanitizer, with the runtime's sources alone).
 *
 *   manager_stress RUNTIME_DIR RUNTIME.kpak [OTHER.kpak]
 *
 * Level threads create scopes, load (synchronously) and request (through
 * the workers) the cooked examples' scenes, meshes, tables and textures,
 * read what is ready, and destroy their scopes, some before the requests
 * finish; a pump thread finishes requests and calls their callbacks; a
 * reader thread calls kiln_asset_get and kiln_asset_state_of on refs the
 * others publish, stale ones included, without reading the assets (a ref
 * may only be read through while its scope lives). The permanent scope's
 * assets are read by everyone. A reload thread reloads the refs' assets in
 * place (kiln_manager_reload; kiln_manager_refresh now and then) all along,
 * so data is replaced under the readers: they read as a game does, within a
 * frame (a read lock), and the pump thread pumps between frames (the write
 * lock), which is the contract replaced data is freed by (the second pump
 * after its replacement). Afterwards every engine object created was
 * destroyed and the allocator is balanced. Run once on the folder and once
 * on the pack. With OTHER.kpak (the same assets with other textures), the
 * pack runs mount a copy of RUNTIME.kpak that a swapper thread replaces, as
 * `kiln build --pack` does (a new file renamed over it), by OTHER.kpak and
 * back, all along: the refreshes open each new pack and reload the entries
 * that changed while the old packs' data is read.
 *
 * With CYCLES_RUNTIME_DIR, a runtime folder cooked from tests/data/level_cycle
 * (levels whose components name each other or themselves, and one that is
 * fine), mounted over the first: the level threads also load and request
 * those levels, which must fail (the cyclic ones, never waiting forever) or
 * load (the fine one), and leave nothing behind once their scopes go.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kiln/manager.h"

#define LEVEL_THREADS 3
#define ROUNDS 150
#define PUBLISHED 64

static atomic_int failures;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);               \
            atomic_fetch_add(&failures, 1);                                                        \
        }                                                                                          \
    } while (0)

static const char *const refs[] = {
    "levels/yard/scene", /* a level: its placed scenes and its component's */
    "props/crate/scene",    "props/rock/scene", "props/pebble/scene", "props/sign/scene",
    "level/column/scene",   "props/crate",      "props/rock",         "props/pebble",
    "props/sign",           "level/column",     "props/crate/crate",  "props/crate/metal",
    "props/rock/materials",
};
#define REF_COUNT (sizeof refs / sizeof refs[0])

/* In the third runtime: cyclic levels (they fail), and one that loads. */
static const char *const cycle_refs[] = {"lv/a/scene", "lv/b/scene", "lv/self/scene"};
#define CYCLE_COUNT 3
#define CYCLE_FINE "lv/fine/scene"

typedef struct counters {
    atomic_long buffers, buffers_destroyed, textures, textures_destroyed, callbacks;
    atomic_long applied, dependents, reload_failures;
    atomic_long cycle_failures; /* cyclic levels that failed, sync or through a callback */
    atomic_long allocations, frees;
    atomic_llong outstanding;
} counters;

static kiln_result create_buffer(void *user, const kiln_asset *asset, kiln_buffer_usage usage,
                                 const void *data, size_t size, void **object, kiln_error *err) {
    counters *c = user;
    (void)asset;
    (void)usage;
    (void)err;
    CHECK(data != NULL && size > 0);
    *object = (void *)(uintptr_t)(1 + atomic_fetch_add(&c->buffers, 1));
    return KILN_OK;
}

static void destroy_buffer(void *user, const kiln_asset *asset, void *object) {
    counters *c = user;
    (void)asset;
    CHECK(object != NULL);
    atomic_fetch_add(&c->buffers_destroyed, 1);
}

static kiln_result create_texture(void *user, const kiln_asset *asset, const void *texels,
                                  size_t size, void **object, kiln_error *err) {
    counters *c = user;
    (void)err;
    CHECK(texels != NULL && size >= kiln_ktx2_level_size(&asset->texture, 0));
    *object = (void *)(uintptr_t)(1 + atomic_fetch_add(&c->textures, 1));
    return KILN_OK;
}

static void destroy_texture(void *user, const kiln_asset *asset, void *object) {
    counters *c = user;
    (void)asset;
    (void)object;
    atomic_fetch_add(&c->textures_destroyed, 1);
}

static void reloaded(void *user, const kiln_reload_event *event) {
    counters *c = user;
    CHECK(event->asset != NULL);
    if (event->kind == KILN_RELOAD_APPLIED) {
        CHECK(event->previous != NULL && event->previous != event->asset);
        atomic_fetch_add(&c->applied, 1);
    } else if (event->kind == KILN_RELOAD_DEPENDENCY) {
        CHECK(event->dependency != NULL);
        atomic_fetch_add(&c->dependents, 1);
    } else {
        fprintf(stderr, "reload failed: %s\n", event->error->message);
        atomic_fetch_add(&c->reload_failures, 1);
    }
}

static void *counted_alloc(void *user, size_t size, size_t alignment) {
    counters *c = user;
    atomic_fetch_add(&c->allocations, 1);
    atomic_fetch_add(&c->outstanding, (long long)size);
    size_t rounded = (size + alignment - 1) / alignment * alignment;
    return aligned_alloc(alignment, rounded == 0 ? alignment : rounded);
}

static void counted_free(void *user, void *memory, size_t size) {
    counters *c = user;
    atomic_fetch_add(&c->frees, 1);
    atomic_fetch_sub(&c->outstanding, (long long)size);
    free(memory);
}

static void on_done(void *user, kiln_ref ref, kiln_result result, const kiln_error *err) {
    counters *c = user;
    (void)ref;
    CHECK(err != NULL);
    CHECK(result == KILN_OK);
    atomic_fetch_add(&c->callbacks, 1);
}

/* A cyclic level's request ends failed, naming the cycle. */
static void on_cycle_done(void *user, kiln_ref ref, kiln_result result, const kiln_error *err) {
    counters *c = user;
    (void)ref;
    CHECK(result != KILN_OK && strstr(err->message, "dependency cycle") != NULL);
    atomic_fetch_add(&c->cycle_failures, 1);
}

typedef struct shared {
    kiln_manager *manager;
    counters *counters;
    atomic_bool stop;
    /* Refs published for the reader: (slot << 32 | generation) and scope. */
    _Atomic uint64_t published[PUBLISHED];
    _Atomic uint32_t published_scope[PUBLISHED];
    atomic_uint publish_at;
    kiln_ref permanent[2];
    pthread_rwlock_t frame; /* readers in a frame; the pump between frames */
    bool cycles;            /* the cyclic levels are mounted */
} shared;

typedef struct level_arg {
    shared *s;
    unsigned seed;
} level_arg;

static unsigned next_random(unsigned *seed) {
    *seed = *seed * 1103515245u + 12345u;
    return (*seed >> 16) & 0x7fffu;
}

static void publish(shared *s, kiln_ref ref) {
    unsigned at = atomic_fetch_add(&s->publish_at, 1) % PUBLISHED;
    atomic_store(&s->published[at], (uint64_t)ref.slot << 32 | ref.generation);
    atomic_store(&s->published_scope[at], ref.scope);
}

/* Reads what a ready asset offers, as an engine would. */
static void read_asset(const kiln_asset *a) {
    switch (a->kind) {
    case KILN_ASSET_MESH:
        CHECK(a->mesh.desc != NULL && a->mesh.desc->index_count > 0);
        break;
    case KILN_ASSET_MATERIAL:
        CHECK(a->materials.material_count > 0);
        break;
    case KILN_ASSET_TEXTURE:
        CHECK(a->texture.levels > 0 && a->engine_texture != NULL);
        break;
    case KILN_ASSET_SCENE:
        CHECK(a->scene.node_count > 0);
        break;
    default:
        CHECK(false);
    }
    CHECK(a->bytes >= a->file_bytes);
}

static void *level_thread(void *arg) {
    level_arg *la = arg;
    shared *s = la->s;
    unsigned seed = la->seed;
    for (int round = 0; round < ROUNDS; round++) {
        kiln_error err;
        kiln_scope scope;
        if (kiln_scope_create(s->manager, "level", 0, &scope, &err) != KILN_OK) {
            CHECK(false);
            continue;
        }
        kiln_ref held[8];
        int count = 1 + (int)(next_random(&seed) % 8);
        for (int i = 0; i < count; i++) {
            const char *ref = refs[next_random(&seed) % REF_COUNT];
            kiln_result r;
            if (next_random(&seed) % 2 == 0)
                r = kiln_manager_load_ref(s->manager, scope, ref, &held[i], &err);
            else
                r = kiln_manager_request(s->manager, scope, kiln_ref_hash(ref),
                                         (int32_t)(next_random(&seed) % 4), on_done, s->counters,
                                         &held[i], &err);
            if (r != KILN_OK)
                fprintf(stderr, "%s: %s\n", ref, err.message);
            CHECK(r == KILN_OK);
            publish(s, held[i]);
        }
        /* A cyclic level (fails, synchronously or through its callback) or
         * the fine one, next to the others; never ready, never a wait. */
        kiln_ref cyclic = {0, 0, 0};
        if (s->cycles) {
            unsigned pick = next_random(&seed) % (CYCLE_COUNT + 1);
            const char *ref = pick < CYCLE_COUNT ? cycle_refs[pick] : CYCLE_FINE;
            kiln_result r;
            if (next_random(&seed) % 2 == 0) {
                r = kiln_manager_load_ref(s->manager, scope, ref, &cyclic, &err);
                if (pick < CYCLE_COUNT) {
                    CHECK(r != KILN_OK && strstr(err.message, "dependency cycle") != NULL);
                    atomic_fetch_add(&s->counters->cycle_failures, 1);
                } else {
                    CHECK(r == KILN_OK);
                }
            } else {
                r = kiln_manager_request(s->manager, scope, kiln_ref_hash(ref), 0,
                                         pick < CYCLE_COUNT ? on_cycle_done : on_done, s->counters,
                                         &cyclic, &err);
                CHECK(r == KILN_OK);
            }
            publish(s, cyclic);
        }
        /* Read what is ready; the scope is ours, so it stays valid. One
         * pass is one frame: what kiln_asset_get gave is not kept past it. */
        int spins = (int)(next_random(&seed) % 400);
        for (int k = 0; k < spins; k++) {
            pthread_rwlock_rdlock(&s->frame);
            for (int i = 0; i < count; i++) {
                const kiln_asset *a = kiln_asset_get(s->manager, held[i]);
                if (a != NULL) {
                    read_asset(a);
                    for (uint32_t d = 0; d < a->dependency_count; d++) {
                        const kiln_asset *dep = kiln_asset_get(s->manager, a->dependencies[d].ref);
                        CHECK(dep != NULL);
                        if (dep != NULL)
                            read_asset(dep);
                    }
                }
            }
            const kiln_asset *c = kiln_asset_get(s->manager, cyclic);
            if (c != NULL) { /* only the fine one */
                CHECK(c->kind == KILN_ASSET_SCENE && c->dependency_count == 1);
                CHECK(kiln_asset_get(s->manager, c->dependencies[0].ref) != NULL);
            }
            for (int p = 0; p < 2; p++) {
                const kiln_asset *a = kiln_asset_get(s->manager, s->permanent[p]);
                CHECK(a != NULL);
                if (a != NULL)
                    read_asset(a);
            }
            pthread_rwlock_unlock(&s->frame);
        }
        CHECK(kiln_scope_destroy(s->manager, scope, &err) == KILN_OK);
        CHECK(kiln_scope_destroy(s->manager, scope, &err) == KILN_ERR_INVALID_ARGUMENT);
        for (int i = 0; i < count; i++)
            CHECK(kiln_asset_get(s->manager, held[i]) == NULL);
    }
    return NULL;
}

static void *pump_thread(void *arg) {
    shared *s = arg;
    while (!atomic_load(&s->stop)) {
        /* A frame: wait (up to 1 ms) for the workers to run dry, as a
         * loading screen does, while the others load and unload. */
        kiln_manager_wait(s->manager, 1);
        pthread_rwlock_wrlock(&s->frame);
        kiln_manager_pump(s->manager);
        pthread_rwlock_unlock(&s->frame);
    }
    kiln_manager_pump(s->manager);
    return NULL;
}

/* Reloads the refs' assets (those loaded; the others are a no-op) while the
 * others load, read and unload them. */
static void *reload_thread(void *arg) {
    shared *s = arg;
    unsigned seed = 99u;
    for (unsigned i = 0; !atomic_load(&s->stop); i++) {
        kiln_error err;
        kiln_result r;
        if (i % 16 == 15)
            r = kiln_manager_refresh(s->manager, &err);
        else
            r = kiln_manager_reload(s->manager, kiln_ref_hash(refs[next_random(&seed) % REF_COUNT]),
                                    &err);
        if (r != KILN_OK)
            fprintf(stderr, "reload: %s\n", err.message);
        CHECK(r == KILN_OK);
    }
    return NULL;
}

/* The swapper: the mounted pack file replaced by the other bytes and back. */
typedef struct swap_arg {
    shared *s;
    const char *path;
    const void *bytes[2];
    size_t sizes[2];
    long swaps;
} swap_arg;

static bool write_whole(const char *path, const void *bytes, size_t size) {
    FILE *f = fopen(path, "wb");
    if (f == NULL)
        return false;
    bool ok = fwrite(bytes, 1, size, f) == size;
    return fclose(f) == 0 && ok;
}

static void *read_whole(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    long length = ftell(f);
    fseek(f, 0, SEEK_SET);
    void *bytes = length > 0 ? malloc((size_t)length) : NULL;
    if (bytes != NULL && fread(bytes, 1, (size_t)length, f) != (size_t)length) {
        free(bytes);
        bytes = NULL;
    }
    fclose(f);
    *size = (size_t)length;
    return bytes;
}

/* `path` becomes `bytes` by a rename, as the cooker writes a pack. */
static bool replace_whole(const char *path, const void *bytes, size_t size) {
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    return write_whole(tmp, bytes, size) && rename(tmp, path) == 0;
}

static void *swap_thread(void *arg) {
    swap_arg *sw = arg;
    while (!atomic_load(&sw->s->stop)) {
        int which = (int)(++sw->swaps % 2); /* 1: the other pack, 0: the first again */
        CHECK(replace_whole(sw->path, sw->bytes[which], sw->sizes[which]));
        struct timespec pause = {0, 3 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    return NULL;
}

static void *reader_thread(void *arg) {
    shared *s = arg;
    unsigned i = 0;
    while (!atomic_load(&s->stop)) {
        uint64_t packed = atomic_load(&s->published[i % PUBLISHED]);
        kiln_ref ref = {atomic_load(&s->published_scope[i % PUBLISHED]), (uint32_t)(packed >> 32),
                        (uint32_t)packed};
        const kiln_asset *a = kiln_asset_get(s->manager, ref);
        (void)a; /* not read: the scope may go at any moment */
        if (i % 64 == 0) {
            kiln_error err;
            kiln_asset_state state = kiln_asset_state_of(s->manager, ref, &err);
            CHECK(state <= KILN_ASSET_FAILED);
            kiln_manager_stats stats;
            CHECK(kiln_manager_stats_get(s->manager, &stats, &err) == KILN_OK);
            CHECK(stats.ready + stats.queued + stats.loading + stats.failed == stats.assets);
        }
        i++;
    }
    return NULL;
}

static int run(const char *mount, const char *cycles, uint32_t workers, const char *other) {
    counters c;
    memset(&c, 0, sizeof c);
    kiln_manager_desc desc = {0};
    desc.worker_threads = workers;
    desc.allocator = (kiln_allocator){counted_alloc, counted_free, &c};
    desc.engine = (kiln_engine_callbacks){
        .user = &c,
        .create_buffer = create_buffer,
        .destroy_buffer = destroy_buffer,
        .create_texture = create_texture,
        .destroy_texture = destroy_texture,
        .reloaded = reloaded,
    };
    shared s;
    memset(&s, 0, sizeof s);
    pthread_rwlock_init(&s.frame, NULL);
    s.counters = &c;
    kiln_error err;
    /* Swapping: the mount is a copy of the pack the swapper replaces. */
    swap_arg sw;
    memset(&sw, 0, sizeof sw);
    char swapped[4096];
    if (other != NULL) {
        snprintf(swapped, sizeof swapped, "%s-swapped.kpak", mount);
        sw.s = &s;
        sw.path = swapped;
        sw.bytes[0] = read_whole(mount, &sw.sizes[0]);
        sw.bytes[1] = read_whole(other, &sw.sizes[1]);
        if (sw.bytes[0] == NULL || sw.bytes[1] == NULL ||
            !replace_whole(swapped, sw.bytes[0], sw.sizes[0])) {
            fprintf(stderr, "cannot read %s and %s or write %s\n", mount, other, swapped);
            return 1;
        }
        mount = swapped;
    }
    if (kiln_manager_create(&desc, &s.manager, &err) != KILN_OK ||
        kiln_manager_mount(s.manager, mount, NULL, &err) != KILN_OK) {
        fprintf(stderr, "%s: %s\n", mount, err.message);
        return 1;
    }
    if (cycles != NULL) {
        if (kiln_manager_mount(s.manager, cycles, NULL, &err) != KILN_OK) {
            fprintf(stderr, "%s: %s\n", cycles, err.message);
            return 1;
        }
        s.cycles = true;
    }
    CHECK(kiln_manager_load_ref(s.manager, KILN_SCOPE_PERMANENT, "props/pebble/scene",
                                &s.permanent[0], &err) == KILN_OK);
    CHECK(kiln_manager_load_ref(s.manager, KILN_SCOPE_PERMANENT, "props/rock", &s.permanent[1],
                                &err) == KILN_OK);
    pthread_t levels[LEVEL_THREADS], pump, reader, reloader, swapper;
    level_arg args[LEVEL_THREADS];
    pthread_create(&pump, NULL, pump_thread, &s);
    pthread_create(&reader, NULL, reader_thread, &s);
    pthread_create(&reloader, NULL, reload_thread, &s);
    if (other != NULL)
        pthread_create(&swapper, NULL, swap_thread, &sw);
    for (int i = 0; i < LEVEL_THREADS; i++) {
        args[i] = (level_arg){&s, 1234u + (unsigned)i * 77u};
        pthread_create(&levels[i], NULL, level_thread, &args[i]);
    }
    for (int i = 0; i < LEVEL_THREADS; i++)
        pthread_join(levels[i], NULL);
    atomic_store(&s.stop, true);
    pthread_join(pump, NULL);
    pthread_join(reader, NULL);
    pthread_join(reloader, NULL);
    if (other != NULL)
        pthread_join(swapper, NULL);
    kiln_manager_stats stats;
    CHECK(kiln_manager_stats_get(s.manager, &stats, &err) == KILN_OK);
    if (other != NULL) { /* the swapped packs were opened and read */
        CHECK(sw.swaps > 1 && stats.refreshes > 0);
        printf("%s: %ld swaps, %" PRIu64 " packs opened again\n", mount, sw.swaps, stats.refreshes);
        free((void *)sw.bytes[0]);
        free((void *)sw.bytes[1]);
    }
    CHECK(stats.failed == 0);
    CHECK(stats.reload_failures == 0 && atomic_load(&c.reload_failures) == 0);
    CHECK(stats.reloads == (uint64_t)atomic_load(&c.applied));
    CHECK(stats.reloads > 0); /* the permanent scope's assets at least */
    kiln_manager_destroy(s.manager);
    pthread_rwlock_destroy(&s.frame);
    CHECK(atomic_load(&c.buffers) == atomic_load(&c.buffers_destroyed));
    CHECK(atomic_load(&c.textures) == atomic_load(&c.textures_destroyed));
    CHECK(atomic_load(&c.allocations) == atomic_load(&c.frees));
    CHECK(atomic_load(&c.outstanding) == 0);
    CHECK(cycles == NULL || atomic_load(&c.cycle_failures) > 0);
    printf("%s, %" PRIu32 " workers: %ld buffers, %ld textures created and destroyed, %ld "
           "callbacks, %ld reloads (%ld dependents told), %ld cyclic levels failed, %ld "
           "allocations\n",
           mount, workers, atomic_load(&c.buffers), atomic_load(&c.textures),
           atomic_load(&c.callbacks), atomic_load(&c.applied), atomic_load(&c.dependents),
           atomic_load(&c.cycle_failures), atomic_load(&c.allocations));
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 3 || argc > 5) {
        fprintf(stderr, "usage: %s RUNTIME_DIR RUNTIME.kpak [OTHER.kpak [CYCLES_RUNTIME_DIR]]\n",
                argv[0]);
        return 2;
    }
    const char *other = argc >= 4 && argv[3][0] != '\0' ? argv[3] : NULL;
    const char *cycles = argc == 5 ? argv[4] : NULL;
    int status = run(argv[1], cycles, 2, NULL);
    status |= run(argv[2], cycles, 2, other);
    status |= run(argv[2], cycles, 0, other); /* the pump thread loads */
    int failed = atomic_load(&failures);
    if (failed > 0)
        fprintf(stderr, "%d check(s) failed\n", failed);
    return status != 0 || failed > 0;
}
