/*
 * cache.c — the incremental build cache file (format in cache.h).
 *
 * The parser is strict: the file lives in a folder users (and interrupted
 * builds) can touch, so any surprise makes the whole file untrusted and the
 * build falls back to cooking everything.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <xxhash.h>

#include "build/internal.h"
#include "common/grow.h"
#include "common/path.h"

#define CACHE_MAGIC_LINE "kiln-cache"
#define CACHE_MAX_FIELDS 6

/* ---------------------------------------------------------------------------
 * Records
 * ------------------------------------------------------------------------- */

void cache_record_free(cache_record *record) {
    free(record->source);
    free(record->importer);
    for (size_t i = 0; i < record->file_count; i++)
        free(record->files[i].path);
    free(record->files);
    strlist_free(&record->absent);
    strlist_free(&record->outputs);
    strlist_free(&record->references);
    cook_manifest_list_free(&record->manifest);
    bytebuf_free(&record->diagnostics);
    *record = (cache_record){0};
}

void cache_free(kiln_cache *cache) {
    for (size_t i = 0; i < cache->count; i++)
        cache_record_free(&cache->records[i]);
    free(cache->records);
    *cache = (kiln_cache){0};
}

bool cache_append_shared(kiln_cache *cache, const cache_record *record) {
    cache_record *records =
        array_grow(cache->records, &cache->cap, cache->count + 1, sizeof *records, 64);
    if (records == NULL)
        return false;
    cache->records = records;
    cache->records[cache->count++] = *record;
    return true;
}

bool cache_add(kiln_cache *cache, cache_record *record) {
    if (!cache_append_shared(cache, record))
        return false;
    *record = (cache_record){0};
    return true;
}

static int compare_record_source(const void *key, const void *element) {
    return strcmp(key, ((const cache_record *)element)->source);
}

const cache_record *cache_find(const kiln_cache *cache, const char *source) {
    if (cache->count == 0)
        return NULL;
    return bsearch(source, cache->records, cache->count, sizeof *cache->records,
                   compare_record_source);
}

static bool push_stamp(cache_record *record, const cache_stamp *stamp) {
    cache_stamp *files = realloc(record->files, (record->file_count + 1) * sizeof *files);
    if (files == NULL)
        return false;
    record->files = files;
    files[record->file_count] = *stamp;
    files[record->file_count].path = cook_strdup(stamp->path);
    return files[record->file_count++].path != NULL;
}

bool cache_record_copy(cache_record *to, const cache_record *from) {
    *to = (cache_record){.settings = from->settings};
    bool ok = (to->source = cook_strdup(from->source)) != NULL &&
              (to->importer = cook_strdup(from->importer)) != NULL;
    for (size_t i = 0; ok && i < from->file_count; i++)
        ok = push_stamp(to, &from->files[i]);
    ok = ok && strlist_push_all(&to->absent, &from->absent);
    ok = ok && strlist_push_all(&to->outputs, &from->outputs);
    ok = ok && strlist_push_all(&to->references, &from->references);
    ok = ok && cook_manifest_add_all(&to->manifest, &from->manifest);
    if (ok && from->diagnostics.size > 0) {
        bytebuf_append(&to->diagnostics, from->diagnostics.data, from->diagnostics.size);
        ok = !to->diagnostics.failed;
    }
    to->cooked_in = from->cooked_in;
    memcpy(to->stage_seconds, from->stage_seconds, sizeof to->stage_seconds);
    if (!ok)
        cache_record_free(to);
    return ok;
}

/* ---------------------------------------------------------------------------
 * Files and hashes
 * ------------------------------------------------------------------------- */

bool cache_path_is_safe(const char *path) {
    if (path[0] == '\0' || path[0] == '/' || strpbrk(path, "\t\n\r") != NULL)
        return false;
    return path_segments_are_names(path);
}

static char *join(const char *dir, const char *name) {
    size_t a = strlen(dir), b = strlen(name);
    char *path = malloc(a + b + 2);
    if (path != NULL) {
        memcpy(path, dir, a);
        path[a] = '/';
        memcpy(path + a + 1, name, b + 1);
    }
    return path;
}

