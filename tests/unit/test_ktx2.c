/* KTX2: writer layout (header, level index, DFD, key/value data, smallest
 * level first), runtime reader round trip, and the reader's defences
 * (every truncation, random bit flips, inconsistent fields). */
#include <stdlib.h>
#include <string.h>

#include "cook/drivers/drivers.h"
#include "test_support.h"

static uint32_t rd32(const uint8_t *p) {
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static uint64_t rd64(const uint8_t *p) {
    return rd32(p) | ((uint64_t)rd32(p + 4) << 32);
}

/* Byte `at` of level `level` in make_file's files: recognisable per level, in
 * runs of 256 bytes so that Zstd makes it smaller (the writer drops Zstd
 * otherwise, which the check after writing would catch). */
static uint8_t pattern_byte(uint32_t level, size_t at) {
    return (uint8_t)(level * 31 + at / 256);
}

/* A w x h chain of pattern_byte levels. */
static void make_file(uint32_t vk_format, uint32_t w, uint32_t h, uint32_t levels, uint32_t scheme,
                      bytebuf *out) {
    const ktx2_format_info *f = ktx2_format_find(vk_format);
    assert_non_null(f);
    uint8_t *data[16];
    size_t size[16];
    for (uint32_t i = 0; i < levels; i++) {
        size[i] = (size_t)ktx2_level_byte_size(f, w, h, 0, 0, 1, i);
        data[i] = malloc(size[i]);
        for (size_t b = 0; b < size[i]; b++)
            data[i][b] = pattern_byte(i, b);
    }
    ktx2_image_desc desc = {.vk_format = vk_format,
                            .width = w,
                            .height = h,
                            .faces = 1,
                            .levels = levels,
                            .supercompression = scheme,
                            .zstd_level = 3,
                            .level_data = (const uint8_t *const *)data,
                            .level_size = size};
    char reason[256];
    assert_true(write_ktx2(&desc, out, reason, sizeof reason));
    assert_int_equal(rd32(out->data + 44), scheme);
    for (uint32_t i = 0; i < levels; i++)
        free(data[i]);
}

/* A sink that appends to a bytebuf, failing after `limit` bytes. */
typedef struct limited_sink {
    bytebuf *out;
    size_t limit;
} limited_sink;

static bool limited_append(void *arg, const void *data, size_t size) {
    limited_sink *s = arg;
    if (s->out->size + size > s->limit)
        return false;
    bytebuf_append(s->out, data, size);
    return !s->out->failed;
}

/* Levels packed one at a time (ktx2_pack_level, the raw bytes freed) and
 * streamed by write_ktx2_packed give write_ktx2's file byte for byte: Zstd
 * kept (runs), Zstd dropped (noise: the frames are inflated as they are
 * written), no supercompression, formats whose levels are aligned to 4, 8 and
 * 16 bytes, odd sizes, six faces; levels packed in any order. A sink that
 * fails stops the writer. */
static void packed_levels_stream_write_ktx2s_file(void **state) {
    (void)state;
    static const struct {
        uint32_t vk_format, w, h, faces, levels;
    } cases[] = {
        {KTX2_VK_FORMAT_R8G8B8A8_SRGB, 37, 23, 1, 6},
        {KTX2_VK_FORMAT_R8_UNORM, 33, 9, 1, 6},
        {KTX2_VK_FORMAT_R16G16B16A16_SFLOAT, 16, 16, 6, 5},
        {KTX2_VK_FORMAT_BC7_SRGB, 64, 32, 1, 7},
    };
    uint32_t seed = 5;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (int kind = 0; kind < 3; kind++) { /* runs + Zstd, noise + Zstd, runs stored */
            const ktx2_format_info *f = ktx2_format_find(cases[c].vk_format);
            uint8_t *data[16];
            size_t size[16];
            for (uint32_t i = 0; i < cases[c].levels; i++) {
                size[i] = (size_t)ktx2_level_byte_size(f, cases[c].w, cases[c].h, 0, 0,
                                                       cases[c].faces, i);
                data[i] = malloc(size[i]);
                for (size_t b = 0; b < size[i]; b++) {
                    seed = seed * 1664525u + 1013904223u;
                    data[i][b] = kind == 1 ? (uint8_t)(seed >> 24) : pattern_byte(i, b);
                }
            }
            uint32_t scheme = kind == 2 ? KTX2_SUPERCOMPRESSION_NONE : KTX2_SUPERCOMPRESSION_ZSTD;
            ktx2_image_desc desc = {.vk_format = cases[c].vk_format,
                                    .width = cases[c].w,
                                    .height = cases[c].h,
                                    .faces = cases[c].faces,
                                    .levels = cases[c].levels,
                                    .supercompression = scheme,
                                    .zstd_level = 3,
                                    .threads = 2,
                                    .level_data = (const uint8_t *const *)data,
                                    .level_size = size,
                                    .source = "t.png"};
            bytebuf whole = {0};
            char reason[256];
            assert_true(write_ktx2(&desc, &whole, reason, sizeof reason));
            assert_int_equal(rd32(whole.data + 44),
                             kind == 0 ? KTX2_SUPERCOMPRESSION_ZSTD : KTX2_SUPERCOMPRESSION_NONE);
            ktx2_packed_levels packed = {.zstd = scheme == KTX2_SUPERCOMPRESSION_ZSTD,
                                         .zstd_level = 3};
            for (uint32_t k = 0; k < cases[c].levels; k++) { /* 1, 2, ..., then 0 */
                uint32_t i = (k + 1) % cases[c].levels;
                uint8_t *copy = malloc(size[i]);
                memcpy(copy, data[i], size[i]);
                assert_true(ktx2_pack_level(&packed, i, copy, size[i]));
            }
            ktx2_image_desc streamed = desc;
            streamed.level_data = NULL; /* ignored: the packed levels are the data */
            bytebuf out = {0};
            limited_sink sink = {&out, SIZE_MAX};
            assert_true(write_ktx2_packed(&streamed, &packed, limited_append, &sink, reason,
                                          sizeof reason));
            assert_int_equal(out.size, whole.size);
            assert_memory_equal(out.data, whole.data, whole.size);
            /* A sink failing half way (a full disk) fails the write. */
            bytebuf part = {0};
            limited_sink half = {&part, whole.size / 2};
            assert_false(write_ktx2_packed(&streamed, &packed, limited_append, &half, reason,
                                           sizeof reason));
            bytebuf_free(&part);
            bytebuf_free(&out);
            bytebuf_free(&whole);
            ktx2_packed_free(&packed);
            for (uint32_t i = 0; i < cases[c].levels; i++)
                free(data[i]);
        }
}

/* Zstd is kept only when it makes the level set smaller: noise is stored as
 * it is (supercompression 0, levels aligned like any uncompressed file) and
 * reads back byte for byte; runs are compressed. */
static void writer_drops_zstd_that_does_not_help(void **state) {
    (void)state;
    const ktx2_format_info *f = ktx2_format_find(KTX2_VK_FORMAT_BC7_SRGB);
    uint8_t *data[3];
    size_t size[3];
    uint32_t seed = 1;
    for (int run = 0; run < 2; run++) {
        for (uint32_t i = 0; i < 3; i++) {
            size[i] = (size_t)ktx2_level_byte_size(f, 64, 64, 0, 0, 1, i);
            data[i] = malloc(size[i]);
            for (size_t b = 0; b < size[i]; b++) {
                seed = seed * 1664525u + 1013904223u;
                data[i][b] = run == 0 ? (uint8_t)(seed >> 24) : (uint8_t)(b / 512);
            }
        }
        ktx2_image_desc desc = {.vk_format = f->vk_format,
                                .width = 64,
                                .height = 64,
                                .faces = 1,
                                .levels = 3,
                                .supercompression = KTX2_SUPERCOMPRESSION_ZSTD,
                                .zstd_level = 2,
                                .level_data = (const uint8_t *const *)data,
                                .level_size = size};
        bytebuf b = {0};
        char reason[256];
        assert_true(write_ktx2(&desc, &b, reason, sizeof reason));
        kiln_ktx2_view v;
        kiln_error err;
        assert_int_equal(kiln_ktx2_view_get(&v, b.data, b.size, "t.ktx2", &err), KILN_OK);
        size_t raw = size[0] + size[1] + size[2];
        if (run == 0) { /* noise: stored, and no bigger than the texels plus the header */
            assert_int_equal(v.supercompression, KILN_KTX2_SUPERCOMPRESSION_NONE);
            assert_true(b.size < raw + 400);
        } else {
            assert_int_equal(v.supercompression, KILN_KTX2_SUPERCOMPRESSION_ZSTD);
            assert_true(b.size < raw / 4);
        }
        for (uint32_t i = 0; i < 3; i++) {
            uint8_t *back = malloc(size[i]);
            assert_int_equal(kiln_ktx2_read_level(&v, i, back, size[i], &err), KILN_OK);
            assert_memory_equal(back, data[i], size[i]);
            free(back);
            free(data[i]);
        }
        bytebuf_free(&b);
    }
}

static void writer_lays_out_header_index_dfd_and_levels_smallest_first(void **state) {
    (void)state;
    bytebuf b = {0};
    make_file(KTX2_VK_FORMAT_R8G8B8A8_SRGB, 16, 8, 5, KTX2_SUPERCOMPRESSION_ZSTD, &b);
    static const uint8_t id[12] = {0xAB, 'K',  'T',  'X',  ' ',  '2',
                                   '0',  0xBB, '\r', '\n', 0x1A, '\n'};
    assert_memory_equal(b.data, id, 12);
    assert_int_equal(rd32(b.data + 12), 43);
    assert_int_equal(rd32(b.data + 16), 1); /* typeSize */
    assert_int_equal(rd32(b.data + 20), 16);
    assert_int_equal(rd32(b.data + 24), 8);
    assert_int_equal(rd32(b.data + 28), 0); /* depth */
    assert_int_equal(rd32(b.data + 32), 0); /* layers */
    assert_int_equal(rd32(b.data + 36), 1); /* faces */
    assert_int_equal(rd32(b.data + 40), 5);
    assert_int_equal(rd32(b.data + 44), 2); /* Zstd */
    uint32_t dfd = rd32(b.data + 48), dfd_len = rd32(b.data + 52);
    assert_int_equal(dfd, 80 + 5 * 24);
    assert_int_equal(dfd_len, 4 + 24 + 4 * 16);
    assert_int_equal(b.data[dfd + 4 + 8], 1);  /* RGBSDA */
    assert_int_equal(b.data[dfd + 4 + 10], 2); /* sRGB transfer */
    /* Alpha sample of an sRGB format is flagged linear. */
    assert_int_equal(b.data[dfd + 4 + 24 + 3 * 16 + 3], 0x1F);
    /* Levels are stored smallest first, contiguous. */
    uint64_t previous_end = 0;
    for (int level = 4; level >= 0; level--) {
        const uint8_t *e = b.data + 80 + level * 24;
        uint64_t offset = rd64(e), length = rd64(e + 8), raw = rd64(e + 16);
        uint32_t w = 16u >> level, h = 8u >> level;
        assert_int_equal(raw, (uint64_t)(w ? w : 1) * (h ? h : 1) * 4);
        if (previous_end != 0)
            assert_int_equal(offset, previous_end);
        previous_end = offset + length;
    }
    assert_int_equal(previous_end, b.size);
    kiln_ktx2_view v;
    kiln_error err;
    assert_int_equal(kiln_ktx2_view_get(&v, b.data, b.size, "t.ktx2", &err), KILN_OK);
    uint32_t n = 0;
    const char *orientation = kiln_ktx2_find_value(&v, "KTXorientation", &n);
    assert_non_null(orientation);
    assert_string_equal(orientation, "rd");
    assert_string_equal(kiln_ktx2_find_value(&v, "KTXwriter", NULL), "kiln " KILN_VERSION_STRING);
    assert_int_equal(v.color_space, KILN_COLOR_SPACE_SRGB);
    bytebuf_free(&b);
}

static void reader_round_trips_every_format_and_scheme(void **state) {
    (void)state;
    const uint32_t formats[] = {KTX2_VK_FORMAT_R8_UNORM, KTX2_VK_FORMAT_R8G8_UNORM,
                                KTX2_VK_FORMAT_R8G8B8A8_UNORM, KTX2_VK_FORMAT_R8G8B8A8_SRGB,
                                KTX2_VK_FORMAT_R16G16B16A16_SFLOAT};
    for (size_t fi = 0; fi < 5; fi++) {
        for (uint32_t scheme = 0; scheme <= 2; scheme += 2) {
            bytebuf b = {0};
            make_file(formats[fi], 13, 7, 4, scheme, &b);
            kiln_ktx2_view v;
            kiln_error err;
            assert_int_equal(kiln_ktx2_view_get(&v, b.data, b.size, "t.ktx2", &err), KILN_OK);
            assert_int_equal(v.vk_format, formats[fi]);
            assert_int_equal(v.levels, 4);
            assert_int_equal(v.supercompression, scheme);
            const ktx2_format_info *f = ktx2_format_find(formats[fi]);
            for (uint32_t level = 0; level < 4; level++) {
                uint64_t size = kiln_ktx2_level_size(&v, level);
                assert_int_equal(size, ktx2_level_byte_size(f, 13, 7, 0, 0, 1, level));
                uint8_t *dst = malloc((size_t)size);
                assert_int_equal(kiln_ktx2_read_level(&v, level, dst, (size_t)size, &err), KILN_OK);
                assert_int_equal(kiln_ktx2_check_level(&v, level, &err), KILN_OK);
                for (size_t i = 0; i < size; i++)
                    assert_int_equal(dst[i], pattern_byte(level, i));
                /* A buffer one byte short is refused. */
                assert_int_not_equal(kiln_ktx2_read_level(&v, level, dst, (size_t)size - 1, &err),
                                     KILN_OK);
                free(dst);
            }
            if (scheme == 0) /* uncompressed levels are aligned to lcm(texel, 4) */
                for (uint32_t level = 0; level < 4; level++)
                    assert_int_equal(rd64(b.data + 80 + level * 24) % 4, 0);
            bytebuf_free(&b);
        }
    }
}

/* Every block format: the DFD (colour model, texel block dimension - 1,
 * bytesPlane0, samples), level sizes in whole blocks down to 1x1, and a
 * round trip through the runtime reader, with and without Zstd. */
static void block_formats_have_their_dfd_and_block_level_sizes(void **state) {
    (void)state;
    struct {
        uint32_t vk;
        uint8_t model, bw, bh, bytes, samples, channel0, channel1, float_bits;
        uint8_t transfer;
    } rows[] = {
        {KTX2_VK_FORMAT_BC1_RGB_UNORM, 128, 4, 4, 8, 1, 0, 0, 0, 1},
        {KTX2_VK_FORMAT_BC1_RGB_SRGB, 128, 4, 4, 8, 1, 0, 0, 0, 2},
        {KTX2_VK_FORMAT_BC1_RGBA_UNORM, 128, 4, 4, 8, 1, 1, 0, 0, 1},
        {KTX2_VK_FORMAT_BC1_RGBA_SRGB, 128, 4, 4, 8, 1, 1, 0, 0, 2},
        {KTX2_VK_FORMAT_BC3_UNORM, 130, 4, 4, 16, 2, 15, 0, 0, 1},
        {KTX2_VK_FORMAT_BC3_SRGB, 130, 4, 4, 16, 2, 15, 0, 0, 2},
        {KTX2_VK_FORMAT_BC4_UNORM, 131, 4, 4, 8, 1, 0, 0, 0, 1},
        {KTX2_VK_FORMAT_BC5_UNORM, 132, 4, 4, 16, 2, 0, 1, 0, 1},
        {KTX2_VK_FORMAT_BC6H_UFLOAT, 133, 4, 4, 16, 1, 0, 0, 0x80, 1},
        {KTX2_VK_FORMAT_BC7_UNORM, 134, 4, 4, 16, 1, 0, 0, 0, 1},
        {KTX2_VK_FORMAT_BC7_SRGB, 134, 4, 4, 16, 1, 0, 0, 0, 2},
        {KTX2_VK_FORMAT_ASTC_4x4_SRGB, 162, 4, 4, 16, 1, 0, 0, 0, 2},
        {KTX2_VK_FORMAT_ASTC_5x5_UNORM, 162, 5, 5, 16, 1, 0, 0, 0, 1},
        {KTX2_VK_FORMAT_ASTC_6x6_SRGB, 162, 6, 6, 16, 1, 0, 0, 0, 2},
        {KTX2_VK_FORMAT_ASTC_6x6_SFLOAT, 162, 6, 6, 16, 1, 0, 0, 0xC0, 1},
        {KTX2_VK_FORMAT_ASTC_8x8_UNORM, 162, 8, 8, 16, 1, 0, 0, 0, 1},
    };
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        for (uint32_t scheme = 0; scheme <= 2; scheme += 2) {
            bytebuf b = {0};
            /* 53x29, 26x14, 13x7, 6x3: partial blocks, and enough bytes for Zstd. */
            make_file(rows[r].vk, 53, 29, 4, scheme, &b);
            uint32_t dfd = rd32(b.data + 48);
            const uint8_t *block = b.data + dfd + 4;
            assert_int_equal(rd32(b.data + 16), 1); /* typeSize 1 for block formats */
            assert_int_equal(rd32(b.data + dfd), 4 + 24 + 16 * rows[r].samples);
            assert_int_equal(block[8], rows[r].model);
            assert_int_equal(block[10], rows[r].transfer);
            assert_int_equal(block[12], rows[r].bw - 1);
            assert_int_equal(block[13], rows[r].bh - 1);
            assert_int_equal(block[14], 0);
            assert_int_equal(block[16], rows[r].bytes);
            unsigned sample_bits = rows[r].bytes * 8u / rows[r].samples;
            for (unsigned s = 0; s < rows[r].samples; s++) {
                const uint8_t *sample = block + 24 + 16 * s;
                assert_int_equal(sample[0] | (sample[1] << 8), s * sample_bits);
                assert_int_equal(sample[2], sample_bits - 1);
                assert_int_equal(sample[3],
                                 (s ? rows[r].channel1 : rows[r].channel0) | rows[r].float_bits);
            }
            kiln_ktx2_view v;
            kiln_error err;
            if (kiln_ktx2_view_get(&v, b.data, b.size, "t.ktx2", &err) != KILN_OK)
                fail_msg("vkFormat %u: %s", rows[r].vk, err.message);
            assert_int_equal(v.block_width, rows[r].bw);
            assert_int_equal(v.block_height, rows[r].bh);
            assert_int_equal(v.dfd_color_model, rows[r].model);
            for (uint32_t level = 0; level < 4; level++) {
                uint32_t w = 53u >> level, h = 29u >> level;
                w = w ? w : 1;
                h = h ? h : 1;
                uint64_t expected = (uint64_t)((w + rows[r].bw - 1) / rows[r].bw) *
                                    ((h + rows[r].bh - 1) / rows[r].bh) * rows[r].bytes;
                assert_int_equal(kiln_ktx2_level_size(&v, level), expected);
                assert_int_equal(rd64(b.data + 80 + level * 24 + 16), expected);
                uint8_t *dst = malloc((size_t)expected);
                assert_int_equal(kiln_ktx2_read_level(&v, level, dst, (size_t)expected, &err),
                                 KILN_OK);
                for (size_t i = 0; i < expected; i++)
                    assert_int_equal(dst[i], pattern_byte(level, i));
                free(dst);
            }
            /* A DFD whose colour model contradicts the vkFormat is refused. */
            b.data[dfd + 4 + 8] = rows[r].model == 134 ? 133 : 134;
            assert_int_equal(kiln_ktx2_view_get(&v, b.data, b.size, "t.ktx2", &err),
                             KILN_ERR_CORRUPT);
            assert_non_null(strstr(err.message, "colour model"));
            b.data[dfd + 4 + 8] = rows[r].model;
            b.data[dfd + 4 + 12] = (uint8_t)(rows[r].bw); /* wrong block width */
            assert_int_equal(kiln_ktx2_view_get(&v, b.data, b.size, "t.ktx2", &err),
                             KILN_ERR_CORRUPT);
            bytebuf_free(&b);
        }
    }
}

