/* manager_fixture.c — the asset manager tests' shared fixture
 * (manager_fixture.h). */
#include "manager_fixture.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"

test_project test_project_new(const char *name, const char *out_name) {
    test_project p;
    p.src = test_make_temp_dir(name);
    p.props = test_path_join(p.src, "props");
    assert_int_equal(mkdir(p.props, 0755), 0);
    char *dir = test_make_temp_dir(out_name);
    p.out = test_path_join(dir, "runtime");
    free(dir);
    return p;
}

void test_project_free(test_project *p) {
    free(p->src);
    free(p->props);
    free(p->out);
}

void test_project_write(const test_project *p, const char *name, const void *bytes, size_t size) {
    test_write_in(p->src, name, bytes, size);
}

void test_project_write_text(const test_project *p, const char *name, const char *text) {
    test_project_write(p, name, text, strlen(text));
}

void test_project_copy(const test_project *p, const char *from, const char *name) {
    size_t size;
    uint8_t *bytes = test_read_file(from, &size);
    test_project_write(p, name, bytes, size);
    free(bytes);
}

void test_project_cook(const test_project *p) {
    char *argv[] = {"kiln", "build", "-q", "-j", "1", "-i", p->src, "-o", p->out, NULL};
    assert_int_equal(cli_main(9, argv), 0);
}

static void *counting_alloc(void *user, size_t size, size_t alignment) {
    test_alloc_log *log = user;
    __atomic_add_fetch(&log->allocations, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&log->outstanding, (long long)size, __ATOMIC_RELAXED);
    size_t rounded = (size + alignment - 1) / alignment * alignment;
    return aligned_alloc(alignment, rounded == 0 ? alignment : rounded);
}

static void counting_free(void *user, void *memory, size_t size) {
    test_alloc_log *log = user;
    __atomic_add_fetch(&log->frees, 1, __ATOMIC_RELAXED);
    __atomic_sub_fetch(&log->outstanding, (long long)size, __ATOMIC_RELAXED);
    free(memory);
}

kiln_allocator test_counting_allocator(test_alloc_log *log) {
    return (kiln_allocator){counting_alloc, counting_free, log};
}

void test_alloc_all_freed(const test_alloc_log *log) {
    assert_int_equal(log->allocations, log->frees);
    assert_int_equal(log->outstanding, 0);
}

void test_reload_record(test_reload_log *log, const kiln_reload_event *event) {
    assert_non_null(event->asset);
    switch (event->kind) {
    case KILN_RELOAD_APPLIED:
        assert_non_null(event->previous);
        assert_ptr_not_equal(event->previous, event->asset);
        assert_int_equal(event->result, KILN_OK);
        log->applied++;
        log->last_applied = event->handle;
        log->last_previous = event->previous;
        log->last_asset = event->asset;
        break;
    case KILN_RELOAD_FAILED:
        assert_non_null(event->error);
        assert_int_not_equal(event->result, KILN_OK);
        log->failed++;
        log->last_failed = event->handle;
        log->failure_code = event->result;
        snprintf(log->failure, sizeof log->failure, "%s", event->error->message);
        break;
    case KILN_RELOAD_DEPENDENCY:
        assert_non_null(event->dependency);
        if (log->dependency < 8) {
            log->dependency_of[log->dependency] = event->handle;
            snprintf(log->dependents[log->dependency], 64, "%s", event->asset->ref);
            snprintf(log->dependency_refs[log->dependency], 64, "%s", event->dependency->ref);
        }
        log->dependency++;
        break;
    }
}

bool test_reload_told(const test_reload_log *log, const char *ref) {
    for (int i = 0; i < log->dependency && i < 8; i++)
        if (strcmp(log->dependents[i], ref) == 0)
            return true;
    return false;
}

