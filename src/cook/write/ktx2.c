/*
 * ktx2.c — serialise a texture as a KTX 2.0 file (docs/formats/ktx2.md).
 *
 * Layout written, in file order:
 *   identifier (12) | header (9 x u32) | index (4 x u32, 2 x u64)
 *   | level index (levelCount x 3 x u64, level 0 first)
 *   | DFD (u32 total size + one basic descriptor block)
 *   | key/value data (KTXorientation, KTXwriter, kilnSource, kilnTarget; sorted by key, 4-aligned)
 *   | level data, smallest level first (level N-1 ... level 0).
 * Without supercompression each level starts at a multiple of
 * lcm(texel block bytes, 4); with Zstd (scheme 2) levels are byte-aligned as
 * the specification allows. No supercompression global data is needed for
 * Zstd. The header's typeSize and the DFD come from the vkFormat's row of
 * the format table (common/ktx2_format.c), which the runtime's reader checks
 * files against. Block-compressed formats' (BC1..BC7, ASTC) levels are whole blocks
 * (ceil(width / block width) x ceil(height / block height), 1x1 levels
 * included), and Zstd still shrinks them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zstd.h>

#include "cook/write/write.h"

static void put_u8(bytebuf *b, uint8_t v) {
    bytebuf_append(b, &v, 1);
}
static void put_u16(bytebuf *b, uint16_t v) {
    uint8_t x[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    bytebuf_append(b, x, 2);
}
static void put_u32(bytebuf *b, uint32_t v) {
    uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    bytebuf_append(b, x, 4);
}
static void put_u64(bytebuf *b, uint64_t v) {
    put_u32(b, (uint32_t)v);
    put_u32(b, (uint32_t)(v >> 32));
}
static void patch_u64(bytebuf *b, size_t at, uint64_t v) {
    if (b->failed || at + 8 > b->size)
        return;
    for (int i = 0; i < 8; i++)
        b->data[at + (size_t)i] = (uint8_t)(v >> (8 * i));
}
static void patch_u32(bytebuf *b, size_t at, uint32_t v) {
    if (b->failed || at + 4 > b->size)
        return;
    for (int i = 0; i < 4; i++)
        b->data[at + (size_t)i] = (uint8_t)(v >> (8 * i));
}
static void pad_to(bytebuf *b, size_t alignment) {
    size_t rem = b->size % alignment;
    if (rem != 0)
        bytebuf_append_zeros(b, alignment - rem);
}

/* The DFD of `f`: dfdTotalSize and one basic descriptor block with the
 * colour model, texel block and samples of its row in the format table (one
 * sample per channel of the colour model, each spanning its part of the
 * texel or block). sampleLower/Upper: 0..2^bits-1 for normalised data
 * (0..UINT32_MAX for 32 bits and more), 0.0f..1.0f for unsigned floats and
 * -1.0f..1.0f for signed ones. */
static void append_dfd(bytebuf *b, const ktx2_format_info *f) {
    uint32_t block_size = ktx2_dfd_block_size(f);
    put_u32(b, 4 + block_size);       /* dfdTotalSize */
    put_u32(b, 0);                    /* vendorId 0 (Khronos), descriptorType 0 */
    put_u16(b, KTX2_DF_VERSION);      /* versionNumber: KDF 1.3 */
    put_u16(b, (uint16_t)block_size); /* descriptorBlockSize */
    put_u8(b, f->dfd_model);
    put_u8(b, KTX2_DF_PRIMARIES_BT709);
    put_u8(b, f->srgb ? KTX2_DF_TRANSFER_SRGB : KTX2_DF_TRANSFER_LINEAR);
    put_u8(b, 0);                              /* flags: alpha straight */
    put_u8(b, (uint8_t)(f->block_width - 1));  /* texelBlockDimension0 */
    put_u8(b, (uint8_t)(f->block_height - 1)); /* texelBlockDimension1 */
    put_u16(b, 0);                             /* dimensions 2 and 3: 1 */
    put_u8(b, (uint8_t)f->block_bytes);        /* bytesPlane0 */
    bytebuf_append_zeros(b, 7);                /* bytesPlane1..7 */
    for (uint32_t i = 0; i < f->sample_count; i++) {
        const ktx2_sample *s = &f->samples[i];
        put_u16(b, s->bit_offset);
        put_u8(b, (uint8_t)(s->bit_length - 1));
        put_u8(b, (uint8_t)(s->channel | s->qualifiers));
        put_u32(b, 0); /* samplePosition 0,0,0,0 */
        if (s->qualifiers & KTX2_DF_QUALIFIER_FLOAT) {
            bool is_signed = (s->qualifiers & KTX2_DF_QUALIFIER_SIGNED) != 0;
            put_u32(b, is_signed ? KTX2_DF_FLOAT_MINUS_ONE : 0u);
            put_u32(b, KTX2_DF_FLOAT_ONE);
        } else {
            put_u32(b, 0);
            put_u32(b, s->bit_length >= 32 ? 0xFFFFFFFFu : (1u << s->bit_length) - 1u);
        }
    }
}

