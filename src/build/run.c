/*
 * run.c — every planned source either replayed from the cache or cooked, on
 * the thread pool, in rounds:
 *
 *   models → the other kinds, minus the files a model read → the sources the
 *   finished assets reference (a level's models), as the next round
 *
 * Models go first because the files they read (images, .mtl, .bin) are
 * cooked through them (DESIGN.md): such a file is never cooked a second time
 * as a standalone asset, whatever importer would claim it. Without --roots
 * every source is in the first round and no later round has anything left.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "build/internal.h"

static size_t find_source(const build_plan *plan, const char *path);

/* Another source's resolved settings (a merged level's placed model is
 * imported with its own: drivers/level_merge.c), NULL when not planned. */
static const cook_settings *source_settings(void *user, const char *path) {
    const build_plan *plan = user;
    size_t at = find_source(plan, path);
    return at != SIZE_MAX ? &plan->settings[at] : NULL;
}

/* ---------------------------------------------------------------------------
 * Cache check and replay
 * ------------------------------------------------------------------------- */

static bool output_exists(const build_run *run, const char *path) {
    const strlist *files = run->existing;
    return files->count > 0 && bsearch(&path, files->items, files->count, sizeof files->items[0],
                                       build_compare_strings) != NULL;
}

static void mark_stale(asset_slot *slot, stale_reason reason, const char *path) {
    if ((slot->stale & (1u << reason)) == 0)
        slot->stale_path[reason] = path;
    slot->stale |= 1u << reason;
}

/* The settings of source `index`'s provisional cook (build_options.fast_first)
 * in *draft: texture.quality draft. False when it has none: not a standalone
 * texture, not compressed, texture.fast_first off, or draft already. */
static bool draft_settings(const build_run *run, size_t index, cook_settings *draft) {
    const cook_settings *settings = &run->plan->settings[index];
    if (run->plan->importers[index]->kind != COOK_KIND_TEXTURE || !settings->texture_fast_first ||
        !settings->texture_compress || settings->texture_quality == COOK_QUALITY_DRAFT)
        return false;
    *draft = *settings;
    draft->texture_quality = COOK_QUALITY_DRAFT;
    return true;
}

/* The settings hash a cache record of a cook with `settings` holds. */
static uint64_t record_settings_hash(uint64_t settings_hash, const cook_settings *settings,
                                     bool has_diagnostics) {
    return has_diagnostics ? cache_quoted_settings_hash(settings_hash, settings) : settings_hash;
}

/* True when `old` is the record of a provisional cook of source `index`: its
 * settings hash is that of the draft settings. */
static bool is_provisional_record(const build_run *run, size_t index, const cache_record *old) {
    cook_settings draft;
    return draft_settings(run, index, &draft) &&
           record_settings_hash(cache_settings_hash(&draft), &draft, old->diagnostics.size > 0) ==
               old->settings;
}

/* True when the recorded cook of source `index` is still valid; then the
 * slot keeps the old record, or a copy with fresh stamps when a file was
 * touched without changing. Otherwise slot->stale says why: every reason in
 * a dry run, in a build the first one found (the cheap checks go first).
 * Reads no source byte when every stamp matches. */
