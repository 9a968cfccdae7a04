/* How the asset manager (kiln/manager.h) gets a folder file's bytes: read
 * into memory, or with KILN_MANAGER_MAP_FILES mapped when 64 KiB or more
 * (smaller ones read). Checked against the files on disk and /proc/self/maps: a
 * mapped load gives the same assets as a read one, byte for byte; the large
 * file really is a mapping of that file and counts in mapped_bytes; a file
 * the cooker replaces (by rename) while mapped keeps serving the old bytes
 * until a reload, and the old mapping stays readable until the second pump
 * after it, then goes; a read file is a copy that a later change on disk
 * does not touch. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kiln/manager.h"
#include "manager_fixture.h"

#define EXAMPLES KILN_EXAMPLES_DIR
#define MAP_MIN (64 * 1024) /* the manager's threshold (manager.c MGR_MAP_MIN) */

typedef test_project project;

/* props/big.obj: a fan of `triangles` triangles using crate.mtl's "wood",
 * large enough that its cooked mesh is mapped; crate.{mtl,png} beside it. */
static void write_fan(const project *p, int triangles, float height) {
    size_t capacity = (size_t)triangles * 64 + 256, at = 0;
    char *text = malloc(capacity);
    at += (size_t)snprintf(text + at, capacity - at, "mtllib crate.mtl\no big\nv 0 0 0\n");
    for (int i = 0; i <= triangles; i++)
        at += (size_t)snprintf(text + at, capacity - at, "v %d %g %d\n", i + 1, (double)height,
                               i % 7);
    at += (size_t)snprintf(text + at, capacity - at, "usemtl wood\n");
    for (int i = 0; i < triangles; i++)
        at += (size_t)snprintf(text + at, capacity - at, "f 1 %d %d\n", i + 2, i + 3);
    char *path = test_path_join(p->props, "big.obj");
    test_write_file(path, text, at);
    free(path);
    free(text);
}

static void cook(const project *p) {
    test_project_cook(p);
}

static project make_project(const char *name, int triangles) {
    project p = test_project_new(name, "files_out");
    test_project_copy(&p, EXAMPLES "/props/crate.mtl", "props/crate.mtl");
    test_project_copy(&p, EXAMPLES "/props/crate.png", "props/crate.png");
    write_fan(&p, triangles, 1.0f);
    cook(&p);
    return p;
}

static kiln_manager *make(const char *mount, uint32_t flags) {
    kiln_manager_desc desc = {0};
    desc.flags = flags;
    kiln_manager *m;
    kiln_error err;
    assert_int_equal(kiln_manager_create(&desc, &m, &err), KILN_OK);
    assert_int_equal(kiln_manager_mount(m, mount, NULL, &err), KILN_OK);
    return m;
}

/* The bytes an asset's views read: the container, or the KTX2 file. */
static const void *asset_bytes(const kiln_asset *a, size_t *size) {
    if (a->kind == KILN_ASSET_TEXTURE) {
        *size = a->texture.size;
        return a->texture.data;
    }
    *size = a->file.size;
    return a->file.data;
}

/* Whether /proc/self/maps shows `address` inside a mapping of a file whose
 * path ends with `tail`. */
static bool mapped_from(const void *address, const char *tail) {
    FILE *f = fopen("/proc/self/maps", "r");
    assert_non_null(f);
    char line[4096];
    bool found = false;
    while (!found && fgets(line, sizeof line, f) != NULL) {
        uintptr_t start, end;
        if (sscanf(line, "%" SCNxPTR "-%" SCNxPTR, &start, &end) != 2)
            continue;
        line[strcspn(line, "\n")] = '\0';
        size_t length = strlen(line), tail_length = strlen(tail);
        found = (uintptr_t)address >= start && (uintptr_t)address < end && length >= tail_length &&
                strcmp(line + length - tail_length, tail) == 0;
    }
    fclose(f);
    return found;
}

static uint8_t *read_cooked(const project *p, const char *path, size_t *size) {
    char *full = test_path_join(p->out, path);
    uint8_t *bytes = test_read_file(full, size);
    free(full);
    return bytes;
}

static uint64_t file_size(const project *p, const char *path) {
    char *full = test_path_join(p->out, path);
    struct stat st;
    assert_int_equal(stat(full, &st), 0);
    free(full);
    return (uint64_t)st.st_size;
}

/* Every asset of the manifest through a mapping manager and a reading one:
 * the same assets, each the bytes of its file on disk. */