/* The format table itself: one row per vkFormat and name, samples in
 * memory order tiling the texel block, the FLOAT qualifier exactly on float
 * formats, uncompressed rows RGBSDA with their channels, block rows with a
 * block kind that leads back to their vkFormat. */
static void format_table_rows_are_consistent(void **state) {
    (void)state;
    assert_true(ktx2_format_count >= 28);
    for (size_t i = 0; i < ktx2_format_count; i++) {
        const ktx2_format_info *f = &ktx2_formats[i];
        assert_ptr_equal(ktx2_format_find(f->vk_format), f);
        assert_string_equal(kiln_ktx2_format_str(f->vk_format), f->name);
        for (size_t j = 0; j < i; j++)
            assert_string_not_equal(ktx2_formats[j].name, f->name);
        assert_in_range(f->sample_count, 1, KTX2_DF_MAX_SAMPLES);
        uint32_t next_bit = 0;
        for (uint32_t s = 0; s < f->sample_count; s++) {
            const ktx2_sample *sample = &f->samples[s];
            assert_int_equal(sample->bit_offset, next_bit);
            next_bit += sample->bit_length;
            assert_int_equal(sample->channel & ~KTX2_DF_CHANNEL_MASK, 0);
            assert_int_equal((sample->qualifiers & KTX2_DF_QUALIFIER_FLOAT) != 0, f->is_float);
        }
        assert_int_equal(next_bit, f->block_bytes * 8);
        if (f->block == KTX2_BLOCK_NONE) {
            assert_int_equal(f->dfd_model, KTX2_DF_MODEL_RGBSDA);
            assert_int_equal(f->block_width * f->block_height, 1);
            assert_int_equal(f->channels, f->sample_count);
            assert_int_equal(f->channels * f->channel_bits, f->block_bytes * 8);
            assert_int_equal(f->type_size, f->channel_bits / 8);
        } else {
            assert_int_not_equal(f->dfd_model, KTX2_DF_MODEL_RGBSDA);
            assert_int_equal(f->channels, 0);
            assert_int_equal(f->type_size, 1);
            if (f->block == KTX2_BLOCK_UASTC) /* one row per transfer and channels */
                assert_ptr_equal(
                    ktx2_uastc_format(f->srgb, f->samples[0].channel == KTX2_DF_CHANNEL_UASTC_RGBA),
                    f);
            else
                assert_int_equal(ktx2_vk_format_of_block(f->block, f->block_width, f->srgb),
                                 f->vk_format);
        }
    }
    assert_null(ktx2_format_find(1000));
    assert_string_equal(kiln_ktx2_format_str(1000), "unknown");
    assert_int_equal(ktx2_vk_format_of_block(KTX2_BLOCK_BC4, 4, true), 0);
}

