/*
 * uastc.c — UASTC block unpack, pack and decode (uastc.h). The layout is
 * read and written by one walk (layout_walk) so the two cannot disagree.
 */
#include "common/uastc.h"

#include <string.h>

/* ---- ISE ranges and unquantisation (Khronos Data Format 1.3, ASTC) -------- */

/* Per ASTC range index: plain bits, trit (1) or quint (2) on top. */
static const uint8_t ise_bits[21] = {1, 0, 2, 0, 1, 3, 1, 2, 4, 2, 3, 5, 3, 4, 6, 4, 5, 7, 5, 6, 8};
static const uint8_t ise_kind[21] = {0, 1, 0, 2, 1, 0, 2, 1, 0, 2, 1, 0, 2, 1, 0, 2, 1, 0, 2, 1, 0};

unsigned uastc_ise_bits(unsigned range) {
    return range < 21 ? ise_bits[range] : 0;
}
unsigned uastc_ise_trits(unsigned range) {
    return range < 21 && ise_kind[range] == 1;
}
unsigned uastc_ise_quints(unsigned range) {
    return range < 21 && ise_kind[range] == 2;
}
unsigned uastc_ise_levels(unsigned range) {
    if (range >= 21)
        return 0;
    unsigned mult = ise_kind[range] == 1 ? 3u : ise_kind[range] == 2 ? 5u : 1u;
    return mult << ise_bits[range];
}

/* ISE ordering puts the trit/quint above the bits; unquantisation
 * interleaves them per the specification's table (B, C by bit count). */
uint8_t uastc_unquant_endpoint(unsigned range, unsigned value) {
    unsigned bits = uastc_ise_bits(range);
    if (range >= 21 || value >= uastc_ise_levels(range))
        return 0;
    if (ise_kind[range] == 0) { /* replicate the bits to 8 */
        unsigned out = 0;
        for (int shift = 8 - (int)bits; shift > -(int)bits; shift -= (int)bits)
            out |= shift >= 0 ? value << shift : value >> -shift;
        return (uint8_t)(out & 0xFFu);
    }
    unsigned d = value >> bits;              /* the trit or quint */
    unsigned m = value & ((1u << bits) - 1); /* bits: ...edcba */
    unsigned a = (m & 1u) ? 0x1FFu : 0u;
    unsigned b = (m >> 1) & 1u, c = (m >> 2) & 1u, dd = (m >> 3) & 1u, e = (m >> 4) & 1u;
    unsigned f = (m >> 5) & 1u;
    unsigned B = 0, C = 0;
    if (ise_kind[range] == 1) {
        switch (bits) {
        case 1:
            C = 204;
            break;
        case 2:
            C = 93;
            B = (b << 8) | (b << 4) | (b << 2) | (b << 1);
            break;
        case 3:
            C = 44;
            B = (c << 8) | (b << 7) | (c << 3) | (b << 2) | (c << 1) | b;
            break;
        case 4:
            C = 22;
            B = (dd << 8) | (c << 7) | (b << 6) | (dd << 2) | (c << 1) | b;
            break;
        case 5:
            C = 11;
            B = (e << 8) | (dd << 7) | (c << 6) | (b << 5) | (e << 1) | dd;
            break;
        default:
            C = 5;
            B = (f << 8) | (e << 7) | (dd << 6) | (c << 5) | (b << 4) | f;
            break;
        }
    } else {
        switch (bits) {
        case 1:
            C = 113;
            break;
        case 2:
            C = 54;
            B = (b << 8) | (b << 3) | (b << 2);
            break;
        case 3:
            C = 26;
            B = (c << 8) | (b << 7) | (c << 2) | (b << 1) | c;
            break;
        case 4:
            C = 13;
            B = (dd << 8) | (c << 7) | (b << 6) | (dd << 1) | c;
            break;
        default:
            C = 6;
            B = (e << 8) | (dd << 7) | (c << 6) | (b << 5) | e;
            break;
        }
    }
    unsigned t = d * C + B;
    t ^= a;
    return (uint8_t)((a & 0x80u) | (t >> 2));
}

/* Plain-binary weights: replicate to 6 bits, then 33..63 step up to 64. */
unsigned uastc_unquant_weight(unsigned bits, unsigned value) {
    if (bits == 0 || bits > 5)
        return 0;
    value &= (1u << bits) - 1;
    unsigned w = 0;
    for (int shift = 6 - (int)bits; shift > -(int)bits; shift -= (int)bits)
        w |= shift >= 0 ? value << shift : value >> -shift;
    w &= 63u;
    return w > 32 ? w + 1 : w;
}