static void mapped_and_read_loads_are_identical(void **state) {
    (void)state;
    project p = make_project("files_same", 12000);
    kiln_manager *mapped = make(p.out, KILN_MANAGER_MAP_FILES), *read = make(p.out, 0);
    kiln_scope a, b;
    kiln_error err;
    assert_int_equal(kiln_scope_create(mapped, "mapped", 0, &a, &err), KILN_OK);
    assert_int_equal(kiln_scope_create(read, "read", 0, &b, &err), KILN_OK);

    char *manifest_path = test_path_join(p.out, KILN_MANIFEST_FILE_NAME);
    kiln_file manifest;
    kiln_manifest_view view;
    assert_int_equal(kiln_file_map(&manifest, manifest_path, 0, &err), KILN_OK);
    assert_int_equal(kiln_manifest_view_get(&manifest, &view, &err), KILN_OK);
    uint64_t expect_mapped = 0, expect_bytes = 0;
    int large = 0;
    const char *seen[64];
    int seen_count = 0;
    for (uint32_t i = 0; i < view.entry_count; i++) {
        const kiln_manifest_entry *e = &view.entries[i];
        kiln_ref ra, rb;
        assert_int_equal(kiln_manager_load(mapped, a, e->hash, &ra, &err), KILN_OK);
        assert_int_equal(kiln_manager_load(read, b, e->hash, &rb, &err), KILN_OK);
        const kiln_asset *x = kiln_asset_get(mapped, ra), *y = kiln_asset_get(read, rb);
        assert_non_null(x);
        assert_non_null(y);
        assert_int_equal(x->kind, y->kind);
        assert_string_equal(x->path, y->path);
        assert_int_equal(x->file_bytes, y->file_bytes);
        assert_int_equal(x->bytes, y->bytes);
        size_t on_disk_size, xs, ys;
        uint8_t *on_disk = read_cooked(&p, x->path, &on_disk_size);
        const void *xb = asset_bytes(x, &xs), *yb = asset_bytes(y, &ys);
        assert_int_equal(xs, on_disk_size);
        assert_int_equal(ys, on_disk_size);
        assert_memory_equal(xb, on_disk, on_disk_size);
        assert_memory_equal(yb, on_disk, on_disk_size);
        free(on_disk);
        /* The read manager's bytes are never a file mapping; the mapping
         * manager's are exactly when the file is large. */
        assert_false(mapped_from(yb, x->path));
        assert_int_equal(mapped_from(xb, x->path), on_disk_size >= MAP_MIN);
        if (x->kind == KILN_ASSET_MESH) {
            assert_int_equal(x->mesh.desc->index_count, y->mesh.desc->index_count);
            assert_int_equal(x->mesh.desc->vertex_count, y->mesh.desc->vertex_count);
            assert_int_equal(x->mesh.vertex_bytes, y->mesh.vertex_bytes);
            assert_memory_equal(x->mesh.vertices, y->mesh.vertices, x->mesh.vertex_bytes);
            assert_memory_equal(x->mesh.indices, y->mesh.indices, x->mesh.index_bytes);
        }
        bool counted = false; /* the rows of one material table are one asset */
        for (int s = 0; s < seen_count; s++)
            counted = counted || strcmp(seen[s], x->path) == 0;
        if (!counted) {
            assert_true(seen_count < 64);
            seen[seen_count++] = x->path;
            uint64_t size = file_size(&p, x->path);
            expect_bytes += size;
            if (size >= MAP_MIN) {
                expect_mapped += size;
                large++;
            }
        }
    }
    assert_true(large >= 1); /* big.obj's mesh: the mapped path was taken */
    kiln_manager_stats sa, sb;
    assert_int_equal(kiln_manager_stats_get(mapped, &sa, &err), KILN_OK);
    assert_int_equal(kiln_manager_stats_get(read, &sb, &err), KILN_OK);
    assert_int_equal(sa.mapped_bytes, expect_mapped);
    assert_int_equal(sb.mapped_bytes, 0);
    assert_int_equal(sa.bytes, expect_bytes); /* no texels kept: the files */
    assert_int_equal(sb.bytes, expect_bytes);
    for (uint32_t i = 0; i < sa.scope_count; i++) /* a mapped file counts as a read one */
        if (strcmp(sa.scopes[i].name, "mapped") == 0)
            assert_int_equal(sa.scopes[i].bytes, expect_bytes);
    kiln_file_close(&manifest);
    free(manifest_path);
    kiln_manager_destroy(mapped);
    kiln_manager_destroy(read);
    test_project_free(&p);
}

static const kiln_asset *load_big(kiln_manager *m, kiln_scope *scope, kiln_ref *ref) {
    kiln_error err;
    assert_int_equal(kiln_scope_create(m, "level", 0, scope, &err), KILN_OK);
    assert_int_equal(kiln_manager_load_ref(m, *scope, "props/big", ref, &err), KILN_OK);
    const kiln_asset *a = kiln_asset_get(m, *ref);
    assert_non_null(a);
    assert_int_equal(a->kind, KILN_ASSET_MESH);
    return a;
}

/* The cooker replaces big's mesh (a rename) while it is mapped: the asset
 * keeps the old bytes until kiln_manager_reload maps the new file; the old
 * data stays readable until the second pump, then its mapping goes. */
