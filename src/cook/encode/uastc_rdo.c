/*
 * uastc_rdo.c — rate-distortion optimisation of encoded UASTC blocks
 * (texture.uastc_rdo; encode.h): a pass over an image's blocks that makes
 * the Zstd supercompression find more matches, at a bounded loss of quality.
 *
 * The idea is Basis Universal's UASTC RDO (Binomial's basisu, "UASTC RDO"
 * in its README and the -uastc_rdo_l option): a block may be replaced by a
 * cheaper one when the error it adds per bit saved is below a lambda. Here,
 * per block, in raster order, the candidates are drawn from the blocks
 * emitted just before it (a window of the last RDO_WINDOW blocks and the
 * three above), each a pattern Zstd can then repeat:
 *   - the earlier block itself (16 matching bytes);
 *   - its mode, pattern and weights with endpoints fitted to this block's
 *     texels (uastc_refit_endpoints): the weight bits, the block's tail, match;
 *   - its mode and endpoints with weights for these texels (uastc_reweigh):
 *     the head matches;
 *   - its last 6, 8 or 10 bytes spliced onto this block, endpoints refitted.
 * Each candidate's bits are estimated as Zstd would spend them (rate_bits):
 * runs of at least RDO_MIN_MATCH bytes equal to an earlier block's at the
 * same offset cost one match (more for a farther block), other bytes a
 * literal each, at the cost of their value in the strip's byte histogram
 * (Zstd's Huffman-coded literals: common values are cheap, which is why
 * a match is worth less than 8 bits a byte). The candidate with the least
 * D + lambda * R (D: squared error of its decoding against the source, alpha
 * weighted double) is kept if it saves at least RDO_MIN_SAVING_BITS, and
 * never one whose error exceeds RDO_MAX_ERROR_RATIO times the original's
 * plus the image's mean, so no block is ruined to save bytes. The lambda is
 * relative to the image's mean block error, so a strength costs about the
 * same share of PSNR on a near-exact image as on a noisy one.
 *
 * Determinism: blocks are processed in strips of RDO_STRIP_ROWS block rows,
 * each strip on its own (its window never reaches into another), strips on
 * the block-row pool; the output does not depend on the thread count.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/uastc.h"
#include "cook/core/budget.h"
#include "cook/core/parallel.h"
#include "cook/encode/encode.h"

/* Earlier blocks in raster order that a block may copy from. */
#define RDO_WINDOW 32u
/* Block rows per independent strip. */
#define RDO_STRIP_ROWS 8u
/* Zstd's shortest match at the levels kiln uses (minMatch 5 or 6); bytes
 * within a shorter run are literals. */
#define RDO_MIN_MATCH 6u
/* Estimated bits of one match besides its offset's log2(distance). */
#define RDO_MATCH_BITS 12.0
/* What a replacement must save by the estimate (which is rough: a change
 * that saves nothing real only moves the error). */
#define RDO_MIN_SAVING_BITS 16.0
/* A replacement's squared error is at most this times the original's plus
 * the image's mean block error (a block encoded almost exactly may still
 * move a little). */
#define RDO_MAX_ERROR_RATIO 6.0
/* lambda * RDO_LAMBDA_SCALE * (the image's mean block error before RDO, at
 * least RDO_MIN_MEAN_ERROR: an RMS error of 0.35 a channel) is the squared
 * error one estimated bit may buy. */
#define RDO_MIN_MEAN_ERROR 8.0
#define RDO_LAMBDA_SCALE 0.01

/* One block already emitted in the strip: its bytes, fields and decoding. */
typedef struct emitted {
    uint8_t bytes[UASTC_BLOCK_BYTES];
    uastc_logical logical;
    uint8_t decoded[64];
} emitted;

/* The earlier blocks a block may copy from, each with the bits Zstd spends
 * on its offset (about log2 of the distance in bytes). */