uint8_t uastc_lerp(unsigned e0, unsigned e1, unsigned weight64, bool srgb) {
    unsigned c0 = srgb ? (e0 << 8) | 0x80u : e0 * 257u;
    unsigned c1 = srgb ? (e1 << 8) | 0x80u : e1 * 257u;
    return (uint8_t)(((c0 * (64 - weight64) + c1 * weight64 + 32) >> 6) >> 8);
}

/* ---- partitions (ASTC's hash, small-block variant) ------------------------ */

static uint32_t hash52(uint32_t p) {
    p ^= p >> 15;
    p -= p << 17;
    p += p << 7;
    p += p << 4;
    p ^= p >> 5;
    p += p << 16;
    p ^= p >> 7;
    p ^= p >> 3;
    p ^= p << 6;
    p ^= p >> 17;
    return p;
}

/* What the hash gives one seed: the slopes of the three planes and their
 * offsets, shared by every texel of the block. */
typedef struct partition_hash {
    unsigned slope[6], offset[3], partitions;
} partition_hash;

static partition_hash partition_setup(unsigned seed, unsigned partitions) {
    partition_hash h = {.partitions = partitions};
    seed += (partitions - 1) * 1024u;
    uint32_t r = hash52(seed);
    unsigned s[8];
    for (unsigned i = 0; i < 8; i++) {
        s[i] = (r >> (4 * i)) & 0xFu;
        s[i] *= s[i];
    }
    unsigned sh1, sh2;
    if (seed & 1u) {
        sh1 = (seed & 2u) ? 4 : 5;
        sh2 = partitions == 3 ? 6 : 5;
    } else {
        sh1 = partitions == 3 ? 6 : 5;
        sh2 = (seed & 2u) ? 4 : 5;
    }
    /* z is 0 in 2D: the z seeds (s[6], s[7]) drop out. */
    for (unsigned i = 0; i < 6; i++)
        h.slope[i] = s[i] >> ((i & 1) ? sh2 : sh1);
    h.offset[0] = r >> 14;
    h.offset[1] = r >> 10;
    h.offset[2] = r >> 6;
    return h;
}

static unsigned partition_of(const partition_hash *h, unsigned x, unsigned y) {
    x <<= 1; /* 4×4 has fewer than 31 texels: the small-block scaling */
    y <<= 1;
    unsigned a = (h->slope[0] * x + h->slope[1] * y + h->offset[0]) & 0x3Fu;
    unsigned b = (h->slope[2] * x + h->slope[3] * y + h->offset[1]) & 0x3Fu;
    unsigned c = (h->slope[4] * x + h->slope[5] * y + h->offset[2]) & 0x3Fu;
    if (h->partitions < 3)
        c = 0;
    if (a >= b && a >= c)
        return 0;
    return b >= c ? 1 : 2;
}

unsigned uastc_astc_partition(unsigned seed, unsigned partitions, unsigned x, unsigned y) {
    partition_hash h = partition_setup(seed, partitions);
    return partition_of(&h, x, y);
}

unsigned uastc_partition(unsigned mode, unsigned pattern, uint8_t subset_of[16],
                         uint8_t anchors[3]) {
    const uastc_mode_desc *d = uastc_mode_info(mode);
    if (!d || d->subsets == 0)
        return 0;
    memset(subset_of, 0, 16);
    memset(anchors, 0, 3);
    if (d->subsets == 1)
        return 1;
    if (pattern >= uastc_pattern_count(mode))
        return 0;
    partition_hash h = partition_setup(uastc_pattern_seed(mode, pattern), d->subsets);
    bool seen[3] = {false, false, false};
    for (unsigned i = 0; i < 16; i++) {
        unsigned s = partition_of(&h, i & 3u, i >> 2);
        subset_of[i] = (uint8_t)s;
        if (!seen[s]) {
            seen[s] = true;
            anchors[s] = (uint8_t)i;
        }
    }
    return d->subsets;
}

/* ---- the layout walk ------------------------------------------------------ */

typedef struct bit_cursor {
    uint8_t *bytes;
    unsigned pos;
    bool write;
} bit_cursor;

/* Reads or writes `count` bits of *value at the cursor, LSB first. */
static void field(bit_cursor *c, uint32_t *value, unsigned count) {
    if (c->write) {
        for (unsigned i = 0; i < count; i++, c->pos++)
            if ((*value >> i) & 1u)
                c->bytes[c->pos >> 3] |= (uint8_t)(1u << (c->pos & 7u));
        return;
    }
    uint32_t v = 0;
    for (unsigned i = 0; i < count; i++, c->pos++)
        v |= (uint32_t)((c->bytes[c->pos >> 3] >> (c->pos & 7u)) & 1u) << i;
    *value = v;
}