static bool check_cached(build_run *run, size_t index, const cache_record *old) {
    asset_slot *slot = &run->slots[index];
    const char *input = run->setup->input;
    bool every = run->options->dry_run;
    if (strcmp(old->importer, run->plan->importers[index]->name) != 0)
        mark_stale(slot, STALE_IMPORTER, NULL);
    if (run->old_cache->encoder_version != run->setup->encoder_version)
        mark_stale(slot, STALE_ENCODER, NULL);
    uint64_t settings = record_settings_hash(
        run->plan->settings_hash[index], &run->plan->settings[index], old->diagnostics.size > 0);
    if (settings != old->settings) {
        /* A draft of kiln watch: kept while it drafts, else cooked in full. */
        if (!is_provisional_record(run, index, old))
            mark_stale(slot, STALE_SETTINGS, NULL);
        else if (run->options->fast_first)
            slot->provisional = true;
        else
            mark_stale(slot, STALE_PROVISIONAL, NULL);
    }
    for (size_t i = 0; (every || !slot->stale) && i < old->outputs.count; i++) {
        if (!output_exists(run, old->outputs.items[i])) /* deleted by hand */
            mark_stale(slot, STALE_OUTPUT_MISSING, old->outputs.items[i]);
    }
    for (size_t i = 0; (every || !slot->stale) && i < old->absent.count; i++) {
        if (!cache_path_absent(input, old->absent.items[i]))
            mark_stale(slot, STALE_APPEARED, old->absent.items[i]);
    }
    cache_stamp *stamps = calloc(old->file_count, sizeof *stamps);
    if (stamps == NULL)
        return false;
    bool touched = false;
    for (size_t i = 0; (every || !slot->stale) && i < old->file_count; i++) {
        const cache_stamp *was = &old->files[i];
        stale_reason changed = i == 0 ? STALE_SOURCE : STALE_DEPENDENCY;
        if (!cache_stamp_file(input, was->path, &stamps[i])) {
            mark_stale(slot, i == 0 ? STALE_SOURCE : STALE_DEPENDENCY_REMOVED, was->path);
            continue;
        }
        stamps[i].hash = was->hash;
        if (cache_stamps_equal(&stamps[i], was))
            continue;
        touched = true; /* maybe not changed: the bytes decide */
        if (!cache_hash_file(input, was->path, &stamps[i].hash) || stamps[i].hash != was->hash)
            mark_stale(slot, changed, was->path);
    }
    bool valid = slot->stale == 0;
    if (valid && !touched) {
        slot->kept = old;
    } else if (valid && cache_record_copy(&slot->record, old)) {
        for (size_t i = 0; i < old->file_count; i++) {
            slot->record.files[i].size = stamps[i].size;
            slot->record.files[i].mtime_ns = stamps[i].mtime_ns;
            slot->record.files[i].inode = stamps[i].inode;
        }
        slot->has_record = true;
    } else {
        valid = false;
    }
    free(stamps);
    return valid;
}

/* Fills the asset's result from its record, as if it had just been cooked
 * (diagnostics included, to be printed again). The result borrows the
 * record's strings (the old cache outlives every result): only the list of
 * dependency paths is allocated. */
static bool replay_record(const cache_record *record, cook_asset_result *result) {
    size_t dependencies = record->file_count - 1;
    char **paths = malloc((dependencies ? dependencies : 1) * sizeof *paths);
    if (paths == NULL)
        return false;
    for (size_t i = 0; i < dependencies; i++)
        paths[i] = record->files[i + 1].path;
    /* diag.warnings stays 0: only the text is kept, and only it is printed. */
    *result = (cook_asset_result){
        .ok = true,
        .diag = {.text = {record->diagnostics.data, record->diagnostics.size, 0, false}},
        .outputs = {record->outputs.items, record->outputs.count, 0},
        .dependencies = {paths, dependencies, dependencies},
        .references = {record->references.items, record->references.count, 0},
        .absent = {record->absent.items, record->absent.count, 0},
        .manifest = {record->manifest.items, record->manifest.count, 0},
    };
    return true;
}

static bool paths_are_safe(const strlist *paths) {
    for (size_t i = 0; i < paths->count; i++) {
        if (!cache_path_is_safe(paths->items[i]))
            return false;
    }
    return true;
}

/* Every string the record would hold can be written in the cache format, and
 * its diagnostics are whole lines (they are stored line by line). */
static bool result_is_recordable(const char *source, const cook_asset_result *result) {
    if (!cache_path_is_safe(source) || !paths_are_safe(&result->dependencies) ||
        !paths_are_safe(&result->references) || !paths_are_safe(&result->absent) ||
        !paths_are_safe(&result->outputs))
        return false;
    for (size_t i = 0; i < result->manifest.count; i++) {
        const cook_manifest_entry *e = &result->manifest.items[i];
        if (!cache_path_is_safe(e->path) || strpbrk(e->ref, "\t\n\r") != NULL || e->ref[0] == 0)
            return false;
    }
    const bytebuf *text = &result->diag.text;
    return text->size == 0 || text->data[text->size - 1] == '\n';
}

