/*
 * report_data.c — the build report's rows (report.h): one per ref of the
 * output folder's manifest, with the source that cooked it (the build
 * cache's records list the refs each source produced), its file and size,
 * and the refs it names (a scene's meshes, materials and placed scenes; a
 * material's textures) and that name it.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/report.h"

static int compare_rows(const void *a, const void *b) {
    return strcmp(((const report_row *)a)->ref, ((const report_row *)b)->ref);
}

/* The row of a ref hash (rows are still in the manifest's hash order). */
static report_row *row_of_hash(report *r, uint64_t hash) {
    const kiln_manifest_entry *entry = kiln_manifest_find(&r->manifest, hash);
    return entry != NULL ? &r->rows[entry - r->manifest.entries] : NULL;
}

/* `from` names `hash`: both lists get it once; a hash the manifest does not
 * know is listed as missing. */
static void add_reference(report *r, report_row *from, uint64_t hash) {
    if (hash == 0)
        return;
    report_row *to = row_of_hash(r, hash);
    if (to == NULL) {
        char missing[64];
        snprintf(missing, sizeof missing, "missing %016llx", (unsigned long long)hash);
        if (!strlist_contains(&from->references, missing))
            strlist_push(&from->references, missing);
        return;
    }
    if (to == from || strlist_contains(&from->references, to->ref))
        return;
    strlist_push(&from->references, to->ref);
    strlist_push(&to->referenced_by, from->ref);
}

/* What a cooked scene or material names, read through libkiln's views (a
 * file that does not read adds nothing: `kiln check` names its problem). */
static void add_file_references(report *r, report_row *row) {
    if (row->kind != KILN_ASSET_SCENE && row->kind != KILN_ASSET_MATERIAL)
        return;
    char *full = cook_path_join(r->output, row->path);
    kiln_file file;
    kiln_error error;
    if (full == NULL || kiln_file_map_expanded(&file, full, 0, &error) != KILN_OK) {
        free(full);
        return;
    }
    free(full);
    if (row->kind == KILN_ASSET_SCENE) {
        kiln_scene_view scene;
        if (kiln_scene_view_get(&file, 0, &scene, &error) == KILN_OK) {
            for (uint32_t i = 0; i < scene.desc->mesh_count; i++)
                add_reference(r, row, scene.meshes[i]);
            for (uint32_t i = 0; i < scene.desc->material_count; i++)
                add_reference(r, row, scene.materials[i]);
            for (uint32_t node = 0; node < scene.node_count; node++)
                add_reference(r, row, kiln_scene_node_link(&scene, node, NULL));
        }
    } else {
        kiln_material_view materials;
        const kiln_material *material = NULL;
        if (kiln_material_view_get(&file, 0, &materials, &error) == KILN_OK)
            material = kiln_material_row(&materials, row->index);
        for (int slot = 0; material != NULL && slot < KILN_MATERIAL_SLOT_COUNT; slot++)
            add_reference(r, row, material->textures[slot].texture);
    }
    kiln_file_close(&file);
}

/* The source whose cache record produced each ref. */
static void attach_sources(report *r) {
    for (size_t i = 0; r->has_cache && i < r->cache.count; i++) {
        const cache_record *record = &r->cache.records[i];
        for (size_t m = 0; m < record->manifest.count; m++) {
            report_row *row = row_of_hash(r, record->manifest.items[m].hash);
            if (row != NULL && row->record == NULL) {
                row->record = record;
                row->source = record->source;
                row->changed = record->cooked_in > 0 && record->cooked_in == r->cache.build;
            }
        }
    }
}

static bool open_manifest(report *r, char *reason, size_t reason_size) {
    char *path = cook_path_join(r->output, KILN_MANIFEST_FILE_NAME);
    kiln_error error;
    bool ok = path != NULL && kiln_file_map_expanded(&r->manifest_file, path, 0, &error) == KILN_OK;
    if (ok && kiln_manifest_view_get(&r->manifest_file, &r->manifest, &error) != KILN_OK) {
        kiln_file_close(&r->manifest_file);
        ok = false;
    }
    if (!ok)
        snprintf(reason, reason_size, "%s", path == NULL ? "out of memory" : error.message);
    free(path);
    return ok;
}

bool report_load(report *r, const char *output, char *reason, size_t reason_size) {
    memset(r, 0, sizeof *r);
    r->output = output;
    if (!open_manifest(r, reason, reason_size))
        return false;
    char *cache_path = NULL;
    char note[256];
    r->has_cache =
        cache_read_folder(output, &r->cache, &cache_path, note, sizeof note) == CACHE_READ_OK;
    free(cache_path);
    if (!r->has_cache)
        fprintf(stderr, "%s: warning: no build cache (%s): sources, warnings and times unknown\n",
                cook_escaped(output), cook_escaped(note));
    r->row_count = r->manifest.entry_count;
    r->rows = calloc(r->row_count > 0 ? r->row_count : 1, sizeof *r->rows);
    if (r->rows == NULL) {
        snprintf(reason, reason_size, "out of memory");
        report_free(r);
        return false;
    }
    for (size_t i = 0; i < r->row_count; i++) {
        const kiln_manifest_entry *entry = &r->manifest.entries[i];
        report_row *row = &r->rows[i];
        row->ref = kiln_manifest_ref(&r->manifest, entry);
        row->path = kiln_manifest_path(&r->manifest, entry);
        row->kind = (kiln_asset_kind)entry->kind;
        row->index = entry->index;
        char *full = cook_path_join(output, row->path);
        struct stat info;
        row->bytes = full != NULL && stat(full, &info) == 0 ? (uint64_t)info.st_size : UINT64_MAX;
        free(full);
    }
    attach_sources(r);
    for (size_t i = 0; i < r->row_count; i++)
        add_file_references(r, &r->rows[i]);
    qsort(r->rows, r->row_count, sizeof *r->rows, compare_rows);
    for (size_t i = 0; i < r->row_count; i++) {
        strlist_sort(&r->rows[i].references);
        strlist_sort(&r->rows[i].referenced_by);
    }
    return true;
}

void report_free(report *r) {
    for (size_t i = 0; r->rows != NULL && i < r->row_count; i++) {
        strlist_free(&r->rows[i].references);
        strlist_free(&r->rows[i].referenced_by);
        free(r->rows[i].thumbnail);
        free(r->rows[i].thumbnail_note);
    }
    free(r->rows);
    if (r->has_cache)
        cache_free(&r->cache);
    kiln_file_close(&r->manifest_file);
    memset(r, 0, sizeof *r);
}
