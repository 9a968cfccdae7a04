/* BC1 / BC3 / BC4 / BC5 (encode/bc1.c): decoders against blocks worked out by
 * hand from the Khronos specification, exact round trips of representable
 * blocks, optimal single colours, 1-bit alpha, PSNR floors per format and
 * quality on generated (and, when present, corpus) images, quality ordering,
 * and the angular error of BC5 normal maps. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cook/drivers/drivers.h"
#include "cook/encode/encode.h"
#include "test_support.h"

static const block_quality k_qualities[3] = {BLOCK_QUALITY_FAST, BLOCK_QUALITY_NORMAL,
                                             BLOCK_QUALITY_BEST};

static void set_le32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* A BC4 block with endpoints a0, a1 and texel i on code i % 8. */
static void bc4_block_all_codes(uint8_t a0, uint8_t a1, uint8_t out[8]) {
    uint64_t bits = 0;
    for (int i = 0; i < 16; i++)
        bits |= (uint64_t)(i % 8) << (3 * i);
    out[0] = a0;
    out[1] = a1;
    for (int i = 0; i < 6; i++)
        out[2 + i] = (uint8_t)(bits >> (8 * i));
}

static void assert_texel(const uint8_t *rgba, int i, int r, int g, int b, int a) {
    const uint8_t *p = rgba + i * 4;
    if (p[0] != r || p[1] != g || p[2] != b || p[3] != a)
        fail_msg("texel %d: (%d,%d,%d,%d), expected (%d,%d,%d,%d)", i, p[0], p[1], p[2], p[3], r, g,
                 b, a);
}

/* ---- decoders: hand-worked blocks ------------------------------------------------------- */

static void bc1_decodes_four_colour_blocks_with_exact_thirds(void **state) {
    (void)state;
    /* c0 = pure red 565 (31,0,0) > c1 = pure blue (0,0,31); texel i on code
     * i % 4 (0xE4 = codes 0,1,2,3). Thirds: 255 * 62 / 93 = 170, 255 * 31 / 93 = 85. */
    uint8_t block[8] = {0x00, 0xF8, 0x1F, 0x00};
    set_le32(block + 4, 0xE4E4E4E4u);
    uint8_t rgba[64];
    bc1_decode_block(block, rgba);
    for (int i = 0; i < 16; i += 4) {
        assert_texel(rgba, i + 0, 255, 0, 0, 255);
        assert_texel(rgba, i + 1, 0, 0, 255, 255);
        assert_texel(rgba, i + 2, 170, 0, 85, 255);
        assert_texel(rgba, i + 3, 85, 0, 170, 255);
    }
    /* c0 = (16, 63, 0) > c1 = (0, 1, 0). Green has 6 bits: 63 -> 255,
     * 1 -> 255 / 63 = 4.05 -> 4; thirds 255 * 127 / 189 = 171.3 -> 171 and
     * 255 * 65 / 189 = 87.7 -> 88. Red 16 -> 255 * 16 / 31 = 131.6 -> 132. */
    uint8_t green[8] = {0xE0, 0x07 | (16 << 3), 0x20, 0x00};
    set_le32(green + 4, 0xE4E4E4E4u);
    bc1_decode_block(green, rgba);
    assert_texel(rgba, 0, 132, 255, 0, 255);
    assert_texel(rgba, 1, 0, 4, 0, 255);
    /* r: 255 * 32 / 93 = 87.7 -> 88; 255 * 16 / 93 = 43.9 -> 44 */
    assert_texel(rgba, 2, 88, 171, 0, 255);
    assert_texel(rgba, 3, 44, 88, 0, 255);
}

