/*
 * memory.c — the build's memory budget (`kiln build --memory-limit`).
 *
 * Before an asset is cooked its peak memory is estimated from what can be
 * read cheaply (an image's header dimensions, a file's size), and the asset
 * waits while the assets cooking hold estimates that, with its own, would
 * pass the limit. An asset over the limit on its own still cooks, alone.
 * The estimates (docs/reliability.md, "Memory"):
 *   texture  TEXTURE_PEAK_HALVES / 2 x its RGBA8 size (width x height x 4; x 4
 *            again for a Radiance HDR's floats) + the file, from the header
 *            (PNG, JPEG, BMP, TGA, HDR); a header that cannot be read counts
 *            as FALLBACK_MULTIPLE x the file;
 *   cubemap  its largest face's texture estimate + the other faces' files
 *            (faces are decoded and cooked one at a time, their files kept);
 *   array    the sum of its images' texture estimates;
 *   model    MODEL_MULTIPLE x the file (its images are decoded one at a time,
 *            through the texture path);
 *   level    LEVEL_MULTIPLE x the file (its entities and scene);
 *   other    FALLBACK_MULTIPLE x the file;
 * each at least MIN_ESTIMATE.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "build/internal.h"

/* bench/texture_memory.sh measured at most 2.55 x the RGBA8 size as a
 * texture's peak, file included (4096^2 and 8192^2 PNG and JPEG, every usage,
 * compressed or not), and 10 x for a Radiance HDR (2.5 x its floats): 2.5 x,
 * plus the file. */
#define TEXTURE_PEAK_HALVES 5u
#define MODEL_MULTIPLE 16u
/* A level is streamed from libyaml's events entity by entity
 * (import/level_tree.h): bench/level_memory.sh measured (release build, max
 * RSS) 11-15 x the file for entities with transforms (the entities and the
 * scene built from them: the smaller the entities, the larger the multiple)
 * and 5-6 x for long component lists, `1,1,1...` and `{},{},...` included; a
 * file using anchors, whose nodes are kept, 14 x. The worst, with a margin
 * for the allocator. */
#define LEVEL_MULTIPLE 20u
#define FALLBACK_MULTIPLE 8u
#define MIN_ESTIMATE ((uint64_t)4 << 20)
#define MAX_ESTIMATE ((uint64_t)1 << 52)

static uint64_t saturating_mul(uint64_t a, uint64_t b) {
    return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

static uint64_t saturating_add(uint64_t a, uint64_t b) {
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

uint64_t build_memory_default_limit(void) {
    long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page_size <= 0)
        return (uint64_t)4 << 30;
    return saturating_mul((uint64_t)pages, (uint64_t)page_size) / 100 *
           BUILD_MEMORY_DEFAULT_PERCENT;
}

/* BYTES with an optional unit (K, M, G, KiB, MiB, GiB), or with
 * allow_percent N% of the physical memory. */
static bool parse_size(const char *text, uint64_t *bytes, bool allow_percent) {
    if (text == NULL || !isdigit((unsigned char)text[0]))
        return false;
    errno = 0;
    char *end;
    unsigned long long value = strtoull(text, &end, 10);
    if (errno != 0 || value == 0)
        return false;
    uint64_t unit = 1;
    if (allow_percent && strcmp(end, "%") == 0) {
        if (value > 100)
            return false;
        long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGESIZE);
        if (pages <= 0 || page_size <= 0)
            return false;
        uint64_t total = saturating_mul((uint64_t)pages, (uint64_t)page_size);
        *bytes = total / 100 * value;
        return *bytes > 0;
    }
    if (strcmp(end, "K") == 0 || strcmp(end, "KiB") == 0)
        unit = (uint64_t)1 << 10;
    else if (strcmp(end, "M") == 0 || strcmp(end, "MiB") == 0)
        unit = (uint64_t)1 << 20;
    else if (strcmp(end, "G") == 0 || strcmp(end, "GiB") == 0)
        unit = (uint64_t)1 << 30;
    else if (end[0] != '\0')
        return false;
    if (value > UINT64_MAX / unit)
        return false;
    *bytes = (uint64_t)value * unit;
    return true;
}

