/*
 * isolate_decode.c — the third-party decoders kiln calls on untrusted bytes
 * (libspng, libjpeg, stb_image through image.c; libdraco through
 * draco_decode.cpp) as jobs of a reused child process (isolate.h).
 *
 * image_decode and draco_decode_mesh are the entry points every caller uses;
 * each sends the bytes to a server of its kind ("image", "draco": the server
 * decodes them itself and stays for the next asset) unless KILN_ISOLATE says
 * otherwise (isolate_enabled), and checks the reply as untrusted input before
 * handing back exactly what the in-process call would have: a decoded image
 * must be the size its header promised within the caller's limits, a mesh's
 * indices below its point count and its values the sizes requested. A crash,
 * a hang, a limit or a malformed reply is the asset's error, naming the
 * library and the file ("libspng crashed decoding x.png (signal 11,
 * SIGSEGV)"). Kiln's own Radiance HDR reader stays in process.
 *
 * Image request: u32 "KIMQ", u32 version, strings name hint and test fault,
 * u32 max dimension, u64 max pixels, then the file as a blob. Response, read
 * from its end: ok, the RGBA8 pixels then u32 width, height, source
 * channels, source bits and format (an index of image_formats); else the
 * reason's bytes; then the footer u32 "KIMS", u32 version, u8 ok. Pixels
 * first, so that neither side copies them in memory: the child's response is
 * the decoder's own buffer with the rest appended, the parent's is the
 * buffer it read the pipe into, cut after the pixels.
 *
 * Draco request: u32 "KDRQ", u32 version, strings name and test fault,
 * u64 max bytes, u32 count and (unique id, component type, components) per
 * request, then the data as a blob. Response: u32 "KDRS", u32 version, u8 ok;
 * ok: u32 points, u32 faces, a blob of indices, a blob per request; else a
 * string reason.
 *
 * Part of the import stage: may use core and common.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/checked.h"
#include "cook/import/draco_decode.h"
#include "cook/import/gltf_component.h"
#include "cook/import/import.h"
#include "cook/import/isolate.h"

#define IMAGE_REQUEST_MAGIC 0x514d494bu  /* "KIMQ" */
#define IMAGE_RESPONSE_MAGIC 0x534d494bu /* "KIMS" */
#define DRACO_REQUEST_MAGIC 0x5152444bu  /* "KDRQ" */
#define DRACO_RESPONSE_MAGIC 0x5352444bu /* "KDRS" */
#define DECODE_WIRE_VERSION 1u
#define REASON_MAX 400u

/* A reason the child sent: kept short; its bytes are escaped where printed.
 * An empty one is no reason (the asset's error would end in nothing). */
static void copy_reason(wire_reader *in, const char *library, char *reason, size_t reason_size) {
    char *text = NULL;
    if (!wire_get_string(in, &text) || text == NULL || text[0] == '\0' || strlen(text) > REASON_MAX)
        snprintf(reason, reason_size, "%s sent an invalid result", library);
    else
        snprintf(reason, reason_size, "%s", text);
    free(text);
}

/* The head of every decoder's request: magic, version, the file's name and
 * the tests' fault hook; the job's own fields follow. */
static void put_request_head(bytebuf *head, uint32_t magic, const char *name) {
    wire_put_u32(head, magic);
    wire_put_u32(head, DECODE_WIRE_VERSION);
    wire_put_string(head, name != NULL ? name : "");
    wire_put_string(head, isolate_test_fault_hook());
}

/* In the child: a decoder's request as put_request_head and the job's own
 * fields laid it out, the file's bytes last. */
typedef struct decode_request {
    char *name, *fault;
    const uint8_t *bytes; /* the file, inside the request */
    size_t size;
    char injected; /* the tests' fault hook: 'g' for a garbage reply */
} decode_request;

/* Reads the head; the job's fields follow in `in`. */
static bool request_head(wire_reader *in, uint32_t magic, decode_request *r) {
    *r = (decode_request){0};
    return wire_get_u32(in) == magic && wire_get_u32(in) == DECODE_WIRE_VERSION &&
           wire_get_string(in, &r->name) && wire_get_string(in, &r->fault);
}

/* Reads the file's bytes, which end the request; `ok` says whether all
 * before them made sense. False (r freed) when the request is not whole;
 * else the tests' fault hook runs (it may crash or hang here). */
static bool request_file(wire_reader *in, bool ok, decode_request *r) {
    ok = ok && wire_get_blob(in, &r->bytes, &r->size) && wire_left(in) == 0 && !in->failed;
    if (!ok) {
        free(r->name);
        free(r->fault);
        return false;
    }
#ifdef KILN_TEST_HOOKS
    r->injected = isolate_test_fault(r->fault, r->name);
#endif
    return true;
}

