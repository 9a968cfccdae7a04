/*
 * uastc_rdo.c — rate-distortion optimisation of encoded UASTC blocks
 * (texture.uastc_rdo; encode.h): a pass over an image's blocks that makes
 * the Zstd supercompression find more matches, at a bounded loss of quality.
 *
 * The idea is Basis Universal's UASTC RDO (Binomial's basisu, "UASTC RDO"
 * in its README and the -uastc_rdo_l option): a block may be replaced by a
 * cheaper one when the error it adds per bit saved is below a lambda. Here,
 * per block, in raster order, the candidates come from the blocks emitted
 * before it within an LZ-like window (RDO_WINDOW_BLOCKS, 8 KiB: a few block
 * rows), each distinct block once, the blocks above first, then the most
 * recent, at most RDO_CANDIDATES of them:
 *   - the earlier block itself (16 matching bytes);
 *   - for the RDO_REFINED candidates whose copy comes closest to this
 *     block's texels:
 *     - its mode, pattern and weights with endpoints fitted to this block's
 *       texels (uastc_refit_endpoints): the weight bits, the block's tail,
 *       match;
 *     - its mode and endpoints with weights for these texels
 *       (uastc_reweigh): the head matches;
 *     - its last 6 to 12 bytes spliced onto this block, endpoints refitted.
 * Each candidate's bits are estimated as Zstd would spend them (rate_bits):
 * runs of at least RDO_MIN_MATCH bytes equal to an earlier block's at the
 * same offset cost one match (more for a farther block), other bytes a
 * literal each, at the cost of their value in the strip's byte histogram
 * (Zstd's Huffman-coded literals: common values are cheap, which is why
 * a match is worth less than 8 bits a byte). The candidate with the least
 * D + lambda * R (D: squared error of its decoding against the source,
 * alpha weighted double) is kept if it saves at least RDO_MIN_SAVING_BITS.
 *
 * The lambda is absolute (squared error per bit: the same trade on every
 * image), and no block's error may grow past RDO_MAX_ERROR_RATIO times its
 * own plus RDO_ERROR_ALLOWANCE. Each strength also has a loss budget (dB of
 * the level's PSNR: 0.4 per unit of lambda, 1 dB at `normal`): a pass that
 * adds more error than that is redone at the lambda its own trades say
 * fits (lambda_for_budget), then between the lambdas tried, and the
 * within-budget pass that spent most is kept (none in RDO_PASSES: the
 * plain blocks), so a near-exact image keeps near its PSNR and gains what
 * that allows.
 * Zstd sees the whole level, so a block equal to any earlier one in the
 * strip counts as one match (exact_table), however far back.
 *
 * A changed block gets the transcoding hints of its new texels
 * (uastc_encode_hints, as the encoder computes them), so the ETC1, ETC2 and
 * BC1 transcodes of an RDO block are as good as those of a plain one.
 *
 * Determinism: blocks are processed in strips of whole block rows (at least
 * RDO_STRIP_BLOCKS blocks), each strip on its own (its window never reaches
 * into another), strips on the block-row pool; the output does not depend
 * on the thread count.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/fnv.h"
#include "common/uastc.h"
#include "cook/core/budget.h"
#include "cook/core/parallel.h"
#include "cook/encode/encode.h"

/* Earlier blocks (in raster order, within the strip) a block may copy
 * from: 8 KiB, a few block rows of most images. */
#define RDO_WINDOW_BLOCKS 512u
/* Distinct earlier blocks tried per block, and how many of those (the
 * nearest in texels) are also refitted and spliced. */
#define RDO_CANDIDATES 64u
#define RDO_REFINED 3u
/* Block rows above a block that are tried first (x - 1 to x + 1). */
#define RDO_ROWS_ABOVE 2u
/* Blocks per independent strip (whole rows, at least 8). */
#define RDO_STRIP_BLOCKS 8192u
/* Zstd's shortest match at the levels kiln uses (minMatch 5 or 6); bytes
 * within a shorter run are literals. */