static void bc1_decodes_three_colour_blocks_with_transparent_black(void **state) {
    (void)state;
    /* c0 = blue (0x001F) <= c1 = red (0xF800): midpoint 255 * 31 / 62 =
     * 127.5, rounded up to 128; code 3 transparent black. */
    uint8_t block[8] = {0x1F, 0x00, 0x00, 0xF8};
    set_le32(block + 4, 0xE4E4E4E4u);
    uint8_t rgba[64];
    bc1_decode_block(block, rgba);
    assert_texel(rgba, 0, 0, 0, 255, 255);
    assert_texel(rgba, 1, 255, 0, 0, 255);
    assert_texel(rgba, 2, 128, 0, 128, 255);
    assert_texel(rgba, 3, 0, 0, 0, 0);
    /* c0 == c1 is the 3-colour mode too. */
    uint8_t same[8] = {0xFF, 0xFF, 0xFF, 0xFF};
    set_le32(same + 4, 0xFFFFFFFFu);
    bc1_decode_block(same, rgba);
    for (int i = 0; i < 16; i++)
        assert_texel(rgba, i, 0, 0, 0, 0);
}

static void bc3_colour_block_always_interpolates_four_colours(void **state) {
    (void)state;
    uint8_t block[16];
    bc4_block_all_codes(200, 10, block);
    uint8_t colour[8] = {0x1F, 0x00, 0x00, 0xF8};
    set_le32(colour + 4, 0xE4E4E4E4u);
    memcpy(block + 8, colour, 8);
    uint8_t rgba[64];
    bc3_decode_block(block, rgba);
    /* Same endpoints as the 3-colour BC1 block above, but thirds and opaque. */
    static const int alpha[8] = {200, 10, 173, 146, 119, 91, 64, 37};
    assert_texel(rgba, 0, 0, 0, 255, alpha[0]);
    assert_texel(rgba, 1, 255, 0, 0, alpha[1]);
    assert_texel(rgba, 2, 85, 0, 170, alpha[2]);
    assert_texel(rgba, 3, 170, 0, 85, alpha[3]);
    for (int i = 0; i < 16; i++)
        assert_int_equal(rgba[i * 4 + 3], alpha[i % 8]);
}

static void bc4_decodes_eight_and_six_value_modes(void **state) {
    (void)state;
    uint8_t block[8], values[16];
    /* 8 values: (6*200 + 10)/7 = 172.86 -> 173, 1020/7 = 145.7 -> 146,
     * 830/7 = 118.6 -> 119, 640/7 = 91.4 -> 91, 450/7 = 64.3 -> 64, 260/7 = 37.1 -> 37. */
    static const int eight[8] = {200, 10, 173, 146, 119, 91, 64, 37};
    bc4_block_all_codes(200, 10, block);
    bc4_decode_block(block, values);
    for (int i = 0; i < 16; i++)
        assert_int_equal(values[i], eight[i % 8]);
    /* 6 values and the constants: (4*10 + 200)/5 = 48, 430/5 = 86, 620/5 = 124,
     * 810/5 = 162, then 0 and 255. */
    static const int six[8] = {10, 200, 48, 86, 124, 162, 0, 255};
    bc4_block_all_codes(10, 200, block);
    bc4_decode_block(block, values);
    for (int i = 0; i < 16; i++)
        assert_int_equal(values[i], six[i % 8]);
    /* Rounding to nearest: (6*1 + 0)/7 = 0.86 -> 1, (5*1)/7 = 0.71 -> 1, 4/7 -> 1,
     * 3/7 -> 0. */
    bc4_block_all_codes(1, 0, block);
    bc4_decode_block(block, values);
    static const int small[8] = {1, 0, 1, 1, 1, 0, 0, 0};
    for (int i = 0; i < 8; i++)
        assert_int_equal(values[i], small[i]);
}

static void bc5_decodes_red_then_green(void **state) {
    (void)state;
    uint8_t block[16], rgba[64];
    bc4_block_all_codes(200, 10, block);
    bc4_block_all_codes(10, 200, block + 8);
    bc5_decode_block(block, rgba);
    static const int red[8] = {200, 10, 173, 146, 119, 91, 64, 37};
    static const int green[8] = {10, 200, 48, 86, 124, 162, 0, 255};
    for (int i = 0; i < 16; i++)
        assert_texel(rgba, i, red[i % 8], green[i % 8], 0, 255);
}

