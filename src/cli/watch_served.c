/*
 * watch_served.c — the sources of the last published round and the changes
 * seen since, for `kiln watch --serve` (watch_served.h).
 */
#include "cli/watch_served.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "common/cook_server.h"
#include "common/grow.h"

/* ---------------------------------------------------------------------------
 * A round's sources
 * ------------------------------------------------------------------------- */

static void source_free(served_source *s) {
    free(s->source);
    free(s->own_ref);
    free(s->through);
    free(s->error);
    strlist_free(&s->refs);
    strlist_free(&s->paths);
    strlist_free(&s->outputs);
    strlist_free(&s->dependencies);
    strlist_free(&s->absent);
}

void served_free(served_set *set) {
    for (size_t i = 0; i < set->count; i++)
        source_free(&set->items[i]);
    free(set->items);
    free(set->keys);
    *set = (served_set){0};
}

/* The first error line of a failed asset's diagnostics, for an ERR reply. */
static void first_error(const cook_asset_result *result, char *out, size_t size) {
    const char *text = (const char *)result->diag.text.data;
    size_t length = result->diag.text.size;
    for (size_t at = 0; at < length;) {
        const char *newline = memchr(text + at, '\n', length - at);
        size_t line = newline ? (size_t)(newline - (text + at)) : length - at;
        bool is_error = false;
        for (size_t i = 0; i + 9 <= line && !is_error; i++)
            is_error = memcmp(text + at + i, ": error: ", 9) == 0;
        if (is_error) {
            snprintf(out, size, "%.*s", (int)line, text + at);
            return;
        }
        at += line + 1;
    }
    snprintf(out, size, "the cook failed");
}

static bool push_manifest(served_source *s, const cook_manifest_list *manifest) {
    for (size_t e = 0; e < manifest->count; e++) {
        if (!strlist_push(&s->refs, manifest->items[e].ref) ||
            !strlist_push(&s->paths, manifest->items[e].path))
            return false;
    }
    return true;
}

/* Source `index` of the run as the set keeps it. A failed source's cooked
 * files and refs are those it keeps from its last good cook (its record);
 * the files it read are those of the failed cook too, so that a fix to any
 * of them makes it stale. */
static bool take_source(const build_run *run, size_t index, served_source *s) {
    const char *source = run->plan->sources.items[index];
    const asset_slot *slot = &run->slots[index];
    const cook_asset_result *result = &run->results[index];
    const cache_record *record = slot_record(slot);
    char ref[1024], message[COOK_SERVER_LINE_MAX];
    *s = (served_source){.status = slot->status, .provisional = slot->provisional};
    s->source = cook_strdup(source);
    bool ok = s->source != NULL;
    if (cook_asset_ref(run->plan->importers[index], source, ref, sizeof ref) == KILN_OK)
        ok = ok && (s->own_ref = cook_strdup(ref)) != NULL;
    if (slot->through != NULL)
        ok = ok && (s->through = cook_strdup(slot->through)) != NULL;
    ok = ok && strlist_push_all(&s->dependencies, &result->dependencies) &&
         strlist_push_all(&s->absent, &result->absent);
    if (slot->status != ASSET_FAILED) {
        ok = ok && push_manifest(s, &result->manifest) &&
             strlist_push_all(&s->outputs, &result->outputs);
    } else {
        first_error(result, message, sizeof message);
        ok = ok && (s->error = cook_strdup(message)) != NULL;
        if (record != NULL) {
            ok = ok && push_manifest(s, &record->manifest) &&
                 strlist_push_all(&s->outputs, &record->outputs) &&
                 strlist_push_all(&s->absent, &record->absent);
            for (size_t f = 1; ok && f < record->file_count; f++)
                ok = strlist_push(&s->dependencies, record->files[f].path);
        }
    }
    if (!ok)
        source_free(s);
    return ok;
}

bool served_take(const build_run *run, served_set *set) {
    *set = (served_set){0};
    size_t count = run->plan->sources.count;
    for (size_t i = 0; i < count; i++) {
        if (run->focused != NULL && !run->focused[i])
            continue;
        served_source *grown = array_grow(set->items, &set->cap, set->count + 1, sizeof *grown, 64);
        if (grown == NULL || !take_source(run, i, &grown[set->count])) {
            if (grown != NULL)
                set->items = grown;
            served_free(set);
            return false;
        }
        set->items = grown;
        set->count++;
    }
    return true; /* in the plan's order: sorted by source */
}