#define RDO_MIN_MATCH 6u
/* Estimated bits of one match besides its offset's log2(distance). */
#define RDO_MATCH_BITS 12.0
/* No block costs fewer bits by rate_bits: a literal is at least 1 bit, a
 * match at least RDO_MATCH_BITS + log2(16). */
#define RDO_LEAST_BITS 16.0
/* What a replacement must save by the estimate (which is rough: a change
 * that saves nothing real only moves the error). */
#define RDO_MIN_SAVING_BITS 16.0
/* A replacement's squared error is at most this times the original's plus
 * RDO_ERROR_ALLOWANCE (an exact block may still move a little). */
#define RDO_MAX_ERROR_RATIO 8.0
#define RDO_ERROR_ALLOWANCE 256.0
/* The squared error (alpha weighted double, summed over a block) one
 * estimated bit may buy at lambda 1. */
#define RDO_LAMBDA_UNIT 8.0

/* The loss (dB of the level's PSNR, by the weighted error) a strength may
 * spend: lambda times this. A pass that spends more is redone at a smaller
 * lambda, at most RDO_PASSES passes in all (uastc_rdo_image); when none
 * kept to the budget the plain encoding stays. */
#define RDO_LOSS_DB_PER_LAMBDA 0.4
#define RDO_PASSES 4u
/* A pass within the budget that spends this share of it ends the search. */
#define RDO_BUDGET_ENOUGH 0.8

/* Alpha errors count double: alpha edges (cut-outs, blending) show a copied
 * block's mistakes most. */
#define RDO_ALPHA_WEIGHT 2.0

/* One block already emitted in the strip: its bytes, fields and decoding. */
typedef struct emitted {
    uint8_t bytes[UASTC_BLOCK_BYTES];
    uastc_logical logical;
    uint8_t decoded[64];
    uint32_t hash; /* of the bytes: finds repeats in the window */
} emitted;

/* The earlier blocks a block may copy from, each with the bits Zstd spends
 * on its offset (about log2 of the distance in bytes). */
typedef struct window {
    const emitted *blocks[RDO_CANDIDATES];
    double offset_bits[RDO_CANDIDATES];
    unsigned count;
    const double *literal_bits;      /* per byte value: the strip's literal cost */
    const struct exact_table *exact; /* every earlier block of the strip */
    const emitted *strip_blocks;
    size_t n; /* this block's index in the strip */
} window;

/* Which window blocks are in `window` already: a hash set of block indices
 * stamped per block, so it is never cleared. */
#define SEEN_SLOTS 1024u
typedef struct seen_set {
    uint32_t stamp[SEEN_SLOTS];
    uint32_t index[SEEN_SLOTS];
    uint32_t current;
} seen_set;

/* Every block emitted in the strip by its bytes (the latest of equal
 * ones): Zstd's window spans the whole level, so a block equal to one far
 * back is still one match. Open addressing, index + 1 per slot. */
typedef struct exact_table {
    uint32_t *slots;
    size_t mask;
} exact_table;

static size_t exact_find(const exact_table *t, const emitted *strip_blocks, uint32_t hash,
                         const uint8_t bytes[16]) {
    for (size_t slot = hash & t->mask;; slot = (slot + 1) & t->mask) {
        uint32_t at = t->slots[slot];
        if (at == 0 || memcmp(strip_blocks[at - 1].bytes, bytes, 16) == 0)
            return slot;
    }
}

static void exact_add(exact_table *t, const emitted *strip_blocks, size_t index) {
    const emitted *e = &strip_blocks[index];
    t->slots[exact_find(t, strip_blocks, e->hash, e->bytes)] = (uint32_t)index + 1;
}

/* The strip's literals: Zstd codes literals with Huffman codes over their
 * histogram, so a common byte value costs far fewer than 8 bits. */
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