static void field8(bit_cursor *c, uint8_t *value, unsigned count) {
    uint32_t v = *value;
    field(c, &v, count);
    *value = (uint8_t)v;
}

/* Bits of the last trit/quint group holding `n` values (1..5 or 1..3). */
static unsigned group_bits(bool trits, unsigned n) {
    static const uint8_t trit_bits[6] = {0, 2, 4, 5, 7, 8};
    static const uint8_t quint_bits[4] = {0, 3, 5, 7};
    return trits ? trit_bits[n] : quint_bits[n];
}

/* Endpoints: the trit/quint groups first (values packed base 3 or 5, the
 * first value lowest), then each value's plain bits. */
static uastc_status endpoints_walk(bit_cursor *c, uastc_logical *b, const uastc_mode_desc *d) {
    unsigned count = (unsigned)d->comps * 2u * d->subsets;
    unsigned bits = uastc_ise_bits(d->endpoint_ise);
    bool trits = uastc_ise_trits(d->endpoint_ise), quints = uastc_ise_quints(d->endpoint_ise);
    if (trits || quints) {
        unsigned base = trits ? 3u : 5u, per_group = trits ? 5u : 3u;
        for (unsigned first = 0; first < count; first += per_group) {
            unsigned n = count - first < per_group ? count - first : per_group;
            uint32_t group = 0, limit = 1;
            for (unsigned k = 0; k < n; k++)
                limit *= base;
            if (c->write)
                for (unsigned k = n; k-- > 0;)
                    group = group * base + (b->endpoints[first + k] >> bits);
            field(c, &group, group_bits(trits, n));
            if (!c->write) {
                if (group >= limit)
                    return UASTC_BAD_TRITS;
                for (unsigned k = 0; k < n; k++, group /= base)
                    b->endpoints[first + k] = (uint8_t)((group % base) << bits);
            }
        }
    }
    for (unsigned i = 0; i < count; i++) {
        uint32_t low = b->endpoints[i] & ((1u << bits) - 1u);
        field(c, &low, bits);
        if (!c->write)
            b->endpoints[i] = (uint8_t)(b->endpoints[i] | low);
    }
    return UASTC_OK;
}

static uastc_status layout_walk(bit_cursor *c, uastc_logical *b) {
    const uastc_mode_desc *d = uastc_mode_info(b->mode);
    c->pos = d->code_bits; /* the mode code is written or matched by the caller */
    if (b->mode == UASTC_MODE_SOLID) {
        for (unsigned i = 0; i < 4; i++)
            field8(c, &b->solid[i], 8);
        field(c, &b->hints, d->hint_bits);
        return UASTC_OK;
    }
    field(c, &b->hints, d->hint_bits);
    if (d->pattern_bits) {
        field8(c, &b->pattern, d->pattern_bits);
        if (b->pattern >= uastc_pattern_count(b->mode))
            return UASTC_BAD_PATTERN;
    }
    if (d->planes == 2 && d->comps != 2)
        field8(c, &b->ccs, 2);
    else if (!c->write)
        b->ccs = d->planes == 2 ? 3 : 0; /* LA's second plane is alpha */
    uastc_status status = endpoints_walk(c, b, d);
    if (status != UASTC_OK)
        return status;
    uint8_t subset_of[16], anchors[3];
    unsigned subsets = uastc_partition(b->mode, b->pattern, subset_of, anchors);
    unsigned count = 16u * d->planes;
    for (unsigned i = 0; i < count; i++) {
        bool anchor = false;
        for (unsigned s = 0; s < subsets; s++)
            anchor = anchor || (unsigned)anchors[s] * d->planes == (i / d->planes) * d->planes;
        unsigned bits = anchor ? d->weight_bits - 1u : d->weight_bits;
        if (c->write && (b->weights[i] >> bits) != 0)
            return UASTC_BAD_WEIGHT;
        field8(c, &b->weights[i], bits);
    }
    return UASTC_OK;
}

static unsigned match_mode(uint8_t first_byte) {
    for (unsigned m = 0; m < UASTC_MODES; m++) {
        const uastc_mode_desc *d = uastc_mode_info(m);
        if ((first_byte & ((1u << d->code_bits) - 1u)) == d->code)
            return m;
    }
    return UASTC_MODES;
}

uastc_status uastc_unpack(const uint8_t block[UASTC_BLOCK_BYTES], uastc_logical *out) {
    memset(out, 0, sizeof *out);
    unsigned mode = match_mode(block[0]);
    if (mode >= UASTC_MODES)
        return UASTC_BAD_MODE;
    out->mode = (uint8_t)mode;
    uint8_t copy[UASTC_BLOCK_BYTES];
    memcpy(copy, block, sizeof copy);
    bit_cursor c = {copy, 0, false};
    uastc_status status = layout_walk(&c, out);
    if (status != UASTC_OK)
        return status;
    for (unsigned pos = c.pos; pos < 128; pos++)
        if ((block[pos >> 3] >> (pos & 7u)) & 1u)
            return UASTC_BAD_PADDING;
    return UASTC_OK;
}

