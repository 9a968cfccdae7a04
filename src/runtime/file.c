/* file.c — opening and validating kiln containers (docs/formats/container.md).
 *
 * Validation is a checklist in named passes — header, checksum, chunk table,
 * chunks — each rule citing the numbered requirement of container.md it
 * enforces. Nothing past the header is read before the header says it exists,
 * and every offset and size from the file goes through checked arithmetic. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define XXH_STATIC_LINKING_ONLY /* XXH3_state_t on the stack: no allocation */
#include <xxhash.h>

#include "common/checked.h"
#include "kiln/kiln.h"
#include "runtime/internal.h"

/* Chunk payloads are used in place as typed arrays, so the file's byte order
 * must be the host's. */
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "kiln files are little-endian and read in place: this host is not supported"
#endif

#define HEADER_SIZE ((uint64_t)sizeof(kiln_container_header))
#define ENTRY_SIZE ((uint64_t)sizeof(kiln_chunk_entry))

enum { OWNED_BORROWED = 0, OWNED_MAPPED = 1, OWNED_HEAP = 2 };

/* ---------------------------------------------------------------------------
 * Results and messages
 * ------------------------------------------------------------------------- */

const char *kiln_result_str(kiln_result result) {
    switch (result) {
    case KILN_OK:
        return "ok";
    case KILN_ERR_INVALID_ARGUMENT:
        return "invalid argument";
    case KILN_ERR_IO:
        return "i/o error";
    case KILN_ERR_OUT_OF_MEMORY:
        return "out of memory";
    case KILN_ERR_BAD_MAGIC:
        return "bad magic";
    case KILN_ERR_UNSUPPORTED:
        return "unsupported";
    case KILN_ERR_TRUNCATED:
        return "truncated";
    case KILN_ERR_CORRUPT:
        return "corrupt";
    case KILN_ERR_CHECKSUM:
        return "checksum mismatch";
    case KILN_ERR_NOT_FOUND:
        return "not found";
    case KILN_RESULT_COUNT_:
        break;
    }
    return "unknown result";
}

kiln_result runtime_fail(kiln_error *err, kiln_result code, const char *name, const char *fmt,
                         ...) {
    if (err == NULL)
        return code;
    err->code = code;
    int prefix = snprintf(err->message, sizeof err->message, "%s: ", name);
    if (prefix < 0 || (size_t)prefix >= sizeof err->message)
        return code;
    va_list args;
    va_start(args, fmt);
    vsnprintf(err->message + prefix, sizeof err->message - (size_t)prefix, fmt, args);
    va_end(args);
    return code;
}

kiln_result runtime_succeed(kiln_error *err) {
    if (err != NULL) {
        err->code = KILN_OK;
        err->message[0] = '\0';
    }
    return KILN_OK;
}

kiln_result runtime_find_chunks(const kiln_file *file, const runtime_known_chunk *known,
                                size_t known_count, kiln_error *err) {
    for (uint32_t i = 0; i < file->chunk_count; i++) {
        for (size_t k = 0; k < known_count; k++) {
            if (file->chunks[i].fourcc != known[k].fourcc)
                continue;
            if (*known[k].slot != NULL) {
                char fourcc[5];
                kiln_fourcc_str(known[k].fourcc, fourcc);
                return runtime_fail(err, KILN_ERR_CORRUPT, file->name,
                                    "chunk %" PRIu32 " is a second %s chunk", i, fourcc);
            }
            *known[k].slot = &file->chunks[i];
        }
    }
    return KILN_OK;
}

kiln_result runtime_sized_chunk(const kiln_file *file, const kiln_chunk_entry *chunk,
                                uint64_t count, size_t size, const char *what, const void **data,
                                kiln_error *err) {
    uint64_t expected, actual = chunk != NULL ? chunk->size : 0;
    if (!checked_mul_u64(count, size, &expected) || actual != expected)
        return runtime_fail(err, KILN_ERR_CORRUPT, file->name,
                            "%s chunk is %" PRIu64 " bytes, expected %" PRIu64 " x %zu", what,
                            actual, count, size);
    *data = actual > 0 ? (const void *)(file->data + chunk->offset) : NULL;
    return KILN_OK;
}