/* What one block's choice traded: its error before, what it added, the
 * estimated bits it saved (0 and 0 for a block left as it was). */
typedef struct block_outcome {
    double original_error, added_error, saved_bits;
} block_outcome;

typedef struct rdo_job {
    const block_image_desc *desc;
    uint8_t *blocks;
    uint32_t blocks_x, blocks_y, strip_rows;
    double lambda;
    block_outcome *outcomes; /* per block, raster order */
} rdo_job;

static double squared_error(const uint8_t a[64], const uint8_t b[64]) {
    double e = 0;
    for (unsigned i = 0; i < 64; i++) {
        double d = (double)a[i] - (double)b[i];
        e += d * d * ((i & 3) == 3 ? RDO_ALPHA_WEIGHT : 1.0);
    }
    return e;
}

/* Estimated bits Zstd spends on `bytes` after the window's blocks: a byte
 * is matched when it lies in a run of at least RDO_MIN_MATCH bytes equal to
 * some earlier block's at the same offset (the nearest such block's offset
 * is paid once per run), else it is a literal. */
static double rate_bits(const uint8_t bytes[16], const window *w) {
    double match_cost[16] = {0};
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
    double bits = 0;
    for (unsigned i = 0; i < 16; i++) {
        if (match_cost[i] == 0)
            bits += w->literal_bits[bytes[i]];
        else if (i == 0 || match_cost[i - 1] != match_cost[i])
            bits += match_cost[i];
    }
    /* The same 16 bytes anywhere earlier in the strip: one match. */
    uint32_t at = w->exact->slots[exact_find(w->exact, w->strip_blocks,
                                             (uint32_t)fnv1a64(bytes, UASTC_BLOCK_BYTES), bytes)];
    if (at != 0) {
        double copy = RDO_MATCH_BITS + log2((double)(w->n - (at - 1)) * UASTC_BLOCK_BYTES);
        bits = copy < bits ? copy : bits;
    }
    return bits;
}

/* The best candidate so far for one block. */
typedef struct choice {
    emitted block;
    double error, cost;
} choice;

/* Packs and decodes `logical` and keeps it in `best` when it costs less. */
static void consider(choice *best, const uastc_logical *logical, const uint8_t src[64],
                     const window *w, double lambda, double max_error) {
    emitted e = {.logical = *logical};
    if (uastc_pack(logical, e.bytes) != UASTC_OK)
        return;
    uastc_decode_logical(logical, false, e.decoded);
    double error = squared_error(e.decoded, src);
    if (error > max_error || error + lambda * RDO_LEAST_BITS >= best->cost)
        return; /* the rate estimate cannot make it the cheapest */
    double cost = error + lambda * rate_bits(e.bytes, w);
    if (cost < best->cost) {
        best->block = e;
        best->error = error;
        best->cost = cost;
    }
}

/* The variants of one earlier block that keep part of its bytes. */
static void consider_variants(choice *best, const emitted *other, const uint8_t bytes[16],
                              const uint8_t src[64], const window *w, double lambda,
                              double max_error) {
    if (other->logical.mode == UASTC_MODE_SOLID)
        return;
    /* Its weights with endpoints for these texels. */
    uastc_logical refit = other->logical;
    uastc_refit_endpoints(&refit, src);
    consider(best, &refit, src, w, lambda, max_error);
    /* Its mode and endpoints with weights for these texels. */
    uastc_logical reweighed = other->logical;
    uastc_reweigh(&reweighed, src);
    consider(best, &reweighed, src, w, lambda, max_error);
    /* Its last bytes (the last texels' weights) in this block, the
     * endpoints refitted. */
    for (unsigned tail = RDO_MIN_MATCH; tail <= 12; tail += 2) {
        uint8_t spliced[16];
        memcpy(spliced, bytes, 16 - tail);
        memcpy(spliced + 16 - tail, other->bytes + 16 - tail, tail);
        uastc_logical partial;
        if (uastc_unpack(spliced, &partial) != UASTC_OK || partial.mode == UASTC_MODE_SOLID)
            continue;
        uastc_refit_endpoints(&partial, src);
        consider(best, &partial, src, w, lambda, max_error);
    }
}