bool cache_stamp_file(const char *input, const char *path, cache_stamp *stamp) {
    char *full = join(input, path);
    struct stat info;
    /* A source may be an asset folder (a cubemap's "sky.env"): its stamp
     * changes when an entry is added, removed or renamed. */
    bool ok =
        full != NULL && stat(full, &info) == 0 && (S_ISREG(info.st_mode) || S_ISDIR(info.st_mode));
    free(full);
    if (!ok)
        return false;
    stamp->path = (char *)path; /* borrowed; push_stamp copies */
    stamp->size = (uint64_t)info.st_size;
    stamp->mtime_ns = (int64_t)info.st_mtim.tv_sec * 1000000000 + info.st_mtim.tv_nsec;
    stamp->inode = (uint64_t)info.st_ino;
    stamp->hash = 0;
    return true;
}

bool cache_path_absent(const char *input, const char *path) {
    char *full = join(input, path);
    struct stat info;
    bool absent = full != NULL && stat(full, &info) != 0;
    free(full);
    return absent;
}

bool cache_stamps_equal(const cache_stamp *a, const cache_stamp *b) {
    return a->size == b->size && a->mtime_ns == b->mtime_ns && a->inode == b->inode &&
           strcmp(a->path, b->path) == 0;
}

static void hash_u64(XXH3_state_t *state, uint64_t value) {
    uint8_t bytes[8];
    for (int i = 0; i < 8; i++)
        bytes[i] = (uint8_t)(value >> (8 * i));
    XXH3_64bits_update(state, bytes, sizeof bytes);
}

/* An asset folder hashes as its path and its sorted visible entry names
 * (the files it uses are dependencies, hashed on their own). */
static bool hash_folder(XXH3_state_t *state, const char *full, const char *path) {
    strlist names = {0};
    char reason[256];
    bool ok = discover_walk(full, NULL, &names, reason, sizeof reason);
    XXH3_64bits_update(state, path, strlen(path) + 1);
    for (size_t i = 0; ok && i < names.count; i++)
        XXH3_64bits_update(state, names.items[i], strlen(names.items[i]) + 1);
    hash_u64(state, names.count);
    strlist_free(&names);
    return ok;
}

/* A file hashes as its path, its bytes and its length, so moving bytes from
 * one file to the next changes the hash: hash_file_begin, the bytes, then
 * hash_file_end with their count. */
static void hash_file_begin(XXH3_state_t *state, const char *path) {
    XXH3_64bits_update(state, path, strlen(path) + 1);
}

static void hash_file_end(XXH3_state_t *state, uint64_t length) {
    hash_u64(state, length);
}

/* Streams one file into the hash. */
static bool hash_one_file(XXH3_state_t *state, const char *input, const char *path) {
    char *full = join(input, path);
    struct stat info;
    if (full != NULL && stat(full, &info) == 0 && S_ISDIR(info.st_mode)) {
        bool ok = hash_folder(state, full, path);
        free(full);
        return ok;
    }
    char reason[160];
    /* A source or dependency turned FIFO since it was cooked never blocks. */
    FILE *file = full ? cook_open_regular(full, NULL, reason, sizeof reason) : NULL;
    free(full);
    if (file == NULL)
        return false;
    hash_file_begin(state, path);
    uint8_t buffer[1 << 16];
    uint64_t total = 0;
    size_t got;
    while ((got = fread(buffer, 1, sizeof buffer, file)) > 0) {
        XXH3_64bits_update(state, buffer, got);
        total += got;
    }
    bool ok = !ferror(file);
    fclose(file);
    hash_file_end(state, total);
    return ok;
}

bool cache_hash_file(const char *input, const char *path, uint64_t *hash) {
    XXH3_state_t *state = XXH3_createState();
    if (state == NULL)
        return false;
    XXH3_64bits_reset(state);
    bool ok = hash_one_file(state, input, path);
    *hash = XXH3_64bits_digest(state);
    XXH3_freeState(state);
    return ok;
}

bool cache_hash_bytes(const char *path, const void *bytes, size_t size, uint64_t *hash) {
    XXH3_state_t *state = XXH3_createState();
    if (state == NULL)
        return false;
    XXH3_64bits_reset(state);
    hash_file_begin(state, path);
    XXH3_64bits_update(state, bytes, size);
    hash_file_end(state, size);
    *hash = XXH3_64bits_digest(state);
    XXH3_freeState(state);
    return true;
}

uint64_t cache_settings_hash(const cook_settings *settings) {
    bytebuf text = {0};
    cook_settings_to_json(settings, &text);
    /* On allocation failure: the hash of an empty text, a miss for every
     * asset cooked with real settings, never a false hit. */
    uint64_t hash = XXH3_64bits(text.data, text.failed ? 0 : text.size);
    bytebuf_free(&text);
    return hash;
}