/* Writer and reader agree on every row of the format table: a tiny texture
 * of each format, written by write_ktx2 with and without Zstd, carries the
 * row's typeSize and DFD (model, transfer, texel block, bytesPlane0, every
 * sample with its qualifiers), is accepted by kiln_ktx2_view_get, every
 * level passes kiln_ktx2_check_level and reads back, and the view reports
 * the row's block size, bytes and colour space. A DFD that differs from the
 * row in one sample's channel id is refused. */
static void writer_and_reader_agree_on_every_table_format(void **state) {
    (void)state;
    /* 43x22, 21x11, 10x5, 5x2: partial blocks, and enough bytes for Zstd. */
    const uint32_t w = 43, h = 22, levels = 4;
    for (size_t i = 0; i < ktx2_format_count; i++) {
        const ktx2_format_info *f = &ktx2_formats[i];
        for (uint32_t scheme = 0; scheme <= 2; scheme += 2) {
            bytebuf b = {0};
            make_file(f->vk_format, w, h, levels, scheme, &b);
            assert_int_equal(rd32(b.data + 16), f->type_size);
            uint32_t dfd = rd32(b.data + 48);
            assert_int_equal(rd32(b.data + 52), 4 + ktx2_dfd_block_size(f));
            const uint8_t *block = b.data + dfd + 4;
            assert_int_equal(block[8], f->dfd_model);
            assert_int_equal(block[9], KTX2_DF_PRIMARIES_BT709);
            assert_int_equal(block[10], f->srgb ? KTX2_DF_TRANSFER_SRGB : KTX2_DF_TRANSFER_LINEAR);
            assert_int_equal(block[12], f->block_width - 1);
            assert_int_equal(block[13], f->block_height - 1);
            assert_int_equal(block[16], f->block_bytes);
            for (uint32_t s = 0; s < f->sample_count; s++) {
                const uint8_t *sample = block + 24 + 16 * s;
                assert_int_equal(sample[0] | (sample[1] << 8), f->samples[s].bit_offset);
                assert_int_equal(sample[2], f->samples[s].bit_length - 1);
                assert_int_equal(sample[3], f->samples[s].channel | f->samples[s].qualifiers);
            }

            kiln_ktx2_view v;
            kiln_error err;
            if (kiln_ktx2_view_get(&v, b.data, b.size, f->name, &err) != KILN_OK)
                fail_msg("%s, scheme %u: %s", f->name, scheme, err.message);
            /* UASTC files hold vkFormat UNDEFINED; the DFD names them. */
            assert_int_equal(rd32(b.data + 12), ktx2_file_vk_format(f));
            assert_int_equal(v.vk_format, ktx2_file_vk_format(f));
            assert_int_equal(v.type_size, f->type_size);
            assert_int_equal(v.block_bytes, f->block_bytes);
            assert_int_equal(v.block_width, f->block_width);
            assert_int_equal(v.block_height, f->block_height);
            assert_int_equal(v.color_space,
                             f->srgb ? KILN_COLOR_SPACE_SRGB : KILN_COLOR_SPACE_LINEAR);
            assert_int_equal(v.dfd_color_model, f->dfd_model);
            assert_int_equal(v.levels, levels);
            for (uint32_t level = 0; level < levels; level++) {
                if (kiln_ktx2_check_level(&v, level, &err) != KILN_OK)
                    fail_msg("%s, level %u: %s", f->name, level, err.message);
                uint64_t size = kiln_ktx2_level_size(&v, level);
                assert_int_equal(size, ktx2_level_byte_size(f, w, h, 0, 0, 1, level));
                uint8_t *dst = malloc((size_t)size);
                assert_int_equal(kiln_ktx2_read_level(&v, level, dst, (size_t)size, &err), KILN_OK);
                for (size_t t = 0; t < size; t++)
                    assert_int_equal(dst[t], pattern_byte(level, t));
                free(dst);
            }

            uint8_t *channel = b.data + dfd + 4 + 24 + 16 * (f->sample_count - 1) + 3;
            *channel ^= 0x04; /* another channel id in the last sample */
            assert_int_equal(kiln_ktx2_view_get(&v, b.data, b.size, f->name, &err),
                             KILN_ERR_CORRUPT);
            assert_non_null(strstr(err.message, "DFD sample"));
            bytebuf_free(&b);
        }
    }
}

