/*
 * texture_target.c — texture.target_psnr (drivers.h): the smallest encoding
 * of a texture whose level 0 reaches a PSNR, found by a bounded search on
 * level 0's texels before the levels are encoded.
 *
 * UASTC: level 0 is encoded once at texture.quality, then the RDO pass
 * (encode/uastc_rdo.c) runs on copies of it at lambdas from target_lambdas:
 * PSNR falls and the Zstd size shrinks as lambda grows, so a binary search
 * finds the largest lambda that still meets the target in at most 4 passes.
 * Other block formats: texture.quality from fast up (BC7: draft first), the
 * first that meets the target; at most 4 encodes. When nothing meets it, the
 * best setting searched is kept and a warning names the texture.
 *
 * What was chosen and why goes into the KTX2 key kilnTarget, which
 * `kiln info --quality` prints.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cook/drivers/drivers.h"

/* The RDO lambdas the UASTC search chooses from, weakest first (0: off). */
static const float target_lambdas[] = {0.0f, 0.5f, 1.0f, 1.5f, 2.5f, 3.5f, 5.0f, 8.0f};
#define TARGET_LAMBDAS (sizeof target_lambdas / sizeof target_lambdas[0])

/* One trial: its PSNR and level 0's Zstd bytes. */
typedef struct trial {
    double psnr;
    size_t bytes;
} trial;

/* The channels the target is measured on: what the format keeps (BC4 R,
 * BC5 RG), alpha too when some texel is translucent. */
static unsigned target_channels(const block_image_desc *d) {
    if (d->format == BLOCK_FORMAT_BC4)
        return 1u;
    if (d->format == BLOCK_FORMAT_BC5)
        return 3u;
    size_t count = (size_t)d->width * d->height;
    for (size_t i = 0; i < count; i++)
        if (d->rgba8[i * 4 + 3] != 255)
            return 15u;
    return 7u;
}

static const char *channels_name(unsigned mask) {
    return mask == 1u ? "R" : mask == 3u ? "RG" : mask == 7u ? "RGB" : "RGBA";
}

/* Decodes `blocks`, measures the PSNR against the desc's texels and the
 * Zstd size; false when out of memory or the decode fails (reason set). */
static bool measure(const block_image_desc *d, const uint8_t *blocks, size_t size, unsigned mask,
                    int zstd_level, trial *out, char *reason, size_t reason_size) {
    size_t count = (size_t)d->width * d->height;
    uint8_t *decoded = malloc(count * 4);
    uint8_t *copy = NULL;
    if (decoded == NULL) {
        snprintf(reason, reason_size, "out of memory");
        return false;
    }
    bool ok = block_decode_image(d, blocks, decoded, NULL, reason, reason_size);
    if (ok)
        out->psnr = block_psnr_rgba8(d->rgba8, decoded, count, mask);
    free(decoded);
    free(copy);
    out->bytes = ok ? texture_zstd_bytes(blocks, size, zstd_level) : 0;
    if (ok && out->bytes == 0) {
        snprintf(reason, reason_size, "out of memory");
        ok = false;
    }
    return ok;
}

size_t texture_zstd_bytes(const uint8_t *blocks, size_t size, int zstd_level) {
    uint8_t *copy = malloc(size);
    if (copy == NULL)
        return 0;
    memcpy(copy, blocks, size);
    ktx2_packed_levels packed = {.zstd = true, .zstd_level = zstd_level};
    size_t bytes = ktx2_pack_level(&packed, 0, copy, size) ? packed.size[0] : 0;
    ktx2_packed_free(&packed);
    return bytes;
}

static void format_kib(char *out, size_t out_size, size_t bytes) {
    snprintf(out, out_size, "%.1f KiB", (double)bytes / 1024.0);
}

