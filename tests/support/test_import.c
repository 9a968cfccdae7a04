/* test_import.c — see test_import.h. */
#include "test_import.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void test_import_bytes(test_import *r, cook_import_fn importer, const char *root,
                       const char *source_path, const void *bytes, size_t size) {
    memset(r, 0, sizeof *r);
    cook_settings_default(&r->settings);
    uint8_t *copy = malloc(size + 1); /* the importer contract: NUL-terminated */
    assert_non_null(copy);
    if (size > 0)
        memcpy(copy, bytes, size);
    copy[size] = '\0';
    cook_context ctx = {
        .input_root = root,
        .source_path = source_path,
        .ref = "test",
        .source = copy,
        .source_size = size,
        .settings = &r->settings,
        .diag = &r->diag,
    };
    r->ok = importer(&ctx, &r->asset);
    r->dependencies = ctx.dependencies;
    r->absent = ctx.absent;
    strlist_free(&ctx.references);
    free(copy);
}

void test_import_file(test_import *r, cook_import_fn importer, const char *root,
                      const char *source_path) {
    char *path = test_path_join(root, source_path);
    size_t size;
    uint8_t *bytes = test_read_file(path, &size);
    test_import_bytes(r, importer, root, source_path, bytes, size);
    free(bytes);
    free(path);
}

void test_import_free(test_import *r) {
    ir_asset_free(&r->asset);
    diag_free(&r->diag);
    strlist_free(&r->dependencies);
    strlist_free(&r->absent);
}

const char *test_import_messages(const test_import *r) {
    return r->diag.text.data ? (const char *)r->diag.text.data : "";
}

void test_import_expect_ok(const test_import *r) {
    if (!r->ok || r->diag.errors != 0)
        fail_msg("import failed:\n%s", test_import_messages(r));
}

static void check_mesh(const ir_asset *asset, const ir_mesh *mesh) {
    assert_true(mesh->vertex_count > 0);
    assert_non_null(mesh->positions);
    for (uint32_t i = 0; i < mesh->index_count; i++)
        assert_true(mesh->indices[i] < mesh->vertex_count);
    for (size_t i = 0; i < 3 * (size_t)mesh->vertex_count; i++)
        assert_true(isfinite(mesh->positions[i]));
    for (size_t v = 0; mesh->normals != NULL && v < mesh->vertex_count; v++) {
        const float *n = mesh->normals + 3 * v;
        assert_true(fabs(sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]) - 1.0) < 1e-4);
    }
    for (size_t v = 0; mesh->weights != NULL && v < mesh->vertex_count; v++) {
        const float *w = mesh->weights + 4 * v;
        const float *w1 = mesh->weights1 != NULL ? mesh->weights1 + 4 * v : NULL;
        double sum = w[0] + w[1] + w[2] + w[3] + (w1 ? w1[0] + w1[1] + w1[2] + w1[3] : 0.0);
        assert_true(fabs(sum - 1.0) < 1e-4);
    }
    assert_true((mesh->joints == NULL) == (mesh->weights == NULL));
    assert_true((mesh->joints1 == NULL) == (mesh->weights1 == NULL));
    assert_true(mesh->joints1 == NULL || mesh->joints != NULL);
    uint32_t offset = 0;
    for (uint32_t s = 0; s < mesh->submesh_count; s++) {
        assert_int_equal(mesh->submeshes[s].index_offset, offset);
        assert_true(mesh->submeshes[s].index_count > 0);
        uint32_t size = kiln_topology_index_count(mesh->submeshes[s].topology);
        assert_true(size > 0);
        assert_int_equal(mesh->submeshes[s].index_count % size, 0);
        assert_true(mesh->submeshes[s].material < asset->material_count);
        offset += mesh->submeshes[s].index_count;
    }
    assert_int_equal(offset, mesh->index_count);
}

