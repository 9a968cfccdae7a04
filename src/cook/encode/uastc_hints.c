/*
 * uastc_hints.c — the transcoding hints of an encoded UASTC block
 * (encode.h): each is chosen by trying the runtime's own transcoder
 * (common/uastc_transcode_etc.h) on the block's decoded texels, so a hint
 * means exactly what the transcoder will do with it. Hints never change the
 * block's texels.
 *
 *   ETC1: flip and diff (all four), then the tables per subblock that fit
 *         the decoded texels best; in the bias modes the bias as well (fast:
 *         the unbiased value and six common steps, normal and best: all 32).
 *   EAC:  every table with the multipliers around the one spanning the
 *         alpha range.
 *   BC1:  hint 0 and hint 1 are set when their quick transcodes come within
 *         5% (squared error against the source) of the principal-axis fit.
 *   Solid blocks: the exact best ETC1 code of their colour.
 */
#include <string.h>

#include "common/uastc_transcode_etc.h"
#include "cook/encode/encode.h"

/* Total of the best table per subblock for h's flip, diff and bias; sets
 * h->table. */
static uint32_t etc1_tables_for(const uint8_t decoded[64], bool bias_mode, uastc_hints *h) {
    uint8_t base[2][3];
    uastc_etc1_bases(decoded, h, bias_mode, base);
    uint32_t total = 0;
    for (unsigned s = 0; s < 2; s++) {
        uint32_t best = UINT32_MAX;
        for (unsigned t = 0; t < 8; t++) {
            uint32_t e = uastc_etc1_subblock_error(decoded, h->flip, s, base[s], t);
            if (e < best) {
                best = e;
                h->table[s] = (uint8_t)t;
            }
        }
        total += best;
    }
    return total;
}

static void etc1_hints(const uint8_t decoded[64], unsigned mode, block_quality quality,
                       uastc_hints *h) {
    bool bias_mode = uastc_mode_has_bias(mode);
    /* 13 steps nothing; 12/14 red -1/+1, 16 green +1, 4/22 blue -1/+1 (both
     * subblocks), 0 all channels -1. */
    static const uint8_t quick_biases[7] = {13, 12, 14, 16, 4, 22, 0};
    uint32_t best = UINT32_MAX;
    uastc_hints trial = *h;
    for (unsigned flip = 0; flip < 2; flip++)
        for (unsigned diff = 0; diff < 2; diff++) {
            trial.flip = flip != 0;
            trial.diff = diff != 0;
            unsigned count = !bias_mode ? 1u : quality == BLOCK_QUALITY_FAST ? 7u : 32u;
            for (unsigned k = 0; k < count; k++) {
                trial.bias = (uint8_t)(!bias_mode ? 0u : count == 7 ? quick_biases[k] : k);
                uint32_t e = etc1_tables_for(decoded, bias_mode, &trial);
                if (e < best) {
                    best = e;
                    *h = trial;
                }
            }
        }
}

static void eac_hints(const uint8_t decoded[64], uastc_hints *h) {
    int lo = 255, hi = 0;
    for (unsigned i = 0; i < 16; i++) {
        lo = decoded[4 * i + 3] < lo ? decoded[4 * i + 3] : lo;
        hi = decoded[4 * i + 3] > hi ? decoded[4 * i + 3] : hi;
    }
    h->eac_table = 13; /* one alpha: exact whatever the table (and never 0) */
    h->eac_multiplier = 1;
    if (lo == hi)
        return;
    /* Each table's extremes (entries 3 and 7) span 17..29: the multiplier that
     * stretches them over the alpha range is near (hi - lo) / 17..29. */
    uint32_t best = UINT32_MAX;
    for (unsigned t = 0; t < 16; t++)
        for (unsigned m = 1; m <= 15; m++) {
            if ((hi - lo) > 30 * (int)m || (hi - lo) * 2 < 17 * (int)m)
                continue; /* far from spanning the range */
            uint8_t out[8];
            uint32_t e = uastc_eac_from_alpha(decoded, t, m, out, NULL);
            if (e < best) {
                best = e;
                h->eac_table = (uint8_t)t;
                h->eac_multiplier = (uint8_t)m;
            }
        }
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
        uastc_etc1_solid_hints(b->solid, &h);
    } else {
        uint8_t decoded[64];
        uastc_decode_logical(b, false, decoded);
        etc1_hints(decoded, b->mode, quality, &h);
        if (uastc_mode_has_eac(b->mode))
            eac_hints(decoded, &h);
        bc1_hints(rgba, decoded, b, &h);
    }
    b->hints = uastc_hints_write(b->mode, &h);
}
