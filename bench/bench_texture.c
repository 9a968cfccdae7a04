/*
 * bench_texture.c — what cooking a texture costs next to decoding it.
 *
 *   bench_texture OUT_DIR IMAGE...
 *
 * For each image (PNG, JPEG, TGA, BMP, HDR) times, with default settings:
 *   decode  image_decode alone (the same libraries kiln links: libspng,
 *           libjpeg-turbo, stb_image, kiln's HDR reader), then free;
 *   cook    cook_texture: decode, usage conversion, full mip chain, Zstd
 *           supercompression, KTX2 layout and the (non-fsync) write to OUT_DIR.
 * and reports both medians, the extra cost of mips + Zstd + write relative to
 * the decode (goal: below 1.0x), and the bytes of the .ktx2 against the
 * source file. Usage follows the standalone naming convention (*.hdr HDR,
 * *.n.* normal, …).
 *
 * A second table splits the cook into its stages, each timed alone on the
 * same decoded image: mips (mip_build / mip_build_rgba8 as cook_texture
 * calls them: an 8-bit level 0 kept at its size is not rebuilt), encode
 * (levels 1.. quantised to the output format) and the KTX2 layout with Zstd
 * at levels 1, 2 and 3 (bytes of each), to choose the level. Stages report
 * their fastest run (min): the CPU cost with the least interference from the
 * rest of a busy machine.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "cook/texture_internal.h"

typedef struct texture_job {
    const char *path;
    const char *out_dir;
    uint8_t *bytes;
    size_t size;
    uint64_t written;
} texture_job;

static void op_decode(void *arg) {
    texture_job *job = arg;
    cook_image image;
    char reason[256];
    if (!image_decode(job->bytes, job->size, job->path, NULL, &image, reason, sizeof reason))
        bench_die("%s: %s", job->path, reason);
    cook_image_free(&image);
}

static void op_cook(void *arg) {
    texture_job *job = arg;
    cook_settings settings;
    cook_settings_default(&settings);
    cook_diag diag = {0};
    cook_context ctx = {.input_root = ".",
                        .source_path = job->path,
                        .ref = "bench",
                        .settings = &settings,
                        .diag = &diag};
    cook_asset_result result = {0};
    cook_texture_source src = {.name = job->path,
                               .bytes = job->bytes,
                               .size = job->size,
                               .usage = cook_texture_usage_for_path(job->path)};
    if (!cook_texture(&ctx, job->out_dir, &src, "bench", "bench.ktx2", false, &result))
        bench_die("%s: %.*s", job->path, (int)diag.text.size, (const char *)diag.text.data);
    job->written = result.bytes_written;
    cook_asset_result_free(&result);
    diag_free(&diag);
}

/* The stages of cook_texture on one decoded image (see the header). */
typedef struct stage_job {
    cook_image image;
    cook_texture_usage usage;
    mip_options options;
    uint32_t vk_format;
    mip_chain chain;                   /* built once for the encode and Zstd stages */
    uint8_t *levels[MIP_MAX_LEVELS];   /* encoded, level 0 from the source bytes */
    size_t level_size[MIP_MAX_LEVELS]; /* as write_ktx2 wants them */
    int zstd_level;
    size_t ktx2_bytes;
} stage_job;

static bool stage_mips(stage_job *job, mip_chain *chain) {
    if (job->image.rgba8 != NULL)
        return mip_build_rgba8(job->image.rgba8, job->image.width, job->image.height, &job->options,
                               chain);
    float *base = image_to_float(&job->image, job->usage);
    bool ok =
        base != NULL && mip_build(base, job->image.width, job->image.height, &job->options, chain);
    free(base);
    return ok;
}

static void op_mips(void *arg) {
    mip_chain chain;
    if (!stage_mips(arg, &chain))
        bench_die("mips failed");
    mip_chain_free(&chain);
}

static void op_encode(void *arg) {
    stage_job *job = arg;
    for (uint32_t i = 1; i < job->chain.count; i++) {
        size_t size;
        uint8_t *bytes =
            encode_level(job->chain.levels[i], (size_t)job->chain.width[i] * job->chain.height[i],
                         job->vk_format, &size);
        if (bytes == NULL)
            bench_die("encode failed");
        free(bytes);
    }
}

static void op_zstd(void *arg) {
    stage_job *job = arg;
    ktx2_image_desc desc = {.vk_format = job->vk_format,
                            .width = job->chain.width[0],
                            .height = job->chain.height[0],
                            .faces = 1,
                            .levels = job->chain.count,
                            .supercompression = KTX2_SUPERCOMPRESSION_ZSTD,
                            .zstd_level = job->zstd_level,
                            .level_data = (const uint8_t *const *)job->levels,
                            .level_size = job->level_size};
    bytebuf out = {0};
    char reason[256];
    if (!write_ktx2(&desc, &out, reason, sizeof reason))
        bench_die("%s", reason);
    job->ktx2_bytes = out.size;
    bytebuf_free(&out);
}