/* The reply is written: the tests' "garbage" cuts it short; r is freed. */
static void request_done(decode_request *r, bytebuf *response) {
    if (r->injected == 'g' && response->size > 3)
        response->size -= 3;
    free(r->name);
    free(r->fault);
}

/* Sends a request, `head` (freed here) followed by the file's `size` bytes as
 * its blob, to a server of `job` within `limits`. False with the message
 * naming `library` and the file when the child did not answer. */
static bool run_decoder(const char *job, const char *library, bytebuf *head, const uint8_t *bytes,
                        size_t size, const char *name, const isolate_limits *limits,
                        isolate_outcome *outcome, char *reason, size_t reason_size) {
    wire_put_u64(head, size); /* the blob's length; its bytes follow */
    if (head->failed) {
        bytebuf_free(head);
        snprintf(reason, reason_size, "out of memory");
        return false;
    }
    const isolate_part parts[] = {{head->data, head->size}, {bytes, size}};
    isolate_run(job, parts, 2, limits, outcome);
    bytebuf_free(head);
    if (outcome->status == ISOLATE_DONE)
        return true;
    isolate_failure_text(outcome, limits, library, "decoding", isolate_file_name(name), reason,
                         reason_size);
    return false;
}

/* ---------------------------------------------------------------------------
 * Images
 * ------------------------------------------------------------------------- */

static const char *const image_formats[] = {"png", "jpeg", "tga", "bmp"};
#define IMAGE_FORMAT_COUNT (sizeof image_formats / sizeof image_formats[0])
#define IMAGE_FIELDS_BYTES 20u /* width, height, channels, bits, format */
#define IMAGE_FOOTER_BYTES 9u  /* magic, version, ok */

static bool run_image_job(const uint8_t *request, size_t size, bytebuf *response) {
    wire_reader in = {.data = request, .size = size};
    decode_request r;
    bool ok = request_head(&in, IMAGE_REQUEST_MAGIC, &r);
    image_limits limits = {0};
    limits.max_dimension = wire_get_u32(&in);
    limits.max_pixels = wire_get_u64(&in);
    if (!request_file(&in, ok, &r))
        return false;
    ir_decoded_image image;
    char reason[REASON_MAX + 1] = "";
    ok = image_decode_in_process(r.bytes, r.size, r.name, &limits, &image, reason, sizeof reason);
    uint32_t format = 0;
    while (ok && format < IMAGE_FORMAT_COUNT && strcmp(image.format, image_formats[format]) != 0)
        format++;
    if (ok) {
        /* The response takes the decoder's buffer as it is (the job was
         * handed an empty one). */
        size_t pixel_bytes = (size_t)image.width * image.height * 4;
        *response = (bytebuf){.data = image.rgba8, .size = pixel_bytes, .cap = pixel_bytes};
        image.rgba8 = NULL;
        wire_put_u32(response, image.width);
        wire_put_u32(response, image.height);
        wire_put_u32(response, image.source_channels);
        wire_put_u32(response, image.source_bits);
        wire_put_u32(response, format);
    } else {
        bytebuf_append(response, reason, strlen(reason));
    }
    wire_put_u32(response, IMAGE_RESPONSE_MAGIC);
    wire_put_u32(response, DECODE_WIRE_VERSION);
    wire_put_u8(response, ok);
    request_done(&r, response);
    ir_decoded_image_free(&image);
    return true;
}

/* The reply, checked against what was asked; *out takes the pixels and the
 * reply's buffer with them (else the caller frees it). */
