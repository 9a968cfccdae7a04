/*
 * texture_internal.h — the texture stages behind cook_texture (cook.h):
 * import/image.c (decode), process/mips.c (resize, mip chain) and
 * write/ktx2.c (KTX 2.0 serialisation). Not part of the public API; the tests
 * use it directly.
 */
#ifndef KILN_COOK_TEXTURE_INTERNAL_H
#define KILN_COOK_TEXTURE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cook/cook.h"

/* ---------------------------------------------------------------------------
 * import/image.c — decode PNG, JPEG, TGA, BMP, Radiance HDR
 * ------------------------------------------------------------------------- */

#define IMAGE_DEFAULT_MAX_DIMENSION 16384u
/* Decoded pixels an image may have (decompression-bomb guard): 64 Mi pixels,
 * 256 MiB as RGBA8, 1 GiB as the float working copy the mip stage uses. */
#define IMAGE_DEFAULT_MAX_PIXELS ((uint64_t)64 << 20)

typedef struct image_limits {
    uint32_t max_dimension; /* largest width or height */
    uint64_t max_pixels;    /* width * height */
} image_limits;

/* A decoded image, always four channels (RGBA), rows top to bottom. Exactly
 * one of rgba8 / rgbaf is set: rgbaf for Radiance HDR (linear floats),
 * rgba8 for everything else (16-bit sources are rounded to 8 bits). */
typedef struct cook_image {
    uint32_t width;
    uint32_t height;
    uint8_t *rgba8;
    float *rgbaf;
    uint32_t source_channels; /* 1 grey, 2 grey+alpha, 3 RGB, 4 RGBA */
    uint32_t source_bits;     /* bits per channel in the file: 1..16, 32 for HDR */
    const char *format;       /* "png", "jpeg", "tga", "bmp", "hdr" */
} cook_image;

/* Decodes an encoded image file. On failure returns false with a reason
 * (without the file name) in `reason`. `limits` may be NULL for defaults. */
bool image_decode(const uint8_t *bytes, size_t size, const char *name_hint,
                  const image_limits *limits, cook_image *out, char *reason, size_t reason_size);
void cook_image_free(cook_image *image);

/* Parses an Adobe/Resolve .cube 3D LUT: *size_out entries per axis, RGB
 * floats (r fastest) in *rgb (caller frees). */
bool image_parse_cube_lut(const char *text, size_t size, uint32_t *size_out, float **rgb,
                          char *reason, size_t reason_size);

/* ---------------------------------------------------------------------------
 * process/mips.c — resize and mip chains on float RGBA
 * ------------------------------------------------------------------------- */

float image_srgb_to_linear(float value);
float image_linear_to_srgb(float value);
/* image_linear_to_srgb then rounded to 8 bits (0..255, clamped), exactly as
 * lrintf(255 * image_linear_to_srgb(v)) would give, without powf. */
uint8_t image_linear_to_srgb8(float value);
/* k / 255.0f from a table. */
float image_unorm8_to_float(uint8_t value);
/* A 0..1 float to 8 bits: lrintf(255 v), clamped (NaN gives 0). */
uint8_t image_float_to_unorm8(float value);

/* Area (box with exact fractional coverage) resampling of float RGBA from
 * sw x sh to dw x dh, separable. dst holds dw * dh * 4 floats. */
bool image_resample_area(const float *src, uint32_t sw, uint32_t sh, float *dst, uint32_t dw,
                         uint32_t dh);

typedef enum mip_mode {
    MIP_MODE_COLOR_SRGB = 1, /* stored values sRGB-encoded, alpha linear */
    MIP_MODE_LINEAR,         /* stored values are linear data */
    MIP_MODE_NORMAL,         /* xyz = 2v - 1, renormalised per level */
} mip_mode;

#define MIP_MAX_LEVELS 16u

typedef struct mip_options {
    mip_mode mode;
    bool alpha_weighted; /* premultiply for filtering (colour does not bleed) */
    float alpha_cutoff;  /* > 0: preserve alpha-test coverage at this cutoff */
    uint32_t max_size;   /* 0: no limit; else level 0 fits in max_size² */
    bool mipmaps;        /* false: level 0 only */
    bool skip_level0;    /* leave level 0 NULL when it needs no downscale */
    bool levels8;        /* RGBA8 levels (levels8) instead of float levels */
    unsigned threads;    /* rows of a level run on this many threads (0, 1: this one) */
} mip_options;

