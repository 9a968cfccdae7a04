/*
 * uastc_hints.c — the transcoding hints of an encoded UASTC block
 * (encode.h): each is chosen by trying the runtime's own transcoder
 * (common/uastc_transcode_etc.h) on the block's decoded texels, so a hint
 * means exactly what the transcoder will do with it. Hints never change the
 * block's texels.
 *
 *   ETC1: flip and diff (all four), each with the best tables per subblock
 *         for the decoded texels; in the bias modes the best bias for the
 *         most promising of them (etc1_hints).
 *   EAC:  uastc_eac_choose (the transcoder's own choice when a block has
 *         no EAC hint).
 *   BC1:  hint 0 and hint 1 are set when their quick transcodes come within
 *         5% (squared error against the source) of the principal-axis fit.
 *   Solid blocks: the exact best ETC1 code of their colour.
 */
#include <string.h>

#include "common/uastc_transcode_etc.h"
#include "cook/encode/encode.h"

/* How etc1_error treats the tables. */
typedef enum table_search {
    TABLES_KEEP,      /* h->table as they are */
    TABLES_NEAR,      /* h->table and its neighbours */
    TABLES_ALL,       /* the best of the 8 per subblock */
    TABLES_UNTIL_RISE /* upwards from 0 while the error falls (fast) */
} table_search;

/* Error of h's flip, diff, bias and tables, the tables chosen per `search`. */
static uint32_t etc1_error(const uint8_t decoded[64], bool bias_mode, table_search search,
                           uastc_hints *h) {
    uint8_t base[2][3];
    uastc_etc1_bases(decoded, h, bias_mode, base);
    uint32_t total = 0;
    for (unsigned s = 0; s < 2; s++) {
        if (search == TABLES_KEEP) {
            total += uastc_etc1_subblock_error(decoded, h->flip, s, base[s], h->table[s]);
            continue;
        }
        uint32_t best = UINT32_MAX;
        unsigned kept = h->table[s], first = 0, last = 7;
        if (search == TABLES_NEAR) {
            first = kept > 0 ? kept - 1 : 0;
            last = kept < 7 ? kept + 1 : 7;
        }
        for (unsigned t = first; t <= last; t++) {
            uint32_t e = uastc_etc1_subblock_error(decoded, h->flip, s, base[s], t);
            if (e < best) {
                best = e;
                h->table[s] = (uint8_t)t;
            } else if (search == TABLES_UNTIL_RISE) {
                break;
            }
        }
        total += best;
    }
    return total;
}

/* Per flip and diff: the best tables with the unbiased bias (13; fast: the
 * first tables where the error stops falling). Then in the bias modes, for
 * the flips and diffs within 25% of the best so far, every bias with their
 * tables (fast: for the best one, six common steps), and last the chosen
 * bias's tables' neighbours (not at fast). */
static void etc1_hints(const uint8_t decoded[64], unsigned mode, block_quality quality,
                       uastc_hints *h) {
    bool bias_mode = uastc_mode_has_bias(mode), fast = quality == BLOCK_QUALITY_FAST;
    uastc_hints unbiased[4];
    uint32_t errors[4], best = UINT32_MAX;
    unsigned best_combo = 0;
    for (unsigned combo = 0; combo < 4; combo++) {
        unbiased[combo] = *h;
        unbiased[combo].flip = (combo & 1u) != 0;
        unbiased[combo].diff = (combo & 2u) != 0;
        unbiased[combo].bias = bias_mode ? 13 : 0;
        errors[combo] =
            etc1_error(decoded, bias_mode, fast ? TABLES_UNTIL_RISE : TABLES_ALL, &unbiased[combo]);
        if (errors[combo] < best) {
            best = errors[combo];
            best_combo = combo;
            *h = unbiased[combo];
        }
    }
    if (!bias_mode || best == 0)
        return;
    /* 12/14 red -1/+1, 16 green +1, 4/22 blue -1/+1 (both subblocks), 0 all -1 */
    static const uint8_t quick_biases[6] = {12, 14, 16, 4, 22, 0};
    uint64_t near_best = (uint64_t)best * 5u / 4u;
    for (unsigned combo = 0; combo < 4; combo++) {
        bool searched = fast ? combo == best_combo : errors[combo] <= near_best;
        for (unsigned k = 0; searched && k < (fast ? 6u : 32u); k++) {
            uastc_hints trial = unbiased[combo];
            trial.bias = (uint8_t)(fast ? quick_biases[k] : k);
            uint32_t e = etc1_error(decoded, true, TABLES_KEEP, &trial);
            if (e < best) {
                best = e;
                *h = trial;
            }
        }
    }
    uastc_hints retabled = *h;
    if (!fast && etc1_error(decoded, true, TABLES_NEAR, &retabled) < best)
        *h = retabled;
}

static uint32_t rgb_error(const uint8_t a[64], const uint8_t b[64]) {
    uint32_t e = 0;
    for (unsigned i = 0; i < 16; i++)
        for (unsigned c = 0; c < 3; c++) {
            int d = (int)a[4 * i + c] - (int)b[4 * i + c];
            e += (uint32_t)(d * d);
        }
    return e;
}

static void bc1_hints(const uint8_t rgba[64], const uint8_t decoded[64], const uastc_logical *b,
                      uastc_hints *h) {
    uint8_t out[8], fitted[64], quick[64];
    memcpy(fitted, decoded, 64);
    uastc_bc1_from_texels(decoded, NULL, NULL, out, fitted);
    uint64_t limit = (uint64_t)rgb_error(rgba, fitted) * 105u / 100u;
    uastc_hints trial = *h;
    trial.bc1_direct = true;
    trial.bc1_weights = false;
    memcpy(quick, decoded, 64);
    uastc_bc1_from_texels(decoded, b, &trial, out, quick);
    h->bc1_direct = rgb_error(rgba, quick) <= limit;
    if (uastc_mode_has_bias(b->mode)) {
        trial.bc1_direct = false;
        trial.bc1_weights = true;
        uastc_bc1_from_texels(decoded, b, &trial, out, quick);
        h->bc1_weights = rgb_error(rgba, quick) <= limit;
    }
}

void uastc_encode_hints(const uint8_t rgba[64], block_quality quality, uastc_logical *b) {
    uastc_hints h;
    memset(&h, 0, sizeof h);
    if (b->mode == UASTC_MODE_SOLID) {
        /* Flat regions repeat one colour block after block: the last
         * colour's hints, per thread (a pure function's memo: output is
         * the same with or without it). */
        static _Thread_local struct {
            bool valid;
            uint8_t rgb[3];
            uastc_hints hints;
        } last;
        if (!last.valid || memcmp(last.rgb, b->solid, 3) != 0) {
            uastc_etc1_solid_hints(b->solid, &last.hints);
            memcpy(last.rgb, b->solid, 3);
            last.valid = true;
        }
        h = last.hints;
    } else {
        uint8_t decoded[64];
        uastc_decode_logical(b, false, decoded);
        etc1_hints(decoded, b->mode, quality, &h);
        if (uastc_mode_has_eac(b->mode))
            uastc_eac_choose(decoded, &h.eac_table, &h.eac_multiplier);
        bc1_hints(rgba, decoded, b, &h);
    }
    b->hints = uastc_hints_write(b->mode, &h);
}