static void print_stages(const texture_job *texture) {
    stage_job job = {.usage = cook_texture_usage_for_path(texture->path)};
    char reason[256];
    if (!image_decode(texture->bytes, texture->size, texture->path, NULL, &job.image, reason,
                      sizeof reason))
        bench_die("%s: %s", texture->path, reason);
    job.vk_format = job.usage == COOK_TEXTURE_HDR      ? KTX2_VK_FORMAT_R16G16B16A16_SFLOAT
                    : job.usage == COOK_TEXTURE_SINGLE ? KTX2_VK_FORMAT_R8_UNORM
                    : job.usage == COOK_TEXTURE_COLOR  ? KTX2_VK_FORMAT_R8G8B8A8_SRGB
                                                       : KTX2_VK_FORMAT_R8G8B8A8_UNORM;
    cook_settings settings;
    cook_settings_default(&settings);
    job.options = (mip_options){
        .mode = job.usage == COOK_TEXTURE_COLOR    ? MIP_MODE_COLOR_SRGB
                : job.usage == COOK_TEXTURE_NORMAL ? MIP_MODE_NORMAL
                                                   : MIP_MODE_LINEAR,
        .alpha_weighted = job.usage == COOK_TEXTURE_COLOR || job.usage == COOK_TEXTURE_HDR,
        .max_size = settings.texture_max_size,
        .mipmaps = settings.texture_mipmaps,
        .skip_level0 = job.image.rgba8 != NULL && job.usage != COOK_TEXTURE_HDR,
    };
    if (!stage_mips(&job, &job.chain))
        bench_die("%s: mips failed", texture->path);
    size_t pixels = (size_t)job.image.width * job.image.height;
    for (uint32_t i = 0; i < job.chain.count; i++) {
        if (job.chain.levels[i] == NULL) { /* level 0 from the source bytes, as cook_texture */
            bool single = job.vk_format == KTX2_VK_FORMAT_R8_UNORM;
            job.level_size[i] = pixels * (single ? 1 : 4);
            job.levels[i] = malloc(job.level_size[i]);
            if (job.levels[i] == NULL)
                bench_die("out of memory");
            for (size_t t = 0; t < job.level_size[i]; t++)
                job.levels[i][t] = job.image.rgba8[single ? t * 4 : t];
            continue;
        }
        job.levels[i] =
            encode_level(job.chain.levels[i], (size_t)job.chain.width[i] * job.chain.height[i],
                         job.vk_format, &job.level_size[i]);
        if (job.levels[i] == NULL)
            bench_die("out of memory");
    }
    bench_stats mips = bench_measure(op_mips, &job, 20, 2.0);
    bench_stats encode = bench_measure(op_encode, &job, 20, 1.0);
    char m[32], e[32];
    bench_format_duration(mips.min, m, sizeof m);
    bench_format_duration(encode.min, e, sizeof e);
    const char *name = strrchr(texture->path, '/');
    printf("| %s | %s | %s |", name ? name + 1 : texture->path, m, e);
    for (int level = 1; level <= 3; level++) {
        job.zstd_level = level;
        bench_stats zstd = bench_measure(op_zstd, &job, 20, 2.0);
        char z[32], b[32];
        bench_format_duration(zstd.min, z, sizeof z);
        bench_format_bytes(job.ktx2_bytes, b, sizeof b);
        printf(" %s, %s |", z, b);
    }
    printf("\n");
    for (uint32_t i = 0; i < MIP_MAX_LEVELS; i++)
        free(job.levels[i]);
    mip_chain_free(&job.chain);
    cook_image_free(&job.image);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: bench_texture OUT_DIR IMAGE...\n");
        return 2;
    }
    printf("| image | size | decode | cook (decode+mips+zstd+write) | extra / decode | source "
           "bytes | ktx2 bytes |\n");
    printf("|---|---|---:|---:|---:|---:|---:|\n");
    for (int i = 2; i < argc; i++) {
        texture_job job = {.path = argv[i], .out_dir = argv[1]};
        char reason[256];
        if (!cook_read_file(argv[i], (size_t)1 << 30, &job.bytes, &job.size, reason, sizeof reason))
            bench_die("%s: %s", argv[i], reason);
        cook_image image;
        if (!image_decode(job.bytes, job.size, job.path, NULL, &image, reason, sizeof reason))
            bench_die("%s: %s", job.path, reason);
        uint32_t w = image.width, h = image.height;
        cook_image_free(&image);
        bench_stats decode = bench_measure(op_decode, &job, 20, 2.0);
        bench_stats cook = bench_measure(op_cook, &job, 20, 4.0);
        char d[32], c[32], sb[32], kb[32];
        bench_format_duration(decode.median, d, sizeof d);
        bench_format_duration(cook.median, c, sizeof c);
        bench_format_bytes(job.size, sb, sizeof sb);
        bench_format_bytes(job.written, kb, sizeof kb);
        const char *name = strrchr(argv[i], '/');
        printf("| %s | %ux%u | %s | %s | %.2fx | %s | %s |\n", name ? name + 1 : argv[i], w, h, d,
               c, (cook.median - decode.median) / decode.median, sb, kb);
        free(job.bytes);
    }
    printf("\n| image | mips | encode | KTX2 + Zstd 1 | Zstd 2 | Zstd 3 |\n");
    printf("|---|---:|---:|---:|---:|---:|\n");
    for (int i = 2; i < argc; i++) {
        texture_job job = {.path = argv[i]};
        char reason[256];
        if (!cook_read_file(argv[i], (size_t)1 << 30, &job.bytes, &job.size, reason, sizeof reason))
            bench_die("%s: %s", argv[i], reason);
        print_stages(&job);
        free(job.bytes);
    }
    return 0;
}
