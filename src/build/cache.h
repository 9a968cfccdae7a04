/*
 * build/cache.h — the incremental build cache, <output>/.kiln-cache, and the
 * store interface the build looks records up through.
 *
 * One record per source asset that cooked (with warnings or without): its
 * importer, the hash of its resolved settings, the stamps (size, mtime,
 * inode) and content hash of its source and of every file it read, the paths
 * it looked for and did not find, the files it wrote, the manifest entries it
 * produced and the diagnostics it printed. A build replays the record instead
 * of cooking, and prints the diagnostics again as they were, when
 *
 *   - the importer, the settings hash and the encoder version are unchanged;
 *   - every recorded file has the same bytes: its stamp matches (then no byte
 *     is read: the fast path of a no-op build), or its bytes hash the same;
 *   - no path recorded as absent exists now (a missing texture that appears
 *     makes the asset cook again);
 *   - every output it wrote exists.
 *
 *   file hash = XXH3-64 over (path, bytes, length); an asset folder: its path
 *               and sorted entry names
 *   settings  = XXH3-64 of the settings JSON; a record with diagnostics also
 *               covers texture_format_origin, which its messages may quote
 *
 * File format (text, one record after another; fields separated by tabs, the
 * path always last so it may hold spaces):
 *
 *   kiln-cache 3
 *   encoder <N>
 *   build <B>                                  the last build that cooked anything
 *   asset <importer> <settings hex> <source path>
 *   file <size> <mtime ns> <inode> <hash hex> <path>   source first, then dependencies
 *   absent <path>                              looked for, not there
 *   out <path>                                 relative to the output folder
 *   link <path>                                another source the asset references
 *   ref <kind> <color space> <index> <ref> <path>
 *   diag <line>                                a line its cook printed, with
 *                                              backslash, tab, CR as \\ \t \r
 *   time <build> <import s> <process s> <write s> <texture s>
 *                                              the build (a B) that cooked it
 *                                              and its seconds per cook stage
 *   ...
 *   end <XXH3-64 hex of every byte before this line>
 *
 * Anything else — a wrong first line, a bad field, a path that climbs out of
 * its folder, a checksum mismatch — makes the whole file untrusted. Format 1
 * (no per-file hashes, absent paths or diagnostics) is not read: a build
 * after upgrading warns once and cooks everything.
 *
 * Format 3 is format 2 plus the `build` and `time` lines: when each asset was
 * last cooked and how long each stage took, which `kiln report` shows (they
 * never decide a hit). Only an output folder's cache file whose builds record
 * times (build_options.record_times, `kiln build --report`; once it has them
 * every later build keeps them) has them: any other cache image (a journal
 * entry, a remote cache entry, a folder that never asked) is written as format
 * 2, byte for byte as before; both are read.
 */
#ifndef KILN_BUILD_CACHE_H
#define KILN_BUILD_CACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "cook/cook.h"

#define CACHE_FILE_NAME ".kiln-cache"
#define CACHE_FORMAT_VERSION 3u
#define CACHE_FORMAT_UNTIMED 2u /* the same without build and time lines */

typedef struct cache_stamp {
    char *path; /* relative to the input folder */
    uint64_t size;
    int64_t mtime_ns;
    uint64_t inode;
    uint64_t hash; /* cache_hash_file */
} cache_stamp;

typedef struct cache_record {
    char *source;
    char *importer;
    uint64_t settings;  /* cache_settings_hash, or cache_quoted_settings_hash */
    cache_stamp *files; /* files[0] is the source, the rest its dependencies */
    size_t file_count;
    strlist absent; /* paths it looked for that were not there */
    strlist outputs;
    strlist references; /* sources it names but does not read (a level's models) */
    cook_manifest_list manifest;
    bytebuf diagnostics; /* what its cook printed (warnings, notes): whole lines */
    /* The build that last cooked it (kiln_cache.build's numbering) and its
     * seconds per cook stage then; 0: not known (a record from a remote
     * cache, a journal, or a format 2 file). */
    uint32_t cooked_in;
    double stage_seconds[COOK_STAGE_COUNT];
} cache_record;

typedef struct kiln_cache {
    uint32_t encoder_version;
    /* Format 3: the number of the last build that cooked anything (each such
     * build counts one up); written with the records' times when `timed`. */
    uint32_t build;
    bool timed;
    bool from_journal;     /* records of a killed build were merged (build/journal.c) */
    cache_record *records; /* sorted by source */
    size_t count;
    size_t cap;
} kiln_cache;

