/*
 * remote.c — the build's remote cache (remote.h): the servers of
 * --remote-cache / KILN_REMOTE_CACHE / kiln.yml, asked in order on a local
 * miss and written after a cook.
 *
 * Why a server is dropped for the rest of the build after its first failure:
 * a server that is down or refusing would otherwise cost a timeout (and a
 * warning) per asset. One warning per server, then local cooking.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "build/build.h"
#include "build/remote/remote.h"
#include "build/remote/transport.h"

#define INDEX_MAX_SIZE (16u << 20)
#define TOKEN_FILE_MAX (64u << 10)

typedef struct remote_server {
    remote_transport transport;
    atomic_bool down; /* failed once: not asked again this build */
} remote_server;

struct remote_cache {
    remote_server servers[REMOTE_MAX_SERVERS];
    size_t count;
    remote_mode mode;
    uint64_t max_entry;
    uint32_t encoder_version;
    char *token;
    char *netrc;
    char *ca_file;
    remote_options options;
    remote_warn_fn warn;
    void *warn_context;
    pthread_mutex_t lock; /* stats and warnings */
    remote_stats stats;
};

remote_mode remote_mode_parse(const char *text) {
    if (text == NULL)
        return REMOTE_MODE_UNSET;
    if (strcmp(text, "read-write") == 0)
        return REMOTE_MODE_READ_WRITE;
    if (strcmp(text, "read-only") == 0)
        return REMOTE_MODE_READ_ONLY;
    return REMOTE_MODE_UNSET;
}

static void say(remote_cache *remote, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(remote_cache *remote, const char *fmt, ...) {
    char line[1024];
    va_list args;
    va_start(args, fmt);
    vsnprintf(line, sizeof line, fmt, args);
    va_end(args);
    pthread_mutex_lock(&remote->lock);
    if (remote->warn != NULL)
        remote->warn(remote->warn_context, line);
    pthread_mutex_unlock(&remote->lock);
}

static double seconds_since(const struct timespec *start) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - start->tv_sec) + (double)(now.tv_nsec - start->tv_nsec) / 1e9;
}

/* Counts one operation's wait and bytes. */
static void account(remote_cache *remote, const struct timespec *start, uint64_t down,
                    uint64_t up) {
    double waited = seconds_since(start);
    pthread_mutex_lock(&remote->lock);
    remote->stats.seconds_waiting += waited;
    remote->stats.bytes_down += down;
    remote->stats.bytes_up += up;
    pthread_mutex_unlock(&remote->lock);
}

/* A transport's reason without the server's label it starts with, when it
 * does: the warning names the server once. */
static const char *without_label(const char *reason, const char *label) {
    size_t length = strlen(label);
    if (strncmp(reason, label, length) == 0 && strncmp(reason + length, ": ", 2) == 0)
        return reason + length + 2;
    return reason;
}

/* The first failure of a server: counted, warned about once, and the server
 * is asked nothing more this build. Later failures (threads that were already
 * waiting on it) are only counted. */
static void server_failed(remote_cache *remote, remote_server *server, remote_status status,
                          const char *reason) {
    bool was_down = atomic_exchange(&server->down, true);
    pthread_mutex_lock(&remote->lock);
    remote->stats.errors++;
    pthread_mutex_unlock(&remote->lock);
    const char *label = server->transport.label;
    reason = without_label(reason, label);
    if (!was_down)
        say(remote, "kiln: warning: remote cache %s: %s%s; building without it", label, reason,
            status == REMOTE_REFUSED ? " (check KILN_REMOTE_CACHE_TOKEN or the netrc file)" : "");
}

/* ---------------------------------------------------------------------------
 * Opening
 * ------------------------------------------------------------------------- */

/* The token: KILN_REMOTE_CACHE_TOKEN, or the first line of the file
 * KILN_REMOTE_CACHE_TOKEN_FILE names. NULL when neither is set (or the file
 * cannot be read: warned, naming the file and never its content). */