static int compare_sources(const void *a, const void *b) {
    return strcmp(((const served_source *)a)->source, ((const served_source *)b)->source);
}

/* Source `source` among the first `count` items (sorted), or NULL. */
static served_source *find_among(served_source *items, size_t count, const char *source) {
    served_source key = {.source = (char *)source};
    return count == 0 ? NULL : bsearch(&key, items, count, sizeof *items, compare_sources);
}

static served_source *find_source(const served_set *set, const char *source) {
    return find_among(set->items, set->count, source);
}

static int compare_keys(const void *a, const void *b) {
    const served_key *x = a, *y = b;
    int order = strcmp(x->text, y->text);
    return order != 0 ? order : (x->source > y->source) - (x->source < y->source);
}

static size_t add_keys(served_key *keys, size_t at, const strlist *names, size_t source) {
    for (size_t i = 0; i < names->count; i++)
        keys[at++] = (served_key){names->items[i], source};
    return at;
}

/* Every source's names, sorted (served_set.keys); none when out of memory. */
static void build_index(served_set *set) {
    free(set->keys);
    set->keys = NULL;
    set->key_count = 0;
    size_t count = 0;
    for (size_t i = 0; i < set->count; i++) {
        const served_source *s = &set->items[i];
        count += 2 + s->refs.count + s->paths.count + s->outputs.count + s->dependencies.count;
    }
    served_key *keys = count > 0 ? malloc(count * sizeof *keys) : NULL;
    if (keys == NULL)
        return;
    size_t at = 0;
    for (size_t i = 0; i < set->count; i++) {
        const served_source *s = &set->items[i];
        keys[at++] = (served_key){s->source, i};
        if (s->own_ref != NULL)
            keys[at++] = (served_key){s->own_ref, i};
        at = add_keys(keys, at, &s->refs, i);
        at = add_keys(keys, at, &s->paths, i);
        at = add_keys(keys, at, &s->outputs, i);
        at = add_keys(keys, at, &s->dependencies, i);
    }
    qsort(keys, at, sizeof *keys, compare_keys);
    set->keys = keys;
    set->key_count = at;
}

void served_merge(served_set *into, served_set *round, bool whole) {
    if (whole) {
        served_free(into);
        *into = *round;
        *round = (served_set){0};
        build_index(into);
        return;
    }
    size_t sorted = into->count; /* those added after it are not yet */
    for (size_t i = 0; i < round->count; i++) {
        served_source *old = find_among(into->items, sorted, round->items[i].source);
        if (old != NULL) {
            source_free(old);
            *old = round->items[i];
            continue;
        }
        served_source *grown =
            array_grow(into->items, &into->cap, into->count + 1, sizeof *grown, 64);
        if (grown == NULL) {
            /* Out of memory: the source is left out, so unknown (a request
             * for it gets a focused round). */
            source_free(&round->items[i]);
            continue;
        }
        into->items = grown;
        into->items[into->count++] = round->items[i];
    }
    if (into->count > sorted)
        qsort(into->items, into->count, sizeof *into->items, compare_sources);
    round->count = 0; /* its sources were moved: only its arrays are left */
    served_free(round);
    build_index(into);
}

/* ---------------------------------------------------------------------------
 * Changes
 * ------------------------------------------------------------------------- */

void changes_note(watch_changes *changes, const char *path) {
    if (changes->everything)
        return;
    if (path[0] == '\0' ||
        (!strlist_contains(&changes->paths, path) && !strlist_push(&changes->paths, path))) {
        changes->everything = true;
        strlist_free(&changes->paths);
    }
}

void changes_move(watch_changes *into, watch_changes *from) {
    for (size_t i = 0; i < from->paths.count && !into->everything; i++)
        changes_note(into, from->paths.items[i]);
    if (from->everything) {
        into->everything = true;
        strlist_free(&into->paths);
    }
    changes_free(from);
}

void changes_free(watch_changes *changes) {
    strlist_free(&changes->paths);
    changes->everything = false;
}

/* True when a change of `changed` (a file, or a folder and all under it)
 * changed `path`. */