/* What a cook saw, to tell whether a file changed while it ran: the cache
 * hashes dependencies after the cook, so a file edited during it would
 * otherwise be recorded with bytes the cooked output does not reflect. The
 * source is hashed as the cook read it. */
typedef struct cook_window {
    bool source_known;
    cache_stamp source_before; /* the source's stamp just before the cook */
    int64_t start_ns;          /* wall clock when the cook started */
    const char *source_path;
    bool source_hashed; /* source_hash is that of the bytes the cook read */
    uint64_t source_hash;
} cook_window;

/* cook_request.source_read: the bytes the cook read are the ones its
 * outputs reflect; hashing them saves reading the source again. */
static void hash_read_source(void *ctx, const uint8_t *bytes, size_t size) {
    cook_window *window = ctx;
    window->source_hashed =
        cache_hash_bytes(window->source_path, bytes, size, &window->source_hash);
}

/* The new cache record of a freshly cooked asset: stamps and bytes of its
 * source and dependencies as they are now, the paths it found absent (still
 * absent), what it wrote and printed. Failing here only costs a recook next
 * time, so it is silent. */
static void record_cooked(build_run *run, size_t index, const cook_settings *settings,
                          uint64_t settings_hash, const cook_window *window) {
    const char *source = run->plan->sources.items[index];
    const cook_asset_result *result = &run->results[index];
    asset_slot *slot = &run->slots[index];
    if (!result_is_recordable(source, result))
        return;
    cache_record *record = &slot->record;
    *record = (cache_record){
        .settings = record_settings_hash(settings_hash, settings, result->diag.text.size > 0),
        .cooked_in = cache_next_build(run->old_cache)};
    memcpy(record->stage_seconds, result->stage_seconds, sizeof record->stage_seconds);
    bool ok = (record->source = cook_strdup(source)) != NULL &&
              (record->importer = cook_strdup(run->plan->importers[index]->name)) != NULL;
    size_t count = 1 + result->dependencies.count;
    record->files = ok ? calloc(count, sizeof *record->files) : NULL;
    ok = ok && record->files != NULL;
    for (size_t i = 0; ok && i < count; i++) {
        const char *path = i == 0 ? source : result->dependencies.items[i - 1];
        cache_stamp stamp;
        /* Changed during the cook (or dated in the future): do not trust it. */
        ok =
            cache_stamp_file(run->setup->input, path, &stamp) &&
            stamp.mtime_ns < window->start_ns &&
            (i > 0 || (window->source_known && cache_stamps_equal(&stamp, &window->source_before)));
        if (ok && i == 0 && window->source_hashed)
            stamp.hash = window->source_hash;
        else
            ok = ok && cache_hash_file(run->setup->input, path, &stamp.hash);
        if (ok) {
            record->files[i] = stamp;
            ok = (record->files[i].path = cook_strdup(path)) != NULL;
            record->file_count = i + (ok ? 1 : 0);
        }
    }
    /* One created during the cook may or may not have been seen. */
    for (size_t i = 0; ok && i < result->absent.count; i++)
        ok = cache_path_absent(run->setup->input, result->absent.items[i]);
    ok = ok && strlist_push_all(&record->absent, &result->absent);
    ok = ok && strlist_push_all(&record->outputs, &result->outputs);
    ok = ok && strlist_push_all(&record->references, &result->references);
    ok = ok && cook_manifest_add_all(&record->manifest, &result->manifest);
    if (ok && result->diag.text.size > 0) {
        bytebuf_append(&record->diagnostics, result->diag.text.data, result->diag.text.size);
        ok = !record->diagnostics.failed;
    }
    if (ok) {
        slot->has_record = true;
        build_journal_append(run->journal, record); /* kept even if the build is killed */
    } else {
        cache_record_free(record);
    }
}

/* ---------------------------------------------------------------------------
 * Cooking
 * ------------------------------------------------------------------------- */

double build_seconds_since(const struct timespec *start) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - start->tv_sec) + (double)(now.tv_nsec - start->tv_nsec) / 1e9;
}

