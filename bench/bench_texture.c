/*
 * bench_texture.c — what cooking a texture costs next to decoding it.
 *
 *   bench_texture [--threads N] [--mips] [--cpu] [--cutoff C] [--dump DIR] IMAGE...
 *
 * For each image (PNG, JPEG, TGA, BMP, HDR), with default settings and the
 * usage of the standalone naming convention (*.hdr HDR, *.n.* normal, ...),
 * times each stage of cook_texture alone on the same decoded image:
 *   decode  image_decode alone, as the cook runs it: in the reused decoder
 *           process (libspng, libjpeg-turbo, stb_image, kiln's HDR
 *           reader), the pixels sent back; with KILN_ISOLATE=0 in this
 *           process, the libraries' own cost; then free;
 *   mips    mip_build_rgba8 / mip_build exactly as cook_texture calls them
 *           (8-bit levels straight from the filter; an 8-bit level 0 kept at
 *           its size is not rebuilt), on 1 thread and on N threads (default
 *           2; settings.threads is the -j count);
 *   half    HDR only: float levels to RGBA16F (the uncompressed HDR format;
 *           8-bit formats have no such pass);
 *   Zstd    KTX2 layout with Zstd (default level 2) of the default output,
 *           block-compressed (the desktop formats of texture.c: BC7, BC5 for
 *           normal maps, BC4 single-channel, BC6H HDR; block encoding is
 *           issue 5's cost, done once untimed), and of the uncompressed
 *           output (texture.compress: false: RGBA8, R8 or RGBA16F); the
 *           block output also on N threads (write_ktx2 compresses levels
 *           in parallel).
 * Every stage reports its fastest run (min), the CPU cost with the least
 * interference from the rest of a busy machine, and the goal ratio
 * (mips + Zstd) / decode for both outputs, with mips on 1 thread, and for
 * the block output with mips and Zstd on N threads. A second
 * table gives Zstd at levels -1, 1, 2 and 3 (time and bytes) for both outputs.
 * --mips times decode and mips only (no block encoding, quick); --cutoff C
 * treats colour images as a MASK material's, alpha-test coverage at C kept
 * in every level. --cpu reports each stage's CPU time (this process's, every
 * thread: the fastest run) instead of its wall time: on a busy machine the
 * 1-thread columns stay comparable between runs; the N-thread columns then
 * sum the threads' time. The decode's CPU time is the child's, not counted,
 * unless KILN_ISOLATE=0. --dump DIR writes each image's block levels, as Zstd
 * gets them, to DIR/NAME.levelI (the input of bench_zstd_params).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "cook/drivers/drivers.h"
#include "cook/encode/encode.h"

/* One image, decoded once, with the stage inputs cook_texture would have. */
typedef struct stage_job {
    const char *path;
    uint8_t *file;
    size_t file_size;
    ir_decoded_image image;
    cook_texture_usage usage;
    mip_options options;
    bool float_levels; /* HDR: float levels, RGBA16F / BC6H */
    mip_chain chain;   /* built once for the later stages */
    /* The two outputs: uncompressed levels and block-compressed levels. */
    uint32_t raw_format, block_vk_format;
    uint8_t *raw[MIP_MAX_LEVELS], *block[MIP_MAX_LEVELS];
    size_t raw_size[MIP_MAX_LEVELS], block_size[MIP_MAX_LEVELS];
    /* op_zstd's input and result. */
    bool zstd_block;
    int zstd_level;
    unsigned zstd_threads; /* write_ktx2 compresses levels on this many threads */
    size_t ktx2_bytes;
} stage_job;

/* --cpu: stages report CPU time rather than wall time. */
static bool report_cpu;

static double fastest(bench_stats s) {
    return report_cpu ? s.cpu_min : s.min;
}

static void op_decode(void *arg) {
    stage_job *job = arg;
    ir_decoded_image image;
    char reason[256];
    if (!image_decode(job->file, job->file_size, job->path, NULL, &image, reason, sizeof reason))
        bench_die("%s: %s", job->path, reason);
    ir_decoded_image_free(&image);
}

