/*
 * gltf.c — glTF 2.0 importer: .gltf (JSON with external files or base64
 * data: URIs) and .glb (binary container) into the IR.
 *
 * Written from the glTF 2.0 specification. The work is split over
 * gltf_json.c, gltf_accessor.c, gltf_mesh.c and gltf_scene.c (see
 * gltf_internal.h); this file holds the entry point and the parts that are
 * about files rather than geometry.
 *
 * Container
 *   A file starting with the magic "glTF" is a GLB: 12-byte header (magic,
 *   version 2, total length; bytes past it are ignored with a warning, as
 *   glTF-Validator's GLB_EXTRA_DATA), then chunks of (length, type,
 *   data), lengths multiples of 4. The first chunk is JSON; an optional BIN
 *   chunk follows it directly; other chunk types are skipped. Every length is
 *   checked by subtracting from the bytes known to remain. Anything else is
 *   JSON text (parsed with jansson; syntax errors carry the line; a UTF-8
 *   byte-order mark is rejected as the spec requires; duplicate keys too).
 *
 * URIs (buffers and images)
 *   "data:<mime>;base64,<data>" is decoded, and so is the percent-encoded
 *   form without ";base64" (with a warning); anything with a scheme (file:,
 *   http:, C:) or an absolute path is refused without being opened. Other
 *   URIs are percent-decoded and resolved relative to the .gltf through
 *   cook_resolve_dependency / cook_read_dependency, which refuse paths leaving
 *   the input root. A missing or short buffer is an error; a missing image is
 *   a warning (the material slot stays empty).
 *
 * Extensions
 *   Supported: KHR_mesh_quantization, EXT_meshopt_compression,
 *   KHR_draco_mesh_compression (gltf_mesh.c, draco_decode.h),
 *   KHR_texture_transform (accepted; its texCoord override is honoured),
 *   KHR_materials_emissive_strength (scales the emissive factor),
 *   KHR_materials_unlit (accepted), KHR_lights_punctual and
 *   EXT_mesh_gpu_instancing (gltf_camera.c). Any other entry of extensionsRequired is
 *   an error naming it; other entries of extensionsUsed give one warning.
 *
 * Images must be PNG or JPEG (by mimeType, data: media type, file extension,
 * or failing those the file's first bytes); anything else (KTX2, WebP, DDS,
 * GIF) is an "unsupported image format" error naming the image. Images a
 * material uses become ir_asset.images (once each): external files by their
 * root-relative path, embedded ones (bufferView or data:) by their bytes. A
 * missing image file is a warning naming the material; the slot stays empty.
 *
 * Materials: name, every factor, texture slot (texCoord, KHR_texture_transform
 * offset/rotation/scale, the texture's sampler), normal scale, occlusion strength, alpha mode and
 * cutoff, double-sided, KHR_materials_emissive_strength (multiplied into the
 * emissive factor) and KHR_materials_unlit; any other material extension
 * (clearcoat, transmission...) is recorded in ir_material.dropped_extensions.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/checked.h"
#include "common/path.h"
#include "cook/import/gltf_internal.h"

#define GLB_MAGIC 0x46546c67u      /* "glTF" */
#define GLB_CHUNK_JSON 0x4e4f534au /* "JSON" */
#define GLB_CHUNK_BIN 0x004e4942u  /* "BIN\0" */
#define GLTF_BUDGET_FLOOR ((uint64_t)256 << 20)
#define GLTF_BUDGET_RATIO 64u

static const char *const supported_extensions[] = {
    "KHR_mesh_quantization", "EXT_meshopt_compression",         "KHR_draco_mesh_compression",
    "KHR_texture_transform", "KHR_materials_emissive_strength", "KHR_materials_unlit",
    "KHR_lights_punctual",   "EXT_mesh_gpu_instancing",         NULL,
};
#define SUPPORTED_EXTENSION_COUNT (sizeof supported_extensions / sizeof supported_extensions[0] - 1)

static bool extension_supported(const char *name) {
    for (size_t i = 0; i < SUPPORTED_EXTENSION_COUNT; i++)
        if (strcmp(name, supported_extensions[i]) == 0)
            return true;
    return false;
}

static uint32_t load_u32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* ---------------------------------------------------------------------------
 * Container and JSON
 * ------------------------------------------------------------------------- */

static bool parse_json(gltf *g, const uint8_t *text, size_t size) {
    const char *where = g->glb ? "the GLB JSON chunk" : "the file";
    if (size >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) {
        gltf_error(g,
                   "invalid JSON: %s starts with a UTF-8 byte-order mark, which glTF does "
                   "not allow",
                   where);
        return false;
    }
    json_error_t error;
    g->root = json_loadb((const char *)text, size, JSON_REJECT_DUPLICATES, &error);
    if (g->root == NULL) {
        g->errors++;
        if (g->glb)
            diag_error(g->ctx->diag, g->path, 0,
                       "invalid JSON in the GLB JSON chunk: %s (line %d, column %d)", error.text,
                       error.line, error.column);
        else
            diag_error(g->ctx->diag, g->path, error.line > 0 ? (uint32_t)error.line : 0,
                       "invalid JSON: %s (column %d)", error.text, error.column);
        return false;
    }
    if (!json_is_object(g->root)) {
        gltf_error(g, "the top-level JSON value is %s; glTF needs an object",
                   gltf_json_type_name(g->root));
        return false;
    }
    return true;
}

static bool parse_glb(gltf *g, const uint8_t *data, size_t size) {
    g->glb = true;
    if (size < 12) {
        gltf_error(g, "truncated GLB: %zu bytes, shorter than the 12-byte header", size);
        return false;
    }
    uint32_t version = load_u32(data + 4), length = load_u32(data + 8);
    if (version != 2) {
        gltf_error(g, "GLB version %u is not supported (kiln reads version 2)", version);
        return false;
    }
    if (length < 12 || length > size) {
        gltf_error(g, "the GLB header declares %u bytes but the file has %zu", length, size);
        return false;
    }
    if (length < size) {
        /* glTF-Validator: GLB_EXTRA_DATA, a warning; bytes past the declared
         * end are not part of the GLB (some tools append to files). */
        gltf_warning(g,
                     "the GLB header declares %u bytes but the file has %zu; the %zu bytes "
                     "after the declared end are ignored",
                     length, size, size - length);
        size = length;
    }
    size_t offset = 12, remaining = size - 12;
    const uint8_t *json = NULL;
    size_t json_size = 0;
    for (uint32_t chunk = 0; remaining > 0; chunk++) {
        if (remaining < 8) {
            gltf_error(g, "truncated GLB chunk header at byte %zu (%zu bytes left, 8 needed)",
                       offset, remaining);
            return false;
        }
        uint32_t chunk_length = load_u32(data + offset), type = load_u32(data + offset + 4);
        remaining -= 8;
        if (chunk_length > remaining) {
            gltf_error(g, "GLB chunk %u at byte %zu declares %u bytes but only %zu remain", chunk,
                       offset, chunk_length, remaining);
            return false;
        }
        if (chunk_length % 4 != 0) {
            gltf_error(g, "GLB chunk %u at byte %zu has length %u, not a multiple of 4", chunk,
                       offset, chunk_length);
            return false;
        }
        const uint8_t *payload = data + offset + 8;
        if (chunk == 0 && type != GLB_CHUNK_JSON) {
            gltf_error(g, "the first GLB chunk must be JSON (found type 0x%08x)", type);
            return false;
        }
        if (chunk == 0) {
            json = payload;
            json_size = chunk_length;
        } else if (type == GLB_CHUNK_JSON) {
            gltf_error(g, "GLB chunk %u: a second JSON chunk", chunk);
            return false;
        } else if (type == GLB_CHUNK_BIN) {
            if (chunk != 1) {
                gltf_error(g, "GLB chunk %u: the BIN chunk must directly follow the JSON chunk",
                           chunk);
                return false;
            }
            g->bin = payload;
            g->bin_size = chunk_length;
        }
        offset += 8 + (size_t)chunk_length;
        remaining -= chunk_length;
    }
    if (json == NULL) {
        gltf_error(g, "the GLB has no JSON chunk");
        return false;
    }
    /* Padding is spaces; some exporters pad with NUL bytes instead. */
    while (json_size > 0 && (json[json_size - 1] == ' ' || json[json_size - 1] == '\0'))
        json_size--;
    return parse_json(g, json, json_size);
}