bool image_reply_read(uint8_t *data, size_t size, const char *library, const image_limits *limits,
                      ir_decoded_image *out, char *reason, size_t reason_size) {
    wire_reader footer = {.data =
                              data + (size >= IMAGE_FOOTER_BYTES ? size - IMAGE_FOOTER_BYTES : 0),
                          .size = size >= IMAGE_FOOTER_BYTES ? IMAGE_FOOTER_BYTES : 0};
    if (wire_get_u32(&footer) != IMAGE_RESPONSE_MAGIC ||
        wire_get_u32(&footer) != DECODE_WIRE_VERSION) {
        snprintf(reason, reason_size, "%s sent an invalid result: not a reply of this version",
                 library);
        return false;
    }
    uint8_t ok = wire_get_u8(&footer);
    size_t body = size - IMAGE_FOOTER_BYTES;
    if (ok == 0) {
        if (body == 0 || body > REASON_MAX || memchr(data, '\0', body) != NULL)
            snprintf(reason, reason_size, "%s sent an invalid result", library);
        else
            snprintf(reason, reason_size, "%.*s", (int)body, (const char *)data);
        return false;
    }
    wire_reader fields = {.data =
                              data + (body >= IMAGE_FIELDS_BYTES ? body - IMAGE_FIELDS_BYTES : 0),
                          .size = body >= IMAGE_FIELDS_BYTES ? IMAGE_FIELDS_BYTES : 0};
    uint32_t width = wire_get_u32(&fields), height = wire_get_u32(&fields);
    uint32_t channels = wire_get_u32(&fields), bits = wire_get_u32(&fields);
    uint32_t format = wire_get_u32(&fields);
    uint64_t pixel_count = (uint64_t)width * height;
    if (ok != 1 || fields.failed || format >= IMAGE_FORMAT_COUNT || width == 0 || height == 0 ||
        width > limits->max_dimension || height > limits->max_dimension ||
        pixel_count > limits->max_pixels || body - IMAGE_FIELDS_BYTES != pixel_count * 4 ||
        channels < 1 || channels > 4 || bits < 1 || bits > 16) {
        snprintf(reason, reason_size, "%s sent an invalid result (%zu bytes)", library, size);
        return false;
    }
    size_t pixel_bytes = (size_t)pixel_count * 4;
    uint8_t *shrunk = realloc(data, pixel_bytes); /* in place: it only gets shorter */
    *out = (ir_decoded_image){.width = width,
                              .height = height,
                              .rgba8 = shrunk != NULL ? shrunk : data,
                              .source_channels = channels,
                              .source_bits = bits,
                              .format = image_formats[format]};
    return true;
}

bool image_decode(const uint8_t *bytes, size_t size, const char *name_hint,
                  const image_limits *limits, ir_decoded_image *out, char *reason,
                  size_t reason_size) {
    const char *library = image_decoder_library(bytes, size, name_hint);
    if (library == NULL || !isolate_enabled(true))
        return image_decode_in_process(bytes, size, name_hint, limits, out, reason, reason_size);
    memset(out, 0, sizeof *out);
    image_limits defaults = {IMAGE_DEFAULT_MAX_DIMENSION, IMAGE_DEFAULT_MAX_PIXELS, 0.0};
    if (limits == NULL)
        limits = &defaults;
    isolate_limits process_limits;
    if (!isolate_library_limits(limits->timeout_seconds, &process_limits, reason, reason_size))
        return false;
    bytebuf head = {0};
    put_request_head(&head, IMAGE_REQUEST_MAGIC, name_hint);
    wire_put_u32(&head, limits->max_dimension);
    wire_put_u64(&head, limits->max_pixels);
    isolate_outcome outcome;
    if (!run_decoder("image", library, &head, bytes, size, name_hint, &process_limits, &outcome,
                     reason, reason_size))
        return false;
    bool ok = image_reply_read(outcome.response, outcome.response_size, library, limits, out,
                               reason, reason_size);
    if (!ok)
        free(outcome.response);
    return ok;
}

/* ---------------------------------------------------------------------------
 * Draco meshes
 * ------------------------------------------------------------------------- */

#define DRACO_MAX_REQUESTS 64u

static bool run_draco_job(const uint8_t *request, size_t size, bytebuf *response) {
    wire_reader in = {.data = request, .size = size};
    decode_request r;
    bool ok = request_head(&in, DRACO_REQUEST_MAGIC, &r);
    uint64_t max_bytes = wire_get_u64(&in);
    uint32_t count = wire_get_count(&in, 12);
    draco_request requests[DRACO_MAX_REQUESTS];
    ok = ok && count <= DRACO_MAX_REQUESTS;
    for (uint32_t i = 0; ok && i < count; i++) {
        requests[i].unique_id = wire_get_u32(&in);
        requests[i].component_type = wire_get_u32(&in);
        requests[i].components = wire_get_u32(&in);
    }
    if (!request_file(&in, ok, &r))
        return false;
    draco_mesh mesh;
    char reason[512] = "";
    ok = draco_decode_mesh_in_process(r.bytes, r.size, requests, count, max_bytes, &mesh, reason,
                                      sizeof reason);
    wire_put_u32(response, DRACO_RESPONSE_MAGIC);
    wire_put_u32(response, DECODE_WIRE_VERSION);
    wire_put_u8(response, ok);
    if (ok) {
        wire_put_u32(response, mesh.point_count);
        wire_put_u32(response, mesh.face_count);
        wire_put_blob(response, mesh.indices, (size_t)mesh.face_count * 3 * sizeof(uint32_t));
        for (uint32_t i = 0; i < count; i++)
            wire_put_blob(response, mesh.values[i],
                          (size_t)mesh.point_count * requests[i].components *
                              gltf_component_size(requests[i].component_type));
    } else {
        wire_put_string(response, reason);
    }
    request_done(&r, response);
    if (ok)
        draco_mesh_free(&mesh);
    return true;
}