void test_check_asset(const ir_asset *asset) {
    for (uint32_t m = 0; m < asset->mesh_count; m++)
        check_mesh(asset, &asset->meshes[m]);
    for (uint32_t i = 0; i < asset->material_count; i++)
        assert_non_null(asset->materials[i].name);
    for (uint32_t i = 0; i < asset->node_count; i++) {
        assert_true(asset->nodes[i].parent < (int32_t)i); /* parents first */
        assert_true(asset->nodes[i].mesh < (int32_t)asset->mesh_count);
        assert_true(asset->nodes[i].skin < (int32_t)asset->skin_count);
        assert_true(asset->nodes[i].source >= -1);
        for (uint32_t j = 0; j < i; j++) /* source indices are distinct */
            assert_true(asset->nodes[i].source < 0 ||
                        asset->nodes[j].source != asset->nodes[i].source);
    }
    assert_true(asset->scene_count == 0 || asset->default_scene < asset->scene_count);
    for (uint32_t s = 0; s < asset->scene_count; s++)
        for (uint32_t r = 0; r < asset->scenes[s].root_count; r++) {
            uint32_t root = asset->scenes[s].roots[r];
            assert_true(root < asset->node_count && asset->nodes[root].parent < 0);
        }
    for (uint32_t s = 0; s < asset->skin_count; s++) { /* joints: distinct nodes */
        const ir_skin *skin = &asset->skins[s];
        assert_true(skin->joint_count > 0);
        assert_true(skin->skeleton >= -1 && skin->skeleton < (int32_t)asset->node_count);
        for (uint32_t j = 0; j < skin->joint_count; j++) {
            assert_true(skin->joints[j] < asset->node_count);
            for (uint32_t k = 0; k < j; k++)
                assert_true(skin->joints[k] != skin->joints[j]);
        }
        for (size_t e = 0; e < 16 * (size_t)skin->joint_count; e++)
            assert_true(isfinite(skin->inverse_bind[e]));
    }
}

/* Cuts `line` at tabs into up to `max` fields; returns how many. */
static int split_tabs(char *line, char **fields, int max) {
    int n = 0;
    for (char *cursor = line; cursor != NULL && n < max; n++) {
        fields[n] = cursor;
        cursor = strchr(cursor, '\t');
        if (cursor != NULL)
            *cursor++ = '\0';
    }
    return n;
}

char *test_corpus_index(test_corpus_row **rows, size_t *count) {
    char *index_path = test_path_join(test_corpus_dir(), "index.tsv");
    size_t size;
    char *text = (char *)test_read_file(index_path, &size);
    free(index_path);
    size_t lines = 1;
    for (size_t i = 0; i < size; i++)
        lines += text[i] == '\n';
    *rows = calloc(lines, sizeof **rows);
    assert_non_null(*rows);
    *count = 0;
    bool header = true;
    for (char *line = text, *next; line != NULL && *line != '\0'; line = next) {
        next = strchr(line, '\n');
        if (next != NULL)
            *next++ = '\0';
        char *fields[5] = {0}; /* path, format, category, expect, notes */
        if (split_tabs(line, fields, 5) < 4 || header) {
            header = false;
            continue;
        }
        (*rows)[(*count)++] = (test_corpus_row){fields[0], fields[1], fields[2], fields[3]};
    }
    return text;
}

char *test_json_text(const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    va_list copy;
    va_copy(copy, args);
    int length = vsnprintf(NULL, 0, fmt, copy);
    va_end(copy);
    assert_true(length >= 0);
    char *text = malloc((size_t)length + 1);
    assert_non_null(text);
    vsnprintf(text, (size_t)length + 1, fmt, args);
    va_end(args);
    for (char *p = text; *p; p++)
        if (*p == '\'')
            *p = '"';
    return text;
}

void test_import_gltf_json(test_import *r, const char *dir, const char *json) {
    test_write_in(dir, "model.gltf", json, strlen(json));
    test_import_bytes(r, import_gltf, dir, "model.gltf", json, strlen(json));
}