/* --dry-run: the asset would be cooked. What the cache knows of what it read
 * and named stands in for its cook's (which files a model reads, what the
 * roots reach), and a file it looked for that exists now is one it will read;
 * a source the cache does not know reads nothing. */
static void preview_stale(build_run *run, size_t index, const cache_record *old) {
    asset_slot *slot = &run->slots[index];
    cook_asset_result *result = &run->results[index];
    slot->status = ASSET_WOULD_COOK;
    if (old != NULL && replay_record(old, result)) {
        slot->borrowed = true;
        result->diag = (cook_diag){0}; /* a cook would print its own */
        strlist *reads = &result->dependencies;
        for (size_t i = 0; i < old->absent.count; i++) {
            char **items = cache_path_absent(run->setup->input, old->absent.items[i])
                               ? NULL
                               : realloc(reads->items, (reads->count + 1) * sizeof *items);
            if (items != NULL) {
                items[reads->count++] = old->absent.items[i];
                reads->items = items;
                reads->cap = reads->count;
            }
        }
    }
    result->ok = true;
    build_progress_settled(run->options, run->plan->sources.items[index], NULL);
}

/* The source's record in the build's stores, tried in order (build/cache.h):
 * the first that still holds is a hit (*hit set); otherwise the first found,
 * whose stale reasons the slot keeps, or NULL when no store has one. This is
 * where a remote store is consulted after the local folder. */
static const cache_record *look_up(build_run *run, size_t index, bool *hit) {
    const char *source_path = run->plan->sources.items[index];
    asset_slot *slot = &run->slots[index];
    const cache_record *first = NULL;
    *hit = false;
    for (size_t s = 0; s < run->store_count; s++) {
        const build_cache_store *store = &run->stores[s];
        const cache_record *found =
            store->lookup != NULL ? store->lookup(store->state, source_path) : NULL;
        if (found == NULL)
            continue;
        if (first != NULL) { /* a later store's record: judged on its own */
            slot->stale = 0;
            memset(slot->stale_path, 0, sizeof slot->stale_path);
        }
        if (check_cached(run, index, found)) {
            *hit = true;
            return found;
        }
        if (first == NULL)
            first = found;
    }
    return first;
}

/* The asset as the remote cache's keys see it. */
static remote_asset remote_asset_of(const build_run *run, size_t index) {
    uint64_t settings = run->plan->settings_hash[index];
    return (remote_asset){
        .input = run->setup->input,
        .output = run->setup->output,
        .source = run->plan->sources.items[index],
        .importer = run->plan->importers[index]->name,
        .settings = settings,
        .quoted_settings = cache_quoted_settings_hash(settings, &run->plan->settings[index]),
    };
}

/* A local miss the remote cache has: its outputs are in the output folder,
 * its record is the slot's, and it finishes as an up-to-date asset whose
 * warnings are replayed. */
static bool fetch_remote(build_run *run, size_t index, const remote_asset *asset) {
    asset_slot *slot = &run->slots[index];
    if (!remote_cache_fetch(run->remote, asset, &slot->record))
        return false;
    slot->has_record = true;
    if (!replay_record(&slot->record, &run->results[index])) {
        cache_record_free(&slot->record); /* out of memory: cook instead */
        slot->has_record = false;
        return false;
    }
    slot->status = ASSET_UP_TO_DATE;
    slot->borrowed = true;
    slot->from_remote = true;
    slot->provisional = false; /* the remote cache holds full cooks only */
    slot->stale = 0;
    memset(slot->stale_path, 0, sizeof slot->stale_path);
    build_journal_append(run->journal, &slot->record);
    if (run->options->verbosity == PROGRESS_VERBOSE)
        build_say(run->options, BUILD_STREAM_OUT, "from the remote cache %s", asset->source);
    build_progress_settled(run->options, asset->source,
                           run->options->watch_round ? NULL : &run->results[index].diag);
    return true;
}

