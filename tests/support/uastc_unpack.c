/* uastc_unpack.c — a UASTC .ktx2 level decoded by libkiln, for
 * tests/integration/test_uastc_basisu.sh: the file is read by the KTX2 reader
 * (kiln_ktx2_view_get, kiln_ktx2_read_level: Zstd or not), the level decoded
 * by kiln_uastc_decode_rgba8 with UNORM8 interpolation (what Basis
 * Universal's unpack writes), and the texels go to OUT as raw RGBA8 rows.
 *
 *   kiln_uastc_unpack FILE.ktx2 LEVEL OUT.rgba   prints "WIDTH HEIGHT"
 *
 * An invalid block is an error naming the file, the block and the reason. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/ktx2_format.h"
#include "kiln/kiln.h"

static uint8_t *read_all(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    uint8_t *data = NULL;
    size_t cap = 0, n = 0, got;
    do {
        if (n == cap) {
            cap = cap ? cap * 2 : 1 << 16;
            uint8_t *grown = realloc(data, cap);
            if (grown == NULL) {
                free(data);
                fclose(f);
                return NULL;
            }
            data = grown;
        }
        got = fread(data + n, 1, cap - n, f);
        n += got;
    } while (got > 0);
    fclose(f);
    *size = n;
    return data;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s FILE.ktx2 LEVEL OUT.rgba\n", argv[0]);
        return 2;
    }
    size_t size = 0;
    uint8_t *file = read_all(argv[1], &size);
    if (file == NULL) {
        fprintf(stderr, "%s: cannot read\n", argv[1]);
        return 1;
    }
    kiln_ktx2_view v;
    kiln_error err;
    uint32_t level = (uint32_t)atoi(argv[2]);
    int status = 1;
    uint8_t *blocks = NULL, *rgba = NULL;
    if (kiln_ktx2_view_get(&v, file, size, argv[1], &err) != KILN_OK) {
        fprintf(stderr, "%s\n", err.message);
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
    blocks = malloc((size_t)bytes);
    rgba = malloc((size_t)w * h * 4);
    if (blocks == NULL || rgba == NULL ||
        kiln_ktx2_read_level(&v, level, blocks, (size_t)bytes, &err) != KILN_OK) {
        fprintf(stderr, "%s: level %u: %s\n", argv[1], level,
                blocks && rgba ? err.message : "out of memory");
        goto done;
    }
    char label[300];
    snprintf(label, sizeof label, "%s: level %u", argv[1], level);
    if (kiln_uastc_decode_rgba8(blocks, (size_t)bytes, w, h, false, rgba, (size_t)w * h * 4, label,
                                &err) != KILN_OK) {
        fprintf(stderr, "%s\n", err.message);
        goto done;
    }
    FILE *out = fopen(argv[3], "wb");
    if (out == NULL || fwrite(rgba, 4, (size_t)w * h, out) != (size_t)w * h) {
        fprintf(stderr, "%s: cannot write\n", argv[3]);
        if (out != NULL)
            fclose(out);
        goto done;
    }
    fclose(out);
    printf("%u %u\n", w, h);
    status = 0;
done:
    free(blocks);
    free(rgba);
    free(file);
    return status;
}
