/*
 * entry.c — the remote cache's keys and what is stored under them
 * (remote.h; docs/formats/remote-cache.md):
 *
 *   index   text: "kiln-remote-index 1", then "file\t<path>" per dependency
 *           and "absent\t<path>" per path looked for, then
 *           "end\t<XXH3-64 hex of every byte before this line>"
 *   entry   binary, little-endian:
 *             0   8  magic "KILNRCE1"
 *             8   4  format version (1)
 *            12   4  encoder version
 *            16  32  the entry key, hex: an entry stored under another key
 *                    (a foreign or misplaced file) is refused
 *            48   8  payload size, uncompressed
 *            56   8  XXH3-64 of the payload
 *            64   …  the payload as one Zstd frame
 *           payload: u32 size + the record as a one-record cache image
 *           (build/cache.h, parsed as strictly as .kiln-cache), then for each
 *           output of the record in its order u64 size + the bytes.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#define XXH_STATIC_LINKING_ONLY /* XXH3_state_t on the stack */
#include <xxhash.h>
#include <zstd.h>

#include "build/remote/remote.h"
#include "kiln/kiln.h"

#define INDEX_MAGIC "kiln-remote-index 1\n"
#define ENTRY_MAGIC "KILNRCE1"
#define ENTRY_FORMAT 1u
#define ENTRY_HEADER 64u
#define ENTRY_ZSTD_LEVEL 1 /* most outputs are compressed already */
#define KEY_NAMESPACE "kiln/1"

/* ---------------------------------------------------------------------------
 * Keys
 * ------------------------------------------------------------------------- */

static void hash_text(XXH3_state_t *state, const char *text) {
    XXH3_128bits_update(state, text, strlen(text) + 1); /* with its NUL: fields stay apart */
}

static void hash_u64(XXH3_state_t *state, uint64_t value) {
    uint8_t bytes[8];
    for (int i = 0; i < 8; i++)
        bytes[i] = (uint8_t)(value >> (8 * i));
    XXH3_128bits_update(state, bytes, sizeof bytes);
}

static void key_hex(XXH3_state_t *state, char key[REMOTE_KEY_HEX + 1]) {
    XXH128_hash_t hash = XXH3_128bits_digest(state);
    snprintf(key, REMOTE_KEY_HEX + 1, "%016" PRIx64 "%016" PRIx64, (uint64_t)hash.high64,
             (uint64_t)hash.low64);
}

void remote_index_key(uint32_t encoder_version, const remote_asset *asset, uint64_t source_hash,
                      char key[REMOTE_KEY_HEX + 1]) {
    XXH3_state_t state;
    XXH3_128bits_reset(&state);
    /* The toolchain: the same sources and settings give other bytes when
     * kiln's encoders or the libraries that write them change. */
    hash_text(&state, "kiln-remote-index");
    hash_u64(&state, KILN_VERSION);
    hash_u64(&state, encoder_version);
    hash_u64(&state, ZSTD_versionNumber());
    hash_text(&state, asset->importer);
    hash_u64(&state, asset->settings);
    hash_u64(&state, asset->quoted_settings);
    hash_text(&state, asset->source);
    hash_u64(&state, source_hash);
    key_hex(&state, key);
}

void remote_entry_key(const char *index_key, const remote_index *index, const uint64_t *hashes,
                      const bool *still_absent, char key[REMOTE_KEY_HEX + 1]) {
    XXH3_state_t state;
    XXH3_128bits_reset(&state);
    hash_text(&state, "kiln-remote-entry");
    hash_text(&state, index_key);
    hash_u64(&state, index->files.count);
    for (size_t i = 0; i < index->files.count; i++) {
        hash_text(&state, index->files.items[i]);
        hash_u64(&state, hashes[i]);
    }
    hash_u64(&state, index->absent.count);
    for (size_t i = 0; i < index->absent.count; i++) {
        hash_text(&state, index->absent.items[i]);
        hash_u64(&state, still_absent[i] ? 1 : 0);
    }
    key_hex(&state, key);
}

void remote_key_path(const char *kind, const char *key, char *path, size_t path_size) {
    snprintf(path, path_size, KEY_NAMESPACE "/%s/%.2s/%s", kind, key, key);
}