static char *read_token(remote_cache *remote) {
    const char *token = getenv(REMOTE_ENV_TOKEN);
    if (token != NULL && token[0] != '\0')
        return cook_strdup(token);
    const char *file = getenv(REMOTE_ENV_TOKEN_FILE);
    if (file == NULL || file[0] == '\0')
        return NULL;
    uint8_t *bytes = NULL;
    size_t size = 0;
    char reason[256] = "";
    if (!cook_read_file(file, TOKEN_FILE_MAX, &bytes, &size, reason, sizeof reason)) {
        say(remote, "kiln: warning: %s names '%s', which cannot be read (%s): no token is sent",
            REMOTE_ENV_TOKEN_FILE, file, reason);
        return NULL;
    }
    size_t length = 0;
    while (length < size && bytes[length] != '\n' && bytes[length] != '\r' && bytes[length] != 0)
        length++;
    while (length > 0 && (bytes[length - 1] == ' ' || bytes[length - 1] == '\t'))
        length--;
    char *text = malloc(length + 1);
    if (text != NULL) {
        memcpy(text, bytes, length);
        text[length] = '\0';
    }
    memset(bytes, 0, size); /* do not leave the secret in freed memory */
    free(bytes);
    if (text != NULL && text[0] == '\0') {
        say(remote, "kiln: warning: the token file %s names is empty: no token is sent",
            REMOTE_ENV_TOKEN_FILE);
        free(text);
        text = NULL;
    }
    return text;
}

static bool starts_with(const char *text, const char *prefix) {
    return strncmp(text, prefix, strlen(prefix)) == 0;
}

/* Opens the transport of one URL (spaces around it trimmed) into the next
 * server slot; a URL that cannot be used is warned about. */
static void add_server(remote_cache *remote, const char *url, size_t length) {
    while (length > 0 && (*url == ' ' || *url == '\t')) {
        url++;
        length--;
    }
    while (length > 0 && (url[length - 1] == ' ' || url[length - 1] == '\t'))
        length--;
    if (length == 0)
        return;
    char *text = malloc(length + 1);
    if (text == NULL)
        return;
    memcpy(text, url, length);
    text[length] = '\0';
    char label[256];
    remote_url_label(text, label, sizeof label);
    char reason[256] = "";
    remote_server *server = &remote->servers[remote->count];
    bool ok = false;
    if (remote->count == REMOTE_MAX_SERVERS)
        snprintf(reason, sizeof reason, "more than %d servers", REMOTE_MAX_SERVERS);
    else if (starts_with(text, "http://") || starts_with(text, "https://"))
        ok = remote_http_open(&server->transport, text, &remote->options, reason, sizeof reason);
    else if (starts_with(text, "redis://"))
        ok = remote_redis_open(&server->transport, text, &remote->options, reason, sizeof reason);
    else if (starts_with(text, "file://"))
        ok = remote_folder_open(&server->transport, text, reason, sizeof reason);
    else
        snprintf(reason, sizeof reason, "not an http://, https://, redis:// or file:// URL");
    memset(text, 0, length); /* it may hold a password */
    free(text);
    if (ok) {
        atomic_init(&server->down, false);
        remote->count++;
    } else {
        say(remote, "kiln: warning: remote cache %s: %s; building without it", label,
            without_label(reason, label));
    }
}

static void add_servers(remote_cache *remote, const char *list) {
    for (const char *at = list; *at != '\0';) {
        const char *comma = strchr(at, ',');
        size_t length = comma ? (size_t)(comma - at) : strlen(at);
        add_server(remote, at, length);
        at += length + (comma ? 1 : 0);
    }
}

static bool has_text(const char *text) {
    return text != NULL && text[0] != '\0';
}