static bool change_covers(const char *changed, const char *path) {
    size_t length = strlen(changed);
    return strncmp(path, changed, length) == 0 && (path[length] == '\0' || path[length] == '/');
}

static bool touches(const watch_changes *changes, const char *path) {
    if (changes->everything)
        return true;
    for (size_t i = 0; i < changes->paths.count; i++) {
        if (change_covers(changes->paths.items[i], path))
            return true;
    }
    return false;
}

static bool list_touched(const watch_changes *changes, const strlist *paths) {
    for (size_t i = 0; i < paths->count; i++) {
        if (touches(changes, paths->items[i]))
            return true;
    }
    return false;
}

static bool source_touched(const watch_changes *changes, const served_source *s) {
    if (touches(changes, s->source) || list_touched(changes, &s->dependencies) ||
        list_touched(changes, &s->absent))
        return true;
    char sidecar[2048];
    int length = snprintf(sidecar, sizeof sidecar, "%s%s", s->source, SIDECAR_SUFFIX);
    return length < 0 || (size_t)length >= sizeof sidecar || touches(changes, sidecar);
}

/* ---------------------------------------------------------------------------
 * Requests
 * ------------------------------------------------------------------------- */

/* True when source `s` produces `ref`, as a focused build finds it: its
 * path, its own ref, or a ref, cooked file or file read that it recorded. */
static bool produces(const served_source *s, const char *ref) {
    return strcmp(s->source, ref) == 0 || (s->own_ref != NULL && strcmp(s->own_ref, ref) == 0) ||
           strlist_contains(&s->refs, ref) || strlist_contains(&s->paths, ref) ||
           strlist_contains(&s->outputs, ref) || strlist_contains(&s->dependencies, ref);
}

/* The sources producing a ref, in the set's order: through the index, or,
 * without one (or with `all`: every source of a focused round's set), by
 * reading them all. */
typedef struct producer_walk {
    const served_set *set;
    const char *ref;
    bool scan, all;
    size_t at, end, last;
} producer_walk;

static producer_walk walk_producers(const served_set *set, const char *ref, bool all) {
    producer_walk walk = {.set = set, .ref = ref, .all = all, .last = SIZE_MAX};
    if (all || set->keys == NULL) {
        walk.scan = true;
        walk.end = set->count;
        return walk;
    }
    size_t low = 0, high = set->key_count; /* the first key not before ref */
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (strcmp(set->keys[middle].text, ref) < 0)
            low = middle + 1;
        else
            high = middle;
    }
    walk.at = walk.end = low;
    while (walk.end < set->key_count && strcmp(set->keys[walk.end].text, ref) == 0)
        walk.end++;
    return walk;
}

static const served_source *next_producer(producer_walk *walk) {
    while (walk->at < walk->end) {
        if (walk->scan) {
            const served_source *s = &walk->set->items[walk->at++];
            if (walk->all || produces(s, walk->ref))
                return s;
            continue;
        }
        size_t source = walk->set->keys[walk->at++].source;
        if (source != walk->last) { /* a source may answer to the name twice */
            walk->last = source;
            return &walk->set->items[source];
        }
    }
    return NULL;
}

static bool outputs_on_disk(const served_source *s, const char *output) {
    for (size_t i = 0; i < s->outputs.count; i++) {
        char path[4096];
        struct stat info;
        int length = snprintf(path, sizeof path, "%s/%s", output, s->outputs.items[i]);
        if (length < 0 || (size_t)length >= sizeof path || stat(path, &info) != 0)
            return false;
    }
    return true;
}

static bool source_fresh(const served_source *s, const watch_changes *changes, size_t change_count,
                         const char *output, bool drafts_stale) {
    /* Anything else (never reached, say) is for a focused build to settle. */
    if (s->status != ASSET_COOKED && s->status != ASSET_UP_TO_DATE &&
        s->status != ASSET_THROUGH_MODEL && s->status != ASSET_FAILED)
        return false;
    if (drafts_stale && s->provisional)
        return false;
    for (size_t c = 0; c < change_count; c++) {
        if (source_touched(&changes[c], s))
            return false;
    }
    return outputs_on_disk(s, output);
}

