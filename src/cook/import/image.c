/*
 * image.c — decode encoded image files into RGBA (import stage of textures).
 *
 * PNG through libspng, JPEG through libjpeg-turbo, TGA and BMP through
 * stb_image (restricted to those two formats), Radiance HDR by kiln's own
 * reader below (stb's loops forever on some truncated RLE scanlines). Every decoder is
 * asked for the image's dimensions first; they are checked against the limits
 * (largest side, total pixels: the decompression-bomb guard) with overflow-safe
 * arithmetic before anything is allocated. Corrupt data is an error returned
 * to the caller, never an exit() or abort().
 *
 * This is the in-process decoder; image_decode (isolate_decode.c) runs it in
 * a reused child process when a third-party library decodes the file.
 */
#include <limits.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jerror.h>
#include <jpeglib.h>
#include <spng.h>

#include "common/checked.h"
#include "cook/import/import.h"

#define STBI_NO_STDIO
#define STBI_ONLY_TGA
#define STBI_ONLY_BMP
#define STBI_MAX_DIMENSIONS (1 << 24)
#define STB_IMAGE_IMPLEMENTATION
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wcast-align"
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wpedantic"
#pragma GCC diagnostic ignored "-Wimplicit-fallthrough"
#pragma GCC diagnostic ignored "-Wdouble-promotion"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#include <stb_image.h>
#pragma GCC diagnostic pop

#define IMAGE_MAX_FILE_BYTES ((size_t)1 << 30)

