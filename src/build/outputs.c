/*
 * outputs.c — what a build leaves in the output folder besides the cooked
 * files: the cache, the manifest, the pack; and what it removes: outputs no
 * asset owns any more, and the temporaries of a build that was killed.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build/internal.h"
#include "common/path.h"

char *build_pack_path(const char *output) {
    size_t length = strlen(output);
    while (length > 1 && output[length - 1] == '/')
        length--;
    char *path = malloc(length + 6);
    if (path != NULL) {
        memcpy(path, output, length);
        strcpy(path + length, ".kpak");
    }
    return path;
}

bool build_require_folder(const build_options *options, const char *path, const char *role) {
    struct stat info;
    if (stat(path, &info) != 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            build_error(options, "%s folder '%s' does not exist", role, path);
        else
            build_error(options, "%s folder '%s': %s", role, path, strerror(errno));
        return false;
    }
    if (!S_ISDIR(info.st_mode)) {
        build_error(options, "%s '%s' is not a folder", role, path);
        return false;
    }
    return true;
}

bool build_list_output(const build_options *options, const char *output, strlist *files) {
    if (!build_require_folder(options, output, "output"))
        return false;
    char reason[512];
    if (!discover_walk(output, NULL, files, reason, sizeof reason)) {
        build_error(options, "cannot list the output folder: %s", reason);
        return false;
    }
    return true;
}

/* ---------------------------------------------------------------------------
 * Leftovers of a killed build
 * ------------------------------------------------------------------------- */

/* The type of a folder entry: DT_REG, DT_DIR, ..., from lstat when the file
 * system does not say. */
static unsigned char entry_type(const char *folder, const struct dirent *entry) {
    if (entry->d_type != DT_UNKNOWN)
        return entry->d_type;
    char *full = cook_path_join(folder, entry->d_name);
    struct stat info;
    unsigned char type = DT_UNKNOWN;
    if (full != NULL && lstat(full, &info) == 0)
        type = S_ISDIR(info.st_mode) ? DT_DIR : S_ISREG(info.st_mode) ? DT_REG : DT_UNKNOWN;
    free(full);
    return type;
}

/* Deletes the temporaries in `folder` (and below, when `files` is given)
 * whose name starts with `prefix` (none when it is NULL), and lists its other
 * visible regular files into `files` as paths below `relative`. Kiln never writes a hidden folder,
 * so none is entered. One readdir per folder and no stat where the file
 * system gives entry types: this is all a no-op build learns of its outputs. */
static bool scan_folder(const char *folder, const char *relative, const char *prefix,
                        strlist *files) {
    DIR *dir = opendir(folder);
    if (dir == NULL)
        return true; /* no output folder yet */
    bool ok = true;
    struct dirent *entry;
    while (ok && (entry = readdir(dir)) != NULL) {
        const char *name = entry->d_name;
        if (name[0] == '.') {
            char *full = prefix != NULL && write_is_temporary_name(name) &&
                                 strncmp(name, prefix, strlen(prefix)) == 0
                             ? cook_path_join(folder, name)
                             : NULL;
            if (full != NULL)
                unlink(full);
            free(full);
            continue;
        }
        unsigned char type = files ? entry_type(folder, entry) : DT_UNKNOWN;
        char *path = type == DT_REG || type == DT_DIR ? cook_path_join(relative, name) : NULL;
        char *full = path && type == DT_DIR ? cook_path_join(folder, name) : NULL;
        if (type == DT_REG)
            ok = path != NULL && strlist_push(files, path);
        else if (type == DT_DIR)
            ok = full != NULL && scan_folder(full, path, prefix, files);
        free(full);
        free(path);
    }
    closedir(dir);
    return ok;
}

/* write_file_atomic renames its temporary over the real name, so a build
 * killed mid-write leaves only a hidden ".<name>.kiln-XXXXXX" behind: never a
 * torn output, but litter that must not pile up. */
bool build_scan_output(const build_setup *setup, bool remove_temporaries, strlist *files) {
    bool ok = scan_folder(setup->output, "", remove_temporaries ? "." : NULL, files);
    strlist_sort(files);
    if (!remove_temporaries)
        return ok;
    /* The pack's temporary lies next to the output folder: ".<name>.kpak.…". */
    char *pack = build_pack_path(setup->output);
    char *slash = pack ? strrchr(pack, '/') : NULL;
    const char *name = slash ? slash + 1 : pack;
    char *prefix = pack ? malloc(strlen(name) + 3) : NULL;
    if (prefix != NULL) {
        sprintf(prefix, ".%s.", name);
        if (slash != NULL)
            *slash = '\0';
        scan_folder(slash == NULL ? "." : slash == pack ? "/" : pack, "", prefix, NULL);
    }
    free(prefix);
    free(pack);
    return ok && prefix != NULL;
}