uint64_t cache_quoted_settings_hash(uint64_t settings_hash, const cook_settings *settings) {
    const char *origin = settings->texture_format_origin;
    return XXH3_64bits_withSeed(origin, strnlen(origin, sizeof settings->texture_format_origin),
                                settings_hash);
}

/* ---------------------------------------------------------------------------
 * Serialising
 * ------------------------------------------------------------------------- */

/* One diagnostics line (without its '\n') as a "diag" line: backslash, tab
 * and CR escaped, so that the line stays one field of one line. */
static void serialize_diag_line(const char *line, size_t length, bytebuf *out) {
    bytebuf_append(out, "diag\t", 5);
    size_t run = 0; /* bytes not yet copied, before `i` */
    for (size_t i = 0; i < length; i++) {
        const char *escape = line[i] == '\\'   ? "\\\\"
                             : line[i] == '\t' ? "\\t"
                             : line[i] == '\r' ? "\\r"
                                               : NULL;
        if (escape == NULL)
            continue;
        bytebuf_append(out, line + run, i - run);
        bytebuf_append(out, escape, 2);
        run = i + 1;
    }
    bytebuf_append(out, line + run, length - run);
    bytebuf_append(out, "\n", 1);
}

static void serialize_record(const cache_record *r, bool timed, bytebuf *out) {
    bytebuf_printf(out, "asset\t%s\t%016" PRIx64 "\t%s\n", r->importer, r->settings, r->source);
    for (size_t i = 0; i < r->file_count; i++)
        bytebuf_printf(out, "file\t%" PRIu64 "\t%" PRId64 "\t%" PRIu64 "\t%016" PRIx64 "\t%s\n",
                       r->files[i].size, r->files[i].mtime_ns, r->files[i].inode, r->files[i].hash,
                       r->files[i].path);
    for (size_t i = 0; i < r->absent.count; i++)
        bytebuf_printf(out, "absent\t%s\n", r->absent.items[i]);
    for (size_t i = 0; i < r->outputs.count; i++)
        bytebuf_printf(out, "out\t%s\n", r->outputs.items[i]);
    for (size_t i = 0; i < r->references.count; i++)
        bytebuf_printf(out, "link\t%s\n", r->references.items[i]);
    for (size_t i = 0; i < r->manifest.count; i++) {
        const cook_manifest_entry *e = &r->manifest.items[i];
        bytebuf_printf(out, "ref\t%u\t%u\t%u\t%s\t%s\n", (unsigned)e->kind,
                       (unsigned)e->color_space, e->index, e->ref, e->path);
    }
    const char *text = (const char *)r->diagnostics.data;
    for (size_t at = 0; at < r->diagnostics.size;) {
        const char *newline = memchr(text + at, '\n', r->diagnostics.size - at);
        size_t length = newline ? (size_t)(newline - (text + at)) : r->diagnostics.size - at;
        serialize_diag_line(text + at, length, out);
        at += length + 1;
    }
    if (timed && r->cooked_in > 0) {
        bytebuf_printf(out, "time\t%u", r->cooked_in);
        for (int stage = 0; stage < COOK_STAGE_COUNT; stage++)
            bytebuf_printf(out, "\t%.6f", r->stage_seconds[stage]);
        bytebuf_printf(out, "\n");
    }
}

void cache_serialize(const kiln_cache *cache, bytebuf *out) {
    size_t start = out->size;
    bytebuf_printf(out, "%s %u\nencoder %u\n", CACHE_MAGIC_LINE,
                   cache->timed ? CACHE_FORMAT_VERSION : CACHE_FORMAT_UNTIMED,
                   cache->encoder_version);
    if (cache->timed)
        bytebuf_printf(out, "build %u\n", cache->build);
    for (size_t i = 0; i < cache->count; i++)
        serialize_record(&cache->records[i], cache->timed, out);
    uint64_t sum = out->failed ? 0 : XXH3_64bits(out->data + start, out->size - start);
    bytebuf_printf(out, "end %016" PRIx64 "\n", sum);
}

/* ---------------------------------------------------------------------------
 * Parsing
 * ------------------------------------------------------------------------- */

typedef struct cache_parser {
    bool timed; /* format 3: build and time lines */
    char *text; /* a writable copy; lines are cut in place */
    size_t size;
    size_t at;
    uint32_t line;
    char *reason;
    size_t reason_size;
} cache_parser;

