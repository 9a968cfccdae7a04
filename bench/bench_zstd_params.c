/*
 * bench_zstd_params.c — Zstd parameter sets on a texture's block levels:
 * CPU time and bytes of the frames a KTX2 cook would write.
 *
 *   bench_zstd_params [--reps N] LEVELS... -- SPEC...
 *
 * LEVELS are path prefixes written by `bench_texture --dump DIR`
 * (DIR/NAME, whose files are DIR/NAME.level0, .level1, ...); each SPEC is a
 * comma-separated parameter list applied on top of a compression level:
 *   l=2 strat=2 wlog=20 hlog=16 clog=15 slog=1 mml=6 tlen=0 lit=0|1|2
 *   split=0|1|2 (ZSTD_c_useBlockSplitter: 0 auto, 1 on, 2 off) kept=0|1
 *   rawlit=N bc=N bhash=N bmin=N
 * (`lit` is ZSTD_c_literalCompressionMode: 0 auto, 1 Huffman, 2 raw;
 * `rawlit=N` raw literals only in frames under N bytes; `kept=0` makes a
 * context for every frame over 128 KiB, as zstd_frame.c does, the default;
 * `kept=1` reuses one for all; `bc=N` replaces Zstd's match finder by a
 * prototype that looks for matches every N bytes only (BC blocks are 8 or 16
 * bytes; a 2^bhash-entry table of 8-byte keys, matches of bmin bytes or
 * more), its sequences given to
 * ZSTD_compressSequences, and `bc=-1` gives no sequences at all: the cost of
 * coding the literals alone). Every frame is made as write_zstd_frame makes
 * it: full reset, checksum and content size, one frame per level, and checked
 * to decode to the level. Each spec's time is the fastest of N runs (default
 * 15) of all the levels of one image, CPU time of this process; bytes are
 * the frames' sum.
 * Rows give each spec's time and bytes against the first spec.
 */
#define ZSTD_STATIC_LINKING_ONLY /* the experimental parameters */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zstd.h>

#include "bench_util.h"

#define MAX_LEVELS 16
#define MAX_IMAGES 16
#define MAX_SPECS 64
#define REUSE_MAX_BYTES ((size_t)128 << 10) /* as in src/cook/write/zstd_frame.c */

typedef struct image_levels {
    const char *name;
    unsigned count;
    uint8_t *data[MAX_LEVELS];
    size_t size[MAX_LEVELS];
} image_levels;

typedef struct spec {
    const char *text;
    int level;
    int kept;
    int block_step; /* bc=N: kiln's aligned match finder every N bytes (0: Zstd's) */
    int block_min;  /* bmin=N: its shortest match */
    int block_hash; /* bhash=N: its hash bits */
    int raw_below;  /* rawlit=N: literals not Huffman-coded in frames under N bytes */
    int param[16];  /* ZSTD_cParameter ids, 0 ends */
    int value[16];
} spec;

static void die(const char *what, const char *detail) {
    bench_die("%s%s%s", what, detail ? ": " : "", detail ? detail : "");
}

static void load_image(image_levels *image, const char *prefix) {
    image->name = strrchr(prefix, '/') ? strrchr(prefix, '/') + 1 : prefix;
    for (image->count = 0; image->count < MAX_LEVELS; image->count++) {
        char path[1024];
        snprintf(path, sizeof path, "%s.level%u", prefix, image->count);
        image->data[image->count] = bench_read_whole(path, &image->size[image->count]);
        if (image->data[image->count] == NULL)
            break;
    }
    if (image->count == 0)
        die("no levels", prefix);
}

static void parse_spec(spec *s, char *text) {
    static const struct {
        const char *key;
        int param;
    } keys[] = {{"strat", ZSTD_c_strategy},        {"wlog", ZSTD_c_windowLog},
                {"hlog", ZSTD_c_hashLog},          {"clog", ZSTD_c_chainLog},
                {"slog", ZSTD_c_searchLog},        {"mml", ZSTD_c_minMatch},
                {"tlen", ZSTD_c_targetLength},     {"lit", ZSTD_c_literalCompressionMode},
                {"split", ZSTD_c_useBlockSplitter}};
    s->text = strdup(text);
    s->level = 2;
    s->kept = 0;
    s->block_min = 8;
    s->block_hash = 16;
    unsigned n = 0;
    for (char *item = strtok(text, ","); item != NULL; item = strtok(NULL, ",")) {
        char *eq = strchr(item, '=');
        if (eq == NULL)
            die("spec item without '='", item);
        *eq = '\0';
        int value = atoi(eq + 1);
        if (strcmp(item, "l") == 0) {
            s->level = value;
            continue;
        }
        if (strcmp(item, "bc") == 0) {
            s->block_step = value;
            continue;
        }
        if (strcmp(item, "rawlit") == 0) {
            s->raw_below = value;
            continue;
        }
        if (strcmp(item, "bmin") == 0) {
            s->block_min = value;
            continue;
        }
        if (strcmp(item, "bhash") == 0) {
            s->block_hash = value;
            continue;
        }
        if (strcmp(item, "kept") == 0) {
            s->kept = value;
            continue;
        }
        unsigned k = 0;
        while (k < sizeof keys / sizeof keys[0] && strcmp(keys[k].key, item) != 0)
            k++;
        if (k == sizeof keys / sizeof keys[0] || n + 1 >= 16)
            die("unknown spec key", item);
        s->param[n] = keys[k].param;
        s->value[n++] = value;
    }
    s->param[n] = 0;
}