static void append_key_value(bytebuf *b, const char *key, const char *value) {
    size_t key_length = strlen(key) + 1, value_length = strlen(value) + 1;
    put_u32(b, (uint32_t)(key_length + value_length));
    bytebuf_append(b, key, key_length);
    bytebuf_append(b, value, value_length);
    pad_to(b, 4);
}

/* Zstd of every level, before the file is laid out. Levels are independent
 * streams, so they are compressed on `threads` threads: with N threads, the N-1
 * largest levels each get one, the last takes every smaller level. Each level's
 * bytes depend only on its texels and the level, never on the thread. */
typedef struct zstd_levels {
    const ktx2_image_desc *desc;
    uint32_t items;
    uint8_t *data[KTX2_MAX_LEVELS];
    size_t size[KTX2_MAX_LEVELS];
    bool failed[KTX2_MAX_LEVELS]; /* per level: items write only their own levels */
} zstd_levels;

static void compress_levels_item(void *arg, uint32_t item) {
    zstd_levels *z = arg;
    const ktx2_image_desc *d = z->desc;
    uint32_t first = item, last = item + 1 == z->items ? d->levels : item + 1;
    for (uint32_t n = first; n < last; n++) {
        z->data[n] =
            write_zstd_frame(d->level_data[n], d->level_size[n], d->zstd_level, &z->size[n]);
        if (z->data[n] == NULL) {
            z->failed[n] = true;
            break;
        }
    }
}

static bool compress_levels(const ktx2_image_desc *d, zstd_levels *z) {
    memset(z, 0, sizeof *z);
    z->desc = d;
    /* Below ~256 KiB (about half a millisecond of Zstd) a second thread
     * costs more than it saves: a 32x32 chain took twice as long on 2
     * (measured when threads were started per call). */
    size_t total = 0;
    for (uint32_t n = 0; n < d->levels; n++)
        total += d->level_size[n];
    z->items = d->threads > 1 && total >= ((size_t)256 << 10) ? d->threads : 1;
    if (z->items > d->levels)
        z->items = d->levels;
    parallel_for(z->items, z->items, compress_levels_item, z);
    for (uint32_t n = 0; n < d->levels; n++)
        if (z->failed[n])
            return false;
    return true;
}

static void free_levels(zstd_levels *z) {
    for (uint32_t n = 0; n < KTX2_MAX_LEVELS; n++)
        free(z->data[n]);
}

static bool failure(char *reason, size_t reason_size, const char *message) {
    snprintf(reason, reason_size, "%s", message);
    return false;
}

/* The checks every written description passes. */
static const ktx2_format_info *check_desc(const ktx2_image_desc *d, char *reason,
                                          size_t reason_size) {
    const ktx2_format_info *f = ktx2_format_find(d->vk_format);
    if (f == NULL) {
        failure(reason, reason_size, "KTX2: unsupported vkFormat");
        return NULL;
    }
    if (d->width == 0 || d->levels == 0 || d->levels > KTX2_MAX_LEVELS ||
        (d->faces != 1 && d->faces != 6) ||
        (d->supercompression != KTX2_SUPERCOMPRESSION_NONE &&
         d->supercompression != KTX2_SUPERCOMPRESSION_ZSTD)) {
        failure(reason, reason_size, "KTX2: invalid image description");
        return NULL;
    }
    for (uint32_t i = 0; i < d->levels; i++) {
        uint64_t expected =
            ktx2_level_byte_size(f, d->width, d->height, d->depth, d->layers, d->faces, i);
        if (expected == 0 || expected != d->level_size[i]) {
            failure(reason, reason_size, "KTX2: level size does not match dimensions");
            return NULL;
        }
    }
    return f;
}

/* The levels as the file stores them: `data[n]` (length[n] bytes) is level
 * n's Zstd frame when `zstd`; else its raw bytes, or (with `inflate`) a Zstd
 * frame of them that the writer inflates as it goes. */
typedef struct stored_levels {
    bool zstd, inflate;
    const uint8_t *const *data;
    const size_t *length;
} stored_levels;

/* Lays the file out and hands it to `sink` in file order: the header, DFD
 * and key/value data from a small buffer, then each level (smallest first)
 * from the caller's buffers, so the file is never whole in memory. */