typedef struct window {
    const emitted *blocks[RDO_WINDOW + 3];
    double offset_bits[RDO_WINDOW + 3];
    unsigned count;
    const double *literal_bits; /* per byte value: the strip's literal cost */
} window;

/* The strip's literals so far: Zstd codes literals with Huffman codes over
 * their histogram, so a common byte value costs far fewer than 8 bits. */
typedef struct literal_stats {
    uint32_t count[256];
    uint32_t total;
    double bits[256]; /* -log2(count / total), 1 to 12 */
} literal_stats;

static void literal_stats_refresh(literal_stats *l) {
    for (unsigned b = 0; b < 256; b++) {
        double bits = log2((double)l->total / (double)l->count[b]);
        l->bits[b] = bits < 1.0 ? 1.0 : bits > 12.0 ? 12.0 : bits;
    }
}

typedef struct rdo_job {
    const block_image_desc *desc;
    uint8_t *blocks;
    uint32_t blocks_x, blocks_y;
    double lambda, error_floor;
    double *strip_error; /* the first pass: each strip's squared error */
} rdo_job;

/* Alpha errors count double: alpha edges (cut-outs, blending) show a copied
 * block's mistakes most. */
#define RDO_ALPHA_WEIGHT 2.0

static double squared_error(const uint8_t a[64], const uint8_t b[64]) {
    double e = 0;
    for (unsigned i = 0; i < 64; i++) {
        double d = (double)a[i] - (double)b[i];
        e += d * d * ((i & 3) == 3 ? RDO_ALPHA_WEIGHT : 1.0);
    }
    return e;
}

/* Which bytes of `bytes` an earlier block covers: a byte is matched when it
 * lies in a run of at least RDO_MIN_MATCH bytes equal to some earlier
 * block's at the same offset; match_cost[i] is the cheapest such match's
 * bits (a nearer block's offset costs fewer), 0 for a literal. */
static void find_matches(const uint8_t bytes[16], const window *w, double match_cost[16]) {
    for (unsigned i = 0; i < 16; i++)
        match_cost[i] = 0;
    for (unsigned c = 0; c < w->count; c++) {
        const uint8_t *other = w->blocks[c]->bytes;
        double cost = RDO_MATCH_BITS + w->offset_bits[c];
        for (unsigned i = 0; i < 16;) {
            unsigned run = 0;
            while (i + run < 16 && bytes[i + run] == other[i + run])
                run++;
            if (run >= RDO_MIN_MATCH)
                for (unsigned k = i; k < i + run; k++)
                    if (match_cost[k] == 0 || cost < match_cost[k])
                        match_cost[k] = cost;
            i += run + 1;
        }
    }
}

/* Estimated bits Zstd spends on `bytes` after the window's blocks. */
static double rate_bits(const uint8_t bytes[16], const window *w) {
    double match_cost[16];
    find_matches(bytes, w, match_cost);
    double bits = 0;
    for (unsigned i = 0; i < 16; i++) {
        if (match_cost[i] == 0)
            bits += w->literal_bits[bytes[i]];
        else if (i == 0 || match_cost[i - 1] == 0)
            bits += match_cost[i];
    }
    return bits;
}

/* The best candidate so far for one block. */
typedef struct choice {
    emitted block;
    double error, cost;
} choice;

static void consider(choice *best, const uastc_logical *logical, const uint8_t src[64],
                     const window *w, double lambda, double max_error) {
    emitted e = {.logical = *logical};
    if (uastc_pack(logical, e.bytes) != UASTC_OK)
        return;
    uastc_decode_logical(logical, false, e.decoded);
    double error = squared_error(e.decoded, src);
    if (error > max_error)
        return;
    double cost = error + lambda * rate_bits(e.bytes, w);
    if (cost < best->cost) {
        best->block = e;
        best->error = error;
        best->cost = cost;
    }
}

