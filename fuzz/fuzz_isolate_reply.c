/* fuzz_isolate_reply.c — what kiln's child processes send back after running
 * a third-party library on untrusted bytes (src/cook/import/isolate_*.c): a
 * library the input exploited may write anything, so the parent reads each
 * reply as untrusted input. The first byte picks the reply (mod 3):
 *
 *   0  an isolated importer's response (import_response_read: the IR through
 *      ir_wire_read, messages, dependencies, references, absent paths), for
 *      "models/a.ply" under an input root that does not exist;
 *   1  an image decoder's reply (image_reply_read), under the limits bytes 1
 *      and 2 pick (largest side 1 + b1, at most 1 + 64 * b2 pixels);
 *   2  libdraco's reply (draco_reply_read): byte 1 the number of requests
 *      (mod 5), two bytes each (a glTF component type and 1-4 components),
 *      then one byte for the output cap (2^(b mod 24) bytes).
 *
 * The rest is the reply. What each accepts must be what the caller trusts
 * (else abort): an importer's failure is an error in its messages, which
 * stay whole lines; an image within the limits with its pixels' bytes; a
 * Draco mesh's indices below its point count and every value of its size.
 * Every pixel and value is read, so ASan sees one outside its block. Seeds:
 * tests/fuzz/seeds/isolate_reply/ (written by hand: an importer's refusal,
 * a 2x1 PNG's pixels, a Draco triangle with positions and texcoords). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cook/import/gltf_component.h"
#include "cook/import/import.h"
#include "cook/import/isolate.h"
#include "fuzz_aligned.h"

static void check(bool ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "fuzz_isolate_reply: %s\n", what);
        abort();
    }
}

static volatile uint8_t sink; /* every byte handed out is read into it */

static void touch(const uint8_t *bytes, size_t size) {
    uint8_t sum = 0;
    for (size_t i = 0; i < size; i++)
        sum ^= bytes[i];
    sink = sum;
}

static void import_reply(const uint8_t *data, size_t size) {
    cook_diag diag = {0};
    cook_context ctx = {.input_root = "/nonexistent-kiln-fuzz-root",
                        .source_path = "models/a.ply",
                        .ref = "models/a",
                        .diag = &diag};
    ir_asset asset;
    bool ok = import_response_read(&ctx, "assimp", data, size, &asset);
    check(ok || diag.errors > 0, "an importer's failure without an error");
    check(diag.text.size == 0 || diag.text.data[diag.text.size - 1] == '\n',
          "messages that are not whole lines");
    if (ok)
        ir_asset_free(&asset);
    diag_free(&diag);
    strlist_free(&ctx.dependencies);
    strlist_free(&ctx.references);
    strlist_free(&ctx.absent);
}

static void image_reply(const uint8_t *data, size_t size) {
    if (size < 2)
        return;
    image_limits limits = {.max_dimension = 1u + data[0], .max_pixels = 1u + 64u * data[1]};
    uint8_t *reply = fuzz_copy(data + 2, size - 2);
    if (reply == NULL)
        return;
    ir_decoded_image image;
    char reason[256] = "";
    if (!image_reply_read(reply, size - 2, "libspng", &limits, &image, reason, sizeof reason)) {
        check(reason[0] != '\0', "an image refused without a reason");
        free(reply);
        return;
    }
    check(image.width >= 1 && image.height >= 1 && image.width <= limits.max_dimension &&
              image.height <= limits.max_dimension &&
              (uint64_t)image.width * image.height <= limits.max_pixels,
          "an image outside its limits");
    check(image.rgba8 != NULL && image.rgbaf == NULL && image.format != NULL,
          "an image without its pixels or format");
    check(image.source_channels >= 1 && image.source_channels <= 4 && image.source_bits >= 1 &&
              image.source_bits <= 16,
          "an image's source channels or bits out of range");
    touch(image.rgba8, (size_t)image.width * image.height * 4);
    ir_decoded_image_free(&image);
}

static void draco_reply(const uint8_t *data, size_t size) {
    static const uint32_t types[] = {5120, 5121, 5122, 5123, 5125, 5126};
    if (size < 1)
        return;
    size_t count = data[0] % 5u, at = 1;
    if (size < at + 2 * count + 1)
        return;
    draco_request requests[4];
    for (size_t r = 0; r < count; r++, at += 2)
        requests[r] = (draco_request){.unique_id = (uint32_t)r,
                                      .component_type = types[data[at] % 6u],
                                      .components = 1u + data[at + 1] % 4u};
    uint64_t max_bytes = 1ull << (data[at++] % 24u);
    draco_mesh mesh;
    char reason[256] = "";
    if (!draco_reply_read(data + at, size - at, requests, count, max_bytes, &mesh, reason,
                          sizeof reason)) {
        check(reason[0] != '\0', "a mesh refused without a reason");
        return;
    }
    check(mesh.value_count == count, "a mesh without a value array per request");
    uint64_t total = (uint64_t)mesh.face_count * 3 * sizeof(uint32_t);
    for (size_t i = 0; i < (size_t)mesh.face_count * 3; i++)
        check(mesh.indices[i] < mesh.point_count, "an index past the points");
    for (size_t r = 0; r < count; r++) {
        size_t bytes = (size_t)mesh.point_count * requests[r].components *
                       gltf_component_size(requests[r].component_type);
        touch(mesh.values[r], bytes);
        total += bytes;
    }
    check(total <= max_bytes, "a mesh above its cap");
    draco_mesh_free(&mesh);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1)
        return 0;
    switch (data[0] % 3u) {
    case 0:
        import_reply(data + 1, size - 1);
        break;
    case 1:
        image_reply(data + 1, size - 1);
        break;
    default:
        draco_reply(data + 1, size - 1);
        break;
    }
    return 0;
}
