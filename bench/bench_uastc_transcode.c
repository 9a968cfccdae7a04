/*
 * bench_uastc_transcode.c — libkiln's UASTC transcoders on cooked UASTC
 * files, one thread: Mpix/s of level 0 decoded to RGBA8
 * (kiln_uastc_decode_rgba8) and transcoded to BC7 and ASTC 4×4
 * (kiln_uastc_transcode), beside the cooker's BC7 decoder on that BC7 (what
 * decoding a BC7 texture costs); and the PSNR of the BC7 against the UASTC
 * decoding (ASTC is exact). Thread CPU time, the least of RUNS runs, the
 * operations alternating within each run.
 *
 *   bench_uastc_transcode FILE.ktx2...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "cook/encode/encode.h"
#include "kiln/kiln.h"

enum { RUNS = 7, OPS = 4 };
static const char *op_names[OPS] = {"UASTC -> RGBA8", "UASTC -> BC7", "UASTC -> ASTC 4x4",
                                    "BC7 -> RGBA8 (cooker's decoder)"};

typedef struct level {
    const char *path;
    uint32_t width, height;
    uint8_t *uastc, *rgba, *bc7, *astc, *bc7_rgba;
    size_t uastc_size, blocks_size;
} level;

static void run_op(level *l, int op) {
    kiln_error err;
    kiln_result r = KILN_OK;
    size_t texels = (size_t)l->width * l->height;
    if (op == 0)
        r = kiln_uastc_decode_rgba8(l->uastc, l->uastc_size, l->width, l->height, false, l->rgba,
                                    texels * 4, l->path, &err);
    else if (op == 1)
        r = kiln_uastc_transcode(l->uastc, l->uastc_size, l->width, l->height, false,
                                 KILN_TRANSCODE_BC7, l->bc7, l->blocks_size, l->path, &err);
    else if (op == 2)
        r = kiln_uastc_transcode(l->uastc, l->uastc_size, l->width, l->height, false,
                                 KILN_TRANSCODE_ASTC_4X4, l->astc, l->blocks_size, l->path, &err);
    if (r != KILN_OK)
        bench_die("%s", err.message);
    if (op == 3) {
        block_image_desc desc = {
            .format = BLOCK_FORMAT_BC7, .width = l->width, .height = l->height};
        char reason[256];
        if (!block_decode_image(&desc, l->bc7, l->bc7_rgba, NULL, reason, sizeof reason))
            bench_die("%s: %s", l->path, reason);
    }
}

static void load_level(const char *path, level *l) {
    kiln_ktx2_file file;
    kiln_error err;
    if (kiln_ktx2_map(&file, path, &err) != KILN_OK)
        bench_die("%s", err.message);
    if (file.view.vk_format != 0 || file.view.faces != 1 || file.view.layers > 1)
        bench_die("%s: not a 2D UASTC texture", path);
    l->path = path;
    l->width = file.view.width;
    l->height = file.view.height;
    l->uastc_size = (size_t)kiln_ktx2_level_size(&file.view, 0);
    l->blocks_size = kiln_uastc_transcoded_size(KILN_TRANSCODE_BC7, l->width, l->height);
    size_t texels = (size_t)l->width * l->height;
    l->uastc = malloc(l->uastc_size);
    l->rgba = malloc(texels * 4);
    l->bc7_rgba = malloc(texels * 4);
    l->bc7 = malloc(l->blocks_size);
    l->astc = malloc(l->blocks_size);
    if (!l->uastc || !l->rgba || !l->bc7_rgba || !l->bc7 || !l->astc)
        bench_die("out of memory");
    if (kiln_ktx2_read_level(&file.view, 0, l->uastc, l->uastc_size, &err) != KILN_OK)
        bench_die("%s", err.message);
    kiln_ktx2_close(&file);
}

int main(int argc, char **argv) {
    if (argc < 2)
        bench_die("usage: bench_uastc_transcode FILE.ktx2...");
    printf("%-28s %-32s %10s %8s\n", "file", "operation", "Mpix/s", "ms");
    for (int f = 1; f < argc; f++) {
        level l;
        load_level(argv[f], &l);
        double best[OPS];
        for (int op = 0; op < OPS; op++)
            best[op] = 1e30;
        for (int run = 0; run < RUNS; run++)
            for (int op = 0; op < OPS; op++) {
                double start = bench_thread_seconds();
                run_op(&l, op);
                double seconds = bench_thread_seconds() - start;
                best[op] = seconds < best[op] ? seconds : best[op];
            }
        double pixels = (double)l.width * l.height;
        const char *slash = strrchr(argv[f], '/'), *name = slash ? slash + 1 : argv[f];
        for (int op = 0; op < OPS; op++)
            printf("%-28s %-32s %10.1f %8.2f\n", name, op_names[op], pixels / 1e6 / best[op],
                   best[op] * 1e3);
        double samples = 0;
        double sse = bench_sse_rgba8(l.rgba, l.bc7_rgba, (size_t)pixels, 0x7, &samples);
        double alpha_samples = 0;
        double alpha_sse = bench_sse_rgba8(l.rgba, l.bc7_rgba, (size_t)pixels, 0x8, &alpha_samples);
        printf("%-28s BC7 against the UASTC decoding: PSNR RGB %.2f dB, A %.2f dB\n", name,
               bench_psnr(sse, samples), bench_psnr(alpha_sse, alpha_samples));
        free(l.uastc);
        free(l.rgba);
        free(l.bc7_rgba);
        free(l.bc7);
        free(l.astc);
    }
    return 0;
}