/* ---------------------------------------------------------------------------
 * Cache file
 * ------------------------------------------------------------------------- */

/* Reads <output>/.kiln-cache. A missing file is an empty cache; a corrupt or
 * foreign one is a warning and an empty cache: it is never trusted. */
/* A cache this kiln cannot read (an older format, or damaged) still leaves
 * the previous build's manifest: its files become one record's outputs, no
 * source's, so the stale ones among them are removed like any stale output
 * (an upgrade that renames outputs leaves none behind). */
static void outputs_from_manifest(const build_setup *setup, kiln_cache *cache) {
    char *path = cook_path_join(setup->output, KILN_MANIFEST_FILE_NAME);
    kiln_file file = {0};
    kiln_manifest_view view;
    kiln_error err;
    cache_record record = {0};
    bool ok = path != NULL && kiln_file_map(&file, path, 0, &err) == KILN_OK &&
              kiln_manifest_view_get(&file, &view, &err) == KILN_OK &&
              (record.source = cook_strdup("")) != NULL;
    /* A material table is named once per row: repeats are harmless here. */
    for (uint32_t i = 0; ok && i < view.entry_count; i++)
        ok = strlist_push(&record.outputs, kiln_manifest_path(&view, &view.entries[i]));
    cache->records = ok ? malloc(sizeof *cache->records) : NULL;
    if (cache->records != NULL) {
        cache->records[0] = record;
        cache->count = cache->cap = 1;
    } else {
        cache_record_free(&record);
    }
    kiln_file_close(&file);
    free(path);
}

void build_load_cache(const build_options *options, const build_setup *setup, kiln_cache *cache) {
    char *path = NULL;
    char reason[256];
    if (cache_read_folder(setup->output, cache, &path, reason, sizeof reason) == CACHE_READ_BAD) {
        if (options->verbosity != PROGRESS_QUIET)
            build_say(options, BUILD_STREAM_ERR,
                      "%s: warning: ignoring the build cache (%s); every asset is cooked",
                      path ? path : CACHE_FILE_NAME, reason);
        cache_free(cache);
        outputs_from_manifest(setup, cache);
    }
    free(path);
}

void build_load_cache_and_journal(const build_options *options, const build_setup *setup,
                                  kiln_cache *cache) {
    build_load_cache(options, setup, cache);
    /* What a killed build finished (journal.c). */
    size_t resumed = build_journal_merge(setup, cache);
    if (resumed > 0 && options->verbosity == PROGRESS_VERBOSE)
        build_say(options, BUILD_STREAM_OUT,
                  "kiln: resuming an interrupted build: %zu asset%s it finished kept", resumed,
                  build_plural(resumed));
}

