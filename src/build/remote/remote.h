/*
 * build/remote/remote.h — the remote cache: cooked assets shared between
 * machines through servers a studio already runs (docs/team.md).
 *
 * The local cache (build/cache.h) decides first. On a local miss the build
 * asks each remote server in order for the asset; a hit writes its outputs
 * into the output folder and gives the build a record as if it had cooked;
 * after a cook (read-write mode) the build uploads what it made.
 *
 * Two keys per asset, both XXH3-128 in hex (entry.c):
 *
 *   index key  what is known before cooking: the toolchain (kiln's version
 *              and encoder version), the importer, the settings hash, the
 *              source path and the hash of its bytes.
 *              → an index: the files that asset's cook read and the paths it
 *                looked for and did not find
 *   entry key  the index key, then each listed file's path and hash here,
 *              and whether each absent path is still absent here.
 *              → an entry: the cache record and every output's bytes,
 *                Zstd-compressed, with a checksum
 *
 * So a source whose texture changed finds the index, hashes its own texture
 * and asks for an entry nobody made yet (a miss), while the entries of both
 * versions stay on the server for the branches that use each.
 *
 * Nothing a server says is trusted: an entry is checked (magic, its own key,
 * sizes, checksum, the record's source, importer, settings and encoder, every
 * file hash against this machine's) before a byte is written to the output
 * folder. Anything wrong is a miss and a warning. A server that fails (down,
 * refusing the credentials, timing out, answering garbage) is warned about
 * once and not asked again this build: the remote cache never fails a build.
 */
#ifndef KILN_BUILD_REMOTE_REMOTE_H
#define KILN_BUILD_REMOTE_REMOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "build/cache.h"
#include "cook/cook.h"

#define REMOTE_MAX_SERVERS 8
/* The default cap on one entry's size (uploads above it are skipped, with a
 * note; downloads above it are refused). */
#define REMOTE_DEFAULT_MAX_ENTRY (256ull << 20)

/* Environment variables (docs/team.md). */
#define REMOTE_ENV_URLS "KILN_REMOTE_CACHE"
#define REMOTE_ENV_MODE "KILN_REMOTE_CACHE_MODE"
#define REMOTE_ENV_TOKEN "KILN_REMOTE_CACHE_TOKEN"
#define REMOTE_ENV_TOKEN_FILE "KILN_REMOTE_CACHE_TOKEN_FILE"
#define REMOTE_ENV_NETRC "KILN_REMOTE_CACHE_NETRC"
#define REMOTE_ENV_CA_FILE "KILN_REMOTE_CACHE_CA_FILE"
#define REMOTE_ENV_MAX_UPLOAD "KILN_REMOTE_CACHE_MAX_UPLOAD"
/* Milliseconds for one attempt of one operation (tests shorten it). */
#define REMOTE_ENV_TIMEOUT "KILN_REMOTE_CACHE_TIMEOUT_MS"

typedef enum remote_mode {
    REMOTE_MODE_UNSET = 0,
    REMOTE_MODE_READ_WRITE,
    REMOTE_MODE_READ_ONLY,
} remote_mode;

/* "read-write" / "read-only" → the mode; REMOTE_MODE_UNSET for anything else. */
remote_mode remote_mode_parse(const char *text);

/* What one build did with its remote servers (`kiln build --json`'s "remote"). */
typedef struct remote_stats {
    size_t hits;    /* assets whose outputs came from a server */
    size_t misses;  /* assets asked for and not found (or not trusted) */
    size_t uploads; /* entries stored */
    size_t errors;  /* failed operations (each server warned about once) */
    uint64_t bytes_down;
    uint64_t bytes_up;
    double seconds_waiting; /* summed over the threads that waited */
} remote_stats;

/* Where a build's remote settings come from, resolved by remote_cache_open:
 * the command line, then the environment, then kiln.yml, then the default. */
typedef struct remote_request {
    const char *urls;           /* --remote-cache "URL[,URL...]", or NULL */
    bool off;                   /* --no-remote-cache */
    remote_mode mode;           /* --remote-cache-mode, or UNSET */
    const strlist *config_urls; /* kiln.yml's cache.remote (may be NULL) */
    remote_mode config_mode;    /* kiln.yml's cache.remote_mode */
    uint64_t config_max_upload; /* kiln.yml's cache.max_upload; 0: unset */
    uint32_t encoder_version;
} remote_request;