static bool stage_mips(stage_job *job, mip_chain *chain) {
    if (!job->float_levels)
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

static void op_half(void *arg) {
    stage_job *job = arg;
    for (uint32_t i = 0; i < job->chain.count; i++) {
        size_t size;
        uint8_t *bytes =
            encode_level(job->chain.levels[i], (size_t)job->chain.width[i] * job->chain.height[i],
                         KTX2_VK_FORMAT_R16G16B16A16_SFLOAT, &size);
        if (bytes == NULL)
            bench_die("encode failed");
        free(bytes);
    }
}

static void op_zstd(void *arg) {
    stage_job *job = arg;
    ktx2_image_desc desc = {.vk_format = job->zstd_block ? job->block_vk_format : job->raw_format,
                            .width = job->chain.width[0],
                            .height = job->chain.height[0],
                            .faces = 1,
                            .levels = job->chain.count,
                            .supercompression = KTX2_SUPERCOMPRESSION_ZSTD,
                            .zstd_level = job->zstd_level,
                            .threads = job->zstd_threads,
                            .level_data =
                                (const uint8_t *const *)(job->zstd_block ? job->block : job->raw),
                            .level_size = job->zstd_block ? job->block_size : job->raw_size};
    bytebuf out = {0};
    char reason[256];
    if (!write_ktx2(&desc, &out, reason, sizeof reason))
        bench_die("%s", reason);
    job->ktx2_bytes = out.size;
    bytebuf_free(&out);
}

/* Decodes the image, builds its chain and (with `outputs`) both outputs,
 * untimed. */
static void stage_setup(stage_job *job, bool outputs, float cutoff) {
    char reason[256];
    if (!cook_read_file(job->path, (size_t)1 << 30, &job->file, &job->file_size, reason,
                        sizeof reason) ||
        !image_decode(job->file, job->file_size, job->path, NULL, &job->image, reason,
                      sizeof reason))
        bench_die("%s: %s", job->path, reason);
    cook_texture_usage u = job->usage = cook_texture_usage_for_path(job->path);
    job->float_levels = u == COOK_TEXTURE_HDR;
    cook_settings settings;
    cook_settings_default(&settings);
    job->options = (mip_options){
        .mode = u == COOK_TEXTURE_COLOR    ? MIP_MODE_COLOR_SRGB
                : u == COOK_TEXTURE_NORMAL ? MIP_MODE_NORMAL
                                           : MIP_MODE_LINEAR,
        .alpha_weighted = u == COOK_TEXTURE_COLOR || u == COOK_TEXTURE_HDR,
        .alpha_cutoff = u == COOK_TEXTURE_COLOR ? cutoff : 0.0f,
        .max_size = settings.texture_max_size,
        .mipmaps = settings.texture_mipmaps,
        .skip_level0 = !job->float_levels,
        .levels8 = !job->float_levels,
        .threads = 2,
    };
    if (!stage_mips(job, &job->chain))
        bench_die("%s: mips failed", job->path);
    job->raw_format = u == COOK_TEXTURE_HDR      ? KTX2_VK_FORMAT_R16G16B16A16_SFLOAT
                      : u == COOK_TEXTURE_SINGLE ? KTX2_VK_FORMAT_R8_UNORM
                      : u == COOK_TEXTURE_COLOR  ? KTX2_VK_FORMAT_R8G8B8A8_SRGB
                                                 : KTX2_VK_FORMAT_R8G8B8A8_UNORM;
    block_format bf = u == COOK_TEXTURE_HDR      ? BLOCK_FORMAT_BC6H
                      : u == COOK_TEXTURE_NORMAL ? BLOCK_FORMAT_BC5
                      : u == COOK_TEXTURE_SINGLE ? BLOCK_FORMAT_BC4
                                                 : BLOCK_FORMAT_BC7;
    job->block_vk_format = ktx2_vk_format_of_block((ktx2_block)bf, 4, u == COOK_TEXTURE_COLOR);
    for (uint32_t i = 0; outputs && i < job->chain.count; i++) {
        size_t texels = (size_t)job->chain.width[i] * job->chain.height[i];
        const uint8_t *rgba8 =
            i == 0 && !job->float_levels ? job->image.rgba8 : job->chain.levels8[i];
        if (job->float_levels) {
            job->raw[i] =
                encode_level(job->chain.levels[i], texels, job->raw_format, &job->raw_size[i]);
        } else {
            bool single = job->raw_format == KTX2_VK_FORMAT_R8_UNORM;
            job->raw_size[i] = texels * (single ? 1 : 4);
            if ((job->raw[i] = malloc(job->raw_size[i])) != NULL)
                for (size_t t = 0; t < job->raw_size[i]; t++)
                    job->raw[i][t] = rgba8[single ? t * 4 : t];
        }
        block_image_desc desc = {.format = bf,
                                 .quality = BLOCK_QUALITY_NORMAL,
                                 .width = job->chain.width[i],
                                 .height = job->chain.height[i],
                                 .srgb = u == COOK_TEXTURE_COLOR,
                                 .threads = 2};
        if (job->float_levels)
            desc.rgbaf = job->chain.levels[i];
        else
            desc.rgba8 = rgba8;
        job->block_size[i] = block_image_size(&desc);
        job->block[i] = malloc(job->block_size[i]);
        if (job->raw[i] == NULL || job->block[i] == NULL ||
            !block_encode_image(&desc, job->block[i], reason, sizeof reason))
            bench_die("%s: level %u: %s", job->path, i, job->block[i] ? reason : "out of memory");
    }
}

static void stage_free(stage_job *job) {
    for (uint32_t i = 0; i < MIP_MAX_LEVELS; i++) {
        free(job->raw[i]);
        free(job->block[i]);
    }
    mip_chain_free(&job->chain);
    ir_decoded_image_free(&job->image);
    free(job->file);
}

static double time_zstd(stage_job *job, bool block, int level, unsigned threads, size_t *bytes) {
    job->zstd_threads = threads;
    job->zstd_block = block;
    job->zstd_level = level;
    bench_stats s = bench_measure(op_zstd, job, 20, 2.0);
    *bytes = job->ktx2_bytes;
    return fastest(s);
}

static const char *base_name(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* --dump: the block levels, one file each. */
static void dump_levels(const stage_job *job, const char *dir) {
    for (uint32_t i = 0; i < job->chain.count; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s.level%u", dir, base_name(job->path), i);
        FILE *f = fopen(path, "wb");
        if (f == NULL || fwrite(job->block[i], 1, job->block_size[i], f) != job->block_size[i] ||
            fclose(f) != 0)
            bench_die("%s: cannot write", path);
    }
}

int main(int argc, char **argv) {
    int first = 1;
    unsigned threads = 2;
    bool mips_only = false;
    float cutoff = 0.0f;
    const char *dump_dir = NULL;
    for (; first < argc && strncmp(argv[first], "--", 2) == 0; first++) {
        if (strcmp(argv[first], "--threads") == 0 && first + 1 < argc)
            threads = (unsigned)atoi(argv[++first]);
        else if (strcmp(argv[first], "--mips") == 0)
            mips_only = true;
        else if (strcmp(argv[first], "--cpu") == 0)
            report_cpu = true;
        else if (strcmp(argv[first], "--cutoff") == 0 && first + 1 < argc)
            cutoff = strtof(argv[++first], NULL);
        else if (strcmp(argv[first], "--dump") == 0 && first + 1 < argc)
            dump_dir = argv[++first];
        else
            threads = 0;
    }
    if (first >= argc || threads == 0) {
        fprintf(stderr,
                "usage: bench_texture [--threads N] [--mips] [--cpu] [--cutoff C] [--dump DIR] "
                "IMAGE...\n");
        return 2;
    }
    int count = argc - first;
    stage_job *jobs = calloc((size_t)count, sizeof *jobs);
    if (jobs == NULL)
        bench_die("out of memory");
    if (mips_only) {
        printf("| image | size | decode | mips, 1 thread | mips, %u threads |\n", threads);
        printf("|---|---|---:|---:|---:|\n");
    } else {
        printf("| image | size | decode | mips, 1 thread | mips, %u threads | half | Zstd, block "
               "| Zstd, block, %u threads | Zstd, uncompressed | (mips + Zstd) / decode, block | "
               "block, %u threads | uncompressed |\n",
               threads, threads, threads);
        printf("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    }
    for (int i = 0; i < count; i++) {
        stage_job *job = &jobs[i];
        job->path = argv[first + i];
        stage_setup(job, !mips_only, cutoff);
        if (dump_dir != NULL && !mips_only)
            dump_levels(job, dump_dir);
        double decode = fastest(bench_measure(op_decode, job, 20, 2.0));
        job->options.threads = 1;
        double mips1 = fastest(bench_measure(op_mips, job, 20, 2.0));
        job->options.threads = threads;
        double mipsn = fastest(bench_measure(op_mips, job, 20, 2.0));
        if (mips_only) {
            char d[32], m1[32], mn[32];
            bench_format_duration(decode, d, sizeof d);
            bench_format_duration(mips1, m1, sizeof m1);
            bench_format_duration(mipsn, mn, sizeof mn);
            printf("| %s | %ux%u | %s | %s | %s |\n", base_name(job->path), job->image.width,
                   job->image.height, d, m1, mn);
            stage_free(job);
            continue;
        }
        double half = job->float_levels ? fastest(bench_measure(op_half, job, 20, 1.0)) : 0.0;
        size_t bytes;
        double zb = time_zstd(job, true, 2, 1, &bytes);
        double zbn = time_zstd(job, true, 2, threads, &bytes);
        double zr = time_zstd(job, false, 2, 1, &bytes);
        char d[32], m1[32], mn[32], h[32], b[32], bn[32], r[32];
        bench_format_duration(decode, d, sizeof d);
        bench_format_duration(mips1, m1, sizeof m1);
        bench_format_duration(mipsn, mn, sizeof mn);
        bench_format_duration(half, h, sizeof h);
        bench_format_duration(zb, b, sizeof b);
        bench_format_duration(zbn, bn, sizeof bn);
        bench_format_duration(zr, r, sizeof r);
        printf("| %s | %ux%u | %s | %s | %s | %s | %s | %s | %s | %.2fx | %.2fx | %.2fx |\n",
               base_name(job->path), job->image.width, job->image.height, d, m1, mn,
               job->float_levels ? h : "—", b, bn, r, (mips1 + zb) / decode, (mipsn + zbn) / decode,
               (mips1 + half + zr) / decode);
        fflush(stdout);
    }
    if (mips_only) {
        free(jobs);
        return 0;
    }
    static const int levels[] = {-1, 1, 2, 3};
    printf("\n| image | source bytes | block: Zstd -1 | Zstd 1 | Zstd 2 (default) | Zstd 3 | "
           "uncompressed: Zstd -1 | Zstd 1 | Zstd 2 (default) | Zstd 3 |\n");
    printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int i = 0; i < count; i++) {
        stage_job *job = &jobs[i];
        char sb[32];
        bench_format_bytes(job->file_size, sb, sizeof sb);
        printf("| %s | %s |", base_name(job->path), sb);
        for (int block = 1; block >= 0; block--)
            for (int l = 0; l < 4; l++) {
                size_t bytes;
                double t = time_zstd(job, block, levels[l], 1, &bytes);
                char z[32], kb[32];
                bench_format_duration(t, z, sizeof z);
                bench_format_bytes(bytes, kb, sizeof kb);
                printf(" %s, %s |", z, kb);
            }
        printf("\n");
        fflush(stdout);
        stage_free(job);
    }
    free(jobs);
    return 0;
}