static bool load_document(gltf *g) {
    const uint8_t *data = g->ctx->source;
    size_t size = g->ctx->source_size;
    if (size >= 4 && load_u32(data) == GLB_MAGIC)
        return parse_glb(g, data, size);
    if (ascii_ends_with_ci(g->path, ".glb")) {
        gltf_error(g, "not a GLB file: it does not start with the magic 'glTF'");
        return false;
    }
    return parse_json(g, data, size);
}

/* ---------------------------------------------------------------------------
 * Root: asset, collections, extensions
 * ------------------------------------------------------------------------- */

/* "<major>.<minor>", digits only. */
static bool parse_version(const char *text, unsigned long *major, unsigned long *minor) {
    const char *p = text;
    if (!isdigit((unsigned char)*p))
        return false;
    *major = strtoul(p, (char **)&p, 10);
    if (*p++ != '.' || !isdigit((unsigned char)*p))
        return false;
    *minor = strtoul(p, (char **)&p, 10);
    return *p == '\0';
}

static bool check_asset(gltf *g) {
    const json_t *asset;
    const char *version = NULL, *min_version = NULL, *text;
    if (!gltf_get_object(g, g->root, "", "asset", true, &asset) ||
        !gltf_get_string(g, asset, "asset", "version", true, &version) ||
        !gltf_get_string(g, asset, "asset", "minVersion", false, &min_version) ||
        !gltf_get_string(g, asset, "asset", "generator", false, &text) ||
        !gltf_get_string(g, asset, "asset", "copyright", false, &text))
        return false;
    unsigned long major, minor;
    if (!parse_version(version, &major, &minor)) {
        gltf_error(g, "asset.version: '%.32s' is not of the form <major>.<minor>", version);
        return false;
    }
    if (major != 2) {
        gltf_error(g, "asset.version: glTF %.32s is not supported (kiln reads glTF 2.x)", version);
        return false;
    }
    if (min_version != NULL) {
        if (!parse_version(min_version, &major, &minor)) {
            gltf_error(g, "asset.minVersion: '%.32s' is not of the form <major>.<minor>",
                       min_version);
            return false;
        }
        if (major != 2) {
            gltf_error(g, "asset.minVersion: the file needs glTF %.32s; kiln reads glTF 2.x",
                       min_version);
            return false;
        }
        if (minor > 0)
            gltf_warning(g,
                         "asset.minVersion: the file asks for glTF %.32s; kiln reads glTF "
                         "2.0 and ignores what is newer",
                         min_version);
    }
    return true;
}

static bool get_collection(gltf *g, const char *name, json_t **array, size_t *count) {
    const json_t *value;
    *array = NULL;
    *count = 0;
    if (!gltf_get_array(g, g->root, "", name, false, &value))
        return false;
    *array = (json_t *)value;
    *count = value ? json_array_size(value) : 0;
    return true;
}

typedef struct named_index {
    const char *name;
    size_t index;
} named_index;

static int compare_named(const void *a, const void *b) {
    const named_index *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    return c != 0 ? c : (x->index > y->index) - (x->index < y->index);
}

/* extensionsUsed / extensionsRequired: unique strings. */
static bool check_extension_list(gltf *g, const char *key, const json_t **out) {
    if (!gltf_get_array(g, g->root, "", key, false, out))
        return false;
    const json_t *list = *out;
    size_t count = list ? json_array_size(list) : 0;
    for (size_t i = 0; i < count; i++) {
        const json_t *item = json_array_get(list, i);
        if (!json_is_string(item)) {
            gltf_error(g, "%s[%zu]: expected a string, found %s", key, i,
                       gltf_json_type_name(item));
            return false;
        }
    }
    if (count < 2)
        return true;
    named_index *sorted = malloc(count * sizeof *sorted);
    if (sorted == NULL)
        return gltf_out_of_memory(g);
    for (size_t i = 0; i < count; i++)
        sorted[i] = (named_index){json_string_value(json_array_get(list, i)), i};
    qsort(sorted, count, sizeof *sorted, compare_named);
    bool ok = true;
    for (size_t i = 1; i < count && ok; i++) {
        if (strcmp(sorted[i].name, sorted[i - 1].name) == 0) {
            gltf_error(g, "%s[%zu]: '%.64s' is listed twice", key, sorted[i].index, sorted[i].name);
            ok = false;
        }
    }
    free(sorted);
    return ok;
}

static bool list_contains(const json_t *list, const char *name) {
    for (size_t i = 0; list != NULL && i < json_array_size(list); i++)
        if (json_is_string(json_array_get(list, i)) &&
            strcmp(json_string_value(json_array_get(list, i)), name) == 0)
            return true;
    return false;
}

static bool check_extensions(gltf *g) {
    const json_t *used, *required;
    bool ok = check_extension_list(g, "extensionsUsed", &used);
    ok = check_extension_list(g, "extensionsRequired", &required) && ok;
    if (!ok)
        return false;
    for (size_t i = 0; required != NULL && i < json_array_size(required); i++) {
        const char *name = json_string_value(json_array_get(required, i));
        if (!extension_supported(name)) {
            gltf_error(g, "extensionsRequired[%zu]: required extension %.80s is not supported", i,
                       name);
            ok = false;
        }
    }
    bytebuf list = {0};
    for (size_t i = 0; used != NULL && i < json_array_size(used); i++) {
        const char *name = json_string_value(json_array_get(used, i));
        if (extension_supported(name) || list_contains(required, name))
            continue; /* a required one is already an error */
        bytebuf_printf(&list, "%s%.80s", list.size ? ", " : "", name);
    }
    if (list.size > 0 && !list.failed)
        gltf_warning(g, "extensionsUsed: not supported, ignored: %.*s", (int)list.size,
                     (const char *)list.data);
    bytebuf_free(&list);
    g->ext_quantization = list_contains(used, "KHR_mesh_quantization") ||
                          list_contains(required, "KHR_mesh_quantization");
    g->ext_meshopt = list_contains(used, "EXT_meshopt_compression") ||
                     list_contains(required, "EXT_meshopt_compression");
    g->ext_draco = list_contains(used, "KHR_draco_mesh_compression") ||
                   list_contains(required, "KHR_draco_mesh_compression");
    return ok;
}