/* ---- exact and optimal blocks ----------------------------------------------------------- */

static int expand5(int x) {
    return (x * 255 + 15) / 31;
}
static int expand6(int x) {
    return (x * 255 + 31) / 63;
}

static void fill(uint8_t rgba[64], int r, int g, int b, int a) {
    for (int i = 0; i < 16; i++) {
        rgba[i * 4 + 0] = (uint8_t)r;
        rgba[i * 4 + 1] = (uint8_t)g;
        rgba[i * 4 + 2] = (uint8_t)b;
        rgba[i * 4 + 3] = (uint8_t)a;
    }
}

/* Colours that 565 holds exactly and blocks made of one or two of them come
 * back bit for bit (one colour at every quality, two at normal and best). */
static void representable_colour_blocks_round_trip_exactly(void **state) {
    (void)state;
    uint8_t in[64], out[64], block[16];
    for (int r = 0; r < 32; r++)
        for (int g = r % 4; g < 64; g += 9) {
            int b = (r * 7 + g) % 32;
            int rgb[3] = {expand5(r), expand6(g), expand5(b)};
            fill(in, rgb[0], rgb[1], rgb[2], 255);
            for (int q = 0; q < 3; q++) {
                bc1_encode_block(in, false, k_qualities[q], block);
                bc1_decode_block(block, out);
                assert_memory_equal(in, out, 64);
                bc1_encode_block(in, true, k_qualities[q], block);
                bc1_decode_block(block, out);
                assert_memory_equal(in, out, 64);
                bc3_encode_block(in, k_qualities[q], block);
                bc3_decode_block(block, out);
                assert_memory_equal(in, out, 64);
            }
            /* Two colours: this one and another exact one, checkerboard. */
            int other[3] = {expand5(31 - r), expand6((g + 29) % 64), expand5((b + 11) % 32)};
            for (int i = 0; i < 16; i++)
                if ((i + i / 4) & 1)
                    for (int c = 0; c < 3; c++)
                        in[i * 4 + c] = (uint8_t)other[c];
            for (int q = 1; q < 3; q++) {
                bc1_encode_block(in, false, k_qualities[q], block);
                bc1_decode_block(block, out);
                assert_memory_equal(in, out, 64);
                bc3_encode_block(in, k_qualities[q], block);
                bc3_decode_block(block, out);
                assert_memory_equal(in, out, 64);
            }
        }
}

/* Smallest distance from v to an interpolated entry of a 5- or 6-bit channel:
 * 2/3 a + 1/3 b (4-colour mode) or the midpoint (3-colour mode), as the
 * decoder rounds them (brute force over every endpoint pair). */
static int best_channel_distance(int v, int max, bool three) {
    int best = 255;
    for (int a = 0; a <= max; a++)
        for (int b = 0; b <= max; b++) {
            int value = three ? (255 * (a + b) + max) / (2 * max)
                              : (255 * (2 * a + b) + (3 * max) / 2) / (3 * max);
            best = abs(value - v) < best ? abs(value - v) : best;
        }
    return best;
}

/* Every grey level 0..255 as one colour: the encoder's squared error is the
 * smallest any pair of 565 endpoints gives. BC3's colour half (and BC1 at
 * `fast`) use the 4-colour mode only; opaque BC1 at `normal` and `best` may
 * also use the 3-colour mode's midpoint, whichever is nearer. */