remote_cache *remote_cache_open(const remote_request *request, remote_warn_fn warn,
                                void *warn_context) {
    if (request->off)
        return NULL;
    const char *urls = has_text(request->urls) ? request->urls : getenv(REMOTE_ENV_URLS);
    bool from_config = !has_text(urls);
    if (from_config && (request->config_urls == NULL || request->config_urls->count == 0))
        return NULL;
    remote_cache *remote = calloc(1, sizeof *remote);
    if (remote == NULL)
        return NULL;
    pthread_mutex_init(&remote->lock, NULL);
    remote->warn = warn;
    remote->warn_context = warn_context;
    remote->encoder_version = request->encoder_version;

    const char *mode_text = getenv(REMOTE_ENV_MODE);
    remote->mode = request->mode;
    if (remote->mode == REMOTE_MODE_UNSET && has_text(mode_text)) {
        remote->mode = remote_mode_parse(mode_text);
        if (remote->mode == REMOTE_MODE_UNSET) { /* the safe side: never write */
            say(remote, "kiln: warning: %s is '%.40s', not read-write or read-only: reading only",
                REMOTE_ENV_MODE, mode_text);
            remote->mode = REMOTE_MODE_READ_ONLY;
        }
    }
    if (remote->mode == REMOTE_MODE_UNSET)
        remote->mode = request->config_mode != REMOTE_MODE_UNSET ? request->config_mode
                                                                 : REMOTE_MODE_READ_WRITE;

    remote->max_entry =
        request->config_max_upload ? request->config_max_upload : REMOTE_DEFAULT_MAX_ENTRY;
    const char *cap = getenv(REMOTE_ENV_MAX_UPLOAD);
    if (has_text(cap) && !build_parse_size(cap, &remote->max_entry))
        say(remote, "kiln: warning: %s is '%.40s', not a size such as 64M: ignored",
            REMOTE_ENV_MAX_UPLOAD, cap);

    remote->token = read_token(remote);
    const char *netrc = getenv(REMOTE_ENV_NETRC);
    remote->netrc = has_text(netrc) ? cook_strdup(netrc) : NULL;
    const char *ca_file = getenv(REMOTE_ENV_CA_FILE);
    remote->ca_file = has_text(ca_file) ? cook_strdup(ca_file) : NULL;
    const char *timeout = getenv(REMOTE_ENV_TIMEOUT);
    remote->options = (remote_options){
        .token = remote->token,
        .netrc_file = remote->netrc,
        .ca_file = remote->ca_file,
        .timeout_ms = has_text(timeout) ? strtol(timeout, NULL, 10) : 0,
        .retries = 2,
    };
    if (from_config) {
        for (size_t i = 0; i < request->config_urls->count; i++)
            add_servers(remote, request->config_urls->items[i]);
    } else {
        add_servers(remote, urls);
    }
    if (remote->count == 0) {
        remote_cache_close(remote);
        return NULL;
    }
    return remote;
}

bool remote_cache_writes(const remote_cache *remote) {
    return remote != NULL && remote->mode == REMOTE_MODE_READ_WRITE;
}

void remote_cache_describe(const remote_cache *remote, char *out, size_t out_size) {
    snprintf(out, out_size, "%zu server%s (%s)", remote->count, remote->count == 1 ? "" : "s",
             remote->mode == REMOTE_MODE_READ_ONLY ? "read-only" : "read-write");
}

void remote_cache_stats(const remote_cache *remote, remote_stats *stats) {
    pthread_mutex_lock((pthread_mutex_t *)&remote->lock);
    *stats = remote->stats;
    pthread_mutex_unlock((pthread_mutex_t *)&remote->lock);
}

void remote_cache_close(remote_cache *remote) {
    if (remote == NULL)
        return;
    for (size_t i = 0; i < remote->count; i++) {
        if (remote->servers[i].transport.close != NULL)
            remote->servers[i].transport.close(remote->servers[i].transport.state);
    }
    if (remote->token != NULL) {
        memset(remote->token, 0, strlen(remote->token));
        free(remote->token);
    }
    free(remote->netrc);
    free(remote->ca_file);
    pthread_mutex_destroy(&remote->lock);
    free(remote);
}

/* ---------------------------------------------------------------------------
 * Fetching
 * ------------------------------------------------------------------------- */

/* The hashes and absences an asset's entry key needs, computed here. */
typedef struct local_view {
    uint64_t *hashes;   /* per index->files */
    bool *still_absent; /* per index->absent */
} local_view;