static bool serialise(const ktx2_image_desc *d, const ktx2_format_info *f,
                      const stored_levels *levels, write_sink sink, void *sink_arg, char *reason,
                      size_t reason_size) {
    uint32_t supercompression =
        levels->zstd ? KTX2_SUPERCOMPRESSION_ZSTD : KTX2_SUPERCOMPRESSION_NONE;
    bytebuf head = {0};
    bytebuf *out = &head;
    /* Header. */
    bytebuf_append(out, ktx2_identifier, KTX2_IDENTIFIER_SIZE);
    put_u32(out, ktx2_file_vk_format(f)); /* UNDEFINED for UASTC */
    put_u32(out, f->type_size);
    put_u32(out, d->width);
    put_u32(out, d->height);
    put_u32(out, d->depth);
    put_u32(out, d->layers);
    put_u32(out, d->faces);
    put_u32(out, d->levels);
    put_u32(out, supercompression);
    size_t index_at = out->size;
    put_u32(out, 0);                   /* dfdByteOffset */
    put_u32(out, 0);                   /* dfdByteLength */
    put_u32(out, 0);                   /* kvdByteOffset */
    put_u32(out, 0);                   /* kvdByteLength */
    put_u64(out, 0);                   /* sgdByteOffset */
    put_u64(out, 0);                   /* sgdByteLength */
    size_t level_index_at = out->size; /* KTX2_HEADER_SIZE */
    for (uint32_t i = 0; i < d->levels; i++) {
        put_u64(out, 0);
        put_u64(out, 0);
        put_u64(out, 0);
    }
    /* DFD. */
    size_t dfd_at = out->size;
    append_dfd(out, f);
    size_t dfd_length = out->size - dfd_at;
    /* Key/value data, sorted by key. */
    size_t kvd_at = out->size;
    append_key_value(out, "KTXorientation", d->depth > 0 ? "rdi" : "rd");
    append_key_value(out, "KTXwriter", "kiln " KILN_VERSION_STRING);
    /* kiln's keys sort after the KTX ones ('k' > 'K'), Content before Source. */
    if (d->content_width != 0 && (d->content_width != d->width || d->content_height != d->height)) {
        char content[32];
        snprintf(content, sizeof content, "%u %u", d->content_width, d->content_height);
        append_key_value(out, "kilnContentSize", content);
    }
    if (d->source != NULL)
        append_key_value(out, "kilnSource", d->source);
    if (d->target != NULL) /* sorts after kilnSource */
        append_key_value(out, "kilnTarget", d->target);
    size_t kvd_length = out->size - kvd_at;
    patch_u32(out, index_at, (uint32_t)dfd_at);
    patch_u32(out, index_at + 4, (uint32_t)dfd_length);
    patch_u32(out, index_at + 8, (uint32_t)kvd_at);
    patch_u32(out, index_at + 12, (uint32_t)kvd_length);

    /* Levels, smallest first: their offsets before any is written. */
    size_t alignment = supercompression == KTX2_SUPERCOMPRESSION_NONE
                           ? (f->block_bytes % 4 == 0   ? f->block_bytes
                              : f->block_bytes % 2 == 0 ? (size_t)f->block_bytes * 2
                                                        : (size_t)f->block_bytes * 4)
                           : 1;
    size_t at = out->size;
    size_t level_at[KTX2_MAX_LEVELS];
    for (uint32_t n = d->levels; n-- > 0;) {
        at += (alignment - at % alignment) % alignment;
        level_at[n] = at;
        size_t length = levels->zstd ? levels->length[n] : d->level_size[n];
        size_t entry = level_index_at + (size_t)n * KTX2_LEVEL_ENTRY_SIZE;
        patch_u64(out, entry, at);
        patch_u64(out, entry + 8, length);
        patch_u64(out, entry + 16, d->level_size[n]);
        at += length;
    }
    bool ok = !out->failed && sink(sink_arg, out->data, out->size);
    at = out->size;
    bytebuf_free(&head);
    if (!ok)
        return failure(reason, reason_size, "cannot write the KTX2 header (out of memory?)");

    static const uint8_t zeros[16] = {0};
    ZSTD_DCtx *dctx = NULL;
    uint8_t *chunk = NULL;
    size_t chunk_size = ZSTD_DStreamOutSize();
    if (levels->inflate &&
        ((dctx = ZSTD_createDCtx()) == NULL || (chunk = malloc(chunk_size)) == NULL))
        ok = false;
    for (uint32_t n = d->levels; ok && n-- > 0;) {
        while (ok && at < level_at[n]) { /* alignment padding */
            size_t pad = level_at[n] - at < sizeof zeros ? level_at[n] - at : sizeof zeros;
            ok = sink(sink_arg, zeros, pad);
            at += pad;
        }
        if (!ok)
            break;
        if (!levels->inflate) {
            size_t length = levels->zstd ? levels->length[n] : d->level_size[n];
            ok = sink(sink_arg, levels->data[n], length);
            at += length;
            continue;
        }
        /* Stored raw, held as a Zstd frame: inflate it chunk by chunk. */
        ZSTD_DCtx_reset(dctx, ZSTD_reset_session_only);
        ZSTD_inBuffer in = {levels->data[n], levels->length[n], 0};
        size_t produced = 0, left = 1;
        while (ok && left != 0) {
            ZSTD_outBuffer o = {chunk, chunk_size, 0};
            left = ZSTD_decompressStream(dctx, &o, &in);
            ok = !ZSTD_isError(left) && produced + o.pos <= d->level_size[n] &&
                 (left == 0 || o.pos > 0 || in.pos < in.size) &&
                 (o.pos == 0 || sink(sink_arg, chunk, o.pos));
            produced += o.pos;
        }
        ok = ok && produced == d->level_size[n];
        at += produced;
    }
    ZSTD_freeDCtx(dctx);
    free(chunk);
    if (!ok)
        return failure(reason, reason_size, "cannot write the KTX2 levels");
    return true;
}

