/* manager_fixture.h — what the asset manager's tests (test_manager,
 * test_reload, test_manager_files, test_level_deps) share: a source folder
 * and its runtime folder cooked by the real kiln command, a counting
 * allocator that proves every allocation is given back, an engine whose
 * callbacks count the objects they make and record the reload events, and
 * small checks on a manager. */
#ifndef KILN_TEST_MANAGER_FIXTURE_H
#define KILN_TEST_MANAGER_FIXTURE_H

#include <stdbool.h>

#include "kiln/manager.h"
#include "test_support.h"

/* A source folder (src, with props/ made) and the runtime folder it cooks
 * into (out: <another temporary folder>/runtime, made by the first cook). */
typedef struct test_project {
    char *src, *props, *out;
} test_project;

/* A new project: `name` names its source folder, `out_name` the folder
 * holding its runtime folder. Nothing is cooked yet. */
test_project test_project_new(const char *name, const char *out_name);
void test_project_free(test_project *p);
/* Writes `size` bytes at `name` under the source folder (its folder made). */
void test_project_write(const test_project *p, const char *name, const void *bytes, size_t size);
void test_project_write_text(const test_project *p, const char *name, const char *text);
/* Copies the file at `from` to `name` under the source folder. */
void test_project_copy(const test_project *p, const char *from, const char *name);
/* `kiln build -q -j 1` of the source folder into the runtime folder. */
void test_project_cook(const test_project *p);

/* Allocator hooks that count (thread-safe). */
typedef struct test_alloc_log {
    long allocations, frees;
    long long outstanding;
} test_alloc_log;
kiln_allocator test_counting_allocator(test_alloc_log *log);
/* Every allocation was freed, with the size it was made with. */
void test_alloc_all_freed(const test_alloc_log *log);

/* What the engine's `reloaded` callback was told. */
typedef struct test_reload_log {
    int applied, failed, dependency;
    kiln_handle last_applied, last_failed;
    const kiln_asset *last_previous, *last_asset;
    /* DEPENDENCY events, the first 8: the asset told, the dependency's ref. */
    kiln_handle dependency_of[8];
    char dependents[8][64];
    char dependency_refs[8][64];
    char failure[KILN_ERROR_MESSAGE_MAX];
    kiln_result failure_code;
} test_reload_log;
/* Records `event` in `log`, checking what every event of its kind must
 * hold (an APPLIED event's previous data, a FAILED event's message...). */
void test_reload_record(test_reload_log *log, const kiln_reload_event *event);
/* Whether `ref` was told of a dependency's reload. */
bool test_reload_told(const test_reload_log *log, const char *ref);

/* An engine whose callbacks count what they make and destroy, for tests
 * whose callbacks run on one thread at a time (the loading or pumping one). */
typedef struct test_engine {
    int buffers, buffers_destroyed, textures, textures_destroyed;
    /* texture_staging hands out one static 1 MiB block at a time. */
    int staging_given, staging_released, staging_consumed;
    void *last_staging;
    bool staging_matched; /* create_texture got the block back */
    bool fail_textures;   /* create_texture fails with "device lost" */
    char order[16][64];   /* refs in create_buffer order (vertices) */
    int order_count;
    test_reload_log reload; /* what `reloaded` was told */
} test_engine;

/* Which of test_engine's callbacks a manager gets. */
enum {
    TEST_ENGINE_OBJECTS = 1u,  /* create_/destroy_buffer and create_/destroy_texture */
    TEST_ENGINE_STAGING = 2u,  /* texture_staging and release_staging */
    TEST_ENGINE_RELOADED = 4u, /* reloaded, into engine->reload */
};
kiln_engine_callbacks test_engine_callbacks(test_engine *engine, unsigned parts);

/* A manager with `workers` workers, `engine`'s callbacks `parts` (none when
 * `engine` is NULL) and, when `alloc` is given, the counting allocator. */
kiln_manager *test_manager_new(test_engine *engine, unsigned parts, test_alloc_log *alloc,
                               uint32_t workers);

/* Slots in use (kiln_manager_stats.assets). */
uint32_t test_live_assets(kiln_manager *m);
/* `times` calls of kiln_manager_pump (two free what reloads replaced). */
void test_pump(kiln_manager *m, int times);

#endif /* KILN_TEST_MANAGER_FIXTURE_H */