static bool look_at_files(const remote_asset *asset, const remote_index *index, local_view *view) {
    view->hashes = calloc(index->files.count ? index->files.count : 1, sizeof *view->hashes);
    view->still_absent =
        calloc(index->absent.count ? index->absent.count : 1, sizeof *view->still_absent);
    if (view->hashes == NULL || view->still_absent == NULL)
        return false;
    for (size_t i = 0; i < index->files.count; i++) {
        /* A file the cook read that is gone here: no entry can be right. */
        if (!cache_hash_file(asset->input, index->files.items[i], &view->hashes[i]))
            return false;
    }
    for (size_t i = 0; i < index->absent.count; i++)
        view->still_absent[i] = cache_path_absent(asset->input, index->absent.items[i]);
    return true;
}

static void free_view(local_view *view) {
    free(view->hashes);
    free(view->still_absent);
}

/* The decoded record is this asset's, as this machine sees it: the reason
 * why not, or NULL. */
static const char *record_mismatch(const cache_record *record, const remote_asset *asset,
                                   uint64_t source_hash, const remote_index *index,
                                   const local_view *view) {
    if (strcmp(record->source, asset->source) != 0 || strcmp(record->importer, asset->importer))
        return "it is another asset's";
    uint64_t settings = record->diagnostics.size > 0 ? asset->quoted_settings : asset->settings;
    if (record->settings != settings)
        return "it was cooked with other settings";
    if (record->file_count != index->files.count + 1 || record->files[0].hash != source_hash ||
        strcmp(record->files[0].path, asset->source) != 0)
        return "its source does not match";
    for (size_t i = 0; i < index->files.count; i++) {
        if (strcmp(record->files[i + 1].path, index->files.items[i]) != 0 ||
            record->files[i + 1].hash != view->hashes[i])
            return "a file it read does not match";
    }
    if (record->absent.count != index->absent.count)
        return "the paths it looked for do not match";
    for (size_t i = 0; i < index->absent.count; i++) {
        if (strcmp(record->absent.items[i], index->absent.items[i]) != 0 || !view->still_absent[i])
            return "the paths it looked for do not match";
    }
    return NULL;
}

/* One output's bytes for write_file_staged_stream. */
typedef struct output_bytes {
    const uint8_t *data;
    size_t size;
} output_bytes;

static bool produce_output(void *arg, write_sink sink, void *sink_arg, char *reason,
                           size_t reason_size) {
    (void)reason;
    (void)reason_size;
    const output_bytes *bytes = arg;
    return sink(sink_arg, bytes->data, bytes->size);
}

/* Makes *record the entry's record with this machine's stamps, then writes
 * the entry's outputs as the cooker publishes an asset's (write/emit.c): all
 * to temporaries first, then each renamed into place, so that a failure
 * (a full disk on the third file) leaves the folder as it was. False with a
 * reason. */
static bool install_entry(const remote_asset *asset, remote_entry *entry, cache_record *record,
                          char *reason, size_t reason_size) {
    for (size_t i = 0; i < entry->record.file_count; i++) {
        cache_stamp stamp;
        cache_stamp *was = &entry->record.files[i];
        if (!cache_stamp_file(asset->input, was->path, &stamp)) {
            snprintf(reason, reason_size, "'%s' disappeared", was->path);
            return false;
        }
        was->size = stamp.size;
        was->mtime_ns = stamp.mtime_ns;
        was->inode = stamp.inode;
    }
    size_t count = entry->record.outputs.count;
    char **paths = calloc(count ? count : 1, sizeof *paths);
    char **staged = calloc(count ? count : 1, sizeof *staged);
    bool ok = paths != NULL && staged != NULL;
    if (!ok)
        snprintf(reason, reason_size, "out of memory");
    for (size_t i = 0; ok && i < count; i++) {
        output_bytes bytes = {entry->payload + entry->offsets[i], entry->sizes[i]};
        paths[i] = cook_path_join(asset->output, entry->record.outputs.items[i]);
        ok = paths[i] != NULL && write_file_staged_stream(paths[i], bytes.size, produce_output,
                                                          &bytes, &staged[i], reason, reason_size);
    }
    for (size_t i = 0; i < count && paths != NULL && staged != NULL; i++) {
        if (staged[i] == NULL) {
            /* nothing staged for it */
        } else if (ok) {
            ok = write_file_publish(staged[i], paths[i], reason, reason_size);
        } else {
            unlink(staged[i]);
            free(staged[i]);
        }
        free(paths[i]);
    }
    free(paths);
    free(staged);
    if (ok) {
        *record = entry->record;
        entry->record = (cache_record){0};
    }
    return ok;
}