__attribute__((format(printf, 2, 3))) static bool parse_fail(cache_parser *p, const char *fmt,
                                                             ...) {
    char message[200];
    va_list args;
    va_start(args, fmt);
    vsnprintf(message, sizeof message, fmt, args);
    va_end(args);
    snprintf(p->reason, p->reason_size, "line %u: %s", p->line, message);
    return false;
}

/* The next line without its '\n', or NULL at the end (or on a last line
 * without '\n', which an interrupted write would leave). */
static char *next_line(cache_parser *p) {
    if (p->at >= p->size)
        return NULL;
    char *start = p->text + p->at;
    char *newline = memchr(start, '\n', p->size - p->at);
    if (newline == NULL)
        return NULL;
    *newline = '\0';
    p->at = (size_t)(newline - p->text) + 1;
    p->line++;
    return start;
}

/* Splits a line at tabs into exactly `want` fields. */
static bool split_fields(char *line, char **fields, size_t want) {
    size_t count = 0;
    for (char *cursor = line;;) {
        if (count == want)
            return false;
        fields[count++] = cursor;
        char *tab = strchr(cursor, '\t');
        if (tab == NULL)
            break;
        *tab = '\0';
        cursor = tab + 1;
    }
    return count == want;
}

/* A number written as cache_serialize writes it: digits of `base` (10 or
 * 16) only, within 64 bits. strtoull would also take leading whitespace (a
 * vertical tab, a form feed), a sign and, in base 16, a "0x": it read "\v-1"
 * as UINT64_MAX. */
static bool parse_u64(const char *text, int base, uint64_t *out) {
    uint64_t value = 0;
    size_t i = 0;
    for (; text[i] != '\0'; i++) {
        char c = text[i];
        int digit = c >= '0' && c <= '9'                 ? c - '0'
                    : base == 16 && c >= 'a' && c <= 'f' ? c - 'a' + 10
                    : base == 16 && c >= 'A' && c <= 'F' ? c - 'A' + 10
                                                         : -1;
        if (digit < 0 || value > (UINT64_MAX - (uint64_t)digit) / (uint64_t)base)
            return false;
        value = value * (uint64_t)base + (uint64_t)digit;
    }
    if (i == 0)
        return false;
    *out = value;
    return true;
}

static bool parse_i64(const char *text, int64_t *out) {
    uint64_t magnitude;
    bool negative = text[0] == '-';
    if (!parse_u64(text + negative, 10, &magnitude) || magnitude > INT64_MAX)
        return false;
    *out = negative ? -(int64_t)magnitude : (int64_t)magnitude;
    return true;
}

static bool parse_asset_line(cache_parser *p, char *rest, cache_record *record) {
    char *f[3];
    uint64_t settings;
    if (!split_fields(rest, f, 3) || !parse_u64(f[1], 16, &settings) || f[0][0] == '\0' ||
        !cache_path_is_safe(f[2]))
        return parse_fail(p, "malformed asset line");
    *record = (cache_record){.settings = settings};
    record->importer = cook_strdup(f[0]);
    record->source = cook_strdup(f[2]);
    return (record->importer != NULL && record->source != NULL) || parse_fail(p, "out of memory");
}

static bool parse_file_line(cache_parser *p, char *rest, cache_record *record) {
    char *f[5];
    cache_stamp stamp;
    if (!split_fields(rest, f, 5) || !parse_u64(f[0], 10, &stamp.size) ||
        !parse_i64(f[1], &stamp.mtime_ns) || !parse_u64(f[2], 10, &stamp.inode) ||
        !parse_u64(f[3], 16, &stamp.hash) || !cache_path_is_safe(f[4]))
        return parse_fail(p, "malformed file line");
    stamp.path = f[4];
    return push_stamp(record, &stamp) || parse_fail(p, "out of memory");
}

/* Appends a "diag" line's text, unescaped, and its '\n'. */
static bool parse_diag_line(cache_parser *p, const char *rest, cache_record *record) {
    bytebuf *text = &record->diagnostics;
    for (const char *c = rest; *c != '\0'; c++) {
        char byte = *c;
        if (byte == '\t' || byte == '\r')
            return parse_fail(p, "malformed diag line");
        if (byte == '\\') {
            c++;
            byte = *c == '\\' ? '\\' : *c == 't' ? '\t' : *c == 'r' ? '\r' : '\0';
            if (byte == '\0')
                return parse_fail(p, "malformed diag line");
        }
        bytebuf_append(text, &byte, 1);
    }
    bytebuf_append(text, "\n", 1);
    return !text->failed || parse_fail(p, "out of memory");
}