static bool check_root(gltf *g) {
    if (!gltf_check_object(g, g->root, "") || !check_asset(g))
        return false;
    bool ok = get_collection(g, "accessors", &g->j_accessors, &g->n_accessors);
    ok = get_collection(g, "animations", &g->j_animations, &g->n_animations) && ok;
    ok = get_collection(g, "buffers", &g->j_buffers, &g->n_buffers) && ok;
    ok = get_collection(g, "bufferViews", &g->j_views, &g->n_views) && ok;
    ok = get_collection(g, "cameras", &g->j_cameras, &g->n_cameras) && ok;
    ok = get_collection(g, "images", &g->j_images, &g->n_images) && ok;
    ok = get_collection(g, "materials", &g->j_materials, &g->n_materials) && ok;
    ok = get_collection(g, "meshes", &g->j_meshes, &g->n_meshes) && ok;
    ok = get_collection(g, "nodes", &g->j_nodes, &g->n_nodes) && ok;
    ok = get_collection(g, "samplers", &g->j_samplers, &g->n_samplers) && ok;
    ok = get_collection(g, "scenes", &g->j_scenes, &g->n_scenes) && ok;
    ok = get_collection(g, "skins", &g->j_skins, &g->n_skins) && ok;
    ok = get_collection(g, "textures", &g->j_textures, &g->n_textures) && ok;
    ok = check_extensions(g) && ok;
    if (!ok)
        return false;
    const json_t *scene = json_object_get(g->root, "scene");
    int64_t index;
    if (scene != NULL && g->n_scenes == 0) {
        /* Exporters write "scene": 0 with no scenes; nothing to select. */
        if (!gltf_index_value(g, scene, "scene", "scene", SIZE_MAX, &index))
            return false;
        gltf_warning(g, "scene: scene %lld does not exist (the file defines no scenes); ignored",
                     (long long)index);
        return true;
    }
    return gltf_get_index(g, g->root, "", "scene", false, "scene", g->n_scenes, &index);
}

/* ---------------------------------------------------------------------------
 * URIs and buffers
 * ------------------------------------------------------------------------- */

static int hex_value(int c) {
    if (c >= '0' && c <= '9')
        return c - '0';
    c = ascii_lower((char)c);
    return (c >= 'a' && c <= 'f') ? c - 'a' + 10 : -1;
}

static int base64_value(unsigned char c) {
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+' || c == '-')
        return 62;
    if (c == '/' || c == '_')
        return 63;
    return -1;
}

bool gltf_percent_decode(const char *text, bool allow_nul, uint8_t *out, size_t *n, size_t *bad) {
    size_t length = strlen(text);
    *n = 0;
    for (size_t i = 0; i < length; i++) {
        if (text[i] != '%') {
            out[(*n)++] = (uint8_t)text[i];
            continue;
        }
        int hi = i + 2 < length ? hex_value(text[i + 1]) : -1;
        int lo = hi >= 0 ? hex_value(text[i + 2]) : -1;
        if (hi < 0 || lo < 0 || (!allow_nul && hi == 0 && lo == 0)) {
            *bad = i;
            return false;
        }
        out[(*n)++] = (uint8_t)(hi * 16 + lo);
        i += 2;
    }
    return true;
}

/* The data of a data: URI without ";base64": octets as written, "%XX"
 * escapes decoded (RFC 2397). glTF exporters write base64, so it is cooked
 * with a warning. */
static bool decode_percent_data(gltf *g, const char *data, const char *jpath, uint8_t **out,
                                size_t *out_size) {
    uint8_t *bytes = malloc(strlen(data) + 1);
    if (bytes == NULL)
        return gltf_out_of_memory(g);
    size_t n, bad;
    if (!gltf_percent_decode(data, true, bytes, &n, &bad)) {
        gltf_error(g, "%s: malformed percent escape in the data URI (position %zu)", jpath, bad);
        free(bytes);
        return false;
    }
    gltf_warning(g, "%s: a percent-encoded data URI (not base64); decoded, %zu bytes", jpath, n);
    *out = bytes;
    *out_size = n;
    return true;
}

/* Decodes "data:<mime>[;params];base64,<data>", or without ";base64" the
 * RFC 2397 percent-encoded form ("data:application/octet-stream,%00%01...").
 * *mime receives the media type (caller frees). */
static bool decode_data_uri(gltf *g, const char *uri, const char *jpath, char **mime, uint8_t **out,
                            size_t *out_size) {
    *mime = NULL;
    *out = NULL;
    *out_size = 0;
    const char *comma = strchr(uri, ',');
    if (comma == NULL) {
        gltf_error(g, "%s: malformed data URI (no ',' before the data)", jpath);
        return false;
    }
    const char *header = uri + 5;
    size_t header_length = (size_t)(comma - header);
    bool is_base64 = header_length >= 7 && ascii_starts_with_ci(comma - 7, ";base64");
    const char *semicolon = memchr(header, ';', header_length);
    size_t mime_length = semicolon ? (size_t)(semicolon - header) : header_length;
    *mime = malloc(mime_length + 1);
    if (*mime == NULL)
        return gltf_out_of_memory(g);
    for (size_t i = 0; i < mime_length; i++)
        (*mime)[i] = ascii_lower(header[i]);
    (*mime)[mime_length] = '\0';
    if (!is_base64)
        return decode_percent_data(g, comma + 1, jpath, out, out_size);

    const unsigned char *data = (const unsigned char *)comma + 1;
    size_t length = strlen((const char *)data);
    while (length > 0 && data[length - 1] == '=')
        length--;
    if (length % 4 == 1) {
        gltf_error(g, "%s: malformed base64 data (length)", jpath);
        return false;
    }
    size_t size = length / 4 * 3 + (length % 4 ? length % 4 - 1 : 0);
    uint8_t *bytes = malloc(size + 1);
    if (bytes == NULL)
        return gltf_out_of_memory(g);
    size_t n = 0;
    uint32_t accumulator = 0;
    int bits = 0;
    for (size_t i = 0; i < length; i++) {
        int v = base64_value(data[i]);
        if (v < 0) {
            gltf_error(g, "%s: malformed base64 data (byte 0x%02x at position %zu)", jpath, data[i],
                       i);
            free(bytes);
            return false;
        }
        accumulator = (accumulator << 6) | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            bytes[n++] = (uint8_t)(accumulator >> bits);
            accumulator &= (1u << bits) - 1u;
        }
    }
    *out = bytes;
    *out_size = n;
    return true;
}

