/*
 * cache.h — the incremental build cache, <output>/.kiln-cache.
 *
 * One record per source asset that cooked successfully: the stamps (size,
 * mtime, inode) and a content hash of its source and every dependency, its
 * key, the files it wrote and the manifest entries it produced. A build
 * skips an asset whose key is unchanged and whose outputs all exist, and
 * replays the record instead of cooking.
 *
 *   key     = XXH3-64(content, XXH3-64(settings JSON), encoder version, importer name)
 *   content = XXH3-64 over (path, size, bytes) of the source then each dependency
 *
 * When every stamp matches, the recorded content hash is trusted and no
 * source byte is read (the fast path of a no-op build).
 *
 * File format (text, one record after another; fields separated by tabs, the
 * path always last so it may hold spaces):
 *
 *   kiln-cache 1
 *   encoder <N>
 *   asset <importer> <key hex> <content hex> <source path>
 *   file <size> <mtime ns> <inode> <path>      source first, then dependencies
 *   out <path>                                 relative to the output folder
 *   link <path>                                another source the asset references
 *   ref <kind> <color space> <index> <ref> <path>
 *   ...
 *   end <XXH3-64 hex of every byte before this line>
 *
 * Anything else — a wrong first line, a bad field, a path that climbs out of
 * its folder, a checksum mismatch — makes the whole file untrusted.
 */
#ifndef KILN_CLI_CACHE_H
#define KILN_CLI_CACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "cook/cook.h"

#define CACHE_FILE_NAME ".kiln-cache"
#define CACHE_FORMAT_VERSION 1u

typedef struct cache_stamp {
    char *path; /* relative to the input folder */
    uint64_t size;
    int64_t mtime_ns;
    uint64_t inode;
} cache_stamp;

typedef struct cache_record {
    char *source;
    char *importer;
    uint64_t key;
    uint64_t content;
    cache_stamp *files; /* files[0] is the source, the rest its dependencies */
    size_t file_count;
    strlist outputs;
    strlist references; /* sources it names but does not read (a level's models) */
    cook_manifest_list manifest;
} cache_record;

typedef struct kiln_cache {
    uint32_t encoder_version;
    cache_record *records; /* sorted by source */
    size_t count;
    size_t cap;
} kiln_cache;

/* Parses a cache file image. On failure returns false with a reason and
 * leaves `cache` empty. */
bool cache_parse(kiln_cache *cache, const uint8_t *data, size_t size, char *reason,
                 size_t reason_size);
/* Serialises the cache (records must be sorted by source). */
void cache_serialize(const kiln_cache *cache, bytebuf *out);

/* Appends a record (takes ownership of its contents; zeroes *record). */
bool cache_add(kiln_cache *cache, cache_record *record);
/* The record of a source, by binary search, or NULL. */
const cache_record *cache_find(const kiln_cache *cache, const char *source);
void cache_free(kiln_cache *cache);
void cache_record_free(cache_record *record);
bool cache_record_copy(cache_record *to, const cache_record *from);

/* Fills a stamp from stat(input/path). False when the file is gone. */
bool cache_stamp_file(const char *input, const char *path, cache_stamp *stamp);
bool cache_stamps_equal(const cache_stamp *a, const cache_stamp *b);
/* Reads and hashes the files of `stamps` (see the header comment). */
bool cache_hash_content(const char *input, const cache_stamp *stamps, size_t count,
                        uint64_t *content);
/* XXH3-64 of the settings' JSON (cook_settings_to_json), computed once per
 * distinct settings of a build rather than once per asset. */
uint64_t cache_settings_hash(const cook_settings *settings);
uint64_t cache_key(uint64_t content, uint64_t settings_hash, uint32_t encoder_version,
                   const char *importer);

/* A path safe to record: relative, no "." or ".." component, no empty
 * component, no tab or newline (the format could not hold it). */
bool cache_path_is_safe(const char *path);

#endif /* KILN_CLI_CACHE_H */