void test_expect_message(const test_import *r, const char *kind, const char *words) {
    const char *text = test_import_messages(r);
    for (const char *line = text; *line != '\0';) {
        const char *end = strchr(line, '\n');
        size_t length = end ? (size_t)(end - line) : strlen(line);
        char buffer[2048];
        snprintf(buffer, sizeof buffer, "%.*s", (int)length, line);
        if (strstr(buffer, kind) != NULL && strstr(buffer, words) != NULL)
            return;
        line += length + (end != NULL);
    }
    fail_msg("no line holds \"%s\" and \"%s\":\n%s", kind, words, text);
}

void test_node_set_trs(ir_node *node, float tx, float ty, float tz, float angle, float scale) {
    node->translation[0] = tx;
    node->translation[1] = ty;
    node->translation[2] = tz;
    node->rotation[0] = 0.0f;
    node->rotation[1] = 0.0f;
    node->rotation[2] = sinf(angle / 2);
    node->rotation[3] = cosf(angle / 2);
    for (int k = 0; k < 3; k++)
        node->scale[k] = scale;
}

kiln_result test_scene_hold(test_held_scene *held, const void *bytes, size_t size, uint32_t flags,
                            kiln_error *err) {
    memset(held, 0, sizeof *held);
    assert_int_equal(posix_memalign(&held->block, 16, size ? size : 16), 0);
    memcpy(held->block, bytes, size);
    kiln_result r = kiln_file_from_memory(&held->file, held->block, size, "t.kscene", flags, err);
    if (r != KILN_OK)
        return r;
    return kiln_scene_view_get(&held->file, flags & KILN_OPEN_DEEP, &held->view, err);
}

void test_scene_release(test_held_scene *held) {
    kiln_file_close(&held->file);
    free(held->block);
}

void test_expect_depth_first(const kiln_scene_view *view) {
    uint32_t n = view->node_count, deepest = 0;
    const kiln_scene_hierarchy *h = view->hierarchy;
    uint32_t *descendants = calloc(n ? n : 1, sizeof *descendants);
    int32_t *last_child = malloc((n ? n : 1) * sizeof *last_child);
    assert_non_null(descendants);
    assert_non_null(last_child);
    int32_t last_root = -1;
    for (uint32_t j = 0; j < n; j++) {
        last_child[j] = -1;
        uint32_t depth = 0;
        for (int32_t a = h[j].parent; a >= 0; a = h[a].parent) {
            if ((uint32_t)a >= j || ++depth > n)
                fail_msg("node %u: ancestor %d is not an earlier node", j, a);
            if (j >= h[a].subtree_end)
                fail_msg("node %u lies outside the subtree of its ancestor %d (to %u)", j, a,
                         h[a].subtree_end);
            descendants[a]++;
        }
        if (h[j].depth != depth)
            fail_msg("node %u has depth %u, its ancestors say %u", j, h[j].depth, depth);
        deepest = depth > deepest ? depth : deepest;
        /* The children of a node in index order, chained by next_sibling. */
        int32_t p = h[j].parent, *previous = p >= 0 ? &last_child[p] : &last_root;
        if (*previous < 0 && p >= 0 && h[p].first_child != (int32_t)j)
            fail_msg("node %d has first child %d, not %u", p, h[p].first_child, j);
        if (*previous >= 0 && p >= 0 && h[*previous].next_sibling != (int32_t)j)
            fail_msg("node %d has next sibling %d, not %u", *previous, h[*previous].next_sibling,
                     j);
        *previous = (int32_t)j;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (h[i].subtree_end - 1 - i != descendants[i])
            fail_msg("node %u: subtree_end %u, but %u descendants", i, h[i].subtree_end,
                     descendants[i]);
        if (h[i].parent < 0 ? h[i].next_sibling != -1
                            : last_child[h[i].parent] == (int32_t)i && h[i].next_sibling != -1)
            fail_msg("node %u is a root or a last child with next sibling %d", i,
                     h[i].next_sibling);
        if (descendants[i] == 0 && h[i].first_child != -1)
            fail_msg("leaf %u has first child %d", i, h[i].first_child);
    }
    assert_int_equal(view->level_count, n > 0 ? deepest + 1 : 0);
    free(descendants);
    free(last_child);
}