/* True when the relative path would climb above the input root. */
static bool climbs_out(const char *source_path, const char *relative) {
    long depth = 0;
    for (const char *p = source_path; *p != '\0'; p++)
        depth += *p == '/';
    path_segment segment;
    for (const char *p = relative; (p = path_next_segment(p, &segment)) != NULL;) {
        if (!path_segment_is_parent(&segment))
            depth++;
        else if (--depth < 0)
            return true;
    }
    return false;
}

typedef enum uri_kind { URI_INVALID, URI_DATA, URI_PATH } uri_kind;

/* Classifies a URI; for a path, *path receives it percent-decoded. */
static uri_kind classify_uri(gltf *g, const char *uri, const char *jpath, char **path) {
    *path = NULL;
    if (ascii_starts_with_ci(uri, "data:"))
        return URI_DATA;
    size_t scheme = strcspn(uri, ":/?#\\");
    if (uri[scheme] == ':') {
        if (scheme == 0)
            gltf_error_always(g, "%s: '%.100s' is not a valid URI (empty scheme)", jpath, uri);
        else
            gltf_error_always(g,
                              "%s: URI '%.100s' has the scheme '%.*s'; kiln reads only relative "
                              "paths inside the input folder",
                              jpath, uri, (int)(scheme > 16 ? 16 : scheme), uri);
        return URI_INVALID;
    }
    if (uri[0] == '\0') {
        gltf_error_always(g, "%s: empty URI", jpath);
        return URI_INVALID;
    }
    if (uri[0] == '/' || uri[0] == '\\') {
        gltf_error_always(g, "%s: absolute path '%.100s' is not allowed; URIs must be relative",
                          jpath, uri);
        return URI_INVALID;
    }
    size_t length = strlen(uri);
    char *decoded = malloc(length + 1);
    if (decoded == NULL) {
        gltf_out_of_memory(g);
        return URI_INVALID;
    }
    size_t n, bad;
    if (!gltf_percent_decode(uri, false, (uint8_t *)decoded, &n, &bad)) {
        gltf_error_always(g, "%s: malformed percent escape in URI '%.100s'", jpath, uri);
        free(decoded);
        return URI_INVALID;
    }
    decoded[n] = '\0';
    if (climbs_out(g->path, decoded)) {
        gltf_error_always(g, "%s: URI '%.100s' leaves the input folder; refused", jpath, uri);
        free(decoded);
        return URI_INVALID;
    }
    *path = decoded;
    return URI_PATH;
}

static bool load_buffer(gltf *g, size_t i) {
    const json_t *obj = gltf_element(g, g->j_buffers, "buffers", i);
    if (obj == NULL)
        return false;
    char jpath[GLTF_PATH_SIZE];
    gltf_pathf(jpath, "buffers[%zu]", i);
    uint64_t length = 0;
    const char *uri = NULL;
    if (!gltf_get_uint(g, obj, jpath, "byteLength", true, 1, (uint64_t)1 << 53, &length) ||
        !gltf_get_string(g, obj, jpath, "uri", false, &uri))
        return false;
    gltf_buffer *buffer = &g->buffers[i];
    buffer->length = length;
    uint8_t *bytes = NULL;
    size_t size = 0;
    char upath[GLTF_PATH_SIZE];
    gltf_pathf(upath, "%s.uri", jpath);
    if (uri == NULL) {
        if (g->glb && i == 0 && g->bin != NULL) {
            if (g->bin_size < length) {
                gltf_error(g, "%s: byteLength %llu exceeds the GLB BIN chunk's %llu bytes", jpath,
                           (unsigned long long)length, (unsigned long long)g->bin_size);
                return false;
            }
            buffer->data = g->bin;
        }
        return true; /* else a placeholder: reading from it is an error */
    }
    char *path = NULL;
    uri_kind kind = classify_uri(g, uri, upath, &path);
    if (kind == URI_INVALID)
        return false;
    if (kind == URI_DATA) {
        char *mime;
        bool ok = decode_data_uri(g, uri, upath, &mime, &bytes, &size);
        free(mime);
        if (!ok)
            return false;
    } else {
        char reason[512];
        bool ok = cook_read_dependency(g->ctx, path, &bytes, &size, reason, sizeof reason);
        if (!ok)
            gltf_error(g, "%s: cannot read buffer '%.200s': %s", upath, path, reason);
        free(path);
        if (!ok)
            return false;
    }
    buffer->owned = bytes;
    if (size < length) {
        gltf_error(g, "%s: the data holds %zu bytes, fewer than byteLength %llu", jpath, size,
                   (unsigned long long)length);
        return false;
    }
    buffer->data = bytes;
    return true;
}

static bool load_buffers(gltf *g) {
    uint64_t input = g->ctx->source_size;
    if (g->n_buffers > 0) {
        g->buffers = calloc(g->n_buffers, sizeof *g->buffers);
        if (g->buffers == NULL)
            return gltf_out_of_memory(g);
    }
    bool ok = true;
    for (size_t i = 0; i < g->n_buffers && !g->stopped; i++) {
        ok = load_buffer(g, i) && ok;
        if (g->buffers[i].owned != NULL && !checked_add_u64(input, g->buffers[i].length, &input))
            input = UINT64_MAX;
    }
    uint64_t scaled;
    if (!checked_mul_u64(input, GLTF_BUDGET_RATIO, &scaled) ||
        !checked_add_u64(scaled, GLTF_BUDGET_FLOOR, &g->budget))
        g->budget = UINT64_MAX;
    return ok && !g->stopped;
}

/* ---------------------------------------------------------------------------
 * Images, samplers, textures
 * ------------------------------------------------------------------------- */

typedef enum image_format { FORMAT_UNKNOWN, FORMAT_PNG, FORMAT_JPEG, FORMAT_OTHER } image_format;

static image_format format_of_mime(const char *mime) {
    if (strcmp(mime, "image/png") == 0)
        return FORMAT_PNG;
    if (strcmp(mime, "image/jpeg") == 0 || strcmp(mime, "image/jpg") == 0)
        return FORMAT_JPEG;
    if (strcmp(mime, "application/octet-stream") == 0 || mime[0] == '\0')
        return FORMAT_UNKNOWN;
    return FORMAT_OTHER;
}

static image_format format_of_bytes(const uint8_t *p, size_t size) {
    if (size >= 8 && memcmp(p, "\x89PNG\r\n\x1a\n", 8) == 0)
        return FORMAT_PNG;
    if (size >= 3 && p[0] == 0xff && p[1] == 0xd8 && p[2] == 0xff)
        return FORMAT_JPEG;
    return FORMAT_UNKNOWN;
}