/* ---------------------------------------------------------------------------
 * Index
 * ------------------------------------------------------------------------- */

void remote_index_free(remote_index *index) {
    strlist_free(&index->files);
    strlist_free(&index->absent);
}

bool remote_index_of_record(const cache_record *record, remote_index *index) {
    *index = (remote_index){0};
    bool ok = true;
    for (size_t i = 1; ok && i < record->file_count; i++)
        ok = strlist_push(&index->files, record->files[i].path);
    ok = ok && strlist_push_all(&index->absent, &record->absent);
    if (!ok)
        remote_index_free(index);
    return ok;
}

void remote_index_serialize(const remote_index *index, bytebuf *out) {
    size_t start = out->size;
    bytebuf_append(out, INDEX_MAGIC, strlen(INDEX_MAGIC));
    for (size_t i = 0; i < index->files.count; i++)
        bytebuf_printf(out, "file\t%s\n", index->files.items[i]);
    for (size_t i = 0; i < index->absent.count; i++)
        bytebuf_printf(out, "absent\t%s\n", index->absent.items[i]);
    if (out->failed)
        return;
    uint64_t checksum = XXH3_64bits(out->data + start, out->size - start);
    bytebuf_printf(out, "end\t%016" PRIx64 "\n", checksum);
}

static bool index_fail(remote_index *index, char *reason, size_t reason_size, const char *why) {
    snprintf(reason, reason_size, "the index %s", why);
    remote_index_free(index);
    return false;
}

bool remote_index_parse(const uint8_t *data, size_t size, remote_index *index, char *reason,
                        size_t reason_size) {
    *index = (remote_index){0};
    const char *text = (const char *)data;
    size_t magic = strlen(INDEX_MAGIC);
    if (size < magic || memcmp(text, INDEX_MAGIC, magic) != 0)
        return index_fail(index, reason, reason_size, "does not start with its magic line");
    if (memchr(data, '\0', size) != NULL)
        return index_fail(index, reason, reason_size, "contains a NUL byte");
    for (size_t at = magic; at < size;) {
        const char *line = text + at;
        const char *newline = memchr(line, '\n', size - at);
        if (newline == NULL)
            return index_fail(index, reason, reason_size, "ends inside a line");
        size_t length = (size_t)(newline - line);
        if (length > 4 && memcmp(line, "end\t", 4) == 0) {
            char expected[17];
            snprintf(expected, sizeof expected, "%016" PRIx64, XXH3_64bits(data, at));
            if (length != 4 + 16 || memcmp(line + 4, expected, 16) != 0)
                return index_fail(index, reason, reason_size, "checksum does not match");
            if (at + length + 1 != size)
                return index_fail(index, reason, reason_size, "has bytes after its end line");
            return true;
        }
        strlist *list = length > 5 && memcmp(line, "file\t", 5) == 0     ? &index->files
                        : length > 7 && memcmp(line, "absent\t", 7) == 0 ? &index->absent
                                                                         : NULL;
        if (list == NULL)
            return index_fail(index, reason, reason_size, "has a line it cannot read");
        size_t skip = list == &index->files ? 5 : 7;
        char *path = malloc(length - skip + 1);
        if (path == NULL)
            return index_fail(index, reason, reason_size, "is too large (out of memory)");
        memcpy(path, line + skip, length - skip);
        path[length - skip] = '\0';
        bool ok = cache_path_is_safe(path) && strlist_push(list, path);
        free(path);
        if (!ok)
            return index_fail(index, reason, reason_size, "names a path outside its folder");
        at += length + 1;
    }
    return index_fail(index, reason, reason_size, "has no end line");
}

/* ---------------------------------------------------------------------------
 * Entry
 * ------------------------------------------------------------------------- */

static void put_u32(uint8_t *at, uint32_t value) {
    for (int i = 0; i < 4; i++)
        at[i] = (uint8_t)(value >> (8 * i));
}

static void put_u64(uint8_t *at, uint64_t value) {
    for (int i = 0; i < 8; i++)
        at[i] = (uint8_t)(value >> (8 * i));
}

static uint32_t get_u32(const uint8_t *at) {
    uint32_t value = 0;
    for (int i = 3; i >= 0; i--)
        value = value << 8 | at[i];
    return value;
}

