/* uastc_transcode.c — a UASTC .ktx2 level transcoded block by block by
 * kiln's ETC1, ETC2 RGBA8, BC1 or BC3 transcoder (common/uastc_transcode_etc.h),
 * then decoded by decoders that are not the transcoder's (cook/inspect/etc_decode.c from
 * the Khronos specification; the cooker's BC1/BC3 decoders), for
 * tests/integration/test_uastc_basisu.sh to compare with basisu's transcodes.
 *
 *   kiln_uastc_transcode FILE.ktx2 LEVEL etc1|etc2|bc1|bc3 OUT.rgba [srgb]
 *                                                         prints "WIDTH HEIGHT"
 *   kiln_uastc_transcode FILE.ktx2 LEVEL etc1|etc2|bc1|bc3|rgba - REPEAT
 *
 * Texels go to OUT as raw RGBA8 rows (ETC1 and BC1: alpha 255). The UASTC
 * blocks are decoded with UNORM8 interpolation, as Basis Universal does, or
 * with `srgb` as libkiln does for an sRGB file (test_extract.sh). With REPEAT
 * (bench/uastc.sh) it instead transcodes the level REPEAT times on one
 * thread (rgba: the RGBA8 decode, for comparison) and prints the CPU time's
 * rate, "TARGET MPIX_PER_S". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/ktx2_format.h"
#include "common/uastc_transcode_etc.h"
#include "cook/encode/encode.h"
#include "cook/inspect/etc_decode.h"
#include "kiln/kiln.h"

static uint8_t *read_all(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *data = n > 0 ? malloc((size_t)n) : NULL;
    if (data != NULL && fread(data, 1, (size_t)n, f) != (size_t)n) {
        free(data);
        data = NULL;
    }
    fclose(f);
    *size = (size_t)n;
    return data;
}

/* One block through the target and back to texels; false with a reason. */
static bool block_roundtrip(const char *target, const uint8_t *block, bool srgb, uint8_t rgba[64],
                            const char **why) {
    uint8_t out[16];
    uastc_status status;
    *why = NULL;
    if (strcmp(target, "etc1") == 0) {
        status = uastc_block_to_etc1(block, srgb, out);
        if (status == UASTC_OK && !etc1_decode_block(out, rgba))
            *why = "not an ETC1 block";
    } else if (strcmp(target, "etc2") == 0) {
        status = uastc_block_to_etc2_rgba8(block, srgb, out);
        if (status == UASTC_OK && !etc1_decode_block(out + 8, rgba))
            *why = "colour half not an ETC1 block";
        if (status == UASTC_OK)
            eac_decode_block(out, rgba);
    } else if (strcmp(target, "bc1") == 0) {
        status = uastc_block_to_bc1(block, srgb, out);
        if (status == UASTC_OK)
            bc1_decode_block(out, rgba);
    } else {
        status = uastc_block_to_bc3(block, srgb, out);
        if (status == UASTC_OK)
            bc3_decode_block(out, rgba);
    }
    if (status != UASTC_OK)
        *why = uastc_status_text(status);
    return *why == NULL;
}