static image_format format_of_name(const char *name) {
    if (ascii_ends_with_ci(name, ".png"))
        return FORMAT_PNG;
    if (ascii_ends_with_ci(name, ".jpg") || ascii_ends_with_ci(name, ".jpeg") ||
        ascii_ends_with_ci(name, ".jpe"))
        return FORMAT_JPEG;
    const char *slash = strrchr(name, '/');
    const char *dot = strrchr(slash ? slash : name, '.');
    return dot != NULL ? FORMAT_OTHER : FORMAT_UNKNOWN;
}

/* The first bytes of a resolved file, to recognise it. */
static image_format format_of_file(gltf *g, const char *root_relative) {
    size_t size = strlen(g->ctx->input_root) + strlen(root_relative) + 2;
    char *full = malloc(size);
    if (full == NULL)
        return FORMAT_UNKNOWN;
    snprintf(full, size, "%s/%s", g->ctx->input_root, root_relative);
    uint8_t head[8];
    size_t n = 0;
    FILE *f = fopen(full, "rb");
    if (f != NULL) {
        n = fread(head, 1, sizeof head, f);
        fclose(f);
    }
    free(full);
    return format_of_bytes(head, n);
}

static bool unsupported_image(gltf *g, const char *jpath, const char *what) {
    gltf_error(g, "%s: unsupported image format (%.120s); kiln reads PNG and JPEG images", jpath,
               what);
    return false;
}

static bool check_image(gltf *g, size_t i, bool alternative_only) {
    const json_t *obj = gltf_element(g, g->j_images, "images", i);
    if (obj == NULL)
        return false;
    char jpath[GLTF_PATH_SIZE], upath[GLTF_PATH_SIZE];
    gltf_pathf(jpath, "images[%zu]", i);
    gltf_pathf(upath, "images[%zu].uri", i);
    const char *uri = NULL, *mime = NULL;
    int64_t view;
    if (!gltf_get_string(g, obj, jpath, "uri", false, &uri) ||
        !gltf_get_index(g, obj, jpath, "bufferView", false, "bufferView", g->n_views, &view) ||
        !gltf_get_string(g, obj, jpath, "mimeType", false, &mime))
        return false;
    if ((uri != NULL) == (view >= 0)) {
        gltf_error_always(g, "%s: exactly one of 'uri' and 'bufferView' must be given", jpath);
        return false;
    }
    g->images[i].uri = uri;
    if (alternative_only)
        return true; /* read by an extension kiln does not use; the fallback is used */
    image_format declared = mime ? format_of_mime(mime) : FORMAT_UNKNOWN;
    if (mime != NULL && declared != FORMAT_PNG && declared != FORMAT_JPEG) {
        char what[160];
        snprintf(what, sizeof what, "mimeType '%.100s'", mime);
        return unsupported_image(g, jpath, what);
    }
    if (view >= 0) {
        if (mime == NULL) {
            gltf_error_always(g, "%s: an image in a bufferView needs a mimeType", jpath);
            return false;
        }
        if (!gltf_view_valid(g, (uint32_t)view))
            return false;
        if (g->views[view].stride != 0) {
            gltf_error(g, "%s.bufferView: views of image data must not have a byteStride", jpath);
            return false;
        }
        g->views[view].usage |= GLTF_USE_OTHER;
        g->images[i].view = view;
        return true; /* embedded: read when a material uses it */
    }
    char *path = NULL;
    uri_kind kind = classify_uri(g, uri, upath, &path);
    if (kind == URI_INVALID)
        return false;
    if (kind == URI_DATA) {
        char *data_mime;
        uint8_t *bytes;
        size_t size;
        if (!decode_data_uri(g, uri, upath, &data_mime, &bytes, &size)) {
            free(data_mime);
            return false;
        }
        image_format format = format_of_bytes(bytes, size);
        image_format named = format_of_mime(data_mime);
        bool ok = true;
        if (format == FORMAT_UNKNOWN || named == FORMAT_OTHER)
            format = named != FORMAT_UNKNOWN ? named : declared;
        if (format != FORMAT_PNG && format != FORMAT_JPEG) {
            char what[160];
            snprintf(what, sizeof what, "data URI of type '%.100s'", data_mime);
            ok = unsupported_image(g, jpath, what);
        } else if ((declared != FORMAT_UNKNOWN && declared != format) ||
                   (named != FORMAT_UNKNOWN && named != format)) {
            gltf_warning(g, "%s: the data is %s but is declared otherwise", jpath,
                         format == FORMAT_PNG ? "PNG" : "JPEG");
        }
        free(data_mime);
        if (ok) {
            g->images[i].bytes = bytes; /* embedded: moved to the IR when used */
            g->images[i].size = size;
        } else {
            free(bytes);
        }
        return ok;
    }
    image_format format = declared != FORMAT_UNKNOWN ? declared : format_of_name(path);
    char reason[512];
    char *resolved = NULL;
    if (format == FORMAT_OTHER) {
        free(path);
        char what[160];
        snprintf(what, sizeof what, "'%.100s'", uri);
        return unsupported_image(g, jpath, what);
    }
    if (!cook_resolve_dependency(g->ctx, path, &resolved, reason, sizeof reason)) {
        /* Reported per material that uses it (gltf_material_image). */
        free(path);
        return true;
    }
    free(path);
    if (format == FORMAT_UNKNOWN)
        format = format_of_file(g, resolved);
    if (format != FORMAT_PNG && format != FORMAT_JPEG) {
        free(resolved);
        char what[160];
        snprintf(what, sizeof what, "'%.100s' is neither PNG nor JPEG", uri);
        return unsupported_image(g, jpath, what);
    }
    g->images[i].path = resolved;
    g->images[i].resolved = true;
    return true;
}

static bool check_samplers(gltf *g) {
    static const struct {
        const char *key;
        uint64_t values[6];
        int count;
    } rules[] = {
        {"magFilter", {9728, 9729}, 2},
        {"minFilter", {9728, 9729, 9984, 9985, 9986, 9987}, 6},
        {"wrapS", {33071, 33648, 10497}, 3},
        {"wrapT", {33071, 33648, 10497}, 3},
    };
    bool ok = true;
    for (size_t i = 0; i < g->n_samplers && !g->stopped; i++) {
        const json_t *obj = gltf_element(g, g->j_samplers, "samplers", i);
        if (obj == NULL) {
            ok = false;
            continue;
        }
        char jpath[GLTF_PATH_SIZE];
        gltf_pathf(jpath, "samplers[%zu]", i);
        for (size_t r = 0; r < sizeof rules / sizeof rules[0]; r++) {
            uint64_t value = 0;
            if (json_object_get(obj, rules[r].key) == NULL)
                continue;
            if (!gltf_get_uint(g, obj, jpath, rules[r].key, false, 0, UINT32_MAX, &value)) {
                ok = false;
                continue;
            }
            bool known = false;
            for (int k = 0; k < rules[r].count; k++)
                known |= value == rules[r].values[k];
            if (!known) /* glTF-Validator: VALUE_NOT_IN_LIST, a warning; the default is kept */
                gltf_warning(g, "%s.%s: %llu is not a valid value; ignored", jpath, rules[r].key,
                             (unsigned long long)value);
        }
    }
    return ok;
}