static bool fail(char *reason, size_t reason_size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static bool fail(char *reason, size_t reason_size, const char *fmt, ...) {
    if (reason != NULL && reason_size > 0) {
        va_list args;
        va_start(args, fmt);
        vsnprintf(reason, reason_size, fmt, args);
        va_end(args);
    }
    return false;
}

/* Dimension and pixel-budget checks; *bytes receives w * h * bytes_per_pixel. */
static bool check_dimensions(uint64_t width, uint64_t height, const image_limits *limits,
                             size_t bytes_per_pixel, size_t *bytes, char *reason,
                             size_t reason_size) {
    if (width == 0 || height == 0)
        return fail(reason, reason_size, "image has no pixels (%llux%llu)",
                    (unsigned long long)width, (unsigned long long)height);
    if (width > limits->max_dimension || height > limits->max_dimension)
        return fail(reason, reason_size,
                    "image is %llux%llu, larger than the limit of %u pixels per side",
                    (unsigned long long)width, (unsigned long long)height, limits->max_dimension);
    uint64_t pixels;
    if (!checked_mul_u64(width, height, &pixels) || pixels > limits->max_pixels)
        return fail(reason, reason_size,
                    "image is %llux%llu: more than %llu pixels would be decoded "
                    "(decompression bomb guard)",
                    (unsigned long long)width, (unsigned long long)height,
                    (unsigned long long)limits->max_pixels);
    if (pixels > SIZE_MAX || !checked_mul_size((size_t)pixels, bytes_per_pixel, bytes))
        return fail(reason, reason_size, "image size overflows");
    return true;
}

/* ---- PNG (libspng) -------------------------------------------------------- */

static bool decode_png(const uint8_t *bytes, size_t size, const image_limits *limits,
                       ir_decoded_image *out, char *reason, size_t reason_size) {
    spng_ctx *ctx = spng_ctx_new(0);
    if (ctx == NULL)
        return fail(reason, reason_size, "out of memory");
    bool ok = false;
    uint8_t *pixels = NULL;
    struct spng_ihdr ihdr;
    size_t needed = 0, decoded = 0;
    int rc = spng_set_png_buffer(ctx, bytes, size);
    if (rc == 0)
        rc = spng_set_image_limits(ctx, limits->max_dimension, limits->max_dimension);
    if (rc == 0)
        rc = spng_set_chunk_limits(ctx, (size_t)64 << 20, (size_t)64 << 20);
    if (rc == 0)
        rc = spng_get_ihdr(ctx, &ihdr);
    if (rc != 0) {
        fail(reason, reason_size, "PNG: %s", spng_strerror(rc));
        goto done;
    }
    if (!check_dimensions(ihdr.width, ihdr.height, limits, 4, &needed, reason, reason_size))
        goto done;
    rc = spng_decoded_image_size(ctx, SPNG_FMT_RGBA8, &decoded);
    if (rc != 0 || decoded != needed) {
        fail(reason, reason_size, "PNG: %s", rc ? spng_strerror(rc) : "unexpected size");
        goto done;
    }
    pixels = malloc(needed);
    if (pixels == NULL) {
        fail(reason, reason_size, "out of memory for %zu bytes of pixels", needed);
        goto done;
    }
    rc = spng_decode_image(ctx, pixels, needed, SPNG_FMT_RGBA8, SPNG_DECODE_TRNS);
    if (rc != 0) {
        fail(reason, reason_size, "PNG: %s", spng_strerror(rc));
        goto done;
    }
    out->width = ihdr.width;
    out->height = ihdr.height;
    out->rgba8 = pixels;
    pixels = NULL;
    out->source_bits = ihdr.bit_depth;
    switch (ihdr.color_type) {
    case SPNG_COLOR_TYPE_GRAYSCALE:
        out->source_channels = 1;
        break;
    case SPNG_COLOR_TYPE_GRAYSCALE_ALPHA:
        out->source_channels = 2;
        break;
    case SPNG_COLOR_TYPE_TRUECOLOR_ALPHA:
        out->source_channels = 4;
        break;
    default:
        out->source_channels = 3;
        break;
    }
    out->format = "png";
    ok = true;
done:
    free(pixels);
    spng_ctx_free(ctx);
    return ok;
}

/* ---- JPEG (libjpeg-turbo) ------------------------------------------------- */

typedef struct jpeg_failure {
    struct jpeg_error_mgr manager;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
    bool truncated;
} jpeg_failure;

static void jpeg_on_error(j_common_ptr cinfo) {
    jpeg_failure *failure = (jpeg_failure *)(void *)cinfo->err;
    failure->manager.format_message(cinfo, failure->message);
    longjmp(failure->jump, 1);
}

static void jpeg_on_message(j_common_ptr cinfo, int level) {
    /* Warnings are not printed. Recoverable oddities real encoders produce
     * (extraneous bytes before a marker …) are accepted as libjpeg accepts
     * them; a premature end of data (libjpeg pads with grey) is an error, via
     * the caller's check of `truncated`. */
    if (level < 0 && cinfo->err->msg_code == JWRN_JPEG_EOF) {
        jpeg_failure *failure = (jpeg_failure *)(void *)cinfo->err;
        failure->truncated = true;
    }
}

static bool decode_jpeg(const uint8_t *bytes, size_t size, const image_limits *limits,
                        ir_decoded_image *out, char *reason, size_t reason_size) {
    struct jpeg_decompress_struct cinfo;
    jpeg_failure failure;
    /* Both are read after a longjmp: keep them out of registers. */
    uint8_t *volatile pixels = NULL;
    volatile bool created = false;
    memset(&cinfo, 0, sizeof cinfo);
    cinfo.err = jpeg_std_error(&failure.manager);
    failure.manager.error_exit = jpeg_on_error;
    failure.manager.emit_message = jpeg_on_message;
    failure.message[0] = '\0';
    failure.truncated = false;
    if (setjmp(failure.jump) != 0) {
        fail(reason, reason_size, "JPEG: %s", failure.message);
        free(pixels);
        if (created)
            jpeg_destroy_decompress(&cinfo);
        return false;
    }
    jpeg_create_decompress(&cinfo);
    created = true;
    if (size > (size_t)ULONG_MAX) {
        jpeg_destroy_decompress(&cinfo);
        return fail(reason, reason_size, "JPEG: file too large");
    }
    jpeg_mem_src(&cinfo, bytes, (unsigned long)size);
    jpeg_read_header(&cinfo, TRUE);
    size_t needed = 0;
    if (!check_dimensions(cinfo.image_width, cinfo.image_height, limits, 4, &needed, reason,
                          reason_size)) {
        jpeg_destroy_decompress(&cinfo);
        return false;
    }
    bool cmyk = cinfo.jpeg_color_space == JCS_CMYK || cinfo.jpeg_color_space == JCS_YCCK;
    bool grey = cinfo.jpeg_color_space == JCS_GRAYSCALE;
    cinfo.out_color_space = cmyk ? JCS_CMYK : JCS_EXT_RGBA;
    cinfo.mem->max_memory_to_use = (long)((size_t)1 << 30);
    jpeg_start_decompress(&cinfo);
    if (cinfo.output_width != cinfo.image_width || cinfo.output_height != cinfo.image_height ||
        cinfo.output_components != 4) {
        jpeg_destroy_decompress(&cinfo);
        return fail(reason, reason_size, "JPEG: unexpected output layout");
    }
    pixels = malloc(needed);
    if (pixels == NULL) {
        jpeg_destroy_decompress(&cinfo);
        return fail(reason, reason_size, "out of memory for %zu bytes of pixels", needed);
    }
    size_t stride = (size_t)cinfo.output_width * 4;
    while (cinfo.output_scanline < cinfo.output_height) {
        JSAMPROW row = pixels + (size_t)cinfo.output_scanline * stride;
        if (jpeg_read_scanlines(&cinfo, &row, 1) != 1)
            break;
    }
    bool truncated = cinfo.output_scanline < cinfo.output_height || failure.truncated;
    if (truncated) {
        const char *message = "data ends early";
        jpeg_destroy_decompress(&cinfo);
        free(pixels);
        return fail(reason, reason_size, "JPEG: %s", message);
    }
    jpeg_finish_decompress(&cinfo);
    jpeg_destroy_decompress(&cinfo);
    if (cmyk) {
        /* Adobe writes inverted CMYK; convert to RGB with K applied. */
        size_t count = needed / 4;
        for (size_t i = 0; i < count; i++) {
            uint8_t *p = pixels + i * 4;
            unsigned k = p[3];
            p[0] = (uint8_t)((p[0] * k + 127) / 255);
            p[1] = (uint8_t)((p[1] * k + 127) / 255);
            p[2] = (uint8_t)((p[2] * k + 127) / 255);
            p[3] = 255;
        }
    }
    out->width = cinfo.image_width;
    out->height = cinfo.image_height;
    out->rgba8 = pixels;
    out->source_channels = grey ? 1 : 3;
    out->source_bits = 8;
    out->format = "jpeg";
    return true;
}

/* ---- TGA, BMP (stb_image) --------------------------------------------- */

static bool decode_stb(const uint8_t *bytes, size_t size, const char *format,
                       const image_limits *limits, ir_decoded_image *out, char *reason,
                       size_t reason_size) {
    if (size > (size_t)INT32_MAX)
        return fail(reason, reason_size, "%s: file too large", format);
    int width = 0, height = 0, channels = 0;
    if (!stbi_info_from_memory(bytes, (int)size, &width, &height, &channels))
        return fail(reason, reason_size, "%s: %s", format, stbi_failure_reason());
    /* stbi_info reports a top-down BMP's height as negative (the loader flips
     * it and returns the magnitude): compare sizes by magnitude. */
    int64_t info_width = width < 0 ? -(int64_t)width : width;
    int64_t info_height = height < 0 ? -(int64_t)height : height;
    size_t needed = 0;
    if (!check_dimensions((uint64_t)info_width, (uint64_t)info_height, limits, 4, &needed, reason,
                          reason_size))
        return false;
    int w = 0, h = 0, c = 0;
    uint8_t *pixels = stbi_load_from_memory(bytes, (int)size, &w, &h, &c, 4);
    if (pixels == NULL)
        return fail(reason, reason_size, "%s: %s", format, stbi_failure_reason());
    out->rgba8 = pixels;
    out->source_bits = 8;
    if (w != info_width || h != info_height) {
        ir_decoded_image_free(out);
        return fail(reason, reason_size, "%s: inconsistent dimensions", format);
    }
    out->width = (uint32_t)w;
    out->height = (uint32_t)h;
    out->source_channels = (uint32_t)c;
    out->format = format;
    return true;
}

/* ---- Radiance HDR (RGBE, flat or new-style run-length scanlines) ---------- */

typedef struct hdr_cursor {
    const uint8_t *p, *end;
} hdr_cursor;

static bool hdr_line(hdr_cursor *c, char *line, size_t size) {
    size_t n = 0;
    while (c->p < c->end && *c->p != '\n') {
        if (n + 1 >= size)
            return false;
        line[n++] = (char)*c->p++;
    }
    if (c->p >= c->end)
        return false;
    c->p++;
    line[n] = '\0';
    return true;
}

static void rgbe_to_float(const uint8_t rgbe[4], float *out) {
    if (rgbe[3] == 0) {
        out[0] = out[1] = out[2] = 0.0f;
    } else {
        float f = ldexpf(1.0f, (int)rgbe[3] - (128 + 8));
        out[0] = rgbe[0] * f;
        out[1] = rgbe[1] * f;
        out[2] = rgbe[2] * f;
    }
    out[3] = 1.0f;
}

static bool decode_hdr(const uint8_t *bytes, size_t size, const image_limits *limits,
                       ir_decoded_image *out, char *reason, size_t reason_size) {
    hdr_cursor c = {bytes, bytes + size};
    char line[512];
    bool format_ok = true;
    for (;;) {
        if (!hdr_line(&c, line, sizeof line))
            return fail(reason, reason_size, "HDR: header truncated or malformed");
        if (line[0] == '\0')
            break;
        if (strncmp(line, "FORMAT=", 7) == 0)
            format_ok = strcmp(line + 7, "32-bit_rle_rgbe") == 0;
    }
    if (!format_ok)
        return fail(reason, reason_size, "HDR: only FORMAT=32-bit_rle_rgbe is supported");
    if (!hdr_line(&c, line, sizeof line))
        return fail(reason, reason_size, "HDR: resolution line missing");
    unsigned long h = 0, w = 0;
    char tail;
    if (sscanf(line, "-Y %lu +X %lu%c", &h, &w, &tail) != 2)
        return fail(reason, reason_size, "HDR: unsupported resolution line (only \"-Y h +X w\")");
    size_t needed;
    if (!check_dimensions(w, h, limits, 16, &needed, reason, reason_size))
        return false;
    float *pixels = malloc(needed);
    uint8_t *scan = malloc((size_t)w * 4);
    if (pixels == NULL || scan == NULL) {
        free(pixels);
        free(scan);
        return fail(reason, reason_size, "out of memory for %zu bytes of pixels", needed);
    }
    for (unsigned long y = 0; y < h; y++) {
        size_t left = (size_t)(c.end - c.p);
        bool rle = w >= 8 && w < 0x8000 && left >= 4 && c.p[0] == 2 && c.p[1] == 2 &&
                   !(c.p[2] & 0x80) && (((unsigned long)c.p[2] << 8) | c.p[3]) == w;
        if (rle) {
            c.p += 4;
            for (int channel = 0; channel < 4; channel++) {
                unsigned long x = 0;
                while (x < w) {
                    if (c.p >= c.end)
                        goto truncated;
                    unsigned count = *c.p++;
                    if (count > 128) {
                        count -= 128;
                        if (count > w - x || c.p >= c.end)
                            goto corrupt;
                        uint8_t value = *c.p++;
                        for (unsigned k = 0; k < count; k++)
                            scan[(x++) * 4 + (unsigned long)channel] = value;
                    } else {
                        if (count == 0 || count > w - x)
                            goto corrupt;
                        if ((size_t)(c.end - c.p) < count)
                            goto truncated;
                        for (unsigned k = 0; k < count; k++)
                            scan[(x++) * 4 + (unsigned long)channel] = *c.p++;
                    }
                }
            }
        } else {
            if (left / 4 < w)
                goto truncated;
            memcpy(scan, c.p, (size_t)w * 4);
            c.p += (size_t)w * 4;
        }
        for (unsigned long x = 0; x < w; x++)
            rgbe_to_float(scan + x * 4, pixels + ((size_t)y * w + x) * 4);
    }
    free(scan);
    out->width = (uint32_t)w;
    out->height = (uint32_t)h;
    out->rgbaf = pixels;
    out->source_channels = 3;
    out->source_bits = 32;
    out->format = "hdr";
    return true;
truncated:
    free(scan);
    free(pixels);
    return fail(reason, reason_size, "HDR: pixel data ends early");
corrupt:
    free(scan);
    free(pixels);
    return fail(reason, reason_size, "HDR: corrupt run-length data");
}

static const uint8_t png_signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

static bool is_png(const uint8_t *bytes, size_t size) {
    return size >= 8 && memcmp(bytes, png_signature, 8) == 0;
}

static bool is_jpeg(const uint8_t *bytes, size_t size) {
    return size >= 3 && bytes[0] == 0xFF && bytes[1] == 0xD8 && bytes[2] == 0xFF;
}

static bool is_bmp(const uint8_t *bytes, size_t size) {
    return size >= 2 && bytes[0] == 'B' && bytes[1] == 'M';
}

static bool is_hdr(const uint8_t *bytes, size_t size) {
    return (size >= 10 && memcmp(bytes, "#?RADIANCE", 10) == 0) ||
           (size >= 6 && memcmp(bytes, "#?RGBE", 6) == 0);
}

const char *image_decoder_library(const uint8_t *bytes, size_t size, const char *name_hint) {
    if (bytes == NULL || size == 0 || size > IMAGE_MAX_FILE_BYTES)
        return NULL;
    if (is_png(bytes, size))
        return "libspng";
    if (is_jpeg(bytes, size))
        return "libjpeg";
    if (is_hdr(bytes, size))
        return NULL; /* kiln's own reader */
    if (is_bmp(bytes, size) || ascii_ends_with_ci(name_hint, ".tga"))
        return "stb_image";
    return NULL;
}

bool image_decode_in_process(const uint8_t *bytes, size_t size, const char *name_hint,
                             const image_limits *limits, ir_decoded_image *out, char *reason,
                             size_t reason_size) {
    memset(out, 0, sizeof *out);
    image_limits defaults = {IMAGE_DEFAULT_MAX_DIMENSION, IMAGE_DEFAULT_MAX_PIXELS, 0.0};
    if (limits == NULL)
        limits = &defaults;
    if (bytes == NULL || size == 0)
        return fail(reason, reason_size, "empty image file");
    if (size > IMAGE_MAX_FILE_BYTES)
        return fail(reason, reason_size, "image file too large (%zu bytes)", size);
    if (is_png(bytes, size))
        return decode_png(bytes, size, limits, out, reason, reason_size);
    if (is_jpeg(bytes, size))
        return decode_jpeg(bytes, size, limits, out, reason, reason_size);
    if (is_hdr(bytes, size))
        return decode_hdr(bytes, size, limits, out, reason, reason_size);
    if (is_bmp(bytes, size))
        return decode_stb(bytes, size, "bmp", limits, out, reason, reason_size);
    /* TGA has no signature: accepted by file name only. */
    if (ascii_ends_with_ci(name_hint, ".tga"))
        return decode_stb(bytes, size, "tga", limits, out, reason, reason_size);
    return fail(reason, reason_size,
                "not a recognised image (PNG, JPEG, TGA, BMP or Radiance HDR)");
}

/* ---- .cube 3D LUT --------------------------------------------------------- */

#define CUBE_MAX_SIZE 256u

bool image_parse_cube_lut(const char *text, size_t size, uint32_t *size_out, float **rgb,
                          char *reason, size_t reason_size) {
    *size_out = 0;
    *rgb = NULL;
    uint32_t lut_size = 0;
    size_t expected = 0, count = 0;
    float *values = NULL;
    const char *p = text, *end = text + size;
    uint32_t line_number = 0;
    while (p < end) {
        const char *line_end = memchr(p, '\n', (size_t)(end - p));
        if (line_end == NULL)
            line_end = end;
        line_number++;
        char line[256];
        size_t length = (size_t)(line_end - p);
        if (length >= sizeof line) {
            free(values);
            return fail(reason, reason_size, "line %u is too long", line_number);
        }
        memcpy(line, p, length);
        line[length] = '\0';
        p = line_end < end ? line_end + 1 : end;
        char *s = line;
        while (*s == ' ' || *s == '\t' || *s == '\r')
            s++;
        if (*s == '\0' || *s == '#')
            continue;
        if (strncmp(s, "TITLE", 5) == 0 || strncmp(s, "DOMAIN_MIN", 10) == 0 ||
            strncmp(s, "DOMAIN_MAX", 10) == 0 || strncmp(s, "LUT_1D_INPUT_RANGE", 18) == 0 ||
            strncmp(s, "LUT_3D_INPUT_RANGE", 18) == 0)
            continue;
        if (strncmp(s, "LUT_1D_SIZE", 11) == 0) {
            free(values);
            return fail(reason, reason_size, "line %u: 1D LUTs are not supported", line_number);
        }
        if (strncmp(s, "LUT_3D_SIZE", 11) == 0) {
            char *after = NULL;
            unsigned long n = strtoul(s + 11, &after, 10);
            if (lut_size != 0 || after == s + 11 || n < 2 || n > CUBE_MAX_SIZE) {
                free(values);
                return fail(reason, reason_size, "line %u: bad or repeated LUT_3D_SIZE",
                            line_number);
            }
            lut_size = (uint32_t)n;
            expected = (size_t)n * n * n;
            /* Each entry takes at least 6 bytes ("0 0 0\n"): a size the rest of
             * the file cannot hold is refused before allocating for it. */
            if (expected > (size_t)(end - p) / 6 + 1)
                return fail(reason, reason_size,
                            "line %u: LUT_3D_SIZE %u needs %zu entries but only %zu bytes follow",
                            line_number, lut_size, expected, (size_t)(end - p));
            values = malloc(expected * 3 * sizeof(float));
            if (values == NULL)
                return fail(reason, reason_size, "out of memory");
            continue;
        }
        if ((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z')) {
            free(values);
            return fail(reason, reason_size, "line %u: unknown keyword", line_number);
        }
        if (lut_size == 0) {
            free(values);
            return fail(reason, reason_size, "line %u: data before LUT_3D_SIZE", line_number);
        }
        if (count >= expected) {
            free(values);
            return fail(reason, reason_size, "line %u: more than %zu entries", line_number,
                        expected);
        }
        float v[3];
        char *cursor = s;
        for (int i = 0; i < 3; i++) {
            char *after = NULL;
            v[i] = strtof(cursor, &after);
            if (after == cursor || !(v[i] == v[i]) || v[i] > 65504.0f || v[i] < -65504.0f) {
                free(values);
                return fail(reason, reason_size, "line %u: expected three numbers", line_number);
            }
            cursor = after;
        }
        while (*cursor == ' ' || *cursor == '\t' || *cursor == '\r')
            cursor++;
        if (*cursor != '\0') {
            free(values);
            return fail(reason, reason_size, "line %u: trailing text", line_number);
        }
        memcpy(values + count * 3, v, sizeof v);
        count++;
    }
    if (lut_size == 0)
        return fail(reason, reason_size, "no LUT_3D_SIZE");
    if (count != expected) {
        free(values);
        return fail(reason, reason_size, "%zu entries, expected %zu", count, expected);
    }
    *size_out = lut_size;
    *rgb = values;
    return true;
}