typedef struct remote_cache remote_cache;

/* Says one line of warning (no '\n'); called from any thread, serialised by
 * the remote cache. */
typedef void (*remote_warn_fn)(void *context, const char *line);

/* The build's remote cache, or NULL when none is configured (or out of
 * memory). A URL that cannot be used and a token file that cannot be read
 * are warned about; the other servers still serve. */
remote_cache *remote_cache_open(const remote_request *request, remote_warn_fn warn,
                                void *warn_context);
bool remote_cache_writes(const remote_cache *remote);
/* "2 servers (read-only)" for the summary line. */
void remote_cache_describe(const remote_cache *remote, char *out, size_t out_size);

/* One asset, as both keys see it. */
typedef struct remote_asset {
    const char *input;  /* the input folder */
    const char *output; /* the output folder */
    const char *source; /* relative to the input */
    const char *importer;
    uint64_t settings;        /* the plain settings hash (plan) */
    uint64_t quoted_settings; /* cache_quoted_settings_hash of it */
} remote_asset;

/* Asks the servers in order. On a hit the outputs are written into the
 * output folder, *record is filled (owned by the caller: stamps of this
 * machine, hashes checked) and true is returned. False on a miss or a
 * failure (counted, and warned about where something was wrong). */
bool remote_cache_fetch(remote_cache *remote, const remote_asset *asset, cache_record *record);

/* Stores a freshly cooked asset (its record and its outputs, read back from
 * the output folder) on every server still answering, in read-write mode;
 * an entry over the size cap is skipped with a note. */
void remote_cache_upload(remote_cache *remote, const remote_asset *asset,
                         const cache_record *record);

void remote_cache_stats(const remote_cache *remote, remote_stats *stats);
void remote_cache_close(remote_cache *remote);

/* ---------------------------------------------------------------------------
 * entry.c: keys, indexes and entries (no I/O besides hashing local files)
 * ------------------------------------------------------------------------- */

#define REMOTE_KEY_HEX 32 /* XXH3-128 */

/* What the cook of an asset read and did not find (the index). */
typedef struct remote_index {
    strlist files;  /* dependency paths, in the record's order (not the source) */
    strlist absent; /* paths it looked for */
} remote_index;

void remote_index_free(remote_index *index);
/* The index of a record. */
bool remote_index_of_record(const cache_record *record, remote_index *index);
void remote_index_serialize(const remote_index *index, bytebuf *out);
bool remote_index_parse(const uint8_t *data, size_t size, remote_index *index, char *reason,
                        size_t reason_size);

/* The index key; source_hash is cache_hash_file's of the source. */
void remote_index_key(uint32_t encoder_version, const remote_asset *asset, uint64_t source_hash,
                      char key[REMOTE_KEY_HEX + 1]);
/* The entry key: the index key, the hash of every listed file (hashes[i]
 * of index->files.items[i]) and the absence of every absent path. */
void remote_entry_key(const char *index_key, const remote_index *index, const uint64_t *hashes,
                      const bool *still_absent, char key[REMOTE_KEY_HEX + 1]);
/* The path of a key on a server: "kiln/1/<kind>/<first 2 hex>/<key>". */
void remote_key_path(const char *kind, const char *key, char *path, size_t path_size);

/* An entry: the record (one-record cache image) and each output's bytes in
 * the record's order, read from output_root. False with a reason when an
 * output cannot be read or the whole passes max_size. */
bool remote_entry_encode(const char *entry_key, const cache_record *record,
                         uint32_t encoder_version, const char *output_root, uint64_t max_size,
                         bytebuf *out, char *reason, size_t reason_size);
/* Checks and opens an entry: *record (caller frees) and the outputs as
 * slices of *payload (caller frees payload->data; sizes[i] and offsets[i]
 * per record output, arrays the caller frees). */
typedef struct remote_entry {
    cache_record record;
    uint8_t *payload;
    size_t payload_size;
    size_t *offsets;
    size_t *sizes;
} remote_entry;
bool remote_entry_decode(const uint8_t *data, size_t size, const char *entry_key,
                         uint32_t encoder_version, uint64_t max_size, remote_entry *entry,
                         char *reason, size_t reason_size);
void remote_entry_free(remote_entry *entry);

#endif /* KILN_BUILD_REMOTE_REMOTE_H */