static void single_colours_get_optimal_endpoints(void **state) {
    (void)state;
    uint8_t in[64], out[64], block[16];
    for (int v = 0; v < 256; v++) {
        int four5 = best_channel_distance(v, 31, false),
            four6 = best_channel_distance(v, 63, false);
        int three5 = best_channel_distance(v, 31, true),
            three6 = best_channel_distance(v, 63, true);
        int four = 2 * four5 * four5 + four6 * four6;
        int three = 2 * three5 * three5 + three6 * three6;
        fill(in, v, v, v, 255);
        for (int q = 0; q < 3; q++) {
            for (int format = 0; format < 2; format++) {
                bool bc3 = format == 1;
                if (bc3) {
                    bc3_encode_block(in, k_qualities[q], block);
                    bc3_decode_block(block, out);
                } else {
                    bc1_encode_block(in, false, k_qualities[q], block);
                    bc1_decode_block(block, out);
                }
                int expected = bc3 || q == 0 || four <= three ? four : three;
                for (int i = 0; i < 16; i++) {
                    int dr = out[i * 4] - v, dg = out[i * 4 + 1] - v, db = out[i * 4 + 2] - v;
                    assert_int_equal(dr * dr + dg * dg + db * db, expected);
                    assert_int_equal(out[i * 4 + 3], 255);
                }
            }
        }
    }
}

/* BC4: every value as a whole block, and any two values, are exact. */
static void bc4_single_and_two_value_blocks_are_exact(void **state) {
    (void)state;
    uint8_t in[16], out[16], block[8], rgba[64], decoded[64], block16[16];
    for (int v = 0; v < 256; v++) {
        memset(in, v, 16);
        for (int q = 0; q < 3; q++) {
            bc4_encode_block(in, k_qualities[q], block);
            bc4_decode_block(block, out);
            assert_memory_equal(in, out, 16);
        }
        /* With a second value, and BC5 with a third in green. */
        int w = (v * 37 + 11) % 256;
        for (int i = 0; i < 16; i += 3)
            in[i] = (uint8_t)w;
        for (int q = 0; q < 3; q++) {
            bc4_encode_block(in, k_qualities[q], block);
            bc4_decode_block(block, out);
            assert_memory_equal(in, out, 16);
            for (int i = 0; i < 16; i++) {
                rgba[i * 4] = in[i];
                rgba[i * 4 + 1] = (uint8_t)(255 - v);
                rgba[i * 4 + 2] = 0;
                rgba[i * 4 + 3] = 255;
            }
            bc5_encode_block(rgba, k_qualities[q], block16);
            bc5_decode_block(block16, decoded);
            assert_memory_equal(rgba, decoded, 64);
        }
    }
}

/* ---- 1-bit alpha ------------------------------------------------------------------------ */

static uint32_t rng_next(uint32_t *state) {
    uint32_t x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *state = x;
}

static void bc1_alpha_keeps_transparent_and_opaque_texels(void **state) {
    (void)state;
    uint32_t seed = 2024;
    uint8_t in[64], out[64], block[8];
    for (int trial = 0; trial < 300; trial++) {
        /* Some blocks fully opaque, some fully transparent, most mixed. */
        int mode = trial % 5;
        for (int i = 0; i < 64; i++)
            in[i] = (uint8_t)rng_next(&seed);
        for (int i = 0; i < 16; i++)
            if (mode == 0)
                in[i * 4 + 3] = 255;
            else if (mode == 1)
                in[i * 4 + 3] = (uint8_t)(in[i * 4 + 3] & 127);
        for (int q = 0; q < 3; q++) {
            bc1_encode_block(in, true, k_qualities[q], block);
            bc1_decode_block(block, out);
            for (int i = 0; i < 16; i++) {
                if (in[i * 4 + 3] < 128)
                    assert_texel(out, i, 0, 0, 0, 0);
                else
                    assert_int_equal(out[i * 4 + 3], 255);
            }
            /* Without 1-bit alpha nothing is ever transparent. */
            bc1_encode_block(in, false, k_qualities[q], block);
            bc1_decode_block(block, out);
            for (int i = 0; i < 16; i++)
                assert_int_equal(out[i * 4 + 3], 255);
        }
    }
}