/* Asks one server. True on a hit (*record filled). */
static bool fetch_from(remote_cache *remote, remote_server *server, const remote_asset *asset,
                       uint64_t source_hash, const char *index_key, cache_record *record) {
    char path[REMOTE_MAX_KEY], reason[256] = "";
    remote_key_path("i", index_key, path, sizeof path);
    bytebuf bytes = {0};
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    remote_status status = server->transport.get(server->transport.state, path, INDEX_MAX_SIZE,
                                                 &bytes, reason, sizeof reason);
    account(remote, &start, bytes.size, 0);
    if (status != REMOTE_OK) {
        if (status != REMOTE_MISSING)
            server_failed(remote, server, status, reason);
        bytebuf_free(&bytes);
        return false;
    }
    remote_index index;
    bool parsed = remote_index_parse(bytes.data, bytes.size, &index, reason, sizeof reason);
    bytebuf_free(&bytes);
    if (!parsed) {
        say(remote,
            "kiln: warning: remote cache %s: the entry of '%s' cannot be used (%s): "
            "cooking it",
            server->transport.label, asset->source, reason);
        return false;
    }
    local_view view = {0};
    bool hit = false;
    if (look_at_files(asset, &index, &view)) {
        char entry_key[REMOTE_KEY_HEX + 1];
        remote_entry_key(index_key, &index, view.hashes, view.still_absent, entry_key);
        remote_key_path("e", entry_key, path, sizeof path);
        uint64_t slack = remote->max_entry / 64 + 4096; /* Zstd's framing of the payload */
        uint64_t max = remote->max_entry > SIZE_MAX - slack ? SIZE_MAX : remote->max_entry + slack;
        clock_gettime(CLOCK_MONOTONIC, &start);
        status = server->transport.get(server->transport.state, path, (size_t)max, &bytes, reason,
                                       sizeof reason);
        account(remote, &start, bytes.size, 0);
        remote_entry entry = {0};
        const char *wrong = NULL;
        if (status == REMOTE_OK) {
            if (!remote_entry_decode(bytes.data, bytes.size, entry_key, remote->encoder_version,
                                     remote->max_entry, &entry, reason, sizeof reason))
                wrong = reason;
            else if ((wrong = record_mismatch(&entry.record, asset, source_hash, &index, &view)))
                ;
            else if (!install_entry(asset, &entry, record, reason, sizeof reason))
                wrong = reason;
            else
                hit = true;
            if (wrong != NULL)
                say(remote,
                    "kiln: warning: remote cache %s: the entry of '%s' cannot be used (%s): "
                    "cooking it",
                    server->transport.label, asset->source, wrong);
        } else if (status != REMOTE_MISSING) {
            server_failed(remote, server, status, reason);
        }
        remote_entry_free(&entry);
        bytebuf_free(&bytes);
    }
    free_view(&view);
    remote_index_free(&index);
    return hit;
}

bool remote_cache_fetch(remote_cache *remote, const remote_asset *asset, cache_record *record) {
    uint64_t source_hash;
    bool hit = false;
    if (cache_hash_file(asset->input, asset->source, &source_hash)) {
        char index_key[REMOTE_KEY_HEX + 1];
        remote_index_key(remote->encoder_version, asset, source_hash, index_key);
        for (size_t s = 0; !hit && s < remote->count; s++) {
            remote_server *server = &remote->servers[s];
            if (!atomic_load(&server->down))
                hit = fetch_from(remote, server, asset, source_hash, index_key, record);
        }
    }
    pthread_mutex_lock(&remote->lock);
    if (hit)
        remote->stats.hits++;
    else
        remote->stats.misses++;
    pthread_mutex_unlock(&remote->lock);
    return hit;
}