bool build_parse_memory_limit(const char *text, uint64_t *limit) {
    return parse_size(text, limit, true);
}

bool build_parse_size(const char *text, uint64_t *bytes) {
    return parse_size(text, bytes, false);
}

/* ---------------------------------------------------------------------------
 * Image headers: width x height and bytes per decoded texel, or false
 * ------------------------------------------------------------------------- */

static uint32_t be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint32_t le32(const uint8_t *p) {
    return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

/* JPEG: the first SOFn marker's dimensions, following segment lengths. */
static bool jpeg_size(FILE *file, uint32_t *w, uint32_t *h) {
    uint8_t b[9];
    if (fseek(file, 2, SEEK_SET) != 0)
        return false;
    for (int segments = 0; segments < 256; segments++) {
        if (fread(b, 1, 4, file) != 4 || b[0] != 0xFF)
            return false;
        uint8_t marker = b[1];
        unsigned length = (unsigned)b[2] << 8 | b[3];
        if (length < 2)
            return false;
        if (marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 &&
            marker != 0xCC) {
            if (fread(b, 1, 5, file) != 5)
                return false;
            *h = (uint32_t)b[1] << 8 | b[2];
            *w = (uint32_t)b[3] << 8 | b[4];
            return true;
        }
        if (fseek(file, (long)length - 2, SEEK_CUR) != 0)
            return false;
    }
    return false;
}

/* Radiance HDR: the resolution line after the header's empty line. */
static bool hdr_size(FILE *file, uint32_t *w, uint32_t *h) {
    char line[256];
    rewind(file);
    for (int lines = 0; lines < 64 && fgets(line, sizeof line, file) != NULL; lines++) {
        unsigned long a, b;
        char ya, xa;
        if (sscanf(line, "%cY %lu %cX %lu", &ya, &a, &xa, &b) == 4 && (ya == '-' || ya == '+') &&
            a <= UINT32_MAX && b <= UINT32_MAX) {
            *h = (uint32_t)a;
            *w = (uint32_t)b;
            return true;
        }
    }
    return false;
}

bool build_image_header_size(FILE *file, uint32_t *w, uint32_t *h, uint32_t *texel_bytes) {
    uint8_t b[32];
    rewind(file);
    size_t got = fread(b, 1, sizeof b, file);
    *texel_bytes = 4;
    if (got >= 24 && memcmp(b, "\x89PNG\r\n\x1a\n", 8) == 0 && memcmp(b + 12, "IHDR", 4) == 0) {
        *w = be32(b + 16);
        *h = be32(b + 20);
        return true;
    }
    if (got >= 4 && b[0] == 0xFF && b[1] == 0xD8)
        return jpeg_size(file, w, h);
    if (got >= 26 && b[0] == 'B' && b[1] == 'M') {
        int32_t height = (int32_t)le32(b + 22);
        *w = le32(b + 18);
        *h = height < 0 ? (uint32_t)(-(int64_t)height) : (uint32_t)height;
        return true;
    }
    if (got >= 2 && b[0] == '#' && b[1] == '?') {
        *texel_bytes = 16;
        return hdr_size(file, w, h);
    }
    if (got >= 18 && b[1] <= 1 && (b[2] == 2 || b[2] == 3 || b[2] == 10 || b[2] == 11)) { /* TGA */
        *w = (uint32_t)b[12] | (uint32_t)b[13] << 8;
        *h = (uint32_t)b[14] | (uint32_t)b[15] << 8;
        return true;
    }
    return false;
}

/* A texture file's estimate; 0 when it cannot be opened. */
static uint64_t texture_estimate(const char *path) {
    char reason[256];
    struct stat info;
    FILE *file = cook_open_regular(path, &info, reason, sizeof reason);
    if (file == NULL)
        return 0;
    uint32_t w, h, texel;
    uint64_t size = (uint64_t)info.st_size, estimate;
    if (build_image_header_size(file, &w, &h, &texel))
        estimate = saturating_add(
            saturating_mul(saturating_mul((uint64_t)w * h, texel), TEXTURE_PEAK_HALVES) / 2, size);
    else
        estimate = saturating_mul(size, FALLBACK_MULTIPLE);
    fclose(file);
    return estimate;
}

uint64_t build_memory_estimate(const char *input_root, const char *source_path,
                               const cook_importer *importer) {
    char *path = cook_path_join(input_root, source_path);
    if (path == NULL)
        return MIN_ESTIMATE;
    uint64_t estimate = 0;
    struct stat info;
    if (importer->kind == COOK_KIND_TEXTURE) {
        estimate = texture_estimate(path);
    } else if ((importer->kind == COOK_KIND_CUBEMAP || importer->kind == COOK_KIND_TEXTURE_ARRAY) &&
               importer->folder) {
        bool one_at_a_time = importer->kind == COOK_KIND_CUBEMAP;
        uint64_t largest = 0; /* a cubemap's largest face beyond its file */
        DIR *dir = opendir(path);
        struct dirent *entry;
        while (dir != NULL && (entry = readdir(dir)) != NULL) {
            if (entry->d_name[0] == '.')
                continue;
            char *face = cook_path_join(path, entry->d_name);
            struct stat face_info;
            uint64_t face_estimate = face != NULL ? texture_estimate(face) : 0;
            if (one_at_a_time && face_estimate > 0 && stat(face, &face_info) == 0) {
                uint64_t file = (uint64_t)face_info.st_size;
                estimate = saturating_add(estimate, file);
                if (face_estimate - file > largest)
                    largest = face_estimate - file;
            } else {
                estimate = saturating_add(estimate, face_estimate);
            }
            free(face);
        }
        estimate = saturating_add(estimate, largest);
        if (dir != NULL)
            closedir(dir);
    } else if (stat(path, &info) == 0 && S_ISREG(info.st_mode)) {
        uint64_t multiple = importer->kind == COOK_KIND_MODEL   ? MODEL_MULTIPLE
                            : importer->kind == COOK_KIND_LEVEL ? LEVEL_MULTIPLE
                                                                : FALLBACK_MULTIPLE;
        estimate = saturating_mul((uint64_t)info.st_size, multiple);
    }
    free(path);
    /* Capped so that the gate's sums of up to PARALLEL_MAX_THREADS never wrap. */
    return estimate < MIN_ESTIMATE   ? MIN_ESTIMATE
           : estimate > MAX_ESTIMATE ? MAX_ESTIMATE
                                     : estimate;
}

/* ---------------------------------------------------------------------------
 * The gate
 * ------------------------------------------------------------------------- */

void build_memory_gate_init(build_memory_gate *gate, uint64_t limit) {
    *gate = (build_memory_gate){.limit = limit};
    pthread_mutex_init(&gate->lock, NULL);
    pthread_cond_init(&gate->freed, NULL);
}

void build_memory_gate_destroy(build_memory_gate *gate) {
    pthread_mutex_destroy(&gate->lock);
    pthread_cond_destroy(&gate->freed);
}

void build_memory_acquire(build_memory_gate *gate, uint64_t estimate) {
    pthread_mutex_lock(&gate->lock);
    bool waited = false;
    /* A limit of 0 is none (a caller that never set one). */
    while (gate->limit > 0 && gate->running > 0 && gate->in_use + estimate > gate->limit) {
        waited = true;
        pthread_cond_wait(&gate->freed, &gate->lock);
    }
    gate->waits += waited;
    gate->running++;
    gate->in_use += estimate;
    if (gate->in_use > gate->peak)
        gate->peak = gate->in_use;
    if (estimate > gate->largest)
        gate->largest = estimate;
    pthread_mutex_unlock(&gate->lock);
}

void build_memory_release(build_memory_gate *gate, uint64_t estimate) {
    pthread_mutex_lock(&gate->lock);
    gate->running--;
    gate->in_use -= estimate;
    pthread_cond_broadcast(&gate->freed);
    pthread_mutex_unlock(&gate->lock);
}