/* ---- whole images: PSNR floors, ordering, normal maps --------------------------------- */

#define IMG 64

typedef struct test_image {
    const char *name;
    uint32_t w, h;
    uint8_t *rgba;
} test_image;

/* Smooth value noise from a 9x9 lattice. */
static float value_noise(float lattice[9][9], float u, float v) {
    float fx = u * 8, fy = v * 8;
    int x = (int)fx < 7 ? (int)fx : 7, y = (int)fy < 7 ? (int)fy : 7;
    float tx = fx - (float)x, ty = fy - (float)y;
    float a = lattice[y][x] + (lattice[y][x + 1] - lattice[y][x]) * tx;
    float b = lattice[y + 1][x] + (lattice[y + 1][x + 1] - lattice[y + 1][x]) * tx;
    return a + (b - a) * ty;
}

static uint8_t unit_to_byte(float v) {
    return (uint8_t)lrintf((v < 0 ? 0 : v > 1 ? 1 : v) * 255.0f);
}

enum { GEN_GRADIENT, GEN_NOISE, GEN_EDGES, GEN_ALPHA, GEN_NORMAL, GEN_COUNT };
static const char *const k_gen_names[GEN_COUNT] = {"gradient", "noise", "edges", "alpha ramp",
                                                   "normal map"};

static test_image generate(int kind) {
    test_image im = {k_gen_names[kind], IMG, IMG, malloc(IMG * IMG * 4)};
    assert_non_null(im.rgba);
    uint32_t seed = 77u + (uint32_t)kind;
    float lattice[9][9];
    for (int y = 0; y < 9; y++)
        for (int x = 0; x < 9; x++)
            lattice[y][x] = (float)(rng_next(&seed) % 1000) / 999.0f;
    uint32_t rect_colour[8][3];
    for (int r = 0; r < 8; r++)
        for (int c = 0; c < 3; c++)
            rect_colour[r][c] = rng_next(&seed) & 255;
    for (int y = 0; y < IMG; y++)
        for (int x = 0; x < IMG; x++) {
            uint8_t *p = im.rgba + (y * IMG + x) * 4;
            float u = (float)x / IMG, v = (float)y / IMG;
            p[3] = 255;
            switch (kind) {
            case GEN_GRADIENT:
                p[0] = unit_to_byte(u);
                p[1] = unit_to_byte(v);
                p[2] = unit_to_byte(0.5f * (u + v));
                break;
            case GEN_NOISE:
                for (int c = 0; c < 3; c++)
                    p[c] = (uint8_t)(rng_next(&seed) & 255);
                p[3] = (uint8_t)(rng_next(&seed) & 255);
                break;
            case GEN_EDGES: {
                /* Diagonal bands and a circle: edges at every angle. */
                int band = ((x + 2 * y) / 11) % 8;
                if ((u - 0.6f) * (u - 0.6f) + (v - 0.4f) * (v - 0.4f) < 0.06f)
                    band = 7 - band;
                for (int c = 0; c < 3; c++)
                    p[c] = (uint8_t)rect_colour[band][c];
                p[3] = band < 4 ? 255 : 0;
                break;
            }
            case GEN_ALPHA:
                p[0] = unit_to_byte(value_noise(lattice, u, v));
                p[1] = unit_to_byte(0.3f + 0.5f * u);
                p[2] = unit_to_byte(1 - v);
                p[3] = unit_to_byte(u * 0.7f + value_noise(lattice, v, u) * 0.3f);
                break;
            default: {
                /* Tangent-space normals of a noise height field. */
                float e = 1.0f / IMG, h = value_noise(lattice, u, v);
                float dx = (value_noise(lattice, fminf(u + e, 1), v) - h) * 30.0f;
                float dy = (value_noise(lattice, u, fminf(v + e, 1)) - h) * 30.0f;
                float len = sqrtf(dx * dx + dy * dy + 1);
                p[0] = unit_to_byte(-dx / len * 0.5f + 0.5f);
                p[1] = unit_to_byte(-dy / len * 0.5f + 0.5f);
                p[2] = unit_to_byte(1 / len * 0.5f + 0.5f);
                break;
            }
            }
        }
    return im;
}