/* The number a build after `old` gives the records it cooks. */
static inline uint32_t cache_next_build(const kiln_cache *old) {
    return old->build < UINT32_MAX ? old->build + 1 : old->build;
}

/* Parses a cache file image. On failure returns false with a reason and
 * leaves `cache` empty. */
bool cache_parse(kiln_cache *cache, const uint8_t *data, size_t size, char *reason,
                 size_t reason_size);
/* Reads and parses <output>/.kiln-cache: CACHE_READ_ABSENT when there is no
 * such file (no build yet), CACHE_READ_BAD with a reason when it cannot be
 * read or trusted (`cache` left empty either way). *path (may be NULL) gets
 * the file's path, for messages; the caller frees it. */
typedef enum { CACHE_READ_OK, CACHE_READ_ABSENT, CACHE_READ_BAD } cache_read_status;
cache_read_status cache_read_folder(const char *output, kiln_cache *cache, char **path,
                                    char *reason, size_t reason_size);
/* Serialises the cache (records must be sorted by source). */
void cache_serialize(const kiln_cache *cache, bytebuf *out);

/* Appends a record (takes ownership of its contents; zeroes *record). */
bool cache_add(kiln_cache *cache, cache_record *record);
/* Appends a shallow copy: the record's strings stay its owner's, so such a
 * cache is never cache_free'd (its records array is freed alone). */
bool cache_append_shared(kiln_cache *cache, const cache_record *record);
/* The record of a source, by binary search, or NULL. */
const cache_record *cache_find(const kiln_cache *cache, const char *source);
void cache_free(kiln_cache *cache);
void cache_record_free(cache_record *record);
bool cache_record_copy(cache_record *to, const cache_record *from);

/* Fills a stamp's size, mtime and inode from stat(input/path), and points its
 * path at `path` (borrowed). False when the file is gone. */
bool cache_stamp_file(const char *input, const char *path, cache_stamp *stamp);
/* Same path, size, mtime and inode (the hash is not compared). */
bool cache_stamps_equal(const cache_stamp *a, const cache_stamp *b);
/* Reads and hashes input/path (see the header comment). */
bool cache_hash_file(const char *input, const char *path, uint64_t *hash);
/* The hash cache_hash_file gives a regular file at `path` holding `bytes`:
 * for bytes already in memory. False when out of memory. */
bool cache_hash_bytes(const char *path, const void *bytes, size_t size, uint64_t *hash);
/* True when nothing is at input/path (stat fails): an absent path still is. */
bool cache_path_absent(const char *input, const char *path);
/* XXH3-64 of the settings' JSON (cook_settings_to_json), computed once per
 * distinct settings of a build rather than once per asset. */
uint64_t cache_settings_hash(const cook_settings *settings);
/* The settings hash of a record with diagnostics: `settings_hash` and what
 * its messages may quote beyond the settings (where kiln.yml set
 * texture.format), so that a replay never prints a stale kiln.yml line. */
uint64_t cache_quoted_settings_hash(uint64_t settings_hash, const cook_settings *settings);

/* ---------------------------------------------------------------------------
 * Stores: where a build finds and keeps records
 * ------------------------------------------------------------------------- */

/* A place cache records live, addressed by the key that decides a hit: the
 * source path. A record found is a candidate, not yet a hit: the build checks
 * it (importer, settings hash, encoder version, the bytes of every file it
 * read, the paths it did not find, its outputs) and cooks when it does not
 * hold. A build tries its stores in order, the local folder first; a remote
 * one (HTTP, WebDAV, Redis) would be a further implementation of these four
 * operations, whose lookup also brings the record's outputs into the output
 * folder, so that the check finds them. Calls come from the build's worker
 * threads (lookup) and from the thread that runs the build (the rest). */
typedef struct build_cache_store {
    const char *name; /* for messages: "local" */
    void *state;
    /* The record of `source`, or NULL; it stays valid until close. */
    const cache_record *(*lookup)(void *state, const char *source);
    /* Keeps a record for the next build (records come in source order;
     * borrowed until close). False when it cannot. */
    bool (*store)(void *state, const cache_record *record);
    /* Ends the build's use of the store: with `commit`, what store was
     * told is made to last (the local store writes its file), false
     * with a reason when it could not; without (a dry run, a no-op build),
     * it is dropped. Frees the state either way. */
    bool (*close)(void *state, bool commit, char *reason, size_t reason_size);
} build_cache_store;

/* A path safe to record: relative, no "." or ".." component, no empty
 * component, no tab or newline (the format could not hold it). */
bool cache_path_is_safe(const char *path);

#endif /* KILN_BUILD_CACHE_H */