static kiln_result engine_create_buffer(void *user, const kiln_asset *asset,
                                        kiln_buffer_usage usage, const void *data, size_t size,
                                        void **object, kiln_error *err) {
    test_engine *engine = user;
    (void)err;
    assert_non_null(data);
    assert_true(size > 0);
    if (usage == KILN_BUFFER_VERTICES && engine->order_count < 16)
        snprintf(engine->order[engine->order_count++], 64, "%s", asset->ref);
    engine->buffers++;
    *object = (void *)(uintptr_t)(0x1000 + engine->buffers);
    return KILN_OK;
}

static void engine_destroy_buffer(void *user, const kiln_asset *asset, void *object) {
    test_engine *engine = user;
    (void)asset;
    assert_non_null(object);
    engine->buffers_destroyed++;
}

static uint8_t staging_memory[1 << 20] __attribute__((aligned(16)));

static void *engine_texture_staging(void *user, const kiln_asset *asset, size_t size) {
    test_engine *engine = user;
    (void)asset;
    if (size > sizeof staging_memory || engine->last_staging != NULL)
        return NULL;
    engine->staging_given++;
    engine->last_staging = staging_memory;
    return staging_memory;
}

static void engine_release_staging(void *user, void *memory, size_t size) {
    test_engine *engine = user;
    (void)size;
    assert_ptr_equal(memory, staging_memory);
    engine->staging_released++;
    engine->last_staging = NULL;
}

static kiln_result engine_create_texture(void *user, const kiln_asset *asset, const void *texels,
                                         size_t size, void **object, kiln_error *err) {
    test_engine *engine = user;
    if (engine->fail_textures) {
        snprintf(err->message, sizeof err->message, "device lost");
        return KILN_ERR_IO;
    }
    assert_non_null(texels);
    assert_true(asset->texture.levels >= 1);
    assert_true(size >= kiln_ktx2_level_size(&asset->texture, 0));
    if (texels == staging_memory) {
        engine->staging_matched = true;
        engine->staging_consumed++;
        engine->last_staging = NULL; /* the engine has it back */
    }
    engine->textures++;
    *object = (void *)(uintptr_t)(0x2000 + engine->textures);
    return KILN_OK;
}

static void engine_destroy_texture(void *user, const kiln_asset *asset, void *object) {
    test_engine *engine = user;
    (void)asset;
    assert_non_null(object);
    engine->textures_destroyed++;
}

static void engine_reloaded(void *user, const kiln_reload_event *event) {
    test_engine *engine = user;
    test_reload_record(&engine->reload, event);
}

kiln_engine_callbacks test_engine_callbacks(test_engine *engine, unsigned parts) {
    kiln_engine_callbacks callbacks = {.user = engine};
    if (parts & TEST_ENGINE_OBJECTS) {
        callbacks.create_buffer = engine_create_buffer;
        callbacks.destroy_buffer = engine_destroy_buffer;
        callbacks.create_texture = engine_create_texture;
        callbacks.destroy_texture = engine_destroy_texture;
    }
    if (parts & TEST_ENGINE_STAGING) {
        callbacks.texture_staging = engine_texture_staging;
        callbacks.release_staging = engine_release_staging;
    }
    if (parts & TEST_ENGINE_RELOADED)
        callbacks.reloaded = engine_reloaded;
    return callbacks;
}

kiln_manager *test_manager_new(test_engine *engine, unsigned parts, test_alloc_log *alloc,
                               uint32_t workers) {
    kiln_manager_desc desc = {0};
    desc.worker_threads = workers;
    if (engine != NULL)
        desc.engine = test_engine_callbacks(engine, parts);
    if (alloc != NULL)
        desc.allocator = test_counting_allocator(alloc);
    kiln_manager *m = NULL;
    kiln_error err;
    assert_int_equal(kiln_manager_create(&desc, &m, &err), KILN_OK);
    assert_non_null(m);
    return m;
}

uint32_t test_live_assets(kiln_manager *m) {
    kiln_manager_stats stats;
    kiln_error err;
    assert_int_equal(kiln_manager_stats_get(m, &stats, &err), KILN_OK);
    return stats.assets;
}

void test_pump(kiln_manager *m, int times) {
    for (int i = 0; i < times; i++)
        kiln_manager_pump(m);
}
