/*
 * uastc_etc.c — UASTC into ETC1 RGB and ETC2 RGBA8 (uastc_transcode_etc.h).
 *
 * ETC1 (Khronos Data Format 1.3, "ETC1"): two subblocks of 8 texels, each a
 * base colour plus one of four modifiers of its intensity table. The
 * transcoder takes the subblocks (flip), base colour precision (diff) and
 * tables from the block's hints; the base colours are the subblocks' average
 * decoded colours quantised as the UASTC specification's transcoder does it
 * (round(average * limit / 255)), moved by the bias hint, so the hints mean
 * here what they mean in Basis Universal's transcoder; each texel then takes
 * its closest modifier (squared RGB error). EAC alpha ("ETC2 alpha"): the
 * hinted table and multiplier, the base placed so the table's extremes span
 * the block's alpha range, each texel its closest value.
 */
#include <string.h>

#include "common/uastc_transcode_etc.h"

/* ---- ETC1 ------------------------------------------------------------------ */

/* The intensity tables' two magnitudes (small, large). */
static const uint8_t etc1_tables[8][2] = {{2, 8},   {5, 17},  {9, 29},   {13, 42},
                                          {18, 60}, {24, 80}, {33, 106}, {47, 183}};

/* The modifiers in ascending order (-large, -small, +small, +large) and the
 * pixel index ETC1 stores for each. */
static int etc1_modifier(unsigned table, unsigned ascending) {
    int small = etc1_tables[table & 7u][0], large = etc1_tables[table & 7u][1];
    static const int sign[4] = {-1, -1, 1, 1};
    return sign[ascending] * (ascending == 0 || ascending == 3 ? large : small);
}
static const uint8_t etc1_pixel_index[4] = {3, 2, 0, 1};

/* Per bias value, subblock and channel: the step added to the quantised base
 * colour (the UASTC specification's bias table: most values read as three
 * base-3 digits minus one, R lowest; the rest move one subblock or one
 * channel, or all channels by -2). */
static const int8_t bias_steps[32][2][3] = {
    {{-1, -1, -1}, {-1, -1, -1}}, {{0, -1, -1}, {0, -1, -1}},   {{-1, 0, 0}, {0, 0, 0}},
    {{-1, 0, -1}, {-1, 0, -1}},   {{0, 0, -1}, {0, 0, -1}},     {{0, -1, 0}, {0, 0, 0}},
    {{0, 0, -1}, {0, 0, 0}},      {{1, 0, 0}, {0, 0, 0}},       {{0, 0, 0}, {0, 0, 1}},
    {{-1, -1, 0}, {-1, -1, 0}},   {{-2, -2, -2}, {-2, -2, -2}}, {{0, 1, 0}, {0, 0, 0}},
    {{-1, 0, 0}, {-1, 0, 0}},     {{0, 0, 0}, {0, 0, 0}},       {{1, 0, 0}, {1, 0, 0}},
    {{0, 0, 1}, {0, 0, 0}},       {{0, 1, 0}, {0, 1, 0}},       {{1, 1, 0}, {1, 1, 0}},
    {{0, 0, 0}, {-1, 0, 0}},      {{0, 0, 0}, {0, -1, 0}},      {{0, 0, 0}, {0, 0, -1}},
    {{0, 0, 0}, {1, 0, 0}},       {{0, 0, 1}, {0, 0, 1}},       {{1, 0, 1}, {1, 0, 1}},
    {{0, 0, 0}, {0, 1, 0}},       {{0, 1, 1}, {0, 1, 1}},       {{1, 1, 1}, {1, 1, 1}},
    {{-1, -1, -1}, {0, 0, 0}},    {{1, 1, 1}, {-1, -1, -1}},    {{0, 0, 0}, {1, 1, 1}},
    {{0, 0, 0}, {-1, -1, -1}},    {{1, 1, 1}, {0, 0, 0}},
};

/* A biased channel stays in 0..limit: at the ends the three steps -1, 0, +1
 * map onto the three nearest values (and -2 onto the fourth); elsewhere a
 * step that leaves the range is taken the other way. */