/* Texture extensions that name an alternative image (KTX2, WebP, DDS...). */
static const char *const image_extensions[] = {"KHR_texture_basisu", "EXT_texture_webp",
                                               "EXT_texture_avif", "MSFT_texture_dds"};

static bool check_textures(gltf *g, uint8_t *image_use) {
    bool ok = true;
    for (size_t i = 0; i < g->n_textures && !g->stopped; i++) {
        g->texture_image[i] = -1;
        const json_t *obj = gltf_element(g, g->j_textures, "textures", i);
        char jpath[GLTF_PATH_SIZE];
        gltf_pathf(jpath, "textures[%zu]", i);
        int64_t source, sampler;
        if (obj == NULL ||
            !gltf_get_index(g, obj, jpath, "source", false, "image", g->n_images, &source) ||
            !gltf_get_index(g, obj, jpath, "sampler", false, "sampler", g->n_samplers, &sampler)) {
            ok = false;
            continue;
        }
        const char *alternative = NULL;
        for (size_t k = 0; k < sizeof image_extensions / sizeof image_extensions[0]; k++) {
            const json_t *ext = gltf_extension(obj, image_extensions[k]);
            if (ext == NULL)
                continue;
            char epath[GLTF_PATH_SIZE];
            gltf_pathf(epath, "%s.extensions.%s", jpath, image_extensions[k]);
            int64_t other;
            if (!gltf_get_index(g, ext, epath, "source", false, "image", g->n_images, &other)) {
                ok = false;
                break;
            }
            if (other >= 0) {
                image_use[other] |= 2u;
                alternative = image_extensions[k];
            }
        }
        if (source >= 0)
            image_use[source] |= 1u;
        else if (alternative != NULL)
            gltf_warning(g,
                         "%s: only a %s image and no PNG/JPEG fallback 'source'; materials "
                         "using it get no texture",
                         jpath, alternative);
        g->texture_image[i] = (int32_t)source;
    }
    return ok;
}

static bool check_images_and_textures(gltf *g) {
    bool ok = check_samplers(g);
    uint8_t *image_use = calloc(g->n_images ? g->n_images : 1, 1); /* 1 source, 2 extension */
    g->images = calloc(g->n_images ? g->n_images : 1, sizeof *g->images);
    for (size_t i = 0; g->images != NULL && i < g->n_images; i++) {
        g->images[i].view = -1;
        g->images[i].ir = -1;
    }
    g->texture_image = malloc((g->n_textures ? g->n_textures : 1) * sizeof *g->texture_image);
    if (image_use == NULL || g->images == NULL || g->texture_image == NULL) {
        free(image_use);
        return gltf_out_of_memory(g);
    }
    ok = check_textures(g, image_use) && ok;
    /* An image only an extension uses (a KTX2 next to a PNG fallback) is not
     * read, so its format does not matter. */
    for (size_t i = 0; i < g->n_images && !g->stopped; i++) {
        g->unused = image_use[i] == 0; /* no texture uses it: problems are warnings */
        bool valid = check_image(g, i, image_use[i] == 2u);
        ok = (valid || g->unused) && ok;
        g->unused = false;
    }
    free(image_use);
    return ok && !g->stopped;
}

/* ---------------------------------------------------------------------------
 * Materials
 * ------------------------------------------------------------------------- */

/* The IR image of glTF image `i` for material `m` (its name for messages),
 * added to out->images on first use: an external file by its root-relative
 * path (one image per file), an embedded one by its bytes. -1 when the image
 * cannot be used (a warning naming the material and the file) or on an
 * error (g->errors counts it). */
static int32_t material_image(gltf *g, ir_asset *out, size_t i, const char *material) {
    gltf_image *image = &g->images[i];
    if (image->ir >= 0)
        return image->ir;
    char name[GLTF_PATH_SIZE + 64];
    snprintf(name, sizeof name, "%s images[%zu]", g->path, i);
    if (image->path != NULL) {
        image->ir = ir_image_add_file(&out->images, &out->image_count, image->path, image->path);
    } else if (image->bytes != NULL) {
        image->ir =
            ir_image_add_bytes(&out->images, &out->image_count, name, image->bytes, image->size);
        image->bytes = NULL; /* owned by the IR (or freed) now */
    } else if (image->view >= 0 && g->views[image->view].image_ir_plus1 > 0) {
        image->ir = g->views[image->view].image_ir_plus1 - 1;
    } else if (image->view >= 0) {
        gltf_view *view = &g->views[image->view];
        uint32_t buffer = view->meshopt ? view->mo_buffer : view->buffer;
        const uint8_t *data = NULL;
        if (g->buffers[buffer].data == NULL) {
            gltf_warning(g,
                         "material '%s': images[%zu] lies in buffers[%u], which has no data; "
                         "the slot gets no texture",
                         material, i, buffer);
            return -1;
        }
        char jpath[64];
        snprintf(jpath, sizeof jpath, "images[%zu].bufferView", i);
        /* The copy counts against the decode budget like any decoded data. */
        if (!gltf_view_bytes(g, (uint32_t)image->view, &data) ||
            !gltf_charge(g, view->length, jpath))
            return -1;
        uint8_t *copy = malloc(view->length ? view->length : 1);
        if (copy == NULL) {
            gltf_out_of_memory(g);
            return -1;
        }
        memcpy(copy, data, view->length);
        image->ir = ir_image_add_bytes(&out->images, &out->image_count, name, copy, view->length);
        view->image_ir_plus1 = image->ir + 1;
    } else {
        gltf_warning(g,
                     "material '%s': texture image '%.200s' (images[%zu]) is missing or "
                     "unreadable; the slot gets no texture",
                     material, image->uri ? image->uri : "", i);
        return -1;
    }
    if (image->ir < 0) {
        gltf_out_of_memory(g);
        return -1;
    }
    /* An embedded image's own name (images[i].name) names its cooked texture. */
    ir_image *added = &out->images[image->ir];
    const char *label = json_string_value(json_object_get(json_array_get(g->j_images, i), "name"));
    if (added->path == NULL && added->label == NULL && label != NULL && label[0] != '\0') {
        added->label = cook_strdup(label);
        if (added->label == NULL) {
            gltf_out_of_memory(g);
            return -1;
        }
    }
    return image->ir;
}

/* The sampler of textures[texture] into `ref` (kiln_wrap, kiln_filter,
 * kiln_mip_filter). check_samplers has checked the values; an absent or
 * unknown one keeps glTF's default: repeat, and auto filtering, which kiln
 * makes linear with linear mips. */