/* "time <build> <seconds per stage>" (format 3). */
static bool parse_time_line(cache_parser *p, char *rest, cache_record *record) {
    char *f[1 + COOK_STAGE_COUNT];
    uint64_t build;
    bool ok = p->timed && split_fields(rest, f, 1 + COOK_STAGE_COUNT) &&
              parse_u64(f[0], 10, &build) && build > 0 && build <= UINT32_MAX;
    for (int stage = 0; ok && stage < COOK_STAGE_COUNT; stage++) {
        char *end = NULL;
        double seconds = strtod(f[1 + stage], &end);
        ok = end != f[1 + stage] && *end == '\0' && seconds >= 0.0 && seconds < 1e9;
        record->stage_seconds[stage] = seconds;
    }
    if (!ok)
        return parse_fail(p, "malformed time line");
    record->cooked_in = (uint32_t)build;
    return true;
}

static bool parse_ref_line(cache_parser *p, char *rest, cache_record *record) {
    char *f[5];
    uint64_t kind, space, index;
    if (!split_fields(rest, f, 5) || !parse_u64(f[0], 10, &kind) || kind > 255 ||
        !parse_u64(f[1], 10, &space) || space > 255 || !parse_u64(f[2], 10, &index) ||
        index > UINT32_MAX || f[3][0] == '\0' || !cache_path_is_safe(f[4]))
        return parse_fail(p, "malformed ref line");
    return cook_manifest_add(&record->manifest, f[3], f[4], (kiln_asset_kind)kind,
                             (kiln_color_space)space, (uint32_t)index) ||
           parse_fail(p, "out of memory");
}

/* Ends the record being read: it needs its source stamp, and records come in
 * strictly increasing source order (cache_find relies on it). */
static bool finish_record(cache_parser *p, kiln_cache *cache, cache_record *record) {
    if (record->source == NULL)
        return true;
    if (record->file_count == 0 || strcmp(record->files[0].path, record->source) != 0)
        return parse_fail(p, "record of %s does not start with its source", record->source);
    if (cache->count > 0 && strcmp(cache->records[cache->count - 1].source, record->source) >= 0)
        return parse_fail(p, "records out of order at %s", record->source);
    return cache_add(cache, record) || parse_fail(p, "out of memory");
}

static bool parse_body(cache_parser *p, kiln_cache *cache) {
    cache_record record = {0};
    bool ok = true;
    char *line;
    while (ok && (line = next_line(p)) != NULL) {
        if (strncmp(line, "end ", 4) == 0) {
            ok = finish_record(p, cache, &record);
            cache_record_free(&record);
            return ok;
        }
        char *tab = strchr(line, '\t');
        char *rest = tab ? tab + 1 : NULL;
        if (tab != NULL)
            *tab = '\0';
        if (rest != NULL && strcmp(line, "asset") == 0) {
            ok = finish_record(p, cache, &record);
            cache_record_free(&record);
            ok = ok && parse_asset_line(p, rest, &record);
        } else if (rest != NULL && record.source == NULL) {
            ok = parse_fail(p, "'%s' line outside a record", line);
        } else if (rest != NULL && strcmp(line, "file") == 0) {
            ok = parse_file_line(p, rest, &record);
        } else if (rest != NULL && strcmp(line, "absent") == 0) {
            ok = (cache_path_is_safe(rest) || parse_fail(p, "unsafe absent path")) &&
                 (strlist_push(&record.absent, rest) || parse_fail(p, "out of memory"));
        } else if (rest != NULL && strcmp(line, "diag") == 0) {
            ok = parse_diag_line(p, rest, &record);
        } else if (rest != NULL && strcmp(line, "out") == 0) {
            ok = (cache_path_is_safe(rest) || parse_fail(p, "unsafe output path")) &&
                 (strlist_push(&record.outputs, rest) || parse_fail(p, "out of memory"));
        } else if (rest != NULL && strcmp(line, "link") == 0) {
            ok = (cache_path_is_safe(rest) || parse_fail(p, "unsafe reference path")) &&
                 (strlist_push(&record.references, rest) || parse_fail(p, "out of memory"));
        } else if (rest != NULL && strcmp(line, "ref") == 0) {
            ok = parse_ref_line(p, rest, &record);
        } else if (rest != NULL && strcmp(line, "time") == 0) {
            ok = parse_time_line(p, rest, &record);
        } else {
            ok = parse_fail(p, "unknown line '%.40s'", line);
        }
    }
    cache_record_free(&record);
    return ok && parse_fail(p, "truncated (no end line)");
}