typedef enum fmt { FMT_BC1, FMT_BC1A, FMT_BC3, FMT_BC4, FMT_BC5, FMT_COUNT } fmt;
static const char *const k_fmt_names[FMT_COUNT] = {"BC1", "BC1A", "BC3", "BC4", "BC5"};

/* Encodes and decodes a whole image (sizes are multiples of 4). BC4 reads and
 * writes red only (decoded g, b, a copied from the input). */
static void round_trip(fmt f, block_quality q, const test_image *im, uint8_t *out) {
    memcpy(out, im->rgba, (size_t)im->w * im->h * 4);
    for (uint32_t by = 0; by < im->h / 4; by++)
        for (uint32_t bx = 0; bx < im->w / 4; bx++) {
            uint8_t in[64], dec[64], block[16], values[16];
            for (int i = 0; i < 16; i++)
                memcpy(in + i * 4, im->rgba + ((by * 4 + i / 4) * im->w + bx * 4 + i % 4) * 4, 4);
            memcpy(dec, in, 64);
            switch (f) {
            case FMT_BC1:
            case FMT_BC1A:
                bc1_encode_block(in, f == FMT_BC1A, q, block);
                bc1_decode_block(block, dec);
                break;
            case FMT_BC3:
                bc3_encode_block(in, q, block);
                bc3_decode_block(block, dec);
                break;
            case FMT_BC4:
                for (int i = 0; i < 16; i++)
                    values[i] = in[i * 4];
                bc4_encode_block(values, q, block);
                bc4_decode_block(block, values);
                for (int i = 0; i < 16; i++)
                    dec[i * 4] = values[i];
                break;
            default:
                bc5_encode_block(in, q, block);
                bc5_decode_block(block, dec);
                break;
            }
            for (int i = 0; i < 16; i++)
                memcpy(out + ((by * 4 + i / 4) * im->w + bx * 4 + i % 4) * 4, dec + i * 4, 4);
        }
}

/* The channels each format's PSNR measures: RGB, RGB of opaque texels
 * (BC1A), alpha (BC3), red, red and green. */
static double format_psnr(fmt f, const test_image *im, const uint8_t *dec) {
    static const unsigned masks[FMT_COUNT] = {7, 7, 8, 1, 3};
    double sse = 0, n = 0;
    for (size_t i = 0; i < (size_t)im->w * im->h; i++) {
        if (f == FMT_BC1A && im->rgba[i * 4 + 3] < 128)
            continue;
        for (int c = 0; c < 4; c++)
            if (masks[f] & (1u << c)) {
                double d = (double)im->rgba[i * 4 + c] - dec[i * 4 + c];
                sse += d * d;
                n++;
            }
    }
    return sse == 0 ? 99.0 : 10 * log10(255.0 * 255.0 * n / sse);
}

/* Floors in dB per generated image, format and quality (fast, normal, best),
 * 0.2-0.3 dB below the measured values; 99: must be exact (BC3 alpha of
 * opaque images). */