static int apply_bias(int v, int step, int limit) {
    if (v == 0)
        return step == -2 ? 3 : step + 1;
    if (v == limit)
        return v + step - 1;
    int moved = v + step;
    return moved < 0 || moved > limit ? v - step : moved;
}

static unsigned subblock_of(bool flip, unsigned texel) {
    return flip ? (texel >> 3) : ((texel & 3u) >> 1);
}

static uint8_t clamp255(int v) {
    return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

static int expand_base(int v, bool diff) {
    return diff ? (v << 3) | (v >> 2) : v * 17;
}

static void etc1_palette(const uint8_t base[3], unsigned table, uint8_t pal[4][3]) {
    for (unsigned s = 0; s < 4; s++)
        for (unsigned c = 0; c < 3; c++)
            pal[s][c] = clamp255(base[c] + etc1_modifier(table, s));
}

/* The closest palette entry to a texel (ties to the lower); its error. */
static unsigned closest3(uint8_t pal[4][3], const uint8_t *texel, uint32_t *error) {
    unsigned best = 0;
    uint32_t best_e = UINT32_MAX;
    for (unsigned s = 0; s < 4; s++) {
        uint32_t e = 0;
        for (unsigned c = 0; c < 3; c++) {
            int d = (int)pal[s][c] - (int)texel[c];
            e += (uint32_t)(d * d);
        }
        if (e < best_e) {
            best_e = e;
            best = s;
        }
    }
    *error = best_e;
    return best;
}

uint32_t uastc_etc1_subblock_error(const uint8_t rgba[64], bool flip, unsigned sub,
                                   const uint8_t base[3], unsigned table) {
    uint8_t pal[4][3];
    etc1_palette(base, table, pal);
    uint32_t total = 0, e;
    for (unsigned i = 0; i < 16; i++)
        if (subblock_of(flip, i) == sub) {
            (void)closest3(pal, rgba + 4 * i, &e);
            total += e;
        }
    return total;
}

/* The base colour fields (5 or 4 bits) of both subblocks; with diff the
 * second is within -4..3 of the first, as the format requires. */
static void quantised_bases(const uint8_t rgba[64], const uastc_hints *h, bool bias_mode,
                            int q[2][3]) {
    int limit = h->diff ? 31 : 15;
    unsigned sums[2][3] = {{0}};
    for (unsigned i = 0; i < 16; i++)
        for (unsigned c = 0; c < 3; c++)
            sums[subblock_of(h->flip, i)][c] += rgba[4 * i + c];
    for (unsigned s = 0; s < 2; s++)
        for (unsigned c = 0; c < 3; c++) {
            /* round(average * limit / 255), the average over 8 texels */
            q[s][c] = (int)((sums[s][c] * (unsigned)limit + 1020u) / 2040u);
            if (bias_mode)
                q[s][c] = apply_bias(q[s][c], bias_steps[h->bias & 31u][s][c], limit);
        }
    if (h->diff)
        for (unsigned c = 0; c < 3; c++) {
            int d = q[1][c] - q[0][c];
            q[1][c] = q[0][c] + (d < -4 ? -4 : d > 3 ? 3 : d);
        }
}

void uastc_etc1_bases(const uint8_t rgba[64], const uastc_hints *h, bool bias_mode,
                      uint8_t base[2][3]) {
    int q[2][3];
    quantised_bases(rgba, h, bias_mode, q);
    for (unsigned s = 0; s < 2; s++)
        for (unsigned c = 0; c < 3; c++)
            base[s][c] = (uint8_t)expand_base(q[s][c], h->diff);
}

/* Texel i (row-major) takes ascending modifier `s`: ETC1 stores the pixel
 * index's high bits in bytes 4-5 and low bits in bytes 6-7, big-endian,
 * texels in column-major order. */
static void put_selector(uint8_t out[8], unsigned texel, unsigned ascending) {
    unsigned p = (texel & 3u) * 4u + (texel >> 2), index = etc1_pixel_index[ascending];
    unsigned byte = p < 8 ? 1u : 0u, bit = p & 7u;
    out[4 + byte] = (uint8_t)(out[4 + byte] | ((index >> 1) << bit));
    out[6 + byte] = (uint8_t)(out[6 + byte] | ((index & 1u) << bit));
}

static uint8_t control_byte(const uastc_hints *h, unsigned table0, unsigned table1) {
    return (uint8_t)((table0 & 7u) << 5 | (table1 & 7u) << 2 | (unsigned)h->diff << 1 |
                     (unsigned)h->flip);
}

void uastc_etc1_from_texels(const uint8_t rgba[64], const uastc_hints *h, bool bias_mode,
                            uint8_t out[8], uint8_t decoded[64]) {
    int q[2][3];
    quantised_bases(rgba, h, bias_mode, q);
    memset(out, 0, 8);
    for (unsigned c = 0; c < 3; c++)
        out[c] = h->diff ? (uint8_t)(q[0][c] << 3 | ((q[1][c] - q[0][c]) & 7))
                         : (uint8_t)(q[0][c] << 4 | q[1][c]);
    out[3] = control_byte(h, h->table[0], h->table[1]);
    uint8_t pal[2][4][3];
    for (unsigned s = 0; s < 2; s++) {
        uint8_t base[3];
        for (unsigned c = 0; c < 3; c++)
            base[c] = (uint8_t)expand_base(q[s][c], h->diff);
        etc1_palette(base, h->table[s], pal[s]);
    }
    for (unsigned i = 0; i < 16; i++) {
        unsigned s = subblock_of(h->flip, i);
        uint32_t e;
        unsigned pick = closest3(pal[s], rgba + 4 * i, &e);
        put_selector(out, i, pick);
        if (decoded != NULL)
            memcpy(decoded + 4 * i, pal[s][pick], 3);
    }
}

void uastc_etc1_from_solid_hints(const uastc_hints *h, uint8_t out[8], uint8_t decoded[64]) {
    memset(out, 0, 8);
    uint8_t base[3];
    for (unsigned c = 0; c < 3; c++) {
        unsigned v = h->diff ? h->solid_base[c] & 31u : h->solid_base[c] & 15u;
        out[c] = (uint8_t)(h->diff ? v << 3 : v << 4 | v); /* diff: both subblocks alike */
        base[c] = (uint8_t)expand_base((int)v, h->diff);
    }
    uastc_hints flat = *h;
    flat.flip = false;
    out[3] = control_byte(&flat, h->table[0], h->table[0]);
    uint8_t pal[4][3];
    etc1_palette(base, h->table[0], pal);
    for (unsigned i = 0; i < 16; i++) {
        put_selector(out, i, h->solid_selector & 3u);
        if (decoded != NULL)
            memcpy(decoded + 4 * i, pal[h->solid_selector & 3u], 3);
    }
}

void uastc_etc1_solid_hints(const uint8_t rgb[3], uastc_hints *h) {
    memset(h, 0, sizeof *h);
    uint32_t best = UINT32_MAX;
    for (int diff = 1; diff >= 0; diff--) {
        int limit = diff ? 31 : 15;
        for (unsigned table = 0; table < 8; table++)
            for (unsigned s = 0; s < 4; s++) {
                int mod = etc1_modifier(table, s);
                uint32_t total = 0;
                uint8_t fields[3];
                for (unsigned c = 0; c < 3; c++) {
                    /* The decoded value rises with the base: the best base is
                     * within a step or two of the one nearest rgb - mod. */
                    int near = ((rgb[c] - mod) * limit + 127) / 255;
                    near = near < 0 ? 0 : near > limit ? limit : near;
                    int first = near - 2 < 0 ? 0 : near - 2,
                        last = near + 2 > limit ? limit : near + 2;
                    uint32_t channel_best = UINT32_MAX;
                    for (int v = first; v <= last; v++) {
                        int d = clamp255(expand_base(v, diff) + mod) - rgb[c];
                        if ((uint32_t)(d * d) < channel_best) {
                            channel_best = (uint32_t)(d * d);
                            fields[c] = (uint8_t)v;
                        }
                    }
                    total += channel_best;
                }
                if (total < best) {
                    best = total;
                    h->diff = diff != 0;
                    h->table[0] = (uint8_t)table;
                    h->solid_selector = (uint8_t)s;
                    memcpy(h->solid_base, fields, 3);
                }
            }
    }
}

/* ---- EAC alpha ----------------------------------------------------------------- */

/* The 16 modifier tables; entries 3 and 7 are each table's extremes. */
static const int8_t eac_tables[16][8] = {
    {-3, -6, -9, -15, 2, 5, 8, 14}, {-3, -7, -10, -13, 2, 6, 9, 12}, {-2, -5, -8, -13, 1, 4, 7, 12},
    {-2, -4, -6, -13, 1, 3, 5, 12}, {-3, -6, -8, -12, 2, 5, 7, 11},  {-3, -7, -9, -11, 2, 6, 8, 10},
    {-4, -7, -8, -11, 3, 6, 7, 10}, {-3, -5, -8, -11, 2, 4, 7, 10},  {-2, -6, -8, -10, 1, 5, 7, 9},
    {-2, -5, -8, -10, 1, 4, 7, 9},  {-2, -4, -8, -10, 1, 3, 7, 9},   {-2, -5, -7, -10, 1, 4, 6, 9},
    {-3, -4, -7, -10, 2, 3, 6, 9},  {-1, -2, -3, -10, 0, 1, 2, 9},   {-4, -6, -8, -9, 3, 5, 7, 8},
    {-3, -5, -7, -9, 2, 4, 6, 8},
};

unsigned uastc_eac_span(unsigned table) {
    return (unsigned)(eac_tables[table & 15u][7] - eac_tables[table & 15u][3]);
}

uint32_t uastc_eac_from_alpha(const uint8_t rgba[64], unsigned table, unsigned multiplier,
                              uint8_t out[8], uint8_t decoded[16]) {
    int lo = 255, hi = 0;
    for (unsigned i = 0; i < 16; i++) {
        lo = rgba[4 * i + 3] < lo ? rgba[4 * i + 3] : lo;
        hi = rgba[4 * i + 3] > hi ? rgba[4 * i + 3] : hi;
    }
    int base = lo;
    if (lo == hi) { /* table 13's entry 4 adds 0: exact */
        table = 13;
        multiplier = 1;
    } else {
        table &= 15u;
        multiplier = multiplier < 1 ? 1 : multiplier > 15 ? 15 : multiplier;
        /* The base sits where 0 falls between the table's extremes, scaled
         * onto lo..hi: lo + (hi - lo) * -t3 / (t7 - t3), rounded. */
        int below = -eac_tables[table][3], span = (int)uastc_eac_span(table);
        base = lo + (2 * (hi - lo) * below + span) / (2 * span);
    }
    out[0] = (uint8_t)base;
    out[1] = (uint8_t)(multiplier << 4 | table);
    uint8_t values[8];
    for (unsigned k = 0; k < 8; k++)
        values[k] = clamp255(base + eac_tables[table][k] * (int)multiplier);
    uint64_t bits = 0;
    uint32_t total = 0;
    for (unsigned i = 0; i < 16 && lo == hi; i++) { /* entry 4 (+0) everywhere */
        bits |= (uint64_t)4u << (45 - 3 * i);
        if (decoded != NULL)
            decoded[i] = (uint8_t)lo;
    }
    for (unsigned i = 0; i < 16 && lo != hi; i++) {
        int a = rgba[4 * i + 3];
        unsigned best = 0, best_e = UINT32_MAX;
        for (unsigned k = 0; k < 8; k++) {
            unsigned e = (unsigned)((values[k] - a) * (values[k] - a));
            if (e < best_e) {
                best_e = e;
                best = k;
            }
        }
        total += best_e;
        /* 3 bits per texel, column-major, the first at the top (big-endian). */
        unsigned p = (i & 3u) * 4u + (i >> 2);
        bits |= (uint64_t)best << (45 - 3 * p);
        if (decoded != NULL)
            decoded[i] = values[best];
    }
    for (unsigned b = 0; b < 6; b++)
        out[2 + b] = (uint8_t)(bits >> (40 - 8 * b));
    return total;
}

void uastc_eac_choose(const uint8_t rgba[64], uint8_t *table, uint8_t *multiplier) {
    int lo = 255, hi = 0;
    for (unsigned i = 0; i < 16; i++) {
        lo = rgba[4 * i + 3] < lo ? rgba[4 * i + 3] : lo;
        hi = rgba[4 * i + 3] > hi ? rgba[4 * i + 3] : hi;
    }
    *table = 13; /* one alpha: exact whatever the table (and never multiplier 0) */
    *multiplier = 1;
    if (lo == hi)
        return;
    uint32_t best = UINT32_MAX;
    uint8_t out[8];
    for (unsigned t = 0; t < 16; t++) {
        unsigned span = uastc_eac_span(t), m = ((unsigned)(hi - lo) + span / 2) / span;
        m = m < 1 ? 1 : m > 15 ? 15 : m;
        uint32_t e = uastc_eac_from_alpha(rgba, t, m, out, NULL);
        if (e < best) {
            best = e;
            *table = (uint8_t)t;
            *multiplier = (uint8_t)m;
        }
    }
    unsigned m0 = *multiplier;
    for (unsigned m = m0 - 1; m <= m0 + 1 && m <= 15; m += 2) {
        uint32_t e = m >= 1 ? uastc_eac_from_alpha(rgba, *table, m, out, NULL) : UINT32_MAX;
        if (e < best) {
            best = e;
            *multiplier = (uint8_t)m;
        }
    }
}

/* ---- blocks -------------------------------------------------------------------- */

/* Unpacks, reads the hints and decodes (not for the solid mode, whose ETC1
 * block is in its hints). */
static uastc_status prepare(const uint8_t uastc[UASTC_BLOCK_BYTES], bool srgb, uastc_logical *b,
                            uastc_hints *h, uint8_t rgba[64]) {
    uastc_status status = uastc_unpack(uastc, b);
    if (status != UASTC_OK)
        return status;
    uastc_hints_read(b->mode, b->hints, h);
    uastc_decode_logical(b, srgb, rgba);
    return UASTC_OK;
}

static void etc1_of(const uastc_logical *b, const uastc_hints *h, const uint8_t rgba[64],
                    uint8_t out[8]) {
    if (b->mode == UASTC_MODE_SOLID)
        uastc_etc1_from_solid_hints(h, out, NULL);
    else
        uastc_etc1_from_texels(rgba, h, uastc_mode_has_bias(b->mode), out, NULL);
}

uastc_status uastc_block_to_etc1(const uint8_t uastc[UASTC_BLOCK_BYTES], bool srgb,
                                 uint8_t out[8]) {
    uastc_logical b;
    uastc_hints h;
    uint8_t rgba[64];
    uastc_status status = prepare(uastc, srgb, &b, &h, rgba);
    if (status == UASTC_OK)
        etc1_of(&b, &h, rgba, out);
    return status;
}

uastc_status uastc_block_to_etc2_rgba8(const uint8_t uastc[UASTC_BLOCK_BYTES], bool srgb,
                                       uint8_t out[16]) {
    uastc_logical b;
    uastc_hints h;
    uint8_t rgba[64];
    uastc_status status = prepare(uastc, srgb, &b, &h, rgba);
    if (status != UASTC_OK)
        return status;
    /* Opaque modes decode alpha 255 and the solid mode one alpha: both are
     * single values, which the EAC fit writes exactly whatever the table. */
    if (uastc_mode_has_eac(b.mode) && h.eac_multiplier == 0) /* no hint: choose here */
        uastc_eac_choose(rgba, &h.eac_table, &h.eac_multiplier);
    (void)uastc_eac_from_alpha(rgba, h.eac_table, h.eac_multiplier, out, NULL);
    etc1_of(&b, &h, rgba, out + 8);
    return UASTC_OK;
}