static bool append_sink(void *arg, const void *data, size_t size) {
    bytebuf *out = arg;
    bytebuf_append(out, data, size);
    return !out->failed;
}

bool write_ktx2(const ktx2_image_desc *d, bytebuf *out, char *reason, size_t reason_size) {
    const ktx2_format_info *f = check_desc(d, reason, reason_size);
    if (f == NULL)
        return false;
    /* Zstd first: a level set it does not make smaller is stored as it is
     * (noise, or already dense block data), so supercompression never costs
     * bytes or a decode for nothing. */
    zstd_levels *z = NULL;
    if (d->supercompression == KTX2_SUPERCOMPRESSION_ZSTD) {
        z = malloc(sizeof *z);
        if (z == NULL || !compress_levels(d, z)) {
            if (z != NULL)
                free_levels(z);
            free(z);
            return failure(reason, reason_size, "KTX2: Zstd compression failed (out of memory?)");
        }
        uint64_t raw = 0, packed = 0;
        for (uint32_t n = 0; n < d->levels; n++) {
            raw += d->level_size[n];
            packed += z->size[n];
        }
        if (packed >= raw) {
            free_levels(z);
            free(z);
            z = NULL;
        }
    }
    stored_levels levels = {.zstd = z != NULL,
                            .data = z != NULL ? (const uint8_t *const *)z->data : d->level_data,
                            .length = z != NULL ? z->size : d->level_size};
    bool ok = serialise(d, f, &levels, append_sink, out, reason, reason_size);
    if (z != NULL)
        free_levels(z);
    free(z);
    return ok;
}

/* ---------------------------------------------------------------------------
 * Levels packed as they are made
 * ------------------------------------------------------------------------- */

bool ktx2_pack_level(ktx2_packed_levels *p, uint32_t level, uint8_t *raw, size_t size) {
    if (level >= KTX2_MAX_LEVELS || p->data[level] != NULL) {
        free(raw);
        return false;
    }
    p->raw_size[level] = size;
    if (!p->zstd) {
        p->data[level] = raw;
        p->size[level] = size;
        return true;
    }
    p->data[level] = write_zstd_frame(raw, size, p->zstd_level, &p->size[level]);
    free(raw);
    return p->data[level] != NULL;
}

void ktx2_packed_free(ktx2_packed_levels *p) {
    for (uint32_t n = 0; n < KTX2_MAX_LEVELS; n++) {
        free(p->data[n]);
        p->data[n] = NULL;
    }
}

bool write_ktx2_packed(const ktx2_image_desc *d, const ktx2_packed_levels *p, write_sink sink,
                       void *sink_arg, char *reason, size_t reason_size) {
    size_t level_size[KTX2_MAX_LEVELS] = {0};
    ktx2_image_desc desc = *d;
    desc.supercompression = p->zstd ? KTX2_SUPERCOMPRESSION_ZSTD : KTX2_SUPERCOMPRESSION_NONE;
    desc.level_data = NULL;
    desc.level_size = level_size;
    for (uint32_t n = 0; n < d->levels && n < KTX2_MAX_LEVELS; n++) {
        if (p->data[n] == NULL)
            return failure(reason, reason_size, "KTX2: a level is missing");
        level_size[n] = p->raw_size[n];
    }
    const ktx2_format_info *f = check_desc(&desc, reason, reason_size);
    if (f == NULL)
        return false;
    /* Zstd is kept only when it makes the levels smaller, as write_ktx2
     * decides; else the raw bytes are stored, inflated from the frames. */
    uint64_t raw = 0, packed = 0;
    for (uint32_t n = 0; n < d->levels; n++) {
        raw += p->raw_size[n];
        packed += p->size[n];
    }
    bool zstd = p->zstd && packed < raw;
    stored_levels levels = {.zstd = zstd,
                            .inflate = p->zstd && !zstd,
                            .data = (const uint8_t *const *)p->data,
                            .length = p->size};
    return serialise(&desc, f, &levels, sink, sink_arg, reason, reason_size);
}