/* A UASTC file's DFD channel (its one sample's channel id) is read into
 * dfd_channel: the Khronos Data Format spec's KHR_DF_CHANNEL_UASTC_RGB (0)
 * for an opaque texture, _RGBA (3) for a translucent one, in either
 * transfer; the manager picks 8- or 16-byte blocks by it. */
static void uastc_files_carry_their_dfd_channel(void **state) {
    (void)state;
    static const struct {
        uint32_t vk_format, channel;
    } files[] = {{KTX2_KILN_UASTC_RGB_UNORM, 0},
                 {KTX2_KILN_UASTC_RGB_SRGB, 0},
                 {KTX2_KILN_UASTC_RGBA_UNORM, 3},
                 {KTX2_KILN_UASTC_RGBA_SRGB, 3}};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        bytebuf b = {0};
        make_file(files[i].vk_format, 12, 8, 2, 0, &b);
        const uint8_t *sample = b.data + rd32(b.data + 48) + 4 + 24;
        assert_int_equal(sample[3] & 0x0F, files[i].channel);
        kiln_ktx2_view v;
        kiln_error err;
        assert_int_equal(kiln_ktx2_view_get(&v, b.data, b.size, "uastc.ktx2", &err), KILN_OK);
        assert_int_equal(v.dfd_color_model, KTX2_DF_MODEL_UASTC);
        assert_int_equal(v.dfd_channel, files[i].channel);
        bytebuf_free(&b);
    }
}