static uint64_t get_u64(const uint8_t *at) {
    uint64_t value = 0;
    for (int i = 7; i >= 0; i--)
        value = value << 8 | at[i];
    return value;
}

static bool append_u64(bytebuf *out, uint64_t value) {
    uint8_t bytes[8];
    put_u64(bytes, value);
    bytebuf_append(out, bytes, sizeof bytes);
    return !out->failed;
}

/* The uncompressed payload: the record image, then the outputs' bytes. */
static bool encode_payload(const cache_record *record, uint32_t encoder_version,
                           const char *output_root, uint64_t max_size, bytebuf *payload,
                           char *reason, size_t reason_size) {
    kiln_cache one = {
        .encoder_version = encoder_version, .records = (cache_record *)record, .count = 1};
    bytebuf image = {0};
    cache_serialize(&one, &image);
    uint8_t size[4];
    put_u32(size, (uint32_t)image.size);
    bytebuf_append(payload, size, sizeof size);
    bytebuf_append(payload, image.data, image.size);
    bool ok = !image.failed && !payload->failed && image.size < UINT32_MAX;
    if (ok && payload->size > max_size) {
        snprintf(reason, reason_size, "larger than the upload cap of %" PRIu64 " bytes", max_size);
        ok = false;
    }
    bytebuf_free(&image);
    bool too_large = false;
    for (size_t i = 0; ok && i < record->outputs.count; i++) {
        char *path = cook_path_join(output_root, record->outputs.items[i]);
        uint8_t *bytes = NULL;
        size_t length = 0;
        struct stat info;
        too_large =
            payload->size + 8 > max_size || (path != NULL && stat(path, &info) == 0 &&
                                             (uint64_t)info.st_size > max_size - payload->size - 8);
        ok = path != NULL && !too_large &&
             cook_read_file(path, (size_t)(max_size - payload->size - 8), &bytes, &length, reason,
                            reason_size);
        ok = ok && append_u64(payload, length);
        if (ok) {
            bytebuf_append(payload, bytes, length);
            ok = !payload->failed;
        }
        free(bytes);
        free(path);
    }
    if (too_large || (ok && payload->size > max_size)) {
        snprintf(reason, reason_size, "larger than the upload cap of %" PRIu64 " bytes", max_size);
        return false;
    }
    if (!ok && reason[0] == '\0')
        snprintf(reason, reason_size, "out of memory");
    return ok;
}

bool remote_entry_encode(const char *entry_key, const cache_record *record,
                         uint32_t encoder_version, const char *output_root, uint64_t max_size,
                         bytebuf *out, char *reason, size_t reason_size) {
    reason[0] = '\0';
    bytebuf payload = {0};
    if (!encode_payload(record, encoder_version, output_root, max_size, &payload, reason,
                        reason_size)) {
        bytebuf_free(&payload);
        return false;
    }
    size_t bound = ZSTD_compressBound(payload.size);
    bytebuf_append_zeros(out, ENTRY_HEADER + bound);
    bool ok = !out->failed;
    if (ok) {
        uint8_t *header = out->data + out->size - ENTRY_HEADER - bound;
        size_t packed = ZSTD_compress(header + ENTRY_HEADER, bound, payload.data, payload.size,
                                      ENTRY_ZSTD_LEVEL);
        ok = !ZSTD_isError(packed);
        if (ok) {
            memcpy(header, ENTRY_MAGIC, 8);
            put_u32(header + 8, ENTRY_FORMAT);
            put_u32(header + 12, encoder_version);
            memcpy(header + 16, entry_key, REMOTE_KEY_HEX);
            put_u64(header + 48, payload.size);
            put_u64(header + 56, XXH3_64bits(payload.data, payload.size));
            out->size -= bound - packed;
        } else {
            snprintf(reason, reason_size, "compression failed: %s", ZSTD_getErrorName(packed));
        }
    } else {
        snprintf(reason, reason_size, "out of memory");
    }
    bytebuf_free(&payload);
    return ok;
}

void remote_entry_free(remote_entry *entry) {
    cache_record_free(&entry->record);
    free(entry->payload);
    free(entry->offsets);
    free(entry->sizes);
    *entry = (remote_entry){0};
}