/* One block: the original or a cheaper candidate drawn from the window;
 * `out` receives what was kept, `outcome` its trade. */
static void optimise_block(uint8_t bytes[16], const uint8_t src[64], const window *w, double lambda,
                           block_quality quality, emitted *out, block_outcome *outcome) {
    choice original = {.cost = 1e300};
    uastc_logical logical;
    *outcome = (block_outcome){0};
    if (uastc_unpack(bytes, &logical) != UASTC_OK) { /* the encoder writes valid blocks */
        memset(out, 0, sizeof *out);
        memcpy(out->bytes, bytes, 16);
        return;
    }
    consider(&original, &logical, src, w, lambda, 1e300);
    choice best = original;
    best.cost -= lambda * RDO_MIN_SAVING_BITS;
    outcome->original_error = original.error;
    if (best.cost <= lambda * RDO_LEAST_BITS) { /* exact and cheap already (flat areas) */
        *out = original.block;
        return;
    }
    double max_error = original.error * RDO_MAX_ERROR_RATIO + RDO_ERROR_ALLOWANCE;
    /* Whole copies (their decodings are cached); the RDO_REFINED nearest
     * in texels are kept for the variants. */
    const emitted *nearest[RDO_REFINED];
    double nearest_error[RDO_REFINED];
    unsigned near_count = 0;
    for (unsigned c = 0; c < w->count; c++) {
        const emitted *other = w->blocks[c];
        double error = squared_error(other->decoded, src);
        if (error <= max_error && error + lambda * RDO_LEAST_BITS < best.cost) {
            double cost = error + lambda * rate_bits(other->bytes, w);
            if (cost < best.cost)
                best = (choice){*other, error, cost};
        }
        unsigned at = near_count < RDO_REFINED ? near_count++ : RDO_REFINED;
        while (at > 0 && nearest_error[at - 1] > error) {
            if (at < RDO_REFINED) {
                nearest[at] = nearest[at - 1];
                nearest_error[at] = nearest_error[at - 1];
            }
            at--;
        }
        if (at < RDO_REFINED) {
            nearest[at] = other;
            nearest_error[at] = error;
        }
    }
    for (unsigned k = 0; k < near_count; k++)
        consider_variants(&best, nearest[k], bytes, src, w, lambda, max_error);
    if (memcmp(best.block.bytes, bytes, 16) != 0) {
        /* New texels, new hints; the bytes may then match less. */
        uastc_logical hinted = best.block.logical;
        uastc_encode_hints(src, quality, &hinted);
        if (hinted.hints != best.block.logical.hints) {
            choice rehinted = {.cost = 1e300};
            consider(&rehinted, &hinted, src, w, lambda, 1e300);
            best =
                rehinted.cost < original.cost - lambda * RDO_MIN_SAVING_BITS ? rehinted : original;
        }
    }
    memcpy(bytes, best.block.bytes, 16);
    *out = best.block;
    outcome->added_error = best.error - original.error;
    outcome->saved_bits = (original.cost - original.error - (best.cost - best.error)) / lambda;
}

/* Adds strip block `index` to the window unless its bytes are there. */
static void add_candidate(window *w, seen_set *seen, const emitted *strip_blocks, size_t n,
                          size_t index) {
    const emitted *e = &strip_blocks[index];
    uint32_t slot = e->hash & (SEEN_SLOTS - 1);
    while (seen->stamp[slot] == seen->current) {
        if (memcmp(strip_blocks[seen->index[slot]].bytes, e->bytes, 16) == 0)
            return;
        slot = (slot + 1) & (SEEN_SLOTS - 1);
    }
    seen->stamp[slot] = seen->current;
    seen->index[slot] = (uint32_t)index;
    w->blocks[w->count] = e;
    w->offset_bits[w->count] = log2((double)(n - index) * UASTC_BLOCK_BYTES);
    w->count++;
}