/* Levels in the stored encoding (sRGB-encoded for COLOR_SRGB, 0..1 for
 * normals, raw for linear data), level 0 first: float RGBA in `levels`, or
 * with options.levels8 RGBA8 in `levels8`, each byte image_float_to_unorm8
 * of the float level (the same chain quantised, without the float levels).
 * Filtered COLOR_SRGB float levels hold their colour on the 8-bit grid
 * (k / 255): the sRGB encode is a table step function, exact after rounding
 * to 8 bits. The bytes do not depend on options.threads. */
typedef struct mip_chain {
    uint32_t count;
    uint32_t width[MIP_MAX_LEVELS];
    uint32_t height[MIP_MAX_LEVELS];
    float *levels[MIP_MAX_LEVELS];
    uint8_t *levels8[MIP_MAX_LEVELS];
} mip_chain;

/* Number of levels of a full chain for w x h (floor halving down to 1x1). */
uint32_t mip_level_count(uint32_t width, uint32_t height);

/* Builds the chain from `base` (w x h float RGBA in the stored encoding).
 * Level 0 equals `base` exactly unless it had to be downscaled. */
bool mip_build(const float *base, uint32_t width, uint32_t height, const mip_options *options,
               mip_chain *out);
/* mip_build of an 8-bit RGBA level 0 (the same chain as mip_build of its
 * k / 255 floats, which colour usages' stored encoding is), without a float
 * copy of level 0 when its sides are even. */
bool mip_build_rgba8(const uint8_t *rgba8, uint32_t width, uint32_t height,
                     const mip_options *options, mip_chain *out);
void mip_chain_free(mip_chain *chain);

/* Fraction of texels whose alpha (channel 3) is above `cutoff`. */
float mip_alpha_coverage(const float *rgba, size_t pixel_count, float cutoff);

/* ---------------------------------------------------------------------------
 * write/ktx2.c — KTX 2.0 (docs/formats/ktx2.md)
 * ------------------------------------------------------------------------- */

/* vkFormat values kiln writes (Vulkan's VkFormat numbers). */
#define KTX2_VK_FORMAT_R8_UNORM 9u
#define KTX2_VK_FORMAT_R8G8_UNORM 16u
#define KTX2_VK_FORMAT_R8G8B8A8_UNORM 37u
#define KTX2_VK_FORMAT_R8G8B8A8_SRGB 43u
#define KTX2_VK_FORMAT_R16G16B16A16_SFLOAT 97u
#define KTX2_VK_FORMAT_BC1_RGB_UNORM 131u
#define KTX2_VK_FORMAT_BC1_RGB_SRGB 132u
#define KTX2_VK_FORMAT_BC1_RGBA_UNORM 133u
#define KTX2_VK_FORMAT_BC1_RGBA_SRGB 134u
#define KTX2_VK_FORMAT_BC3_UNORM 137u
#define KTX2_VK_FORMAT_BC3_SRGB 138u
#define KTX2_VK_FORMAT_BC4_UNORM 139u
#define KTX2_VK_FORMAT_BC5_UNORM 141u
#define KTX2_VK_FORMAT_BC6H_UFLOAT 143u
#define KTX2_VK_FORMAT_BC7_UNORM 145u
#define KTX2_VK_FORMAT_BC7_SRGB 146u
#define KTX2_VK_FORMAT_ASTC_4x4_UNORM 157u
#define KTX2_VK_FORMAT_ASTC_4x4_SRGB 158u
#define KTX2_VK_FORMAT_ASTC_5x5_UNORM 161u
#define KTX2_VK_FORMAT_ASTC_5x5_SRGB 162u
#define KTX2_VK_FORMAT_ASTC_6x6_UNORM 165u
#define KTX2_VK_FORMAT_ASTC_6x6_SRGB 166u
#define KTX2_VK_FORMAT_ASTC_8x8_UNORM 171u
#define KTX2_VK_FORMAT_ASTC_8x8_SRGB 172u
#define KTX2_VK_FORMAT_ASTC_4x4_SFLOAT 1000066000u /* VK_EXT_texture_compression_astc_hdr */
#define KTX2_VK_FORMAT_ASTC_5x5_SFLOAT 1000066002u
#define KTX2_VK_FORMAT_ASTC_6x6_SFLOAT 1000066004u
#define KTX2_VK_FORMAT_ASTC_8x8_SFLOAT 1000066007u

#define KTX2_SUPERCOMPRESSION_NONE 0u
#define KTX2_SUPERCOMPRESSION_ZSTD 2u