/* One block: the original or a cheaper candidate drawn from `earlier`. */
static void optimise_block(uint8_t bytes[16], const uint8_t src[64], const window *w, double lambda,
                           double error_floor, emitted *out) {
    choice best = {.cost = 1e300};
    uastc_logical original;
    if (uastc_unpack(bytes, &original) != UASTC_OK) { /* the encoder writes valid blocks */
        memcpy(out->bytes, bytes, 16);
        memset(&out->logical, 0, sizeof out->logical);
        memset(out->decoded, 0, sizeof out->decoded);
        return;
    }
    consider(&best, &original, src, w, lambda, 1e300);
    best.cost -= lambda * RDO_MIN_SAVING_BITS;
    double max_error = best.error * RDO_MAX_ERROR_RATIO + error_floor;
    for (unsigned c = 0; c < w->count; c++) {
        const emitted *other = w->blocks[c];
        /* The earlier block as it is: its decoding is cached. */
        double error = squared_error(other->decoded, src);
        if (error <= max_error) {
            double cost = error + lambda * rate_bits(other->bytes, w);
            if (cost < best.cost)
                best = (choice){*other, error, cost};
        }
        /* Its weights with endpoints for these texels; the hint bits stay
         * this block's (they describe what the block decodes to). */
        if (other->logical.mode == UASTC_MODE_SOLID)
            continue;
        uastc_logical refit = other->logical;
        refit.hints = original.mode == other->logical.mode ? original.hints : 0;
        uastc_refit_endpoints(&refit, src);
        consider(&best, &refit, src, w, lambda, max_error);
        /* Its mode and endpoints (and hints: the head bytes match) with
         * weights for these texels. */
        uastc_logical reweighed = other->logical;
        uastc_reweigh(&reweighed, src);
        consider(&best, &reweighed, src, w, lambda, max_error);
        /* Its last bytes (the last texels' weights) in this block, the
         * endpoints refitted. */
        for (unsigned tail = RDO_MIN_MATCH; tail <= 10; tail += 2) {
            uint8_t spliced[16];
            memcpy(spliced, bytes, 16 - tail);
            memcpy(spliced + 16 - tail, other->bytes + 16 - tail, tail);
            uastc_logical partial;
            if (uastc_unpack(spliced, &partial) != UASTC_OK || partial.mode == UASTC_MODE_SOLID)
                continue;
            uastc_refit_endpoints(&partial, src);
            consider(&best, &partial, src, w, lambda, max_error);
        }
    }
    memcpy(bytes, best.block.bytes, 16);
    *out = best.block;
}

/* The squared error of a strip's blocks as encoded (blocks that do not
 * unpack count 0: the encoder writes none). */
static void measure_strip(void *ctx, uint32_t strip) {
    const rdo_job *job = ctx;
    double total = 0;
    uint32_t end = (strip + 1) * RDO_STRIP_ROWS;
    for (uint32_t by = strip * RDO_STRIP_ROWS; by < end && by < job->blocks_y; by++)
        for (uint32_t bx = 0; bx < job->blocks_x; bx++) {
            uint8_t src[64], decoded[64];
            block_gather_rgba8(job->desc, bx, by, src);
            const uint8_t *bytes =
                job->blocks + ((size_t)by * job->blocks_x + bx) * UASTC_BLOCK_BYTES;
            if (uastc_decode(bytes, false, decoded) == UASTC_OK)
                total += squared_error(decoded, src);
        }
    job->strip_error[strip] = total;
}

static void add_earlier(window *w, const emitted *strip_blocks, size_t n, size_t back) {
    w->blocks[w->count] = &strip_blocks[n - back];
    w->offset_bits[w->count] = log2((double)back * UASTC_BLOCK_BYTES);
    w->count++;
}