static const double k_floor[GEN_COUNT][FMT_COUNT][3] = {
    /* BC1, BC1A (opaque texels), BC3 (alpha), BC4, BC5 */
    /* gradient */ {{38.4, 38.4, 38.5},
                    {38.4, 38.4, 38.5},
                    {99, 99, 99},
                    {51.2, 51.2, 65.9},
                    {51.2, 51.2, 65.9}},
    /* noise */
    {{12.6, 13.5, 13.5},
     {12.6, 14.4, 14.5},
     {29.1, 30.2, 30.5},
     {29.1, 30.3, 30.5},
     {29.0, 30.2, 30.5}},
    /* edges */
    {{32.2, 34.5, 34.5}, {42.8, 42.8, 42.8}, {99, 99, 99}, {49.3, 55.6, 55.9}, {48.2, 56.9, 57.4}},
    /* alpha ramp */
    {{34.4, 36.6, 36.6},
     {34.5, 36.4, 36.5},
     {48.9, 49.6, 50.5},
     {40.4, 41.1, 41.7},
     {43.4, 44.1, 44.7}},
    /* normal map */
    {{26.5, 28.0, 28.0}, {26.5, 28.0, 28.0}, {99, 99, 99}, {40.6, 41.8, 42.4}, {40.6, 41.6, 42.3}},
};

static void psnr_floors_and_quality_ordering(void **state) {
    (void)state;
    test_image images[GEN_COUNT];
    for (int g = 0; g < GEN_COUNT; g++)
        images[g] = generate(g);
    uint8_t *dec = malloc(IMG * IMG * 4);
    assert_non_null(dec);
    for (int f = 0; f < FMT_COUNT; f++) {
        double sum[3] = {0, 0, 0};
        for (int q = 0; q < 3; q++)
            for (int g = 0; g < GEN_COUNT; g++) {
                round_trip((fmt)f, k_qualities[q], &images[g], dec);
                double psnr = format_psnr((fmt)f, &images[g], dec);
                print_message("%s %-10s q%d: %.2f dB (floor %.2f)\n", k_fmt_names[f],
                              images[g].name, q, psnr, k_floor[g][f][q]);
                assert_true(psnr >= k_floor[g][f][q]);
                sum[q] += psnr;
            }
        print_message("%s sum: fast %.2f normal %.2f best %.2f\n", k_fmt_names[f], sum[0], sum[1],
                      sum[2]);
        assert_true(sum[1] >= sum[0]);
        assert_true(sum[2] >= sum[1]);
    }
    free(dec);
    for (int g = 0; g < GEN_COUNT; g++)
        free(images[g].rgba);
}

/* Mean angle between the source normal and the BC5 one with z rebuilt from
 * x and y, in degrees. */
static double bc5_mean_angle(const test_image *im, block_quality q) {
    uint8_t *dec = malloc((size_t)im->w * im->h * 4);
    assert_non_null(dec);
    round_trip(FMT_BC5, q, im, dec);
    double sum = 0;
    size_t n = (size_t)im->w * im->h;
    for (size_t i = 0; i < n; i++) {
        double a[3], b[3];
        for (int c = 0; c < 2; c++) {
            a[c] = im->rgba[i * 4 + c] / 127.5 - 1;
            b[c] = dec[i * 4 + c] / 127.5 - 1;
        }
        a[2] = sqrt(fmax(0, 1 - a[0] * a[0] - a[1] * a[1]));
        b[2] = sqrt(fmax(0, 1 - b[0] * b[0] - b[1] * b[1]));
        double la = sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
        double lb = sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
        double cosine = (a[0] * b[0] + a[1] * b[1] + a[2] * b[2]) / (la * lb);
        sum += acos(fmin(1, fmax(-1, cosine))) * 180 / M_PI;
    }
    free(dec);
    return sum / (double)n;
}

static void bc5_normal_maps_stay_within_1_5_degrees(void **state) {
    (void)state;
    test_image im = generate(GEN_NORMAL);
    for (int q = 0; q < 3; q++) {
        double angle = bc5_mean_angle(&im, k_qualities[q]);
        print_message("BC5 normal map q%d: mean angular error %.3f degrees\n", q, angle);
        assert_true(angle < 1.5);
    }
    free(im.rgba);
}

/* ---- corpus ----------------------------------------------------------------------------- */