/* kiln_ktx2_check_levels inflates every level through one stream and one
 * scratch buffer (smaller than a level: 300 x 200 RGBA8 is 240,000 bytes):
 * it passes a good file of either scheme, and when one level's frame is
 * damaged it fails naming that level, which kiln_ktx2_check_level alone
 * fails too, while the levels before and after it still pass on their own. */
static void check_levels_names_the_damaged_level(void **state) {
    (void)state;
    for (uint32_t scheme = 0; scheme <= 2; scheme += 2) {
        bytebuf b = {0};
        make_file(KTX2_VK_FORMAT_R8G8B8A8_UNORM, 300, 200, 5, scheme, &b);
        kiln_ktx2_view v;
        kiln_error err;
        assert_int_equal(kiln_ktx2_view_get(&v, b.data, b.size, "t.ktx2", &err), KILN_OK);
        assert_int_equal(kiln_ktx2_check_levels(&v, &err), KILN_OK);
        if (scheme == 0) {
            bytebuf_free(&b);
            continue;
        }
        for (uint32_t damaged = 0; damaged < 5; damaged++) {
            uint8_t *copy = malloc(b.size);
            memcpy(copy, b.data, b.size);
            const uint8_t *entry = b.data + 80 + damaged * 24;
            uint64_t offset = rd64(entry), length = rd64(entry + 8);
            copy[offset + length / 2] ^= 0x10; /* inside the frame: its checksum fails */
            assert_int_equal(kiln_ktx2_view_get(&v, copy, b.size, "t.ktx2", &err), KILN_OK);
            assert_int_equal(kiln_ktx2_check_levels(&v, &err), KILN_ERR_CORRUPT);
            char expected[32];
            snprintf(expected, sizeof expected, "level %u", damaged);
            assert_non_null(strstr(err.message, expected));
            for (uint32_t level = 0; level < 5; level++)
                assert_int_equal(kiln_ktx2_check_level(&v, level, &err) == KILN_OK,
                                 level != damaged);
            free(copy);
        }
        bytebuf_free(&b);
    }
    assert_int_equal(kiln_ktx2_check_levels(NULL, NULL), KILN_ERR_INVALID_ARGUMENT);
}

