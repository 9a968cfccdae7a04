/*
 * watch_served.h — what `kiln watch --serve` answers from without a build
 * (src/cli/cmd_watch.c): the sources as the last published round left them
 * (their refs, cooked files, the files they read, their failures), and the
 * changes the watch has seen since.
 *
 * A round fills a served_set from its build_run (served_take, on the round's
 * thread, before the run is freed); the watch's main thread merges it into
 * the set it answers from once the round is over (served_merge), so the set
 * it reads is never one a round is writing.
 */
#ifndef KILN_CLI_WATCH_SERVED_H
#define KILN_CLI_WATCH_SERVED_H

#include <stdbool.h>
#include <stddef.h>

#include "build/build.h"

typedef struct served_source {
    char *source;  /* relative to the input folder */
    char *own_ref; /* cook_asset_ref, or NULL when it has none */
    asset_status status;
    char *through;    /* ASSET_THROUGH_MODEL: the model's source, else NULL */
    bool provisional; /* a draft (texture.fast_first), cooked in full later */
    char *error;      /* ASSET_FAILED: its first error line, else NULL */
    strlist refs;     /* its manifest entries: refs.items[i] is in paths.items[i] */
    strlist paths;
    strlist outputs;      /* files it wrote, relative to the output folder */
    strlist dependencies; /* files it read besides its source */
    strlist absent;       /* paths it looked for and did not find */
} served_source;

/* A name a source answers to (its path, own ref, a manifest ref or path, an
 * output or a file it read) and the source's index. */
typedef struct served_key {
    const char *text; /* the source's own string */
    size_t source;
} served_key;

typedef struct served_set {
    served_source *items; /* sorted by source */
    size_t count;
    size_t cap;
    /* Every source's names, sorted (text, then source), so that a request
     * finds its sources without reading them all; built by served_merge.
     * NULL (none built, or out of memory): every source is read. */
    served_key *keys;
    size_t key_count;
} served_set;

/* The sources `run` checked (every planned one, or a focused build's
 * focused ones), into an empty `set`. False when out of memory (`set` is
 * then left empty). */
bool served_take(const build_run *run, served_set *set);
/* Moves what `round` holds into `into`: all of it replaces `into` for a whole
 * round; a focused round's sources replace theirs. `round` is left empty,
 * `into` indexed (keys). */
void served_merge(served_set *into, served_set *round, bool whole);
void served_free(served_set *set);

/* Paths under the input folder changed since some moment; `everything`
 * when no path says it (kiln.yml changed, inotify's queue overflowed). */
typedef struct watch_changes {
    strlist paths;
    bool everything;
} watch_changes;

/* Notes a change of `path` (a file, or a folder: everything under it; ""
 * the input folder). When out of memory notes everything. */
void changes_note(watch_changes *changes, const char *path);
/* Adds what `from` holds to `into` and empties `from`. */
void changes_move(watch_changes *into, watch_changes *from);
void changes_free(watch_changes *changes);

/* How a ref stands in a set: every source producing it (its path, own ref,
 * a manifest ref or path, an output or a file it read) is untouched by
 * `changes` (none of its files, sidecar or absent paths changed), its cooked
 * files are on disk under `output`, and it is no draft when `drafts_stale`
 * (a round cooking drafts in full runs); or some such source is not; or
 * none produces it. */
typedef enum served_state { SERVED_FRESH, SERVED_STALE, SERVED_UNKNOWN } served_state;
served_state served_check(const served_set *set, const char *ref, const watch_changes *changes,
                          size_t change_count, const char *output, bool drafts_stale);

/* The reply to `COOK <ref>` from the set: true with the cooked file in
 * `text`, false with the error (the first error of a source producing it
 * that failed, or that none produces it). With `all_produce` (the set of a
 * focused round, whose every source the build found producing it) the
 * sources are not tested again. */
bool served_answer(const served_set *set, const char *ref, bool all_produce, char *text,
                   size_t size);
/* The first error of the failed source that produces `ref`: the one whose
 * own ref is `ref` or the longest that is a folder of it ("props/crate" for
 * "props/crate/material_0"); NULL when none. */
const char *served_failure(const served_set *set, const char *ref);

#endif /* KILN_CLI_WATCH_SERVED_H */