static bool load_corpus_crop(const char *rel, test_image *out) {
    char *path = test_path_join(test_corpus_dir(), rel);
    size_t size;
    uint8_t *bytes = test_read_file(path, &size);
    ir_decoded_image decoded;
    char reason[256];
    bool ok = image_decode(bytes, size, path, NULL, &decoded, reason, sizeof reason);
    free(bytes);
    free(path);
    if (!ok)
        fail_msg("%s: %s", rel, reason);
    /* A central 128x128 crop keeps the test quick under the sanitizers. */
    uint32_t w = decoded.width < 128 ? decoded.width & ~3u : 128;
    uint32_t h = decoded.height < 128 ? decoded.height & ~3u : 128;
    *out = (test_image){rel, w, h, malloc((size_t)w * h * 4)};
    assert_non_null(out->rgba);
    uint32_t x0 = (decoded.width - w) / 2, y0 = (decoded.height - h) / 2;
    for (uint32_t y = 0; y < h; y++)
        memcpy(out->rgba + (size_t)y * w * 4,
               decoded.rgba8 + ((size_t)(y0 + y) * decoded.width + x0) * 4, (size_t)w * 4);
    ir_decoded_image_free(&decoded);
    return true;
}

static void corpus_images_meet_psnr_floors(void **state) {
    (void)state;
    if (test_skip_without_corpus("corpus_images_meet_psnr_floors"))
        skip();
    static const struct {
        const char *path;
        fmt format;
        double floor[3];
    } cases[] = {
        {"gltf/DamagedHelmet/glTF/Default_albedo.jpg", FMT_BC1, {38.7, 39.4, 39.6}},
        {"gltf/WaterBottle/glTF/WaterBottle_baseColor.png", FMT_BC1, {50.4, 51.0, 51.2}},
        {"images/pngsuite/basn6a08.png", FMT_BC1A, {43.3, 43.3, 43.7}},
        {"images/pngsuite/basn6a08.png", FMT_BC3, {48.2, 49.9, 56.9}},
        {"gltf/CesiumMilkTruck/glTF/CesiumMilkTruck.jpg", FMT_BC4, {50.3, 51.5, 52.2}},
        {"gltf/DamagedHelmet/glTF/Default_normal.jpg", FMT_BC5, {51.2, 52.2, 53.0}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        test_image im;
        load_corpus_crop(cases[c].path, &im);
        uint8_t *dec = malloc((size_t)im.w * im.h * 4);
        assert_non_null(dec);
        for (int q = 0; q < 3; q++) {
            round_trip(cases[c].format, k_qualities[q], &im, dec);
            double psnr = format_psnr(cases[c].format, &im, dec);
            print_message("%s %s q%d: %.2f dB (floor %.2f)\n", k_fmt_names[cases[c].format],
                          cases[c].path, q, psnr, cases[c].floor[q]);
            assert_true(psnr >= cases[c].floor[q]);
            if (cases[c].format == FMT_BC5) {
                double angle = bc5_mean_angle(&im, k_qualities[q]);
                print_message("  mean angular error %.3f degrees\n", angle);
                assert_true(angle < 1.5);
            }
        }
        free(dec);
        free(im.rgba);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bc1_decodes_four_colour_blocks_with_exact_thirds),
        cmocka_unit_test(bc1_decodes_three_colour_blocks_with_transparent_black),
        cmocka_unit_test(bc3_colour_block_always_interpolates_four_colours),
        cmocka_unit_test(bc4_decodes_eight_and_six_value_modes),
        cmocka_unit_test(bc5_decodes_red_then_green),
        cmocka_unit_test(representable_colour_blocks_round_trip_exactly),
        cmocka_unit_test(single_colours_get_optimal_endpoints),
        cmocka_unit_test(bc4_single_and_two_value_blocks_are_exact),
        cmocka_unit_test(bc1_alpha_keeps_transparent_and_opaque_texels),
        cmocka_unit_test(psnr_floors_and_quality_ordering),
        cmocka_unit_test(bc5_normal_maps_stay_within_1_5_degrees),
        cmocka_unit_test(corpus_images_meet_psnr_floors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