static void optimise_strip(void *ctx, uint32_t strip) {
    const rdo_job *job = ctx;
    if (cook_budget_over())
        return; /* the asset fails at its next check */
    uint32_t first = strip * RDO_STRIP_ROWS;
    uint32_t rows = job->blocks_y - first < RDO_STRIP_ROWS ? job->blocks_y - first : RDO_STRIP_ROWS;
    size_t count = (size_t)rows * job->blocks_x;
    emitted *strip_blocks = malloc(count * sizeof *strip_blocks);
    literal_stats *literals = malloc(sizeof *literals);
    if (strip_blocks == NULL || literals == NULL) { /* the strip keeps its plain encoding */
        free(strip_blocks);
        free(literals);
        return;
    }
    /* Literal costs from the strip's bytes as encoded (each value counted
     * once more, so none is free of cost or infinite). */
    const uint8_t *strip_bytes = job->blocks + (size_t)first * job->blocks_x * UASTC_BLOCK_BYTES;
    for (unsigned b = 0; b < 256; b++)
        literals->count[b] = 1;
    for (size_t i = 0; i < count * UASTC_BLOCK_BYTES; i++)
        literals->count[strip_bytes[i]]++;
    literals->total = (uint32_t)(count * UASTC_BLOCK_BYTES + 256);
    literal_stats_refresh(literals);
    for (size_t n = 0; n < count; n++) {
        uint32_t bx = (uint32_t)(n % job->blocks_x), by = first + (uint32_t)(n / job->blocks_x);
        uint8_t src[64];
        block_gather_rgba8(job->desc, bx, by, src);
        window w = {.count = 0, .literal_bits = literals->bits};
        for (size_t back = 1; back <= RDO_WINDOW && back <= n; back++)
            add_earlier(&w, strip_blocks, n, back);
        /* The three blocks above, when the window does not reach them. */
        for (int dx = -1; dx <= 1; dx++) {
            size_t back = job->blocks_x - (size_t)(int64_t)dx;
            int64_t x = (int64_t)bx + dx;
            if (back > RDO_WINDOW && back <= n && x >= 0 && x < (int64_t)job->blocks_x)
                add_earlier(&w, strip_blocks, n, back);
        }
        uint8_t *bytes = job->blocks + ((size_t)by * job->blocks_x + bx) * UASTC_BLOCK_BYTES;
        optimise_block(bytes, src, &w, job->lambda, job->error_floor, &strip_blocks[n]);
    }
    free(strip_blocks);
    free(literals);
}

float uastc_rdo_lambda(cook_uastc_rdo strength) {
    static const float lambdas[] = {[COOK_UASTC_RDO_OFF] = 0.0f,
                                    [COOK_UASTC_RDO_LOW] = 1.5f,
                                    [COOK_UASTC_RDO_NORMAL] = 2.5f,
                                    [COOK_UASTC_RDO_HIGH] = 5.0f};
    return strength <= COOK_UASTC_RDO_HIGH ? lambdas[strength] : 0.0f;
}

void uastc_rdo_image(const block_image_desc *desc, uint8_t *blocks) {
    if (desc->uastc_rdo <= 0.0f || desc->format != BLOCK_FORMAT_UASTC)
        return;
    rdo_job job = {.desc = desc,
                   .blocks = blocks,
                   .blocks_x = (desc->width + 3) / 4,
                   .blocks_y = (desc->height + 3) / 4};
    uint32_t strips = (job.blocks_y + RDO_STRIP_ROWS - 1) / RDO_STRIP_ROWS;
    job.strip_error = calloc(strips, sizeof *job.strip_error);
    if (job.strip_error == NULL)
        return; /* out of memory: the plain encoding stays */
    parallel_for(desc->threads, strips, measure_strip, &job);
    double total = 0; /* summed in strip order: the same for any thread count */
    for (uint32_t s = 0; s < strips; s++)
        total += job.strip_error[s];
    free(job.strip_error);
    double mean = total / ((double)job.blocks_x * job.blocks_y);
    job.error_floor = mean > RDO_MIN_MEAN_ERROR ? mean : RDO_MIN_MEAN_ERROR;
    job.lambda = desc->uastc_rdo * RDO_LAMBDA_SCALE * job.error_floor;
    parallel_for(desc->threads, strips, optimise_strip, &job);
}