/* Block n's window: the blocks above, then the most recent. */
static void gather_window(window *w, seen_set *seen, const emitted *strip_blocks, size_t n,
                          uint32_t bx, uint32_t blocks_x) {
    seen->current++;
    for (size_t row = 1; row <= RDO_ROWS_ABOVE; row++)
        for (int dx = -1; dx <= 1 && w->count < RDO_CANDIDATES; dx++) {
            int64_t x = (int64_t)bx + dx;
            size_t back = row * blocks_x - (size_t)(int64_t)dx;
            if (x >= 0 && x < (int64_t)blocks_x && back <= n && back <= RDO_WINDOW_BLOCKS)
                add_candidate(w, seen, strip_blocks, n, n - back);
        }
    for (size_t back = 1; back <= RDO_WINDOW_BLOCKS && back <= n && w->count < RDO_CANDIDATES;
         back++)
        add_candidate(w, seen, strip_blocks, n, n - back);
}

static void optimise_strip(void *ctx, uint32_t strip) {
    const rdo_job *job = ctx;
    if (cook_budget_over())
        return; /* the asset fails at its next check */
    uint32_t first = strip * job->strip_rows;
    uint32_t rows =
        job->blocks_y - first < job->strip_rows ? job->blocks_y - first : job->strip_rows;
    size_t count = (size_t)rows * job->blocks_x;
    emitted *strip_blocks = malloc(count * sizeof *strip_blocks);
    literal_stats *literals = malloc(sizeof *literals);
    seen_set *seen = calloc(1, sizeof *seen);
    exact_table exact = {.mask = 1};
    while (exact.mask < 2 * count)
        exact.mask = exact.mask * 2 + 1;
    exact.slots = calloc(exact.mask + 1, sizeof *exact.slots);
    if (strip_blocks == NULL || literals == NULL || seen == NULL || exact.slots == NULL) {
        free(strip_blocks); /* the strip keeps its plain encoding */
        free(literals);
        free(seen);
        free(exact.slots);
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
        window w = {
            .literal_bits = literals->bits, .exact = &exact, .strip_blocks = strip_blocks, .n = n};
        gather_window(&w, seen, strip_blocks, n, bx, job->blocks_x);
        size_t index = (size_t)by * job->blocks_x + bx;
        optimise_block(job->blocks + index * UASTC_BLOCK_BYTES, src, &w, job->lambda,
                       job->desc->quality, &strip_blocks[n], &job->outcomes[index]);
        strip_blocks[n].hash = (uint32_t)fnv1a64(strip_blocks[n].bytes, UASTC_BLOCK_BYTES);
        exact_add(&exact, strip_blocks, n);
    }
    free(strip_blocks);
    free(literals);
    free(seen);
    free(exact.slots);
}

float uastc_rdo_lambda(cook_uastc_rdo strength) {
    static const float lambdas[] = {[COOK_UASTC_RDO_OFF] = 0.0f,
                                    [COOK_UASTC_RDO_LOW] = 1.5f,
                                    [COOK_UASTC_RDO_NORMAL] = 2.5f,
                                    [COOK_UASTC_RDO_HIGH] = 5.0f};
    return strength <= COOK_UASTC_RDO_HIGH ? lambdas[strength] : 0.0f;
}

/* One replacement of a pass: its added error per estimated bit saved
 * beyond RDO_MIN_SAVING_BITS (it is taken when that is below lambda), and
 * the error it added. */
typedef struct trade {
    double ratio, added;
} trade;

static int by_ratio(const void *a, const void *b) {
    double x = ((const trade *)a)->ratio, y = ((const trade *)b)->ratio;
    return (x > y) - (x < y);
}