static bool entry_fail(remote_entry *entry, char *reason, size_t reason_size, const char *why) {
    snprintf(reason, reason_size, "%s", why);
    remote_entry_free(entry);
    return false;
}

/* Splits the payload into the record and the outputs' slices. */
static bool open_payload(remote_entry *entry, uint32_t encoder_version, char *reason,
                         size_t reason_size) {
    const uint8_t *payload = entry->payload;
    size_t size = entry->payload_size;
    uint32_t image_size = size >= 4 ? get_u32(payload) : 0;
    if (size < 4 || image_size > size - 4)
        return entry_fail(entry, reason, reason_size, "its record is cut short");
    kiln_cache one = {0};
    char why[256];
    if (!cache_parse(&one, payload + 4, image_size, why, sizeof why)) {
        snprintf(reason, reason_size, "its record cannot be read: %s", why);
        remote_entry_free(entry);
        return false;
    }
    if (one.count != 1 || one.encoder_version != encoder_version) {
        cache_free(&one);
        return entry_fail(entry, reason, reason_size,
                          "its record is not one record of this encoder version");
    }
    entry->record = one.records[0];
    one.records[0] = (cache_record){0};
    cache_free(&one);
    size_t outputs = entry->record.outputs.count;
    entry->offsets = calloc(outputs ? outputs : 1, sizeof *entry->offsets);
    entry->sizes = calloc(outputs ? outputs : 1, sizeof *entry->sizes);
    if (entry->offsets == NULL || entry->sizes == NULL)
        return entry_fail(entry, reason, reason_size, "out of memory");
    size_t at = 4 + (size_t)image_size;
    for (size_t i = 0; i < outputs; i++) {
        if (size - at < 8)
            return entry_fail(entry, reason, reason_size, "its outputs are cut short");
        uint64_t length = get_u64(payload + at);
        at += 8;
        if (length > size - at)
            return entry_fail(entry, reason, reason_size, "its outputs are cut short");
        entry->offsets[i] = at;
        entry->sizes[i] = (size_t)length;
        at += (size_t)length;
    }
    if (at != size)
        return entry_fail(entry, reason, reason_size, "it has bytes after its last output");
    return true;
}

bool remote_entry_decode(const uint8_t *data, size_t size, const char *entry_key,
                         uint32_t encoder_version, uint64_t max_size, remote_entry *entry,
                         char *reason, size_t reason_size) {
    *entry = (remote_entry){0};
    if (size < ENTRY_HEADER || memcmp(data, ENTRY_MAGIC, 8) != 0)
        return entry_fail(entry, reason, reason_size, "it is not a kiln cache entry");
    if (get_u32(data + 8) != ENTRY_FORMAT || get_u32(data + 12) != encoder_version)
        return entry_fail(entry, reason, reason_size, "it is of another format or encoder version");
    if (memcmp(data + 16, entry_key, REMOTE_KEY_HEX) != 0)
        return entry_fail(entry, reason, reason_size, "it was stored for another key");
    uint64_t payload_size = get_u64(data + 48);
    unsigned long long framed = ZSTD_getFrameContentSize(data + ENTRY_HEADER, size - ENTRY_HEADER);
    if (payload_size > max_size || payload_size > SIZE_MAX - 1)
        return entry_fail(entry, reason, reason_size, "it is larger than the size cap");
    if (framed != payload_size)
        return entry_fail(entry, reason, reason_size, "its compressed data is damaged");
    entry->payload = malloc(payload_size ? (size_t)payload_size : 1);
    if (entry->payload == NULL)
        return entry_fail(entry, reason, reason_size, "out of memory");
    size_t unpacked = ZSTD_decompress(entry->payload, (size_t)payload_size, data + ENTRY_HEADER,
                                      size - ENTRY_HEADER);
    if (ZSTD_isError(unpacked) || unpacked != payload_size)
        return entry_fail(entry, reason, reason_size, "its compressed data is damaged");
    entry->payload_size = unpacked;
    if (XXH3_64bits(entry->payload, unpacked) != get_u64(data + 56))
        return entry_fail(entry, reason, reason_size, "its checksum does not match");
    return open_payload(entry, encoder_version, reason, reason_size);
}