/* Checks the "end <hash>" line against every byte before it. */
static bool check_checksum(const uint8_t *data, size_t size, char *reason, size_t reason_size) {
    if (size < 2 || data[size - 1] != '\n') {
        snprintf(reason, reason_size, "truncated");
        return false;
    }
    size_t end = size - 1;
    while (end > 0 && data[end - 1] != '\n')
        end--;
    const char *last = (const char *)data + end;
    uint64_t stored;
    char hex[17];
    if (size - end != 4 + 16 + 1 || strncmp(last, "end ", 4) != 0) {
        snprintf(reason, reason_size, "no checksum line");
        return false;
    }
    memcpy(hex, last + 4, 16);
    hex[16] = '\0';
    if (!parse_u64(hex, 16, &stored) || stored != XXH3_64bits(data, end)) {
        snprintf(reason, reason_size, "checksum mismatch");
        return false;
    }
    return true;
}

/* A header line "<key> <number>": the number digits only and within 32 bits
 * (sscanf's %u took a sign and whitespace, and read "encoder 4294967330" as
 * encoder 34: a value out of range is undefined behaviour for it). */
static bool parse_header_line(const char *line, const char *key, uint32_t *out) {
    size_t length = strlen(key);
    uint64_t value;
    if (line == NULL || strncmp(line, key, length) != 0 || line[length] != ' ' ||
        !parse_u64(line + length + 1, 10, &value) || value > UINT32_MAX)
        return false;
    *out = (uint32_t)value;
    return true;
}

static bool parse_header(cache_parser *p, kiln_cache *cache) {
    uint32_t version = 0;
    if (!parse_header_line(next_line(p), CACHE_MAGIC_LINE, &version))
        return parse_fail(p, "not a kiln cache file");
    if (version != CACHE_FORMAT_VERSION && version != CACHE_FORMAT_UNTIMED)
        return parse_fail(p, "cache format %u, this kiln reads %u and %u", version,
                          CACHE_FORMAT_UNTIMED, CACHE_FORMAT_VERSION);
    if (!parse_header_line(next_line(p), "encoder", &cache->encoder_version))
        return parse_fail(p, "malformed encoder line");
    p->timed = cache->timed = version == CACHE_FORMAT_VERSION;
    if (p->timed && !parse_header_line(next_line(p), "build", &cache->build))
        return parse_fail(p, "malformed build line");
    return true;
}

cache_read_status cache_read_folder(const char *output, kiln_cache *cache, char **path,
                                    char *reason, size_t reason_size) {
    *cache = (kiln_cache){0};
    snprintf(reason, reason_size, "out of memory");
    char *file = cook_path_join(output, CACHE_FILE_NAME);
    struct stat info;
    cache_read_status status = CACHE_READ_BAD;
    if (file != NULL && stat(file, &info) != 0) {
        snprintf(reason, reason_size, "there is none");
        status = CACHE_READ_ABSENT;
    } else if (file != NULL) {
        uint8_t *data = NULL;
        size_t size = 0;
        if (cook_read_file(file, SIZE_MAX / 2, &data, &size, reason, reason_size) &&
            cache_parse(cache, data, size, reason, reason_size))
            status = CACHE_READ_OK;
        free(data);
    }
    if (path != NULL)
        *path = file;
    else
        free(file);
    return status;
}

bool cache_parse(kiln_cache *cache, const uint8_t *data, size_t size, char *reason,
                 size_t reason_size) {
    *cache = (kiln_cache){0};
    if (!check_checksum(data, size, reason, reason_size))
        return false;
    if (memchr(data, '\0', size) != NULL) {
        snprintf(reason, reason_size, "contains a NUL byte");
        return false;
    }
    cache_parser p = {.size = size, .reason = reason, .reason_size = reason_size};
    p.text = malloc(size + 1);
    if (p.text == NULL) {
        snprintf(reason, reason_size, "out of memory");
        return false;
    }
    memcpy(p.text, data, size);
    p.text[size] = '\0';
    bool ok = parse_header(&p, cache) && parse_body(&p, cache);
    if (ok && p.at != size)
        ok = parse_fail(&p, "bytes after the end line");
    free(p.text);
    if (!ok)
        cache_free(cache);
    return ok;
}