bool runtime_string_valid(const char *strings, size_t size, uint32_t offset, uint32_t length) {
    return strings != NULL && (uint64_t)offset + length < size &&
           strings[offset + length] == '\0' && memchr(strings + offset, '\0', length) == NULL;
}

bool runtime_all_finite(const float *values, size_t count) {
    for (size_t i = 0; i < count; i++)
        if (!isfinite(values[i]))
            return false;
    return true;
}

const char *runtime_os_reason(int errnum, char *buf, size_t size) {
    if (strerror_r(errnum, buf, size) != 0)
        snprintf(buf, size, "error %d", errnum);
    return buf;
}

void kiln_fourcc_str(uint32_t fourcc, char out[5]) {
    for (int i = 0; i < 4; i++) {
        unsigned char c = (unsigned char)(fourcc >> (8 * i));
        out[i] = (c >= 0x20 && c < 0x7f) ? (char)c : '?';
    }
    out[4] = '\0';
}

/* The last 127 characters of `path`: long paths keep their file name. */
static void set_name(kiln_file *file, const char *path) {
    size_t length = strlen(path);
    size_t keep = sizeof file->name - 1;
    const char *tail = length > keep ? path + (length - keep) : path;
    snprintf(file->name, sizeof file->name, "%s", tail);
}

/* ---------------------------------------------------------------------------
 * Validation passes
 * ------------------------------------------------------------------------- */

/* container.md R1: a file shorter than the header cannot be anything. */
static kiln_result fail_too_short(kiln_error *err, const char *name, size_t size) {
    if (size == 0)
        return runtime_fail(err, KILN_ERR_TRUNCATED, name,
                            "empty file (0 bytes); a kiln file starts with a %u-byte header",
                            (unsigned)HEADER_SIZE);
    return runtime_fail(err, KILN_ERR_TRUNCATED, name,
                        "file is %zu bytes, too short for the %u-byte header", size,
                        (unsigned)HEADER_SIZE);
}

static kiln_result check_header(const kiln_file *file, kiln_container_header *header,
                                kiln_error *err) {
    const char *name = file->name;
    char fourcc[5];

    if (file->size < HEADER_SIZE) /* container.md R1 */
        return fail_too_short(err, name, file->size);
    memcpy(header, file->data, sizeof *header);

    if (header->magic != KILN_CONTAINER_MAGIC) { /* container.md R2 */
        kiln_fourcc_str(header->magic, fourcc);
        return runtime_fail(err, KILN_ERR_BAD_MAGIC, name,
                            "not a kiln file (magic '%s', expected 'KILN')", fourcc);
    }
    if (header->container_version != KILN_CONTAINER_VERSION) /* container.md R3 */
        return runtime_fail(err, KILN_ERR_UNSUPPORTED, name,
                            "container version %u is not supported (this build reads version %u)",
                            (unsigned)header->container_version, KILN_CONTAINER_VERSION);
    if (header->header_size != HEADER_SIZE) /* container.md R4 */
        return runtime_fail(err, KILN_ERR_CORRUPT, name, "header_size is %" PRIu32 ", expected %u",
                            header->header_size, (unsigned)HEADER_SIZE);
    if ((header->flags & ~KILN_CONTAINER_FLAGS_KNOWN) != 0) /* container.md R5 */
        return runtime_fail(err, KILN_ERR_UNSUPPORTED, name, "unknown header flags 0x%" PRIx32,
                            header->flags & ~KILN_CONTAINER_FLAGS_KNOWN);
    if (header->reserved != 0) /* container.md R6 */
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "reserved header field is 0x%" PRIx64 ", not 0", header->reserved);
    if ((header->flags & KILN_CONTAINER_FLAG_CHECKSUM) == 0 && header->checksum != 0)
        return runtime_fail(err, KILN_ERR_CORRUPT, name, /* container.md R7 */
                            "checksum field is 0x%016" PRIx64 " but the checksum flag is clear",
                            header->checksum);
    if (file->size < header->file_size) /* container.md R8 */
        return runtime_fail(err, KILN_ERR_TRUNCATED, name,
                            "file is %zu bytes but its header says %" PRIu64 " (%" PRIu64
                            " bytes missing)",
                            file->size, header->file_size, header->file_size - file->size);
    if (file->size > header->file_size) /* container.md R8 */
        return runtime_fail(
            err, KILN_ERR_CORRUPT, name,
            "%" PRIu64 " trailing bytes: file is %zu bytes but its header says %" PRIu64,
            (uint64_t)file->size - header->file_size, file->size, header->file_size);
    return KILN_OK;
}