/* UASTC: the largest lambda whose RDO keeps the target. */
static bool search_uastc(block_image_desc *d, unsigned mask, int zstd_level, double target,
                         texture_encoding *enc, char *reason, size_t reason_size) {
    size_t size = block_image_size(d);
    uint8_t *base = malloc(size), *work = malloc(size);
    bool ok = base != NULL && work != NULL;
    if (!ok)
        snprintf(reason, reason_size, "out of memory");
    d->uastc_rdo = 0.0f;
    ok = ok && block_encode_image(d, base, reason, reason_size);
    trial trials[TARGET_LAMBDAS];
    /* Invariant: index `pass` meets the target (or is -1), `fail` does not
     * (or is TARGET_LAMBDAS). */
    int pass = -1, fail = (int)TARGET_LAMBDAS;
    while (ok && fail - pass > 1) {
        int mid = (pass + fail) / 2;
        memcpy(work, base, size);
        d->uastc_rdo = target_lambdas[mid];
        uastc_rdo_image(d, work);
        ok = measure(d, work, size, mask, zstd_level, &trials[mid], reason, reason_size);
        if (ok && trials[mid].psnr >= target)
            pass = mid;
        else
            fail = mid;
    }
    free(base);
    free(work);
    if (!ok)
        return false;
    int chosen = pass >= 0 ? pass : 0;
    enc->uastc_rdo = target_lambdas[chosen];
    enc->met = pass >= 0;
    char kib[32];
    format_kib(kib, sizeof kib, trials[chosen].bytes);
    int n = snprintf(enc->note, sizeof enc->note,
                     "target %.0f dB %s: chose uastc_rdo lambda %g (%.2f dB, level 0 %s)", target,
                     channels_name(mask), (double)target_lambdas[chosen], trials[chosen].psnr, kib);
    if (fail < (int)TARGET_LAMBDAS && fail != chosen && n > 0 && (size_t)n < sizeof enc->note)
        snprintf(enc->note + n, sizeof enc->note - (size_t)n, "; lambda %g gave %.2f dB",
                 (double)target_lambdas[fail], trials[fail].psnr);
    return true;
}

/* Other formats: the cheapest quality that keeps the target. */
static bool search_quality(block_image_desc *d, unsigned mask, int zstd_level, double target,
                           texture_encoding *enc, char *reason, size_t reason_size) {
    static const block_quality ladder[] = {BLOCK_QUALITY_DRAFT, BLOCK_QUALITY_FAST,
                                           BLOCK_QUALITY_NORMAL, BLOCK_QUALITY_BEST};
    size_t size = block_image_size(d);
    uint8_t *blocks = malloc(size);
    if (blocks == NULL) {
        snprintf(reason, reason_size, "out of memory");
        return false;
    }
    trial trials[4];
    int chosen = -1, first = d->format == BLOCK_FORMAT_BC7 ? 0 : 1, i = first;
    bool ok = true;
    enc->met = false;
    for (; ok && i < 4 && !enc->met; i++) {
        d->quality = ladder[i];
        ok = block_encode_image(d, blocks, reason, reason_size) &&
             measure(d, blocks, size, mask, zstd_level, &trials[i], reason, reason_size);
        enc->met = ok && trials[i].psnr >= target;
        if (ok && (chosen < 0 || enc->met || trials[i].psnr > trials[chosen].psnr))
            chosen = i;
    }
    free(blocks);
    if (!ok)
        return false;
    enc->quality = ladder[chosen];
    char kib[32];
    format_kib(kib, sizeof kib, trials[chosen].bytes);
    int n =
        snprintf(enc->note, sizeof enc->note,
                 "target %.0f dB %s: chose texture.quality %s (%.2f dB, level 0 %s)", target,
                 channels_name(mask), cook_quality_names[ladder[chosen]], trials[chosen].psnr, kib);
    /* The cheaper setting just below, which missed. */
    if (enc->met && chosen > first && n > 0 && (size_t)n < sizeof enc->note)
        snprintf(enc->note + n, sizeof enc->note - (size_t)n, "; %s gave %.2f dB",
                 cook_quality_names[ladder[chosen - 1]], trials[chosen - 1].psnr);
    return true;
}

bool texture_meet_target(cook_context *ctx, const char *name, const block_image_desc *level0,
                         texture_encoding *enc) {
    const cook_settings *s = ctx->settings;
    enc->searched = true;
    if (level0->rgba8 == NULL) {
        diag_warning(ctx->diag, name, 0,
                     "texture.target_psnr applies to 8-bit block formats; HDR texture encoded "
                     "at texture.quality");
        return true;
    }
    block_image_desc d = *level0;
    unsigned mask = target_channels(&d);
    double target = (double)s->texture_target_psnr;
    char reason[256] = "";
    bool ok =
        d.format == BLOCK_FORMAT_UASTC
            ? search_uastc(&d, mask, s->texture_zstd_level, target, enc, reason, sizeof reason)
            : search_quality(&d, mask, s->texture_zstd_level, target, enc, reason, sizeof reason);
    if (!ok) {
        diag_error(ctx->diag, name, 0, "texture.target_psnr: %s", reason);
        return false;
    }
    if (!enc->met)
        diag_warning(ctx->diag, name, 0, "texture.target_psnr %u dB cannot be met: %s",
                     s->texture_target_psnr, enc->note);
    return true;
}