/* The lambda at which a pass's replacements (as recorded in `outcomes`)
 * would have added at most `budget`; at most half of `lambda`, so passes
 * always weaken. */
static double lambda_for_budget(const block_outcome *outcomes, size_t count, double budget,
                                double lambda) {
    trade *trades = malloc(count * sizeof *trades);
    if (trades == NULL)
        return lambda * 0.5;
    size_t n = 0;
    for (size_t i = 0; i < count; i++)
        if (outcomes[i].added_error > 0)
            trades[n++] =
                (trade){outcomes[i].added_error / (outcomes[i].saved_bits - RDO_MIN_SAVING_BITS),
                        outcomes[i].added_error};
    qsort(trades, n, sizeof *trades, by_ratio);
    double spent = 0, chosen = 0;
    for (size_t k = 0; k < n && spent + trades[k].added <= budget; k++) {
        spent += trades[k].added;
        chosen = trades[k].ratio;
    }
    free(trades);
    return chosen < lambda * 0.5 ? chosen : lambda * 0.5;
}

void uastc_rdo_image(const block_image_desc *desc, uint8_t *blocks) {
    if (desc->uastc_rdo <= 0.0f || desc->format != BLOCK_FORMAT_UASTC)
        return;
    rdo_job job = {.desc = desc,
                   .blocks = blocks,
                   .blocks_x = (desc->width + 3) / 4,
                   .blocks_y = (desc->height + 3) / 4};
    job.strip_rows = (RDO_STRIP_BLOCKS + job.blocks_x - 1) / job.blocks_x;
    if (job.strip_rows < 8)
        job.strip_rows = 8;
    size_t count = (size_t)job.blocks_x * job.blocks_y, size = count * UASTC_BLOCK_BYTES;
    uint8_t *plain = malloc(size), *kept = malloc(size);
    job.outcomes = calloc(count, sizeof *job.outcomes);
    if (plain == NULL || kept == NULL || job.outcomes == NULL) {
        free(plain); /* out of memory: the plain encoding stays */
        free(kept);
        free(job.outcomes);
        return;
    }
    memcpy(plain, blocks, size);
    uint32_t strips = (job.blocks_y + job.strip_rows - 1) / job.strip_rows;
    job.lambda = desc->uastc_rdo * RDO_LAMBDA_UNIT;
    double cap_db = desc->uastc_rdo * RDO_LOSS_DB_PER_LAMBDA;
    /* The strength's lambda first; past the budget, lambdas between the
     * largest within it and the smallest past it (the first from the
     * pass's own trades); the within-budget pass that spent most is kept. */
    double within_lambda = 0, over_lambda = 0, kept_added = -1;
    for (unsigned pass = 0; pass < RDO_PASSES; pass++) {
        if (pass > 0)
            memcpy(blocks, plain, size);
        parallel_for(desc->threads, strips, optimise_strip, &job);
        double original = 0, added = 0; /* in block order: the same for any thread count */
        for (size_t i = 0; i < count; i++) {
            original += job.outcomes[i].original_error;
            added += job.outcomes[i].added_error;
        }
        double budget = original * (pow(10.0, cap_db / 10.0) - 1.0);
        if (added <= budget) {
            if (added > kept_added) {
                memcpy(kept, blocks, size);
                kept_added = added;
            }
            if (over_lambda == 0 || added >= RDO_BUDGET_ENOUGH * budget)
                break;
            within_lambda = job.lambda;
        } else {
            over_lambda = job.lambda;
        }
        job.lambda = within_lambda > 0 ? sqrt(within_lambda * over_lambda)
                                       : lambda_for_budget(job.outcomes, count, budget, job.lambda);
    }
    memcpy(blocks, kept_added >= 0 ? kept : plain, size);
    free(kept);
    free(plain);
    free(job.outcomes);
}