/* ---------------------------------------------------------------------------
 * Uploading
 * ------------------------------------------------------------------------- */

static bool put_bytes(remote_cache *remote, remote_server *server, const char *path,
                      const bytebuf *bytes) {
    char reason[256] = "";
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    remote_status status = server->transport.put(server->transport.state, path, bytes->data,
                                                 bytes->size, reason, sizeof reason);
    account(remote, &start, 0, status == REMOTE_OK ? bytes->size : 0);
    if (status != REMOTE_OK)
        server_failed(remote, server, status, reason);
    return status == REMOTE_OK;
}

/* Stores the entry (unless the server has it: another machine cooked the
 * same) and then the index that leads to it. */
static void upload_to(remote_cache *remote, remote_server *server, const char *index_path,
                      const bytebuf *index, const char *entry_path, const bytebuf *entry) {
    char reason[256] = "";
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    remote_status has =
        server->transport.exists(server->transport.state, entry_path, reason, sizeof reason);
    account(remote, &start, 0, 0);
    if (has != REMOTE_OK && has != REMOTE_MISSING) {
        server_failed(remote, server, has, reason);
        return;
    }
    bool stored = has == REMOTE_OK || put_bytes(remote, server, entry_path, entry);
    if (stored && put_bytes(remote, server, index_path, index) && has != REMOTE_OK) {
        pthread_mutex_lock(&remote->lock);
        remote->stats.uploads++;
        pthread_mutex_unlock(&remote->lock);
    }
}

void remote_cache_upload(remote_cache *remote, const remote_asset *asset,
                         const cache_record *record) {
    if (!remote_cache_writes(remote) || record->file_count == 0)
        return;
    bool any = false;
    for (size_t s = 0; s < remote->count; s++)
        any = any || !atomic_load(&remote->servers[s].down);
    if (!any)
        return;
    remote_index index;
    if (!remote_index_of_record(record, &index))
        return;
    local_view view = {
        .hashes = calloc(index.files.count ? index.files.count : 1, sizeof *view.hashes),
        .still_absent = calloc(index.absent.count ? index.absent.count : 1, sizeof(bool)),
    };
    bytebuf index_bytes = {0}, entry_bytes = {0};
    char reason[256] = "";
    if (view.hashes != NULL && view.still_absent != NULL) {
        for (size_t i = 0; i < index.files.count; i++)
            view.hashes[i] = record->files[i + 1].hash;
        for (size_t i = 0; i < index.absent.count; i++)
            view.still_absent[i] = true; /* a record lists only what was absent */
        char index_key[REMOTE_KEY_HEX + 1], entry_key[REMOTE_KEY_HEX + 1];
        remote_index_key(remote->encoder_version, asset, record->files[0].hash, index_key);
        remote_entry_key(index_key, &index, view.hashes, view.still_absent, entry_key);
        remote_index_serialize(&index, &index_bytes);
        if (remote_entry_encode(entry_key, record, remote->encoder_version, asset->output,
                                remote->max_entry, &entry_bytes, reason, sizeof reason) &&
            !index_bytes.failed) {
            char index_path[REMOTE_MAX_KEY], entry_path[REMOTE_MAX_KEY];
            remote_key_path("i", index_key, index_path, sizeof index_path);
            remote_key_path("e", entry_key, entry_path, sizeof entry_path);
            for (size_t s = 0; s < remote->count; s++) {
                if (!atomic_load(&remote->servers[s].down))
                    upload_to(remote, &remote->servers[s], index_path, &index_bytes, entry_path,
                              &entry_bytes);
            }
        } else {
            say(remote, "kiln: note: remote cache: '%s' is not uploaded: %s", asset->source,
                reason[0] ? reason : "out of memory");
        }
    }
    bytebuf_free(&index_bytes);
    bytebuf_free(&entry_bytes);
    free_view(&view);
    remote_index_free(&index);
}