/* One target over every block `repeat` times: CPU seconds of this thread. */
static double time_transcode(const char *target, const uint8_t *blocks, size_t count,
                             unsigned repeat) {
    struct timespec t0, t1;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    unsigned sink = 0;
    for (unsigned r = 0; r < repeat; r++)
        for (size_t i = 0; i < count; i++) {
            uint8_t out[64];
            const uint8_t *block = blocks + i * 16;
            if (strcmp(target, "etc1") == 0)
                sink += uastc_block_to_etc1(block, false, out);
            else if (strcmp(target, "etc2") == 0)
                sink += uastc_block_to_etc2_rgba8(block, false, out);
            else if (strcmp(target, "bc1") == 0)
                sink += uastc_block_to_bc1(block, false, out);
            else if (strcmp(target, "bc3") == 0)
                sink += uastc_block_to_bc3(block, false, out);
            else
                sink += uastc_decode(block, false, out);
            sink += out[0];
        }
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
    if (sink == 0xFFFFFFFFu) /* keeps the loop's results alive */
        printf("-");
    return (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
}

int main(int argc, char **argv) {
    bool timing = argc == 6 && strcmp(argv[4], "-") == 0 && atoi(argv[5]) > 0;
    bool srgb = argc == 6 && strcmp(argv[5], "srgb") == 0;
    if ((argc != 5 && !timing && !srgb) ||
        (strcmp(argv[3], "etc1") && strcmp(argv[3], "etc2") && strcmp(argv[3], "bc1") &&
         strcmp(argv[3], "bc3") && !(timing && strcmp(argv[3], "rgba") == 0))) {
        fprintf(stderr,
                "usage: %s FILE.ktx2 LEVEL etc1|etc2|bc1|bc3 OUT.rgba [srgb]\n"
                "       %s FILE.ktx2 LEVEL etc1|etc2|bc1|bc3|rgba - REPEAT\n",
                argv[0], argv[0]);
        return 2;
    }
    size_t size = 0;
    uint8_t *file = read_all(argv[1], &size), *blocks = NULL, *image = NULL;
    kiln_ktx2_view v;
    kiln_error err;
    uint32_t level = (uint32_t)atoi(argv[2]);
    int status = 1;
    if (file == NULL || kiln_ktx2_view_get(&v, file, size, argv[1], &err) != KILN_OK) {
        fprintf(stderr, "%s: %s\n", argv[1], file ? err.message : "cannot read");
        goto done;
    }
    if (v.vk_format != KTX2_VK_FORMAT_UNDEFINED || v.dfd_color_model != KTX2_DF_MODEL_UASTC ||
        level >= v.levels || v.faces != 1 || v.layers > 1 || v.depth > 1) {
        fprintf(stderr, "%s: not a 2D UASTC texture with level %u\n", argv[1], level);
        goto done;
    }
    uint32_t w, h, d;
    kiln_ktx2_level_extent(&v, level, &w, &h, &d);
    uint64_t bytes = kiln_ktx2_level_size(&v, level);
    uint32_t bw = (w + 3) / 4, bh = (h + 3) / 4;
    blocks = malloc((size_t)bytes);
    image = malloc((size_t)w * h * 4);
    if (blocks == NULL || image == NULL || bytes != (uint64_t)bw * bh * 16 ||
        kiln_ktx2_read_level(&v, level, blocks, (size_t)bytes, &err) != KILN_OK) {
        fprintf(stderr, "%s: level %u: cannot read\n", argv[1], level);
        goto done;
    }
    if (timing) {
        unsigned repeat = (unsigned)atoi(argv[5]);
        double seconds = time_transcode(argv[3], blocks, (size_t)bw * bh, repeat);
        printf("%s %.1f\n", argv[3],
               (double)bw * bh * 16 * repeat / 1e6 / (seconds > 0 ? seconds : 1e-9));
        status = 0;
        goto done;
    }
    for (uint32_t by = 0; by < bh; by++)
        for (uint32_t bx = 0; bx < bw; bx++) {
            uint8_t rgba[64];
            const char *why;
            if (!block_roundtrip(argv[3], blocks + ((size_t)by * bw + bx) * 16, srgb, rgba, &why)) {
                fprintf(stderr, "%s: level %u: block (%u, %u): %s\n", argv[1], level, bx, by, why);
                goto done;
            }
            for (uint32_t y = 0; y < 4 && by * 4 + y < h; y++)
                for (uint32_t x = 0; x < 4 && bx * 4 + x < w; x++)
                    memcpy(image + (((size_t)(by * 4 + y) * w) + bx * 4 + x) * 4,
                           rgba + (y * 4 + x) * 4, 4);
        }
    FILE *out = fopen(argv[4], "wb");
    if (out == NULL || fwrite(image, 4, (size_t)w * h, out) != (size_t)w * h) {
        fprintf(stderr, "%s: cannot write\n", argv[4]);
        if (out != NULL)
            fclose(out);
        goto done;
    }
    fclose(out);
    printf("%u %u\n", w, h);
    status = 0;
done:
    free(blocks);
    free(image);
    free(file);
    return status;
}