static void process_planned_asset(void *context, uint32_t job) {
    build_run *run = context;
    size_t index = run->phase_assets[job];
    const char *source_path = run->plan->sources.items[index];
    asset_slot *slot = &run->slots[index];
    if (run->focused != NULL && !run->focused[index]) {
        /* A focused build (`kiln watch --serve`) keeps what the last build
         * recorded for every other source, without checking it. */
        const cache_record *kept = cache_find(run->old_cache, source_path);
        if (kept != NULL && replay_record(kept, &run->results[index])) {
            slot->kept = kept;
            slot->borrowed = true;
            slot->status = ASSET_UP_TO_DATE;
        } else {
            slot->status = ASSET_UNREACHED;
        }
        build_progress_settled(run->options, source_path, NULL);
        return;
    }
    /* A model yields only to another model (a standalone source with its ref
     * may be its own texture, cooked through it); anything else that gets
     * here is cooked on its own and yields to any source with its ref. */
    const char *same_ref = cook_kind_reads_through(run->plan->importers[index]->kind)
                               ? run->plan->same_ref_model[index]
                               : run->plan->same_ref[index];
    if (same_ref != NULL) {
        char ref[1024];
        cook_asset_ref(run->plan->importers[index], source_path, ref, sizeof ref);
        diag_error(&run->results[index].diag, source_path, 0,
                   "its asset ref '%s' is also the ref of '%s' (the two differ only in extension "
                   "or case) and their files and refs would overwrite each other: rename one",
                   ref, same_ref);
        slot->status = ASSET_FAILED;
        build_progress_finished(run->options, source_path, &run->results[index]);
        return;
    }
    /* A sidecar with an error fails its asset alone: cooking it with some
     * of the settings asked for would write what nobody asked for. */
    const char *sidecar_errors = run->plan->sidecar_errors[index];
    if (sidecar_errors != NULL) {
        cook_diag *diag = &run->results[index].diag;
        bytebuf_append(&diag->text, sidecar_errors, strlen(sidecar_errors));
        diag->errors++;
        slot->status = ASSET_FAILED;
        build_progress_finished(run->options, source_path, &run->results[index]);
        return;
    }
    bool hit;
    const cache_record *old = look_up(run, index, &hit);
    if (old == NULL)
        mark_stale(slot, run->options->no_cache ? STALE_NO_CACHE : STALE_NOT_CACHED, NULL);
    if (hit && replay_record(old, &run->results[index])) {
        slot->status = ASSET_UP_TO_DATE;
        slot->borrowed = true;
        if (run->options->verbosity == PROGRESS_VERBOSE)
            build_say(run->options, BUILD_STREAM_OUT, "up to date %s", source_path);
        build_progress_settled(run->options, source_path,
                               run->options->watch_round ? NULL : &run->results[index].diag);
        return;
    }
    if (slot->has_record) { /* a replay that ran out of memory: cook instead */
        cache_record_free(&slot->record);
        slot->has_record = false;
    }
    slot->kept = NULL;
    if (run->options->dry_run) {
        preview_stale(run, index, old);
        return;
    }
    remote_asset remote_key = {0};
    if (run->remote != NULL)
        remote_key = remote_asset_of(run, index);
    if (run->remote != NULL && !run->options->no_cache && fetch_remote(run, index, &remote_key))
        return;
    /* fast_first: a draft now, the full encode in a later round; its
     * record holds the draft settings' hash, so no build takes it as final. */
    cook_settings draft;
    const cook_settings *settings = &run->plan->settings[index];
    uint64_t settings_hash = run->plan->settings_hash[index];
    slot->provisional = run->options->fast_first && draft_settings(run, index, &draft);
    if (slot->provisional) {
        settings = &draft;
        settings_hash = cache_settings_hash(&draft);
    }
    cook_request request = {
        .input_root = run->setup->input,
        .output_root = run->setup->output,
        .source_path = source_path,
        .importer = run->plan->importers[index],
        .settings = settings,
        .verify = run->options->verify,
        .activity = build_progress_started(run->options, source_path),
        .settings_of = source_settings,
        .settings_user = (void *)run->plan,
    };
    cook_window window = {
        .source_known = cache_stamp_file(run->setup->input, source_path, &window.source_before),
        .source_path = source_path};
    request.source_read = hash_read_source;
    request.source_read_ctx = &window;
    struct timespec start, wall;
    clock_gettime(CLOCK_REALTIME, &wall);
    window.start_ns = (int64_t)wall.tv_sec * 1000000000 + wall.tv_nsec;
    /* --memory-limit: wait (before the clock starts) for room for this
     * asset's estimated peak. */
    uint64_t estimate = 0;
    if (run->memory != NULL) {
        estimate = build_memory_estimate(run->setup->input, source_path, request.importer);
        build_memory_acquire(run->memory, estimate);
    }
    clock_gettime(CLOCK_MONOTONIC, &start);
    cook_asset(&request, &run->results[index]);
    slot->seconds = build_seconds_since(&start);
    if (run->memory != NULL)
        build_memory_release(run->memory, estimate);
    slot->status = run->results[index].ok ? ASSET_COOKED : ASSET_FAILED;
    if (run->results[index].ok)
        record_cooked(run, index, settings, settings_hash, &window);
    if (slot->has_record && !slot->provisional && remote_cache_writes(run->remote))
        remote_cache_upload(run->remote, &remote_key, &slot->record);
    build_progress_finished(run->options, source_path, &run->results[index]);
}

