/* manager_fixture.c — the asset manager tests' shared fixture
 * (manager_fixture.h). */
#include "manager_fixture.h"

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
    char *path = test_path_join(p->src, name);
    for (char *slash = strchr(path + strlen(p->src) + 1, '/'); slash != NULL;
         slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        mkdir(path, 0755); /* may be there already */
        *slash = '/';
    }
    test_write_file(path, bytes, size);
    free(path);
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