/* Prototype: matches looked for only every `step` bytes (BC blocks are 8 or
 * 16 bytes), greedy, one hash table of 8-byte keys, the last offset tried
 * first; sequences for the whole frame. */
static uint64_t read64(const unsigned char *p) {
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static size_t match_length(const unsigned char *a, const unsigned char *b,
                           const unsigned char *end) {
    const unsigned char *start = a;
    while (a + 8 <= end) {
        uint64_t x = read64(a) ^ read64(b);
        if (x != 0)
            return (size_t)(a - start) + (size_t)(__builtin_ctzll(x) >> 3);
        a += 8;
        b += 8;
    }
    while (a < end && *a == *b)
        a++, b++;
    return (size_t)(a - start);
}

static uint32_t *hash_table;
static ZSTD_Sequence *seqs;
static size_t seq_capacity;

static size_t find_sequences(const unsigned char *src, size_t size, const spec *s) {
    unsigned bits = (unsigned)s->block_hash;
    size_t step = (size_t)s->block_step, min = (size_t)s->block_min;
    if (hash_table == NULL)
        hash_table = malloc(sizeof(uint32_t) << 24);
    memset(hash_table, 0, sizeof(uint32_t) << bits);
    if (seq_capacity < size / 3 + 2) {
        seq_capacity = size / 3 + 2;
        seqs = realloc(seqs, seq_capacity * sizeof *seqs);
    }
    size_t n = 0, anchor = 0, ip = 0, rep = 0;
    const unsigned char *end = src + size;
    while (ip + 8 <= size) {
        uint64_t key = read64(src + ip);
        uint32_t h = (uint32_t)((key * 0x9E3779B185EBCA87ull) >> (64 - bits));
        size_t cand = hash_table[h];
        hash_table[h] = (uint32_t)ip + 1;
        size_t len = 0, off = 0;
        if (rep != 0 && ip >= rep && read64(src + ip - rep) == key) {
            len = match_length(src + ip, src + ip - rep, end);
            off = rep;
        }
        if (cand != 0 && read64(src + cand - 1) == key && ip - (cand - 1) != off) {
            size_t l = match_length(src + ip, src + cand - 1, end);
            if (l > len) {
                len = l;
                off = ip - (cand - 1);
            }
        }
        if (len < min) {
            ip += step;
            continue;
        }
        size_t start = ip;
        while (start > anchor && start > off && src[start - 1] == src[start - 1 - off])
            start--, len++;
        seqs[n++] = (ZSTD_Sequence){.offset = (unsigned)off,
                                    .litLength = (unsigned)(start - anchor),
                                    .matchLength = (unsigned)len};
        rep = off;
        anchor = start + len;
        ip = (anchor + step - 1) / step * step;
    }
    return n; /* the last literals are implied (ZSTD_sf_noBlockDelimiters) */
}

static size_t compress_level(ZSTD_CCtx *cctx, const spec *s, unsigned char *out, size_t capacity,
                             const unsigned char *src, size_t size) {
    if (size < (size_t)s->raw_below)
        ZSTD_CCtx_setParameter(cctx, ZSTD_c_literalCompressionMode, ZSTD_ps_disable);
    if (s->block_step == 0)
        return ZSTD_compress2(cctx, out, capacity, src, size);
    size_t n = s->block_step > 0 ? find_sequences(src, size, s) : 0; /* bc=-1: literals only */
    ZSTD_CCtx_setParameter(cctx, ZSTD_c_blockDelimiters, ZSTD_sf_noBlockDelimiters);
    return ZSTD_compressSequences(cctx, out, capacity, seqs, n, src, size);
}

/* All of one image's levels as write_zstd_frame writes them; returns bytes. */
static size_t compress_image(const image_levels *image, const spec *s, ZSTD_CCtx *kept,
                             unsigned char *out, size_t out_capacity) {
    size_t total = 0;
    for (unsigned i = 0; i < image->count; i++) {
        ZSTD_CCtx *cctx = s->kept || image->size[i] <= REUSE_MAX_BYTES ? kept : ZSTD_createCCtx();
        if (ZSTD_isError(ZSTD_CCtx_reset(cctx, ZSTD_reset_session_and_parameters)) ||
            ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, s->level)) ||
            ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1)) ||
            ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 1)))
            die("cannot set parameters", s->text);
        for (unsigned p = 0; s->param[p] != 0; p++)
            if (ZSTD_isError(ZSTD_CCtx_setParameter(cctx, s->param[p], s->value[p])))
                die("parameter refused", s->text);
        size_t n = compress_level(cctx, s, out, out_capacity, image->data[i], image->size[i]);
        if (ZSTD_isError(n))
            die(ZSTD_getErrorName(n), s->text);
        /* the frame must give back the level */
        unsigned char *check = malloc(image->size[i] ? image->size[i] : 1);
        size_t got = ZSTD_decompress(check, image->size[i], out, n);
        if (ZSTD_isError(got) || got != image->size[i] || memcmp(check, image->data[i], got) != 0)
            die("frame does not decode to the level", s->text);
        free(check);
        if (cctx != kept)
            ZSTD_freeCCtx(cctx);
        total += n;
    }
    return total;
}