static int compare_output_path(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Removes a file the previous build made and this one did not, then the
 * folders it leaves empty (rmdir fails harmlessly on a non-empty one). */
static void remove_stale_output(const build_setup *setup, const char *relative,
                                const build_options *options) {
    /* The names come from files in the output folder (the cache, or the old
     * manifest): one that leaves the folder is never followed. */
    if (!path_is_plain_relative(relative))
        return;
    char *full = cook_path_join(setup->output, relative);
    if (full == NULL)
        return;
    if (unlink(full) == 0 && options->verbosity == PROGRESS_VERBOSE)
        build_say(options, BUILD_STREAM_OUT, "removed %s", relative);
    for (char *slash = strrchr(full, '/'); slash != NULL; slash = strrchr(full, '/')) {
        *slash = '\0';
        if (strlen(full) <= strlen(setup->output) || rmdir(full) != 0)
            break;
    }
    free(full);
}

/* True when the new cache is the old one: every old record carried over as
 * it is (a no-op build). Then there is nothing to delete or to write. */
static bool cache_unchanged(const build_run *run) {
    if (run->old_cache->encoder_version != run->setup->encoder_version ||
        run->old_cache->from_journal) /* the journal's records are not in the file yet */
        return false;
    size_t kept = 0;
    for (size_t i = 0; i < run->plan->sources.count; i++) {
        if (run->slots[i].has_record)
            return false;
        kept += run->slots[i].kept != NULL;
    }
    return kept > 0 && kept == run->old_cache->count;
}

/* Every output of the previous build that no asset of this build produced or
 * still owns (a failed asset keeps its old files) is deleted: sources that
 * disappeared, models that now write fewer textures, files now cooked
 * through a model. */
void build_remove_stale_outputs(const build_run *run) {
    const kiln_cache *old = run->old_cache;
    if (cache_unchanged(run))
        return; /* every old record, and so every old output, is kept */
    size_t total = 0;
    for (size_t i = 0; i < run->plan->sources.count; i++) {
        const cache_record *record = slot_record(&run->slots[i]);
        total += record ? record->outputs.count : 0;
    }
    const char **kept = malloc((total ? total : 1) * sizeof *kept);
    if (kept == NULL)
        return; /* leaving stale files is safe, deleting wrong ones is not */
    size_t at = 0;
    for (size_t i = 0; i < run->plan->sources.count; i++) {
        const cache_record *record = slot_record(&run->slots[i]);
        for (size_t o = 0; record != NULL && o < record->outputs.count; o++)
            kept[at++] = record->outputs.items[o];
    }
    qsort(kept, at, sizeof *kept, compare_output_path);
    for (size_t r = 0; r < old->count; r++) {
        for (size_t o = 0; o < old->records[r].outputs.count; o++) {
            const char *path = old->records[r].outputs.items[o];
            if (bsearch(&path, kept, at, sizeof *kept, compare_output_path) == NULL)
                remove_stale_output(run->setup, path, run->options);
        }
    }
    free(kept);
}

/* A failed asset keeps its previous record: its old files stay owned (and
 * are removed if its source goes away), and its next build cooks it again
 * because the key no longer matches. */
void build_keep_failed_records(build_run *run) {
    for (size_t i = 0; i < run->plan->sources.count; i++) {
        asset_slot *slot = &run->slots[i];
        if (slot->status != ASSET_FAILED)
            continue;
        slot->kept = cache_find(run->old_cache, run->plan->sources.items[i]);
    }
}

/* Hands the new cache's records, in source order, to the stores; they make
 * them last as it closes them. */
void build_save_cache(const build_run *run, build_cache_store *stores, size_t store_count) {
    bool changed = !cache_unchanged(run);
    bool saved = true;
    for (size_t s = 0; s < store_count; s++) {
        build_cache_store *store = &stores[s];
        char reason[512] = "out of memory";
        /* A store that could not be opened or told every record keeps what
         * it had: a partial cache would be taken as the whole one. */
        bool told = store->close != NULL;
        for (size_t i = 0; told && changed && i < run->plan->sources.count; i++) {
            const cache_record *record = slot_record(&run->slots[i]);
            told = record == NULL || store->store(store->state, record);
        }
        bool closed = store->close != NULL &&
                      store->close(store->state, changed && told, reason, sizeof reason);
        if (!told || !closed) {
            saved = false;
            char *path = cook_path_join(run->setup->output, CACHE_FILE_NAME);
            build_say(run->options, BUILD_STREAM_ERR,
                      "%s: warning: cannot write the build cache (%s store): %s",
                      path ? path : CACHE_FILE_NAME, store->name ? store->name : "local", reason);
            free(path);
        }
        *store = (build_cache_store){0};
    }
    if (saved) /* the cache holds all of it now (or, unchanged, nothing was cooked) */
        build_journal_remove(run->setup);
}

/* ---------------------------------------------------------------------------
 * Pack
 * ------------------------------------------------------------------------- */

static bool is_pack_file(const char *path) {
    size_t length = strlen(path);
    return length >= 5 && strcmp(path + length - 5, ".kpak") == 0;
}

/* Bundles the output tree into <output>.kpak next to it. The walk skips
 * hidden files (the cache, temporaries); older packs are left out too. */
bool build_write_pack(const build_run *run, build_totals *totals) {
    const build_setup *setup = run->setup;
    strlist all = {0}, files = {0};
    if (!build_list_output(run->options, setup->output, &all))
        return false;
    bool ok = true;
    for (size_t i = 0; ok && i < all.count; i++) {
        if (!is_pack_file(all.items[i]))
            ok = strlist_push(&files, all.items[i]);
    }
    char *path = build_pack_path(setup->output);
    bytebuf bytes = {0};
    char reason[512] = "out of memory";
    if (ok && path != NULL) {
        ok = write_pack(setup->output, &files, &bytes, reason, sizeof reason) &&
             write_file_if_changed(path, bytes.data, bytes.size, reason, sizeof reason);
    } else {
        ok = false;
    }
    if (ok) {
        totals->output_files++;
        totals->output_bytes += bytes.size;
        build_add_kind_bytes(totals, path, bytes.size);
    } else {
        build_say(run->options, BUILD_STREAM_ERR, "%s: error: cannot write the pack: %s",
                  path ? path : ".kpak", reason);
    }
    free(path);
    bytebuf_free(&bytes);
    strlist_free(&files);
    strlist_free(&all);
    return ok;
}

/* The manifest entries source `index` contributes: its result's, except
 * that an asset that failed contributes those of its previous cook, whose
 * files are still in place (its new ones were never published: a failed
 * asset keeps its previous complete set, write/emit.c), or none. */
static const cook_manifest_list *manifest_entries(const build_run *run, size_t index) {
    static const cook_manifest_list none = {0};
    const asset_slot *slot = &run->slots[index];
    if (slot->status != ASSET_FAILED)
        return &run->results[index].manifest;
    return slot->kept != NULL ? &slot->kept->manifest : &none;
}

/* Gives the `count` entries source `index` made its stable ID, and marks
 * its main one, which the ID resolves to: the source's own ref (a texture, a
 * shader, a model of one mesh), else <ref>/scene (a model of several meshes,
 * a level), else its first entry. */
static void mark_asset_ids(const build_plan *plan, size_t index, cook_manifest_entry *entries,
                           size_t count) {
    char ref[1024];
    if (count == 0 || cook_asset_ref(plan->importers[index], plan->sources.items[index], ref,
                                     sizeof ref - sizeof "/scene") != KILN_OK)
        return;
    size_t main = 0, length = strlen(ref);
    bool found = false;
    for (size_t pass = 0; pass < 2 && !found; pass++) {
        if (pass == 1)
            memcpy(ref + length, "/scene", sizeof "/scene");
        for (size_t i = 0; i < count && !found; i++)
            if (strcmp(entries[i].ref, ref) == 0) {
                main = i;
                found = true;
            }
    }
    for (size_t i = 0; i < count; i++) {
        entries[i].asset_id = plan->ids[index];
        entries[i].main = i == main;
    }
}

/* Writes assets.kman from every ref the cooked and replayed assets produced.
 * A collision fails the build (and leaves the previous manifest in place).
 * A build that published files renames a new manifest into place even when
 * its bytes are the same: a watching runtime (kiln_manager_watch) refreshes
 * on that rename, the sign that a finished build's files are all in place
 * (a recooked texture in a subfolder is otherwise unseen); a build that
 * cooked nothing leaves it untouched. */
bool build_write_manifest(const build_run *run, build_totals *totals) {
    cook_manifest_list all = {0};
    /* Shallow copies of the entries: the results keep owning the strings. */
    size_t total = 0;
    for (size_t i = 0; i < run->plan->sources.count; i++)
        total += manifest_entries(run, i)->count;
    all.items = malloc((total ? total : 1) * sizeof *all.items);
    bool ok = all.items != NULL;
    for (size_t i = 0; ok && i < run->plan->sources.count; i++) {
        const cook_manifest_list *own = manifest_entries(run, i);
        if (own->count > 0)
            memcpy(all.items + all.count, own->items, own->count * sizeof *own->items);
        mark_asset_ids(run->plan, i, all.items + all.count, own->count);
        all.count += own->count;
    }
    cook_diag diag = {0};
    bytebuf bytes = {0};
    char reason[512];
    if (!ok)
        diag_error(&diag, KILN_MANIFEST_FILE_NAME, 0, "out of memory");
    else if (write_manifest(&all, &diag, &bytes)) {
        char *path = cook_path_join(run->setup->output, KILN_MANIFEST_FILE_NAME);
        if (path == NULL ||
            !(totals->cooked > 0
                  ? write_file_atomic(path, bytes.data, bytes.size, reason, sizeof reason)
                  : write_file_if_changed(path, bytes.data, bytes.size, reason, sizeof reason)))
            diag_error(&diag, KILN_MANIFEST_FILE_NAME, 0, "%s", path ? reason : "out of memory");
        else {
            totals->output_files++;
            totals->output_bytes += bytes.size;
            build_add_kind_bytes(totals, KILN_MANIFEST_FILE_NAME, bytes.size);
        }
        free(path);
    }
    ok = diag.errors == 0;
    totals->failed += diag.errors; /* each a failure the summary counts (a ref made twice) */
    build_write(run->options, BUILD_STREAM_ERR, (const char *)diag.text.data, diag.text.size);
    diag_free(&diag);
    bytebuf_free(&bytes);
    free(all.items);
    return ok;
}