/* XXH3-64 of the file with the 8 checksum bytes read as zero (container.md
 * §Checksum). Streamed, because the bytes may be a read-only mapping. */
static uint64_t container_checksum(const uint8_t *data, size_t size) {
    static const uint8_t zeros[8] = {0};
    const size_t at = offsetof(kiln_container_header, checksum);
    XXH3_state_t state;
    XXH3_INITSTATE(&state);
    XXH3_64bits_reset(&state);
    XXH3_64bits_update(&state, data, at);
    XXH3_64bits_update(&state, zeros, sizeof zeros);
    XXH3_64bits_update(&state, data + at + sizeof zeros, size - at - sizeof zeros);
    return XXH3_64bits_digest(&state);
}

/* Runs right after the header pass when asked for, so damaged bytes are
 * reported as damage rather than as whichever structural rule they break. */
static kiln_result check_checksum(const kiln_file *file, const kiln_container_header *header,
                                  uint32_t flags, kiln_error *err) {
    if ((flags & KILN_OPEN_VERIFY_CHECKSUM) == 0)
        return KILN_OK;
    /* container.md R9: verification was asked for and cannot be done. */
    if ((header->flags & KILN_CONTAINER_FLAG_CHECKSUM) == 0)
        return runtime_fail(err, KILN_ERR_UNSUPPORTED, file->name,
                            "verification requested but the file carries no checksum");
    uint64_t computed = container_checksum(file->data, file->size);
    if (computed != header->checksum) /* container.md R10 */
        return runtime_fail(err, KILN_ERR_CHECKSUM, file->name,
                            "checksum mismatch: stored 0x%016" PRIx64 ", computed 0x%016" PRIx64,
                            header->checksum, computed);
    return KILN_OK;
}

static kiln_result check_chunk_table(const kiln_file *file, const kiln_container_header *header,
                                     uint64_t *table_end, kiln_error *err) {
    /* container.md R11, in 64-bit arithmetic that cannot wrap: the count is
     * 32-bit, but check anyway so the rule does not depend on that. */
    uint64_t table_size;
    if (!checked_mul_u64(header->chunk_count, ENTRY_SIZE, &table_size) ||
        !checked_add_u64(HEADER_SIZE, table_size, table_end) || *table_end > file->size)
        return runtime_fail(err, KILN_ERR_CORRUPT, file->name,
                            "chunk table of %" PRIu32 " entries needs %" PRIu64
                            " bytes, past the end of the file (%zu bytes)",
                            header->chunk_count,
                            HEADER_SIZE + (uint64_t)header->chunk_count * ENTRY_SIZE, file->size);
    return KILN_OK;
}