served_state served_check(const served_set *set, const char *ref, const watch_changes *changes,
                          size_t change_count, const char *output, bool drafts_stale) {
    served_state state = SERVED_UNKNOWN;
    producer_walk walk = walk_producers(set, ref, false);
    for (const served_source *s; state != SERVED_STALE && (s = next_producer(&walk)) != NULL;) {
        bool fresh = source_fresh(s, changes, change_count, output, drafts_stale);
        /* A file a model reads is answered with the model's file. */
        const served_source *model = s->through ? find_source(set, s->through) : NULL;
        if (fresh && model != NULL)
            fresh = source_fresh(model, changes, change_count, output, drafts_stale);
        state = fresh ? SERVED_FRESH : SERVED_STALE;
    }
    return state;
}

/* The cooked file that stands for source `s`, or NULL when it made none: the
 * entry named by its own ref (a model's mesh, a texture's .ktx2); else, for a
 * source with no asset of that ref (a level is "levels/yard/scene", a model
 * without a mesh has only its scene), its scene, else the first entry under
 * its ref, else its first entry at all. */
static const char *own_file(const served_source *s) {
    if (s->own_ref == NULL)
        return s->paths.count > 0 ? s->paths.items[0] : NULL;
    size_t own_length = strlen(s->own_ref);
    const char *scene = NULL, *under = NULL;
    for (size_t e = 0; e < s->refs.count; e++) {
        const char *ref = s->refs.items[e];
        if (strcmp(ref, s->own_ref) == 0)
            return s->paths.items[e];
        if (strncmp(ref, s->own_ref, own_length) != 0 || ref[own_length] != '/')
            continue;
        if (scene == NULL && strcmp(ref + own_length, "/scene") == 0)
            scene = s->paths.items[e];
        if (under == NULL)
            under = s->paths.items[e];
    }
    if (scene != NULL)
        return scene;
    if (under != NULL)
        return under;
    return s->paths.count > 0 ? s->paths.items[0] : NULL;
}

/* Which cooked file answers `COOK <ref>`: the file of the entry whose ref or
 * path the request named; else, for a source path of any kind, the file that
 * stands for that source (own_file), or (a file a model reads) the model's;
 * else the error of a source that failed. */
bool served_answer(const served_set *set, const char *ref, bool all_produce, char *text,
                   size_t size) {
    const char *path = NULL;
    producer_walk walk = walk_producers(set, ref, all_produce);
    for (const served_source *s; path == NULL && (s = next_producer(&walk)) != NULL;) {
        if (s->status == ASSET_FAILED)
            continue;
        for (size_t e = 0; e < s->refs.count && path == NULL; e++) {
            if (strcmp(s->refs.items[e], ref) == 0 || strcmp(s->paths.items[e], ref) == 0)
                path = s->paths.items[e];
        }
    }
    const served_source *failed = NULL;
    walk = walk_producers(set, ref, all_produce);
    for (const served_source *s; path == NULL && (s = next_producer(&walk)) != NULL;) {
        if (s->status == ASSET_FAILED && failed == NULL)
            failed = s;
        if (strcmp(s->source, ref) != 0)
            continue;
        if (s->status == ASSET_THROUGH_MODEL && s->through != NULL) {
            const served_source *model = find_source(set, s->through);
            if (model != NULL)
                path = own_file(model);
        } else if (s->status != ASSET_FAILED) {
            path = own_file(s);
        }
    }
    if (path != NULL && strchr(path, '\n') == NULL) {
        snprintf(text, size, "%s", path);
        return true;
    }
    if (failed != NULL)
        snprintf(text, size, "%s", failed->error);
    else
        snprintf(text, size, "no source under the input folder produces '%.200s'", ref);
    return false;
}

const char *served_failure(const served_set *set, const char *ref) {
    const char *best = NULL;
    size_t best_length = 0;
    for (size_t i = 0; i < set->count; i++) {
        const served_source *s = &set->items[i];
        if (s->status != ASSET_FAILED || s->own_ref == NULL)
            continue;
        size_t length = strlen(s->own_ref);
        if (strncmp(ref, s->own_ref, length) == 0 && (ref[length] == '\0' || ref[length] == '/') &&
            length >= best_length) {
            best = s->error;
            best_length = length;
        }
    }
    return best;
}