/* The assets of a phase are items of one parallel_for: their stages' own
 * parallel_for calls share its threads (cook/core/parallel.h). */
static void run_phase(build_run *run, const size_t *phase_assets, size_t count) {
    for (size_t done = 0; done < count;) {
        uint32_t items = count - done > UINT32_MAX ? UINT32_MAX : (uint32_t)(count - done);
        run->phase_assets = phase_assets + done;
        parallel_for(run->options->jobs, items, process_planned_asset, run);
        done += items;
    }
}

/* Every dependency of every model (cooked or replayed), sorted, each paired
 * with the first model that reads it. */
typedef struct dependency_owner {
    const char *path;
    const char *model;
} dependency_owner;

static int compare_owner(const void *a, const void *b) {
    const dependency_owner *x = a, *y = b;
    int order = strcmp(x->path, y->path);
    return order != 0 ? order : strcmp(x->model, y->model);
}

static dependency_owner *collect_model_dependencies(const build_run *run, size_t *count) {
    size_t total = 0;
    for (size_t i = 0; i < run->plan->sources.count; i++) {
        if (cook_kind_reads_through(run->plan->importers[i]->kind))
            total += run->results[i].dependencies.count;
    }
    dependency_owner *owners = malloc((total ? total : 1) * sizeof *owners);
    if (owners == NULL)
        return NULL;
    size_t at = 0;
    for (size_t i = 0; i < run->plan->sources.count; i++) {
        if (!cook_kind_reads_through(run->plan->importers[i]->kind))
            continue;
        for (size_t d = 0; d < run->results[i].dependencies.count; d++)
            owners[at++] = (dependency_owner){run->results[i].dependencies.items[d],
                                              run->plan->sources.items[i]};
    }
    if (at > 0)
        qsort(owners, at, sizeof *owners, compare_owner);
    *count = at;
    return owners;
}

static const char *owning_model(const dependency_owner *owners, size_t count, const char *path) {
    size_t low = 0, high = count;
    while (low < high) { /* the first entry whose path is >= path */
        size_t mid = low + (high - low) / 2;
        if (strcmp(owners[mid].path, path) < 0)
            low = mid + 1;
        else
            high = mid;
    }
    return low < count && strcmp(owners[low].path, path) == 0 ? owners[low].model : NULL;
}

/* The planned index of a source path, or SIZE_MAX. */
static size_t find_source(const build_plan *plan, const char *path) {
    const char **found = bsearch(&path, plan->sources.items, plan->sources.count,
                                 sizeof plan->sources.items[0], build_compare_strings);
    return found ? (size_t)((char **)found - plan->sources.items) : SIZE_MAX;
}

/* A source cooked through a model takes the model's settings: its own
 * sidecar's are not used, which is said rather than dropped. */