static void renamed_file_keeps_old_bytes_until_reload(void **state) {
    (void)state;
    project p = make_project("files_rename", 12000);
    kiln_manager *m = make(p.out, KILN_MANAGER_MAP_FILES);
    kiln_scope scope;
    kiln_ref ref;
    const kiln_asset *old = load_big(m, &scope, &ref);
    size_t old_size;
    uint8_t *old_bytes = read_cooked(&p, old->path, &old_size);
    assert_true(old_size >= MAP_MIN);
    assert_true(mapped_from(old->file.data, old->path));
    uint32_t old_indices = old->mesh.desc->index_count; /* every LOD's */
    assert_true(old_indices >= 3 * 12000);

    write_fan(&p, 15000, 2.0f); /* recooked: a new file renamed over the old one */
    cook(&p);
    size_t new_size;
    uint8_t *new_bytes = read_cooked(&p, old->path, &new_size);
    assert_true(new_size != old_size || memcmp(new_bytes, old_bytes, new_size) != 0);
    /* Still the old file's bytes, through the same ref. */
    assert_ptr_equal(kiln_asset_get(m, ref), old);
    assert_int_equal(old->file.size, old_size);
    assert_memory_equal(old->file.data, old_bytes, old_size);

    kiln_error err;
    assert_int_equal(kiln_manager_reload(m, kiln_ref_hash("props/big"), &err), KILN_OK);
    const kiln_asset *now = kiln_asset_get(m, ref);
    assert_non_null(now);
    assert_ptr_not_equal(now, old);
    assert_true(now->mesh.desc->index_count >= 3 * 15000); /* 15000 triangles, not 12000 */
    assert_true(now->mesh.desc->index_count > old_indices);
    assert_int_equal(now->file.size, new_size);
    assert_memory_equal(now->file.data, new_bytes, new_size);
    assert_true(mapped_from(now->file.data, now->path));
    /* The replaced data is readable until the second pump after the reload. */
    const void *old_data = old->file.data;
    kiln_manager_pump(m);
    assert_memory_equal(old->file.data, old_bytes, old_size);
    assert_int_equal(old->mesh.desc->index_count, old_indices);
    kiln_manager_stats stats;
    assert_int_equal(kiln_manager_stats_get(m, &stats, &err), KILN_OK);
    assert_int_equal(stats.retired, 1);
    kiln_manager_pump(m);
    assert_int_equal(kiln_manager_stats_get(m, &stats, &err), KILN_OK);
    assert_int_equal(stats.retired, 0);
    assert_false(mapped_from(old_data, now->path)); /* unmapped */
    assert_int_equal(stats.mapped_bytes, new_size);

    /* Unloading unmaps the current file too. */
    const void *now_data = now->file.data;
    char path[256];
    snprintf(path, sizeof path, "%s", now->path);
    assert_int_equal(kiln_scope_destroy(m, scope, &err), KILN_OK);
    assert_false(mapped_from(now_data, path));
    assert_int_equal(kiln_manager_stats_get(m, &stats, &err), KILN_OK);
    assert_int_equal(stats.mapped_bytes, 0);
    free(old_bytes);
    free(new_bytes);
    kiln_manager_destroy(m);
    test_project_free(&p);
}

/* Without KILN_MANAGER_MAP_FILES the asset is a copy, so even a file rewritten in
 * place (which a mapping would see, or fault on once truncated) leaves it. */
static void read_files_copy_survives_rewrite_in_place(void **state) {
    (void)state;
    project p = make_project("files_read", 12000);
    kiln_manager *m = make(p.out, 0);
    kiln_scope scope;
    kiln_ref ref;
    const kiln_asset *a = load_big(m, &scope, &ref);
    size_t size;
    uint8_t *bytes = read_cooked(&p, a->path, &size);
    assert_true(size >= MAP_MIN);
    assert_false(mapped_from(a->file.data, a->path));
    uint32_t indices = a->mesh.desc->index_count;
    assert_true(indices >= 3 * 12000);
    char *full = test_path_join(p.out, a->path);
    FILE *f = fopen(full, "r+");
    assert_non_null(f);
    assert_int_equal(ftruncate(fileno(f), 100), 0); /* in place: same inode */
    fclose(f);
    assert_memory_equal(a->file.data, bytes, size);
    assert_int_equal(a->mesh.desc->index_count, indices);
    kiln_manager_stats stats;
    kiln_error err;
    assert_int_equal(kiln_manager_stats_get(m, &stats, &err), KILN_OK);
    assert_int_equal(stats.mapped_bytes, 0);
    free(full);
    free(bytes);
    kiln_manager_destroy(m);
    test_project_free(&p);
}

static void unknown_flags_are_refused(void **state) {
    (void)state;
    kiln_manager_desc desc = {0};
    desc.flags = KILN_MANAGER_MAP_FILES | 0x4u;
    kiln_manager *m = NULL;
    kiln_error err;
    assert_int_equal(kiln_manager_create(&desc, &m, &err), KILN_ERR_INVALID_ARGUMENT);
    assert_null(m);
    desc.flags = KILN_MANAGER_MAP_FILES | KILN_MANAGER_KEEP_TEXELS;
    assert_int_equal(kiln_manager_create(&desc, &m, &err), KILN_OK);
    kiln_manager_destroy(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(mapped_and_read_loads_are_identical),
        cmocka_unit_test(renamed_file_keeps_old_bytes_until_reload),
        cmocka_unit_test(read_files_copy_survives_rewrite_in_place),
        cmocka_unit_test(unknown_flags_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