static kiln_result check_chunks(const kiln_file *file, const kiln_chunk_entry *table,
                                uint32_t count, uint64_t table_end, kiln_error *err) {
    const char *name = file->name;
    uint64_t previous_end = table_end; /* payloads start after the table */
    char fourcc[5];
    bool encoded = false;

    for (uint32_t i = 0; i < count; i++) {
        const kiln_chunk_entry *chunk = &table[i];
        kiln_fourcc_str(chunk->fourcc, fourcc);
        uint64_t end;

        char detail[192];
        kiln_result encoding = runtime_chunk_encoding_problem(chunk, detail, sizeof detail);
        if (encoding != KILN_OK) /* container.md R12, R20-R21 */
            return runtime_fail(err, encoding, name, "chunk %" PRIu32 " (%s) %s", i, fourcc,
                                detail);
        encoded |= chunk->flags != 0;
        if (chunk->offset < table_end) /* container.md R13 */
            return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                "chunk %" PRIu32 " (%s) starts at byte %" PRIu64
                                ", inside the header or chunk table (which end at byte %" PRIu64
                                ")",
                                i, fourcc, chunk->offset, table_end);
        if (chunk->offset % KILN_CHUNK_ALIGNMENT != 0) /* container.md R13 */
            return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                "chunk %" PRIu32 " (%s) offset %" PRIu64 " is not a multiple of %u",
                                i, fourcc, chunk->offset, KILN_CHUNK_ALIGNMENT);
        if (!checked_add_u64(chunk->offset, chunk->size, &end)) /* container.md R14 */
            return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                "chunk %" PRIu32 " (%s) offset %" PRIu64 " + size %" PRIu64
                                " overflows 64 bits",
                                i, fourcc, chunk->offset, chunk->size);
        if (!range_inside(chunk->offset, chunk->size, file->size)) /* container.md R14 */
            return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                "chunk %" PRIu32 " (%s) ends at byte %" PRIu64
                                ", past the end of the file (%zu bytes)",
                                i, fourcc, end, file->size);
        if (chunk->offset < previous_end) /* container.md R15 */
            return runtime_fail(err, KILN_ERR_CORRUPT, name,
                                "chunk %" PRIu32 " (%s) starts at byte %" PRIu64
                                ", before the previous chunk ends (byte %" PRIu64 ")",
                                i, fourcc, chunk->offset, previous_end);
        previous_end = end;
    }

    const kiln_container_header *header = (const void *)file->data;
    if (encoded != ((header->flags & KILN_CONTAINER_FLAG_ENCODED_CHUNKS) != 0)) /* R12 */
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "the header's encoded-chunks flag is %s but %s chunk is encoded",
                            encoded ? "clear" : "set", encoded ? "a" : "no");

    /* container.md R16: nothing follows the last payload but its padding. */
    uint64_t expected = align_up_u64(previous_end, KILN_CHUNK_ALIGNMENT);
    if (file->size != expected)
        return runtime_fail(err, KILN_ERR_CORRUPT, name,
                            "file is %zu bytes but its %s ends at byte %" PRIu64
                            " (expected %" PRIu64 " bytes with padding to %u)",
                            file->size, count > 0 ? "last chunk" : "chunk table", previous_end,
                            expected, KILN_CHUNK_ALIGNMENT);
    return KILN_OK;
}

/* Validates file->data[0..size) and, on success, fills the header fields of
 * `file`. Leaves `file` untouched otherwise (the caller closes it). */
static kiln_result validate(kiln_file *file, uint32_t flags, kiln_error *err) {
    kiln_container_header header;
    uint64_t table_end = 0;
    kiln_result result = check_header(file, &header, err);
    if (result == KILN_OK)
        result = check_checksum(file, &header, flags, err);
    if (result == KILN_OK)
        result = check_chunk_table(file, &header, &table_end, err);
    if (result != KILN_OK)
        return result;

    /* Only now is the table known to lie inside the file: at offset 48 of a
     * 16-byte-aligned block, so usable in place as an array of entries (the
     * cast goes through void * because the alignment is known, not assumed). */
    const kiln_chunk_entry *table =
        header.chunk_count > 0 ? (const void *)(file->data + HEADER_SIZE) : NULL;
    result = check_chunks(file, table, header.chunk_count, table_end, err);
    if (result != KILN_OK)
        return result;

    file->kind = header.kind;
    file->kind_version = header.kind_version;
    file->chunk_count = header.chunk_count;
    file->chunks = table;
    return runtime_succeed(err);
}

/* ---------------------------------------------------------------------------
 * Opening and closing
 * ------------------------------------------------------------------------- */

static bool flags_valid(uint32_t flags) {
    return (flags & ~(uint32_t)(KILN_OPEN_VERIFY_CHECKSUM | KILN_OPEN_DEEP)) == 0;
}