static void reader_survives_every_truncation(void **state) {
    (void)state;
    bytebuf b = {0};
    make_file(KTX2_VK_FORMAT_R8G8B8A8_UNORM, 9, 9, 4, KTX2_SUPERCOMPRESSION_ZSTD, &b);
    for (size_t length = 0; length < b.size; length++) {
        uint8_t *copy = malloc(length ? length : 1);
        memcpy(copy, b.data, length);
        kiln_ktx2_view v;
        kiln_error err;
        assert_int_not_equal(kiln_ktx2_view_get(&v, copy, length, "t.ktx2", &err), KILN_OK);
        free(copy);
    }
    bytebuf_free(&b);
}

static void reader_survives_random_bit_flips(void **state) {
    (void)state;
    bytebuf b = {0};
    make_file(KTX2_VK_FORMAT_R8G8B8A8_SRGB, 17, 5, 5, KTX2_SUPERCOMPRESSION_ZSTD, &b);
    uint8_t *copy = malloc(b.size);
    uint8_t *dst = malloc(17 * 5 * 4);
    uint32_t seed = 7;
    int rejected = 0;
    for (int trial = 0; trial < 4000; trial++) {
        memcpy(copy, b.data, b.size);
        for (int flips = 0; flips < 1 + trial % 3; flips++) {
            seed = seed * 1664525u + 1013904223u;
            size_t at = (seed >> 8) % (trial % 2 ? 200 : b.size); /* favour the header */
            copy[at] ^= (uint8_t)(1u << (seed & 7));
        }
        kiln_ktx2_view v;
        kiln_error err;
        if (kiln_ktx2_view_get(&v, copy, b.size, "t.ktx2", &err) != KILN_OK) {
            rejected++;
            continue;
        }
        bool all_levels_pass = true;
        for (uint32_t level = 0; level < v.levels; level++) {
            uint64_t size = kiln_ktx2_level_size(&v, level);
            assert_true(size <= 17 * 5 * 4);
            /* The bounded-memory check agrees with inflating the level. */
            kiln_result read = kiln_ktx2_read_level(&v, level, dst, 17 * 5 * 4, &err);
            assert_int_equal(kiln_ktx2_check_level(&v, level, &err) == KILN_OK, read == KILN_OK);
            all_levels_pass &= read == KILN_OK;
        }
        /* One stream for every level says what each level's own check says. */
        assert_int_equal(kiln_ktx2_check_levels(&v, &err) == KILN_OK, all_levels_pass);
    }
    assert_true(rejected > 100);
    free(dst);
    free(copy);
    bytebuf_free(&b);
}

static void reader_rejects_inconsistent_fields(void **state) {
    (void)state;
    bytebuf b = {0};
    make_file(KTX2_VK_FORMAT_R8G8B8A8_UNORM, 8, 8, 4, KTX2_SUPERCOMPRESSION_ZSTD, &b);
    struct {
        size_t at;
        uint32_t value;
        kiln_result expected;
    } cases[] = {
        {12, 43, KILN_ERR_CORRUPT},            /* vkFormat SRGB but DFD says linear */
        {12, 1000, KILN_ERR_UNSUPPORTED},      /* unknown vkFormat */
        {16, 2, KILN_ERR_CORRUPT},             /* typeSize */
        {36, 2, KILN_ERR_CORRUPT},             /* faceCount */
        {40, 9, KILN_ERR_CORRUPT},             /* more levels than 8x8 has */
        {44, 1, KILN_ERR_UNSUPPORTED},         /* BasisLZ */
        {52, 0, KILN_ERR_CORRUPT},             /* no DFD */
        {48, 0xFFFFFFF0u, KILN_ERR_TRUNCATED}, /* DFD beyond the file */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t *copy = malloc(b.size);
        memcpy(copy, b.data, b.size);
        for (int k = 0; k < 4; k++)
            copy[cases[i].at + (size_t)k] = (uint8_t)(cases[i].value >> (8 * k));
        kiln_ktx2_view v;
        kiln_error err;
        kiln_result r = kiln_ktx2_view_get(&v, copy, b.size, "t.ktx2", &err);
        if (r != cases[i].expected)
            fail_msg("case %zu: got %s (%s)", i, kiln_result_str(r), err.message);
        free(copy);
    }
    /* A level's uncompressedByteLength that lies is caught at open time. */
    uint8_t *copy = malloc(b.size);
    memcpy(copy, b.data, b.size);
    copy[80 + 16] ^= 1;
    kiln_ktx2_view v;
    kiln_error err;
    assert_int_equal(kiln_ktx2_view_get(&v, copy, b.size, "t.ktx2", &err), KILN_ERR_CORRUPT);
    free(copy);
    bytebuf_free(&b);
}