static void read_sampler(const gltf *g, int64_t texture, ir_texture_ref *ref) {
    const json_t *sampler_index =
        json_object_get(json_array_get(g->j_textures, (size_t)texture), "sampler");
    const json_t *sampler =
        json_is_integer(sampler_index)
            ? json_array_get(g->j_samplers, (size_t)json_integer_value(sampler_index))
            : NULL;
    if (!json_is_object(sampler))
        return;
    uint8_t *wraps[2] = {&ref->wrap_s, &ref->wrap_t};
    const char *wrap_keys[2] = {"wrapS", "wrapT"};
    for (int k = 0; k < 2; k++) {
        json_int_t wrap = json_integer_value(json_object_get(sampler, wrap_keys[k]));
        *wraps[k] = wrap == 33071   ? KILN_WRAP_CLAMP_TO_EDGE
                    : wrap == 33648 ? KILN_WRAP_MIRRORED_REPEAT
                                    : KILN_WRAP_REPEAT;
    }
    json_int_t mag = json_integer_value(json_object_get(sampler, "magFilter"));
    ref->mag_filter = mag == 9728 ? KILN_FILTER_NEAREST : KILN_FILTER_LINEAR;
    /* minFilter: NEAREST, LINEAR, then {NEAREST, LINEAR}_MIPMAP_{NEAREST, LINEAR}. */
    json_int_t min = json_integer_value(json_object_get(sampler, "minFilter"));
    if (min == 9728 || min == 9729) {
        ref->min_filter = min == 9728 ? KILN_FILTER_NEAREST : KILN_FILTER_LINEAR;
        ref->mip_filter = KILN_MIP_NONE;
    } else if (min >= 9984 && min <= 9987) {
        ref->min_filter = (min - 9984) % 2 == 0 ? KILN_FILTER_NEAREST : KILN_FILTER_LINEAR;
        ref->mip_filter = min <= 9985 ? KILN_MIP_NEAREST : KILN_MIP_LINEAR;
    }
}

/* A textureInfo at obj[key]: texture index, texCoord, KHR_texture_transform,
 * and the slot's "scale" (normalTexture) or "strength" (occlusionTexture). */
static bool parse_texture_info(gltf *g, ir_asset *out, const json_t *obj, const char *jpath,
                               const char *key, size_t material, ir_texture_ref *ref,
                               const char *factor_key, float *factor) {
    const json_t *info;
    if (!gltf_get_object(g, obj, jpath, key, false, &info))
        return false;
    if (info == NULL)
        return true;
    char path[GLTF_PATH_SIZE];
    gltf_pathf(path, "%s%s%s", jpath, jpath[0] ? "." : "", key);
    int64_t texture;
    uint64_t texcoord = 0;
    if (!gltf_get_index(g, info, path, "index", true, "texture", g->n_textures, &texture) ||
        !gltf_get_uint(g, info, path, "texCoord", false, 0, UINT32_MAX, &texcoord))
        return false;
    if (factor_key != NULL) {
        double value = *factor;
        double max = strcmp(factor_key, "strength") == 0 ? 1.0 : 1e30;
        double min = strcmp(factor_key, "strength") == 0 ? 0.0 : -1e30;
        if (!gltf_get_number(g, info, path, factor_key, false, min, max, &value))
            return false;
        *factor = (float)value;
    }
    const json_t *transform = gltf_extension(info, "KHR_texture_transform");
    if (transform != NULL) {
        char tpath[GLTF_PATH_SIZE];
        gltf_pathf(tpath, "%s.extensions.KHR_texture_transform", path);
        double rotation = 0.0;
        if (!gltf_get_uint(g, transform, tpath, "texCoord", false, 0, UINT32_MAX, &texcoord) ||
            !gltf_get_floats(g, transform, tpath, "offset", 2, -1e30, 1e30, ref->offset) ||
            !gltf_get_floats(g, transform, tpath, "scale", 2, -1e30, 1e30, ref->scale) ||
            !gltf_get_number(g, transform, tpath, "rotation", false, -1e30, 1e30, &rotation))
            return false;
        ref->rotation = (float)rotation;
    }
    g->material_uv_sets[material] |= texcoord < 31 ? 1u << texcoord : 1u << 31;
    if (texcoord > 1) {
        gltf_warning(g,
                     "%s.texCoord: TEXCOORD_%llu is not kept (kiln keeps two sets); the "
                     "slot uses TEXCOORD_0",
                     path, (unsigned long long)texcoord);
        texcoord = 0;
    }
    ref->texcoord = (uint32_t)texcoord;
    read_sampler(g, texture, ref);
    ir_material *m = &out->materials[material];
    if (!gltf_extras_text(g, gltf_element(g, g->j_textures, "textures", (size_t)texture), NULL,
                          &m->texture_extras[ref - m->textures]))
        return false;
    int32_t image = g->texture_image[texture];
    if (image >= 0 && !gltf_extras_text(g, gltf_element(g, g->j_images, "images", (size_t)image),
                                        NULL, &m->image_extras[ref - m->textures]))
        return false;
    if (image >= 0) {
        uint32_t errors = g->errors;
        ref->image = material_image(g, out, (size_t)image, out->materials[material].name);
        if (g->errors > errors)
            return false;
    }
    return true;
}

/* Material extensions whose data the IR holds; any other is recorded as
 * dropped so `kiln info` can list it. */
static const char *const material_extensions_kept[] = {"KHR_materials_emissive_strength",
                                                       "KHR_materials_unlit", NULL};

static bool record_dropped_extensions(gltf *g, const json_t *obj, ir_material *m) {
    const json_t *extensions = json_object_get(obj, "extensions");
    if (!json_is_object(extensions))
        return true;
    bytebuf names = {0};
    const char *key;
    const json_t *value;
    json_object_foreach((json_t *)extensions, key, value) {
        bool kept = false;
        for (size_t k = 0; material_extensions_kept[k] != NULL; k++)
            kept |= strcmp(key, material_extensions_kept[k]) == 0;
        if (kept || key[0] == '\0' || strpbrk(key, " \t\r\n") != NULL)
            continue;
        if (names.size > 0)
            bytebuf_append(&names, " ", 1);
        bytebuf_append(&names, key, strlen(key));
    }
    (void)value;
    if (names.size == 0) {
        bytebuf_free(&names);
        return true;
    }
    bytebuf_append(&names, "", 1);
    if (names.failed) {
        bytebuf_free(&names);
        return gltf_out_of_memory(g);
    }
    m->dropped_extensions = (char *)names.data; /* NUL-terminated above */
    return true;
}