static kiln_result check_arguments(kiln_file *file, const void *source, uint32_t flags,
                                   kiln_error *err) {
    if (file != NULL)
        memset(file, 0, sizeof *file);
    if (file == NULL || source == NULL)
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln",
                            "file and path/data must not be NULL");
    if (!flags_valid(flags))
        return runtime_fail(err, KILN_ERR_INVALID_ARGUMENT, "kiln", "unknown open flags 0x%" PRIx32,
                            flags);
    return KILN_OK;
}

kiln_result kiln_file_from_memory(kiln_file *file, const void *data, size_t size, const char *name,
                                  uint32_t flags, kiln_error *err) {
    kiln_result result = check_arguments(file, data, flags, err);
    if (result != KILN_OK)
        return result;
    set_name(file, name != NULL ? name : "<memory>");
    if ((uintptr_t)data % KILN_CHUNK_ALIGNMENT != 0)
        return runtime_fail(
            err, KILN_ERR_INVALID_ARGUMENT, file->name,
            "data at %p is not 16-byte aligned; payloads are used in place as typed "
            "arrays (copy into an aligned block or use kiln_file_load)",
            data);
    file->data = data;
    file->size = size;
    file->owned_how_ = OWNED_BORROWED;
    result = validate(file, flags, err);
    if (result != KILN_OK)
        kiln_file_close(file);
    return result;
}

kiln_result runtime_open_regular(const char *name, const char *path, int *fd_out, size_t *size_out,
                                 struct stat *st_out, kiln_error *err) {
    char reason[128];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return runtime_fail(err, KILN_ERR_IO, name, "cannot open: %s",
                            runtime_os_reason(errno, reason, sizeof reason));
    struct stat st;
    kiln_result result = KILN_OK;
    if (fstat(fd, &st) != 0)
        result = runtime_fail(err, KILN_ERR_IO, name, "cannot stat: %s",
                              runtime_os_reason(errno, reason, sizeof reason));
    else if (!S_ISREG(st.st_mode))
        result = runtime_fail(err, KILN_ERR_IO, name, "not a regular file");
    else if (st.st_size == 0)
        result = runtime_fail(err, KILN_ERR_TRUNCATED, name, "empty file (0 bytes)");
    else if ((uintmax_t)st.st_size != (uintmax_t)(size_t)st.st_size)
        result = runtime_fail(err, KILN_ERR_IO, name,
                              "file of %jd bytes does not fit in this address space",
                              (intmax_t)st.st_size);
    if (result != KILN_OK) {
        close(fd);
        return result;
    }
    *fd_out = fd;
    *size_out = (size_t)st.st_size;
    if (st_out != NULL)
        *st_out = st;
    return KILN_OK;
}

kiln_result runtime_map_fd(const char *name, int fd, size_t size, bool populate, void **mapping,
                           kiln_error *err) {
    int flags = MAP_PRIVATE;
#ifdef MAP_POPULATE
    if (populate)
        flags |= MAP_POPULATE;
#else
    (void)populate;
#endif
    void *mapped = mmap(NULL, size, PROT_READ, flags, fd, 0);
    if (mapped == MAP_FAILED) {
        char reason[128];
        return runtime_fail(err, KILN_ERR_IO, name, "cannot map: %s",
                            runtime_os_reason(errno, reason, sizeof reason));
    }
    *mapping = mapped;
    return KILN_OK;
}

kiln_result runtime_map_regular(const char *name, const char *path, void **mapping, size_t *size,
                                kiln_error *err) {
    int fd = -1;
    kiln_result result = runtime_open_regular(name, path, &fd, size, NULL, err);
    if (result != KILN_OK)
        return result;
    result = runtime_map_fd(name, fd, *size, false, mapping, err);
    close(fd); /* the mapping keeps the file open */
    return result;
}

kiln_result kiln_file_map(kiln_file *file, const char *path, uint32_t flags, kiln_error *err) {
    kiln_result result = check_arguments(file, path, flags, err);
    if (result != KILN_OK)
        return result;
    set_name(file, path);
    void *mapping;
    size_t size;
    result = runtime_map_regular(file->name, path, &mapping, &size, err);
    if (result != KILN_OK) {
        kiln_file_close(file);
        return result;
    }
    file->owned_ = mapping;
    file->owned_size_ = size;
    file->owned_how_ = OWNED_MAPPED;
    file->data = mapping; /* page-aligned, so 16-byte aligned */
    file->size = size;
    result = validate(file, flags, err);
    if (result != KILN_OK)
        kiln_file_close(file);
    return result;
}