/* What the writer knows about a vkFormat: enough for the header and DFD. */
typedef struct ktx2_format_info {
    uint32_t vk_format;
    const char *name;
    uint32_t type_size;                /* header typeSize */
    uint32_t block_bytes;              /* bytes per texel (block) */
    uint8_t block_width, block_height; /* 1 for uncompressed formats */
    bool srgb;
    /* Block-compressed formats: the DFD colour model (KHR_DF_MODEL_BC1A...
     * ASTC; 0 for uncompressed RGBSDA), its samples' channel ids and bit
     * offsets (each sample spans 64 bits in 8-byte blocks, else 128), and
     * whether the samples are floats (BC6H, ASTC HDR). */
    uint8_t dfd_model;
    uint8_t sample_count;
    uint8_t sample_channel[2];
    uint8_t sample_offset[2];
    bool is_float;
} ktx2_format_info;

const ktx2_format_info *ktx2_format_find(uint32_t vk_format);

typedef struct ktx2_image_desc {
    uint32_t vk_format;
    uint32_t width, height, depth; /* depth 0 for 1D/2D textures */
    uint32_t layers;               /* 0 when not an array */
    uint32_t faces;                /* 1, or 6 for a cubemap */
    uint32_t levels;               /* >= 1 */
    uint32_t supercompression;     /* NONE or ZSTD */
    int zstd_level;
    unsigned threads; /* levels are Zstd-compressed on up to this many threads */
    /* Level i's texels (all layers, faces and slices, in that order),
     * level 0 first, each exactly the size its dimensions give. */
    const uint8_t *const *level_data;
    const size_t *level_size;
    /* Written as key "kilnSource" when not NULL: the source the texels came
     * from (a path relative to the input root, or e.g. "scene.glb image 3"),
     * which `kiln info --quality` compares level 0 against. */
    const char *source;
} ktx2_image_desc;

/* Bytes one level of the image takes uncompressed (0 on overflow). */
uint64_t ktx2_level_byte_size(const ktx2_format_info *format, uint32_t width, uint32_t height,
                              uint32_t depth, uint32_t layers, uint32_t faces, uint32_t level);

/* Serialises a whole KTX2 file into `out`. */
bool write_ktx2(const ktx2_image_desc *desc, bytebuf *out, char *reason, size_t reason_size);

/* ---------------------------------------------------------------------------
 * texture.c: the texture image set path (texture_cubemap.c uses it too)
 * ------------------------------------------------------------------------- */

/* The decode limits the settings ask for (texture.max_dimension). */
image_limits texture_image_limits(const cook_settings *settings);

/* A texture image set: the images one KTX2 file holds, cooked through one
 * path (cook_texture_set). One image for a 2D texture, six for a cubemap's
 * faces in KTX2 order +X -X +Y -Y +Z -Z, all the same size and all HDR or
 * all LDR (the caller checks). */
typedef struct texture_set {
    const char *name;   /* for messages: a path, or "scene.glb image 3" */
    const char *source; /* the KTX2 kilnSource key; NULL for none */
    cook_texture_usage usage;
    float alpha_cutoff; /* COLOR: > 0 keeps alpha-test coverage in every mip */
    cook_image *images;
    uint32_t count; /* 1 or 6 (faces) */
} texture_set;

/* Chooses one format for all images (texture.format/target/quality/compress:
 * opacity over all of them), builds each image's mip chain, encodes every
 * level of every image (block or uncompressed) and writes one KTX2 to
 * output_root/out_path (atomically, verified when `verify`), recording the
 * output and its manifest entry (`ref`, the format's colour space). Takes
 * the images' pixels (freed as each image is done; cook_image_free on them
 * stays safe). On failure reports to ctx->diag naming set->name. */
bool cook_texture_set(cook_context *ctx, const char *output_root, texture_set *set, const char *ref,
                      const char *out_path, bool verify, cook_asset_result *result);

/* Float RGBA in the stored encoding of `usage` (sRGB-encoded for COLOR,
 * clamped to 0..1 unless HDR) from a decoded image; NULL when out of memory. */
float *image_to_float(const cook_image *image, cook_texture_usage usage);
/* Quantises `count` float RGBA texels into vk_format's bytes (R8, RGBA8 or
 * RGBA16F); *size receives the byte count. NULL when out of memory. */
uint8_t *encode_level(const float *rgba, size_t count, uint32_t vk_format, size_t *size);
/* --verify: reads full_path back, compares it with `expected` and inflates
 * every level through the runtime reader; reports to diag naming `name`. */
bool verify_ktx2(const char *full_path, const char *name, const bytebuf *expected, cook_diag *diag);

#endif /* KILN_COOK_TEXTURE_INTERNAL_H */