static bool import_material(gltf *g, ir_asset *out, size_t i) {
    ir_material *m = &out->materials[i];
    ir_material_init(m);
    const json_t *obj = gltf_element(g, g->j_materials, "materials", i);
    if (obj == NULL)
        return false;
    char jpath[GLTF_PATH_SIZE], ppath[GLTF_PATH_SIZE];
    gltf_pathf(jpath, "materials[%zu]", i);
    gltf_pathf(ppath, "materials[%zu].pbrMetallicRoughness", i);
    m->name = gltf_name(g, obj, "material", i);
    const char *given = json_string_value(json_object_get(obj, "name"));
    m->unnamed = given == NULL || given[0] == '\0';
    if (m->name == NULL)
        return false;
    const json_t *pbr;
    if (!gltf_get_object(g, obj, jpath, "pbrMetallicRoughness", false, &pbr))
        return false;
    if (pbr != NULL) {
        double metallic = 1.0, roughness = 1.0;
        if (!gltf_get_floats(g, pbr, ppath, "baseColorFactor", 4, 0.0, 1.0, m->base_color) ||
            !gltf_get_number(g, pbr, ppath, "metallicFactor", false, 0.0, 1.0, &metallic) ||
            !gltf_get_number(g, pbr, ppath, "roughnessFactor", false, 0.0, 1.0, &roughness) ||
            !parse_texture_info(g, out, pbr, ppath, "baseColorTexture", i,
                                &m->textures[IR_SLOT_BASE_COLOR], NULL, NULL) ||
            !parse_texture_info(g, out, pbr, ppath, "metallicRoughnessTexture", i,
                                &m->textures[IR_SLOT_METALLIC_ROUGHNESS], NULL, NULL))
            return false;
        m->metallic = (float)metallic;
        m->roughness = (float)roughness;
    }
    const char *alpha_mode = NULL;
    double cutoff = 0.5;
    bool double_sided = false;
    if (!gltf_get_floats(g, obj, jpath, "emissiveFactor", 3, 0.0, 1.0, m->emissive) ||
        !parse_texture_info(g, out, obj, jpath, "normalTexture", i, &m->textures[IR_SLOT_NORMAL],
                            "scale", &m->normal_scale) ||
        !parse_texture_info(g, out, obj, jpath, "occlusionTexture", i,
                            &m->textures[IR_SLOT_OCCLUSION], "strength", &m->occlusion_strength) ||
        !parse_texture_info(g, out, obj, jpath, "emissiveTexture", i,
                            &m->textures[IR_SLOT_EMISSIVE], NULL, NULL) ||
        !gltf_get_string(g, obj, jpath, "alphaMode", false, &alpha_mode) ||
        !gltf_get_number(g, obj, jpath, "alphaCutoff", false, 0.0, 1e30, &cutoff) ||
        !gltf_get_bool(g, obj, jpath, "doubleSided", &double_sided))
        return false;
    if (alpha_mode == NULL || strcmp(alpha_mode, "OPAQUE") == 0)
        m->alpha_mode = IR_ALPHA_OPAQUE;
    else if (strcmp(alpha_mode, "MASK") == 0)
        m->alpha_mode = IR_ALPHA_MASK;
    else if (strcmp(alpha_mode, "BLEND") == 0)
        m->alpha_mode = IR_ALPHA_BLEND;
    else {
        gltf_error(g, "%s.alphaMode: '%.32s' is not OPAQUE, MASK or BLEND", jpath, alpha_mode);
        return false;
    }
    m->alpha_cutoff = (float)cutoff;
    m->double_sided = double_sided;
    const json_t *strength = gltf_extension(obj, "KHR_materials_emissive_strength");
    if (strength != NULL) {
        char spath[GLTF_PATH_SIZE];
        gltf_pathf(spath, "%s.extensions.KHR_materials_emissive_strength", jpath);
        double value = 1.0;
        if (!gltf_get_number(g, strength, spath, "emissiveStrength", false, 0.0, 1e30, &value))
            return false;
        for (int k = 0; k < 3; k++)
            m->emissive[k] = (float)(m->emissive[k] * value);
    }
    m->unlit = gltf_extension(obj, "KHR_materials_unlit") != NULL;
    return record_dropped_extensions(g, obj, m) &&
           gltf_extras_text(g, obj, material_extensions_kept, &m->extras);
}

static bool import_materials(gltf *g, ir_asset *out) {
    g->default_material = -1;
    if (g->n_materials == 0)
        return true;
    out->materials = calloc(g->n_materials, sizeof *out->materials);
    g->material_uv_sets = calloc(g->n_materials, sizeof *g->material_uv_sets);
    if (out->materials == NULL || g->material_uv_sets == NULL)
        return gltf_out_of_memory(g);
    out->material_count = (uint32_t)g->n_materials;
    bool ok = true;
    for (size_t i = 0; i < g->n_materials && !g->stopped; i++)
        ok = import_material(g, out, i) && ok;
    return ok && !g->stopped;
}

/* ---------------------------------------------------------------------------
 * Entry point
 * ------------------------------------------------------------------------- */

static void gltf_free(gltf *g) {
    for (size_t i = 0; g->buffers != NULL && i < g->n_buffers; i++)
        free(g->buffers[i].owned);
    for (size_t i = 0; g->views != NULL && i < g->n_views; i++)
        free(g->views[i].decoded);
    for (size_t i = 0; g->accessors != NULL && i < g->n_accessors; i++)
        free(g->accessors[i].decoded);
    for (size_t i = 0; g->images != NULL && i < g->n_images; i++) {
        free(g->images[i].path);
        free(g->images[i].bytes);
    }
    free(g->buffers);
    free(g->views);
    free(g->accessors);
    free(g->images);
    free(g->texture_image);
    free(g->material_uv_sets);
    free(g->node_parent);
    free(g->node_mark);
    free(g->node_root);
    free(g->node_pre);
    free(g->node_post);
    free(g->mesh_map);
    free(g->mesh_targets);
    free(g->mesh_joints);
    json_decref(g->root);
}

bool import_gltf(cook_context *ctx, ir_asset *out) {
    memset(out, 0, sizeof *out);
    gltf g;
    memset(&g, 0, sizeof g);
    g.ctx = ctx;
    g.path = ctx->source_path;
    g.default_material = -1;
    bool ok = load_document(&g) && check_root(&g) && load_buffers(&g) &&
              gltf_prepare_accessors(&g) && check_images_and_textures(&g) &&
              import_materials(&g, out) && gltf_import_meshes(&g, out) &&
              gltf_import_nodes(&g, out) && gltf_check_scenes(&g) && gltf_import_skins(&g, out) &&
              gltf_import_cameras(&g, out) && gltf_import_lights(&g, out) &&
              gltf_import_node_objects(&g, out) && gltf_check_animations(&g) &&
              gltf_import_animations(&g, out);
    if (ok) {
        gltf_check_unused(&g);
        gltf_check_accessor_bounds(&g);
    }
    ok = ok && g.errors == 0;
    if (!ok && g.errors == 0)
        gltf_error(&g, "import failed"); /* never fail silently */
    /* Scenes last: their roots are what gltf_check_scenes validated. */
    ok = ok && gltf_import_scenes(&g, out) &&
         gltf_extras_text(&g, json_object_get(g.root, "asset"), NULL, &out->asset_extras) &&
         gltf_extras_text(&g, g.root, supported_extensions, &out->document_extras);
    gltf_free(&g);
    if (!ok)
        ir_asset_free(out);
    return ok;
}