kiln_result kiln_file_load(kiln_file *file, const char *path, uint32_t flags, kiln_error *err) {
    kiln_result result = check_arguments(file, path, flags, err);
    if (result != KILN_OK)
        return result;
    set_name(file, path);
    int fd;
    size_t size;
    result = runtime_open_regular(file->name, path, &fd, &size, NULL, err);
    if (result != KILN_OK) {
        kiln_file_close(file);
        return result;
    }

    /* aligned_alloc wants a multiple of the alignment; the padding is zeroed
     * and never part of the file. */
    size_t capacity;
    uint8_t *block = NULL;
    if (checked_add_size(size, KILN_CHUNK_ALIGNMENT - 1, &capacity)) {
        capacity &= ~(size_t)(KILN_CHUNK_ALIGNMENT - 1);
        block = aligned_alloc(KILN_CHUNK_ALIGNMENT, capacity);
    }
    if (block == NULL) {
        close(fd);
        result = runtime_fail(err, KILN_ERR_OUT_OF_MEMORY, file->name,
                              "cannot allocate %zu bytes to load the file", size);
        kiln_file_close(file);
        return result;
    }
    memset(block + size, 0, capacity - size);

    size_t done = 0;
    while (done < size) {
        ssize_t got = read(fd, block + done, size - done);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            char reason[128];
            result = got < 0 ? runtime_fail(err, KILN_ERR_IO, file->name, "cannot read: %s",
                                            runtime_os_reason(errno, reason, sizeof reason))
                             : runtime_fail(err, KILN_ERR_IO, file->name,
                                            "file shrank while reading (%zu of %zu bytes read)",
                                            done, size);
            break;
        }
        done += (size_t)got;
    }
    close(fd);
    file->owned_ = block;
    file->owned_size_ = capacity;
    file->owned_how_ = OWNED_HEAP;
    if (result == KILN_OK) {
        file->data = block;
        file->size = size;
        result = validate(file, flags, err);
    }
    if (result != KILN_OK)
        kiln_file_close(file);
    return result;
}

void kiln_file_close(kiln_file *file) {
    if (file == NULL)
        return;
    if (file->owned_how_ == OWNED_MAPPED && file->owned_ != NULL)
        munmap(file->owned_, file->owned_size_);
    else if (file->owned_how_ == OWNED_HEAP)
        free(file->owned_);
    memset(file, 0, sizeof *file);
}

/* ---------------------------------------------------------------------------
 * Chunks
 * ------------------------------------------------------------------------- */

kiln_result kiln_file_find_chunk(const kiln_file *file, uint32_t fourcc, kiln_chunk *out) {
    if (out != NULL)
        memset(out, 0, sizeof *out);
    if (file == NULL || out == NULL)
        return KILN_ERR_INVALID_ARGUMENT;
    for (uint32_t i = 0; i < file->chunk_count; i++) {
        const kiln_chunk_entry *chunk = &file->chunks[i];
        if (chunk->fourcc != fourcc)
            continue;
        out->fourcc = chunk->fourcc;
        out->flags = chunk->flags;
        if (chunk->flags != 0) /* encoded: its bytes are not the payload */
            return KILN_ERR_UNSUPPORTED;
        /* Validated inside the file; an empty chunk gets no pointer at all,
         * since its offset may be the end of the file. */
        out->size = (size_t)chunk->size;
        out->data = chunk->size > 0 ? file->data + chunk->offset : NULL;
        return KILN_OK;
    }
    return KILN_ERR_NOT_FOUND;
}

const char *kiln_file_metadata(const kiln_file *file, size_t *size) {
    kiln_chunk chunk;
    if (kiln_file_find_chunk(file, KILN_CHUNK_META, &chunk) != KILN_OK || chunk.size == 0) {
        if (size != NULL)
            *size = 0;
        return NULL;
    }
    if (size != NULL)
        *size = chunk.size;
    return (const char *)chunk.data;
}