static void warn_unused_sidecar(const build_run *run, const char *source, const char *model) {
    char folder[1024];
    build_source_folder(run->setup->input, folder, sizeof folder);
    char *name = sidecar_path_of(source);
    cook_diag diag = {0};
    diag_warning(&diag, name ? name : source, 0,
                 "'%s' is cooked through %s, with that model's settings: this sidecar's are "
                 "not used",
                 source, model);
    build_diagnostics(run->options, (const char *)diag.text.data, diag.text.size,
                      run->options->verbosity == PROGRESS_QUIET, folder);
    diag_free(&diag);
    free(name);
}

/* One round over the sources marked in `queued`: the models, then every other
 * kind except what a model (of any round so far) read. */
static bool cook_round(build_run *run, const bool *queued, size_t *phase_assets) {
    const build_plan *plan = run->plan;
    size_t count = plan->sources.count;
    size_t n = 0;
    for (size_t i = 0; i < count; i++) {
        if (queued[i] && cook_kind_reads_through(plan->importers[i]->kind))
            phase_assets[n++] = i;
    }
    run_phase(run, phase_assets, n);

    size_t owner_count = 0;
    dependency_owner *owners = collect_model_dependencies(run, &owner_count);
    if (owners == NULL)
        return false;
    n = 0;
    for (size_t i = 0; i < count; i++) {
        if (!queued[i] || cook_kind_reads_through(plan->importers[i]->kind))
            continue;
        const char *model = owning_model(owners, owner_count, plan->sources.items[i]);
        if (model != NULL) {
            run->slots[i].status = ASSET_THROUGH_MODEL;
            run->slots[i].through = model;
            run->results[i].ok = true;
            if (plan->has_sidecar[i])
                warn_unused_sidecar(run, plan->sources.items[i], model);
            if (run->options->verbosity == PROGRESS_VERBOSE)
                build_say(run->options, BUILD_STREAM_OUT, "%s through %s: %s",
                          run->options->dry_run ? "would be cooked" : "cooked", model,
                          plan->sources.items[i]);
            build_progress_settled(run->options, plan->sources.items[i], NULL);
        } else {
            phase_assets[n++] = i;
        }
    }
    run_phase(run, phase_assets, n);
    free(owners);
    return true;
}

/* Marks in `next` the sources that assets of this round (`queued`) reference
 * or read and that no round has handled yet; returns how many. A dependency
 * that was not cooked through a model (a file a level reads) is a reference
 * too: it reaches that source. */
static size_t queue_references(const build_run *run, const bool *queued, bool *next) {
    size_t added = 0;
    for (size_t i = 0; i < run->plan->sources.count; i++) {
        if (!queued[i])
            continue;
        const strlist *lists[] = {&run->results[i].references, &run->results[i].dependencies};
        for (size_t l = 0; l < 2; l++) {
            for (size_t r = 0; r < lists[l]->count; r++) {
                size_t at = find_source(run->plan, lists[l]->items[r]);
                if (at != SIZE_MAX && run->slots[at].status == ASSET_PENDING && !next[at] &&
                    (run->other_shard == NULL || !run->other_shard[at])) {
                    next[at] = true;
                    added++;
                }
            }
        }
    }
    return added;
}

bool build_cook_in_order(build_run *run) {
    size_t count = run->plan->sources.count;
    size_t *phase_assets = malloc((count ? count : 1) * sizeof *phase_assets);
    bool *queued = malloc((count ? count : 1) * sizeof *queued);
    bool *next = calloc(count ? count : 1, sizeof *next);
    bool ok = phase_assets != NULL && queued != NULL && next != NULL;
    if (ok && count > 0)
        memcpy(queued, run->plan->wanted, count * sizeof *queued);
    for (bool more = ok; more;) {
        ok = cook_round(run, queued, phase_assets);
        size_t added = ok ? queue_references(run, queued, next) : 0;
        build_progress_add_total(run->options, added);
        more = added > 0;
        bool *swap = queued;
        queued = next;
        next = swap;
        memset(next, 0, count * sizeof *next);
    }
    for (size_t i = 0; ok && i < count; i++) {
        if (run->slots[i].status == ASSET_PENDING)
            run->slots[i].status = ASSET_UNREACHED;
    }
    free(next);
    free(queued);
    free(phase_assets);
    return ok;
}