uastc_status uastc_pack(const uastc_logical *in, uint8_t block[UASTC_BLOCK_BYTES]) {
    const uastc_mode_desc *d = uastc_mode_info(in->mode);
    memset(block, 0, UASTC_BLOCK_BYTES);
    if (!d)
        return UASTC_BAD_MODE;
    if (d->hint_bits < 32 && (in->hints >> d->hint_bits) != 0)
        return UASTC_BAD_PADDING;
    if (in->mode != UASTC_MODE_SOLID) {
        unsigned levels = uastc_ise_levels(d->endpoint_ise);
        for (unsigned i = 0; i < (unsigned)d->comps * 2u * d->subsets; i++)
            if (in->endpoints[i] >= levels)
                return UASTC_BAD_ENDPOINT;
        if (d->planes == 2 && d->comps != 2 && in->ccs > 3)
            return UASTC_BAD_WEIGHT;
    }
    uastc_logical copy = *in;
    bit_cursor c = {block, 0, true};
    uint32_t code = d->code;
    field(&c, &code, d->code_bits);
    uastc_status status = layout_walk(&c, &copy);
    if (status != UASTC_OK)
        memset(block, 0, UASTC_BLOCK_BYTES);
    return status;
}

const char *uastc_status_text(uastc_status status) {
    switch (status) {
    case UASTC_OK:
        return "valid";
    case UASTC_BAD_MODE:
        return "reserved mode code";
    case UASTC_BAD_PATTERN:
        return "partition pattern index out of range";
    case UASTC_BAD_TRITS:
        return "trit or quint group out of range";
    case UASTC_BAD_ENDPOINT:
        return "endpoint out of range";
    case UASTC_BAD_WEIGHT:
        return "weight out of range";
    case UASTC_BAD_PADDING:
        return "bits after the block's layout are set";
    }
    return "unknown";
}

/* ---- decoding ------------------------------------------------------------ */

void uastc_endpoints_rgba8(const uastc_logical *b, uint8_t ends[3][2][4]) {
    const uastc_mode_desc *d = uastc_mode_info(b->mode);
    memset(ends, 0, 3 * 2 * 4);
    for (unsigned s = 0; s < d->subsets; s++) {
        const uint8_t *v = b->endpoints + s * d->comps * 2u;
        for (unsigned e = 0; e < 2; e++) {
            uint8_t u[4] = {0, 0, 0, 255};
            for (unsigned k = 0; k < d->comps; k++)
                u[k] = uastc_unquant_endpoint(d->endpoint_ise, v[2 * k + e]);
            if (d->comps == 2) {
                ends[s][e][0] = ends[s][e][1] = ends[s][e][2] = u[0];
                ends[s][e][3] = u[1];
            } else {
                memcpy(ends[s][e], u, 4);
            }
        }
    }
}

void uastc_decode_logical(const uastc_logical *b, bool srgb, uint8_t rgba[64]) {
    const uastc_mode_desc *d = uastc_mode_info(b->mode);
    if (b->mode == UASTC_MODE_SOLID) {
        for (unsigned i = 0; i < 16; i++)
            memcpy(rgba + 4 * i, b->solid, 4);
        return;
    }
    uint8_t ends[3][2][4];
    uastc_endpoints_rgba8(b, ends);
    uint8_t subset_of[16], anchors[3];
    (void)uastc_partition(b->mode, b->pattern, subset_of, anchors);
    for (unsigned i = 0; i < 16; i++) {
        uint8_t(*e)[4] = ends[subset_of[i]];
        unsigned w0 = uastc_unquant_weight(d->weight_bits, b->weights[i * d->planes]);
        unsigned w1 =
            d->planes == 2 ? uastc_unquant_weight(d->weight_bits, b->weights[2 * i + 1]) : w0;
        for (unsigned k = 0; k < 4; k++) {
            unsigned w = (d->planes == 2 && k == b->ccs) ? w1 : w0;
            rgba[4 * i + k] = uastc_lerp(e[0][k], e[1][k], w, srgb);
        }
    }
}

uastc_status uastc_decode(const uint8_t block[UASTC_BLOCK_BYTES], bool srgb, uint8_t rgba[64]) {
    uastc_logical b;
    uastc_status status = uastc_unpack(block, &b);
    if (status == UASTC_OK)
        uastc_decode_logical(&b, srgb, rgba);
    return status;
}