static const uint8_t *find_bytes(const uint8_t *at, size_t size, const char *text, size_t length) {
    for (size_t i = 0; i + length <= size; i++)
        if (memcmp(at + i, text, length) == 0)
            return at + i;
    return NULL;
}

/* Issue 16: the reader accepted a file whose key/value data or some DFD
 * fields were changed. Every field ktx2.md fixes is checked (K6, K7): the
 * colour primaries, flags, bytesPlane1..7, each sample's qualifiers,
 * position and bounds; keys sorted and unique, zero padding, and the values
 * of kiln's own keys. */
static void reader_rejects_changed_dfd_fields_and_key_values(void **state) {
    (void)state;
    bytebuf b = {0};
    make_file(KTX2_VK_FORMAT_R8G8B8A8_SRGB, 8, 8, 4, KTX2_SUPERCOMPRESSION_ZSTD, &b);
    uint32_t dfd = rd32(b.data + 48), kvd = rd32(b.data + 56), kvd_length = rd32(b.data + 60);
    size_t sample0 = dfd + 4 + 24;
    kiln_ktx2_view v;
    kiln_error err;
    assert_int_equal(kiln_ktx2_view_get(&v, b.data, b.size, "t.ktx2", &err), KILN_OK);
    /* Find the value of KTXorientation and the first key's first byte. */
    const uint8_t *found = find_bytes(b.data + kvd, kvd_length, "KTXorientation", 15);
    assert_non_null(found);
    size_t orientation = (size_t)(found - b.data) + 15;
    const uint8_t *writer = find_bytes(b.data + kvd, kvd_length, "KTXwriter", 10);
    assert_non_null(writer);
    size_t writer_key = (size_t)(writer - b.data);
    struct {
        size_t at;
        uint8_t value;
        const char *what;
    } cases[] = {
        {dfd + 4 + 9, 2, "colour primaries"},
        {dfd + 4 + 11, 1, "flags (premultiplied)"},
        {dfd + 4 + 18, 4, "bytesPlane2"},
        {sample0 + 3, 0x40, "a sample's qualifiers (exponent)"},
        {sample0 + 4, 1, "a sample's position"},
        {sample0 + 12, 0x7f, "a sample's upper bound"},
        {sample0 + 8, 1, "a sample's lower bound"},
        {orientation, 'l', "KTXorientation 'ld'"},
        {orientation + 2, 'x', "KTXorientation without its NUL"},
        {writer_key, 'A', "keys out of order ('ATXwriter' after 'KTXorientation')"},
        {writer_key + 2, 'Y', "a second KTXorientation-like key out of order"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t *copy = malloc(b.size);
        memcpy(copy, b.data, b.size);
        copy[cases[i].at] ^= cases[i].value;
        kiln_result r = kiln_ktx2_view_get(&v, copy, b.size, "t.ktx2", &err);
        if (r != KILN_ERR_CORRUPT)
            fail_msg("%s: got %s (%s)", cases[i].what, kiln_result_str(r), err.message);
        free(copy);
    }
    bytebuf_free(&b);
}

/* A small file declaring a huge image: level 0 of a 16x16 Zstd file claims to be
 * 65535 x 65535 (16 GiB), consistently with the header, which no Zstd frame of
 * its few bytes can inflate to. Refused at open, before any reader allocates. */
static void reader_refuses_levels_beyond_zstd_ratio(void **state) {
    (void)state;
    bytebuf b = {0};
    make_file(KTX2_VK_FORMAT_R8G8B8A8_UNORM, 16, 16, 1, KTX2_SUPERCOMPRESSION_ZSTD, &b);
    uint8_t *copy = malloc(b.size);
    memcpy(copy, b.data, b.size);
    uint64_t huge = (uint64_t)65535 * 65535 * 4;
    for (int k = 0; k < 4; k++) {
        copy[20 + k] = (uint8_t)(65535u >> (8 * k)); /* pixelWidth */
        copy[24 + k] = (uint8_t)(65535u >> (8 * k)); /* pixelHeight */
    }
    for (int k = 0; k < 8; k++)
        copy[80 + 16 + k] = (uint8_t)(huge >> (8 * k)); /* uncompressedByteLength */
    kiln_ktx2_view v;
    kiln_error err;
    assert_int_equal(kiln_ktx2_view_get(&v, copy, b.size, "t.ktx2", &err), KILN_ERR_CORRUPT);
    assert_non_null(strstr(err.message, "cannot inflate"));
    free(copy);
    bytebuf_free(&b);
}

static void cubemaps_carry_six_faces_per_level(void **state) {
    (void)state;
    const ktx2_format_info *f = ktx2_format_find(KTX2_VK_FORMAT_R8G8B8A8_SRGB);
    uint8_t *data[4];
    size_t size[4];
    for (uint32_t i = 0; i < 4; i++) {
        size[i] = (size_t)ktx2_level_byte_size(f, 8, 8, 0, 0, 6, i);
        assert_int_equal(size[i], (size_t)6 * (8u >> i) * (8u >> i) * 4);
        data[i] = malloc(size[i]);
        for (size_t b = 0; b < size[i]; b++)
            data[i][b] = (uint8_t)(b / ((8u >> i) * (8u >> i) * 4)); /* face index */
    }
    ktx2_image_desc desc = {.vk_format = KTX2_VK_FORMAT_R8G8B8A8_SRGB,
                            .width = 8,
                            .height = 8,
                            .faces = 6,
                            .levels = 4,
                            .supercompression = 2,
                            .zstd_level = 3,
                            .level_data = (const uint8_t *const *)data,
                            .level_size = size};
    bytebuf b = {0};
    char reason[128];
    assert_true(write_ktx2(&desc, &b, reason, sizeof reason));
    kiln_ktx2_view v;
    kiln_error err;
    assert_int_equal(kiln_ktx2_view_get(&v, b.data, b.size, "cube", &err), KILN_OK);
    assert_int_equal(v.faces, 6);
    uint8_t out[6 * 8 * 8 * 4];
    assert_int_equal(kiln_ktx2_read_level(&v, 0, out, sizeof out, &err), KILN_OK);
    assert_int_equal(out[5 * 8 * 8 * 4], 5);
    /* A non-square cubemap is refused. */
    b.data[24] = 4;
    assert_int_equal(kiln_ktx2_view_get(&v, b.data, b.size, "cube", &err), KILN_ERR_CORRUPT);
    for (uint32_t i = 0; i < 4; i++)
        free(data[i]);
    bytebuf_free(&b);
}

/* kiln_ktx2_map: a KTX2 opened by path reads like the same bytes in memory;
 * what cannot be opened or is not a KTX2 is an error naming the file. */
static void textures_open_by_path(void **state) {
    (void)state;
    bytebuf b = {0};
    make_file(KTX2_VK_FORMAT_BC7_SRGB, 21, 9, 3, KTX2_SUPERCOMPRESSION_ZSTD, &b);
    char *dir = test_make_temp_dir("ktx2_map");
    char *path = test_path_join(dir, "tex.ktx2");
    test_write_file(path, b.data, b.size);
    kiln_ktx2_file file;
    kiln_error err;
    assert_int_equal(kiln_ktx2_map(&file, path, &err), KILN_OK);
    kiln_ktx2_view memory;
    assert_int_equal(kiln_ktx2_view_get(&memory, b.data, b.size, "m", &err), KILN_OK);
    assert_int_equal(file.view.width, 21);
    assert_int_equal(file.view.levels, 3);
    assert_int_equal(file.view.color_space, KILN_COLOR_SPACE_SRGB);
    for (uint32_t level = 0; level < 3; level++) {
        size_t size = (size_t)kiln_ktx2_level_size(&file.view, level);
        uint8_t *a = malloc(size), *c = malloc(size);
        assert_int_equal(kiln_ktx2_read_level(&file.view, level, a, size, &err), KILN_OK);
        assert_int_equal(kiln_ktx2_read_level(&memory, level, c, size, &err), KILN_OK);
        assert_memory_equal(a, c, size);
        free(a);
        free(c);
    }
    kiln_ktx2_close(&file);
    kiln_ktx2_close(&file); /* twice is safe */

    char *missing = test_path_join(dir, "missing.ktx2");
    assert_int_equal(kiln_ktx2_map(&file, missing, &err), KILN_ERR_IO);
    assert_non_null(strstr(err.message, "missing.ktx2"));
    assert_int_equal(kiln_ktx2_map(&file, dir, &err), KILN_ERR_IO); /* a folder */
    char *junk = test_path_join(dir, "junk.ktx2");
    test_write_file(junk, "not a texture at all, just some text bytes", 43);
    assert_true(kiln_ktx2_map(&file, junk, &err) != KILN_OK);
    assert_non_null(strstr(err.message, "junk.ktx2"));
    assert_null(file.mapping_);
    assert_int_equal(kiln_ktx2_map(NULL, path, &err), KILN_ERR_INVALID_ARGUMENT);
    free(junk);
    free(missing);
    free(path);
    free(dir);
    bytebuf_free(&b);
}

/* A file without key/value data: kiln_ktx2_view_get leaves kvd NULL and
 * kvd_size 0. find_value used to compute NULL + 0 (undefined behaviour that
 * clang's UBSan reports; fuzz_ktx2 found it, the input is in
 * tests/fuzz/regressions/ktx2/); it finds nothing and leaves *value_size. */
static void find_value_without_key_value_data(void **state) {
    (void)state;
    kiln_ktx2_view v;
    memset(&v, 0, sizeof v);
    v.kvd = NULL;
    v.kvd_size = 0;
    uint32_t n = 77;
    assert_null(kiln_ktx2_find_value(&v, "KTXorientation", &n));
    assert_int_equal(n, 77);
    assert_null(kiln_ktx2_find_value(&v, "", NULL));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(writer_lays_out_header_index_dfd_and_levels_smallest_first),
        cmocka_unit_test(writer_drops_zstd_that_does_not_help),
        cmocka_unit_test(reader_round_trips_every_format_and_scheme),
        cmocka_unit_test(block_formats_have_their_dfd_and_block_level_sizes),
        cmocka_unit_test(format_table_rows_are_consistent),
        cmocka_unit_test(writer_and_reader_agree_on_every_table_format),
        cmocka_unit_test(uastc_files_carry_their_dfd_channel),
        cmocka_unit_test(reader_survives_every_truncation),
        cmocka_unit_test(reader_survives_random_bit_flips),
        cmocka_unit_test(check_levels_names_the_damaged_level),
        cmocka_unit_test(reader_rejects_inconsistent_fields),
        cmocka_unit_test(reader_rejects_changed_dfd_fields_and_key_values),
        cmocka_unit_test(reader_refuses_levels_beyond_zstd_ratio),
        cmocka_unit_test(cubemaps_carry_six_faces_per_level),
        cmocka_unit_test(textures_open_by_path),
        cmocka_unit_test(packed_levels_stream_write_ktx2s_file),
        cmocka_unit_test(find_value_without_key_value_data),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