static uint8_t *copy_bytes(const uint8_t *data, size_t size) {
    uint8_t *copy = malloc(size > 0 ? size : 1);
    if (copy != NULL && size > 0)
        memcpy(copy, data, size);
    return copy;
}

bool draco_reply_read(const uint8_t *data, size_t size, const draco_request *requests,
                      size_t request_count, uint64_t max_bytes, draco_mesh *out, char *reason,
                      size_t reason_size) {
    static const char library[] = "libdraco";
    wire_reader in = {.data = data, .size = size};
    if (wire_get_u32(&in) != DRACO_RESPONSE_MAGIC || wire_get_u32(&in) != DECODE_WIRE_VERSION) {
        snprintf(reason, reason_size, "%s sent an invalid result: not a reply of this version",
                 library);
        return false;
    }
    uint8_t ok = wire_get_u8(&in);
    if (ok == 0) {
        copy_reason(&in, library, reason, reason_size);
        return false;
    }
    uint32_t points = wire_get_u32(&in), faces = wire_get_u32(&in);
    const uint8_t *indices = NULL;
    size_t index_bytes = 0;
    bool valid = ok == 1 && wire_get_blob(&in, &indices, &index_bytes) &&
                 index_bytes == (uint64_t)faces * 3 * sizeof(uint32_t);
    uint64_t total = index_bytes;
    const uint8_t *values[DRACO_MAX_REQUESTS];
    size_t value_bytes[DRACO_MAX_REQUESTS];
    for (size_t r = 0; valid && r < request_count; r++) {
        uint64_t expected = (uint64_t)points * requests[r].components *
                            gltf_component_size(requests[r].component_type);
        valid = wire_get_blob(&in, &values[r], &value_bytes[r]) && value_bytes[r] == expected;
        total += value_bytes[r];
    }
    valid = valid && wire_left(&in) == 0 && total <= max_bytes;
    for (size_t i = 0; valid && i < (size_t)faces * 3; i++) {
        uint32_t index;
        memcpy(&index, indices + i * sizeof index, sizeof index);
        valid = index < points;
    }
    if (!valid) {
        snprintf(reason, reason_size, "%s sent an invalid result (%zu bytes)", library, size);
        return false;
    }
    *out = (draco_mesh){.point_count = points, .face_count = faces, .value_count = request_count};
    out->indices = (uint32_t *)(void *)copy_bytes(indices, index_bytes);
    out->values = calloc(request_count > 0 ? request_count : 1, sizeof *out->values);
    bool copied = out->indices != NULL && out->values != NULL;
    for (size_t r = 0; copied && r < request_count; r++)
        copied = (out->values[r] = copy_bytes(values[r], value_bytes[r])) != NULL;
    if (!copied) {
        draco_mesh_free(out);
        snprintf(reason, reason_size, "out of memory");
    }
    return copied;
}

bool draco_decode_mesh(const uint8_t *data, size_t size, const draco_request *requests,
                       size_t request_count, uint64_t max_bytes, const char *source_name,
                       double timeout_seconds, draco_mesh *out, char *error, size_t error_size) {
    if (!isolate_enabled(true) || request_count > DRACO_MAX_REQUESTS)
        return draco_decode_mesh_in_process(data, size, requests, request_count, max_bytes, out,
                                            error, error_size);
    memset(out, 0, sizeof *out);
    isolate_limits limits;
    if (!isolate_library_limits(timeout_seconds, &limits, error, error_size))
        return false;
    bytebuf head = {0};
    put_request_head(&head, DRACO_REQUEST_MAGIC, source_name);
    wire_put_u64(&head, max_bytes);
    wire_put_u32(&head, (uint32_t)request_count);
    for (size_t r = 0; r < request_count; r++) {
        wire_put_u32(&head, requests[r].unique_id);
        wire_put_u32(&head, requests[r].component_type);
        wire_put_u32(&head, requests[r].components);
    }
    isolate_outcome outcome;
    if (!run_decoder("draco", "libdraco", &head, data, size, source_name, &limits, &outcome, error,
                     error_size))
        return false;
    bool ok = draco_reply_read(outcome.response, outcome.response_size, requests, request_count,
                               max_bytes, out, error, error_size);
    free(outcome.response);
    return ok;
}

/* The decoders: one process serves asset after asset of its kind. */
static const isolate_job decode_jobs[] = {{"image", run_image_job, true},
                                          {"draco", run_draco_job, true}};

__attribute__((constructor(ISOLATE_REGISTER_PRIORITY))) static void register_jobs(void) {
    isolate_register_jobs(decode_jobs, sizeof decode_jobs / sizeof decode_jobs[0]);
}