/* The same without the check, timed. */
static double time_image(const image_levels *image, const spec *s, ZSTD_CCtx *kept,
                         unsigned char *out, size_t out_capacity, unsigned reps) {
    double best = 1e30;
    for (unsigned r = 0; r < reps; r++) {
        double t0 = bench_thread_seconds();
        for (unsigned i = 0; i < image->count; i++) {
            ZSTD_CCtx *cctx =
                s->kept || image->size[i] <= REUSE_MAX_BYTES ? kept : ZSTD_createCCtx();
            ZSTD_CCtx_reset(cctx, ZSTD_reset_session_and_parameters);
            ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, s->level);
            ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
            ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 1);
            for (unsigned p = 0; s->param[p] != 0; p++)
                ZSTD_CCtx_setParameter(cctx, s->param[p], s->value[p]);
            size_t n = compress_level(cctx, s, out, out_capacity, image->data[i], image->size[i]);
            if (ZSTD_isError(n))
                die(ZSTD_getErrorName(n), s->text);
            if (cctx != kept)
                ZSTD_freeCCtx(cctx);
        }
        double t = bench_thread_seconds() - t0;
        if (t < best)
            best = t;
    }
    return best;
}

static void format_time(double seconds, char *buf, size_t size) {
    if (seconds < 1e-3)
        snprintf(buf, size, "%.2f us", seconds * 1e6);
    else
        snprintf(buf, size, "%.2f ms", seconds * 1e3);
}

int main(int argc, char **argv) {
    unsigned reps = 15;
    int a = 1;
    if (a + 1 < argc && strcmp(argv[a], "--reps") == 0) {
        reps = (unsigned)atoi(argv[a + 1]);
        a += 2;
    }
    static image_levels images[MAX_IMAGES];
    static spec specs[MAX_SPECS];
    unsigned image_count = 0, spec_count = 0;
    for (; a < argc && strcmp(argv[a], "--") != 0; a++) {
        if (image_count == MAX_IMAGES)
            die("too many images", NULL);
        load_image(&images[image_count++], argv[a]);
    }
    for (a++; a < argc; a++) {
        if (spec_count == MAX_SPECS)
            die("too many specs", NULL);
        parse_spec(&specs[spec_count++], argv[a]);
    }
    if (image_count == 0 || spec_count == 0) {
        fprintf(stderr, "usage: bench_zstd_params [--reps N] LEVELS... -- SPEC...\n");
        return 2;
    }
    size_t largest = 0;
    for (unsigned i = 0; i < image_count; i++)
        for (unsigned l = 0; l < images[i].count; l++)
            if (images[i].size[l] > largest)
                largest = images[i].size[l];
    size_t capacity = ZSTD_compressBound(largest);
    unsigned char *out = malloc(capacity);
    ZSTD_CCtx *kept = ZSTD_createCCtx();
    if (out == NULL || kept == NULL)
        die("out of memory", NULL);

    printf("| spec |");
    for (unsigned i = 0; i < image_count; i++)
        printf(" %s |", images[i].name);
    printf("\n|---|");
    for (unsigned i = 0; i < image_count; i++)
        printf("---:|");
    printf("\n");
    static double base_time[MAX_IMAGES];
    static size_t base_bytes[MAX_IMAGES];
    for (unsigned s = 0; s < spec_count; s++) {
        printf("| %s |", specs[s].text);
        for (unsigned i = 0; i < image_count; i++) {
            size_t bytes = compress_image(&images[i], &specs[s], kept, out, capacity);
            double t = time_image(&images[i], &specs[s], kept, out, capacity, reps);
            if (s == 0) {
                base_time[i] = t;
                base_bytes[i] = bytes;
            }
            char tb[32];
            format_time(t, tb, sizeof tb);
            printf(" %s %zu B (%+.0f%% t, %+.2f%% B) |", tb, bytes,
                   100.0 * (t / base_time[i] - 1.0),
                   100.0 * ((double)bytes / (double)base_bytes[i] - 1.0));
            fflush(stdout);
        }
        printf("\n");
    }
    ZSTD_freeCCtx(kept);
    free(out);
    return 0;
}
